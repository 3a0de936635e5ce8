#include "panels/transfer_rates_panel.hpp"

#include "highways/highway_rates.hpp"
#include "panels/transfer_pairs_model.hpp"
#include "views/colour_legend.hpp"
#include "views/transfer_heat_map.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QScrollArea>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace gpurec::ui {

namespace {
constexpr double kZoomStep = 1.5;
} // namespace

TransferRatesPanel::TransferRatesPanel(QWidget* parent) : QWidget(parent) {
    model_ = new TransferPairsModel(this);
    summary_ = new QLabel;
    summary_->setObjectName("transferRatesSummary");
    summary_->setAccessibleName(tr("Transfer rates summary"));
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    map_ = new TransferHeatMap;
    map_->setObjectName("transferHeatMap");
    map_->setModel(model_);
    map_->setToolTip(QString()); // per cell (TransferHeatMap::event)
    scroll_ = new QScrollArea;
    scroll_->setObjectName("transferHeatMapScroll");
    scroll_->setWidget(map_);
    scroll_->setWidgetResizable(false);
    scroll_->setBackgroundRole(QPalette::Base);
    legend_ = new ColourLegend;
    legend_->setObjectName("transferRateLegend");
    legend_->setAccessibleName(tr("Transfer rate colour scale"));
    // Tool buttons, as the species tree's: push buttons' minimum widths would widen the tab, and
    // with it the central area, at the docks' cost.
    zoomOut_ = new QToolButton;
    zoomIn_ = new QToolButton;
    fit_ = new QToolButton;
    zoomOut_->setObjectName("transferZoomOut");
    zoomIn_->setObjectName("transferZoomIn");
    fit_->setObjectName("transferZoomFit");
    for (auto [button, text, name, tip] :
         {std::tuple{zoomOut_, tr("−"), tr("Zoom out of the transfer rate matrix"),
                     tr("Smaller cells (Ctrl+wheel)")},
          std::tuple{zoomIn_, tr("+"), tr("Zoom into the transfer rate matrix"),
                     tr("Larger cells (Ctrl+wheel); the species names appear once they are readable")},
          std::tuple{fit_, tr("Fit"), tr("Fit the transfer rate matrix"),
                     tr("The whole matrix in the view")}}) {
        button->setText(text);
        button->setAutoRaise(true);
        button->setAccessibleName(name);
        button->setToolTip(tip);
    }
    zoomNote_ = new QLabel;
    zoomNote_->setObjectName("transferZoomNote");
    zoomNote_->setAccessibleName(tr("Transfer rate matrix zoom"));
    zoomNote_->setWordWrap(true); // a narrow tab wraps it rather than widening
    zoomNote_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    auto* tools = new QHBoxLayout;
    tools->addWidget(legend_);
    tools->addWidget(zoomNote_, 1);
    tools->addWidget(zoomOut_);
    tools->addWidget(zoomIn_);
    tools->addWidget(fit_);

    sorted_ = new QSortFilterProxyModel(this);
    sorted_->setSourceModel(model_);
    sorted_->setSortRole(Qt::UserRole);
    sorted_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    sorted_->setFilterKeyColumn(-1); // donor or recipient
    sorted_->setDynamicSortFilter(true);
    filter_ = new QLineEdit;
    filter_->setObjectName("transferPairFilter");
    filter_->setAccessibleName(tr("Filter transfer pairs"));
    filter_->setPlaceholderText(tr("Filter by donor or recipient"));
    filter_->setClearButtonEnabled(true);
    table_ = new QTableView;
    table_->setObjectName("transferPairTable");
    table_->setAccessibleName(tr("Transfer pairs by rate"));
    table_->setModel(sorted_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(TransferPairsModel::Rate, Qt::DescendingOrder); // the strongest first
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    // The rate always in view; the names share the rest, their starts elided where the table is
    // narrow (AleRax's internal names all start "Node_"), in full in their tooltips.
    for (int column : {TransferPairsModel::Donor, TransferPairsModel::Recipient})
        table_->horizontalHeader()->setSectionResizeMode(column, QHeaderView::Stretch);
    table_->horizontalHeader()->setSectionResizeMode(TransferPairsModel::Rate, QHeaderView::ResizeToContents);
    table_->setTextElideMode(Qt::ElideLeft);
    auto* tableSide = new QWidget;
    auto* tableLayout = new QVBoxLayout(tableSide);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(filter_);
    tableLayout->addWidget(table_, 1);

    // The legend and zoom tools span the tab, above the matrix and its table: in a wide tab the
    // table stands beside the matrix (resizeEvent), and the tools would widen the matrix's side.
    split_ = new QSplitter(Qt::Vertical);
    split_->setChildrenCollapsible(false);
    split_->addWidget(scroll_);
    split_->addWidget(tableSide);
    split_->setStretchFactor(0, 3);
    split_->setStretchFactor(1, 1);
    split_->setSizes({3000, 1000}); // the matrix first: three quarters of the height
    content_ = new QWidget;
    auto* contentLayout = new QVBoxLayout(content_);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->addLayout(tools);
    contentLayout->addWidget(split_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(summary_);
    layout->addWidget(content_, 1);

    connect(zoomIn_, &QToolButton::clicked, this, [this] { zoom(kZoomStep); });
    connect(zoomOut_, &QToolButton::clicked, this, [this] { zoom(1 / kZoomStep); });
    connect(fit_, &QToolButton::clicked, this, &TransferRatesPanel::fitMatrix);
    connect(map_, &TransferHeatMap::zoomRequested, this, &TransferRatesPanel::zoom);
    for (QScrollBar* bar :
         {scroll_->horizontalScrollBar(), scroll_->verticalScrollBar()}) // names at the edges
        connect(bar, &QScrollBar::valueChanged, map_, qOverload<>(&QWidget::update));
    connect(map_, &TransferHeatMap::pairClicked, this, &TransferRatesPanel::showPair);
    connect(filter_, &QLineEdit::textChanged, sorted_, &QSortFilterProxyModel::setFilterFixedString);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid()) showPair(sorted_->mapToSource(current).row());
            });
    // After the heat map (connected first in setModel) has its new colour scale.
    connect(model_, &QAbstractItemModel::modelReset, this, &TransferRatesPanel::updateSummary);
    connect(model_, &QAbstractItemModel::dataChanged, this, &TransferRatesPanel::updateSummary);
    setDataset(nullptr);
}

