// The analytic gradient of the total NLL (implicit differentiation, CPU backend) against finite
// differences of the converged NLL, in the three parameter modes, on shared and simulated
// families, with origination at one node, with fractions of genes missing, under
// --transfer-constraint RELDATED and with --prune-species-tree; the accuracy cost of the adjoint's knobs;
// warm starts.
//
// Finite differences: D(h) = (f(θ + h e_i) − f(θ − h e_i)) / 2h, Richardson-extrapolated to
// R_i = (4 D(h/2) − D(h)) / 3 (truncation error O(h^4)), h = 0.01 in log2-rate units.
// "Relative" error of component i: |g_i − R_i| / max(|g_i|, 1e-3 ‖g‖∞), so components far below
// the gradient's scale are judged against 1e-3 of it instead of their own (noise-level) size.
#include "data/origination.hpp"
#include "engine/backend.hpp"
#include "engine/backend_factory.hpp"
#include "engine/species_pruning.hpp"
#include "highways/pairwise_transfers.hpp"
#include "optim/parameter_classes.hpp"
#include "simulated_data.hpp"
#include "support.hpp"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <random>
#include <set>

using namespace gpurec;
using namespace gpurec::test;

namespace {

constexpr double kStep = 0.01;

std::shared_ptr<const Dataset> primatesSubset() {
    // Two of AleRax's primate families (1,001 MrBayes trees each), through a families file of our own.
    const std::string folder = temporaryFolder("primates_subset");
    std::string text = "[FAMILIES]\n";
    for (const char* f : {"family_14916", "family_12270"}) {
        const std::string dir = sharedData(std::string("primates/") + f);
        text += std::string("- ") + f + "\ngene_tree = " + dir + "/mrbayes.newick\nmapping = " + dir +
                "/mapping.link\n";
    }
    writeFile(folder + "/families.txt", text);
    InputPaths paths;
    paths.speciesTree = sharedData("primates/species.nwk");
    paths.familiesFile = folder + "/families.txt";
    return loadInput(paths, TransferConstraint::Parents, LoadOptions{}).dataset;
}

std::shared_ptr<const Dataset> dataset(const std::string& name) {
    if (name == "tiny") return loadShared("tiny", "species.nwk", 3).dataset;
    if (name == "test_trees_2") return loadShared("alerax/test_trees_2", "sp.nwk").dataset;
    if (name == "simulated_2") return loadShared("simulated_2", "species.nwk").dataset;
    if (name == "primates") return primatesSubset();
    if (name == "samples_tiny") { // family2 leaves D out: pruned beside the full-tree family1
        InputPaths paths;
        paths.speciesTree = sourcePath("samples/tiny/species.nwk");
        paths.familiesFile = sourcePath("samples/tiny/families.txt");
        LoadOptions options;
        options.minCoveredSpecies = 1;
        return loadInput(paths, TransferConstraint::Parents, options).dataset;
    }
    if (name == "primates_all") return loadShared("primates", "species.nwk").dataset; // 7 families kept
    // Our simulator: 8 species leaves, 5 families with duplications, transfers and losses.
    return simulatedDataset(
        simulatedSpeciesTree(8, 3), 5,
        [](int) {
            return Rates{0.2, 0.2, 0.15};
        },
        5);
}

// θ of `mode` (a rate mode, or "classes": AleRax's class file, giving the root's left subtree and
// one leaf their own parameters), with origination weights per node or class under --origination
// OPTIMIZE; every entry drawn log-uniformly in [1e-6, 1].
RateParameters randomTheta(const std::string& mode, const Dataset& data, unsigned seed) {
    const bool weights = data.origination == Origination::Optimize;
    const SpeciesTree& sp = data.species;
    RateParameters theta;
    if (mode == "classes") {
        const std::string path = temporaryFolder("classes") + "/classes.txt";
        writeFile(path, sp.name(sp.left(sp.root())) + (weights ? " DO\n" : " D\n") + sp.name(0) + " LT\n");
        theta = RateParameters(readParameterClasses(path, sp, RecModel::UndatedDTL, weights), sp.size(),
                               Rates{}, 1.0);
    } else {
        theta =
            RateParameters(parseRateMode(mode), sp.size(), static_cast<int>(data.families.size()), Rates{});
        if (weights) theta.addOriginationPerNode(1.0);
    }
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> log2Rate(std::log2(1e-6), 0.0);
    for (double& t : theta.theta())
        t = log2Rate(rng);
    return theta;
}

double maxAbs(const std::vector<double>& v) {
    double m = 0;
    for (double x : v)
        m = std::max(m, std::abs(x));
    return m;
}

// Components to difference: all of them when few, else the largest and a fixed random sample.
std::vector<int> componentsToCheck(const std::vector<double>& gradient, unsigned seed) {
    const int n = static_cast<int>(gradient.size());
    std::vector<int> all(n);
    for (int i = 0; i < n; ++i)
        all[i] = i;
    if (n <= 24) return all;
    std::mt19937_64 rng(seed);
    std::shuffle(all.begin(), all.end(), rng);
    all.resize(23);
    int largest =
        static_cast<int>(std::max_element(gradient.begin(), gradient.end(),
                                          [](double a, double b) { return std::abs(a) < std::abs(b); }) -
                         gradient.begin());
    if (std::find(all.begin(), all.end(), largest) == all.end()) all.push_back(largest);
    return all;
}

} // namespace

