// `gpurec search` end to end on a dataset of `gpurec simulate`: AleRax's species_trees/ files, the
// inferred tree's likelihood against `gpurec eval`, SIGINT keeping the best tree, bad start trees;
// `gpurec test-trees`.
#include "cli_run.hpp"
#include "support.hpp"

#include "io/newick.hpp"
#include "species_search/search_files.hpp"
#include "species_search/species_topology.hpp"

#include <QtTest>
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace gpurec;
using namespace gpurec::test;

namespace {

std::string readText(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// One simulated dataset for the whole suite: 8 species, 30 families.
const std::string& simulatedFolder() {
    static const std::string folder = [] {
        const std::string out = temporaryFolder("cli_search_sim") + "/sim";
        CliRun r = runGpurec({"simulate", "-o", q(out), "--species", "8", "--families", "30", "--d", "0.15",
                              "--l", "0.15", "--t", "0.05", "--seed", "4", "--min-covered-species", "4"});
        if (r.exitCode != 0) qFatal("simulate failed: %s", qPrintable(r.err));
        return out;
    }();
    return folder;
}

double totalOfPerFamilyFile(const std::string& path) {
    std::ifstream in(path);
    std::string name;
    double ll = 0, total = 0;
    while (in >> name >> ll)
        total += ll;
    return total;
}

} // namespace

class CliSearch : public QObject {
    Q_OBJECT

