#pragma once
// One gene family's bounded quasi-Newton search over its three log2 rates (D, L, T), driven from
// outside: the caller evaluates trial() (together with every other family's trial, in one backend
// evaluation) and hands the family's own NLL and gradient back to update(). Internal to core/optim.
#include <Eigen/Core>

namespace gpurec {

class FamilyBfgs {
  public:
    using Vector = Eigen::Vector3d;
    struct Limits {
        double lower = 0.0, upper = 0.0;    // bounds on every component (log2 rates)
        double gradTol = 0.0, relTol = 0.0; // as in OptimizerSettings, applied to this family alone
    };
    enum class Outcome { Searching, GradientConverged, ChangeConverged, NoDescent };

    FamilyBfgs(const Vector& start, const Limits& limits);

    // The point to evaluate next: a line-search trial, a snap onto the lower bound, or (once the
    // search has ended) the accepted point.
    const Vector& trial() const { return trial_; }
    // The family's NLL (bits) and gradient at trial(); ignored once the search has ended.
    void update(double nll, const Vector& grad);

    Outcome outcome() const { return outcome_; }
    bool ended() const { return outcome_ != Outcome::Searching; }
    const Vector& accepted() const { return x_; }
    double acceptedNll() const { return f_; }
    const Vector& acceptedGradient() const { return g_; }

  private:
    enum class Phase { Start, LineSearch, Snap, Ended };

    void accept(double nll, const Vector& grad);
    void startStep();
    void searchAlong(const Vector& direction);
    void backtrack(double nll);
    void learnCurvature(const Vector& s, const Vector& y);
    void end(Outcome outcome);
    Vector projected(const Vector& point) const;
    bool held(int i) const;
    bool snapHolds(double nll, const Vector& grad) const; // at a bound that the gradient pushes against

    Limits limits_;
    Phase phase_ = Phase::Start;
    Outcome outcome_ = Outcome::Searching;
    Vector x_, g_ = Vector::Zero(), trial_;
    double f_ = 0.0;
    Eigen::Matrix3d hessian_ = Eigen::Matrix3d::Identity(); // BFGS approximation of the NLL's Hessian
    bool freshHessian_ = true;                              // no curvature pair learnt since the (re)start
    Vector direction_ = Vector::Zero();
    double step_ = 1.0;
    int backtracks_ = 0;
    Vector snapBelow_; // per component: a snap is tried only below this log2 rate
};

} // namespace gpurec
