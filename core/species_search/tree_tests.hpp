#pragma once
// Tests between candidate species trees on the families' log-likelihoods ("sites" = families;
// species-tree-search.md 6): KH against the best tree, Shimodaira–Hasegawa, and the approximately
// unbiased test (multiscale RELL bootstrap, Shimodaira 2002).
#include "sim/random_source.hpp"

#include <cstdint>
#include <vector>

namespace gpurec {

struct TreeTestSettings {
    int replicates = 10000; // per scale (CONSEL's default)
    std::vector<double> scales{0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4}; // r: r·F families drawn
    std::uint64_t seed = 123;
    void validate() const; // throws std::invalid_argument
};

struct TreeTestRow {
    double logLikelihood = 0.0;
    double delta = 0.0; // best tree's LL − this one's (>= 0)
    double kh = 1.0;    // one-sided KH p-value against the best tree (normal approximation)
    double sh = 1.0;    // SH p-value (RELL, scale 1)
    double bp = 0.0;    // bootstrap probability at scale 1
    double au = 0.0;    // AU p-value
};

// One-sided KH: Δ = Σ(best − other) over families, p = 1 − Φ(Δ / √(F·s²)), s² the sample variance
// of the per-family differences; 1 when there is no difference at all.
double khPValue(const std::vector<double>& best, const std::vector<double>& other);
// RELL replicate sums, sums[tree][b]: B resamples of `draws` families each, drawn on the fly (no
// B × F table, which would not fit at genome scale).
std::vector<std::vector<double>> resampledSums(const std::vector<std::vector<double>>& ll, int draws,
                                               int replicates, RandomSource& rng);
// SH p-values of every tree (ll[tree][family]) from replicate sums at scale 1.
std::vector<double> shPValues(const std::vector<std::vector<double>>& ll,
                              const std::vector<std::vector<double>>& sums);
// Fraction of the replicates in which each tree has the largest sum (first tree wins ties).
std::vector<double> bootstrapProbabilities(const std::vector<std::vector<double>>& sums);
// AU from the bootstrap probabilities at the scales: z_r = Φ⁻¹(1 − BP(r)) fitted as
// z_r = v√r + c/√r by weighted least squares (weights 1/Var z_r, Var z_r = BP(1−BP)/(B φ(z_r)²),
// scales with BP in (0, 1) only); AU = 1 − Φ(v − c). With fewer than two such scales, the BP at
// the scale nearest 1.
double auPValue(const std::vector<double>& scales, const std::vector<double>& bp, int replicates);
// Every test for every tree.
std::vector<TreeTestRow> testTrees(const std::vector<std::vector<double>>& ll,
                                   const TreeTestSettings& settings);

// Standard normal distribution function and its inverse.
double normalCdf(double x);
double normalQuantile(double p);

} // namespace gpurec
