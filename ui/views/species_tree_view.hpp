#pragma once
// The species tree drawn as a rectangular cladogram or a circular tree: zoom (wheel), pan (drag),
// fit (all, or the selected clade), search by name, selection, collapsible clades (double-click),
// branches coloured by per-node values with a legend, tooltips, SVG/PNG export.
#include "colours/colour_scale.hpp"
#include "tree/species_tree.hpp"
#include "views/species_tree_layout.hpp"

#include <QGraphicsView>
#include <QString>
#include <QStringList>
#include <vector>

class QGraphicsSimpleTextItem;

namespace gpurec::ui {

class BranchItem;
class CladeTriangle;

class SpeciesTreeView : public QGraphicsView {
    Q_OBJECT
  public:
    // Scene items carry their kind and node under these data roles (the triangle of a collapsed
    // clade also its number of leaves).
    static constexpr int kKindRole = 0, kNodeRole = 1, kLeafCountRole = 2;
    enum ItemKind { Branch = 1, LeafLabel, InternalLabel, CladeLabel, Triangle };
    // Leaf names are drawn at most this many pixels high and hidden below the readable size.
    static constexpr double kMaximumLabelPixels = 12.0, kMinimumLabelPixels = 8.0;

    explicit SpeciesTreeView(QWidget* parent = nullptr);
    ~SpeciesTreeView() override;
    // Modest: the default grows with the scene and would squeeze the neighbouring views.
    QSize sizeHint() const override { return {360, 300}; }

    void setTree(const SpeciesTree* tree); // nullptr clears; the tree must outlive the view's use of it
    const SpeciesTree* tree() const { return tree_; }
    // Colours branch e by values[e] on `scale` (values empty: all black) and titles the legend.
    void setValues(const std::vector<double>& values, const ColourScale& scale, const QString& title);
    void setToolTips(const QStringList& perNode);
    void setInternalNamesVisible(bool visible);

    // Nodes whose name contains `text` (case-insensitive), highlighted; a node of exactly that
    // name comes first, then the others in postorder. The first is selected and centred.
    std::vector<int> search(const QString& text);
    // Selects and centres the next match of the last search (cycling); its index, -1 without matches.
    int selectNextMatch();
    int matchCount() const { return static_cast<int>(matches_.size()); }
    void selectSpecies(int node); // -1 clears; a node inside a collapsed clade expands it
    int selectedSpecies() const;
    QColor branchColour(int node) const;
    QString toolTipOf(int node) const;

    // A collapsed internal node is drawn as a triangle labelled with its name and leaf count.
    void setCollapsed(int node, bool collapsed);
    bool isCollapsed(int node) const;
    void expandAll();
    bool anyCollapsed() const;

    void setCircular(bool circular);
    bool circular() const { return circular_; }

    void zoomBy(double factor);
    // The whole tree, or its full width with rows kMinimumRowPixels apart (vertical scrolling);
    // it then follows the view's size until the user zooms. A circular tree is fitted whole.
    void fitAll();
    // Zooms so that the selected node's clade fills the view (nothing selected: fitAll).
    void fitToSelection();
    static constexpr double kMinimumRowPixels = 14.0;
    // A small tree fills the view's height up to this row spacing (more reads as gaps).
    static constexpr double kMaximumRowPixels = 32.0;
    double rowPixels() const;
    bool userZoomed() const { return userZoomed_; }
    // Leaf names are shown when rows are far enough apart for readable names, else only on hover.
    bool leafNamesShown() const;
    // Pixel height of the leaf names at the current zoom (whether shown or not).
    double labelPixels() const;
    // Scene position of a node (where its branch meets its children) and the scene rectangle of
    // the drawing of its clade (branches and triangles, not the labels).
    QPointF nodePosition(int node) const;
    QRectF cladeRect(int node) const;
    // SVG, PDF or PNG by the file's extension, with the colour legend above the tree.
    bool exportDrawing(const QString& path);

  signals:
    void speciesSelected(int node);  // -1 when the selection is cleared
    void collapsedChanged(int node); // a clade was collapsed or expanded (a session keeps them)

  protected:
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    // The colour legend, drawn at a fixed size over the view and above the tree in exports.
    QSizeF legendSize() const;
    QRectF legendTitleRect() const;
    QFont legendFont() const;
    double legendBarWidth() const;
    double missingSwatchWidth() const;
    bool missingSwatchBelowBar() const;
    void paintLegend(QPainter* painter, const QPointF& topLeft) const;
    QRectF contentRect() const;    // everything, labels at one scene unit per pixel (exports)
    double leafLabelWidth() const; // pixels of the widest shown leaf or clade name at full size
    // The room the top (and bottom) leaf's name takes beyond its row: half its screen-size line.
    double labelHalfHeight() const;
    int branchAt(const QPoint& viewportPos) const; // -1 when none

    // Places every item for the current layout (rectangular or circular, collapsed clades).
    void applyLayout();
    QPointF scenePoint(double column, double row) const; // layout coordinates to the scene
    QPainterPath branchPath(int node) const;
    QPainterPath trianglePath(int node) const;
    void styleLabel(int node);         // text, font and colour: leaf, internal or collapsed, search match
    double maximumLabelPixels() const; // kMaximumLabelPixels in the view's text size
    void placeLabel(int node);
    void updateLabels(); // sizes and visibility after a zoom
    bool labelWanted(int node) const;

    const SpeciesTree* tree_ = nullptr;
    std::vector<BranchItem*> branches_;
    std::vector<QGraphicsSimpleTextItem*> labels_;
    std::vector<CladeTriangle*> triangles_; // per node, null unless collapsed
    std::vector<int> leafCounts_;
    std::vector<char> collapsed_, matched_;
    std::vector<double> labelWidths_; // unscaled name widths, cached
    std::vector<int> matches_;
    int matchIndex_ = -1;
    TreeLayout layout_;
    CircularLayout polar_;
    double column_ = 1;     // scene units per column (rectangular)
    QRectF branchesRect_;   // the drawing without labels (fitting)
    double labelScale_ = 1; // leaf names' size relative to kMaximumLabelPixels
    bool circular_ = false;
    bool internalNames_ = false;
    ColourScale scale_;
    QString legendTitle_;
    bool coloured_ = false;
    bool userZoomed_ = false;
};

} // namespace gpurec::ui
