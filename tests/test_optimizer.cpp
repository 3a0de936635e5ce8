// Rate optimisation: AleRax's optima reached, bounds, stopping rules and callbacks, rate files,
// parameter recovery on simulated families, and `gpurec optimize` end to end.
#include "engine/backend.hpp"
#include "engine/krylov.hpp"
#include "engine/solver_report.hpp"
#include "forwarding_backend.hpp"
#include "io/input_error.hpp"
#include "io/newick.hpp"
#include "optim/optimization_trace.hpp"
#include "optim/optimizer.hpp"
#include "optim/rate_files.hpp"
#include "simulated_data.hpp"
#include "support.hpp"

#include <QProcess>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numbers>

using namespace gpurec;
using namespace gpurec::test;

namespace {

ReconModel globalModel(std::shared_ptr<const Dataset> data, Rates start,
                       Schedule schedule = Schedule::Converged) {
    SolverOptions options;
    options.schedule = schedule;
    RateParameters theta(RateMode::Global, data->species.size(), int(data->families.size()), start);
    return ReconModel(data, makeCpuBackend(data), theta, options);
}

// A caterpillar species tree S1..Sn: under uniform origination its families are larger than on a
// balanced tree of the same size, so each family carries more information about the rates.
SpeciesTree ladderTree(int leaves) {
    std::string text = "S1";
    for (int i = 2; i <= leaves; ++i)
        text = "(" + text + ",S" + std::to_string(i) + ")";
    return SpeciesTree::fromNewick(parseNewick(text + ";", "ladder").front());
}

// samples/teaching: 30 families on 12 bacterial genera, rates varying between families.
std::shared_ptr<const Dataset> teachingDataset() {
    InputPaths paths;
    paths.speciesTree = sourcePath("samples/teaching/species.nwk");
    paths.familiesFile = sourcePath("samples/teaching/families.txt");
    return loadInput(paths, TransferConstraint::Parents, LoadOptions{}).dataset;
}

ReconModel genewiseModel(std::shared_ptr<const Dataset> data) {
    RateParameters theta(RateMode::Genewise, data->species.size(), int(data->families.size()),
                         {0.1, 0.1, 0.1});
    return ReconModel(data, makeCpuBackend(data), theta);
}

// The CPU backend, recording the families it is told are needed; `refuse`: it then solves every
// family, as a backend without the restriction does.
class NeededFamiliesRecorder final : public ForwardingBackend {
  public:
    NeededFamiliesRecorder(std::shared_ptr<const Dataset> data, bool refuse)
        : ForwardingBackend(makeCpuBackend(std::move(data))), refuse_(refuse) {}
    bool setNeededFamilies(const std::vector<char>& needed) override {
        calls.push_back(static_cast<int>(needed.empty() ? -1 : std::count(needed.begin(), needed.end(), 1)));
        return !refuse_ && ForwardingBackend::setNeededFamilies(needed);
    }
    std::vector<int> calls; // families needed in each call (−1: every family)

  private:
    bool refuse_;
};

double familyNllBits(const Evaluation& e, int family) {
    return -e.logLikelihood[family] / std::numbers::ln2;
}

// The optimum of one family fitted alone: global rates on a dataset holding only that family.
double singleFamilyOptimum(const Dataset& data, int family, const OptimizerSettings& settings) {
    auto single = std::make_shared<Dataset>(data);
    single->families = {data.families[family]};
    ReconModel model = globalModel(single, {0.1, 0.1, 0.1});
    return optimizeRates(model, settings).bestNllBits;
}

// samples/tiny with both families (one covers only 3 species).
std::shared_ptr<const Dataset> tinyDataset() {
    InputPaths paths;
    paths.speciesTree = sourcePath("samples/tiny/species.nwk");
    paths.familiesFile = sourcePath("samples/tiny/families.txt");
    LoadOptions options;
    options.minCoveredSpecies = 1;
    return loadInput(paths, TransferConstraint::Parents, options).dataset;
}

} // namespace

class Optimizer : public QObject {
    Q_OBJECT

