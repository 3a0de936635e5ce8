#pragma once
// A colour scale's legend as a widget of its own (the tree and DAG views paint theirs over the
// drawing): a title, the gradient bar with its low and high ends, and beside them a column of
// swatches for the colours that are not on the scale. Its accessible description says the same in
// words.
#include "colours/colour_scale.hpp"

#include <QString>
#include <QWidget>
#include <utility>
#include <vector>

namespace gpurec::ui {

class ColourLegend : public QWidget {
    Q_OBJECT
  public:
    using Swatch = std::pair<QColor, QString>;
    explicit ColourLegend(QWidget* parent = nullptr);
    void setScale(const ColourScale& scale, const QString& title, const std::vector<Swatch>& swatches);
    const ColourScale& scale() const { return scale_; }
    // The ends as written under the bar (4 significant digits).
    static QString endText(double value);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    QString titleText() const; // the title, and whether the scale is logarithmic
    double barWidth() const;
    int swatchLine() const; // the height of one swatch's line

    ColourScale scale_;
    QString title_;
    std::vector<Swatch> swatches_;
};

} // namespace gpurec::ui
