#pragma once
// How well sampled reconciliations recover a known true one (simulated data): gene nodes are
// matched by their sets of gene leaves, then their own events (S, D, T, leaf) and the SL and TL
// events on their branches are compared.
#include "recon/reconciliation.hpp"

#include <array>
#include <string>

namespace gpurec {

struct RecoveryTally {
    // Node events: rows are the true type, columns the sampled type; the last column counts
    // samples in which the true node's gene set is not a node (another root, for unrooted CCPs).
    enum NodeType { kS, kD, kT, kLeaf, kNodeTypes };
    static const std::array<const char*, kNodeTypes>& nodeTypeNames(); // "S", "D", "T", "Leaf"
    std::array<std::array<double, kNodeTypes + 1>, kNodeTypes> confusion{};
    std::array<double, kNodeTypes> exact{}; // same type, species (and recipient for T)
    std::array<double, kNodeTypes> nodes{}; // true nodes × samples compared

    // Branch events: SL (with the species the lineage continues in) and TL (with the recipient)
    // in the truth, in the samples, and in both on matching branches (recall = shared / true,
    // precision = shared / sampled).
    double trueSL = 0, sampledSL = 0, sharedSL = 0;
    double trueTL = 0, sampledTL = 0, sharedTL = 0;

    // Event counts S, SL, D, T, TL of the truths (once per sample compared) and of the samples:
    // for a well-specified model their totals agree up to sampling noise (calibration).
    std::array<double, 5> trueEvents{}, sampledEvents{};

    // Compares one sample against the truth of the same family (genes matched by name).
    void add(const Reconciliation& truth, const Reconciliation& sample);
    void merge(const RecoveryTally& other);
};

} // namespace gpurec
