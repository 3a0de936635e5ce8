// Crash-safe outputs: files appear only when complete, failures are reported, output folders are
// never mixed between runs, names from the data never leave the folder, labels are quoted.
#include "cli_run.hpp"
#include "io/csv_field.hpp"
#include "io/newick.hpp"
#include "io/output_file.hpp"
#include "io/output_folder.hpp"
#include "io/result_writer.hpp"
#include "optim/rate_files.hpp"
#include "recon/alerax_tables.hpp"
#include "recon/recon_newick.hpp"
#include "recon/recon_tables.hpp"
#include "recon/recphyloxml.hpp"
#include "support.hpp"

#include <QtTest>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace gpurec;
using namespace gpurec::test;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> folderEntries(const std::string& folder) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(folder))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// A two-family dataset whose families have the given names (gene trees of samples/tiny).
std::string tinyFamilies(const std::string& folder, const std::string& first, const std::string& second) {
    writeFile(folder + "/species.nwk", fileText(sourcePath("samples/tiny/species.nwk")));
    writeFile(folder + "/g1.nwk", fileText(sourcePath("samples/tiny/gene_trees/family1.nwk")));
    writeFile(folder + "/g2.nwk", fileText(sourcePath("samples/tiny/gene_trees/family2.nwk")));
    writeFile(folder + "/families.txt",
              "[FAMILIES]\n- " + first + "\ngene_tree = g1.nwk\n- " + second + "\ngene_tree = g2.nwk\n");
    return folder + "/families.txt";
}

} // namespace

class TestOutputFiles : public QObject {
    Q_OBJECT
  private slots:
    void committedFileHasItsTextAndNoTemporaryIsLeft() {
        std::string dir = temporaryFolder("commit");
        writeFileAtomically(dir + "/a.txt", "first\n");
        writeFileAtomically(dir + "/a.txt", "second\n");
        QCOMPARE(fileText(dir + "/a.txt"), std::string("second\n"));
        QCOMPARE(folderEntries(dir), std::vector<std::string>{"a.txt"});
    }

    void abandonedFileLeavesTheOldOneUntouched() {
        std::string dir = temporaryFolder("abandon");
        writeFileAtomically(dir + "/a.txt", "complete\n");
        try {
            writeFileAtomically(dir + "/a.txt", [](std::ostream& out) {
                out << "half of a new ";
                throw std::runtime_error("interrupted");
            });
            QFAIL("the writer's exception must propagate");
        } catch (const std::runtime_error& e) {
            QCOMPARE(std::string(e.what()), std::string("interrupted"));
        }
        QCOMPARE(fileText(dir + "/a.txt"), std::string("complete\n"));
        QCOMPARE(folderEntries(dir), std::vector<std::string>{"a.txt"});
    }

    void missingFolderIsNamedInTheError() {
        std::string path = temporaryFolder("missing") + "/no/such/folder/a.txt";
        try {
            writeFileAtomically(path, "x");
            QFAIL("expected an error");
        } catch (const std::runtime_error& e) {
            QCOMPARE(std::string(e.what()), "cannot write " + path + ": No such file or directory");
        }
    }

    // A full disk (here: the file-size limit) is an error naming the file, and no file appears.
    void fullDiskIsReportedAndNoFileAppears() {
        std::string dir = temporaryFolder("full");
        std::string path = dir + "/big.txt";
        pid_t child = fork();
        if (child == 0) {
            std::signal(SIGXFSZ, SIG_IGN); // write() then fails with EFBIG instead of killing us
            rlimit limit{4096, 4096};
            setrlimit(RLIMIT_FSIZE, &limit);
            try {
                writeFileAtomically(path, std::string(1 << 20, 'x'));
            } catch (const std::runtime_error& e) {
                _exit(std::string(e.what()) == "cannot write " + path + ": File too large" ? 0 : 2);
            }
            _exit(1);
        }
        int status = 0;
        waitpid(child, &status, 0);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
        QVERIFY(!fs::exists(path));
        QVERIFY(folderEntries(dir).empty());
    }

