#include "species_search/transfer_moves.hpp"

#include "recon/transfer_tally.hpp"

namespace gpurec {

std::vector<TransferMove> transferMoves(CandidateScorer& scorer, const SpeciesTopology& tree,
                                        const RateParameters& theta, std::uint64_t seed) {
    const std::vector<int> topologyId = tree.speciesTreeOrder(); // species node -> topology id
    TransferTally tally(static_cast<int>(scorer.families().families.size()), tree.nodeCount());
    scorer.sampleOn(tree, theta, seed, [&](FamilySamples&& samples) {
        tally.add(samples.family, samples.reconciliations, topologyId);
    });
    std::vector<TransferMove> moves;
    for (const TransferTally::Pair& p : tally.sorted())
        moves.push_back({p.recipient, p.donor, p.score}); // prune the receiver, regraft above the donor
    return moves;
}

} // namespace gpurec
