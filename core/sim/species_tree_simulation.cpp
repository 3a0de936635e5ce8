#include "sim/species_tree_simulation.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpurec {

void BirthDeathOptions::validate() const {
    if (leaves < 2)
        throw std::invalid_argument("number of species leaves must be at least 2, got " +
                                    std::to_string(leaves));
    if (!(birthRate > 0.0) || !std::isfinite(birthRate))
        throw std::invalid_argument("birth rate must be positive and finite, got " +
                                    std::to_string(birthRate));
    if (!(deathRate >= 0.0) || !(deathRate < birthRate))
        throw std::invalid_argument("death rate must be in [0, birth rate), got " +
                                    std::to_string(deathRate) + " with birth rate " +
                                    std::to_string(birthRate));
    if (maxRestarts < 1) throw std::invalid_argument("maximum number of restarts must be at least 1");
}

namespace {

struct Lineage {
    int parent = -1;
    int children[2] = {-1, -1};
    double birth = 0.0, end = 0.0;
    bool extant = false;
};

// One forward run; empty when it died out.
std::vector<Lineage> runForward(const BirthDeathOptions& o, RandomSource& rng) {
    std::vector<Lineage> lineages(1);
    std::vector<int> alive{0};
    const double total = o.birthRate + o.deathRate;
    double t = 0.0;
    while (int(alive.size()) < o.leaves) {
        if (alive.empty()) return {};
        t += rng.exponential(total * double(alive.size()));
        std::size_t pick = rng.below(alive.size());
        int x = alive[pick];
        lineages[x].end = t;
        if (rng.uniform() * total < o.birthRate) {
            for (int k = 0; k < 2; ++k) {
                Lineage child;
                child.parent = x;
                child.birth = t;
                lineages[x].children[k] = int(lineages.size());
                lineages.push_back(child);
            }
            alive[pick] = lineages[x].children[0];
            alive.push_back(lineages[x].children[1]);
        } else {
            alive[pick] = alive.back();
            alive.pop_back();
        }
    }
    // Stop at a time drawn like the next event, so that the youngest leaves have non-zero length.
    double stop = t + rng.exponential(total * double(alive.size()));
    for (int x : alive) {
        lineages[x].end = stop;
        lineages[x].extant = true;
    }
    return lineages;
}

NewickTree reconstructedTree(const std::vector<Lineage>& lineages) {
    // Children are created after their parent, so a reverse sweep sees children first.
    std::vector<char> hasExtant(lineages.size(), 0);
    for (int x = int(lineages.size()) - 1; x >= 0; --x) {
        const Lineage& l = lineages[x];
        hasExtant[x] =
            l.extant || (l.children[0] >= 0 && (hasExtant[l.children[0]] || hasExtant[l.children[1]]));
    }
    NewickTree tree;
    std::vector<std::pair<int, int>> stack{{0, -1}}; // (lineage, Newick parent)
    while (!stack.empty()) {
        auto [x, parent] = stack.back();
        stack.pop_back();
        double length = lineages[x].end - lineages[x].birth;
        // Follow single surviving descendants: their branches join into one.
        for (;;) {
            const Lineage& l = lineages[x];
            if (l.children[0] < 0) break;
            bool a = hasExtant[l.children[0]], b = hasExtant[l.children[1]];
            if (a && b) break;
            x = a ? l.children[0] : l.children[1];
            length += lineages[x].end - lineages[x].birth;
        }
        int index = int(tree.nodes.size());
        NewickNode node;
        node.parent = parent;
        node.length = length;
        tree.nodes.push_back(node);
        if (parent >= 0) tree.nodes[parent].children.push_back(index);
        if (lineages[x].children[0] >= 0) {
            stack.emplace_back(lineages[x].children[1], index);
            stack.emplace_back(lineages[x].children[0], index);
        }
    }
    tree.root = 0;
    std::vector<int> leaves = tree.leaves();
    const int width = int(std::to_string(leaves.size()).size());
    for (std::size_t i = 0; i < leaves.size(); ++i) {
        std::string number = std::to_string(i + 1);
        tree.nodes[leaves[i]].label = "S" + std::string(width - number.size(), '0') + number;
    }
    return tree;
}

} // namespace

NewickTree simulateBirthDeathTree(const BirthDeathOptions& options, RandomSource& rng) {
    options.validate();
    for (int run = 0; run < options.maxRestarts; ++run) {
        std::vector<Lineage> lineages = runForward(options, rng);
        if (!lineages.empty()) return reconstructedTree(lineages);
    }
    throw std::runtime_error("the birth-death process died out " + std::to_string(options.maxRestarts) +
                             " times before reaching " + std::to_string(options.leaves) +
                             " species; lower the death rate");
}

} // namespace gpurec