class Gradient : public QObject {
    Q_OBJECT

  private slots:
    void matchesFiniteDifferences_data() {
        QTest::addColumn<QString>("data");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<unsigned>("seed");
        QTest::addColumn<QString>("origination");
        unsigned seed = 1;
        for (const char* d : {"tiny", "test_trees_2", "simulated_2", "primates", "simulated"})
            for (const char* m : {"global", "specieswise", "genewise"})
                QTest::newRow((std::string(d) + "/" + m).c_str()) << d << m << seed++ << "UNIFORM";
        // One origination node per family: the root seed and the conditioning term move to it.
        for (const char* d : {"test_trees_2", "simulated"})
            for (const char* m : {"global", "specieswise", "genewise"})
                for (const char* o : {"ROOT", "LCA"})
                    QTest::newRow((std::string(d) + "/" + m + "/" + o).c_str()) << d << m << seed++ << o;
        // AleRax's class files, and origination weights fitted per node or per class (OPTIMIZE).
        for (const char* d : {"tiny", "simulated"}) {
            QTest::newRow((std::string(d) + "/classes").c_str()) << d << "classes" << seed++ << "UNIFORM";
            for (const char* m : {"global", "specieswise", "classes"})
                QTest::newRow((std::string(d) + "/" + m + "/OPTIMIZE").c_str())
                    << d << m << seed++ << "OPTIMIZE";
        }
        // Speciation gamma categories: the mean of three categories' likelihoods, the shape α fitted
        // with the rates (the mixture backend selectBackend builds).
        for (const char* d : {"tiny", "simulated"}) {
            for (const char* m : {"global", "specieswise"})
                QTest::newRow((std::string(d) + "/" + m + "/gamma").c_str()) << d << m << seed++ << "UNIFORM";
            QTest::newRow((std::string(d) + "/classes/OPTIMIZE/gamma").c_str())
                << d << "classes" << seed++ << "OPTIMIZE";
        }
        // Transfer highways: their own rates in each source's normalisation, one child clade sent to the
        // destination, their transfer-loss terms, and the E terms (with categories and weights too).
        for (const char* d : {"tiny", "simulated"}) {
            for (const char* m : {"global", "specieswise", "genewise"})
                QTest::newRow((std::string(d) + "/" + m + "/highways").c_str())
                    << d << m << seed++ << "UNIFORM";
            QTest::newRow((std::string(d) + "/classes/OPTIMIZE/highways gamma").c_str())
                << d << "classes" << seed++ << "OPTIMIZE";
        }
        // --pairwise-transfers: a rate per donor -> recipient pair (highways on every allowed pair) and
        // no uniform τ, whose entry then has no gradient.
        for (const char* d : {"tiny", "simulated"})
            for (const char* m : {"global", "specieswise", "genewise"})
                QTest::newRow((std::string(d) + "/" + m + "/pairwise").c_str())
                    << d << m << seed++ << "UNIFORM";
        QTest::newRow("test_trees_2/global/pairwise RELDATED") << "test_trees_2"
                                                               << "global" << seed++ << "UNIFORM";
        // A fraction of each leaf's genes missing: pS enters E at the leaves too.
        for (const char* d : {"tiny", "simulated"})
            for (const char* m : {"global", "specieswise", "genewise"})
                QTest::newRow((std::string(d) + "/" + m + "/fraction missing").c_str())
                    << d << m << seed++ << "UNIFORM";
        // --prune-species-tree: each family on its pruned tree, its E adjoint eliminated on it and its
        // gradient scattered to the full tree's rows; ROOT then is the covered LCA.
        for (const char* d : {"samples_tiny", "simulated"}) {
            for (const char* m : {"global", "specieswise", "genewise"})
                QTest::newRow((std::string(d) + "/" + m + "/pruned").c_str())
                    << d << m << seed++ << "UNIFORM";
            QTest::newRow((std::string(d) + "/specieswise/ROOT/pruned").c_str())
                << d << "specieswise" << seed++ << "ROOT";
            QTest::newRow((std::string(d) + "/classes/OPTIMIZE/pruned").c_str())
                << d << "classes" << seed++ << "OPTIMIZE";
            QTest::newRow((std::string(d) + "/specieswise/OPTIMIZE/gamma pruned").c_str())
                << d << "specieswise" << seed++ << "OPTIMIZE";
        }
        // RELDATED: the recipient averages' transposes by running sums over the rank order.
        for (const char* d : {"test_trees_2", "simulated"})
            for (const char* m : {"global", "specieswise", "genewise"})
                QTest::newRow((std::string(d) + "/" + m + "/RELDATED").c_str())
                    << d << m << seed++ << "UNIFORM";
    }
    void matchesFiniteDifferences() {
        QFETCH(QString, data);
        QFETCH(QString, mode);
        QFETCH(unsigned, seed);
        QFETCH(QString, origination);
        auto copy = std::make_shared<Dataset>(*dataset(data.toStdString()));
        copy->pruneSpeciesTree = QString(QTest::currentDataTag()).endsWith("pruned");
        if (copy->pruneSpeciesTree) // some families are pruned (samples_tiny's family1 is not)
            QVERIFY(FamilyLayouts(*copy).layouts.size() > 1);
        applyOrigination(*copy, parseOrigination(origination.toStdString()));
        if (QString(QTest::currentDataTag()).endsWith("fraction missing")) {
            copy->fractionMissing.assign(copy->species.size(), 0.0);
            for (int e = 0, leaf = 0; e < copy->species.size(); ++e)
                if (copy->species.isLeaf(e)) copy->fractionMissing[e] = 0.15 * (1 + leaf++ % 5);
        }
        if (QString(QTest::currentDataTag()).contains("gamma")) copy->speciationCategories = 3;
        if (QString(QTest::currentDataTag()).contains("highways"))
            copy->highways = someHighways(copy->species);
        if (QString(QTest::currentDataTag()).endsWith("RELDATED"))
            copy->transferConstraint = TransferConstraint::RelDated;
        if (QString(QTest::currentDataTag()).contains("pairwise")) {
            copy->events.pairwiseTransfers = true;
            copy->highways = everyTransferPair(copy->species, copy->transferConstraint);
        }
        std::shared_ptr<const Dataset> set = copy;
        QVERIFY(!set->families.empty());
        RateParameters theta = randomTheta(mode.toStdString(), *set, seed);
        if (!set->highways.empty()) {
            theta.addHighways(static_cast<int>(set->highways.size()), 0.05);
            std::mt19937_64 rng(seed);
            std::uniform_real_distribution<double> log2Rate(std::log2(0.01), std::log2(0.5));
            for (std::size_t h = 0; h < set->highways.size(); ++h)
                theta.theta()[theta.highwayEntry(static_cast<int>(h))] = log2Rate(rng);
        }
        if (set->speciationCategories > 1) theta.addSpeciationShape(0.7);
        auto backend = selectBackend("cpu", set, {}).backend;
        const SolverOptions options;
        const Evaluation at = backend->evaluate(theta, options, true);
        QCOMPARE(at.gradient.size(), theta.theta().size());
        QCOMPARE(at.stats.bicgstabBreakdowns, 0L);
        const double scale = maxAbs(at.gradient);
        QVERIFY(scale > 0);
        if (set->events.pairwiseTransfers)
            for (int e = 0; e < set->species.size(); ++e) // τ is not in the model
                QCOMPARE(at.gradient[theta.entry(0, e, 2)], 0.0);
        auto nll = [&](int i, double delta) {
            RateParameters moved = theta;
            moved.theta()[i] += delta;
            return backend->evaluate(moved, options, false).totalNllBits;
        };
        double worst = 0;
        for (int i : componentsToCheck(at.gradient, seed)) {
            const double wide = (nll(i, kStep) - nll(i, -kStep)) / (2 * kStep);
            const double narrow = (nll(i, kStep / 2) - nll(i, -kStep / 2)) / kStep;
            const double richardson = (4 * narrow - wide) / 3;
            const double error =
                std::abs(at.gradient[i] - richardson) / std::max(std::abs(at.gradient[i]), 1e-3 * scale);
            worst = std::max(worst, error);
            QVERIFY2(error < 1e-6,
                     qPrintable(QString("component %1: analytic %2, finite differences %3 (relative %4)")
                                    .arg(i)
                                    .arg(at.gradient[i], 0, 'g', 12)
                                    .arg(richardson, 0, 'g', 12)
                                    .arg(error, 0, 'g', 3)));
        }
        if (theta.optimizesOrigination()) { // O_e = o_e / Σ o: scaling every weight changes nothing
            std::set<int> entries;
            double sum = 0;
            for (int e = 0; e < set->species.size(); ++e)
                if (entries.insert(theta.originEntry(e)).second) sum += at.gradient[theta.originEntry(e)];
            QVERIFY2(std::abs(sum) < 1e-10 * scale,
                     qPrintable(QString("weights' gradients sum to %1").arg(sum)));
        }
        qInfo("%s %s: %zu parameters, worst relative error %.2e", qPrintable(data), qPrintable(mode),
              theta.theta().size(), worst);
    }

