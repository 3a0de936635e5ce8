#include "species_search/fixed_tree_options.hpp"

#include <stdexcept>

namespace gpurec {

std::string fixedTreeOption(bool pruneSpeciesTree, bool pairwiseTransfers) {
    if (pruneSpeciesTree) return "--prune-species-tree";
    if (pairwiseTransfers) return "--pairwise-transfers";
    return "";
}

std::string fixedTreeOption(const Dataset& data) {
    return fixedTreeOption(data.pruneSpeciesTree, data.events.pairwiseTransfers);
}

void refuseFixedTreeOptions(bool pruneSpeciesTree, bool pairwiseTransfers, const std::string& command) {
    if (const std::string option = fixedTreeOption(pruneSpeciesTree, pairwiseTransfers); !option.empty())
        throw std::invalid_argument(option + " is not supported by gpurec " + command + " yet");
}

} // namespace gpurec
