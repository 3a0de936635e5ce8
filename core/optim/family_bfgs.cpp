// Projected BFGS with an Armijo line search on the projected path. The Hessian approximation (not
// its inverse) is kept so that a step with some components held at a bound solves the free block
// exactly; Powell's damping keeps it positive definite where the NLL is not convex.
#include "optim/family_bfgs.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>

namespace gpurec {

namespace {
constexpr double kFirstStepLog2 = 1.0; // max norm of a step taken without curvature information
constexpr double kArmijo = 1e-4;       // sufficient decrease, relative to the linear prediction
// Backtracks before a steepest-descent restart, and after it before giving up: under the alerax
// schedule's approximate gradient, more would only spend rounds.
constexpr int kMaxBacktracks = 3;
constexpr double kMinShrink = 0.1, kMaxShrink = 0.5; // bounds on one backtrack's step factor
// Snaps onto the lower bound are tried from rates below 1e-3, higher than the joint fit's 1e-4: a
// snap is kept only when it lowers the NLL and the gradient at the bound still pushes against it (the
// bound then minimises a convex profile in that rate), and the sooner a zero rate is snapped, the
// fewer rounds its family needs. After a failed snap, that rate is retried only 16x lower.
const double kFirstSnapLog2Rate = std::log2(1e-3);
constexpr double kSnapRetryDrop = 4.0;
} // namespace

FamilyBfgs::FamilyBfgs(const Vector& start, const Limits& limits)
    : limits_(limits), x_(start), trial_(start), snapBelow_(Vector::Constant(kFirstSnapLog2Rate)) {}

void FamilyBfgs::update(double nll, const Vector& grad) {
    switch (phase_) {
    case Phase::Ended:
        return;
    case Phase::Start:
        accept(nll, grad);
        break;
    case Phase::Snap:
        if (snapHolds(nll, grad)) {
            accept(nll, grad); // the jump says nothing about curvature: no BFGS update
        } else {
            for (int i = 0; i < 3; ++i)
                if (trial_[i] != x_[i]) snapBelow_[i] = x_[i] - kSnapRetryDrop;
        }
        break;
    case Phase::LineSearch: {
        const Vector s = trial_ - x_;
        if (!(nll < f_ && nll <= f_ + kArmijo * g_.dot(s))) return backtrack(nll);
        const double change = f_ - nll;
        learnCurvature(s, grad - g_);
        accept(nll, grad);
        if (change <= limits_.relTol * std::max(std::abs(nll), 1.0)) return end(Outcome::ChangeConverged);
        break;
    }
    }
    startStep();
}

void FamilyBfgs::accept(double nll, const Vector& grad) {
    x_ = trial_;
    f_ = nll;
    g_ = grad;
}

// A snap holds when it lowers the NLL and leaves every snapped rate pushed against the bound; a
// gradient pointing back inside means an optimum between the bound and the old rate.
bool FamilyBfgs::snapHolds(double nll, const Vector& grad) const {
    if (!(nll < f_)) return false;
    for (int i = 0; i < 3; ++i)
        if (trial_[i] != x_[i] && !(grad[i] > 0)) return false;
    return true;
}

bool FamilyBfgs::held(int i) const {
    return (x_[i] <= limits_.lower && g_[i] > 0) || (x_[i] >= limits_.upper && g_[i] < 0);
}

FamilyBfgs::Vector FamilyBfgs::projected(const Vector& point) const {
    return point.cwiseMax(limits_.lower).cwiseMin(limits_.upper);
}

// From the accepted point: ends the search at a small projected gradient, else proposes a snap of
// small rates onto the lower bound, else a quasi-Newton step on the components not held.
void FamilyBfgs::startStep() {
    Vector projectedGrad = g_;
    for (int i = 0; i < 3; ++i)
        if (held(i)) projectedGrad[i] = 0;
    const double gradNorm = projectedGrad.cwiseAbs().maxCoeff();
    if (gradNorm <= limits_.gradTol) return end(Outcome::GradientConverged);

    Vector snapped = x_;
    for (int i = 0; i < 3; ++i)
        if (projectedGrad[i] > 0 && x_[i] < snapBelow_[i]) snapped[i] = limits_.lower;
    if (snapped != x_) {
        phase_ = Phase::Snap;
        trial_ = snapped;
        return;
    }

    if (freshHessian_) hessian_ = Eigen::Matrix3d::Identity() * (gradNorm / kFirstStepLog2);
    Eigen::Matrix3d freeBlock = hessian_; // held components decouple with a zero step
    for (int i = 0; i < 3; ++i) {
        if (!held(i)) continue;
        freeBlock.row(i).setZero();
        freeBlock.col(i).setZero();
        freeBlock(i, i) = 1;
    }
    const Eigen::LLT<Eigen::Matrix3d> factor(freeBlock);
    if (factor.info() != Eigen::Success) { // rounding broke positive definiteness: start afresh
        freshHessian_ = true;
        return startStep();
    }
    searchAlong(factor.solve(-projectedGrad));
}

// Starts a line search at the full step, along the projected path x + step·direction. A direction
// whose projection does not descend (bounds can cut a quasi-Newton step) is replaced by the
// projected steepest descent.
void FamilyBfgs::searchAlong(const Vector& direction) {
    direction_ = direction;
    trial_ = projected(x_ + direction_);
    if (!(g_.dot(trial_ - x_) < 0)) {
        Vector descent = -g_;
        for (int i = 0; i < 3; ++i)
            if (held(i)) descent[i] = 0;
        direction_ = descent * (kFirstStepLog2 / descent.cwiseAbs().maxCoeff());
        trial_ = projected(x_ + direction_);
    }
    phase_ = Phase::LineSearch;
    step_ = 1.0;
    backtracks_ = 0;
}

// The trial did not decrease the NLL enough: shrink the step to the minimiser of the quadratic
// through the NLL, its slope at the accepted point and the trial, within [0.1, 0.5] of the step.
// After too many, restart from the steepest descent, or end when that failed too.
void FamilyBfgs::backtrack(double nll) {
    if (++backtracks_ > kMaxBacktracks) {
        if (freshHessian_) return end(Outcome::NoDescent);
        freshHessian_ = true;
        return startStep();
    }
    const double predicted = g_.dot(trial_ - x_);
    const double quadratic = -predicted / (2 * (nll - f_ - predicted));
    const double shrink =
        std::isfinite(quadratic) ? std::clamp(quadratic, kMinShrink, kMaxShrink) : kMaxShrink;
    step_ *= shrink;
    trial_ = projected(x_ + step_ * direction_);
}

// BFGS update of the Hessian approximation from a step s and the gradient change y. The first pair
// after a (re)start also sets the scale: yᵀy / sᵀy, the curvature along y.
void FamilyBfgs::learnCurvature(const Vector& s, const Vector& y) {
    const double sy = s.dot(y);
    if (freshHessian_) {
        if (!(sy > 0)) return;
        hessian_ = Eigen::Matrix3d::Identity() * (y.dot(y) / sy);
        freshHessian_ = false;
    }
    const Vector hs = hessian_ * s;
    const double shs = s.dot(hs);
    if (!(shs > 0)) return;
    const double damping = sy >= 0.2 * shs ? 1.0 : 0.8 * shs / (shs - sy);
    const Vector r = damping * y + (1 - damping) * hs;
    hessian_ += r * r.transpose() / s.dot(r) - hs * hs.transpose() / shs;
}

void FamilyBfgs::end(Outcome outcome) {
    phase_ = Phase::Ended;
    outcome_ = outcome;
    trial_ = x_;
}

} // namespace gpurec
