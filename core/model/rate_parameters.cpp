#include "model/rate_parameters.hpp"

#include "model/gamma_categories.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpurec {

RateMode parseRateMode(const std::string& text) {
    if (text == "global" || text == "GLOBAL") return RateMode::Global;
    if (text == "specieswise" || text == "PER-SPECIES") return RateMode::Specieswise;
    if (text == "genewise" || text == "PER-FAMILY") return RateMode::Genewise;
    if (text == "classes") return RateMode::Classes;
    throw std::invalid_argument("unknown rate mode '" + text +
                                "' (expected global, specieswise, genewise or classes)");
}

std::string toString(RateMode mode) {
    switch (mode) {
    case RateMode::Global:
        return "global";
    case RateMode::Specieswise:
        return "specieswise";
    case RateMode::Genewise:
        return "genewise";
    case RateMode::Classes:
        return "classes";
    }
    return "?";
}

namespace {

// log2 of a rate bound, moved inward by ulps where 2^θ would round outside it: a rate fitted to its
// bound is written inside the range the options accept (2^log2(1e-10) is 9.99…e-11).
double log2Lower(double rate) {
    double t = std::log2(rate);
    while (std::exp2(t) < rate)
        t = std::nextafter(t, INFINITY);
    return t;
}
double log2Upper(double rate) {
    double t = std::log2(rate);
    while (std::exp2(t) > rate)
        t = std::nextafter(t, -INFINITY);
    return t;
}

double logOf(double rate, const char* what) {
    if (!(rate > 0) || !std::isfinite(rate))
        throw std::invalid_argument(std::string(what) + " must be positive and finite (got " +
                                    std::to_string(rate) + ")");
    return std::log2(rate);
}

} // namespace

RateParameters::RateParameters(RateMode mode, int speciesCount, int familyCount, Rates initial)
    : mode_(mode), speciesCount_(speciesCount), familyCount_(familyCount) {
    if (mode == RateMode::Classes)
        throw std::invalid_argument("a class parametrisation is built from its class map");
    rowCount_ = mode == RateMode::Global ? 1 : mode == RateMode::Specieswise ? speciesCount : familyCount;
    theta_.resize(static_cast<std::size_t>(rowCount_) * 3);
    for (int r = 0; r < rowCount_; ++r)
        setRates(r, initial);
}

RateParameters::RateParameters(ParameterClassMap classes, int speciesCount, Rates initial,
                               double originInitial)
    : mode_(RateMode::Classes), speciesCount_(speciesCount), classes_(std::move(classes)) {
    const std::size_t entries = classes_.entryType.size();
    if (classes_.entryNames.size() != entries)
        throw std::invalid_argument("class map: one name per entry expected");
    for (const std::vector<int>& perNode : classes_.rateEntry)
        if (perNode.size() != static_cast<std::size_t>(speciesCount))
            throw std::invalid_argument("class map: one entry per species node expected");
    theta_.resize(entries);
    for (std::size_t i = 0; i < entries; ++i) {
        switch (classes_.entryType[i]) {
        case 'D':
            theta_[i] = logOf(initial.d, "rates");
            break;
        case 'L':
            theta_[i] = logOf(initial.l, "rates");
            break;
        case 'T':
            theta_[i] = logOf(initial.t, "rates");
            break;
        default:
            theta_[i] = logOf(originInitial, "origination weights");
        }
    }
    originEntry_ = classes_.originEntry;
}

Rates RateParameters::rates(int row) const {
    if (mode_ == RateMode::Classes) throw std::logic_error("a class parametrisation has no rows");
    return {std::exp2(theta_[3 * row]), std::exp2(theta_[3 * row + 1]), std::exp2(theta_[3 * row + 2])};
}

void RateParameters::setRates(int row, Rates r) {
    if (mode_ == RateMode::Classes) throw std::logic_error("a class parametrisation has no rows");
    if (!(r.d > 0 && r.l > 0 && r.t > 0) || !std::isfinite(r.d + r.l + r.t))
        throw std::invalid_argument("rates must be positive and finite (got D=" + std::to_string(r.d) +
                                    ", L=" + std::to_string(r.l) + ", T=" + std::to_string(r.t) + ")");
    theta_[3 * row] = std::log2(r.d);
    theta_[3 * row + 1] = std::log2(r.l);
    theta_[3 * row + 2] = std::log2(r.t);
}

Rates RateParameters::ratesAt(int family, int species) const {
    return {std::exp2(theta_[entry(family, species, 0)]), std::exp2(theta_[entry(family, species, 1)]),
            std::exp2(theta_[entry(family, species, 2)])};
}

std::vector<int> RateParameters::sharedEntries() const {
    std::vector<int> out(3 * static_cast<std::size_t>(speciesCount_));
    for (int k = 0; k < 3; ++k)
        for (int e = 0; e < speciesCount_; ++e)
            out[static_cast<std::size_t>(k) * speciesCount_ + e] = entry(0, e, k);
    return out;
}

