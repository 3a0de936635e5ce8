#include "species_search/start_trees.hpp"

#include "ccp/ale_file.hpp"
#include "io/gene_mapping.hpp"
#include "io/newick.hpp"
#include "io/text_file.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace gpurec {

namespace {

struct FamilyTrees {
    std::vector<NewickTree> trees;
    GeneMapping mapping;
};

// A family's trees and mapping; false when they cannot be read.
bool readFamily(const FamilyInput& f, FamilyTrees& out) {
    if (f.error) return false;
    try {
        // An .ale file stands for its sample by its constructor tree, as in AleRax.
        if (isAleFile(f.geneTreePath))
            out.trees = {parseAle(readTextFile(f.geneTreePath), f.geneTreePath).constructorTree};
        else
            out.trees = readNewickFile(f.geneTreePath);
        out.mapping = f.mappingPath.empty() ? GeneMapping() : GeneMapping::readFile(f.mappingPath);
    } catch (const std::exception&) {
        return false;
    }
    return !out.trees.empty();
}

} // namespace

std::vector<std::string> familySpecies(const std::vector<FamilyInput>& families) {
    std::vector<std::string> out;
    std::unordered_map<std::string, int> seen;
    for (const FamilyInput& f : families) {
        FamilyTrees t;
        if (!readFamily(f, t)) continue;
        for (int leaf : t.trees.front().leaves()) {
            const std::string species = t.mapping.speciesOf(t.trees.front().nodes[leaf].label);
            if (!species.empty() && seen.emplace(species, int(out.size())).second) out.push_back(species);
        }
    }
    return out;
}

SpeciesTree randomSpeciesTree(std::vector<std::string> species, RandomSource& rng) {
    if (species.size() < 2) throw std::invalid_argument("a random species tree needs at least 2 species");
    std::sort(species.begin(), species.end());
    NewickTree t;
    t.nodes.push_back({species[0], 1.0, {}, -1, 0, 0});
    t.root = 0;
    for (std::size_t i = 1; i < species.size(); ++i) {
        const int target = int(rng.below(t.nodes.size()));
        const int leaf = int(t.nodes.size()), parent = leaf + 1;
        t.nodes.push_back({species[i], 1.0, {}, parent, 0, 0});
        const bool leafLeft = rng.below(2) == 0;
        t.nodes.push_back({"", 1.0,
                           leafLeft ? std::vector<int>{leaf, target} : std::vector<int>{target, leaf},
                           t.nodes[target].parent, 0, 0});
        const int above = t.nodes[target].parent;
        if (above < 0)
            t.root = parent;
        else
            std::replace(t.nodes[above].children.begin(), t.nodes[above].children.end(), target, parent);
        t.nodes[target].parent = parent;
    }
    return SpeciesTree::fromNewick(t);
}

namespace {

// One family's share of MiniNJ's distances: its species in first-seen order (trees in file order,
// leaves left to right) and, per ordered pair of them, the sum over its trees of the shortest path
// between a gene of each and the number of trees holding both.
struct FamilyDistances {
    std::vector<std::string> species;
    std::vector<double> sum, count; // species.size()² each
};

// Edge weight of `child` to its parent: an edge shorter than 1.1e-6 (but not 0) counts 0.
int edgeWeight(const NewickTree& tree, int child) {
    const double len = tree.nodes[child].length.value_or(1.0);
    return (len > 0 && len < 1.1e-6) ? 0 : 1;
}

// For every pair of species of `tree` (indices of `speciesOf`, −1 for unmapped leaves; `P` in all),
// the shortest leaf-to-leaf path, into best (P², +inf where a pair is absent). A path turns at the
// last common ancestor of its leaves, so each node combines its children's nearest leaf per species:
// O(pairs of leaves) in all, where a search from every leaf cost O(leaves × nodes) and thousands
// of genes per family made the hogenom-like preset's start tree take minutes.
void shortestSpeciesPaths(const NewickTree& tree, const std::vector<int>& speciesOf, int P,
                          std::vector<double>& best) {
    best.assign(std::size_t(P) * P, std::numeric_limits<double>::infinity());
    std::vector<std::vector<std::pair<int, int>>> down(tree.nodes.size()); // (species, distance), by species
    std::vector<std::pair<int, int>> merged;
    for (int v : tree.postorder()) {
        if (tree.nodes[v].children.empty()) {
            if (speciesOf[v] >= 0) down[v] = {{speciesOf[v], 0}};
            continue;
        }
        merged.clear();
        const std::vector<int>& children = tree.nodes[v].children;
        for (std::size_t a = 0; a < children.size(); ++a) {
            const int wa = edgeWeight(tree, children[a]);
            for (std::size_t b = a + 1; b < children.size(); ++b) {
                const int wb = edgeWeight(tree, children[b]);
                for (const auto& [i, di] : down[children[a]])
                    for (const auto& [j, dj] : down[children[b]]) {
                        if (i == j) continue;
                        const double d = di + wa + dj + wb;
                        double& ij = best[std::size_t(i) * P + j];
                        double& ji = best[std::size_t(j) * P + i];
                        ij = std::min(ij, d);
                        ji = std::min(ji, d);
                    }
            }
            for (const auto& [i, di] : down[children[a]])
                merged.emplace_back(i, di + wa);
            std::vector<std::pair<int, int>>().swap(down[children[a]]); // read once
        }
        std::sort(merged.begin(), merged.end());
        auto& out = down[v];
        for (const auto& entry : merged) // the nearest leaf of each species (the first after sorting)
            if (out.empty() || out.back().first != entry.first) out.push_back(entry);
    }
}

FamilyDistances familyDistances(const FamilyInput& f) {
    FamilyDistances out;
    FamilyTrees ft;
    if (!readFamily(f, ft)) return out;
    std::unordered_map<std::string, int> index;
    std::vector<std::vector<int>> speciesOf;
    for (const NewickTree& tree : ft.trees) {
        std::vector<int>& of = speciesOf.emplace_back(tree.nodes.size(), -1);
        for (int leaf : tree.leaves()) {
            const std::string s = ft.mapping.speciesOf(tree.nodes[leaf].label);
            if (s.empty()) continue;
            auto [it, fresh] = index.emplace(s, int(out.species.size()));
            if (fresh) out.species.push_back(s);
            of[leaf] = it->second;
        }
    }
    const int P = int(out.species.size());
    out.sum.assign(std::size_t(P) * P, 0.0);
    out.count.assign(std::size_t(P) * P, 0.0);
    std::vector<double> best;
    for (std::size_t t = 0; t < ft.trees.size(); ++t) {
        shortestSpeciesPaths(ft.trees[t], speciesOf[t], P, best);
        for (std::size_t k = 0; k < best.size(); ++k)
            if (best[k] < std::numeric_limits<double>::infinity()) {
                out.sum[k] += best[k];
                out.count[k] += 1;
            }
    }
    return out;
}

} // namespace

