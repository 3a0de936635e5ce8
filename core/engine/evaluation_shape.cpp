#include "engine/evaluation_shape.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace gpurec {

bool ratesFitDataset(const RateParameters& theta, const Dataset& data) {
    return theta.speciesCount() == data.species.size() &&
           (theta.mode() != RateMode::Genewise ||
            theta.familyCount() == static_cast<int>(data.families.size()));
}

void requireEvaluable(const Dataset& data, const RateParameters& theta, const SolverOptions& options,
                      const std::vector<double>* familyWeights) {
    options.validate();
    if (theta.shapeEntry() >= 0)
        throw std::invalid_argument(
            "this backend evaluates one speciation category: the gamma shape goes to the "
            "category mixture");
    if (familyWeights && familyWeights->size() != data.families.size())
        throw std::invalid_argument("family weights: " + std::to_string(familyWeights->size()) + " for " +
                                    std::to_string(data.families.size()) + " families");
    if (!ratesFitDataset(theta, data))
        throw std::invalid_argument("rate parameters do not match the dataset's shape");
    if (theta.highwayCount() != static_cast<int>(data.highways.size()))
        throw std::invalid_argument("the rate parameters hold " + std::to_string(theta.highwayCount()) +
                                    " highway rates for the dataset's " +
                                    std::to_string(data.highways.size()) + " highways");
    if (theta.optimizesOrigination() != (data.origination == Origination::Optimize))
        throw std::invalid_argument(
            theta.optimizesOrigination()
                ? "the rate parameters hold origination weights: they go with "
                  "--origination OPTIMIZE"
                : "--origination OPTIMIZE needs origination weights in the rate parameters");
}

void requireFamilies(const Dataset& data, const std::vector<int>& families) {
    const int count = static_cast<int>(data.families.size());
    for (int f : families)
        if (f < 0 || f >= count)
            throw std::out_of_range("family " + std::to_string(f) + " is not in the dataset (" +
                                    std::to_string(count) + " families)");
}

void requireSameFamilies(const Dataset& current, const Dataset& next) {
    const auto refuse = [](const std::string& why) {
        throw std::invalid_argument("cannot move the backend onto another dataset: " + why);
    };
    if (next.species.size() != current.species.size())
        refuse("its species tree has " + std::to_string(next.species.size()) + " nodes, not " +
               std::to_string(current.species.size()));
    if (next.transferConstraint != current.transferConstraint || next.events != current.events ||
        next.speciationCategories != current.speciationCategories)
        refuse("its transfer constraint or reconciliation model differs");
    if (next.families.size() != current.families.size())
        refuse("it has " + std::to_string(next.families.size()) + " families, not " +
               std::to_string(current.families.size()));
    for (std::size_t f = 0; f < next.families.size(); ++f) {
        const GeneFamily& a = current.families[f];
        const GeneFamily& b = next.families[f];
        if (a.cladeCount() != b.cladeCount() || a.splitCount() != b.splitCount())
            refuse("family " + next.families[f].name + " has another clade set");
    }
}

Evaluation emptyEvaluation(const Dataset& data, const RateParameters& theta, bool withGradient, double fill) {
    Evaluation out;
    out.logLikelihood.assign(data.families.size(), fill);
    if (withGradient) out.gradient.assign(theta.theta().size(), 0.0);
    return out;
}

void requireNeededFlags(const Dataset& data, const std::vector<char>& needed) {
    if (!needed.empty() && needed.size() != data.families.size())
        throw std::invalid_argument("needed families: " + std::to_string(needed.size()) + " flags for " +
                                    std::to_string(data.families.size()) + " families");
}

bool leavesFamiliesOut(const RateParameters& theta, const std::vector<char>& needed, bool withGradient) {
    // A forward evaluation's families are independent given E; a gradient is a sum over families
    // unless every family has rates of its own.
    return !needed.empty() &&
           (!withGradient || (theta.mode() == RateMode::Genewise && theta.highwayCount() == 0));
}

void finishEvaluation(Evaluation& out, const RateParameters& theta, const std::vector<char>& needed,
                      const SolverOptions& options, std::chrono::steady_clock::time_point start) {
    const bool leftOut = leavesFamiliesOut(theta, needed, !out.gradient.empty());
    const int F = static_cast<int>(out.logLikelihood.size());
    for (int f = 0; f < F && leftOut; ++f)
        if (!needed[f]) {
            out.logLikelihood[f] = 0.0;
            if (!out.gradient.empty())
                for (int k = 0; k < 3; ++k)
                    out.gradient[theta.entry(f, 0, k)] = 0.0;
        }
    finishEvaluation(out, options, start);
    for (int f = 0; f < F && leftOut; ++f)
        if (!needed[f]) out.logLikelihood[f] = std::numeric_limits<double>::quiet_NaN();
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
