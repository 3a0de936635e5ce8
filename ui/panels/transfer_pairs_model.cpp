#include "panels/transfer_pairs_model.hpp"

#include <cmath>
#include <limits>

namespace gpurec::ui {

namespace {
const std::vector<Highway> kNoPairs;

QString fullPrecision(double rate) {
    return std::isnan(rate) ? QObject::tr("not computed yet") : QString::number(rate, 'g', 17);
}
} // namespace

void TransferPairsModel::setDataset(std::shared_ptr<const Dataset> data) {
    beginResetModel();
    data_ = std::move(data);
    rates_.assign(pairs().size(), std::numeric_limits<double>::quiet_NaN());
    endResetModel();
}

void TransferPairsModel::setRates(const std::vector<double>& rates) {
    if (rates.size() != rates_.size()) {
        rates_.assign(rates_.size(), std::numeric_limits<double>::quiet_NaN());
    } else {
        rates_ = rates;
    }
    if (!rates_.empty()) emit dataChanged(index(0, Rate), index(rowCount() - 1, Rate));
}

const std::vector<Highway>& TransferPairsModel::pairs() const {
    return data_ ? data_->highways : kNoPairs;
}

QString TransferPairsModel::name(int node) const {
    return QString::fromStdString(data_->species.name(node));
}

QString TransferPairsModel::describe(int pair) const {
    const Highway& h = pairs()[pair];
    return tr("%1 → %2: ρ = %3").arg(name(h.source), name(h.destination), fullPrecision(rates_[pair]));
}

int TransferPairsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(pairs().size());
}

int TransferPairsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TransferPairsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const Highway& h = pairs()[index.row()];
    const double rate = rates_[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == Donor) return name(h.source);
        if (index.column() == Recipient) return name(h.destination);
        return std::isnan(rate) ? QString("–") : QString::number(rate, 'g', 6);
    case Qt::UserRole: // the sort key: names, or the rate as a number
        if (index.column() == Rate) return std::isnan(rate) ? -1.0 : rate;
        return data(index, Qt::DisplayRole);
    case Qt::ToolTipRole:
        return describe(index.row());
    case Qt::TextAlignmentRole:
        return index.column() == Rate ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    default:
        return {};
    }
}

QVariant TransferPairsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    // Short headers: the table shares a scaled screen's tab with the matrix; AleRax's column names
    // are in the tooltips.
    if (role == Qt::DisplayRole) {
        if (section == Donor) return tr("Donor");
        if (section == Recipient) return tr("Recipient");
        return tr("Rate ρ");
    }
    if (role == Qt::ToolTipRole) {
        if (section == Donor) return tr("The species node the transfer leaves (highways.txt's src)");
        if (section == Recipient) return tr("The species node the transfer reaches (highways.txt's dest)");
        return tr(
            "The pair's transfer rate, on the scale of D and L (model_parameters/highways.txt's proba)");
    }
    return {};
}

} // namespace gpurec::ui