    void folderWithEarlierResultsIsRefusedUnlessOverwrite() {
        std::string dir = temporaryFolder("used");
        writeFile(dir + "/result.json", "{}");
        fs::create_directories(dir + "/reconciliations");
        writeFile(dir + "/reconciliations/old.xml", "<old/>");
        writeFile(dir + "/notes.txt", "the user's own file");
        writeFile(dir + "/per_fam_likelihoods.txt.gpurec-partial.77", "left by a crash");
        const std::vector<std::string> owned = {"result.json", "reconciliations", "summaries"};
        try {
            prepareOutputFolder(dir, owned, ExistingOutputs::Refuse);
            QFAIL("expected a refusal");
        } catch (const std::runtime_error& e) {
            QCOMPARE(std::string(e.what()),
                     "output folder " + dir +
                         " already holds results of an earlier run (result.json, reconciliations); pass "
                         "--overwrite to replace them, or choose another folder with -p");
        }
        prepareOutputFolder(dir, owned, ExistingOutputs::Overwrite);
        QCOMPARE(folderEntries(dir), std::vector<std::string>{"notes.txt"});
        writeFile(dir + "/result.json", "{}");
        prepareOutputFolder(dir, owned, ExistingOutputs::Keep);
        QCOMPARE(folderEntries(dir), (std::vector<std::string>{"notes.txt", "result.json"}));
    }

    void unwritableFolderFailsAtOnce() {
        std::string dir = temporaryFolder("unwritable");
        writeFile(dir + "/plain_file", "not a folder");
        try {
            prepareOutputFolder(dir + "/plain_file/out", {"result.json"}, ExistingOutputs::Refuse);
            QFAIL("expected an error");
        } catch (const std::runtime_error& e) {
            QVERIFY2(
                std::string(e.what()).rfind("cannot create output folder " + dir + "/plain_file/out", 0) == 0,
                e.what());
        }
    }

    void fileStemsStayInsideTheFolderAndAreReversible() {
        QCOMPARE(fileStem("family_12.b-3+x"), std::string("family_12.b-3+x"));
        QCOMPARE(fileStem("../../x"), std::string("%2E.%2F..%2Fx"));
        QCOMPARE(fileStem(".hidden"), std::string("%2Ehidden"));
        QCOMPARE(fileStem("a b/c%d"), std::string("a%20b%2Fc%25d"));
        QCOMPARE(fileStem("é"), std::string("%C3%A9"));
        const std::vector<std::string> names = {"",    ".",   "..", "../../x", "a/b", "a%2Fb",  "%",
                                                "%25", "a b", "é",  "x\ny",    "CON", "family1"};
        std::set<std::string> stems;
        for (const std::string& n : names) {
            std::string stem = fileStem(n);
            QVERIFY2(stem.find('/') == std::string::npos && stem != "." && stem != ".." && !stem.empty(),
                     stem.c_str());
            QCOMPARE(fileStemName(stem), n);
            stems.insert(stem);
        }
        QCOMPARE(stems.size(), names.size());
    }

    void csvFieldsAreQuotedWhereNeeded() {
        QCOMPARE(csvField("plain"), std::string("plain"));
        QCOMPARE(csvField("a,b"), std::string("\"a,b\""));
        QCOMPARE(csvField("say \"hi\""), std::string("\"say \"\"hi\"\"\""));
        QCOMPARE(csvField("two\nlines"), std::string("\"two\nlines\""));
        QCOMPARE(csvField(" padded"), std::string("\" padded\""));
    }

