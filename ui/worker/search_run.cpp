#include "worker/search_run.hpp"

#include "engine/backend_factory.hpp"
#include "species_search/start_trees.hpp"

#include <algorithm>
#include <limits>

namespace gpurec::ui {

namespace {

// Bootstrap fraction of every internal node of `best` by its AleRax name (the root and splits the
// search never doubted: 1).
std::map<QString, double> bootstrapByName(const SpeciesSearchResult& r) {
    std::map<QString, double> out;
    if (r.bootstrap.empty() || r.replicates <= 0) return out;
    const std::vector<Clade> clades = r.best.clades();
    const std::vector<std::string> names = nodeNames(r.best);
    for (int n = r.best.leafCount(); n < r.best.nodeCount(); ++n) {
        double support = 1.0;
        if (n != r.best.root()) {
            auto it = r.bootstrap.find(splitAbove(r.best, clades, n));
            if (it != r.bootstrap.end()) support = double(it->second) / r.replicates;
        }
        out[QString::fromStdString(names[n])] = support;
    }
    return out;
}

// Root LLR on every branch the last root search evaluated, by the name of the node below it.
std::map<QString, double> rootLlrByName(const SpeciesSearchResult& r) {
    std::map<QString, double> out;
    const std::vector<std::string> names = nodeNames(r.best);
    for (int n = 0; n < r.best.nodeCount(); ++n) {
        if (n == r.best.root()) continue;
        const Clade split = r.best.rootSplitAbove(n);
        for (const RootSupport& root : r.roots)
            if (root.split == split) out[QString::fromStdString(names[n])] = root.logLikelihoodRatio;
    }
    return out;
}

// 1 for the internal nodes of `best` whose clade the start tree lacks, 0 for the others.
std::map<QString, double> newCladesByName(const SpeciesSearchResult& r) {
    std::map<QString, double> out;
    const std::vector<Clade> start = r.start.clades(), best = r.best.clades();
    const std::vector<std::string> names = nodeNames(r.best);
    for (int n = r.best.leafCount(); n < r.best.nodeCount(); ++n)
        out[QString::fromStdString(names[n])] = std::find(start.begin(), start.end(), best[n]) == start.end();
    return out;
}

// The families' inputs, for MiniNJ to read their gene trees again.
std::vector<FamilyInput> familyInputs(const Dataset& data) {
    std::vector<FamilyInput> out;
    for (const GeneFamily& f : data.families) {
        FamilyInput in;
        in.name = f.name;
        in.geneTreePath = f.geneTreePath;
        in.mappingPath = f.mappingPath;
        out.push_back(std::move(in));
    }
    return out;
}

SpeciesTopology startTopology(const CandidateScorer& scorer, const Dataset& data, SearchStart from,
                              std::uint64_t seed) {
    switch (from) {
    case SearchStart::MiniNj:
        return scorer.topologyOf(miniNjSpeciesTree(familyInputs(data)));
    case SearchStart::Random: {
        RandomSource rng(seed);
        return scorer.topologyOf(randomSpeciesTree(scorer.loadedTopology().leafNames(), rng));
    }
    case SearchStart::WorkingTree:
        break;
    }
    return scorer.loadedTopology();
}

} // namespace

SearchRun::SearchRun(QObject* parent) : QObject(parent) {
    worker_.setMaxThreadCount(1);
    qRegisterMetaType<SearchStepSample>();
    qRegisterMetaType<SearchOutcome>();
}

SearchRun::~SearchRun() {
    control_.requestStop();
    control_.resume();
    worker_.waitForDone();
}

void SearchRun::post(std::function<void()> fn) {
    QMetaObject::invokeMethod(this, std::move(fn), Qt::QueuedConnection);
}

void SearchRun::start(std::shared_ptr<const Dataset> data, const QString& device, const BatchLimits& limits,
                      const SolverOptions& options, RateParameters start, SpeciesSearchSettings settings,
                      SearchStart from) {
    if (running_ || !data) return;
    running_ = true;
    paused_ = false;
    control_.reset();
    emit started();
    worker_.start([this, data = std::move(data), device = device.toStdString(), limits, options,
                   theta = std::move(start), settings = std::move(settings), from]() mutable {
        SearchOutcome out;
        double best = -std::numeric_limits<double>::infinity();
        settings.stopRequested = [this] {
            return !control_.checkpoint([this] { post([this] { emit pausedChanged(paused_ = true); }); },
                                        [this] { post([this] { emit pausedChanged(paused_ = false); }); },
                                        [] {});
        };
        try {
            CandidateScorer scorer(
                data,
                [device, limits](const std::shared_ptr<const Dataset>& d) {
                    return selectBackend(device, d, limits).backend;
                },
                options);
            const SpeciesTopology startTree = startTopology(scorer, *data, from, settings.seed);
            const SpeciesSearchResult r =
                searchSpeciesTree(scorer, startTree, theta, settings, [this, &best](const SearchStep& step) {
                    SearchStepSample s;
                    s.index = step.index;
                    s.move = QString::fromStdString(step.move);
                    s.accepted = step.accepted;
                    s.screened = step.screened;
                    s.logLikelihood = step.logLikelihood;
                    if (step.accepted) s.bestNewick = QString::fromStdString(step.newick);
                    if (step.accepted || step.index == 0) best = step.logLikelihood;
                    s.bestLogLikelihood = best;
                    s.seconds = step.seconds;
                    post([this, s] { emit stepFinished(s); });
                });
            out.stopped = r.interrupted;
            out.startNewick = QString::fromStdString(r.start.toSpeciesTree().toNewick(true));
            out.bestNewick = QString::fromStdString(r.best.toSpeciesTree().toNewick(true));
            out.startLogLikelihood = r.startLogLikelihood;
            out.bestLogLikelihood = r.evaluation.totalLogLikelihood;
            out.rates = r.theta.rates(0);
            out.evaluations = r.evaluations;
            out.screenedOut = r.screenedOut;
            out.skipped = r.repeatsSkipped + r.sprCutoffSkipped + r.sprMemorySkipped;
            out.steps = static_cast<int>(r.trace.size());
            out.seconds = r.seconds;
            out.bootstrap = bootstrapByName(r);
            out.rootLlr = rootLlrByName(r);
            out.newClade = newCladesByName(r);
            out.replicates = r.replicates;
        } catch (const std::exception& e) {
            out.error = QString::fromStdString(e.what());
        }
        post([this, out] {
            running_ = false;
            paused_ = false;
            emit finished(out);
        });
    });
}

void SearchRun::pause() {
    if (running_) control_.requestPause();
}

void SearchRun::resume() {
    control_.resume();
}

void SearchRun::stop() {
    if (!running_) return;
    control_.requestStop();
    control_.resume();
}

} // namespace gpurec::ui
