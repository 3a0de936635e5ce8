#pragma once
// RecPhyloXML (Duchemin et al. 2018) for reconciled gene trees, laid out as AleRax writes it
// (spec 8): one <spTree> and one <recGeneTree> per reconciliation. A speciation-loss (SL) or
// transfer-loss (TL) on a gene branch becomes an intermediate clade named NULL holding the
// <speciation>/<branchingOut> event, with a child clade named "loss" and the continuing lineage.
#include "io/newick.hpp"
#include "recon/reconciliation.hpp"
#include "tree/species_tree.hpp"

#include <string>
#include <vector>

namespace gpurec {

// Throws std::invalid_argument when a reconciliation is inconsistent (an event list that is empty
// or does not end with the node's own event, a species index out of range, a transfer whose
// children cannot be told apart).
// Indented: one element per line, indented by depth, which grows with the square of the depth for
// deep (caterpillar-like) gene trees; Compact: no whitespace between elements. Auto indents unless
// some clade is nested deeper than kRecPhyloIndentDepthLimit.
enum class XmlLayout { Auto, Indented, Compact };
constexpr int kRecPhyloIndentDepthLimit = 64;
std::string toRecPhyloXml(const SpeciesTree& species, const std::vector<Reconciliation>& reconciliations,
                          XmlLayout layout = XmlLayout::Auto);
// Streams the document into the file (no copy of the text in memory) through OutputFile;
// std::runtime_error naming it when it cannot be written.
void writeRecPhyloXml(const std::string& path, const SpeciesTree& species,
                      const std::vector<Reconciliation>& reconciliations, XmlLayout layout = XmlLayout::Auto);

struct RecPhyloDocument {
    NewickTree speciesNewick; // the <spTree> as written (names, branch lengths)
    SpeciesTree species;      // the same tree, nodes in postorder
    // Gene nodes in preorder (root first). SL and TL patterns are folded back into branch events;
    // a lost lineage that is not part of such a pattern stays an explicit Loss node.
    std::vector<Reconciliation> reconciliations;
};

// Lenient reader: accepts AleRax's tags and the older speciationLoss, speciationOut and
// speciationOutLoss tags; element names may carry a namespace prefix. Throws InputError with the
// file, line and column of the offending element.
RecPhyloDocument parseRecPhyloXml(const std::string& text, const std::string& source);
RecPhyloDocument readRecPhyloXml(const std::string& path);

} // namespace gpurec
