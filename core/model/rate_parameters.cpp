#include "model/rate_parameters.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpurec {

RateMode parseRateMode(const std::string& text) {
    if (text == "global" || text == "GLOBAL") return RateMode::Global;
    if (text == "specieswise" || text == "PER-SPECIES") return RateMode::Specieswise;
    if (text == "genewise" || text == "PER-FAMILY") return RateMode::Genewise;
    throw std::invalid_argument("unknown rate mode '" + text +
                                "' (expected global, specieswise or genewise)");
}

std::string toString(RateMode mode) {
    switch (mode) {
    case RateMode::Global:
        return "global";
    case RateMode::Specieswise:
        return "specieswise";
    case RateMode::Genewise:
        return "genewise";
    }
    return "?";
}

RateParameters::RateParameters(RateMode mode, int speciesCount, int familyCount, Rates initial)
    : mode_(mode), speciesCount_(speciesCount), familyCount_(familyCount) {
    int rows = mode == RateMode::Global ? 1 : mode == RateMode::Specieswise ? speciesCount : familyCount;
    theta_.resize(static_cast<std::size_t>(rows) * 3);
    for (int r = 0; r < rows; ++r)
        setRates(r, initial);
}

Rates RateParameters::rates(int row) const {
    return {std::exp2(theta_[3 * row]), std::exp2(theta_[3 * row + 1]), std::exp2(theta_[3 * row + 2])};
}

void RateParameters::setRates(int row, Rates r) {
    if (!(r.d > 0 && r.l > 0 && r.t > 0) || !std::isfinite(r.d + r.l + r.t))
        throw std::invalid_argument("rates must be positive and finite (got D=" + std::to_string(r.d) +
                                    ", L=" + std::to_string(r.l) + ", T=" + std::to_string(r.t) + ")");
    theta_[3 * row] = std::log2(r.d);
    theta_[3 * row + 1] = std::log2(r.l);
    theta_[3 * row + 2] = std::log2(r.t);
}

EventProbabilities RateParameters::probabilities(int family, PresentRates present) const {
    EventProbabilities p;
    p.pS.resize(speciesCount_);
    p.pD.resize(speciesCount_);
    p.pL.resize(speciesCount_);
    p.pT.resize(speciesCount_);
    for (int e = 0; e < speciesCount_; ++e) {
        const EventProbabilityRow q = eventProbabilities(theta_.data() + 3 * row(family, e), present);
        p.pS[e] = q.pS;
        p.pD[e] = q.pD;
        p.pL[e] = q.pL;
        p.pT[e] = q.pT;
    }
    return p;
}

void projectRateGradient(const std::vector<double>& theta, std::vector<double>& grad, double minRate,
                         double maxRate) {
    const double lo = std::log2(minRate), hi = std::log2(maxRate);
    for (std::size_t i = 0; i < theta.size() && i < grad.size(); ++i) {
        if ((theta[i] <= lo && grad[i] > 0) || (theta[i] >= hi && grad[i] < 0)) grad[i] = 0.0;
    }
}

void clampLogRate(std::vector<double>& theta, double minRate, double maxRate) {
    const double lo = std::log2(minRate), hi = std::log2(maxRate);
    for (double& t : theta)
        t = std::clamp(t, lo, hi);
}

} // namespace gpurec
