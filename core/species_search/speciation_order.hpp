#pragma once
// Datings of a species tree for --transfer-constraint RELDATED (AleRax's speciation-order
// inference, docs/species-search.md): an order of the internal nodes, root first and every node after
// its parent, changed only by swaps of adjacent ranks. The transfer score of a dating counts the
// sampled transfers it allows; local optimisation and perturbation search over datings for any
// score.
#include "tree/species_tree.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <vector>

namespace gpurec {

class SpeciationOrder {
  public:
    // The tree's own dating (SpeciesTree::rank).
    explicit SpeciationOrder(const SpeciesTree& tree);

    const SpeciesTree& tree() const { return *tree_; }
    int internalCount() const { return static_cast<int>(byRank_.size()); }
    // Internal node at rank r (0 = root), and the rank of any node (leaves keep the tree's ranks).
    int nodeAt(int r) const { return byRank_[r]; }
    int rank(int e) const { return rank_[e]; }
    const std::vector<int>& internalByRank() const { return byRank_; }
    // Whether every internal node comes after its parent.
    bool valid() const;
    // RELDATED's predicate (SpeciesTree::isRecipient) with these ranks.
    bool allowsTransfer(int from, int to) const;

    // Swaps the nodes at ranks r and r + 1; refused (false, nothing changed) unless both are internal
    // and the second is not a child of the first.
    bool moveDown(int r);
    // moveDown(r − 1); refused for r = 0.
    bool moveUp(int r);
    // A random linear extension (AleRax's randomize: a random pick among the nodes whose parent is
    // already ranked).
    void randomize(std::mt19937_64& rng);
    // AleRax's perturbateDates(p): ⌊2Np⌋ runs of up to 10 × max(2, ⌊2√N p⌋) swaps around random ranks,
    // each run ending at its first refused swap (N internal nodes).
    void perturb(double p, std::mt19937_64& rng);
    // The tree dated by this order.
    SpeciesTree datedTree() const { return tree_->redated(byRank_); }

  private:
    const SpeciesTree* tree_;
    std::vector<int> byRank_, rank_;
};

// Sampled transfers counted per (donor, recipient) species node.
struct TransferCount {
    int from = -1, to = -1;
    long count = 0;
};

// Σ count over the pairs the dating allows.
long transferScore(const SpeciationOrder& order, const std::vector<TransferCount>& transfers);

using DatingScore = std::function<double(const SpeciationOrder&)>;

// AleRax's optimizeDatesLocal: sweeps over the ranks pushing each node up while the score rises,
// another sweep only while a sweep gains more than kLocalSweepGain. Returns the final score (never
// below the start's). `startScore`: the order's score when already known (not scored again).
double optimizeDatingLocally(SpeciationOrder& order, const DatingScore& score,
                             std::optional<double> startScore = std::nullopt);

constexpr double kLocalSweepGain = 1.0;

} // namespace gpurec
