// Interrupted and resumed optimisations: the checkpoint's round trip, the core optimiser stopped
// by a signal and resumed, and the real `gpurec optimize` stopped by SIGINT, SIGTERM and SIGKILL
// then continued with --resume to the optimum of an uninterrupted run.
#include "cli_run.hpp"
#include "engine/backend.hpp"
#include "io/output_file.hpp"
#include "optim/checkpoint.hpp"
#include "optim/optimization_trace.hpp"
#include "optim/optimizer.hpp"
#include "run/interruption.hpp"
#include "simulated_data.hpp"
#include "support.hpp"

#include <QFile>
#include <QProcess>
#include <QtTest>
#include <bit>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <numbers>
#include <set>
#include <sstream>

using namespace gpurec;
using namespace gpurec::test;

namespace {

std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The teaching sample with one rate triple per species node: ~80 quick iterations, so a signal
// sent after the first one lands mid-run.
QStringList optimizeArgs(const std::string& outdir) {
    return {"optimize",
            "-s",
            q(sourcePath("samples/teaching/species.nwk")),
            "-f",
            q(sourcePath("samples/teaching/families.txt")),
            "--model-parametrization",
            "PER-SPECIES",
            "--threads",
            "2",
            "-p",
            q(outdir)};
}

// Starts `gpurec optimize`, waits until its first iteration is checkpointed (the progress line is
// printed after the checkpoint), then sends `signal`. Returns the exit code (-1 after a crash exit).
CliRun interruptedRun(const std::string& outdir, int signal) {
    QProcess p;
    p.start(GPUREC_CLI_PATH, optimizeArgs(outdir));
    QByteArray out;
    while (!out.contains("iter    1") && p.state() != QProcess::NotRunning) {
        p.waitForReadyRead(100);
        out += p.readAllStandardOutput();
    }
    ::kill(static_cast<pid_t>(p.processId()), signal);
    if (!p.waitForFinished(600000)) return {-2, "", "timeout"};
    out += p.readAllStandardOutput();
    return {p.exitStatus() == QProcess::CrashExit ? -1 : p.exitCode(), QString::fromUtf8(out),
            QString::fromUtf8(p.readAllStandardError())};
}

// Each rate of model_parameters.txt by "node/D" etc.
std::map<std::string, double> rateFile(const std::string& outdir) {
    std::ifstream in(outdir + "/model_parameters/model_parameters.txt");
    std::string line;
    std::getline(in, line); // # node D L T
    std::map<std::string, double> rates;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string node;
        double d, l, t;
        fields >> node >> d >> l >> t;
        rates[node + "/D"] = d;
        rates[node + "/L"] = l;
        rates[node + "/T"] = t;
    }
    return rates;
}

// The folder of an interrupted run holds a complete, consistent best result and a checkpoint.
void checkInterruptedFolder(const std::string& outdir, const std::string& signalName) {
    const nlohmann::json result = readJson(outdir + "/result.json");
    QCOMPARE(result.at("interrupted").get<bool>(), true);
    const nlohmann::json& opt = result.at("optimization");
    QCOMPARE(opt.at("stop_reason").get<std::string>(), "interrupted by " + signalName);
    QCOMPARE(opt.at("converged").get<bool>(), false);
    const double best = opt.at("best_nll_bits").get<double>();
    QVERIFY(best < opt.at("initial_nll_bits").get<double>());

    // per_fam_likelihoods.txt: every family, summing to the best NLL.
    std::ifstream perFamily(outdir + "/per_fam_likelihoods.txt");
    std::string name;
    double ll = 0, sum = 0;
    int families = 0;
    while (perFamily >> name >> ll) {
        sum += ll;
        ++families;
    }
    QCOMPARE(families, int(result.at("families").size()));
    QVERIFY(relativeError(-sum / std::numbers::ln2, best) < 1e-12);

    // The rates: model_parameters.txt, result.json and the checkpoint's θ are the same point.
    const OptimizationCheckpoint cp = readCheckpoint(outdir + "/checkpoint.json");
    QCOMPARE(cp.finished, false);
    QCOMPARE(cp.bestNllBits, best);
    QCOMPARE(cp.progress.iterations, opt.at("iterations").get<int>() + 1);
    const std::map<std::string, double> rates = rateFile(outdir);
    QCOMPARE(rates.size(), cp.theta.size());
    for (std::size_t r = 0; r < cp.rowNames.size(); ++r)
        for (int k = 0; k < 3; ++k) {
            const std::string key = cp.rowNames[r] + "/" + "DLT"[k];
            const double fromJson =
                opt.at("rates").at(cp.rowNames[r]).at(std::string(1, "DLT"[k])).get<double>();
            QCOMPARE(fromJson, std::exp2(cp.theta[3 * r + k]));
            QVERIFY2(relativeError(rates.at(key), fromJson) < 1e-15, key.c_str());
        }

    // trace.csv: the header and one row per iteration up to the checkpoint.
    std::ifstream trace(outdir + "/trace.csv");
    std::string line;
    std::getline(trace, line);
    QCOMPARE(line, traceCsvHeader());
    int rows = 0;
    while (std::getline(trace, line))
        QCOMPARE(std::stoi(line.substr(0, line.find(','))), rows++);
    QCOMPARE(rows, cp.progress.iterations);
}

