#pragma once
// What only the CPU reference backend computes so far. Device backends refuse a dataset that uses
// one of these (requireDeviceComputable) and `--device auto` then runs on the CPU with a note
// (backend_factory.cpp).
#include "data/dataset.hpp"

#include <string>

namespace gpurec {

// The first feature of `data` that only the CPU computes, as a plural noun phrase ("pruned species
// trees"); empty when there is none.
std::string cpuOnlyFeature(const Dataset& data);
// Throws std::invalid_argument "<feature> are computed on the CPU only so far (use --device cpu)"
// when `data` uses such a feature: what a device backend's constructor and setSpeciesTree call.
void requireDeviceComputable(const Dataset& data);

} // namespace gpurec
