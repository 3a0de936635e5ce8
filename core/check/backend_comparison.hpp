#pragma once
// A backend against the CPU reference, as `gpurec check` prints it and the backend conformance
// suite asserts it: the same datasets, rate modes, schedules, random rates and tolerances, so the
// suite run by CTest and the command run by hand test the same thing.
#include "engine/backend.hpp"
#include "engine/relative_error.hpp"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace gpurec {

constexpr double kLikelihoodTolerance = 1e-10;      // worst relative error of a family's log-likelihood
constexpr double kGradientTolerance = 1e-8;         // worst relative error of a gradient component
constexpr double kComparedAdjointTolerance = 1e-16; // bicgstab_tol of both sides of a comparison

struct ComparisonDataset {
    std::string name, speciesTree, families;
    int minCoveredSpecies = 4;
    std::string transferConstraint = "PARENTS";
    std::string origination = "UNIFORM";
    std::string fractionMissingFile; // empty: none
    EventModel events;               // --rec-model, --no-dup, --no-dl, --no-tl, --pairwise-transfers
    int speciationCategories = 1;    // --speciation-gamma-categories
    std::string classFile;           // a class parametrisation, used in place of per-species rates
    std::string highwaysFile;        // --highways-file; empty: none
    bool pruneSpeciesTree = false;   // --prune-species-tree
    // Whether the dataset's θ has more than rates (weights, a shape, classes, highways): its rows are
    // the comparisons alone, the suite's table, sampling and re-planning checks take plain rates.
    bool extendedParameters() const {
        return origination == "OPTIMIZE" || speciationCategories > 1 || !classFile.empty() ||
               !highwaysFile.empty() || events.pairwiseTransfers;
    }
};

// tiny, alerax/*, primates and simulated_2 under `dataRoot`, then tiny and simulated_2 with
// --pairwise-transfers, simulated_2 with --prune-species-tree, and every sample under `samplesRoot`,
// those that exist, in that order.
std::vector<ComparisonDataset> referenceDatasets(const std::string& dataRoot, const std::string& samplesRoot);
// Families simulated under the model into `folder` (rates drawn per family and species, with tree
// samples), then the same families under the NONE constraint (the GPU's iterated self loop), under
// RELDATED (the same loop with recipient sums over the rank order of the tree's dating), under LCA
// origination (each family's root seed and conditioning at one node), with a fraction of every
// leaf's genes missing (a fraction-missing file written beside them), and under the model's
// variants: UndatedDL, --no-dup with --no-dl, --no-dl, and --no-tl (the Π loop without terms the E
// adjoint keeps), then with fitted origination weights (OPTIMIZE), three speciation gamma
// categories, a class parametrisation file with origination weights per class, and three transfer
// highways (a highways file written beside them), also with --no-tl, and two leaf-to-leaf highways
// under RELDATED; last each family on its pruned species tree (--prune-species-tree), also under
// NONE with LCA origination and --no-tl, and with fitted origination weights.
std::vector<ComparisonDataset> simulatedDatasets(int families, std::uint64_t seed, const std::string& folder);

struct ComparisonCase {
    RateMode mode;
    Schedule schedule;
};
// Every rate mode with the converged schedule, and the global mode with AleRax's.
const std::vector<ComparisonCase>& comparisonCases();

// Log2 rates drawn uniformly between log2 0.005 and log2 0.5.
RateParameters randomRates(RateMode mode, const Dataset& data, std::mt19937_64& rng);
// θ of case `c` on dataset `d` (loaded as `data`): random rates, and as the dataset has them random
// origination weights, highway rates, a random shape α of its speciation categories, or its class
// file's classes (in place of per-species rates); nullopt where the case does not apply (per-family
// rates with weights, a shape or classes).
std::optional<RateParameters> randomParameters(const ComparisonDataset& d, const ComparisonCase& c,
                                               const Dataset& data, std::mt19937_64& rng);

struct ComparisonRow {
    std::string dataset, mode, schedule;
    int families = 0;
    long long clades = 0;
    double likelihoodError = 0, gradientError = 0;
    long long unwritten = 0;   // poisoned entries left unwritten (backends with diagnostics)
    std::string batches = "-"; // "same" when a split plan reproduced the one-batch results bit for bit
    bool passed = false;
};

// Evaluates θ on both backends, every time cold (warm starts cleared), forward and with the gradient, and
// again on `candidate` under a plan of about three batches (`limits` otherwise) when there are three families
// or more. `candidate` should poison its outputs (BackendDiagnostics) for `unwritten`. Both backends'
// adjoint solves run to kComparedAdjointTolerance (tighter `bicgstab_tol` only): the comparison is of the
// implementations, and at the default 1e-14 an iterated self loop's (NONE, RELDATED) gradient is only
// within ~5e-8 of the exact one on either backend.
ComparisonRow compareBackends(LikelihoodBackend& reference, LikelihoodBackend& candidate, const Dataset& data,
                              const std::string& datasetName, const ComparisonCase& c,
                              const RateParameters& theta, const SolverOptions& options,
                              const BatchLimits& limits);

} // namespace gpurec
