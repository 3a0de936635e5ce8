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

// Families simulated under RELDATED on `species` (dated by its branch lengths), scored under it.
std::shared_ptr<Dataset> relDatedFamilies(const SpeciesTree& species, int families, const Rates& rates,
                                          std::uint64_t seed) {
    auto data = std::make_shared<Dataset>();
    data->species = species;
    data->transferConstraint = TransferConstraint::RelDated;
    FamilySimulator simulator(species, TransferConstraint::RelDated, SimProcess::Undated, {});
    const std::vector<Rates> perNode(species.size(), rates);
    for (int f = 0; f < families; ++f) {
        RandomSource rng = RandomSource::stream(seed, std::uint64_t(f));
        const std::string name = "sim" + std::to_string(f);
        data->families.push_back(makeFamily(species, name, {simulator.simulate(name, perNode, rng).geneTree},
                                            GeneTreeRooting::Rooted));
    }
    return data;
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
