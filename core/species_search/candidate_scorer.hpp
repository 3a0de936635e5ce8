#pragma once
// Scores candidate species trees on a fixed set of families. The families' clade sets depend only
// on the gene trees, so a candidate needs no re-reading or re-amalgamation: its dataset shares the
// clade sets' contents and only re-indexes each gene's species leaf onto the candidate's postorder.
#include "engine/backend.hpp"
#include "engine/backend_factory.hpp"
#include "optim/optimizer.hpp"
#include "recon/sampling_run.hpp"
#include "species_search/species_topology.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpurec {

class CandidateScorer {
  public:
    // The factory is called once, for the first candidate: the others move that backend onto their
    // tree (LikelihoodBackend::setSpeciesTree), which keeps what depends on the clade sets alone.
    // `families`: the families loaded on any species tree with the candidates' leaves. `backend`, if
    // given, is one already made on `families`: the factory is then never called. `sampling`: how
    // sampleOn samples (sampleFromBackend when empty).
    CandidateScorer(std::shared_ptr<const Dataset> families, BackendFactory factory, SolverOptions options,
                    std::unique_ptr<LikelihoodBackend> backend = {}, FamilySampling sampling = {});

    const Dataset& families() const { return *families_; }
    const SolverOptions& solverOptions() const { return options_; }
    // The families' own species tree as a topology (leaf ids: its left-to-right leaf order).
    const SpeciesTopology& loadedTopology() const { return loaded_; }
    // A tree over the same leaves as a topology with the scorer's leaf ids; throws
    // std::invalid_argument when its leaves differ from the families' species tree's.
    SpeciesTopology topologyOf(const SpeciesTree& tree) const;
    // RELDATED: the topologies keep their trees' ranks (SpeciesTopology::fromSpeciesTree).
    bool dated() const { return families_->transferConstraint == TransferConstraint::RelDated; }

    // The families on the candidate: same clade sets, genes mapped to the candidate's leaves.
    std::shared_ptr<const Dataset> datasetOn(const SpeciesTopology& tree) const;
    // Per-family and total log-likelihoods on the candidate at θ (global or per-family rates).
    // `needed` (one flag per family; empty: every family): the families to solve, where the backend
    // can leave the others out (LikelihoodBackend::setNeededFamilies; their values are then NaN).
    Evaluation evaluate(const SpeciesTopology& tree, const RateParameters& theta,
                        const std::vector<char>& needed = {});
    // One flag per family: whether it has a gene on one of `leaves` (a move's touched leaves,
    // leavesBelowMovedBranches).
    std::vector<char> familiesTouching(const Clade& leaves) const;
    // Maximum-likelihood rates on the candidate from θ; the result's model evaluation is returned
    // in `evaluation`.
    OptimizationResult optimizeRates(const SpeciesTopology& tree, const RateParameters& theta,
                                     const OptimizerSettings& settings, Evaluation& evaluation);
    // One reconciliation per family sampled on the candidate at θ (`seed`), handed to `consume` on
    // the sampler's threads (sampleFamilies).
    void sampleOn(const SpeciesTopology& tree, const RateParameters& theta, std::uint64_t seed,
                  const std::function<void(FamilySamples&&)>& consume);
    int evaluations() const { return evaluations_; }
    // The backend's name ("cpu", "cuda", ...); empty before the first candidate.
    std::string backendName() const { return backend_ ? backend_->name() : std::string(); }

    // Pre-screening (species_search/prescreen.hpp): candidates can also be scored on these families
    // alone (indices, increasing), each by one of `lanes` further backends moved like the first, which
    // screen that many candidates at once (on a GPU each lane runs on a stream of its own, so small
    // screening waves overlap). Empty: none.
    void setScreeningFamilies(const std::vector<int>& families, int lanes = 1);
    const std::vector<int>& screeningFamilies() const { return screeningFamilies_; }
    int screeningLanes() const { return static_cast<int>(screening_.size()); }
    // The screening families' log-likelihoods on each candidate at θ (global or per-family rates of
    // every family), in screeningFamilies() order; the lanes take the candidates side by side, and
    // each result is the one a single lane gives. `needed`: per candidate, the screening families
    // to solve (ScreenPlan::needed; empty, or an empty entry: all).
    std::vector<Evaluation> screen(const std::vector<SpeciesTopology>& trees, const RateParameters& theta,
                                   const std::vector<std::vector<char>>& needed = {});
    int screenings() const;
    // The families the screens solved, all of them together (the sample, or the part of it a
    // screen was told is needed).
    long long screenedFamilies() const { return screenedFamilies_; }
    // The pre-screen's confirming stage: candidates can also be scored on these families alone
    // (indices, increasing; none of the screening families), by one more backend. Empty: none; none
    // either (confirmingFamilies() empty) where the device has no memory left for that backend.
    void setConfirmingFamilies(const std::vector<int>& families);
    const std::vector<int>& confirmingFamilies() const { return confirmingFamilies_; }
    // The confirming families' log-likelihoods on the candidate at θ, in confirmingFamilies() order
    // (`needed`: of them; empty: all).
    Evaluation confirm(const SpeciesTopology& tree, const RateParameters& theta,
                       const std::vector<char>& needed = {});
    int confirmations() const;

  private:
    std::shared_ptr<const Dataset> families_;
    BackendFactory factory_;
    SolverOptions options_;
    FamilySampling sampling_;
    SpeciesTopology loaded_;
    std::vector<std::vector<int>> geneLeaf_;   // family -> gene -> topology leaf id
    std::vector<std::vector<int>> familyLeaf_; // family -> its genes' leaf ids, each once
    std::shared_ptr<LikelihoodBackend> backend_;
    std::shared_ptr<Dataset> scratch_[2]; // candidates' datasets, reused (candidateData)
    std::vector<int> screeningFamilies_;
    int requestedLanes_ = 0;
    std::vector<std::unique_ptr<CandidateScorer>> screening_; // lanes on the screening families alone
    std::vector<int> confirmingFamilies_;
    std::unique_ptr<CandidateScorer> confirming_;

    // Up to `count` scorers on `families` alone (at least one, else the device's error), their
    // backends made while the main one holds its smallest plan.
    std::vector<std::unique_ptr<CandidateScorer>> subsetScorers(const std::vector<int>& families, int count);

    // The one backend, moved onto `data`.
    std::shared_ptr<LikelihoodBackend> backendOn(std::shared_ptr<const Dataset> data);
    // `data` (a copy of the families) re-indexed onto `tree`.
    void placeOn(const SpeciesTopology& tree, Dataset& data) const;
    // datasetOn(tree) for the scorer's own use: one of two datasets rewritten in place, not a copy.
    std::shared_ptr<const Dataset> candidateData(const SpeciesTopology& tree);
    int evaluations_ = 0;
    long long screenedFamilies_ = 0;
};

} // namespace gpurec
