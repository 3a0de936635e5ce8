#include "families_panel.hpp"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

namespace gpurec::ui {

FamiliesPanel::FamiliesPanel(QWidget* parent) : QWidget(parent) {
    model_ = new FamiliesModel(this);
    proxy_ = new QSortFilterProxyModel(this);
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
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(filter_);
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
    model_->setDataset(std::move(data));
    updateCount();
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
    count_->setText(tr("%1 of %2 families shown").arg(proxy_->rowCount()).arg(model_->rowCount()));
}

} // namespace gpurec::ui
