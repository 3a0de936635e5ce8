#include "sim/tree_perturbation.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpurec {

void PerturbationOptions::validate() const {
    if (!(rate >= 0.0 && rate <= 1.0))
        throw std::invalid_argument("perturbation rate must be in [0, 1], got " + std::to_string(rate));
    if (!(sprFraction >= 0.0 && sprFraction <= 1.0))
        throw std::invalid_argument("SPR fraction must be in [0, 1], got " + std::to_string(sprFraction));
    if (sprRadius < 1)
        throw std::invalid_argument("SPR radius must be at least 1, got " + std::to_string(sprRadius));
}

namespace {

// A rooted binary tree as parent/child arrays over the Newick node indices.
class MutableTree {
  public:
    explicit MutableTree(const NewickTree& t) : source_(t), parent_(t.nodes.size()), child_(t.nodes.size()) {
        for (std::size_t v = 0; v < t.nodes.size(); ++v) {
            parent_[v] = t.nodes[v].parent;
            if (t.nodes[v].children.size() == 2)
                child_[v] = {t.nodes[v].children[0], t.nodes[v].children[1]};
            else if (!t.nodes[v].children.empty())
                throw std::invalid_argument("tree perturbation needs a binary tree");
            else
                child_[v] = {-1, -1};
        }
        root_ = t.root;
    }

    int size() const { return int(parent_.size()); }
    bool isLeaf(int v) const { return child_[v][0] < 0; }

    // Rooted NNI: a child of internal non-root node u swaps place with u's sibling.
    bool nni(RandomSource& rng) {
        std::vector<int> candidates;
        for (int v = 0; v < size(); ++v)
            if (v != root_ && !isLeaf(v)) candidates.push_back(v);
        if (candidates.empty()) return false;
        int u = candidates[rng.below(candidates.size())];
        int p = parent_[u];
        int sibling = otherChild(p, u);
        int moved = child_[u][rng.below(2)];
        replaceChild(u, moved, sibling);
        replaceChild(p, sibling, moved);
        return true;
    }

    // SPR: detach the subtree at s with its parent node, regraft on a branch near where it was.
    bool spr(int radius, RandomSource& rng) {
        if (size() < 5) return false; // fewer than 3 leaves: nothing to move
        std::vector<int> candidates;
        for (int v = 0; v < size(); ++v)
            if (v != root_) candidates.push_back(v);
        int s = candidates[rng.below(candidates.size())];
        int p = parent_[s];
        int sibling = otherChild(p, s);
        int grand = parent_[p];
        // Detach p: the sibling takes its place.
        parent_[sibling] = grand;
        if (grand >= 0)
            replaceChild(grand, p, sibling);
        else
            root_ = sibling;
        std::vector<int> targets = nodesNear(sibling, radius);
        int target = targets.empty() ? sibling : targets[rng.below(targets.size())];
        // Regraft p on the branch above target.
        int above = parent_[target];
        parent_[p] = above;
        if (above >= 0)
            replaceChild(above, target, p);
        else
            root_ = p;
        child_[p] = {target, s};
        if (rng.below(2)) std::swap(child_[p][0], child_[p][1]);
        parent_[target] = p;
        parent_[s] = p;
        return true;
    }

    NewickTree toNewick() const {
        NewickTree out;
        out.source = source_.source;
        std::vector<std::pair<int, int>> stack{{root_, -1}};
        while (!stack.empty()) {
            auto [v, parent] = stack.back();
            stack.pop_back();
            int index = int(out.nodes.size());
            NewickNode node;
            node.label = source_.nodes[v].label;
            node.length = source_.nodes[v].length;
            node.parent = parent;
            out.nodes.push_back(node);
            if (parent >= 0) out.nodes[parent].children.push_back(index);
            if (!isLeaf(v)) {
                stack.emplace_back(child_[v][1], index);
                stack.emplace_back(child_[v][0], index);
            }
        }
        out.root = 0;
        return out;
    }

  private:
    const NewickTree& source_;
    std::vector<int> parent_;
    std::vector<std::array<int, 2>> child_;
    int root_;

    int otherChild(int parent, int child) const {
        if (parent < 0) return -1;
        return child_[parent][0] == child ? child_[parent][1] : child_[parent][0];
    }
    void replaceChild(int parent, int from, int to) {
        child_[parent][child_[parent][0] == from ? 0 : 1] = to;
        parent_[to] = parent;
    }
    // Nodes of the current tree within `radius` branches of `start`, `start` excluded (regrafting
    // above it would restore the tree).
    std::vector<int> nodesNear(int start, int radius) const {
        std::vector<int> out, frontier{start};
        std::vector<char> seen(parent_.size(), 0);
        seen[start] = 1;
        for (int d = 0; d < radius && !frontier.empty(); ++d) {
            std::vector<int> next;
            for (int v : frontier) {
                int neighbours[3] = {parent_[v], child_[v][0], child_[v][1]};
                for (int w : neighbours)
                    if (w >= 0 && !seen[w]) {
                        seen[w] = 1;
                        next.push_back(w);
                        out.push_back(w);
                    }
            }
            frontier = std::move(next);
        }
        return out;
    }
};

} // namespace

NewickTree perturbTree(const NewickTree& tree, const PerturbationOptions& options, RandomSource& rng) {
    options.validate();
    MutableTree t(tree);
    int internalBranches = 0;
    for (int v = 0; v < t.size(); ++v)
        if (v != tree.root && !t.isLeaf(v)) ++internalBranches;
    int moves = 0;
    for (int b = 0; b < internalBranches; ++b)
        if (rng.uniform() < options.rate) ++moves;
    for (int m = 0; m < moves; ++m) {
        if (rng.uniform() < options.sprFraction)
            t.spr(options.sprRadius, rng);
        else
            t.nni(rng);
    }
    return t.toNewick();
}

} // namespace gpurec
