#include "views/species_tree_layout.hpp"

#include <algorithm>
#include <numbers>

namespace gpurec::ui {

TreeLayout layoutRectangular(const SpeciesTree& tree, const std::vector<char>& collapsed) {
    TreeLayout out;
    const int n = tree.size();
    out.x.assign(n, 0.0);
    out.y.assign(n, 0.0);
    out.hidden.assign(n, 0);
    out.columns = tree.height(tree.root());
    auto isCollapsed = [&](int e) { return !collapsed.empty() && collapsed[e] && !tree.isLeaf(e); };
    for (int e = n - 1; e >= 0; --e) // preorder (reverse postorder): parents before children
        if (e != tree.root()) out.hidden[e] = out.hidden[tree.parent(e)] || isCollapsed(tree.parent(e));
    int row = 0;
    for (int e = 0; e < n; ++e) { // postorder visits leaves left to right
        out.x[e] = out.columns - tree.height(e);
        if (out.hidden[e]) continue; // placed with its collapsed ancestor below
        out.y[e] =
            tree.isLeaf(e) || isCollapsed(e) ? row++ : (out.y[tree.left(e)] + out.y[tree.right(e)]) / 2;
    }
    for (int e = n - 1; e >= 0; --e)
        if (out.hidden[e]) {
            out.x[e] = out.x[tree.parent(e)]; // the collapsed ancestor's place
            out.y[e] = out.y[tree.parent(e)];
        }
    out.rows = row;
    return out;
}

CircularLayout layoutCircular(const TreeLayout& rows, double rowUnits, double stubColumns) {
    CircularLayout out;
    const std::size_t n = rows.x.size();
    out.rowAngle = 2 * std::numbers::pi / (std::max(rows.rows, 1) + 1);
    out.leafRadius = std::max(1.0, (rows.rows + 1) * rowUnits / (2 * std::numbers::pi));
    out.perColumn = out.leafRadius / std::max(rows.columns + stubColumns, 1e-9);
    out.stubColumns = stubColumns;
    out.radius.resize(n);
    out.angle.resize(n);
    for (std::size_t e = 0; e < n; ++e) {
        out.radius[e] = out.radiusAt(rows.x[e]);
        out.angle[e] = out.angleAt(rows.y[e]);
    }
    return out;
}

} // namespace gpurec::ui
