#include "engine/cpu_only_features.hpp"

#include <stdexcept>

namespace gpurec {

std::string cpuOnlyFeature(const Dataset& data) {
    // The origination weights' gradient reads every family's root row on the full tree.
    if (data.pruneSpeciesTree && data.origination == Origination::Optimize)
        return "pruned species trees with fitted origination weights (--prune-species-tree with "
               "--origination "
               "OPTIMIZE)";
    return "";
}

void requireDeviceComputable(const Dataset& data) {
    if (const std::string feature = cpuOnlyFeature(data); !feature.empty())
        throw std::invalid_argument(feature + " are computed on the CPU only so far (use --device cpu)");
}

} // namespace gpurec
