#include "recon/reconciliation_files.hpp"

#include "io/output_file.hpp"
#include "io/output_folder.hpp"
#include "io/result_writer.hpp"
#include "recon/alerax_tables.hpp"
#include "recon/gene_consensus.hpp"
#include "recon/recon_newick.hpp"
#include "recon/recon_tables.hpp"

namespace gpurec {

void prepareReconciliationFolder(const std::string& folder) {
    ensureDirectory(folder + "/all");
    ensureDirectory(folder + "/summaries");
}

ReconciliationSummary writeFamilyReconciliations(const std::string& folder, const std::string& family,
                                                 const std::vector<Reconciliation>& samples,
                                                 const SpeciesTree& species,
                                                 const ReconciliationFileOptions& options) {
    const std::string all = folder + "/all/" + fileStem(family),
                      sum = folder + "/summaries/" + fileStem(family);
    std::string newick, ale;
    for (const Reconciliation& r : samples) {
        newick += toNewickEvents(r) + "\n";
        ale += toAleNewick(r, species) + "\n";
    }
    writeFileAtomically(all + "_samples.newick", newick);
    writeFileAtomically(all + "_samples.alerec", ale);
    if (options.xmlPerFamily) writeRecPhyloXml(all + "_samples.xml", species, samples, options.xmlLayout);
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const std::string suffix = "_" + std::to_string(i);
        if (!options.xmlPerFamily)
            writeRecPhyloXml(all + "_sample" + suffix + ".xml", species, {samples[i]}, options.xmlLayout);
        writeFileAtomically(all + "_eventCounts" + suffix + ".txt", aleraxEventCounts(samples[i]));
        writeFileAtomically(all + "_speciesEventCounts" + suffix + ".txt",
                            aleraxSpeciesEventCounts(speciesEventCounts(samples[i], species), species));
        writeFileAtomically(all + "_transfers" + suffix + ".txt", aleraxTransferEvents(samples[i], species));
    }
    writeFileAtomically(all + "_eventCounts.csv", eventCountsCsv(samples));
    writeFileAtomically(all + "_speciesEventCounts.csv", speciesEventCountsCsv(samples, species));

    ReconciliationSummary summary = summarize(samples, species);
    writeFileAtomically(sum + "_consensus_50.newick", majorityConsensusNewick(samples));
    writeFileAtomically(sum + "_meanSpeciesEventCounts.txt",
                        aleraxSpeciesEventCounts(summary.species, species));
    writeFileAtomically(sum + "_meanTransfers.txt", aleraxTransferTable(summary.transfers, species));
    writeFileAtomically(sum + "_meanSpeciesEventCounts.csv", meanSpeciesEventCountsCsv(summary, species));
    writeFileAtomically(sum + "_originations.csv", originationsCsv(summary, species));
    return summary;
}

void writeReconciliationTotals(const std::string& folder, const ReconciliationSummary& total,
                               const SpeciesTree& species) {
    ReconciliationSummary filled = total;
    if (filled.species.empty()) { // no family sampled: every count is zero
        filled.species.assign(species.size(), SpeciesCounts{});
        filled.origination.assign(species.size(), 0.0);
    }
    writeFileAtomically(folder + "/totalSpeciesEventCounts.txt",
                        aleraxSpeciesEventCounts(filled.species, species));
    writeFileAtomically(folder + "/totalTransfers.txt", aleraxTransferTable(filled.transfers, species));
    writeFileAtomically(folder + "/originations.csv", originationsCsv(filled, species));
    ensureDirectory(folder + "/origins");
    for (int e = 0; e < species.size(); ++e)
        writeFileAtomically(folder + "/origins/" + fileStem(species.name(e)) + ".txt",
                            aleraxOrigins(filled, species, e));
}

} // namespace gpurec
