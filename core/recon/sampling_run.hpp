#pragma once
// Sampling reconciliations for many families in parallel, one random stream per family so the
// draws do not depend on the number of threads or on which other families are sampled.
#include "data/dataset.hpp"
#include "engine/backend.hpp"
#include "model/rate_parameters.hpp"
#include "model/solver_options.hpp"
#include "recon/reconciliation.hpp"
#include "recon/sampler.hpp"

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace gpurec {

struct SamplingSettings {
    int samples = 100;
    std::uint64_t seed = 123;
    bool halveRootBranches = true; // UNIFORM gene-tree rooting: the root sits inside one unrooted edge
    double minRate = 1e-10;        // AleRax's bounds on every rate
    double maxRate = 2.0;
    SolverOptions solver;
};

struct FamilySamples {
    int family = -1;            // index in the dataset
    double logLikelihood = 0.0; // natural log, as `eval` reports it
    std::vector<Reconciliation> reconciliations;
    SolverStats stats; // of the tables the samples were drawn from
};

// The generator of one family: seeded from the run's seed and the family's name.
std::mt19937_64 familyGenerator(std::uint64_t seed, const std::string& familyName);

// Throws std::invalid_argument when fewer than one sample is requested.
void validateSampleCount(int samples);
// Throws std::invalid_argument for no sample requested or a rate outside [minRate, maxRate]
// (naming the rate, its value and the species node or family it belongs to).
void validateSampling(const Dataset& data, const RateParameters& theta, const SamplingSettings& settings);

// Where the converged tables of a group of families come from (dataset indices, tables in that
// order): a backend's familyTables (backendTables), or tests' stand-ins.
using TableSource = std::function<std::vector<FamilyTables>(const std::vector<int>& families)>;
// The tables of `backend` at θ with settings.solver: sampling runs wherever the backend runs.
TableSource backendTables(LikelihoodBackend& backend, const RateParameters& theta,
                          const SamplingSettings& settings);

// Samples the listed families (dataset indices) and hands each family's result to `consume`,
// which runs on the worker threads, possibly for several families at once. Tables are fetched in
// groups of kSamplingGroup families. A failure stops the run; the exception of the first failing
// family in list order is rethrown (families listed after it may or may not have been handed to
// `consume`).
void sampleFamilies(const Dataset& data, const RateParameters& theta, const std::vector<int>& families,
                    const SamplingSettings& settings, const std::function<void(FamilySamples&&)>& consume,
                    const TableSource& tables);
constexpr int kSamplingGroup = 64; // bounds the tables held at once

// How a workflow samples families from a backend: sampleFamilies from the backend's tables
// (sampleFromBackend), or, in a run spread over processes, each family by the process that holds
// it (core/distributed/distributed_sampling.hpp).
using FamilySampling =
    std::function<void(const Dataset& data, const RateParameters& theta, const std::vector<int>& families,
                       const SamplingSettings& settings, const std::function<void(FamilySamples&&)>& consume,
                       LikelihoodBackend& backend)>;
void sampleFromBackend(const Dataset& data, const RateParameters& theta, const std::vector<int>& families,
                       const SamplingSettings& settings, const std::function<void(FamilySamples&&)>& consume,
                       LikelihoodBackend& backend);

} // namespace gpurec
