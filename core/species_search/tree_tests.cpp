#include "species_search/tree_tests.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace gpurec {

void TreeTestSettings::validate() const {
    if (replicates < 1) throw std::invalid_argument("tree tests: replicates must be >= 1");
    if (scales.empty()) throw std::invalid_argument("tree tests: at least one scale is needed");
    for (double r : scales)
        if (!(r > 0)) throw std::invalid_argument("tree tests: scales must be > 0");
}

double normalCdf(double x) {
    return 0.5 * std::erfc(-x / std::numbers::sqrt2);
}

double normalQuantile(double p) {
    if (p <= 0) return -INFINITY;
    if (p >= 1) return INFINITY;
    // Bisection on the distribution function: slow but exact to the last bits, and never hot.
    double lo = -40, hi = 40;
    for (int i = 0; i < 200 && hi - lo > 1e-15 * std::max(1.0, std::abs(lo)); ++i) {
        const double mid = 0.5 * (lo + hi);
        (normalCdf(mid) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

double khPValue(const std::vector<double>& best, const std::vector<double>& other) {
    const std::size_t F = best.size();
    double delta = 0, mean = 0;
    for (std::size_t f = 0; f < F; ++f)
        delta += best[f] - other[f];
    mean = delta / double(F);
    double ss = 0;
    for (std::size_t f = 0; f < F; ++f)
        ss += (best[f] - other[f] - mean) * (best[f] - other[f] - mean);
    if (F < 2 || ss == 0) return delta > 0 ? 0.0 : 1.0;
    return 1.0 - normalCdf(delta / std::sqrt(double(F) * ss / double(F - 1)));
}

namespace {
double total(const std::vector<double>& v) {
    double s = 0;
    for (double x : v)
        s += x;
    return s;
}
} // namespace

std::vector<std::vector<double>> resampledSums(const std::vector<std::vector<double>>& ll, int draws,
                                               int replicates, RandomSource& rng) {
    const std::size_t K = ll.size();
    const std::uint64_t F = K ? ll[0].size() : 0;
    std::vector<std::vector<double>> sums(K, std::vector<double>(replicates, 0.0));
    if (F == 0) return sums;
    for (int b = 0; b < replicates; ++b)
        for (int d = 0; d < draws; ++d) {
            const std::uint64_t f = rng.below(F);
            for (std::size_t i = 0; i < K; ++i)
                sums[i][b] += ll[i][f];
        }
    return sums;
}

std::vector<double> shPValues(const std::vector<std::vector<double>>& ll,
                              const std::vector<std::vector<double>>& sums) {
    const std::size_t K = ll.size();
    const std::size_t B = K ? sums[0].size() : 0;
    std::vector<std::vector<double>> centred = sums;
    for (std::vector<double>& s : centred) {
        const double mean = total(s) / double(B);
        for (double& x : s)
            x -= mean;
    }
    double bestL = -INFINITY;
    for (const std::vector<double>& t : ll)
        bestL = std::max(bestL, total(t));
    std::vector<double> p(K, 0.0);
    for (std::size_t b = 0; b < B; ++b) {
        double top = -INFINITY;
        for (std::size_t i = 0; i < K; ++i)
            top = std::max(top, centred[i][b]);
        for (std::size_t i = 0; i < K; ++i)
            p[i] += top - centred[i][b] >= bestL - total(ll[i]);
    }
    for (double& x : p)
        x /= double(B);
    return p;
}

std::vector<double> bootstrapProbabilities(const std::vector<std::vector<double>>& sums) {
    const std::size_t K = sums.size(), B = K ? sums[0].size() : 0;
    std::vector<long> wins(K, 0);
    for (std::size_t b = 0; b < B; ++b) {
        std::size_t winner = 0;
        for (std::size_t i = 1; i < K; ++i)
            if (sums[i][b] > sums[winner][b]) winner = i;
        ++wins[winner];
    }
    std::vector<double> bp(K);
    for (std::size_t i = 0; i < K; ++i)
        bp[i] = double(wins[i]) / double(B); // exactly 0 or 1 when it is
    return bp;
}

double auPValue(const std::vector<double>& scales, const std::vector<double>& bp, int replicates) {
    // Normal equations of min Σ w (z − v a − c b)², a = √r, b = 1/√r.
    double saa = 0, sab = 0, sbb = 0, saz = 0, sbz = 0;
    int used = 0;
    for (std::size_t k = 0; k < scales.size(); ++k) {
        if (!(bp[k] > 0 && bp[k] < 1)) continue;
        const double z = normalQuantile(1 - bp[k]);
        const double density = std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
        const double w = replicates * density * density / (bp[k] * (1 - bp[k]));
        const double a = std::sqrt(scales[k]), b = 1 / a;
        saa += w * a * a;
        sab += w * a * b;
        sbb += w * b * b;
        saz += w * a * z;
        sbz += w * b * z;
        ++used;
    }
    const double det = saa * sbb - sab * sab;
    if (used < 2 || !(std::abs(det) > 1e-12 * saa * sbb)) {
        std::size_t nearest = 0;
        for (std::size_t k = 1; k < scales.size(); ++k)
            if (std::abs(scales[k] - 1) < std::abs(scales[nearest] - 1)) nearest = k;
        return bp[nearest];
    }
    const double v = (saz * sbb - sbz * sab) / det, c = (saa * sbz - sab * saz) / det;
    return 1 - normalCdf(v - c);
}

std::vector<TreeTestRow> testTrees(const std::vector<std::vector<double>>& ll,
                                   const TreeTestSettings& settings) {
    settings.validate();
    const std::size_t K = ll.size();
    const int F = K ? int(ll[0].size()) : 0;
    std::vector<TreeTestRow> rows(K);
    std::size_t best = 0;
    for (std::size_t i = 0; i < K; ++i) {
        rows[i].logLikelihood = total(ll[i]);
        if (rows[i].logLikelihood > rows[best].logLikelihood) best = i;
    }
    RandomSource rng(settings.seed);
    const std::vector<std::vector<double>> unit = resampledSums(ll, F, settings.replicates, rng);
    const std::vector<double> sh = shPValues(ll, unit);
    const std::vector<double> bpUnit = bootstrapProbabilities(unit);
    std::vector<std::vector<double>> bpByScale(settings.scales.size());
    for (std::size_t k = 0; k < settings.scales.size(); ++k) {
        const int draws = std::max(1, int(std::lround(settings.scales[k] * F)));
        bpByScale[k] = bootstrapProbabilities(resampledSums(ll, draws, settings.replicates, rng));
    }
    for (std::size_t i = 0; i < K; ++i) {
        rows[i].delta = rows[best].logLikelihood - rows[i].logLikelihood;
        rows[i].kh = i == best ? 1.0 : khPValue(ll[best], ll[i]);
        rows[i].sh = sh[i];
        rows[i].bp = bpUnit[i];
        std::vector<double> bp;
        bp.reserve(bpByScale.size());
        for (const std::vector<double>& atScale : bpByScale)
            bp.push_back(atScale[i]);
        rows[i].au = auPValue(settings.scales, bp, settings.replicates);
    }
    return rows;
}

} // namespace gpurec
