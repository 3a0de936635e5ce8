#pragma once
// Rate parameters θ = log2 of the (D, L, T) event rates (spec 3.1-3.3), in one of AleRax's
// parametrisations, and under --origination OPTIMIZE the log2 origination weights o_e (spec 6.1:
// O_e = o_e / Σ o). Every model quantity reads θ through an index: for (family, species node,
// event type) the θ entry it uses.
#include "model/event_softmax.hpp"
#include "model/highways.hpp"

#include <array>
#include <string>
#include <vector>

namespace gpurec {

// global|specieswise|genewise, or AleRax's GLOBAL|PER-SPECIES|PER-FAMILY; "classes" for a
// parametrisation read from a class file (model/parameter_classes.hpp).
RateMode parseRateMode(const std::string& text);
std::string toString(RateMode mode);

struct Rates {
    double d = 0.1, l = 0.1, t = 0.1;
};

// Per species node event probabilities of one family (spec 3.1), and per transfer highway its
// probability q_h (model/highways.hpp).
struct EventProbabilities {
    std::vector<double> pS, pD, pL, pT;
    std::vector<double> pH;
};

// The parameters of a class parametrisation (AleRax's custom --model-parametrization file): for
// each event type D, L, T (and O when origination is optimised) and species node, the θ entry it
// reads; what each entry is, and its name for files and checkpoints.
struct ParameterClassMap {
    std::array<std::vector<int>, 3> rateEntry; // per type D, L, T: per species node
    std::vector<int> originEntry;              // per species node; empty: origination not optimised
    std::vector<char> entryType;               // per θ entry: 'D', 'L', 'T' or 'O'
    std::vector<std::string> entryNames;       // per θ entry, e.g. "Node_A_B_0 D"
};

class RateParameters {
  public:
    RateParameters() = default;
    // One (D, L, T) row (global), one per species node (specieswise) or one per family
    // (genewise), each at `initial`. No origination weights.
    RateParameters(RateMode mode, int speciesCount, int familyCount, Rates initial);
    // A class parametrisation: classes of type D, L, T start at `initial`, classes of type O at
    // `originInitial` (the weight of each member node).
    RateParameters(ParameterClassMap classes, int speciesCount, Rates initial, double originInitial);

    RateMode mode() const { return mode_; }
    int speciesCount() const { return speciesCount_; }
    int familyCount() const { return familyCount_; }
    // Rows of (D, L, T) in the row modes (global, specieswise, genewise); 0 for classes.
    int rowCount() const { return rowCount_; }
    // Row of θ used by (family, species) in the row modes.
    int row(int family, int species) const { return rateRow(mode_, family, species); }
    std::vector<double>& theta() { return theta_; }
    const std::vector<double>& theta() const { return theta_; }
    Rates rates(int row) const; // row modes only
    void setRates(int row, Rates r);
    // The θ entry of event type k (0 = D, 1 = L, 2 = T) at (family, species node).
    int entry(int family, int species, int k) const {
        return mode_ == RateMode::Classes ? classes_.rateEntry[k][species] : 3 * row(family, species) + k;
    }
    // The rates (family, species node) reads, in any mode.
    Rates ratesAt(int family, int species) const;
    // The θ entry of each (event type, species node) of the shared modes, type-major (3 × S): what
    // the CUDA kernels read.
    std::vector<int> sharedEntries() const;
    // Probabilities of every species node for one family: base-2 softmax of [0, θD, θL, θT] and the
    // log2 rates of the node's `highways` (θ's highway entries), with the rates `present` lacks at 0.
    EventProbabilities probabilities(int family, PresentRates present,
                                     const std::vector<Highway>& highways = {}) const;
    // True when all families share the same probabilities (E can be shared).
    bool sharedAcrossFamilies() const { return mode_ != RateMode::Genewise; }

    // --origination OPTIMIZE: one log2 weight per species node, its own entry (specieswise) or a
    // class's. The rate modes add them after their rows with addOriginationPerNode.
    void addOriginationPerNode(double initialWeight);
    bool optimizesOrigination() const { return !originEntry_.empty(); }
    int originEntry(int species) const { return originEntry_.empty() ? -1 : originEntry_[species]; }
    // o_e of every species node (empty when origination is not optimised); the likelihood reads
    // them normalised (O_e = o_e / Σ o), so their scale does not matter.
    std::vector<double> originWeights() const;
    // Transfer highways: one log2 rate ρ_h per highway of the dataset (Dataset::highways), after the
    // rates and origination weights.
    void addHighways(int count, double initialRate);
    int highwayCount() const { return highwayCount_; }
    int highwayEntry(int h) const { return highwayCount_ > 0 ? highwayEntry_ + h : -1; }

    // Speciation rate categories (model/gamma_categories.hpp): the shape α of their Gamma
    // distribution, one entry log2 α at the end of θ.
    void addSpeciationShape(double alpha);
    int shapeEntry() const { return shapeEntry_; } // −1: one category, no shape
    double speciationShape() const;
    // θ of the category with speciation weight 2^log2Scaler: every rate and highway entry minus
    // log2Scaler (p^S = s / (s + δ + λ + τ + Σ ρ) is the model at rates divided by s), the shape
    // entry dropped.
    RateParameters category(double log2Scaler) const;
    // Whether entry i is a D, L or T rate (not an origination weight, a highway or the shape).
    bool isRateEntry(int i) const;
    bool isHighwayEntry(int i) const {
        return highwayCount_ > 0 && i >= highwayEntry_ && i < highwayEntry_ + highwayCount_;
    }
    // log2 bounds of every entry: rates and origination weights in [minRate, maxRate], the shape in
    // AleRax's [0.0201, 100].
    void entryBounds(double minRate, double maxRate, std::vector<double>& lower,
                     std::vector<double>& upper) const;

    // Entries after the rate rows in the row modes (origination weights, highways, the shape), or
    // every entry of a class parametrisation then those, by name: "O <node>", the class file's
    // "<node> <type>", "highway <h>", "alpha".
    std::vector<std::string> extraEntryNames(const std::vector<std::string>& speciesNames) const;
    const ParameterClassMap& classes() const { return classes_; }

  private:
    RateMode mode_ = RateMode::Global;
    int speciesCount_ = 0;
    int familyCount_ = 0;
    int rowCount_ = 0;
    std::vector<double> theta_;
    std::vector<int> originEntry_;
    int shapeEntry_ = -1;
    int highwayEntry_ = -1, highwayCount_ = 0;
    ParameterClassMap classes_; // classes mode only
};

// Zeroes gradient components that would push θ past an active bound (descent direction −grad).
void projectRateGradient(const std::vector<double>& theta, std::vector<double>& grad, double minRate,
                         double maxRate);
// Projects θ into [log2 minRate, log2 maxRate].
void clampLogRate(std::vector<double>& theta, double minRate, double maxRate);

} // namespace gpurec
