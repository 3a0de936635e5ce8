#include "species_search/species_search.hpp"

#include "engine/solver_report.hpp"
#include "run/interruption.hpp"
#include "species_search/prescreen.hpp"
#include "species_search/transfer_moves.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <utility>

namespace gpurec {

SearchStrategy parseSearchStrategy(const std::string& text) {
    if (text == "HYBRID") return SearchStrategy::Hybrid;
    if (text == "REROOT") return SearchStrategy::Reroot;
    if (text == "SKIP") return SearchStrategy::Skip;
    throw std::invalid_argument("unknown species-tree search '" + text +
                                "' (expected HYBRID, REROOT or SKIP)");
}

std::string toString(SearchStrategy strategy) {
    switch (strategy) {
    case SearchStrategy::Hybrid:
        return "HYBRID";
    case SearchStrategy::Reroot:
        return "REROOT";
    case SearchStrategy::Skip:
        return "SKIP";
    }
    return "";
}

std::string toString(SearchPosition::Phase phase) {
    switch (phase) {
    case SearchPosition::Phase::Start:
        return "start";
    case SearchPosition::Phase::Transfer:
        return "transfer";
    case SearchPosition::Phase::Spr:
        return "spr";
    case SearchPosition::Phase::PassEnd:
        return "pass end";
    }
    return "";
}

SearchPosition::Phase parseSearchPhase(const std::string& text) {
    for (const auto phase : {SearchPosition::Phase::Start, SearchPosition::Phase::Transfer,
                             SearchPosition::Phase::Spr, SearchPosition::Phase::PassEnd})
        if (toString(phase) == text) return phase;
    throw std::invalid_argument("unknown search phase '" + text +
                                "' (expected start, transfer, spr or pass end)");
}

void SpeciesSearchSettings::validate() const {
    auto bad = [](const std::string& name, double value, const std::string& range) {
        throw std::invalid_argument(name + " = " + std::to_string(value) + " must be " + range);
    };
    if (maxRadius < 1) bad("maxRadius", maxRadius, ">= 1");
    if (rootDepth < 1) bad("rootDepth", rootDepth, ">= 1");
    if (!(minImprovement >= 0)) bad("minImprovement", minImprovement, ">= 0");
    if (!(sprCutoff >= 0)) bad("sprCutoff", sprCutoff, ">= 0");
    if (!(sprMemory >= 0)) bad("sprMemory", sprMemory, ">= 0");
    if (!(prescreen >= 0 && prescreen < 1)) bad("prescreen", prescreen, "in [0, 1)");
    if (prescreenLanes < 0 || prescreenLanes > 64) bad("prescreenLanes", prescreenLanes, "in [0, 64]");
    if (!(prescreenConfirm >= 0)) bad("prescreenConfirm", prescreenConfirm, ">= 0");
    if (replicates < 1) bad("replicates", replicates, ">= 1");
    rates.validate();
}

std::vector<std::string> nodeNames(const SpeciesTopology& tree) {
    const SpeciesTree species = tree.toSpeciesTree();
    const std::vector<int> order = tree.speciesTreeOrder();
    std::vector<std::string> names(tree.nodeCount());
    for (int e = 0; e < species.size(); ++e)
        names[order[e]] = species.name(e);
    return names;
}

namespace {

// The search ends before the next candidate once a signal or a stop request has arrived.
struct SearchInterrupted {};

constexpr int unlimitedDepth = std::numeric_limits<int>::max();
// Screening lanes on a device backend by default: four screens side by side scored 15 % more
// candidates per second on the hogenom-like preset (H100; docs/performance.md); a screen of a tenth
// of its families is mostly work, so more lanes add little.
constexpr int kDevicePrescreenLanes = 4;
// AleRax's root searches of a dated tree (AleOptimizer::reroot).
constexpr int kQuickDatedRootDepth = 5;
constexpr int kThoroughDatedRootDepth = 2;

// How a root search dates its candidates (a dated tree only).
enum class Dating { None, Quick, Thorough };

// A rooted topology by two independent 64-bit hashes of its canonical Newick (FNV-1a and the
// standard library's): the search remembers thousands of candidates, whose Newick strings at
// genome scale take kilobytes each.
using TopologyKey = std::pair<std::uint64_t, std::uint64_t>;
TopologyKey topologyKey(std::string_view newick) {
    std::uint64_t fnv = 14695981039346656037ull;
    for (const char c : newick)
        fnv = (fnv ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return {fnv, std::hash<std::string_view>{}(newick)};
}

// Adds the wall time of its scope to `seconds` (also when the scope ends by an exception).
class Stopwatch {
  public:
    explicit Stopwatch(double& seconds) : seconds_(seconds), started_(std::chrono::steady_clock::now()) {}
    ~Stopwatch() {
        seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    }
    Stopwatch(const Stopwatch&) = delete;
    Stopwatch& operator=(const Stopwatch&) = delete;

  private:
    double& seconds_;
    std::chrono::steady_clock::time_point started_;
};

class Search {
  public:
    Search(CandidateScorer& scorer, const SpeciesSearchSettings& settings, const SearchObserver& observer,
           RandomSource& rng)
        : scorer_(scorer), settings_(settings), observer_(observer),
          started_(std::chrono::steady_clock::now()),
          rootResampling_(familyCount(), settings.replicates, rng),
          khResampling_(familyCount(), settings.replicates, rng),
          bpResampling_(familyCount(), settings.replicates, rng), kh_(khResampling_), bp_(bpResampling_),
          datingRng_(settings.seed) {}

    SpeciesSearchResult run(const SpeciesTopology& start, const RateParameters& theta,
                            const SearchPosition& from, const SearchMemory* learned) {
        position_ = from;
        result_.start = result_.best = start;
        result_.theta = theta;
        result_.replicates = settings_.replicates;
        // The scorer counts over its lifetime (a workbench session runs several searches on one).
        const int evaluationsBefore = scorer_.evaluations();
        std::optional<Stopwatch> starting(std::in_place, result_.activitySeconds.start);
        result_.evaluation = scorer_.evaluate(start, theta);
        if (settings_.prescreen > 0) { // after the first evaluation: the lanes follow its backend
            std::vector<int> families = screeningFamilies(scorer_.families(), settings_.prescreen);
            result_.prescreenLanes = settings_.prescreenLanes > 0     ? settings_.prescreenLanes
                                     : scorer_.backendName() == "cpu" ? 1
                                                                      : kDevicePrescreenLanes;
            scorer_.setScreeningFamilies(families, result_.prescreenLanes);
            result_.prescreenLanes = scorer_.screeningLanes(); // fewer where the device ran out
            scorer_.setConfirmingFamilies(
                confirmingFamilies(scorer_.families(), families, settings_.prescreenConfirm));
            const std::vector<int>& added = scorer_.confirmingFamilies(); // none where the device ran out
            if (!added.empty()) { // the sample's families, then the added ones: as their values come
                std::vector<int> both = families;
                both.insert(both.end(), added.begin(), added.end());
                confirming_.emplace(std::move(both), familyCount());
            }
            result_.confirmingFamilies = static_cast<int>(added.size());
            prescreen_.emplace(std::move(families), familyCount());
        } else {
            scorer_.setScreeningFamilies({});
            scorer_.setConfirmingFamilies({});
        }
        starting.reset();
        const int screeningsBefore = scorer_.screenings();
        const long long screenedFamiliesBefore = scorer_.screenedFamilies();
        const int confirmationsBefore = scorer_.confirmations();
        // A family impossible at these rates would make every comparison meaningless.
        requireFiniteLikelihoods(*scorer_.datasetOn(start), theta, result_.evaluation);
        result_.startLogLikelihood = result_.evaluation.totalLogLikelihood;
        splits_ = treeSplits(start);
        kh_.newTree(splits_, ll(), perFamily());
        if (learned) { // before the start's row: its checkpoint keeps the memory
            try {
                restore(*learned);
            } catch (const std::invalid_argument& e) {
                throw std::invalid_argument(std::string("the kept search memory does not fit this search: ") +
                                            e.what());
            }
        }
        record("start", start, result_.evaluation, true);
        try {
            switch (settings_.strategy) {
            case SearchStrategy::Reroot:
                reroot();
                break;
            case SearchStrategy::Hybrid:
                hybrid();
                break;
            case SearchStrategy::Skip:
                optimizeRates();
                if (settings_.inferSpeciationOrder && inferSpeciationOrder()) optimizeRates();
                break;
            }
        } catch (const SearchInterrupted&) {
            result_.interrupted = true;
        }
        result_.position = position_;
        if (settings_.strategy == SearchStrategy::Hybrid) result_.memory = memory();
        if (settings_.strategy == SearchStrategy::Hybrid)
            for (const Clade& s : splits_) {
                result_.kh[s] = kh_.support(s);
                result_.bootstrap[s] = bp_.support(s);
            }
        const std::vector<int> rell = roots_.rellCounts(rootResampling_);
        for (std::size_t i = 0; i < roots_.roots().size(); ++i)
            result_.roots.push_back(
                {roots_.roots()[i].split, roots_.logLikelihoodRatio(roots_.roots()[i]), rell[i]});
        forgetScreensAhead();
        result_.evaluations = scorer_.evaluations() - evaluationsBefore;
        result_.screenings = scorer_.screenings() - screeningsBefore;
        result_.screenedFamilies = scorer_.screenedFamilies() - screenedFamiliesBefore;
        result_.confirmations = scorer_.confirmations() - confirmationsBefore;
        if (prescreen_) result_.screeningZ = prescreen_->z();
        if (confirming_) result_.confirmingZ = confirming_->z();
        result_.seconds = elapsed();
        return std::move(result_);
    }

  private:
    int familyCount() const { return static_cast<int>(scorer_.families().families.size()); }
    bool stopping() const {
        return interruptRequested() || (settings_.stopRequested && settings_.stopRequested());
    }
    double ll() const { return result_.evaluation.totalLogLikelihood; }
    const std::vector<double>& perFamily() const { return result_.evaluation.logLikelihood; }
    double elapsed() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    }

    static std::string newickOf(const SpeciesTopology& tree) { return tree.toSpeciesTree().toNewick(true); }

    void record(const std::string& move, const SpeciesTopology& tree, const Evaluation& eval, bool accepted) {
        record(move, newickOf(tree), eval.totalLogLikelihood, accepted, false);
    }

    void record(const std::string& move, std::string newick, double logLikelihood, bool accepted,
                bool screened) {
        SearchStep step;
        step.index = static_cast<int>(result_.trace.size());
        step.move = move;
        step.newick = std::move(newick);
        step.logLikelihood = logLikelihood;
        step.accepted = accepted;
        step.screened = screened;
        step.seconds = elapsed();
        step.rates = result_.theta.rates(0);
        step.theta = &result_.theta;
        step.tree = &result_.best; // after an accepted move, the tree it made
        if (settings_.strategy == SearchStrategy::Hybrid) {
            step.position = &position_;
            step.memory = &memoryOf_;
        }
        result_.trace.push_back(step);
        if (observer_) observer_(result_.trace.back());
    }

    SearchMemory memory() const {
        SearchMemory m;
        for (const auto& [key, value] : settled_)
            m.settled.push_back({key.first, key.second, value});
        for (const auto& [key, value] : rememberedDrops_)
            m.sprMemory.push_back({key.first, key.second, value});
        m.dropSum = dropSum_;
        m.drops = drops_;
        m.transferRounds = transferRounds_;
        if (prescreen_) m.screening = prescreen_->calibration();
        if (confirming_) m.confirming = confirming_->calibration();
        m.kh = kh_.state();
        return m;
    }

    // What an interrupted search had learned, on its tree (the current one).
    void restore(const SearchMemory& m) {
        if (m.screening.has_value() != prescreen_.has_value())
            throw std::invalid_argument(std::string("the search memory was kept by a search ") +
                                        (m.screening ? "with" : "without") + " a pre-screen; this one has " +
                                        (prescreen_ ? "one" : "none"));
        const std::size_t words = splits_.empty() ? 0 : splits_.front().size();
        for (const auto& [split, count] : m.kh.counts)
            if (split.size() != words)
                throw std::invalid_argument("a KH count of the search memory is for a branch of " +
                                            std::to_string(split.size()) + " words; this tree's have " +
                                            std::to_string(words));
        if (m.screening) prescreen_->restore(*m.screening);
        // The confirming stage is left out where a device has no memory for it: a part may differ.
        if (m.confirming && confirming_) confirming_->restore(*m.confirming);
        kh_.restore(m.kh);
        settled_.clear();
        for (const KeyedValue& v : m.settled)
            settled_.emplace(TopologyKey{v.first, v.second}, v.value);
        rememberedDrops_.clear();
        for (const KeyedValue& v : m.sprMemory)
            rememberedDrops_.emplace(TopologyKey{v.first, v.second}, v.value);
        dropSum_ = m.dropSum;
        drops_ = static_cast<long>(m.drops);
        transferRounds_ = m.transferRounds;
    }

    Evaluation score(const SpeciesTopology& tree) {
        if (stopping()) throw SearchInterrupted{};
        const Stopwatch timed(result_.activitySeconds.scoring);
        return scorer_.evaluate(tree, result_.theta);
    }

    bool better(const Evaluation& e) const { return e.totalLogLikelihood > ll() + settings_.minImprovement; }

    void accept(const SpeciesTopology& tree, Evaluation eval, std::vector<Clade> splits) {
        const bool newSplits = splits != splits_;
        position_.changed = true;
        result_.best = tree;
        bestClades_.clear();
        result_.evaluation = std::move(eval);
        splits_ = std::move(splits);
        // A new root alone keeps every branch, so its KH counts stay.
        if (newSplits)
            kh_.newTree(splits_, ll(), perFamily());
        else
            kh_.newReference(ll(), perFamily());
    }

    // The candidate on every family, or nothing when the pre-screen (or its confirming stage) leaves
    // it out (its row is then recorded with the estimate, under `newick` when given, after `leftOut`
    // is handed the estimate: what the search learns from it is then in the row's checkpoint). What is left
    // out is left out of the supports too: this far below the current tree it would hardly lower a KH count,
    // win a replicate or be the best root.
    std::optional<Evaluation> scoreUnlessScreenedOut(const SpeciesTopology& candidate,
                                                     const std::string& move,
                                                     const std::string* newick = nullptr,
                                                     const std::function<void(double)>& leftOut = {}) {
        if (!prescreen_) return score(candidate);
        if (stopping()) throw SearchInterrupted{};
        const auto leaveOut = [&](const ScreeningEstimate& e) {
            ++result_.screenedOut;
            if (leftOut) leftOut(ll() + e.change);
            record(move, newick ? *newick : newickOf(candidate), ll() + e.change, false, true);
            return std::nullopt;
        };
        const std::vector<char> touched = touchedFamilies(candidate);
        const ScreenPlan plan = prescreen_->plan(touched);
        const Evaluation screened = screenOf(candidate, newick, plan.needed);
        const ScreeningEstimate predicted = prescreen_->estimate(screened.logLikelihood, perFamily(), plan);
        if (!prescreen_->worthScoring(predicted)) return leaveOut(predicted);
        std::optional<ScreeningEstimate> confirmed;
        if (confirming_) {
            if (stopping()) throw SearchInterrupted{};
            // The sample's families come first in both: their part of the plan is the screen's.
            const ScreenPlan both = confirming_->plan(touched);
            std::vector<char> addedNeeded;
            if (!both.needed.empty())
                addedNeeded.assign(both.needed.begin() +
                                       static_cast<std::ptrdiff_t>(prescreen_->families().size()),
                                   both.needed.end());
            std::vector<double> values = screened.logLikelihood;
            std::vector<double> added;
            {
                const Stopwatch timed(result_.activitySeconds.confirming);
                added = scorer_.confirm(candidate, result_.theta, addedNeeded).logLikelihood;
            }
            values.insert(values.end(), added.begin(), added.end());
            confirmed = confirming_->estimate(values, perFamily(), both);
            if (!confirming_->worthScoring(*confirmed)) {
                ++result_.confirmedOut;
                return leaveOut(*confirmed);
            }
        }
        Evaluation eval = score(candidate);
        prescreen_->observe(predicted, eval.totalLogLikelihood - ll());
        if (confirmed) confirming_->observe(*confirmed, eval.totalLogLikelihood - ll());
        return eval;
    }

    // The families a move from the current tree to `candidate` touches (one flag per family).
    std::vector<char> touchedFamilies(const SpeciesTopology& candidate) const {
        return scorer_.familiesTouching(leavesBelowMovedBranches(result_.best, candidate));
    }

    // The candidate's screen of the `needed` sampled families (empty: all): the one screened ahead
    // when it solved them (it was planned against the tree of that time), else screened now.
    Evaluation screenOf(const SpeciesTopology& candidate, const std::string* newick,
                        const std::vector<char>& needed) {
        if (!screenedAhead_.empty()) {
            const auto ahead = screenedAhead_.find(topologyKey(newick ? *newick : newickOf(candidate)));
            if (ahead != screenedAhead_.end()) {
                const bool usable = solvesAll(ahead->second.needed, needed);
                Evaluation screened = std::move(ahead->second.screen);
                screenedAhead_.erase(ahead);
                if (usable) return screened;
                ++result_.screeningsUnused;
            }
        }
        const Stopwatch timed(result_.activitySeconds.screening);
        return std::move(scorer_.screen({candidate}, result_.theta, {needed}).front());
    }

    // Whether a screen of the families `solved` flags (empty: all) holds every one `needed` flags.
    static bool solvesAll(const std::vector<char>& solved, const std::vector<char>& needed) {
        if (solved.empty()) return true;
        if (needed.empty()) return false;
        for (std::size_t i = 0; i < needed.size(); ++i)
            if (needed[i] && !solved[i]) return false;
        return true;
    }

    // With several screening lanes: screens the candidate the search is about to score and those
    // `next` gives after it (the ones the search would score next if it accepted none; nullopt: no
    // more), one per lane, side by side. Whether the search then takes them or not, its decisions
    // are those of one lane: a screen depends on the candidate and the rates alone. `memoised`:
    // candidates settled at these rates are not scored again (SPR), so they are not screened ahead.
    void screenAhead(const SpeciesTopology& now, const std::function<std::optional<SpeciesTopology>()>& next,
                     bool memoised) {
        const auto lanes = static_cast<std::size_t>(scorer_.screeningLanes());
        std::vector<SpeciesTopology> batch;
        std::vector<TopologyKey> keys;
        std::vector<std::vector<char>> needed;
        auto add = [&](const SpeciesTopology& candidate) {
            const TopologyKey key = topologyKey(newickOf(candidate));
            if (screenedAhead_.count(key) || (memoised && settled_.count(key)) ||
                std::find(keys.begin(), keys.end(), key) != keys.end())
                return false;
            batch.push_back(candidate);
            keys.push_back(key);
            needed.push_back(prescreen_->plan(touchedFamilies(candidate)).needed);
            return true;
        };
        if (!add(now)) return; // screened already (or settled: it will not be scored)
        while (batch.size() < lanes)
            if (const std::optional<SpeciesTopology> candidate = next())
                add(*candidate);
            else
                break;
        if (stopping()) throw SearchInterrupted{};
        // Candidates screened ahead and then not taken (an accepted move changed the course) stay
        // until the rates change; a bound keeps that waste from piling up.
        if (screenedAhead_.size() > 8 * lanes) forgetScreensAhead();
        std::vector<Evaluation> screens;
        {
            const Stopwatch timed(result_.activitySeconds.screening);
            screens = scorer_.screen(batch, result_.theta, needed);
        }
        for (std::size_t k = 0; k < batch.size(); ++k)
            screenedAhead_.emplace(keys[k], ScreenAhead{std::move(screens[k]), std::move(needed[k])});
    }

    bool screeningAhead() const { return prescreen_ && scorer_.screeningLanes() > 1; }

    void forgetScreensAhead() {
        result_.screeningsUnused += static_cast<int>(screenedAhead_.size());
        screenedAhead_.clear();
    }

    // One SPR candidate at the current rates, recorded as `move`; true when it became the current
    // tree. A topology scored (or left at the pre-screen) since the rates last changed is not scored
    // again: its log-likelihood depends on the topology and the rates alone, and the current tree's
    // only rises, so it cannot pay now; the supports took it in when it was first offered. Such
    // repeats are frequent: a round of radius r + 1 holds the whole round of radius r that found
    // nothing before it, and two prunings can give one tree. *settledAt, when given, receives the
    // candidate's log-likelihood (its estimate when left at the pre-screen; the first one for a repeat).
    SpeciesTopology sprCandidate(int prune, int regraft) const {
        SpeciesTopology candidate = result_.best;
        candidate.applySpr(prune, regraft);
        return candidate;
    }

    bool trySpr(int prune, int regraft, const std::string& move, double* settledAt = nullptr) {
        const SpeciesTopology candidate = sprCandidate(prune, regraft);
        std::string newick = newickOf(candidate);
        const TopologyKey key = topologyKey(newick);
        if (const auto seen = settled_.find(key); seen != settled_.end()) {
            ++result_.repeatsSkipped;
            if (settledAt) *settledAt = seen->second;
            return false;
        }
        const TopologyKey local = remembering() ? localMoveKey(prune, regraft) : TopologyKey{};
        if (const std::optional<double> drop = hopelessDrop(local)) {
            ++result_.sprMemorySkipped;
            if (settledAt) *settledAt = ll() - *drop;
            return false;
        }
        const auto settleAt = [&](double logLikelihood) {
            settle(key, logLikelihood);
            if (remembering()) rememberedDrops_[local] = ll() - logLikelihood;
        };
        std::optional<Evaluation> scored = scoreUnlessScreenedOut(candidate, move, &newick, settleAt);
        if (scored) settleAt(scored->totalLogLikelihood);
        if (settledAt) *settledAt = settled_.at(key);
        if (!scored) return false;
        Evaluation eval = std::move(*scored);
        std::vector<Clade> splits = treeSplits(candidate);
        const std::vector<Clade> affected = destroyedSplits(splits_, splits);
        bp_.candidate(affected, eval.logLikelihood);
        const bool accepted = better(eval);
        const double logLikelihood = eval.totalLogLikelihood;
        // Taken before its row is recorded: the observer's checkpoint keeps the new tree and position.
        if (accepted) {
            if (position_.phase == SearchPosition::Phase::Spr) position_.roundImproved = true;
            accept(candidate, std::move(eval), std::move(splits));
        } else {
            kh_.rejected(affected, eval.totalLogLikelihood, eval.logLikelihood);
        }
        record(move, std::move(newick), logLikelihood, accepted, false);
        return accepted;
    }

    // A settled candidate's log-likelihood (its estimate when left at the pre-screen), and its drop
    // below the current tree in the mean the SPR cutoff compares with.
    void settle(const TopologyKey& key, double logLikelihood) {
        settled_.emplace(key, logLikelihood);
        dropSum_ += std::max(0.0, ll() - logLikelihood);
        ++drops_;
    }

    // The SPR cutoff (SpeciesSearchSettings::sprCutoff): a regraft is not tried when the one a step
    // nearer on its way (settled at `nearer`, NaN when it was left out by the cutoff itself) lies
    // further below the current tree than the cutoff times the mean drop of the candidates settled at
    // these rates.
    bool cutOff(double nearer) const {
        if (settings_.sprCutoff <= 0 || drops_ == 0) return false;
        return !(ll() - nearer <= settings_.sprCutoff * dropSum_ / static_cast<double>(drops_));
    }

    // The local shape of SPR(prune, regraft) on the current tree: the pruned clade, the target's and
    // those of the nodes on the path between them (prune's parent up to their last common ancestor
    // and down to the target), keyed like a topology by the bytes of those clades (all of one
    // length). Two trees give a move the same key when they differ only away from that path.
    TopologyKey localMoveKey(int prune, int regraft) {
        const SpeciesTopology& tree = result_.best;
        if (bestClades_.empty()) bestClades_ = tree.clades();
        std::vector<bool> above(tree.nodeCount(), false); // prune's ancestors
        for (int a = tree.parent(prune); a >= 0; a = tree.parent(a))
            above[a] = true;
        Clade path = bestClades_[prune];
        const auto add = [&](int node) {
            path.insert(path.end(), bestClades_[node].begin(), bestClades_[node].end());
        };
        int down = regraft;
        for (; !above[down]; down = tree.parent(down))
            add(down);
        for (int up = tree.parent(prune); up != down; up = tree.parent(up))
            add(up);
        add(down);
        return topologyKey(std::string_view(reinterpret_cast<const char*>(path.data()),
                                            path.size() * sizeof(std::uint64_t)));
    }

    // The SPR memory (SpeciesSearchSettings::sprMemory): the drop of a move of this local shape
    // scored on an earlier tree (at these rates or earlier ones), when it lies more than the
    // memory's factor times the mean drop at the current rates.
    bool remembering() const { return settings_.sprMemory > 0; }
    std::optional<double> hopelessDrop(const TopologyKey& local) const {
        if (!remembering() || drops_ == 0) return std::nullopt;
        const auto seen = rememberedDrops_.find(local);
        if (seen == rememberedDrops_.end() ||
            seen->second <= settings_.sprMemory * dropSum_ / static_cast<double>(drops_))
            return std::nullopt;
        return seen->second;
    }
    bool remembersHopeless(int prune, int regraft) {
        return remembering() && hopelessDrop(localMoveKey(prune, regraft)).has_value();
    }

    // Every non-root node pruned once, its regrafts listed on the tree as it is when its turn comes
    // (each after the one nearer on its way); after an improvement the round moves on to the next node.
    bool sprRound(int radius) {
        bp_.reference(splits_, perFamily());
        bool improved = position_.roundImproved;
        for (int prune = position_.prune; prune < result_.best.nodeCount(); ++prune) {
            position_.prune = prune;
            if (prune == result_.best.root()) continue;
            const std::vector<std::string> names = nodeNames(result_.best);
            // Per regraft target: the log-likelihood its candidate settled at (NaN: not tried).
            std::vector<double> settledAt(result_.best.nodeCount(), std::numeric_limits<double>::quiet_NaN());
            const std::vector<SpeciesTopology::Regraft> paths = result_.best.sprRegraftPaths(prune, radius);
            std::vector<int> turn(result_.best.nodeCount(), -1); // each target's index in paths
            for (std::size_t i = 0; i < paths.size(); ++i)
                turn[paths[i].target] = static_cast<int>(i);
            for (std::size_t i = 0; i < paths.size(); ++i) {
                const auto [regraft, nearer] = paths[i];
                if (nearer >= 0 && cutOff(settledAt[nearer])) {
                    ++result_.sprCutoffSkipped;
                    continue;
                }
                // Ahead: the later regrafts not already known to be cut off (a nearer one whose turn
                // has come is settled, or cut when NaN; one still to come may be either).
                std::size_t j = i;
                if (screeningAhead() && !remembersHopeless(prune, regraft))
                    screenAhead(
                        sprCandidate(prune, regraft),
                        [&]() -> std::optional<SpeciesTopology> {
                            while (++j < paths.size()) {
                                const int near = paths[j].nearer;
                                if ((near >= 0 && turn[near] < static_cast<int>(i) &&
                                     cutOff(settledAt[near])) ||
                                    remembersHopeless(prune, paths[j].target))
                                    continue;
                                return sprCandidate(prune, paths[j].target);
                            }
                            return std::nullopt;
                        },
                        true);
                if (trySpr(prune, regraft,
                           "SPR " + names[prune] + " -> " + names[regraft] + " (radius " +
                               std::to_string(radius) + ")",
                           &settledAt[regraft])) {
                    improved = true; // trySpr marked the round improved
                    break;
                }
            }
        }
        return improved;
    }

    // AleRax's transfer-guided search (species-tree-search.md 3.2): rounds of the moves that sampled
    // transfers suggest, each on reconciliations of the tree as it is, until a round finds nothing.
    // A move once tried with the same score is not tried again in this search.
    bool transferSearch() {
        bool improved = false;
        std::set<std::tuple<int, int, double>> tried;
        for (;;) {
            if (stopping()) throw SearchInterrupted{};
            std::vector<TransferMove> moves;
            {
                const Stopwatch timed(result_.activitySeconds.transferRounds);
                moves = transferMoves(scorer_, result_.best, result_.theta, settings_.seed + transferRounds_);
            }
            const bool roundImproved = transferRound(moves, tried);
            ++transferRounds_; // after the round: one stopped inside it draws the same moves on resuming
            if (!roundImproved) break;
            improved = true;
        }
        return improved;
    }

    // Walks the moves best first, each receiver moved once; stops after 50 failures in a row once
    // max(50, N/2) moves were looked at, or after max(15, N/4) improvements (AleRax's caps).
    bool transferRound(const std::vector<TransferMove>& moves,
                       std::set<std::tuple<int, int, double>>& tried) {
        bp_.reference(splits_, perFamily());
        const int nodes = result_.best.nodeCount();
        const int improvementCap = std::max(15, nodes / 4), minimumTrials = std::max(50, nodes / 2);
        int failures = 0, improvements = 0, index = 0;
        std::vector<bool> moved(nodes, false);
        for (const TransferMove& m : moves) {
            ++index;
            if (moved[m.prune] || !result_.best.canSpr(m.prune, m.regraft)) continue;
            if (!tried.insert({m.prune, m.regraft, m.score}).second) continue;
            auto later = moves.begin() + index;
            if (screeningAhead() && !remembersHopeless(m.prune, m.regraft))
                screenAhead(
                    sprCandidate(m.prune, m.regraft),
                    [&]() -> std::optional<SpeciesTopology> {
                        while (later != moves.end()) {
                            const TransferMove& n = *later++;
                            if (!moved[n.prune] && result_.best.canSpr(n.prune, n.regraft) &&
                                !tried.count({n.prune, n.regraft, n.score}) &&
                                !remembersHopeless(n.prune, n.regraft))
                                return sprCandidate(n.prune, n.regraft);
                        }
                        return std::nullopt;
                    },
                    true);
            const std::vector<std::string> names = nodeNames(result_.best);
            if (trySpr(m.prune, m.regraft, "transfer SPR " + names[m.prune] + " -> " + names[m.regraft])) {
                failures = 0;
                ++improvements;
                moved[m.prune] = true;
            } else {
                ++failures;
            }
            if ((index > minimumTrials && failures > 50) || improvements > improvementCap) break;
        }
        return improvements > 0;
    }

    // Root positions reached from the current root moving away from it, up to `depth` moves past
    // the best one found; the positions and their per-family LLs go to the root table. Each move
    // starts from the candidate before it (on a dated tree, with the order its dating chose).
    bool rootSearch(int depth, Dating dating = Dating::None) {
        const SpeciesTopology origin = result_.best;
        const std::vector<std::string> names = nodeNames(origin);
        roots_.clear();
        roots_.add(origin.rootSplitAbove(origin.left(origin.root())), ll(), perFamily());
        bool improved = false;
        auto explore = [&](auto& self, const SpeciesTopology& from, int node, int budget) -> void {
            if (from.isLeaf(node)) return;
            for (int child : {from.left(node), from.right(node)}) {
                SpeciesTopology candidate = from;
                candidate.rerootAbove(child);
                if (screeningAhead() && dating == Dating::None) // a dated candidate changes by its dating
                    screenAhead(candidate, rootsAfter(from, node, child, candidate, budget), false);
                std::string move = "root above " + names[child];
                std::optional<Evaluation> scored = scoreUnlessScreenedOut(candidate, move);
                if (!scored) { // not a root of the root table, but the search goes on past it
                    if (budget > 1) self(self, candidate, child, budget - 1);
                    continue;
                }
                Evaluation eval = std::move(*scored);
                if (dating != Dating::None) move += date(candidate, eval, dating == Dating::Thorough);
                roots_.add(candidate.rootSplitAbove(child), eval.totalLogLikelihood, eval.logLikelihood);
                const bool accepted = better(eval);
                const double logLikelihood = eval.totalLogLikelihood;
                int left = budget - 1;
                if (accepted) { // before its row: the observer's checkpoint keeps the new tree
                    accept(candidate, std::move(eval), splits_);
                    improved = true;
                    left = depth;
                }
                record(move, newickOf(candidate), logLikelihood, accepted, false);
                if (left > 0) self(self, candidate, child, left);
            }
        };
        explore(explore, origin, origin.left(origin.root()), depth);
        explore(explore, origin, origin.right(origin.root()), depth);
        return improved;
    }

    // The root candidates rootSearch's exploration scores after `candidate` (the root above `child`
    // of `node`, reached from `from` with `budget` moves left) if it accepts none: those below the
    // candidate, then, for a left child, the right child's and those below it.
    static std::function<std::optional<SpeciesTopology>()> rootsAfter(const SpeciesTopology& from, int node,
                                                                      int child,
                                                                      const SpeciesTopology& candidate,
                                                                      int budget) {
        // A stack of explore's steps: score `tree` (node −1), or explore below `node` of `tree`.
        struct Step {
            SpeciesTopology tree;
            int node, budget;
        };
        auto steps = std::make_shared<std::vector<Step>>();
        auto pushChild = [steps](const SpeciesTopology& tree, int below, int left) {
            SpeciesTopology rerooted = tree;
            rerooted.rerootAbove(below);
            if (left > 1) steps->push_back({rerooted, below, left - 1});
            steps->push_back({std::move(rerooted), -1, 0});
        };
        if (child == from.left(node)) pushChild(from, from.right(node), budget);
        if (budget > 1) steps->push_back({candidate, child, budget - 1});
        return [steps, pushChild]() -> std::optional<SpeciesTopology> {
            while (!steps->empty()) {
                Step step = std::move(steps->back());
                steps->pop_back();
                if (step.node < 0) return std::move(step.tree);
                if (step.tree.isLeaf(step.node)) continue;
                pushChild(step.tree, step.tree.right(step.node), step.budget);
                pushChild(step.tree, step.tree.left(step.node), step.budget);
            }
            return std::nullopt;
        };
    }

    // AleRax's dating of a dated candidate after its root move (optimizeSpeciationOrder): the
    // candidate and its evaluation become the dated ones; returns what the trace row adds.
    std::string date(SpeciesTopology& candidate, Evaluation& eval, bool thorough) {
        SpeciationOrderResult dated = optimizeSpeciationOrder(
            candidate, eval, thorough, datingRng_, [&](const SpeciesTopology& tree) { return score(tree); });
        candidate = std::move(dated.best);
        eval = std::move(dated.evaluation);
        return ", dated (" + std::to_string(dated.likelihoodDatings) + " datings scored)";
    }

    void optimizeRates() {
        if (!settings_.optimizeRates) return;
        if (stopping()) throw SearchInterrupted{};
        Evaluation eval;
        OptimizationResult r;
        {
            const Stopwatch timed(result_.activitySeconds.rateFits);
            r = scorer_.optimizeRates(result_.best, result_.theta, settings_.rates, eval);
        }
        const bool kept = eval.totalLogLikelihood > ll();
        if (kept) {
            result_.theta = r.best;
            result_.evaluation = eval; // a copy: eval is recorded below either way
            kh_.newReference(ll(), perFamily());
            settled_.clear(); // the SPR memory stays: a move far below at the old rates stays so
            forgetScreensAhead();
            dropSum_ = 0;
            drops_ = 0;
        }
        record("rates", result_.best, eval, kept);
        if (r.interrupted) throw SearchInterrupted{};
    }

    // AleRax's dating step: the best order of the speciations at the current rates; true when it
    // changed the tree.
    bool inferSpeciationOrder() {
        SpeciationOrderResult found =
            gpurec::inferSpeciationOrder(scorer_, result_.best, result_.theta, ll(), settings_.seed,
                                         [&](const SpeciesTopology& tree) { return score(tree); });
        const bool accepted = better(found.evaluation);
        if (accepted) accept(found.best, found.evaluation, splits_); // before its row, as trySpr
        record("speciation order: " + std::to_string(found.likelihoodDatings) + " datings scored, " +
                   std::to_string(found.transferDatings) + " by " + std::to_string(found.sampledTransfers) +
                   " sampled transfers",
               found.best, found.evaluation, accepted);
        result_.speciationOrder = std::move(found);
        return accepted;
    }

    // Every root position, between rate fits. On a dated tree (RELDATED, --infer-speciation-order)
    // as AleRax: a root search of depth 5 dating every candidate quickly, then one of depth 2 dating
    // them thoroughly, and after the rate fit the dating step SKIP runs.
    void reroot() {
        optimizeRates();
        if (scorer_.dated()) {
            rootSearch(kQuickDatedRootDepth, Dating::Quick);
            rootSearch(kThoroughDatedRootDepth, Dating::Thorough);
        } else {
            rootSearch(unlimitedDepth);
        }
        optimizeRates();
        if (settings_.inferSpeciationOrder && inferSpeciationOrder()) optimizeRates();
    }

    // The rates are re-optimised only after a whole pass of SPR rounds: rates fitted to a tree far
    // from the truth (a random start) explain its conflicts by transfers and then hold the search
    // in that tree's neighbourhood.
    // position_ follows the passes (SearchPosition), so that a search resumed from it goes on there.
    void hybrid() {
        using Phase = SearchPosition::Phase;
        if (position_.phase == Phase::Start) {
            rootSearch(settings_.rootDepth);
            position_ = {Phase::Transfer};
        }
        for (;;) {
            // accept() marks the pass changed as soon as a move is taken.
            if (position_.phase == Phase::Transfer) {
                if (settings_.transferMoves) transferSearch();
                position_ = {Phase::Spr, 1, 0, false, position_.changed};
            }
            while (position_.phase == Phase::Spr) {
                if (sprRound(position_.radius)) {
                    position_ = {Phase::Spr, 1, 0, false, true};
                    rootSearch(settings_.rootDepth);
                } else if (position_.radius < settings_.maxRadius) {
                    position_ = {Phase::Spr, position_.radius + 1, 0, false, position_.changed};
                } else {
                    position_ = {Phase::PassEnd, 1, 0, false, position_.changed};
                }
            }
            // Every root position only once a pass has changed nothing (AleRax's final root search):
            // after a pass that did, the next pass's rounds move on from a shallow root search.
            rootSearch(position_.changed ? settings_.rootDepth : unlimitedDepth);
            optimizeRates();
            if (!position_.changed) break;
            position_ = {Phase::Transfer};
        }
    }

    CandidateScorer& scorer_;
    const SpeciesSearchSettings& settings_;
    const SearchObserver& observer_;
    std::chrono::steady_clock::time_point started_;
    FamilyResampling rootResampling_, khResampling_, bpResampling_;
    BranchKH kh_;
    BranchBootstrap bp_;
    RootTable roots_;
    std::optional<Prescreen> prescreen_;
    std::optional<Prescreen> confirming_; // on the screening and the confirming families together
    std::vector<Clade> splits_;           // of the current tree
    // SPR candidates scored (or left at the pre-screen) at the current rates, with their
    // log-likelihoods (trySpr), and the sum and count of their drops below the tree they were
    // offered against (the mean of cutOff).
    std::map<TopologyKey, double> settled_;
    struct ScreenAhead {
        Evaluation screen;
        std::vector<char> needed; // the sampled families it solved (empty: all)
    };
    std::map<TopologyKey, ScreenAhead> screenedAhead_; // screens at the current rates not yet taken
    // SPR moves scored in this search by their local shape (localMoveKey), with their drop below the
    // tree they were offered on (the latest one): the SPR memory, kept across rate fits.
    std::map<TopologyKey, double> rememberedDrops_;
    std::vector<Clade> bestClades_; // result_.best's clades, filled when needed (empty: not yet)
    double dropSum_ = 0;
    long drops_ = 0;
    std::uint64_t transferRounds_ = 0; // seeds the reconciliations of each transfer round
    SearchPosition position_;          // HYBRID's
    const std::function<SearchMemory()> memoryOf_ = [this] { return memory(); }; // SearchStep::memory
    std::mt19937_64 datingRng_; // the perturbations of the root candidates' datings
    SpeciesSearchResult result_;
};

} // namespace

void requireSearchAllowed(SearchStrategy strategy, TransferConstraint constraint, bool inferSpeciationOrder) {
    if (inferSpeciationOrder && constraint != TransferConstraint::RelDated)
        throw std::invalid_argument(
            "--infer-speciation-order can only be used with --transfer-constraint RELDATED");
    if (constraint != TransferConstraint::RelDated) return;
    if (strategy == SearchStrategy::Hybrid)
        throw std::invalid_argument(
            "species tree search is not compatible with --transfer-constraint RELDATED");
    if (strategy == SearchStrategy::Reroot && !inferSpeciationOrder)
        throw std::invalid_argument(
            "species tree root inference is not compatible with --transfer-constraint "
            "RELDATED unless using --infer-speciation-order");
}

SpeciesSearchResult searchSpeciesTree(CandidateScorer& scorer, const SpeciesTopology& start,
                                      const RateParameters& theta, const SpeciesSearchSettings& settings,
                                      const SearchObserver& observer, const SearchPosition& from,
                                      const SearchMemory* memory) {
    settings.validate();
    if (from.phase != SearchPosition::Phase::Start && settings.strategy != SearchStrategy::Hybrid)
        throw std::invalid_argument("only a HYBRID search resumes at a position of its passes");
    if (from.radius < 1 || from.radius > settings.maxRadius || from.prune < 0 ||
        from.prune >= start.nodeCount())
        throw std::invalid_argument("the search position (radius " + std::to_string(from.radius) + ", node " +
                                    std::to_string(from.prune) + ") lies outside radius 1 to " +
                                    std::to_string(settings.maxRadius) + " and nodes 0 to " +
                                    std::to_string(start.nodeCount() - 1));
    requireSearchAllowed(settings.strategy, scorer.families().transferConstraint,
                         settings.inferSpeciationOrder);
    if (theta.mode() == RateMode::Specieswise)
        throw std::invalid_argument(
            "per-species rates are tied to one species tree: the species-tree search takes "
            "global or per-family rates");
    RandomSource rng(settings.seed);
    Search search(scorer, settings, observer, rng);
    if (memory && settings.strategy != SearchStrategy::Hybrid)
        throw std::invalid_argument("only a HYBRID search resumes with what an earlier part learned");
    return search.run(start, theta, from, memory);
}

} // namespace gpurec
