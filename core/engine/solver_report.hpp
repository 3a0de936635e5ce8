#pragma once
// What an evaluation must tell its reader beyond the numbers: which solvers stopped short of their
// tolerance, and which families' likelihoods are not finite. The CLI and the workbench show the
// same text.
#include "engine/backend.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpurec {

// One line per kind of solve that stopped early, e.g. "E fixed point stopped early: 1 solve (all 3
// families) at e_max_iter = 1, relative change 1 > e_tol = 1e-15"; empty when every solve converged.
std::vector<std::string> earlyStopWarnings(const SolverStats& stats);
// The same for result.json: one object per kind that stopped early (solver, how many solves or
// clades of how many families, the iteration cap, the residual reached, the tolerance, the text).
nlohmann::json earlyStopsJson(const SolverStats& stats);
// Every statistic under the names result.json, bench output and sessions share ("solver_stats",
// docs/formats.md), early stops included; NaN and infinity are written as null.
nlohmann::json solverStatsJson(const SolverStats& stats);
// The counts back from solverStatsJson (early stops are a report, not read back); throws
// nlohmann::json::exception on a missing key or a value of the wrong type.
SolverStats solverStatsFromJson(const nlohmann::json& j);

// A family's log-likelihood is not finite (rates outside the model's numerical range).
class NonFiniteLikelihood : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Throws NonFiniteLikelihood naming the families whose log-likelihood is not finite, their values
// and the rates they were evaluated at; `families`, when given, are the only ones looked at (those
// an evaluation restricted by LikelihoodBackend::setNeededFamilies solved).
void requireFiniteLikelihoods(const Dataset& data, const RateParameters& theta, const Evaluation& eval,
                              const std::vector<int>* families = nullptr);

} // namespace gpurec