  private slots:
    // From MiniNJ: every AleRax file, a tree at least as likely as the true one at the same rates
    // (checked by gpurec eval on both trees) and close to it.
    void searchFromMiniNjWritesAleRaxFiles() {
        const std::string& sim = simulatedFolder();
        const std::string out = temporaryFolder("cli_search") + "/out";
        CliRun r = runGpurec({"search", "-s", "MiniNJ", "-f", q(sim + "/families.txt"), "--replicates", "100",
                              "--threads", "2", "-p", q(out)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        for (const char* file : {"starting_species_tree.newick", "inferred_species_tree.newick",
                                 "species_tree_support_kh.newick", "species_tree_support_bp.newick",
                                 "species_tree_root_llr.newick", "species_tree_root_rell.newick"})
            QVERIFY2(std::filesystem::exists(out + "/species_trees/" + file), file);
        QVERIFY(std::filesystem::exists(out + "/model_parameters/model_parameters.txt"));
        const nlohmann::json j = readJson(out + "/result.json");
        const double ll = double(j["search"]["log_likelihood"]);
        QVERIFY(relativeError(totalOfPerFamilyFile(out + "/per_fam_likelihoods.txt"), ll) < 1e-12);
        QCOMPARE(std::string(j["search"]["strategy"]), std::string("HYBRID"));
        QVERIFY(!bool(j["search"]["interrupted"]));
        // The default SPR cutoff left regrafts out; repeated candidates were not scored again.
        QCOMPARE(double(j["search"]["spr_cutoff"]), 1.0);
        QVERIFY(int(j["search"]["spr_cutoff_skipped"]) > 0);
        QCOMPARE(double(j["search"]["spr_memory"]), 1.0);
        QVERIFY(int(j["search"]["spr_memory_skipped"]) >= 0);
        QVERIFY(int(j["search"]["repeats_skipped"]) > 0);
        QCOMPARE(double(j["search"]["prescreen_confirm"]), 2.5); // the default, unused without a pre-screen
        QCOMPARE(int(j["search"]["confirmations"]), 0);
        // Where the time went, as printed: no pre-screen, so no screens.
        const nlohmann::json& in = j["search"]["activity_seconds"];
        QVERIFY(double(in["scoring"]) > 0 && double(in["rate_fits"]) > 0);
        QCOMPARE(double(in["screening"]), 0.0);
        QVERIFY(double(in["start"]) + double(in["scoring"]) + double(in["rate_fits"]) +
                    double(in["transfer_rounds"]) <=
                double(j["search"]["seconds"]));
        QVERIFY2(r.out.contains("time: start "), qPrintable(r.out));
        const std::vector<std::string> rates = {"--d", std::to_string(double(j["search"]["rates"]["D"])),
                                                "--l", std::to_string(double(j["search"]["rates"]["L"])),
                                                "--t", std::to_string(double(j["search"]["rates"]["T"]))};
        auto evalOn = [&](const std::string& tree, const std::string& folder) {
            QStringList args{"eval", "-s", q(tree), "-f", q(sim + "/families.txt"), "-p", q(folder)};
            for (const std::string& a : rates)
                args << q(a);
            CliRun e = runGpurec(args);
            if (e.exitCode != 0) qWarning("%s", qPrintable(e.err));
            return double(readJson(folder + "/result.json")["total"]["ll_nats"]);
        };
        // The printed rates have 6 decimals: compare the two trees at those same rates.
        const double inferred =
            evalOn(out + "/species_trees/inferred_species_tree.newick", out + "/eval_inferred");
        const double truth = evalOn(sim + "/species.nwk", out + "/eval_truth");
        QVERIFY2(inferred >= truth - 1e-6, qPrintable(QString("%1 < %2").arg(inferred).arg(truth)));
        QVERIFY(std::abs(inferred - ll) < 1e-2);
        const SpeciesTopology a = SpeciesTopology::fromSpeciesTree(
            SpeciesTree::readFile(out + "/species_trees/inferred_species_tree.newick"));
        const SpeciesTopology b =
            SpeciesTopology::fromSpeciesTree(SpeciesTree::readFile(sim + "/species.nwk"), a.leafNames());
        QVERIFY(rootedRobinsonFoulds(a, b) <= 2);
        // The trace: a header, then the start, whose LL is the start tree's.
        const std::string trace = readText(out + "/search_trace.csv");
        QVERIFY(trace.starts_with("step,move,log_likelihood,accepted,seconds,d,l,t,tree,screened\n0,start,"));
        QVERIFY(readText(out + "/species_trees/species_tree_support_kh.newick").find(")100") !=
                std::string::npos);
    }

    // REROOT from the true tree rooted elsewhere: the true rooted tree back, root files with every
    // position (the true one at LLR 0), no branch-support files.
    void rerootFindsTheTrueRoot() {
        const std::string& sim = simulatedFolder();
        const std::string dir = temporaryFolder("cli_reroot");
        const SpeciesTree truth = SpeciesTree::readFile(sim + "/species.nwk");
        const SpeciesTopology t = SpeciesTopology::fromSpeciesTree(truth);
        SpeciesTopology start = t;
        const int side = t.isLeaf(t.left(t.root())) ? t.right(t.root()) : t.left(t.root());
        start.rerootAbove(t.left(side)); // one move from the true root
        QVERIFY(start.canonicalNewick() != t.canonicalNewick());
        writeFile(dir + "/start.nwk", start.toSpeciesTree().toNewick(true) + "\n");
        CliRun r = runGpurec({"search", "-s", q(dir + "/start.nwk"), "--species-tree-search", "REROOT", "-f",
                              q(sim + "/families.txt"), "--replicates", "100", "-p", q(dir + "/out")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const SpeciesTopology inferred = SpeciesTopology::fromSpeciesTree(
            SpeciesTree::readFile(dir + "/out/species_trees/inferred_species_tree.newick"), t.leafNames());
        QCOMPARE(inferred.canonicalNewick(), t.canonicalNewick());
        QVERIFY(!std::filesystem::exists(dir + "/out/species_trees/species_tree_support_kh.newick"));
        const std::string llr = readText(dir + "/out/species_trees/species_tree_root_llr.newick");
        const std::string rell = readText(dir + "/out/species_trees/species_tree_root_rell.newick");
        // Every non-root node carries a value: 2n − 2 labels, the root's two children the best's.
        const NewickTree labelled = parseNewick(llr, "llr").front();
        int zeros = 0;
        for (int n = 0; n < int(labelled.nodes.size()); ++n) {
            if (n == labelled.root) continue;
            const std::string& name = labelled.nodes[n].label;
            const std::string value = labelled.isLeaf(n) ? name.substr(name.find('_') + 1) : name;
            QVERIFY2(std::stod(value) <= 0, name.c_str());
            zeros += std::stod(value) == 0;
        }
        QCOMPARE(zeros, 2);
        QVERIFY(rell.find(")100:") != std::string::npos || rell.find("_100:") != std::string::npos);
    }

    // SIGINT once the search has started: exit status 130 with the best tree so far and result.json.
    void sigintKeepsTheBestTree() {
        const std::string& sim = simulatedFolder();
        const std::string out = temporaryFolder("cli_search_int") + "/out";
        QProcess p;
        p.start(GPUREC_CLI_PATH, {"search", "-s", "Random", "-f", q(sim + "/families.txt"), "--threads", "1",
                                  "--replicates", "50", "-p", q(out)});
        QByteArray text;
        while (!text.contains("step 0: start") && p.state() != QProcess::NotRunning) {
            p.waitForReadyRead(100);
            text += p.readAllStandardOutput();
        }
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(600000));
        text += p.readAllStandardOutput();
        QCOMPARE(p.exitCode(), 130);
        QVERIFY2(text.contains("interrupted after"), text.constData());
        const nlohmann::json j = readJson(out + "/result.json");
        QVERIFY(bool(j["search"]["interrupted"]));
        QCOMPARE(readText(out + "/species_trees/inferred_species_tree.newick"),
                 std::string(j["search"]["inferred_tree"]) + "\n");
        const double interruptedLl = j["search"]["log_likelihood"];
        const nlohmann::json stopped = readJson(out + "/checkpoint.json");
        QVERIFY(!bool(stopped["finished"]));
        QCOMPARE(std::string(stopped["run"]["tree"]), std::string(j["search"]["inferred_tree"]));
        QCOMPARE(double(stopped["run"]["options"]["--prescreen-confirm"]), 2.5); // recorded, as it decides
        // Where the search stood, and its tree's node ids, for --resume to go on there.
        const std::string phase = stopped["run"]["position"]["phase"];
        QVERIFY2(phase == "start" || phase == "transfer" || phase == "spr" || phase == "pass end",
                 phase.c_str());
        QCOMPARE(stopped["run"]["node_links"]["left"].size(), stopped["run"]["node_links"]["right"].size());
        // ... and what it had learned (SearchMemory): the KH test's reference over the 50 replicates.
        const nlohmann::json& memory = stopped["run"]["memory"];
        QVERIFY(memory["settled"].is_array() && memory["spr_memory"].is_array());
        QCOMPARE(memory["kh"]["reference_sums"].size(), std::size_t(50));
        { // a damaged memory is refused, naming the checkpoint
            const std::string damaged = temporaryFolder("cli_search_int_damaged") + "/out";
            std::filesystem::copy(out, damaged, std::filesystem::copy_options::recursive);
            nlohmann::json bad = stopped;
            bad["run"]["memory"]["drops"] = -3;
            std::ofstream(damaged + "/checkpoint.json") << bad.dump(1);
            CliRun refused = runGpurec({"search", "--resume", q(damaged)});
            QVERIFY(refused.exitCode != 0);
            QVERIFY2(refused.err.contains("checkpoint.json") && refused.err.contains("drops"),
                     qPrintable(refused.err));
        }
        const std::string start = readText(out + "/species_trees/starting_species_tree.newick");
        const std::string earlierTrace = readText(out + "/search_trace.csv");
        const int earlierRows = int(std::count(earlierTrace.begin(), earlierTrace.end(), '\n')) - 1;
        { // the trace as gpurec wrote it before the pre-screen's column: resumed, its rows are kept
            std::string old = earlierTrace;
            QVERIFY(old.starts_with("step,move,log_likelihood,accepted,seconds,d,l,t,tree,screened\n"));
            for (std::size_t at; (at = old.find(",0\n")) != std::string::npos;)
                old.replace(at, 3, "\n");
            old.replace(0, old.find('\n'), "step,move,log_likelihood,accepted,seconds,d,l,t,tree");
            std::ofstream(out + "/search_trace.csv") << old;
        }

        // --resume goes on from the best tree and its rates, in the same folder, to the end.
        CliRun resumed = runGpurec({"search", "--resume", q(out), "--threads", "2"});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        QVERIFY2(resumed.out.contains(QString("resuming %1 after %2 steps").arg(q(out)).arg(earlierRows)),
                 qPrintable(resumed.out));
        const nlohmann::json done = readJson(out + "/result.json");
        QVERIFY(!bool(done["search"]["interrupted"]));
        QCOMPARE(int(done["search"]["resumed_at_step"]), earlierRows);
        QVERIFY(double(done["search"]["log_likelihood"]) >= interruptedLl);
        QCOMPARE(std::string(done["search"]["starting_tree"]), std::string(j["search"]["inferred_tree"]));
        QCOMPARE(readText(out + "/species_trees/starting_species_tree.newick"), start); // the first part's
        const std::string trace = readText(out + "/search_trace.csv");
        QVERIFY(trace.starts_with(earlierTrace));
        QVERIFY(trace.find("\n" + std::to_string(earlierRows) + ",") != std::string::npos); // numbered on
        // ... and timed on: the resumed rows' seconds go on from the earlier part's last row.
        QVERIFY(lastTraceSeconds(trace) >= lastTraceSeconds(earlierTrace));
        const std::string resumedStart =
            trace.substr(trace.find("\n" + std::to_string(earlierRows) + ",") + 1);
        QVERIFY(lastTraceSeconds(searchTraceHeader() + "\n" +
                                 resumedStart.substr(0, resumedStart.find('\n') + 1)) >=
                lastTraceSeconds(earlierTrace));
        QVERIFY(
            !readJson(out + "/checkpoint.json")["run"].contains("position")); // finished: nowhere to go on
        QVERIFY(bool(readJson(out + "/checkpoint.json")["finished"]));
        // The same LL as gpurec eval on the inferred tree at the written rates.
        const std::string check = temporaryFolder("cli_search_int_eval") + "/out";
        CliRun eval = runGpurec({"eval", "-s", q(out + "/species_trees/inferred_species_tree.newick"), "-f",
                                 q(sim + "/families.txt"), "--rates-file",
                                 q(out + "/model_parameters/model_parameters.txt"), "-p", q(check)});
        QVERIFY2(eval.exitCode == 0, qPrintable(eval.err));
        QVERIFY(relativeError(totalOfPerFamilyFile(check + "/per_fam_likelihoods.txt"),
                              double(done["search"]["log_likelihood"])) < 1e-9);

        CliRun again = runGpurec({"search", "--resume", q(out)});
        QCOMPARE(again.exitCode, 0);
        QVERIFY2(again.out.contains("the search there has finished; nothing to resume"),
                 qPrintable(again.out));
    }

    // A dated REROOT search (RELDATED, --infer-speciation-order) stopped by SIGINT after its first
    // accepted root move resumes from the dated tree of the checkpoint (its rank-derived lengths)
    // and ends where the uninterrupted search ends: the same dated tree, the same log-likelihood.
    // (150 families: the search goes on for a second or more after that move, time for the signal.)
    void datedRerootResumesToTheSameTree() {
        const std::string dir = temporaryFolder("cli_dated_resume"), sim = dir + "/sim";
        CliRun simulated = runGpurec({"simulate", "-o", q(sim), "--species", "8", "--families", "150", "--d",
                                      "0.05", "--l", "0.05", "--t", "0.25", "--seed", "8",
                                      "--transfer-constraint", "RELDATED", "--min-covered-species", "4"});
        QVERIFY2(simulated.exitCode == 0, qPrintable(simulated.err));
        // The true dated tree with its root moved one edge.
        SpeciesTopology start =
            SpeciesTopology::fromSpeciesTree(SpeciesTree::readFile(sim + "/species.nwk"), {}, true);
        int side = start.left(start.root());
        if (start.isLeaf(side)) side = start.sibling(side);
        start.rerootAbove(start.left(side));
        writeFile(dir + "/start.nwk", start.toSpeciesTree().toNewick(true) + "\n");
        const QStringList search = {"search",
                                    "-s",
                                    q(dir + "/start.nwk"),
                                    "-f",
                                    q(sim + "/families.txt"),
                                    "--transfer-constraint",
                                    "RELDATED",
                                    "--species-tree-search",
                                    "REROOT",
                                    "--infer-speciation-order",
                                    "--replicates",
                                    "50",
                                    "--threads",
                                    "1",
                                    "-p"};
        const std::string whole = dir + "/whole", parts = dir + "/parts";
        CliRun uninterrupted = runGpurec(search + QStringList{q(whole)});
        QVERIFY2(uninterrupted.exitCode == 0, qPrintable(uninterrupted.err));

        QProcess p;
        p.start(GPUREC_CLI_PATH, search + QStringList{q(parts)});
        QByteArray text;
        while (!text.contains(": root above ") && p.state() != QProcess::NotRunning) {
            p.waitForReadyRead(100);
            text += p.readAllStandardOutput();
        }
        QVERIFY2(text.contains(", dated ("), text.constData()); // an accepted root move was printed
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(600000));
        QCOMPARE(p.exitCode(), 130);
        const nlohmann::json stopped = readJson(parts + "/result.json")["search"];
        QVERIFY(bool(stopped["interrupted"]));
        QVERIFY(bool(stopped["infer_speciation_order"]));
        const std::string checkpointTree = readJson(parts + "/checkpoint.json")["run"]["tree"];
        QCOMPARE(checkpointTree, std::string(stopped["inferred_tree"]));

        CliRun resumed = runGpurec({"search", "--resume", q(parts)});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        const nlohmann::json a = readJson(whole + "/result.json")["search"];
        const nlohmann::json b = readJson(parts + "/result.json")["search"];
        QVERIFY(!bool(b["interrupted"]));
        QVERIFY(b["resumed_at_step"].is_number());
        // Resumed from the checkpoint's tree with its dating (read back undated, or dated afresh, it
        // would start from another tree), to the end: the dating step ran.
        QCOMPARE(std::string(b["starting_tree"]), checkpointTree);
        QVERIFY(b.contains("speciation_order"));
        QCOMPARE(readText(parts + "/species_trees/inferred_species_tree.newick"),
                 readText(whole + "/species_trees/inferred_species_tree.newick"));
        const double ll = a["log_likelihood"];
        QVERIFY2(
            std::abs(double(b["log_likelihood"]) - ll) < 1e-9 * std::abs(ll),
            qPrintable(QString("%1 vs %2").arg(double(b["log_likelihood"]), 0, 'g', 17).arg(ll, 0, 'g', 17)));
    }

    // --resume with an option that differs from the recorded run is refused, naming both values.
    void resumeRefusesConflictingOptions() {
        const std::string& sim = simulatedFolder();
        const std::string out = temporaryFolder("cli_search_conflict") + "/out";
        QProcess p;
        p.start(GPUREC_CLI_PATH, {"search", "-s", "MiniNJ", "-f", q(sim + "/families.txt"), "--threads", "1",
                                  "--replicates", "50", "-p", q(out)});
        QByteArray text;
        while (!text.contains("step 0: start") && p.state() != QProcess::NotRunning) {
            p.waitForReadyRead(100);
            text += p.readAllStandardOutput();
        }
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(600000));
        CliRun r = runGpurec(
            {"search", "--resume", q(out), "--max-radius", "5", "--spr-cutoff", "2", "--spr-memory", "0"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("options conflict with the run recorded in " + q(out) +
                                "/checkpoint.json:\n"
                                "  --max-radius 5 (the run has 3)"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("  --spr-cutoff 2.0 (the run has 1.0)"), qPrintable(r.err));
        QVERIFY2(r.err.contains("  --spr-memory 0.0 (the run has 1.0)"), qPrintable(r.err));
    }

    // test-trees at fixed rates: the per-family table is gpurec eval's on each tree, the KH p-value
    // the normal formula on that table's columns, and a tree over other species is refused.
    void testTreesTableAndTests() {
        const std::string& sim = simulatedFolder();
        const std::string dir = temporaryFolder("cli_test_trees");
        const SpeciesTree truth = SpeciesTree::readFile(sim + "/species.nwk");
        SpeciesTopology moved = SpeciesTopology::fromSpeciesTree(truth);
        moved.applySpr(0, moved.sprRegrafts(0, 2).back());
        const std::string other = dir + "/moved.nwk";
        writeFile(other, moved.toSpeciesTree().toNewick(true) + "\n");
        const QStringList rates{"--fix-rates", "--d", "0.15", "--l", "0.15", "--t", "0.05"};
        CliRun r =
            runGpurec(QStringList{"test-trees", "-s", q(sim + "/species.nwk"), "-s", q(other), "-f",
                                  q(sim + "/families.txt"), "--replicates", "1000", "-p", q(dir + "/out")} +
                      rates);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        CliRun e = runGpurec({"eval", "-s", q(other), "-f", q(sim + "/families.txt"), "--d", "0.15", "--l",
                              "0.15", "--t", "0.05", "-p", q(dir + "/eval")});
        QCOMPARE(e.exitCode, 0);
        std::map<std::string, double> evalLL;
        {
            std::ifstream in(dir + "/eval/per_fam_likelihoods.txt");
            std::string name;
            double ll = 0;
            while (in >> name >> ll)
                evalLL[name] = ll;
        }
        std::ifstream table(dir + "/out/per_family_likelihoods.csv");
        std::string line;
        std::getline(table, line);
        QCOMPARE(line, std::string("family,tree1,tree2"));
        std::vector<double> d; // tree1 − tree2 per family
        double delta = 0;
        while (std::getline(table, line)) {
            std::stringstream fields(line);
            std::string name, a, b;
            std::getline(fields, name, ',');
            std::getline(fields, a, ',');
            std::getline(fields, b, ',');
            QVERIFY(relativeError(std::stod(b), evalLL.at(name)) < 1e-12);
            d.push_back(std::stod(a) - std::stod(b));
            delta += d.back();
        }
        QCOMPARE(d.size(), evalLL.size());
        QVERIFY(delta > 0); // the true tree is the better one
        double mean = delta / d.size(), ss = 0;
        for (double x : d)
            ss += (x - mean) * (x - mean);
        const double kh = 0.5 * std::erfc(delta / std::sqrt(d.size() * ss / (d.size() - 1)) / std::sqrt(2.0));
        const nlohmann::json j = readJson(dir + "/out/result.json");
        QCOMPARE(double(j["trees"][0]["delta"]), 0.0);
        QVERIFY(std::abs(double(j["trees"][1]["kh"]) - kh) < 1e-12);
        QVERIFY(double(j["trees"][0]["au"]) > double(j["trees"][1]["au"]));
        for (const char* test : {"kh", "sh", "bp", "au"}) {
            QVERIFY(double(j["trees"][1][test]) >= 0);
            QVERIFY(double(j["trees"][1][test]) <= 1);
        }
        writeFile(dir + "/small.nwk",
                  "((" + truth.name(0) + "," + truth.name(1) + "),(" + truth.name(2) + ",Z));\n");
        r = runGpurec(QStringList{"test-trees", "-s", q(sim + "/species.nwk"), "-s", q(dir + "/small.nwk"),
                                  "-f", q(sim + "/families.txt"), "-p", q(dir + "/bad")} +
                      rates);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("small.nwk: the tree's leaves do not match the families' species; missing: "),
                 qPrintable(r.err));
    }

    // Per-family rates: each family's rates file, and the per-family likelihoods add up to the total.
    void perFamilyRates() {
        const std::string& sim = simulatedFolder();
        const std::string out = temporaryFolder("cli_search_fam") + "/out";
        CliRun r =
            runGpurec({"search", "-s", q(sim + "/species.nwk"), "--model-parametrization", "PER-FAMILY", "-f",
                       q(sim + "/families.txt"), "--replicates", "50", "--max-radius", "1", "--prescreen",
                       "0.3", "--prescreen-confirm", "2", "--prescreen-lanes", "2", "-p", q(out)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const nlohmann::json j = readJson(out + "/result.json");
        QCOMPARE(std::string(j["search"]["model_parametrization"]), std::string("genewise"));
        // Pre-screened on 30 % of the families, confirmed on 60 %: the trace's screened rows are those
        // the counts give (left out at either stage).
        QCOMPARE(double(j["search"]["prescreen"]), 0.3);
        QCOMPARE(double(j["search"]["prescreen_confirm"]), 2.0);
        QCOMPARE(int(j["search"]["prescreen_lanes"]), 2);
        const int screenedOut = j["search"]["screened_out"], confirmedOut = j["search"]["confirmed_out"];
        QVERIFY(int(j["search"]["screenings"]) - int(j["search"]["screenings_unused"]) >= screenedOut);
        QVERIFY(double(j["search"]["screening_z"]) >= 4.0);
        // Each screening solves part of the sample at most (all of it where a move touches few).
        const long long sampled = std::lround(0.3 * double(j["families"].size()));
        QVERIFY(j["search"]["screened_families"].get<long long>() > 0);
        QVERIFY(j["search"]["screened_families"].get<long long>() <=
                sampled * int(j["search"]["screenings"]));
        QCOMPARE(int(j["search"]["confirming_families"]),
                 int(std::lround(0.3 * double(j["families"].size()))));
        QVERIFY(int(j["search"]["confirmations"]) > 0);
        QVERIFY(int(j["search"]["confirmations"]) >= confirmedOut);
        QVERIFY(screenedOut >= confirmedOut);
        QVERIFY(double(j["search"]["confirming_z"]) >= 4.0);
        int screenedRows = 0;
        std::istringstream trace(readText(out + "/search_trace.csv"));
        for (std::string line; std::getline(trace, line);)
            if (line.ends_with(",1")) {
                ++screenedRows;
                QVERIFY2(line.find("SPR ") != std::string::npos ||
                             line.find(",root above ") != std::string::npos,
                         line.c_str());
            }
        QCOMPARE(screenedRows, screenedOut);
        QCOMPARE(j["search"]["rates"].size(), j["families"].size());
        for (const auto& [family, rates] : j["search"]["rates"].items())
            QVERIFY2(std::filesystem::exists(out + "/model_parameters/" + family + "_rates.txt"),
                     family.c_str());
        QVERIFY(relativeError(totalOfPerFamilyFile(out + "/per_fam_likelihoods.txt"),
                              double(j["search"]["log_likelihood"])) < 1e-12);
        QVERIFY(double(j["search"]["log_likelihood"]) > double(j["search"]["start_log_likelihood"]));
    }

    void badOptions() {
        const std::string& sim = simulatedFolder();
        const std::string dir = temporaryFolder("cli_search_opts");
        const QStringList input{"-f", q(sim + "/families.txt"), "-p", q(dir + "/o")};
        CliRun r = runGpurec(QStringList{"search", "-s", "MiniNJ", "--max-radius", "0"} + input);
        QCOMPARE(r.exitCode, 105); // CLI11's validation error
        QCOMPARE(r.err,
                 QString("--max-radius: must be >= 1, got 0\nRun with --help for more information.\n"));
        r = runGpurec(QStringList{"search", "-s", "MiniNJ", "--spr-cutoff", "-0.5"} + input);
        QCOMPARE(r.exitCode, 105);
        QCOMPARE(r.err,
                 QString("--spr-cutoff: must be >= 0, got -0.5\nRun with --help for more information.\n"));
        r = runGpurec(QStringList{"search", "-s", "MiniNJ", "--spr-memory", "-1"} + input);
        QCOMPARE(r.exitCode, 105);
        QCOMPARE(r.err,
                 QString("--spr-memory: must be >= 0, got -1\nRun with --help for more information.\n"));
        r = runGpurec(QStringList{"search", "-s", "MiniNJ", "--prescreen", "1"} + input);
        QCOMPARE(r.exitCode, 105);
        QCOMPARE(r.err,
                 QString("--prescreen: must be in [0, 1), got 1\nRun with --help for more information.\n"));
        r = runGpurec(QStringList{"search", "-s", "MiniNJ", "--prescreen-confirm", "-1"} + input);
        QCOMPARE(r.exitCode, 105);
        QCOMPARE(r.err, QString("--prescreen-confirm: must be >= 0, got -1\nRun with --help for more "
                                "information.\n"));
        r = runGpurec(QStringList{"search", "-s", "MiniNJ", "--prescreen-lanes", "65"} + input);
        QCOMPARE(r.exitCode, 105);
        QCOMPARE(r.err, QString("--prescreen-lanes: must be in [0, 64], got 65\nRun with --help for more "
                                "information.\n"));
        r = runGpurec(QStringList{"search", "-s", "MiniNJ", "--species-tree-search", "SPR"} + input);
        QCOMPARE(r.exitCode, 105);
        QVERIFY2(r.err.contains("--species-tree-search: SPR not in {HYBRID,REROOT,SKIP}"), qPrintable(r.err));
        r = runGpurec(QStringList{"test-trees", "-s", q(sim + "/species.nwk")} + input);
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err, QString("gpurec: error: test-trees needs two or more trees (-s T1 -s T2 ...)\n"));
        QVERIFY(!std::filesystem::exists(dir + "/o/result.json"));
    }

    void badStartTreesAreRefused() {
        const std::string& sim = simulatedFolder();
        const std::string dir = temporaryFolder("cli_search_bad");
        std::string tree = readText(sim + "/species.nwk");
        const SpeciesTree species = SpeciesTree::readFile(sim + "/species.nwk");
        const std::string& first = species.name(0);
        const std::string renamed = dir + "/renamed.nwk", polytomy = dir + "/polytomy.nwk";
        writeFile(renamed, tree.replace(tree.find(first + ":"), first.size(), "X"));
        std::string three = "(";
        for (int e : species.leaves())
            three += (three.size() > 1 ? "," : "") + species.name(e);
        writeFile(polytomy, "(" + three + "),A,B);\n"); // a root with three children
        CliRun r =
            runGpurec({"search", "-s", q(renamed), "-f", q(sim + "/families.txt"), "-p", q(dir + "/o1")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(
            r.err.contains("the start tree's leaves do not match the families' species; 1 species of the "
                           "families are not leaves of it: " +
                           q(first) + "; 1 of its leaves have no gene: X"),
            qPrintable(r.err));
        r = runGpurec({"search", "-s", q(polytomy), "-f", q(sim + "/families.txt"), "-p", q(dir + "/o2")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("species tree must be rooted and binary"), qPrintable(r.err));
    }
};

QTEST_MAIN(CliSearch)
#include "test_cli_search.moc"
