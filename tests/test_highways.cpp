// Transfer highways (AleRax's --highways; spec 3.1, 4.2, 5.1): the likelihood against an independent
// solver of the equations with the highway terms (tests/reference_model.hpp; the gradient against
// central differences is in test_gradient), AleRax's highway files, the simulator and the sampler
// sending copies down a highway, and the highway search finding the highway the families were
// simulated with (and none where there is none).
#include "engine/backend.hpp"
#include "engine/backend_factory.hpp"
#include "highways/highway_files.hpp"
#include "highways/highway_search.hpp"
#include "io/input_error.hpp"
#include "optim/recon_model.hpp"
#include "recon/sampler.hpp"
#include "reference_model.hpp"
#include "simulated_data.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>
#include <filesystem>
#include <random>

using namespace gpurec;
using namespace gpurec::test;

namespace {

// The teaching sample's tree: 12 leaves, names to read the tests by.
SpeciesTree teachingTree() {
    return SpeciesTree::readFile(sourcePath("samples/teaching/species.nwk"));
}

Highway named(const SpeciesTree& tree, const std::string& from, const std::string& to) {
    return {tree.find(from), tree.find(to)};
}

// Global rates and the dataset's highways at `rates`.
RateParameters withHighways(const Dataset& data, Rates r, const std::vector<double>& rates) {
    RateParameters theta(RateMode::Global, data.species.size(), static_cast<int>(data.families.size()), r);
    theta.addHighways(static_cast<int>(rates.size()), 0.1);
    for (std::size_t h = 0; h < rates.size(); ++h)
        theta.theta()[theta.highwayEntry(static_cast<int>(h))] = std::log2(rates[h]);
    return theta;
}

std::string gainsFile(const std::string& folder, const SpeciesTree& tree, const Highway& h) {
    return folder + "/candidate_tests/transferll_" + tree.name(h.source) + "_to_" + tree.name(h.destination) +
           ".txt";
}

} // namespace

class Highways : public QObject {
    Q_OBJECT

  private slots:
    // The engine's fixed point is the equations' with the highway terms: the source's normaliser,
    // one child clade sent down the highway, both transfer-loss terms, and q E_e E_d in E.
    void likelihoodMatchesTheEquations_data() {
        QTest::addColumn<bool>("noTl");
        QTest::newRow("UndatedDTL") << false;
        QTest::newRow("--no-tl") << true;
    }
    void likelihoodMatchesTheEquations() {
        QFETCH(bool, noTl);
        const SpeciesTree tree = teachingTree();
        auto data = simulatedDataset(tree, 6,
                                     [](int) {
                                         return Rates{0.1, 0.15, 0.05};
                                     },
                                     21, {{named(tree, "Escherichia", "Bacillus"), 0.5}});
        data->events.noTl = noTl;
        data->highways = {named(tree, "Escherichia", "Bacillus"),
                          named(tree, "Enterobacterales", "Firmicutes"),
                          named(tree, "Escherichia", "Vibrio")};
        const std::vector<double> rates = {0.5, 0.2, 0.07};
        const Rates r{0.1, 0.15, 0.05};
        const Evaluation ev =
            makeCpuBackend(data)->evaluate(withHighways(*data, r, rates), SolverOptions{}, false);
        for (std::size_t f = 0; f < data->families.size(); ++f) {
            const double ref =
                referenceLogLikelihood(*data, data->families[f], r, data->events, false, rates);
            QVERIFY2(relativeError(ev.logLikelihood[f], ref) < 1e-10,
                     qPrintable(QString("family %1: %2, equations %3")
                                    .arg(f)
                                    .arg(ev.logLikelihood[f], 0, 'g', 17)
                                    .arg(ref, 0, 'g', 17)));
        }
        // The highways matter: without them the likelihoods differ.
        auto plain = std::make_shared<Dataset>(*data);
        plain->highways.clear();
        const Evaluation without = makeCpuBackend(plain)->evaluate(
            RateParameters(RateMode::Global, tree.size(), 0, r), SolverOptions{}, false);
        QVERIFY(std::abs(without.totalLogLikelihood - ev.totalLogLikelihood) > 0.01);
    }

    void pathLengths() {
        const SpeciesTree tree = teachingTree();
        QCOMPARE(pathLength(tree, tree.find("Escherichia"), tree.find("Salmonella")), 2);
        QCOMPARE(pathLength(tree, tree.find("Escherichia"), tree.find("Bacillus")), 9);
        QCOMPARE(pathLength(tree, tree.find("Escherichia"), tree.find("Enterobacteriaceae")), 1);
        QCOMPARE(pathLength(tree, tree.find("Escherichia"), tree.find("Escherichia")), 0);
    }

