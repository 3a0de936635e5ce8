#pragma once
// The reconciliations/ folder of a sampling run, AleRax v1.4's layout with gpurec's CSV tables
// beside it (docs/formats.md, "Reconciliation outputs"):
//   all/<fam>_samples.newick, _samples.alerec, _sample_<i>.xml (or _samples.xml), _eventCounts_<i>.txt,
//       _speciesEventCounts_<i>.txt, _transfers_<i>.txt, and gpurec's _eventCounts.csv,
//       _speciesEventCounts.csv
//   summaries/<fam>_consensus_50.newick, _meanSpeciesEventCounts.txt, _meanTransfers.txt, and
//       gpurec's _meanSpeciesEventCounts.csv, _originations.csv
//   totalSpeciesEventCounts.txt, totalTransfers.txt, origins/<species>.txt, and gpurec's originations.csv
// Every file is written whole under a temporary name and renamed, so an interrupted run leaves
// complete families only.
#include "recon/recon_summary.hpp"
#include "recon/recphyloxml.hpp"

#include <string>
#include <vector>

namespace gpurec {

struct ReconciliationFileOptions {
    bool xmlPerFamily =
        false; // one <fam>_samples.xml holding every sample instead of AleRax's one file per sample
    XmlLayout xmlLayout = XmlLayout::Auto;
};

// Creates <folder>/all and <folder>/summaries.
void prepareReconciliationFolder(const std::string& folder);

// Writes one family's files and returns its summary (means over its samples).
ReconciliationSummary writeFamilyReconciliations(const std::string& folder, const std::string& family,
                                                 const std::vector<Reconciliation>& samples,
                                                 const SpeciesTree& species,
                                                 const ReconciliationFileOptions& options);

// The files over all families: `total` is the sum of the families' summaries (addFamily).
void writeReconciliationTotals(const std::string& folder, const ReconciliationSummary& total,
                               const SpeciesTree& species);

} // namespace gpurec
