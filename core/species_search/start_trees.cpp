#include "species_search/start_trees.hpp"

#include "ccp/ale_file.hpp"
#include "io/gene_mapping.hpp"
#include "io/newick.hpp"
#include "io/text_file.hpp"

#include <algorithm>
#include <deque>
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

SpeciesTree miniNjSpeciesTree(const std::vector<FamilyInput>& families) {
    std::vector<std::string> species;
    std::unordered_map<std::string, int> index;
    std::vector<std::vector<double>> sum, count;
    auto grow = [&](int n) {
        for (auto* m : {&sum, &count}) {
            m->resize(n);
            for (auto& row : *m)
                row.resize(n, 0.0);
        }
    };
    for (const FamilyInput& f : families) {
        FamilyTrees ft;
        if (!readFamily(f, ft)) continue;
        for (const NewickTree& tree : ft.trees) {
            // Species of each gene leaf (first-seen order of species).
            const int nodes = int(tree.nodes.size());
            std::vector<int> speciesOf(nodes, -1);
            for (int leaf : tree.leaves()) {
                const std::string s = ft.mapping.speciesOf(tree.nodes[leaf].label);
                if (s.empty()) continue;
                auto [it, fresh] = index.emplace(s, int(species.size()));
                if (fresh) species.push_back(s);
                speciesOf[leaf] = it->second;
            }
            if (sum.size() != species.size()) grow(int(species.size()));
            // Edge weights: an edge shorter than 1.1e-6 (but not 0) counts 0.
            auto weight = [&](int child) {
                const double len = tree.nodes[child].length.value_or(1.0);
                return (len > 0 && len < 1.1e-6) ? 0 : 1;
            };
            // The tree's own species, by a local index: a sample touches only those (a genome-scale
            // input has hundreds of species but tens per tree, and hundreds of thousands of trees).
            std::vector<int> local(nodes, -1), speciesAt;
            std::unordered_map<int, int> localOf;
            for (int leaf : tree.leaves()) {
                if (speciesOf[leaf] < 0) continue;
                auto [it, fresh] = localOf.emplace(speciesOf[leaf], int(speciesAt.size()));
                if (fresh) speciesAt.push_back(speciesOf[leaf]);
                local[leaf] = it->second;
            }
            const int P = int(speciesAt.size());
            std::vector<double> best(std::size_t(P) * P, std::numeric_limits<double>::infinity());
            for (int leaf : tree.leaves()) {
                if (speciesOf[leaf] < 0) continue;
                // Breadth-first over the tree from this leaf (0/1 weights: a deque).
                std::vector<int> dist(nodes, std::numeric_limits<int>::max());
                std::deque<int> queue{leaf};
                dist[leaf] = 0;
                while (!queue.empty()) {
                    const int n = queue.front();
                    queue.pop_front();
                    auto relax = [&](int m, int w) {
                        if (dist[n] + w < dist[m]) {
                            dist[m] = dist[n] + w;
                            w == 0 ? queue.push_front(m) : queue.push_back(m);
                        }
                    };
                    if (tree.nodes[n].parent >= 0) relax(tree.nodes[n].parent, weight(n));
                    for (int c : tree.nodes[n].children)
                        relax(c, weight(c));
                }
                for (int other : tree.leaves()) {
                    if (other == leaf || speciesOf[other] < 0) continue;
                    double& b = best[std::size_t(local[leaf]) * P + local[other]];
                    b = std::min(b, double(dist[other]));
                }
            }
            for (int i = 0; i < P; ++i)
                for (int j = 0; j < P; ++j)
                    if (i != j) {
                        sum[speciesAt[i]][speciesAt[j]] += best[std::size_t(i) * P + j];
                        count[speciesAt[i]][speciesAt[j]] += 1;
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
