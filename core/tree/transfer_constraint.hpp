#pragma once
// Which species nodes may receive a transfer from a node (spec 4.1). A header of its own so that the
// CUDA backend's plain views (gpu/cuda/device_views.hpp) can hold one.
#include <string>

namespace gpurec {

// PARENTS: every node but e and its ancestors. NONE: every node but e. RELDATED: every node but e
// ranked after e's parent in the dating of the species tree (SpeciesTree::rank), every node but the
// root from the root.
enum class TransferConstraint { Parents, None, RelDated };
TransferConstraint parseTransferConstraint(const std::string& text); // "PARENTS" | "NONE" | "RELDATED"
std::string toString(TransferConstraint constraint);

} // namespace gpurec
