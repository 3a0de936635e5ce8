// --prune-species-tree (spec 1.5, engine/species_pruning.hpp): the pruned tree of a family worked
// by hand; the pruned model against the same family reconciled, without pruning, with the pruned
// tree given as the input (rates and origination weights carried to the kept nodes by name), and
// against the independent reference implementation on that tree; bit-identical results when every
// species is covered; sampled reconciliations named on the full tree; what pruning is refused with.
#include "cli_run.hpp"
#include "data/origination.hpp"
#include "data/pruning_options.hpp"
#include "engine/backend.hpp"
#include "engine/species_pruning.hpp"
#include "recon/sampling_run.hpp"
#include "reference_model.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>

using namespace gpurec;
using namespace gpurec::test;

namespace {

std::shared_ptr<Dataset> datasetOf(const std::string& species, const std::vector<std::string>& geneTrees,
                                   bool prune, TransferConstraint constraint = TransferConstraint::Parents) {
    auto data = std::make_shared<Dataset>();
    data->species = SpeciesTree::fromNewick(parseNewick(species, "species").front());
    data->transferConstraint = constraint;
    data->pruneSpeciesTree = prune;
    for (std::size_t i = 0; i < geneTrees.size(); ++i)
        data->families.push_back(makeFamily(data->species, "family" + std::to_string(i + 1),
                                            parseNewick(geneTrees[i], "genes"), GeneTreeRooting::Unrooted));
    return data;
}

// Specieswise θ with every D, L, T rate and origination weight drawn log-uniformly in [0.01, 0.5].
RateParameters randomRates(const Dataset& data, bool weights, unsigned seed) {
    RateParameters theta(RateMode::Specieswise, data.species.size(), static_cast<int>(data.families.size()),
                         Rates{});
    if (weights) theta.addOriginationPerNode(1.0);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> log2Rate(std::log2(0.01), std::log2(0.5));
    for (double& t : theta.theta())
        t = log2Rate(rng);
    return theta;
}

// θ of `to` whose every node reads the rates (and weight) of the node of `from` with the same name.
RateParameters ratesByName(const RateParameters& theta, const Dataset& from, const Dataset& to) {
    RateParameters out(RateMode::Specieswise, to.species.size(), static_cast<int>(to.families.size()),
                       Rates{});
    if (theta.optimizesOrigination()) out.addOriginationPerNode(1.0);
    for (int e = 0; e < to.species.size(); ++e) {
        const int f = from.species.find(to.species.name(e));
        for (int k = 0; k < 3; ++k)
            out.theta()[out.entry(0, e, k)] = theta.theta()[theta.entry(0, f, k)];
        if (theta.optimizesOrigination())
            out.theta()[out.originEntry(e)] = theta.theta()[theta.originEntry(f)];
    }
    return out;
}

const char* const kTiny = "((A,B)AB,(C,D)CD)R;";
const char* const kTinyFamily2 = "((A_1,A_2),(C_1,B_1));"; // samples/tiny's family2: D uncovered
const char* const kSix = "(((A,B)AB,(C,D)CD)ABCD,(E,F)EF)R;";
const char* const kSixFamily = "((A_1,(C_1,D_1)),((C_2,D_2),A_2));"; // A, C, D covered

} // namespace

class SpeciesPruning : public QObject {
    Q_OBJECT

