#include "species_search/search_supports.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <stdexcept>
#include <string>

namespace gpurec {

FamilyResampling::FamilyResampling(int families, int replicates, RandomSource& rng)
    : counts_(replicates, std::vector<int>(families, 0)) {
    if (families == 0) return;
    for (std::vector<int>& w : counts_)
        for (int i = 0; i < families; ++i)
            ++w[rng.below(std::uint64_t(families))];
}

std::vector<double> FamilyResampling::sums(const std::vector<double>& perFamily) const {
    std::vector<double> out(counts_.size(), 0.0);
    for (std::size_t b = 0; b < counts_.size(); ++b)
        for (std::size_t f = 0; f < perFamily.size(); ++f)
            out[b] += counts_[b][f] * perFamily[f];
    return out;
}

namespace {
int leavesIn(const Clade& c) {
    int n = 0;
    for (std::uint64_t w : c)
        n += std::popcount(w);
    return n;
}
} // namespace

Clade splitAbove(const SpeciesTopology& tree, const std::vector<Clade>& clades, int x) {
    const Clade& c = clades[x];
    return (c[0] & 1) ? complementClade(c, tree.leafCount()) : c;
}

std::vector<Clade> treeSplits(const SpeciesTopology& tree) {
    const std::vector<Clade> clades = tree.clades();
    std::vector<Clade> out;
    for (int x = tree.leafCount(); x < tree.nodeCount(); ++x) {
        if (x == tree.root()) continue;
        Clade s = splitAbove(tree, clades, x);
        const int size = leavesIn(s);
        if (size > 1 && size < tree.leafCount() - 1) out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<Clade> destroyedSplits(const std::vector<Clade>& before, const std::vector<Clade>& after) {
    std::vector<Clade> out;
    std::set_difference(before.begin(), before.end(), after.begin(), after.end(), std::back_inserter(out));
    return out;
}

void BranchKH::newTree(const std::vector<Clade>& splits, double logLikelihood,
                       const std::vector<double>& perFamily) {
    newReference(logLikelihood, perFamily);
    counts_.clear();
    for (const Clade& s : splits)
        counts_[s] = resampling_.replicates();
}

void BranchKH::newReference(double logLikelihood, const std::vector<double>& perFamily) {
    referenceLL_ = logLikelihood;
    referenceSums_ = resampling_.sums(perFamily);
}

void BranchKH::rejected(const std::vector<Clade>& affected, double logLikelihood,
                        const std::vector<double>& perFamily) {
    const std::vector<double> sums = resampling_.sums(perFamily);
    const double observed = referenceLL_ - std::min(logLikelihood, referenceLL_);
    const int B = resampling_.replicates();
    std::vector<double> delta(B);
    double mean = 0.0;
    for (int b = 0; b < B; ++b)
        mean += (delta[b] = referenceSums_[b] - sums[b]);
    mean /= B;
    // k = B·(1 − p̂): replicates whose centred difference does not exceed the observed one.
    int k = 0;
    for (int b = 0; b < B; ++b)
        k += delta[b] - mean <= observed;
    for (const Clade& s : affected) {
        auto it = counts_.try_emplace(s, B).first;
        it->second = std::min(it->second, k);
    }
}

int BranchKH::support(const Clade& split) const {
    auto it = counts_.find(split);
    return it == counts_.end() ? resampling_.replicates() : it->second;
}

BranchKH::State BranchKH::state() const {
    return {referenceLL_, referenceSums_, {counts_.begin(), counts_.end()}};
}

void BranchKH::restore(State state) {
    const int B = resampling_.replicates();
    if (state.referenceSums.size() != static_cast<std::size_t>(B))
        throw std::invalid_argument("the KH test's reference holds " +
                                    std::to_string(state.referenceSums.size()) +
                                    " replicate sums; the search has " + std::to_string(B) + " replicates");
    std::map<Clade, int> counts;
    for (auto& [split, count] : state.counts) {
        if (count < 0 || count > B)
            throw std::invalid_argument("a KH count of " + std::to_string(count) + " is outside [0, " +
                                        std::to_string(B) + "]");
        counts[std::move(split)] = count;
    }
    referenceLL_ = state.referenceLogLikelihood;
    referenceSums_ = std::move(state.referenceSums);
    counts_ = std::move(counts);
}

void BranchBootstrap::reference(const std::vector<Clade>& splits, const std::vector<double>& perFamily) {
    const std::vector<double> sums = resampling_.sums(perFamily);
    for (const Clade& s : splits) {
        auto [it, fresh] = state_.try_emplace(s);
        if (fresh) it->second.assign(sums.size(), {-std::numeric_limits<double>::infinity(), true});
        for (std::size_t b = 0; b < sums.size(); ++b)
            if (sums[b] > it->second[b].best) it->second[b] = {sums[b], true};
    }
}

void BranchBootstrap::candidate(const std::vector<Clade>& affected, const std::vector<double>& perFamily) {
    const std::vector<double> sums = resampling_.sums(perFamily);
    for (const Clade& s : affected) {
        auto it = state_.find(s);
        if (it == state_.end()) continue; // only branches a reference tree has had
        for (std::size_t b = 0; b < sums.size(); ++b)
            if (sums[b] > it->second[b].best) it->second[b] = {sums[b], false};
    }
}

int BranchBootstrap::support(const Clade& split) const {
    auto it = state_.find(split);
    if (it == state_.end()) return 0;
    return static_cast<int>(
        std::count_if(it->second.begin(), it->second.end(), [](const Replicate& r) { return r.supported; }));
}

void RootTable::add(const Clade& split, double logLikelihood, const std::vector<double>& perFamily) {
    for (RootCandidate& r : roots_)
        if (r.split == split) {
            r.logLikelihood = logLikelihood;
            r.perFamily = perFamily;
            return;
        }
    roots_.push_back({split, logLikelihood, perFamily});
}

double RootTable::logLikelihoodRatio(const RootCandidate& root) const {
    double best = -std::numeric_limits<double>::infinity();
    for (const RootCandidate& r : roots_)
        best = std::max(best, r.logLikelihood);
    return root.logLikelihood - best;
}

std::vector<int> RootTable::rellCounts(const FamilyResampling& resampling) const {
    std::vector<std::vector<double>> sums;
    for (const RootCandidate& r : roots_)
        sums.push_back(resampling.sums(r.perFamily));
    std::vector<int> wins(roots_.size(), 0);
    for (int b = 0; b < resampling.replicates(); ++b) {
        std::size_t winner = 0;
        for (std::size_t i = 1; i < sums.size(); ++i)
            if (sums[i][b] > sums[winner][b]) winner = i;
        if (!sums.empty()) ++wins[winner];
    }
    return wins;
}

} // namespace gpurec
