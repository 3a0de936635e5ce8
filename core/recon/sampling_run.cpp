#include "recon/sampling_run.hpp"

#include "engine/evaluation_shape.hpp"
#include "engine/family_solver.hpp"
#include "engine/gamma_mixture_backend.hpp"
#include "engine/species_pruning.hpp"
#include "io/number_text.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <omp.h>
#include <stdexcept>

namespace gpurec {

namespace {

// FNV-1a: a fixed, platform-independent hash of the family name.
std::uint64_t nameHash(const std::string& name) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : name) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

// Who a rate entry of θ belongs to, in words.
std::string entryOwner(const Dataset& data, const RateParameters& theta, int entry) {
    switch (theta.mode()) {
    case RateMode::Global:
        return "the global rates";
    case RateMode::Specieswise:
        return "species node " + data.species.name(entry / 3);
    case RateMode::Genewise:
        return "family " + data.families[entry / 3].name;
    case RateMode::Classes:
        return "class " + theta.classes().entryNames[entry];
    }
    return "";
}

} // namespace

std::mt19937_64 familyGenerator(std::uint64_t seed, const std::string& familyName) {
    std::uint64_t h = nameHash(familyName);
    std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                      static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(h >> 32)};
    return std::mt19937_64(seq);
}

void validateSampleCount(int samples) {
    if (samples < 1)
        throw std::invalid_argument("the number of samples must be at least 1 (got " +
                                    std::to_string(samples) + ")");
}

void validateSampling(const Dataset& data, const RateParameters& theta, const SamplingSettings& settings) {
    validateSampleCount(settings.samples);
    if (!ratesFitDataset(theta, data))
        throw std::invalid_argument("rate parameters do not match the dataset's shape");
    // Rates read back from 6-digit files may sit a rounding step outside the bounds.
    const double lo = settings.minRate * (1 - 1e-6), hi = settings.maxRate * (1 + 1e-6);
    // Every rate entry (origination weights have no such bounds: only their ratios matter).
    const std::vector<double>& th = theta.theta();
    for (int i = 0; i < static_cast<int>(th.size()); ++i) {
        const char type = theta.mode() == RateMode::Classes ? theta.classes().entryType[i]
                          : i < 3 * theta.rowCount()        ? "DLT"[i % 3]
                                                            : 'O';
        if (type == 'O' || (type == 'T' && !data.events.presentRates().transfer)) continue;
        const double value = std::exp2(th[i]);
        if (value >= lo && value <= hi) continue;
        const char* name = type == 'D' ? "duplication" : type == 'L' ? "loss" : "transfer";
        throw std::invalid_argument(std::string(name) + " rate " + shortestNumberText(value) + " of " +
                                    entryOwner(data, theta, i) + " is out of bounds [" +
                                    shortestNumberText(settings.minRate) + ", " +
                                    shortestNumberText(settings.maxRate) + "]");
    }
}

TableSource backendTables(LikelihoodBackend& backend, const RateParameters& theta,
                          const SamplingSettings& settings) {
    return [&backend, &theta, &settings](const std::vector<int>& families) {
        return backend.familyTables(theta, settings.solver, families);
    };
}

void sampleFromBackend(const Dataset& data, const RateParameters& theta, const std::vector<int>& families,
                       const SamplingSettings& settings, const std::function<void(FamilySamples&&)>& consume,
                       LikelihoodBackend& backend) {
    sampleFamilies(data, theta, families, settings, consume, backendTables(backend, theta, settings));
}

void sampleFamilies(const Dataset& data, const RateParameters& theta, const std::vector<int>& families,
                    const SamplingSettings& settings, const std::function<void(FamilySamples&&)>& consume,
                    const TableSource& tableSource) {
    validateSampling(data, theta, settings);
    const FamilyLayouts layouts(data); // the full tree, or each family's pruned tree
    const int threads = settings.solver.threads > 0 ? settings.solver.threads : omp_get_max_threads();
    const int total = static_cast<int>(families.size());
    // Groups run in list order, so a failure fetching a group's tables comes after every earlier
    // family has been sampled; within a group the error rethrown is the first failing family's in
    // list order, whatever the thread count and timing: families after the first failure seen so
    // far are skipped, those before it always run.
    for (int begin = 0; begin < total; begin += kSamplingGroup) {
        const int count = std::min(kSamplingGroup, total - begin);
        const std::vector<int> group(families.begin() + begin, families.begin() + begin + count);
        std::vector<FamilyTables> tables = tableSource(group);
        if (tables.size() != group.size())
            throw std::logic_error("the table source returned " + std::to_string(tables.size()) +
                                   " families' tables for " + std::to_string(group.size()));
        std::vector<std::exception_ptr> failure(count);
        std::atomic<int> firstFailure{count};
#pragma omp parallel for schedule(dynamic) num_threads(threads)
        for (int i = 0; i < count; ++i) {
            if (i > firstFailure) continue;
            try {
                const int f = group[i];
                const GeneFamily& family = data.families.at(f);
                const SpeciesLayout& layout = layouts.family(f);
                const int origin = family.originSpecies >= 0 ? layout.local(family.originSpecies) : -1;
                std::mt19937_64 rng = familyGenerator(settings.seed, family.name);
                FamilySamples out;
                out.family = f;
                out.stats = tables[i].stats;
                // One table set per speciation category (else the family's one): each reconciliation
                // draws its category from the posterior L_c / Σ L, then its events in that category.
                std::vector<const FamilyTables*> sets;
                for (const FamilyTables& c : tables[i].categories)
                    sets.push_back(&c);
                if (sets.empty()) sets.push_back(&tables[i]);
                std::vector<double> ll;
                std::vector<ReconciliationSampler> samplers;
                for (const FamilyTables* t : sets) {
                    if (t->speciesNodes != layout.fullIndex)
                        throw std::logic_error("the tables of family '" + family.name +
                                               "' are not on the family's species tree");
                    ExtinctionState ext;
                    ext.E = t->E;
                    const std::vector<double>& o = t->originWeights;
                    ll.push_back(familyLogLikelihood(t->clades, ext, origin, o.empty() ? nullptr : &o));
                    samplers.emplace_back(layout, family, *t, settings.halveRootBranches);
                }
                out.logLikelihood = sets.size() == 1 ? ll.front() : meanOfLikelihoods(ll);
                std::vector<double> share(ll.size());
                for (std::size_t c = 0; c < ll.size(); ++c)
                    share[c] = std::exp(ll[c] - out.logLikelihood) / static_cast<double>(ll.size());
                out.reconciliations.reserve(settings.samples);
                for (int k = 0; k < settings.samples; ++k) {
                    std::size_t c = 0;
                    if (sets.size() > 1) {
                        double u = uniformUnit(rng);
                        while (c + 1 < share.size() && u >= share[c])
                            u -= share[c++];
                    }
                    out.reconciliations.push_back(samplers[c].draw(rng));
                }
                tables[i] = FamilyTables{}; // release the tables as soon as they are used
                consume(std::move(out));
            } catch (...) {
                failure[i] = std::current_exception();
                int seen = firstFailure;
                while (i < seen && !firstFailure.compare_exchange_weak(seen, i)) {
                }
            }
        }
        if (firstFailure < count) std::rethrow_exception(failure[firstFailure]);
    }
}

} // namespace gpurec
