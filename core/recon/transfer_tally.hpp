#pragma once
// AleRax's transfer statistics from one sampled reconciliation per family (its transfer-guided
// species-tree moves and its transfer-highway candidates): the T and TL events from each donor to
// each recipient over the families, and each pair's score, that count over the pair's potential,
// Σ over the families holding a copy in the recipient of their copies in the donor (S, SL and leaf
// events there).
#include "recon/reconciliation.hpp"

#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace gpurec {

class TransferTally {
  public:
    TransferTally(int families, int nodes);
    // Adds one family's reconciliations, their species nodes renamed by `id` (species node -> the
    // caller's node id). Safe to call from several threads.
    void add(int family, const std::vector<Reconciliation>& samples, const std::vector<int>& id);

    struct Pair {
        int donor = -1, recipient = -1; // the caller's node ids
        long count = 0;
        double score = 0.0; // count / potential, +inf for no potential
    };
    // The pairs seen at least `minCount` times, by decreasing score, then donor, then recipient.
    std::vector<Pair> sorted(long minCount = 1) const;

  private:
    std::vector<std::vector<int>> copies_; // per family and node
    std::map<std::pair<int, int>, long> transfers_;
    mutable std::mutex mutex_;
};

} // namespace gpurec
