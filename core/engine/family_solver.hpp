#pragma once
// The per-family mathematics of the CPU reference engine, in double precision: the extinction
// fixed point (spec 4), the clade probabilities Π and Π̄ (spec 5), the log-likelihood (spec 6) and
// the implicit adjoint for gradients (spec 7).
//
// Underflow: every clade row is stored as a mantissa row with a power-of-two scale,
// Π(c, e) = pi[c*S + e] * 2^scale[c], with the row maximum in [1/2, 1). Powers of two are exact,
// so scaling costs no precision and families far below exp(-745) come out exact.
#include "data/dataset.hpp"
#include "engine/backend.hpp"
#include "engine/clade_tables.hpp"
#include "engine/krylov.hpp"
#include "engine/species_operators.hpp"
#include "model/rate_parameters.hpp"
#include "model/solver_options.hpp"

#include <vector>

namespace gpurec {

struct ExtinctionState {
    std::vector<double> E, Ebar;
    int iterations = 0;
    double residual = 0.0;     // last max relative change
    bool stoppedEarly = false; // converged schedule: e_max_iter reached with residual > e_tol
};

ExtinctionState solveExtinction(const SpeciesLayout& s, const EventProbabilities& p,
                                const SolverOptions& options, const std::vector<double>* warmStart = nullptr);

// Π and Π̄ of every clade, written into `t` (its memory is reused: fresh pages are costly). With
// `warm`, `t` must hold this family's tables from an earlier evaluation; they seed the converged
// schedule's Π̄ iteration clade by clade before being overwritten.
void solveClades(const SpeciesLayout& s, const GeneFamily& family, const EventProbabilities& p,
                 const ExtinctionState& ext, const SolverOptions& options, CladeTables& t, bool warm);
CladeTables solveClades(const SpeciesLayout& s, const GeneFamily& family, const EventProbabilities& p,
                        const ExtinctionState& ext, const SolverOptions& options);

// ln Σ_e O_e Π(root, e) − ln Σ_e O_e (1 − E_e) (natural log, spec 6.2): with one origination node o
// (GeneFamily::originSpecies ≥ 0, as a node of the tables: SpeciesLayout::local on a pruned tree) ln Π(root,
// o) − ln(1 − E_o); otherwise O_e = `originWeights`
// (--origination OPTIMIZE: RateParameters::originWeights), or 1 when they are null (UNIFORM).
double familyLogLikelihood(const CladeTables& tables, const ExtinctionState& ext, int origin,
                           const std::vector<double>* originWeights = nullptr);

// Derivatives of one family's NLL (bits) with respect to its event probabilities and to E, Ē
// (the conditioning term's included), with Π eliminated by the adjoint (E still to be eliminated by
// the caller, since E may be shared).
struct ProbabilityGradient {
    std::vector<double> gS, gD, gL, gT, gE, gEbar;
    std::vector<double> gH; // per transfer highway, d/dq_h (sized by the functions that fill it)
    explicit ProbabilityGradient(int n = 0, int highways = 0)
        : gS(n), gD(n), gL(n), gT(n), gE(n), gEbar(n), gH(highways) {}
    void add(const ProbabilityGradient& other);
};

struct AdjointStats {
    KrylovStats krylov;
    long prunedClades = 0;
    // When set (C entries), receives each clade's posterior probability: the share of the family's
    // likelihood from the reconciled gene trees that contain the clade, Σ_e Π(c,e) ∂ln L/∂Π(c,e)
    // (L is linear in each Π(c,·) since a gene tree holds a clade at most once).
    std::vector<double>* cladePosterior = nullptr;
};

// With `originWeights` as for familyLogLikelihood. `weight` scales this family's contribution: the
// derivatives are those of weight × NLL (a gamma category's share of the family's likelihood).
void accumulateCladeAdjoint(const SpeciesLayout& s, const GeneFamily& family, const EventProbabilities& p,
                            const ExtinctionState& ext, const CladeTables& tables,
                            const SolverOptions& options, ProbabilityGradient& grad, AdjointStats& stats,
                            const std::vector<double>* originWeights = nullptr, double weight = 1.0);

// Adds d/dE of `weight` times one family's conditioning term log2 Σ_e O_e (1 − E_e) (origin: its
// originSpecies; O_e = originWeights, or 1 when null).
void addConditioningGradient(const std::vector<double>& E, int origin, std::vector<double>& gE,
                             const std::vector<double>* originWeights = nullptr, double weight = 1.0);
// The same for families sharing E whose originSpecies are `origins`, each family's term times its
// weight (`weights` empty: 1 each): one pass over the species for all of them, whatever their number.
void addConditioningGradient(const std::vector<double>& E, const std::vector<int>& origins,
                             std::vector<double>& gE, const std::vector<double>* originWeights = nullptr,
                             const std::vector<double>& weights = {});

// --origination OPTIMIZE: adds weight × d NLL / d log2 o_e of one family,
// o_e ((1 − E_e) / Σ o (1 − E) − Π(root, e) / Σ o Π(root, ·)), to g (one entry per species node).
void addOriginationGradient(const CladeTables& tables, const ExtinctionState& ext,
                            const std::vector<double>& originWeights, double weight, std::vector<double>& g);

// Eliminates E (of one family, or shared by the families whose derivatives `grad` sums): solves
// the E adjoint and adds ∂G/∂p. Leaves grad.gE/gEbar consumed.
void eliminateExtinction(const SpeciesLayout& s, const EventProbabilities& p, const ExtinctionState& ext,
                         const SolverOptions& options, ProbabilityGradient& grad, KrylovStats& stats);

// d NLL / dθ for the rows used by (family, e), and the rates of `highways`: chain rule through the
// base-2 softmax of each node. The highways' terms go to `highwayOut` (one per highway) instead of
// their entries of `out` when it is given: a genewise family's share of entries every family uses.
// `speciesNodes`: the full-tree node of each of p's nodes when they are a pruned tree's
// (SpeciesLayout::fullIndex; empty: p's nodes are the full tree's).
void addThetaGradient(const RateParameters& theta, int family, const EventProbabilities& p,
                      const ProbabilityGradient& grad, std::vector<double>& out,
                      const std::vector<Highway>& highways = {}, std::vector<double>* highwayOut = nullptr,
                      const std::vector<int>& speciesNodes = {});

// One family's E, Ē, Π and Π̄ solved alone (the CPU backend's LikelihoodBackend::familyTables).
FamilyTables computeFamilyTables(const SpeciesLayout& species, const GeneFamily& family,
                                 const EventProbabilities& p, const SolverOptions& options);

} // namespace gpurec
