#include "engine/cpu_only_features.hpp"

#include <stdexcept>

namespace gpurec {

std::string cpuOnlyFeature(const Dataset& data) {
    if (data.pruneSpeciesTree) return "pruned species trees (--prune-species-tree)";
    return "";
}

void requireDeviceComputable(const Dataset& data) {
    if (const std::string feature = cpuOnlyFeature(data); !feature.empty())
        throw std::invalid_argument(feature + " are computed on the CPU only so far (use --device cpu)");
}

} // namespace gpurec
