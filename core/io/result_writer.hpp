#pragma once
// Result files: AleRax's per_fam_likelihoods.txt layout, and result.json.
#include "data/dataset.hpp"
#include "engine/backend.hpp"
#include "model/rate_parameters.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace gpurec {

// "family LL" per line, natural log, sorted by increasing LL (ties by name), 17 significant digits.
void writePerFamilyLikelihoods(const std::string& path, const Dataset& data, const Evaluation& eval);

nlohmann::json evaluationJson(const Dataset& data, const Evaluation& eval);
nlohmann::json solverOptionsJson(const SolverOptions& options);
void writeJson(const std::string& path, const nlohmann::json& j);
// Creates the folder (and parents); throws std::runtime_error naming it on failure.
void ensureDirectory(const std::string& path);

} // namespace gpurec
