#pragma once
// Tables of sampled reconciliations: mean events per species (AleRax's columns) and the transfer
// matrix (donor × recipient, cells shaded by the mean number of transfers per sample). Both sortable.
// A click on a cell of the matrix names its donor and recipient (transferSelected).
#include "recon/recon_summary.hpp"

#include <QTableWidget>

namespace gpurec::ui {

class SpeciesEventTable : public QTableWidget {
    Q_OBJECT
  public:
    explicit SpeciesEventTable(QWidget* parent = nullptr);
    // Species with at least one event; empty summary clears.
    void showSummary(const ReconciliationSummary& summary, const SpeciesTree& species);
};

class TransferMatrix : public QTableWidget {
    Q_OBJECT
  public:
    explicit TransferMatrix(QWidget* parent = nullptr);
    // Rows: donors, columns: recipients (species taking part in some transfer), plus row totals.
    void showSummary(const ReconciliationSummary& summary, const SpeciesTree& species);
    double count(const QString& donor, const QString& recipient) const; // 0 when absent
    // Where the cell of donor → recipient (species nodes) is now; invalid when absent.
    QModelIndex cellOf(int donor, int recipient) const;
    static constexpr int kSpeciesRole =
        Qt::UserRole + 1; // species node of a row's donor or a column's recipient

  signals:
    void transferSelected(int donor, int recipient);
};

} // namespace gpurec::ui
