// The real `gpurec` under `mpirun --oversubscribe -np 2` (3 where said) on the CPU against one
// process: eval, optimize in the global, specieswise and genewise modes, sample, search, and eval,
// optimize and sample with transfer highways write the same files (byte for byte, result.json and the traces
// without timings, device and process count); a process that cannot read its families, or more processes than
// chunks of families, stop every process with one error line; a signal to one process ends the run as one
// process's interrupt does. Skipped (exit 77, a CTest skip) in a build without MPI. The distributed engine's
// own suite is test_distributed.
#include "cli_run.hpp"
#include "output_folders.hpp"
#include "support.hpp"

#include <QtTest>
#include <csignal>
#include <filesystem>
#include <fstream>

using namespace gpurec;
using namespace gpurec::test;

namespace {

// mpirun as root (CI), quiet, without binding the processes to cores (a 2-core machine shared with
// other work), and without the single-copy shared-memory transfers containers often forbid.
QProcessEnvironment mpiEnvironment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("OMPI_ALLOW_RUN_AS_ROOT", "1");
    env.insert("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    env.insert("OMPI_MCA_btl_vader_single_copy_mechanism", "none");
    env.insert("OMPI_MCA_hwloc_base_binding_policy", "none");
    env.insert("OMPI_MCA_rmaps_base_oversubscribe", "1");
    return env;
}

QStringList mpirun(int processes) {
    return {"-q", "--oversubscribe", "-np", QString::number(processes)};
}

CliRun mpirunWith(const QStringList& arguments) {
    QProcess p;
    p.setProcessEnvironment(mpiEnvironment());
    p.start(GPUREC_MPIEXEC, arguments);
    if (!p.waitForFinished(600000)) return {-1, "", "timeout"};
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

// `gpurec args` under mpirun with `processes` processes, or (0) as one plain process.
CliRun run(int processes, const QStringList& args) {
    if (processes == 0) return runGpurec(args);
    return mpirunWith(mpirun(processes) + QStringList{GPUREC_CLI_PATH} + args);
}

QStringList teaching(const std::string& outdir) {
    return {"-s",        q(sourcePath("samples/teaching/species.nwk")),
            "-f",        q(sourcePath("samples/teaching/families.txt")),
            "--device",  "cpu",
            "--threads", "1",
            "-p",        q(outdir)};
}

int errorLines(const QString& err) {
    return static_cast<int>(err.count("gpurec: error:"));
}

// The processes mpirun started (its children), from /proc.
std::vector<pid_t> childrenOf(qint64 pid) {
    std::vector<pid_t> out;
    for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
        std::ifstream in(task.path() / "children");
        for (pid_t child; in >> child;)
            out.push_back(child);
    }
    return out;
}

} // namespace

class TestMpiCli : public QObject {
    Q_OBJECT
  private slots:
    // With a family that cannot be read: both skip it with the same report and exit status 3.
    void evalMatchesOneProcess() {
        const std::string dir = temporaryFolder("mpi_eval");
        std::string families = fileText(sourcePath("samples/teaching/families.txt"));
        const std::string base = sourcePath("samples/teaching/");
        for (std::size_t at = 0; (at = families.find("gene_tree = ", at)) != std::string::npos;)
            families.insert(at += 12, base);
        writeFile(dir + "/families.txt", families + "- broken\ngene_tree = " + dir + "/broken.nwk\n");
        writeFile(dir + "/broken.nwk", "((a,b),\n");
        QStringList args = QStringList{"eval"} + teaching(dir + "/one");
        args[4] = q(dir + "/families.txt");
        const CliRun one = run(0, args);
        QCOMPARE(one.exitCode, 3);
        args.back() = q(dir + "/two");
        const CliRun two = run(2, args);
        QVERIFY2(two.exitCode == 3, qPrintable(two.err));
        QCOMPARE(two.err, one.err); // the skipped family reported once, as one process does
        compareOutputFolders(dir + "/one", dir + "/two");
        QCOMPARE(readJson(dir + "/two/result.json").at("mpi_ranks").get<int>(), 2);
        QCOMPARE(readJson(dir + "/one/result.json").at("mpi_ranks").get<int>(), 1);
    }

    void optimizeMatchesOneProcess_data() {
        QTest::addColumn<QString>("parametrization");
        QTest::newRow("global") << "GLOBAL";
        QTest::newRow("specieswise") << "PER-SPECIES";
        QTest::newRow("genewise") << "PER-FAMILY";
    }

