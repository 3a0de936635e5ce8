#pragma once
// What every backend's evaluate() does around its own solve, written once: the checks of the
// options and of θ's shape before it, the result's shape, and the totals, limits and wall time
// after it.
#include "engine/backend.hpp"

#include <chrono>

namespace gpurec {

// Whether θ has the shape of `data`: its species nodes, and its families in the genewise mode.
bool ratesFitDataset(const RateParameters& theta, const Dataset& data);
// Throws std::invalid_argument for invalid options, a θ that does not fit `data` (a backend of one
// speciation category takes no shape α: the mixture strips it), or family weights of another count.
void requireEvaluable(const Dataset& data, const RateParameters& theta, const SolverOptions& options,
                      const std::vector<double>* familyWeights = nullptr);
// Throws std::out_of_range for a family index outside `data`.
void requireFamilies(const Dataset& data, const std::vector<int>& families);
// Throws std::invalid_argument unless `needed` is empty or holds one flag per family of `data`
// (LikelihoodBackend::setNeededFamilies).
void requireNeededFlags(const Dataset& data, const std::vector<char>& needed);

// Throws std::invalid_argument unless `next` holds `current`'s families with clade sets of the same
// shape on a species tree of as many nodes (LikelihoodBackend::setSpeciesTree); its transfer
// highways may differ (the highway search moves a backend from one set to another).
void requireSameFamilies(const Dataset& current, const Dataset& next);

// An evaluation of `data`'s families with every log-likelihood at `fill` and, with a gradient, a
// zero gradient of θ's shape.
Evaluation emptyEvaluation(const Dataset& data, const RateParameters& theta, bool withGradient,
                           double fill = 0.0);
// The totals from the per-family log-likelihoods, the options' caps in the early-stop entries and
// the wall time since `start`.
void finishEvaluation(Evaluation& out, const SolverOptions& options,
                      std::chrono::steady_clock::time_point start);
// Whether an evaluation at θ leaves out the families `needed` does not flag
// (LikelihoodBackend::setNeededFamilies: any θ without a gradient, genewise θ without highways with
// one; empty: every family is needed).
bool leavesFamiliesOut(const RateParameters& theta, const std::vector<char>& needed, bool withGradient);
// finishEvaluation of such an evaluation: the families left out get a NaN log-likelihood, outside
// the total, and zero gradient entries, whatever the backend left there.
void finishEvaluation(Evaluation& out, const RateParameters& theta, const std::vector<char>& needed,
                      const SolverOptions& options, std::chrono::steady_clock::time_point start);

} // namespace gpurec
