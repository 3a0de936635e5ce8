#include "species_search/species_topology.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace gpurec {

namespace {

Clade emptyClade(int leafCount) {
    return Clade((leafCount + 63) / 64, 0);
}

// Children before parents, iteratively (caterpillar trees of thousands of species).
std::vector<int> postorderOf(const SpeciesTopology& t) {
    std::vector<int> order, stack{t.root()};
    while (!stack.empty()) {
        int n = stack.back();
        stack.pop_back();
        order.push_back(n);
        if (!t.isLeaf(n)) {
            stack.push_back(t.left(n));
            stack.push_back(t.right(n));
        }
    }
    std::reverse(order.begin(), order.end());
    return order;
}

} // namespace

SpeciesTopology SpeciesTopology::fromSpeciesTree(const SpeciesTree& tree,
                                                 const std::vector<std::string>& leafOrder, bool dated) {
    const int leaves = tree.leafCount(), size = tree.size();
    SpeciesTopology t;
    t.parent_.assign(size, -1);
    t.left_.assign(size, -1);
    t.right_.assign(size, -1);
    std::vector<int> id(size, -1);
    if (leafOrder.empty()) {
        for (int e = 0; e < size; ++e)
            if (tree.isLeaf(e)) {
                id[e] = static_cast<int>(t.leafNames_.size());
                t.leafNames_.push_back(tree.name(e));
            }
    } else {
        if (static_cast<int>(leafOrder.size()) != leaves)
            throw std::invalid_argument("the tree has " + std::to_string(leaves) + " leaves, expected " +
                                        std::to_string(leafOrder.size()));
        t.leafNames_ = leafOrder;
        for (int i = 0; i < leaves; ++i) {
            const int e = tree.find(leafOrder[i]);
            if (e < 0 || !tree.isLeaf(e))
                throw std::invalid_argument("species '" + leafOrder[i] + "' is not a leaf of the tree");
            id[e] = i;
        }
    }
    int next = leaves;
    for (int e = 0; e < size; ++e) {
        if (tree.isLeaf(e)) continue;
        id[e] = next++;
        t.left_[id[e]] = id[tree.left(e)];
        t.right_[id[e]] = id[tree.right(e)];
        t.parent_[id[tree.left(e)]] = id[e];
        t.parent_[id[tree.right(e)]] = id[e];
    }
    t.root_ = id[tree.root()];
    if (dated) {
        t.rank_.resize(size);
        for (int e = 0; e < size; ++e)
            t.rank_[id[e]] = tree.rank(e);
    }
    return t;
}

SpeciesTopology::Links SpeciesTopology::links() const {
    return {left_, right_, root_};
}

SpeciesTopology SpeciesTopology::relinked(const Links& links) const {
    requireUndated();
    const int size = nodeCount(), leaves = leafCount();
    auto bad = [](const std::string& what) { throw std::invalid_argument("the node links " + what); };
    if (static_cast<int>(links.left.size()) != size || static_cast<int>(links.right.size()) != size)
        bad("list " + std::to_string(links.left.size()) + " and " + std::to_string(links.right.size()) +
            " nodes; the tree has " + std::to_string(size));
    if (links.root < leaves || links.root >= size) bad("name no internal node as the root");
    SpeciesTopology t;
    t.leafNames_ = leafNames_;
    t.left_ = links.left;
    t.right_ = links.right;
    t.root_ = links.root;
    t.parent_.assign(size, -1);
    for (int n = 0; n < size; ++n) {
        const int l = links.left[n], r = links.right[n];
        if ((n < leaves) != (l < 0) || (n < leaves) != (r < 0))
            bad("give node " + std::to_string(n) + (n < leaves ? " (a leaf) children" : " no two children"));
        for (const int c : {l, r}) {
            if (c < 0) continue;
            if (c >= size || c == links.root || t.parent_[c] >= 0)
                bad("give node " + std::to_string(c) + " a second parent or no place in the tree");
            t.parent_[c] = n;
        }
    }
    // Every node but the root has one parent; the tree is connected when the root reaches them all.
    int reached = 0;
    for (std::vector<int> stack{links.root}; !stack.empty();) {
        const int n = stack.back();
        stack.pop_back();
        if (++reached > size) break;
        if (n >= leaves) stack.insert(stack.end(), {links.left[n], links.right[n]});
    }
    if (reached != size) bad("do not make one tree");
    if (t.canonicalNewick() != canonicalNewick()) bad("describe another tree than the checkpoint's");
    return t;
}

void SpeciesTopology::requireUndated() const {
    if (!rank_.empty())
        throw std::logic_error("a dated species tree (--transfer-constraint RELDATED) cannot be rearranged");
}

int SpeciesTopology::sibling(int n) const {
    const int f = parent_[n];
    if (f < 0) return -1;
    return left_[f] == n ? right_[f] : left_[f];
}

void SpeciesTopology::replaceChild(int parent, int oldChild, int newChild) {
    if (left_[parent] == oldChild)
        left_[parent] = newChild;
    else
        right_[parent] = newChild;
}

