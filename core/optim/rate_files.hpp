#pragma once
// Rates in AleRax's output layout, under <prefix>/model_parameters/: model_parameters.txt for the
// global and per-species modes, one <family>_rates.txt per family for the per-family mode (same
// "# node D L T" format, the family's rates on every species node).
#include "data/dataset.hpp"
#include "model/rate_parameters.hpp"

#include <string>
#include <vector>

namespace gpurec {

std::string familyRatesPath(const std::string& folder, const std::string& family);

// Writes the files of θ's mode into `folder` (created if needed); returns their paths.
std::vector<std::string> writeRateFiles(const std::string& folder, const Dataset& data,
                                        const RateParameters& theta);

// Per-family θ from <folder>/<family>_rates.txt of every family. Throws InputError naming the
// file on a missing file, a bad line, or rates that differ between species nodes.
RateParameters readFamilyRateFiles(const std::string& folder, const Dataset& data);

} // namespace gpurec