  private slots:
    // Covered: A, C, D. CD is kept (both sides covered), AB collapses onto A, ABCD is kept and is
    // the pruned root (the covered LCA); EF, E, F, B and R are gone.
    void prunedTreeByHand() {
        auto data = datasetOf(kSix, {kSixFamily}, true);
        const SpeciesTree& sp = data->species;
        const SpeciesLayout full(*data);
        const SpeciesLayout s = prunedLayout(full, data->families[0]);
        QVERIFY(s.isPruned());
        QCOMPARE(s.size, 5);
        std::vector<std::string> names;
        for (int e = 0; e < s.size; ++e)
            names.push_back(sp.name(s.full(e)));
        QCOMPARE(names, (std::vector<std::string>{"A", "C", "D", "CD", "ABCD"}));
        QCOMPARE(s.left[4], 0); // ABCD → (A, CD)
        QCOMPARE(s.right[4], 3);
        QCOMPARE(s.left[3], 1); // CD → (C, D)
        QCOMPARE(s.right[3], 2);
        QCOMPARE(s.parent[0], 4);
        QCOMPARE(s.parent[4], -1);
        QCOMPARE(s.local(sp.find("AB")), -1);
        QCOMPARE(s.local(sp.find("CD")), 3);
        // PARENTS: every kept node but e and its pruned ancestors (N − depth).
        const std::vector<double> inv = {1.0 / 3, 1.0 / 2, 1.0 / 2, 1.0 / 3, 1.0 / 4};
        QCOMPARE(s.invRecipients, inv);
        // ROOT is the covered LCA in pruned mode.
        applyOrigination(*data, Origination::Root);
        QCOMPARE(sp.name(data->families[0].originSpecies), std::string("ABCD"));
        // A family covering every leaf keeps the full tree.
        auto all = datasetOf(kTiny, {"((A_1,B_1),(C_1,D_1));"}, true);
        QVERIFY(!prunedLayout(SpeciesLayout(*all), all->families[0]).isPruned());
        // Families with the same covered leaves share one layout.
        auto two = datasetOf(kTiny, {kTinyFamily2, "((A_1,C_1),B_1);", "((A_1,B_1),(C_1,D_1));"}, true);
        const FamilyLayouts layouts(*two);
        QCOMPARE(layouts.layouts.size(), std::size_t(2));
        QCOMPARE(layouts.of, (std::vector<int>{1, 1, 0}));
        QCOMPARE(layouts.families, (std::vector<int>{1, 2}));
    }

    // The pruned model is the model on the pruned tree: the same family given the explicitly pruned
    // tree as its species tree, each kept node with the rates (and origination weight) of its
    // full-tree namesake, has the same log-likelihood, and its gradient is the full tree's at the
    // kept nodes (0 at the collapsed ones).
    void matchesTheExplicitlyPrunedTree_data() {
        QTest::addColumn<QString>("full");
        QTest::addColumn<QString>("pruned");
        QTest::addColumn<QString>("genes");
        QTest::addColumn<QString>("origination");
        QTest::addColumn<bool>("alerax");
        QTest::addColumn<bool>("none");
        for (const char* o : {"UNIFORM", "ROOT", "LCA", "OPTIMIZE"})
            for (bool alerax : {false, true}) {
                const std::string tag = std::string(o) + (alerax ? "/alerax" : "/converged");
                QTest::newRow(("tiny/" + tag).c_str())
                    << kTiny << "((A,B)AB,C)R;" << kTinyFamily2 << o << alerax << false;
                QTest::newRow(("six/" + tag).c_str())
                    << kSix << "(A,(C,D)CD)ABCD;" << kSixFamily << o << alerax << false;
            }
        QTest::newRow("six/UNIFORM/NONE")
            << kSix << "(A,(C,D)CD)ABCD;" << kSixFamily << "UNIFORM" << false << true;
    }
    void matchesTheExplicitlyPrunedTree() {
        QFETCH(QString, full);
        QFETCH(QString, pruned);
        QFETCH(QString, genes);
        QFETCH(QString, origination);
        QFETCH(bool, alerax);
        QFETCH(bool, none);
        const TransferConstraint c = none ? TransferConstraint::None : TransferConstraint::Parents;
        auto a = datasetOf(full.toStdString(), {genes.toStdString()}, true, c);
        auto b = datasetOf(pruned.toStdString(), {genes.toStdString()}, false, c);
        applyOrigination(*a, parseOrigination(origination.toStdString()));
        applyOrigination(*b, parseOrigination(origination.toStdString()));
        const RateParameters ta = randomRates(*a, a->origination == Origination::Optimize, 7);
        const RateParameters tb = ratesByName(ta, *a, *b);
        SolverOptions options;
        options.schedule = alerax ? Schedule::AleRax : Schedule::Converged;
        const Evaluation ea = makeCpuBackend(a)->evaluate(ta, options, true);
        const Evaluation eb = makeCpuBackend(b)->evaluate(tb, options, true);
        QVERIFY2(relativeError(ea.logLikelihood[0], eb.logLikelihood[0]) < 1e-13,
                 qPrintable(QString("pruned %1, explicit %2")
                                .arg(ea.logLikelihood[0], 0, 'g', 17)
                                .arg(eb.logLikelihood[0], 0, 'g', 17)));
        QVERIFY(std::isfinite(ea.logLikelihood[0]) && ea.logLikelihood[0] < 0);
        const double scale = *std::max_element(eb.gradient.begin(), eb.gradient.end(),
                                               [](double x, double y) { return std::abs(x) < std::abs(y); });
        for (int e = 0; e < a->species.size(); ++e) {
            const int f = b->species.find(a->species.name(e));
            for (int k = 0; k < 3; ++k) {
                const double got = ea.gradient[ta.entry(0, e, k)];
                if (f < 0) {
                    QCOMPARE(got, 0.0); // a collapsed node's rates are not read
                    continue;
                }
                const double want = eb.gradient[tb.entry(0, f, k)];
                QVERIFY2(std::abs(got - want) <= 1e-9 * std::abs(scale),
                         qPrintable(QString("%1 type %2: %3 vs %4")
                                        .arg(a->species.name(e).c_str())
                                        .arg(k)
                                        .arg(got, 0, 'g', 15)
                                        .arg(want, 0, 'g', 15)));
            }
            if (ta.optimizesOrigination()) {
                const double got = ea.gradient[ta.originEntry(e)];
                QVERIFY(f >= 0 ? std::abs(got - eb.gradient[tb.originEntry(f)]) <= 1e-9 * std::abs(scale)
                               : got == 0.0);
            }
        }
    }

