// Speciation-order inference under RELDATED: the rank swaps and their refusals, random datings, the
// transfer score against a brute force, local optimisation, the inference on families simulated
// under RELDATED, and `gpurec search --infer-speciation-order` end to end.
#include "cli_run.hpp"
#include "simulated_data.hpp"
#include "support.hpp"

#include "species_search/speciation_order.hpp"
#include "species_search/speciation_order_search.hpp"
#include "species_search/species_search.hpp"

#include <QtTest>
#include <algorithm>
#include <filesystem>
#include <set>

using namespace gpurec;
using namespace gpurec::test;

namespace {

SpeciesTree parseTree(const std::string& newick) {
    return SpeciesTree::fromNewick(parseNewick(newick, "test").front());
}

// Every pair allowed by the tree dated with `order`, counted through SpeciesTree::isRecipient.
long bruteForceScore(const SpeciationOrder& order, const std::vector<TransferCount>& transfers) {
    const SpeciesTree dated = order.datedTree();
    long score = 0;
    for (const TransferCount& t : transfers)
        if (dated.isRecipient(t.from, t.to, TransferConstraint::RelDated)) score += t.count;
    return score;
}

// Gene trees simulated under RELDATED on `species` (dated by its branch lengths).
std::vector<NewickTree> relDatedGeneTrees(const SpeciesTree& species, int families, const Rates& rates,
                                          std::uint64_t seed) {
    FamilySimulator simulator(species, TransferConstraint::RelDated, SimProcess::Undated, {});
    const std::vector<Rates> perNode(species.size(), rates);
    std::vector<NewickTree> trees;
    for (int f = 0; f < families; ++f) {
        RandomSource rng = RandomSource::stream(seed, std::uint64_t(f));
        trees.push_back(simulator.simulate("sim" + std::to_string(f), perNode, rng).geneTree);
    }
    return trees;
}

// The families of those gene trees on `species`, scored under RELDATED with its dating.
std::shared_ptr<Dataset> relDatedFamiliesOn(const SpeciesTree& species,
                                            const std::vector<NewickTree>& geneTrees) {
    auto data = std::make_shared<Dataset>();
    data->species = species;
    data->transferConstraint = TransferConstraint::RelDated;
    for (std::size_t f = 0; f < geneTrees.size(); ++f)
        data->families.push_back(
            makeFamily(species, "sim" + std::to_string(f), {geneTrees[f]}, GeneTreeRooting::Rooted));
    return data;
}

// Families simulated under RELDATED on `species`, scored under it.
std::shared_ptr<Dataset> relDatedFamilies(const SpeciesTree& species, int families, const Rates& rates,
                                          std::uint64_t seed) {
    return relDatedFamiliesOn(species, relDatedGeneTrees(species, families, rates, seed));
}

// The rank of the node whose leaves are `clade` (their lowest common ancestor).
int rankOfClade(const SpeciesTree& tree, const std::vector<std::string>& clade) {
    int node = tree.find(clade.front());
    auto holdsAll = [&](int a) {
        return std::all_of(clade.begin(), clade.end(), [&](const std::string& leaf) {
            return tree.isAncestorOrSelf(a, tree.find(leaf));
        });
    };
    while (!holdsAll(node))
        node = tree.parent(node);
    return tree.rank(node);
}

// A dated topology's ranks by node id.
std::vector<int> ranksById(const SpeciesTopology& t) {
    const SpeciesTree tree = t.toSpeciesTree();
    const std::vector<int> id = t.speciesTreeOrder();
    std::vector<int> ranks(t.nodeCount());
    for (int e = 0; e < tree.size(); ++e)
        ranks[id[e]] = tree.rank(e);
    return ranks;
}

BackendFactory cpuFactory() {
    return [](std::shared_ptr<const Dataset> data) { return makeCpuBackend(std::move(data)); };
}

} // namespace

class SpeciationOrderTest : public QObject {
    Q_OBJECT

