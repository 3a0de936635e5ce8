#pragma once
// Solves (I − L) x = b for a contracting linear map L: a truncated Neumann series gives the
// starting point, BiCGSTAB refines it; on breakdown, plain fixed-point sweeps finish the job.
#include "model/solver_options.hpp"

#include <cmath>
#include <functional>
#include <vector>

namespace gpurec {

struct KrylovStats {
    long iterations = 0;        // BiCGSTAB iterations
    long breakdowns = 0;        // solves that fell back to fixed-point sweeps
    long unconverged = 0;       // solves that missed bicgstab_tol
    double worstResidual = 0.0; // largest relative residual reached by those
};

class NeumannBicgstab {
  public:
    using LinearMap = std::function<void(const double* in, double* out)>;
    explicit NeumannBicgstab(int n) : n_(n), r_(n), rhat_(n), p_(n), v_(n), s_(n), t_(n), tmp_(n) {}
    void solve(const LinearMap& loop, const double* b, double* x, const SolverOptions& options,
               KrylovStats& stats);

  private:
    void applyShifted(const LinearMap& loop, const double* in, double* out); // out = in − L in
    int n_;
    std::vector<double> r_, rhat_, p_, v_, s_, t_, tmp_;
};

} // namespace gpurec
