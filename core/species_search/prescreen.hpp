#pragma once
// Pre-screening of SPR candidates on a fraction of the families (docs/species-search.md,
// "Pre-screening"): the candidate's change of the total log-likelihood is estimated from a sample
// of the families, with its standard error, and the candidate is scored on every family only when
// the estimate plus z standard errors would be an improvement. z is learned from the candidates
// scored both ways, so it widens by itself where the estimates err more than their errors say.
#include "data/dataset.hpp"

#include <vector>

namespace gpurec {

// round(fraction × families) families (at least two, where there are), spread evenly over the
// families sorted by cost (clades + splits, ties by index) so that the sizes are represented as in
// the whole set; in increasing index order. `fraction` in (0, 1).
std::vector<int> screeningFamilies(const Dataset& data, double fraction);
// The families the confirming stage adds to `screening` (SpeciesSearchSettings::prescreenConfirm),
// so that both together are `factor` times as many; spread over the other families as
// screeningFamilies spreads its own. Empty when that adds fewer than two or reaches every family.
std::vector<int> confirmingFamilies(const Dataset& data, const std::vector<int>& screening, double factor);

// The estimate from the screening families of a candidate's change of the total log-likelihood.
struct ScreeningEstimate {
    double change = 0.0;        // the sampled families' mean change × the number of families
    double standardError = 0.0; // of that total (sampling without replacement); +inf below 2 families
};

// Which of the sampled families a candidate's screen evaluates, and how its estimate is formed.
// A move changes the log-likelihood of the families with genes below the branches it moves by far
// the most; the others change only through E, by little. The sample is then split into those two
// strata (post-stratification, with the strata's sizes over all families known): every sampled
// family of the touched stratum is evaluated, of the others every `untouchedStride`-th.
struct ScreenPlan {
    std::vector<char> needed;  // per sampled family (Prescreen::families() order); empty: every one
    std::vector<char> touched; // per sampled family: in the touched stratum; empty: one stratum
    int touchedFamilies = 0;   // of all families, in the touched stratum
    int neededCount() const;   // the families the screen evaluates
};

// What a Prescreen has learned from the candidates scored both ways (its z), kept with a search's
// checkpoint so that a resumed search screens as the uninterrupted one.
struct PrescreenCalibration {
    int observed = 0;
    int above = 0;
    double squaredErrors = 0.0;
};

class Prescreen {
  public:
    // Candidates scored both ways before the rule applies, and z's least value.
    static constexpr int calibrationCandidates = 20;
    static constexpr double minimumZ = 4.0;
    // Below this many sampled families in the touched stratum its variance is too rough to trust:
    // the screen evaluates the whole sample as one stratum.
    static constexpr int minimumTouched = 10;
    static constexpr int untouchedStride = 16;

    // `families`: the sampled families, in the order estimate() is given their values.
    Prescreen(std::vector<int> families, int familyCount);
    const std::vector<int>& families() const { return families_; }

    // The screen of a candidate whose move touches the families flagged in `touched` (one flag per
    // family of the dataset; empty: it touches every family, as a root move nearly does).
    ScreenPlan plan(const std::vector<char>& touched) const;
    // From the screening families' log-likelihoods on the candidate (`screened`, in families()
    // order; those the plan does not need are not read) and on the current tree (`current`, every
    // family's). Throws std::logic_error when a family the plan needs is NaN (not evaluated).
    ScreeningEstimate estimate(const std::vector<double>& screened, const std::vector<double>& current,
                               const ScreenPlan& plan = {}) const;
    // Whether the candidate is scored on every family: always while calibrating, then when
    // change + z()·standardError > 0. A family impossible on the candidate (−inf) leaves it out.
    bool worthScoring(const ScreeningEstimate& e) const;
    // Records a candidate scored both ways: its estimate and its exact change.
    void observe(const ScreeningEstimate& e, double exact);
    // minimumZ × the root-mean-square of the standardised errors (exact − change) / standardError
    // seen above zero (the candidate better than its estimate: the only errors that can hide an
    // improvement), where that is above 1.
    double z() const;
    int observed() const { return observed_; }
    PrescreenCalibration calibration() const { return {observed_, above_, squaredErrors_}; }
    // Throws std::invalid_argument for counts no sequence of observe() calls gives.
    void restore(const PrescreenCalibration& c);

  private:
    std::vector<int> families_;
    int familyCount_;
    int observed_ = 0;
    int above_ = 0;              // of them, better than their estimate
    double squaredErrors_ = 0.0; // of those standardised errors
};

} // namespace gpurec
