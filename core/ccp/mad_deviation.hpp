#pragma once
// AleRax's --gene-tree-rooting MAD (spec 2.4): each root split of an unrooted gene-tree sample is
// weighted by 1 / (1 + d)², with d the minimal ancestor deviation of rooting on that branch (Tria et
// al. 2017) in GeneRax's form: the sum, over pairs of leaves b, c on opposite sides, of
// (2 d(root, b) / d(b, c) − 1)², the root placed on the branch where that sum is least.
#include <array>
#include <vector>

namespace gpurec {

// An unrooted binary tree as adjacency lists with branch lengths: node v's neighbours and the
// lengths of the branches to them; `leaf[v]` is true for leaves.
struct UnrootedLengths {
    std::vector<std::vector<std::pair<int, double>>> neighbours;
    std::vector<bool> leaf;
};

// The deviation of rooting on the branch between v and its neighbour w, for every directed branch
// (v, w) given as `branches` (each branch once). Pairs of leaves at distance 0 add nothing (their
// relative deviation is undefined); on a branch of length 0 every rooting point is the same.
std::vector<double> madBranchDeviations(const UnrootedLengths& tree,
                                        const std::vector<std::pair<int, int>>& branches);

} // namespace gpurec
