#pragma once
// The transfer rates of a TransferPairsModel as a heat map: donors as rows, recipients as columns
// (the species nodes that are one, in the tree's postorder, so a clade's nodes are adjacent), each
// pair's cell coloured by its rate on a logarithmic scale. Zoomed by cell size (Ctrl+wheel or the
// panel's buttons); the names are drawn beside the rows and above the columns when the cells are
// tall enough to read them (a fit to the view shrinks their font a little rather than drop them),
// and where they are not, those of every second to fourth row and column, ticked, so that a matrix
// fitted to a small or scaled view can still be read by its clades. Names longer than
// kMaxNameCharacters lose their start (AleRax's internal names all start "Node_"). The names stay at the
// view's edges when it scrolls (the view repaints the whole map on a scroll). A hover's tooltip names the
// pair and its rate in full precision.
#include "colours/colour_scale.hpp"

#include <QImage>
#include <QWidget>
#include <vector>

namespace gpurec::ui {

class TransferPairsModel;

class TransferHeatMap : public QWidget {
    Q_OBJECT
  public:
    static constexpr double kMaxCell = 48.0;
    explicit TransferHeatMap(QWidget* parent = nullptr);
    void setModel(const TransferPairsModel* model);
    // One device pixel (a fraction of a pixel on a scaled screen): smaller cells would drop pairs
    // from the drawing.
    double minCellSize() const { return 1.0 / devicePixelRatioF(); }
    // Pixels per cell, within [minCellSize(), kMaxCell]; resizes the widget to the whole matrix.
    void setCellSize(double pixels);
    double cellSize() const { return cell_; }
    // The largest cells at which the matrix fits `size`: with every name beside and above, in the
    // largest font down to kSmallestNames of the widget's that leaves the cells tall enough to read
    // them, else with the names of every nameStride()-th row and column, else without names.
    void fitTo(const QSize& size);
    static constexpr double kSmallestNames = 0.8;
    static constexpr int kMaxNameStride = 4;
    // Wider names lose their start: the names' bands would leave a zoomed view few cells.
    static constexpr int kMaxNameCharacters = 22;
    // 1: every row and column is named; k > 1: every k-th (k cells hold a line of text); 0: none.
    int nameStride() const;
    bool namesShown() const { return nameStride() == 1; } // every name
    QFont nameFont() const;                               // the widget's font at the scale the last fit chose
    const ColourScale& scale() const { return scale_; }
    static QColor noPairColour() { return {238, 238, 238}; }
    int rowCount() const { return static_cast<int>(donors_.size()); }
    int columnCount() const { return static_cast<int>(recipients_.size()); }
    // The pair under a point of the widget, -1 when none; the cell of pair `pair`.
    int pairAt(const QPoint& pos) const;
    QRect cellRect(int pair) const;
    // What the tooltip at `pos` says ("" off the pairs).
    QString toolTipAt(const QPoint& pos) const;
    void setHighlighted(int pair); // outlined; -1: none
    // The room the names take left of the rows and above the columns when any are drawn, else none.
    QSize margins() const;
    QSize sizeHint() const override;

  signals:
    void pairClicked(int pair);
    void zoomRequested(double factor); // Ctrl+wheel

  protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;

  private:
    void rebuildAxes();          // rows, columns and the pairs' cells after a model reset
    void repaintCells();         // colours after new rates
    double readableCell() const; // the smallest cell beside which a name is drawn
    QSize
    nameRoom() const; // the names' widths (at most kMaxNameCharacters) left of the rows, above the columns
    QString nodeName(int node) const;
    QPoint namesAt() const;                // where the names' columns start: the shown part's top left
    bool onNames(const QPoint& pos) const; // under the names drawn over the cells

    const TransferPairsModel* model_ = nullptr;
    std::vector<int> donors_, recipients_; // species nodes, in postorder
    std::vector<int> rowOf_, columnOf_;    // species node → row / column (−1: none)
    std::vector<int> pairAtCell_;          // row-major, −1: no pair
    QImage cells_;                         // one pixel per cell
    ColourScale scale_;
    double cell_ = 8.0;
    double nameScale_ = 1.0; // of the names' font (fitTo)
    int highlighted_ = -1;
};

} // namespace gpurec::ui
