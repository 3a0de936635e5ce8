#pragma once
// Bookkeeping shared by the optimisers: evaluations on the model, the best θ, one report per
// iteration and the stopping rules (projected-gradient norm, relative NLL change, iteration cap,
// the caller's callback). Internal to core/optim.
#include "optim/optimizer.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace gpurec {

// Why a run stops; thrown out of OptimizationRun::endIteration, or returned by an algorithm that
// cannot progress.
struct StopOptimization {
    enum class Kind { Converged, NoProgress, IterationCap, Caller };
    Kind kind = Kind::NoProgress;
    std::string reason;
};

class OptimizationRun {
  public:
    OptimizationRun(ReconModel& model, const OptimizerSettings& settings, const ProgressCallback& progress);

    const OptimizerSettings& settings() const { return settings_; }
    // Where an algorithm (re)starts: the best point so far, else the clamped starting θ.
    const std::vector<double>& startTheta() const { return haveBest_ ? bestTheta_ : start_; }
    double lowerBound() const { return lower_; } // log2 of the rate bounds
    double upperBound() const { return upper_; }

    // NLL (bits) and gradient at θ projected into the bounds. The best point's values are cached,
    // so re-evaluating it (an L-BFGS-B restart) costs nothing.
    double evaluate(const std::vector<double>& theta, std::vector<double>& grad);
    // Closes an iteration at the last evaluated point: reports it and applies the stopping rules.
    // Throws StopOptimization.
    void endIteration();
    bool startReported() const { return iteration_ > 0; }

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

    ReconModel& model_;
    OptimizerSettings settings_;
    const ProgressCallback& progress_;
    std::chrono::steady_clock::time_point started_;
    double lower_, upper_;
    RateParameters current_;
    std::vector<double> start_;
    std::vector<double> lastTheta_, lastGrad_;
    double lastNll_ = 0.0;
    SolverStats lastStats_;
    std::vector<double> bestTheta_, bestGrad_;
    double bestNll_ = 0.0;
    SolverStats bestStats_;
    bool haveBest_ = false;
    int iteration_ = 0; // the next iteration to report
    int evaluations_ = 0;
    double initialNll_ = 0.0, previousIterationNll_ = 0.0;
};

// The two algorithms; each runs until OptimizationRun stops it or it cannot progress, and returns
// the reason in the latter case.
StopOptimization runLbfgsb(OptimizationRun& run);
StopOptimization runAdam(OptimizationRun& run);

} // namespace gpurec
