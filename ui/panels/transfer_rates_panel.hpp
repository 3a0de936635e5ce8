#pragma once
// The Transfer rates tab: the fitted rate of every transfer highway (every donor → recipient pair
// under --pairwise-transfers) as a zoomable heat map with its colour legend, above a table of the
// pairs sorted by rate (strongest first, filterable by name). Follows θ as it changes, so it
// updates live while an optimisation runs and when it finishes.
#include "data/dataset.hpp"
#include "model/rate_parameters.hpp"

#include <QWidget>
#include <memory>

class QLabel;
class QLineEdit;
class QScrollArea;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;
class QToolButton;

namespace gpurec::ui {

class ColourLegend;
class TransferHeatMap;
class TransferPairsModel;

class TransferRatesPanel : public QWidget {
    Q_OBJECT
  public:
    explicit TransferRatesPanel(QWidget* parent = nullptr);
    void setDataset(std::shared_ptr<const Dataset> data);
    void setParameters(const RateParameters& theta); // θ of the loaded dataset
    // Cell size to fit the matrix into the view (names shown when they stay readable).
    void fitMatrix();
    void zoom(double factor);

    TransferPairsModel* model() const { return model_; }
    TransferHeatMap* heatMap() const { return map_; }
    QTableView* table() const { return table_; }
    QSortFilterProxyModel* sortedPairs() const { return sorted_; }
    ColourLegend* legend() const { return legend_; }
    QLabel* summary() const { return summary_; }

  protected:
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

  private:
    void showPair(int pair); // outlined in the matrix, scrolled to, and selected in the table
    void updateSummary();

    TransferPairsModel* model_;
    TransferHeatMap* map_;
    QScrollArea* scroll_;
    ColourLegend* legend_;
    QTableView* table_;
    QSortFilterProxyModel* sorted_;
    QLineEdit* filter_;
    QLabel *summary_, *zoomNote_;
    QToolButton *zoomIn_, *zoomOut_, *fit_;
    QWidget* content_; // the tools, the matrix and the table: hidden without pairs
    QSplitter* split_;
    bool fitted_ = false; // the matrix was fitted to the view since the data changed
};

} // namespace gpurec::ui
