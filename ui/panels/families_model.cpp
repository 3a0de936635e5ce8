#include "panels/families_model.hpp"

#include "session/save_file.hpp"

#include <QFileInfo>
#include <cmath>
#include <nlohmann/json.hpp>

namespace gpurec::ui {

namespace {
struct ColumnInfo {
    const char* title;
    const char* key;
    const char* tip;
};
const ColumnInfo kColumns[FamiliesModel::ColumnCount] = {
    {"Family", "family", "Family name (hover for the gene-tree file)"},
    {"Genes", "genes", "Genes (leaves of the gene trees)"},
    {"Clades", "clades", "Clades of the conditional clade probabilities"},
    {"Splits", "splits", "Splits (clade → two child clades) over all sampled gene trees"},
    {"Species", "covered_species", "Species covered by the family's genes"},
    {"log L", "log_likelihood",
     "Log-likelihood (natural log) at the current rates, after the last evaluation"},
    {"D", "rate_d", "Duplication rate of the family (global or per-family mode)"},
    {"L", "rate_l", "Loss rate of the family (global or per-family mode)"},
    {"T", "rate_t", "Transfer rate of the family (global or per-family mode)"},
    {"dup.", "sampled_duplications", "Mean duplications per sampled reconciliation"},
    {"transf.", "sampled_transfers", "Mean transfers (with or without loss) per sampled reconciliation"},
    {"loss.", "sampled_losses", "Mean losses per sampled reconciliation"},
};
} // namespace

void FamiliesModel::setDataset(std::shared_ptr<const Dataset> data) {
    beginResetModel();
    data_ = std::move(data);
    logLikelihood_.clear();
    theta_ = {};
    sampled_.clear();
    endResetModel();
}

void FamiliesModel::setLogLikelihoods(const std::vector<double>& values) {
    logLikelihood_ = values;
    if (rowCount() > 0) emit dataChanged(index(0, LogLikelihood), index(rowCount() - 1, LogLikelihood));
}

void FamiliesModel::setRates(const RateParameters& theta) {
    theta_ = theta;
    if (rowCount() > 0) emit dataChanged(index(0, RateD), index(rowCount() - 1, RateT));
}

void FamiliesModel::setSampledEvents(const std::map<int, ReconciliationSummary>& summaries) {
    sampled_ = summaries;
    if (rowCount() > 0) emit dataChanged(index(0, SampledD), index(rowCount() - 1, SampledL));
}

bool FamiliesModel::hasEvents(int family, int species, BranchEvent kind) const {
    auto it = sampled_.find(family);
    if (it == sampled_.end() || species < 0 || species >= static_cast<int>(it->second.species.size()))
        return false;
    const SpeciesCounts& c = it->second.species[species];
    switch (kind) {
    case BranchEvent::Duplications:
        return c[kDuplications] > 0;
    case BranchEvent::Transfers:
        return c[kTransfers] > 0 || c[kTransfersTo] > 0;
    case BranchEvent::Losses:
        return c[kLosses] > 0;
    case BranchEvent::Speciations:
        return c[kSpeciations] > 0;
    case BranchEvent::Any:
        break;
    }
    return c[kDuplications] > 0 || c[kTransfers] > 0 || c[kTransfersTo] > 0 || c[kLosses] > 0 ||
           c[kSpeciations] > 0;
}

QString FamiliesModel::key(int column) {
    return kColumns[column].key;
}

int FamiliesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !data_ ? 0 : static_cast<int>(data_->families.size());
}

int FamiliesModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FamiliesModel::value(int row, int column) const {
    const GeneFamily& f = data_->families[row];
    switch (column) {
    case Name:
        return QString::fromStdString(f.name);
    case Genes:
        return f.clades.geneCount();
    case Clades:
        return f.clades.cladeCount();
    case Splits:
        return f.clades.splitCount();
    case CoveredSpecies:
        return f.coveredSpecies;
    case LogLikelihood:
        return static_cast<std::size_t>(row) < logLikelihood_.size() ? QVariant(logLikelihood_[row])
                                                                     : QVariant();
    case RateD:
    case RateL:
    case RateT: {
        const bool known = !theta_.theta().empty() && theta_.mode() != RateMode::Specieswise &&
                           (theta_.mode() == RateMode::Global || row < theta_.familyCount());
        if (!known) return {};
        const PresentRates present = data_->events.presentRates();
        if ((column == RateD && !present.duplication) || (column == RateT && !present.transfer))
            return {}; // not in the model (UndatedDL, --no-dup): blank rather than a frozen value
        Rates r = theta_.rates(theta_.row(row, 0));
        return column == RateD ? r.d : column == RateL ? r.l : r.t;
    }
    case SampledD:
    case SampledT:
    case SampledL: {
        auto it = sampled_.find(row);
        if (it == sampled_.end()) return {};
        const std::array<double, 7>& e = it->second.events; // S, SL, D, T, TL, L, Leaf
        return column == SampledD ? e[2] : column == SampledT ? e[3] + e[4] : e[5];
    }
    }
    return {};
}

QVariant FamiliesModel::data(const QModelIndex& index, int role) const {
    if (!data_ || !index.isValid()) return {};
    if (role == Qt::TextAlignmentRole)
        return index.column() == Name ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                      : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Name) // the full name: the column elides long ones
        return QString::fromStdString(data_->families[index.row()].name + "\n" +
                                      data_->families[index.row()].geneTreePath);
    if (role == Qt::UserRole) return value(index.row(), index.column()); // sorting and tests
    if (role != Qt::DisplayRole) return {};
    QVariant v = value(index.row(), index.column());
    if (index.column() == LogLikelihood && v.isValid()) return QString::number(v.toDouble(), 'f', 4);
    if (index.column() >= RateD && v.isValid()) return QString::number(v.toDouble(), 'g', 4);
    return v;
}

QVariant FamiliesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) return tr(kColumns[section].title);
    if (role == Qt::ToolTipRole) return tr(kColumns[section].tip);
    return {};
}

bool exportFamilyResults(const FamiliesModel& model, const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    std::string text;
    if (suffix == "json") {
        nlohmann::json rows = nlohmann::json::array();
        for (int r = 0; r < model.rowCount(); ++r) {
            nlohmann::json row = nlohmann::json::object();
            for (int c = 0; c < FamiliesModel::ColumnCount; ++c) {
                QVariant v = model.index(r, c).data(Qt::UserRole);
                const std::string key = FamiliesModel::key(c).toStdString();
                if (!v.isValid())
                    row[key] = nullptr;
                else if (c == FamiliesModel::Name)
                    row[key] = v.toString().toStdString();
                else if (v.typeId() == QMetaType::Int)
                    row[key] = v.toInt();
                else
                    row[key] = v.toDouble();
            }
            rows.push_back(row);
        }
        text = nlohmann::json{{"families", rows}}.dump(2) + "\n";
    } else {
        const char separator = suffix == "tsv" ? '\t' : ',';
        for (int c = 0; c < FamiliesModel::ColumnCount; ++c)
            text += (c ? std::string(1, separator) : std::string()) + FamiliesModel::key(c).toStdString();
        text += "\n";
        for (int r = 0; r < model.rowCount(); ++r) {
            for (int c = 0; c < FamiliesModel::ColumnCount; ++c) {
                QVariant v = model.index(r, c).data(Qt::UserRole);
                if (c) text += separator;
                if (!v.isValid()) continue;
                text += c == FamiliesModel::Name || v.typeId() == QMetaType::Int
                            ? v.toString().toStdString()
                            : QString::number(v.toDouble(), 'g', 17).toStdString();
            }
            text += "\n";
        }
    }
    return saveTextFile(path, text);
}

} // namespace gpurec::ui
