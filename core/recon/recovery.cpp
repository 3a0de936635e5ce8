#include "recon/recovery.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace gpurec {

namespace {

// The sorted gene names below every node, joined into one key per node (iterative postorder).
std::vector<std::string> leafSetKeys(const Reconciliation& r) {
    const int n = static_cast<int>(r.nodes.size());
    std::vector<std::vector<std::string>> names(n);
    std::vector<std::string> keys(n);
    std::vector<std::pair<int, bool>> stack;
    if (r.root >= 0) stack.emplace_back(r.root, false);
    while (!stack.empty()) {
        auto [node, expanded] = stack.back();
        stack.pop_back();
        const ReconNode& nd = r.nodes[node];
        if (!expanded) {
            stack.emplace_back(node, true);
            for (int c : nd.children)
                stack.emplace_back(c, false);
            continue;
        }
        if (nd.children.empty()) {
            if (!nd.name.empty()) names[node] = {nd.name};
        } else {
            for (int c : nd.children) {
                names[node].insert(names[node].end(), names[c].begin(), names[c].end());
                std::vector<std::string>().swap(names[c]);
            }
            std::sort(names[node].begin(), names[node].end());
        }
        for (const std::string& g : names[node])
            keys[node] += g + '\x1f';
    }
    return keys;
}

int nodeType(const ReconNode& n) {
    if (n.events.empty()) return -1;
    switch (n.events.back().type) {
    case EventType::Speciation:
        return RecoveryTally::kS;
    case EventType::Duplication:
        return RecoveryTally::kD;
    case EventType::Transfer:
        return RecoveryTally::kT;
    case EventType::Leaf:
        return RecoveryTally::kLeaf;
    default:
        return -1;
    }
}

// SL (with the species where the lineage continues) and TL (with the recipient) on a branch.
using BranchEvent = std::tuple<EventType, int, int>;
std::map<BranchEvent, int> branchEvents(const ReconNode& n) {
    std::map<BranchEvent, int> out;
    for (std::size_t i = 0; i + 1 < n.events.size(); ++i) {
        const ReconEvent& ev = n.events[i];
        if (ev.type == EventType::SpeciationLoss) ++out[{ev.type, ev.species, n.events[i + 1].species}];
        if (ev.type == EventType::TransferLoss) ++out[{ev.type, ev.species, ev.recipient}];
    }
    return out;
}

} // namespace

const std::array<const char*, RecoveryTally::kNodeTypes>& RecoveryTally::nodeTypeNames() {
    static const std::array<const char*, kNodeTypes> names = {"S", "D", "T", "Leaf"};
    return names;
}

void RecoveryTally::add(const Reconciliation& truth, const Reconciliation& sample) {
    std::vector<std::string> trueKeys = leafSetKeys(truth), sampleKeys = leafSetKeys(sample);
    std::unordered_map<std::string, int> sampleNode;
    for (int i = 0; i < static_cast<int>(sampleKeys.size()); ++i)
        sampleNode.emplace(sampleKeys[i], i);
    for (int i = 0; i < static_cast<int>(truth.nodes.size()); ++i) {
        const ReconNode& t = truth.nodes[i];
        const int type = nodeType(t);
        if (type < 0) continue;
        nodes[type] += 1;
        auto it = sampleNode.find(trueKeys[i]);
        std::map<BranchEvent, int> trueBranch = branchEvents(t);
        for (const auto& [ev, count] : trueBranch)
            (std::get<0>(ev) == EventType::SpeciationLoss ? trueSL : trueTL) += count;
        if (it == sampleNode.end()) {
            confusion[type][kNodeTypes] += 1;
            continue;
        }
        const ReconNode& s = sample.nodes[it->second];
        const int sampledType = nodeType(s);
        confusion[type][sampledType < 0 ? kNodeTypes : sampledType] += 1;
        const ReconEvent &te = t.events.back(), &se = s.events.back();
        if (sampledType == type && te.species == se.species && (type != kT || te.recipient == se.recipient))
            exact[type] += 1;
        for (const auto& [ev, count] : branchEvents(s)) {
            auto found = trueBranch.find(ev);
            double shared = found == trueBranch.end() ? 0 : std::min(count, found->second);
            (std::get<0>(ev) == EventType::SpeciationLoss ? sharedSL : sharedTL) += shared;
        }
    }
    auto counts = [](const Reconciliation& r) {
        EventCounts c = countEvents(r);
        return std::array<double, 5>{double(c.S), double(c.SL), double(c.D), double(c.T), double(c.TL)};
    };
    std::array<double, 5> trueCounts = counts(truth), sampledCounts = counts(sample);
    for (int k = 0; k < 5; ++k) {
        trueEvents[k] += trueCounts[k];
        sampledEvents[k] += sampledCounts[k];
    }
    for (const ReconNode& s : sample.nodes)
        for (const auto& [ev, count] : branchEvents(s))
            (std::get<0>(ev) == EventType::SpeciationLoss ? sampledSL : sampledTL) += count;
}

void RecoveryTally::merge(const RecoveryTally& o) {
    for (int t = 0; t < kNodeTypes; ++t) {
        for (int k = 0; k <= kNodeTypes; ++k)
            confusion[t][k] += o.confusion[t][k];
        exact[t] += o.exact[t];
        nodes[t] += o.nodes[t];
    }
    for (int k = 0; k < 5; ++k) {
        trueEvents[k] += o.trueEvents[k];
        sampledEvents[k] += o.sampledEvents[k];
    }
    trueSL += o.trueSL;
    sampledSL += o.sampledSL;
    sharedSL += o.sharedSL;
    trueTL += o.trueTL;
    sampledTL += o.sampledTL;
    sharedTL += o.sharedTL;
}

} // namespace gpurec