    // Labels with Newick's reserved characters survive in every text output.
    void labelsWithSpacesAndCommasAreQuoted() {
        NewickTree t = parseNewick("((A:1,'B, the second':1)'AB node':1,C:2)R;", "t.nwk").at(0);
        SpeciesTree species = SpeciesTree::fromNewick(t);
        int a = species.find("A"), b = species.find("B, the second"), c = species.find("C"),
            ab = species.find("AB node"), root = species.find("R");
        Reconciliation r;
        r.family = "fam";
        int top = addNode(r, -1, {{EventType::Speciation, root}});
        int left = addNode(r, top, {{EventType::Transfer, ab, c}});
        addNode(r, left, {{EventType::Leaf, a}}, "gene one");
        addNode(r, left, {{EventType::Leaf, c}}, "g,2");
        addNode(r, top, {{EventType::Leaf, c}}, "g3");
        r.originSpecies = root;
        std::string events = toNewickEvents(r);
        QCOMPARE(events, std::string("(('gene one':0,'g,2':0)T:0,g3:0)S;"));
        QCOMPARE(parseNewick(events, "events").at(0).leaves().size(), std::size_t(3));
        std::string ale = toAleNewick(r, species);
        QCOMPARE(ale, std::string("(('gene one':0,'g,2':0)'.T@AB node->C':0,g3:0).R;"));
        QCOMPARE(parseNewick(ale, "ale").at(0).nodes.size(), std::size_t(5));
        TransferCounts counts;
        counts[{ab, c}] = 2;
        counts[{b, a}] = 1;
        QCOMPARE(aleraxTransferTable(counts, species), std::string("'AB node' C 2\n'B, the second' A 1\n"));
        QCOMPARE(aleraxOrigins(summarize({r}, species), species, c),
                 std::string("vertical: 1\n'AB node', 1\n"));
        ReconciliationSummary summary = summarize({r}, species);
        QVERIFY(originationsCsv(summary, species).find("R,1") != std::string::npos);
        std::string perSpecies = meanSpeciesEventCountsCsv(summary, species);
        QVERIFY2(perSpecies.find("\nAB node,") != std::string::npos, perSpecies.c_str());
        summary.origination[b] = 1;
        QVERIFY(originationsCsv(summary, species).find("\"B, the second\",1") != std::string::npos);
    }

    // A species name with a blank is quoted in model_parameters.txt and read back.
    void quotedSpeciesNamesRoundTripThroughRateFiles() {
        SpeciesTree species =
            SpeciesTree::fromNewick(parseNewick("((A:1,'B b':1)'it''s':1,C:2)R;", "t.nwk").at(0));
        RateParameters theta(RateMode::Specieswise, species.size(), 1, {0.1, 0.2, 0.3});
        theta.setRates(species.find("B b"), {0.25, 0.5, 0.125});
        std::string path = temporaryFolder("rates") + "/model_parameters.txt";
        writeModelParameters(path, species, theta);
        QVERIFY(fileText(path).find("\n'B b' 0.25 0.5 0.125\n") != std::string::npos);
        QVERIFY(fileText(path).find("\n'it''s' 0.10000000000000001") != std::string::npos);
        RateParameters back = readModelParameters(path, species, 1);
        for (int e = 0; e < species.size(); ++e) {
            QCOMPARE(back.rates(back.row(0, e)).d, theta.rates(theta.row(0, e)).d);
            QCOMPARE(back.rates(back.row(0, e)).t, theta.rates(theta.row(0, e)).t);
        }
    }

    // Deep gene trees are written compactly by default: indentation would grow with depth squared.
    void deepReconciliationsAreCompactByDefault() {
        NewickTree t = parseNewick("(A:1,B:1)R;", "t.nwk").at(0);
        SpeciesTree species = SpeciesTree::fromNewick(t);
        int a = species.find("A"), root = species.find("R");
        auto chain = [&](int depth) {
            Reconciliation r;
            r.family = "deep";
            int parent = -1;
            for (int i = 0; i < depth; ++i) {
                int node = addNode(r, parent, {{EventType::Duplication, a}});
                addNode(r, node, {{EventType::Leaf, a}}, "g" + std::to_string(i));
                parent = node;
            }
            addNode(r, parent, {{EventType::Leaf, a}}, "last");
            r.originSpecies = root;
            return r;
        };
        std::string shallow = toRecPhyloXml(species, {chain(10)});
        QVERIFY(shallow.find("\n      ") != std::string::npos); // indented
        std::string deep = toRecPhyloXml(species, {chain(kRecPhyloIndentDepthLimit + 1)});
        QVERIFY(deep.find("\n  ") == std::string::npos); // no indentation at all
        QCOMPARE(parseRecPhyloXml(deep, "deep.xml").reconciliations.at(0).nodes.size(),
                 std::size_t(2 * (kRecPhyloIndentDepthLimit + 1) + 1));
        std::string forced =
            toRecPhyloXml(species, {chain(kRecPhyloIndentDepthLimit + 1)}, XmlLayout::Indented);
        QVERIFY(forced.size() > deep.size());
        std::string dir = temporaryFolder("xml");
        writeRecPhyloXml(dir + "/deep.xml", species, {chain(kRecPhyloIndentDepthLimit + 1)});
        QCOMPARE(fileText(dir + "/deep.xml"), deep);
    }

