#include "panels/convergence_table.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace gpurec::ui {

void ConvergenceModel::setFamilyNames(const QStringList& names) {
    beginResetModel();
    names_ = names;
    progress_.clear();
    runEnded_ = false;
    endResetModel();
}

void ConvergenceModel::setProgress(const std::vector<FamilyProgress>& progress, bool runEnded) {
    if (progress.size() == progress_.size() && !progress.empty()) {
        progress_ = progress;
        runEnded_ = runEnded;
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    progress_ = progress;
    runEnded_ = runEnded;
    endResetModel();
}

void ConvergenceModel::clear() {
    setProgress({}, false);
}

int ConvergenceModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(progress_.size());
}

int ConvergenceModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString ConvergenceModel::statusText(const FamilyProgress& p) const {
    if (p.status == FamilyStatus::Searching && runEnded_) return tr("stopped early (the run ended)");
    return QString::fromStdString(toString(p.status));
}

QVariant ConvergenceModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const FamilyProgress& p = progress_[index.row()];
    const QString name = index.row() < names_.size() ? names_[index.row()] : QString::number(index.row());
    if (role == SortRole) {
        switch (index.column()) {
        case Family:
            return name;
        case Nll:
            return p.nllBits;
        case GradNorm:
            return p.gradNorm;
        case Iterations:
            return p.iterations;
        case Status:
            return statusText(p);
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Family:
            return name;
        case Nll:
            return QString::number(p.nllBits, 'f', 6);
        case GradNorm:
            return QString::number(p.gradNorm, 'g', 4);
        case Iterations:
            return p.iterations;
        case Status:
            return statusText(p);
        }
    }
    if (role == Qt::ToolTipRole && (index.column() == Nll || index.column() == GradNorm))
        return QString::number(index.column() == Nll ? p.nllBits : p.gradNorm, 'g', 17);
    if (role == Qt::TextAlignmentRole && index.column() != Family && index.column() != Status)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant ConvergenceModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Family:
            return tr("Family");
        case Nll:
            return tr("NLL (bits)");
        case GradNorm:
            return tr("Gradient");
        case Iterations:
            return tr("Iterations");
        case Status:
            return tr("Status");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Family:
            return tr("Gene family");
        case Nll:
            return tr("The family's negative log-likelihood (bits) at its accepted rates");
        case GradNorm:
            return tr("Largest component of the family's projected gradient (bits per doubling of a rate)");
        case Iterations:
            return tr("Iterations in which the family's own search was still going");
        case Status:
            return tr("Why the family's search ended, or that it is still searching");
        }
    }
    return {};
}

ConvergenceTable::ConvergenceTable(QWidget* parent) : QWidget(parent) {
    model_ = new ConvergenceModel(this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(ConvergenceModel::SortRole);
    view_ = new QTableView;
    view_->setObjectName("convergenceTable");
    view_->setAccessibleName(tr("Per-family convergence"));
    view_->setToolTip(tr("Each family's own search in a per-family L-BFGS-B fit; click a header to sort"));
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(ConvergenceModel::Family, Qt::AscendingOrder);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->verticalHeader()->hide();
    view_->horizontalHeader()->setStretchLastSection(true);
    summary_ = new QLabel(tr("Per-family convergence (per-family mode with L-BFGS-B)"));
    summary_->setObjectName("convergenceSummary");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(summary_);
    layout->addWidget(view_, 1);
    connect(model_, &QAbstractItemModel::modelReset, this, &ConvergenceTable::updateSummary);
    connect(model_, &QAbstractItemModel::dataChanged, this, &ConvergenceTable::updateSummary);
}

void ConvergenceTable::updateSummary() {
    int searching = 0;
    for (const FamilyProgress& p : model_->progress())
        searching += p.status == FamilyStatus::Searching;
    const int families = model_->rowCount();
    summary_->setText(tr("Per-family convergence: %1 of %2 families ended their search, %3 %4")
                          .arg(families - searching)
                          .arg(families)
                          .arg(searching)
                          .arg(model_->runEnded() ? tr("stopped early") : tr("still searching")));
}

} // namespace gpurec::ui