  private slots:
    // Global rates optimised under AleRax's 4-sweep schedule reach at least the log-likelihood of
    // the optimum AleRax found (the last point of reference.json) minus 1e-4 nats.
    void reachesAleRaxOptimum_data() {
        QTest::addColumn<QString>("dataset");
        for (const char* d : {"test_trees_1", "test_trees_2", "test_trees_3"})
            QTest::newRow(d) << d;
    }
    void reachesAleRaxOptimum() {
        QFETCH(QString, dataset);
        const std::string folder = "alerax/" + dataset.toStdString();
        nlohmann::json ref = readJson(sharedData(folder + "/reference.json"));
        const double aleraxOptimum =
            ref["points"].back()["loglik_nats"]["alerax_schedule_refimpl"]["my_family"];
        ReconModel model =
            globalModel(loadShared(folder, "sp.nwk").dataset, {0.1, 0.1, 0.1}, Schedule::AleRax);
        OptimizationResult result = optimizeRates(model, OptimizerSettings{});
        const double ll = model.lastEvaluation().totalLogLikelihood;
        QVERIFY2(ll >= aleraxOptimum - 1e-4, qPrintable(QString("optimised LL %1, AleRax's optimum %2")
                                                            .arg(ll, 0, 'g', 12)
                                                            .arg(aleraxOptimum, 0, 'g', 12)));
        QVERIFY(result.converged);
        QCOMPARE(result.bestNllBits, model.lastEvaluation().totalNllBits);
        QCOMPARE(model.parameters().theta(), result.best.theta());
        QVERIFY(result.bestNllBits < result.initialNllBits);
    }

    // The product brief's upper bound 1e-2: test_trees_2's transfer rate (0.0517 unbounded) stops
    // exactly on it, the two others on the lower bound, and the run converges there.
    void respectsBounds() {
        ReconModel model = globalModel(loadShared("alerax/test_trees_2", "sp.nwk").dataset, {0.1, 0.1, 0.1});
        OptimizerSettings settings;
        settings.max_rate = 1e-2;
        OptimizationResult result = optimizeRates(model, settings);
        QVERIFY(result.converged);
        const std::vector<double>& theta = result.best.theta();
        QCOMPARE(theta[2], std::log2(1e-2));
        QCOMPARE(theta[0], std::log2(1e-10));
        QCOMPARE(theta[1], std::log2(1e-10));
        // Starting outside the bounds is projected first.
        ReconModel outside =
            globalModel(loadShared("alerax/test_trees_2", "sp.nwk").dataset, {1.0, 1.0, 1.0});
        settings.max_iter = 0;
        OptimizationResult start = optimizeRates(outside, settings);
        for (double t : start.best.theta())
            QCOMPARE(t, std::log2(1e-2));
        QCOMPARE(start.stopReason, std::string("reached max_iter"));
    }

    // Adam (learning rate 0.1 in log2 units) ends near L-BFGS-B's optimum on an interior optimum.
    void adamApproachesLbfgsb() {
        auto data = simulatedDataset(
            ladderTree(10), 150,
            [](int) {
                return Rates{0.05, 0.05, 0.05};
            },
            21);
        ReconModel lbfgs = globalModel(data, {0.1, 0.1, 0.1});
        const double optimum = optimizeRates(lbfgs, OptimizerSettings{}).bestNllBits;
        ReconModel adam = globalModel(data, {0.1, 0.1, 0.1});
        OptimizerSettings settings;
        settings.kind = OptimizerKind::Adam;
        settings.max_iter = 150;
        OptimizationResult result = optimizeRates(adam, settings);
        QVERIFY2(result.bestNllBits - optimum < 1e-3, qPrintable(QString("Adam %1 vs L-BFGS-B %2 bits")
                                                                     .arg(result.bestNllBits, 0, 'g', 12)
                                                                     .arg(optimum, 0, 'g', 12)));
        for (int k = 0; k < 3; ++k)
            QVERIFY(std::abs(result.best.theta()[k] - lbfgs.parameters().theta()[k]) < 0.05);
    }

    // One report per iteration, numbered from 0 (the start); returning false stops the run after
    // that iteration and leaves the best θ (and its evaluation) in the model.
    void callbackReportsAndStops() {
        ReconModel model = globalModel(loadShared("alerax/test_trees_3", "sp.nwk").dataset, {0.1, 0.1, 0.1});
        std::vector<double> nll;
        int lastEvaluations = 0;
        OptimizationResult result = optimizeRates(model, OptimizerSettings{}, [&](const IterationReport& r) {
            if (r.iteration != static_cast<int>(nll.size())) return false;
            if (r.theta == nullptr || r.gradient == nullptr || r.gradient->size() != 3) return false;
            if (r.evaluations <= lastEvaluations) return false;
            lastEvaluations = r.evaluations;
            nll.push_back(r.nllBits);
            return r.iteration < 3;
        });
        QCOMPARE(nll.size(), std::size_t(4));
        QCOMPARE(result.iterations, 3);
        QCOMPARE(result.stopReason, std::string("stopped by the caller"));
        QVERIFY(!result.converged);
        QCOMPARE(result.initialNllBits, nll[0]);
        QCOMPARE(result.bestNllBits, *std::min_element(nll.begin(), nll.end()));
        QCOMPARE(model.lastEvaluation().totalNllBits, result.bestNllBits);
        QCOMPARE(model.evaluate(), result.bestNllBits);
    }