    // End to end: a hostile family name, a used folder, --overwrite.
    void cliKeepsEveryFileInsideTheOutputFolder() {
        std::string dir = temporaryFolder("traversal");
        fs::create_directories(dir + "/in/deeper");
        std::string families = tinyFamilies(dir + "/in/deeper", "../../x", "family2");
        std::string out = dir + "/in/deeper/out";
        CliRun run = runGpurec({"sample", "-s", q(dir + "/in/deeper/species.nwk"), "-f", q(families),
                                "--samples", "2", "--min-covered-species", "1", "-p", q(out)});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(!fs::exists(dir + "/x_samples.xml") && !fs::exists(dir + "/x_samples.newick"));
        QCOMPARE(folderEntries(dir), std::vector<std::string>{"in"});
        QVERIFY(fs::exists(out + "/reconciliations/all/%2E.%2F..%2Fx_sample_0.xml"));
        QVERIFY(fs::exists(out + "/reconciliations/summaries/%2E.%2F..%2Fx_meanTransfers.txt"));
        nlohmann::json j = readJson(out + "/result.json");
        QCOMPARE(j["families"][0]["name"].get<std::string>(), std::string("../../x"));

        CliRun again = runGpurec({"sample", "-s", q(dir + "/in/deeper/species.nwk"), "-f", q(families),
                                  "--samples", "2", "--min-covered-species", "1", "-p", q(out)});
        QCOMPARE(again.exitCode, 2);
        QCOMPARE(again.err.trimmed(), q("gpurec: error: output folder " + out +
                                        " already holds results of an earlier run (reconciliations, "
                                        "result.json); pass --overwrite to replace them, or choose another "
                                        "folder with -p"));
        writeFile(out + "/reconciliations/all/stale_samples.xml", "<stale/>");
        CliRun overwrite =
            runGpurec({"sample", "-s", q(dir + "/in/deeper/species.nwk"), "-f", q(families), "--samples", "2",
                       "--min-covered-species", "1", "-p", q(out), "--overwrite"});
        QVERIFY2(overwrite.exitCode == 0, qPrintable(overwrite.err));
        QVERIFY(!fs::exists(out + "/reconciliations/all/stale_samples.xml"));
    }

    void unwritableOutputFailsBeforeTheRun() {
        std::string dir = temporaryFolder("early");
        std::string families = tinyFamilies(dir, "family1", "family2");
        writeFile(dir + "/occupied", "a file where the folder should be");
        CliRun run = runGpurec({"eval", "-s", q(dir + "/species.nwk"), "-f", q(families),
                                "--min-covered-species", "1", "-p", q(dir + "/occupied")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.startsWith(q("gpurec: error: cannot create output folder " + dir + "/occupied")),
                 qPrintable(run.err));
        QVERIFY(run.out.isEmpty()); // nothing was computed
    }

    // A simulation that fails leaves no half-written dataset (and no families.txt).
    void failedSimulationLeavesNothingBehind() {
        std::string dir = temporaryFolder("simfail");
        std::string out = dir + "/sim";
        writeFile(dir + "/species.nwk", "((A:1,B:1):1,(C:1,D:1):1);");
        CliRun run = runGpurec({"simulate", "-o", q(out), "-s", q(dir + "/species.nwk"), "--families", "20",
                                "--max-genes", "2", "--min-covered-species", "4", "--seed", "3"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("gpurec: error: "), qPrintable(run.err));
        QVERIFY(folderEntries(out).empty());
    }
};

QTEST_GUILESS_MAIN(TestOutputFiles)
#include "test_output_files.moc"
