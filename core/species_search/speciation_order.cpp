#include "species_search/speciation_order.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

namespace gpurec {

namespace {

// AleRax's Random::getInt: uniform in [0, INT_MAX].
int drawInt(std::mt19937_64& rng) {
    return std::uniform_int_distribution<int>(0, INT_MAX)(rng);
}

} // namespace

SpeciationOrder::SpeciationOrder(const SpeciesTree& tree)
    : tree_(&tree), byRank_(tree.size() - tree.leafCount()), rank_(tree.ranks()) {
    for (int r = 0; r < internalCount(); ++r)
        byRank_[r] = tree.nodeAtRank(r);
}

bool SpeciationOrder::valid() const {
    for (int r = 0; r < internalCount(); ++r) {
        const int e = byRank_[r], p = tree_->parent(e);
        if (tree_->isLeaf(e) || rank_[e] != r || (p >= 0 ? rank_[p] >= r : r != 0)) return false;
    }
    return true;
}

bool SpeciationOrder::allowsTransfer(int from, int to) const {
    if (from == to) return false;
    const int p = tree_->parent(from);
    return p < 0 || rank_[to] > rank_[p];
}

bool SpeciationOrder::moveDown(int r) {
    if (r < 0 || r + 1 >= internalCount()) return false;
    const int a = byRank_[r], b = byRank_[r + 1];
    if (tree_->parent(b) == a) return false;
    std::swap(byRank_[r], byRank_[r + 1]);
    rank_[a] = r + 1;
    rank_[b] = r;
    return true;
}

bool SpeciationOrder::moveUp(int r) {
    return r > 0 && moveDown(r - 1);
}

void SpeciationOrder::randomize(std::mt19937_64& rng) {
    std::vector<int> ready = {tree_->root()};
    int next = 0;
    while (!ready.empty()) {
        const std::size_t i = static_cast<std::size_t>(drawInt(rng)) % ready.size();
        const int e = ready[i];
        if (tree_->isLeaf(e)) {
            ready[i] = ready.back();
            ready.pop_back();
            continue;
        }
        byRank_[next] = e;
        rank_[e] = next++;
        ready[i] = tree_->left(e);
        ready.push_back(tree_->right(e));
    }
}

void SpeciationOrder::perturb(double p, std::mt19937_64& rng) {
    const int n = internalCount();
    const int runs = static_cast<int>(std::floor(2.0 * n * p));
    const int maxDisplacement = std::max(2, static_cast<int>(std::floor(2.0 * std::sqrt(n) * p)));
    for (int i = 0; i < runs; ++i) {
        const bool up = drawInt(rng) % 2 == 1;
        const int r = drawInt(rng) % n;
        const int displacement = 1 + drawInt(rng) % maxDisplacement;
        const int length = 1 + drawInt(rng) % 10;
        bool refused = false;
        for (int k = 0; k < length && !refused; ++k)
            for (int j = 0; j < displacement && !refused; ++j)
                refused = !(up ? moveUp(r + k - j) : moveDown(r - k + j));
    }
}

long transferScore(const SpeciationOrder& order, const std::vector<TransferCount>& transfers) {
    long score = 0;
    for (const TransferCount& t : transfers)
        if (order.allowsTransfer(t.from, t.to)) score += t.count;
    return score;
}

double optimizeDatingLocally(SpeciationOrder& order, const DatingScore& score,
                             std::optional<double> startScore) {
    double best = startScore ? *startScore : score(order);
    double start = best;
    do {
        start = best;
        for (int r = 0; r < order.internalCount(); ++r) {
            if (!order.moveUp(r)) continue;
            const double s = score(order);
            if (s > best) {
                best = s;
                r -= std::min(2, r); // the loop's ++r then tries the same node one rank higher
            } else {
                order.moveUp(r); // a swap undoes itself
            }
        }
    } while (best - start > kLocalSweepGain);
    return best;
}

} // namespace gpurec
