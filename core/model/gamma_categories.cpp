#include "model/gamma_categories.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gpurec {

double logGamma(double x) {
    // Stirling's series after shifting the argument up to 7 with Γ(x + 1) = x Γ(x).
    double shift = 0.0;
    if (x < 7.0) {
        double product = 1.0;
        double z = x - 1.0;
        while (++z < 7.0)
            product *= z;
        x = z;
        shift = -std::log(product);
    }
    const double z = 1.0 / (x * x);
    const double series =
        (((-0.000595238095238 * z + 0.000793650793651) * z - 0.002777777777778) * z + 0.083333333333333) / x;
    return shift + (x - 0.5) * std::log(x) - x + 0.918938533204673 + series;
}

double incompleteGammaRatio(double x, double p, double logGammaP) {
    constexpr double accurate = 1e-8, overflow = 1e30;
    if (x == 0.0) return 0.0;
    if (x < 0.0 || p <= 0.0) return -1.0;
    const double factor = std::exp(p * std::log(x) - x - logGammaP);
    if (x <= 1.0 || x < p) { // the series
        double sum = 1.0, term = 1.0, rn = p;
        do {
            rn += 1.0;
            term *= x / rn;
            sum += term;
        } while (term > accurate);
        return sum * factor / p;
    }
    // The continued fraction for the upper tail, with its convergents rescaled against overflow.
    double a = 1.0 - p, b = a + x + 1.0, term = 0.0;
    double pn[6] = {1.0, x, x + 1.0, x * b, 0.0, 0.0};
    double fraction = pn[2] / pn[3];
    for (;;) {
        a += 1.0;
        b += 2.0;
        term += 1.0;
        const double an = a * term;
        for (int i = 0; i < 2; ++i)
            pn[i + 4] = b * pn[i + 2] - an * pn[i];
        if (pn[5] != 0.0) {
            const double rn = pn[4] / pn[5];
            const double change = std::abs(fraction - rn);
            if (change <= accurate && change <= accurate * rn) return 1.0 - factor * fraction;
            fraction = rn;
        }
        for (int i = 0; i < 4; ++i)
            pn[i] = pn[i + 2];
        if (std::abs(pn[4]) >= overflow)
            for (int i = 0; i < 4; ++i)
                pn[i] /= overflow;
    }
}

double approximateNormalQuantile(double probability) {
    // Odeh & Evans: a rational function of y = sqrt(−2 ln p) for the smaller tail.
    constexpr double a0 = -0.322232431088, a1 = -1.0, a2 = -0.342242088547, a3 = -0.0204231210245,
                     a4 = -0.453642210148e-4;
    constexpr double b0 = 0.0993484626060, b1 = 0.588581570495, b2 = 0.531103462366, b3 = 0.103537752850,
                     b4 = 0.0038560700634;
    const double tail = probability < 0.5 ? probability : 1.0 - probability;
    if (tail < 1e-20) return probability < 0.5 ? -999.0 : 999.0;
    const double y = std::sqrt(std::log(1.0 / (tail * tail)));
    const double z =
        y + ((((y * a4 + a3) * y + a2) * y + a1) * y + a0) / ((((y * b4 + b3) * y + b2) * y + b1) * y + b0);
    return probability < 0.5 ? -z : z;
}

