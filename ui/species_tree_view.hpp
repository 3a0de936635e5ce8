#pragma once
// The species tree drawn as a rectangular cladogram: zoom (wheel), pan (drag), fit, search by
// name, selection, branches coloured by per-node values with a legend, tooltips, SVG/PNG export.
#include "colour_scale.hpp"
#include "tree/species_tree.hpp"

#include <QGraphicsView>
#include <QString>
#include <QStringList>
#include <vector>

class QGraphicsSimpleTextItem;

namespace gpurec::ui {

class BranchItem;

class SpeciesTreeView : public QGraphicsView {
    Q_OBJECT
  public:
    explicit SpeciesTreeView(QWidget* parent = nullptr);
    ~SpeciesTreeView() override;
    // Modest: the default grows with the scene and would squeeze the neighbouring views.
    QSize sizeHint() const override { return {360, 300}; }

    void setTree(const SpeciesTree* tree); // nullptr clears; the tree must outlive the view's use of it
    // Colours branch e by values[e] on `scale` (values empty: all black) and titles the legend.
    void setValues(const std::vector<double>& values, const ColourScale& scale, const QString& title);
    void setToolTips(const QStringList& perNode);
    void setInternalNamesVisible(bool visible);

    // Nodes whose name contains `text` (case-insensitive), highlighted; the first is selected and centred.
    std::vector<int> search(const QString& text);
    void selectSpecies(int node); // -1 clears
    int selectedSpecies() const;
    QColor branchColour(int node) const;
    QString toolTipOf(int node) const;

    void zoomBy(double factor);
    // The whole tree, or its full width with rows kMinimumRowPixels apart (vertical scrolling);
    // it then follows the view's size until the user zooms.
    void fitAll();
    static constexpr double kMinimumRowPixels = 14.0;
    double rowPixels() const;
    bool userZoomed() const { return userZoomed_; }
    // Leaf names are shown when rows are far enough apart for them, else only on hover.
    bool leafNamesShown() const;
    // SVG, PDF or PNG by the file's extension, with the colour legend above the tree.
    bool exportDrawing(const QString& path);

  signals:
    void speciesSelected(int node); // -1 when the selection is cleared

  protected:
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;

  private:
    // The colour legend, drawn at a fixed size over the view and above the tree in exports.
    QSizeF legendSize() const;
    QFont legendFont() const;
    double legendBarWidth() const;
    void paintLegend(QPainter* painter, const QPointF& topLeft) const;
    QRectF contentRect() const; // everything, labels at one scene unit per pixel (exports)
    QRectF branchesRect() const; // the branches only (fitting: labels keep their screen size)
    double leafLabelWidth() const;

    const SpeciesTree* tree_ = nullptr;
    std::vector<BranchItem*> branches_;
    std::vector<QGraphicsSimpleTextItem*> labels_;
    ColourScale scale_;
    QString legendTitle_;
    bool coloured_ = false;
    bool userZoomed_ = false;
    void updateLabelVisibility();
};

} // namespace gpurec::ui
