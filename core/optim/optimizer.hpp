#pragma once
// Rate optimisation with analytic gradients under bounds: L-BFGS-B (LBFGSpp) or Adam.
#include "optim/recon_model.hpp"

#include <functional>
#include <string>

namespace gpurec {

enum class OptimizerKind { Lbfgsb, Adam };
OptimizerKind parseOptimizerKind(const std::string& text); // lbfgsb | adam
std::string toString(OptimizerKind kind);

struct OptimizerSettings {
    OptimizerKind kind = OptimizerKind::Lbfgsb;
    int max_iter = 100;
    double grad_tol = 1e-5;  // stop when the projected gradient's max norm is below this (bits per log2 unit)
    double rel_tol = 1e-10;  // stop when the relative NLL change of an iteration is below this
    double min_rate = 1e-10; // bounds on every rate (AleRax's defaults)
    double max_rate = 2.0;
    double learning_rate = 0.1; // Adam, in log2-rate units
    double beta1 = 0.9, beta2 = 0.999;
};

struct IterationReport {
    int iteration = 0;
    double nllBits = 0.0;
    double gradNorm = 0.0; // max norm of the projected gradient
    const RateParameters* theta = nullptr;
    SolverStats stats;
    double seconds = 0.0; // since the start of the run
};

struct OptimizationResult {
    RateParameters best; // best θ found (also left in the model)
    double bestNllBits = 0.0;
    int iterations = 0;
    bool converged = false;
    std::string stopReason;
};

// Called after every iteration; return false to stop (the best θ so far stays in the model).
using ProgressCallback = std::function<bool(const IterationReport&)>;

OptimizationResult optimizeRates(ReconModel& model, const OptimizerSettings& settings,
                                 const ProgressCallback& progress = {});

} // namespace gpurec
