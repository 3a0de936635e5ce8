#include "data/dataset.hpp"

#include "ccp/ale_file.hpp"
#include "data/family_trimming.hpp"
#include "io/input_error.hpp"
#include "io/text_file.hpp"

#include <atomic>
#include <omp.h>
#include <optional>
#include <set>

namespace gpurec {

int Dataset::familyIndex(const std::string& name) const {
    for (int f = static_cast<int>(families.size()) - 1; f >= 0; --f)
        if (families[f].name == name) return f;
    return -1;
}

Dataset withFamilies(const Dataset& data, const std::vector<int>& families) {
    Dataset out;
    out.species = data.species;
    out.transferConstraint = data.transferConstraint;
    out.origination = data.origination;
    out.fractionMissing = data.fractionMissing;
    out.events = data.events;
    out.speciationCategories = data.speciationCategories;
    out.highways = data.highways;
    out.highwayRates = data.highwayRates;
    out.pruneSpeciesTree = data.pruneSpeciesTree;
    out.families.reserve(families.size());
    for (int f : families)
        out.families.push_back(data.families.at(f));
    return out;
}

long long Dataset::cladeCount() const {
    long long n = 0;
    for (const GeneFamily& f : families)
        n += f.cladeCount();
    return n;
}

long long Dataset::splitCount() const {
    long long n = 0;
    for (const GeneFamily& f : families)
        n += f.splitCount();
    return n;
}

namespace {

// Maps the family's genes to species leaves; `locate` gives the place of a gene's name in `source`
// for the error about a gene that maps to no leaf.
void mapGenes(GeneFamily& family, const SpeciesTree& species, const GeneMapping& mapping,
              const std::string& source, const std::function<std::pair<int, int>(int gene)>& locate) {
    std::set<int> covered;
    const std::string& name = family.name;
    for (int g = 0; g < family.clades.geneCount(); ++g) {
        const std::string& gene = family.clades.geneNames[g];
        std::string speciesName = mapping.speciesOf(gene);
        int e = speciesName.empty() ? -1 : species.find(speciesName);
        std::string problem;
        if (speciesName.empty())
            problem = "gene '" + gene + "' of family '" + name + "' is not in the " + mapping.describe();
        else if (e < 0)
            problem = "gene '" + gene + "' of family '" + name + "' maps to species '" + speciesName +
                      "', which is not in the species tree (" + mapping.describe() + ")";
        else if (!species.isLeaf(e))
            problem = "gene '" + gene + "' of family '" + name + "' maps to '" + speciesName +
                      "', an internal node of the species tree (" + mapping.describe() + ")";
        if (!problem.empty()) {
            const auto [line, column] = locate(g);
            throw InputError(source, line, column, problem);
        }
        family.geneSpecies.push_back(e);
        covered.insert(e);
    }
    family.coveredSpecies = static_cast<int>(covered.size());
}

} // namespace

GeneFamily makeFamily(const SpeciesTree& species, const std::string& name,
                      const std::vector<NewickTree>& trees, GeneTreeRooting rooting,
                      const GeneMapping& mapping, const std::string& source) {
    GeneFamily family;
    family.name = name;
    family.clades = buildCladeSet(trees, rooting);
    mapGenes(family, species, mapping, source, [&](int g) {
        std::pair<int, int> place{0, 0};
        for (int leaf : trees.front().leaves())
            if (trees.front().nodes[leaf].label == family.clades.geneNames[g])
                place = {trees.front().nodes[leaf].line, trees.front().nodes[leaf].column};
        return place;
    });
    return family;
}

GeneFamily prepareFamily(const SpeciesTree& species, const FamilyInput& input, GeneTreeRooting rooting,
                         int sampleFrequency) {
    if (input.error) throw *input.error;
    const std::string& path = input.geneTreePath;
    auto readMapping = [&] {
        return input.mappingPath.empty() ? GeneMapping() : GeneMapping::readFile(input.mappingPath);
    };
    GeneFamily family;
    if (isAleFile(path)) {
        // Observed counts of unrooted samples: their root bipartitions are all weighted.
        if (rooting != GeneTreeRooting::Unrooted)
            throw InputError(path, 1, 1,
                             "an .ale file holds unrooted samples without branch lengths: it needs "
                             "--gene-tree-rooting UNIFORM, not " +
                                 toString(rooting));
        AleContents ale = parseAle(readTextFile(path), path);
        family.name = input.name;
        family.clades = std::move(ale.clades);
        mapGenes(family, species, readMapping(), path, [&](int g) {
            return std::pair{ale.geneLine[g], ale.geneColumn[g]};
        });
    } else {
        std::vector<NewickTree> trees = readNewickFile(path);
        if (sampleFrequency > 1) { // AleRax's --ccp-sample-frequency: trees 0, k, 2k, ...
            std::vector<NewickTree> sampled;
            for (std::size_t i = 0; i < trees.size(); i += static_cast<std::size_t>(sampleFrequency))
                sampled.push_back(std::move(trees[i]));
            trees = std::move(sampled);
        }
        family = makeFamily(species, input.name, trees, rooting, readMapping(), path);
    }
    family.geneTreePath = path;
    family.mappingPath = input.mappingPath;
    return family;
}

LoadReport loadFamilies(const SpeciesTree& species, const std::vector<FamilyInput>& inputs,
                        const LoadOptions& options,
                        const std::function<void(int done, int total)>& progress) {
    checkFilterOptions(options);
    LoadReport report = prepareFamilies(species, inputs, options, progress);
    filterFamilies(report.families, options, report.excluded);
    if (progress) progress(static_cast<int>(inputs.size()), static_cast<int>(inputs.size()));
    return report;
}

LoadReport prepareFamilies(const SpeciesTree& species, const std::vector<FamilyInput>& inputs,
                           const LoadOptions& options,
                           const std::function<void(int done, int total)>& progress) {
    const int n = static_cast<int>(inputs.size());
    std::vector<GeneFamily> prepared(n);
    std::vector<std::optional<FamilyProblem>> error(n);
    std::atomic<int> done{0};
    int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (int i = 0; i < n; ++i) {
        try {
            prepared[i] = prepareFamily(species, inputs[i], options.rooting, options.ccpSampleFrequency);
        } catch (const InputError& e) {
            error[i] =
                FamilyProblem{inputs[i].name, e.what(), e.file(), e.line(), e.column(), e.problem(), ""};
        } catch (const std::exception& e) {
            error[i] = FamilyProblem{inputs[i].name, e.what(), inputs[i].geneTreePath, 0, 0, e.what(), ""};
        }
        int d = ++done;
        if (progress && omp_get_thread_num() == 0) progress(d, n);
    }
    LoadReport report;
    for (int i = 0; i < n; ++i) {
        if (error[i]) {
            report.errors.push_back(std::move(*error[i]));
        } else {
            const CladeSet& c = prepared[i].clades;
            report.dimensions.push_back({prepared[i].name, c.geneCount(), c.cladeCount()});
            report.families.push_back(std::move(prepared[i]));
        }
    }
    return report;
}

} // namespace gpurec
