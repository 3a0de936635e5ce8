// Results on the CPU are bit-identical for any number of threads (more threads than cores too):
// per-family log-likelihoods, totals, solver statistics and every gradient component from the
// backend in the three parameter modes, and the files written by `gpurec optimize` (each mode, both
// optimisers) and `gpurec sample --seed 7`, byte for byte once timings and thread counts are left out.
#include "cli_run.hpp"
#include "engine/backend.hpp"
#include "io/text_file.hpp"
#include "output_folders.hpp"
#include "recon/sampling_run.hpp"
#include "simulated_data.hpp"
#include "support.hpp"

#include <QtTest>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <thread>

using namespace gpurec;
using namespace gpurec::test;

namespace {

const int kThreadCounts[] = {1, 2, 3, 7};

std::string digits17(double x) {
    std::ostringstream s;
    s.precision(17);
    s << x;
    return s.str();
}

// Empty when `a` and `b` hold the same bits, else the first differing index and both values.
std::string bitDifference(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return "sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0)
            return "index " + std::to_string(i) + ": " + digits17(a[i]) + " vs " + digits17(b[i]);
    return "";
}

// Many small families (so that any per-thread grouping of their sums shows in the last bits).
std::shared_ptr<const Dataset> manyFamilies() {
    return simulatedDataset(
        simulatedSpeciesTree(24, 17), 300,
        [](int) {
            return Rates{0.15, 0.2, 0.12};
        },
        29);
}

// Rates drawn log-uniformly in [1e-4, 1] for every row, so that rows differ.
RateParameters randomTheta(RateMode mode, const Dataset& data, unsigned seed) {
    RateParameters theta(mode, data.species.size(), static_cast<int>(data.families.size()), Rates{});
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> log2Rate(std::log2(1e-4), 0.0);
    for (double& t : theta.theta())
        t = log2Rate(rng);
    return theta;
}

// Every double an evaluation reports, in a fixed order, and its iteration counts.
std::vector<double> reportedNumbers(const Evaluation& e) {
    std::vector<double> v = e.logLikelihood;
    v.push_back(e.totalLogLikelihood);
    v.push_back(e.totalNllBits);
    v.insert(v.end(), e.gradient.begin(), e.gradient.end());
    v.push_back(e.stats.eResidual);
    return v;
}

std::vector<long> reportedCounts(const Evaluation& e) {
    const SolverStats& s = e.stats;
    return {s.eIterations,        s.piIterations,       s.maxPiIterations,
            s.bicgstabIterations, s.bicgstabBreakdowns, s.prunedClades};
}

QStringList teachingInput() {
    return {"-s", q(sourcePath("samples/teaching/species.nwk")), "-f",
            q(sourcePath("samples/teaching/families.txt"))};
}

} // namespace

class TestDeterminism : public QObject {
    Q_OBJECT
  private slots:
    void backendIsBitIdenticalForAnyThreadCount_data() {
        QTest::addColumn<int>("mode");
        QTest::newRow("global") << int(RateMode::Global);
        QTest::newRow("specieswise") << int(RateMode::Specieswise);
        QTest::newRow("genewise") << int(RateMode::Genewise);
    }

