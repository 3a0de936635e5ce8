#pragma once
// AleRax's transfer-highway inference (../shared/docs/alerax-files.md §2): candidates from the
// transfers of one reconciliation sampled per family (or from a user's file), each tested in turn
// by the log-likelihood it adds at fixed rates, accepted by a one-parameter BIC, then the accepted
// highways' rates fitted together. Writes AleRax's files under `folder`:
// candidate_highways.txt, candidate_tests/transferll_<src>_to_<dest>.txt, accepted_highways.txt.
#include "engine/backend_factory.hpp"
#include "highways/highway_files.hpp"
#include "optim/optimizer.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpurec {

struct HighwaySearchSettings {
    int candidatesStep1 = 100; // automatic candidates kept at most (AleRax's --highway-candidates-step1)
    int candidatesStep2 =
        50; // accepted highways kept at most before the joint fit (--highway-candidates-step2)
    std::string candidatesFile; // --highway-candidates-file; empty: candidates from the sampled transfers
    std::uint64_t seed = 123;   // of the sampled reconciliations
    SolverOptions solver;
    OptimizerSettings jointFit; // of the accepted highways' rates (the rates held)
};

// One candidate's test, in test order.
struct HighwayTest {
    HighwayRecord record; // its highway; rate and llDiff where it was accepted
    std::string outcome;  // "accepted", "no improvement", "BIC", "not allowed"
    double gain = 0.0;    // log-likelihood gained at the best rate tried (nats)
};

struct HighwaySearchResult {
    std::vector<Highway> candidates;
    std::vector<HighwayTest> tests;
    std::vector<HighwayRecord> accepted; // after the joint fit: rate >= 1e-6, by decreasing rate
    double startLogLikelihood = 0.0;     // without highways
    double logLikelihood = 0.0;          // with the accepted highways at their fitted rates
    double bicThreshold = 0.0;           // ln(number of gene trees) / 2: the gain a highway must beat
    int evaluations = 0;
};

// `data` has no highways; θ its (fitted) rates, any parametrisation but per-family. Throws
// std::invalid_argument for highways in the data or θ, and InputError for a bad candidates file.
HighwaySearchResult searchHighways(const std::shared_ptr<const Dataset>& data, const RateParameters& theta,
                                   const BackendFactory& factory, const HighwaySearchSettings& settings,
                                   const std::string& folder,
                                   const std::function<void(const std::string&)>& log = {});

// The number of branches on the path from a to b in the species tree (through their last common
// ancestor): AleRax's automatic candidates need at least 5.
int pathLength(const SpeciesTree& tree, int a, int b);

} // namespace gpurec
