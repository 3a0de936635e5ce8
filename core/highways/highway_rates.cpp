#include "highways/highway_rates.hpp"

#include <cmath>

namespace gpurec {

std::vector<double> highwayRates(const RateParameters& theta) {
    std::vector<double> rates(theta.highwayCount());
    for (int h = 0; h < theta.highwayCount(); ++h)
        rates[h] = std::exp2(theta.theta()[theta.highwayEntry(h)]);
    return rates;
}

} // namespace gpurec
