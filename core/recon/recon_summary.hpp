#pragma once
// What biologists tabulate from sampled reconciliations: event counts per sample, AleRax's
// per-species event counts, transfers between species and origination species, and their means
// over the samples of a family and sums over families.
#include "recon/reconciliation.hpp"
#include "tree/species_tree.hpp"

#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpurec {

// AleRax's columns (spec 8.5), in file order.
enum SpeciesColumn {
    kSpeciations,  // S, SL and leaf events in the species
    kDuplications, // D
    kLosses,       // the lost copy of SL (in the lost child species) and of TL (in the donor)
    kTransfers,    // T and TL leaving the species
    kPresence,     // 1 when a gene copy passes through the species
    kOrigination,  // 1 in the origination species
    kCopies,       // gene copies at the end of the species branch (S, SL and leaf events)
    kSingletons,   // copies whose lineage was already a single copy at the parent (previous event S or SL)
    kTransfersTo,  // T and TL arriving in the species
    kSpeciesColumnCount
};
const std::array<const char*, kSpeciesColumnCount>& speciesColumnNames(); // "speciations", ...

using SpeciesCounts = std::array<double, kSpeciesColumnCount>;

// One row per species node (postorder index).
std::vector<SpeciesCounts> speciesEventCounts(const Reconciliation& r, const SpeciesTree& species);

// (donor, recipient) -> number of T and TL events.
using TransferCounts = std::map<std::pair<int, int>, double>;
TransferCounts transferCounts(const Reconciliation& r);

struct TransferFrequency {
    int source = -1, destination = -1;
    double count = 0.0;
};
// Decreasing count; ties by source then destination name.
std::vector<TransferFrequency> sortedTransfers(const TransferCounts& counts, const SpeciesTree& species);

// Means over samples (one family) or sums of such means (several families).
struct ReconciliationSummary {
    int samples = 0;                // reconciliations summarised (a family's) or families summed (a total)
    std::array<double, 7> events{}; // mean S, SL, D, T, TL, L, Leaf
    std::vector<SpeciesCounts> species;
    TransferCounts transfers;
    std::vector<double> origination; // frequency of each origination species
};
const std::array<const char*, 7>& eventCountNames(); // "S", "SL", "D", "T", "TL", "L", "Leaf"
std::array<double, 7> eventCountArray(const EventCounts& c);

ReconciliationSummary summarize(const std::vector<Reconciliation>& samples, const SpeciesTree& species);
// Adds a family's means to a total over families (expected numbers summed over families).
void addFamily(ReconciliationSummary& total, const ReconciliationSummary& family);

} // namespace gpurec
