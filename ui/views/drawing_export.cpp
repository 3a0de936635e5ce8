#include "views/drawing_export.hpp"

#include "session/save_file.hpp"

#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <algorithm>

namespace gpurec::ui {

namespace {
// Paints the legend, then the scene region below it, in drawing units scaled by `scale`.
void render(QPainter& painter, QGraphicsScene& scene, const QRectF& source, const DrawingLegend& legend,
            double scale) {
    const QSizeF size(std::max(source.width(), legend.size.width()), source.height() + legend.size.height());
    painter.fillRect(QRectF(QPointF(0, 0), size * scale), Qt::white);
    if (legend.paint && !legend.size.isEmpty()) {
        painter.save();
        painter.scale(scale, scale);
        legend.paint(&painter);
        painter.restore();
    }
    scene.render(&painter,
                 QRectF(0, legend.size.height() * scale, source.width() * scale, source.height() * scale),
                 source);
}
} // namespace

bool exportDrawing(const QString& path, QGraphicsScene& scene, const QRectF& source,
                   const DrawingLegend& legend, const QString& title, double pixelsPerUnit) {
    const QSizeF size(std::max(source.width(), legend.size.width()), source.height() + legend.size.height());
    const QString suffix = QFileInfo(path).suffix().toLower();
    return saveFile(path, [&](QSaveFile& file) {
        QPainter painter;
        if (suffix == "png") {
            QImage image((size * pixelsPerUnit).toSize(), QImage::Format_ARGB32);
            image.fill(Qt::white);
            if (!painter.begin(&image)) return false;
            painter.setRenderHint(QPainter::Antialiasing);
            painter.setRenderHint(QPainter::TextAntialiasing);
            render(painter, scene, source, legend, pixelsPerUnit);
            painter.end();
            return image.save(&file, "PNG");
        }
        if (suffix == "pdf") {
            QPdfWriter pdf(&file);
            pdf.setTitle(title);
            pdf.setResolution(72); // one drawing unit per point
            pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
            pdf.setPageSize(QPageSize(size, QPageSize::Point));
            if (!painter.begin(&pdf)) return false;
            render(painter, scene, source, legend, 1.0);
            return painter.end();
        }
        QSvgGenerator svg;
        svg.setOutputDevice(&file);
        svg.setSize(size.toSize());
        svg.setViewBox(QRectF(QPointF(0, 0), size));
        svg.setTitle(title);
        if (!painter.begin(&svg)) return false;
        render(painter, scene, source, legend, 1.0);
        return painter.end();
    });
}

} // namespace gpurec::ui