class Resume : public QObject {
    Q_OBJECT
    std::string reference_; // an uninterrupted run's folder
    nlohmann::json referenceResult_;

    // Resumes `outdir` and compares its optimum with the uninterrupted run's.
    void resumeAndCompare(const std::string& outdir) {
        const OptimizationCheckpoint before = readCheckpoint(outdir + "/checkpoint.json");
        const CliRun run = runGpurec({"optimize", "--resume", q(outdir)});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(run.out.contains(
            QString("resuming %1 at iteration %2").arg(q(outdir)).arg(before.progress.iterations)));
        const nlohmann::json result = readJson(outdir + "/result.json");
        const nlohmann::json& opt = result.at("optimization");
        const nlohmann::json& ref = referenceResult_.at("optimization");
        QCOMPARE(result.at("interrupted").get<bool>(), false);
        QCOMPARE(opt.at("converged").get<bool>(), true);
        QCOMPARE(opt.at("resumed_at_iteration").get<int>(), before.progress.iterations);
        QCOMPARE(opt.at("initial_nll_bits").get<double>(), ref.at("initial_nll_bits").get<double>());
        const double nll = opt.at("best_nll_bits").get<double>(),
                     refNll = ref.at("best_nll_bits").get<double>();
        QVERIFY2(relativeError(nll, refNll) < 1e-8,
                 qPrintable(QString("%1 vs %2").arg(nll, 0, 'g', 17).arg(refNll, 0, 'g', 17)));
        // PER-SPECIES: the NLL is flat along rates that drift to the lower bound; the rates the data
        // determine (above 1e-2) agree to well within a percent.
        for (const auto& [node, r] : ref.at("rates").items())
            for (const char* k : {"D", "L", "T"}) {
                const double a = opt.at("rates").at(node).at(k).get<double>(), b = r.at(k).get<double>();
                if (b > 1e-2) QVERIFY2(relativeError(a, b) < 1e-2, (node + "/" + k).c_str());
            }
        // The trace goes on where it stopped: one row per iteration of the whole run.
        std::ifstream trace(outdir + "/trace.csv");
        std::string line;
        std::getline(trace, line);
        int rows = 0;
        while (std::getline(trace, line))
            QCOMPARE(std::stoi(line.substr(0, line.find(','))), rows++);
        QCOMPARE(rows, opt.at("iterations").get<int>() + 1);
        QCOMPARE(readCheckpoint(outdir + "/checkpoint.json").finished, true);
    }

  private slots:
    void initTestCase() {
        reference_ = temporaryFolder("resume_reference") + "/out";
        const CliRun run = runGpurec(optimizeArgs(reference_));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        referenceResult_ = readJson(reference_ + "/result.json");
        QCOMPARE(referenceResult_.at("interrupted").get<bool>(), false);
    }

