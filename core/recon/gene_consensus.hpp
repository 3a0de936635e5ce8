#pragma once
// Majority-rule consensus of the gene trees of sampled reconciliations: AleRax's
// summaries/<fam>_consensus_50.newick. A clade of genes is kept when more than half of the samples
// hold it (AleRax's threshold 0.50001); the rest are polytomies. Internal nodes carry the fraction
// of samples holding their clade, every branch has AleRax's placeholder length 0.1.
#include "recon/reconciliation.hpp"

#include <string>
#include <vector>

namespace gpurec {

// Throws std::invalid_argument when the samples do not share one set of gene names.
std::string majorityConsensusNewick(const std::vector<Reconciliation>& samples);

} // namespace gpurec
