#pragma once
// AleRax's input summaries (alerax-files.md 1.1): perSpeciesCoverage.txt, perSpeciesMissing.txt
// and ccps/ccpdim.txt, as text. Numbers in their shortest round-trip form.
#include "data/dataset.hpp"

#include <string>
#include <vector>

namespace gpurec {

// One line per species leaf, "label fraction": the fraction of `families` with a gene in the
// species. Ascending by (fraction, label), as AleRax sorts them.
std::string perSpeciesCoverageText(const SpeciesTree& species, const std::vector<GeneFamily>& families);

// One line per species leaf, "label fm": fm = (maxGenes - genes) / maxGenes, genes being the
// species' genes over all `families` and maxGenes the largest such count (the layout of AleRax's
// --fraction-missing-file). AleRax's order is a hash set's; here the labels' byte order.
std::string perSpeciesMissingText(const SpeciesTree& species, const std::vector<GeneFamily>& families);

// Header "fam, leaves, ccps", then "name, leaves, clades" by decreasing clade count; AleRax leaves
// ties unordered, here they go by name (byte order).
std::string cladeDimensionsText(std::vector<CladeDimension> dimensions);

} // namespace gpurec
