#pragma once
// Conditional clade probabilities of one gene family (ALE amalgamation, spec section 2).
#include "io/newick.hpp"

#include <string>
#include <vector>

namespace gpurec {

// Unrooted: every root split weighted alike (AleRax's UNIFORM); Rooted: each tree's own root; Mad:
// unrooted, root splits weighted by their MAD deviation (ccp/mad_deviation.hpp).
enum class GeneTreeRooting { Unrooted, Rooted, Mad };
GeneTreeRooting parseGeneTreeRooting(const std::string& text); // "UNIFORM" | "ROOTED" | "MAD"
std::string toString(GeneTreeRooting rooting);                 // "UNIFORM" | "ROOTED" | "MAD"

struct CladeSplit {
    int left;
    int right;
    double weight; // conditional probability of this split given its parent clade
};

struct CladeSet {
    std::vector<std::string> geneNames; // gene index -> leaf label, sorted by name
    // Clades are ordered children before parents (by size); the full clade is last.
    std::vector<int> cladeSize;
    std::vector<int> cladeGene;       // gene index of single-gene clades, -1 otherwise
    std::vector<double> branchLength; // mean length of the gene branch above the clade
    std::vector<int> splitOffset;     // splits of clade c: [splitOffset[c], splitOffset[c + 1])
    std::vector<CladeSplit> splits;
    int treeCount = 0;

    int geneCount() const { return static_cast<int>(geneNames.size()); }
    int cladeCount() const { return static_cast<int>(cladeSize.size()); }
    int splitCount() const { return static_cast<int>(splits.size()); }
    int rootClade() const { return cladeCount() - 1; }
};

// All trees must share one leaf set. Unrooted: every line is one unrooted sample, all rootings
// weighted uniformly. Rooted: each tree's own root. Throws InputError.
CladeSet buildCladeSet(const std::vector<NewickTree>& trees, GeneTreeRooting rooting);

} // namespace gpurec

namespace gpurec {
// Gene indices of a clade, ascending (walks the clade's first split down to its leaves).
std::vector<int> genesOf(const CladeSet& clades, int clade);
} // namespace gpurec
