#include "views/readable_fit.hpp"

#include <QScrollBar>
#include <algorithm>

namespace gpurec::ui {

void fitReadable(QGraphicsView& view, const QRectF& content, double rowUnits, double minRowPixels,
                 FitReserve reserve, double maxRowPixels) {
    if (content.isEmpty()) return;
    const double margin = 8.0;
    const double width = std::max(40.0, view.viewport()->width() - reserve.left - reserve.right - margin);
    const double height = std::max(40.0, view.viewport()->height() - reserve.top - margin);
    const double uniform = std::min(width / content.width(), height / content.height());
    double sx = uniform, sy = uniform;
    if (uniform * rowUnits < minRowPixels) {
        sx = width / content.width();
        sy = std::max(height / content.height(), minRowPixels / rowUnits);
    } else if (maxRowPixels > 0) {
        sx = width / content.width();
        sy = std::clamp(height / content.height(), minRowPixels / rowUnits, maxRowPixels / rowUnits);
    }
    // A drawing taller than the view brings the vertical scroll bar, whose width the viewport then
    // loses: fit the width that will be left (the names ran under the bar until the next resize).
    const QScrollBar* bar = view.verticalScrollBar();
    if (sy * content.height() + reserve.top + margin > view.viewport()->height() &&
        !bar->isVisibleTo(&view) && view.verticalScrollBarPolicy() != Qt::ScrollBarAlwaysOff)
        sx = std::max(40.0, width - bar->sizeHint().width()) / content.width();
    view.setTransform(QTransform::fromScale(sx, sy));
    const QRectF target = content.adjusted(-reserve.left / sx, -reserve.top / sy, reserve.right / sx, 0);
    view.scene()->setSceneRect(target);
    // A drawing shorter than the view sits under its legend, not in the middle.
    view.setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    view.centerOn(target.center().x(), target.top() + view.viewport()->height() / (2 * sy));
}

void fitRect(QGraphicsView& view, const QRectF& content, const QRectF& all, bool uniform,
             FitReserve reserve) {
    if (content.isEmpty()) return;
    const double margin = 8.0;
    const double width = std::max(40.0, view.viewport()->width() - reserve.left - reserve.right - margin);
    const double height = std::max(40.0, view.viewport()->height() - reserve.top - reserve.bottom - margin);
    double sx = width / content.width(), sy = height / content.height();
    if (uniform) sx = sy = std::min(sx, sy);
    view.setTransform(QTransform::fromScale(sx, sy));
    // The viewport's whole area around the content, so that centring on it is never clamped.
    const double padX = (view.viewport()->width() / sx - content.width()) / 2;
    const double padY = (view.viewport()->height() / sy - content.height()) / 2;
    const QRectF shown = content.adjusted(
        -padX - (reserve.left - reserve.right) / (2 * sx), -padY - (reserve.top - reserve.bottom) / (2 * sy),
        padX - (reserve.left - reserve.right) / (2 * sx), padY - (reserve.top - reserve.bottom) / (2 * sy));
    view.scene()->setSceneRect(shown | all);
    view.centerOn(shown.center());
}

} // namespace gpurec::ui
