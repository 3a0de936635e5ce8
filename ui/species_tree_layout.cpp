#include "species_tree_layout.hpp"

namespace gpurec::ui {

TreeLayout layoutRectangular(const SpeciesTree& tree) {
    TreeLayout out;
    const int n = tree.size();
    out.x.assign(n, 0.0);
    out.y.assign(n, 0.0);
    out.columns = tree.height(tree.root());
    int row = 0;
    for (int e = 0; e < n; ++e) { // postorder visits leaves left to right
        out.x[e] = out.columns - tree.height(e);
        out.y[e] = tree.isLeaf(e) ? row++ : (out.y[tree.left(e)] + out.y[tree.right(e)]) / 2;
    }
    out.rows = row;
    return out;
}

} // namespace gpurec::ui
