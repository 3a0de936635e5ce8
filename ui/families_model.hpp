#pragma once
// Table model of the loaded families and their results: name, genes, clades, splits, covered
// species, log-likelihood of the last evaluation (natural log, like AleRax), the family's rates
// (global or per-family mode) and the mean events per sampled reconciliation.
#include "data/dataset.hpp"
#include "model/rate_parameters.hpp"

#include <QAbstractTableModel>
#include <array>
#include <map>
#include <memory>
#include <vector>

namespace gpurec::ui {

class FamiliesModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Name,
        Genes,
        Clades,
        Splits,
        CoveredSpecies,
        LogLikelihood,
        RateD,
        RateL,
        RateT,
        SampledD,
        SampledT,
        SampledL,
        ColumnCount
    };
    using QAbstractTableModel::QAbstractTableModel;

    void setDataset(std::shared_ptr<const Dataset> data);
    // Per family, in dataset order (empty clears the column).
    void setLogLikelihoods(const std::vector<double>& values);
    // Rates per family: shown in global and per-family modes (per-species rates are on the tree).
    void setRates(const RateParameters& theta);
    // Mean duplications, transfers (T and TL) and losses per sample, by dataset index.
    void setEventMeans(const std::map<int, std::array<double, 3>>& means);

    // Machine-readable name of a column ("log_likelihood").
    static QString key(int column);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    // The number (or text for Name) of a cell; invalid when unknown.
    QVariant value(int row, int column) const;

    std::shared_ptr<const Dataset> data_;
    std::vector<double> logLikelihood_;
    RateParameters theta_;
    std::map<int, std::array<double, 3>> eventMeans_;
};

// Writes every family (not only the filtered ones) with every column: CSV, TSV (by extension
// .tsv) or JSON (.json). False when the file cannot be written.
bool exportFamilyResults(const FamiliesModel& model, const QString& path);

} // namespace gpurec::ui
