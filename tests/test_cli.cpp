// The gpurec command-line tool end to end: outputs of eval and bench, and errors on bad input.
#include "cli_run.hpp"
#include "support.hpp"

#include <QtTest>
#include <fstream>
#include <sstream>

using namespace gpurec::test;

class CommandLine : public QObject {
    Q_OBJECT

  private slots:
    void evalWritesAleRaxLayoutAndJson() {
        std::string out = temporaryFolder("cli_eval");
        std::string ds = sharedData("alerax/test_trees_2");
        CliRun r = runGpurec({"eval", "-s", q(ds + "/sp.nwk"), "-f", q(ds + "/families.txt"), "--d", "0.05",
                              "--l", "0.2", "--t", "0.02", "--schedule", "alerax", "-p", q(out)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("1 families, 15 species nodes, 39 clades, 46 splits"));
        std::ifstream per(out + "/per_fam_likelihoods.txt");
        std::string name;
        double ll = 0;
        per >> name >> ll;
        QCOMPARE(name, std::string("my_family"));
        QVERIFY(relativeError(ll, -15.523905050270844) < 1e-10); // alerax_v1.4 in reference.json
        nlohmann::json j = readJson(out + "/result.json");
        QCOMPARE(int(j["families"][0]["clades"]), 39);
        QVERIFY(relativeError(double(j["total"]["nll_bits"]), 15.523905050270844 / std::log(2.0)) < 1e-10);
        QCOMPARE(std::string(j["options"]["solver"]["schedule"]), std::string("alerax"));
    }

    void ratesFileAndGeneTreeList() {
        std::string out = temporaryFolder("cli_rates");
        std::string ds = sharedData("alerax/test_trees_1");
        std::string rates = out + "/model_parameters.txt";
        std::ostringstream text;
        text << "# node D L T\n";
        for (const char* node : {"5", "11", "12", "Node_11_12_0", "Node_5_11_0", "13", "14", "Node_13_14_0",
                                 "Node_5_13_0", "9", "10", "Node_9_10_0", "8", "Node_9_8_0", "Node_5_9_0"})
            text << node << " 0.1 0.1 0.1\n";
        writeFile(rates, text.str());
        CliRun r = runGpurec(
            {"eval", "-s", q(ds + "/sp.nwk"), q(ds + "/g.nwk"), "--rates-file", q(rates), "-p", q(out)});
        QCOMPARE(r.exitCode, 0);
        std::ifstream per(out + "/per_fam_likelihoods.txt");
        std::string name;
        double ll = 0;
        per >> name >> ll;
        QCOMPARE(name, std::string("g"));
        QVERIFY(relativeError(ll, -8.7693397455) < 1e-9); // converged value, spec 11.2
    }

    // gpurec bench on the CPU: sizes and timings in the JSON, the NLL of the timed evaluations that
    // of gpurec eval at the same rates, and a wave profile refused with a clear line (CUDA only).
    void benchReportsSizesTimingsAndTheEvaluatedNll() {
        std::string out = temporaryFolder("cli_bench");
        std::string ds = sharedData("alerax/test_trees_2");
        CliRun r =
            runGpurec({"bench", "-s", q(ds + "/sp.nwk"), "-f", q(ds + "/families.txt"), "--device", "cpu",
                       "--warmup", "0", "--repeats", "3", "--wave-profile", "-o", q(out + "/bench.json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("wave profile: only on a CUDA device"), qPrintable(r.out));
        nlohmann::json j = readJson(out + "/bench.json");
        QCOMPARE(int(j["dataset"]["families"]), 1);
        QCOMPARE(int(j["dataset"]["clades"]), 39);
        QCOMPARE(int(j["dataset"]["splits"]), 46);
        for (const char* phase : {"forward", "forward+gradient"}) {
            QCOMPARE(j[phase]["samples_seconds"].size(), std::size_t(3));
            QVERIFY(double(j[phase]["median_seconds"]) > 0);
            QVERIFY(double(j[phase]["min_seconds"]) <= double(j[phase]["median_seconds"]));
        }
        CliRun e = runGpurec(
            {"eval", "-s", q(ds + "/sp.nwk"), "-f", q(ds + "/families.txt"), "-p", q(out + "/eval")});
        QCOMPARE(e.exitCode, 0);
        const double evalNll = double(readJson(out + "/eval/result.json")["total"]["nll_bits"]);
        QVERIFY(relativeError(double(j["forward+gradient"]["total_nll_bits"]), evalNll) < 1e-12);
    }

    void badInputsGiveClearErrors() {
        std::string dir = temporaryFolder("cli_bad");
        writeFile(dir + "/s.nwk", "((A,B),(C,D);");
        CliRun r = runGpurec({"eval", "-s", q(dir + "/s.nwk"), q(dir + "/g.nwk"), "-p", q(dir + "/o")});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.trimmed(),
                 q("gpurec: error: " + dir + "/s.nwk:1:13: unbalanced parentheses: missing ')' before ';'"));
        writeFile(dir + "/s.nwk", "((A,B),(C,D));");
        writeFile(dir + "/g.nwk", "((A_1,B_1),(C_1,E_1));");
        r = runGpurec({"eval", "-s", q(dir + "/s.nwk"), q(dir + "/g.nwk"), "-p", q(dir + "/o")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(q(dir) + "/g.nwk:1:17: gene 'E_1' of family 'g' maps to species 'E'"),
                 qPrintable(r.err));
        r = runGpurec({"eval", "-s", q(dir + "/s.nwk"), q(dir + "/missing.nwk"), "-p", q(dir + "/o")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("missing.nwk: cannot open file: No such file or directory"),
                 qPrintable(r.err));
        r = runGpurec(
            {"eval", "-s", q(dir + "/s.nwk"), q(dir + "/g.nwk"), "--solver", "e_tol=2", "-p", q(dir + "/o")});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.trimmed(),
                 QString("gpurec: error: solver option e_tol = 2 is outside its range 0..1e-2"));
        writeFile(dir + "/g.nwk", "((A_1,B_1),(C_1,C_2));");
        r = runGpurec({"eval", "-s", q(dir + "/s.nwk"), q(dir + "/g.nwk"), "-p", q(dir + "/o")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("excluded family g: covers 3 species, fewer than the minimum of 4"));
        QVERIFY(r.err.contains("no family left to reconcile after exclusions"));
        r = runGpurec({"eval", "-s", q(dir + "/s.nwk"), q(dir + "/g.nwk"), "--min-covered-species", "3",
                       "--device", "gpu7", "-p", q(dir + "/o")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("bad device 'gpu7' (expected auto, cpu, cuda or cuda:N)"));
    }
};

QTEST_GUILESS_MAIN(CommandLine)
#include "test_cli.moc"
