#include "optim/optimization_run.hpp"

#include "engine/solver_report.hpp"
#include "run/interruption.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <stdexcept>

namespace gpurec {

namespace {
// Below this rate (log2 1e-4) the NLL is linear in the rate to about 1e-4 relative, so a rate whose
// gradient points down gains most at the bound; larger ones may sit near an interior optimum.
const double kLinearRegimeLog2Rate = std::log2(1e-4);

StopOptimization interruptedStop() {
    return {StopOptimization::Kind::Interrupted, "interrupted by " + signalName(interruptSignal())};
}

std::string shortNumber(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}
} // namespace

OptimizationRun::OptimizationRun(ReconModel& model, const OptimizerSettings& settings,
                                 const ProgressCallback& progress, const ResumePoint* resume)
    : model_(model), settings_(settings), progress_(progress), started_(std::chrono::steady_clock::now()),
      current_(model.parameters()), resumed_(resume != nullptr) {
    settings_.validate();
    current_.entryBounds(settings_.min_rate, settings_.max_rate, lower_, upper_);
    start_ = current_.theta();
    clamp(start_);
    for (int i = 0; i < static_cast<int>(start_.size()); ++i) {
        const bool highway = current_.isHighwayEntry(i);
        // --fix-rates holds every entry but the shape (and the highways, which have their own).
        if ((settings_.fix_rates && !highway && i != current_.shapeEntry()) ||
            (settings_.fix_highways && highway))
            lower_[i] = upper_[i] = start_[i];
    }
    if (resume) {
        iteration_ = resume->iterations;
        evaluations_ = resume->evaluations;
        initialNll_ = resume->initialNllBits;
        started_ -= std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(resume->seconds));
    }
}

OptimizationRun::~OptimizationRun() {
    try {
        restrictBackend({});
    } catch (...) { // NOLINT(bugprone-empty-catch): the backend keeps the restriction it had
    }
}

void OptimizationRun::restrictBackend(const std::vector<int>& needed) {
    if (needed == needed_ || (needed.empty() && !restricted_)) return;
    std::vector<char> flags(needed.empty() ? 0 : model_.dataset().families.size(), 0);
    for (int f : needed)
        flags[f] = 1;
    restricted_ = model_.backend().setNeededFamilies(flags) && !needed.empty();
    needed_ = restricted_ ? needed : std::vector<int>{};
}

void OptimizationRun::clamp(std::vector<double>& theta) const {
    for (std::size_t i = 0; i < theta.size(); ++i)
        theta[i] = std::clamp(theta[i], lower_[i], upper_[i]);
}

void OptimizationRun::project(const std::vector<double>& theta, std::vector<double>& grad) const {
    for (std::size_t i = 0; i < theta.size() && i < grad.size(); ++i)
        if ((theta[i] <= lower_[i] && grad[i] > 0) || (theta[i] >= upper_[i] && grad[i] < 0)) grad[i] = 0.0;
}

double OptimizationRun::projectedGradNorm(const std::vector<double>& theta,
                                          const std::vector<double>& grad) const {
    std::vector<double> projected = grad;
    project(theta, projected);
    double norm = 0;
    for (double g : projected)
        norm = std::max(norm, std::abs(g));
    return norm;
}

double OptimizationRun::evaluateModel(const std::vector<double>& point, std::vector<double>& grad,
                                      const std::vector<int>* checked) {
    if (haveBest_ && interruptRequested()) throw interruptedStop();
    current_.theta() = point;
    model_.setParameters(current_);
    if (!settings_.warm_starts) model_.clearWarmStarts();
    const double nll = model_.evaluateWithGradient(grad);
    ++evaluations_;
    modelTheta_ = point;
    if (grad.size() != point.size())
        throw std::runtime_error("the " + model_.backend().name() + " backend returned no gradient");
    requireFiniteLikelihoods(model_.dataset(), current_, model_.lastEvaluation(), checked);
    lastStats_ = model_.lastEvaluation().stats;
    return nll;
}

void OptimizationRun::keepIfBest() {
    if (haveBest_ && !(lastNll_ < bestNll_)) return;
    bestTheta_ = lastTheta_;
    bestGrad_ = lastGrad_;
    bestNll_ = lastNll_;
    bestStats_ = lastStats_;
    haveBest_ = true;
}

double OptimizationRun::evaluate(const std::vector<double>& theta, std::vector<double>& grad) {
    std::vector<double> point = theta;
    clamp(point);
    if (haveBest_ && point == bestTheta_) {
        grad = bestGrad_;
        lastTheta_ = bestTheta_;
        lastGrad_ = bestGrad_;
        lastNll_ = bestNll_;
        lastStats_ = bestStats_;
        return bestNll_;
    }
    lastNll_ = evaluateModel(point, grad);
    lastTheta_ = point;
    lastGrad_ = grad;
    keepIfBest();
    return lastNll_;
}

