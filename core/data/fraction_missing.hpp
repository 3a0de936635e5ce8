#pragma once
// AleRax's --fraction-missing-file (spec 1.5): "speciesLeaf fraction" per line, the fraction of the
// species' genes absent from the data (a genome not fully sequenced). It enters the extinction
// probability of the leaf's branch only: E_l gains pS_l · fm_l.
#include "tree/species_tree.hpp"

#include <string>
#include <vector>

namespace gpurec {

// Per species node (0 at internal nodes). Every leaf needs exactly one value in [0, 1]; `#` starts a
// comment line. Throws InputError naming the file, line and column of an unknown or internal node,
// a repeated leaf, a value that is not a number in [0, 1] or a line without two fields, and the
// leaves left without a value.
std::vector<double> readFractionMissing(const std::string& path, const SpeciesTree& species);

// The same values on another tree with the same leaf labels (a species-tree search candidate).
std::vector<double> fractionMissingOn(const std::vector<double>& fractionMissing, const SpeciesTree& from,
                                      const SpeciesTree& to);

} // namespace gpurec
