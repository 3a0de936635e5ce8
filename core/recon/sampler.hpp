#pragma once
// Stochastic backtracking (spec 8): reconciliations drawn from their posterior given one family's
// converged E, Ē, Π and Π̄, whichever backend computed them.
//
// At a gene lineage of clade γ in species e the next event is drawn in proportion to its term of
// Π(γ, e) (spec 5.1): leaf, S and T (both orientations of every split), D, SL (both children) and
// TL with the copy at e extinct (the lineage continues at a recipient). The two terms that leave
// the lineage where it was, DL and TL with the transferred copy extinct, are not drawn: they carry
// no information from the data (their shares 2 pD E and pT Ē only depend on the rates), and
// redrawing the same cell after them, as AleRax does, gives exactly the distribution of drawing
// among the other terms. As in AleRax they are not recorded. Transfer recipients are drawn in
// proportion to Π of the transferred clade among the allowed recipients R(e).
#include "ccp/clade_set.hpp"
#include "data/dataset.hpp"
#include "engine/backend.hpp"
#include "engine/family_solver.hpp"
#include "engine/species_operators.hpp"
#include "recon/backtrack_story.hpp"
#include "recon/reconciliation.hpp"

#include <cstdint>
#include <random>
#include <vector>

namespace gpurec {

// A uniform double in [0, 1) from 53 random bits (the same on every platform, unlike
// std::uniform_real_distribution).
double uniformUnit(std::mt19937_64& rng);

class ReconciliationSampler {
  public:
    // The family and tables must outlive the sampler. On a pruned tree (--prune-species-tree:
    // `species` is the family's pruned layout and the tables are on it) the reconciliations name
    // species nodes by their full-tree indices; the story's steps keep the pruned tree's.
    // `halveRootBranches`: the two gene branches below the root share one edge of an unrooted gene tree
    // (UNIFORM rooting), so each gets half its length. Throws std::invalid_argument when the table shapes do
    // not match the family.
    ReconciliationSampler(const SpeciesLayout& species, const GeneFamily& family, const FamilyTables& tables,
                          bool halveRootBranches = true);

    // One reconciliation. Iterative: gene trees of any size, no recursion. With `story`, each draw
    // is also appended to its steps with all its alternatives; the random draws are the same.
    Reconciliation draw(std::mt19937_64& rng, std::vector<StoryStep>* story = nullptr) const;

  private:
    enum class Kind { Leaf, Speciation, Duplication, Transfer, SpeciationLoss, TransferLoss };
    struct Choice {
        Kind kind = Kind::Leaf;
        int split = -1;       // S, D, T: index into the clade set's splits
        bool swapped = false; // S: the split's right clade goes to the left child species;
                              // T: the split's left clade is the transferred one
        int nextSpecies = -1; // SL: the child species where the lineage continues
        int highway = -1;     // T, TL down a transfer highway: its index (the recipient is its destination)
    };

    static EventType eventOf(Kind kind);
    // Calls visit(weight, choice) for every drawable term of Π(γ, e), in a fixed order, with
    // weights relative to 2^scale[γ]; stops early when visit returns false.
    template <class Visit> void forEachTerm(int clade, int e, Visit&& visit) const;
    // Each draw fills `step`'s alternatives and choice when given.
    Choice drawEvent(int clade, int e, std::mt19937_64& rng, StoryStep* step) const;
    int drawRecipient(int clade, int donor, std::mt19937_64& rng, StoryStep* step) const;
    int drawOrigin(std::mt19937_64& rng, StoryStep* step) const;
    bool allowedRecipient(int donor, int h) const;

    const SpeciesLayout& s_;
    const GeneFamily& family_;
    const FamilyTables& t_;
    bool halveRootBranches_;
    std::vector<int> enter_, exit_; // DFS interval of every species node, for ancestor tests
};

} // namespace gpurec