    // A fresh backend per thread count runs the same two evaluations (the second from warm starts).
    void backendIsBitIdenticalForAnyThreadCount() {
        QFETCH(int, mode);
        const std::shared_ptr<const Dataset> data = manyFamilies();
        const RateParameters first = randomTheta(RateMode(mode), *data, 3);
        const RateParameters second = randomTheta(RateMode(mode), *data, 4);
        std::vector<std::vector<double>> numbers;
        std::vector<std::vector<long>> counts;
        for (int threads : kThreadCounts) {
            SolverOptions options;
            options.threads = threads;
            std::unique_ptr<LikelihoodBackend> backend = makeCpuBackend(data);
            std::vector<double> run, forwardOnly;
            std::vector<long> runCounts;
            for (const RateParameters* theta : {&first, &second}) {
                const Evaluation e = backend->evaluate(*theta, options, true);
                QCOMPARE(e.logLikelihood.size(), data->families.size());
                QCOMPARE(e.gradient.size(), theta->theta().size());
                const std::vector<double> v = reportedNumbers(e);
                run.insert(run.end(), v.begin(), v.end());
                const std::vector<long> c = reportedCounts(e);
                runCounts.insert(runCounts.end(), c.begin(), c.end());
            }
            const Evaluation forward = backend->evaluate(first, options, false);
            QVERIFY(forward.gradient.empty());
            run.insert(run.end(), forward.logLikelihood.begin(), forward.logLikelihood.end());
            run.push_back(forward.totalNllBits);
            numbers.push_back(run);
            counts.push_back(runCounts);
        }
        for (std::size_t k = 1; k < numbers.size(); ++k) {
            const std::string diff = bitDifference(numbers[k], numbers[0]);
            QVERIFY2(diff.empty(), (std::to_string(kThreadCounts[k]) + " threads vs 1: " + diff).c_str());
            QCOMPARE(counts[k], counts[0]);
        }
    }

    // Families 3 and 7 fail as their tables are made: the error is family 3's for any thread count.
    void samplingReportsTheFirstFailingFamily() {
        const std::shared_ptr<const Dataset> data = manyFamilies();
        const SpeciesLayout layout(*data);
        const RateParameters theta(RateMode::Global, data->species.size(), 1, {0.1, 0.1, 0.1});
        const std::vector<int> families = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
        for (int threads : kThreadCounts) {
            SamplingSettings settings;
            settings.samples = 2;
            settings.solver.threads = threads;
            const TableSource failing = [&](const std::vector<int>& group) {
                std::vector<FamilyTables> tables;
                for (int f : group) {
                    if (f == 3 || f == 7) throw std::runtime_error("family " + std::to_string(f) + " failed");
                    tables.push_back(computeFamilyTables(
                        layout, data->families[f], theta.probabilities(f, PresentRates{}), settings.solver));
                }
                return tables;
            };
            try {
                sampleFamilies(
                    *data, theta, families, settings, [](FamilySamples&&) {}, failing);
                QFAIL("sampling did not fail");
            } catch (const std::runtime_error& e) {
                QCOMPARE(std::string(e.what()), std::string("family 3 failed"));
            }
        }
    }

    void optimizeWritesTheSameFilesForAnyThreadCount_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("optimizer");
        for (const char* mode : {"GLOBAL", "PER-SPECIES", "PER-FAMILY"})
            for (const char* optimizer : {"lbfgsb", "adam"})
                QTest::newRow((std::string(mode) + " " + optimizer).c_str()) << mode << optimizer;
    }

    void optimizeWritesTheSameFilesForAnyThreadCount() {
        QFETCH(QString, mode);
        QFETCH(QString, optimizer);
        const std::string root = temporaryFolder("determinism_optimize");
        for (int threads : {1, 2, 3}) {
            const std::string out = root + "/threads" + std::to_string(threads);
            const CliRun run =
                runGpurec(QStringList{"optimize"} + teachingInput() +
                          QStringList{"--model-parametrization", mode, "--optimizer", optimizer, "--max-iter",
                                      "25", "--threads", QString::number(threads), "-p", q(out)});
            QVERIFY2(run.exitCode == 0, qPrintable(run.err));
            if (threads > 1) compareOutputFolders(root + "/threads1", out);
        }
    }

    void sampleWritesTheSameFilesForAnyThreadCount() {
        const std::string root = temporaryFolder("determinism_sample");
        for (int threads : {1, 2, 3, 7}) {
            const std::string out = root + "/threads" + std::to_string(threads);
            const CliRun run = runGpurec(QStringList{"sample"} + teachingInput() +
                                         QStringList{"--seed", "7", "--samples", "20", "--threads",
                                                     QString::number(threads), "-p", q(out)});
            QVERIFY2(run.exitCode == 0, qPrintable(run.err));
            if (threads > 1) compareOutputFolders(root + "/threads1", out);
        }
    }
};

QTEST_GUILESS_MAIN(TestDeterminism)
#include "test_determinism.moc"