std::vector<double> OptimizationRun::evaluateFamilies(const std::vector<double>& theta,
                                                      std::vector<double>& grad,
                                                      const std::vector<int>* needed) {
    std::vector<double> point = theta;
    clamp(point);
    restrictBackend(needed ? *needed : std::vector<int>{});
    evaluateModel(point, grad, restricted_ ? &needed_ : nullptr);
    if (restricted_) modelTheta_.clear(); // not every family's evaluation: finish() evaluates again
    std::vector<double> nll;
    for (double ll : model_.lastEvaluation().logLikelihood)
        nll.push_back(-ll / std::numbers::ln2);
    return nll;
}

IterationReport OptimizationRun::reportIteration(const std::vector<FamilyProgress>* families) {
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
    if (iteration_ == 0) initialNll_ = lastNll_;
    report.bestTheta = &bestTheta_;
    report.bestNllBits = bestNll_;
    report.initialNllBits = initialNll_;
    report.families = families;
    ++iteration_;
    startClosed_ = true;
    if (progress_ && !progress_(report)) callerStopped_ = true;
    return report;
}

void OptimizationRun::stopAtIterationCap(const IterationReport& report) const {
    if (report.iteration >= settings_.max_iter)
        throw StopOptimization{StopOptimization::Kind::IterationCap, "reached max_iter"};
}

void OptimizationRun::stopIfAsked() const {
    if (callerStopped_) throw StopOptimization{StopOptimization::Kind::Caller, "stopped by the caller"};
    if (interruptRequested()) throw interruptedStop();
}

bool OptimizationRun::closeResumedStart() {
    if (!resumed_ || startClosed_) return false;
    startClosed_ = true;
    previousIterationNll_ = lastNll_;
    const double gradNorm = projectedGradNorm(lastTheta_, lastGrad_);
    if (gradNorm <= settings_.grad_tol)
        throw StopOptimization{StopOptimization::Kind::Converged,
                               "projected gradient norm " + shortNumber(gradNorm) + " <= grad_tol"};
    stopIfAsked();
    return true;
}

void OptimizationRun::endIteration() {
    if (closeResumedStart()) return;
    const double previous = previousIterationNll_;
    previousIterationNll_ = lastNll_;
    const IterationReport report = reportIteration();
    using Kind = StopOptimization::Kind;
    if (report.gradNorm <= settings_.grad_tol)
        throw StopOptimization{Kind::Converged,
                               "projected gradient norm " + shortNumber(report.gradNorm) + " <= grad_tol"};
    if (report.iteration > 0 &&
        std::abs(previous - lastNll_) <= settings_.rel_tol * std::max(std::abs(lastNll_), 1.0))
        throw StopOptimization{Kind::Converged, "relative NLL change <= rel_tol"};
    stopAtIterationCap(report);
    stopIfAsked();
}

void OptimizationRun::endIterationAt(const std::vector<double>& theta, double nll,
                                     const std::vector<double>& grad,
                                     const std::optional<std::string>& converged,
                                     const std::vector<FamilyProgress>* families) {
    lastTheta_ = theta;
    lastGrad_ = grad;
    lastNll_ = nll;
    keepIfBest();
    if (closeResumedStart()) return;
    const IterationReport report = reportIteration(families);
    if (converged) throw StopOptimization{StopOptimization::Kind::Converged, *converged};
    stopAtIterationCap(report);
    stopIfAsked();
}

bool OptimizationRun::snapToLowerBound() {
    if (!haveBest_ || iteration_ > settings_.max_iter) return false;
    std::vector<double> candidate = bestTheta_, projected = bestGrad_;
    project(bestTheta_, projected);
    bool moved = false;
    for (std::size_t i = 0; i < candidate.size(); ++i) {
        if (projected[i] > 0 && candidate[i] < kLinearRegimeLog2Rate) {
            candidate[i] = lower_[i];
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
    restrictBackend({});
    if (modelTheta_ != bestTheta_) {
        // Leave the best point's evaluation (per-family values, gradient) in the model.
        std::vector<double> grad;
        model_.evaluateWithGradient(grad);
        ++evaluations_;
    }
    result.best = current_;
    result.bestNllBits = model_.lastEvaluation().totalNllBits;
    result.initialNllBits = initialNll_;
    result.iterations = std::max(iteration_ - 1, 0);
    result.evaluations = evaluations_;
    result.converged = stop.kind == StopOptimization::Kind::Converged;
    result.interrupted = stop.kind == StopOptimization::Kind::Interrupted;
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
