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

// The output folder of a run; an earlier run's results in it are refused unless --overwrite.
struct OutputOptions {
    std::string outdir = "gpurec_output";
    bool overwrite = false;
};

void addInputOptions(CLI::App& app, InputOptions& o);
// `names`: "-p,--prefix" for the analysis commands, "-o,--output" for simulate.
void addOutputOptions(CLI::App& app, OutputOptions& o, const std::string& names = "-p,--prefix");
// Checks the folder is writable and holds no earlier results of the command (`owned` entries),
// or removes them with --overwrite; call before loading so a bad folder fails at once.
void prepareOutputs(const OutputOptions& o, const std::vector<std::string>& owned);
void addRateOptions(CLI::App& app, RateOptions& o);
void addEngineOptions(CLI::App& app, EngineOptions& o, bool withDevice);

// Loads the dataset and prints excluded families; exits with a message on per-family errors.
LoadedInput loadOrExplain(const InputOptions& o, int threads);
SolverOptions solverOptionsFrom(const EngineOptions& o);
RateParameters initialRates(const RateOptions& o, const Dataset& data, RateMode mode);
BackendChoice backendFrom(const EngineOptions& o, std::shared_ptr<const Dataset> data);
// Adds the inputs, device, solver options and excluded families to a result.json object.
void addRunDescription(nlohmann::json& j, const InputOptions& input, const LoadedInput& loaded,
                       const std::string& device, const SolverOptions& solver);
// "20GB", "512MiB", "1e9" -> bytes.
double parseByteSize(const std::string& text);

} // namespace gpurec::cli
