// --pairwise-transfers (spec 3.3, the seed's pairwise mode): the pairs are R(e) for every donor under
// each constraint; with every pair at τ / |R(e)| the model is the uniform one at τ; with unequal rates
// the likelihood is that of the spec's equations with Σ_h P(e → h) x_h for p^T x̄ (an independent
// solver, tests/reference_model.hpp; the gradient against central differences is in test_gradient);
// loading, the options it cannot be combined with, and `gpurec optimize` writing every pair's rate.
#include "cli_run.hpp"
#include "data/load.hpp"
#include "engine/backend.hpp"
#include "engine/backend_factory.hpp"
#include "highways/highway_files.hpp"
#include "highways/pairwise_transfers.hpp"
#include "optim/parametrization.hpp"
#include "reference_model.hpp"
#include "simulated_data.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>
#include <random>

using namespace gpurec;
using namespace gpurec::test;

namespace {

// `data` under --pairwise-transfers: every allowed pair a highway, their rates from makeParameters.
std::shared_ptr<Dataset> pairwise(const Dataset& data) {
    auto out = std::make_shared<Dataset>(data);
    out->events.pairwiseTransfers = true;
    out->highways = everyTransferPair(out->species, out->transferConstraint);
    out->highwayRates.assign(out->highways.size(), 0.0);
    return out;
}

double totalLogLikelihood(std::shared_ptr<const Dataset> data, const RateParameters& theta) {
    return makeCpuBackend(std::move(data))->evaluate(theta, SolverOptions{}, false).totalLogLikelihood;
}

} // namespace

class PairwiseTransfers : public QObject {
    Q_OBJECT

  private slots:
    void pairsAreTheRecipientSets_data() {
        QTest::addColumn<int>("constraint");
        QTest::newRow("PARENTS") << int(TransferConstraint::Parents);
        QTest::newRow("NONE") << int(TransferConstraint::None);
        QTest::newRow("RELDATED") << int(TransferConstraint::RelDated);
    }
    void pairsAreTheRecipientSets() {
        QFETCH(int, constraint);
        const SpeciesTree tree = loadShared("alerax/test_trees_2", "sp.nwk").dataset->species;
        const auto c = static_cast<TransferConstraint>(constraint);
        const std::vector<std::vector<int>> R = referenceRecipients(tree, c);
        std::vector<Highway> expected;
        for (int e = 0; e < tree.size(); ++e)
            for (int h : R[e])
                expected.push_back({e, h});
        std::sort(expected.begin(), expected.end(), [](const Highway& a, const Highway& b) {
            return std::pair(a.source, a.destination) < std::pair(b.source, b.destination);
        });
        QVERIFY(expected.size() > static_cast<std::size_t>(tree.size()));
        QVERIFY(everyTransferPair(tree, c) == expected);
    }

    // The starting pairs (τ / |R(e)|) are the uniform model at τ, under every constraint and mode.
    void equalRatesAreTheUniformModel_data() {
        QTest::addColumn<int>("constraint");
        QTest::addColumn<QString>("mode");
        for (const auto& [name, c] :
             {std::pair{"PARENTS", TransferConstraint::Parents}, std::pair{"NONE", TransferConstraint::None},
              std::pair{"RELDATED", TransferConstraint::RelDated}})
            for (const char* mode : {"GLOBAL", "PER-SPECIES", "PER-FAMILY"})
                QTest::newRow((std::string(name) + " " + mode).c_str()) << int(c) << QString(mode);
    }
    void equalRatesAreTheUniformModel() {
        QFETCH(int, constraint);
        QFETCH(QString, mode);
        auto plain = std::make_shared<Dataset>(*loadShared("alerax/test_trees_2", "sp.nwk").dataset);
        plain->transferConstraint = static_cast<TransferConstraint>(constraint);
        const auto pairs = pairwise(*plain);
        const Parametrization p = parseParametrization(mode.toStdString(), Origination::Uniform);
        const Rates r{0.12, 0.2, 0.17};
        const RateParameters uniform = makeParameters(p, *plain, r), perPair = makeParameters(p, *pairs, r);
        QCOMPARE(perPair.highwayCount(), static_cast<int>(pairs->highways.size()));
        std::vector<int> recipients(plain->species.size(), 0);
        for (const Highway& h : pairs->highways)
            ++recipients[h.source];
        for (int h = 0; h < perPair.highwayCount(); ++h)
            QCOMPARE(std::exp2(perPair.theta()[perPair.highwayEntry(h)]),
                     r.t / recipients[pairs->highways[h].source]);
        const double a = totalLogLikelihood(plain, uniform), b = totalLogLikelihood(pairs, perPair);
        QVERIFY2(relativeError(b, a) < 1e-12,
                 qPrintable(QString("uniform %1, pairwise %2").arg(a, 0, 'g', 17).arg(b, 0, 'g', 17)));
    }