    // An independent check: the reference implementation's plain fixed-point iteration on the
    // explicitly pruned tree (global rates, UNIFORM origination: O = 1/N over the N kept nodes).
    void matchesTheReferenceModel() {
        const Rates r{0.17, 0.31, 0.23};
        for (const auto& [full, pruned, genes] : {std::tuple{kTiny, "((A,B)AB,C)R;", kTinyFamily2},
                                                  std::tuple{kSix, "(A,(C,D)CD)ABCD;", kSixFamily}}) {
            auto a = datasetOf(full, {genes}, true);
            auto b = datasetOf(pruned, {genes}, false);
            const RateParameters theta(RateMode::Global, a->species.size(), 1, r);
            const double ll = makeCpuBackend(a)->evaluate(theta, SolverOptions{}, false).logLikelihood[0];
            const double reference = referenceLogLikelihood(*b, b->families[0], r, EventModel{}, false);
            QVERIFY2(relativeError(ll, reference) < 1e-10, qPrintable(QString("%1: %2 vs reference %3")
                                                                          .arg(full)
                                                                          .arg(ll, 0, 'g', 17)
                                                                          .arg(reference, 0, 'g', 17)));
            // Not the unpruned model's number: pruning changes the likelihood.
            auto unpruned = datasetOf(full, {genes}, false);
            const double other =
                makeCpuBackend(unpruned)->evaluate(theta, SolverOptions{}, false).logLikelihood[0];
            QVERIFY(relativeError(ll, other) > 1e-6);
        }
    }

    // With every species covered the pruned tree is the full tree: the same numbers, bit for bit;
    // a family covering every species keeps them beside a pruned one.
    void everySpeciesCoveredIsBitIdentical() {
        const std::vector<std::string> genes = {"(B_1,(((A_1,D_1),C_1),A_2));", kTinyFamily2};
        for (bool weights : {false, true}) {
            auto on = datasetOf(kTiny, {genes[0]}, true);
            auto off = datasetOf(kTiny, {genes[0]}, false);
            for (auto* d : {on.get(), off.get()})
                applyOrigination(*d, weights ? Origination::Optimize : Origination::Uniform);
            const RateParameters theta = randomRates(*on, weights, 3);
            const Evaluation a = makeCpuBackend(on)->evaluate(theta, SolverOptions{}, true);
            const Evaluation b = makeCpuBackend(off)->evaluate(theta, SolverOptions{}, true);
            QCOMPARE(a.logLikelihood, b.logLikelihood);
            QCOMPARE(a.gradient, b.gradient);
            auto mixedOn = datasetOf(kTiny, genes, true);
            auto mixedOff = datasetOf(kTiny, genes, false);
            const RateParameters global(RateMode::Global, on->species.size(), 2, Rates{0.2, 0.1, 0.15});
            const Evaluation c = makeCpuBackend(mixedOn)->evaluate(global, SolverOptions{}, false);
            const Evaluation d = makeCpuBackend(mixedOff)->evaluate(global, SolverOptions{}, false);
            QCOMPARE(c.logLikelihood[0], d.logLikelihood[0]);
            QVERIFY(c.logLikelihood[1] != d.logLikelihood[1]);
        }
    }