    // Documented in docs/validation.md: adjoint pruning at threshold t moves the gradient by at
    // most 100 t ‖g‖∞ (t <= 1e-6).
    void adjointPruningCost_data() {
        QTest::addColumn<QString>("data");
        QTest::addColumn<double>("threshold");
        QTest::newRow("primates/1e-12") << "primates_all" << 1e-12;
        QTest::newRow("primates/1e-8") << "primates_all" << 1e-8;
        QTest::newRow("simulated_2/1e-10") << "simulated_2" << 1e-10;
        QTest::newRow("simulated_2/1e-6") << "simulated_2" << 1e-6;
    }
    void adjointPruningCost() {
        QFETCH(QString, data);
        QFETCH(double, threshold);
        auto set = dataset(data.toStdString());
        RateParameters theta(RateMode::Global, set->species.size(), int(set->families.size()),
                             {0.1, 0.1, 0.1});
        auto backend = makeCpuBackend(set);
        SolverOptions options;
        const Evaluation exact = backend->evaluate(theta, options, true);
        options.use_adjoint_pruning = true;
        options.adjoint_pruning_threshold = threshold;
        const Evaluation pruned = backend->evaluate(theta, options, true);
        QCOMPARE(pruned.totalNllBits, exact.totalNllBits); // the forward pass is untouched
        QVERIFY(pruned.stats.prunedClades > 0);
        double moved = 0;
        for (std::size_t i = 0; i < exact.gradient.size(); ++i)
            moved = std::max(moved, std::abs(pruned.gradient[i] - exact.gradient[i]));
        QVERIFY2(
            moved <= 100 * threshold * maxAbs(exact.gradient),
            qPrintable(QString("gradient moved by %1 of its max norm").arg(moved / maxAbs(exact.gradient))));
    }

