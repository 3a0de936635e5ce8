#include "recon/recon_tables.hpp"

#include "io/csv_field.hpp"
#include "io/newick.hpp"
#include "io/number_text.hpp"

#include <algorithm>
#include <numeric>

namespace gpurec {

namespace {

std::string speciesHeader() {
    std::string h = "species_label";
    for (const char* name : speciesColumnNames())
        h += std::string(",") + name;
    return h;
}

bool anyNonZero(const SpeciesCounts& c) {
    return std::any_of(c.begin(), c.end(), [](double v) { return v != 0.0; });
}

std::string speciesRow(const std::string& label, const SpeciesCounts& c) {
    std::string row = csvField(label);
    for (double v : c)
        row += "," + formatCount(v);
    return row + "\n";
}

} // namespace

std::string formatCount(double value) {
    return shortestNumberText(value);
}

std::string eventCountsHeader() {
    std::string out = "sample";
    for (const char* name : eventCountNames())
        out += std::string(",") + name;
    return out;
}

std::string eventCountsRow(std::size_t sample, const Reconciliation& r) {
    std::string out = std::to_string(sample);
    for (double v : eventCountArray(countEvents(r)))
        out += "," + formatCount(v);
    return out;
}

std::string eventCountsCsv(const std::vector<Reconciliation>& samples) {
    std::string out = eventCountsHeader() + "\n";
    for (std::size_t i = 0; i < samples.size(); ++i)
        out += eventCountsRow(i, samples[i]) + "\n";
    return out;
}

std::string speciesEventCountsCsv(const std::vector<Reconciliation>& samples, const SpeciesTree& species) {
    std::string out = "sample," + speciesHeader() + "\n";
    for (std::size_t i = 0; i < samples.size(); ++i) {
        std::vector<SpeciesCounts> counts = speciesEventCounts(samples[i], species);
        for (int e = 0; e < species.size(); ++e)
            if (anyNonZero(counts[e]))
                out += std::to_string(i) + "," + speciesRow(species.name(e), counts[e]);
    }
    return out;
}

std::string meanSpeciesEventCountsCsv(const ReconciliationSummary& summary, const SpeciesTree& species) {
    std::string out = speciesHeader() + "\n";
    for (int e = 0; e < species.size(); ++e)
        if (anyNonZero(summary.species.at(e))) out += speciesRow(species.name(e), summary.species[e]);
    return out;
}

std::string originationsCsv(const ReconciliationSummary& summary, const SpeciesTree& species) {
    std::vector<int> order(summary.origination.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return summary.origination[a] > summary.origination[b]; });
    std::string out = "species_label,frequency\n";
    for (int e : order)
        if (summary.origination[e] != 0.0)
            out += csvField(species.name(e)) + "," + formatCount(summary.origination[e]) + "\n";
    return out;
}

} // namespace gpurec