    // Reconciliations are drawn on the pruned tree and name its nodes by their full-tree indices:
    // nothing happens at the collapsed CD or the uncovered D, a speciation at R sends its children to
    // AB and C, and the sampled likelihood is eval's.
    void samplesOnThePrunedTreeWithFullLabels() {
        auto data = datasetOf(kTiny, {kTinyFamily2}, true);
        const SpeciesTree& sp = data->species;
        const RateParameters theta(RateMode::Global, sp.size(), 1, Rates{0.2, 0.2, 0.2});
        SamplingSettings settings;
        settings.samples = 200;
        settings.seed = 11;
        std::vector<FamilySamples> got;
        sampleFamilies(
            *data, theta, {0}, settings, [&](FamilySamples&& s) { got.push_back(std::move(s)); },
            cpuTables(data, theta, settings));
        QCOMPARE(got.size(), std::size_t(1));
        const double ll = makeCpuBackend(data)->evaluate(theta, settings.solver, false).logLikelihood[0];
        QVERIFY(relativeError(got[0].logLikelihood, ll) < 1e-14);
        const std::set<std::string> kept = {"A", "B", "AB", "C", "R"};
        int speciationsAtRoot = 0, transfers = 0;
        for (const Reconciliation& r : got[0].reconciliations) {
            QVERIFY(kept.count(sp.name(r.originSpecies)) == 1);
            for (const ReconNode& n : r.nodes)
                for (std::size_t i = 0; i < n.events.size(); ++i) {
                    const ReconEvent& ev = n.events[i];
                    QVERIFY2(kept.count(sp.name(ev.species)) == 1, sp.name(ev.species).c_str());
                    if (ev.recipient >= 0) {
                        QVERIFY(kept.count(sp.name(ev.recipient)) == 1);
                        ++transfers;
                    }
                    if (ev.type == EventType::Leaf)
                        QCOMPARE(sp.name(ev.species), n.name.substr(0, 1)); // A_1 → A
                    if (ev.type == EventType::SpeciationLoss && sp.name(ev.species) == "R") {
                        const std::string next = sp.name(n.events[i + 1].species);
                        QVERIFY2(next == "C" || next == "AB", next.c_str());
                    }
                    if (ev.type == EventType::Speciation && sp.name(ev.species) == "R") {
                        ++speciationsAtRoot;
                        std::set<std::string> below;
                        for (int child : n.children)
                            below.insert(sp.name(r.nodes[child].events.front().species));
                        QVERIFY(below.count("C") == 1);
                    }
                }
        }
        QVERIFY(speciationsAtRoot > 0);
        QVERIFY(transfers > 0);
    }

