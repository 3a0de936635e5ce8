#include "species_search/transfer_moves.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>

namespace gpurec {

std::vector<TransferMove> transferMoves(CandidateScorer& scorer, const SpeciesTopology& tree,
                                        const RateParameters& theta, std::uint64_t seed) {
    const std::vector<int> topologyId = tree.speciesTreeOrder(); // species node -> topology id
    const int n = tree.nodeCount();
    const int F = static_cast<int>(scorer.families().families.size());
    std::vector<std::vector<int>> copies(F, std::vector<int>(n, 0)); // S, SL and leaf events
    std::map<std::pair<int, int>, long> transfers;                   // (donor, receiver) -> T + TL
    std::mutex merge;
    scorer.sampleOn(tree, theta, seed, [&](FamilySamples&& samples) {
        std::vector<int>& own = copies[samples.family];
        std::map<std::pair<int, int>, long> found;
        for (const Reconciliation& r : samples.reconciliations)
            for (const ReconNode& node : r.nodes)
                for (const ReconEvent& e : node.events) {
                    if (e.type == EventType::Speciation || e.type == EventType::SpeciationLoss ||
                        e.type == EventType::Leaf)
                        ++own[topologyId[e.species]];
                    if ((e.type == EventType::Transfer || e.type == EventType::TransferLoss) &&
                        e.recipient >= 0)
                        ++found[{topologyId[e.species], topologyId[e.recipient]}];
                }
        const std::lock_guard lock(merge);
        for (const auto& [pair, count] : found)
            transfers[pair] += count;
    });
    std::vector<TransferMove> moves;
    for (const auto& [pair, count] : transfers) {
        const auto [donor, receiver] = pair;
        long held = 0;
        for (const std::vector<int>& c : copies)
            if (c[receiver] > 0) held += c[donor];
        moves.push_back({receiver, donor,
                         held > 0 ? double(count) / double(held) : std::numeric_limits<double>::infinity()});
    }
    std::sort(moves.begin(), moves.end(), [](const TransferMove& a, const TransferMove& b) {
        if (a.score != b.score) return a.score > b.score;
        if (a.regraft != b.regraft) return a.regraft > b.regraft;
        return a.prune > b.prune;
    });
    return moves;
}

} // namespace gpurec
