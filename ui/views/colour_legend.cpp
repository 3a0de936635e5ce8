#include "views/colour_legend.hpp"

#include <QPainter>
#include <algorithm>

namespace gpurec::ui {

namespace {
constexpr int kBarHeight = 12;
constexpr int kGap = 6;
} // namespace

ColourLegend::ColourLegend(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
}

QString ColourLegend::endText(double value) {
    return QString::number(value, 'g', 4);
}

void ColourLegend::setScale(const ColourScale& scale, const QString& title,
                            const std::vector<Swatch>& swatches) {
    scale_ = scale;
    title_ = title;
    swatches_ = swatches;
    QStringList words{tr("%1 from %2 (dark blue) to %3 (yellow)%4")
                          .arg(title, endText(scale.low()), endText(scale.high()),
                               scale.logarithmic() ? tr(", logarithmic") : QString())};
    for (const auto& [colour, text] : swatches)
        words << tr("%1: %2").arg(colour.name(), text);
    setAccessibleDescription(words.join("; "));
    updateGeometry();
    update();
}

QString ColourLegend::titleText() const {
    return title_ + (scale_.logarithmic() ? tr(" (logarithmic)") : QString());
}

double ColourLegend::barWidth() const {
    const QFontMetrics fm(font());
    return std::max(120, fm.horizontalAdvance(endText(scale_.low()) + endText(scale_.high())) + 24);
}

// The swatches stand in a column right of the bar, one a line, so that the legend stays narrow
// enough to share a row with the zoom buttons in a narrow view.
int ColourLegend::swatchLine() const {
    return std::max(kBarHeight, QFontMetrics(font()).height()) + 2;
}

QSize ColourLegend::sizeHint() const {
    const QFontMetrics fm(font());
    int swatchesWidth = 0;
    for (const Swatch& s : swatches_)
        swatchesWidth =
            std::max(swatchesWidth, 2 * kGap + kBarHeight + 4 + fm.horizontalAdvance(s.second) + 2);
    const int width =
        std::max(static_cast<int>(barWidth()) + swatchesWidth, fm.horizontalAdvance(titleText()));
    const int below =
        std::max(kBarHeight + 2 + fm.height(), static_cast<int>(swatches_.size()) * swatchLine());
    return {width + 2 * kGap, fm.height() + 2 + below + kGap};
}

void ColourLegend::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    const QFontMetrics fm(font());
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(kGap, 0, width() - 2 * kGap, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                     titleText());
    const QRectF bar(kGap, fm.height() + 2, barWidth(), kBarHeight);
    painter.setPen(Qt::NoPen);
    painter.setBrush(scale_.gradient(bar.topLeft(), bar.topRight()));
    painter.drawRect(bar);
    painter.setPen(palette().color(QPalette::WindowText));
    const QRectF ends(bar.left(), bar.bottom() + 2, bar.width(), fm.height());
    painter.drawText(ends, Qt::AlignLeft | Qt::AlignVCenter, endText(scale_.low()));
    painter.drawText(ends, Qt::AlignRight | Qt::AlignVCenter, endText(scale_.high()));
    const double x = bar.right() + 2 * kGap;
    double y = bar.top();
    for (const auto& [colour, text] : swatches_) {
        const QRectF swatch(x, y + (swatchLine() - 2 - kBarHeight) / 2.0, kBarHeight, kBarHeight);
        painter.setPen(QColor(150, 150, 150));
        painter.setBrush(colour);
        painter.drawRect(swatch);
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QRectF(swatch.right() + 4, y, fm.horizontalAdvance(text) + 2, swatchLine() - 2),
                         Qt::AlignLeft | Qt::AlignVCenter, text);
        y += swatchLine();
    }
}

} // namespace gpurec::ui
