#include "optim/optimizer.hpp"

#include "io/number_text.hpp"
#include "optim/optimization_run.hpp"

#include <cmath>
#include <stdexcept>

namespace gpurec {

OptimizerKind parseOptimizerKind(const std::string& text) {
    if (text == "lbfgsb") return OptimizerKind::Lbfgsb;
    if (text == "adam") return OptimizerKind::Adam;
    throw std::invalid_argument("unknown optimizer '" + text + "' (expected lbfgsb or adam)");
}

std::string toString(OptimizerKind kind) {
    return kind == OptimizerKind::Lbfgsb ? "lbfgsb" : "adam";
}

std::string toString(FamilyStatus status) {
    switch (status) {
    case FamilyStatus::Searching:
        return "searching";
    case FamilyStatus::GradientConverged:
        return "converged (gradient norm)";
    case FamilyStatus::ChangeConverged:
        return "converged (NLL change)";
    case FamilyStatus::NoDescent:
        return "ended (no descent step)";
    }
    return "unknown";
}

namespace {
void require(bool ok, const char* field, double value, const char* range) {
    if (ok) return;
    throw std::invalid_argument(std::string("optimizer setting ") + field + " = " +
                                shortestNumberText(value) + " is outside its range " + range);
}
} // namespace

void OptimizerSettings::validate() const {
    require(max_iter >= 0, "max_iter", max_iter, ">= 0");
    require(grad_tol >= 0, "grad_tol", grad_tol, ">= 0");
    require(rel_tol >= 0, "rel_tol", rel_tol, ">= 0");
    require(min_rate > 0 && std::isfinite(min_rate), "min_rate", min_rate, "> 0");
    require(max_rate > min_rate && std::isfinite(max_rate), "max_rate", max_rate, "(min_rate, inf)");
    require(learning_rate > 0 && std::isfinite(learning_rate), "learning_rate", learning_rate, "> 0");
    require(beta1 >= 0 && beta1 < 1, "beta1", beta1, "[0, 1)");
    require(beta2 >= 0 && beta2 < 1, "beta2", beta2, "[0, 1)");
    require(adam_epsilon > 0, "adam_epsilon", adam_epsilon, "> 0");
    require(lbfgsb_memory >= 1 && lbfgsb_memory <= 1000, "lbfgsb_memory", lbfgsb_memory, "1..1000");
}

namespace {
// Runs `step` until it returns or the run stops it.
template <typename Step> StopOptimization untilStopped(Step&& step) {
    try {
        return step();
    } catch (const StopOptimization& stop) {
        return stop;
    }
}

// A joint fit: the algorithm, then while it stops for convergence or lack of progress, snaps rates
// drifting to zero short of the bound onto it and resumes from there while that gains.
StopOptimization fitJointly(OptimizationRun& run, StopOptimization (*algorithm)(OptimizationRun&)) {
    using Kind = StopOptimization::Kind;
    StopOptimization stop = untilStopped([&] { return algorithm(run); });
    while (stop.kind == Kind::Converged || stop.kind == Kind::NoProgress) {
        try {
            if (!run.snapToLowerBound()) break;
        } catch (const StopOptimization& atSnap) {
            stop = atSnap; // the snapped point itself ends the run (or is snapped further)
            continue;
        }
        stop = untilStopped([&] { return algorithm(run); });
    }
    return stop;
}
} // namespace

OptimizationResult optimizeRates(ReconModel& model, const OptimizerSettings& settings,
                                 const ProgressCallback& progress, const ResumePoint* resume) {
    OptimizationRun run(model, settings, progress, resume);
    try {
        StopOptimization stop;
        if (settings.kind == OptimizerKind::Adam) stop = fitJointly(run, runAdam);
        // The lockstep fits each family's three rates alone: θ with entries every family shares
        // (transfer highways' rates) is fitted jointly.
        else if (model.parameters().mode() == RateMode::Genewise && settings.lockstep_families &&
                 !settings.fix_rates && model.parameters().highwayCount() == 0)
            stop = untilStopped([&] { return runGenewiseLockstep(run); }); // snaps per family itself
        else
            stop = fitJointly(run, runLbfgsb);
        return run.finish(stop);
    } catch (...) {
        run.restoreBest();
        throw;
    }
}

} // namespace gpurec
