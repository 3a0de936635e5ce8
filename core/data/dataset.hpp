#pragma once
// Inputs prepared for the engines: the species tree and the families' clade sets with mapped genes.
#include "ccp/clade_set.hpp"
#include "io/families_file.hpp"
#include "io/gene_mapping.hpp"
#include "io/newick.hpp"
#include "tree/species_tree.hpp"

#include <functional>
#include <string>
#include <vector>

namespace gpurec {

struct GeneFamily {
    std::string name;
    std::string geneTreePath;
    std::string mappingPath; // empty: the default rule
    CladeSet clades;
    std::vector<int> geneSpecies; // gene index -> species leaf index
    int coveredSpecies = 0;
};

struct Dataset {
    SpeciesTree species;
    TransferConstraint transferConstraint = TransferConstraint::Parents;
    std::vector<GeneFamily> families;

    long long cladeCount() const;
    long long splitCount() const;
};

struct LoadOptions {
    GeneTreeRooting rooting = GeneTreeRooting::Unrooted;
    int minCoveredSpecies = 4;
    int threads = 0; // 0: all cores
};

struct FamilyProblem {
    std::string family;
    std::string message; // "file:line:column: problem" or the exclusion reason
    // The parts of an input error's message (file empty and line 0 where unknown or excluded).
    std::string file;
    int line = 0;
    int column = 0;
    std::string reason;
};

struct LoadReport {
    std::vector<GeneFamily> families;    // valid families, in input order
    std::vector<FamilyProblem> excluded; // valid but below the coverage threshold
    std::vector<FamilyProblem> errors;   // unreadable or invalid input
};

// One family from gene trees already in memory (a simulated tree, a parsed sample): amalgamated
// with `rooting`, genes mapped by `mapping` (the default rule unless given). `source` names the
// trees' file in errors. Throws InputError for a gene that maps to no leaf of `species`.
GeneFamily makeFamily(const SpeciesTree& species, const std::string& name,
                      const std::vector<NewickTree>& trees, GeneTreeRooting rooting,
                      const GeneMapping& mapping = {}, const std::string& source = "");

// Reads, amalgamates and maps one family. Throws InputError on bad input (the family's own error
// from the families file, an unreadable or bad gene tree or mapping).
GeneFamily prepareFamily(const SpeciesTree& species, const FamilyInput& input, GeneTreeRooting rooting);

// Prepares all families in parallel; bad families are reported, never fatal.
LoadReport loadFamilies(const SpeciesTree& species, const std::vector<FamilyInput>& inputs,
                        const LoadOptions& options,
                        const std::function<void(int done, int total)>& progress = {});

} // namespace gpurec
