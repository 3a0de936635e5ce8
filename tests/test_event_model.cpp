// The reconciliation model's variants (AleRax's --rec-model UndatedDL, --no-dup, --no-dl, --no-tl;
// spec 3.1, 5.1) on the CPU engine: log-likelihoods against an independent solver of the spec's
// equations (reference_model.hpp: plain fixed-point iteration of E and Π with the terms switched as
// the spec says, no postorder solves, no scaling), under both schedules, and under
// --transfer-constraint RELDATED (the reference's recipient sets by brute force from its own ranks);
// gradients against central differences, with the rates a model lacks frozen at gradient 0; the
// sampler and the cell decomposition without the events or terms a model leaves out; AleRax's
// refusals.
#include "engine/backend.hpp"
#include "engine/cell_decomposition.hpp"
#include "recon/sampler.hpp"
#include "reference_model.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>
#include <random>

using namespace gpurec;
using namespace gpurec::test;

namespace {

EventModel modelNamed(const QString& name) {
    EventModel m;
    for (const QString& part : name.split('+')) {
        if (part == "UndatedDL") m.recModel = RecModel::UndatedDL;
        if (part == "no-dup") m.noDup = true;
        if (part == "no-dl") m.noDl = true;
        if (part == "no-tl") m.noTl = true;
    }
    return m;
}

// A variant's transfer constraint: "RELDATED" among its parts, else PARENTS.
TransferConstraint constraintNamed(const QString& name) {
    return name.split('+').contains("RELDATED") ? TransferConstraint::RelDated : TransferConstraint::Parents;
}

std::shared_ptr<Dataset> withModel(const std::string& folder, const std::string& species, int minCovered,
                                   const EventModel& m,
                                   TransferConstraint constraint = TransferConstraint::Parents) {
    auto d = std::make_shared<Dataset>(*loadShared(folder, species, minCovered).dataset);
    d->events = m;
    d->transferConstraint = constraint;
    return d;
}

// Every family's log-likelihood in `ev` against the reference solver's, within `tolerance`
// (relative); a mismatch is reported with both numbers.
bool matchesReference(const Dataset& data, const Evaluation& ev, Rates rates, const EventModel& m,
                      bool aleraxExtinction, double tolerance) {
    for (std::size_t f = 0; f < data.families.size(); ++f) {
        const double ref = referenceLogLikelihood(data, data.families[f], rates, m, aleraxExtinction);
        if (relativeError(ev.logLikelihood[f], ref) < tolerance) continue;
        qWarning("family %zu: %.17g, reference %.17g", f, ev.logLikelihood[f], ref);
        return false;
    }
    return true;
}

// RELDATED: transfers by the ranks of the species tree's dating (tiny: equal dates, ordered by name).
const char* const kVariants[] = {"UndatedDTL", "UndatedDL",      "no-dup",          "no-dl",
                                 "no-tl",      "no-dl+no-tl",    "UndatedDL+no-dl", "no-dup+no-dl",
                                 "RELDATED",   "no-dup+RELDATED"};

// Central differences of the total NLL in one θ component (h in log2-rate units).
double centralDifference(LikelihoodBackend& backend, RateParameters theta, std::size_t i, double h,
                         const SolverOptions& options) {
    const double x = theta.theta()[i];
    theta.theta()[i] = x + h;
    const double up = backend.evaluate(theta, options, false).totalNllBits;
    theta.theta()[i] = x - h;
    const double down = backend.evaluate(theta, options, false).totalNllBits;
    return (up - down) / (2 * h);
}

} // namespace

class EventModels : public QObject {
    Q_OBJECT

  private slots:
    void likelihoodMatchesTheEquations_data() {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("species");
        QTest::addColumn<int>("minCovered");
        QTest::addColumn<QString>("variant");
        for (const char* v : kVariants) {
            QTest::newRow(qPrintable(QString("tiny ") + v)) << "tiny"
                                                            << "species.nwk" << 3 << v;
            QTest::newRow(qPrintable(QString("simulated_2 ") + v)) << "simulated_2"
                                                                   << "species.nwk" << 4 << v;
        }
    }
    // Converged schedule: the engine's fixed point is the equations' fixed point.
    void likelihoodMatchesTheEquations() {
        QFETCH(QString, folder);
        QFETCH(QString, species);
        QFETCH(int, minCovered);
        QFETCH(QString, variant);
        const EventModel m = modelNamed(variant);
        const TransferConstraint constraint = constraintNamed(variant);
        auto data = withModel(folder.toStdString(), species.toStdString(), minCovered, m, constraint);
        const Rates rates{0.25, 0.3, 0.2};
        RateParameters theta(RateMode::Global, data->species.size(), static_cast<int>(data->families.size()),
                             rates);
        const Evaluation ev = makeCpuBackend(data)->evaluate(theta, SolverOptions{}, false);
        QVERIFY(matchesReference(*data, ev, rates, m, false, 1e-11));
        // Each variant changes the likelihood: a switch the engine ignored would fail here. (On tiny's
        // three leaves RELDATED allows what PARENTS does.)
        const bool otherRecipients = referenceRecipients(data->species, constraint) !=
                                     referenceRecipients(data->species, TransferConstraint::Parents);
        if (m.recModel != RecModel::UndatedDTL || m.noDup || m.noDl || m.noTl || otherRecipients) {
            auto plain = withModel(folder.toStdString(), species.toStdString(), minCovered, EventModel{});
            const Evaluation base = makeCpuBackend(plain)->evaluate(theta, SolverOptions{}, false);
            QVERIFY(std::abs(base.totalLogLikelihood - ev.totalLogLikelihood) > 1e-6);
        }
    }

