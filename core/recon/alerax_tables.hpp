#pragma once
// Sampled reconciliations as AleRax v1.4 lays them out under reconciliations/ (docs/formats.md,
// "Reconciliation outputs"): the same names, headers, separators and row orders, with numbers
// written to round-trip instead of AleRax's 6 digits. Where AleRax's row order is unspecified
// (an unordered map), rows follow its deterministic species order instead.
#include "recon/recon_summary.hpp"

#include <string>
#include <vector>

namespace gpurec {

// Species node indices in AleRax's deterministic order (labels sorted as byte strings).
std::vector<int> deterministicSpeciesOrder(const SpeciesTree& species);

// `<fam>_eventCounts_<i>.txt`: `Name:count` lines for S, SL, D, DL, T, TL, L, Leaf. As in AleRax,
// DL and L are 0 (losses are in the per-species files) and TL counts transfers whose source copy is lost.
std::string aleraxEventCounts(const Reconciliation& r);

// `species_label, speciations, …, transfers_to`, then one `label, v0, …, v8` row per species with a
// non-zero value, in deterministic order: one sample's counts, a family's means or a total.
std::string aleraxSpeciesEventCounts(const std::vector<SpeciesCounts>& counts, const SpeciesTree& species);

// `<fam>_transfers_<i>.txt`: `source destination 1` for every T and TL, in preorder of the gene tree.
std::string aleraxTransferEvents(const Reconciliation& r, const SpeciesTree& species);

// `source destination value` for each pair, decreasing (value, source id, destination id) with
// deterministic ids: a family's mean transfers or their sum over families.
std::string aleraxTransferTable(const TransferCounts& transfers, const SpeciesTree& species);

// `origins/<label>.txt` of species `e`: `vertical: x` (copies entering e from a speciation or
// speciation-loss at its parent), then `source, value` for the transfers received, decreasing
// (value, source id). From a family's means or their sum over families.
std::string aleraxOrigins(const ReconciliationSummary& summary, const SpeciesTree& species, int e);

} // namespace gpurec
