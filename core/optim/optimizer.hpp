#pragma once
// Rate optimisation with analytic gradients under bounds: L-BFGS-B (LBFGSpp; for genewise rates an
// independent bounded BFGS per family, evaluated in lockstep) or Adam.
#include "optim/recon_model.hpp"

#include <functional>
#include <string>
#include <vector>

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
    double adam_epsilon = 1e-8; // Adam's denominator guard
    int lbfgsb_memory = 10;     // L-BFGS-B correction pairs
    bool warm_starts = true;    // false: clear the backend's E and Π̄ guesses before every evaluation
    // Keep the rates and origination weights at their start (AleRax's --fix-rates): only the
    // speciation categories' shape, if any, is fitted.
    bool fix_rates = false;
    // Keep the transfer highways' rates at their start (AleRax re-fits the rates with its accepted
    // highways held).
    bool fix_highways = false;
    // Genewise rates under L-BFGS-B: one bounded BFGS per family, all families' trial points in one
    // evaluation per iteration (false: one joint L-BFGS-B over every family's rates, much slower).
    bool lockstep_families = true;

    // Throws std::invalid_argument naming the field, its value and the valid range.
    void validate() const;
};

// Where one family's own search stands in a genewise L-BFGS-B run (lockstep, optim/family_bfgs.hpp).
enum class FamilyStatus { Searching, GradientConverged, ChangeConverged, NoDescent };
std::string toString(FamilyStatus status); // "searching", "converged (gradient)", ...

struct FamilyProgress {
    double nllBits = 0.0;  // at the family's accepted point
    double gradNorm = 0.0; // max norm of its projected gradient there
    int iterations = 0;    // rounds after the start in which its search was still going
    FamilyStatus status = FamilyStatus::Searching;
};

struct IterationReport {
    int iteration = 0; // 0: the starting point
    double nllBits = 0.0;
    double gradNorm = 0.0; // max norm of the projected gradient
    const RateParameters* theta = nullptr;
    const std::vector<double>* gradient = nullptr; // d NLL / dθ at theta (unprojected)
    SolverStats stats;
    int evaluations = 0;  // likelihood evaluations so far (line-search trials included)
    double seconds = 0.0; // since the start of the run
    // The lowest point so far (this one or an earlier one): what a checkpoint keeps.
    const std::vector<double>* bestTheta = nullptr;
    double bestNllBits = 0.0;
    double initialNllBits = 0.0; // at iteration 0
    // Genewise L-BFGS-B in lockstep only (else null): every family's own search, in family order.
    const std::vector<FamilyProgress>* families = nullptr;
};

struct OptimizationResult {
    RateParameters best; // best θ found (also left in the model, with its evaluation)
    double bestNllBits = 0.0;
    double initialNllBits = 0.0;
    int iterations = 0;
    int evaluations = 0;
    bool converged = false;
    bool interrupted = false; // stopped by SIGINT/SIGTERM (core/run/interruption.hpp)
    std::string stopReason;
    double seconds = 0.0;
};

// Called after every iteration; return false to stop (the best θ so far stays in the model).
using ProgressCallback = std::function<bool(const IterationReport&)>;

// Where an earlier run of the same problem stopped (from its checkpoint, optim/checkpoint.hpp).
// The model's θ must be that run's best point. Counts, the starting NLL and the clock continue;
// the algorithm restarts from the point: L-BFGS-B rebuilds its curvature memory, each family's
// BFGS its Hessian, Adam its moments. The point itself is not reported again.
struct ResumePoint {
    int iterations = 0; // iterations already reported (the next one's number)
    int evaluations = 0;
    double initialNllBits = 0.0;
    double seconds = 0.0;
};

// Minimises the model's total NLL from its current θ. Every rate is first projected into
// [min_rate, max_rate]. Under the alerax schedule the gradient is that of the converged equations
// (an approximation of the 4-sweep NLL's); the run then ends when no descent is found, keeping the best θ.
// A SIGINT/SIGTERM (interruptRequested()) stops the run before the next evaluation, except the first,
// so that there is always a best point; the run then ends with `interrupted` set.
OptimizationResult optimizeRates(ReconModel& model, const OptimizerSettings& settings,
                                 const ProgressCallback& progress = {}, const ResumePoint* resume = nullptr);

} // namespace gpurec
