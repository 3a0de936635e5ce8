#include "species_search/speciation_order_search.hpp"

#include "recon/transfer_tally.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace gpurec {

std::vector<TransferCount> sampledTransfers(CandidateScorer& scorer, const SpeciesTopology& tree,
                                            const RateParameters& theta, std::uint64_t seed) {
    const int nodes = tree.nodeCount();
    std::vector<int> sameNode(nodes);
    std::iota(sameNode.begin(), sameNode.end(), 0);
    TransferTally tally(static_cast<int>(scorer.families().families.size()), nodes);
    scorer.sampleOn(tree, theta, seed, [&](FamilySamples&& samples) {
        tally.add(samples.family, samples.reconciliations, sameNode);
    });
    std::vector<TransferCount> counts;
    for (const TransferTally::Pair& p : tally.sorted())
        counts.push_back({p.donor, p.recipient, p.count});
    return counts;
}

namespace {

struct ScoredDating {
    SpeciationOrder order;
    double score = 0.0;
};

// Random datings, each optimised for the transfer score and then perturbed; the best
// kDatingsRescored distinct ones.
std::vector<ScoredDating> bestTransferDatings(const SpeciationOrder& start,
                                              const std::vector<TransferCount>& transfers,
                                              std::mt19937_64& rng) {
    const DatingScore score = [&](const SpeciationOrder& o) {
        return static_cast<double>(transferScore(o, transfers));
    };
    std::vector<ScoredDating> found;
    for (int trial = 0; trial < kRandomDatings; ++trial) {
        SpeciationOrder order = start;
        order.randomize(rng);
        double best = optimizeDatingLocally(order, score);
        int failures = 0;
        for (int i = 0; i < kPerturbationsPerDating; ++i) {
            SpeciationOrder perturbed = order;
            perturbed.perturb((failures + 1) / static_cast<double>(kPerturbationsPerDating), rng);
            const double s = optimizeDatingLocally(perturbed, score);
            if (s > best) {
                best = s;
                order = std::move(perturbed);
                failures = 0;
            } else {
                ++failures;
            }
        }
        found.push_back({std::move(order), best});
    }
    std::stable_sort(found.begin(), found.end(),
                     [](const ScoredDating& a, const ScoredDating& b) { return a.score > b.score; });
    // AleRax re-scores repeats too; one likelihood each is enough.
    std::vector<ScoredDating> kept;
    for (ScoredDating& d : found) {
        if (static_cast<int>(kept.size()) == kDatingsRescored) break;
        if (std::none_of(kept.begin(), kept.end(), [&](const ScoredDating& k) {
                return k.order.internalByRank() == d.order.internalByRank();
            }))
            kept.push_back(std::move(d));
    }
    return kept;
}

} // namespace

SpeciationOrderResult
inferSpeciationOrder(CandidateScorer& scorer, const SpeciesTopology& start, const RateParameters& theta,
                     double startLogLikelihood, std::uint64_t seed,
                     const std::function<Evaluation(const SpeciesTopology&)>& evaluate) {
    SpeciationOrderResult result;
    result.startLogLikelihood = startLogLikelihood;
    const SpeciesTree tree = start.toSpeciesTree();
    SpeciationOrder order(tree);
    const std::vector<TransferCount> transfers = sampledTransfers(scorer, start, theta, seed);
    for (const TransferCount& t : transfers)
        result.sampledTransfers += t.count;
    std::mt19937_64 rng(seed);

    const DatingScore likelihood = [&](const SpeciationOrder& o) {
        ++result.likelihoodDatings;
        return evaluate(scorer.topologyOf(o.datedTree())).totalLogLikelihood;
    };
    double best = startLogLikelihood;
    result.transferDatings = kRandomDatings;
    for (const ScoredDating& d : bestTransferDatings(order, transfers, rng)) {
        const double ll = likelihood(d.order);
        if (ll > best) {
            best = ll;
            order = d.order;
            result.fromRandomDating = true;
        }
    }
    best = std::max(best, optimizeDatingLocally(order, likelihood));
    for (int failures = 0; failures < kPerturbationFailures;) {
        SpeciationOrder perturbed = order;
        perturbed.perturb(kLikelihoodPerturbation, rng);
        const double ll = optimizeDatingLocally(perturbed, likelihood);
        if (ll > best) {
            best = ll;
            order = std::move(perturbed);
            failures = 0;
        } else {
            ++failures;
        }
    }
    result.best = scorer.topologyOf(order.datedTree());
    result.evaluation = evaluate(result.best);
    return result;
}

} // namespace gpurec
