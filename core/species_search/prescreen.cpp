#include "species_search/prescreen.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace gpurec {

namespace {

// `count` of `families` (at least two where there are), the middle one of each of that many equal
// strata of their order by cost (clades + splits, ties by index); in increasing index order.
std::vector<int> spreadByCost(const Dataset& data, std::vector<int> families, int count) {
    const auto cost = [&](int f) { return data.families[f].cladeCount() + data.families[f].splitCount(); };
    std::stable_sort(families.begin(), families.end(), [&](int a, int b) { return cost(a) < cost(b); });
    const auto n = static_cast<long long>(families.size());
    const int k = static_cast<int>(std::min<long long>(n, std::max(2, count)));
    std::vector<int> chosen;
    chosen.reserve(k);
    for (int i = 0; i < k; ++i)
        chosen.push_back(families[static_cast<std::size_t>((2LL * i + 1) * n / (2LL * k))]);
    std::sort(chosen.begin(), chosen.end());
    return chosen;
}

} // namespace

std::vector<int> screeningFamilies(const Dataset& data, double fraction) {
    if (!(fraction > 0.0 && fraction < 1.0))
        throw std::invalid_argument("the pre-screening fraction " + std::to_string(fraction) +
                                    " must be in (0, 1)");
    const int n = static_cast<int>(data.families.size());
    std::vector<int> all(n);
    std::iota(all.begin(), all.end(), 0);
    return spreadByCost(data, std::move(all), static_cast<int>(std::lround(fraction * n)));
}

std::vector<int> confirmingFamilies(const Dataset& data, const std::vector<int>& screening, double factor) {
    const auto n = static_cast<long long>(data.families.size());
    const long long total = std::llround(factor * static_cast<double>(screening.size()));
    if (total >= n || total < static_cast<long long>(screening.size()) + 2) return {};
    std::vector<char> screened(static_cast<std::size_t>(n), 0);
    for (int f : screening)
        screened[f] = 1;
    std::vector<int> others;
    for (int f = 0; f < n; ++f)
        if (!screened[f]) others.push_back(f);
    return spreadByCost(data, std::move(others),
                        static_cast<int>(total - static_cast<long long>(screening.size())));
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
    // Only a candidate better than its estimate can be missed: the errors below it (a few sharply
    // worse families the sample did not hold) only cost evaluations, and do not widen z.
    if (!(error > 0)) return;
    ++above_;
    // An exact estimate (every sampled family unchanged) counts as one standard error.
    squaredErrors_ += e.standardError > 0 ? (error / e.standardError) * (error / e.standardError) : 1.0;
}

double Prescreen::z() const {
    if (above_ == 0) return minimumZ;
    return minimumZ * std::max(1.0, std::sqrt(squaredErrors_ / above_));
}

} // namespace gpurec
