#pragma once
// Option groups shared by the gpurec subcommands, and the input/rates set-up they all need.
#include "data/load.hpp"
#include "device_selection.hpp"
#include "engine/backend.hpp"
#include "model/rate_parameters.hpp"
#include "model/solver_options.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpurec::cli {

struct InputOptions {
    std::string species;
    std::string families;
    std::vector<std::string> geneTrees;
    std::string transferConstraint = "PARENTS";
    std::string rooting = "UNIFORM";
    int minCoveredSpecies = 4;
    bool strict = false; // a bad family is fatal instead of skipped
};

struct RateOptions {
    double d = 0.1, l = 0.1, t = 0.1;
    std::string ratesFile;
};

struct EngineOptions {
    std::string device = "cpu";
    std::string schedule = "converged";
    int threads = 0;
    std::vector<std::string> solverSettings; // name=value
    std::string gpuMemoryLimit;
};

void addInputOptions(CLI::App& app, InputOptions& o);
void addRateOptions(CLI::App& app, RateOptions& o);
void addEngineOptions(CLI::App& app, EngineOptions& o, bool withDevice);

// Loads the dataset and prints warnings, excluded and skipped (bad) families on stderr. A bad
// family is skipped, and counted for the exit status, unless --strict makes it fatal.
LoadedInput loadOrExplain(const InputOptions& o, int threads);
// Families skipped for bad input by the loadOrExplain calls of this process (main() exits with 3).
int skippedFamilyCount();
SolverOptions solverOptionsFrom(const EngineOptions& o);
RateParameters initialRates(const RateOptions& o, const Dataset& data, RateMode mode);
BackendChoice backendFrom(const EngineOptions& o, std::shared_ptr<const Dataset> data);
// Adds the inputs, device, solver options, excluded and skipped families to a result.json object.
void addRunDescription(nlohmann::json& j, const InputOptions& input, const LoadedInput& loaded,
                       const std::string& device, const SolverOptions& solver);
// The part of addRunDescription every command writes: "input_files" (resolved paths),
// "excluded_families" and "skipped".
void addInputReport(nlohmann::json& j, const InputOptions& input, const LoadedInput& loaded);
// "20GB", "512MiB", "1e9" -> bytes.
double parseByteSize(const std::string& text);

} // namespace gpurec::cli
