// Species-tree search: tree edits, re-mapping the families onto candidates, REROOT and HYBRID on
// simulated data, supports against hand-worked values, bad start trees, and RELDATED's dated
// topologies.
#include "simulated_data.hpp"
#include "support.hpp"

#include "data/origination.hpp"
#include "io/gene_mapping.hpp"
#include "io/input_error.hpp"
#include "species_search/prescreen.hpp"
#include "species_search/search_files.hpp"
#include "species_search/search_memory.hpp"
#include "species_search/species_search.hpp"
#include "species_search/start_trees.hpp"
#include "species_search/transfer_moves.hpp"
#include "species_search/tree_tests.hpp"

#include <QtTest>
#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <set>

using namespace gpurec;
using namespace gpurec::test;

namespace {

SpeciesTree parseTree(const std::string& newick) {
    return SpeciesTree::fromNewick(parseNewick(newick, "test").front());
}

BackendFactory cpuFactory() {
    return [](std::shared_ptr<const Dataset> data) { return makeCpuBackend(std::move(data)); };
}

// The families of `data` loaded afresh onto the tree written as `newick`: genes mapped by name, so
// nothing of the scorer's re-indexing is reused.
std::shared_ptr<Dataset> freshDataset(const Dataset& data, const std::string& newick) {
    auto fresh = std::make_shared<Dataset>();
    fresh->species = parseTree(newick);
    fresh->transferConstraint = data.transferConstraint;
    fresh->events = data.events;
    const GeneMapping byPrefix;
    for (const GeneFamily& f : data.families) {
        GeneFamily copy = f;
        for (int g = 0; g < f.clades.geneCount(); ++g)
            copy.geneSpecies[g] = fresh->species.find(byPrefix.speciesOf(f.clades.geneNames[g]));
        fresh->families.push_back(std::move(copy));
    }
    applyOrigination(*fresh, data.origination);
    if (!data.fractionMissing.empty()) { // by leaf name
        fresh->fractionMissing.assign(fresh->species.size(), 0.0);
        for (int e = 0; e < data.species.size(); ++e)
            if (data.species.isLeaf(e))
                fresh->fractionMissing[fresh->species.find(data.species.name(e))] = data.fractionMissing[e];
    }
    return fresh;
}

double freshLogLikelihood(const Dataset& data, const std::string& newick, Rates rates) {
    auto fresh = freshDataset(data, newick);
    RateParameters theta(RateMode::Global, fresh->species.size(), int(fresh->families.size()), rates);
    return makeCpuBackend(fresh)->evaluate(theta, SolverOptions{}, false).totalLogLikelihood;
}

std::shared_ptr<Dataset> simulated(const SpeciesTree& species, int families, std::uint64_t seed) {
    return simulatedDataset(
        species, families,
        [](int) {
            return Rates{0.15, 0.15, 0.05};
        },
        seed);
}

// The leaf farthest from the root (its branch is a root position far from the true one).
int deepestLeaf(const SpeciesTopology& t) {
    int best = 0, bestDepth = 0;
    for (int leaf = 0; leaf < t.leafCount(); ++leaf) {
        int depth = 0;
        for (int n = leaf; n != t.root(); n = t.parent(n))
            ++depth;
        if (depth > bestDepth) {
            best = leaf;
            bestDepth = depth;
        }
    }
    return best;
}

// `tree` after `moves` random SPR moves of radius 2 (seeded).
SpeciesTopology sprMovesAway(SpeciesTopology tree, int moves, std::uint64_t seed) {
    RandomSource rng(seed);
    for (int k = 0; k < moves; ++k) {
        int p = 0;
        std::vector<int> regrafts;
        while (regrafts.empty()) {
            p = int(rng.below(std::uint64_t(tree.nodeCount())));
            regrafts = tree.sprRegrafts(p, 2);
        }
        tree.applySpr(p, regrafts[rng.below(regrafts.size())]);
    }
    return tree;
}

// The pre-screen's searches: 120 families of a 12-species tree, started 4 SPR moves from it.
struct ScreenedSearchCase {
    static constexpr int families = 120;
    SpeciesTree species = simulatedSpeciesTree(12, 51);
    std::shared_ptr<Dataset> data = simulated(species, families, 52);
    CandidateScorer scorer{data, cpuFactory(), SolverOptions{}};
    SpeciesTopology truth = scorer.loadedTopology();
    SpeciesTopology start = sprMovesAway(truth, 4, 9);
    RateParameters theta{RateMode::Global, species.size(), families, Rates{0.1, 0.1, 0.1}};
};

} // namespace

class SpeciesSearch : public QObject {
    Q_OBJECT

  private slots:
    // Radius-1 regrafts of a hand-drawn tree: the grandparent's other child and parent, and the
    // sibling's grandchildren (spec 3.3).
    void regraftsWithinARadius() {
        const SpeciesTree tree = parseTree("((((A,B),C),(D,E)),F);");
        SpeciesTopology t = SpeciesTopology::fromSpeciesTree(tree);
        const std::vector<std::string> names = nodeNames(t);
        auto named = [&](const std::vector<int>& ids) {
            std::set<std::string> out;
            for (int id : ids)
                out.insert(names[id]);
            return out;
        };
        const int a = 0, c = 2; // leaf ids: left to right
        QCOMPARE(named(t.sprRegrafts(a, 1)), (std::set<std::string>{"C", "Node_A_D_0"}));
        // Pruning C: its sibling (A,B) has no grandchildren, its grandparent's other child is (D,E).
        QCOMPARE(named(t.sprRegrafts(c, 1)), (std::set<std::string>{"Node_D_E_0", "Node_A_F_0"}));
        // Radius 2 from C adds D and E (below the grandparent's other child) and F.
        QCOMPARE(named(t.sprRegrafts(c, 2)),
                 (std::set<std::string>{"Node_D_E_0", "Node_A_F_0", "D", "E", "F"}));
        // Each radius-2 target names the radius-1 target on its way.
        std::map<std::string, std::string> nearer;
        for (const auto [target, via] : t.sprRegraftPaths(c, 2))
            nearer[names[target]] = via < 0 ? "" : names[via];
        QCOMPARE(nearer, (std::map<std::string, std::string>{{"Node_D_E_0", ""},
                                                             {"Node_A_F_0", ""},
                                                             {"D", "Node_D_E_0"},
                                                             {"E", "Node_D_E_0"},
                                                             {"F", "Node_A_F_0"}}));
        SpeciesTopology moved = t;
        moved.applySpr(c, t.parent(3)); // C onto the branch above (D,E)
        QCOMPARE(moved.canonicalNewick(), std::string("((((D,E),C),(A,B)),F);")); // "(" sorts first
    }

    // Every SPR within radius 3 of a 10-species tree changes the topology and is undone by the
    // returned sibling; every re-rooting keeps the unrooted splits.
    void sprIsUndoneAndRerootKeepsSplits() {
        const SpeciesTopology t = SpeciesTopology::fromSpeciesTree(simulatedSpeciesTree(10, 3));
        const std::string original = t.canonicalNewick();
        const std::vector<Clade> splits = treeSplits(t);
        int moves = 0;
        for (int p = 0; p < t.nodeCount(); ++p)
            for (int r : t.sprRegrafts(p, 3)) {
                SpeciesTopology c = t;
                const int sibling = c.applySpr(p, r);
                QVERIFY(c.canonicalNewick() != original);
                QCOMPARE(c.toSpeciesTree().leafCount(), 10);
                c.applySpr(p, sibling);
                QCOMPARE(c.canonicalNewick(), original);
                ++moves;
            }
        QVERIFY(moves > 50);
        // A target's nearer one is an earlier target, one edge from it.
        for (int p = 0; p < t.nodeCount(); ++p) {
            std::set<int> earlier;
            for (const auto [target, nearer] : t.sprRegraftPaths(p, 3)) {
                if (nearer >= 0) {
                    QVERIFY(earlier.contains(nearer));
                    QVERIFY(t.parent(target) == nearer || t.parent(nearer) == target);
                }
                earlier.insert(target);
            }
        }
        const std::vector<int> positions = t.rootPositions();
        QCOMPARE(int(positions.size()), 2 * 10 - 3);
        std::set<std::string> rooted;
        for (int x : positions) {
            SpeciesTopology c = t;
            c.rerootAbove(x);
            QCOMPARE(treeSplits(c), splits);
            QCOMPARE(c.rootSplitAbove(c.left(c.root())), t.rootSplitAbove(x));
            rooted.insert(c.canonicalNewick());
        }
        QCOMPARE(int(rooted.size()), 2 * 10 - 3);
    }

