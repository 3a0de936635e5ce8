#pragma once
// What --prune-species-tree (engine/species_pruning.hpp) can be combined with: checked once from the
// options before any input is read, and again by every backend from the dataset it is given.
#include "data/dataset.hpp"

namespace gpurec {

// Throws std::invalid_argument for pruning together with a fraction of missing genes, which AleRax
// refuses with this message, or with what gpurec's pruning does not support (transfer highways,
// --transfer-constraint RELDATED). Does nothing without pruning.
void requirePrunable(bool prune, bool fractionMissing, bool highways, TransferConstraint constraint);
void requirePrunable(const Dataset& data);

} // namespace gpurec