    // Documented in docs/validation.md: pibar_side_threshold up to 1e-4 leaves NLL and gradient
    // within 1e-12 relative on the primates; 1e-3 (the largest allowed) changes the NLL by ~1e-5.
    void pibarSideThresholdCost() {
        auto set = dataset("primates_all");
        RateParameters theta(RateMode::Global, set->species.size(), int(set->families.size()),
                             {0.1, 0.1, 0.1});
        auto backend = makeCpuBackend(set);
        SolverOptions options;
        const Evaluation exact = backend->evaluate(theta, options, true);
        options.pibar_side_threshold = 1e-4;
        const Evaluation skipped = backend->evaluate(theta, options, true);
        QVERIFY(relativeError(skipped.totalNllBits, exact.totalNllBits) < 1e-12);
        for (std::size_t i = 0; i < exact.gradient.size(); ++i)
            QVERIFY(std::abs(skipped.gradient[i] - exact.gradient[i]) <= 1e-12 * maxAbs(exact.gradient));
        options.pibar_side_threshold = 1e-3;
        const Evaluation coarse = backend->evaluate(theta, options, true);
        QVERIFY(relativeError(coarse.totalNllBits, exact.totalNllBits) > 1e-7);
        QVERIFY(relativeError(coarse.totalNllBits, exact.totalNllBits) < 1e-4);
    }