    // AleRax's layouts, read back, and located errors.
    void files() {
        const SpeciesTree tree = teachingTree();
        const std::string dir = temporaryFolder("highway_files");
        const std::vector<HighwayRecord> records = {{named(tree, "Escherichia", "Bacillus"), 0.375, 12.5},
                                                    {named(tree, "Vibrio", "Firmicutes"), 1e-3, 4.0}};
        writeHighways(dir + "/accepted_highways.txt", tree, records);
        QCOMPARE(fileText(dir + "/accepted_highways.txt"),
                 std::string("src, dest, proba, llDiff\nEscherichia, Bacillus, 0.375, 12.5\n"
                             "Vibrio, Firmicutes, 0.001, 4\n"));
        const std::vector<HighwayRecord> back =
            readHighways(dir + "/accepted_highways.txt", tree, TransferConstraint::Parents);
        QCOMPARE(back.size(), std::size_t(2));
        QVERIFY(back[1].highway == records[1].highway && back[1].rate == 1e-3 && back[1].llDiff == 4.0);
        auto error = [&](const std::string& text) -> std::string {
            writeFile(dir + "/bad.txt", text);
            try {
                readHighways(dir + "/bad.txt", tree, TransferConstraint::Parents);
            } catch (const InputError& e) {
                return std::to_string(e.line()) + ":" + std::to_string(e.column()) + ": " + e.problem();
            }
            return "accepted";
        };
        QCOMPARE(error("Escherichia, Nowhere, 0.1\n"),
                 std::string("1:14: species node 'Nowhere' is not in the species tree"));
        QCOMPARE(error("src, dest, proba\nEscherichia, Bacillus, x\n"),
                 std::string("2:24: expected a number for proba, found 'x'"));
        QCOMPARE(error("Escherichia, Bacillus, 0\n"),
                 std::string("1:24: a highway's proba must be positive, found '0'"));
        QCOMPARE(
            error("Escherichia, Enterobacteriaceae, 0.1\n"),
            std::string("1:14: a transfer from Escherichia cannot reach Enterobacteriaceae under PARENTS"));
        QCOMPARE(error("Escherichia, Bacillus, 0.1\nEscherichia, Bacillus, 0.2\n"),
                 std::string("2:1: highway Escherichia -> Bacillus given twice"));
        QCOMPARE(error("Escherichia\n"), std::string("1:1: expected 'src, dest, proba, llDiff'"));
        // Candidates: labels or *, blanks removed, pairs a transfer cannot take dropped, repeats once.
        writeFile(dir + "/candidates.txt",
                  "# candidates\n Escherichia , Bacillus\n\nEscherichia,Enterobacteriaceae\n"
                  "Escherichia,Bacillus\nBacillus,*\n");
        const std::vector<Highway> candidates =
            readHighwayCandidates(dir + "/candidates.txt", tree, TransferConstraint::Parents);
        QVERIFY(candidates.front() == named(tree, "Escherichia", "Bacillus"));
        QCOMPARE(static_cast<int>(candidates.size()),
                 1 + tree.recipientCount(tree.find("Bacillus"), TransferConstraint::Parents));
        writeFile(dir + "/candidates.txt", "Escherichia;Bacillus\n");
        QVERIFY_THROWS_EXCEPTION(
            InputError, readHighwayCandidates(dir + "/candidates.txt", tree, TransferConstraint::Parents));
        // Families taking each highway: decreasing mean, then name, up to the first zero.
        const std::map<std::pair<int, int>, double> a = {{{records[0].highway.source,
                                                           records[0].highway.destination},
                                                          0.5}},
                                                    b = {}, c = a;
        writeHighwayTransfers(dir + "/accepted_transfers", tree, {records[0].highway}, {"fa", "fb", "fc"},
                              {&a, &b, &c});
        QCOMPARE(fileText(dir + "/accepted_transfers/highway_Escherichia_to_Bacillus.txt"),
                 std::string("fam, transfers\nfc, 0.5\nfa, 0.5\n"));
    }