void TransferRatesPanel::setDataset(std::shared_ptr<const Dataset> data) {
    model_->setDataset(std::move(data));
    content_->setVisible(model_->rowCount() > 0);
    fitted_ = false;
    if (isVisible()) QTimer::singleShot(0, this, &TransferRatesPanel::fitMatrix); // once laid out
}

void TransferRatesPanel::setParameters(const RateParameters& theta) {
    model_->setRates(highwayRates(theta));
}

void TransferRatesPanel::updateSummary() {
    legend_->setScale(map_->scale(), tr("Transfer rate ρ"),
                      {{ColourScale::missing(), tr("not computed")},
                       {TransferHeatMap::noPairColour(), tr("no such pair")}});
    const Dataset* data = model_->dataset();
    if (!data || data->highways.empty()) {
        summary_->setText(
            tr("No transfer pairs in this model. Choose one rate per donor → recipient pair, or "
               "a transfer highways file, in File ▸ Open data, then Optimise: their fitted "
               "rates show here."));
        return;
    }
    const QLocale locale;
    const QString what = data->events.pairwiseTransfers
                             ? tr("%1 donor → recipient pairs, each with its own transfer rate")
                             : tr("%1 transfer highways, each with its own rate");
    const std::vector<double>& rates = model_->rates();
    const auto strongest = std::max_element(rates.begin(), rates.end(), [](double a, double b) {
        return std::isnan(a) || (!std::isnan(b) && a < b);
    });
    QString text = what.arg(locale.toString(static_cast<int>(rates.size())));
    if (strongest != rates.end() && !std::isnan(*strongest))
        text += tr(" · strongest %1").arg(model_->describe(static_cast<int>(strongest - rates.begin())));
    summary_->setText(text + tr(" · hover a cell for its rate, click it to find it in the table"));
}