    void checkpointRoundTripIsBitExact() {
        const std::string path = temporaryFolder("checkpoint") + "/checkpoint.json";
        OptimizationCheckpoint c;
        c.mode = RateMode::Specieswise;
        c.rowNames = {"A", "B \"quoted\"", "AB"};
        c.theta = {0.1 + 0.2,
                   -1.0 / 3.0,
                   std::log2(1e-10),
                   std::nextafter(1.0, 2.0),
                   -33.219280948873624,
                   std::numeric_limits<double>::denorm_min(),
                   1e-300,
                   -0.0,
                   std::numbers::pi};
        c.bestNllBits = 1256.0195898071997;
        c.settings.kind = OptimizerKind::Adam;
        c.settings.max_iter = 17;
        c.settings.grad_tol = 3e-7;
        c.settings.min_rate = 1.5e-9;
        c.settings.learning_rate = 0.037;
        c.settings.warm_starts = false;
        c.progress = {12, 19, 1304.5153075139344, 2.75};
        c.stopReason = "interrupted by SIGTERM";
        c.run = {{"options", {{"--d", 0.1}, {"gene_trees", {"a.nwk"}}}}};
        writeCheckpoint(path, c);
        const OptimizationCheckpoint back = readCheckpoint(path);
        QVERIFY(back.mode == c.mode);
        QCOMPARE(back.rowNames, c.rowNames);
        QCOMPARE(back.theta.size(), c.theta.size());
        for (std::size_t i = 0; i < c.theta.size(); ++i)
            QCOMPARE(std::bit_cast<std::uint64_t>(back.theta[i]), std::bit_cast<std::uint64_t>(c.theta[i]));
        QCOMPARE(std::bit_cast<std::uint64_t>(back.bestNllBits), std::bit_cast<std::uint64_t>(c.bestNllBits));
        QCOMPARE(optimizerSettingsJson(back.settings), optimizerSettingsJson(c.settings));
        QCOMPARE(back.progress.iterations, 12);
        QCOMPARE(back.progress.evaluations, 19);
        QCOMPARE(back.progress.initialNllBits, c.progress.initialNllBits);
        QCOMPARE(back.progress.seconds, 2.75);
        QCOMPARE(back.finished, false);
        QCOMPARE(back.stopReason, c.stopReason);
        QCOMPARE(back.run, c.run);

        // A checkpoint cut short (a copy interrupted, a full disk) is refused naming the file.
        const std::string text = readText(path);
        writeFile(path, text.substr(0, text.size() / 2));
        try {
            readCheckpoint(path);
            QFAIL("a truncated checkpoint was read");
        } catch (const std::runtime_error& e) {
            QVERIFY2(
                std::string(e.what()).starts_with(path + ": not a valid checkpoint (damaged or cut short)"),
                e.what());
        }

        // A count out of its range, or not whole, is refused by name instead of cast.
        for (const auto& [value, shown] :
             {std::pair{nlohmann::json(1e30), std::string("1e+30")},
              std::pair{nlohmann::json(2.5), std::string("2.5")},
              std::pair{nlohmann::json(4294967296LL), std::string("4294967296")}}) {
            nlohmann::json j = checkpointToJson(c);
            j["iterations"] = value;
            writeFile(path, j.dump());
            try {
                readCheckpoint(path);
                QFAIL(("iterations " + shown + " was read").c_str());
            } catch (const std::runtime_error& e) {
                QCOMPARE(std::string(e.what()),
                         path +
                             ": bad checkpoint: \"iterations\": expected a whole number "
                             "from -2147483648 to 2147483647, found " +
                             shown);
            }
        }
        // A missing version, or a format that is not a string, is refused as bad input too (the
        // JSON library's own exceptions never reach the caller; found by fuzz_checkpoint).
        for (const auto& damage : std::vector<std::function<void(nlohmann::json&)>>{
                 [](nlohmann::json& j) { j.erase("version"); }, [](nlohmann::json& j) { j["version"] = "1"; },
                 [](nlohmann::json& j) { j["format"] = 7; }}) {
            nlohmann::json j = checkpointToJson(c);
            damage(j);
            QVERIFY_THROWS_EXCEPTION(std::runtime_error, checkpointFromJson(j));
        }
    }

    void checkpointRowsMustFitTheInput() {
        auto data = std::make_shared<Dataset>();
        data->species = simulatedSpeciesTree(4, 3);
        const RateParameters shape(RateMode::Specieswise, data->species.size(), 0, {});
        OptimizationCheckpoint c = checkpointOf(shape, *data);
        QCOMPARE(checkpointParameters(c, *data, shape).theta(), c.theta);
        c.rowNames[1] = "elsewhere";
        try {
            checkpointParameters(c, *data, shape);
            QFAIL("rows of another species tree were accepted");
        } catch (const std::runtime_error& e) {
            QCOMPARE(std::string(e.what()),
                     "the checkpoint's specieswise rates do not fit the input (row 2 is "
                     "'elsewhere' in the checkpoint and '" +
                         data->species.name(1) + "' in the input)");
        }
    }

