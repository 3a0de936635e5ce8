#pragma once
// Teaching: one sampled reconciliation told draw by draw, as the stochastic backtracking (spec 8)
// made it. The origination species first, then at every (clade, species) where a gene lineage
// stands the event drawn among all the events that could explain it, each with its probability,
// and for transfers the recipient drawn among the allowed ones. Recording a story makes exactly
// the random draws of plain sampling, so sample k of a family with a seed tells the story of
// sample k that `gpurec sample` writes with that seed.
#include "data/dataset.hpp"
#include "engine/backend.hpp"
#include "engine/species_operators.hpp"
#include "recon/reconciliation.hpp"

#include <cstdint>
#include <vector>

namespace gpurec {

enum class StoryDraw {
    Origin,    // the species where the family's root lineage starts
    Event,     // the event at a lineage's (clade, species)
    Recipient, // the species receiving a transfer (after a T or TL event was drawn)
};

// One outcome a draw could have taken.
struct StoryAlternative {
    EventType event = EventType::Leaf; // Event draws: Leaf, S, D, T, SL or TL
    int species =
        -1; // Origin and Recipient draws: the species node; SL: the child species the lineage continues in
    int split = -1; // S, D, T: index into the clade set's splits
    bool swapped =
        false; // S: the split's right clade goes to the left child species; T: the left clade is transferred
    double probability = 0.0; // among the outcomes of this draw (they sum to 1)
};

struct StoryStep {
    StoryDraw draw = StoryDraw::Origin;
    int clade = -1;   // the lineage's clade (a transfer's Recipient draw: the transferred clade)
    int species = -1; // where the lineage stands (a Recipient draw: the donor; the Origin draw: -1)
    int node = -1;    // the reconciliation's gene node whose event the draw decides
    int event = -1;   // index of that event in the node's events; -1 for the Origin draw
    std::vector<StoryAlternative> alternatives; // every outcome of positive probability, in drawing order
    int chosen = -1;                            // index into alternatives
    const StoryAlternative& outcome() const { return alternatives.at(chosen); }
};

struct BacktrackStory {
    Reconciliation reconciliation; // what the draws built
    std::vector<StoryStep> steps;  // in the order they were drawn
};

// The story of sample `index` (0-based) of `family` drawn with `seed`, from the family's converged
// tables: the same random stream as sampleFamilies, so the same reconciliation. Throws what the
// sampler throws, and std::invalid_argument for a negative index.
BacktrackStory tellSample(const SpeciesLayout& species, const GeneFamily& family, const FamilyTables& tables,
                          std::uint64_t seed, int index, bool halveRootBranches = true);

} // namespace gpurec
