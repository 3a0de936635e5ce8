#pragma once
// Rooted binary species tree, nodes indexed in postorder (children before parents, root last).
#include "io/newick.hpp"
#include "tree/transfer_constraint.hpp"

#include <string>
#include <unordered_map>
#include <vector>

namespace gpurec {

class SpeciesTree {
  public:
    // Requires a rooted binary tree with unique, non-empty leaf labels. Internal nodes are
    // relabelled like AleRax (spec 1.1) unless their label is usable as is. Doubtful but usable
    // input (negative branch lengths) is described in `warnings` when given.
    static SpeciesTree fromNewick(const NewickTree& tree, std::vector<std::string>* warnings = nullptr);
    static SpeciesTree readFile(const std::string& path, std::vector<std::string>* warnings = nullptr);

    int size() const { return static_cast<int>(parent_.size()); }
    int leafCount() const { return leafCount_; }
    int root() const { return size() - 1; }
    bool isLeaf(int e) const { return left_[e] < 0; }
    int left(int e) const { return left_[e]; }
    int right(int e) const { return right_[e]; }
    int parent(int e) const { return parent_[e]; }
    const std::string& name(int e) const { return names_[e]; }
    const std::vector<std::string>& names() const { return names_; }
    double branchLength(int e) const { return lengths_[e]; }
    // Nodes on the path root..e inclusive.
    int depth(int e) const { return depth_[e]; }
    // Distance in edges to the farthest leaf below (0 for leaves).
    int height(int e) const { return height_[e]; }
    bool isAncestorOrSelf(int a, int e) const;
    // -1 when absent.
    int find(const std::string& name) const;
    // The RELDATED dating, as AleRax computes it from the branch lengths: internal nodes ordered by
    // their distance from the top (the root's own length included; each length rounded to 6
    // decimals, lengths <= 0 or missing taken as 1), equal distances by name, then the leaves by
    // name. The root has rank 0 and every node a larger rank than its parent.
    int rank(int e) const { return rank_[e]; }
    int nodeAtRank(int r) const { return byRank_[r]; }
    const std::vector<int>& ranks() const { return rank_; }
    // The same tree dated by another order of its internal nodes (root first, every node after its
    // parent; the leaves keep their ranks), its lengths those of toRankedNewick. Throws
    // std::invalid_argument when `internalByRank` is not such an order.
    SpeciesTree redated(const std::vector<int>& internalByRank) const;
    // Throws std::invalid_argument when the lengths cannot date the tree (a node's distance from
    // the top rounds to its parent's), which only RELDATED needs.
    void requireDating() const;
    // |R(e)|: number of allowed transfer recipients from e.
    int recipientCount(int e, TransferConstraint constraint) const;
    // Whether h is an allowed recipient of a transfer from e.
    bool isRecipient(int e, int h, TransferConstraint constraint) const;
    // Allowed recipients of a transfer from e, in postorder.
    std::vector<int> recipients(int e, TransferConstraint constraint) const;
    std::vector<int> leaves() const;
    std::string toNewick(bool lengths = true) const;
    // With the lengths AleRax writes under RELDATED, which read back give the same ranks: 1 at the
    // root, rank(v) − rank(parent) at an internal node, leafCount − 1 − rank(parent) at a leaf.
    std::string toRankedNewick() const;
    // The form AleRax writes a tree it uses in: ranked under RELDATED, else with the tree's lengths.
    std::string toNewickFor(TransferConstraint constraint) const;

  private:
    void date(const NewickTree& tree, const std::vector<int>& order); // rank_, byRank_, datingProblem_
    std::string newickWith(const std::vector<double>* lengths, bool rootLength) const;

    std::vector<int> left_, right_, parent_, depth_, height_, rank_, byRank_;
    std::string datingProblem_; // why the lengths cannot date the tree; empty when they can
    std::vector<double> lengths_;
    std::vector<std::string> names_;
    std::unordered_map<std::string, int> index_;
    int leafCount_ = 0;
};

} // namespace gpurec
