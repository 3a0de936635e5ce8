#pragma once
// Where a family's first gene may originate (AleRax's --origination, spec 6.1): any species node
// with equal weight (UNIFORM), only the root (ROOT), or only the last common ancestor of the species
// the family covers (LCA), or any node weighted by free parameters (OPTIMIZE: O_e = o_e / Σ o, with o
// part of θ, model/rate_parameters.hpp). The family's likelihood and its conditioning on survival
// both use these weights: L = Σ_e O_e Π(root clade, e) / Σ_e O_e (1 − E_e).
#include "data/dataset.hpp"

#include <string>

namespace gpurec {

// "UNIFORM" | "ROOT" | "LCA" | "OPTIMIZE".
Origination parseOrigination(const std::string& text);
std::string toString(Origination origination);

// The last common ancestor of the leaves a family's genes map to.
int coveredSpeciesAncestor(const SpeciesTree& species, const GeneFamily& family);

// Sets the dataset's strategy and each family's originSpecies from it (ROOT is the covered LCA, the
// pruned tree's root, when the dataset prunes the species tree).
void applyOrigination(Dataset& data, Origination origination);

} // namespace gpurec
