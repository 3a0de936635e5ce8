#include "engine/evaluation_shape.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace gpurec {

bool ratesFitDataset(const RateParameters& theta, const Dataset& data) {
    return theta.speciesCount() == data.species.size() &&
           (theta.mode() != RateMode::Genewise ||
            theta.familyCount() == static_cast<int>(data.families.size()));
}

void requireEvaluable(const Dataset& data, const RateParameters& theta, const SolverOptions& options) {
    options.validate();
    if (!ratesFitDataset(theta, data))
        throw std::invalid_argument("rate parameters do not match the dataset's shape");
}

void requireFamilies(const Dataset& data, const std::vector<int>& families) {
    const int count = static_cast<int>(data.families.size());
    for (int f : families)
        if (f < 0 || f >= count)
            throw std::out_of_range("family " + std::to_string(f) + " is not in the dataset (" +
                                    std::to_string(count) + " families)");
}

Evaluation emptyEvaluation(const Dataset& data, const RateParameters& theta, bool withGradient, double fill) {
    Evaluation out;
    out.logLikelihood.assign(data.families.size(), fill);
    if (withGradient) out.gradient.assign(theta.theta().size(), 0.0);
    return out;
}

void finishEvaluation(Evaluation& out, const SolverOptions& options,
                      std::chrono::steady_clock::time_point start) {
    out.totalLogLikelihood = 0.0;
    for (double ll : out.logLikelihood)
        out.totalLogLikelihood += ll;
    out.totalNllBits = -out.totalLogLikelihood / std::log(2.0);
    out.stats.setLimits(options);
    out.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace gpurec
