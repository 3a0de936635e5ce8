#include "optim/optimization_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace gpurec {

namespace {
// Below this rate (log2 1e-4) the NLL is linear in the rate to about 1e-4 relative, so a rate whose
// gradient points down gains most at the bound; larger ones may sit near an interior optimum.
const double kLinearRegimeLog2Rate = std::log2(1e-4);

std::string shortNumber(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}
} // namespace

OptimizationRun::OptimizationRun(ReconModel& model, const OptimizerSettings& settings,
                                 const ProgressCallback& progress)
    : model_(model), settings_(settings), progress_(progress), started_(std::chrono::steady_clock::now()),
      lower_(std::log2(settings.min_rate)), upper_(std::log2(settings.max_rate)),
      current_(model.parameters()) {
    settings_.validate();
    start_ = current_.theta();
    clampLogRate(start_, settings_.min_rate, settings_.max_rate);
}

double OptimizationRun::projectedGradNorm(const std::vector<double>& theta,
                                          const std::vector<double>& grad) const {
    std::vector<double> projected = grad;
    projectRateGradient(theta, projected, settings_.min_rate, settings_.max_rate);
    double norm = 0;
    for (double g : projected)
        norm = std::max(norm, std::abs(g));
    return norm;
}

double OptimizationRun::evaluate(const std::vector<double>& theta, std::vector<double>& grad) {
    std::vector<double> point = theta;
    clampLogRate(point, settings_.min_rate, settings_.max_rate);
    if (haveBest_ && point == bestTheta_) {
        grad = bestGrad_;
        lastTheta_ = bestTheta_;
        lastGrad_ = bestGrad_;
        lastNll_ = bestNll_;
        lastStats_ = bestStats_;
        return bestNll_;
    }
    current_.theta() = point;
    model_.setParameters(current_);
    if (!settings_.warm_starts) model_.clear_warm_starts();
    const double nll = model_.evaluate_with_gradient(grad);
    ++evaluations_;
    if (grad.size() != point.size())
        throw std::runtime_error("the " + model_.backend().name() + " backend returned no gradient");
    if (!std::isfinite(nll))
        throw std::runtime_error("the negative log-likelihood is not finite at the current rates");
    lastTheta_ = point;
    lastGrad_ = grad;
    lastNll_ = nll;
    lastStats_ = model_.lastEvaluation().stats;
    if (!haveBest_ || nll < bestNll_) {
        bestTheta_ = point;
        bestGrad_ = grad;
        bestNll_ = nll;
        bestStats_ = lastStats_;
        haveBest_ = true;
    }
    return nll;
}

void OptimizationRun::endIteration() {
    IterationReport report;
    report.iteration = iteration_;
    report.nllBits = lastNll_;
    report.gradNorm = projectedGradNorm(lastTheta_, lastGrad_);
    current_.theta() = lastTheta_;
    report.theta = &current_;
    report.gradient = &lastGrad_;
    report.stats = lastStats_;
    report.evaluations = evaluations_;
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    const double previous = previousIterationNll_;
    if (iteration_ == 0) initialNll_ = lastNll_;
    previousIterationNll_ = lastNll_;
    ++iteration_;

    using Kind = StopOptimization::Kind;
    if (progress_ && !progress_(report)) throw StopOptimization{Kind::Caller, "stopped by the caller"};
    if (report.gradNorm <= settings_.grad_tol)
        throw StopOptimization{Kind::Converged,
                               "projected gradient norm " + shortNumber(report.gradNorm) + " <= grad_tol"};
    if (report.iteration > 0 &&
        std::abs(previous - lastNll_) <= settings_.rel_tol * std::max(std::abs(lastNll_), 1.0))
        throw StopOptimization{Kind::Converged, "relative NLL change <= rel_tol"};
    if (report.iteration >= settings_.max_iter)
        throw StopOptimization{Kind::IterationCap, "reached max_iter"};
}

bool OptimizationRun::snapToLowerBound() {
    if (!haveBest_ || iteration_ > settings_.max_iter) return false;
    std::vector<double> candidate = bestTheta_, projected = bestGrad_;
    projectRateGradient(bestTheta_, projected, settings_.min_rate, settings_.max_rate);
    bool moved = false;
    for (std::size_t i = 0; i < candidate.size(); ++i) {
        if (projected[i] > 0 && candidate[i] < kLinearRegimeLog2Rate) {
            candidate[i] = lower_;
            moved = true;
        }
    }
    if (!moved) return false;
    const double before = bestNll_;
    std::vector<double> grad;
    if (!(evaluate(candidate, grad) < before)) return false;
    endIteration();
    return true;
}

OptimizationResult OptimizationRun::finish(const StopOptimization& stop) {
    OptimizationResult result;
    current_.theta() = bestTheta_;
    model_.setParameters(current_);
    if (lastTheta_ != bestTheta_) {
        // Leave the best point's evaluation (per-family values, gradient) in the model.
        std::vector<double> grad;
        model_.evaluate_with_gradient(grad);
        ++evaluations_;
    }
    result.best = current_;
    result.bestNllBits = bestNll_;
    result.initialNllBits = initialNll_;
    result.iterations = std::max(iteration_ - 1, 0);
    result.evaluations = evaluations_;
    result.converged = stop.kind == StopOptimization::Kind::Converged;
    result.stopReason = stop.reason;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    return result;
}

void OptimizationRun::restoreBest() {
    if (!haveBest_) return;
    current_.theta() = bestTheta_;
    model_.setParameters(current_);
}

} // namespace gpurec
