#pragma once
// Saves a region of a graphics scene, with a legend above it, as SVG, PDF or PNG (by the file's
// extension), on a white background.
#include <QGraphicsScene>
#include <QSizeF>
#include <QString>
#include <functional>

namespace gpurec::ui {

struct DrawingLegend {
    QSizeF size;                          // empty: no legend
    std::function<void(QPainter*)> paint; // paints at (0, 0)
};

// `png`: `pixelsPerUnit` pixels per scene unit. Returns false when the file cannot be written.
bool exportDrawing(const QString& path, QGraphicsScene& scene, const QRectF& source,
                   const DrawingLegend& legend, const QString& title, double pixelsPerUnit = 2.0);

} // namespace gpurec::ui