bool SpeciesTopology::canSpr(int p, int r) const {
    if (p == root_ || r < 0 || r >= nodeCount()) return false;
    if (r == parent_[p] || r == sibling(p)) return false;
    for (int a = r; a >= 0; a = parent_[a])
        if (a == p) return false;
    return true;
}

int SpeciesTopology::applySpr(int p, int r) {
    requireUndated();
    if (!canSpr(p, r)) throw std::logic_error("invalid SPR move");
    const int f = parent_[p], s = sibling(p), g = parent_[f];
    // Detach f: the sibling takes its place.
    if (g < 0)
        root_ = s;
    else
        replaceChild(g, f, s);
    parent_[s] = g;
    // Insert f above r, p keeping its side.
    const int rp = parent_[r];
    if (rp < 0)
        root_ = f;
    else
        replaceChild(rp, r, f);
    parent_[f] = rp;
    if (left_[f] == p)
        right_[f] = r;
    else
        left_[f] = r;
    parent_[r] = f;
    return s;
}

std::vector<int> SpeciesTopology::sprRegrafts(int p, int radius) const {
    std::vector<int> out;
    for (const Regraft& r : sprRegraftPaths(p, radius))
        out.push_back(r.target);
    return out;
}

std::vector<SpeciesTopology::Regraft> SpeciesTopology::sprRegraftPaths(int p, int radius) const {
    std::vector<Regraft> out;
    if (p == root_ || radius < 1) return out;
    const int f = parent_[p], s = sibling(p), g = parent_[f];
    if (g >= 0) {
        // Breadth-first from g over the unrooted tree, never entering f.
        std::vector<std::pair<int, int>> frontier{{g, -1}}; // (node, where it was reached from)
        for (int d = 1; d <= radius; ++d) {
            std::vector<std::pair<int, int>> next;
            for (auto [n, from] : frontier)
                for (int m : {parent_[n], isLeaf(n) ? -1 : left_[n], isLeaf(n) ? -1 : right_[n]})
                    if (m >= 0 && m != from && m != f) {
                        next.push_back({m, n});
                        out.push_back({m, d > 1 ? n : -1});
                    }
            frontier = std::move(next);
        }
    }
    // Inside the sibling's subtree, depth 2..radius+1 (depth 1 repeats a move of the next radius).
    std::vector<int> level{s};
    for (int d = 1; d <= radius + 1; ++d) {
        std::vector<int> next;
        for (int n : level)
            if (!isLeaf(n)) next.insert(next.end(), {left_[n], right_[n]});
        if (d >= 2)
            for (int m : next)
                out.push_back({m, d > 2 ? parent_[m] : -1});
        level = std::move(next);
    }
    std::erase_if(out, [&](const Regraft& r) { return !canSpr(p, r.target); });
    for (Regraft& r : out)
        if (r.nearer >= 0 && !canSpr(p, r.nearer)) r.nearer = -1;
    return out;
}

void SpeciesTopology::rerootAbove(int x) {
    if (x == root_) throw std::logic_error("the root has no branch above it");
    std::vector<int> path{x};
    while (parent_[path.back()] != root_)
        path.push_back(parent_[path.back()]);
    // From the root child on the path down to x.
    for (std::size_t i = path.size() - 1; i-- > 0;)
        moveRootDownOneEdge(path[i]);
}

void SpeciesTopology::moveRootDownOneEdge(int x) {
    const int p = parent_[x];
    const int keep = left_[p] == x ? right_[p] : left_[p];
    const int other = left_[root_] == p ? right_[root_] : left_[root_];
    // p joins its other child and the root's other side; the root joins x and p.
    left_[p] = keep;
    right_[p] = other;
    parent_[other] = p;
    left_[root_] = x;
    right_[root_] = p;
    parent_[x] = root_;
    if (rank_.empty()) return;
    // AleRax's changeRoot: the new root (p's place) moves up to rank 0 by adjacent swaps, which
    // leaves the old root (now the join, p here) at rank 1 and every other node in its order.
    for (int& r : rank_)
        if (r >= 1 && r < rank_[p]) ++r;
    rank_[p] = 1;
}

std::vector<int> SpeciesTopology::rootPositions() const {
    std::vector<int> out;
    for (int n = 0; n < nodeCount(); ++n)
        if (n != root_ && n != right_[root_]) out.push_back(n);
    return out;
}

std::vector<Clade> SpeciesTopology::clades() const {
    std::vector<Clade> out(nodeCount(), emptyClade(leafCount()));
    for (int n : postorderOf(*this)) {
        if (isLeaf(n)) {
            out[n][n / 64] |= std::uint64_t(1) << (n % 64);
        } else {
            for (std::size_t w = 0; w < out[n].size(); ++w)
                out[n][w] = out[left_[n]][w] | out[right_[n]][w];
        }
    }
    return out;
}

Clade complementClade(const Clade& c, int leafCount) {
    Clade out = c;
    for (std::size_t w = 0; w < out.size(); ++w)
        out[w] = ~out[w];
    if (leafCount % 64 != 0) out.back() &= (std::uint64_t(1) << (leafCount % 64)) - 1;
    return out;
}

