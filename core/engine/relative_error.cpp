#include "engine/relative_error.hpp"

#include <algorithm>
#include <cmath>

namespace gpurec {

double worstRelativeError(const std::vector<double>& a, const std::vector<double>& ref) {
    if (a.size() != ref.size()) return std::nan("");
    double scale = 0, worst = 0;
    for (double r : ref)
        scale = std::max(scale, std::abs(r));
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double d = std::abs(a[i] - ref[i]) / std::max(std::abs(ref[i]), 1e-6 * scale);
        if (!(d <= worst)) worst = d; // NaN propagates
    }
    return worst;
}

} // namespace gpurec
