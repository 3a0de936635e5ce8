#pragma once
// The state an optimisation run needs to continue elsewhere or later: the best point so far with
// its NLL, the optimiser settings, the counts, and the client's inputs and options. The CLI writes
// it as OUTDIR/checkpoint.json after every iteration (gpurec optimize --resume reads it); the
// workbench's sessions and autosave embed the same JSON. Numbers are written so that they read
// back bit-exactly (nlohmann/json prints the shortest round-trip form of every double).
#include "data/dataset.hpp"
#include "model/rate_parameters.hpp"
#include "optim/optimizer.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpurec {

constexpr int kCheckpointFormatVersion = 1;

struct OptimizationCheckpoint {
    RateMode mode = RateMode::Global;
    std::vector<std::string> rowNames;   // one per row of θ: "global", species or family names
    std::vector<std::string> extraNames; // θ's entries after the rows (RateParameters::extraEntryNames)
    std::vector<double> theta;           // the best point: log2 D, L, T per row, then the extra entries
    double bestNllBits = 0.0;            // NaN: not evaluated yet (written as null)
    OptimizerSettings settings;
    ResumePoint progress;   // iterations and evaluations so far, starting NLL, seconds spent
    bool finished = false;  // the run ended by itself (converged, iteration cap, no progress)
    std::string stopReason; // why it ended or was interrupted; empty while it runs
    nlohmann::json run = nlohmann::json::object(); // the client's inputs and options, verbatim
};

// Row names of θ in its mode (none for classes): how a checkpoint's rates are matched to the data.
std::vector<std::string> rateRowNames(RateMode mode, const Dataset& data);

// A checkpoint of `theta` (its rows named from `data`); the rest is left at its defaults.
OptimizationCheckpoint checkpointOf(const RateParameters& theta, const Dataset& data);
// The checkpoint's θ in the parametrisation of `shape` (θ of the run's options on `data`). Throws
// std::runtime_error when its mode, rows or other entries are not exactly those (another species
// tree, other families, another parametrisation).
RateParameters checkpointParameters(const OptimizationCheckpoint& checkpoint, const Dataset& data,
                                    const RateParameters& shape);

nlohmann::json optimizerSettingsJson(const OptimizerSettings& settings);
// Throws std::runtime_error naming the field; validates the settings.
OptimizerSettings optimizerSettingsFromJson(const nlohmann::json& json);

nlohmann::json checkpointToJson(const OptimizationCheckpoint& checkpoint);
// Throws std::runtime_error saying what is missing or wrong.
OptimizationCheckpoint checkpointFromJson(const nlohmann::json& json);

// Atomic (writeFileAtomically): a crash leaves the previous checkpoint.
void writeCheckpoint(const std::string& path, const OptimizationCheckpoint& checkpoint);
// Throws std::runtime_error naming the file and the problem.
OptimizationCheckpoint readCheckpoint(const std::string& path);

} // namespace gpurec
