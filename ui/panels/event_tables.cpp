#include "panels/event_tables.hpp"

#include "colours/colour_scale.hpp"

#include <QHeaderView>
#include <set>

namespace gpurec::ui {

namespace {
QTableWidgetItem* numberItem(double value) {
    auto* item = new QTableWidgetItem;
    item->setData(Qt::DisplayRole, QString::number(value, 'g', 4).toDouble()); // numbers sort as numbers
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QTableWidgetItem* nameItem(const SpeciesTree& species, int node) {
    return new QTableWidgetItem(QString::fromStdString(species.name(node)));
}

void prepare(QTableWidget* table) {
    table->setSortingEnabled(false);
    table->clear();
    table->setRowCount(0);
}

// Rows as tall as the families table's: the style's default would show two thirds as many.
void compactRows(QTableWidget* table) {
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
}

void finish(QTableWidget* table) {
    table->setSortingEnabled(true);
    table->resizeColumnsToContents();
}
} // namespace

SpeciesEventTable::SpeciesEventTable(QWidget* parent) : QTableWidget(parent) {
    setObjectName("speciesEventTable");
    setEditTriggers(NoEditTriggers);
    setAlternatingRowColors(true);
    verticalHeader()->hide();
    compactRows(this);
}

void SpeciesEventTable::showSummary(const ReconciliationSummary& summary, const SpeciesTree& species) {
    prepare(this);
    QStringList headers{tr("species")};
    for (const char* name : speciesColumnNames())
        headers << QString(name).replace('_', ' ');
    setColumnCount(headers.size());
    setHorizontalHeaderLabels(headers);
    for (std::size_t e = 0; e < summary.species.size(); ++e) {
        const SpeciesCounts& row = summary.species[e];
        bool any = false;
        for (double v : row)
            any = any || v != 0;
        if (!any) continue;
        const int r = rowCount();
        insertRow(r);
        setItem(r, 0, nameItem(species, static_cast<int>(e)));
        for (int c = 0; c < kSpeciesColumnCount; ++c)
            setItem(r, c + 1, numberItem(row[c]));
    }
    finish(this);
}

TransferMatrix::TransferMatrix(QWidget* parent) : QTableWidget(parent) {
    setObjectName("transferMatrix");
    setAccessibleName(tr("Transfer matrix"));
    setToolTip(
        tr("Mean transfers per sample from each donor (row) to each recipient (column); click a cell to "
           "highlight those transfers and list the families carrying them"));
    setEditTriggers(NoEditTriggers);
    verticalHeader()->hide();
    compactRows(this);
    connect(this, &QTableWidget::cellClicked, this, [this](int row, int column) {
        if (column < 2 || !item(row, 0) || !horizontalHeaderItem(column)) return;
        emit transferSelected(item(row, 0)->data(kSpeciesRole).toInt(),
                              horizontalHeaderItem(column)->data(kSpeciesRole).toInt());
    });
}

void TransferMatrix::showSummary(const ReconciliationSummary& summary, const SpeciesTree& species) {
    prepare(this);
    std::set<int> donors, recipients;
    double largest = 0;
    for (const auto& [pair, count] : summary.transfers) {
        donors.insert(pair.first);
        recipients.insert(pair.second);
        largest = std::max(largest, count);
    }
    const std::vector<int> columns(recipients.begin(), recipients.end());
    QStringList headers{tr("donor ↓ / recipient →"), tr("total")};
    for (int r : columns)
        headers << QString::fromStdString(species.name(r));
    setColumnCount(headers.size());
    setHorizontalHeaderLabels(headers);
    for (std::size_t c = 0; c < columns.size(); ++c)
        horizontalHeaderItem(static_cast<int>(c) + 2)->setData(kSpeciesRole, columns[c]);
    const ColourScale scale(0, largest > 0 ? largest : 1, false);
    for (int donor : donors) {
        const int r = rowCount();
        insertRow(r);
        setItem(r, 0, nameItem(species, donor));
        item(r, 0)->setData(kSpeciesRole, donor);
        double total = 0;
        for (std::size_t c = 0; c < columns.size(); ++c) {
            auto it = summary.transfers.find({donor, columns[c]});
            const double count = it == summary.transfers.end() ? 0.0 : it->second;
            total += count;
            QTableWidgetItem* cell = numberItem(count);
            if (count > 0) {
                QColor shade = scale.colour(count);
                cell->setBackground(shade);
                cell->setForeground(shade.lightness() < 128 ? Qt::white : Qt::black);
            } else {
                cell->setText({});
                cell->setData(Qt::DisplayRole, 0.0);
                cell->setForeground(Qt::transparent);
            }
            cell->setToolTip(tr("%1 → %2: %3 transfers per sample")
                                 .arg(QString::fromStdString(species.name(donor)),
                                      QString::fromStdString(species.name(columns[c])))
                                 .arg(count, 0, 'g', 4));
            setItem(r, static_cast<int>(c) + 2, cell);
        }
        setItem(r, 1, numberItem(total));
    }
    finish(this);
    sortItems(1, Qt::DescendingOrder);
}

QModelIndex TransferMatrix::cellOf(int donor, int recipient) const {
    for (int c = 2; c < columnCount(); ++c)
        if (horizontalHeaderItem(c)->data(kSpeciesRole).toInt() == recipient)
            for (int r = 0; r < rowCount(); ++r)
                if (item(r, 0)->data(kSpeciesRole).toInt() == donor) return model()->index(r, c);
    return {};
}

double TransferMatrix::count(const QString& donor, const QString& recipient) const {
    int column = -1;
    for (int c = 2; c < columnCount(); ++c)
        if (horizontalHeaderItem(c)->text() == recipient) column = c;
    for (int r = 0; r < rowCount(); ++r)
        if (item(r, 0)->text() == donor && column >= 0)
            return item(r, column)->data(Qt::DisplayRole).toDouble();
    return 0.0;
}

} // namespace gpurec::ui