    // gpurec eval, optimize and sample take the option: eval's likelihoods are the engine's on the
    // pruned trees (family2 of samples/tiny leaves D out; family1 covers every species, so its number
    // is the unpruned one), and sampled RecPhyloXML names the full tree's kept nodes only.
    void commandLine() {
        const std::string folder = temporaryFolder("pruning_cli");
        const QStringList input = {"-s",
                                   q(sourcePath("samples/tiny/species.nwk")),
                                   "-f",
                                   q(sourcePath("samples/tiny/families.txt")),
                                   "--min-covered-species",
                                   "1"};
        auto run = [&](const QString& command, const std::string& out, const QStringList& more) {
            CliRun r =
                runGpurec(QStringList{command} + input + QStringList{"-p", q(folder + "/" + out)} + more);
            if (r.exitCode != 0) qWarning("%s", qPrintable(r.err));
            return r.exitCode == 0 ? readJson(folder + "/" + out + "/result.json") : nlohmann::json();
        };
        const nlohmann::json pruned = run("eval", "eval", {"--prune-species-tree"});
        const nlohmann::json full = run("eval", "full", {});
        QVERIFY(!pruned.is_null() && !full.is_null());
        InputPaths paths;
        paths.speciesTree = sourcePath("samples/tiny/species.nwk");
        paths.familiesFile = sourcePath("samples/tiny/families.txt");
        LoadOptions options;
        options.minCoveredSpecies = 1;
        options.pruneSpeciesTree = true;
        const auto data = loadInput(paths, TransferConstraint::Parents, options).dataset;
        const RateParameters theta(RateMode::Global, data->species.size(), 2, Rates{});
        const Evaluation e = makeCpuBackend(data)->evaluate(theta, SolverOptions{}, false);
        auto ll = [](const nlohmann::json& j, int f) {
            return j.at("families").at(f).at("ll_nats").get<double>();
        };
        QVERIFY(relativeError(ll(pruned, 1), e.logLikelihood[1]) < 1e-12);
        QCOMPARE(ll(pruned, 0), ll(full, 0));
        QVERIFY(relativeError(ll(pruned, 1), ll(full, 1)) > 1e-6);
        const nlohmann::json optimized = run("optimize", "optimize", {"--prune-species-tree"});
        QVERIFY(!optimized.is_null());
        QVERIFY(optimized.at("total").at("ll_nats").get<double>() >
                pruned.at("total").at("ll_nats").get<double>());
        const nlohmann::json sampled = run("sample", "sample", {"--prune-species-tree", "--samples", "20"});
        QVERIFY(!sampled.is_null());
        std::string xml;
        for (int i = 0; i < 20; ++i)
            xml +=
                fileText(folder + "/sample/reconciliations/all/family2_sample_" + std::to_string(i) + ".xml");
        QVERIFY2(xml.find("speciesLocation=\"R\"") != std::string::npos, xml.substr(0, 2000).c_str());
        // CD only as the loss of an SL at R that continues in AB (the full tree's other side, where
        // AleRax names the pruned sibling C: docs/alerax.md).
        auto count = [&](const std::string& what) {
            int n = 0;
            for (std::size_t at = xml.find(what); at != std::string::npos; at = xml.find(what, at + 1))
                ++n;
            return n;
        };
        QCOMPARE(count("speciesLocation=\"CD\""), count("<loss speciesLocation=\"CD\""));
        QVERIFY(xml.find("speciesLocation=\"D\"") == std::string::npos);
        // Not with the search (yet), and never with missing fractions.
        CliRun search = runGpurec(QStringList{"search"} + input +
                                  QStringList{"--prune-species-tree", "-p", q(folder + "/search")});
        QCOMPARE(search.exitCode, 2);
        QCOMPARE(search.err, "gpurec: error: --prune-species-tree is not supported by gpurec search yet\n");
        QVERIFY(!std::filesystem::exists(folder + "/search/result.json"));
    }

    // AleRax refuses missing fractions with pruning, with this message; gpurec's pruning is not yet
    // combined with highways or RELDATED.
    void refusals() {
        auto refused = [](auto&& call, const QString& message) {
            try {
                call();
            } catch (const std::invalid_argument& e) {
                QCOMPARE(QString(e.what()), message);
                return;
            }
            QFAIL("not refused");
        };
        refused([] { requirePrunable(true, true, false, TransferConstraint::Parents); },
                "--fraction-missing-file cannot be used with --prune-species-tree");
        requirePrunable(false, true, true, TransferConstraint::RelDated); // nothing without pruning
        refused([] { requirePrunable(true, false, false, TransferConstraint::RelDated); },
                "--prune-species-tree is not supported with --transfer-constraint RELDATED yet");
        auto data = datasetOf(kTiny, {kTinyFamily2}, true);
        data->highways = {{0, 2}};
        refused([&] { makeCpuBackend(data); },
                "--prune-species-tree is not supported with transfer highways (--highways-file, "
                "--pairwise-transfers, the highway search) yet");
        // The loader refuses the combination before reading anything.
        InputPaths paths;
        paths.speciesTree = sourcePath("samples/tiny/species.nwk");
        paths.familiesFile = sourcePath("samples/tiny/families.txt");
        paths.fractionMissingFile = "missing.txt";
        LoadOptions options;
        options.pruneSpeciesTree = true;
        refused([&] { loadInput(paths, TransferConstraint::Parents, options); },
                "--fraction-missing-file cannot be used with --prune-species-tree");
    }
};

QTEST_GUILESS_MAIN(SpeciesPruning)
#include "test_species_pruning.moc"
