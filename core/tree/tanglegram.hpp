#pragma once
// Two rooted trees on the same leaves drawn face to face (a tanglegram): each tree's children are
// rotated so that the lines joining a leaf's two positions cross as little as the barycentre
// heuristic finds, and every internal node whose clade (leaf set) the other tree lacks is marked.
#include "tree/species_tree.hpp"

#include <vector>

namespace gpurec {

struct TanglegramSide {
    std::vector<double> row; // per node: leaves at 0..n-1 top to bottom, a parent midway between its children
    std::vector<bool> unshared; // per node: an internal node whose clade the other tree lacks
    std::vector<int> leafAtRow; // row -> leaf node
    int unsharedCount = 0;
};

struct Tanglegram {
    TanglegramSide left, right;
    int crossings = 0;      // pairs of leaf lines that cross
    int robinsonFoulds = 0; // rooted: clades of one tree not in the other, counted on both sides
};

// Throws std::invalid_argument naming a leaf that is in one tree only.
Tanglegram layoutTanglegram(const SpeciesTree& left, const SpeciesTree& right);

// Pairs of leaves placed in opposite orders by two leaf orders (rows indexed by a shared leaf id).
long long crossingCount(const std::vector<int>& leftRowOfLeaf, const std::vector<int>& rightRowOfLeaf);

} // namespace gpurec
