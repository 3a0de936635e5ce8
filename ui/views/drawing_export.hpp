#pragma once
// Saves a region of a graphics scene, with a legend above it, as SVG, PDF or PNG (by the file's
// extension), on a white background.
#include <QGraphicsScene>
#include <QSizeF>
#include <QString>
#include <functional>

class QWidget;

namespace gpurec::ui {

// Writes what `paint` draws in [0, size] as SVG, PDF (size in points) or PNG (size × pngScale
// pixels), by the file's extension, on a white background; the file is replaced only when complete.
bool savePainting(const QString& path, const QSizeF& size, const QString& title, double pngScale,
                  const std::function<void(QPainter&)>& paint);

// A figure of a widget as it is on screen (a panel, the window's central area) at `size`: scaled
// to fit, centred, vector shapes in SVG and PDF. For slides and papers.
bool exportWidgetFigure(const QString& path, QWidget& widget, const QSize& size, const QString& title);

struct DrawingLegend {
    QSizeF size;                          // empty: no legend
    std::function<void(QPainter*)> paint; // paints at (0, 0)
};

// `png`: `pixelsPerUnit` pixels per scene unit. Returns false when the file cannot be written.
bool exportDrawing(const QString& path, QGraphicsScene& scene, const QRectF& source,
                   const DrawingLegend& legend, const QString& title, double pixelsPerUnit = 2.0);

} // namespace gpurec::ui
