#pragma once
// AleRax's speciation-order inference under --transfer-constraint RELDATED (docs/species-search.md):
// random datings optimised for the transfers one sampled reconciliation per family makes, the best
// of them re-scored by the likelihood, then local optimisation and perturbation by the likelihood.
// Only the internal nodes' order changes; the topology and the rates stay.
#include "species_search/candidate_scorer.hpp"
#include "species_search/speciation_order.hpp"

#include <cstdint>
#include <functional>
#include <random>

namespace gpurec {

constexpr int kRandomDatings = 500;             // random datings optimised for the transfer score
constexpr int kPerturbationsPerDating = 20;     // perturbations of each of them
constexpr int kDatingsRescored = 20;            // the best of them re-scored by the likelihood
constexpr double kLikelihoodPerturbation = 0.1; // p of the perturbations scored by the likelihood
constexpr int kPerturbationFailures = 2;        // failed perturbations in a row that end the search

struct SpeciationOrderResult {
    SpeciesTopology best;  // dated, with the start's node ids
    Evaluation evaluation; // of `best`
    double startLogLikelihood = 0.0;
    long sampledTransfers = 0;     // T and TL events of the sampled reconciliations
    int transferDatings = 0;       // random datings optimised for the transfer score
    int likelihoodDatings = 0;     // datings scored by the likelihood
    bool fromRandomDating = false; // a re-scored random dating beat the start
};

// A dated topology's total log-likelihood at the search's rates (what the search's candidates go
// through, so a stop request ends the dating there).
using EvaluateTree = std::function<Evaluation(const SpeciesTopology&)>;

// From the dated `start` (its log-likelihood `startLogLikelihood` at θ); transfers are sampled at θ
// on `start` and the random datings drawn from `seed`.
SpeciationOrderResult inferSpeciationOrder(CandidateScorer& scorer, const SpeciesTopology& start,
                                           const RateParameters& theta, double startLogLikelihood,
                                           std::uint64_t seed, const EvaluateTree& evaluate);

// AleRax's dating after a root move (DatedSpeciesTreeSearch::optimizeDates): the last stage of
// inferSpeciationOrder alone, from `start`'s own order (`startEvaluation`: its evaluation) —
// local optimisation by the likelihood and, when `thorough`, perturbations drawn from `rng`.
SpeciationOrderResult optimizeSpeciationOrder(const SpeciesTopology& start, const Evaluation& startEvaluation,
                                              bool thorough, std::mt19937_64& rng,
                                              const EvaluateTree& evaluate);

// The transfers of one reconciliation per family sampled at θ on `tree`, by species node of
// tree.toSpeciesTree().
std::vector<TransferCount> sampledTransfers(CandidateScorer& scorer, const SpeciesTopology& tree,
                                            const RateParameters& theta, std::uint64_t seed);

} // namespace gpurec
