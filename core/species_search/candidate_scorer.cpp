#include "species_search/candidate_scorer.hpp"

#include "data/fraction_missing.hpp"
#include "data/origination.hpp"
#include "optim/recon_model.hpp"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

namespace gpurec {

CandidateScorer::CandidateScorer(std::shared_ptr<const Dataset> families, BackendFactory factory,
                                 SolverOptions options, std::unique_ptr<LikelihoodBackend> backend,
                                 FamilySampling sampling)
    : families_(std::move(families)), factory_(std::move(factory)), options_(options),
      sampling_(sampling ? std::move(sampling) : sampleFromBackend),
      loaded_(SpeciesTopology::fromSpeciesTree(families_->species, {}, dated())),
      backend_(std::move(backend)) {
    options_.validate();
    const SpeciesTree& species = families_->species;
    std::vector<int> leafId(species.size(), -1);
    for (int id = 0; id < loaded_.leafCount(); ++id)
        leafId[species.find(loaded_.leafNames()[id])] = id;
    for (const GeneFamily& f : families_->families) {
        std::vector<int> ids;
        ids.reserve(f.geneSpecies.size());
        for (int e : f.geneSpecies)
            ids.push_back(leafId[e]);
        std::vector<int> leaves = ids;
        std::sort(leaves.begin(), leaves.end());
        leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
        geneLeaf_.push_back(std::move(ids));
        familyLeaf_.push_back(std::move(leaves));
    }
}

std::vector<char> CandidateScorer::familiesTouching(const Clade& leaves) const {
    std::vector<char> out(familyLeaf_.size(), 0);
    for (std::size_t f = 0; f < familyLeaf_.size(); ++f)
        for (int id : familyLeaf_[f])
            if (leaves[id / 64] >> (id % 64) & 1) {
                out[f] = 1;
                break;
            }
    return out;
}

SpeciesTopology CandidateScorer::topologyOf(const SpeciesTree& tree) const {
    std::vector<std::string> missing, extra;
    for (const std::string& name : loaded_.leafNames())
        if (tree.find(name) < 0 || !tree.isLeaf(tree.find(name))) missing.push_back(name);
    for (int e : tree.leaves())
        if (families_->species.find(tree.name(e)) < 0) extra.push_back(tree.name(e));
    if (!missing.empty() || !extra.empty()) {
        auto list = [](const std::vector<std::string>& names) {
            std::string out;
            for (std::size_t i = 0; i < names.size() && i < 5; ++i)
                out += (i ? ", " : "") + names[i];
            return out + (names.size() > 5 ? ", ..." : "");
        };
        std::string message = "the tree's leaves do not match the families' species";
        if (!missing.empty()) message += "; missing: " + list(missing);
        if (!extra.empty()) message += "; not in the families' species: " + list(extra);
        throw std::invalid_argument(message);
    }
    return SpeciesTopology::fromSpeciesTree(tree, loaded_.leafNames(), dated());
}

std::shared_ptr<const Dataset> CandidateScorer::datasetOn(const SpeciesTopology& tree) const {
    auto data = std::make_shared<Dataset>(*families_);
    placeOn(tree, *data);
    return data;
}

void CandidateScorer::placeOn(const SpeciesTopology& tree, Dataset& data) const {
    data.species = tree.toSpeciesTree();
    data.fractionMissing = fractionMissingOn(families_->fractionMissing, families_->species, data.species);
    std::vector<int> leafIndex(tree.leafCount());
    for (int id = 0; id < tree.leafCount(); ++id)
        leafIndex[id] = data.species.find(tree.leafNames()[id]);
    for (std::size_t f = 0; f < data.families.size(); ++f)
        for (std::size_t g = 0; g < geneLeaf_[f].size(); ++g)
            data.families[f].geneSpecies[g] = leafIndex[geneLeaf_[f][g]];
    applyOrigination(data, families_->origination); // ROOT and LCA name nodes of this tree
}

std::shared_ptr<const Dataset> CandidateScorer::candidateData(const SpeciesTopology& tree) {
    // Of the two, the one no backend or model holds any more is rewritten in place: a copy of the
    // families' clade sets per candidate cost a tenth of an evaluation at genome scale.
    for (std::shared_ptr<Dataset>& slot : scratch_)
        if (slot && slot.use_count() == 1) {
            placeOn(tree, *slot);
            return slot;
        }
    for (std::shared_ptr<Dataset>& slot : scratch_)
        if (!slot) {
            slot = std::make_shared<Dataset>(*families_);
            placeOn(tree, *slot);
            return slot;
        }
    return datasetOn(tree); // both still held (a caller kept a candidate's model): a copy
}

Evaluation CandidateScorer::evaluate(const SpeciesTopology& tree, const RateParameters& theta,
                                     const std::vector<char>& needed) {
    if (theta.mode() == RateMode::Specieswise)
        throw std::invalid_argument(
            "per-species rates are tied to one species tree; candidates take global or "
            "per-family rates");
    std::shared_ptr<LikelihoodBackend> backend = backendOn(candidateData(tree));
    backend->setNeededFamilies(needed);
    ++evaluations_;
    return backend->evaluate(theta, options_, false);
}

std::vector<std::unique_ptr<CandidateScorer>> CandidateScorer::subsetScorers(const std::vector<int>& families,
                                                                             int count) {
    const auto data = std::make_shared<const Dataset>(withFamilies(*families_, families));
    // The scorers' backends are made here, one after the other, while the main backend holds its
    // smallest plan (a family per batch): on a device each then takes the memory its families
    // need, and the main backend, planned again, what is left. Where the device runs out, fewer
    // are made, and they are given back until the main backend fits again.
    const BatchLimits limits = backend_ ? backend_->batchLimits() : BatchLimits{};
    if (backend_) backend_->replan(BatchLimits{limits.memoryBytes, 1});
    std::vector<std::unique_ptr<CandidateScorer>> scorers;
    for (int k = 0; k < count; ++k) {
        try {
            auto scorer = std::make_unique<CandidateScorer>(data, factory_, options_, nullptr, sampling_);
            scorer->backend_ = factory_(data);
            scorers.push_back(std::move(scorer));
        } catch (const std::runtime_error&) {
            if (!scorers.empty()) break;
            if (backend_) backend_->replan(limits);
            throw;
        }
    }
    for (;;) {
        try {
            if (backend_) backend_->replan(limits);
            return scorers;
        } catch (const std::runtime_error&) {
            if (scorers.size() < 2) {
                scorers.clear(); // the main backend back to its own plan, which fitted without them
                if (backend_) backend_->replan(limits);
                throw;
            }
            scorers.pop_back();
        }
    }
}

void CandidateScorer::setScreeningFamilies(const std::vector<int>& families, int lanes) {
    if (lanes < 1)
        throw std::invalid_argument("screening lanes = " + std::to_string(lanes) + " must be >= 1");
    if (families == screeningFamilies_ && (families.empty() || requestedLanes_ == lanes)) return;
    screeningFamilies_.clear(); // none, should the lanes not be made
    requestedLanes_ = lanes;
    screening_.clear();
    if (families.empty()) return;
    screening_ = subsetScorers(families, lanes);
    screeningFamilies_ = families;
}

void CandidateScorer::setConfirmingFamilies(const std::vector<int>& families) {
    if (families == confirmingFamilies_) return;
    confirmingFamilies_.clear();
    confirming_.reset();
    if (families.empty()) return;
    try {
        confirming_ = std::move(subsetScorers(families, 1).front());
        confirmingFamilies_ = families;
    } catch (const std::runtime_error&) {
        // The stage only saves time: where the device has no room for it, the search goes without.
    }
}

int CandidateScorer::screenings() const {
    int total = 0;
    for (const std::unique_ptr<CandidateScorer>& lane : screening_)
        total += lane->evaluations();
    return total;
}

int CandidateScorer::confirmations() const {
    return confirming_ ? confirming_->evaluations() : 0;
}

namespace {

// θ for a scorer holding `families` alone: per-family rates copied row by row (not through the
// rates: bit for bit), global ones as they are.
RateParameters ratesOf(const RateParameters& theta, const std::vector<int>& families) {
    if (theta.mode() != RateMode::Genewise) return theta;
    RateParameters own(RateMode::Genewise, theta.speciesCount(), static_cast<int>(families.size()), Rates{});
    for (std::size_t i = 0; i < families.size(); ++i)
        for (int k = 0; k < 3; ++k)
            own.theta()[3 * own.row(static_cast<int>(i), 0) + k] =
                theta.theta()[3 * theta.row(families[i], 0) + k];
    return own;
}

} // namespace

std::vector<Evaluation> CandidateScorer::screen(const std::vector<SpeciesTopology>& trees,
                                                const RateParameters& theta,
                                                const std::vector<std::vector<char>>& needed) {
    if (screening_.empty()) throw std::logic_error("CandidateScorer::screen without screening families");
    const RateParameters own = ratesOf(theta, screeningFamilies_);
    for (std::size_t i = 0; i < trees.size(); ++i)
        screenedFamilies_ += i < needed.size() && !needed[i].empty()
                                 ? std::count(needed[i].begin(), needed[i].end(), 1)
                                 : static_cast<long long>(screeningFamilies_.size());
    std::vector<Evaluation> results(trees.size());
    const std::size_t lanes = std::min(screening_.size(), trees.size());
    std::vector<std::exception_ptr> failures(lanes);
    // Lane l takes candidates l, l + lanes, ...; the calling thread runs lane 0.
    auto runLane = [&](std::size_t lane) {
        try {
            for (std::size_t i = lane; i < trees.size(); i += lanes)
                results[i] = screening_[lane]->evaluate(trees[i], own,
                                                        i < needed.size() ? needed[i] : std::vector<char>{});
        } catch (...) {
            failures[lane] = std::current_exception();
        }
    };
    std::vector<std::thread> others;
    for (std::size_t lane = 1; lane < lanes; ++lane)
        others.emplace_back(runLane, lane);
    runLane(0);
    for (std::thread& t : others)
        t.join();
    for (const std::exception_ptr& failure : failures)
        if (failure) std::rethrow_exception(failure);
    return results;
}

Evaluation CandidateScorer::confirm(const SpeciesTopology& tree, const RateParameters& theta,
                                    const std::vector<char>& needed) {
    if (!confirming_) throw std::logic_error("CandidateScorer::confirm without confirming families");
    return confirming_->evaluate(tree, ratesOf(theta, confirmingFamilies_), needed);
}

std::shared_ptr<LikelihoodBackend> CandidateScorer::backendOn(std::shared_ptr<const Dataset> data) {
    if (!backend_)
        backend_ = factory_(std::move(data));
    else
        backend_->setSpeciesTree(std::move(data));
    return backend_;
}

OptimizationResult CandidateScorer::optimizeRates(const SpeciesTopology& tree, const RateParameters& theta,
                                                  const OptimizerSettings& settings, Evaluation& evaluation) {
    std::shared_ptr<const Dataset> data = candidateData(tree);
    ReconModel model(data, backendOn(data), theta, options_);
    OptimizationResult result = gpurec::optimizeRates(model, settings);
    evaluations_ += result.evaluations;
    evaluation = model.lastEvaluation();
    return result;
}

void CandidateScorer::sampleOn(const SpeciesTopology& tree, const RateParameters& theta, std::uint64_t seed,
                               const std::function<void(FamilySamples&&)>& consume) {
    std::shared_ptr<const Dataset> data = candidateData(tree);
    std::shared_ptr<LikelihoodBackend> backend = backendOn(data);
    SamplingSettings settings;
    settings.samples = 1;
    settings.seed = seed;
    settings.solver = options_;
    std::vector<int> families(data->families.size());
    for (std::size_t f = 0; f < families.size(); ++f)
        families[f] = static_cast<int>(f);
    sampling_(*data, theta, families, settings, consume, *backend);
}

} // namespace gpurec
