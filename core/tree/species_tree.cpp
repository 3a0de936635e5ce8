#include "tree/species_tree.hpp"

#include "io/input_error.hpp"
#include "tree/ranked_recipients.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <unordered_set>

namespace gpurec {

TransferConstraint parseTransferConstraint(const std::string& text) {
    if (text == "PARENTS") return TransferConstraint::Parents;
    if (text == "NONE") return TransferConstraint::None;
    if (text == "RELDATED") return TransferConstraint::RelDated;
    throw std::invalid_argument("unknown transfer constraint '" + text +
                                "' (expected PARENTS, NONE or RELDATED)");
}

std::string toString(TransferConstraint constraint) {
    switch (constraint) {
    case TransferConstraint::Parents:
        return "PARENTS";
    case TransferConstraint::None:
        return "NONE";
    case TransferConstraint::RelDated:
        return "RELDATED";
    }
    return "";
}

namespace {
// A label that parses completely as a number is a support value, not a name.
bool parsesAsNumber(const std::string& s) {
    if (s.empty()) return false;
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size();
}

// A branch length as AleRax dates with it: missing or <= 0 is 1, then the tree is written with
// "%f" and read back (6 decimals), where a length rounded to 0 becomes 1 again.
double datingLength(const std::optional<double>& length) {
    const double given = length && *length > 0 ? *length : 1.0;
    char text[400]; // "%f" of the largest double: 309 digits and 7 more
    std::snprintf(text, sizeof text, "%f", given);
    const double rounded = std::strtod(text, nullptr);
    return rounded > 0 ? rounded : 1.0;
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
                               "; branch lengths are not used by the undated model "
                               "(--transfer-constraint RELDATED dates the tree with 1 in their place)")
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
    st.date(tree, order);
    return st;
}

void SpeciesTree::date(const NewickTree& tree, const std::vector<int>& order) {
    const int n = size();
    // Distances from the top, the root's own length included, accumulated root first.
    std::vector<double> fromTop(n);
    for (int e = n - 1; e >= 0; --e)
        fromTop[e] = datingLength(tree.nodes[order[e]].length) + (parent_[e] < 0 ? 0.0 : fromTop[parent_[e]]);
    byRank_.resize(n);
    std::iota(byRank_.begin(), byRank_.end(), 0);
    // Names compare as bytes (strcmp): std::string's order.
    std::sort(byRank_.begin(), byRank_.end(), [&](int a, int b) {
        if (isLeaf(a) != isLeaf(b)) return isLeaf(b);
        if (!isLeaf(a) && fromTop[a] != fromTop[b]) return fromTop[a] < fromTop[b];
        return names_[a] < names_[b];
    });
    rank_.resize(n);
    for (int r = 0; r < n; ++r)
        rank_[byRank_[r]] = r;
    datingProblem_.clear();
    for (int e = 0; e < n && datingProblem_.empty(); ++e)
        if (!isLeaf(e) && parent_[e] >= 0 && !(fromTop[e] > fromTop[parent_[e]]))
            datingProblem_ =
                "--transfer-constraint RELDATED dates the species tree by its branch lengths, but "
                "node '" +
                names_[e] + "' is no farther from the top than its parent '" + names_[parent_[e]] +
                "' once the lengths are rounded to 6 decimals";
}

SpeciesTree SpeciesTree::redated(const std::vector<int>& internalByRank) const {
    const int internal = size() - leafCount_;
    if (static_cast<int>(internalByRank.size()) != internal)
        throw std::invalid_argument("a dating orders " + std::to_string(internal) + " internal nodes, got " +
                                    std::to_string(internalByRank.size()));
    SpeciesTree t = *this;
    std::vector<bool> placed(size(), false);
    for (int r = 0; r < internal; ++r) {
        const int e = internalByRank[r];
        if (e < 0 || e >= size() || isLeaf(e) || placed[e] || (parent_[e] >= 0 && !placed[parent_[e]]))
            throw std::invalid_argument("a dating must list every internal node once, each after its parent");
        placed[e] = true;
        t.byRank_[r] = e;
        t.rank_[e] = r;
    }
    t.datingProblem_.clear();
    t.lengths_.assign(size(), 1.0);
    for (int e = 0; e < root(); ++e)
        t.lengths_[e] = (isLeaf(e) ? leafCount_ - 1 : t.rank_[e]) - t.rank_[parent_[e]];
    return t;
}

void SpeciesTree::requireDating() const {
    if (!datingProblem_.empty()) throw std::invalid_argument(datingProblem_);
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
    switch (constraint) {
    case TransferConstraint::Parents:
        return size() - depth_[e];
    case TransferConstraint::None:
        break;
    case TransferConstraint::RelDated:
        requireDating();
        return size() - 1 - firstRecipientRank(rank_.data(), parent_.data(), e);
    }
    return size() - 1;
}

bool SpeciesTree::isRecipient(int e, int h, TransferConstraint constraint) const {
    if (constraint == TransferConstraint::RelDated) requireDating();
    return gpurec::isRecipient(constraint, parent_.data(), rank_.data(), e, h);
}

std::vector<int> SpeciesTree::recipients(int e, TransferConstraint constraint) const {
    std::vector<int> out;
    for (int h = 0; h < size(); ++h)
        if (isRecipient(e, h, constraint)) out.push_back(h);
    return out;
}

std::vector<int> SpeciesTree::leaves() const {
    std::vector<int> out;
    for (int e = 0; e < size(); ++e)
        if (isLeaf(e)) out.push_back(e);
    return out;
}

std::string SpeciesTree::toNewick(bool lengths) const {
    return newickWith(lengths ? &lengths_ : nullptr, false);
}

std::string SpeciesTree::toRankedNewick() const {
    requireDating();
    std::vector<double> lengths(size(), 1.0);
    for (int e = 0; e < root(); ++e)
        lengths[e] = (isLeaf(e) ? leafCount_ - 1 : rank_[e]) - rank_[parent_[e]];
    return newickWith(&lengths, true);
}

std::string SpeciesTree::toNewickFor(TransferConstraint constraint) const {
    return constraint == TransferConstraint::RelDated ? toRankedNewick() : toNewick(true);
}

std::string SpeciesTree::newickWith(const std::vector<double>* lengths, bool rootLength) const {
    NewickTree t;
    t.nodes.resize(size());
    // Newick node ids: reverse postorder so the root is node 0.
    auto id = [&](int e) { return size() - 1 - e; };
    for (int e = 0; e < size(); ++e) {
        NewickNode& node = t.nodes[id(e)];
        node.label = names_[e];
        if (lengths && (rootLength || e != root())) node.length = (*lengths)[e];
        node.parent = parent_[e] < 0 ? -1 : id(parent_[e]);
        if (!isLeaf(e)) node.children = {id(left_[e]), id(right_[e])};
    }
    t.root = 0;
    return writeNewick(t, {lengths != nullptr, true});
}

} // namespace gpurec
