#pragma once
// AleRax's speciation-order inference under --transfer-constraint RELDATED (docs/species-search.md):
// random datings optimised for the transfers one sampled reconciliation per family makes, the best
// of them re-scored by the likelihood, then local optimisation and perturbation by the likelihood.
// Only the internal nodes' order changes; the topology and the rates stay.
#include "species_search/candidate_scorer.hpp"
#include "species_search/speciation_order.hpp"

#include <cstdint>
#include <functional>

namespace gpurec {

constexpr int kRandomDatings = 500;             // random datings optimised for the transfer score
constexpr int kPerturbationsPerDating = 20;     // perturbations of each of them
constexpr int kDatingsRescored = 20;            // the best of them re-scored by the likelihood
constexpr double kLikelihoodPerturbation = 0.1; // p of the perturbations scored by the likelihood
constexpr int kPerturbationFailures = 2;        // failed perturbations in a row that end the search

struct SpeciationOrderResult {
    SpeciesTopology best;  // dated
    Evaluation evaluation; // of `best`
    double startLogLikelihood = 0.0;
    long sampledTransfers = 0;     // T and TL events of the sampled reconciliations
    int transferDatings = 0;       // random datings optimised for the transfer score
    int likelihoodDatings = 0;     // datings scored by the likelihood
    bool fromRandomDating = false; // a re-scored random dating beat the start
};

// From the dated `start` (its log-likelihood `startLogLikelihood` at θ); transfers are sampled at θ
// on `start` and the random datings drawn from `seed`. `evaluate` scores a dated topology at θ
// (what the search's candidates go through, so a stop request ends the inference there).
SpeciationOrderResult inferSpeciationOrder(CandidateScorer& scorer, const SpeciesTopology& start,
                                           const RateParameters& theta, double startLogLikelihood,
                                           std::uint64_t seed,
                                           const std::function<Evaluation(const SpeciesTopology&)>& evaluate);

// The transfers of one reconciliation per family sampled at θ on `tree`, by species node of
// tree.toSpeciesTree().
std::vector<TransferCount> sampledTransfers(CandidateScorer& scorer, const SpeciesTopology& tree,
                                            const RateParameters& theta, std::uint64_t seed);

} // namespace gpurec
