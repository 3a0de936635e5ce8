#pragma once
// Starting species trees built from the families alone (species-tree-search.md 2): MiniNJ, a
// neighbour joining of the species' mean minimum gene distances, and a random tree.
#include "io/families_file.hpp"
#include "sim/random_source.hpp"
#include "tree/species_tree.hpp"

#include <string>
#include <vector>

namespace gpurec {

// The species the families' genes map to, in first-seen order (family order, then gene trees'
// leaf order). Families whose files cannot be read are left out (the loader reports them).
std::vector<std::string> familySpecies(const std::vector<FamilyInput>& families);

// Labels sorted; each further label hangs from a new parent inserted above a uniformly drawn
// node (the root included), on a drawn side. Branch lengths 1. Needs at least 2 species.
SpeciesTree randomSpeciesTree(std::vector<std::string> species, RandomSource& rng);

// MiniNJ: gene–gene distances in edges (edges shorter than 1.1e-6 count 0) in every gene tree,
// the species pair's minimum per tree, averaged over the trees holding both; standard NJ (first
// minimum of Q in row-major order), rooted at its last join. Needs at least 3 species.
// Throws std::invalid_argument when there are fewer.
SpeciesTree miniNjSpeciesTree(const std::vector<FamilyInput>& families);

} // namespace gpurec
