#include "data/coverage_files.hpp"

#include "io/number_text.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace gpurec {

namespace {

// Per species node: the families with a gene there, and the genes there over all families.
struct SpeciesCounts {
    std::vector<int> families, genes;
};

SpeciesCounts countPerSpecies(const SpeciesTree& species, const std::vector<GeneFamily>& families) {
    SpeciesCounts c{std::vector<int>(species.size(), 0), std::vector<int>(species.size(), 0)};
    for (const GeneFamily& f : families) {
        for (int e : std::set<int>(f.geneSpecies.begin(), f.geneSpecies.end()))
            ++c.families[e];
        for (int e : f.geneSpecies)
            ++c.genes[e];
    }
    return c;
}

} // namespace

std::string perSpeciesCoverageText(const SpeciesTree& species, const std::vector<GeneFamily>& families) {
    const SpeciesCounts counts = countPerSpecies(species, families);
    std::vector<std::pair<double, std::string>> rows;
    for (int e : species.leaves()) {
        const double fraction =
            families.empty() ? 0.0
                             : static_cast<double>(counts.families[e]) / static_cast<double>(families.size());
        rows.emplace_back(fraction, species.name(e));
    }
    std::sort(rows.begin(), rows.end());
    std::string out;
    for (const auto& [fraction, label] : rows)
        out += label + " " + shortestNumberText(fraction) + "\n";
    return out;
}

std::string perSpeciesMissingText(const SpeciesTree& species, const std::vector<GeneFamily>& families) {
    const SpeciesCounts counts = countPerSpecies(species, families);
    std::vector<std::pair<std::string, int>> rows;
    int maxGenes = 0;
    for (int e : species.leaves()) {
        rows.emplace_back(species.name(e), counts.genes[e]);
        maxGenes = std::max(maxGenes, counts.genes[e]);
    }
    std::sort(rows.begin(), rows.end());
    std::string out;
    for (const auto& [label, genes] : rows) {
        const double missing =
            maxGenes == 0 ? 0.0 : static_cast<double>(maxGenes - genes) / static_cast<double>(maxGenes);
        out += label + " " + shortestNumberText(missing) + "\n";
    }
    return out;
}

std::string cladeDimensionsText(std::vector<CladeDimension> dimensions) {
    std::sort(dimensions.begin(), dimensions.end(), [](const CladeDimension& a, const CladeDimension& b) {
        return a.clades != b.clades ? a.clades > b.clades : a.family < b.family;
    });
    std::string out = "fam, leaves, ccps\n";
    for (const CladeDimension& d : dimensions)
        out += d.family + ", " + std::to_string(d.leaves) + ", " + std::to_string(d.clades) + "\n";
    return out;
}

} // namespace gpurec
