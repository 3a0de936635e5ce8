#include "data/load.hpp"

#include "data/fraction_missing.hpp"
#include "data/origination.hpp"
#include "data/pruning_options.hpp"
#include "highways/highway_files.hpp"
#include "highways/pairwise_transfers.hpp"
#include "io/input_error.hpp"

#include <stdexcept>

namespace gpurec {

InputList readInputList(const InputPaths& paths, TransferConstraint constraint, const LoadOptions& options) {
    if (paths.speciesTree.empty()) throw InputError("", 0, 0, "no species tree given");
    options.events.validate();
    if (options.events.recModel == RecModel::UndatedDL && constraint != TransferConstraint::Parents)
        throw std::invalid_argument("--transfer-constraint can only be used with --rec-model UndatedDTL");
    if (options.speciationCategories < 1)
        throw std::invalid_argument("--speciation-gamma-categories can only take values >= 1");
    requirePrunable(options.pruneSpeciesTree, !paths.fractionMissingFile.empty(),
                    !paths.highwaysFile.empty() || options.events.pairwiseTransfers, constraint);
    auto dataset = std::make_shared<Dataset>();
    dataset->pruneSpeciesTree = options.pruneSpeciesTree;
    dataset->events = options.events;
    dataset->speciationCategories = options.speciationCategories;
    std::vector<std::string> warnings;
    dataset->species = SpeciesTree::readFile(paths.speciesTree, &warnings);
    dataset->transferConstraint = constraint;
    if (constraint == TransferConstraint::RelDated) dataset->species.requireDating();
    if (!paths.fractionMissingFile.empty())
        dataset->fractionMissing = readFractionMissing(paths.fractionMissingFile, dataset->species);
    if (!paths.highwaysFile.empty()) {
        if (options.events.recModel != RecModel::UndatedDTL)
            throw std::invalid_argument("--highways-file can only be used with --rec-model UndatedDTL");
        for (const HighwayRecord& r : readHighways(paths.highwaysFile, dataset->species, constraint)) {
            dataset->highways.push_back(r.highway);
            dataset->highwayRates.push_back(r.rate);
        }
    }
    if (options.events.pairwiseTransfers) {
        // Every allowed pair is a highway; a --highways-file gives some of their starting rates.
        const std::vector<Highway> pairs = everyTransferPair(dataset->species, constraint);
        dataset->highwayRates = pairStartRates(pairs, dataset->highways, dataset->highwayRates);
        dataset->highways = pairs;
    }
    std::vector<FamilyInput> inputs;
    if (!paths.familiesFile.empty()) inputs = readFamiliesFile(paths.familiesFile);
    std::vector<FamilyInput> listed = familiesFromGeneTreeFiles(paths.geneTrees);
    if (!paths.geneTreeMappings.empty()) {
        if (paths.geneTreeMappings.size() != listed.size())
            throw InputError("", 0, 0,
                             std::to_string(paths.geneTreeMappings.size()) + " mapping files given for " +
                                 std::to_string(listed.size()) + " gene-tree files");
        for (std::size_t i = 0; i < listed.size(); ++i)
            listed[i].mappingPath = paths.geneTreeMappings[i];
    }
    inputs.insert(inputs.end(), listed.begin(), listed.end());
    if (inputs.empty())
        throw InputError("", 0, 0, "no gene families given (use a families file or gene-tree files)");
    return {dataset, std::move(inputs), std::move(warnings)};
}

LoadedInput loadInput(const InputPaths& paths, TransferConstraint constraint, const LoadOptions& options,
                      const std::function<void(int done, int total)>& progress) {
    InputList list = readInputList(paths, constraint, options);
    LoadReport report = loadFamilies(list.dataset->species, list.families, options, progress);
    list.dataset->families = std::move(report.families);
    applyOrigination(*list.dataset, options.origination);
    return {list.dataset, std::move(report.excluded), std::move(report.errors), std::move(report.dimensions),
            std::move(list.warnings)};
}

} // namespace gpurec
