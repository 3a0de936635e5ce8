#include "panels/families_panel.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

namespace gpurec::ui {

// The name filter of QSortFilterProxyModel, and the branch filter.
class FamiliesPanel::Filter : public QSortFilterProxyModel {
  public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setBranch(int node, FamiliesModel::BranchEvent kind) {
        node_ = node;
        kind_ = kind;
        invalidateFilter();
    }
    int node() const { return node_; }
    FamiliesModel::BranchEvent kind() const { return kind_; }

  protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
        if (!QSortFilterProxyModel::filterAcceptsRow(row, parent)) return false;
        return node_ < 0 || static_cast<const FamiliesModel*>(sourceModel())->hasEvents(row, node_, kind_);
    }

  private:
    int node_ = -1;
    FamiliesModel::BranchEvent kind_ = FamiliesModel::BranchEvent::Any;
};

namespace {
constexpr int kNameChars = 14; // longer family names are elided in the middle (full in the tooltip)
// Visual order: what one compares first, so it fits the panel without scrolling sideways.
const FamiliesModel::Column kVisualOrder[] = {
    FamiliesModel::Name,     FamiliesModel::LogLikelihood, FamiliesModel::RateD,
    FamiliesModel::RateL,    FamiliesModel::RateT,         FamiliesModel::SampledD,
    FamiliesModel::SampledT, FamiliesModel::SampledL,      FamiliesModel::Genes,
    FamiliesModel::Clades,   FamiliesModel::Splits,        FamiliesModel::CoveredSpecies};
} // namespace

FamiliesPanel::FamiliesPanel(QWidget* parent) : QWidget(parent) {
    model_ = new FamiliesModel(this);
    proxy_ = new Filter(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(Qt::UserRole); // numbers sort as numbers
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy_->setFilterKeyColumn(FamiliesModel::Name);
    filter_ = new QLineEdit;
    filter_->setObjectName("familyFilter");
    filter_->setAccessibleName(tr("Filter families"));
    filter_->setPlaceholderText(tr("Filter families by name…"));
    filter_->setClearButtonEnabled(true);
    count_ = new QLabel;
    auto* exportButton = new QPushButton(tr("Export…"));
    exportButton->setObjectName("exportResults");
    exportButton->setAccessibleName(tr("Export families"));
    exportButton->setToolTip(tr("Save every family's results as CSV, TSV or JSON"));
    table_ = new QTableView;
    table_->setObjectName("familiesTable");
    table_->setAccessibleName(tr("Families"));
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(-1, Qt::AscendingOrder); // dataset order until a header is clicked
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection); // several families: Reconciliations
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->setTextElideMode(Qt::ElideMiddle);
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(FamiliesModel::Name, QHeaderView::Interactive);
    header->setStretchLastSection(true);
    header->setMinimumSectionSize(24);
    for (int visual = 0; visual < static_cast<int>(std::size(kVisualOrder)); ++visual)
        header->moveSection(header->visualIndex(kVisualOrder[visual]), visual);

    branchEvent_ = new QComboBox;
    branchEvent_->setObjectName("branchEvent");
    branchEvent_->setAccessibleName(tr("Events on the clicked branch"));
    branchEvent_->setToolTip(
        tr("Click a species branch to keep the sampled families with these events on it"));
    branchEvent_->addItem(tr("any event"), int(FamiliesModel::BranchEvent::Any));
    branchEvent_->addItem(tr("duplications"), int(FamiliesModel::BranchEvent::Duplications));
    branchEvent_->addItem(tr("transfers"), int(FamiliesModel::BranchEvent::Transfers));
    branchEvent_->addItem(tr("losses"), int(FamiliesModel::BranchEvent::Losses));
    branchEvent_->addItem(tr("speciations"), int(FamiliesModel::BranchEvent::Speciations));
    chip_ = new QToolButton;
    chip_->setObjectName("branchFilterChip");
    chip_->setAccessibleName(tr("Clear the branch filter"));
    chip_->setToolTip(
        tr("The table shows only the sampled families with these events on this branch; click to "
           "show all families again"));
    chip_->setToolButtonStyle(Qt::ToolButtonTextOnly);
    chip_->setStyleSheet("QToolButton { background: #dbe8f6; border: 1px solid #7a9cc6; border-radius: 9px; "
                         "padding: 1px 8px; }");
    chip_->hide();
    auto* branchRow = new QHBoxLayout;
    branchRow->addWidget(new QLabel(tr("Branch click shows")));
    branchRow->addWidget(branchEvent_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(filter_);
    layout->addLayout(branchRow);
    layout->addWidget(chip_);
    layout->addWidget(table_, 1);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(count_, 1);
    bottom->addWidget(exportButton);
    layout->addLayout(bottom);
    connect(exportButton, &QPushButton::clicked, this, [this] {
        QString path = QFileDialog::getSaveFileName(this, tr("Export family results"), "families.csv",
                                                    tr("CSV (*.csv);;TSV (*.tsv);;JSON (*.json)"));
        if (!path.isEmpty() && !exportFamilyResults(*model_, path))
            QMessageBox::warning(this, tr("Export failed"), tr("Could not write %1").arg(path));
    });

    connect(chip_, &QToolButton::clicked, this, [this] { setBranchFilter(-1); });
    connect(branchEvent_, &QComboBox::currentIndexChanged, this, [this] {
        setBranchEvent(static_cast<FamiliesModel::BranchEvent>(branchEvent_->currentData().toInt()));
    });
    // New columns of numbers (a first evaluation, a sampling) get their width; a new sampling
    // changes what the branch filter keeps.
    connect(model_, &QAbstractItemModel::dataChanged, this, [this] {
        fitColumns();
        updateCount();
    });
    connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
        proxy_->setFilterFixedString(text);
        updateCount();
    });
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        emit familySelected(selectedFamily());
        emit familiesSelected(selectedFamilies());
    });
    updateCount();
}