double chiSquareQuantile(double probability, double v) {
    constexpr double e = 0.5e-6, ln2 = 0.6931471805;
    if (probability < 0.000002 || probability > 0.999998 || v <= 0.0) return -1.0;
    const double g = logGamma(v / 2.0);
    const double xx = v / 2.0, c = xx - 1.0;
    double ch = 0.0;
    // A starting approximation for small, moderate or large v, then Newton-like steps on the
    // incomplete gamma ratio (the Taylor series of AS 91).
    if (v < -1.24 * std::log(probability)) {
        ch = std::pow(probability * xx * std::exp(g + xx * ln2), 1.0 / xx);
        if (ch - e < 0.0) return ch;
    } else if (v > 0.32) {
        const double x = approximateNormalQuantile(probability);
        const double p1 = 0.222222 / v;
        ch = v * std::pow(x * std::sqrt(p1) + 1.0 - p1, 3.0);
        if (ch > 2.2 * v + 6.0) ch = -2.0 * (std::log(1.0 - probability) - c * std::log(0.5 * ch) + g);
    } else {
        ch = 0.4;
        const double a = std::log(1.0 - probability);
        double q = 0.0;
        do {
            q = ch;
            const double p1 = 1.0 + ch * (4.67 + ch);
            const double p2 = ch * (6.73 + ch * (6.66 + ch));
            const double t = -0.5 + (4.67 + 2.0 * ch) / p1 - (6.73 + ch * (13.32 + 3.0 * ch)) / p2;
            ch -= (1.0 - std::exp(a + g + 0.5 * ch + c * ln2) * p2 / p1) / t;
        } while (std::abs(q / ch - 1.0) - 0.01 > 0.0);
    }
    double q = 0.0;
    do {
        q = ch;
        const double p1 = 0.5 * ch;
        const double ratio = incompleteGammaRatio(p1, xx, g);
        if (ratio < 0.0) return -1.0;
        const double t = (probability - ratio) * std::exp(xx * ln2 + g + p1 - c * std::log(ch));
        const double b = t / ch;
        const double a = 0.5 * t - b * c;
        const double s1 = (210.0 + a * (140.0 + a * (105.0 + a * (84.0 + a * (70.0 + 60.0 * a))))) / 420.0;
        const double s2 = (420.0 + a * (735.0 + a * (966.0 + a * (1141.0 + 1278.0 * a)))) / 2520.0;
        const double s3 = (210.0 + a * (462.0 + a * (707.0 + 932.0 * a))) / 2520.0;
        const double s4 =
            (252.0 + a * (672.0 + 1182.0 * a) + c * (294.0 + a * (889.0 + 1740.0 * a))) / 5040.0;
        const double s5 = (84.0 + 264.0 * a + c * (175.0 + 606.0 * a)) / 2520.0;
        const double s6 = (120.0 + c * (346.0 + 127.0 * c)) / 5040.0;
        ch += t * (1.0 + 0.5 * t * s1 - b * c * (s1 - b * (s2 - b * (s3 - b * (s4 - b * (s5 - b * s6))))));
    } while (std::abs(q / ch - 1.0) > e);
    return ch;
}

std::vector<double> gammaCategoryRates(double alpha, int k) {
    if (k < 1)
        throw std::invalid_argument("speciation gamma categories must be at least 1, got " +
                                    std::to_string(k));
    if (!(alpha >= kMinGammaAlpha && alpha <= kMaxGammaAlpha))
        throw std::invalid_argument("the speciation gamma shape must be in [0.0201, 100], got " +
                                    std::to_string(alpha));
    if (k == 1) return {1.0};
    // Bin edges q_i (the i/k quantiles of Gamma(α, α)); the mean over a bin is k times the
    // difference of P(α + 1, α q) at its edges, since x f_α,α(x) = f_α+1,α(x).
    std::vector<double> below(k - 1);
    const double logGammaNext = logGamma(alpha + 1.0);
    for (int i = 0; i < k - 1; ++i) {
        const double edge = chiSquareQuantile((i + 1.0) / k, 2.0 * alpha) / (2.0 * alpha);
        below[i] = incompleteGammaRatio(edge * alpha, alpha + 1.0, logGammaNext);
    }
    std::vector<double> rates(k);
    rates[0] = below[0] * k;
    for (int i = 1; i < k - 1; ++i)
        rates[i] = (below[i] - below[i - 1]) * k;
    rates[k - 1] = (1.0 - below[k - 2]) * k;
    return rates;
}

std::vector<double> gammaCategoryRateSlopes(double alpha, int k) {
    // In log2 α, with a step that keeps both points inside AleRax's bounds.
    const double x = std::log2(alpha), h = 1e-3; // wide enough to average AS 91's stopping steps
    const double lo = std::max(std::log2(kMinGammaAlpha), x - h),
                 hi = std::min(std::log2(kMaxGammaAlpha), x + h);
    const std::vector<double> down = gammaCategoryRates(std::exp2(lo), k),
                              up = gammaCategoryRates(std::exp2(hi), k);
    std::vector<double> slopes(k);
    for (int c = 0; c < k; ++c)
        slopes[c] = (std::log2(up[c]) - std::log2(down[c])) / (hi - lo);
    return slopes;
}

} // namespace gpurec