void TransferRatesPanel::fitMatrix() {
    map_->fitTo(scroll_->viewport()->size());
    fitted_ = true;
    zoom(1.0);
}

void TransferRatesPanel::zoom(double factor) {
    // The point of the matrix in the middle of the view stays there (a large matrix is read a region
    // at a time: zooming into the top-left corner would lose the region).
    QScrollBar* bars[] = {scroll_->horizontalScrollBar(), scroll_->verticalScrollBar()};
    const QSize view = scroll_->viewport()->size(), before = map_->size();
    const double middle[] = {(bars[0]->value() + view.width() / 2.0) / std::max(1, before.width()),
                             (bars[1]->value() + view.height() / 2.0) / std::max(1, before.height())};
    map_->setCellSize(map_->cellSize() * factor);
    bars[0]->setValue(static_cast<int>(std::lround(middle[0] * map_->width() - view.width() / 2.0)));
    bars[1]->setValue(static_cast<int>(std::lround(middle[1] * map_->height() - view.height() / 2.0)));
    zoomIn_->setEnabled(map_->cellSize() < TransferHeatMap::kMaxCell);
    zoomOut_->setEnabled(map_->cellSize() > map_->minCellSize());
    const QString cell = tr("cell %1 px").arg(map_->cellSize(), 0, 'g', 3);
    const int stride = map_->nameStride();
    zoomNote_->setText(stride == 1 ? cell
                       : stride == 0
                           ? tr("%1 · zoom in for the names").arg(cell)
                           : tr("%1 · one name in %2 · zoom in for the names").arg(cell).arg(stride));
}

void TransferRatesPanel::showPair(int pair) {
    map_->setHighlighted(pair);
    // Scrolled so that the cell is clear of the names drawn at the view's left and top edges.
    const QRect cell = map_->cellRect(pair);
    const QSize view = scroll_->viewport()->size(), names = map_->margins();
    auto bring = [](QScrollBar* bar, int from, int to, int shown, int covered) {
        constexpr int kRoom = 40;
        if (from - kRoom - covered < bar->value())
            bar->setValue(from - kRoom - covered);
        else if (to + kRoom > bar->value() + shown)
            bar->setValue(to + kRoom - shown);
    };
    bring(scroll_->horizontalScrollBar(), cell.left(), cell.right(), view.width(), names.width());
    bring(scroll_->verticalScrollBar(), cell.top(), cell.bottom(), view.height(), names.height());
    const QModelIndex row = sorted_->mapFromSource(model_->index(pair, 0));
    if (row.isValid() && table_->currentIndex().row() != row.row()) {
        table_->setCurrentIndex(row);
        table_->scrollTo(row);
    }
}

void TransferRatesPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // In a tall tab the table goes below the matrix; in a wide one (a wide screen, or a scaled one
    // where the tab is short) beside it, halves, so that the matrix keeps the height its square
    // needs and the table the width of its names.
    const Qt::Orientation orientation = width() > height() ? Qt::Horizontal : Qt::Vertical;
    if (split_->orientation() == orientation) return;
    split_->setOrientation(orientation);
    split_->setSizes(orientation == Qt::Horizontal ? QList<int>{1000, 1000} : QList<int>{3000, 1000});
    if (isVisible()) QTimer::singleShot(0, this, &TransferRatesPanel::fitMatrix); // once laid out
}

void TransferRatesPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!fitted_) QTimer::singleShot(0, this, &TransferRatesPanel::fitMatrix); // once laid out
}

} // namespace gpurec::ui
