#pragma once
// The last steps of a shared-mode (global, specieswise) gradient. The GPU sums ∂NLL/∂(pS, pD, pT, E,
// Ē) over the families of each chunk of engine/family_chunks.hpp into kGradientRows rows of n per
// chunk; the host completes each chunk's row (its families' conditioning terms), adds the chunks in
// chunk order (or has FamilyShareExchange add every share's, so the bits do not depend on how the
// families are spread over processes) and eliminates E with the CPU reference's own code. Plain
// C++: the backend and its host emulation share it.
#include "engine/family_solver.hpp"
#include "engine/krylov.hpp"

#include <span>
#include <vector>

namespace gpurec::gpu {

// Values per chunk row: the kGradientRows rows of n, one per transfer highway and the node θ rows of
// families on pruned trees (gradientWidth), then under --origination OPTIMIZE the origin
// posterior's n (originPosteriorEntry) and the chunk's summed family weights.
int sharedRowLength(int n, int highways, bool originWeights, int nodeThetaRows = 0);

// The chunk rows of one dataset (or share) into `rows` (resized; its capacity reused), from what the
// device summed per chunk: `deviceRows` (gradientWidth(n, highways, nodeThetaRows) per chunk) and
// `devicePosterior` (n per chunk, under OPTIMIZE; else empty). Adds each chunk's families'
// conditioning terms (origins `familyOrigins`, weights `familyWeights`, empty: 1 each), in family
// order, for the families on the full tree (`familyTree` 0, or empty: all): those on pruned trees
// added theirs with their own E.
void sharedChunkRows(const RateParameters& theta, const std::vector<double>& E,
                     const std::vector<int>& familyOrigins, const std::vector<double>& familyWeights,
                     int familiesPerChunk, std::span<const double> deviceRows,
                     std::span<const double> devicePosterior, std::vector<double>& rows,
                     int nodeThetaRows = 0, const std::vector<int>& familyTree = {});

// Σ of the chunk rows in chunk order (`rowLength` values each): one process's combine.
std::vector<double> sumChunkRows(const std::vector<double>& rows, int rowLength);

// Adds d NLL / dθ of set 0 to `gradient` from the whole dataset's summed row, the rates `present`
// lacks at 0, and the node θ rows of families on pruned trees; returns the statistics of the E solve.
KrylovStats addSharedModeGradient(const SpeciesLayout& layout, const RateParameters& theta,
                                  const SolverOptions& options, const std::vector<double>& total,
                                  const ExtinctionState& extinction, PresentRates present,
                                  std::vector<double>& gradient, int nodeThetaRows = 0);

// Genewise rates with transfer highways: the families' terms of the highways' rates, summed over
// every family (`total`, one per highway), into `gradient`.
void addGenewiseHighwayGradient(const RateParameters& theta, const std::vector<double>& total,
                                std::vector<double>& gradient);

} // namespace gpurec::gpu
