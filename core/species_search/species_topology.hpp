#pragma once
// An editable rooted binary species topology for the species-tree search: SPR moves within a
// radius and re-rooting (spec species-tree-search.md 3.3, 4.1). Node ids are stable across edits
// (leaves 0..n-1 keep their names), so a move is undone by the inverse move and clades (leaf sets)
// compare across candidates.
#include "tree/species_tree.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gpurec {

// A set of leaf ids, one bit each.
using Clade = std::vector<std::uint64_t>;

class SpeciesTopology {
  public:
    // Leaves keep the tree's left-to-right leaf order as ids, unless `leafOrder` (names) is given:
    // then leaf i is leafOrder[i] (the tree's leaves must be exactly those names; throws
    // std::invalid_argument naming what differs). `dated`: the topology keeps the tree's ranks
    // (RELDATED): it can be re-rooted (rerootAbove) and re-dated (datedBy), not pruned and regrafted
    // (applySpr throws std::logic_error, as AleRax forbids SPR moves on a dated tree).
    static SpeciesTopology fromSpeciesTree(const SpeciesTree& tree,
                                           const std::vector<std::string>& leafOrder = {},
                                           bool dated = false);

    int nodeCount() const { return static_cast<int>(parent_.size()); }
    int leafCount() const { return static_cast<int>(leafNames_.size()); }
    int root() const { return root_; }
    bool isLeaf(int n) const { return n < leafCount(); }
    int parent(int n) const { return parent_[n]; }
    int left(int n) const { return left_[n]; }
    int right(int n) const { return right_[n]; }
    int sibling(int n) const;
    const std::vector<std::string>& leafNames() const { return leafNames_; }

    // SPR(p, r): prune p with its parent f, join p's sibling to f's parent, insert f on the branch
    // above r (f becomes the root when r is the root). Valid when p is not the root and r is not
    // p's parent, p's sibling or inside p's subtree.
    bool canSpr(int p, int r) const;
    // Applies a valid move; returns p's old sibling: applySpr(p, returned) restores the tree.
    int applySpr(int p, int r);
    // Regraft targets of p within `radius` (spec 3.3): from p's grandparent outward 1..radius
    // edges (not through p's parent), and in p's sibling's subtree at depth 2..radius+1.
    std::vector<int> sprRegrafts(int p, int radius) const;
    // The same targets in the same order, each with the target one edge nearer to p's old place on
    // the way to it (−1 for the nearest ones: its grandparent's neighbours, its sibling's
    // grandchildren), when that one is a valid target too.
    struct Regraft {
        int target, nearer;
    };
    std::vector<Regraft> sprRegraftPaths(int p, int radius) const;

    // Moves the root onto the branch above x (x not the root); a no-op when x is a root child. The
    // root goes there one edge at a time, as AleRax's root moves do; on a dated topology each edge
    // keeps the root at rank 0 and gives rank 1 to the node that now joins the old root's two sides
    // (AleRax's old root, moved down past the new one), every other node keeping its relative order.
    void rerootAbove(int x);
    // The nodes x whose branch can carry the root, one per distinct root position (one root child
    // stands for the root's own branch).
    std::vector<int> rootPositions() const;

    // Leaf set of every node.
    std::vector<Clade> clades() const;
    // The root split of "root above x" as the side that holds no leaf 0 (identifies a root position).
    Clade rootSplitAbove(int x) const;
    // Canonical rooted topology: leaf names, children sorted; equal strings mean equal trees.
    std::string canonicalNewick() const;
    // The tree for the engine (internal nodes named like AleRax, branch lengths 1, or those that give
    // the kept ranks), children in a canonical order: equal rooted topologies give equal trees.
    SpeciesTree toSpeciesTree() const;
    NewickTree toNewickTree() const;
    // Node ids in the order of toSpeciesTree()'s indices (its postorder): entry e is the id of
    // species node e.
    std::vector<int> speciesTreeOrder() const;
    // This dated topology with the ranks of `dating`, a dating of toSpeciesTree()
    // (SpeciesTree::redated: the same nodes), node ids kept; throws std::invalid_argument when
    // `dating` is another tree, std::logic_error when this topology is undated.
    SpeciesTopology datedBy(const SpeciesTree& dating) const;

    // The children of every node id (−1 for leaves) and the root: what a checkpoint keeps to resume a
    // search at a node id, since fromSpeciesTree numbers the internal nodes afresh.
    struct Links {
        std::vector<int> left, right;
        int root = -1;
    };
    Links links() const;
    // This undated topology with the node ids of `links`, which must describe the same rooted tree
    // over the same leaf ids; throws std::invalid_argument saying what differs.
    SpeciesTopology relinked(const Links& links) const;

  private:
    void replaceChild(int parent, int oldChild, int newChild);
    // The root moved onto the branch above x, a grandchild of the root.
    void moveRootDownOneEdge(int x);
    void requireUndated() const; // before an SPR move

    std::vector<int> parent_, left_, right_;
    std::vector<int> rank_; // per node id: the ranks of a dated topology; empty otherwise
    std::vector<std::string> leafNames_;
    int root_ = -1;
};

// Rooted Robinson–Foulds distance: clades (non-root, non-leaf) in one tree and not the other,
// counted on both sides. The trees must share leaf ids.
int rootedRobinsonFoulds(const SpeciesTopology& a, const SpeciesTopology& b);
Clade complementClade(const Clade& c, int leafCount);
// What a move from a to b touches: the leaves below every node whose parent differs between a and
// b, in either tree (for SPR(p, r) the leaves of p, of r and of p's old sibling; for a root move
// most of the tree). The trees must share node ids (throws std::invalid_argument otherwise).
Clade leavesBelowMovedBranches(const SpeciesTopology& a, const SpeciesTopology& b);

} // namespace gpurec
