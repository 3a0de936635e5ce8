#pragma once
// The model options that belong to one fixed species tree (each family's pruned tree, a rate per
// donor → recipient pair of its nodes), which what changes the tree or its highways refuses: gpurec
// search, highways and test-trees, and the workbench's species-tree search.
#include "data/dataset.hpp"

#include <string>

namespace gpurec {

// The first such option given, by its command-line name ("--prune-species-tree",
// "--pairwise-transfers"); empty when there is none.
std::string fixedTreeOption(bool pruneSpeciesTree, bool pairwiseTransfers);
std::string fixedTreeOption(const Dataset& data);
// Throws std::invalid_argument "<option> is not supported by gpurec <command> yet" when one is given.
void refuseFixedTreeOptions(bool pruneSpeciesTree, bool pairwiseTransfers, const std::string& command);

} // namespace gpurec
