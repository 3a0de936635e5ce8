#include "ccp/clade_set.hpp"

#include "ccp/dense_id_index.hpp"
#include "ccp/mad_deviation.hpp"
#include "io/input_error.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

namespace gpurec {

GeneTreeRooting parseGeneTreeRooting(const std::string& text) {
    if (text == "UNIFORM" || text == "UNROOTED") return GeneTreeRooting::Unrooted;
    if (text == "ROOTED") return GeneTreeRooting::Rooted;
    if (text == "MAD") return GeneTreeRooting::Mad;
    throw std::invalid_argument("unknown gene tree rooting '" + text + "' (expected UNIFORM, ROOTED or MAD)");
}

std::string toString(GeneTreeRooting rooting) {
    return rooting == GeneTreeRooting::Rooted ? "ROOTED"
           : rooting == GeneTreeRooting::Mad  ? "MAD"
                                              : "UNIFORM";
}

namespace {

using Word = std::uint64_t;

// Clade bitsets live in one flat pool, indexed by their hash.
class CladeTable {
  public:
    explicit CladeTable(int genes) : words_((genes + 63) / 64) {}
    int words() const { return words_; }

    int intern(const Word* bits, int size) {
        std::uint64_t hash = 0;
        for (int w = 0; w < words_; ++w)
            hash = mixBits(hash ^ bits[w]);
        auto [id, inserted] = index_.findOrAdd(
            hash, [&](int other) { return std::equal(bits, bits + words_, this->bits(other)); });
        if (inserted) {
            size_.push_back(size);
            pool_.insert(pool_.end(), bits, bits + words_);
            lengthSum_.push_back(0.0);
            lengthCount_.push_back(0);
        }
        return id;
    }
    void addLength(int id, double length) {
        lengthSum_[id] += length;
        ++lengthCount_[id];
    }
    int count() const { return static_cast<int>(size_.size()); }
    int size(int id) const { return size_[id]; }
    const Word* bits(int id) const { return pool_.data() + static_cast<std::size_t>(id) * words_; }
    double meanLength(int id) const { return lengthCount_[id] ? lengthSum_[id] / lengthCount_[id] : 0.0; }

  private:
    int words_;
    DenseIdIndex index_;
    std::vector<int> size_;
    std::vector<Word> pool_;
    std::vector<double> lengthSum_;
    std::vector<int> lengthCount_;
};

struct SplitCount {
    int parent, left, right;
    double count;
    double deviation; // MAD: the deviation of the first tree with this root split; NaN until then
};

class SplitCounter {
  public:
    // Returns the split's index.
    int add(int parent, int a, int b) {
        if (a > b) std::swap(a, b);
        // (parent, smaller child) determines the split: the other child is their difference.
        const std::uint64_t key = (static_cast<std::uint64_t>(parent) << 32) | static_cast<std::uint32_t>(a);
        auto [id, inserted] = index_.findOrAdd(mixBits(key), [&](int other) {
            return splits_[other].parent == parent && splits_[other].left == a;
        });
        if (inserted) splits_.push_back({parent, a, b, 0.0, std::nan("")});
        splits_[id].count += 1.0;
        return id;
    }
    void noteDeviation(int id, double deviation) {
        if (std::isnan(splits_[id].deviation)) splits_[id].deviation = deviation;
    }
    const std::vector<SplitCount>& splits() const { return splits_; }

  private:
    DenseIdIndex index_;
    std::vector<SplitCount> splits_;
};

// A binary gene tree re-expressed as a rooted tree over gene indices. Children sit in fixed pairs:
// one allocation per array rather than one per node (the loader reads ~10^7 nodes).
struct IndexedTree {
    std::vector<int> parent;
    std::vector<std::array<int, 2>> children;
    std::vector<int> childCount;
    std::vector<int> gene; // -1 for internal nodes
    std::vector<double> length;
    int root = -1;