    // A candidate's families (re-indexed clade sets), its leaves' fractions missing and its
    // families' origins (ROOT, LCA: nodes of the candidate) score exactly like families mapped onto
    // that tree from scratch.
    void remappedFamiliesScoreLikeFreshOnes_data() {
        QTest::addColumn<bool>("fractionMissing");
        QTest::addColumn<bool>("undatedDl"); // the candidates keep the model's variant
        QTest::addColumn<int>("origination");
        const int uniform = int(Origination::Uniform);
        QTest::newRow("complete genomes") << false << false << uniform;
        QTest::newRow("fractions missing") << true << false << uniform;
        QTest::newRow("UndatedDL") << false << true << uniform;
        QTest::newRow("LCA origination") << false << false << int(Origination::Lca);
        QTest::newRow("ROOT origination") << false << false << int(Origination::Root);
    }
    void remappedFamiliesScoreLikeFreshOnes() {
        QFETCH(bool, fractionMissing);
        QFETCH(bool, undatedDl);
        QFETCH(int, origination);
        const SpeciesTree species = simulatedSpeciesTree(9, 5);
        auto data = simulated(species, 20, 7);
        if (undatedDl) data->events.recModel = RecModel::UndatedDL;
        applyOrigination(*data, Origination(origination));
        if (fractionMissing) {
            data->fractionMissing.assign(species.size(), 0.0);
            for (int e = 0; e < species.size(); ++e)
                if (species.isLeaf(e)) data->fractionMissing[e] = 0.1 * (e % 7);
        }
        CandidateScorer scorer(data, cpuFactory(), SolverOptions{});
        SpeciesTopology candidate = scorer.loadedTopology();
        candidate.applySpr(0, candidate.sprRegrafts(0, 2).back());
        candidate.rerootAbove(3);
        const Rates rates{0.2, 0.1, 0.05};
        RateParameters theta(RateMode::Global, species.size(), 20, rates);
        const Evaluation e = scorer.evaluate(candidate, theta);
        const std::string newick = candidate.toSpeciesTree().toNewick(true);
        QVERIFY(relativeError(e.totalLogLikelihood, freshLogLikelihood(*data, newick, rates)) < 1e-12);
        auto plain = freshDataset(*data, newick);
        plain->events = EventModel{};
        const double plainLl =
            makeCpuBackend(plain)->evaluate(theta, SolverOptions{}, false).totalLogLikelihood;
        QCOMPARE(std::abs(e.totalLogLikelihood - plainLl) > 1e-6, undatedDl);
        QVERIFY(std::abs(e.totalLogLikelihood -
                         scorer.evaluate(scorer.loadedTopology(), theta).totalLogLikelihood) > 1e-6);
    }

    // REROOT from a wrongly rooted copy of the true tree finds the true root; the root table holds
    // every position, the true one with LLR 0.
    void rerootFindsTheTrueRoot() {
        const SpeciesTree species = simulatedSpeciesTree(8, 21);
        auto data = simulated(species, 40, 22);
        CandidateScorer scorer(data, cpuFactory(), SolverOptions{});
        const SpeciesTopology truth = scorer.loadedTopology();
        SpeciesTopology start = truth;
        start.rerootAbove(deepestLeaf(truth));
        QVERIFY(start.canonicalNewick() != truth.canonicalNewick());
        SpeciesSearchSettings settings;
        settings.strategy = SearchStrategy::Reroot;
        settings.replicates = 200;
        settings.rates.max_iter = 20;
        RateParameters theta(RateMode::Global, species.size(), 40, {0.1, 0.1, 0.1});
        const SpeciesSearchResult r = searchSpeciesTree(scorer, start, theta, settings);
        QCOMPARE(r.best.canonicalNewick(), truth.canonicalNewick());
        QCOMPARE(int(r.roots.size()), 2 * 8 - 3);
        int rell = 0;
        for (const RootSupport& root : r.roots) {
            QVERIFY(root.logLikelihoodRatio <= 0);
            rell += root.rell;
            if (root.split == truth.rootSplitAbove(truth.left(truth.root())))
                QCOMPARE(root.logLikelihoodRatio, 0.0);
        }
        QCOMPARE(rell, 200);
    }

    // HYBRID from the true tree moved by three random SPRs: a tree at least as likely as the true
    // one, within rooted RF 2 of it; every trace row's LL is that of a fresh evaluation.
    void hybridRecoversThePerturbedTree() {
        const SpeciesTree species = simulatedSpeciesTree(10, 31);
        auto data = simulated(species, 40, 32);
        CandidateScorer scorer(data, cpuFactory(), SolverOptions{});
        const SpeciesTopology truth = scorer.loadedTopology();
        const SpeciesTopology start = sprMovesAway(truth, 3, 5);
        QVERIFY(rootedRobinsonFoulds(start, truth) > 2);
        SpeciesSearchSettings settings;
        settings.replicates = 100;
        settings.rates.max_iter = 20;
        RateParameters theta(RateMode::Global, species.size(), 40, {0.1, 0.1, 0.1});
        const SpeciesSearchResult r = searchSpeciesTree(scorer, start, theta, settings);
        const double truthLL = scorer.evaluate(truth, r.theta).totalLogLikelihood;
        QVERIFY2(r.evaluation.totalLogLikelihood >= truthLL - 1e-6,
                 qPrintable(QString("%1 < %2").arg(r.evaluation.totalLogLikelihood).arg(truthLL)));
        QVERIFY(rootedRobinsonFoulds(r.best, truth) <= 2);
        QVERIFY(r.evaluation.totalLogLikelihood > r.startLogLikelihood);
        for (std::size_t i = 0; i < r.trace.size(); i += 7) {
            const SearchStep& step = r.trace[i];
            QVERIFY2(relativeError(step.logLikelihood, freshLogLikelihood(*data, step.newick, step.rates)) <
                         1e-12,
                     step.move.c_str());
        }
        for (const auto& [split, count] : r.kh)
            QVERIFY(count >= 0 && count <= 100);
        QCOMPARE(r.kh.size(), treeSplits(r.best).size());
    }

