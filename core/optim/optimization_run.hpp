#pragma once
// Bookkeeping shared by the optimisers: evaluations on the model, the best θ, one report per
// iteration and the stopping rules (projected-gradient norm, relative NLL change, iteration cap,
// the caller's callback). Internal to core/optim.
#include "optim/optimizer.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace gpurec {

// Why a run stops; thrown out of OptimizationRun::endIteration (and out of an evaluation once a
// signal has arrived), or returned by an algorithm that cannot progress.
struct StopOptimization {
    enum class Kind { Converged, NoProgress, IterationCap, Caller, Interrupted };
    Kind kind = Kind::NoProgress;
    std::string reason;
};

class OptimizationRun {
  public:
    OptimizationRun(ReconModel& model, const OptimizerSettings& settings, const ProgressCallback& progress,
                    const ResumePoint* resume);
    // Gives the backend every family again after evaluateFamilies restricted it.
    ~OptimizationRun();
    OptimizationRun(const OptimizationRun&) = delete;
    OptimizationRun& operator=(const OptimizationRun&) = delete;

    const OptimizerSettings& settings() const { return settings_; }
    // Where an algorithm (re)starts: the best point so far, else the clamped starting θ.
    const std::vector<double>& startTheta() const { return haveBest_ ? bestTheta_ : start_; }
    // log2 bounds of every entry of θ (RateParameters::entryBounds); the rates' are the settings'.
    const std::vector<double>& lowerBounds() const { return lower_; }
    const std::vector<double>& upperBounds() const { return upper_; }
    double rateLowerBound() const { return std::log2(settings_.min_rate); }
    double rateUpperBound() const { return std::log2(settings_.max_rate); }
    // θ into its bounds; the gradient's components that push past an active bound zeroed.
    void clamp(std::vector<double>& theta) const;
    void project(const std::vector<double>& theta, std::vector<double>& grad) const;

    // NLL (bits) and gradient at θ projected into the bounds. The best point's values are cached,
    // so re-evaluating it (an L-BFGS-B restart) costs nothing. Once a signal has arrived, throws
    // StopOptimization (Interrupted) instead of evaluating, unless there is no best point yet.
    double evaluate(const std::vector<double>& theta, std::vector<double>& grad);
    // Closes an iteration at the last evaluated point: reports it and applies the stopping rules
    // (convergence first, then the cap, then the caller's or a signal's stop). Throws
    // StopOptimization. A resumed run's starting point closes without a report.
    void endIteration();
    bool startReported() const { return startClosed_; }

    // Separable runs (genewise rates: each family's NLL depends on its own rates only). One
    // evaluation at θ (projected into the bounds) giving each family's NLL in bits and the gradient;
    // the point is neither reported nor kept as the best. `needed`, when given (ascending), are the
    // families whose results the caller still reads: the backend may leave the others out
    // (LikelihoodBackend::setNeededFamilies; their NLL NaN, their gradient 0), and finish() then
    // evaluates every family at the best point.
    std::vector<double> evaluateFamilies(const std::vector<double>& theta, std::vector<double>& grad,
                                         const std::vector<int>* needed = nullptr);
    // Closes an iteration at a point assembled from the families' accepted points, whose NLL and
    // gradient are known from the evaluations that accepted them: reports it, keeps it as the best
    // when lower, and stops the run (throws StopOptimization) for the caller, when `converged` holds
    // the algorithm's reason, or at max_iter. `families`, when given, goes into the report.
    void endIterationAt(const std::vector<double>& theta, double nll, const std::vector<double>& grad,
                        const std::optional<std::string>& converged,
                        const std::vector<FamilyProgress>* families = nullptr);

    // Polish: near a zero rate the NLL is linear in the rate, so in θ = log2 rate it flattens out
    // and the gradient test stops short of the bound. Moves every small rate (< 1e-4) whose
    // projected gradient still points down to the lower bound, in one evaluation; on a gain, closes
    // an iteration there (which may stop the run) and returns true.
    bool snapToLowerBound();

    const std::vector<double>& bestTheta() const { return bestTheta_; }
    double bestNll() const { return bestNll_; }
    // Leaves the best θ and its evaluation in the model and summarises the run.
    OptimizationResult finish(const StopOptimization& stop);
    // After a failure: leaves the best θ found so far (if any) in the model, without evaluating.
    void restoreBest();

  private:
    double projectedGradNorm(const std::vector<double>& theta, const std::vector<double>& grad) const;
    // Evaluates the model at a point within the bounds; counted and checked (only `checked`'s
    // families when given).
    double evaluateModel(const std::vector<double>& point, std::vector<double>& grad,
                         const std::vector<int>* checked = nullptr);
    // Passes `needed` (empty: every family) to the backend when it differs from what it holds.
    void restrictBackend(const std::vector<int>& needed);
    void keepIfBest();
    // Reports the last point as the next iteration; throws StopOptimization when the caller stops.
    IterationReport reportIteration(const std::vector<FamilyProgress>* families = nullptr);
    void stopAtIterationCap(const IterationReport& report) const;
    // The caller's callback said stop, or a signal arrived.
    void stopIfAsked() const;
    // True (and the start closed) for the first point of a resumed run, which its checkpoint holds.
    bool closeResumedStart();

    ReconModel& model_;
    OptimizerSettings settings_;
    const ProgressCallback& progress_;
    std::chrono::steady_clock::time_point started_;
    std::vector<double> lower_, upper_;
    RateParameters current_;
    std::vector<double> start_;
    std::vector<double> modelTheta_; // where the model's last evaluation is
    std::vector<double> lastTheta_, lastGrad_;
    double lastNll_ = 0.0;
    SolverStats lastStats_;
    std::vector<double> bestTheta_, bestGrad_;
    double bestNll_ = 0.0;
    SolverStats bestStats_;
    bool haveBest_ = false;
    std::vector<int> needed_; // the families the backend was last told are needed (setNeededFamilies)
    bool restricted_ = false; // it accepted a restriction that is still in force
    const bool resumed_;
    bool startClosed_ = false;
    bool callerStopped_ = false;
    int iteration_ = 0; // the next iteration to report
    int evaluations_ = 0;
    double initialNll_ = 0.0, previousIterationNll_ = 0.0;
};

// The algorithms; each runs until OptimizationRun stops it or it cannot progress, and returns the
// reason in the latter case. runGenewiseLockstep needs genewise θ of 3 rates per family and
// nothing else.
StopOptimization runLbfgsb(OptimizationRun& run);
StopOptimization runAdam(OptimizationRun& run);
StopOptimization runGenewiseLockstep(OptimizationRun& run);

} // namespace gpurec
