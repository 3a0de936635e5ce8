#include "recon/gene_consensus.hpp"

#include "io/newick.hpp"
#include "recon/recon_tables.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>

namespace gpurec {

namespace {

using Clade = std::vector<std::uint64_t>; // bit set over gene indices

bool contains(const Clade& outer, const Clade& inner) {
    for (std::size_t w = 0; w < outer.size(); ++w)
        if ((inner[w] & ~outer[w]) != 0) return false;
    return true;
}

// Clades (gene sets) of one sample's internal non-root gene nodes.
std::vector<Clade> sampleClades(const Reconciliation& r, const std::map<std::string, int>& gene) {
    const std::size_t words = (gene.size() + 63) / 64;
    std::vector<Clade> below(r.nodes.size(), Clade(words, 0));
    std::vector<Clade> out;
    // Children come before parents in a post-order walk from the root.
    std::vector<std::pair<int, bool>> stack{{r.root, false}};
    while (!stack.empty()) {
        auto [node, expanded] = stack.back();
        stack.pop_back();
        const ReconNode& n = r.nodes.at(node);
        if (!expanded) {
            stack.emplace_back(node, true);
            for (int child : n.children)
                stack.emplace_back(child, false);
            continue;
        }
        if (n.children.empty()) {
            auto it = gene.find(n.name);
            if (it == gene.end())
                throw std::invalid_argument("sampled gene trees of family '" + r.family +
                                            "' differ in gene '" + n.name + "'");
            below[node][it->second / 64] |= std::uint64_t(1) << (it->second % 64);
            continue;
        }
        for (int child : n.children)
            for (std::size_t w = 0; w < words; ++w)
                below[node][w] |= below[child][w];
        if (node != r.root) out.push_back(below[node]);
    }
    return out;
}

} // namespace

std::string majorityConsensusNewick(const std::vector<Reconciliation>& samples) {
    if (samples.empty()) return ";";
    std::map<std::string, int> gene;
    std::vector<std::string> names;
    for (const ReconNode& n : samples.front().nodes)
        if (n.children.empty() && !n.name.empty()) names.push_back(n.name);
    std::sort(names.begin(), names.end());
    for (std::size_t i = 0; i < names.size(); ++i)
        gene[names[i]] = static_cast<int>(i);
    const std::size_t words = (names.size() + 63) / 64;

    std::map<Clade, int> count;
    for (const Reconciliation& r : samples) {
        std::vector<Clade> clades = sampleClades(r, gene);
        std::sort(clades.begin(), clades.end());
        clades.erase(std::unique(clades.begin(), clades.end()),
                     clades.end()); // a clade counts once per sample
        for (const Clade& c : clades)
            ++count[c];
    }
    const double n = static_cast<double>(samples.size());
    struct Node {
        Clade genes;
        int size = 0;
        double support = 1.0;
        int gene = -1; // leaves
        std::vector<int> children;
    };
    std::vector<Node> nodes;
    auto popcount = [](const Clade& c) {
        int k = 0;
        for (std::uint64_t w : c)
            k += __builtin_popcountll(w);
        return k;
    };
    for (const auto& [clade, k] : count)
        if (k / n >= 0.50001 && popcount(clade) > 1) nodes.push_back({clade, popcount(clade), k / n, -1, {}});
    for (std::size_t i = 0; i < names.size(); ++i) {
        Clade leaf(words, 0);
        leaf[i / 64] |= std::uint64_t(1) << (i % 64);
        nodes.push_back({leaf, 1, 1.0, static_cast<int>(i), {}});
    }
    Clade all(words, 0);
    for (std::size_t i = 0; i < names.size(); ++i)
        all[i / 64] |= std::uint64_t(1) << (i % 64);
    nodes.push_back({all, static_cast<int>(names.size()), 1.0, -1, {}});
    const int root = static_cast<int>(nodes.size()) - 1;
    // Majority clades are nested or disjoint: each hangs below the smallest clade that holds it.
    std::vector<int> bySize(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
        bySize[i] = static_cast<int>(i);
    std::stable_sort(bySize.begin(), bySize.end(),
                     [&](int a, int b) { return nodes[a].size > nodes[b].size; });
    for (std::size_t k = 1; k < bySize.size(); ++k) {
        const int child = bySize[k];
        if (child == root) continue;
        int parent = root;
        for (std::size_t j = 0; j < k; ++j) {
            const int candidate = bySize[j];
            if (candidate != child && nodes[candidate].size > nodes[child].size &&
                nodes[candidate].size < nodes[parent].size &&
                contains(nodes[candidate].genes, nodes[child].genes))
                parent = candidate;
        }
        nodes[parent].children.push_back(child);
    }
    // Children in order of their smallest gene, so the text does not depend on the sample order.
    auto firstGene = [&](int v) {
        for (std::size_t w = 0; w < words; ++w)
            if (nodes[v].genes[w] != 0) return static_cast<int>(w * 64 + __builtin_ctzll(nodes[v].genes[w]));
        return 0;
    };
    std::string out;
    std::vector<std::pair<int, std::size_t>> stack{{root, 0}};
    for (Node& v : nodes)
        std::sort(v.children.begin(), v.children.end(),
                  [&](int a, int b) { return firstGene(a) < firstGene(b); });
    while (!stack.empty()) {
        auto& [v, done] = stack.back();
        const Node& node = nodes[v];
        if (done < node.children.size()) {
            out += done == 0 ? '(' : ',';
            stack.emplace_back(node.children[done++], 0);
            continue;
        }
        if (node.gene >= 0)
            out += quoteNewickLabel(names[node.gene]);
        else if (!node.children.empty())
            out += ")";
        if (v != root) {
            if (node.gene < 0) out += formatCount(node.support);
            out += ":0.1";
        }
        stack.pop_back();
    }
    return out + ";\n";
}

} // namespace gpurec
