#pragma once
// Bookkeeping shared by the optimisers: evaluations on the model, the best θ, one report per
// iteration and the stopping rules (projected-gradient norm, relative NLL change, iteration cap,
// the caller's callback). Internal to core/optim.
#include "optim/optimizer.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace gpurec {

// Thrown out of OptimizationRun::endIteration when the run must stop.
struct StopOptimization {
    std::string reason;
    bool converged = false;
};

class OptimizationRun {
  public:
    OptimizationRun(ReconModel& model, const OptimizerSettings& settings, const ProgressCallback& progress);

    const OptimizerSettings& settings() const { return settings_; }
    const std::vector<double>& startTheta() const { return start_; }
    double lowerBound() const { return lower_; } // log2 of the rate bounds
    double upperBound() const { return upper_; }

    // NLL (bits) and gradient at θ projected into the bounds. The best point's values are cached,
    // so re-evaluating it (an L-BFGS-B restart) costs nothing.
    double evaluate(const std::vector<double>& theta, std::vector<double>& grad);
    // Closes an iteration at the last evaluated point: reports it and applies the stopping rules.
    // Throws StopOptimization.
    void endIteration();
    bool startReported() const { return iteration_ > 0; }

    const std::vector<double>& bestTheta() const { return bestTheta_; }
    double bestNll() const { return bestNll_; }
    // Leaves the best θ and its evaluation in the model and summarises the run.
    OptimizationResult finish(const std::string& reason, bool converged);

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
