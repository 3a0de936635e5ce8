#pragma once
// Transfer highways (AleRax's --highways; spec 3.1, 4.2, 5.1): extra transfers from a source species
// node to one destination, each with its own rate ρ_h on the scale of δ, λ and τ. The source's
// probabilities are normalised by 1 + δ + λ + τ + Σ ρ_h over its highways, and a highway's
// probability is q_h = ρ_h over that sum. They add q_h E_e E_d to E_e, and to Π(γ, e) the transfer
// of one child clade to d, q_h Σ w (Π(γ', e) Π(γ'', d) + Π(γ'', e) Π(γ', d)), and two
// transfer-loss terms, q_h Π(γ, e) E_d (the transferred copy dies) and q_h Π(γ, d) E_e (the copy
// left at e dies).
namespace gpurec {

struct Highway {
    int source = -1, destination = -1; // species nodes
    bool operator==(const Highway&) const = default;
};

} // namespace gpurec