Clade SpeciesTopology::rootSplitAbove(int x) const {
    Clade c = clades()[x];
    return (c[0] & 1) ? complementClade(c, leafCount()) : c;
}

std::string SpeciesTopology::canonicalNewick() const {
    std::vector<std::string> text(nodeCount());
    for (int n : postorderOf(*this)) {
        if (isLeaf(n)) {
            text[n] = quoteNewickLabel(leafNames_[n]);
        } else {
            const std::string& a = text[left_[n]];
            const std::string& b = text[right_[n]];
            text[n] = a < b ? "(" + a + "," + b + ")" : "(" + b + "," + a + ")";
        }
    }
    return text[root_] + ";";
}

NewickTree SpeciesTopology::toNewickTree() const {
    // Children in a canonical order (the one holding the smaller leaf id first), so that one rooted
    // topology always gives the same species tree and bit-identical likelihoods.
    std::vector<int> smallest(nodeCount());
    for (int n : postorderOf(*this))
        smallest[n] = isLeaf(n) ? n : std::min(smallest[left_[n]], smallest[right_[n]]);
    NewickTree t;
    t.nodes.resize(nodeCount());
    for (int n = 0; n < nodeCount(); ++n) {
        NewickNode& node = t.nodes[n];
        if (isLeaf(n))
            node.label = leafNames_[n];
        else if (smallest[left_[n]] < smallest[right_[n]])
            node.children = {left_[n], right_[n]};
        else
            node.children = {right_[n], left_[n]};
        node.parent = parent_[n];
        node.length = 1.0;
        // Kept ranks: SpeciesTree::toRankedNewick's lengths, which give the same ranks back.
        if (!rank_.empty() && parent_[n] >= 0)
            node.length = (isLeaf(n) ? leafCount() - 1 : rank_[n]) - rank_[parent_[n]];
    }
    t.root = root_;
    t.source = "candidate species tree";
    return t;
}

std::vector<int> SpeciesTopology::speciesTreeOrder() const {
    return toNewickTree().postorder();
}

SpeciesTopology SpeciesTopology::datedBy(const SpeciesTree& dating) const {
    if (rank_.empty()) throw std::logic_error("an undated species topology has no ranks to change");
    const std::vector<int> id = speciesTreeOrder();
    bool same = dating.size() == nodeCount();
    for (int e = 0; same && e < dating.size(); ++e)
        same = dating.parent(e) < 0 ? id[e] == root_ : parent_[id[e]] == id[dating.parent(e)];
    if (!same) throw std::invalid_argument("a dating of another species tree");
    SpeciesTopology t = *this;
    for (int e = 0; e < dating.size(); ++e)
        t.rank_[id[e]] = dating.rank(e);
    return t;
}

SpeciesTree SpeciesTopology::toSpeciesTree() const {
    return SpeciesTree::fromNewick(toNewickTree());
}

int rootedRobinsonFoulds(const SpeciesTopology& a, const SpeciesTopology& b) {
    auto inner = [](const SpeciesTopology& t) {
        std::vector<Clade> all = t.clades(), out;
        for (int n = t.leafCount(); n < t.nodeCount(); ++n)
            if (n != t.root()) out.push_back(all[n]);
        std::sort(out.begin(), out.end());
        return out;
    };
    const std::vector<Clade> ca = inner(a), cb = inner(b);
    std::vector<Clade> diff;
    std::set_symmetric_difference(ca.begin(), ca.end(), cb.begin(), cb.end(), std::back_inserter(diff));
    return static_cast<int>(diff.size());
}

Clade leavesBelowMovedBranches(const SpeciesTopology& a, const SpeciesTopology& b) {
    if (a.nodeCount() != b.nodeCount() || a.leafCount() != b.leafCount())
        throw std::invalid_argument("leavesBelowMovedBranches: the topologies have other nodes");
    Clade out = emptyClade(a.leafCount());
    std::vector<int> stack;
    auto addBelow = [&](const SpeciesTopology& t, int x) {
        stack.assign(1, x);
        while (!stack.empty()) {
            const int n = stack.back();
            stack.pop_back();
            if (t.isLeaf(n)) {
                out[n / 64] |= std::uint64_t(1) << (n % 64);
            } else {
                stack.push_back(t.left(n));
                stack.push_back(t.right(n));
            }
        }
    };
    std::vector<int> moved;
    for (int x = 0; x < a.nodeCount(); ++x)
        if (a.parent(x) != b.parent(x)) {
            moved.push_back(x);
            addBelow(a, x);
            addBelow(b, x);
        }
    // Two nodes swapped (SPR(p, r) with r the other child of p's grandparent: p's parent keeps its
    // own): p itself is found below their old parents.
    if (moved.size() == 2)
        for (int x : moved)
            if (a.parent(x) >= 0) addBelow(a, a.parent(x));
    return out;
}

} // namespace gpurec
