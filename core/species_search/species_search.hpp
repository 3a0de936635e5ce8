#pragma once
// Maximum-likelihood species-tree search over the families' total log-likelihood
// (docs/species-search.md): HYBRID alternates SPR rounds (radius growing while rounds stop paying)
// and root searches with rate re-optimisation until nothing improves; REROOT only places the root.
// Candidates are scored at fixed rates; supports (KH, bootstrap, root LLR and RELL) are gathered
// from the candidates' per-family log-likelihoods.
#include "species_search/candidate_scorer.hpp"
#include "species_search/search_memory.hpp"
#include "species_search/search_supports.hpp"
#include "species_search/speciation_order_search.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpurec {

// SKIP keeps the start tree (AleRax's default): a MiniNJ or Random start is only scored, rates fitted.
enum class SearchStrategy { Hybrid, Reroot, Skip };
SearchStrategy parseSearchStrategy(const std::string& text); // HYBRID | REROOT | SKIP
std::string toString(SearchStrategy strategy);

struct SpeciesSearchSettings {
    SearchStrategy strategy = SearchStrategy::Hybrid;
    int maxRadius = 3; // SPR rounds at radius 1, then 2, ... up to this while none pays
    // A regraft is tried only when the one a step nearer on its way lies at most this many times the
    // mean drop of the candidates scored at these rates below the current tree (RAxML's SPR
    // cutoff for descending into subtrees); 0: every regraft within the radius.
    double sprCutoff = 1.0;
    // SPR memory: a move is not tried when a move of the same local shape (the same pruned clade
    // and target clade, the same clades on the path between them) was scored on an earlier tree of
    // this search (at these rates or earlier ones) and fell below it by more than this many times
    // the mean drop at the current rates: a move elsewhere in the tree, or a small change of the
    // rates, hardly changes what this one is worth. 0: every move is scored on every tree.
    double sprMemory = 1.0;
    int rootDepth = 3;            // root moves past the best root in the searches between SPR rounds
    bool transferMoves = true;    // HYBRID: transfer-guided rounds (AleRax's) before the SPR rounds
    bool optimizeRates = true;    // re-optimise the rates after every improving round
    OptimizerSettings rates;      // for those re-optimisations
    double minImprovement = 1e-8; // a candidate must beat the current tree by more (nats; AleRax's)
    int replicates = 1000;        // RELL replicates of the supports
    std::uint64_t seed = 123;
    // Pre-screening: every candidate move (SPR, transfer-guided, root) is first scored on this
    // fraction of the families, and on all of them only when the estimate from that sample could be
    // an improvement (species_search/prescreen.hpp). 0: every candidate on every family.
    double prescreen = 0.0;
    // Candidates pre-screened at once, each on a backend of its own (on a GPU, its own stream): the
    // next ones the search would score are screened beside the one it needs. The search's decisions
    // are the same for any number; 1: one at a time; 0: 4 on a device backend, 1 on the CPU.
    int prescreenLanes = 0;
    // The pre-screen's confirming stage: a candidate the pre-screen cannot rule out is next scored on
    // more families, this many times the pre-screen's (those included), and on all of them only
    // when the estimate from these could still be an improvement. Off (0, or at most 1) or when that
    // reaches every family.
    double prescreenConfirm = 2.5;
    // RELDATED: infer the order of the speciations (AleRax's --infer-speciation-order) after the
    // rate fit (species_search/speciation_order_search.hpp); REROOT also re-dates every root
    // candidate.
    bool inferSpeciationOrder = false;
    // Asked before every candidate and rate optimisation, besides SIGINT/SIGTERM: true ends the
    // search there with the best tree so far (the workbench's Stop). Empty: signals only.
    std::function<bool()> stopRequested;

    // Throws std::invalid_argument naming the setting, its value and the valid range.
    void validate() const;
};

// Where a HYBRID search stands, so that a resumed search goes on there instead of from the start of
// its pass. A pass: transfer-guided rounds, SPR rounds of radius 1 to maxRadius (back to 1 after each
// round that improved, with a shallow root search), a root search (over every root position once a
// pass has changed nothing) and a rate fit; the passes repeat until one changes nothing. A resumed
// search skips what the position says was done (a shallow root search cut short is not run again).
struct SearchPosition {
    enum class Phase { Start, Transfer, Spr, PassEnd };
    Phase phase = Phase::Start; // Start: the first root search, before the first pass
    int radius = 1;             // Spr: the round's radius
    int prune = 0;              // Spr: the node id the round prunes next (the ones before it are done)
    bool roundImproved = false; // Spr: the round has improved the tree so far
    bool changed = false;       // the pass has changed the tree so far
};
std::string toString(SearchPosition::Phase phase);
SearchPosition::Phase parseSearchPhase(const std::string& text); // throws std::invalid_argument