void FamiliesPanel::setDataset(std::shared_ptr<const Dataset> data) {
    data_ = data;
    proxy_->setBranch(-1, proxy_->kind());
    model_->setDataset(std::move(data));
    updateChip();
    updateCount();
    fitColumns();
}

void FamiliesPanel::fitColumns() {
    // The name column: its contents up to kNameChars characters (it stays user-resizable).
    table_->resizeColumnToContents(FamiliesModel::Name);
    const int widest = table_->fontMetrics().averageCharWidth() * kNameChars + 12;
    if (table_->columnWidth(FamiliesModel::Name) > widest)
        table_->setColumnWidth(FamiliesModel::Name, widest);
}

int FamiliesPanel::widthForMainColumns() const {
    // Characters of the widest values: "-146.8875" (log L), "0.09776" (a rate); 12 px padding each.
    const int chars = kNameChars + 10 + 3 * 8;
    return table_->fontMetrics().averageCharWidth() * chars + 5 * 12 +
           style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 2 * table_->frameWidth() + 8;
}

void FamiliesPanel::setBranchFilter(int node) {
    // Before any sampling there are no events to filter by: a branch click then keeps every family.
    if (!data_ || node >= data_->species.size() || model_->sampledCount() == 0) node = -1;
    proxy_->setBranch(node, proxy_->kind());
    updateChip();
    updateCount();
}

int FamiliesPanel::branchFilter() const {
    return proxy_->node();
}

void FamiliesPanel::setBranchEvent(FamiliesModel::BranchEvent kind) {
    const int index = branchEvent_->findData(int(kind));
    if (index != branchEvent_->currentIndex()) {
        branchEvent_->setCurrentIndex(index); // comes back here through the signal
        return;
    }
    proxy_->setBranch(proxy_->node(), kind);
    updateChip();
    updateCount();
}

void FamiliesPanel::updateChip() {
    const int node = proxy_->node();
    chip_->setVisible(node >= 0);
    if (node < 0) return;
    chip_->setText(tr("filtered by branch %1: %2  ✕")
                       .arg(QString::fromStdString(data_->species.name(node)), branchEvent_->currentText()));
}

void FamiliesPanel::selectFamily(int family) {
    if (family < 0 || family >= model_->rowCount()) {
        table_->clearSelection();
        return;
    }
    QModelIndex index = proxy_->mapFromSource(model_->index(family, 0));
    if (!index.isValid()) return; // filtered out
    table_->selectRow(index.row());
    table_->scrollTo(index);
}

int FamiliesPanel::selectedFamily() const {
    std::vector<int> families = selectedFamilies();
    return families.empty() ? -1 : families.front();
}

std::vector<int> FamiliesPanel::selectedFamilies() const {
    QModelIndexList rows = table_->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    std::vector<int> out;
    for (const QModelIndex& row : rows)
        out.push_back(proxy_->mapToSource(row).row());
    return out;
}

int FamiliesPanel::visibleRows() const {
    return proxy_->rowCount();
}

void FamiliesPanel::updateCount() {
    QString text = tr("%1 of %2 families shown").arg(proxy_->rowCount()).arg(model_->rowCount());
    if (proxy_->node() >= 0) text += tr(" (branch filter: among %1 sampled)").arg(model_->sampledCount());
    count_->setText(text);
}

} // namespace gpurec::ui
