#include "engine/species_operators.hpp"

#include "tree/ranked_recipients.hpp"

namespace gpurec {

SpeciesLayout::SpeciesLayout(const SpeciesTree& tree, TransferConstraint c,
                             const std::vector<double>& fractionMissing)
    : size(tree.size()), rank(tree.ranks()), constraint(c) {
    left.resize(size);
    right.resize(size);
    parent.resize(size);
    byRank.resize(size);
    invRecipients.resize(size);
    missing.assign(size, 0.0);
    for (int e = 0; e < size; ++e) {
        left[e] = tree.left(e);
        right[e] = tree.right(e);
        parent[e] = tree.parent(e);
        byRank[e] = tree.nodeAtRank(e);
        invRecipients[e] = 1.0 / tree.recipientCount(e, c);
        if (tree.isLeaf(e) && e < static_cast<int>(fractionMissing.size())) missing[e] = fractionMissing[e];
    }
    setHighways({});
}

SpeciesLayout::SpeciesLayout(const Dataset& data)
    : SpeciesLayout(data.species, data.transferConstraint, data.fractionMissing) {
    cladeDuplicationLoss = data.events.cladeDuplicationLoss();
    cladeTransferLoss = data.events.cladeTransferLoss();
    setHighways(data.highways);
}

void SpeciesLayout::setHighways(const std::vector<Highway>& list) {
    highways = list;
    highwayOffset.assign(size + 1, 0);
    for (const Highway& h : highways)
        ++highwayOffset[h.source + 1];
    for (int e = 0; e < size; ++e)
        highwayOffset[e + 1] += highwayOffset[e];
    highwaysFrom.assign(highways.size(), 0);
    std::vector<int> next(highwayOffset.begin(), highwayOffset.end() - 1);
    for (int h = 0; h < static_cast<int>(highways.size()); ++h)
        highwaysFrom[next[highways[h].source]++] = h;
}

bool SpeciesLayout::isRecipient(int e, int h) const {
    return gpurec::isRecipient(constraint, parent.data(), rank.data(), e, h);
}

// sub(e) = Σ over the subtree of e; outside(e) = Σ over nodes neither in subtree(e) nor ancestors
// of e; anc(e) = Σ over strict ancestors of e.
void recipientAverage(const SpeciesLayout& s, const double* x, double* out, double* scratch) {
    const int n = s.size;
    if (s.constraint == TransferConstraint::RelDated) {
        // Pairwise rank sums, no differences (tree/ranked_recipients.hpp): accurate to O(log n · eps)
        // of the sum over R(e) itself, however large x_e.
        auto leaf = [&](int r) { return x[s.byRank[r]]; };
        buildRankSums(scratch, n, leaf);
        for (int e = 0; e < n; ++e)
            out[e] = rankedRecipientSum(scratch, n, leaf,
                                        firstRecipientRank(s.rank.data(), s.parent.data(), e), s.rank[e]) *
                     s.invRecipients[e];
        return;
    }
    double* sub = scratch;
    double* outside = scratch + n;
    double* anc = scratch + 2 * n;
    for (int e = 0; e < n; ++e)
        sub[e] = x[e] + (s.left[e] >= 0 ? sub[s.left[e]] + sub[s.right[e]] : 0.0);
    outside[n - 1] = 0.0;
    anc[n - 1] = 0.0;
    for (int e = n - 1; e >= 0; --e) {
        if (s.left[e] < 0) continue;
        outside[s.left[e]] = outside[e] + sub[s.right[e]];
        outside[s.right[e]] = outside[e] + sub[s.left[e]];
        anc[s.left[e]] = anc[s.right[e]] = anc[e] + x[e];
    }
    const bool parents = s.constraint == TransferConstraint::Parents;
    for (int e = 0; e < n; ++e) {
        double below = s.left[e] >= 0 ? sub[s.left[e]] + sub[s.right[e]] : 0.0;
        out[e] = (outside[e] + below + (parents ? 0.0 : anc[e])) * s.invRecipients[e];
    }
}

void recipientAverageTranspose(const SpeciesLayout& s, const double* u, double* out, double* scratch) {
    const int n = s.size;
    auto v = [&](int e) { return u[e] * s.invRecipients[e]; };
    if (s.constraint == TransferConstraint::RelDated) {
        auto bucket = [&](int k) {
            return firstRankBucket(s.byRank.data(), s.left.data(), s.right.data(), n, v, k);
        };
        buildRankSums(scratch, n, bucket);
        for (int h = 0; h < n; ++h) {
            const int up = s.parent[h];
            const double sibling = up < 0 ? 0.0 : v(s.left[up] == h ? s.right[up] : s.left[up]);
            out[h] = rankedDonorSum(scratch, n, bucket, firstRecipientRank(s.rank.data(), s.parent.data(), h),
                                    s.rank[h], sibling);
        }
        return;
    }
    double* sub = scratch;       // Σ of v over the subtree
    double* above = scratch + n; // Σ of v over nodes outside the subtree of e
    for (int e = 0; e < n; ++e)
        sub[e] = v(e) + (s.left[e] >= 0 ? sub[s.left[e]] + sub[s.right[e]] : 0.0);
    above[n - 1] = 0.0;
    for (int e = n - 1; e >= 0; --e) {
        if (s.left[e] < 0) continue;
        above[s.left[e]] = above[e] + v(e) + sub[s.right[e]];
        above[s.right[e]] = above[e] + v(e) + sub[s.left[e]];
    }
    // PARENTS: h ∈ R(e) iff e is outside the subtree of h. NONE: iff e ≠ h.
    for (int h = 0; h < n; ++h) {
        double below = s.left[h] >= 0 ? sub[s.left[h]] + sub[s.right[h]] : 0.0;
        out[h] = s.constraint == TransferConstraint::Parents ? above[h] : above[h] + below;
    }
}

double SelfLoopOperator::diagonalOf(const SpeciesLayout& s, const EventProbabilities& p,
                                    const std::vector<double>& E, const std::vector<double>& Ebar,
                                    SelfLoopOf of, int e) {
    const bool all = of == SelfLoopOf::Extinction;
    double highways = 0.0; // q_h E_d: the copy sent down the highway dies
    if (all || s.cladeTransferLoss)
        s.forEachHighwayFrom(e, [&](int h, int d) { highways += p.pH[h] * E[d]; });
    return (all || s.cladeDuplicationLoss ? 2.0 * p.pD[e] * E[e] : 0.0) +
           (all || s.cladeTransferLoss ? p.pT[e] * Ebar[e] : 0.0) + highways;
}

bool SelfLoopOperator::highwayCouplingOf(const SpeciesLayout& s, SelfLoopOf of) {
    return !s.highways.empty() && (of == SelfLoopOf::Extinction || s.cladeTransferLoss);
}

double SelfLoopOperator::barCoefficientOf(const SpeciesLayout& s, const EventProbabilities& p,
                                          const std::vector<double>& E, SelfLoopOf of, int e) {
    return of == SelfLoopOf::Extinction || s.cladeTransferLoss ? p.pT[e] * E[e] : 0.0;
}

SelfLoopOperator::SelfLoopOperator(const SpeciesLayout& s, const EventProbabilities& p,
                                   const std::vector<double>& E, const std::vector<double>& Ebar,
                                   SelfLoopOf of)
    : s_(s), p_(p), E_(E), diag_(s.size), bar_(s.size), highways_(highwayCouplingOf(s, of)),
      scratch_(3 * s.size), tmp_(s.size) {
    for (int e = 0; e < s.size; ++e) {
        diag_[e] = diagonalOf(s, p, E, Ebar, of, e);
        bar_[e] = barCoefficientOf(s, p, E, of, e);
    }
}

double SelfLoopOperator::childCoefficient(int e, int child) const {
    int sibling = s_.left[e] == child ? s_.right[e] : s_.left[e];
    return p_.pS[e] * E_[sibling];
}

void SelfLoopOperator::apply(const double* x, double* out) const {
    recipientAverage(s_, x, tmp_.data(), scratch_.data());
    for (int e = 0; e < s_.size; ++e) {
        double v = diag_[e] * x[e] + bar_[e] * tmp_[e];
        if (s_.left[e] >= 0) {
            int f = s_.left[e], g = s_.right[e];
            v += p_.pS[e] * (x[f] * E_[g] + x[g] * E_[f]);
        }
        out[e] = v;
    }
    addHighwayCoupling(x, out);
}

void SelfLoopOperator::addHighwayCoupling(const double* x, double* out) const {
    if (!highways_) return;
    for (int h = 0; h < static_cast<int>(s_.highways.size()); ++h) {
        const Highway& w = s_.highways[h];
        out[w.source] += p_.pH[h] * E_[w.source] * x[w.destination];
    }
}

void SelfLoopOperator::addHighwayCouplingTranspose(const double* x, double* out) const {
    if (!highways_) return;
    for (int h = 0; h < static_cast<int>(s_.highways.size()); ++h) {
        const Highway& w = s_.highways[h];
        out[w.destination] += p_.pH[h] * E_[w.source] * x[w.source];
    }
}

void SelfLoopOperator::applyTranspose(const double* x, double* out) const {
    for (int e = 0; e < s_.size; ++e)
        tmp_[e] = bar_[e] * x[e];
    recipientAverageTranspose(s_, tmp_.data(), out, scratch_.data());
    for (int e = 0; e < s_.size; ++e) {
        out[e] += diag_[e] * x[e];
        if (s_.left[e] >= 0) {
            int f = s_.left[e], g = s_.right[e];
            out[f] += p_.pS[e] * E_[g] * x[e];
            out[g] += p_.pS[e] * E_[f] * x[e];
        }
    }
    addHighwayCouplingTranspose(x, out);
}

} // namespace gpurec