    // The same steps, rates and files: the gradients are one process's bit for bit.
    void optimizeMatchesOneProcess() {
        QFETCH(QString, parametrization);
        const std::string dir = temporaryFolder("mpi_optimize");
        const QStringList options = {"--model-parametrization", parametrization, "--max-iter", "12"};
        const CliRun one = run(0, QStringList{"optimize"} + teaching(dir + "/one") + options);
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
        const CliRun two = run(2, QStringList{"optimize"} + teaching(dir + "/two") + options);
        QVERIFY2(two.exitCode == 0, qPrintable(two.err));
        compareOutputFolders(dir + "/one", dir + "/two");
    }

    // Families held by each of three processes (every reconciliation file is written by the first).
    void sampleMatchesOneProcess() {
        const std::string dir = temporaryFolder("mpi_sample");
        const QStringList options = {"--samples", "3",        "--seed",   "7",        "--xml-per-family",
                                     "--family",  "family02", "--family", "family13", "--family",
                                     "family17",  "--family", "family29"};
        const CliRun one = run(0, QStringList{"sample"} + teaching(dir + "/one") + options);
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
        const CliRun three = run(3, QStringList{"sample"} + teaching(dir + "/three") + options);
        QVERIFY2(three.exitCode == 0, qPrintable(three.err));
        compareOutputFolders(dir + "/one", dir + "/three");
    }

    // Transfer highways (--highways-file): their rates' gradient is a sum over every family, taken
    // in one process's order, so eval, optimize (their rates fitted, in the shared and the
    // per-family modes) and sample (highways/accepted_transfers) write one process's files.
    void highwaysMatchOneProcess_data() {
        QTest::addColumn<QStringList>("command");
        QTest::newRow("eval") << QStringList{"eval"};
        QTest::newRow("optimize global") << QStringList{"optimize", "--max-iter", "4"};
        QTest::newRow("optimize genewise")
            << QStringList{"optimize", "--model-parametrization", "PER-FAMILY", "--max-iter", "4"};
        QTest::newRow("sample") << QStringList{"sample",   "--samples", "2",        "--family", "family02",
                                               "--family", "family13",  "--family", "family29"};
    }

    void highwaysMatchOneProcess() {
        QFETCH(QStringList, command);
        const std::string dir = temporaryFolder("mpi_highways");
        writeFile(dir + "/highways.txt", "src, dest, proba\nEscherichia, Bacillus, 0.05\n"
                                         "Enterobacterales, Streptococcus, 0.02\n");
        const QStringList options = {"--highways-file", q(dir + "/highways.txt")};
        const QStringList subcommand = command.mid(0, 1), rest = command.mid(1);
        const CliRun one = run(0, subcommand + teaching(dir + "/one") + options + rest);
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
        const CliRun two = run(2, subcommand + teaching(dir + "/two") + options + rest);
        QVERIFY2(two.exitCode == 0, qPrintable(two.err));
        compareOutputFolders(dir + "/one", dir + "/two");
        QCOMPARE(readJson(dir + "/two/result.json").at("options").at("highways_file").get<std::string>(),
                 dir + "/highways.txt");
        if (command.front() == "sample")
            QVERIFY(std::filesystem::is_directory(dir + "/two/highways/accepted_transfers"));
    }

    void searchMatchesOneProcess_data() {
        QTest::addColumn<QStringList>("options");
        // HYBRID's transfer moves sample on every process; the pre-screen's families are a part of
        // each process's.
        QTest::newRow("hybrid, pre-screened") << QStringList{"--prescreen", "0.3"};
        QTest::newRow("reroot") << QStringList{"--species-tree-search", "REROOT"};
    }

    // The same moves tried and accepted (the trace), trees, supports and rates. Both runs write into
    // the same folder (result.json names the start tree there), moved aside after each.
    void searchMatchesOneProcess() {
        QFETCH(QStringList, options);
        const std::string dir = temporaryFolder("mpi_search");
        const CliRun one = run(0, QStringList{"search"} + teaching(dir + "/run") + options);
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
        std::filesystem::rename(dir + "/run", dir + "/one");
        const CliRun two = run(2, QStringList{"search"} + teaching(dir + "/run") + options);
        QVERIFY2(two.exitCode == 0, qPrintable(two.err));
        compareOutputFolders(dir + "/one", dir + "/run");
    }