    // The alerax schedule: E by AleRax's 4 sweeps; a clade without TL terms solved exactly (AleRax's
    // closed form for UndatedDL and --no-tl), so the reference's converged Π at the 4-sweep E.
    void aleraxScheduleSolvesUncoupledCladesExactly_data() {
        QTest::addColumn<QString>("variant");
        for (const char* v : {"UndatedDL", "no-tl", "no-dl+no-tl", "UndatedDL+no-dl", "no-tl+RELDATED"})
            QTest::newRow(v) << v;
    }
    void aleraxScheduleSolvesUncoupledCladesExactly() {
        QFETCH(QString, variant);
        const EventModel m = modelNamed(variant);
        auto data = withModel("simulated_2", "species.nwk", 4, m, constraintNamed(variant));
        const Rates rates{0.25, 0.3, 0.2};
        RateParameters theta(RateMode::Global, data->species.size(), static_cast<int>(data->families.size()),
                             rates);
        SolverOptions alerax;
        alerax.schedule = Schedule::AleRax;
        const Evaluation ev = makeCpuBackend(data)->evaluate(theta, alerax, false);
        QVERIFY(matchesReference(*data, ev, rates, m, true, 1e-12));
    }

    // A rate the model lacks is 0 whatever θ holds: changing it changes nothing, bit for bit.
    void absentRatesAreIgnored() {
        for (const char* v : {"UndatedDL", "no-dup"}) {
            const EventModel m = modelNamed(v);
            auto data = withModel("simulated_2", "species.nwk", 4, m);
            RateParameters a(RateMode::Global, data->species.size(), 3, Rates{0.2, 0.1, 0.3});
            RateParameters b = a;
            b.theta()[m.noDup ? 0 : 2] += 3.0;
            auto backend = makeCpuBackend(data);
            QCOMPARE(backend->evaluate(a, SolverOptions{}, false).logLikelihood,
                     backend->evaluate(b, SolverOptions{}, false).logLikelihood);
        }
    }

    void gradientMatchesDifferences_data() {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<int>("mode");
        for (const char* v : kVariants)
            for (RateMode mode : {RateMode::Global, RateMode::Specieswise, RateMode::Genewise}) {
#ifdef GPUREC_TESTS_SANITIZED
                // Specieswise rows repeat the global ones' code paths row by row: under the
                // sanitizers two variants keep them (the release run has them all).
                if (mode == RateMode::Specieswise && QString(v) != "no-dl" && QString(v) != "UndatedDL")
                    continue;
#endif
                QTest::newRow(qPrintable(QString(v) + " " + QString::fromStdString(toString(mode))))
                    << v << int(mode);
            }
    }
    void gradientMatchesDifferences() {
        QFETCH(QString, variant);
        QFETCH(int, mode);
        const EventModel m = modelNamed(variant);
        auto data = withModel("simulated_2", "species.nwk", 4, m, constraintNamed(variant));
        RateParameters theta(static_cast<RateMode>(mode), data->species.size(),
                             static_cast<int>(data->families.size()), Rates{0.2, 0.25, 0.15});
        std::mt19937 rng(5);
        std::uniform_real_distribution<double> jitter(-1.0, 1.0);
        for (double& v : theta.theta())
            v += jitter(rng);
        auto backend = makeCpuBackend(data);
        const SolverOptions options;
        const Evaluation ev = backend->evaluate(theta, options, true);
        double scale = 0;
        for (double g : ev.gradient)
            scale = std::max(scale, std::abs(g));
        QVERIFY(scale > 0);
        const PresentRates present = m.presentRates();
        // Specieswise: every component of a few rows; the other modes: all of them.
        const std::size_t rows = static_cast<std::size_t>(theta.rowCount());
        for (std::size_t row = 0; row < rows; row += mode == int(RateMode::Specieswise) ? 7 : 1) {
            for (std::size_t k = 0; k < 3; ++k) {
                const std::size_t i = 3 * row + k;
                if ((k == 0 && !present.duplication) || (k == 2 && !present.transfer)) {
                    QCOMPARE(ev.gradient[i], 0.0); // frozen: an optimiser never moves it
                    continue;
                }
                const double fd = centralDifference(*backend, theta, i, 1e-4, options);
                QVERIFY2(std::abs(ev.gradient[i] - fd) < 1e-6 * std::max(std::abs(fd), 1e-2 * scale),
                         qPrintable(QString("θ[%1]: analytic %2, differences %3")
                                        .arg(i)
                                        .arg(ev.gradient[i], 0, 'g', 12)
                                        .arg(fd, 0, 'g', 12)));
            }
        }
    }

