#include "tree/tanglegram.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <stdexcept>

namespace gpurec {

namespace {

using LeafSet = std::vector<std::uint64_t>;

// One tree with its leaves numbered by the left tree's leaf ids, and a flip bit per node.
struct Oriented {
    const SpeciesTree* tree;
    std::vector<int> leafId; // per node: shared leaf id, -1 for internal nodes
    std::vector<bool> flip;  // draw the right child first

    int first(int e) const { return flip[e] ? tree->right(e) : tree->left(e); }
    int second(int e) const { return flip[e] ? tree->left(e) : tree->right(e); }

    // Row of each shared leaf id, children in drawing order.
    std::vector<int> rows() const {
        std::vector<int> out(tree->leafCount());
        std::vector<int> stack = {tree->root()};
        int next = 0;
        while (!stack.empty()) {
            const int e = stack.back();
            stack.pop_back();
            if (tree->isLeaf(e)) {
                out[leafId[e]] = next++;
                continue;
            }
            stack.push_back(second(e));
            stack.push_back(first(e));
        }
        return out;
    }

    // Barycentre ordering: at every internal node, the child whose leaves sit higher (on average)
    // in the other tree is drawn first.
    void orderBy(const std::vector<int>& otherRow) {
        std::vector<double> sum(tree->size(), 0.0);
        std::vector<int> count(tree->size(), 0);
        for (int e = 0; e < tree->size(); ++e) { // postorder: children first
            if (tree->isLeaf(e)) {
                sum[e] = otherRow[leafId[e]];
                count[e] = 1;
                continue;
            }
            const int a = tree->left(e), b = tree->right(e);
            sum[e] = sum[a] + sum[b];
            count[e] = count[a] + count[b];
            flip[e] = sum[b] / count[b] < sum[a] / count[a];
        }
    }
};

std::vector<LeafSet> leafSets(const Oriented& o) {
    const std::size_t words = (o.tree->leafCount() + 63) / 64;
    std::vector<LeafSet> sets(o.tree->size(), LeafSet(words, 0));
    for (int e = 0; e < o.tree->size(); ++e) {
        if (o.tree->isLeaf(e)) {
            sets[e][o.leafId[e] / 64] |= std::uint64_t{1} << (o.leafId[e] % 64);
            continue;
        }
        for (std::size_t w = 0; w < words; ++w)
            sets[e][w] = sets[o.tree->left(e)][w] | sets[o.tree->right(e)][w];
    }
    return sets;
}

TanglegramSide side(const Oriented& o, const std::vector<LeafSet>& mine, const std::set<LeafSet>& other) {
    const SpeciesTree& t = *o.tree;
    TanglegramSide s;
    s.row.assign(t.size(), 0.0);
    s.unshared.assign(t.size(), false);
    s.leafAtRow.assign(t.leafCount(), -1);
    const std::vector<int> rows = o.rows();
    for (int e = 0; e < t.size(); ++e) {
        if (t.isLeaf(e)) {
            s.row[e] = rows[o.leafId[e]];
            s.leafAtRow[rows[o.leafId[e]]] = e;
            continue;
        }
        s.row[e] = (s.row[t.left(e)] + s.row[t.right(e)]) / 2;
        s.unshared[e] = other.count(mine[e]) == 0;
        s.unsharedCount += s.unshared[e];
    }
    return s;
}

} // namespace

long long crossingCount(const std::vector<int>& leftRowOfLeaf, const std::vector<int>& rightRowOfLeaf) {
    // Leaves in left order; crossings are the inversions of their right rows (merge sort count).
    std::vector<int> byLeft(leftRowOfLeaf.size());
    for (std::size_t leaf = 0; leaf < leftRowOfLeaf.size(); ++leaf)
        byLeft[leftRowOfLeaf[leaf]] = rightRowOfLeaf[leaf];
    std::vector<int> buffer(byLeft.size());
    long long inversions = 0;
    for (std::size_t width = 1; width < byLeft.size(); width *= 2) {
        for (std::size_t lo = 0; lo < byLeft.size(); lo += 2 * width) {
            const std::size_t mid = std::min(lo + width, byLeft.size()),
                              hi = std::min(lo + 2 * width, byLeft.size());
            std::size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                if (byLeft[j] < byLeft[i]) {
                    inversions += static_cast<long long>(mid - i);
                    buffer[k++] = byLeft[j++];
                } else {
                    buffer[k++] = byLeft[i++];
                }
            }
            while (i < mid)
                buffer[k++] = byLeft[i++];
            while (j < hi)
                buffer[k++] = byLeft[j++];
        }
        byLeft.swap(buffer);
    }
    return inversions;
}

Tanglegram layoutTanglegram(const SpeciesTree& left, const SpeciesTree& right) {
    Oriented a{&left, std::vector<int>(left.size(), -1), std::vector<bool>(left.size(), false)};
    Oriented b{&right, std::vector<int>(right.size(), -1), std::vector<bool>(right.size(), false)};
    int id = 0;
    for (int e : left.leaves())
        a.leafId[e] = id++;
    for (int e : right.leaves()) {
        const int match = left.find(right.name(e));
        if (match < 0 || !left.isLeaf(match))
            throw std::invalid_argument("leaf '" + right.name(e) + "' is in the second tree only");
        b.leafId[e] = a.leafId[match];
    }
    for (int e : left.leaves())
        if (right.find(left.name(e)) < 0)
            throw std::invalid_argument("leaf '" + left.name(e) + "' is in the first tree only");

    // Alternate barycentre passes from the left tree's own order; keep the fewest crossings.
    b.orderBy(a.rows());
    std::vector<bool> bestA = a.flip, bestB = b.flip;
    long long best = crossingCount(a.rows(), b.rows());
    for (int pass = 0; pass < 8 && best > 0; ++pass) {
        if (pass % 2 == 0)
            a.orderBy(b.rows());
        else
            b.orderBy(a.rows());
        const long long c = crossingCount(a.rows(), b.rows());
        if (c >= best) continue;
        best = c;
        bestA = a.flip;
        bestB = b.flip;
    }
    a.flip = bestA;
    b.flip = bestB;

    const std::vector<LeafSet> setsA = leafSets(a), setsB = leafSets(b);
    const std::set<LeafSet> cladesA(setsA.begin(), setsA.end()), cladesB(setsB.begin(), setsB.end());
    Tanglegram t;
    t.left = side(a, setsA, cladesB);
    t.right = side(b, setsB, cladesA);
    t.crossings = static_cast<int>(best);
    t.robinsonFoulds = t.left.unsharedCount + t.right.unsharedCount;
    return t;
}

} // namespace gpurec
