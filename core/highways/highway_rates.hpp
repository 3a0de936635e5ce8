#pragma once
// The rates θ holds for a dataset's transfer highways (every donor → recipient pair under
// --pairwise-transfers): what result.json, model_parameters/highways.txt and the workbench's
// transfer-rate view show.
#include "model/rate_parameters.hpp"

#include <vector>

namespace gpurec {

// ρ_h = 2^θ_h of each of θ's highways, in the dataset's highway order (empty without highways).
std::vector<double> highwayRates(const RateParameters& theta);

} // namespace gpurec
