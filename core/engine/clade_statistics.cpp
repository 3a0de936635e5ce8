#include "engine/clade_statistics.hpp"

#include "engine/evaluation_shape.hpp"
#include "engine/family_solver.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace gpurec {

CladeStatistics computeCladeStatistics(const FamilyTablesSource& source, const Dataset& data,
                                       const RateParameters& theta, const SolverOptions& options,
                                       int family) {
    requireFamilies(data, {family});
    FamilyTables t = std::move(source(theta, options, {family}).front());
    const SpeciesLayout layout(data);
    const GeneFamily& f = data.families[family];
    const CladeTables& tables = t.clades;
    ExtinctionState ext;
    ext.E = std::move(t.E);
    ext.Ebar = std::move(t.Ebar);
    const EventProbabilities& p = t.p;

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
    out.logLikelihood = familyLogLikelihood(tables, ext, f.originSpecies);
    out.posterior.assign(clades, 0.0);
    ProbabilityGradient grad(layout.size);
    AdjointStats stats;
    stats.cladePosterior = &out.posterior;
    accumulateCladeAdjoint(layout, f, p, ext, tables, options, grad, stats);
    return out;
}

} // namespace gpurec
