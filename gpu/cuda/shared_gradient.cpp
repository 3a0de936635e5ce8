#include "shared_gradient.hpp"

#include "device_views.hpp"

namespace gpurec::gpu {

KrylovStats addSharedModeGradient(const SpeciesLayout& layout, const RateParameters& theta,
                                  const std::vector<int>& familyOrigins, const SolverOptions& options,
                                  const std::vector<double>& rows, const ExtinctionState& extinction,
                                  PresentRates present, std::vector<double>& gradient) {
    const int n = layout.size;
    ProbabilityGradient g(n);
    auto rowOf = [&](int r) { return std::vector<double>(rows.begin() + r * n, rows.begin() + (r + 1) * n); };
    g.gS = rowOf(RowS);
    g.gD = rowOf(RowD);
    g.gT = rowOf(RowT);
    g.gE = rowOf(RowE);
    g.gEbar = rowOf(RowEbar);
    const EventProbabilities p = theta.probabilities(0, present);
    KrylovStats stats;
    addConditioningGradient(extinction.E, familyOrigins, g.gE);
    eliminateExtinction(layout, p, extinction, options, g, stats);
    addThetaGradient(theta, 0, p, g, gradient);
    return stats;
}

} // namespace gpurec::gpu
