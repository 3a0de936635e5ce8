#pragma once
// --pairwise-transfers (spec 3.3, the seed's pairwise mode): a transfer rate ρ_{e→h} for every donor e
// and recipient h ∈ R(e) in place of τ_e spread evenly over R(e). Each node's softmax is then
// 1 + δ + λ + Σ_h ρ_{e→h}, and p(e → h) = ρ_{e→h} / that sum: exactly a transfer highway on every
// allowed pair with τ = 0, which is how the engine computes it (model/highways.hpp). With
// ρ_{e→h} = τ / |R(e)| for every pair the model is the uniform one at τ.
#include "model/highways.hpp"
#include "tree/species_tree.hpp"

#include <vector>

namespace gpurec {

// Every allowed (donor, recipient) pair under `constraint`, by donor then recipient (postorder).
std::vector<Highway> everyTransferPair(const SpeciesTree& tree, TransferConstraint constraint);

// The pairs' starting rates: where `given` (a --highways-file's highways, each an allowed pair as
// readHighways checks) lists the pair, its rate; elsewhere 0, which makeParameters reads as
// τ / |R(e)| of the starting rates (the uniform model's split).
std::vector<double> pairStartRates(const std::vector<Highway>& pairs, const std::vector<Highway>& given,
                                   const std::vector<double>& givenRates);

} // namespace gpurec