EventProbabilities RateParameters::probabilities(int family, PresentRates present,
                                                 const std::vector<Highway>& highways) const {
    if (static_cast<int>(highways.size()) != highwayCount_)
        throw std::invalid_argument("the rate parameters hold " + std::to_string(highwayCount_) +
                                    " highway rates for " + std::to_string(highways.size()) + " highways");
    EventProbabilities p;
    p.pS.resize(speciesCount_);
    p.pD.resize(speciesCount_);
    p.pL.resize(speciesCount_);
    p.pT.resize(speciesCount_);
    std::vector<double> extra(speciesCount_, 0.0), z(speciesCount_, 1.0);
    for (int h = 0; h < highwayCount_; ++h)
        extra[highways[h].source] += std::exp2(theta_[highwayEntry(h)]);
    for (int e = 0; e < speciesCount_; ++e) {
        const double logRates[3] = {theta_[entry(family, e, 0)], theta_[entry(family, e, 1)],
                                    theta_[entry(family, e, 2)]};
        const EventProbabilityRow q = eventProbabilities(logRates, present, extra[e]);
        p.pS[e] = q.pS;
        p.pD[e] = q.pD;
        p.pL[e] = q.pL;
        p.pT[e] = q.pT;
        z[e] = 1.0 / q.pS;
    }
    p.pH.resize(highwayCount_);
    for (int h = 0; h < highwayCount_; ++h)
        p.pH[h] = std::exp2(theta_[highwayEntry(h)]) / z[highways[h].source];
    return p;
}

void RateParameters::addOriginationPerNode(double initialWeight) {
    if (shapeEntry_ >= 0 || highwayCount_ > 0)
        throw std::logic_error("origination weights come before the highways and the speciation shape");
    if (mode_ == RateMode::Genewise)
        throw std::invalid_argument(
            "origination weights are shared by the families: not with per-family rates");
    if (mode_ == RateMode::Classes || optimizesOrigination())
        throw std::logic_error("origination weights are already part of these parameters");
    const double value = logOf(initialWeight, "origination weights");
    originEntry_.resize(speciesCount_);
    for (int e = 0; e < speciesCount_; ++e) {
        originEntry_[e] = static_cast<int>(theta_.size());
        theta_.push_back(value);
    }
}

std::vector<double> RateParameters::originWeights() const {
    std::vector<double> out(originEntry_.size());
    for (std::size_t e = 0; e < out.size(); ++e)
        out[e] = std::exp2(theta_[originEntry_[e]]);
    return out;
}

void RateParameters::addHighways(int count, double initialRate) {
    if (shapeEntry_ >= 0) throw std::logic_error("the speciation shape stays θ's last entry");
    if (highwayCount_ > 0) throw std::logic_error("the highways are already part of these parameters");
    const double value = logOf(initialRate, "highway rates");
    highwayEntry_ = static_cast<int>(theta_.size());
    highwayCount_ = count;
    theta_.insert(theta_.end(), count, value);
}

void RateParameters::addSpeciationShape(double alpha) {
    if (shapeEntry_ >= 0) throw std::logic_error("the speciation shape is already part of these parameters");
    if (!(alpha >= kMinGammaAlpha && alpha <= kMaxGammaAlpha))
        throw std::invalid_argument("the speciation gamma shape must be in [0.0201, 100], got " +
                                    std::to_string(alpha));
    shapeEntry_ = static_cast<int>(theta_.size());
    theta_.push_back(std::log2(alpha));
}

double RateParameters::speciationShape() const {
    return shapeEntry_ < 0 ? 1.0 : std::exp2(theta_[shapeEntry_]);
}

bool RateParameters::isRateEntry(int i) const {
    if (mode_ == RateMode::Classes)
        return i < static_cast<int>(classes_.entryType.size()) && classes_.entryType[i] != 'O';
    return i < 3 * rowCount_;
}

RateParameters RateParameters::category(double log2Scaler) const {
    RateParameters out = *this;
    if (shapeEntry_ >= 0) {
        out.theta_.pop_back();
        out.shapeEntry_ = -1;
    }
    for (int i = 0; i < static_cast<int>(out.theta_.size()); ++i)
        if (isRateEntry(i) || isHighwayEntry(i)) out.theta_[i] -= log2Scaler;
    return out;
}

void RateParameters::entryBounds(double minRate, double maxRate, std::vector<double>& lower,
                                 std::vector<double>& upper) const {
    lower.assign(theta_.size(), log2Lower(minRate));
    upper.assign(theta_.size(), log2Upper(maxRate));
    if (shapeEntry_ >= 0) {
        lower[shapeEntry_] = std::log2(kMinGammaAlpha);
        upper[shapeEntry_] = std::log2(kMaxGammaAlpha);
    }
}

std::vector<std::string> RateParameters::extraEntryNames(const std::vector<std::string>& speciesNames) const {
    std::vector<std::string> names;
    if (mode_ == RateMode::Classes)
        names = classes_.entryNames;
    else
        for (std::size_t e = 0; e < originEntry_.size(); ++e)
            names.push_back("O " + speciesNames.at(e));
    for (int h = 0; h < highwayCount_; ++h)
        names.push_back("highway " + std::to_string(h + 1));
    if (shapeEntry_ >= 0) names.emplace_back("alpha");
    return names;
}

void projectRateGradient(const std::vector<double>& theta, std::vector<double>& grad, double minRate,
                         double maxRate) {
    const double lo = log2Lower(minRate), hi = log2Upper(maxRate);
    for (std::size_t i = 0; i < theta.size() && i < grad.size(); ++i) {
        if ((theta[i] <= lo && grad[i] > 0) || (theta[i] >= hi && grad[i] < 0)) grad[i] = 0.0;
    }
}

void clampLogRate(std::vector<double>& theta, double minRate, double maxRate) {
    const double lo = log2Lower(minRate), hi = log2Upper(maxRate);
    for (double& t : theta)
        t = std::clamp(t, lo, hi);
}

} // namespace gpurec
