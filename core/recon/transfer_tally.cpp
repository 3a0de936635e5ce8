#include "recon/transfer_tally.hpp"

#include <algorithm>
#include <limits>

namespace gpurec {

TransferTally::TransferTally(int families, int nodes) : copies_(families, std::vector<int>(nodes, 0)) {}

void TransferTally::add(int family, const std::vector<Reconciliation>& samples, const std::vector<int>& id) {
    std::vector<int> own(copies_.at(family).size(), 0);
    std::map<std::pair<int, int>, long> found;
    for (const Reconciliation& r : samples)
        for (const ReconNode& node : r.nodes)
            for (const ReconEvent& e : node.events) {
                if (e.type == EventType::Speciation || e.type == EventType::SpeciationLoss ||
                    e.type == EventType::Leaf)
                    ++own[id[e.species]];
                if ((e.type == EventType::Transfer || e.type == EventType::TransferLoss) && e.recipient >= 0)
                    ++found[{id[e.species], id[e.recipient]}];
            }
    const std::lock_guard lock(mutex_);
    copies_[family] = std::move(own);
    for (const auto& [pair, count] : found)
        transfers_[pair] += count;
}

std::vector<TransferTally::Pair> TransferTally::sorted(long minCount) const {
    const std::lock_guard lock(mutex_);
    std::vector<Pair> out;
    for (const auto& [pair, count] : transfers_) {
        if (count < minCount) continue;
        const auto [donor, recipient] = pair;
        long potential = 0;
        for (const std::vector<int>& c : copies_)
            if (c[recipient] > 0) potential += c[donor];
        out.push_back(
            {donor, recipient, count,
             potential > 0 ? double(count) / double(potential) : std::numeric_limits<double>::infinity()});
    }
    std::sort(out.begin(), out.end(), [](const Pair& a, const Pair& b) {
        if (a.score != b.score) return a.score > b.score;
        if (a.donor != b.donor) return a.donor > b.donor;
        return a.recipient > b.recipient;
    });
    return out;
}

} // namespace gpurec
