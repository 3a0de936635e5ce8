#include "data/pruning_options.hpp"

#include <stdexcept>

namespace gpurec {

void requirePrunable(bool prune, bool fractionMissing, bool highways, TransferConstraint constraint) {
    if (!prune) return;
    if (fractionMissing)
        throw std::invalid_argument("--fraction-missing-file cannot be used with --prune-species-tree");
    if (highways)
        throw std::invalid_argument("--prune-species-tree is not supported with transfer highways "
                                    "(--highways-file, --pairwise-transfers, the highway search) yet");
    if (constraint == TransferConstraint::RelDated)
        throw std::invalid_argument(
            "--prune-species-tree is not supported with --transfer-constraint RELDATED yet");
}

void requirePrunable(const Dataset& data) {
    requirePrunable(data.pruneSpeciesTree, !data.fractionMissing.empty(), !data.highways.empty(),
                    data.transferConstraint);
}

} // namespace gpurec