    void resize(std::size_t n) {
        parent.assign(n, -1);
        children.assign(n, {-1, -1});
        childCount.assign(n, 0);
        length.assign(n, 0.0);
    }
    void addChild(int p, int c) { children[p][childCount[p]++] = c; }
};

std::vector<int> postorderOf(const IndexedTree& t) {
    std::vector<int> order;
    order.reserve(t.parent.size());
    std::vector<std::pair<int, int>> stack{{t.root, 0}};
    while (!stack.empty()) {
        auto& [node, next] = stack.back();
        if (next < t.childCount[node]) {
            int child = t.children[node][next++];
            stack.emplace_back(child, 0);
        } else {
            order.push_back(node);
            stack.pop_back();
        }
    }
    return order;
}

// Unrooted adjacency of a Newick tree (a binary root is suppressed), rerooted at gene 0's leaf.
// checkBinary has run: every node has at most 3 neighbours.
IndexedTree rerootAtFirstGene(const NewickTree& tree, const std::vector<int>& geneOfNode) {
    const int n = static_cast<int>(tree.nodes.size());
    std::vector<std::array<std::pair<int, double>, 3>> adj(n);
    std::vector<int> degree(n, 0);
    const NewickNode& root = tree.nodes[tree.root];
    auto connect = [&](int a, int b, double len) {
        adj[a][degree[a]++] = {b, len};
        adj[b][degree[b]++] = {a, len};
    };
    for (int v = 0; v < n; ++v) {
        if (v == tree.root) continue;
        int p = tree.nodes[v].parent;
        if (p == tree.root && root.children.size() == 2) continue;
        connect(v, p, tree.nodes[v].length.value_or(0.0));
    }
    if (root.children.size() == 2) {
        int a = root.children[0], b = root.children[1];
        connect(a, b, tree.nodes[a].length.value_or(0.0) + tree.nodes[b].length.value_or(0.0));
    }
    int start = -1;
    for (int v = 0; v < n; ++v)
        if (geneOfNode[v] == 0) start = v;
    IndexedTree t;
    t.resize(n);
    t.gene = geneOfNode;
    t.root = start;
    std::vector<int> stack{start};
    std::vector<char> seen(n, 0);
    seen[start] = 1;
    while (!stack.empty()) {
        int v = stack.back();
        stack.pop_back();
        for (int k = 0; k < degree[v]; ++k) {
            auto [w, len] = adj[v][k];
            if (seen[w]) continue;
            seen[w] = 1;
            t.parent[w] = v;
            t.length[w] = len;
            t.addChild(v, w);
            stack.push_back(w);
        }
    }
    return t;
}

// MAD deviations of rooting on the branch above each node of an unrooted tree (rerootAtFirstGene's).
std::vector<double> madDeviationsAbove(const IndexedTree& t, const std::vector<int>& order) {
    const std::size_t n = t.parent.size();
    UnrootedLengths u;
    u.neighbours.resize(n);
    u.leaf.assign(n, false);
    std::vector<std::pair<int, int>> branches;
    for (int v : order) {
        u.leaf[v] = t.gene[v] >= 0;
        if (v == t.root) continue;
        u.neighbours[v].emplace_back(t.parent[v], t.length[v]);
        u.neighbours[t.parent[v]].emplace_back(v, t.length[v]);
        branches.emplace_back(v, t.parent[v]);
    }
    const std::vector<double> perBranch = madBranchDeviations(u, branches);
    std::vector<double> out(n, 0.0);
    for (std::size_t k = 0; k < branches.size(); ++k)
        out[branches[k].first] = perBranch[k];
    return out;
}

IndexedTree asRooted(const NewickTree& tree, const std::vector<int>& geneOfNode) {
    IndexedTree t;
    const int n = static_cast<int>(tree.nodes.size());
    t.resize(n);
    t.gene = geneOfNode;
    for (int v = 0; v < n; ++v) {
        t.parent[v] = tree.nodes[v].parent;
        for (int c : tree.nodes[v].children)
            t.addChild(v, c);
        t.length[v] = tree.nodes[v].length.value_or(0.0);
    }
    t.root = tree.root;
    return t;
}

void checkBinary(const NewickTree& tree, GeneTreeRooting rooting) {
    for (int v = 0; v < static_cast<int>(tree.nodes.size()); ++v) {
        const NewickNode& node = tree.nodes[v];
        std::size_t k = node.children.size();
        if (k == 0) continue;
        bool isRoot = v == tree.root;
        bool ok = k == 2 || (isRoot && k == 3 && rooting != GeneTreeRooting::Rooted);
        if (ok) continue;
        std::string what =
            k == 1 ? "a node with a single child" : "a polytomy (" + std::to_string(k) + " children)";
        if (isRoot && k == 3)
            what = "a trifurcating (unrooted) root, but ROOTED gene-tree rooting needs a binary root";
        throw InputError(tree.source, node.line, node.column, "gene tree must be binary, found " + what);
    }
}

} // namespace

CladeSet buildCladeSet(const std::vector<NewickTree>& trees, GeneTreeRooting rooting) {
    if (trees.empty()) throw InputError("", 0, 0, "no gene tree given");
    const NewickTree& first = trees.front();
    requireUniqueLeafLabels(first);
    std::vector<std::string> names;
    for (int leaf : first.leaves())
        names.push_back(first.nodes[leaf].label);
    std::sort(names.begin(), names.end());
    std::unordered_map<std::string, int> geneIndex;
    for (int i = 0; i < static_cast<int>(names.size()); ++i)
        geneIndex[names[i]] = i;
    const int genes = static_cast<int>(names.size());

    CladeTable table(genes);
    const int W = table.words();
    SplitCounter counter;
    std::vector<Word> all(W, 0);
    for (int g = 0; g < genes; ++g)
        all[g / 64] |= Word(1) << (g % 64);
    const int fullClade = table.intern(all.data(), genes);
    std::vector<int> nodeOfGene(genes);

    for (std::size_t ti = 0; ti < trees.size(); ++ti) {
        const NewickTree& tree = trees[ti];
        checkBinary(tree, rooting);
        // Leaves in node order are the leaves in text order. A duplicate label shows as a gene seen
        // twice, which needs no per-tree name table.
        std::vector<int> geneOfNode(tree.nodes.size(), -1);
        std::fill(nodeOfGene.begin(), nodeOfGene.end(), -1);
        int leafCount = 0;
        for (int leaf = 0; leaf < static_cast<int>(tree.nodes.size()); ++leaf) {
            if (!tree.isLeaf(leaf)) continue;
            const NewickNode& node = tree.nodes[leaf];
            if (node.label.empty())
                throw InputError(tree.source, node.line, node.column, "leaf without a label");
            auto it = geneIndex.find(node.label);
            if (it == geneIndex.end())
                throw InputError(tree.source, node.line, node.column,
                                 "leaf '" + node.label + "' of tree " + std::to_string(ti + 1) +
                                     " is not in the first tree (all samples must share one leaf set)");
            if (const int seen = nodeOfGene[it->second]; seen >= 0)
                throw InputError(tree.source, node.line, node.column,
                                 "duplicate leaf name '" + node.label + "' (first at line " +
                                     std::to_string(tree.nodes[seen].line) + ", column " +
                                     std::to_string(tree.nodes[seen].column) + ")");
            nodeOfGene[it->second] = leaf;
            geneOfNode[leaf] = it->second;
            ++leafCount;
        }
        if (leafCount != genes)
            throw InputError(tree.source, tree.line, 0,
                             "tree " + std::to_string(ti + 1) + " has " + std::to_string(leafCount) +
                                 " leaves but the first tree has " + std::to_string(genes));
        if (genes == 1) continue;

        const bool unrooted = rooting != GeneTreeRooting::Rooted;
        IndexedTree t = unrooted ? rerootAtFirstGene(tree, geneOfNode) : asRooted(tree, geneOfNode);
        std::vector<int> order = postorderOf(t);
        const std::size_t n = t.parent.size();
        std::vector<Word> sub(n * W, 0);
        std::vector<int> subSize(n, 0), subId(n, -1), upId(n, -1);
        auto bitsOf = [&](int v) { return sub.data() + static_cast<std::size_t>(v) * W; };
        for (int v : order) {
            if (t.gene[v] >= 0) {
                bitsOf(v)[t.gene[v] / 64] |= Word(1) << (t.gene[v] % 64);
                subSize[v] += 1;
            }
            for (int k = 0; k < t.childCount[v]; ++k) {
                const int c = t.children[v][k];
                for (int w = 0; w < W; ++w)
                    bitsOf(v)[w] |= bitsOf(c)[w];
                subSize[v] += subSize[c];
            }
        }
        std::vector<double> deviation; // MAD: per node v, of rooting on the branch above it
        if (rooting == GeneTreeRooting::Mad) deviation = madDeviationsAbove(t, order);
        std::vector<Word> complement(W);
        for (int v : order) {
            if (v == t.root) continue;
            subId[v] = table.intern(bitsOf(v), subSize[v]);
            table.addLength(subId[v], t.length[v]);
            if (unrooted) {
                for (int w = 0; w < W; ++w)
                    complement[w] = all[w] & ~bitsOf(v)[w];
                upId[v] = table.intern(complement.data(), genes - subSize[v]);
                table.addLength(upId[v], t.length[v]);
                const int split = counter.add(fullClade, subId[v], upId[v]); // the root may sit on this edge
                if (!deviation.empty()) counter.noteDeviation(split, deviation[v]);
            }
        }
        for (int v : order) {
            if (t.childCount[v] == 2 && v != t.root)
                counter.add(subId[v], subId[t.children[v][0]], subId[t.children[v][1]]);
        }
        if (rooting == GeneTreeRooting::Rooted) {
            counter.add(fullClade, subId[t.children[t.root][0]], subId[t.children[t.root][1]]);
        } else {
            // The clade above v (everything but sub(v)) splits into v's sibling and the clade above v's
            // parent.
            for (int v : order) {
                int p = t.parent[v];
                if (p < 0 || p == t.root) continue;
                int sibling = t.children[p][0] == v ? t.children[p][1] : t.children[p][0];
                counter.add(upId[v], subId[sibling], upId[p]);
            }
        }
    }

    // Order clades by size, then bits, so children precede parents.
    std::vector<int> order(table.count());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        if (table.size(a) != table.size(b)) return table.size(a) < table.size(b);
        return std::lexicographical_compare(table.bits(a), table.bits(a) + W, table.bits(b),
                                            table.bits(b) + W);
    });
    std::vector<int> rank(table.count());
    for (int i = 0; i < table.count(); ++i)
        rank[order[i]] = i;

    CladeSet out;
    out.geneNames = names;
    out.treeCount = static_cast<int>(trees.size());
    const int C = table.count();
    out.cladeSize.resize(C);
    out.cladeGene.assign(C, -1);
    out.branchLength.resize(C);
    for (int i = 0; i < C; ++i) {
        int id = order[i];
        out.cladeSize[i] = table.size(id);
        out.branchLength[i] = table.meanLength(id);
        if (table.size(id) == 1) {
            const Word* bits = table.bits(id);
            for (int w = 0; w < W; ++w)
                if (bits[w]) out.cladeGene[i] = w * 64 + __builtin_ctzll(bits[w]);
        }
    }
    std::vector<std::vector<CladeSplit>> byParent(C);
    for (const SplitCount& s : counter.splits()) {
        int l = rank[s.left], r = rank[s.right];
        if (l > r) std::swap(l, r);
        // MAD weights a root split's count by the deviation of the first sample that has it (as
        // AleRax keeps the first deviation it sees for a clade).
        const double weight =
            std::isnan(s.deviation) ? s.count : s.count / ((1 + s.deviation) * (1 + s.deviation));
        byParent[rank[s.parent]].push_back({l, r, weight});
    }
    out.splitOffset.assign(C + 1, 0);
    for (int c = 0; c < C; ++c) {
        auto& list = byParent[c];
        std::sort(list.begin(), list.end(), [](const CladeSplit& a, const CladeSplit& b) {
            return a.left != b.left ? a.left < b.left : a.right < b.right;
        });
        double total = 0;
        for (const CladeSplit& s : list)
            total += s.weight;
        for (CladeSplit s : list) {
            s.weight /= total;
            out.splits.push_back(s);
        }
        out.splitOffset[c + 1] = static_cast<int>(out.splits.size());
    }
    return out;
}

} // namespace gpurec

namespace gpurec {
std::vector<int> genesOf(const CladeSet& cs, int clade) {
    std::vector<int> genes, stack{clade};
    while (!stack.empty()) {
        int c = stack.back();
        stack.pop_back();
        if (cs.cladeGene[c] >= 0) {
            genes.push_back(cs.cladeGene[c]);
        } else if (cs.splitOffset[c] < cs.splitOffset[c + 1]) {
            const CladeSplit& s = cs.splits[cs.splitOffset[c]];
            stack.push_back(s.left);
            stack.push_back(s.right);
        }
    }
    std::sort(genes.begin(), genes.end());
    return genes;
}
} // namespace gpurec