SpeciesTree miniNjSpeciesTree(const std::vector<FamilyInput>& families) {
    std::vector<std::string> species;
    std::unordered_map<std::string, int> index;
    std::vector<std::vector<double>> sum, count;
    // Families are read and measured in parallel, a block at a time (bounding the matrices held), and
    // added in family order; the sums are of whole numbers, exact in any order.
    constexpr int kBlock = 256;
    const int F = int(families.size());
    for (int begin = 0; begin < F; begin += kBlock) {
        const int blockSize = std::min(kBlock, F - begin);
        std::vector<FamilyDistances> block(blockSize);
#pragma omp parallel for schedule(dynamic)
        for (int k = 0; k < blockSize; ++k)
            block[k] = familyDistances(families[begin + k]);
        for (const FamilyDistances& fd : block) {
            std::vector<int> global;
            for (const std::string& s : fd.species) {
                auto [it, fresh] = index.emplace(s, int(species.size()));
                if (fresh) species.push_back(s);
                global.push_back(it->second);
            }
            if (sum.size() != species.size())
                for (auto* m : {&sum, &count}) {
                    m->resize(species.size());
                    for (auto& row : *m)
                        row.resize(species.size(), 0.0);
                }
            const std::size_t P = fd.species.size();
            for (std::size_t i = 0; i < P; ++i)
                for (std::size_t j = 0; j < P; ++j) {
                    sum[global[i]][global[j]] += fd.sum[i * P + j];
                    count[global[i]][global[j]] += fd.count[i * P + j];
                }
        }
    }
    const int n = int(species.size());
    if (n < 3)
        throw std::invalid_argument("MiniNJ needs at least 3 species, the families have " +
                                    std::to_string(n));
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<std::vector<double>> D(n, std::vector<double>(n, 0.0));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (i != j && count[i][j] > 0) D[i][j] = sum[i][j] / count[i][j];
    // Clusters: a Newick node per active row.
    NewickTree t;
    std::vector<int> node(n);
    for (int i = 0; i < n; ++i) {
        node[i] = int(t.nodes.size());
        t.nodes.push_back({species[i], 1.0, {}, -1, 0, 0});
    }
    std::vector<bool> active(n, true);
    for (int left = n; left >= 2; --left) {
        std::vector<double> rowSum(n, 0.0);
        for (int i = 0; i < n; ++i)
            if (active[i])
                for (int k = 0; k < n; ++k)
                    if (active[k]) rowSum[i] += D[i][k];
        int p1 = -1, p2 = -1;
        double bestQ = inf;
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j) {
                if (!active[i] || !active[j]) continue;
                const double q = (left - 2) * D[i][j] - rowSum[i] - rowSum[j];
                if (q < bestQ || p1 < 0) {
                    bestQ = q;
                    p1 = i;
                    p2 = j;
                }
            }
        double bl1 = left == 2 ? 0.5 * D[p1][p2] : 0.5 * (D[p1][p2] + (rowSum[p1] - rowSum[p2]) / (left - 2));
        double bl2 = D[p1][p2] - bl1;
        bl1 = std::max(bl1, 0.0);
        bl2 = std::max(bl2, 0.0);
        const int u = int(t.nodes.size());
        t.nodes.push_back({"", 1.0, {node[p1], node[p2]}, -1, 0, 0});
        t.nodes[node[p1]].parent = u;
        t.nodes[node[p1]].length = bl1 > 0 ? bl1 : 1.0;
        t.nodes[node[p2]].parent = u;
        t.nodes[node[p2]].length = bl2 > 0 ? bl2 : 1.0;
        for (int k = 0; k < n; ++k)
            if (active[k] && k != p1 && k != p2)
                D[p1][k] = D[k][p1] = 0.5 * (D[k][p1] + D[k][p2] - D[p1][p2]);
        active[p2] = false;
        node[p1] = u;
    }
    t.root = int(t.nodes.size()) - 1;
    return SpeciesTree::fromNewick(t);
}

} // namespace gpurec