    // Unequal pair rates: the likelihood of the equations with Σ_h P(e → h) x_h, solved independently.
    void unequalRatesMatchTheEquations() {
        const SpeciesTree tree = SpeciesTree::readFile(sourcePath("samples/teaching/species.nwk"));
        const auto data = pairwise(*simulatedDataset(
            tree, 5,
            [](int) {
                return Rates{0.1, 0.15, 0.1};
            },
            3));
        const Rates r{0.1, 0.15, 0.1};
        RateParameters theta = makeParameters(Parametrization{}, *data, r);
        std::mt19937_64 rng(5);
        std::uniform_real_distribution<double> log2Rate(std::log2(1e-4), std::log2(0.3));
        std::vector<double> rates;
        for (int h = 0; h < theta.highwayCount(); ++h) {
            theta.theta()[theta.highwayEntry(h)] = log2Rate(rng);
            rates.push_back(std::exp2(theta.theta()[theta.highwayEntry(h)]));
        }
        const Evaluation ev = makeCpuBackend(data)->evaluate(theta, SolverOptions{}, false);
        const Evaluation uniform =
            makeCpuBackend(std::make_shared<Dataset>(*simulatedDataset(
                               tree, 5,
                               [](int) {
                                   return Rates{0.1, 0.15, 0.1};
                               },
                               3)))
                ->evaluate(RateParameters(RateMode::Global, tree.size(), 5, r), SolverOptions{}, false);
        QVERIFY(std::abs(ev.totalLogLikelihood - uniform.totalLogLikelihood) > 0.1); // the pairs matter
        for (std::size_t f = 0; f < data->families.size(); ++f) {
            const double ref =
                referenceLogLikelihood(*data, data->families[f], r, data->events, false, rates);
            QVERIFY2(relativeError(ev.logLikelihood[f], ref) < 1e-10,
                     qPrintable(QString("family %1: %2, equations %3")
                                    .arg(f)
                                    .arg(ev.logLikelihood[f], 0, 'g', 17)
                                    .arg(ref, 0, 'g', 17)));
        }
    }

    // Loading: every pair, a --highways-file's rates where it lists a pair, 0 (τ / |R(e)|) elsewhere;
    // what the option cannot be combined with is refused by name.
    void loading() {
        const std::string folder = temporaryFolder("pairwise_load");
        const std::string tree = sharedData("alerax/test_trees_2/sp.nwk");
        const SpeciesTree species = SpeciesTree::readFile(tree);
        const std::vector<Highway> pairs = everyTransferPair(species, TransferConstraint::Parents);
        writeHighways(folder + "/start.txt", species, {{pairs[3], 0.25, 0.0}, {pairs[7], 0.5, 0.0}}, false);
        InputPaths paths;
        paths.speciesTree = tree;
        paths.familiesFile = sharedData("alerax/test_trees_2/families.txt");
        paths.highwaysFile = folder + "/start.txt";
        LoadOptions options;
        options.events.pairwiseTransfers = true;
        const LoadedInput in = loadInput(paths, TransferConstraint::Parents, options);
        QVERIFY(in.dataset->highways == pairs);
        for (std::size_t h = 0; h < pairs.size(); ++h)
            QCOMPARE(in.dataset->highwayRates[h], h == 3 ? 0.25 : h == 7 ? 0.5 : 0.0);
        QVERIFY(!in.dataset->events.presentRates().transfer);

        const auto refused = [&](LoadOptions o, const std::string& message) {
            try {
                loadInput(paths, TransferConstraint::Parents, o);
                QFAIL("loaded");
            } catch (const std::invalid_argument& e) {
                QCOMPARE(std::string(e.what()), message);
            }
        };
        LoadOptions dl = options;
        dl.events.recModel = RecModel::UndatedDL;
        refused(dl, "--pairwise-transfers can only be used with --rec-model UndatedDTL");
        LoadOptions pruned = options;
        pruned.pruneSpeciesTree = true;
        refused(pruned, "--prune-species-tree is not supported with transfer highways (--highways-file, "
                        "--pairwise-transfers, the highway search) yet");
    }

