#pragma once
// The transfer recipient sets R(e) (spec 4.1), RELDATED's in terms of the rank order, and the sums
// over them from running sums along that order: shared by the species tree, the CPU engine and the
// CUDA kernels. Ranks put every node after its parent, so under RELDATED R(e) is every node ranked
// from first(e) = rank(parent(e)) + 1 on (from 0 for the root), e itself excepted.
#include "model/host_device.hpp"
#include "tree/transfer_constraint.hpp"

namespace gpurec {

GPUREC_HD inline int firstRecipientRank(const int* rank, const int* parent, int e) {
    return parent[e] < 0 ? 0 : rank[parent[e]] + 1;
}

// Whether h ∈ R(e), from each node's parent (−1 at the root) and rank.
GPUREC_HD inline bool isRecipient(TransferConstraint constraint, const int* parent, const int* rank, int e,
                                  int h) {
    if (h == e) return false;
    switch (constraint) {
    case TransferConstraint::Parents:
        for (int a = parent[e]; a >= 0; a = parent[a])
            if (a == h) return false;
        break;
    case TransferConstraint::None:
        break;
    case TransferConstraint::RelDated:
        return rank[h] >= firstRecipientRank(rank, parent, e);
    }
    return true;
}

// Σ_{h∈R(e)} x_h from suffix[r] = Σ_{rank(h) ≥ r} x_h (n nodes; own = rank(e)): the nodes ranked
// between e's parent and e, then those after e. Only the first part is a difference, and only when
// it is not empty (never for the root): its rounding error is relative to the sum with x_e.
GPUREC_HD inline double rankedRecipientSum(const double* suffix, int n, int first, int own) {
    return (first < own ? suffix[first] - suffix[own] : 0.0) + (own + 1 < n ? suffix[own + 1] : 0.0);
}

// What the transpose sums by first rank: bucket(k) = Σ_{first(e) = k} v(e), that is v at the root
// for k = 0, else v at the children of the node ranked k − 1 (root = the last node in postorder).
template <class V>
GPUREC_HD double firstRankBucket(const int* byRank, const int* left, const int* right, int n, V&& v, int k) {
    if (k == 0) return v(n - 1);
    const int p = byRank[k - 1];
    return left[p] >= 0 ? v(left[p]) + v(right[p]) : 0.0;
}

// Σ_{e : h∈R(e)} v_e from prefix[r] = Σ_{k ≤ r} bucket(k) (first = first(h), own = rank(h)): the
// donors with a smaller first rank, h's sibling (the other node sharing h's first rank; vSibling = 0
// at the root), and those whose first rank lies in (first, own].
GPUREC_HD inline double rankedDonorSum(const double* prefix, int first, int own, double vSibling) {
    return (first > 0 ? prefix[first - 1] : 0.0) + vSibling +
           (first < own ? prefix[own] - prefix[first] : 0.0);
}

} // namespace gpurec