// One row of the search trace: a scored candidate (or a rate optimisation on the current tree).
struct SearchStep {
    int index = 0;
    std::string move;   // "start", "SPR <pruned> -> <regraft> (radius r)", "root above <node>", "rates"
    std::string newick; // the candidate (AleRax node names, lengths 1)
    double logLikelihood = 0.0;
    bool accepted = false; // it became the current tree (or the rates were kept)
    // Scored on the pre-screening families only and left there: logLikelihood is the prediction
    // (the current tree's plus the predicted change), not an evaluation of every family.
    bool screened = false;
    double seconds = 0.0; // since the start of the search
    Rates rates;          // the global rates it was scored with (per-family rates: family 0's)
    // The rates the search holds after this step (valid during the observer's call): what a
    // checkpoint needs to resume with per-family rates.
    const RateParameters* theta = nullptr;
    // The current tree and where the search stands (valid during the observer's call; the position
    // only for HYBRID): what a checkpoint needs to resume there.
    const SpeciesTopology* tree = nullptr;
    const SearchPosition* position = nullptr;
    // HYBRID: what the search has learned so far (made on demand: it holds thousands of candidates).
    const std::function<SearchMemory()>* memory = nullptr;
};

struct RootSupport {
    Clade split;                     // the root position: its split, side without leaf 0
    double logLikelihoodRatio = 0.0; // LL − the best root's (<= 0)
    int rell = 0;                    // replicates this root wins
};

// Where a search's wall time went (seconds). What is left of SpeciesSearchResult::seconds is the
// search's own work: candidates' trees and keys, the supports, and the observer (the CLI's trace and
// checkpoints).
struct SearchSeconds {
    double start = 0.0;          // the start tree's evaluation and the pre-screen's backends
    double scoring = 0.0;        // candidates scored on every family (dated candidates' datings too)
    double screening = 0.0;      // candidates' screens on the sampled families (those ahead too)
    double confirming = 0.0;     // the confirming stage's families
    double rateFits = 0.0;       // rate optimisations
    double transferRounds = 0.0; // reconciliations sampled to propose transfer-guided moves
};

struct SpeciesSearchResult {
    SpeciesTopology start, best;
    RateParameters theta;  // the rates at the end
    Evaluation evaluation; // of `best` at `theta`
    double startLogLikelihood = 0.0;
    std::vector<SearchStep> trace;
    std::vector<RootSupport> roots;     // the last root search's positions
    std::map<Clade, int> kh, bootstrap; // branch supports of best's splits (HYBRID only)
    int replicates = 0;
    int evaluations = 0;
    int screenings = 0;             // candidates scored on the pre-screening families
    int screenedOut = 0;            // of them, those left there
    int screeningsUnused = 0;       // of them, those screened ahead that the search then did not need
    long long screenedFamilies = 0; // the families the screenings solved, all of them together
    int confirmingFamilies = 0;     // the families the confirming stage adds (0: no such stage)
    int confirmations = 0;          // candidates also scored on the confirming families
    int confirmedOut = 0;           // of them, those left there (counted in screenedOut too)
    int prescreenLanes = 0;         // the lanes the screenings ran in (0: no pre-screen; fewer than asked
                                    // where the device's memory ran out)
    int repeatsSkipped = 0;         // SPR candidates not scored again: the same tree was, at the same rates
    int sprCutoffSkipped = 0;       // SPR regrafts not tried: the one nearer on their way fell too far
    int sprMemorySkipped = 0; // SPR moves not tried: the same local move fell too far on an earlier tree
    double screeningZ = 0;    // the pre-screen's z at the end (Prescreen::z)
    double confirmingZ = 0;   // the confirming stage's
    bool interrupted = false;
    SearchPosition position; // HYBRID: where the search stood at its end (an interrupted one resumes there)
    SearchMemory memory;     // HYBRID: what it had learned by then (an interrupted one resumes with it)
    double seconds = 0.0;
    SearchSeconds activitySeconds;                        // where they went
    std::optional<SpeciationOrderResult> speciationOrder; // when it was inferred
};

// Called after every trace row (a candidate, accepted or not).
using SearchObserver = std::function<void(const SearchStep&)>;

// AleRax's refusals, with its messages, of a search that would move the nodes of a tree dated for
// RELDATED: HYBRID, and REROOT without speciation-order inference (with it, every root candidate is
// re-dated).
void requireSearchAllowed(SearchStrategy strategy, TransferConstraint constraint,
                          bool inferSpeciationOrder = false);

// Searches from `start` with the global or per-family rates θ. A SIGINT/SIGTERM or settings.stopRequested
// stops it before the next candidate, with the best tree so far (the result's `interrupted` set).
// Checks requireSearchAllowed. `from`: a HYBRID search goes on at that position of an interrupted
// one (whose current tree, with its node ids, is `start`), with what that one had learned (`memory`,
// when given: then it decides as the uninterrupted search would; throws std::invalid_argument for a
// memory of another search's shape).
SpeciesSearchResult searchSpeciesTree(CandidateScorer& scorer, const SpeciesTopology& start,
                                      const RateParameters& theta, const SpeciesSearchSettings& settings,
                                      const SearchObserver& observer = {}, const SearchPosition& from = {},
                                      const SearchMemory* memory = nullptr);

// A node's name as the species tree of `tree` names it (AleRax's Node_<a>_<b>_<k> for internal ones).
std::vector<std::string> nodeNames(const SpeciesTopology& tree);

} // namespace gpurec
