#pragma once
// The teaching view of one table cell: Π(γ, e) of the selected clade (clade-waves view) at the
// selected species node (species tree) split into the terms of its equation, with each term's
// value and share, and E(e), Ē(e) likewise (core/engine/cell_decomposition). The family's tables
// come through the engine's backend interface on a worker thread, at the current rates.
#include "data/dataset.hpp"
#include "engine/backend.hpp"
#include "engine/cell_decomposition.hpp"
#include "model/rate_parameters.hpp"
#include "model/solver_options.hpp"

#include <QFutureWatcher>
#include <QTimer>
#include <QWidget>
#include <memory>
#include <optional>

class QLabel;
class QTableWidget;

namespace gpurec::ui {

struct CellTermsResult {
    std::shared_ptr<const Dataset> data;
    int family = -1, clade = -1, species = -1;
    int category = 0;     // the speciation category whose tables were taken apart
    QString categoryNote; // categoryNote() of that category at the rates used
    std::optional<CladeCellDecomposition> cell;
    std::optional<ExtinctionCellDecomposition> extinction;
    QString error;
};

// Safe on any thread but the engine's (`source` may wait for it). With several speciation
// categories, the tables of `category` (worker/table_requests.hpp, categoryTables).
CellTermsResult computeCellTerms(std::shared_ptr<const Dataset> data, const FamilyTablesSource& source,
                                 const RateParameters& theta, const SolverOptions& options, int family,
                                 int clade, int species, int category = 0);

class CellTermsPanel : public QWidget {
    Q_OBJECT
  public:
    explicit CellTermsPanel(QWidget* parent = nullptr);
    // `tables`: where the tables of `data`'s families come from (the session's backend).
    void setDataset(std::shared_ptr<const Dataset> data, FamilyTablesSource tables);
    void setParameters(const RateParameters& theta);
    void setSolverOptions(const SolverOptions& options);
    void setClade(int family, int clade); // from the clade-waves view; -1 clears
    void setSpecies(int node);            // from the species tree; -1 clears
    void setCategory(int category);       // the speciation category taken apart (0-based)

    QTableWidget* cladeTable() const { return cladeTable_; }
    QTableWidget* extinctionTable() const { return extinctionTable_; }
    QString caption() const;
    // The result on show (for tests and the presenter's export); empty before the first one.
    const std::optional<CellTermsResult>& shown() const { return shown_; }

  signals:
    void updated(); // a new decomposition is on show

  private:
    void request();
    void display(const CellTermsResult& result);

    std::shared_ptr<const Dataset> data_;
    FamilyTablesSource tables_;
    RateParameters theta_;
    SolverOptions options_;
    int family_ = -1, clade_ = -1, species_ = -1, category_ = 0;
    QLabel *caption_, *extinctionCaption_;
    QTableWidget *cladeTable_, *extinctionTable_;
    QFutureWatcher<CellTermsResult> watcher_;
    QTimer debounce_;    // rates change every iteration of a run: one solve per pause
    bool again_ = false; // a request came while one was running
    std::optional<CellTermsResult> shown_;
};

} // namespace gpurec::ui
