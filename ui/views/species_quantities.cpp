#include "views/species_quantities.hpp"

#include "engine/backend.hpp"
#include "engine/evaluation_shape.hpp"
#include "worker/table_requests.hpp"

#include <cmath>
#include <numeric>

namespace gpurec::ui {

QString quantityName(SpeciesQuantity quantity) {
    switch (quantity) {
    case SpeciesQuantity::None:
        return "Nothing (black)";
    case SpeciesQuantity::GeneCount:
        return "Genes per species";
    case SpeciesQuantity::Extinction:
        return "Extinction probability E";
    case SpeciesQuantity::DuplicationRate:
        return "Duplication rate";
    case SpeciesQuantity::LossRate:
        return "Loss rate";
    case SpeciesQuantity::TransferRate:
        return "Transfer rate";
    case SpeciesQuantity::CladeProbability:
        return "Π of the selected clade";
    case SpeciesQuantity::OriginationWeight:
        return "Origination weight O_e";
    case SpeciesQuantity::SampledDuplications:
        return "Duplications (sampled)";
    case SpeciesQuantity::SampledLosses:
        return "Losses (sampled)";
    case SpeciesQuantity::SampledTransfersOut:
        return "Transfers out (sampled)";
    case SpeciesQuantity::SampledTransfersIn:
        return "Transfers in (sampled)";
    case SpeciesQuantity::SampledCopies:
        return "Gene copies (sampled)";
    }
    return {};
}

const std::vector<SpeciesQuantity>& allQuantities() {
    static const std::vector<SpeciesQuantity> all = {SpeciesQuantity::None,
                                                     SpeciesQuantity::GeneCount,
                                                     SpeciesQuantity::Extinction,
                                                     SpeciesQuantity::DuplicationRate,
                                                     SpeciesQuantity::LossRate,
                                                     SpeciesQuantity::TransferRate,
                                                     SpeciesQuantity::CladeProbability,
                                                     SpeciesQuantity::OriginationWeight,
                                                     SpeciesQuantity::SampledDuplications,
                                                     SpeciesQuantity::SampledLosses,
                                                     SpeciesQuantity::SampledTransfersOut,
                                                     SpeciesQuantity::SampledTransfersIn,
                                                     SpeciesQuantity::SampledCopies};
    return all;
}

namespace {
QString familyName(const Dataset& data, int family) {
    return QString::fromStdString(data.families[family].name);
}

// Genes mapped to each leaf, summed up the tree.
void countGenes(const Dataset& data, int family, std::vector<double>& out) {
    const SpeciesTree& tree = data.species;
    out.assign(tree.size(), 0.0);
    auto addFamily = [&](const GeneFamily& f) {
        for (int e : f.geneSpecies)
            out[e] += 1;
    };
    if (family >= 0)
        addFamily(data.families[family]);
    else
        for (const GeneFamily& f : data.families)
            addFamily(f);
    for (int e = 0; e < tree.size(); ++e) // postorder: children first
        if (!tree.isLeaf(e)) out[e] = out[tree.left(e)] + out[tree.right(e)];
}
} // namespace

bool fitsDataset(const RateParameters& theta, const Dataset& data) {
    return !theta.theta().empty() && ratesFitDataset(theta, data);
}

std::vector<double> normalisedOriginWeights(const RateParameters& theta) {
    std::vector<double> o = theta.originWeights();
    const double total = std::accumulate(o.begin(), o.end(), 0.0);
    for (double& v : o)
        v /= total;
    return o;
}

SpeciesValues computeSpeciesValues(const QuantityRequest& r) {
    SpeciesValues out;
    out.quantity = r.quantity;
    if (!r.data) return out;
    const Dataset& data = *r.data;
    const int n = data.species.size();
    out.values.assign(n, NAN);
    const bool genewise = r.theta.mode() == RateMode::Genewise;
    const int family = r.family >= 0 && r.family < static_cast<int>(data.families.size()) ? r.family : -1;
    const int rateFamily = family >= 0 ? family : 0;
    QString rateScope = genewise ? QString(" (family %1)").arg(familyName(data, rateFamily)) : QString();
    const FamilyTablesSource tables = categoryTables(r.tables, r.category);
    const QString category = categoryNote(data, r.theta, r.category);
    try {
        switch (r.quantity) {
        case SpeciesQuantity::None:
            break;
        case SpeciesQuantity::GeneCount:
            countGenes(data, family, out.values);
            out.title = family >= 0
                            ? QString("Genes of family %1 below each branch").arg(familyName(data, family))
                            : QString("Genes of all families below each branch");
            break;
        case SpeciesQuantity::DuplicationRate:
        case SpeciesQuantity::LossRate:
        case SpeciesQuantity::TransferRate: {
            if (!fitsDataset(r.theta, data)) break;
            const PresentRates present = data.events.presentRates();
            if ((r.quantity == SpeciesQuantity::DuplicationRate && !present.duplication) ||
                (r.quantity == SpeciesQuantity::TransferRate && !present.transfer)) {
                out.title = quantityName(r.quantity) + " (not in the model)";
                break;
            }
            for (int e = 0; e < n; ++e) {
                Rates rates = r.theta.rates(r.theta.row(rateFamily, e));
                out.values[e] = r.quantity == SpeciesQuantity::DuplicationRate ? rates.d
                                : r.quantity == SpeciesQuantity::LossRate      ? rates.l
                                                                               : rates.t;
            }
            out.logarithmic = true;
            out.title = quantityName(r.quantity) + rateScope;
            break;
        }
        case SpeciesQuantity::Extinction: {
            if (!fitsDataset(r.theta, data)) break;
            out.values = tables(r.theta, r.options, {rateFamily}).front().E;
            out.title = quantityName(r.quantity) + rateScope + category;
            break;
        }
        case SpeciesQuantity::OriginationWeight: {
            if (!fitsDataset(r.theta, data)) break;
            if (!r.theta.optimizesOrigination()) {
                out.error = "only with --origination OPTIMIZE (File ▸ Open data, Families originate)";
                break;
            }
            out.values = normalisedOriginWeights(r.theta);
            out.logarithmic = true;
            out.title = "Origination weight O_e (normalised: they sum to 1)";
            break;
        }
        case SpeciesQuantity::SampledDuplications:
        case SpeciesQuantity::SampledLosses:
        case SpeciesQuantity::SampledTransfersOut:
        case SpeciesQuantity::SampledTransfersIn:
        case SpeciesQuantity::SampledCopies: {
            if (!r.events || r.events->species.size() != static_cast<std::size_t>(n)) {
                out.error = "sample reconciliations first (Reconciliations view)";
                break;
            }
            const int column = r.quantity == SpeciesQuantity::SampledDuplications   ? kDuplications
                               : r.quantity == SpeciesQuantity::SampledLosses       ? kLosses
                               : r.quantity == SpeciesQuantity::SampledTransfersOut ? kTransfers
                               : r.quantity == SpeciesQuantity::SampledTransfersIn  ? kTransfersTo
                                                                                    : kCopies;
            for (int e = 0; e < n; ++e)
                out.values[e] = r.events->species[e][column];
            out.title = quantityName(r.quantity) + " per sample";
            break;
        }
        case SpeciesQuantity::CladeProbability: {
            if (family < 0 || !fitsDataset(r.theta, data)) {
                out.error = "select a clade in the clade-waves view";
                break;
            }
            const GeneFamily& f = data.families[family];
            if (r.clade < 0 || r.clade >= f.clades.cladeCount()) {
                out.error = "select a clade in the clade-waves view";
                break;
            }
            const CladeTables pi = std::move(tables(r.theta, r.options, {family}).front().clades);
            const double* row = pi.piRow(r.clade);
            for (int e = 0; e < n; ++e)
                out.values[e] = row[e] > 0 ? std::log10(row[e]) + pi.scale[r.clade] * std::log10(2.0) : NAN;
            const int genes = f.clades.cladeSize[r.clade];
            out.title = QString("log10 Π of clade %1 (%2 gene%3, family %4)%5")
                            .arg(r.clade)
                            .arg(genes)
                            .arg(genes == 1 ? "" : "s")
                            .arg(familyName(data, family), category);
            break;
        }
        }
    } catch (const std::exception& e) {
        out.error = QString::fromStdString(e.what());
    }
    return out;
}

} // namespace gpurec::ui
