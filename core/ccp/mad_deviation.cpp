#include "ccp/mad_deviation.hpp"

#include <algorithm>
#include <cmath>

namespace gpurec {

namespace {

// Distances from `from` to every node.
void distancesFrom(const UnrootedLengths& t, int from, std::vector<double>& distance) {
    std::vector<std::pair<int, int>> stack{{from, -1}};
    distance[from] = 0.0;
    while (!stack.empty()) {
        auto [v, came] = stack.back();
        stack.pop_back();
        for (auto [w, length] : t.neighbours[v]) {
            if (w == came) continue;
            distance[w] = distance[v] + length;
            stack.emplace_back(w, v);
        }
    }
}

// The leaves on `from`'s side of the branch to `away`.
void leavesOnSide(const UnrootedLengths& t, int from, int away, std::vector<int>& leaves) {
    std::vector<std::pair<int, int>> stack{{from, away}};
    while (!stack.empty()) {
        auto [v, came] = stack.back();
        stack.pop_back();
        if (t.leaf[v]) leaves.push_back(v);
        for (auto [w, length] : t.neighbours[v])
            if (w != came) stack.emplace_back(w, v);
    }
}

} // namespace

std::vector<double> madBranchDeviations(const UnrootedLengths& t,
                                        const std::vector<std::pair<int, int>>& branches) {
    const int n = static_cast<int>(t.neighbours.size());
    // Leaf-to-node distances: one walk per leaf.
    std::vector<int> leafIds;
    for (int v = 0; v < n; ++v)
        if (t.leaf[v]) leafIds.push_back(v);
    std::vector<int> leafIndex(n, -1);
    for (std::size_t k = 0; k < leafIds.size(); ++k)
        leafIndex[leafIds[k]] = static_cast<int>(k);
    std::vector<std::vector<double>> fromLeaf(leafIds.size(), std::vector<double>(n, 0.0));
    for (std::size_t k = 0; k < leafIds.size(); ++k)
        distancesFrom(t, leafIds[k], fromLeaf[k]);
    auto leafDistance = [&](int b, int c) { return fromLeaf[leafIndex[b]][c]; };

    std::vector<double> out;
    out.reserve(branches.size());
    std::vector<int> I, J;
    for (auto [v, w] : branches) {
        double length = 0;
        for (auto [u, l] : t.neighbours[v])
            if (u == w) length = l;
        I.clear();
        J.clear();
        leavesOnSide(t, v, w, I);
        leavesOnSide(t, w, v, J);
        // ρ: the rooting point's distance from v over the branch length, minimising the sum.
        double numerator = 0, denominator = 0;
        for (int b : I)
            for (int c : J) {
                const double bc = leafDistance(b, c);
                if (!(bc > 0)) continue;
                const double inv = 1.0 / (bc * bc);
                numerator += (bc - 2.0 * leafDistance(b, v)) * inv;
                denominator += inv;
            }
        double offset = 0; // ρ times the branch length
        if (length > 0 && denominator > 0)
            offset = std::clamp(numerator / (2.0 * length * denominator), 0.0, 1.0) * length;
        double deviation = 0;
        for (int b : I)
            for (int c : J) {
                const double bc = leafDistance(b, c);
                if (!(bc > 0)) continue;
                const double r = 2.0 * (leafDistance(b, v) + offset) / bc - 1.0;
                deviation += r * r;
            }
        out.push_back(deviation);
    }
    return out;
}

} // namespace gpurec
