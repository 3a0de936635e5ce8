#pragma once
// What one gpurec._engine.Model holds: the loaded input, the ReconModel (θ, backend, warm starts)
// and how the input was read. Loaded the way the CLI's loadOrExplain and backendFrom do it.
#include "data/load.hpp"
#include "optim/recon_model.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gpurec::python {

struct ModelInput {
    InputPaths paths;
    std::string mode = "global";
    std::string device = "auto";
    Rates rates;
    std::string transferConstraint = "PARENTS";
    std::string rooting = "UNIFORM";
    std::string origination = "UNIFORM"; // --origination: UNIFORM, ROOT, LCA or OPTIMIZE
    EventModel events;                   // --rec-model, --no-dup, --no-dl, --no-tl, --pairwise-transfers
    int gammaCategories = 1;             // --speciation-gamma-categories
    double gammaAlpha = 1.0;             // --gamma-alpha
    bool pruneSpeciesTree = false;       // --prune-species-tree
    int minCoveredSpecies = 4;
    bool strict = true; // a bad family raises InputError; false skips it (listed in `skipped`)
    int threads = 0;
    double gpuMemoryBytes = 0;
    SolverOptions solver;
};

struct EngineModel {
    explicit EngineModel(const ModelInput& input);

    ModelInput input;
    LoadedInput loaded;
    std::string deviceDescription, deviceNote;
    std::unique_ptr<ReconModel> model;

    // θ from the rate rows `rates` (shape [3], [S,3] or [F,3]) and the entries after them, `extra`
    // (origination weights, highways, the shape); std::invalid_argument for a wrong size.
    RateParameters parametersFrom(const std::vector<double>& rates, const std::vector<double>& extra) const;
    // How many θ entries the rate rows take (the rest are `extra`).
    std::size_t rateEntryCount() const;
};

} // namespace gpurec::python
