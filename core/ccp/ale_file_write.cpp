// Writing .ale files: the observed counts are recovered from a CladeSet's weights and tree count.
#include "ccp/ale_file.hpp"

#include "io/number_text.hpp"
#include "io/output_file.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>

namespace gpurec {

namespace {

using Word = std::uint64_t;
using Bits = std::vector<Word>;

// Counts recovered as weight * total are whole numbers up to rounding: they are written as such.
double snapToWhole(double v) {
    const double r = std::round(v);
    return std::abs(v - r) <= 1e-9 * std::max(1.0, std::abs(v)) ? r : v;
}

std::string countText(double v) {
    if (v == std::floor(v) && std::abs(v) < 1e15) return std::to_string(static_cast<long long>(v));
    return exactNumberText(v);
}

void require(bool ok, const std::string& problem) {
    if (!ok) throw std::invalid_argument("cannot write an .ale file: " + problem);
}

// A tree for '#constructor_string' (ALE puts the first sampled tree there; AleRax reads only its
// leaves): from the root down, each clade's most frequent split.
std::string constructorTree(const CladeSet& cs) {
    NewickTree tree;
    std::vector<std::pair<int, int>> stack{{cs.rootClade(), -1}}; // clade, parent node
    while (!stack.empty()) {
        const auto [c, parent] = stack.back();
        stack.pop_back();
        const int node = static_cast<int>(tree.nodes.size());
        tree.nodes.emplace_back();
        tree.nodes[node].parent = parent;
        if (parent >= 0)
            tree.nodes[parent].children.push_back(node);
        else
            tree.root = node;
        if (cs.cladeGene[c] >= 0) {
            tree.nodes[node].label = cs.geneNames[cs.cladeGene[c]];
            continue;
        }
        int best = cs.splitOffset[c];
        for (int k = best + 1; k < cs.splitOffset[c + 1]; ++k)
            if (cs.splits[k].weight > cs.splits[best].weight) best = k;
        stack.push_back({cs.splits[best].right, node});
        stack.push_back({cs.splits[best].left, node});
    }
    return writeNewick(tree, {false, false});
}

} // namespace

std::string aleText(const CladeSet& cs) {
    const int n = cs.geneCount(), C = cs.cladeCount(), root = cs.rootClade();
    require(n >= 2, "it needs at least 2 genes, the clade set has " + std::to_string(n));
    require(cs.treeCount >= 1, "the clade set has no observed tree");
    for (const std::string& name : cs.geneNames)
        require(!name.empty() && name[0] != '#' && name.find_first_of(" \t\r\n") == std::string::npos,
                "gene name '" + name +
                    "' is empty, starts with '#' or holds a blank (.ale fields are split on blanks)");
    require(cs.cladeSize[root] == n, "the last clade is not the full gene set");

    // Gene bits of every clade, children before parents.
    const int W = (n + 63) / 64;
    std::vector<Bits> bits(C, Bits(W, 0));
    std::map<Bits, int> cladeOf;
    for (int c = 0; c < C; ++c) {
        if (cs.cladeGene[c] >= 0) {
            bits[c][cs.cladeGene[c] / 64] |= Word(1) << (cs.cladeGene[c] % 64);
        } else {
            require(cs.splitOffset[c] < cs.splitOffset[c + 1],
                    "clade " + std::to_string(c) + " has no split");
            const CladeSplit& s = cs.splits[cs.splitOffset[c]];
            for (int w = 0; w < W; ++w)
                bits[c][w] = bits[s.left][w] | bits[s.right][w];
        }
        cladeOf.emplace(bits[c], c);
    }

    // A root split's weight is its edge's count over obs * (2n - 3) edges; that count is the
    // directed count of both of its sides.
    const double edges = double(cs.treeCount) * (2 * n - 3);
    std::vector<double> count(C, std::numeric_limits<double>::quiet_NaN());
    for (int k = cs.splitOffset[root]; k < cs.splitOffset[root + 1]; ++k) {
        const CladeSplit& s = cs.splits[k];
        bool complements = cs.cladeSize[s.left] + cs.cladeSize[s.right] == n;
        for (int w = 0; w < W && complements; ++w)
            complements = (bits[s.left][w] & bits[s.right][w]) == 0;
        require(complements, "a root split is not a bipartition");
        count[s.left] = count[s.right] = snapToWhole(s.weight * edges);
    }
    for (int c = 0; c < root; ++c)
        require(!std::isnan(count[c]),
                "clade " + std::to_string(c) +
                    " is no side of a root split (samples of ROOTED gene trees cannot be written)");

    // Set ids: leaves 1..n by name (gene order), then the other clades in clade order.
    std::vector<int> setId(C, 0);
    int next = n;
    for (int c = 0; c < root; ++c)
        setId[c] = cs.cladeGene[c] >= 0 ? cs.cladeGene[c] + 1 : ++next;

    std::string out = "#constructor_string\n" + constructorTree(cs) + "\n#observations\n" +
                      std::to_string(cs.treeCount) + "\n#Bip_counts\n";
    std::vector<int> byId(next + 1, -1);
    for (int c = 0; c < root; ++c)
        byId[setId[c]] = c;
    for (int id = 1; id <= next; ++id) {
        const int c = byId[id];
        if (cs.cladeSize[c] > 1 || count[c] != cs.treeCount)
            out += std::to_string(id) + "\t" + countText(count[c]) + "\n";
    }
    out += "#Bip_bls\n";
    for (int id = 1; id <= next; ++id) {
        const int c = byId[id];
        out += std::to_string(id) + "\t" + countText(cs.branchLength[c] * count[c]) + "\n";
    }
    out += "#Dip_counts\n";
    for (int id = n + 1; id <= next; ++id) {
        const int c = byId[id];
        for (int k = cs.splitOffset[c]; k < cs.splitOffset[c + 1]; ++k) {
            const CladeSplit& s = cs.splits[k];
            const int a = std::min(setId[s.left], setId[s.right]),
                      b = std::max(setId[s.left], setId[s.right]);
            out += std::to_string(id) + "\t" + std::to_string(a) + "\t" + std::to_string(b) + "\t" +
                   countText(snapToWhole(s.weight * count[c])) + "\n";
        }
    }
    out += "#last_leafset_id\n" + std::to_string(next) + "\n#leaf-id\n";
    for (int g = 0; g < n; ++g)
        out += cs.geneNames[g] + "\t" + std::to_string(g + 1) + "\n";
    out += "#set-id\n";
    for (int id = 1; id <= next; ++id) {
        out += std::to_string(id) + "\t:";
        const Bits& b = bits[byId[id]];
        for (int g = 0; g < n; ++g)
            if (b[g / 64] & (Word(1) << (g % 64))) out += "\t" + std::to_string(g + 1);
        out += "\n";
    }
    return out + "#END\n";
}

void writeAleFile(const std::string& path, const CladeSet& clades) {
    writeFileAtomically(path, aleText(clades));
}

} // namespace gpurec