    // A HYBRID search interrupted inside an SPR round of radius 2 keeps its position (SearchPosition),
    // and resumed there from its tree (its node ids carried over by links, as a checkpoint carries
    // them) it skips the root search, the transfer-guided rounds and the rounds before, starts with
    // the node it was pruning, and takes the same moves as the search that was never interrupted, to
    // the same tree and log-likelihood. Without the heuristics whose statistics a resumed search
    // starts afresh (SPR cutoff and memory), so that the two must agree move for move.
    void interruptedHybridResumesAtItsPosition() {
        const SpeciesTree species = simulatedSpeciesTree(12, 61);
        auto data = simulated(species, 50, 62);
        CandidateScorer scorer(data, cpuFactory(), SolverOptions{});
        const SpeciesTopology start = sprMovesAway(scorer.loadedTopology(), 3, 63);
        SpeciesSearchSettings settings;
        settings.replicates = 20;
        settings.rates.max_iter = 10;
        settings.maxRadius = 2;
        settings.sprCutoff = 0;
        settings.sprMemory = 0;
        const RateParameters theta(RateMode::Global, species.size(), 50, {0.1, 0.1, 0.1});
        const SpeciesSearchResult whole = searchSpeciesTree(scorer, start, theta, settings);
        QVERIFY(!whole.interrupted);
        // A finished search ends at a pass's end that changed nothing.
        QCOMPARE(toString(whole.position.phase), toString(SearchPosition::Phase::PassEnd));
        QVERIFY(!whole.position.changed);
        auto firstRow = [](const std::vector<SearchStep>& trace, const std::string& text) {
            for (std::size_t i = 0; i < trace.size(); ++i)
                if (trace[i].move.find(text) != std::string::npos) return static_cast<int>(i);
            return -1;
        };
        const int radius2 = firstRow(whole.trace, "(radius 2)");
        QVERIFY(radius2 > 0);

        // Stopped a few candidates into that round.
        int rows = 0;
        SearchPosition seen;
        SpeciesSearchSettings stopping = settings;
        stopping.stopRequested = [&] { return rows >= radius2 + 3; };
        const SpeciesSearchResult part =
            searchSpeciesTree(scorer, start, theta, stopping, [&](const SearchStep& s) {
                ++rows;
                QVERIFY(s.position && s.tree);
                seen = *s.position;
                // An accepted move's row comes with the tree it made and a position that knows of it:
                // what a checkpoint written there resumes from.
                if (s.accepted && s.move != "rates") {
                    QCOMPARE(s.tree->toSpeciesTree().toNewick(true), s.newick);
                    if (s.move != "start") QVERIFY(s.position->changed);
                    if (s.move.starts_with("SPR")) QVERIFY(s.position->roundImproved);
                }
            });
        QVERIFY(part.interrupted);
        QCOMPARE(toString(part.position.phase), toString(SearchPosition::Phase::Spr));
        QCOMPARE(part.position.radius, 2);
        QCOMPARE(part.position.prune, seen.prune);
        QVERIFY(part.position.prune > 0);

        // The tree as a checkpoint holds it: its Newick, read back, given the links of its node ids.
        const SpeciesTopology read = scorer.topologyOf(parseTree(part.best.toSpeciesTree().toNewick(true)));
        const SpeciesTopology relinked = read.relinked(part.best.links());
        QCOMPARE(relinked.links().left, part.best.links().left);
        QCOMPARE(relinked.links().right, part.best.links().right);
        QCOMPARE(relinked.links().root, part.best.links().root);
        for (int n = 0; n < relinked.nodeCount(); ++n)
            QCOMPARE(relinked.parent(n), part.best.parent(n));

        const SpeciesSearchResult resumed =
            searchSpeciesTree(scorer, relinked, part.theta, settings, {}, part.position);
        QVERIFY(!resumed.interrupted);
        QCOMPARE(resumed.trace.front().move, std::string("start"));
        // Its first candidate: the first regraft of the node the interrupted round was pruning.
        const std::string pruned = "SPR " + nodeNames(relinked)[part.position.prune] + " -> ";
        QVERIFY2(resumed.trace[1].move.starts_with(pruned) &&
                     resumed.trace[1].move.find("(radius 2)") != std::string::npos,
                 resumed.trace[1].move.c_str());
        QCOMPARE(resumed.best.canonicalNewick(), whole.best.canonicalNewick());
        QCOMPARE(resumed.evaluation.totalLogLikelihood, whole.evaluation.totalLogLikelihood);
        std::vector<std::string> taken, takenInParts;
        for (const SearchStep& step : whole.trace)
            if (step.accepted) taken.push_back(step.move);
        for (const std::vector<SearchStep>* trace : {&part.trace, &resumed.trace})
            for (std::size_t i = trace == &part.trace ? 0 : 1; i < trace->size(); ++i)
                if ((*trace)[i].accepted) takenInParts.push_back((*trace)[i].move);
        QCOMPARE(takenInParts, taken);

        // Positions a search cannot resume at, and links of another tree or of no tree, are refused.
        SearchPosition far = part.position;
        far.radius = 3;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 searchSpeciesTree(scorer, relinked, part.theta, settings, {}, far));
        far = part.position;
        far.prune = relinked.nodeCount();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 searchSpeciesTree(scorer, relinked, part.theta, settings, {}, far));
        SpeciesSearchSettings reroot = settings;
        reroot.strategy = SearchStrategy::Reroot;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 searchSpeciesTree(scorer, relinked, part.theta, reroot, {}, part.position));
        SpeciesTopology::Links links = part.best.links();
        links.left.pop_back();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, read.relinked(links));
        links = part.best.links();
        links.left[links.root] = links.root; // a cycle
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, read.relinked(links));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, read.relinked(start.links()));
    }

    // With the SPR cutoff, the SPR memory and the pre-screen on (the defaults at scale), a search
    // stopped inside an SPR round and resumed with what it had learned (read back from its JSON form)
    // scores, skips and accepts exactly as the uninterrupted one: the two parts' rows are its rows.
    void interruptedSearchResumesWithWhatItLearned() {
        ScreenedSearchCase c;
        CandidateScorer& scorer = c.scorer;
        const SpeciesTopology& start = c.start;
        SpeciesSearchSettings settings;
        settings.replicates = 50;
        settings.rates.max_iter = 10;
        settings.maxRadius = 2;
        settings.prescreen = 0.5;
        QVERIFY(settings.sprCutoff > 0 && settings.sprMemory > 0);
        const RateParameters& theta = c.theta;
        const SpeciesSearchResult whole = searchSpeciesTree(scorer, start, theta, settings);
        QVERIFY(!whole.interrupted && whole.sprMemorySkipped + whole.sprCutoffSkipped > 0 &&
                whole.screenedOut > 0);
        // Stopped at an SPR row two thirds in, after a rate fit has reset what the rates settle.
        int stopAt = static_cast<int>(whole.trace.size()) * 2 / 3;
        while (stopAt < static_cast<int>(whole.trace.size()) && !whole.trace[stopAt].move.starts_with("SPR "))
            ++stopAt;
        QVERIFY(stopAt < static_cast<int>(whole.trace.size()));
        int rows = 0;
        SpeciesSearchSettings stopping = settings;
        stopping.stopRequested = [&] { return rows >= stopAt; };
        SearchMemory atLastRow;
        const SpeciesSearchResult part =
            searchSpeciesTree(scorer, start, theta, stopping, [&](const SearchStep& s) {
                ++rows;
                QVERIFY(s.memory);
                atLastRow = (*s.memory)();
            });
        QVERIFY(part.interrupted);
        QCOMPARE(toString(part.position.phase), toString(SearchPosition::Phase::Spr));
        const SearchMemory& learned = part.memory;
        QVERIFY(!learned.settled.empty() && !learned.sprMemory.empty() && learned.drops > 0);
        QVERIFY(learned.screening && learned.screening->observed >= Prescreen::calibrationCandidates);
        QCOMPARE(int(learned.kh.referenceSums.size()), settings.replicates);
        QVERIFY(!learned.kh.counts.empty());
        // What the observer was handed at the last row is what the stop kept (the stop scored nothing).
        QCOMPARE(atLastRow.settled.size(), learned.settled.size());
        QCOMPARE(atLastRow.drops, learned.drops);

        // Through JSON, bit for bit.
        const SearchMemory read =
            searchMemoryFromJson(nlohmann::json::parse(searchMemoryJson(learned).dump()));
        auto sameKeyed = [](const std::vector<KeyedValue>& a, const std::vector<KeyedValue>& b) {
            if (a.size() != b.size()) return false;
            for (std::size_t i = 0; i < a.size(); ++i)
                if (a[i].first != b[i].first || a[i].second != b[i].second ||
                    std::bit_cast<std::uint64_t>(a[i].value) != std::bit_cast<std::uint64_t>(b[i].value))
                    return false;
            return true;
        };
        QVERIFY(sameKeyed(read.settled, learned.settled));
        QVERIFY(sameKeyed(read.sprMemory, learned.sprMemory));
        QCOMPARE(read.dropSum, learned.dropSum);
        QCOMPARE(read.drops, learned.drops);
        QCOMPARE(read.transferRounds, learned.transferRounds);
        QCOMPARE(read.screening->squaredErrors, learned.screening->squaredErrors);
        QCOMPARE(read.kh.referenceSums, learned.kh.referenceSums);
        QCOMPARE(read.kh.counts, learned.kh.counts);

        const SpeciesSearchResult resumed =
            searchSpeciesTree(scorer, part.best, part.theta, settings, {}, part.position, &read);
        QVERIFY(!resumed.interrupted);
        QCOMPARE(int(part.trace.size() + resumed.trace.size() - 1), int(whole.trace.size()));
        for (std::size_t i = 0; i < whole.trace.size(); ++i) {
            const SearchStep& in =
                i < part.trace.size() ? part.trace[i] : resumed.trace[i - part.trace.size() + 1];
            QCOMPARE(in.move, whole.trace[i].move);
            QCOMPARE(in.logLikelihood, whole.trace[i].logLikelihood);
            QCOMPARE(in.accepted, whole.trace[i].accepted);
            QCOMPARE(in.screened, whole.trace[i].screened);
        }
        QCOMPARE(resumed.best.canonicalNewick(), whole.best.canonicalNewick());
        QCOMPARE(resumed.evaluation.totalLogLikelihood, whole.evaluation.totalLogLikelihood);
        QCOMPARE(resumed.kh, whole.kh);
        QCOMPARE(resumed.screeningZ, whole.screeningZ);

        // A memory of another shape is refused, naming what does not fit.
        SearchMemory other = learned;
        other.kh.referenceSums.pop_back();
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            searchSpeciesTree(scorer, part.best, part.theta, settings, {}, part.position, &other));
        other = learned;
        other.screening.reset();
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            searchSpeciesTree(scorer, part.best, part.theta, settings, {}, part.position, &other));
        other = learned;
        other.kh.counts.front().first.push_back(0);
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            searchSpeciesTree(scorer, part.best, part.theta, settings, {}, part.position, &other));
        other = learned;
        other.screening->above = other.screening->observed + 1;
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            searchSpeciesTree(scorer, part.best, part.theta, settings, {}, part.position, &other));
    }

    // The search memory's JSON form: infinities by name, and malformed entries refused.
    void searchMemoryJsonRefusesWhatItCannotRead() {
        SearchMemory m;
        m.settled = {{1, 2, -std::numeric_limits<double>::infinity()}, {3, 4, -12.25}};
        m.sprMemory = {{5, 6, std::numeric_limits<double>::infinity()}};
        m.dropSum = 0.1 + 0.2;
        m.drops = 7;
        m.transferRounds = 3;
        m.kh.referenceSums = {1.5, std::numeric_limits<double>::quiet_NaN()};
        m.kh.counts = {{{0x5ull}, 2}};
        const nlohmann::json j = searchMemoryJson(m);
        QCOMPARE(QString::fromStdString(j.at("settled")[0][2].get<std::string>()), QString("-inf"));
        const SearchMemory back = searchMemoryFromJson(nlohmann::json::parse(j.dump()));
        QCOMPARE(back.settled[0].value, -std::numeric_limits<double>::infinity());
        QCOMPARE(back.sprMemory[0].value, std::numeric_limits<double>::infinity());
        QVERIFY(std::isnan(back.kh.referenceSums[1]));
        QCOMPARE(back.dropSum, 0.1 + 0.2);
        QVERIFY(!back.screening && !back.confirming);
        auto refused = [&](const std::function<void(nlohmann::json&)>& damage) {
            nlohmann::json bad = j;
            damage(bad);
            try {
                searchMemoryFromJson(bad);
            } catch (const std::invalid_argument&) {
                return true;
            }
            return false;
        };
        QVERIFY(refused([](nlohmann::json& b) { b.erase("drops"); }));
        QVERIFY(refused([](nlohmann::json& b) { b["drops"] = -1; }));
        QVERIFY(refused([](nlohmann::json& b) { b["drops"] = 1.5; }));
        QVERIFY(refused([](nlohmann::json& b) { b["settled"] = nlohmann::json::object(); }));
        QVERIFY(refused([](nlohmann::json& b) { b["settled"][0] = {1, 2}; }));
        QVERIFY(refused([](nlohmann::json& b) { b["settled"][0][0] = -1; }));
        QVERIFY(refused([](nlohmann::json& b) { b["spr_memory"][0][2] = "infinity"; }));
        QVERIFY(refused([](nlohmann::json& b) { b["kh"]["counts"][0] = {5, 2}; }));
        QVERIFY(refused([](nlohmann::json& b) { b["kh"].erase("reference_sums"); }));
        QVERIFY(refused([](nlohmann::json& b) { b["screening"] = {{"observed", 1}}; }));
    }

    // The seconds of a trace's last row, past a quoted move that holds commas.
    void lastTraceSecondsReadsTheLastRow() {
        const std::string header = searchTraceHeader() + "\n";
        QCOMPARE(lastTraceSeconds(header), 0.0);
        SearchStep a, b;
        a.move = "start";
        a.seconds = 1.5;
        b.index = 1;
        b.move = "speciation order: 3 datings scored, 2 by 5 sampled transfers";
        b.seconds = 0.1 + 0.2;
        b.newick = "(a,b);";
        const std::string trace = header + searchTraceRow(a) + "\n" + searchTraceRow(b) + "\n";
        QCOMPARE(lastTraceSeconds(trace), 0.1 + 0.2);
        QCOMPARE(lastTraceSeconds(header + searchTraceRow(a) + "\n"), 1.5);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, lastTraceSeconds(header + "7,start\n"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, lastTraceSeconds(header + "7,start,-1.5,1,x1,0.1\n"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, lastTraceSeconds(header + "7,start,-1.5,1,2s,0.1\n"));
    }

    // An SPR candidate already scored at the current rates is not scored again (a round of radius 2
    // repeats the radius-1 round that found nothing before it): no topology appears twice among the
    // trace's SPR rows between two rate changes, repeats were met and skipped, and the search still
    // ends as high as the true tree.
    void repeatedCandidatesAreNotScoredAgain() {
        const SpeciesTree species = simulatedSpeciesTree(12, 61);
        auto data = simulated(species, 50, 62);
        CandidateScorer scorer(data, cpuFactory(), SolverOptions{});
        const SpeciesTopology truth = scorer.loadedTopology();
        SpeciesSearchSettings settings;
        settings.replicates = 50;
        settings.rates.max_iter = 10;
        settings.maxRadius = 2;
        RateParameters theta(RateMode::Global, species.size(), 50, {0.1, 0.1, 0.1});
        const SpeciesSearchResult r = searchSpeciesTree(scorer, sprMovesAway(truth, 3, 63), theta, settings);
        QVERIFY(r.repeatsSkipped > 0);
        std::set<std::string> sprTrees;
        int sprRows = 0;
        for (const SearchStep& step : r.trace) {
            if (step.move == "rates" && step.accepted) sprTrees.clear();
            if (step.move.find("SPR") == std::string::npos) continue;
            ++sprRows;
            QVERIFY2(sprTrees.insert(step.newick).second, step.move.c_str());
        }
        qInfo("%d SPR candidates scored, %d repeats skipped", sprRows, r.repeatsSkipped);
        const double truthLL = scorer.evaluate(truth, r.theta).totalLogLikelihood;
        QVERIFY2(r.evaluation.totalLogLikelihood >= truthLL - 1e-6,
                 qPrintable(QString("%1 < %2").arg(r.evaluation.totalLogLikelihood).arg(truthLL)));
    }

    // The SPR cutoff and the SPR memory, each a factor of the mean drop: with none (0) or one too
    // large to skip anything the search is the same row for row; at the default (1) it leaves
    // candidates out (the cutoff: regrafts beyond a bad one; the memory: moves whose local shape fell
    // far below an earlier tree, of this pass or at earlier rates), scores fewer of them and still
    // ends as high as the true tree. A negative factor is refused.
    void dropHeuristicsLeaveHopelessMovesOut_data() {
        QTest::addColumn<bool>("memory");
        QTest::newRow("SPR cutoff") << false;
        QTest::newRow("SPR memory") << true;
    }
    void dropHeuristicsLeaveHopelessMovesOut() {
        QFETCH(bool, memory);
        const SpeciesTree species = simulatedSpeciesTree(12, 61);
        auto data = simulated(species, 50, 62);
        CandidateScorer scorer(data, cpuFactory(), SolverOptions{});
        const SpeciesTopology truth = scorer.loadedTopology(), start = sprMovesAway(truth, 3, 63);
        SpeciesSearchSettings settings;
        settings.replicates = 50;
        settings.rates.max_iter = 10;
        settings.maxRadius = 3;
        RateParameters theta(RateMode::Global, species.size(), 50, {0.1, 0.1, 0.1});
        double& factor = memory ? settings.sprMemory : settings.sprCutoff;
        auto skipped = [&](const SpeciesSearchResult& r) {
            return memory ? r.sprMemorySkipped : r.sprCutoffSkipped;
        };
        auto search = [&](double value) {
            factor = value;
            return searchSpeciesTree(scorer, start, theta, settings);
        };
        const SpeciesSearchResult none = search(0), huge = search(1e300), cut = search(1);
        QCOMPARE(skipped(none), 0);
        QCOMPARE(skipped(huge), 0);
        QCOMPARE(huge.trace.size(), none.trace.size());
        for (std::size_t i = 0; i < none.trace.size(); ++i) {
            QCOMPARE(huge.trace[i].move, none.trace[i].move);
            QCOMPARE(huge.trace[i].logLikelihood, none.trace[i].logLikelihood);
        }
        qInfo("factor 1: %d evaluations, %d candidates left out; none: %d evaluations", cut.evaluations,
              skipped(cut), none.evaluations);
        QVERIFY(skipped(cut) > 0);
        QVERIFY(cut.evaluations < none.evaluations);
        const double truthLL = scorer.evaluate(truth, cut.theta).totalLogLikelihood;
        QVERIFY2(cut.evaluation.totalLogLikelihood >= truthLL - 1e-6,
                 qPrintable(QString("%1 < %2").arg(cut.evaluation.totalLogLikelihood).arg(truthLL)));
        factor = -1;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, searchSpeciesTree(scorer, start, theta, settings));
    }

    // Transfer-guided moves (spec 3.2): every move the sampled transfers suggest names tree nodes,
    // best first, the same for the same seed; from a random start the search with them reaches the
    // true tree's likelihood in fewer candidates than SPR rounds alone. (Where SPR rounds alone stop
    // at a local optimum, on larger data, docs/species-search.md gives the measurement.)
    void transferMovesSpeedTheSearch() {
        const SpeciesTree species = simulatedSpeciesTree(14, 41);
        auto data = simulatedDataset(
            species, 30,
            [](int) {
                return Rates{0.1, 0.1, 0.1};
            },
            42);
        CandidateScorer scorer(data, cpuFactory(), SolverOptions{});
        const SpeciesTopology truth = scorer.loadedTopology();
        std::vector<std::string> names;
        for (int leaf : species.leaves())
            names.push_back(species.name(leaf));
        RandomSource rng(7);
        const SpeciesTopology start = scorer.topologyOf(randomSpeciesTree(names, rng));
        RateParameters theta(RateMode::Global, species.size(), 30, {0.1, 0.1, 0.1});
        const std::vector<TransferMove> moves = transferMoves(scorer, start, theta, 3);
        QVERIFY(!moves.empty());
        for (std::size_t i = 0; i < moves.size(); ++i) {
            QVERIFY(moves[i].prune >= 0 && moves[i].prune < start.nodeCount());
            QVERIFY(moves[i].regraft >= 0 && moves[i].regraft < start.nodeCount());
            QVERIFY(moves[i].score > 0);
            if (i > 0) QVERIFY(moves[i - 1].score >= moves[i].score);
        }
        QCOMPARE(transferMoves(scorer, start, theta, 3).size(), moves.size()); // seeded
        SpeciesSearchSettings settings;
        settings.replicates = 100;
        settings.rates.max_iter = 20;
        auto search = [&](bool transfers) {
            settings.transferMoves = transfers;
            const SpeciesSearchResult r = searchSpeciesTree(scorer, start, theta, settings);
            const double truthLL = scorer.evaluate(truth, r.theta).totalLogLikelihood;
            qInfo("transfer moves %d: LL %.6f, true tree %.6f, RF %d, %zu steps", transfers,
                  r.evaluation.totalLogLikelihood, truthLL, rootedRobinsonFoulds(r.best, truth),
                  r.trace.size());
            return std::pair{r.evaluation.totalLogLikelihood - truthLL, r.trace.size()};
        };
        const auto [withTransfers, withTransfersSteps] = search(true);
        QVERIFY2(withTransfers >= -1e-6, qPrintable(QString::number(withTransfers)));
#ifdef GPUREC_TESTS_SANITIZED
        // The comparison is a second whole search, run ~300× slower under the sanitizers for no code
        // the first did not run: the release build checks it.
        qInfo("SPR rounds alone: checked in the release build only");
        return;
#endif
        const auto [sprOnly, sprOnlySteps] = search(false);
        QVERIFY(sprOnly <= withTransfers + 1e-6);
        QVERIFY2(withTransfersSteps < sprOnlySteps,
                 qPrintable(QString("%1 vs %2").arg(withTransfersSteps).arg(sprOnlySteps)));
    }

    // The pre-screen's estimate, standard error and rule worked by hand.
    void prescreenByHand() {
        Prescreen p({0, 2}, 4);
        const std::vector<double> current{-10, -20, -30, -40};
        // Changes -1 and +3: mean 1, sample variance 8; se = 4 √(8 / 2 · (1 − 2/4)) = 4√2.
        const ScreeningEstimate e = p.estimate({-11, -27}, current);
        QCOMPARE(e.change, 4.0);
        QVERIFY(std::abs(e.standardError - 4 * std::sqrt(2.0)) < 1e-14);
        QCOMPARE(p.z(), Prescreen::minimumZ);
        // Calibrating: everything is scored, except a candidate impossible on a sampled family.
        QVERIFY(p.worthScoring({-1e9, 1.0}));
        QVERIFY(!p.worthScoring({-std::numeric_limits<double>::infinity(), 1.0}));
        for (int k = 0; k < Prescreen::calibrationCandidates / 2; ++k)
            p.observe({-10.0, 1.0}, -15.0); // worse than estimated: such errors cannot hide an improvement
        QCOMPARE(p.z(), Prescreen::minimumZ);
        for (int k = 0; k < Prescreen::calibrationCandidates / 2; ++k)
            p.observe({-10.0, 1.0}, -8.0); // two standard errors better each time: z = 4 × 2
        p.observe({-10.0, std::numeric_limits<double>::infinity()}, 0.0); // carries no information
        QCOMPARE(p.observed(), Prescreen::calibrationCandidates);
        QCOMPARE(p.z(), 8.0);
        QVERIFY(!p.worthScoring({-40.0, 5.0}));
        QVERIFY(p.worthScoring({-39.9, 5.0}));
        // One sampled family has no standard error: always scored.
        const ScreeningEstimate one = Prescreen({1}, 4).estimate({-25}, current);
        QCOMPARE(one.change, -20.0);
        QVERIFY(std::isinf(one.standardError));
        QVERIFY(p.worthScoring(one));
    }

    // The stratified screen worked by hand: every sampled family of the touched stratum and every
    // 16th of the others (two at least) are evaluated; each stratum's total is its mean times its
    // size among all families, the error the two strata's errors combined.
    void stratifiedScreenByHand() {
        const int F = 40;
        std::vector<int> sample(24);
        std::iota(sample.begin(), sample.end(), 0);
        Prescreen p(sample, F);
        std::vector<char> touched(F, 0);
        for (int f = 0; f < 12; ++f)
            touched[f] = 1; // 12 sampled
        for (int f = 24; f < 30; ++f)
            touched[f] = 1; // 6 not: 18 touched in all, 22 untouched
        const ScreenPlan plan = p.plan(touched);
        QCOMPARE(plan.touchedFamilies, 18);
        QCOMPARE(plan.neededCount(), 14); // the 12 touched, families 12 (the stride's) and 13 (the second)
        for (int i = 0; i < 24; ++i) {
            QCOMPARE(plan.touched[i] != 0, i < 12);
            QCOMPARE(plan.needed[i] != 0, i < 14);
        }
        const double nan = std::numeric_limits<double>::quiet_NaN();
        std::vector<double> current(F, -50.0), screened(24, nan);
        for (int i = 0; i < 12; ++i)
            screened[i] = -50.0 - i; // changes 0 .. −11: mean −5.5, sample variance 13
        screened[12] = -49.5;        // changes +0.5 and −0.5: mean 0, sample variance 0.5
        screened[13] = -50.5;
        const ScreeningEstimate e = p.estimate(screened, current, plan);
        // 18 × −5.5 + 22 × 0; se² = 18² · 13/12 · (1 − 12/18) + 22² · 0.5/2 · (1 − 2/22) = 117 + 110.
        QCOMPARE(e.change, -99.0);
        QVERIFY(std::abs(e.standardError - std::sqrt(227.0)) < 1e-12);
        screened[0] = nan; // a family the plan needs, not evaluated
        QVERIFY_THROWS_EXCEPTION(std::logic_error, p.estimate(screened, current, plan));
        // Fewer than ten sampled touched families: the whole sample, one stratum.
        std::vector<char> few(F, 0);
        for (int f = 0; f < 9; ++f)
            few[f] = 1;
        const ScreenPlan whole = p.plan(few);
        QVERIFY(whole.needed.empty() && whole.touched.empty());
        QVERIFY(p.plan({}).needed.empty());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, p.plan(std::vector<char>(F - 1, 1)));
        // Every family touched (a root move): every sampled family, the unstratified estimate bit for bit.
        std::vector<double> all(24);
        for (int i = 0; i < 24; ++i)
            all[i] = -50.0 + std::sin(i);
        const ScreenPlan everything = p.plan(std::vector<char>(F, 1));
        QCOMPARE(everything.neededCount(), 24);
        const ScreeningEstimate one = p.estimate(all, current), same = p.estimate(all, current, everything);
        QCOMPARE(same.change, one.change);
        QCOMPARE(same.standardError, one.standardError);
    }

    // A move touches the leaves below the branches it moves: for SPR(p, r) p's, r's and p's old
    // sibling's; a family is touched when it has a gene on one of them.
    void movesTouchTheLeavesBelowTheirBranches() {
        const SpeciesTree species = simulatedSpeciesTree(9, 61);
        auto data = simulated(species, 12, 62);
        CandidateScorer scorer(data, cpuFactory(), SolverOptions{});
        const SpeciesTopology t = scorer.loadedTopology();
        const std::vector<Clade> clades = t.clades();
        auto leavesOf = [&](const Clade& c) {
            std::vector<int> out;
            for (int id = 0; id < t.leafCount(); ++id)
                if (c[id / 64] >> (id % 64) & 1) out.push_back(id);
            return out;
        };
        std::vector<int> leafId(data->species.size(), -1);
        for (int id = 0; id < t.leafCount(); ++id)
            leafId[data->species.find(t.leafNames()[id])] = id;
        int moves = 0, touchedSome = 0, missedSome = 0;
        for (int p = 0; p < t.nodeCount(); ++p)
            for (int r : t.sprRegrafts(p, 2)) {
                if (t.parent(p) == t.root() || r == t.root()) continue;
                SpeciesTopology c = t;
                const int sibling = c.applySpr(p, r);
                Clade expected = clades[p];
                for (std::size_t w = 0; w < expected.size(); ++w)
                    expected[w] |= clades[r][w] | clades[sibling][w];
                const Clade got = leavesBelowMovedBranches(t, c);
                QCOMPARE(leavesOf(got), leavesOf(expected));
                const std::vector<char> families = scorer.familiesTouching(got);
                for (int f = 0; f < 12; ++f) {
                    bool has = false;
                    for (int e : data->families[f].geneSpecies) {
                        const int id = leafId[e];
                        has = has || (expected[id / 64] >> (id % 64) & 1);
                    }
                    QCOMPARE(families[f] != 0, has);
                    touchedSome += has;
                    missedSome += !has;
                }
                ++moves;
            }
        QVERIFY(moves > 10);
        QVERIFY(touchedSome > 0 && missedSome > 0);
        QCOMPARE(leavesOf(leavesBelowMovedBranches(t, t)), std::vector<int>{});
    }

    // The screening families: the middle one of each equal stratum of the cost order.
    void screeningFamiliesSpanTheCosts() {
        auto data = simulated(simulatedSpeciesTree(8, 3), 8, 4);
        std::vector<int> byCost(8);
        for (int f = 0; f < 8; ++f)
            byCost[f] = f;
        auto cost = [&](int f) {
            return data->families[f].clades.cladeCount() + data->families[f].clades.splitCount();
        };
        std::stable_sort(byCost.begin(), byCost.end(), [&](int a, int b) { return cost(a) < cost(b); });
        std::vector<int> expected{byCost[2], byCost[6]};
        std::sort(expected.begin(), expected.end());
        QCOMPARE(screeningFamilies(*data, 0.25), expected);
        QCOMPARE(screeningFamilies(*data, 0.01).size(), std::size_t(2)); // at least two
        QCOMPARE(screeningFamilies(*data, 0.99).size(), std::size_t(8));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, screeningFamilies(*data, 0.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, screeningFamilies(*data, 1.0));
    }

    // The confirming stage's families: the screening families' factor times as many in all, the
    // added ones spread over the cost order of the others; none where that adds fewer than two or
    // reaches every family.
    void confirmingFamiliesAddToTheSample() {
        auto data = simulated(simulatedSpeciesTree(8, 3), 10, 4);
        auto cost = [&](int f) {
            return data->families[f].clades.cladeCount() + data->families[f].clades.splitCount();
        };
        const std::vector<int> screening = screeningFamilies(*data, 0.2);
        QCOMPARE(screening.size(), std::size_t(2));
        const std::vector<int> added = confirmingFamilies(*data, screening, 2.5); // 5 in all: 3 more
        std::vector<int> others;
        for (int f = 0; f < 10; ++f)
            if (std::find(screening.begin(), screening.end(), f) == screening.end()) others.push_back(f);
        std::stable_sort(others.begin(), others.end(), [&](int a, int b) { return cost(a) < cost(b); });
        std::vector<int> expected{others[1], others[4], others[6]}; // middles of 3 strata of 8
        std::sort(expected.begin(), expected.end());
        QCOMPARE(added, expected);
        QVERIFY(confirmingFamilies(*data, screening, 1.0).empty());
        QVERIFY(confirmingFamilies(*data, screening, 1.5).empty()); // one more only
        QVERIFY(confirmingFamilies(*data, screening, 5.0).empty()); // every family
        QCOMPARE(confirmingFamilies(*data, screening, 4.5).size(), std::size_t(7));
    }

    // The screening backend gives the sampled families' log-likelihoods of a full evaluation, bit
    // for bit, with each family's own rates.
    void screeningScoresTheSampledFamilies() {
        auto data = simulated(simulatedSpeciesTree(9, 61), 12, 62);
        CandidateScorer scorer(data, cpuFactory(), SolverOptions{});
        RateParameters theta(RateMode::Genewise, data->species.size(), 12, {0.1, 0.1, 0.1});
        for (int f = 0; f < 12; ++f)
            theta.setRates(f, {0.05 + 0.01 * f, 0.2 - 0.01 * f, 0.03 + 0.005 * f});
        SpeciesTopology tree = scorer.loadedTopology();
        tree.rerootAbove(tree.left(tree.left(tree.root())));
        const std::vector<int> sample{1, 4, 7, 11};
        scorer.setScreeningFamilies(sample);
        const Evaluation full = scorer.evaluate(tree, theta), screened = scorer.screen({tree}, theta).front();
        QCOMPARE(screened.logLikelihood.size(), sample.size());
        for (std::size_t i = 0; i < sample.size(); ++i)
            QCOMPARE(screened.logLikelihood[i], full.logLikelihood[sample[i]]);
        QCOMPARE(scorer.screenings(), 1);
        const std::vector<int> more{0, 5, 6};
        scorer.setConfirmingFamilies(more);
        const Evaluation confirmed = scorer.confirm(tree, theta);
        for (std::size_t i = 0; i < more.size(); ++i)
            QCOMPARE(confirmed.logLikelihood[i], full.logLikelihood[more[i]]);
        QCOMPARE(scorer.confirmations(), 1);
        QCOMPARE(scorer.evaluations(), 1);
        // At global rates a screen solves the families it is told are needed, the same bits, and
        // leaves the others NaN.
        const RateParameters global(RateMode::Global, data->species.size(), 12, {0.1, 0.1, 0.1});
        const Evaluation all = scorer.evaluate(tree, global);
        const Evaluation some = scorer.screen({tree}, global, {{0, 1, 1, 0}}).front();
        QVERIFY(std::isnan(some.logLikelihood[0]) && std::isnan(some.logLikelihood[3]));
        QCOMPARE(some.logLikelihood[1], all.logLikelihood[sample[1]]);
        QCOMPARE(some.logLikelihood[2], all.logLikelihood[sample[2]]);
        QCOMPARE(scorer.screen({tree}, global).front().logLikelihood[0], all.logLikelihood[sample[0]]);
    }

    // Several screening lanes screen the candidates the search takes next beside the one it needs:
    // every row of the trace is the one-lane search's, and the screens it used are the same number.
    void prescreenLanesKeepTheDecisions() {
        const SpeciesTree species = simulatedSpeciesTree(12, 71);
        const int families = 90;
        auto data = simulated(species, families, 72);
        SpeciesSearchSettings settings;
        settings.replicates = 50;
        settings.rates.max_iter = 10;
        settings.maxRadius = 2;
        settings.prescreen = 0.4;
        const RateParameters theta(RateMode::Global, species.size(), families, {0.1, 0.1, 0.1});
        std::vector<SpeciesSearchResult> results;
        for (const int lanes : {0, 3}) {
            CandidateScorer scorer(data, cpuFactory(), SolverOptions{});
            settings.prescreenLanes = lanes;
            results.push_back(
                searchSpeciesTree(scorer, sprMovesAway(scorer.loadedTopology(), 4, 13), theta, settings));
            QCOMPARE(scorer.screeningLanes(), lanes == 0 ? 1 : lanes); // 0: one lane on the CPU
        }
        const SpeciesSearchResult &one = results[0], &three = results[1];
        QCOMPARE(one.prescreenLanes, 1);
        QCOMPARE(three.prescreenLanes, 3);
        QCOMPARE(three.trace.size(), one.trace.size());
        for (std::size_t i = 0; i < one.trace.size(); ++i) {
            const SearchStep &a = one.trace[i], &b = three.trace[i];
            QCOMPARE(b.move, a.move);
            QCOMPARE(b.newick, a.newick);
            QCOMPARE(b.logLikelihood, a.logLikelihood);
            QCOMPARE(b.accepted, a.accepted);
            QCOMPARE(b.screened, a.screened);
        }
        QCOMPARE(three.evaluation.totalLogLikelihood, one.evaluation.totalLogLikelihood);
        QCOMPARE(three.screenedOut, one.screenedOut);
        QCOMPARE(one.screeningsUnused, 0);
        QVERIFY(three.screenings > one.screenings); // some were screened ahead in vain
        QCOMPARE(three.screenings - three.screeningsUnused, one.screenings);
        QVERIFY(one.screenedOut > 0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, [] {
            SpeciesSearchSettings bad;
            bad.prescreenLanes = 65;
            bad.validate();
        }());
    }

    // Lanes that cannot be made (a device out of memory: the factory throws) are left out; when not
    // even one can, the error reaches the caller.
    void prescreenLanesWhereMemoryRunsOut() {
        auto data = simulated(simulatedSpeciesTree(8, 91), 10, 92);
        int made = 0, allowed = 0;
        auto factory = [&](std::shared_ptr<const Dataset> d) {
            if (made++ >= allowed) throw std::runtime_error("out of device memory (test)");
            return makeCpuBackend(std::move(d));
        };
        const RateParameters theta(RateMode::Global, data->species.size(), 10, {0.1, 0.1, 0.1});
        allowed = 3; // the main backend and two lanes
        CandidateScorer scorer(data, factory, SolverOptions{});
        const SpeciesTopology tree = scorer.loadedTopology();
        const Evaluation full = scorer.evaluate(tree, theta);
        scorer.setScreeningFamilies({2, 5, 7}, 4);
        QCOMPARE(scorer.screeningLanes(), 2);
        const std::vector<Evaluation> screened = scorer.screen({tree, tree, tree}, theta);
        for (const Evaluation& e : screened)
            QCOMPARE(e.logLikelihood[1], full.logLikelihood[5]);
        allowed = made; // no lane at all
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, scorer.setScreeningFamilies({1, 3}, 2));
        QVERIFY(scorer.screeningFamilies().empty()); // none, so asking again tries again
        QCOMPARE(scorer.screeningLanes(), 0);
        allowed = made + 1;
        scorer.setScreeningFamilies({1, 3}, 2);
        QCOMPARE(scorer.screeningLanes(), 1);
        // The confirming stage only saves time: without room for its backend there is none, and the
        // main backend still scores every family.
        allowed = made;
        scorer.setConfirmingFamilies({0, 4, 6});
        QVERIFY(scorer.confirmingFamilies().empty());
        QCOMPARE(scorer.evaluate(tree, theta).totalLogLikelihood, full.totalLogLikelihood);
        allowed = made + 1;
        scorer.setConfirmingFamilies({0, 4, 6});
        QCOMPARE(scorer.confirm(tree, theta).logLikelihood[1], full.logLikelihood[4]);
    }

    // A pre-screened search ends as high as a full one, scoring fewer candidates on every family;
    // its fully scored rows are exact and its screened rows are never accepted.
    void prescreenedSearchEndsAsHigh() {
        ScreenedSearchCase c;
        const int families = c.families;
        auto& data = c.data;
        CandidateScorer& scorer = c.scorer;
        const SpeciesTopology& start = c.start;
        const SpeciesTopology& truth = c.truth;
        SpeciesSearchSettings settings;
        settings.replicates = 100;
        settings.rates.max_iter = 20;
        settings.maxRadius = 2;
        settings.prescreen = 0.5;
        const RateParameters& theta = c.theta;
        const SpeciesSearchResult screened = searchSpeciesTree(scorer, start, theta, settings);
        QCOMPARE(int(scorer.screeningFamilies().size()), families / 2);
        const double truthLL = scorer.evaluate(truth, screened.theta).totalLogLikelihood;
        QVERIFY2(screened.evaluation.totalLogLikelihood >= truthLL - 1e-6,
                 qPrintable(QString("%1 < %2").arg(screened.evaluation.totalLogLikelihood).arg(truthLL)));
        QVERIFY(screened.screenedOut > 0);
        QVERIFY(screened.screenings > screened.screenedOut);
        QVERIFY(screened.screeningZ >= Prescreen::minimumZ);
        // Where its time went: screens, scores and rate fits each took some, and the parts fit in the whole.
        const SearchSeconds& in = screened.activitySeconds;
        QVERIFY(in.start > 0 && in.scoring > 0 && in.screening > 0 && in.rateFits > 0);
        QVERIFY(in.confirming >= 0 && in.transferRounds > 0);
        QVERIFY(in.start + in.scoring + in.screening + in.confirming + in.rateFits + in.transferRounds <=
                screened.seconds);
        QVERIFY(!screened.roots.empty()); // the root positions scored on every family
        int rows = 0, screenedRows = 0;
        for (const SearchStep& step : screened.trace) {
            if (step.screened) {
                ++screenedRows;
                QVERIFY(!step.accepted);
                QVERIFY(step.move.find("SPR") != std::string::npos || step.move.starts_with("root above"));
            } else if (rows++ % 9 == 0) {
                QVERIFY2(relativeError(step.logLikelihood,
                                       freshLogLikelihood(*data, step.newick, step.rates)) < 1e-12,
                         step.move.c_str());
            }
        }
        QCOMPARE(screenedRows, screened.screenedOut);
#ifdef GPUREC_TESTS_SANITIZED
        qInfo("the unscreened search: checked in the release build only");
        return;
#endif
        settings.prescreen = 0;
        const SpeciesSearchResult full = searchSpeciesTree(scorer, start, theta, settings);
        QVERIFY(scorer.screeningFamilies().empty());
        qInfo("pre-screened: LL %.6f, %d evaluations of every family (%d screened out); full: LL %.6f, %d",
              screened.evaluation.totalLogLikelihood, screened.evaluations, screened.screenedOut,
              full.evaluation.totalLogLikelihood, full.evaluations);
        QVERIFY(screened.evaluation.totalLogLikelihood >= full.evaluation.totalLogLikelihood - 1e-6);
        QVERIFY(screened.evaluations < full.evaluations);
    }

    // The confirming stage leaves out candidates the pre-screen could not rule out, and the search
    // still ends as high as without it, with fewer evaluations of every family.
    void confirmingStageEndsAsHigh() {
        ScreenedSearchCase c;
        CandidateScorer& scorer = c.scorer;
        const SpeciesTopology& start = c.start;
        SpeciesSearchSettings settings;
        settings.replicates = 100;
        settings.rates.max_iter = 20;
        settings.maxRadius = 2;
        settings.prescreen = 0.2;
        settings.prescreenConfirm = 0;
        const RateParameters& theta = c.theta;
        const SpeciesSearchResult single = searchSpeciesTree(scorer, start, theta, settings);
        QVERIFY(scorer.confirmingFamilies().empty());
        QCOMPARE(single.confirmations, 0);
        settings.prescreenConfirm = 2.5;
        const SpeciesSearchResult two = searchSpeciesTree(scorer, start, theta, settings);
        QCOMPARE(int(scorer.confirmingFamilies().size()), 36); // 60 with the screening families
        QCOMPARE(two.confirmingFamilies, 36);
        qInfo(
            "one stage: LL %.6f, %d evaluations (%d screened out); two: LL %.6f, %d (%d screened out, %d of "
            "%d confirmations left out, z %.2f)",
            single.evaluation.totalLogLikelihood, single.evaluations, single.screenedOut,
            two.evaluation.totalLogLikelihood, two.evaluations, two.screenedOut, two.confirmedOut,
            two.confirmations, two.confirmingZ);
        QVERIFY(two.confirmedOut > 0);
        QVERIFY(two.confirmations > two.confirmedOut);
        QVERIFY(two.confirmingZ >= Prescreen::minimumZ);
        QVERIFY(two.screenedOut >= two.confirmedOut);
        QVERIFY(two.evaluation.totalLogLikelihood >= single.evaluation.totalLogLikelihood - 1e-6);
        QVERIFY(two.evaluations < single.evaluations);
        int screenedRows = 0;
        for (const SearchStep& step : two.trace)
            if (step.screened) {
                ++screenedRows;
                QVERIFY(!step.accepted);
            }
        QCOMPARE(screenedRows, two.screenedOut);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, [] {
            SpeciesSearchSettings bad;
            bad.prescreenConfirm = -1;
            bad.validate();
        }());
    }

    // KH per branch (spec 5.2) against the formula worked by hand on two families and three replicates.
    void khCountsAgainstTheFormula() {
        RandomSource rng(1);
        FamilyResampling resampling(2, 3, rng);
        const std::vector<double> ref{-10.0, -20.0}, cand{-11.0, -19.5};
        const std::vector<double> r = resampling.sums(ref), c = resampling.sums(cand);
        double mean = 0;
        for (int b = 0; b < 3; ++b)
            mean += (r[b] - c[b]) / 3;
        int k = 0;
        for (int b = 0; b < 3; ++b)
            k += (r[b] - c[b]) - mean <= (-30.0) - (-30.5);
        BranchKH kh(resampling);
        const Clade split{0b0110};
        kh.newTree({split}, -30.0, ref);
        QCOMPARE(kh.support(split), 3);
        kh.rejected({split}, -30.5, cand);
        QCOMPARE(kh.support(split), k);
        // The resamples draw two families each.
        for (int b = 0; b < 3; ++b) {
            const double w0 = resampling.sums({1.0, 0.0})[b], w1 = resampling.sums({0.0, 1.0})[b];
            QCOMPARE(w0 + w1, 2.0);
        }
    }

    // AU (Shimodaira 2002): bootstrap probabilities that lie exactly on 1 − Φ(v√r + c/√r) give
    // back AU = 1 − Φ(v − c), whatever the weights.
    void auFitsTheMultiscaleCurve() {
        const std::vector<double> scales{0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4};
        const double v = 1.2, c = 0.3;
        std::vector<double> bp;
        for (double r : scales)
            bp.push_back(0.5 * std::erfc((v * std::sqrt(r) + c / std::sqrt(r)) / std::sqrt(2.0)));
        QVERIFY(std::abs(auPValue(scales, bp, 10000) - 0.5 * std::erfc(0.9 / std::sqrt(2.0))) < 1e-9);
        QVERIFY(std::abs(normalQuantile(0.975) - 1.959963984540054) < 1e-12);
    }

    // KH by hand: differences 1, 0.5, −0.2: Δ = 1.3, s² = 0.3633…, z = Δ/√(3 s²) = 1.24517…
    void khByHand() {
        const double p = khPValue({-10, -20, -30}, {-11, -20.5, -29.8});
        const double mean = 1.3 / 3, s2 = ((1 - mean) * (1 - mean) + (0.5 - mean) * (0.5 - mean) +
                                           (-0.2 - mean) * (-0.2 - mean)) /
                                          2;
        QVERIFY(std::abs(p - 0.5 * std::erfc(1.3 / std::sqrt(3 * s2) / std::sqrt(2.0))) < 1e-14);
        QVERIFY(std::abs(p - 0.10654) < 1e-4);
    }

    // SH and BP against the published steps written out here, on the same replicate sums.
    void shAndBootstrapAgainstTheirDefinitions() {
        const std::vector<std::vector<double>> ll{
            {-10, -12, -8, -20, -5, -7}, {-10.5, -11, -8.2, -20.4, -5.5, -6.1}, {-9, -14, -9, -21, -5, -7.5}};
        RandomSource rng(9);
        const std::vector<std::vector<double>> sums = resampledSums(ll, 6, 400, rng);
        const std::vector<double> sh = shPValues(ll, sums), bp = bootstrapProbabilities(sums);
        std::vector<double> L(3, 0.0), mean(3, 0.0);
        for (int i = 0; i < 3; ++i)
            for (int f = 0; f < 6; ++f)
                L[i] += ll[i][f];
        for (int i = 0; i < 3; ++i)
            for (int b = 0; b < 400; ++b)
                mean[i] += sums[i][b] / 400;
        const double Lmax = std::max({L[0], L[1], L[2]});
        double bpTotal = 0;
        for (int i = 0; i < 3; ++i) {
            int count = 0, wins = 0;
            for (int b = 0; b < 400; ++b) {
                double top = -INFINITY;
                for (int j = 0; j < 3; ++j)
                    top = std::max(top, sums[j][b] - mean[j]);
                count += top - (sums[i][b] - mean[i]) >= Lmax - L[i];
                bool best = true;
                for (int j = 0; j < 3; ++j)
                    best = best && (j < i ? sums[j][b] < sums[i][b] : sums[j][b] <= sums[i][b]);
                wins += best;
            }
            QCOMPARE(sh[i], count / 400.0);
            QCOMPARE(bp[i], wins / 400.0);
            bpTotal += bp[i];
        }
        QVERIFY(std::abs(bpTotal - 1) < 1e-12);
        QCOMPARE(sh[1], 1.0); // the best tree (L = -61.7)
        const std::vector<TreeTestRow> rows = testTrees(ll, TreeTestSettings{2000, {0.5, 1.0, 1.4}, 3});
        QCOMPARE(rows[1].delta, 0.0);
        QCOMPARE(rows[1].kh, 1.0);
        QVERIFY(rows[1].au > rows[2].au);
    }

    // MiniNJ on gene trees shaped like the species tree (one gene per species, distances additive)
    // recovers the unrooted species tree; species that two families share are averaged.
    void miniNjRecoversAnAdditiveTree() {
        const std::string dir = temporaryFolder("mininj");
        writeFile(dir + "/f1.nwk", "((((A_1,B_1),C_1),(D_1,E_1)),(F_1,G_1));\n");
        writeFile(dir + "/f2.nwk",
                  "(((A_2,B_2),C_2),((D_2,E_2),(F_2,G_2)));\n((A_3,B_3),(C_3,((D_3,E_3),(F_3,G_3))));\n");
        const std::vector<FamilyInput> families =
            familiesFromGeneTreeFiles({dir + "/f1.nwk", dir + "/f2.nwk"});
        QCOMPARE(familySpecies(families), (std::vector<std::string>{"A", "B", "C", "D", "E", "F", "G"}));
        const SpeciesTree nj = miniNjSpeciesTree(families);
        const SpeciesTree truth = parseTree("((((A,B),C),(D,E)),(F,G));");
        const SpeciesTopology a = SpeciesTopology::fromSpeciesTree(truth);
        QCOMPARE(treeSplits(SpeciesTopology::fromSpeciesTree(nj, a.leafNames())), treeSplits(a));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, miniNjSpeciesTree(familiesFromGeneTreeFiles({})));
    }

    void randomStartTreeIsSeeded() {
        const std::vector<std::string> species{"E", "B", "A", "D", "C", "F"};
        RandomSource r1(4), r2(4), r3(5);
        const SpeciesTree a = randomSpeciesTree(species, r1), b = randomSpeciesTree(species, r2);
        QCOMPARE(a.toNewick(true), b.toNewick(true));
        QCOMPARE(a.leafCount(), 6);
        std::set<std::string> leaves;
        for (int e : a.leaves())
            leaves.insert(a.name(e));
        QCOMPARE(leaves, (std::set<std::string>{"A", "B", "C", "D", "E", "F"}));
        std::set<std::string> shapes;
        for (int k = 0; k < 20; ++k)
            shapes.insert(SpeciesTopology::fromSpeciesTree(randomSpeciesTree(species, r3)).canonicalNewick());
        QVERIFY(shapes.size() > 10);
    }

    void badStartTrees() {
        const SpeciesTree species = parseTree("((A,B),(C,D));");
        auto data = std::make_shared<Dataset>();
        data->species = species;
        CandidateScorer scorer(data, cpuFactory(), SolverOptions{});
        try {
            scorer.topologyOf(parseTree("((A,B),(C,E));"));
            QFAIL("no error");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(std::string(e.what()).find("missing: D; not in the families' species: E") !=
                         std::string::npos,
                     e.what());
        }
        QVERIFY_THROWS_EXCEPTION(InputError, parseTree("((A,B,C),D);"));
        // Per-species rates belong to one tree.
        const RateParameters specieswise(RateMode::Specieswise, species.size(), 0, {0.1, 0.1, 0.1});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 searchSpeciesTree(scorer, scorer.loadedTopology(), specieswise, {}));
        QCOMPARE(scorer.topologyOf(parseTree("((D,C),(B,A));")).canonicalNewick(),
                 std::string("((A,B),(C,D));"));
    }

    // RELDATED: a dated topology gives back its tree's ranks (Y's clade before X's, as the lengths
    // say, where equal depths would order them by name), it takes no SPR move, and the search
    // refuses the strategies that would move its nodes without re-dating them, with AleRax's
    // messages (re-rooting a dated topology: test_speciation_order).
    void datedTopologiesKeepTheirRanks() {
        const SpeciesTree tree =
            SpeciesTree::fromNewick(parseNewick("((A:1,B:3)X:2,(C:2,D:0.5)Y:1)R;", "species")[0]);
        auto rankOfClade = [](const SpeciesTree& t, const char* left) {
            return t.rank(t.parent(t.find(left))); // the cherry's node
        };
        SpeciesTopology dated = SpeciesTopology::fromSpeciesTree(tree, {}, true);
        const SpeciesTree back = dated.toSpeciesTree();
        QCOMPARE(rankOfClade(back, "C"), 1);
        QCOMPARE(rankOfClade(back, "A"), 2);
        QCOMPARE(back.toRankedNewick(),
                 SpeciesTree::fromNewick(parseNewick(back.toNewick(true), "b")[0]).toRankedNewick());
        const SpeciesTree undated = SpeciesTopology::fromSpeciesTree(tree).toSpeciesTree();
        QCOMPARE(rankOfClade(undated, "A"), 1);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, dated.rerootAbove(dated.root()));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, dated.applySpr(0, 2));
        auto refusal = [](SearchStrategy strategy) {
            try {
                requireSearchAllowed(strategy, TransferConstraint::RelDated);
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        QCOMPARE(refusal(SearchStrategy::Hybrid),
                 std::string("species tree search is not compatible with --transfer-constraint RELDATED"));
        QCOMPARE(
            refusal(SearchStrategy::Reroot),
            std::string("species tree root inference is not compatible with --transfer-constraint RELDATED "
                        "unless using --infer-speciation-order"));
        QCOMPARE(refusal(SearchStrategy::Skip), std::string());
        requireSearchAllowed(SearchStrategy::Reroot, TransferConstraint::RelDated, true);
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            requireSearchAllowed(SearchStrategy::Hybrid, TransferConstraint::RelDated, true));
        requireSearchAllowed(SearchStrategy::Hybrid, TransferConstraint::Parents);
    }
};

QTEST_APPLESS_MAIN(SpeciesSearch)
#include "test_species_search.moc"
