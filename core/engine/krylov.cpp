#include "engine/krylov.hpp"

#include <algorithm>

namespace gpurec {

namespace {
double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        s += a[i] * b[i];
    return s;
}
double norm(const double* a, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += a[i] * a[i];
    return std::sqrt(s);
}
constexpr int kFallbackSweeps = 10000;

void noteUnconverged(KrylovStats& stats, double relativeResidual) {
    ++stats.unconverged;
    stats.worstResidual = std::max(stats.worstResidual, relativeResidual);
}
} // namespace

void NeumannBicgstab::applyShifted(const LinearMap& loop, const double* in, double* out) {
    loop(in, out);
    for (int i = 0; i < n_; ++i)
        out[i] = in[i] - out[i];
}

void NeumannBicgstab::solve(const LinearMap& loop, const double* b, double* x, const SolverOptions& options,
                            KrylovStats& stats) {
    const int n = n_;
    const double bnorm = norm(b, n);
    if (bnorm == 0.0) {
        std::fill(x, x + n, 0.0);
        return;
    }
    // Neumann: x = Σ_{k=0..N} L^k b.
    std::copy(b, b + n, x);
    std::copy(b, b + n, tmp_.begin());
    for (int k = 0; k < options.neumann_terms; ++k) {
        loop(tmp_.data(), t_.data());
        for (int i = 0; i < n; ++i)
            x[i] += t_[i];
        std::swap(tmp_, t_);
    }
    const double target = options.bicgstab_tol * bnorm;
    applyShifted(loop, x, t_.data());
    for (int i = 0; i < n; ++i)
        r_[i] = b[i] - t_[i];
    const double rnorm = norm(r_.data(), n);
    if (rnorm <= target) return;
    if (options.bicgstab_max_iter == 0) { // Neumann terms only: the residual is what they leave
        noteUnconverged(stats, rnorm / bnorm);
        return;
    }

    rhat_ = r_;
    double rho = 1, alpha = 1, omega = 1;
    std::fill(v_.begin(), v_.end(), 0.0);
    std::fill(p_.begin(), p_.end(), 0.0);
    const double tiny = options.bicgstab_breakdown_tol;
    bool breakdown = false, converged = false;
    for (int it = 0; it < options.bicgstab_max_iter; ++it) {
        ++stats.iterations;
        double rhoNew = dot(rhat_, r_);
        if (std::abs(rhoNew) <= tiny * bnorm * bnorm) {
            breakdown = true;
            break;
        }
        double beta = (rhoNew / rho) * (alpha / omega);
        for (int i = 0; i < n; ++i)
            p_[i] = r_[i] + beta * (p_[i] - omega * v_[i]);
        applyShifted(loop, p_.data(), v_.data());
        double rv = dot(rhat_, v_);
        if (std::abs(rv) <= tiny * bnorm * bnorm) {
            breakdown = true;
            break;
        }
        alpha = rhoNew / rv;
        for (int i = 0; i < n; ++i)
            s_[i] = r_[i] - alpha * v_[i];
        if (norm(s_.data(), n) <= target) {
            for (int i = 0; i < n; ++i)
                x[i] += alpha * p_[i];
            converged = true;
            break;
        }
        applyShifted(loop, s_.data(), t_.data());
        double tt = dot(t_, t_);
        omega = tt > 0 ? dot(t_, s_) / tt : 0.0;
        for (int i = 0; i < n; ++i)
            x[i] += alpha * p_[i] + omega * s_[i];
        for (int i = 0; i < n; ++i)
            r_[i] = s_[i] - omega * t_[i];
        if (norm(r_.data(), n) <= target) {
            converged = true;
            break;
        }
        if (std::abs(omega) <= tiny) {
            breakdown = true;
            break;
        }
        rho = rhoNew;
    }
    if (converged) return;
    if (breakdown) ++stats.breakdowns;
    // Fallback: fixed-point sweeps x ← b + L x (converges because L contracts).
    double diff = 0;
    for (int it = 0; it < kFallbackSweeps; ++it) {
        loop(x, t_.data());
        diff = 0;
        for (int i = 0; i < n; ++i) {
            double next = b[i] + t_[i];
            diff = std::max(diff, std::abs(next - x[i]));
            x[i] = next;
        }
        if (diff <= options.bicgstab_tol * bnorm) return;
    }
    noteUnconverged(stats, diff / bnorm);
}

} // namespace gpurec
