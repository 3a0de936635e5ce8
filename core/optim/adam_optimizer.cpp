// Adam on θ = log2 rates, with the gradient projected at active bounds and θ clamped into them.
#include "optim/optimization_run.hpp"

#include <cmath>

namespace gpurec {

StopOptimization runAdam(OptimizationRun& run) {
    const OptimizerSettings& s = run.settings();
    std::vector<double> theta = run.startTheta(), grad;
    std::vector<double> m(theta.size(), 0.0), v(theta.size(), 0.0);
    for (int step = 1;; ++step) {
        run.evaluate(theta, grad);
        run.endIteration(); // throws StopOptimization, max_iter included
        run.project(theta, grad);
        const double correction1 = 1.0 - std::pow(s.beta1, step), correction2 = 1.0 - std::pow(s.beta2, step);
        for (std::size_t i = 0; i < theta.size(); ++i) {
            m[i] = s.beta1 * m[i] + (1.0 - s.beta1) * grad[i];
            v[i] = s.beta2 * v[i] + (1.0 - s.beta2) * grad[i] * grad[i];
            theta[i] -=
                s.learning_rate * (m[i] / correction1) / (std::sqrt(v[i] / correction2) + s.adam_epsilon);
        }
        run.clamp(theta);
    }
}

} // namespace gpurec
