#include "species_search/prescreen.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

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

int ScreenPlan::neededCount() const {
    return static_cast<int>(std::count(needed.begin(), needed.end(), 1));
}

ScreenPlan Prescreen::plan(const std::vector<char>& touched) const {
    ScreenPlan out;
    if (touched.empty()) return out;
    if (touched.size() != static_cast<std::size_t>(familyCount_))
        throw std::invalid_argument("screen plan: " + std::to_string(touched.size()) + " flags for " +
                                    std::to_string(familyCount_) + " families");
    const int n = static_cast<int>(families_.size());
    out.touched.resize(n);
    int sampledTouched = 0;
    for (int i = 0; i < n; ++i)
        sampledTouched += out.touched[i] = touched[families_[i]] ? 1 : 0;
    out.touchedFamilies = static_cast<int>(std::count(touched.begin(), touched.end(), 1));
    const int untouchedFamilies = familyCount_ - out.touchedFamilies;
    // Two untouched families at least, to estimate their spread; none when there are none.
    const int untouchedSampled = n - sampledTouched;
    const int untouchedNeeded =
        untouchedFamilies == 0 ? 0 : std::max(2, (untouchedSampled + untouchedStride - 1) / untouchedStride);
    if (sampledTouched < minimumTouched || untouchedSampled < untouchedNeeded) return ScreenPlan{};
    out.needed.assign(n, 0);
    int untouchedSeen = 0, untouchedTaken = 0;
    for (int i = 0; i < n; ++i) {
        if (out.touched[i]) {
            out.needed[i] = 1;
        } else if (untouchedTaken < untouchedNeeded && untouchedSeen++ % untouchedStride == 0) {
            out.needed[i] = 1;
            ++untouchedTaken;
        }
    }
    // Fewer than two every-stride-th (a small sample): the first ones not yet taken.
    for (int i = 0; i < n && untouchedTaken < untouchedNeeded; ++i)
        if (!out.touched[i] && !out.needed[i]) {
            out.needed[i] = 1;
            ++untouchedTaken;
        }
    return out;
}

namespace {

// A stratum's estimated total and its standard error, from `values` sampled without replacement
// out of `population`; an infinite error where fewer than two were sampled out of more.
struct StratumTotal {
    double total = 0.0, standardError = 0.0;
};
StratumTotal stratumTotal(const std::vector<double>& values, int population) {
    const auto n = static_cast<int>(values.size());
    const double unknown = std::numeric_limits<double>::infinity();
    if (population == 0) return {};
    if (n == 0) return {0.0, unknown};
    const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
    StratumTotal out{mean * population, 0.0};
    if (!std::isfinite(mean) || n >= population) return out;
    if (n < 2) return {out.total, unknown};
    double squares = 0.0;
    for (double v : values)
        squares += (v - mean) * (v - mean);
    const double finite = std::max(0.0, 1.0 - static_cast<double>(n) / population);
    out.standardError = population * std::sqrt(squares / (n - 1) / n * finite);
    return out;
}

} // namespace

ScreeningEstimate Prescreen::estimate(const std::vector<double>& screened, const std::vector<double>& current,
                                      const ScreenPlan& plan) const {
    const int n = static_cast<int>(families_.size());
    std::vector<double> strata[2]; // 0: untouched (or the one stratum), 1: touched
    for (int i = 0; i < n; ++i) {
        if (!plan.needed.empty() && !plan.needed.at(i)) continue;
        const double value = screened.at(i);
        if (std::isnan(value))
            throw std::logic_error("screening estimate: sampled family " + std::to_string(families_[i]) +
                                   " was not evaluated");
        strata[plan.touched.empty() ? 0 : plan.touched.at(i)].push_back(value - current.at(families_[i]));
    }
    const int touchedPopulation = plan.touched.empty() ? 0 : plan.touchedFamilies;
    const StratumTotal untouched = stratumTotal(strata[0], familyCount_ - touchedPopulation);
    const StratumTotal touched = stratumTotal(strata[1], touchedPopulation);
    const double change = untouched.total + touched.total;
    ScreeningEstimate e{change, std::numeric_limits<double>::infinity()};
    // sqrt(x²) is x exactly: one stratum gives the unstratified error bit for bit.
    if (n >= 2 && std::isfinite(change))
        e.standardError = std::sqrt(untouched.standardError * untouched.standardError +
                                    touched.standardError * touched.standardError);
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

void Prescreen::restore(const PrescreenCalibration& c) {
    if (c.observed < 0 || c.above < 0 || c.above > c.observed || !(c.squaredErrors >= 0) ||
        !std::isfinite(c.squaredErrors))
        throw std::invalid_argument("a pre-screen calibration of " + std::to_string(c.observed) +
                                    " candidates, " + std::to_string(c.above) +
                                    " above their estimates and squared errors " +
                                    std::to_string(c.squaredErrors) + " is not one a search makes");
    observed_ = c.observed;
    above_ = c.above;
    squaredErrors_ = c.squaredErrors;
}

double Prescreen::z() const {
    if (above_ == 0) return minimumZ;
    return minimumZ * std::max(1.0, std::sqrt(squaredErrors_ / above_));
}

} // namespace gpurec
