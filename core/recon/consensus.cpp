#include "recon/consensus.hpp"

#include "sim/random_source.hpp"

#include <cmath>
#include <functional>
#include <set>
#include <string>

namespace gpurec {

std::vector<std::vector<EventKey>> eventKeys(const Reconciliation& r) {
    const std::size_t n = r.nodes.size();
    // Gene sets bottom-up: children come after their parent in preorder-built trees, but not
    // necessarily in files, so the order is taken from an explicit traversal.
    std::vector<int> order;
    order.reserve(n);
    std::vector<int> stack;
    if (r.root >= 0) stack.push_back(r.root);
    while (!stack.empty()) {
        const int v = stack.back();
        stack.pop_back();
        order.push_back(v);
        for (int c : r.nodes[v].children)
            stack.push_back(c);
    }
    std::vector<std::uint64_t> genes(n, 0);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const ReconNode& node = r.nodes[*it];
        if (node.children.empty() && !node.name.empty())
            // Mixed hashes, so that sums of them identify gene sets.
            genes[*it] = splitMix64(std::hash<std::string>{}(node.name));
        for (int c : node.children)
            genes[*it] += genes[c];
    }
    std::vector<std::vector<EventKey>> keys(n);
    for (std::size_t v = 0; v < n; ++v) {
        const ReconNode& node = r.nodes[v];
        std::uint64_t set = genes[v];
        if (set == 0 && node.parent >= 0) set = genes[node.parent]; // a loss: where it happened
        for (const ReconEvent& e : node.events)
            keys[v].push_back({set, e.type, e.species, e.recipient});
    }
    return keys;
}

std::map<EventKey, double> eventSupport(const std::vector<Reconciliation>& samples) {
    std::map<EventKey, double> support;
    for (const Reconciliation& r : samples) {
        std::set<EventKey> present;
        for (const auto& node : eventKeys(r))
            present.insert(node.begin(), node.end());
        for (const EventKey& k : present)
            support[k] += 1;
    }
    for (auto& [key, value] : support)
        value /= static_cast<double>(samples.size());
    return support;
}

ConsensusReconciliation consensusReconciliation(const std::vector<Reconciliation>& samples) {
    ConsensusReconciliation out;
    const std::map<EventKey, double> support = eventSupport(samples);
    double best = -INFINITY;
    std::vector<std::vector<EventKey>> bestKeys;
    for (std::size_t s = 0; s < samples.size(); ++s) {
        std::vector<std::vector<EventKey>> keys = eventKeys(samples[s]);
        double score = 0;
        for (const auto& node : keys)
            for (const EventKey& k : node)
                score += std::log(support.at(k));
        if (score > best) {
            best = score;
            out.sample = static_cast<int>(s);
            bestKeys = std::move(keys);
        }
    }
    for (const auto& node : bestKeys) {
        out.support.emplace_back();
        for (const EventKey& k : node)
            out.support.back().push_back(support.at(k));
    }
    return out;
}

double transferSampleFrequency(const std::vector<Reconciliation>& samples, int donor, int recipient) {
    if (samples.empty()) return 0.0;
    int carrying = 0;
    for (const Reconciliation& r : samples) {
        bool found = false;
        for (const ReconNode& node : r.nodes)
            for (const ReconEvent& e : node.events)
                found = found || ((e.type == EventType::Transfer || e.type == EventType::TransferLoss) &&
                                  e.species == donor && e.recipient == recipient);
        carrying += found;
    }
    return static_cast<double>(carrying) / static_cast<double>(samples.size());
}

} // namespace gpurec
