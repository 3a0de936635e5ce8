#pragma once
// The transfer rates of a TransferPairsModel as a heat map: donors as rows, recipients as columns
// (the species nodes that are one, in the tree's postorder, so a clade's nodes are adjacent), each
// pair's cell coloured by its rate on a logarithmic scale. Zoomed by cell size (Ctrl+wheel or the
// panel's buttons); the names are drawn beside the rows and above the columns when the cells are
// tall enough to read them. A hover's tooltip names the pair and its rate in full precision.
#include "colours/colour_scale.hpp"

#include <QImage>
#include <QWidget>
#include <vector>

namespace gpurec::ui {

class TransferPairsModel;

class TransferHeatMap : public QWidget {
    Q_OBJECT
  public:
    static constexpr double kMinCell = 1.0, kMaxCell = 48.0;
    explicit TransferHeatMap(QWidget* parent = nullptr);
    void setModel(const TransferPairsModel* model);
    // Pixels per cell, within [kMinCell, kMaxCell]; resizes the widget to the whole matrix.
    void setCellSize(double pixels);
    double cellSize() const { return cell_; }
    // The cell size at which the matrix fits `size` (names left out when they would not be readable).
    double fittingCellSize(const QSize& size) const;
    bool namesShown() const;
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
    QSize nameRoom() const;      // the names' widths: left of the rows, above the columns
    QSize margins() const;       // nameRoom() when the names are drawn, else none
    QString nodeName(int node) const;

    const TransferPairsModel* model_ = nullptr;
    std::vector<int> donors_, recipients_; // species nodes, in postorder
    std::vector<int> rowOf_, columnOf_;    // species node → row / column (−1: none)
    std::vector<int> pairAtCell_;          // row-major, −1: no pair
    QImage cells_;                         // one pixel per cell
    ColourScale scale_;
    double cell_ = 8.0;
    int highlighted_ = -1;
};

} // namespace gpurec::ui
