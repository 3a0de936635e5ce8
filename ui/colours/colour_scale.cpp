#include "colours/colour_scale.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace gpurec::ui {

namespace {
// Evenly spaced anchors from dark blue to yellow, lightness increasing (readable in grey print too).
constexpr std::array<std::array<int, 3>, 5> kAnchors = {
    {{45, 25, 100}, {40, 90, 160}, {30, 150, 150}, {100, 195, 90}, {245, 225, 50}}};

QColor paletteAt(double t) {
    t = std::clamp(t, 0.0, 1.0) * (kAnchors.size() - 1);
    std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(t), kAnchors.size() - 2);
    double f = t - i;
    auto mix = [&](int k) {
        return static_cast<int>(std::lround(kAnchors[i][k] * (1 - f) + kAnchors[i + 1][k] * f));
    };
    return QColor(mix(0), mix(1), mix(2));
}
} // namespace

ColourScale::ColourScale(double low, double high, bool logarithmic)
    : low_(low), high_(high), log_(logarithmic) {}

ColourScale ColourScale::fit(const std::vector<double>& values, bool logarithmic) {
    double lo = INFINITY, hi = -INFINITY;
    for (double v : values)
        if (std::isfinite(v) && (!logarithmic || v > 0)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    if (!std::isfinite(lo))
        return ColourScale(logarithmic ? 1.0 : 0.0, logarithmic ? 10.0 : 1.0, logarithmic);
    if (hi == lo) {
        if (logarithmic) {
            lo /= 2;
            hi *= 2;
        } else {
            lo -= 0.5;
            hi += 0.5;
        }
    }
    return ColourScale(lo, hi, logarithmic);
}

QColor ColourScale::colour(double value) const {
    if (std::isnan(value) || (log_ && value <= 0)) return missing();
    double t = log_ ? (std::log(value) - std::log(low_)) / (std::log(high_) - std::log(low_))
                    : (value - low_) / (high_ - low_);
    return paletteAt(t);
}

QLinearGradient ColourScale::gradient(const QPointF& from, const QPointF& to) const {
    QLinearGradient g(from, to);
    for (std::size_t i = 0; i < kAnchors.size(); ++i)
        g.setColorAt(static_cast<double>(i) / (kAnchors.size() - 1),
                     paletteAt(static_cast<double>(i) / (kAnchors.size() - 1)));
    return g;
}

} // namespace gpurec::ui