    // Families simulated with a strong highway send copies along it, and so do their sampled
    // reconciliations; every other transfer goes to an allowed recipient.
    void samplesTakeTheHighway() {
        const SpeciesTree tree = teachingTree();
        const Highway h = named(tree, "Escherichia", "Bacillus");
        auto data = simulatedDataset(tree, 12, [](int) { return Rates{0.05, 0.1, 0.01}; }, 4, {{h, 1.0}});
        data->highways = {h};
        const RateParameters theta = withHighways(*data, {0.05, 0.1, 0.01}, {1.0});
        std::vector<int> all(data->families.size());
        for (std::size_t f = 0; f < all.size(); ++f)
            all[f] = static_cast<int>(f);
        const std::vector<FamilyTables> tables =
            makeCpuBackend(data)->familyTables(theta, SolverOptions{}, all);
        const SpeciesLayout layout(*data);
        std::mt19937_64 rng(8);
        int along = 0, elsewhere = 0;
        for (std::size_t f = 0; f < all.size(); ++f) {
            const ReconciliationSampler sampler(layout, data->families[f], tables[f]);
            for (int k = 0; k < 20; ++k)
                for (const ReconNode& node : sampler.draw(rng).nodes)
                    for (const ReconEvent& e : node.events) {
                        if (e.type != EventType::Transfer && e.type != EventType::TransferLoss) continue;
                        if (e.species == h.source && e.recipient == h.destination)
                            ++along;
                        else
                            QVERIFY(tree.isRecipient(e.species, e.recipient, TransferConstraint::Parents));
                        ++elsewhere;
                    }
        }
        // One pair of the 22 × 21 a transfer could join takes a third of them.
        QVERIFY2(3 * along > elsewhere,
                 qPrintable(QString("%1 of %2 transfers along the highway").arg(along).arg(elsewhere)));
    }

    // The search: the highway the families were simulated with is the first candidate and is
    // accepted; its files are written in AleRax's layout; families without one get none.
    void searchFindsTheSimulatedHighway() {
        const SpeciesTree tree = teachingTree();
        const Highway h = named(tree, "Escherichia", "Bacillus");
        auto data = simulatedDataset(tree, 80, [](int) { return Rates{0.05, 0.1, 0.03}; }, 9, {{h, 0.4}});
        auto fitted = [&](const std::shared_ptr<const Dataset>& d) {
            ReconModel model(d, makeCpuBackend(d),
                             RateParameters(RateMode::Global, tree.size(), 0, {0.1, 0.1, 0.1}));
            return optimizeRates(model, OptimizerSettings{}).best;
        };
        const BackendFactory cpu = [](std::shared_ptr<const Dataset> d) {
            return makeCpuBackend(std::move(d));
        };
        const std::string folder = temporaryFolder("highway_search");
        const HighwaySearchResult r =
            searchHighways(data, fitted(data), cpu, HighwaySearchSettings{}, folder);
        QVERIFY(!r.candidates.empty());
        QVERIFY(r.candidates.front() == h);
        QVERIFY(!r.accepted.empty());
        QVERIFY(r.accepted.front().highway == h);
        QVERIFY(r.accepted.front().rate > 0.1 && r.accepted.front().rate < 2.0);
        QVERIFY(r.logLikelihood > r.startLogLikelihood + r.bicThreshold);
        QCOMPARE(r.tests.front().outcome, std::string("accepted"));
        QVERIFY(
            fileText(folder + "/candidate_highways.txt")
                .starts_with("src, dest, proba, llDiff\nEscherichia, Bacillus, 0.10000000000000001, 0\n"));
        QVERIFY(fileText(gainsFile(folder, tree, h)).starts_with("fam, llDiff\n"));
        const std::vector<HighwayRecord> written =
            readHighways(folder + "/accepted_highways.txt", tree, TransferConstraint::Parents);
        QCOMPARE(written.size(), r.accepted.size());
        QCOMPARE(written.front().rate, r.accepted.front().rate);
        for (const HighwayTest& t : r.tests) // every candidate passed the automatic rule
            QVERIFY(pathLength(tree, t.record.highway.source, t.record.highway.destination) >= 5);

        // Without a highway: nothing clears the BIC.
        auto none = simulatedDataset(
            tree, 80,
            [](int) {
                return Rates{0.05, 0.1, 0.03};
            },
            9);
        const HighwaySearchResult n =
            searchHighways(none, fitted(none), cpu, HighwaySearchSettings{}, temporaryFolder("highway_none"));
        QVERIFY2(n.accepted.empty(), qPrintable(QString("%1 accepted").arg(n.accepted.size())));

        // A candidates file: only its pairs are tested.
        writeFile(folder + "/candidates.txt", "Vibrio,Firmicutes\nEscherichia,Bacillus\n");
        HighwaySearchSettings fromFile;
        fromFile.candidatesFile = folder + "/candidates.txt";
        const HighwaySearchResult f =
            searchHighways(data, fitted(data), cpu, fromFile, temporaryFolder("highway_file"));
        QCOMPARE(f.candidates.size(), std::size_t(2));
        QVERIFY(f.candidates.front() == h); // the sampled transfers rank it first
        QVERIFY(!f.accepted.empty() && f.accepted.front().highway == h);
    }
};

QTEST_GUILESS_MAIN(Highways)
#include "test_highways.moc"
