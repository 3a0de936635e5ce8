// The gpurec tool given hostile or careless options: exact messages and exit statuses for non-finite
// likelihoods, solvers that stop early, conflicting options and malformed or out-of-range numbers.
#include "cli_run.hpp"
#include "support.hpp"

#include <QtTest>
#include <filesystem>

using namespace gpurec::test;

namespace {

// CLI11's exit statuses for a failed option check and for excluded options given together.
constexpr int kValidationError = 105;
constexpr int kExcludesError = 108;
constexpr int kFatal = 2;

// samples/tiny with both families (family2 covers only 3 species).
QStringList tinyInput() {
    return {"-s",
            q(sourcePath("samples/tiny/species.nwk")),
            "-f",
            q(sourcePath("samples/tiny/families.txt")),
            "--min-covered-species",
            "1"};
}

QStringList withTiny(const QString& command, const QStringList& more) {
    return QStringList{command} + tinyInput() + more;
}

// "--option: reason\nRun with --help for more information.\n": CLI11's layout of a rejected option.
QString optionError(const QString& reason) {
    return reason + "\nRun with --help for more information.\n";
}

const QString kNotFinite = "gpurec: error: the log-likelihood is not finite for 2 of 2 families: ";
const QString kOutsideRange = " (rates outside the model's numerical range)\n";

} // namespace

class BadOptions : public QObject {
    Q_OBJECT

  private slots:
    // Every optimiser and rate mode fails cleanly (L-BFGS-B used to dereference an empty best point).
    void optimizeFromANonFiniteStart_data() {
        QTest::addColumn<QStringList>("mode");
        QTest::addColumn<QString>("where");
        const QString shared = "family1 (inf); family2 (inf) at rates D = 0.1, L = 1e+21, T = 0.1";
        const QString perFamily =
            "family1 (inf) at D = 0.1, L = 1e+21, T = 0.1; family2 (inf) at D = 0.1, L = 1e+21, T = 0.1";
        QTest::newRow("lbfgsb global") << QStringList{"--model-parametrization", "GLOBAL"} << shared;
        QTest::newRow("lbfgsb per-species")
            << QStringList{"--model-parametrization", "PER-SPECIES"} << shared;
        QTest::newRow("lbfgsb per-family")
            << QStringList{"--model-parametrization", "PER-FAMILY"} << perFamily;
        QTest::newRow("adam global") << QStringList{"--optimizer", "adam"} << shared;
        QTest::newRow("adam per-family")
            << QStringList{"--optimizer", "adam", "--model-parametrization", "PER-FAMILY"} << perFamily;
    }
    void optimizeFromANonFiniteStart() {
        QFETCH(QStringList, mode);
        QFETCH(QString, where);
        const std::string out = temporaryFolder("bad_nonfinite_start");
        CliRun r = runGpurec(
            withTiny("optimize", QStringList{"--max-rate", "1e30", "--l", "1e21", "-p", q(out)} + mode));
        QCOMPARE(r.err, kNotFinite + where + kOutsideRange);
        QCOMPARE(r.exitCode, kFatal);
        QVERIFY(!std::filesystem::exists(out + "/result.json"));
    }

    // eval and sample accept the same rates, from the options (badNumbers) and from a rate file.
    void evalAndSampleRefuseTheSameRateFile_data() {
        QTest::addColumn<QString>("command");
        QTest::newRow("eval") << "eval";
        QTest::newRow("sample") << "sample";
    }
    void evalAndSampleRefuseTheSameRateFile() {
        QFETCH(QString, command);
        const std::string out = temporaryFolder("bad_rate_file");
        std::string rates = "# node D L T\nA 3 0.1 0.1\n";
        for (const char* node : {"B", "AB", "C", "D", "CD", "R"})
            rates += std::string(node) + " 0.1 0.1 0.1\n";
        writeFile(out + "/rates.txt", rates);
        CliRun r =
            runGpurec(withTiny(command, {"--rates-file", q(out + "/rates.txt"), "-p", q(out + "/run")}));
        QCOMPARE(r.err, "gpurec: error: duplication rate 3 of species node A is out of bounds [1e-10, 2]\n");
        QCOMPARE(r.exitCode, kFatal);
    }

