#pragma once
// Layouts of the species tree. Rectangular (cladogram): leaves on evenly spaced rows, aligned on
// the right; an internal node sits at its height's column and halfway between its children. A
// collapsed clade takes one row, as a leaf would. Circular: the same rows around a circle (angle)
// and the same columns outwards (radius).
#include "tree/species_tree.hpp"

#include <vector>

namespace gpurec::ui {

struct TreeLayout {
    std::vector<double> x, y; // per node, in units of columns (x) and leaf rows (y)
    double columns = 0;       // x of the leaves
    int rows = 0;             // number of leaves (visible leaves and collapsed clades)
    // Per node: 1 when a collapsed ancestor hides it (it then sits at that ancestor's place).
    std::vector<char> hidden;
};

// `collapsed[e]` non-zero collapses e's subtree into one row (empty: nothing collapsed).
TreeLayout layoutRectangular(const SpeciesTree& tree, const std::vector<char>& collapsed = {});

struct CircularLayout {
    std::vector<double> radius, angle; // per node; angle in radians, clockwise on screen from 3 o'clock
    double leafRadius = 0;
    double rowAngle = 0;  // angle between two neighbouring rows
    double perColumn = 0; // radius per column
    double stubColumns = 0;
    double radiusAt(double column) const { return (column + stubColumns) * perColumn; }
    double angleAt(double row) const { return (row + 1) * rowAngle; }
};

// Rows spaced `rowUnits` apart along the leaves' circle, one row's gap left between the last and
// the first; `stubColumns` of radius below the root (its branch).
CircularLayout layoutCircular(const TreeLayout& rows, double rowUnits, double stubColumns);

} // namespace gpurec::ui
