#include "engine/species_pruning.hpp"

#include <algorithm>
#include <map>

namespace gpurec {

SpeciesLayout prunedLayout(const SpeciesLayout& full, const GeneFamily& family) {
    const int n = full.size;
    // image[e]: the node standing for e's subtree in the pruned tree (−1: no covered leaf below e).
    std::vector<int> image(n, -1), kept;
    for (int leaf : family.geneSpecies)
        image[leaf] = leaf;
    for (int e = 0; e < n; ++e) {
        if (full.isLeaf(e)) {
            if (image[e] >= 0) kept.push_back(e);
            continue;
        }
        const int a = image[full.left[e]], b = image[full.right[e]];
        if (a >= 0 && b >= 0) {
            image[e] = e;
            kept.push_back(e);
        } else {
            image[e] = a >= 0 ? a : b;
        }
    }
    if (static_cast<int>(kept.size()) == n) return full;
    SpeciesLayout s;
    const int k = static_cast<int>(kept.size());
    s.size = k;
    s.constraint = full.constraint;
    s.cladeDuplicationLoss = full.cladeDuplicationLoss;
    s.cladeTransferLoss = full.cladeTransferLoss;
    s.fullIndex = kept;
    s.localIndex.assign(n, -1);
    for (int i = 0; i < k; ++i)
        s.localIndex[kept[i]] = i;
    s.left.assign(k, -1);
    s.right.assign(k, -1);
    s.parent.assign(k, -1);
    for (int i = 0; i < k; ++i) {
        const int e = kept[i];
        if (full.isLeaf(e)) continue;
        s.left[i] = s.localIndex[image[full.left[e]]];
        s.right[i] = s.localIndex[image[full.right[e]]];
        s.parent[s.left[i]] = s.parent[s.right[i]] = i;
    }
    // The full tree's rank order restricted to the kept nodes (every node still after its parent).
    s.byRank = kept;
    std::sort(s.byRank.begin(), s.byRank.end(), [&](int a, int b) { return full.rank[a] < full.rank[b]; });
    s.rank.assign(k, 0);
    for (int r = 0; r < k; ++r) {
        s.byRank[r] = s.localIndex[s.byRank[r]];
        s.rank[s.byRank[r]] = r;
    }
    // |R(e)| over the kept nodes: under PARENTS every kept node but e and its kept ancestors, which
    // are its pruned ancestors; under NONE every kept node but e.
    std::vector<int> depth(k, 1); // nodes on the pruned path root..e
    for (int i = k - 1; i >= 0; --i)
        if (s.parent[i] >= 0) depth[i] = depth[s.parent[i]] + 1;
    s.invRecipients.assign(k, 0.0);
    for (int i = 0; i < k; ++i) {
        const int count = s.constraint == TransferConstraint::Parents ? k - depth[i] : k - 1;
        s.invRecipients[i] = count > 0 ? 1.0 / count : 0.0; // a single kept node has no recipient
    }
    s.missing.assign(k, 0.0);
    s.setHighways({});
    return s;
}

FamilyLayouts::FamilyLayouts(const Dataset& data) {
    requirePrunable(data);
    layouts.emplace_back(data);
    of.assign(data.families.size(), 0);
    families.assign(1, 0);
    std::map<std::vector<int>, int> byNodes; // a pruned tree is its kept node set
    for (std::size_t f = 0; f < data.families.size(); ++f) {
        if (data.pruneSpeciesTree) {
            SpeciesLayout s = prunedLayout(layouts[0], data.families[f]);
            if (s.isPruned()) {
                auto [it, added] = byNodes.try_emplace(s.fullIndex, static_cast<int>(layouts.size()));
                if (added) {
                    layouts.push_back(std::move(s));
                    families.push_back(0);
                }
                of[f] = it->second;
            }
        }
        ++families[of[f]];
    }
}

std::vector<double> keptValues(const SpeciesLayout& s, const std::vector<double>& full) {
    if (!s.isPruned() || full.empty()) return full;
    std::vector<double> out(s.size);
    for (int e = 0; e < s.size; ++e)
        out[e] = full[s.fullIndex[e]];
    return out;
}

EventProbabilities keptProbabilities(const SpeciesLayout& s, const EventProbabilities& full) {
    if (!s.isPruned()) return full;
    return {
        keptValues(s, full.pS), keptValues(s, full.pD), keptValues(s, full.pL), keptValues(s, full.pT), {}};
}

void addToFullNodes(const SpeciesLayout& s, const std::vector<double>& kept, std::vector<double>& full) {
    for (int e = 0; e < s.size; ++e)
        full[s.full(e)] += kept[e];
}

} // namespace gpurec
