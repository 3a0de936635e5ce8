#pragma once
// Table model of the loaded families and their results: name, genes, clades, splits, covered
// species, log-likelihood of the last evaluation (natural log, like AleRax), the family's rates
// (global or per-family mode) and the mean events per sampled reconciliation; it also keeps each
// sampled family's mean events per species, for filtering by branch.
#include "data/dataset.hpp"
#include "model/rate_parameters.hpp"
#include "recon/recon_summary.hpp"

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
    // The sampled families' summaries (means over their samples), by dataset index: the
    // dup./transf./loss. columns and the events per branch.
    void setSampledEvents(const std::map<int, ReconciliationSummary>& summaries);
    // Events a branch filter can ask for.
    enum class BranchEvent { Any, Duplications, Transfers, Losses, Speciations };
    // Whether the family's samples hold such events on species node `species` (transfers: leaving
    // or arriving; false for families not sampled).
    bool hasEvents(int family, int species, BranchEvent kind) const;
    int sampledCount() const { return static_cast<int>(sampled_.size()); }

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
    std::map<int, ReconciliationSummary> sampled_;
};

// Writes every family (not only the filtered ones) with every column: CSV, TSV (by extension
// .tsv) or JSON (.json). False when the file cannot be written.
bool exportFamilyResults(const FamiliesModel& model, const QString& path);

} // namespace gpurec::ui
