#include "shared_gradient.hpp"

#include "device_views.hpp"

namespace gpurec::gpu {

KrylovStats addSharedModeGradient(const SpeciesLayout& layout, const RateParameters& theta,
                                  const std::vector<int>& familyOrigins, const SolverOptions& options,
                                  const std::vector<double>& rows, const ExtinctionState& extinction,
                                  PresentRates present, std::vector<double>& gradient,
                                  const std::vector<double>& originPosterior,
                                  const std::vector<double>& familyWeights) {
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
    const std::vector<double> o = theta.originWeights();
    addConditioningGradient(extinction.E, familyOrigins, g.gE, o.empty() ? nullptr : &o, familyWeights);
    eliminateExtinction(layout, p, extinction, options, g, stats);
    addThetaGradient(theta, 0, p, g, gradient);
    if (!o.empty()) {
        // Every family originates anywhere under OPTIMIZE: the CPU's addOriginationGradient, summed.
        double survive = 0;
        for (int e = 0; e < n; ++e)
            survive += o[e] * (1.0 - extinction.E[e]);
        double families = 0;
        for (std::size_t f = 0; f < familyOrigins.size(); ++f)
            families += familyWeights.empty() ? 1.0 : familyWeights[f];
        for (int e = 0; e < n; ++e)
            gradient[theta.originEntry(e)] +=
                o[e] * (families * (1.0 - extinction.E[e]) / survive - originPosterior.at(e));
    }
    return stats;
}

} // namespace gpurec::gpu
