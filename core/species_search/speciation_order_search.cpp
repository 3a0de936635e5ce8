#include "species_search/speciation_order_search.hpp"

#include "recon/transfer_tally.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
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

// The likelihood as a dating score of `start`'s datings, remembering the evaluation of the most
// likely order scored (the first of equals), so that the order chosen is not evaluated again.
class DatingLikelihood {
  public:
    // `order`: the start's, of log-likelihood `logLikelihood` (evaluation, when known: `evaluation`).
    DatingLikelihood(const SpeciesTopology& start, const EvaluateTree& evaluate, const SpeciationOrder& order,
                     double logLikelihood, std::optional<Evaluation> evaluation,
                     SpeciationOrderResult& result)
        : start_(start), evaluate_(evaluate), result_(result), bestOrder_(order.internalByRank()),
          bestLogLikelihood_(logLikelihood), best_(std::move(evaluation)) {}

    double operator()(const SpeciationOrder& order) {
        ++result_.likelihoodDatings;
        Evaluation e = evaluate_(start_.datedBy(order.datedTree()));
        const double ll = e.totalLogLikelihood;
        if (ll > bestLogLikelihood_) {
            bestOrder_ = order.internalByRank();
            bestLogLikelihood_ = ll;
            best_ = std::move(e);
        }
        return ll;
    }

    // `order`, the one chosen: the result's tree and evaluation.
    void finish(const SpeciationOrder& order) {
        result_.best = start_.datedBy(order.datedTree());
        result_.evaluation =
            best_ && order.internalByRank() == bestOrder_ ? std::move(*best_) : evaluate_(result_.best);
    }

  private:
    const SpeciesTopology& start_;
    const EvaluateTree& evaluate_;
    SpeciationOrderResult& result_;
    std::vector<int> bestOrder_;
    double bestLogLikelihood_;
    std::optional<Evaluation> best_;
};

// AleRax's DatedSpeciesTreeSearch::optimizeDates from `order` (its log-likelihood `best`): local
// optimisation, then, when `thorough`, perturbations (p = kLikelihoodPerturbation) until
// kPerturbationFailures fail in a row.
void optimizeByLikelihood(SpeciationOrder& order, double best, const DatingScore& likelihood, bool thorough,
                          std::mt19937_64& rng) {
    best = optimizeDatingLocally(order, likelihood, best);
    if (thorough)
        perturbAndKeep(
            order, best, likelihood, rng, [](int) { return kLikelihoodPerturbation; },
            [](int, int failures) { return failures == kPerturbationFailures; });
}

} // namespace

SpeciationOrderResult inferSpeciationOrder(CandidateScorer& scorer, const SpeciesTopology& start,
                                           const RateParameters& theta, double startLogLikelihood,
                                           std::uint64_t seed, const EvaluateTree& evaluate) {
    SpeciationOrderResult result;
    result.startLogLikelihood = startLogLikelihood;
    const SpeciesTree tree = start.toSpeciesTree();
    SpeciationOrder order(tree);
    const std::vector<TransferCount> transfers = sampledTransfers(scorer, start, theta, seed);
    for (const TransferCount& t : transfers)
        result.sampledTransfers += t.count;
    std::mt19937_64 rng(seed);

    DatingLikelihood scored(start, evaluate, order, startLogLikelihood, std::nullopt, result);
    const DatingScore likelihood = [&](const SpeciationOrder& o) { return scored(o); };
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
    optimizeByLikelihood(order, best, likelihood, true, rng);
    scored.finish(order);
    return result;
}

SpeciationOrderResult optimizeSpeciationOrder(const SpeciesTopology& start, const Evaluation& startEvaluation,
                                              bool thorough, std::mt19937_64& rng,
                                              const EvaluateTree& evaluate) {
    SpeciationOrderResult result;
    result.startLogLikelihood = startEvaluation.totalLogLikelihood;
    const SpeciesTree tree = start.toSpeciesTree();
    SpeciationOrder order(tree);
    DatingLikelihood scored(start, evaluate, order, result.startLogLikelihood, startEvaluation, result);
    optimizeByLikelihood(
        order, result.startLogLikelihood, [&](const SpeciationOrder& o) { return scored(o); }, thorough, rng);
    scored.finish(order);
    return result;
}

} // namespace gpurec