    void traceKeepsTheCheckpointedRows() {
        const std::string path = temporaryFolder("trace") + "/trace.csv";
        writeFile(path, traceCsvHeader() + "\n0,10,a\n1,9,b\n2,8,c\n3,7,d\n4,6");
        prepareTraceFile(path, 3); // checkpoint after iteration 2; row 3 and half of row 4 came later
        QCOMPARE(readText(path), traceCsvHeader() + "\n0,10,a\n1,9,b\n2,8,c\n");
        prepareTraceFile(path, 0);
        QCOMPARE(readText(path), traceCsvHeader() + "\n");
    }

    // The optimiser stopped by a signal at iteration 3 keeps its best point; resumed from the
    // checkpointed point it reaches the uninterrupted optimum (every algorithm and rate shape).
    void interruptedOptimiserResumes_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("kind");
        QTest::newRow("global L-BFGS-B") << int(RateMode::Global) << int(OptimizerKind::Lbfgsb);
        QTest::newRow("specieswise L-BFGS-B") << int(RateMode::Specieswise) << int(OptimizerKind::Lbfgsb);
        QTest::newRow("genewise lockstep BFGS") << int(RateMode::Genewise) << int(OptimizerKind::Lbfgsb);
        QTest::newRow("global Adam") << int(RateMode::Global) << int(OptimizerKind::Adam);
    }
    void interruptedOptimiserResumes() {
        QFETCH(int, mode);
        QFETCH(int, kind);
        const SpeciesTree species = simulatedSpeciesTree(6, 11);
        auto data = simulatedDataset(
            species, 12,
            [](int) {
                return Rates{0.2, 0.3, 0.1};
            },
            5);
        OptimizerSettings settings;
        settings.kind = OptimizerKind(kind);
        settings.max_iter = settings.kind == OptimizerKind::Adam ? 300 : 500;
        // Twelve small families leave the per-species and per-family optima flat along rates that
        // drift to the bound: converge on the gradient alone, so that both routes end at one point.
        if (RateMode(mode) != RateMode::Global) {
            settings.rel_tol = 0;
            settings.grad_tol = 1e-7;
        }
        auto model = [&] {
            return ReconModel(data, makeCpuBackend(data),
                              RateParameters(RateMode(mode), species.size(), int(data->families.size()),
                                             {0.05, 0.05, 0.05}));
        };
        ReconModel whole = model();
        const OptimizationResult uninterrupted = optimizeRates(whole, settings);

        ReconModel first = model();
        OptimizationCheckpoint checkpoint = checkpointOf(first.parameters(), *data);
        double lowestReported = INFINITY;
        const OptimizationResult stopped = optimizeRates(first, settings, [&](const IterationReport& r) {
            lowestReported = std::min(lowestReported, r.nllBits);
            checkpoint.theta = *r.bestTheta;
            checkpoint.bestNllBits = r.bestNllBits;
            checkpoint.progress = {r.iteration + 1, r.evaluations, r.initialNllBits, r.seconds};
            if (r.iteration == 3) simulateInterruption(SIGINT);
            return true;
        });
        simulateInterruption(0);
        QVERIFY(stopped.interrupted);
        QCOMPARE(stopped.stopReason, std::string("interrupted by SIGINT"));
        QCOMPARE(stopped.iterations, 3);
        QCOMPARE(checkpoint.progress.iterations, 4);
        QCOMPARE(stopped.bestNllBits, checkpoint.bestNllBits);
        QVERIFY(stopped.bestNllBits <= lowestReported);
        QCOMPARE(stopped.best.theta(), checkpoint.theta);
        QCOMPARE(first.lastEvaluation().totalNllBits, stopped.bestNllBits); // per-family values of the best

        // Through the file, as the CLI does.
        const std::string path = temporaryFolder("core_resume") + "/checkpoint.json";
        writeCheckpoint(path, checkpoint);
        const OptimizationCheckpoint read = readCheckpoint(path);
        ReconModel second = model();
        second.setParameters(checkpointParameters(read, *data, second.parameters()));
        std::vector<int> iterations;
        const OptimizationResult resumed = optimizeRates(
            second, settings,
            [&](const IterationReport& r) {
                iterations.push_back(r.iteration);
                return true;
            },
            &read.progress);
        QVERIFY(!resumed.interrupted);
        QCOMPARE(resumed.converged, uninterrupted.converged);
        QVERIFY(!iterations.empty());
        QCOMPARE(iterations.front(), 4); // the checkpointed point is not reported again
        QCOMPARE(resumed.initialNllBits, uninterrupted.initialNllBits);
        QVERIFY2(relativeError(resumed.bestNllBits, uninterrupted.bestNllBits) < 1e-8,
                 qPrintable(QString("%1 vs %2")
                                .arg(resumed.bestNllBits, 0, 'g', 17)
                                .arg(uninterrupted.bestNllBits, 0, 'g', 17)));
        if (RateMode(mode) == RateMode::Global && settings.kind == OptimizerKind::Lbfgsb)
            for (int k = 0; k < 3; ++k)
                QVERIFY(std::abs(resumed.best.theta()[k] - uninterrupted.best.theta()[k]) < 1e-4);
    }

    void sigintWritesTheBestResultAndResumes() {
        const std::string outdir = temporaryFolder("sigint") + "/out";
        const CliRun run = interruptedRun(outdir, SIGINT);
        QCOMPARE(run.exitCode, 130);
        QVERIFY2(run.err.contains("gpurec: interrupted by SIGINT; resume with: gpurec optimize --resume " +
                                  q(outdir)),
                 qPrintable(run.err));
        QVERIFY(run.out.contains("interrupted after "));
        checkInterruptedFolder(outdir, "SIGINT");
        resumeAndCompare(outdir);
    }

    void sigtermWritesTheBestResultAndResumes() {
        const std::string outdir = temporaryFolder("sigterm") + "/out";
        const CliRun run = interruptedRun(outdir, SIGTERM);
        QCOMPARE(run.exitCode, 143);
        checkInterruptedFolder(outdir, "SIGTERM");
        resumeAndCompare(outdir);
    }

    // kill -9 leaves no result.json from this run, but the checkpoint of its last iteration.
    void killedRunResumesFromItsLastCheckpoint() {
        const std::string outdir = temporaryFolder("sigkill") + "/out";
        const CliRun run = interruptedRun(outdir, SIGKILL);
        QCOMPARE(run.exitCode, -1);
        QVERIFY(!std::filesystem::exists(outdir + "/result.json"));
        const OptimizationCheckpoint cp = readCheckpoint(outdir + "/checkpoint.json");
        QVERIFY(!cp.finished);
        QVERIFY(cp.progress.iterations >= 2);
        // What a write cut short by the kill would leave; the resumed run clears it.
        writeFile(outdir + "/result.json.gpurec-partial.12345", "{\"optim");
        resumeAndCompare(outdir);
        for (const auto& entry : std::filesystem::directory_iterator(outdir))
            QVERIFY2(!isOutputTemporary(entry.path().filename().string()), entry.path().string().c_str());
    }

    void conflictingOptionIsRefused() {
        const std::string outdir = temporaryFolder("conflict") + "/out";
        const CliRun first = interruptedRun(outdir, SIGINT);
        QCOMPARE(first.exitCode, 130);
        const std::string before = readText(outdir + "/checkpoint.json");
        const CliRun run = runGpurec({"optimize", "--resume", q(outdir), "--max-iter", "5",
                                      "--model-parametrization", "PER-SPECIES", "--threads", "1"});
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.err, "gpurec: error: options conflict with the run recorded in " + q(outdir) +
                              "/checkpoint.json:\n  --max-iter 5 (the run has 100)\nleave them out to resume "
                              "it, or start a new run in another folder\n");
        QCOMPARE(readText(outdir + "/checkpoint.json"), before);
        const CliRun elsewhere = runGpurec({"optimize", "--resume", q(outdir), "-p", q(outdir + "2")});
        QCOMPARE(elsewhere.exitCode, 2);
        QVERIFY2(elsewhere.err.contains("names another (leave -p out)"), qPrintable(elsewhere.err));
        const CliRun overwrite = runGpurec({"optimize", "--resume", q(outdir), "--overwrite"});
        QCOMPARE(overwrite.err,
                 QString("--overwrite excludes --resume\nRun with --help for more information.\n"));
        QVERIFY(overwrite.exitCode != 0);
        // A new run does not silently replace the interrupted one.
        const CliRun fresh = runGpurec(optimizeArgs(outdir));
        QCOMPARE(fresh.exitCode, 2);
        QVERIFY2(fresh.err.contains("already holds results of an earlier run"), qPrintable(fresh.err));
        QCOMPARE(readText(outdir + "/checkpoint.json"), before);
    }

    // sample stops between families: the families written are complete and exactly those that
    // result.json lists.
    void interruptedSampleKeepsCompleteFamilies() {
        const std::string outdir = temporaryFolder("sample") + "/out";
        QProcess p;
        p.start(GPUREC_CLI_PATH, {"sample", "-s", q(sourcePath("samples/medium/species.nwk")), "-f",
                                  q(sourcePath("samples/medium/families.txt")), "--samples", "20",
                                  "--threads", "2", "-p", q(outdir)});
        const std::string recDir = outdir + "/reconciliations/all",
                          sumDir = outdir + "/reconciliations/summaries";
        auto written = [&] { // a family's last file marks it written
            std::set<std::string> families;
            const std::string marker = "_originations.csv";
            if (std::filesystem::exists(sumDir))
                for (const auto& entry : std::filesystem::directory_iterator(sumDir)) {
                    const std::string name = entry.path().filename().string();
                    if (name.ends_with(marker)) families.insert(name.substr(0, name.size() - marker.size()));
                }
            return families;
        };
        while (written().empty() && p.state() != QProcess::NotRunning)
            p.waitForFinished(20);
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(600000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 130);
        const nlohmann::json result = readJson(outdir + "/result.json");
        QCOMPARE(result.at("interrupted").get<bool>(), true);
        std::set<std::string> listed;
        for (const nlohmann::json& f : result.at("families"))
            listed.insert(f.at("name").get<std::string>());
        QVERIFY(!listed.empty());
        QVERIFY(listed.size() < 500);
        QCOMPARE(result.at("total").at("families").get<std::size_t>(), listed.size());
        QVERIFY(written() == listed);
        for (const std::string& family : listed) {
            for (const char* suffix :
                 {"_samples.newick", "_samples.alerec", "_sample_0.xml", "_sample_19.xml",
                  "_transfers_19.txt", "_eventCounts.csv", "_speciesEventCounts.csv"})
                QVERIFY2(std::filesystem::exists(recDir + "/" + family + suffix), (family + suffix).c_str());
            for (const char* suffix :
                 {"_consensus_50.newick", "_meanTransfers.txt", "_meanSpeciesEventCounts.txt"})
                QVERIFY2(std::filesystem::exists(sumDir + "/" + family + suffix), (family + suffix).c_str());
        }
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains(
                     QString("gpurec: interrupted by SIGINT after %1 of 500 families").arg(listed.size())),
                 qPrintable(err));
    }

    // eval has no partial result: interrupted, it writes nothing and says so in its exit status.
    void interruptedEvalWritesNothing() {
        const std::string outdir = temporaryFolder("eval") + "/out";
        QProcess p;
        p.start(GPUREC_CLI_PATH, {"eval", "-s", q(sourcePath("samples/medium/species.nwk")), "-f",
                                  q(sourcePath("samples/medium/families.txt")), "-p", q(outdir)});
        QVERIFY(p.waitForStarted());
        // The folder exists once the handlers are in place; loading the 500 families takes longer.
        QTRY_VERIFY_WITH_TIMEOUT(std::filesystem::exists(outdir), 120000);
        ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
        QVERIFY(p.waitForFinished(600000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 143);
        QVERIFY(!std::filesystem::exists(outdir + "/result.json"));
        QVERIFY(!std::filesystem::exists(outdir + "/per_fam_likelihoods.txt"));
    }

    void finishedRunIsNotRerun() {
        const std::string before = readText(reference_ + "/result.json");
        const CliRun run = runGpurec({"optimize", "--resume", q(reference_)});
        QCOMPARE(run.exitCode, 0);
        const std::string reason = referenceResult_.at("optimization").at("stop_reason").get<std::string>();
        QCOMPARE(run.out,
                 q(reference_ + ": the run there has finished (" + reason + "); nothing to resume\n"));
        QCOMPARE(readText(reference_ + "/result.json"), before);
    }
};

} // namespace

QTEST_GUILESS_MAIN(Resume)
#include "test_resume.moc"
