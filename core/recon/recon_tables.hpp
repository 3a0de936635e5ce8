#pragma once
// Text tables of sampled reconciliations (docs/formats.md, "Reconciliation outputs"): CSV files
// with a header row, written beside AleRax's layouts (recon/alerax_tables.hpp).
#include "recon/recon_summary.hpp"

#include <string>
#include <vector>

namespace gpurec {

// `sample,S,SL,D,T,TL,L,Leaf`, one row per reconciliation (samples numbered from 0).
std::string eventCountsCsv(const std::vector<Reconciliation>& samples);
// Its header and one of its rows, without the line end (the workbench puts a family column first).
std::string eventCountsHeader();
std::string eventCountsRow(std::size_t sample, const Reconciliation& r);
// `sample,species_label,speciations,...,transfers_to`, rows for species with a non-zero count.
std::string speciesEventCountsCsv(const std::vector<Reconciliation>& samples, const SpeciesTree& species);
// `species_label,speciations,...,transfers_to` of a summary, rows for species with a non-zero value.
std::string meanSpeciesEventCountsCsv(const ReconciliationSummary& summary, const SpeciesTree& species);
// `species_label,frequency`, every species node with a non-zero frequency, decreasing frequency.
std::string originationsCsv(const ReconciliationSummary& summary, const SpeciesTree& species);

// Shortest text that reads back to the same double.
std::string formatCount(double value);

} // namespace gpurec
