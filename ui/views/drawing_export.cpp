#include "views/drawing_export.hpp"

#include "session/save_file.hpp"

#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QWidget>
#include <algorithm>

namespace gpurec::ui {

namespace {
// Paints the legend, then the scene region below it, in drawing units.
void render(QPainter& painter, QGraphicsScene& scene, const QRectF& source, const DrawingLegend& legend) {
    if (legend.paint && !legend.size.isEmpty()) {
        painter.save();
        legend.paint(&painter);
        painter.restore();
    }
    scene.render(&painter, QRectF(0, legend.size.height(), source.width(), source.height()), source);
}
} // namespace

bool savePainting(const QString& path, const QSizeF& size, const QString& title, double pngScale,
                  const std::function<void(QPainter&)>& paint) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    return saveFile(path, [&](QSaveFile& file) {
        QPainter painter;
        auto draw = [&] {
            painter.fillRect(QRectF(QPointF(0, 0), size), Qt::white);
            paint(painter);
            return painter.end();
        };
        if (suffix == "png") {
            QImage image((size * pngScale).toSize(), QImage::Format_ARGB32);
            image.fill(Qt::white);
            if (!painter.begin(&image)) return false;
            painter.setRenderHint(QPainter::Antialiasing);
            painter.setRenderHint(QPainter::TextAntialiasing);
            painter.scale(pngScale, pngScale);
            return draw() && image.save(&file, "PNG");
        }
        if (suffix == "pdf") {
            QPdfWriter pdf(&file);
            pdf.setTitle(title);
            pdf.setResolution(72); // one drawing unit per point
            pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
            pdf.setPageSize(QPageSize(size, QPageSize::Point));
            return painter.begin(&pdf) && draw();
        }
        QSvgGenerator svg;
        svg.setOutputDevice(&file);
        svg.setSize(size.toSize());
        svg.setViewBox(QRectF(QPointF(0, 0), size));
        svg.setTitle(title);
        return painter.begin(&svg) && draw();
    });
}

bool exportDrawing(const QString& path, QGraphicsScene& scene, const QRectF& source,
                   const DrawingLegend& legend, const QString& title, double pixelsPerUnit) {
    const QSizeF size(std::max(source.width(), legend.size.width()), source.height() + legend.size.height());
    return savePainting(path, size, title, pixelsPerUnit,
                        [&](QPainter& painter) { render(painter, scene, source, legend); });
}

bool exportWidgetFigure(const QString& path, QWidget& widget, const QSize& size, const QString& title) {
    if (size.isEmpty() || widget.size().isEmpty()) return false;
    return savePainting(path, QSizeF(size), title, 1.0, [&](QPainter& painter) {
        const double scale =
            std::min(double(size.width()) / widget.width(), double(size.height()) / widget.height());
        painter.translate((size.width() - scale * widget.width()) / 2,
                          (size.height() - scale * widget.height()) / 2);
        painter.scale(scale, scale);
        widget.render(&painter, QPoint(), QRegion(), QWidget::DrawChildren | QWidget::DrawWindowBackground);
    });
}

} // namespace gpurec::ui
