#include "data/dataset.hpp"

#include "io/gene_mapping.hpp"
#include "io/input_error.hpp"

#include <atomic>
#include <omp.h>
#include <set>

namespace gpurec {

long long Dataset::cladeCount() const {
    long long n = 0;
    for (const GeneFamily& f : families) n += f.clades.cladeCount();
    return n;
}

long long Dataset::splitCount() const {
    long long n = 0;
    for (const GeneFamily& f : families) n += f.clades.splitCount();
    return n;
}

GeneFamily prepareFamily(const SpeciesTree& species, const FamilyInput& input, GeneTreeRooting rooting) {
    std::vector<NewickTree> trees = readNewickFile(input.geneTreePath);
    GeneMapping mapping = input.mappingPath.empty() ? GeneMapping() : GeneMapping::readFile(input.mappingPath);
    GeneFamily family;
    family.name = input.name;
    family.geneTreePath = input.geneTreePath;
    family.clades = buildCladeSet(trees, rooting);
    std::set<int> covered;
    for (const std::string& gene : family.clades.geneNames) {
        std::string name = mapping.speciesOf(gene);
        int e = name.empty() ? -1 : species.find(name);
        std::string problem;
        if (name.empty())
            problem = "gene '" + gene + "' of family '" + input.name + "' is not in the " + mapping.describe();
        else if (e < 0)
            problem = "gene '" + gene + "' of family '" + input.name + "' maps to species '" + name +
                      "', which is not in the species tree (" + mapping.describe() + ")";
        else if (!species.isLeaf(e))
            problem = "gene '" + gene + "' of family '" + input.name + "' maps to '" + name +
                      "', an internal node of the species tree (" + mapping.describe() + ")";
        if (!problem.empty()) {
            int line = 0, column = 0;
            for (int leaf : trees.front().leaves())
                if (trees.front().nodes[leaf].label == gene) {
                    line = trees.front().nodes[leaf].line;
                    column = trees.front().nodes[leaf].column;
                }
            throw InputError(input.geneTreePath, line, column, problem);
        }
        family.geneSpecies.push_back(e);
        covered.insert(e);
    }
    family.coveredSpecies = static_cast<int>(covered.size());
    return family;
}

LoadReport loadFamilies(const SpeciesTree& species, const std::vector<FamilyInput>& inputs, const LoadOptions& options,
                        const std::function<void(int done, int total)>& progress) {
    const int n = static_cast<int>(inputs.size());
    std::vector<GeneFamily> prepared(n);
    std::vector<std::string> error(n);
    std::atomic<int> done{0};
    int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (int i = 0; i < n; ++i) {
        try {
            prepared[i] = prepareFamily(species, inputs[i], options.rooting);
        } catch (const std::exception& e) {
            error[i] = e.what();
        }
        int d = ++done;
        if (progress && omp_get_thread_num() == 0) progress(d, n);
    }
    LoadReport report;
    for (int i = 0; i < n; ++i) {
        if (!error[i].empty()) {
            report.errors.push_back({inputs[i].name, error[i]});
        } else if (prepared[i].coveredSpecies < options.minCoveredSpecies) {
            report.excluded.push_back({inputs[i].name, "covers " + std::to_string(prepared[i].coveredSpecies) +
                                                           " species, fewer than the minimum of " +
                                                           std::to_string(options.minCoveredSpecies)});
        } else {
            report.families.push_back(std::move(prepared[i]));
        }
    }
    if (progress) progress(n, n);
    return report;
}

} // namespace gpurec