    // A process started where the families file cannot be read: every process stops with its error,
    // printed once, and nothing is written.
    void aProcessThatCannotReadItsFamiliesStopsEveryProcess() {
        const std::string dir = temporaryFolder("mpi_unreadable");
        std::string families = fileText(sourcePath("samples/teaching/families.txt"));
        for (std::size_t at = 0; (at = families.find("gene_tree = ", at)) != std::string::npos;)
            families.insert(at += 12, sourcePath("samples/teaching/"));
        std::filesystem::create_directories(dir + "/here");
        std::filesystem::create_directories(dir + "/elsewhere"); // no families.txt there
        writeFile(dir + "/here/families.txt", families);
        QStringList args = teaching(dir + "/out");
        args[3] = "families.txt";
        const QStringList command = QStringList{GPUREC_CLI_PATH, "eval"} + args;
        // mpirun's two application contexts, one folder each.
        const CliRun r =
            mpirunWith(QStringList{"-q", "--oversubscribe", "-np", "1", "--wdir", q(dir + "/here")} +
                       command + QStringList{":", "-np", "1", "--wdir", q(dir + "/elsewhere")} + command);
        QVERIFY2(r.exitCode == 2, qPrintable(r.err));
        QCOMPARE(errorLines(r.err), 1);
        QVERIFY2(r.err.contains("gpurec: error: families.txt: cannot open file") &&
                     r.err.contains("(process 1 of 2)"),
                 qPrintable(r.err));
        QVERIFY(!std::filesystem::exists(dir + "/out/result.json"));
    }

    void moreProcessesThanChunksAreRefused() {
        const std::string dir = temporaryFolder("mpi_tiny");
        const CliRun r =
            run(3, {"eval", "-s", q(sourcePath("samples/tiny/species.nwk")), "-f",
                    q(sourcePath("samples/tiny/families.txt")), "--min-covered-species", "1", "-p", q(dir)});
        QVERIFY2(r.exitCode == 2, qPrintable(r.err));
        QCOMPARE(errorLines(r.err), 1);
        QVERIFY2(r.err.contains("3 processes for 2 families in 2 chunks: run at most 2 processes"),
                 qPrintable(r.err));
    }

    void commandsOfOneProcessRefuseSeveral() {
        const CliRun r = run(2, {"simulate", "-o", q(temporaryFolder("mpi_simulate"))});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(errorLines(r.err), 1);
        QVERIFY2(r.err.contains("gpurec simulate runs as one process"), qPrintable(r.err));
    }

    // SIGINT to one of the processes: all of them stop at the same iteration, the first writes the
    // best result so far and the checkpoint, and the run resumes under mpirun to its end.
    void aSignalToOneProcessStopsTheRun() {
        const std::string dir = temporaryFolder("mpi_signal");
        const QStringList args = {"optimize",
                                  "-s",
                                  q(sourcePath("samples/medium/species.nwk")),
                                  "-f",
                                  q(sourcePath("samples/medium/families.txt")),
                                  "--device",
                                  "cpu",
                                  "--threads",
                                  "1",
                                  "--model-parametrization",
                                  "PER-SPECIES",
                                  "--max-iter",
                                  "5",
                                  "-p",
                                  q(dir)};
        QProcess p;
        p.setProcessEnvironment(mpiEnvironment());
        p.start(GPUREC_MPIEXEC, mpirun(2) + QStringList{GPUREC_CLI_PATH} + args);
        QByteArray out;
        while (!out.contains("iter    1") && p.state() != QProcess::NotRunning) {
            p.waitForReadyRead(100);
            out += p.readAllStandardOutput();
        }
        const std::vector<pid_t> processes = childrenOf(p.processId());
        QCOMPARE(processes.size(), std::size_t(2));
        ::kill(processes.back(), SIGINT);
        QVERIFY(p.waitForFinished(600000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() == 130, qPrintable(err));
        QCOMPARE(err.count("gpurec: interrupted by SIGINT; resume with: gpurec optimize --resume"), 1);
        const nlohmann::json result = readJson(dir + "/result.json");
        QVERIFY(result.at("interrupted").get<bool>());
        const int iterations = result.at("optimization").at("iterations").get<int>();
        QVERIFY(iterations >= 1 && iterations < 5);
        const CliRun resumed = run(2, {"optimize", "--resume", q(dir), "--device", "cpu", "--threads", "1"});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        QVERIFY(!readJson(dir + "/result.json").at("interrupted").get<bool>());
    }
};

int main(int argc, char** argv) {
    if (std::string(GPUREC_MPIEXEC).empty()) {
        std::puts("SKIP: gpurec was built without MPI");
        return 77;
    }
    QCoreApplication app(argc, argv);
    TestMpiCli suite;
    return QTest::qExec(&suite, argc, argv);
}

#include "test_mpi_cli.moc"