    // Reconciliations hold no event the model lacks; the default model samples every kind.
    void samplerDrawsOnlyTheModelsEvents() {
        for (const char* v : {"UndatedDTL", "UndatedDL", "no-dup", "no-tl"}) {
            const EventModel m = modelNamed(v);
            auto data = withModel("simulated_2", "species.nwk", 4, m);
            RateParameters theta(RateMode::Global, data->species.size(), 3, Rates{0.3, 0.3, 0.3});
            const SpeciesLayout layout(*data);
            auto backend = makeCpuBackend(data);
            std::map<EventType, int> counts;
            std::mt19937_64 rng(11);
            for (int f = 0; f < 3; ++f) {
                const FamilyTables tables = backend->familyTables(theta, SolverOptions{}, {f})[0];
                const ReconciliationSampler sampler(layout, data->families[f], tables, false);
                for (int k = 0; k < 200; ++k)
                    for (const ReconNode& node : sampler.draw(rng).nodes)
                        for (const ReconEvent& ev : node.events)
                            ++counts[ev.type];
            }
            const bool transfers = m.recModel == RecModel::UndatedDTL;
            QCOMPARE(counts[EventType::Transfer] > 0, transfers);
            QCOMPARE(counts[EventType::TransferLoss] > 0, transfers && !m.noTl);
            QCOMPARE(counts[EventType::Duplication] > 0, !m.noDup);
            QVERIFY(counts[EventType::SpeciationLoss] > 0);
        }
    }

    // The teaching view's terms of a cell are the model's terms, and still sum to the cell.
    void cellTermsFollowTheModel() {
        for (const char* v : {"no-dl", "no-tl", "UndatedDL"}) {
            const EventModel m = modelNamed(v);
            auto data = withModel("simulated_2", "species.nwk", 4, m);
            RateParameters theta(RateMode::Global, data->species.size(), 3, Rates{0.3, 0.3, 0.3});
            const SpeciesLayout layout(*data);
            const FamilyTables tables = makeCpuBackend(data)->familyTables(theta, SolverOptions{}, {0})[0];
            const GeneFamily& fam = data->families[0];
            for (int c = 0; c < fam.clades.cladeCount(); c += 5) {
                for (int e = 0; e < layout.size; ++e) {
                    const CladeCellDecomposition cell = decomposeCladeCell(layout, fam, tables, c, e);
                    for (const CellTerm& term : cell.terms) {
                        QVERIFY(!(m.noDl && term.kind == CellTermKind::DuplicationLoss));
                        QVERIFY(!((m.noTl || m.recModel == RecModel::UndatedDL) &&
                                  (term.kind == CellTermKind::TransferLossAway ||
                                   term.kind == CellTermKind::TransferLossHere)));
                    }
                    QVERIFY(std::abs(cell.sumScaled() - cell.storedScaled) <=
                            1e-12 * std::abs(cell.storedScaled));
                }
            }
        }
    }

    // AleRax's refusals, named by their options.
    void refusesWhatAleRaxRefuses() {
        auto refused = [](EventModel m, const char* words) {
            try {
                m.validate();
            } catch (const std::invalid_argument& e) {
                return std::string(e.what()).find(words) != std::string::npos;
            }
            return false;
        };
        QVERIFY(refused(modelNamed("no-dup+no-tl"), "--no-dup cannot be used with --no-tl"));
        QVERIFY(
            refused(modelNamed("UndatedDL+no-tl"), "--no-tl can only be used with --rec-model UndatedDTL"));
        QVERIFY(
            refused(modelNamed("UndatedDL+no-dup"), "--no-dup can only be used with --rec-model UndatedDTL"));
        modelNamed("no-dup+no-dl").validate();
        QVERIFY(parseRecModel("UndatedDL") == RecModel::UndatedDL);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseRecModel("UndatedDTLX"));
        InputPaths paths;
        paths.speciesTree = sharedData("simulated_2/species.nwk");
        paths.familiesFile = sharedData("simulated_2/families.txt");
        LoadOptions lo;
        lo.events = modelNamed("UndatedDL");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loadInput(paths, TransferConstraint::None, lo));
        try {
            loadInput(paths, TransferConstraint::RelDated, lo);
            QFAIL("UndatedDL with RELDATED was accepted");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(std::string(e.what()),
                     "--transfer-constraint can only be used with --rec-model UndatedDTL");
        }
        QVERIFY(loadInput(paths, TransferConstraint::Parents, lo).dataset->events.recModel ==
                RecModel::UndatedDL);
    }
};

QTEST_APPLESS_MAIN(EventModels)
#include "test_event_model.moc"
