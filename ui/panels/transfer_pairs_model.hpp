#pragma once
// Table model of the dataset's transfer highways (every allowed donor → recipient pair under
// --pairwise-transfers) and their current rates ρ: one row per pair, the rate sortable as a number
// (Qt::UserRole) and shown in full precision in its tooltip.
#include "data/dataset.hpp"

#include <QAbstractTableModel>
#include <memory>
#include <vector>

namespace gpurec::ui {

class TransferPairsModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Donor, Recipient, Rate, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;

    // The dataset's pairs (none: an empty table); their rates start unknown (NaN).
    void setDataset(std::shared_ptr<const Dataset> data);
    // ρ of every pair, in the dataset's highway order (highwayRates); a size mismatch clears them.
    void setRates(const std::vector<double>& rates);
    const std::vector<double>& rates() const { return rates_; }
    const std::vector<Highway>& pairs() const;
    const Dataset* dataset() const { return data_.get(); }
    // "donor → recipient: ρ = …" with the rate's 17 significant digits.
    QString describe(int pair) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    QString name(int node) const;

    std::shared_ptr<const Dataset> data_;
    std::vector<double> rates_;
};

} // namespace gpurec::ui
