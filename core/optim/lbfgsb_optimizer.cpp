// L-BFGS-B through LBFGSpp, on θ = log2 rates with box bounds [log2 min_rate, log2 max_rate].
#include "optim/optimization_run.hpp"

#include <Eigen/Core>
#include <LBFGSB.h>
#include <cmath>
#include <stdexcept>

namespace gpurec {

namespace {

using Vector = Eigen::VectorXd;

// A failed line search restarts L-BFGS-B from the best point with a fresh memory; the run ends
// after this many failures in a row that gain nothing, or this many restarts in all.
constexpr int kFruitlessRestarts = 2;
constexpr int kMaxRestarts = 20;

struct Objective {
    OptimizationRun& run;
    std::vector<double> theta, grad;

    double operator()(const Vector& x, Vector& g) {
        theta.assign(x.data(), x.data() + x.size());
        const double nll = run.evaluate(theta, grad);
        g = Eigen::Map<const Vector>(grad.data(), static_cast<Eigen::Index>(grad.size()));
        if (!run.startReported()) run.endIteration();
        return nll;
    }
};

// LBFGSpp has no per-iteration callback, but its line search is a template parameter: this one
// closes an iteration each time a More-Thuente line search returns, at the accepted point (which
// is always the last point evaluated).
template <typename Scalar> class ReportingLineSearch {
  public:
    template <typename Function>
    static void LineSearch(Function& f, Scalar& fx, Vector& x, Vector& grad, Scalar& step,
                           const Scalar& stepMax, const Vector& drt, const Vector& xp,
                           const LBFGSpp::LBFGSBParam<Scalar>& param) {
        LBFGSpp::LineSearchMoreThuente<Scalar>::LineSearch(f, fx, x, grad, step, stepMax, drt, xp, param);
        f.run.endIteration();
    }
};

} // namespace

StopOptimization runLbfgsb(OptimizationRun& run) {
    const OptimizerSettings& s = run.settings();
    LBFGSpp::LBFGSBParam<double> param;
    param.m = s.lbfgsb_memory;
    // OptimizationRun applies every stopping rule; LBFGSpp's own tests are switched off.
    param.epsilon = 0;
    param.epsilon_rel = 0;
    param.past = 0;
    param.max_iterations = 0;
    param.max_linesearch = 30;
    LBFGSpp::LBFGSBSolver<double, ReportingLineSearch> solver(param);

    const Eigen::Index n = static_cast<Eigen::Index>(run.startTheta().size());
    const Vector lower = Eigen::Map<const Vector>(run.lowerBounds().data(), n),
                 upper = Eigen::Map<const Vector>(run.upperBounds().data(), n);
    Objective objective{run, {}, {}};
    Vector x = Eigen::Map<const Vector>(run.startTheta().data(), n);
    int fruitless = 0;
    std::string lastFailure;
    for (int restart = 0; restart <= kMaxRestarts; ++restart) {
        const bool started = run.startReported();
        const double before = run.bestNll();
        try {
            double fx = 0;
            solver.minimize(objective, x, fx, lower, upper);
            return {StopOptimization::Kind::Converged, "L-BFGS-B ended"};
        } catch (const std::exception& e) {
            // Without a first point (its NLL not finite, say) there is nothing to restart from.
            if (!run.startReported()) throw;
            // LBFGSpp reports a line search that found no acceptable step by throwing. Under an
            // approximate gradient (alerax schedule) this is how the run ends near the optimum.
            lastFailure = e.what();
        }
        const double gain = started ? before - run.bestNll() : 0.0;
        fruitless = gain > s.rel_tol * std::max(std::abs(run.bestNll()), 1.0) ? 0 : fruitless + 1;
        if (fruitless >= kFruitlessRestarts) break;
        x = Eigen::Map<const Vector>(run.startTheta().data(), n); // the best point
    }
    return {StopOptimization::Kind::NoProgress,
            "line search found no further decrease (" + lastFailure + ")"};
}

} // namespace gpurec
