#pragma once
// The transfer recipient sets R(e) (spec 4.1), RELDATED's in terms of the rank order, and the sums
// over them as range sums along that order: shared by the species tree, the CPU engine and the
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

// The sums over R(e) and its transpose are range sums over rank positions, taken from pairwise sums
// ("rank sums"), never as differences of running sums: with the positions' values leaf(i) ≥ 0,
// node j of the tree (1 ≤ j < n) holds node(2j) + node(2j + 1), where node(n + i) = leaf(i) is read
// from the input rather than stored, so the tree takes n doubles (node 0 unused). A range [a, b) is
// the sum of at most 2 log2(n) disjoint nodes, each a pairwise sum of depth at most log2(n) + 1, so
// its relative error is O(log n · eps) whatever the values outside the range. A difference
// suffix[first] − suffix[own] instead carries the rounding error of the sum with x_e, which dominates
// when Π of a clade peaks at the species it maps to.
//
// The internal nodes of level L (1 ≤ L + 1 ≤ rankSumLevels(n)) are [2^L, min(2^(L+1), n)); their
// children are in level L + 1 or leaves, so a team builds the tree one level at a time from the
// deepest, with one barrier per level, and every node gets the same value as the serial build.
GPUREC_HD inline int rankSumLevels(int n) {
    int levels = 0;
    while ((1 << levels) < n)
        ++levels;
    return levels; // ⌈log2 n⌉: levels 0 .. levels − 1 hold nodes 1 .. n − 1
}

template <class Leaf> GPUREC_HD double rankSumNode(const double* node, int n, Leaf&& leaf, int j) {
    return j >= n ? leaf(j - n) : node[j];
}

// The value of internal node j from its children.
template <class Leaf> GPUREC_HD double rankSumOf(const double* node, int n, Leaf&& leaf, int j) {
    return rankSumNode(node, n, leaf, 2 * j) + rankSumNode(node, n, leaf, 2 * j + 1);
}

// Serial build (the team build, team_sweeps.hpp, gives the same values).
template <class Leaf> GPUREC_HD void buildRankSums(double* node, int n, Leaf&& leaf) {
    for (int j = n - 1; j >= 1; --j)
        node[j] = rankSumOf(node, n, leaf, j);
}

// Σ_{a ≤ i < b} leaf(i): the disjoint nodes covering [a, b), bottom up.
template <class Leaf> GPUREC_HD double rankRangeSum(const double* node, int n, Leaf&& leaf, int a, int b) {
    double sum = 0.0;
    for (a += n, b += n; a < b; a >>= 1, b >>= 1) {
        if (a & 1) sum += rankSumNode(node, n, leaf, a++);
        if (b & 1) sum += rankSumNode(node, n, leaf, --b);
    }
    return sum;
}

// Σ_{h∈R(e)} x_h from the rank sums of leaf(r) = x_{byRank[r]} (first = first(e), own = rank(e)):
// the nodes ranked between e's parent and e, then those after e.
template <class Leaf>
GPUREC_HD double rankedRecipientSum(const double* node, int n, Leaf&& leaf, int first, int own) {
    return rankRangeSum(node, n, leaf, first, own) + rankRangeSum(node, n, leaf, own + 1, n);
}

// What the transpose sums by first rank: bucket(k) = Σ_{first(e) = k} v(e), that is v at the root
// for k = 0, else v at the children of the node ranked k − 1 (root = the last node in postorder).
template <class V>
GPUREC_HD double firstRankBucket(const int* byRank, const int* left, const int* right, int n, V&& v, int k) {
    if (k == 0) return v(n - 1);
    const int p = byRank[k - 1];
    return left[p] >= 0 ? v(left[p]) + v(right[p]) : 0.0;
}

// Σ_{e : h∈R(e)} v_e from the rank sums of leaf(k) = bucket(k) (first = first(h), own = rank(h)):
// the donors with a smaller first rank, h's sibling (the other node sharing h's first rank;
// vSibling = 0 at the root), and those whose first rank lies in (first, own].
template <class Leaf>
GPUREC_HD double rankedDonorSum(const double* node, int n, Leaf&& leaf, int first, int own, double vSibling) {
    return rankRangeSum(node, n, leaf, 0, first) + vSibling + rankRangeSum(node, n, leaf, first + 1, own + 1);
}

} // namespace gpurec
