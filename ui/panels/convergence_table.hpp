#pragma once
// Per-family convergence of a genewise L-BFGS-B run: one row per family with its NLL, projected
// gradient norm, iterations and status, as the optimiser's lockstep searches report them after each
// iteration. Sortable by any column.
#include "optim/optimizer.hpp"

#include <QAbstractTableModel>
#include <QStringList>
#include <QWidget>
#include <vector>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace gpurec::ui {

class ConvergenceModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Family, Nll, GradNorm, Iterations, Status, ColumnCount };
    // Sort key of a cell (numbers as numbers).
    static constexpr int SortRole = Qt::UserRole;

    using QAbstractTableModel::QAbstractTableModel;
    void setFamilyNames(const QStringList& names); // clears the rows
    // Rows from the latest report; `runEnded` marks families still searching as stopped early.
    void setProgress(const std::vector<FamilyProgress>& progress, bool runEnded);
    void clear();
    const std::vector<FamilyProgress>& progress() const { return progress_; }
    bool runEnded() const { return runEnded_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    QString statusText(const FamilyProgress& p) const;

    QStringList names_;
    std::vector<FamilyProgress> progress_;
    bool runEnded_ = false;
};

class ConvergenceTable : public QWidget {
    Q_OBJECT
  public:
    explicit ConvergenceTable(QWidget* parent = nullptr);
    ConvergenceModel* model() const { return model_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QTableView* view() const { return view_; }
    QLabel* summary() const { return summary_; }

  private:
    void updateSummary();

    ConvergenceModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* view_;
    QLabel* summary_;
};

} // namespace gpurec::ui
