#pragma once
// Reconciliations drawn the way tube-tree viewers draw them: species branches as wide tubes, gene
// lineages as lines inside them, one glyph per event (leaf, speciation, speciation-loss,
// duplication, transfer, transfer-loss, loss), transfers as arcs from donor to recipient, one
// colour per family. Or, aggregated over samples: transfer arcs and duplication marks sized by
// their mean number per sample, hidden below a threshold. Zoom, pan, SVG/PDF/PNG export.
#include "reconciliation_layout.hpp"

#include <QGraphicsView>
#include <QStringList>

namespace gpurec::ui {

class ReconciliationView : public QGraphicsView {
    Q_OBJECT
  public:
    // Item kinds, stored in each item's data(kKindRole).
    enum ItemKind { Glyph = 1, Arc, FrequencyArcItem, FrequencyMarkItem };
    static constexpr int kKindRole = 0, kEventRole = 1, kFrequencyRole = 2;

    explicit ReconciliationView(QWidget* parent = nullptr);
    QSize sizeHint() const override { return {480, 360}; }

    // The tubes; nullptr clears everything. The tree must outlive its use here.
    void setSpecies(const SpeciesTree* species);
    // One reconciliation per family name (same order), drawn together.
    void showReconciliations(const std::vector<const Reconciliation*>& reconciliations,
                             const QStringList& names);
    // Means over each family's samples.
    void showAggregates(const std::vector<const ReconciliationSummary*>& summaries, const QStringList& names);
    // Aggregated arcs and marks below this mean number per sample are hidden.
    void setThreshold(double threshold);

    int itemCount(ItemKind kind, bool visibleOnly = false) const;
    int glyphCount(EventType type) const;
    static QColor familyColour(int drawn);

    bool exportDrawing(const QString& path);
    void fitAll();

  protected:
    void wheelEvent(QWheelEvent* event) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;

  private:
    void clearDrawing();
    QSizeF legendSize() const;
    void paintLegend(QPainter* painter, const QPointF& topLeft) const;
    QRectF contentRect() const;

    const SpeciesTree* species_ = nullptr;
    TubeLayout layout_;
    std::vector<QGraphicsItem*> drawing_; // everything but the tubes and species names
    QStringList names_;
    bool aggregate_ = false;
    double threshold_ = 0.0;
};

} // namespace gpurec::ui
