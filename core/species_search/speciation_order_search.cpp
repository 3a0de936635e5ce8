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

// Perturbs a copy of `order` (strength strength(failures)) and optimises it locally, keeping it when it
// scores strictly better than `best` (`order`'s score), until done(trials, failures) (failures: in a
// row). Returns the best score.
double perturbAndKeep(SpeciationOrder& order, double best, const DatingScore& score, std::mt19937_64& rng,
                      const std::function<double(int failures)>& strength,
                      const std::function<bool(int trials, int failures)>& done) {
    for (int trials = 0, failures = 0; !done(trials, failures); ++trials) {
        SpeciationOrder perturbed = order;
        perturbed.perturb(strength(failures), rng);
        const double s = optimizeDatingLocally(perturbed, score);
        if (s > best) {
            best = s;
            order = std::move(perturbed);
            failures = 0;
        } else {
            ++failures;
        }
    }
    return best;
}

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
        const double best = perturbAndKeep(
            order, optimizeDatingLocally(order, score), score, rng,
            [](int failures) { return (failures + 1) / static_cast<double>(kPerturbationsPerDating); },
            [](int trials, int) { return trials == kPerturbationsPerDating; });
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
    // `best` is `order`'s log-likelihood already (the start's or a re-scored dating's).
    best = optimizeDatingLocally(order, likelihood, best);
    perturbAndKeep(
        order, best, likelihood, rng, [](int) { return kLikelihoodPerturbation; },
        [](int, int failures) { return failures == kPerturbationFailures; });
    result.best = scorer.topologyOf(order.datedTree());
    result.evaluation = evaluate(result.best);
    return result;
}

} // namespace gpurec
