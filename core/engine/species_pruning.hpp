#pragma once
// AleRax's --prune-species-tree (spec 1.5): each family is reconciled with the species tree
// restricted to the leaves it covers (species with at least one of its genes) and to the internal
// nodes whose two subtrees both hold a covered leaf. A kept node's children are its nearest kept
// descendants and the pruned root is the covered species' last common ancestor. Kept nodes keep
// their full-tree identity for the rates they read (per species node), origination weights and
// outputs: a pruned SpeciesLayout numbers its nodes 0..k−1 in postorder and maps them to the full
// tree (SpeciesLayout::fullIndex). With every leaf covered the pruned tree is the full tree.
#include "data/dataset.hpp"
#include "data/pruning_options.hpp"
#include "engine/species_operators.hpp"
#include "model/rate_parameters.hpp"

#include <vector>

namespace gpurec {

// `full` (the layout of the whole tree) restricted to the nodes kept for `family`; `full` itself
// when the family covers every leaf.
SpeciesLayout prunedLayout(const SpeciesLayout& full, const GeneFamily& family);

// The layouts a dataset's families are solved on: the full tree, used by every family without
// pruning and by those covering every leaf with it, then one per distinct pruned tree.
struct FamilyLayouts {
    std::vector<SpeciesLayout> layouts; // [0]: the full tree
    std::vector<int> of;                // per family: its index into layouts
    std::vector<int> families;          // per layout: how many families use it
    FamilyLayouts() = default;
    explicit FamilyLayouts(const Dataset& data);
    const SpeciesLayout& full() const { return layouts[0]; }
    const SpeciesLayout& family(int f) const { return layouts[of[f]]; }
};

// A per-node vector of the full tree read at `s`'s nodes (itself for the full layout or when empty).
std::vector<double> keptValues(const SpeciesLayout& s, const std::vector<double>& full);
// The event probabilities of `s`'s nodes (transfer highways are not pruned: none with pruning).
EventProbabilities keptProbabilities(const SpeciesLayout& s, const EventProbabilities& full);
// Adds per-node values of `s` (`kept`) to the full tree's nodes (`full`).
void addToFullNodes(const SpeciesLayout& s, const std::vector<double>& kept, std::vector<double>& full);

} // namespace gpurec