    // `gpurec optimize --pairwise-transfers` fits every pair and writes their rates, which read back as
    // --highways-file give the fitted likelihood again; search refuses the option by name.
    void optimizeWritesEveryPair() {
        const std::string folder = temporaryFolder("pairwise_cli");
        const QStringList input = {"-s",
                                   q(sharedData("alerax/test_trees_2/sp.nwk")),
                                   "-f",
                                   q(sharedData("alerax/test_trees_2/families.txt")),
                                   "--min-covered-species",
                                   "0"};
        const CliRun uniform =
            runGpurec(QStringList{"optimize"} + input + QStringList{"-p", q(folder + "/uniform")});
        QVERIFY2(uniform.exitCode == 0, qPrintable(uniform.err));
        const CliRun fit = runGpurec(QStringList{"optimize"} + input +
                                     QStringList{"--pairwise-transfers", "-p", q(folder + "/pairwise")});
        QVERIFY2(fit.exitCode == 0, qPrintable(fit.err));
        const nlohmann::json a = readJson(folder + "/uniform/result.json"),
                             b = readJson(folder + "/pairwise/result.json");
        const double uniformLL = a.at("total").at("ll_nats").get<double>(),
                     pairwiseLL = b.at("total").at("ll_nats").get<double>();
        const nlohmann::json& fitted = b.at("optimization").at("rates");
        QVERIFY(!fitted.contains("T")); // no uniform τ in this model
        // The pairwise model holds the uniform one: its fit is at least as likely.
        QVERIFY2(pairwiseLL >= uniformLL - 1e-6,
                 qPrintable(QString("%1 < %2").arg(pairwiseLL).arg(uniformLL)));
        const SpeciesTree species = SpeciesTree::readFile(sharedData("alerax/test_trees_2/sp.nwk"));
        const std::string rates = folder + "/pairwise/model_parameters/highways.txt";
        const std::vector<HighwayRecord> written = readHighways(rates, species, TransferConstraint::Parents);
        QCOMPARE(written.size(), everyTransferPair(species, TransferConstraint::Parents).size());
        const CliRun again = runGpurec(
            QStringList{"eval"} + input +
            QStringList{"--pairwise-transfers", "--highways-file", q(rates), "--d",
                        QString::number(fitted.at("D").get<double>(), 'g', 17), "--l",
                        QString::number(fitted.at("L").get<double>(), 'g', 17), "-p", q(folder + "/again")});
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QVERIFY(relativeError(readJson(folder + "/again/result.json").at("total").at("ll_nats").get<double>(),
                              pairwiseLL) < 1e-12);
        const CliRun search = runGpurec(QStringList{"search"} + input +
                                        QStringList{"--pairwise-transfers", "-p", q(folder + "/search")});
        QCOMPARE(search.exitCode, 2);
        QVERIFY2(search.err.contains("--pairwise-transfers is not supported by gpurec search yet"),
                 qPrintable(search.err));
    }
};

QTEST_GUILESS_MAIN(PairwiseTransfers)
#include "test_pairwise_transfers.moc"
