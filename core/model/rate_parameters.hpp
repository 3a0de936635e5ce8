#pragma once
// Rate parameters θ = log2 of the (D, L, T) event rates, in one of three shapes (spec 3.2-3.3).
#include "model/event_softmax.hpp"

#include <string>
#include <vector>

namespace gpurec {

RateMode parseRateMode(
    const std::string& text); // global|specieswise|genewise, or AleRax's GLOBAL|PER-SPECIES|PER-FAMILY
std::string toString(RateMode mode);

struct Rates {
    double d = 0.1, l = 0.1, t = 0.1;
};

// Per species node event probabilities of one family (spec 3.1).
struct EventProbabilities {
    std::vector<double> pS, pD, pL, pT;
};

class RateParameters {
  public:
    RateParameters() = default;
    RateParameters(RateMode mode, int speciesCount, int familyCount, Rates initial);

    RateMode mode() const { return mode_; }
    int speciesCount() const { return speciesCount_; }
    int familyCount() const { return familyCount_; }
    int rowCount() const { return static_cast<int>(theta_.size() / 3); }
    // Row of θ used by (family, species).
    int row(int family, int species) const { return rateRow(mode_, family, species); }
    std::vector<double>& theta() { return theta_; }
    const std::vector<double>& theta() const { return theta_; }
    Rates rates(int row) const;
    void setRates(int row, Rates r);
    // Probabilities of every species node for one family: base-2 softmax of [0, θD, θL, θT], with
    // the rates `present` lacks at 0.
    EventProbabilities probabilities(int family, PresentRates present) const;
    // True when all families share the same probabilities (E can be shared).
    bool sharedAcrossFamilies() const { return mode_ != RateMode::Genewise; }

  private:
    RateMode mode_ = RateMode::Global;
    int speciesCount_ = 0;
    int familyCount_ = 0;
    std::vector<double> theta_;
};

// Zeroes gradient components that would push θ past an active bound (descent direction −grad).
void projectRateGradient(const std::vector<double>& theta, std::vector<double>& grad, double minRate,
                         double maxRate);
// Projects θ into [log2 minRate, log2 maxRate].
void clampLogRate(std::vector<double>& theta, double minRate, double maxRate);

} // namespace gpurec
