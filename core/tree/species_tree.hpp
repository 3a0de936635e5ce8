#pragma once
// Rooted binary species tree, nodes indexed in postorder (children before parents, root last).
#include "io/newick.hpp"

#include <string>
#include <unordered_map>
#include <vector>

namespace gpurec {

enum class TransferConstraint { Parents, None };
TransferConstraint parseTransferConstraint(const std::string& text); // "PARENTS" | "NONE"
std::string toString(TransferConstraint constraint);

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
    // |R(e)|: number of allowed transfer recipients from e.
    int recipientCount(int e, TransferConstraint constraint) const;
    // Allowed recipients of a transfer from e, in postorder.
    std::vector<int> recipients(int e, TransferConstraint constraint) const;
    std::vector<int> leaves() const;
    std::string toNewick(bool lengths = true) const;

  private:
    std::vector<int> left_, right_, parent_, depth_, height_;
    std::vector<double> lengths_;
    std::vector<std::string> names_;
    std::unordered_map<std::string, int> index_;
    int leafCount_ = 0;
};

} // namespace gpurec
