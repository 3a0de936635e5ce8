#pragma once
// From paths to a Dataset: species tree, families (file or gene-tree list), mapping, CCPs.
#include "data/dataset.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpurec {

struct InputPaths {
    std::string speciesTree;
    std::string familiesFile;           // AleRax families file, or
    std::vector<std::string> geneTrees; // plain list of gene-tree files (one family each)
    std::vector<std::string>
        geneTreeMappings;            // empty, or one mapping file per gene-tree file ("" = default rule)
    std::string fractionMissingFile; // --fraction-missing-file (data/fraction_missing.hpp); empty: none
    std::string highwaysFile;        // --highways-file (highways/highway_files.hpp); empty: none
};

struct LoadedInput {
    std::shared_ptr<Dataset> dataset;
    std::vector<FamilyProblem> excluded;
    std::vector<FamilyProblem> errors;
    std::vector<CladeDimension> dimensions; // every valid family, before the filters
    std::vector<std::string> warnings;      // usable but doubtful input, "file:line:column: problem"
};

// The species tree (in a dataset without families yet) and the families to read, as loadInput
// reads them; the warnings of the species tree. Throws like loadInput.
struct InputList {
    std::shared_ptr<Dataset> dataset;
    std::vector<FamilyInput> families;
    std::vector<std::string> warnings;
};
InputList readInputList(const InputPaths& paths, TransferConstraint constraint, const LoadOptions& options);

// Throws InputError for an unreadable species tree or families file; per-family problems are
// collected in the result.
LoadedInput loadInput(const InputPaths& paths, TransferConstraint constraint, const LoadOptions& options,
                      const std::function<void(int done, int total)>& progress = {});

} // namespace gpurec
