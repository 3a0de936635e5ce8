// Genewise rates under L-BFGS-B: the NLL is a sum of independent per-family functions, so each
// family runs its own bounded BFGS (FamilyBfgs) and keeps its own curvature; one backend evaluation
// per round serves every family's trial point; families whose search has ended are left out of it
// where the backend allows (half the family solves of a typical fit). A joint L-BFGS-B would mix
// unrelated families' curvature in one memory and needs many more evaluations.
#include "optim/family_bfgs.hpp"
#include "optim/optimization_run.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace gpurec {

namespace {

std::string convergenceSummary(const std::vector<FamilyBfgs>& searches) {
    int gradient = 0, change = 0, noDescent = 0;
    for (const FamilyBfgs& search : searches) {
        gradient += search.outcome() == FamilyBfgs::Outcome::GradientConverged;
        change += search.outcome() == FamilyBfgs::Outcome::ChangeConverged;
        noDescent += search.outcome() == FamilyBfgs::Outcome::NoDescent;
    }
    return "every family converged (" + std::to_string(gradient) + " by gradient norm, " +
           std::to_string(change) + " by relative NLL change, " + std::to_string(noDescent) +
           " without a descent step)";
}

FamilyStatus statusOf(FamilyBfgs::Outcome outcome) {
    switch (outcome) {
    case FamilyBfgs::Outcome::Searching:
        return FamilyStatus::Searching;
    case FamilyBfgs::Outcome::GradientConverged:
        return FamilyStatus::GradientConverged;
    case FamilyBfgs::Outcome::ChangeConverged:
        return FamilyStatus::ChangeConverged;
    case FamilyBfgs::Outcome::NoDescent:
        return FamilyStatus::NoDescent;
    }
    return FamilyStatus::Searching;
}

// The family's share of the run's projected-gradient norm (the same projection, its 3 rates only).
double projectedNorm(const FamilyBfgs::Vector& theta, const FamilyBfgs::Vector& grad,
                     const OptimizerSettings& s) {
    std::vector<double> t(theta.data(), theta.data() + 3), g(grad.data(), grad.data() + 3);
    projectRateGradient(t, g, s.min_rate, s.max_rate);
    return std::max({std::abs(g[0]), std::abs(g[1]), std::abs(g[2])});
}

} // namespace

StopOptimization runGenewiseLockstep(OptimizationRun& run) {
    using Vector = FamilyBfgs::Vector;
    const OptimizerSettings& s = run.settings();
    const FamilyBfgs::Limits limits{run.rateLowerBound(), run.rateUpperBound(), s.grad_tol, s.rel_tol};
    const std::vector<double> start = run.startTheta();
    const std::size_t families = start.size() / 3;
    std::vector<FamilyBfgs> searches;
    searches.reserve(families);
    for (std::size_t f = 0; f < families; ++f)
        searches.emplace_back(Vector(start[3 * f], start[3 * f + 1], start[3 * f + 2]), limits);

    std::vector<double> trial(start.size()), grad, accepted(start.size()), acceptedGrad(start.size());
    std::vector<FamilyProgress> progress(families);
    std::vector<int> searching;
    for (int round = 0;; ++round) {
        searching.clear();
        for (std::size_t f = 0; f < families; ++f) {
            Eigen::Map<Vector>(trial.data() + 3 * f) = searches[f].trial();
            if (!searches[f].ended()) searching.push_back(static_cast<int>(f));
        }
        const std::vector<double> nll = run.evaluateFamilies(trial, grad, &searching);
        double total = 0;
        bool allEnded = true;
        for (std::size_t f = 0; f < families; ++f) {
            FamilyBfgs& search = searches[f];
            const bool searching = !search.ended();
            search.update(nll[f], Eigen::Map<const Vector>(grad.data() + 3 * f));
            if (searching) progress[f].iterations = round;
            Eigen::Map<Vector>(accepted.data() + 3 * f) = search.accepted();
            Eigen::Map<Vector>(acceptedGrad.data() + 3 * f) = search.acceptedGradient();
            total += search.acceptedNll();
            allEnded = allEnded && search.ended();
            progress[f].nllBits = search.acceptedNll();
            progress[f].gradNorm = projectedNorm(search.accepted(), search.acceptedGradient(), s);
            progress[f].status = statusOf(search.outcome());
        }
        run.endIterationAt(accepted, total, acceptedGrad,
                           allEnded ? std::optional(convergenceSummary(searches)) : std::nullopt, &progress);
    }
}

} // namespace gpurec
