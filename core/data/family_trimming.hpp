#pragma once
// AleRax's family filters (its trimming step), in its order: --min-covered-species, then
// --trim-ratio, then --max-clade-split-ratio. Each dropped family is reported with the option and
// the numbers that dropped it; the kept families stay in input order.
#include "data/dataset.hpp"

#include <vector>

namespace gpurec {

// Throws std::invalid_argument for a value out of its option's range.
void checkFilterOptions(const LoadOptions& options);

// Keeps families covering at least `minCoveredSpecies` species.
void filterByCoverage(std::vector<GeneFamily>& families, int minCoveredSpecies,
                      std::vector<FamilyProblem>& excluded);
// Keeps the floor(N * (1 - ratio)) families with the fewest clades (ties: the earlier one). 0: off.
void filterByCladeCount(std::vector<GeneFamily>& families, double ratio,
                        std::vector<FamilyProblem>& excluded);
// Keeps a family iff ratio * (2 * genes - 3) >= clades (the root clade counted). Negative: off.
void filterByCladeSplitRatio(std::vector<GeneFamily>& families, double ratio,
                             std::vector<FamilyProblem>& excluded);

// The three filters of `options`, in AleRax's order.
void filterFamilies(std::vector<GeneFamily>& families, const LoadOptions& options,
                    std::vector<FamilyProblem>& excluded);

} // namespace gpurec
