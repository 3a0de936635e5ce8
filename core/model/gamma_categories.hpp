#pragma once
// Speciation rate categories (AleRax's --speciation-gamma-categories, spec 3.1): k scalers s_c, the
// mean rates of k equal-probability bins of a Gamma(α, α) distribution (Yang 1994), so their mean
// is 1. Category c is the model with speciation weight s_c in place of 1, p^S = s_c / (s_c + δ + λ
// + τ): the same as rates divided by s_c. The bins' edges and means use the classic approximations
// AleRax computes them with (Best & Roberts' AS 91 chi-square quantile, Odeh & Evans' AS 70 normal
// quantile, Bhattacharjee's AS 32 incomplete gamma ratio, Pike & Hill's log-gamma), so the scalers
// agree with AleRax's to the last digits, not only within those approximations' own accuracy.
#include <vector>

namespace gpurec {

// AleRax's bounds on α (Brent's search interval there).
constexpr double kMinGammaAlpha = 0.0201, kMaxGammaAlpha = 100.0;

// s_1 … s_k for shape α; k = 1 gives {1}. Throws std::invalid_argument for k < 1 or α outside
// [kMinGammaAlpha, kMaxGammaAlpha].
std::vector<double> gammaCategoryRates(double alpha, int k);

// d log2 s_c / d log2 α for every category (central differences of gammaCategoryRates, which is
// smooth in α away from the approximations' switch points).
std::vector<double> gammaCategoryRateSlopes(double alpha, int k);

// The pieces, exposed for their tests: ln Γ(x); the regularised lower incomplete gamma P(p, x)
// given ln Γ(p); the standard normal quantile by AS 70 (species_search/tree_tests.hpp has an exact
// one: these reproduce AleRax); the quantile of the chi-square distribution
// with v degrees of freedom (−1 outside AS 91's range of probabilities).
double logGamma(double x);
double incompleteGammaRatio(double x, double p, double logGammaP);
double approximateNormalQuantile(double probability);
double chiSquareQuantile(double probability, double v);

} // namespace gpurec
