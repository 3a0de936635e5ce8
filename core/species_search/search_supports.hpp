#pragma once
// Supports gathered during a species-tree search (spec species-tree-search.md 4.2, 5): family
// resampling replicates (RELL), the per-branch KH test and bootstrap, and the root positions'
// likelihoods. Branches are keyed by their unrooted split (the side without leaf 0), so a support
// survives a change of root.
#include "sim/random_source.hpp"
#include "species_search/species_topology.hpp"

#include <map>
#include <vector>

namespace gpurec {

// `replicates` multinomial resamples of F families (F draws with replacement each).
class FamilyResampling {
  public:
    FamilyResampling(int families, int replicates, RandomSource& rng);
    int replicates() const { return static_cast<int>(counts_.size()); }
    // Σ_f w_{b,f} ll_f for every replicate b.
    std::vector<double> sums(const std::vector<double>& perFamily) const;

  private:
    std::vector<std::vector<int>> counts_; // replicate -> family -> times drawn
};

// Non-trivial splits of the unrooted tree, one per internal branch (the root's two branches are one).
std::vector<Clade> treeSplits(const SpeciesTopology& tree);
// The split of the branch above node x.
Clade splitAbove(const SpeciesTopology& tree, const std::vector<Clade>& clades, int x);
// Splits of `before` that `after` lacks: the branches a move destroys.
std::vector<Clade> destroyedSplits(const std::vector<Clade>& before, const std::vector<Clade>& after);

// KH test per branch: 1000·(1 − p) of the most significant rejected candidate that broke it since
// the last accepted tree (p one-sided, centred RELL).
class BranchKH {
  public:
    explicit BranchKH(const FamilyResampling& resampling) : resampling_(resampling) {}
    // A better tree: new reference, and every branch's count back to the replicate count.
    void newTree(const std::vector<Clade>& splits, double logLikelihood,
                 const std::vector<double>& perFamily);
    // Same tree, new reference values (after a rate optimisation); counts kept.
    void newReference(double logLikelihood, const std::vector<double>& perFamily);
    void rejected(const std::vector<Clade>& affected, double logLikelihood,
                  const std::vector<double>& perFamily);
    int support(const Clade& split) const; // replicate count for a branch never tested

    // What the test holds, kept with a search's checkpoint (the counts in split order).
    struct State {
        double referenceLogLikelihood = 0.0;
        std::vector<double> referenceSums;
        std::vector<std::pair<Clade, int>> counts;
    };
    State state() const;
    // Throws std::invalid_argument for sums of another replicate count or counts outside [0, it].
    void restore(State state);

  private:
    const FamilyResampling& resampling_;
    double referenceLL_ = 0.0;
    std::vector<double> referenceSums_;
    std::map<Clade, int> counts_;
};

// Ultrafast-bootstrap-like branch support: a replicate supports a branch while the best tree it
// has seen there (reference or candidate) is one that has the branch.
class BranchBootstrap {
  public:
    explicit BranchBootstrap(const FamilyResampling& resampling) : resampling_(resampling) {}
    void reference(const std::vector<Clade>& splits, const std::vector<double>& perFamily);
    void candidate(const std::vector<Clade>& affected, const std::vector<double>& perFamily);
    int support(const Clade& split) const;

  private:
    struct Replicate {
        double best;
        bool supported;
    };
    const FamilyResampling& resampling_;
    std::map<Clade, std::vector<Replicate>> state_;
};

// The root positions evaluated by one root search, with RELL counts.
struct RootCandidate {
    Clade split; // root split, side without leaf 0
    double logLikelihood = 0.0;
    std::vector<double> perFamily;
};

class RootTable {
  public:
    void clear() { roots_.clear(); }
    void add(const Clade& split, double logLikelihood, const std::vector<double>& perFamily);
    const std::vector<RootCandidate>& roots() const { return roots_; }
    // LL(root) − the best LL; empty roots give nothing.
    double logLikelihoodRatio(const RootCandidate& root) const;
    // Replicates each root wins (first evaluated wins ties), in table order; sums to the replicates.
    std::vector<int> rellCounts(const FamilyResampling& resampling) const;

  private:
    std::vector<RootCandidate> roots_;
};

} // namespace gpurec
