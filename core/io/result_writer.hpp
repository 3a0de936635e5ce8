#pragma once
// Result files: AleRax's per_fam_likelihoods.txt and model_parameters.txt layouts, and result.json.
#include "data/dataset.hpp"
#include "engine/backend.hpp"
#include "model/rate_parameters.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace gpurec {

// "family LL" per line, natural log, sorted by increasing LL (ties by name), 17 significant digits.
void writePerFamilyLikelihoods(const std::string& path, const Dataset& data, const Evaluation& eval);
// "# node D L T" then one line per species node (specieswise), or the global rates on every node.
void writeModelParameters(const std::string& path, const SpeciesTree& species, const RateParameters& theta, int family = 0);
// Reads AleRax's model_parameters.txt into a specieswise (or global, if all rows agree) parameter set.
RateParameters readModelParameters(const std::string& path, const SpeciesTree& species, int familyCount);

nlohmann::json evaluationJson(const Dataset& data, const Evaluation& eval);
nlohmann::json solverOptionsJson(const SolverOptions& options);
void writeJson(const std::string& path, const nlohmann::json& j);
// Creates the folder (and parents); throws std::runtime_error naming it on failure.
void ensureDirectory(const std::string& path);

} // namespace gpurec
