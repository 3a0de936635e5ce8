#pragma once
// AleRax's transfer-guided SPR moves (species-tree-search.md 3.2): transfers that reconciliations
// keep inferring from a donor to a receiver hint that the receiver belongs next to the donor.
// One reconciliation is sampled per family on the current tree; each (donor, receiver) pair seen
// becomes the move "prune the receiver, regraft it above the donor", scored by its T and TL count
// over the copies the families hold in the donor where the receiver has one.
#include "species_search/candidate_scorer.hpp"

#include <cstdint>
#include <vector>

namespace gpurec {

struct TransferMove {
    int prune = -1, regraft = -1; // topology node ids: receiver, donor
    double score = 0.0;           // count / P (+inf when P = 0)
};

// The moves by decreasing score (then regraft, then prune id, descending, as AleRax sorts them).
std::vector<TransferMove> transferMoves(CandidateScorer& scorer, const SpeciesTopology& tree,
                                        const RateParameters& theta, std::uint64_t seed);

} // namespace gpurec
