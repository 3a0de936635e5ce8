#pragma once
// A consensus of sampled reconciliations and the support of its events. Samples of one family may
// differ in gene-tree topology and rooting, so an event is identified by the genes below its gene
// node (a clade), its type, its species and, for transfers, its recipient; its support is the
// fraction of samples holding that event. The consensus is the maximum-credibility reconciliation:
// the sample whose events have the largest product of supports (a complete, consistent history
// that is drawn like any sample, as BEAST's maximum clade credibility tree is for trees).
#include "recon/reconciliation.hpp"

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace gpurec {

struct EventKey {
    std::uint64_t genes = 0; // the set of gene names below the gene node (a loss: its parent's), hashed
    EventType type = EventType::Leaf;
    int species = -1;
    int recipient = -1;
    // clang-tidy 14 takes the defaulted comparison's synthesised 0 for a null pointer.
    auto operator<=>(const EventKey&) const = default; // NOLINT(modernize-use-nullptr)
};

// The key of every event: keys[node][i] for r.nodes[node].events[i].
std::vector<std::vector<EventKey>> eventKeys(const Reconciliation& r);

// Fraction of the samples holding each event (an event repeated in one sample counts once).
std::map<EventKey, double> eventSupport(const std::vector<Reconciliation>& samples);

struct ConsensusReconciliation {
    int sample = -1;                          // index of the chosen sample; -1 without samples
    std::vector<std::vector<double>> support; // per gene node and event of that sample
};
// Ties go to the earliest sample.
ConsensusReconciliation consensusReconciliation(const std::vector<Reconciliation>& samples);

// Fraction of the samples with at least one transfer (T or TL) from `donor` to `recipient`.
double transferSampleFrequency(const std::vector<Reconciliation>& samples, int donor, int recipient);

} // namespace gpurec
