#pragma once
// Rectangular (cladogram) layout of the species tree: leaves on evenly spaced rows, aligned on
// the right; an internal node sits at its height's column and halfway between its children.
#include "tree/species_tree.hpp"

#include <vector>

namespace gpurec::ui {

struct TreeLayout {
    std::vector<double> x, y; // per node, in units of columns (x) and leaf rows (y)
    double columns = 0;       // x of the leaves
    int rows = 0;             // number of leaves
};

TreeLayout layoutRectangular(const SpeciesTree& tree);

} // namespace gpurec::ui
