// What the workbench's convergence plots read from the core: per-clade statistics of one family
// (self-loop iterations, clade probabilities, posterior clade probabilities) and each family's own
// search in a genewise L-BFGS-B run.
#include "data/load.hpp"
#include "engine/backend.hpp"
#include "engine/clade_statistics.hpp"
#include "optim/optimizer.hpp"
#include "simulated_data.hpp"
#include "support.hpp"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <numeric>

using namespace gpurec;
using namespace gpurec::test;

namespace {
std::shared_ptr<const Dataset> teachingDataset() {
    InputPaths paths;
    paths.speciesTree = sourcePath("samples/teaching/species.nwk");
    paths.familiesFile = sourcePath("samples/teaching/families.txt");
    return loadInput(paths, TransferConstraint::Parents, LoadOptions{}).dataset;
}
} // namespace

class ConvergenceStatistics : public QObject {
    Q_OBJECT

  private slots:
    // One rooted gene tree per family: every clade is in the only gene tree, so its posterior is 1.
    void posteriorOfEveryCladeOfOneRootedTreeIsOne() {
        const SpeciesTree species = simulatedSpeciesTree(8, 11);
        auto data = simulatedDataset(
            species, 4,
            [](int) {
                return Rates{0.1, 0.15, 0.05};
            },
            5);
        RateParameters theta(RateMode::Global, data->species.size(), 4, Rates{0.2, 0.1, 0.08});
        for (int f = 0; f < 4; ++f) {
            const CladeStatistics s =
                computeCladeStatistics(tablesOf(*makeCpuBackend(data)), *data, theta, SolverOptions{}, f);
            const int clades = data->families[f].clades.cladeCount();
            QCOMPARE(static_cast<int>(s.posterior.size()), clades);
            for (int c = 0; c < clades; ++c)
                QVERIFY2(
                    std::abs(s.posterior[c] - 1.0) < 1e-9,
                    qPrintable(
                        QString("family %1 clade %2: %3").arg(f).arg(c).arg(s.posterior[c], 0, 'g', 17)));
        }
    }

    // All rootings of the teaching sample's trees: single genes and whole families are in every
    // reconciled tree (posterior 1), other clades in a share of them; the family's log-likelihood and
    // the self-loop iterations are those of the CPU backend's evaluation.
    void statisticsMatchTheCpuBackend() {
        auto data = teachingDataset();
        const int families = static_cast<int>(data->families.size());
        RateParameters theta(RateMode::Genewise, data->species.size(), families, Rates{0.1, 0.2, 0.1});
        for (int f = 0; f < families; ++f)
            theta.setRates(f, Rates{0.05 + 0.01 * f, 0.1, 0.02 + 0.005 * f});
        SolverOptions options;
        options.threads = 1;
        const Evaluation cold = makeCpuBackend(data)->evaluate(theta, options, false);
        long iterations = 0;
        int largest = 0;
        int partial = 0;
        for (int f = 0; f < families; ++f) {
            const CladeSet& cs = data->families[f].clades;
            const CladeStatistics s =
                computeCladeStatistics(tablesOf(*makeCpuBackend(data)), *data, theta, options, f);
            QVERIFY(relativeError(s.logLikelihood, cold.logLikelihood[f]) < 1e-13);
            iterations += std::accumulate(s.selfLoopIterations.begin(), s.selfLoopIterations.end(), 0L);
            largest = std::max(largest,
                               *std::max_element(s.selfLoopIterations.begin(), s.selfLoopIterations.end()));
            QCOMPARE(static_cast<int>(s.log10Probability.size()), cs.cladeCount());
            for (int c = 0; c < cs.cladeCount(); ++c) {
                const double p = s.posterior[c];
                if (cs.cladeSize[c] == 1 || c == cs.rootClade())
                    QVERIFY2(std::abs(p - 1.0) < 1e-9,
                             qPrintable(QString("family %1 clade %2: %3").arg(f).arg(c).arg(p)));
                QVERIFY2(p > -1e-12 && p < 1 + 1e-9,
                         qPrintable(QString("family %1 clade %2: %3").arg(f).arg(c).arg(p)));
                partial += p < 0.99;
                QVERIFY(std::isfinite(s.log10Probability[c]) && s.log10Probability[c] < 0);
            }
        }
        QVERIFY(partial > 0); // the rootings make some clades uncertain
        QCOMPARE(iterations, cold.stats.piIterations);
        QCOMPARE(largest, cold.stats.maxPiIterations);
        QVERIFY(largest > 1);
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, computeCladeStatistics(tablesOf(*makeCpuBackend(data)),
                                                                           *data, theta, options, families));
    }

    // Each report of a genewise L-BFGS-B run lists every family's own search; their NLLs sum to the
    // reported NLL and the largest of their gradient norms is the reported norm.
    void genewiseReportsEachFamilysSearch() {
        auto data = teachingDataset();
        const int families = static_cast<int>(data->families.size());
        RateParameters theta(RateMode::Genewise, data->species.size(), families, Rates{0.1, 0.1, 0.1});
        ReconModel model(data, makeCpuBackend(data), theta, SolverOptions{});
        OptimizerSettings settings;
        settings.max_iter = 200;
        std::vector<FamilyProgress> last;
        int reports = 0;
        OptimizationResult result = optimizeRates(model, settings, [&](const IterationReport& r) {
            if (!r.families) return false;
            ++reports;
            double total = 0, norm = 0;
            for (const FamilyProgress& p : *r.families) {
                total += p.nllBits;
                norm = std::max(norm, p.gradNorm);
                if (p.iterations > r.iteration) return false;
            }
            if (static_cast<int>(r.families->size()) != families || total != r.nllBits || norm != r.gradNorm)
                return false;
            last = *r.families;
            return true;
        });
        QVERIFY2(result.converged, result.stopReason.c_str());
        QCOMPARE(reports, result.iterations + 1);
        QCOMPARE(static_cast<int>(last.size()), families);
        int longest = 0;
        for (int f = 0; f < families; ++f) {
            QVERIFY(last[f].status != FamilyStatus::Searching);
            QVERIFY(last[f].gradNorm <= settings.grad_tol ||
                    last[f].status != FamilyStatus::GradientConverged);
            longest = std::max(longest, last[f].iterations);
            QVERIFY(relativeError(last[f].nllBits, -model.lastEvaluation().logLikelihood[f] / std::log(2.0)) <
                    1e-12);
        }
        QCOMPARE(longest, result.iterations); // the run ends when the last family does
        QCOMPARE(QString::fromStdString(toString(FamilyStatus::GradientConverged)),
                 QString("converged (gradient norm)"));
    }

    // Other optimisers and modes report no families.
    void globalRunsReportNoFamilies() {
        auto data = teachingDataset();
        RateParameters theta(RateMode::Global, data->species.size(), int(data->families.size()), Rates{});
        ReconModel model(data, makeCpuBackend(data), theta, SolverOptions{});
        OptimizerSettings settings;
        settings.max_iter = 2;
        bool any = false;
        optimizeRates(model, settings, [&](const IterationReport& r) {
            any = any || r.families != nullptr;
            return true;
        });
        QVERIFY(!any);
    }
};

QTEST_GUILESS_MAIN(ConvergenceStatistics)
#include "test_convergence_statistics.moc"
