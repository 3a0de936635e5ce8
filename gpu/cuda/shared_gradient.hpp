#pragma once
// The last step of a shared-mode (global, specieswise) gradient: the GPU has summed ∂NLL/∂(pS, pD,
// pT, E, Ē) over every family into kGradientRows rows of n; E is eliminated on the host with the CPU
// reference's own code (one small solve). Plain C++: the backend and its host emulation share it.
#include "engine/family_solver.hpp"
#include "engine/krylov.hpp"

#include <vector>

namespace gpurec::gpu {

// Adds d NLL / dθ of set 0 to `gradient`, with the conditioning terms of the families whose
// originSpecies are `familyOrigins`, the rates `present` lacks at 0; returns the statistics of the E
// solve, the families weighted by `familyWeights` (empty: 1 each). Under --origination OPTIMIZE,
// `originPosterior` holds Σ_f w_f Π(root_f, e) / Σ_h O_h Π(root_f, h) (originPosteriorEntry) for the
// weights' own gradient.
KrylovStats addSharedModeGradient(const SpeciesLayout& layout, const RateParameters& theta,
                                  const std::vector<int>& familyOrigins, const SolverOptions& options,
                                  const std::vector<double>& rows, const ExtinctionState& extinction,
                                  PresentRates present, std::vector<double>& gradient,
                                  const std::vector<double>& originPosterior = {},
                                  const std::vector<double>& familyWeights = {});

} // namespace gpurec::gpu
