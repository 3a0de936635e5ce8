#include "engine/clade_statistics.hpp"

#include "engine/family_solver.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace gpurec {

CladeStatistics computeCladeStatistics(const Dataset& data, const RateParameters& theta,
                                       const SolverOptions& options, int family) {
    options.validate();
    const int families = static_cast<int>(data.families.size());
    if (family < 0 || family >= families)
        throw std::out_of_range("family " + std::to_string(family) + " is not in the dataset (" +
                                std::to_string(families) + " families)");
    const SpeciesLayout layout(data.species, data.transferConstraint);
    if (theta.speciesCount() != layout.size ||
        (theta.mode() == RateMode::Genewise && theta.familyCount() != families))
        throw std::invalid_argument("rate parameters do not match the dataset's shape");
    const GeneFamily& f = data.families[family];
    const EventProbabilities p = theta.probabilities(family);
    const ExtinctionState ext = solveExtinction(layout, p, options);
    const CladeTables tables = solveClades(layout, f, p, ext, options);

    CladeStatistics out;
    const int clades = tables.clades;
    out.selfLoopIterations = tables.cladeSelfIterations;
    out.log10Probability.resize(clades);
    for (int c = 0; c < clades; ++c) {
        double sum = 0;
        for (int e = 0; e < tables.species; ++e)
            sum += tables.piRow(c)[e];
        out.log10Probability[c] = std::log10(sum) + tables.scale[c] * std::log10(2.0);
    }
    out.logLikelihood = familyLogLikelihood(tables, ext);
    out.posterior.assign(clades, 0.0);
    ProbabilityGradient grad(layout.size);
    AdjointStats stats;
    stats.cladePosterior = &out.posterior;
    accumulateCladeAdjoint(layout, f, p, ext, tables, options, grad, stats);
    return out;
}

} // namespace gpurec