  private slots:
    // model notes §1.6's tree: R0, Y1, X2. Y is R's child (refused), X and Y swap, the leaves never
    // move; a swap undoes itself.
    void movesRefuseWhatAleRaxRefuses() {
        const SpeciesTree tree = parseTree("((A:1,B:3)X:2,(C:2,D:0.5)Y:1)R;");
        SpeciationOrder order(tree);
        const int x = tree.find("X"), y = tree.find("Y"), r = tree.find("R");
        QCOMPARE(order.nodeAt(0), r);
        QCOMPARE(order.nodeAt(1), y);
        QVERIFY(!order.moveUp(0));
        QVERIFY(!order.moveDown(0)); // Y is R's child
        QVERIFY(!order.moveUp(1));
        QVERIFY(!order.moveDown(2)); // rank 3 is a leaf
        QVERIFY(!order.moveDown(-1));
        QVERIFY(order.moveDown(1));
        QCOMPARE(order.nodeAt(1), x);
        QCOMPARE(order.rank(y), 2);
        QVERIFY(order.valid());
        QVERIFY(order.moveUp(2));
        QCOMPARE(order.nodeAt(1), y);
        QCOMPARE(order.rank(tree.find("A")), tree.rank(tree.find("A")));

        // Random swaps on a larger tree keep a linear extension; a refused one changes nothing.
        const SpeciesTree big = simulatedSpeciesTree(16, 5);
        SpeciationOrder o(big);
        std::mt19937_64 rng(1);
        for (int i = 0; i < 2000; ++i) {
            const std::vector<int> before = o.internalByRank();
            const int at = static_cast<int>(rng() % 20) - 2;
            const bool moved = (rng() & 1) ? o.moveUp(at) : o.moveDown(at);
            QVERIFY(o.valid());
            if (!moved) QCOMPARE(o.internalByRank(), before);
        }
        // The dated tree carries the order, and reads back with it.
        const SpeciesTree dated = o.datedTree();
        for (int e = 0; e < big.size(); ++e)
            QCOMPARE(dated.rank(e), o.rank(e));
        QCOMPARE(parseTree(dated.toRankedNewick()).ranks(), dated.ranks());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, big.redated(std::vector<int>(o.internalCount(), 0)));
    }

    void randomDatingsAreValidReproducibleAndVaried() {
        const SpeciesTree tree = simulatedSpeciesTree(12, 7);
        std::set<std::vector<int>> seen;
        for (std::uint64_t seed = 0; seed < 40; ++seed) {
            SpeciationOrder a(tree), b(tree);
            std::mt19937_64 ra(seed), rb(seed);
            a.randomize(ra);
            b.randomize(rb);
            QVERIFY(a.valid());
            QCOMPARE(a.internalByRank(), b.internalByRank());
            seen.insert(a.internalByRank());
            a.perturb(0.3, ra);
            QVERIFY(a.valid());
        }
        QVERIFY(seen.size() >= 10);
    }

    void transferScoreMatchesBruteForce() {
        // §1.6: A and B may not go to Y (it ends before X); C and D may go to X.
        const SpeciesTree tree = parseTree("((A:1,B:3)X:2,(C:2,D:0.5)Y:1)R;");
        auto id = [&](const char* n) { return tree.find(n); };
        const std::vector<TransferCount> transfers = {
            {id("A"), id("Y"), 5}, {id("C"), id("X"), 3}, {id("A"), id("B"), 2}, {id("X"), id("R"), 7},
            {id("R"), id("D"), 1}, {id("Y"), id("X"), 4}, {id("D"), id("C"), 6}};
        SpeciationOrder order(tree);
        QCOMPARE(transferScore(order, transfers), 3L + 2 + 1 + 4 + 6);
        QCOMPARE(transferScore(order, transfers), bruteForceScore(order, transfers));
        QVERIFY(order.moveDown(1)); // X before Y: A may reach Y, C no longer X
        QCOMPARE(transferScore(order, transfers), 5L + 2 + 1 + 4 + 6);
        QCOMPARE(transferScore(order, transfers), bruteForceScore(order, transfers));

        const SpeciesTree big = simulatedSpeciesTree(14, 3);
        std::mt19937_64 rng(9);
        std::vector<TransferCount> many;
        for (int i = 0; i < 300; ++i)
            many.push_back({static_cast<int>(rng() % big.size()), static_cast<int>(rng() % big.size()),
                            static_cast<long>(rng() % 5)});
        SpeciationOrder o(big);
        for (int i = 0; i < 20; ++i) {
            o.randomize(rng);
            QCOMPARE(transferScore(o, many), bruteForceScore(o, many));
        }
    }

    // Local optimisation never lowers the score; once a sweep gains nothing, no single moveUp
    // improves (one call stops after a sweep gaining kLocalSweepGain or less).
    void localOptimisationReachesALocalOptimum() {
        const SpeciesTree tree = simulatedSpeciesTree(20, 11);
        std::mt19937_64 rng(4);
        std::vector<TransferCount> transfers;
        for (int i = 0; i < 400; ++i)
            transfers.push_back({static_cast<int>(rng() % tree.size()), static_cast<int>(rng() % tree.size()),
                                 static_cast<long>(rng() % 7)});
        const DatingScore score = [&](const SpeciationOrder& o) {
            return static_cast<double>(transferScore(o, transfers));
        };
        for (int trial = 0; trial < 10; ++trial) {
            SpeciationOrder order(tree);
            order.randomize(rng);
            double s = score(order);
            for (double next = optimizeDatingLocally(order, score); next != s;
                 next = optimizeDatingLocally(order, score)) {
                QVERIFY(next > s);
                s = next;
            }
            QVERIFY(order.valid());
            QCOMPARE(score(order), s);
            for (int r = 0; r < order.internalCount(); ++r) {
                SpeciationOrder moved = order;
                if (moved.moveUp(r)) QVERIFY(score(moved) <= s);
            }
        }
    }

    // Families simulated under RELDATED on a dated tree: from the true order and from a scrambled
    // one, the inferred order is at least as likely as where it started, and from the scrambled one
    // at least as likely as the true order.
    void inferenceOnSimulatedFamilies() {
        const SpeciesTree species = simulatedSpeciesTree(10, 21);
        const Rates rates{0.05, 0.05, 0.25};
        std::shared_ptr<Dataset> data = relDatedFamilies(species, 40, rates, 8);
        CandidateScorer scorer(data, cpuFactory(), SolverOptions{});
        const RateParameters theta(RateMode::Global, species.size(), static_cast<int>(data->families.size()),
                                   rates);
        const SpeciesTopology truth = scorer.loadedTopology();
        auto evaluate = [&](const SpeciesTopology& t) { return scorer.evaluate(t, theta); };
        const double trueLL = evaluate(truth).totalLogLikelihood;

        const SpeciationOrderResult fromTruth =
            inferSpeciationOrder(scorer, truth, theta, trueLL, 1, evaluate);
        QVERIFY(fromTruth.evaluation.totalLogLikelihood >= trueLL);

        SpeciationOrder scrambled(species);
        std::mt19937_64 rng(2);
        scrambled.randomize(rng);
        const SpeciesTopology start = scorer.topologyOf(scrambled.datedTree());
        const double startLL = evaluate(start).totalLogLikelihood;
        const SpeciationOrderResult found = inferSpeciationOrder(scorer, start, theta, startLL, 3, evaluate);
        qInfo("true order %.4f, scrambled %.4f, inferred from it %.4f (from the truth %.4f); %d datings "
              "scored, "
              "%ld sampled transfers",
              trueLL, startLL, found.evaluation.totalLogLikelihood, fromTruth.evaluation.totalLogLikelihood,
              found.likelihoodDatings, found.sampledTransfers);
        QVERIFY(found.evaluation.totalLogLikelihood >= startLL);
        QVERIFY(found.evaluation.totalLogLikelihood >= trueLL - 1e-9);
        QCOMPARE(found.best.canonicalNewick(), truth.canonicalNewick()); // the topology stays
        QCOMPARE(found.evaluation.totalLogLikelihood, evaluate(found.best).totalLogLikelihood);
    }

    // A root move of a dated tree (AleRax's changeRoot), edge by edge: the root stays at rank 0, the
    // node that now joins the old root's two sides (AleRax's old root) takes rank 1, every other
    // node keeps its order. R0 X1 Y2 Z3 W4 re-rooted above Z gives {F,A,B}1 X2 Z3 W4; above W, one
    // edge further, {C,F,A,B}1 {F,A,B}2 X3 W4.
    void datedRerootKeepsTheRelativeOrder() {
        const SpeciesTree tree = parseTree("((A:1,B:1)X:1,((C:1,(D:1,E:1)W:1)Z:1,F:1)Y:2)R;");
        QCOMPARE(tree.rank(tree.find("Y")), 2);
        QCOMPARE(tree.rank(tree.find("W")), 4);
        const SpeciesTopology dated = SpeciesTopology::fromSpeciesTree(tree, {}, true);
        const auto& leaves = dated.leafNames();
        const int d = static_cast<int>(std::find(leaves.begin(), leaves.end(), "D") - leaves.begin());
        const int w = dated.parent(d), z = dated.parent(w);

        SpeciesTopology oneEdge = dated;
        oneEdge.rerootAbove(z);
        const SpeciesTree a = oneEdge.toSpeciesTree();
        QCOMPARE(rankOfClade(a, {"A", "B", "C", "D", "E", "F"}), 0);
        QCOMPARE(rankOfClade(a, {"F", "A", "B"}), 1);
        QCOMPARE(rankOfClade(a, {"A", "B"}), 2);
        QCOMPARE(rankOfClade(a, {"C", "D", "E"}), 3);
        QCOMPARE(rankOfClade(a, {"D", "E"}), 4);

        SpeciesTopology twoEdges = dated;
        twoEdges.rerootAbove(w);
        const SpeciesTree b = twoEdges.toSpeciesTree();
        QCOMPARE(rankOfClade(b, {"A", "B", "C", "D", "E", "F"}), 0);
        QCOMPARE(rankOfClade(b, {"C", "F", "A", "B"}), 1);
        QCOMPARE(rankOfClade(b, {"F", "A", "B"}), 2);
        QCOMPARE(rankOfClade(b, {"A", "B"}), 3);
        QCOMPARE(rankOfClade(b, {"D", "E"}), 4);
        QCOMPARE(parseTree(b.toRankedNewick()).ranks(), b.ranks());
        oneEdge.rerootAbove(w); // the second edge alone: the same tree, dated alike
        QCOMPARE(ranksById(oneEdge), ranksById(twoEdges));
        QCOMPARE(oneEdge.canonicalNewick(), twoEdges.canonicalNewick());

        // datedBy carries a dating of the same tree over, node ids kept, and nothing else.
        SpeciationOrder order(b);
        QVERIFY(order.moveDown(3)); // {D,E} before {A,B}
        const SpeciesTopology redated = twoEdges.datedBy(order.datedTree());
        QCOMPARE(redated.toSpeciesTree().ranks(), order.datedTree().ranks());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, twoEdges.datedBy(a));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, SpeciesTopology::fromSpeciesTree(b).datedBy(b));

        // Random datings of a larger tree, one edge at a time: the root first, the join second,
        // the others in their order, always a valid dating.
        const SpeciesTree big = simulatedSpeciesTree(16, 5);
        std::mt19937_64 rng(3);
        for (int trial = 0; trial < 30; ++trial) {
            SpeciationOrder random(big);
            random.randomize(rng);
            SpeciesTopology t = SpeciesTopology::fromSpeciesTree(random.datedTree(), {}, true);
            for (int step = 0; step < 6; ++step) {
                int side = (rng() & 1) ? t.left(t.root()) : t.right(t.root());
                if (t.isLeaf(side)) side = t.sibling(side);
                const int x = (rng() & 1) ? t.left(side) : t.right(side);
                const std::vector<int> before = ranksById(t);
                t.rerootAbove(x);
                const std::vector<int> after = ranksById(t);
                QCOMPARE(after[t.root()], 0);
                QCOMPARE(after[side], 1);
                for (int i = t.leafCount(); i < t.nodeCount(); ++i)
                    for (int j = t.leafCount(); j < t.nodeCount(); ++j)
                        if (i != side && j != side) QCOMPARE(before[i] < before[j], after[i] < after[j]);
                const SpeciesTree moved = t.toSpeciesTree();
                QVERIFY(SpeciationOrder(moved).valid());
            }
        }
    }

    // REROOT with --infer-speciation-order on families simulated under RELDATED, from the true
    // topology rooted elsewhere with a random order: every root candidate is re-dated (its row says
    // so) and its log-likelihood is a fresh evaluation's of the dated tree it records, bit for bit;
    // the search ends at least as likely as it started, with the dating step.
    void datedRootSearchOnSimulatedFamilies() {
        const SpeciesTree species = simulatedSpeciesTree(8, 21);
        const Rates rates{0.05, 0.05, 0.25};
        const int families = 30;
        const std::vector<NewickTree> geneTrees = relDatedGeneTrees(species, families, rates, 8);
        SpeciesTopology rerooted = SpeciesTopology::fromSpeciesTree(species, {}, true);
        int side = rerooted.left(rerooted.root());
        if (rerooted.isLeaf(side)) side = rerooted.sibling(side);
        rerooted.rerootAbove(rerooted.left(side));
        const SpeciesTree moved = rerooted.toSpeciesTree();
        SpeciationOrder scrambled(moved);
        std::mt19937_64 rng(5);
        scrambled.randomize(rng);
        auto data = relDatedFamiliesOn(scrambled.datedTree(), geneTrees);
        CandidateScorer scorer(data, cpuFactory(), SolverOptions{});
        const RateParameters theta(RateMode::Global, species.size(), families, rates);

        SpeciesSearchSettings settings;
        settings.strategy = SearchStrategy::Reroot;
        settings.inferSpeciationOrder = true;
        settings.optimizeRates = false; // every row at θ, as the fresh evaluations
        settings.replicates = 20;
        std::vector<SearchStep> steps;
        const SpeciesSearchResult result =
            searchSpeciesTree(scorer, scorer.loadedTopology(), theta, settings,
                              [&](const SearchStep& s) { steps.push_back(s); });
        auto fresh = [&](const std::string& newick) {
            return makeCpuBackend(relDatedFamiliesOn(parseTree(newick), geneTrees))
                ->evaluate(theta, SolverOptions{}, false)
                .totalLogLikelihood;
        };
        int candidates = 0;
        for (const SearchStep& s : steps) {
            if (!s.move.starts_with("root above")) continue;
            ++candidates;
            QVERIFY2(s.move.find(", dated (") != std::string::npos, s.move.c_str());
            const double expected = fresh(s.newick);
            QVERIFY2(
                s.logLikelihood == expected, // bit for bit: the same tree, families and θ
                qPrintable(
                    QString::fromStdString(s.move) +
                    QString(": %1 vs fresh %2").arg(s.logLikelihood, 0, 'g', 17).arg(expected, 0, 'g', 17)));
        }
        const double trueLL = makeCpuBackend(relDatedFamiliesOn(species, geneTrees))
                                  ->evaluate(theta, SolverOptions{}, false)
                                  .totalLogLikelihood;
        qInfo("start %.4f, after the dated root search and dating %.4f (true tree %.4f); %d root candidates, "
              "%d evaluations",
              result.startLogLikelihood, result.evaluation.totalLogLikelihood, trueLL, candidates,
              result.evaluations);
        QVERIFY(candidates > 0);
        QVERIFY(!result.roots.empty());
        QVERIFY(result.speciationOrder.has_value());
        QVERIFY(steps.back().move.starts_with("speciation order: "));
        QVERIFY(result.evaluation.totalLogLikelihood >= result.startLogLikelihood);
        QVERIFY(result.evaluation.totalLogLikelihood == fresh(result.best.toSpeciesTree().toNewick(true)));
    }

    // gpurec search --infer-speciation-order: the dated tree written with its rank-derived lengths
    // (read back, the same ranks), the step in search_trace.csv and result.json; refused without
    // RELDATED.
    void cliInfersTheOrder() {
        const std::string ds = sharedData("alerax/test_trees_2");
        const std::string out = temporaryFolder("speciation_order_cli") + "/out";
        const QStringList args = {"search",
                                  "-f",
                                  q(ds + "/families.txt"),
                                  "-s",
                                  q(ds + "/sp.nwk"),
                                  "--species-tree-search",
                                  "SKIP",
                                  "--infer-speciation-order",
                                  "--fix-rates",
                                  "-p",
                                  q(out)};
        CliRun refused = runGpurec(args);
        QCOMPARE(refused.exitCode, 2);
        QCOMPARE(refused.err.trimmed(), q("gpurec: error: --infer-speciation-order can only be used with "
                                          "--transfer-constraint RELDATED"));
        QVERIFY(!std::filesystem::exists(out));

        CliRun r = runGpurec(args + QStringList{"--transfer-constraint", "RELDATED"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const std::string written = fileText(out + "/species_trees/inferred_species_tree.newick");
        const SpeciesTree inferred =
            SpeciesTree::readFile(out + "/species_trees/inferred_species_tree.newick");
        QCOMPARE(written, inferred.toRankedNewick() + "\n");
        const nlohmann::json j = readJson(out + "/result.json").at("search");
        const nlohmann::json& step = j.at("speciation_order");
        QVERIFY(step.at("log_likelihood_after").get<double>() >=
                step.at("log_likelihood_before").get<double>());
        QVERIFY(step.at("datings_scored").get<int>() > 0);
        QCOMPARE(j.at("log_likelihood").get<double>(), step.at("log_likelihood_after").get<double>());
        QVERIFY(fileText(out + "/search_trace.csv").find("speciation order: ") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(SpeciationOrderTest)
#include "test_speciation_order.moc"
