#pragma once
// Inputs prepared for the engines: the species tree and the families' clade sets with mapped genes.
#include "ccp/clade_set.hpp"
#include "io/families_file.hpp"
#include "io/gene_mapping.hpp"
#include "io/newick.hpp"
#include "model/event_model.hpp"
#include "model/highways.hpp"
#include "tree/species_tree.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpurec {

// The sizes of a clade set that another process holds (core/distributed).
struct CladeSizes {
    int genes = 0, clades = 0, splits = 0;
};

struct GeneFamily {
    std::string name;
    std::string geneTreePath;
    std::string mappingPath;      // empty: the default rule
    CladeSet clades;              // empty when another process holds it (`remoteSizes`)
    std::vector<int> geneSpecies; // gene index -> species leaf index
    int coveredSpecies = 0;
    // The one species node the family may originate at (--origination ROOT or LCA, set by
    // applyOrigination); -1: any node, with equal weight (UNIFORM) or the weights θ holds (OPTIMIZE).
    int originSpecies = -1;
    // A run spread over processes (core/distributed): the rank of the process that holds the clade
    // set (-1: one process), and in the others its sizes, the clade set being left empty there.
    int holder = -1;
    std::optional<CladeSizes> remoteSizes;

    int geneCount() const { return remoteSizes ? remoteSizes->genes : clades.geneCount(); }
    int cladeCount() const { return remoteSizes ? remoteSizes->clades : clades.cladeCount(); }
    int splitCount() const { return remoteSizes ? remoteSizes->splits : clades.splitCount(); }
};

// Where families may originate (--origination; data/origination.hpp reads and applies it). Optimize:
// any node, weighted by origination weights that are part of the rate parameters.
enum class Origination { Uniform, Root, Lca, Optimize };

struct Dataset {
    SpeciesTree species;
    TransferConstraint transferConstraint = TransferConstraint::Parents;
    std::vector<GeneFamily> families;
    Origination origination =
        Origination::Uniform; // each family's originSpecies follows it (applyOrigination)
    // Per species node: the fraction of a leaf's genes missing from the data (--fraction-missing-file,
    // data/fraction_missing.hpp; 0 at internal nodes). Empty: none missing.
    std::vector<double> fractionMissing;
    EventModel events; // --rec-model, --no-dup, --no-dl, --no-tl
    // --speciation-gamma-categories: the model is the mean of this many categories, each with its
    // own speciation weight (model/gamma_categories.hpp; θ then holds their shape α). The backend
    // factory wraps the engines for it (engine/gamma_mixture_backend.hpp).
    int speciationCategories = 1;
    // Transfer highways (model/highways.hpp; AleRax's --highways); θ holds their rates, which
    // start at highwayRates (one per highway).
    std::vector<Highway> highways;
    std::vector<double> highwayRates;
    // --prune-species-tree: each family is solved on the species tree pruned to the leaves it
    // covers (engine/species_pruning.hpp); --origination ROOT then means the covered LCA.
    bool pruneSpeciesTree = false;

    long long cladeCount() const;
    long long splitCount() const;
    int familyIndex(const std::string& name) const; // the last family of that name; -1 when none
};

// The families `families` (indices, in that order) of `data`, on the same species tree and model.
Dataset withFamilies(const Dataset& data, const std::vector<int>& families);

// AleRax's family filters, applied in its order: coverage, then --trim-ratio, then
// --max-clade-split-ratio (data/family_trimming.hpp has the rules).
struct LoadOptions {
    GeneTreeRooting rooting = GeneTreeRooting::Unrooted;
    int minCoveredSpecies = 4;
    int ccpSampleFrequency = 1;                     // keep gene-tree k when k % this == 0 (Newick input only)
    double trimRatio = 0;                           // in [0, 1]; 0: off
    double maxCladeSplitRatio = -1;                 // >= 0, or -1: off
    int threads = 0;                                // 0: all cores
    Origination origination = Origination::Uniform; // applied by loadInput
    EventModel events;                              // validated and recorded by loadInput
    int speciationCategories = 1;                   // recorded by loadInput
    bool pruneSpeciesTree = false;                  // recorded by loadInput (Dataset::pruneSpeciesTree)
};

// The size of one family's clade set, before any exclusion (AleRax's ccps/ccpdim.txt).
struct CladeDimension {
    std::string family;
    int leaves = 0;
    int clades = 0; // the root clade included
};

struct FamilyProblem {
    std::string family;
    std::string message; // "file:line:column: problem" or the exclusion reason
    // The parts of an input error's message (file empty and line 0 where unknown or excluded).
    std::string file;
    int line = 0;
    int column = 0;
    std::string reason;
    std::string filter; // the option that excluded the family ("--trim-ratio"); empty for errors
};

struct LoadReport {
    std::vector<GeneFamily> families;       // valid families left by the filters, in input order
    std::vector<FamilyProblem> excluded;    // valid but left out by a filter (coverage, trimming)
    std::vector<FamilyProblem> errors;      // unreadable or invalid input
    std::vector<CladeDimension> dimensions; // every valid family, in input order
};

// One family from gene trees already in memory (a simulated tree, a parsed sample): amalgamated
// with `rooting`, genes mapped by `mapping` (the default rule unless given). `source` names the
// trees' file in errors. Throws InputError for a gene that maps to no leaf of `species`.
GeneFamily makeFamily(const SpeciesTree& species, const std::string& name,
                      const std::vector<NewickTree>& trees, GeneTreeRooting rooting,
                      const GeneMapping& mapping = {}, const std::string& source = "");

// Reads, amalgamates and maps one family, from the gene trees whose index (from 0) is a multiple
// of `sampleFrequency` (all the file for an .ale input, as in AleRax). Throws InputError on bad
// input (the family's own error from the families file, an unreadable or bad gene tree or mapping).
GeneFamily prepareFamily(const SpeciesTree& species, const FamilyInput& input, GeneTreeRooting rooting,
                         int sampleFrequency = 1);

// Prepares all families in parallel, then applies the filters; bad families are reported, never
// fatal. Throws std::invalid_argument for options out of their range.
LoadReport loadFamilies(const SpeciesTree& species, const std::vector<FamilyInput>& inputs,
                        const LoadOptions& options,
                        const std::function<void(int done, int total)>& progress = {});
// loadFamilies without the filters (`excluded` stays empty): the families of a run spread over
// processes are filtered once all of them are known (core/distributed/distributed_load.hpp).
LoadReport prepareFamilies(const SpeciesTree& species, const std::vector<FamilyInput>& inputs,
                           const LoadOptions& options,
                           const std::function<void(int done, int total)>& progress = {});

} // namespace gpurec
