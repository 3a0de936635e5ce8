#pragma once
// Reconciliations drawn the way tube-tree viewers draw them: species branches as wide tubes, gene
// lineages as lines inside them, one glyph per event (leaf, speciation, speciation-loss,
// duplication, transfer, transfer-loss, loss), transfers as arcs from donor to recipient. Several
// families: one colour each; one family: one colour per gene lineage (a copy made by a duplication
// or a transfer gets the next colour), from the colour-blind-safe palette of colour_vision.hpp.
// A consensus carries the support of each event (fraction of samples), written beside its mark.
// The arcs of one donor → recipient pair can be highlighted (the others fade). Or, aggregated over samples:
// transfer arcs and duplication marks sized by their mean number per sample, hidden below a threshold. Zoom,
// pan, SVG/PDF/PNG export. Glyphs, labels, arrowheads and frequencies keep their screen size at any zoom; Fit
// stretches the drawing to the view's width with rows at least kMinimumRowPixels apart (scrolling vertically
// when the species tree is tall) and follows the view's size until the user zooms.
#include "views/reconciliation_layout.hpp"

#include <QGraphicsView>
#include <QPen>
#include <QStringList>
#include <map>
#include <optional>

class QGraphicsSimpleTextItem;

namespace gpurec::ui {

class ReconciliationView : public QGraphicsView {
    Q_OBJECT
  public:
    // Item kinds, stored in each item's data(kKindRole).
    enum ItemKind { Glyph = 1, Arc, FrequencyArcItem, FrequencyMarkItem };
    static constexpr int kKindRole = 0, kEventRole = 1, kFrequencyRole = 2, kLabelRole = 3, kDonorRole = 4,
                         kRecipientRole = 5, kHighlightRole = 6, kSupportRole = 7, kLineageRole = 8,
                         kDrawnRole = 9, kNodeRole = 10, kEventIndexRole = 11;
    static constexpr double kMinimumRowPixels = 22.0;

    explicit ReconciliationView(QWidget* parent = nullptr);
    QSize sizeHint() const override { return {480, 360}; }

    // The tubes; nullptr clears everything. The tree must outlive its use here.
    void setSpecies(const SpeciesTree* species);
    // One reconciliation per family name (same order), drawn together. `supports`, when given,
    // holds per reconciliation the support of each event (per gene node, per event).
    using EventSupports = std::vector<std::vector<double>>;
    void showReconciliations(const std::vector<const Reconciliation*>& reconciliations,
                             const QStringList& names,
                             const std::vector<const EventSupports*>& supports = {});
    // Means over each family's samples.
    void showAggregates(const std::vector<const ReconciliationSummary*>& summaries, const QStringList& names);
    // Aggregated arcs and marks below this mean number per sample are hidden.
    void setThreshold(double threshold);

    // Highlights the transfer arcs from `donor` to `recipient` (species nodes) and fades the other
    // arcs; kept across redraws. −1, −1 clears.
    void highlightTransfer(int donor, int recipient);
    int highlightedDonor() const { return highlightDonor_; }

    // Teaching: how far the story of the one reconciliation drawn has been told. Events not told
    // yet fade, with the lineages they start and the arcs they draw; the current one is ringed.
    struct StoryProgress {
        std::vector<std::vector<char>> told; // per gene node, per event
        int node = -1, event = -1;           // the event of the current step; -1: none
        bool isTold(int n, int i) const {
            return n >= 0 && n < static_cast<int>(told.size()) && i >= 0 &&
                   i < static_cast<int>(told[n].size()) && told[n][i];
        }
    };
    // Kept until cleared (nullopt) or a drawing of aggregates replaces it.
    void setStoryProgress(std::optional<StoryProgress> progress);
    const std::optional<StoryProgress>& storyProgress() const { return story_; }
    // Position of the ring around the current event, when one is drawn.
    std::optional<QPointF> storyRingAt() const;
    int highlightedRecipient() const { return highlightRecipient_; }

    int itemCount(ItemKind kind, bool visibleOnly = false) const;
    int glyphCount(EventType type) const;
    // Arcs (of either kind) with data(kHighlightRole) set.
    std::vector<const QGraphicsItem*> highlightedArcs() const;
    // The drawn items of a kind (glyphs, arcs, …), for tests and tooltips.
    std::vector<const QGraphicsItem*> items(ItemKind kind) const;
    // Pen of the gene lineage drawn for gene node `node` of reconciliation `drawn`, if any.
    std::optional<QPen> lineagePen(int drawn, int node) const;
    // True when the lineages are coloured per gene lineage (one family drawn).
    bool colouredByLineage() const { return byLineage_; }
    static QColor familyColour(int drawn);
    // Colour and dash of categorical index k (families, lineages).
    static QPen categoricalPen(int k, double width);

    bool exportDrawing(const QString& path);
    void fitAll();
    // True once the user zoomed: resizing no longer refits until fitAll().
    bool userZoomed() const { return userZoomed_; }
    // Species names are shown while rows are far enough apart for them, else only as tooltips.
    bool leafNamesShown() const;
    // The legend shrinks to a "Legend" tab when it would cover much of a small view; a click on it
    // opens or closes it.
    bool legendCollapsed() const;
    void setLegendOpen(bool open);
    // Pixels between the rows of two species leaves on screen.
    double rowPixels() const;

  protected:
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void changeEvent(QEvent* event) override;

  private:
    void clearDrawing();
    QFont speciesFont() const;     // of the species names
    QSizeF legendSize() const;     // as shown (collapsed or open)
    QSizeF fullLegendSize() const; // open, as exports draw it
    int legendRows() const;
    int legendRowsPerColumn() const;
    double legendColumnWidth() const;
    void paintLegend(QPainter* painter, const QPointF& topLeft, bool full) const;
    QRectF contentRect() const; // everything, labels at one scene unit per pixel (exports)
    QRectF drawingRect() const; // tubes, lineages and arcs (fitting: marks keep their screen size)
    double leafLabelWidth() const;

    const SpeciesTree* species_ = nullptr;
    TubeLayout layout_;
    std::vector<QGraphicsItem*> drawing_;          // everything but the tubes and species names
    std::vector<QGraphicsSimpleTextItem*> labels_; // species leaf names
    void updateLabelVisibility();
    void applyHighlight();
    void applyOpacity(); // transfer highlight and story progress together
    struct LegendEntry {
        QPen pen;
        QString text;
    };
    std::vector<LegendEntry> entries_; // families, or the lineages of one family
    std::map<std::pair<int, int>, QGraphicsPathItem*> lineageItems_; // (drawn, node) -> path
    int highlightDonor_ = -1, highlightRecipient_ = -1;
    bool byLineage_ = false;
    bool aggregate_ = false;
    bool userZoomed_ = false;
    std::optional<bool> legendOpenByUser_; // unset: open when it fits
    double threshold_ = 0.0;
    std::optional<StoryProgress> story_;
    QGraphicsItem* storyRing_ = nullptr; // owned by the scene
};

} // namespace gpurec::ui
