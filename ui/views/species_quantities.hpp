#pragma once
// Per-species-node values the species-tree view colours branches by: event rates, origination
// weights, extinction probability E, genes per species, and a clade's Π row (from the engine's
// backend interface; with several speciation categories, one category's).
#include "data/dataset.hpp"
#include "engine/backend.hpp"
#include "model/rate_parameters.hpp"
#include "model/solver_options.hpp"
#include "recon/recon_summary.hpp"

#include <QMetaType>
#include <QString>
#include <memory>
#include <vector>

namespace gpurec::ui {

enum class SpeciesQuantity {
    None,
    GeneCount,
    Extinction,
    DuplicationRate,
    LossRate,
    TransferRate,
    CladeProbability,
    OriginationWeight, // --origination OPTIMIZE: O_e = o_e / Σ o
    // Means per sampled reconciliation (Reconciliations view), summed over the sampled families.
    SampledDuplications,
    SampledLosses,
    SampledTransfersOut,
    SampledTransfersIn,
    SampledCopies
};

QString quantityName(SpeciesQuantity quantity);
const std::vector<SpeciesQuantity>& allQuantities();

struct QuantityRequest {
    SpeciesQuantity quantity = SpeciesQuantity::None;
    std::shared_ptr<const Dataset> data;
    FamilyTablesSource tables; // of `data` (for Extinction and CladeProbability)
    RateParameters theta;
    SolverOptions options;
    int family = -1;  // selected family (genes, genewise rates, E in genewise mode, Π)
    int clade = -1;   // for CladeProbability
    int category = 0; // the speciation category of Extinction and CladeProbability (0-based)
    std::shared_ptr<const ReconciliationSummary> events; // for the Sampled quantities
};

struct SpeciesValues {
    SpeciesQuantity quantity = SpeciesQuantity::None;
    std::vector<double> values; // per species node; NaN where undefined
    bool logarithmic = false;   // colour by logarithm
    QString title;              // legend title, e.g. "log10 Π of clade 12 (family fam3)"
    QString error;              // why nothing could be computed
};

// Whether θ has the shape of `data` (rates change shape with the dataset and the mode).
bool fitsDataset(const RateParameters& theta, const Dataset& data);
// θ's origination weights normalised to sum to 1, O_e = o_e / Σ o, as model_parameters.txt writes
// them; empty when θ has none.
std::vector<double> normalisedOriginWeights(const RateParameters& theta);

// Safe on any thread but the engine's (request.tables may wait for it).
SpeciesValues computeSpeciesValues(const QuantityRequest& request);

} // namespace gpurec::ui

Q_DECLARE_METATYPE(gpurec::ui::SpeciesQuantity)