    // A start whose likelihood overflows (loss rate 1e21: every lineage dies) ends every optimiser
    // with an error naming the families and the rates, before any iteration; L-BFGS-B used to
    // restart from an empty best point and crash.
    void nonFiniteStartIsAnError_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("kind");
        QTest::addColumn<bool>("lockstep");
        QTest::addColumn<QString>("where");
        const QString shared = "family1 (inf); family2 (inf) at rates D = 0.1, L = 1e+21, T = 0.1";
        const QString perFamily =
            "family1 (inf) at D = 0.1, L = 1e+21, T = 0.1; family2 (inf) at D = 0.1, L = 1e+21, T = 0.1";
        const QString perSpecies = "family1 (inf); family2 (inf) at per-species rates D in [0.1, 0.1], L in "
                                   "[1e+21, 1e+22], T in [0.1, 0.1]";
        const int lbfgsb = int(OptimizerKind::Lbfgsb), adam = int(OptimizerKind::Adam);
        QTest::newRow("lbfgsb global") << int(RateMode::Global) << lbfgsb << true << shared;
        QTest::newRow("lbfgsb per-species") << int(RateMode::Specieswise) << lbfgsb << true << perSpecies;
        QTest::newRow("lbfgsb per-family lockstep") << int(RateMode::Genewise) << lbfgsb << true << perFamily;
        QTest::newRow("lbfgsb per-family joint") << int(RateMode::Genewise) << lbfgsb << false << perFamily;
        QTest::newRow("adam global") << int(RateMode::Global) << adam << true << shared;
        QTest::newRow("adam per-family") << int(RateMode::Genewise) << adam << true << perFamily;
    }
    void nonFiniteStartIsAnError() {
        QFETCH(int, mode);
        QFETCH(int, kind);
        QFETCH(bool, lockstep);
        QFETCH(QString, where);
        auto data = tinyDataset();
        RateParameters theta(RateMode(mode), data->species.size(), int(data->families.size()),
                             {0.1, 1e21, 0.1});
        if (theta.mode() == RateMode::Specieswise) theta.setRates(0, {0.1, 1e22, 0.1});
        ReconModel model(data, makeCpuBackend(data), theta);
        OptimizerSettings settings;
        settings.kind = OptimizerKind(kind);
        settings.lockstep_families = lockstep;
        settings.max_rate = 1e30;
        int reports = 0;
        QString message;
        try {
            optimizeRates(model, settings, [&](const IterationReport&) { return ++reports > 0; });
        } catch (const NonFiniteLikelihood& e) {
            message = e.what();
        }
        QCOMPARE(message, "the log-likelihood is not finite for 2 of 2 families: " + where +
                              " (rates outside the model's numerical range)");
        QCOMPARE(reports, 0);
        QCOMPARE(model.parameters().theta(), theta.theta()); // the model keeps its rates
    }

    // A converged-schedule solve that reaches its iteration cap short of its tolerance is counted,
    // with the residual it reached, and described in the text the CLI and the workbench show.
    void earlyStopsAreReported() {
        auto data = tinyDataset();
        SolverOptions options;
        options.e_max_iter = 1;
        ReconModel shared = globalModel(data, {0.1, 0.1, 0.1});
        shared.setSolverOptions(options);
        shared.evaluate();
        const SolverStats& s = shared.lastEvaluation().stats;
        QCOMPARE(s.eEarly.solves, 1L); // one E shared by both families
        QCOMPARE(s.eEarly.families, 2L);
        QCOMPARE(s.eEarly.residual, 1.0); // from E = 0, the first sweep changes E by 100 %
        QCOMPARE(s.eEarly.tolerance, options.e_tol);
        QCOMPARE(s.piEarly.solves, 0L);
        QVERIFY(s.stoppedEarly());
        QCOMPARE(earlyStopWarnings(s),
                 std::vector<std::string>{"E fixed point stopped early: 1 solve (2 families) at "
                                          "e_max_iter = 1, relative change 1 > e_tol = 1e-15"});

        ReconModel genewise = genewiseModel(data);
        genewise.setSolverOptions(options);
        std::vector<double> grad;
        genewise.evaluateWithGradient(grad);
        QCOMPARE(genewise.lastEvaluation().stats.eEarly.solves, 2L); // one E per family

        options = SolverOptions{};
        options.bicgstab_max_iter = 0; // the adjoint solves keep what the Neumann terms leave
        options.neumann_terms = 0;
        ReconModel adjoint = globalModel(data, {0.1, 0.1, 0.1});
        adjoint.setSolverOptions(options);
        adjoint.evaluateWithGradient(grad);
        const EarlyStops& b = adjoint.lastEvaluation().stats.bicgstabEarly;
        QVERIFY(b.solves > 0);
        QCOMPARE(b.families, 2L);
        QVERIFY(b.residual > 1e3 * b.tolerance);
        QCOMPARE(b.iterationCap, 0);

        ReconModel converged = globalModel(data, {0.1, 0.1, 0.1});
        converged.evaluateWithGradient(grad);
        QVERIFY(!converged.lastEvaluation().stats.stoppedEarly());
        QVERIFY(earlyStopWarnings(converged.lastEvaluation().stats).empty());
    }

    // BiCGSTAB cut at one iteration on a slowly contracting map: its fixed-point fallback cannot
    // finish either, and the solve is counted as unconverged with the residual reached.
    void unconvergedBicgstabIsCounted() {
        const double contraction[3] = {0.9999, 0.5, 0.1};
        const NeumannBicgstab::LinearMap loop = [&](const double* in, double* out) {
            for (int i = 0; i < 3; ++i)
                out[i] = contraction[i] * in[i];
        };
        SolverOptions options;
        options.bicgstab_max_iter = 1;
        NeumannBicgstab solver(3);
        const double b[3] = {1, 1, 1};
        double x[3] = {0, 0, 0};
        KrylovStats stats;
        solver.solve(loop, b, x, options, stats);
        QCOMPARE(stats.unconverged, 1L);
        QVERIFY(stats.worstResidual > options.bicgstab_tol);
        options.bicgstab_max_iter = 10; // enough for a 3-dimensional system
        KrylovStats enough;
        solver.solve(loop, b, x, options, enough);
        QCOMPARE(enough.unconverged, 0L);
        QVERIFY(std::abs(x[0] - 1e4) < 1e-6);
    }

    void maxIterAndSettingsErrors() {
        ReconModel model = globalModel(loadShared("alerax/test_trees_1", "sp.nwk").dataset, {0.1, 0.1, 0.1});
        OptimizerSettings settings;
        settings.max_iter = 2;
        OptimizationResult result = optimizeRates(model, settings);
        QCOMPARE(result.iterations, 2);
        QCOMPARE(result.stopReason, std::string("reached max_iter"));
        QVERIFY(!result.converged);

        auto message = [](OptimizerSettings s) -> std::string {
            try {
                s.validate();
            } catch (const std::invalid_argument& e) {
                return e.what();
            }
            return "";
        };
        OptimizerSettings bad;
        bad.max_rate = 1e-11;
        QCOMPARE(message(bad),
                 std::string("optimizer setting max_rate = 1e-11 is outside its range (min_rate, inf)"));
        bad = {};
        bad.beta1 = 1.0;
        QCOMPARE(message(bad), std::string("optimizer setting beta1 = 1 is outside its range [0, 1)"));
        bad = {};
        bad.max_iter = -1;
        QCOMPARE(message(bad), std::string("optimizer setting max_iter = -1 is outside its range >= 0"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, optimizeRates(model, bad));
        QVERIFY(parseOptimizerKind("adam") == OptimizerKind::Adam);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseOptimizerKind("bfgs"));
    }

    // Genewise rates: one bounded BFGS per family, evaluated in lockstep, reaches each family's own
    // optimum (that family fitted alone), within the bounds; with tight bounds rates end on both.
    void genewiseLockstepReachesFamilyOptima_data() {
        QTest::addColumn<double>("minRate");
        QTest::addColumn<double>("maxRate");
        QTest::newRow("default bounds") << 1e-10 << 2.0;
        QTest::newRow("tight bounds") << 1e-6 << 0.2;
    }
    void genewiseLockstepReachesFamilyOptima() {
        QFETCH(double, minRate);
        QFETCH(double, maxRate);
        auto data = teachingDataset();
        OptimizerSettings settings;
        settings.min_rate = minRate;
        settings.max_rate = maxRate;
        ReconModel model = genewiseModel(data);
        OptimizationResult result = optimizeRates(model, settings);
        QVERIFY2(result.converged, result.stopReason.c_str());
        QCOMPARE(model.parameters().theta(), result.best.theta());
        double worst = 0;
        for (int f = 0; f < int(data->families.size()); ++f) {
            const double alone = singleFamilyOptimum(*data, f, settings);
            worst = std::max(worst, relativeError(familyNllBits(model.lastEvaluation(), f), alone));
        }
        qInfo("%d iterations, %d evaluations; largest relative difference from the single-family optima %.2g",
              result.iterations, result.evaluations, worst);
        QVERIFY(worst < 1e-6);
        int onLower = 0, onUpper = 0;
        for (double t : result.best.theta()) {
            QVERIFY(t >= std::log2(minRate) && t <= std::log2(maxRate));
            onLower += t == std::log2(minRate);
            onUpper += t == std::log2(maxRate);
        }
        QVERIFY(onLower > 0);
        if (maxRate < 1) QVERIFY(onUpper > 0);
    }

    // The joint L-BFGS-B over all families' rates (the former genewise fit) mixes unrelated families'
    // curvature: on the same data the lockstep fit needs under half its evaluations and ends no worse.
    void genewiseLockstepNeedsFewerEvaluations() {
        auto data = teachingDataset();
        ReconModel lockstep = genewiseModel(data);
        OptimizationResult separate = optimizeRates(lockstep, OptimizerSettings{});
        ReconModel joint = genewiseModel(data);
        OptimizerSettings settings;
        settings.lockstep_families = false;
        OptimizationResult together = optimizeRates(joint, settings);
        qInfo("lockstep: %d evaluations, NLL %.10f bits; joint: %d evaluations, NLL %.10f bits (%s)",
              separate.evaluations, separate.bestNllBits, together.evaluations, together.bestNllBits,
              together.stopReason.c_str());
        QVERIFY(separate.converged);
        QVERIFY(2 * separate.evaluations < together.evaluations);
        QVERIFY(separate.bestNllBits <= together.bestNllBits + 1e-9 * together.bestNllBits);
    }

    // One evaluation per round; each report is the families' accepted point (its NLL is that of a
    // fresh evaluation there), never increasing; a callback returning false leaves the last accepted
    // point and its evaluation in the model.
    void genewiseLockstepReportsAcceptedPoints() {
        auto data = teachingDataset();
        ReconModel model = genewiseModel(data);
        std::vector<RateParameters> points;
        std::vector<double> nll;
        bool oneEvaluationPerRound = true;
        OptimizationResult result = optimizeRates(model, OptimizerSettings{}, [&](const IterationReport& r) {
            oneEvaluationPerRound = oneEvaluationPerRound && r.evaluations == r.iteration + 1;
            points.push_back(*r.theta);
            nll.push_back(r.nllBits);
            return r.iteration < 5;
        });
        QVERIFY(oneEvaluationPerRound);
        QCOMPARE(result.iterations, 5);
        QCOMPARE(result.stopReason, std::string("stopped by the caller"));
        QVERIFY(!result.converged);
        QCOMPARE(model.parameters().theta(), points.back().theta());
        QCOMPARE(result.best.theta(), points.back().theta());
        QVERIFY(relativeError(model.lastEvaluation().totalNllBits, nll.back()) < 1e-12);
        QVERIFY(relativeError(result.bestNllBits, nll.back()) < 1e-12);
        ReconModel check = genewiseModel(data);
        for (std::size_t i = 0; i < points.size(); ++i) {
            if (i > 0) QVERIFY(nll[i] <= nll[i - 1]);
            check.setParameters(points[i]);
            QVERIFY(relativeError(check.evaluate(), nll[i]) < 1e-12);
        }
    }

    // Families no longer needed (setNeededFamilies) are not solved by a genewise evaluation: the
    // needed ones' values and gradient rows are those of a full evaluation bit for bit, the others
    // NaN and 0, the total theirs alone; global rates and an empty list solve every family.
    void neededFamiliesLeaveTheOthersOut() {
        auto data = teachingDataset();
        const int F = int(data->families.size());
        std::unique_ptr<LikelihoodBackend> backend = makeCpuBackend(data);
        RateParameters genewise(RateMode::Genewise, data->species.size(), F, {0.1, 0.1, 0.1});
        for (int f = 0; f < F; ++f)
            genewise.setRates(f, {0.05 + 0.01 * f, 0.1, 0.02 + 0.005 * f});
        const RateParameters global(RateMode::Global, data->species.size(), F, {0.1, 0.2, 0.05});
        const SolverOptions options;
        auto fresh = [&](const RateParameters& theta) {
            backend->clearWarmStarts();
            return backend->evaluate(theta, options, true);
        };
        const Evaluation all = fresh(genewise), allGlobal = fresh(global);
        const std::vector<int> needed = {1, 4, 5, 17, F - 1};
        std::vector<char> flags(F, 0);
        for (int f : needed)
            flags[f] = 1;
        QVERIFY(backend->setNeededFamilies(flags));
        const Evaluation some = fresh(genewise);
        double total = 0;
        for (int f = 0; f < F; ++f) {
            const bool kept = std::find(needed.begin(), needed.end(), f) != needed.end();
            if (kept) {
                QCOMPARE(some.logLikelihood[f], all.logLikelihood[f]);
                total += all.logLikelihood[f];
            } else {
                QVERIFY(std::isnan(some.logLikelihood[f]));
            }
            for (int i = 0; i < 3; ++i)
                QCOMPARE(some.gradient[3 * f + i], kept ? all.gradient[3 * f + i] : 0.0);
        }
        QVERIFY(relativeError(some.totalLogLikelihood, total) < 1e-14);
        const Evaluation shared = fresh(global);
        QCOMPARE(shared.logLikelihood, allGlobal.logLikelihood);
        QCOMPARE(shared.gradient, allGlobal.gradient);
        // None needed: nothing solved, a total of 0.
        QVERIFY(backend->setNeededFamilies(std::vector<char>(F, 0)));
        const Evaluation none = fresh(genewise);
        QCOMPARE(none.totalLogLikelihood, 0.0);
        QVERIFY(std::all_of(none.logLikelihood.begin(), none.logLikelihood.end(),
                            [](double ll) { return std::isnan(ll); }));
        QVERIFY(backend->setNeededFamilies({}));
        QCOMPARE(fresh(genewise).logLikelihood, all.logLikelihood);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 backend->setNeededFamilies(std::vector<char>(F + 1, 1)));
    }

    // The lockstep leaves the families whose search has ended out of its evaluations: it needs fewer
    // and fewer of them, ends on the same rates, bit for bit, and likelihoods as a backend that solves
    // every family each round, and gives the backend every family back for the final evaluation.
    void genewiseLockstepLeavesEndedFamiliesOut() {
        auto data = teachingDataset();
        const int F = int(data->families.size());
        RateParameters theta(RateMode::Genewise, data->species.size(), F, {0.1, 0.1, 0.1});
        auto left = std::make_shared<NeededFamiliesRecorder>(data, false);
        auto every = std::make_shared<NeededFamiliesRecorder>(data, true);
        ReconModel leaving(data, left, theta), solvingAll(data, every, theta);
        const OptimizationResult a = optimizeRates(leaving, OptimizerSettings{});
        const OptimizationResult b = optimizeRates(solvingAll, OptimizerSettings{});
        QVERIFY(a.converged && b.converged);
        QCOMPARE(a.best.theta(), b.best.theta());
        QCOMPARE(a.evaluations, b.evaluations);
        QVERIFY(relativeError(a.bestNllBits, b.bestNllBits) < 1e-13);
        for (int f = 0; f < F; ++f)
            QVERIFY(relativeError(leaving.lastEvaluation().logLikelihood[f],
                                  solvingAll.lastEvaluation().logLikelihood[f]) < 1e-12);
        QVERIFY(left->calls.size() >= 3);
        QCOMPARE(left->calls.front(), F); // every family searches in the first round
        int fewest = F;
        for (std::size_t i = 0; i + 1 < left->calls.size(); ++i)
            fewest = std::min(fewest, left->calls[i]);
        qInfo("%d families, %zu restrictions, fewest needed in a round: %d", F, left->calls.size(), fewest);
        QVERIFY(fewest > 0 && fewest < F / 2);
        QCOMPARE(left->calls.back(), -1); // every family again for the final evaluation
    }

    void traceRowsAndSummaries() {
        RateParameters theta(RateMode::Specieswise, 3, 1, {0.1, 0.2, 0.4});
        theta.setRates(1, {0.4, 0.2, 0.1});
        RateSummary s = summarizeRates(theta);
        QVERIFY(relativeError(s.geometricMean.d, std::cbrt(0.1 * 0.4 * 0.1)) < 1e-14);
        QVERIFY(relativeError(s.smallest.t, 0.1) < 1e-14);
        QVERIFY(relativeError(s.largest.d, 0.4) < 1e-14);
        IterationReport r;
        r.iteration = 7;
        r.nllBits = 2.0;
        r.gradNorm = 0.5;
        r.theta = &theta;
        r.evaluations = 9;
        const std::string row = traceCsvRow(r);
        const std::string header = traceCsvHeader();
        QCOMPARE(std::count(row.begin(), row.end(), ','), std::count(header.begin(), header.end(), ','));
        QVERIFY(row.rfind("7,2,-1.3862943611198906,0.5,", 0) == 0);
        QVERIFY(progressLine(r).find("iter    7  NLL 2.0000000000 bits") == 0);
        QVERIFY(progressLine(r).find(" T 0.252 ") != std::string::npos);          // geometric mean
        QVERIFY(progressLine(r, {true, false}).find(" T ") == std::string::npos); // UndatedDL, pairwise
    }

    void familyRateFilesRoundTrip() {
        auto data = loadShared("simulated_2", "species.nwk").dataset;
        RateParameters theta(RateMode::Genewise, data->species.size(), 3, {0.1, 0.1, 0.1});
        theta.setRates(1, {0.012345678901234567, 2.0, 1e-10});
        theta.setRates(2, {0.3, 0.04, 0.5});
        const std::string folder = temporaryFolder("rates") + "/model_parameters";
        std::vector<std::string> files = writeRateFiles(folder, *data, theta);
        QCOMPARE(files.size(), std::size_t(3));
        QCOMPARE(files[1], folder + "/fam1_rates.txt");
        RateParameters back = readFamilyRateFiles(folder, *data);
        QVERIFY(back.mode() == RateMode::Genewise);
        for (std::size_t i = 0; i < theta.theta().size(); ++i)
            QVERIFY(std::abs(back.theta()[i] - theta.theta()[i]) < 1e-14);
        // Global and per-species θ go to model_parameters.txt.
        RateParameters global(RateMode::Global, data->species.size(), 3, {0.1, 0.2, 0.3});
        QVERIFY(writeRateFiles(folder, *data, global) ==
                std::vector<std::string>{folder + "/model_parameters.txt"});

        // AleRax's per-family layout: the parameter letters, then one row of rates.
        const Rates one = theta.rates(1);
        char row[100];
        std::snprintf(row, sizeof row, "D L T\n%.17g %.17g %.17g\n", one.d, one.l, one.t);
        QCOMPARE(fileText(files[1]), std::string(row));
        auto refused = [&](const std::string& text, const std::string& message) {
            writeFile(files[2], text);
            try {
                readFamilyRateFiles(folder, *data);
                QFAIL(("accepted: " + text).c_str());
            } catch (const InputError& e) {
                QCOMPARE(QString::fromStdString(e.what()), QString::fromStdString(files[2] + message));
            }
        };
        refused("D L T\n0.3 x 0.5\n", ":2:5: expected 'D L T', found 'x'");
        refused("D L T\n0.3 0.5\n", ":2:1: expected 'D L T' values, found 2 fields");
        refused("D L T\n0.3 0.2 0.5\n0.1 0.1 0.1\n", ":3:1: unexpected line after the rates");
        refused(
            "D L T O\n0.3 0.2 0.5 1\n",
            ":1:7: per-family rates have no origination weights (AleRax refuses OPTIMIZE with PER-FAMILY)");
        refused("D L T\n", ":1: no rates after the 'D L T' line");
        refused("\n", ": no rates (expected a 'D L T' line and a line of rates)");
        // gpurec's older layout (the family's rates on every species node) is still read...
        std::string older = "# node D L T\n";
        for (int e = 0; e < data->species.size(); ++e)
            older += quoteNewickLabel(data->species.name(e)) + " 0.3 0.04 0.5\n";
        writeFile(files[2], older);
        QCOMPARE(readFamilyRateFiles(folder, *data).rates(2).l, 0.04);
        // ... but its rows must agree.
        refused(older.substr(0, older.size() - 4) + "0.7\n",
                ": per-family rates must be the same on every species node");
    }

    // Parameter recovery on families simulated at known rates (ROOTED true gene trees). Small
    // version here; GPUREC_FULL_RECOVERY=1 runs the benchmark of docs/validation.md (1,000
    // families on 60 species leaves, rates within 10%).
    void recoversGlobalRates() {
        const bool full = std::getenv("GPUREC_FULL_RECOVERY") != nullptr;
        const int leaves = full ? 60 : 20, families = full ? 1000 : 500;
        const double tolerance = full ? 0.10 : 0.25; // ~3 standard errors of the small version
        const Rates truth{0.05, 0.05, 0.05};
        auto data = simulatedDataset(
            ladderTree(leaves), families, [&](int) { return truth; }, 1);
        ReconModel model = globalModel(data, {0.1, 0.1, 0.1});
        OptimizationResult result = optimizeRates(model, OptimizerSettings{});
        QVERIFY(result.converged);
        Rates found = result.best.rates(0);
        qInfo(
            "recovered D %.5f L %.5f T %.5f (truth 0.05 each) from %d families, %lld genes; %d iterations, "
            "%.1f s",
            found.d, found.l, found.t, families,
            [&] {
                long long genes = 0;
                for (const GeneFamily& f : data->families)
                    genes += f.clades.geneCount();
                return genes;
            }(),
            result.iterations, result.seconds);
        for (double r : {found.d, found.l, found.t})
            QVERIFY(std::abs(r / 0.05 - 1) < tolerance);
    }

    // Per-species rates: the branch simulated with a 5x duplication rate comes out highest. Small
    // version: 500 families on 4 species leaves; full (GPUREC_FULL_RECOVERY=1): 1,000 families on a
    // 30-leaf caterpillar, hot branch in its middle.
    void recoversDuplicationHotspot() {
        const bool full = std::getenv("GPUREC_FULL_RECOVERY") != nullptr;
        const SpeciesTree species =
            full ? ladderTree(30)
                 : SpeciesTree::fromNewick(parseNewick("((A,B)AB,(C,D)CD)R;", "test").front());
        const int hot = species.find(full ? "Node_S1_S21_0" : "AB");
        const int families = full ? 1000 : 500;
        auto data = simulatedDataset(
            species, families,
            [&](int e) {
                return Rates{e == hot ? 0.25 : 0.05, 0.05, 0.05};
            },
            1);
        ReconModel model(data, makeCpuBackend(data),
                         RateParameters(RateMode::Specieswise, species.size(), families, {0.1, 0.1, 0.1}));
        OptimizerSettings settings;
        settings.max_iter = 300;
        OptimizationResult result = optimizeRates(model, settings);
        QVERIFY(result.converged);
        int highest = 0;
        double next = 0;
        for (int e = 0; e < species.size(); ++e) {
            if (result.best.rates(e).d > result.best.rates(highest).d) highest = e;
            if (e != hot) next = std::max(next, result.best.rates(e).d);
        }
        QCOMPARE(species.name(highest), species.name(hot));
        qInfo("duplication rate of %s %.4f (truth 0.25), next highest %.4f; %d iterations, %.1f s",
              species.name(hot).c_str(), result.best.rates(hot).d, next, result.iterations, result.seconds);
    }

    void commandLine() {
        const std::string out = temporaryFolder("cli_optimize");
        const std::string ds = sharedData("alerax/test_trees_2");
        QProcess p;
        p.start(GPUREC_CLI_PATH, {"optimize", "-s", QString::fromStdString(ds + "/sp.nwk"), "-f",
                                  QString::fromStdString(ds + "/families.txt"), "--schedule", "alerax",
                                  "--max-iter", "50", "-p", QString::fromStdString(out)});
        QVERIFY(p.waitForFinished(120000));
        const QString stdoutText = QString::fromUtf8(p.readAllStandardOutput());
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(stdoutText.contains("iter    0  NLL 21.1060661401 bits"));
        nlohmann::json j = readJson(out + "/result.json");
        const int iterations = j["optimization"]["iterations"];
        QCOMPARE(stdoutText.count("\niter "), iterations + 1); // one progress line per iteration, 0 included
        QVERIFY(bool(j["optimization"]["converged"]));
        const double ll = j["total"]["ll_nats"];
        QVERIFY(ll >= -11.4329145368 - 1e-4);
        QVERIFY(relativeError(double(j["optimization"]["rates"]["T"]), 0.0517229) < 1e-3);
        std::ifstream trace(out + "/trace.csv");
        std::string line;
        int rows = 0;
        while (std::getline(trace, line))
            ++rows;
        QCOMPARE(rows, iterations + 2); // header, iteration 0 .. iterations
        std::ifstream per(out + "/per_fam_likelihoods.txt");
        std::string name;
        double perLl = 0;
        per >> name >> perLl;
        QCOMPARE(name, std::string("my_family"));
        QCOMPARE(perLl, ll);
        QVERIFY(fileText(out + "/model_parameters/model_parameters.txt").rfind("node D L T\n", 0) == 0);

        // PER-FAMILY writes one rate file per family; a bad bound is refused with its range.
        const std::string sim = sharedData("simulated_2");
        p.start(GPUREC_CLI_PATH,
                {"optimize", "-s", QString::fromStdString(sim + "/species.nwk"), "-f",
                 QString::fromStdString(sim + "/families.txt"), "--model-parametrization", "PER-FAMILY",
                 "--optimizer", "adam", "--max-iter", "2", "-p", QString::fromStdString(out + "/genewise")});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        for (const char* f : {"fam0", "fam1", "fam2"})
            QVERIFY(QFile::exists(
                QString::fromStdString(out + "/genewise/model_parameters/" + f + "_rates.txt")));
        // ... and a folder of them is a starting point: the next run starts where this one ended.
        p.start(GPUREC_CLI_PATH,
                {"optimize", "-s", QString::fromStdString(sim + "/species.nwk"), "-f",
                 QString::fromStdString(sim + "/families.txt"), "--model-parametrization", "PER-FAMILY",
                 "--rates-file", QString::fromStdString(out + "/genewise/model_parameters"), "--max-iter",
                 "0", "-p", QString::fromStdString(out + "/resumed")});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        const double ended = readJson(out + "/genewise/result.json")["optimization"]["best_nll_bits"];
        const double resumed = readJson(out + "/resumed/result.json")["optimization"]["initial_nll_bits"];
        QVERIFY2(relativeError(resumed, ended) < 1e-13,
                 qPrintable(QString("%1 vs %2").arg(resumed).arg(ended)));
        p.start(GPUREC_CLI_PATH, {"optimize", "-s", QString::fromStdString(ds + "/sp.nwk"), "-f",
                                  QString::fromStdString(ds + "/families.txt"), "--min-rate", "0.5",
                                  "--max-rate", "0.1", "-p", QString::fromStdString(out + "/bad")});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(QString::fromUtf8(p.readAllStandardError())
                    .contains("optimizer setting max_rate = 0.1 is outside its range (min_rate, inf)"));
    }
};

QTEST_GUILESS_MAIN(Optimizer)
#include "test_optimizer.moc"