    // An E iteration cut at one sweep: the summary, a warning line and result.json say so.
    void evalReportsAnEarlyStoppedExtinctionSolve() {
        const std::string out = temporaryFolder("bad_e_max_iter");
        CliRun r = runGpurec(withTiny("eval", {"--solver", "e_max_iter=1", "-p", q(out)}));
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("bits (") &&
                     r.out.contains("s, schedule converged, but solves stopped early)\n"),
                 qPrintable(r.out));
        QVERIFY(
            r.out.contains("\nwarning: E fixed point stopped early: 1 solve (2 families) at e_max_iter = 1, "
                           "relative change 1 > e_tol = 1e-15\n"));
        const nlohmann::json stops = readJson(out + "/result.json")["solver_stats"]["stopped_early"];
        QCOMPARE(int(stops.size()), 1);
        QCOMPARE(std::string(stops[0]["solver"]), std::string("e_fixed_point"));
        QCOMPARE(int(stops[0]["stopped_solves"]), 1);
        QCOMPARE(int(stops[0]["families"]), 2);
        QCOMPARE(int(stops[0]["e_max_iter"]), 1);
        QCOMPARE(double(stops[0]["e_tol"]), 1e-15);
        QCOMPARE(double(stops[0]["residual_reached"]), 1.0); // E moved from 0: a relative change of 1
    }

    // Sampling draws from tables whose solves stopped early: it says so like eval (one E solve per
    // family here, as sampling solves each family on its own).
    void sampleReportsEarlyStoppedSolves() {
        const std::string out = temporaryFolder("bad_sample_e_max_iter");
        CliRun r =
            runGpurec(withTiny("sample", {"--samples", "2", "--solver", "e_max_iter=1", "-p", q(out)}));
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(
            r.out.contains("\nwarning: E fixed point stopped early: 2 solves (2 families) at e_max_iter = 1, "
                           "relative change 1 > e_tol = 1e-15\n"),
            qPrintable(r.out));
        const nlohmann::json stops = readJson(out + "/result.json")["solver_stats"]["stopped_early"];
        QCOMPARE(int(stops.size()), 1);
        QCOMPARE(std::string(stops[0]["solver"]), std::string("e_fixed_point"));
        QCOMPARE(int(stops[0]["stopped_solves"]), 2);
        const std::string clean = temporaryFolder("sample_converged");
        CliRun ok = runGpurec(withTiny("sample", {"--samples", "2", "-p", q(clean)}));
        QCOMPARE(ok.exitCode, 0);
        QVERIFY(!ok.out.contains("warning:"));
        QVERIFY(readJson(clean + "/result.json")["solver_stats"]["stopped_early"].empty());
    }

    // Each clade's self loop cut at one iteration.
    void evalReportsEarlyStoppedCladeSelfLoops() {
        const std::string out = temporaryFolder("bad_pi_iters");
        CliRun r = runGpurec(withTiny("eval", {"--solver", "pi_iters=1", "-p", q(out)}));
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(
            "\nwarning: clade self loop stopped early: 26 clades (2 families) at pi_iters = 1, "
            "relative change 1 > pi_tol = 1e-15\n"));
        const nlohmann::json stops = readJson(out + "/result.json")["solver_stats"]["stopped_early"];
        QCOMPARE(int(stops.size()), 1);
        QCOMPARE(std::string(stops[0]["solver"]), std::string("clade_self_loop"));
        QCOMPARE(int(stops[0]["stopped_clades"]), 26);
        QVERIFY(double(stops[0]["residual_reached"]) > double(stops[0]["pi_tol"]));
    }

    // The adjoint solves limited to the right-hand side (no Neumann term, no BiCGSTAB iteration):
    // optimize's summary and result.json report the residual left.
    void optimizeReportsUnconvergedAdjointSolves() {
        const std::string out = temporaryFolder("bad_bicgstab");
        CliRun r = runGpurec(withTiny("optimize", {"--max-iter", "1", "--solver", "bicgstab_max_iter=0",
                                                   "--solver", "neumann_terms=0", "-p", q(out)}));
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("\nwarning: adjoint BiCGSTAB stopped early: "), qPrintable(r.out));
        const nlohmann::json stops = readJson(out + "/result.json")["solver_stats"]["stopped_early"];
        QCOMPARE(int(stops.size()), 1);
        QCOMPARE(std::string(stops[0]["solver"]), std::string("adjoint_bicgstab"));
        QCOMPARE(int(stops[0]["bicgstab_max_iter"]), 0);
        QCOMPARE(int(stops[0]["families"]), 2);
        QVERIFY(int(stops[0]["stopped_solves"]) > 0);
        QVERIFY(double(stops[0]["residual_reached"]) > 1e-6); // far above bicgstab_tol = 1e-14
        QCOMPARE(double(stops[0]["bicgstab_tol"]), 1e-14);
        QVERIFY(
            r.out.contains(QString::fromStdString("warning: " + std::string(stops[0]["message"]) + "\n")));
    }

    // A converged run reports no early stop.
    void convergedRunReportsNoEarlyStop() {
        const std::string out = temporaryFolder("bad_converged");
        CliRun r = runGpurec(withTiny("eval", {"-p", q(out)}));
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!r.out.contains("warning"));
        QVERIFY(r.out.contains("s, schedule converged)\n"));
        QVERIFY(readJson(out + "/result.json")["solver_stats"]["stopped_early"].empty());
    }

    // Errors after parsing: conflicts, and values read by gpurec itself (decimal only there too).
    void conflictingOptions_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("err");
        QTest::newRow("rates file and --d") << withTiny("eval", {"--rates-file", "r.txt", "--d", "0.2"})
                                            << kExcludesError << optionError("--d excludes --rates-file");
        QTest::newRow("rates file and --t") << withTiny("optimize", {"--t", "0.2", "--rates-file", "r.txt"})
                                            << kExcludesError << optionError("--t excludes --rates-file");
        QTest::newRow("hex solver option")
            << withTiny("eval", {"--solver", "e_max_iter=0x10"}) << kFatal
            << "gpurec: error: solver option e_max_iter expects a number, got '0x10'\n";
        QTest::newRow("hex memory limit") << withTiny("eval", {"--gpu-memory-limit", "0x10GB"}) << kFatal
                                          << "gpurec: error: bad size '0x10GB' (examples: 20GB, 512MiB)\n";
        QTest::newRow("pruning and missing fractions") // AleRax's refusal, before any input is read
            << withTiny("optimize", {"--prune-species-tree", "--fraction-missing-file", "missing.txt"})
            << kFatal << "gpurec: error: --fraction-missing-file cannot be used with --prune-species-tree\n";
        QTest::newRow("two schedules")
            << withTiny("eval", {"--schedule", "alerax", "--solver", "schedule=converged"}) << kFatal
            << "gpurec: error: --schedule alerax and --solver schedule=converged both set the schedule: give "
               "only "
               "one\n";
    }
    void conflictingOptions() {
        QFETCH(QStringList, args);
        QFETCH(int, status);
        QFETCH(QString, err);
        CliRun r = runGpurec(args);
        QCOMPARE(r.exitCode, status);
        QCOMPARE(r.err, err);
    }

    // Malformed and out-of-range numbers: readable ranges, decimal notation only.
    void badNumbers_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("err");
        QTest::newRow("hex rate") << withTiny("eval", {"--d", "0x10"})
                                  << optionError(
                                         "--d: expects a decimal number (like 0.5 or 1e-3), got '0x10'");
        QTest::newRow("inf rate") << withTiny("optimize", {"--l", "inf"})
                                  << optionError(
                                         "--l: expects a decimal number (like 0.5 or 1e-3), got 'inf'");
        QTest::newRow("negative rate")
            << withTiny("optimize", {"--d", "-1"}) << optionError("--d: must be > 0, got -1");
        QTest::newRow("eval rate above the sampling bound")
            << withTiny("eval", {"--l", "3"}) << optionError("--l: must be in [1e-10, 2], got 3");
        QTest::newRow("sample rate above the sampling bound")
            << withTiny("sample", {"--l", "3"}) << optionError("--l: must be in [1e-10, 2], got 3");
        QTest::newRow("zero bound") << withTiny("optimize", {"--min-rate", "0"})
                                    << optionError("--min-rate: must be > 0, got 0");
        QTest::newRow("negative tolerance") << withTiny("optimize", {"--grad-tol", "-1e-5"})
                                            << optionError("--grad-tol: must be >= 0, got -1e-5");
        QTest::newRow("hex iterations") << withTiny("optimize", {"--max-iter", "0x10"})
                                        << optionError("--max-iter: expects a decimal integer, got '0x10'");
        QTest::newRow("fractional threads") << withTiny("eval", {"--threads", "1.5"})
                                            << optionError("--threads: expects a decimal integer, got '1.5'");
        QTest::newRow("negative threads")
            << withTiny("eval", {"--threads", "-1"}) << optionError("--threads: must be >= 0, got -1");
        QTest::newRow("threads overflow") << withTiny("eval", {"--threads", "99999999999"})
                                          << optionError("--threads: must be <= 2147483647, got 99999999999");
        QTest::newRow("no samples") << withTiny("sample", {"--samples", "0"})
                                    << optionError("--samples: must be >= 1, got 0");
        QTest::newRow("sample seed -1")
            << withTiny("sample", {"--seed", "-1"}) << optionError("--seed: must be >= 0, got -1");
        QTest::newRow("seed beyond 64 bits") << withTiny("sample", {"--seed", "18446744073709551616"})
                                             << optionError("--seed: must be <= 18446744073709551615, got "
                                                            "18446744073709551616");
        QTest::newRow("simulate seed -1") << QStringList{"simulate", "-o", "x", "--seed", "-1"}
                                          << optionError("--seed: must be >= 0, got -1");
        QTest::newRow("simulate hex leaves")
            << QStringList{"simulate", "-o", "x", "--species", "0x10"}
            << optionError("--species: expects a decimal integer, got '0x10'");
        QTest::newRow("recovery seed -1")
            << QStringList{"sample-recovery", "--seed", "-1"} << optionError("--seed: must be >= 0, got -1");
        QTest::newRow("recovery one leaf") << QStringList{"sample-recovery", "--species-leaves", "1"}
                                           << optionError("--species-leaves: must be >= 2, got 1");
        QTest::newRow("check seed -1")
            << QStringList{"check", "--seed", "-1"} << optionError("--seed: must be >= 0, got -1");
        QTest::newRow("bench no repeats")
            << withTiny("bench", {"--repeats", "0"}) << optionError("--repeats: must be >= 1, got 0");
        QTest::newRow("trim ratio above 1") << withTiny("eval", {"--trim-ratio", "1.5"})
                                            << optionError("--trim-ratio: must be in [0, 1], got 1.5");
        QTest::newRow("negative trim ratio") << withTiny("optimize", {"--trim-ratio", "-0.1"})
                                             << optionError("--trim-ratio: must be in [0, 1], got -0.1");
        QTest::newRow("split ratio between -1 and 0")
            << withTiny("sample", {"--max-clade-split-ratio", "-0.5"})
            << optionError("--max-clade-split-ratio: must be >= 0 or -1, got -0.5");
        QTest::newRow("split ratio below -1")
            << withTiny("eval", {"--max-clade-split-ratio", "-2"})
            << optionError("--max-clade-split-ratio: must be >= 0 or -1, got -2");
        QTest::newRow("no ccp sample frequency")
            << withTiny("eval", {"--ccp-sample-frequency", "0"})
            << optionError("--ccp-sample-frequency: must be >= 1, got 0");
        QTest::newRow("fractional ccp sample frequency")
            << withTiny("eval", {"--ccp-sample-frequency", "2.5"})
            << optionError("--ccp-sample-frequency: expects a decimal integer, got '2.5'");
        QTest::newRow("alerax trim ratio above 1")
            << QStringList{"alerax", "-f", "f", "-s", "s", "-p", "p", "--trim-ratio", "2"}
            << optionError("--trim-ratio: must be in [0, 1], got 2");
        QTest::newRow("alerax split ratio between -1 and 0")
            << QStringList{"alerax", "-f", "f", "-s", "s", "-p", "p", "--max-clade-split-ratio", "-0.5"}
            << optionError("--max-clade-split-ratio: must be >= 0 or -1, got -0.5");
    }
    void badNumbers() {
        QFETCH(QStringList, args);
        QFETCH(QString, err);
        CliRun r = runGpurec(args);
        QCOMPARE(r.err, err);
        QCOMPARE(r.exitCode, kValidationError);
    }

    // Every number option of every subcommand is declared through the one checked helper: hex is
    // refused everywhere.
    void everyNumberOptionIsDecimalOnly_data() {
        QTest::addColumn<QStringList>("prefix");
        QTest::addColumn<QString>("option");
        QTest::addColumn<bool>("integer");
        const struct {
            QStringList prefix;
            QStringList reals, integers;
        } commands[] = {
            {QStringList{"eval"} + tinyInput(),
             {"--d", "--l", "--t", "--trim-ratio", "--max-clade-split-ratio"},
             {"--threads", "--ccp-sample-frequency"}},
            {QStringList{"optimize"} + tinyInput(),
             {"--d", "--l", "--t", "--min-rate", "--max-rate", "--grad-tol", "--rel-tol", "--learning-rate"},
             {"--threads", "--max-iter"}},
            {QStringList{"sample"} + tinyInput(),
             {"--d", "--l", "--t"},
             {"--threads", "--samples", "--seed"}},
            {QStringList{"bench"} + tinyInput(),
             {"--d", "--l", "--t"},
             {"--threads", "--warmup", "--repeats"}},
            {{"check"}, {}, {"--simulated-families", "--seed", "--threads"}},
            {{"sample-recovery"},
             {"--d", "--l", "--t"},
             {"--species-leaves", "--families", "--samples", "--seed", "--threads"}},
            {{"simulate", "-o", "x"},
             {"--d", "--l", "--t", "--birth-rate", "--death-rate", "--species-rate-spread",
              "--family-rate-spread", "--sampled-fraction", "--perturbation-rate", "--spr-fraction"},
             {"--species", "--families", "--min-covered-species", "--max-genes", "--max-attempts",
              "--max-lineages", "--tree-samples", "--spr-radius", "--seed", "--threads"}},
        };
        for (const auto& c : commands) {
            for (const QString& o : c.reals)
                QTest::newRow(qPrintable(c.prefix[0] + " " + o)) << c.prefix << o << false;
            for (const QString& o : c.integers)
                QTest::newRow(qPrintable(c.prefix[0] + " " + o)) << c.prefix << o << true;
        }
    }
    void everyNumberOptionIsDecimalOnly() {
        QFETCH(QStringList, prefix);
        QFETCH(QString, option);
        QFETCH(bool, integer);
        CliRun r = runGpurec(prefix + QStringList{option, "0x10"});
        QCOMPARE(r.err, optionError(option + ": expects a decimal " +
                                    (integer ? QString("integer") : QString("number (like 0.5 or 1e-3)")) +
                                    ", got '0x10'"));
        QCOMPARE(r.exitCode, kValidationError);
    }
};

QTEST_GUILESS_MAIN(BadOptions)
#include "test_bad_options.moc"
