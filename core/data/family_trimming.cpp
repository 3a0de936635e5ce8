#include "data/family_trimming.hpp"

#include "io/number_text.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gpurec {

namespace {

// Moves the families with keep[i] false to `excluded`, with reason(family); the rest keep their order.
template <class Reason>
void keepOnly(std::vector<GeneFamily>& families, const std::vector<bool>& keep, const char* filter,
              std::vector<FamilyProblem>& excluded, const Reason& reason) {
    std::vector<GeneFamily> kept;
    for (std::size_t i = 0; i < families.size(); ++i) {
        if (keep[i]) {
            kept.push_back(std::move(families[i]));
        } else {
            const std::string why = reason(families[i]);
            excluded.push_back({families[i].name, why, "", 0, 0, why, filter});
        }
    }
    families = std::move(kept);
}

std::string plural(std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

} // namespace

void checkFilterOptions(const LoadOptions& o) {
    if (o.ccpSampleFrequency < 1)
        throw std::invalid_argument("--ccp-sample-frequency must be >= 1, got " +
                                    std::to_string(o.ccpSampleFrequency));
    if (!(o.trimRatio >= 0 && o.trimRatio <= 1))
        throw std::invalid_argument("--trim-ratio must be in [0, 1], got " + shortestNumberText(o.trimRatio));
    if (!(o.maxCladeSplitRatio >= 0 || o.maxCladeSplitRatio == -1))
        throw std::invalid_argument("--max-clade-split-ratio must be >= 0 or -1, got " +
                                    shortestNumberText(o.maxCladeSplitRatio));
}

void filterByCoverage(std::vector<GeneFamily>& families, int minCoveredSpecies,
                      std::vector<FamilyProblem>& excluded) {
    std::vector<bool> keep;
    keep.reserve(families.size());
    for (const GeneFamily& f : families)
        keep.push_back(f.coveredSpecies >= minCoveredSpecies);
    keepOnly(families, keep, "--min-covered-species", excluded, [&](const GeneFamily& f) {
        return "covers " + std::to_string(f.coveredSpecies) + " species, fewer than the minimum of " +
               std::to_string(minCoveredSpecies);
    });
}

void filterByCladeCount(std::vector<GeneFamily>& families, double ratio,
                        std::vector<FamilyProblem>& excluded) {
    if (ratio == 0) return;
    const std::size_t n = families.size();
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return families[a].cladeCount() < families[b].cladeCount();
    });
    // AleRax's arithmetic: the double N * (1 - ratio), truncated.
    const auto keptCount = static_cast<std::size_t>(static_cast<double>(n) * (1.0 - ratio));
    std::vector<bool> keep(n, false);
    for (std::size_t k = 0; k < keptCount; ++k)
        keep[order[k]] = true;
    std::string rule = "--trim-ratio " + shortestNumberText(ratio) + " keeps ";
    if (keptCount == 0)
        rule += "none of the " + plural(n, "family", "families");
    else
        rule += "the " + std::to_string(keptCount) + " of " + plural(n, "family", "families") +
                " with the fewest clades (at most " +
                std::to_string(families[order[keptCount - 1]].cladeCount()) + ")";
    keepOnly(families, keep, "--trim-ratio", excluded, [&](const GeneFamily& f) {
        return "has " + plural(f.cladeCount(), "clade", "clades") + "; " + rule;
    });
}

void filterByCladeSplitRatio(std::vector<GeneFamily>& families, double ratio,
                             std::vector<FamilyProblem>& excluded) {
    if (ratio < 0) return;
    // 2n - 3 branches in an unrooted tree of n genes; one gene gives -1, so no ratio keeps it.
    auto limit = [&](const GeneFamily& f) { return ratio * (2.0 * f.geneCount() - 3.0); };
    std::vector<bool> keep;
    keep.reserve(families.size());
    for (const GeneFamily& f : families)
        keep.push_back(limit(f) >= static_cast<double>(f.cladeCount()));
    keepOnly(families, keep, "--max-clade-split-ratio", excluded, [&](const GeneFamily& f) {
        const int genes = f.geneCount();
        return "has " + plural(f.cladeCount(), "clade", "clades") + " for " + plural(genes, "gene", "genes") +
               ", more than --max-clade-split-ratio " + shortestNumberText(ratio) + " times " +
               std::to_string(2 * genes - 3) + " (2 * " + std::to_string(genes) +
               " - 3) = " + shortestNumberText(limit(f));
    });
}

void filterFamilies(std::vector<GeneFamily>& families, const LoadOptions& options,
                    std::vector<FamilyProblem>& excluded) {
    checkFilterOptions(options);
    filterByCoverage(families, options.minCoveredSpecies, excluded);
    filterByCladeCount(families, options.trimRatio, excluded);
    filterByCladeSplitRatio(families, options.maxCladeSplitRatio, excluded);
}

} // namespace gpurec
