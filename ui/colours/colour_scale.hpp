#pragma once
// Maps values to colours along a perceptually ordered palette (dark blue → green → yellow),
// linearly or by logarithm, for branch colouring and heat maps.
#include <QColor>
#include <QLinearGradient>
#include <vector>

namespace gpurec::ui {

class ColourScale {
  public:
    ColourScale() = default;
    ColourScale(double low, double high, bool logarithmic);
    // Spans the finite values (positive ones when logarithmic); a flat range is widened.
    static ColourScale fit(const std::vector<double>& values, bool logarithmic);
    static QColor missing() { return QColor(170, 170, 170); }

    double low() const { return low_; }
    double high() const { return high_; }
    bool logarithmic() const { return log_; }
    // missing() for NaN, and for values ≤ 0 on a logarithmic scale.
    QColor colour(double value) const;
    QLinearGradient gradient(const QPointF& from, const QPointF& to) const;

  private:
    double low_ = 0.0, high_ = 1.0;
    bool log_ = false;
};

} // namespace gpurec::ui