    // Warm starts (E and Π̄ of the previous evaluation) change neither the values nor the gradient
    // beyond the solver tolerance, and save self-loop iterations.
    void warmStartsKeepResults() {
        auto set = dataset("simulated_2");
        const int S = set->species.size(), F = int(set->families.size());
        RateParameters first(RateMode::Global, S, F, {0.1, 0.1, 0.1});
        RateParameters second(RateMode::Global, S, F, {0.11, 0.09, 0.105});
        const SolverOptions options;
        auto warm = makeCpuBackend(set);
        warm->evaluate(first, options, true);
        const Evaluation warmed = warm->evaluate(second, options, true);
        const Evaluation cold = makeCpuBackend(set)->evaluate(second, options, true);
        for (int f = 0; f < F; ++f)
            QVERIFY(relativeError(warmed.logLikelihood[f], cold.logLikelihood[f]) < 1e-13);
        for (std::size_t i = 0; i < cold.gradient.size(); ++i)
            QVERIFY(std::abs(warmed.gradient[i] - cold.gradient[i]) <= 1e-10 * maxAbs(cold.gradient));
        QVERIFY2(warmed.stats.piIterations < cold.stats.piIterations,
                 qPrintable(QString("warm %1 vs cold %2 self-loop iterations")
                                .arg(warmed.stats.piIterations)
                                .arg(cold.stats.piIterations)));
        warm->clearWarmStarts();
        const Evaluation cleared = warm->evaluate(second, options, true);
        QCOMPARE(cleared.stats.piIterations, cold.stats.piIterations);
        QCOMPARE(cleared.totalNllBits, cold.totalNllBits);
    }
};

QTEST_GUILESS_MAIN(Gradient)
#include "test_gradient.moc"
