#include "species_search/prescreen.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace gpurec {

std::vector<int> screeningFamilies(const Dataset& data, double fraction) {
    if (!(fraction > 0.0 && fraction < 1.0))
        throw std::invalid_argument("the pre-screening fraction " + std::to_string(fraction) +
                                    " must be in (0, 1)");
    const int n = static_cast<int>(data.families.size());
    std::vector<long long> cost(n);
    for (int f = 0; f < n; ++f)
        cost[f] = data.families[f].cladeCount() + data.families[f].splitCount();
    std::vector<int> byCost(n);
    std::iota(byCost.begin(), byCost.end(), 0);
    std::stable_sort(byCost.begin(), byCost.end(), [&](int a, int b) { return cost[a] < cost[b]; });
    const int k = std::min(n, std::max(2, static_cast<int>(std::lround(fraction * n))));
    std::vector<int> chosen; // the middle one of each of k equal strata of the cost order
    chosen.reserve(k);
    for (int i = 0; i < k; ++i)
        chosen.push_back(byCost[static_cast<int>((2LL * i + 1) * n / (2LL * k))]);
    std::sort(chosen.begin(), chosen.end());
    return chosen;
}

Prescreen::Prescreen(std::vector<int> families, int familyCount)
    : families_(std::move(families)), familyCount_(familyCount) {}

ScreeningEstimate Prescreen::estimate(const std::vector<double>& screened,
                                      const std::vector<double>& current) const {
    const int n = static_cast<int>(families_.size());
    std::vector<double> change(n);
    for (int i = 0; i < n; ++i)
        change[i] = screened.at(i) - current.at(families_[i]);
    const double mean = n ? std::accumulate(change.begin(), change.end(), 0.0) / n : 0.0;
    ScreeningEstimate e{mean * familyCount_, std::numeric_limits<double>::infinity()};
    if (n >= 2 && std::isfinite(mean)) {
        double squares = 0.0;
        for (double c : change)
            squares += (c - mean) * (c - mean);
        const double finite = std::max(0.0, 1.0 - static_cast<double>(n) / familyCount_);
        e.standardError = familyCount_ * std::sqrt(squares / (n - 1) / n * finite);
    }
    return e;
}

bool Prescreen::worthScoring(const ScreeningEstimate& e) const {
    if (e.change == -std::numeric_limits<double>::infinity()) return false;
    return observed_ < calibrationCandidates || !(e.change + z() * e.standardError <= 0.0);
}

void Prescreen::observe(const ScreeningEstimate& e, double exact) {
    const double error = exact - e.change;
    if (!std::isfinite(error) || !std::isfinite(e.standardError)) return;
    ++observed_;
    // An exact estimate (every sampled family unchanged) counts as one standard error.
    squaredErrors_ += e.standardError > 0 ? (error / e.standardError) * (error / e.standardError) : 1.0;
}

double Prescreen::z() const {
    if (observed_ == 0) return minimumZ;
    return minimumZ * std::max(1.0, std::sqrt(squaredErrors_ / observed_));
}

} // namespace gpurec
