#include "shared_gradient.hpp"

#include "device_views.hpp"

#include <algorithm>
#include <numeric>

namespace gpurec::gpu {

int sharedRowLength(int n, int highways, bool originWeights, int nodeThetaRows) {
    return static_cast<int>(gradientWidth(n, highways, nodeThetaRows)) + (originWeights ? n + 1 : 0);
}

void sharedChunkRows(const RateParameters& theta, const std::vector<double>& E,
                     const std::vector<int>& familyOrigins, const std::vector<double>& familyWeights,
                     int familiesPerChunk, std::span<const double> deviceRows,
                     std::span<const double> devicePosterior, std::vector<double>& rows, int nodeThetaRows,
                     const std::vector<int>& familyTree) {
    const int n = static_cast<int>(E.size());
    const int F = static_cast<int>(familyOrigins.size());
    const std::vector<double> o = theta.originWeights();
    const int length = sharedRowLength(n, theta.highwayCount(), !o.empty(), nodeThetaRows);
    const int chunks = (F + familiesPerChunk - 1) / familiesPerChunk;
    const auto deviceLength = static_cast<std::size_t>(gradientWidth(n, theta.highwayCount(), nodeThetaRows));
    rows.resize(static_cast<std::size_t>(chunks) * length); // every entry written below
    std::vector<int> origins;
    std::vector<double> weights, gE;
    for (int k = 0; k < chunks; ++k) {
        const int first = k * familiesPerChunk, end = std::min(F, first + familiesPerChunk);
        double* row = rows.data() + static_cast<std::size_t>(k) * length;
        std::copy_n(deviceRows.begin() + static_cast<std::ptrdiff_t>(k * deviceLength), deviceLength, row);
        origins.clear();
        weights.clear();
        for (int f = first; f < end; ++f) {
            if (!familyTree.empty() && familyTree[f] != 0) continue;
            origins.push_back(familyOrigins[f]);
            weights.push_back(familyWeights.empty() ? 1.0 : familyWeights[f]);
        }
        gE.assign(row + RowE * n, row + (RowE + 1) * n);
        addConditioningGradient(E, origins, gE, o.empty() ? nullptr : &o, weights);
        std::copy(gE.begin(), gE.end(), row + RowE * n);
        if (!o.empty()) {
            std::copy_n(devicePosterior.begin() + static_cast<std::ptrdiff_t>(k) * n, n, row + deviceLength);
            // The pooled families' weights (those on pruned trees added their terms on the device).
            row[length - 1] = std::accumulate(weights.begin(), weights.end(), 0.0);
        }
    }
}

std::vector<double> sumChunkRows(const std::vector<double>& rows, int rowLength) {
    std::vector<double> total(rowLength, 0.0);
    for (std::size_t k = 0; k < rows.size(); k += rowLength)
        for (int i = 0; i < rowLength; ++i)
            total[i] += rows[k + i];
    return total;
}

KrylovStats addSharedModeGradient(const SpeciesLayout& layout, const RateParameters& theta,
                                  const SolverOptions& options, const std::vector<double>& total,
                                  const ExtinctionState& extinction, PresentRates present,
                                  std::vector<double>& gradient, int nodeThetaRows) {
    const int n = layout.size;
    const int H = static_cast<int>(layout.highways.size());
    ProbabilityGradient g(n, H);
    auto rowOf = [&](int r) {
        return std::vector<double>(total.begin() + r * n, total.begin() + (r + 1) * n);
    };
    g.gS = rowOf(RowS);
    g.gD = rowOf(RowD);
    g.gT = rowOf(RowT);
    g.gE = rowOf(RowE);
    g.gEbar = rowOf(RowEbar);
    const auto highwayAt = total.begin() + kGradientRows * n;
    g.gH.assign(highwayAt, highwayAt + H);
    const EventProbabilities p = theta.probabilities(0, present, layout.highways);
    KrylovStats stats;
    eliminateExtinction(layout, p, extinction, options, g, stats);
    addThetaGradient(theta, 0, p, g, gradient, layout.highways);
    // Families on pruned trees: their D, L, T rates' terms per node, then the origination weights'.
    const double* nodeTheta = total.data() + kGradientRows * n + H;
    for (int k = 0; k < nodeThetaRows; ++k)
        for (int e = 0; e < n; ++e)
            gradient[k < 3 ? theta.entry(0, e, k) : theta.originEntry(e)] += nodeTheta[k * n + e];
    const std::vector<double> o = theta.originWeights();
    if (!o.empty()) {
        // Every family originates anywhere under OPTIMIZE: the CPU's addOriginationGradient, summed.
        const double* posterior = total.data() + gradientWidth(n, H, nodeThetaRows);
        const double families = total.back();
        double survive = 0;
        for (int e = 0; e < n; ++e)
            survive += o[e] * (1.0 - extinction.E[e]);
        for (int e = 0; e < n; ++e)
            gradient[theta.originEntry(e)] +=
                o[e] * (families * (1.0 - extinction.E[e]) / survive - posterior[e]);
    }
    return stats;
}

void addGenewiseHighwayGradient(const RateParameters& theta, const std::vector<double>& total,
                                std::vector<double>& gradient) {
    for (int h = 0; h < theta.highwayCount(); ++h)
        gradient[theta.highwayEntry(h)] += total[h];
}

} // namespace gpurec::gpu
