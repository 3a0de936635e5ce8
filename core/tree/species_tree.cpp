#include "tree/species_tree.hpp"

#include "io/input_error.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unordered_set>

namespace gpurec {

TransferConstraint parseTransferConstraint(const std::string& text) {
    if (text == "PARENTS") return TransferConstraint::Parents;
    if (text == "NONE") return TransferConstraint::None;
    throw std::invalid_argument("unknown transfer constraint '" + text + "' (expected PARENTS or NONE)");
}

std::string toString(TransferConstraint constraint) {
    return constraint == TransferConstraint::Parents ? "PARENTS" : "NONE";
}

namespace {
// A label that parses completely as a number is a support value, not a name.
bool parsesAsNumber(const std::string& s) {
    if (s.empty()) return false;
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size();
}
} // namespace

SpeciesTree SpeciesTree::fromNewick(const NewickTree& tree, std::vector<std::string>* warnings) {
    requireUniqueLeafLabels(tree);
    if (warnings) {
        // The undated model ignores branch lengths, so a negative one is only suspicious.
        const NewickNode* first = nullptr;
        int negative = 0;
        for (const NewickNode& n : tree.nodes)
            if (n.length && *n.length < 0 && negative++ == 0) first = &n;
        if (first) {
            char length[32];
            std::snprintf(length, sizeof length, "%g", *first->length);
            warnings->push_back(
                InputError(tree.source, first->line, first->column,
                           std::string("negative branch length ") + length +
                               (first->label.empty() ? std::string() : " of '" + first->label + "'") +
                               (negative > 1 ? " (and " + std::to_string(negative - 1) + " more)" : "") +
                               "; branch lengths are not used by the undated model")
                    .what());
        }
    }
    for (const NewickNode& n : tree.nodes) {
        if (!n.children.empty() && n.children.size() != 2)
            throw InputError(tree.source, n.line, n.column,
                             "species tree must be rooted and binary, but a node has " +
                                 std::to_string(n.children.size()) +
                                 (n.children.size() == 1 ? " child" : " children"));
    }
    if (tree.leaves().size() < 2)
        throw InputError(tree.source, tree.line, 0, "species tree needs at least 2 leaves");
    SpeciesTree st;
    std::vector<int> order = tree.postorder();
    std::vector<int> indexOf(tree.nodes.size(), -1);
    int n = static_cast<int>(order.size());
    st.left_.assign(n, -1);
    st.right_.assign(n, -1);
    st.parent_.assign(n, -1);
    st.lengths_.assign(n, 0.0);
    st.names_.assign(n, "");
    for (int i = 0; i < n; ++i) {
        const NewickNode& node = tree.nodes[order[i]];
        indexOf[order[i]] = i;
        st.lengths_[i] = node.length.value_or(1.0);
        if (!node.children.empty()) {
            st.left_[i] = indexOf[node.children[0]];
            st.right_[i] = indexOf[node.children[1]];
            st.parent_[st.left_[i]] = i;
            st.parent_[st.right_[i]] = i;
        } else {
            st.names_[i] = node.label;
            ++st.leafCount_;
        }
    }
    // AleRax relabelling: keep usable internal labels, else Node_<a>_<b>_<k>.
    std::unordered_set<std::string> used;
    for (int i = 0; i < n; ++i)
        if (st.isLeaf(i)) used.insert(st.names_[i]);
    std::vector<std::string> leftmostLeaf(n);
    for (int i = 0; i < n; ++i) {
        if (st.isLeaf(i)) {
            leftmostLeaf[i] = st.names_[i];
            continue;
        }
        leftmostLeaf[i] = leftmostLeaf[st.left_[i]];
        const std::string& label = tree.nodes[order[i]].label;
        if (!label.empty() && !used.count(label) && !parsesAsNumber(label)) {
            st.names_[i] = label;
        } else {
            std::string base = "Node_" + leftmostLeaf[st.left_[i]] + "_" + leftmostLeaf[st.right_[i]] + "_";
            int k = 0;
            while (used.count(base + std::to_string(k)))
                ++k;
            st.names_[i] = base + std::to_string(k);
        }
        used.insert(st.names_[i]);
    }
    st.depth_.assign(n, 1);
    for (int i = n - 2; i >= 0; --i)
        st.depth_[i] = st.depth_[st.parent_[i]] + 1;
    st.height_.assign(n, 0);
    for (int i = 0; i < n; ++i)
        if (!st.isLeaf(i)) st.height_[i] = 1 + std::max(st.height_[st.left_[i]], st.height_[st.right_[i]]);
    for (int i = 0; i < n; ++i)
        st.index_[st.names_[i]] = i;
    return st;
}

SpeciesTree SpeciesTree::readFile(const std::string& path, std::vector<std::string>* warnings) {
    std::vector<NewickTree> trees = readNewickFile(path);
    if (trees.size() != 1)
        throw InputError(path, trees[1].line, 0,
                         "species tree file holds " + std::to_string(trees.size()) + " trees, expected one");
    return fromNewick(trees[0], warnings);
}

bool SpeciesTree::isAncestorOrSelf(int a, int e) const {
    while (e >= 0 && e != a)
        e = parent_[e];
    return e == a;
}

int SpeciesTree::find(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? -1 : it->second;
}

int SpeciesTree::recipientCount(int e, TransferConstraint constraint) const {
    return constraint == TransferConstraint::Parents ? size() - depth_[e] : size() - 1;
}

std::vector<int> SpeciesTree::recipients(int e, TransferConstraint constraint) const {
    std::vector<int> out;
    for (int h = 0; h < size(); ++h) {
        if (h == e) continue;
        if (constraint == TransferConstraint::Parents && isAncestorOrSelf(h, e)) continue;
        out.push_back(h);
    }
    return out;
}

std::vector<int> SpeciesTree::leaves() const {
    std::vector<int> out;
    for (int e = 0; e < size(); ++e)
        if (isLeaf(e)) out.push_back(e);
    return out;
}

std::string SpeciesTree::toNewick(bool lengths) const {
    NewickTree t;
    t.nodes.resize(size());
    // Newick node ids: reverse postorder so the root is node 0.
    auto id = [&](int e) { return size() - 1 - e; };
    for (int e = 0; e < size(); ++e) {
        NewickNode& node = t.nodes[id(e)];
        node.label = names_[e];
        if (lengths && e != root()) node.length = lengths_[e];
        node.parent = parent_[e] < 0 ? -1 : id(parent_[e]);
        if (!isLeaf(e)) node.children = {id(left_[e]), id(right_[e])};
    }
    t.root = 0;
    return writeNewick(t, {lengths, true});
}

} // namespace gpurec
