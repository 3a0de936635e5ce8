// `gpurec alerax` end to end: an AleRax command line gives AleRax's files with the numbers of the
// gpurec stages it runs (optimize or search, then sample), AleRax's defaults, per-family rates
// carried into the sampling, a fixed-rate run against the reference likelihood, RELDATED's dated
// trees and refusals, and every option of AleRax's model that gpurec lacks refused by name.
#include "cli_run.hpp"
#include "reference_model.hpp"
#include "support.hpp"

#include "highways/highway_files.hpp"
#include "io/newick.hpp"
#include "optim/rate_files.hpp"
#include "recon/recphyloxml.hpp"
#include "tree/species_tree.hpp"

#include <QRegularExpression>
#include <QtTest>
#include <filesystem>
#include <fstream>

using namespace gpurec;
using namespace gpurec::test;

namespace {

const std::string kData = "alerax/test_trees_2";

QStringList aleraxArgs(const std::string& out, const QStringList& extra) {
    const std::string ds = sharedData(kData);
    return QStringList{"alerax", "-f", q(ds + "/families.txt"), "-s", q(ds + "/sp.nwk"), "-p", q(out)} +
           extra;
}

// `gpurec eval`'s per_fam_likelihoods.txt for `families` on `tree`, with `options`.
std::string evalLikelihoods(const std::string& tree, const std::string& families,
                            const QStringList& options) {
    const std::string dir = temporaryFolder("alerax_eval") + "/out";
    CliRun e = runGpurec(QStringList{"eval", "-f", q(families), "-s", q(tree), "-p", q(dir)} + options);
    if (e.exitCode != 0) qWarning("%s", qPrintable(e.err));
    return fileText(dir + "/per_fam_likelihoods.txt");
}

} // namespace

class CliAlerax : public QObject {
    Q_OBJECT
  private slots:
    // Defaults: GLOBAL rates optimised, then 100 samples per family, in AleRax's layout; the rates
    // and likelihoods are those of `gpurec optimize` on the same input.
    void defaultRunMatchesItsStages() {
        const std::string out = temporaryFolder("alerax_default") + "/out";
        CliRun r = runGpurec(aleraxArgs(out, {}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("gpurec alerax: running gpurec optimize --model-parametrization GLOBAL"),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains("gpurec alerax: running gpurec sample --samples 100 --seed 123"),
                 qPrintable(r.out));
        for (const char* f :
             {"per_fam_likelihoods.txt", "model_parameters/model_parameters.txt",
              "species_trees/starting_species_tree.newick", "species_trees/inferred_species_tree.newick",
              "reconciliations/all/my_family_sample_99.xml", "reconciliations/all/my_family_samples.newick",
              "reconciliations/summaries/my_family_consensus_50.newick", "reconciliations/totalTransfers.txt",
              "result.json"})
            QVERIFY2(std::filesystem::exists(out + "/" + f), f);
        QVERIFY(!std::filesystem::exists(out + "/reconciliations/all/my_family_sample_100.xml"));
        QVERIFY(fileText(out + "/model_parameters/model_parameters.txt").rfind("node D L T\n", 0) == 0);

        const std::string alone = temporaryFolder("alerax_optimize") + "/out";
        const std::string ds = sharedData(kData);
        QCOMPARE(
            runGpurec({"optimize", "-f", q(ds + "/families.txt"), "-s", q(ds + "/sp.nwk"), "-p", q(alone)})
                .exitCode,
            0);
        QCOMPARE(fileText(out + "/per_fam_likelihoods.txt"), fileText(alone + "/per_fam_likelihoods.txt"));
        QCOMPARE(fileText(out + "/model_parameters/model_parameters.txt"),
                 fileText(alone + "/model_parameters/model_parameters.txt"));
        // AleRax v1.4's likelihood at its optimum (D = L = 1e-10, T = 0.0517229): -11.4329145368.
        std::ifstream per(out + "/per_fam_likelihoods.txt");
        std::string name;
        double ll = 0;
        per >> name >> ll;
        QVERIFY2(std::abs(ll - -11.432914536808672) < 1e-6, qPrintable(QString::number(ll, 'g', 17)));

        const nlohmann::json j = readJson(out + "/result.json");
        QCOMPARE(j.at("optimization").at("mode").get<std::string>(), std::string("global"));
        QCOMPARE(j.at("sampling").at("families").at(0).at("samples").get<int>(), 100);
        QCOMPARE(j.at("alerax").at("commands").size(), std::size_t(2));
        // A second run into the same folder is refused, as for every gpurec command.
        CliRun again = runGpurec(aleraxArgs(out, {"-g", "0"}));
        QCOMPARE(again.exitCode, 2);
        QVERIFY2(again.err.contains("already holds results of an earlier run"), qPrintable(again.err));
    }

    // PER-FAMILY rates go to <fam>_rates.txt and the sampling reads them back from the folder.
    void perFamilyRatesAreSampledAt() {
        const std::string out = temporaryFolder("alerax_family") + "/out";
        CliRun r = runGpurec(aleraxArgs(
            out, {"--model-parametrization", "PER-FAMILY", "--gene-tree-samples", "3", "--seed", "9"}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(fileText(out + "/model_parameters/my_family_rates.txt").rfind("D L T\n", 0) == 0);
        QVERIFY(!std::filesystem::exists(out + "/model_parameters/model_parameters.txt"));
        const nlohmann::json j = readJson(out + "/result.json");
        QCOMPARE(j.at("sampling").at("options").at("rates").at("rates_file").get<std::string>(),
                 out + "/model_parameters");
        QCOMPARE(j.at("sampling").at("options").at("seed").get<int>(), 9);
        QCOMPARE(readRecPhyloXml(out + "/reconciliations/all/my_family_sample_2.xml").reconciliations.size(),
                 std::size_t(1));
    }

    // --fix-rates: the files at the given rates, the reference likelihood there; -g 0: no sampling.
    void fixedRatesGiveTheReferenceLikelihood() {
        const std::string out = temporaryFolder("alerax_fixed") + "/out";
        CliRun r = runGpurec(
            aleraxArgs(out, {"--fix-rates", "--d", "0.05", "--l", "0.2", "--t", "0.02", "-g", "0"}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        std::ifstream per(out + "/per_fam_likelihoods.txt");
        std::string name;
        double ll = 0;
        per >> name >> ll;
        const double reference = readJson(
            sharedData(kData) + "/reference.json")["points"][1]["loglik_nats"]["converged"]["my_family"];
        QVERIFY2(relativeError(ll, reference) < 1e-12, qPrintable(QString::number(ll, 'g', 17)));
        QVERIFY(!std::filesystem::exists(out + "/reconciliations"));
        QVERIFY(!readJson(out + "/result.json").contains("sampling"));
    }

    // --origination ROOT reaches both stages: the likelihood is `gpurec eval --origination ROOT`'s
    // (not the UNIFORM one), and every sample starts at the root.
    void originationReachesEveryStage() {
        const std::string out = temporaryFolder("alerax_root") + "/out";
        const QStringList rates = {"--d", "0.05", "--l", "0.2", "--t", "0.02"};
        CliRun r = runGpurec(
            aleraxArgs(out, QStringList{"--fix-rates", "--origination", "ROOT", "-g", "5"} + rates));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("--origination ROOT"), qPrintable(r.out));
        const std::string ds = sharedData(kData);
        auto evalLikelihood = [&](const QString& origination) {
            return evalLikelihoods(ds + "/sp.nwk", ds + "/families.txt",
                                   QStringList{"--origination", origination} + rates);
        };
        QCOMPARE(fileText(out + "/per_fam_likelihoods.txt"), evalLikelihood("ROOT"));
        QVERIFY(fileText(out + "/per_fam_likelihoods.txt") != evalLikelihood("UNIFORM"));
        const nlohmann::json j = readJson(out + "/result.json");
        QCOMPARE(j.at("options").at("origination").get<std::string>(), std::string("ROOT"));
        const SpeciesTree species = SpeciesTree::readFile(ds + "/sp.nwk");
        const nlohmann::json& origins = j.at("sampling").at("families").at(0).at("originations");
        QCOMPARE(origins.size(), std::size_t(1));
        QCOMPARE(origins.at(0).at("species").get<std::string>(), species.name(species.root()));
        QCOMPARE(origins.at(0).at("frequency").get<double>(), 1.0);
    }

    // -s MiniNJ with AleRax's default SKIP: the distance tree is built, kept and scored.
    void miniNjStartIsKeptUnderSkip() {
        const std::string out = temporaryFolder("alerax_nj") + "/out";
        const std::string ds = sharedData("primates");
        CliRun r =
            runGpurec({"alerax", "-f", q(ds + "/families.txt"), "-s", "MiniNJ", "-g", "0", "-p", q(out)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("running gpurec search --species-tree-search SKIP"), qPrintable(r.out));
        auto topology = [&](const std::string& file) {
            return writeNewick(parseNewick(fileText(out + "/species_trees/" + file), file).at(0),
                               {false, true});
        };
        QCOMPARE(topology("inferred_species_tree.newick"), topology("starting_species_tree.newick"));
        QVERIFY(!std::filesystem::exists(out + "/species_trees/species_tree_support_kh.newick"));
        QVERIFY(!std::filesystem::exists(out + "/species_trees/species_tree_root_llr.newick"));
        const nlohmann::json j = readJson(out + "/result.json");
        QCOMPARE(j.at("search").at("strategy").get<std::string>(), std::string("SKIP"));
        QCOMPARE(j.at("search").at("steps").get<int>(), 2); // the start and its rates, no move
    }

    // --trim-ratio 0.5 on samples/tiny keeps family2 (4 genes, 11 clades), not family1 (5 genes,
    // 15 clades), in both stages; ccpdim.txt lists both (written before trimming), the coverage
    // files only family2 (genes A_1 A_2 B_1 C_1).
    void trimRatioRunsEndToEnd() {
        const std::string out = temporaryFolder("alerax_trim") + "/out";
        CliRun r =
            runGpurec({"alerax", "-f", q(sourcePath("samples/tiny/families.txt")), "-s",
                       q(sourcePath("samples/tiny/species.nwk")), "-p", q(out), "--min-covered-species", "1",
                       "--trim-ratio", "0.5", "-g", "2", "--threads", "1"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("--min-covered-species 1 --trim-ratio 0.5 --device"), qPrintable(r.out));
        const QString why =
            "excluded family family1: has 15 clades; --trim-ratio 0.5 keeps the 1 of 2 families "
            "with the fewest clades (at most 11)\n";
        QCOMPARE(r.err.count(why), 2); // once per stage
        QCOMPARE(fileText(out + "/per_fam_likelihoods.txt").substr(0, 8), std::string("family2 "));
        QCOMPARE(fileText(out + "/per_fam_likelihoods.txt").find("family1"), std::string::npos);
        QVERIFY(std::filesystem::exists(out + "/reconciliations/all/family2_sample_1.xml"));
        QVERIFY(!std::filesystem::exists(out + "/reconciliations/all/family1_sample_0.xml"));
        QCOMPARE(fileText(out + "/ccps/ccpdim.txt"),
                 std::string("fam, leaves, ccps\nfamily1, 5, 15\nfamily2, 4, 11\n"));
        QCOMPARE(fileText(out + "/perSpeciesCoverage.txt"), std::string("D 0\nA 1\nB 1\nC 1\n"));
        QCOMPARE(fileText(out + "/perSpeciesMissing.txt"), std::string("A 0\nB 0.5\nC 0.5\nD 1\n"));
        const nlohmann::json j = readJson(out + "/result.json");
        QCOMPARE(j.at("excluded_families").size(), std::size_t(1));
        QCOMPARE(j.at("excluded_families").at(0).at("name").get<std::string>(), std::string("family1"));
        QCOMPARE(j.at("options").at("trim_ratio").get<double>(), 0.5);
        QCOMPARE(j.at("sampling").at("families").size(), std::size_t(1));
    }

    // --fraction-missing-file reaches both stages: the rates and likelihoods are those of `gpurec
    // optimize` with the same file, and differ from a run without it.
    void fractionMissingFileRunsEndToEnd() {
        const std::string folder = temporaryFolder("alerax_fraction_missing");
        const std::string fm = folder + "/fm.txt";
        writeFile(fm, "A 0.5\nB 0\nC 0.25\nD 0.9\n");
        const QStringList tiny = {"-f",
                                  q(sourcePath("samples/tiny/families.txt")),
                                  "-s",
                                  q(sourcePath("samples/tiny/species.nwk")),
                                  "--min-covered-species",
                                  "1"};
        const std::string out = folder + "/out";
        CliRun r = runGpurec(
            QStringList{"alerax"} + tiny +
            QStringList{"-p", q(out), "--fraction-missing-file", q(fm), "-g", "2", "--threads", "1"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.out.count("--fraction-missing-file " + q(fm)), 2); // optimize, then sample
        QCOMPARE(readJson(out + "/result.json").at("options").at("fraction_missing_file").get<std::string>(),
                 fm);
        const std::string with = folder + "/with", without = folder + "/without";
        QCOMPARE(runGpurec(QStringList{"optimize"} + tiny +
                           QStringList{"-p", q(with), "--fraction-missing-file", q(fm)})
                     .exitCode,
                 0);
        QCOMPARE(runGpurec(QStringList{"optimize"} + tiny + QStringList{"-p", q(without)}).exitCode, 0);
        QCOMPARE(fileText(out + "/per_fam_likelihoods.txt"), fileText(with + "/per_fam_likelihoods.txt"));
        QVERIFY(fileText(with + "/per_fam_likelihoods.txt") !=
                fileText(without + "/per_fam_likelihoods.txt"));
        // A bad file stops the run before anything is written, naming its line.
        writeFile(fm, "A 0.5\nB 2\n");
        const std::string bad = folder + "/bad";
        CliRun refused = runGpurec(QStringList{"alerax"} + tiny +
                                   QStringList{"-p", q(bad), "--fraction-missing-file", q(fm)});
        QVERIFY(refused.exitCode != 0);
        QVERIFY2(refused.err.contains(q(fm) + ":2:3: the fraction missing must be in [0, 1], found '2'"),
                 qPrintable(refused.err));
    }

    // -r UndatedDL, --no-dup, --no-dl, --no-tl reach every stage; UndatedDL's rate files have no T
    // column, and eval reads them back to the optimised likelihood; AleRax's refusals stop the run
    // before anything is written.
    void modelVariantsRunEndToEnd() {
        const std::string folder = temporaryFolder("alerax_models");
        const std::string ds = sharedData(kData);
        const std::string dl = folder + "/dl";
        CliRun r = runGpurec(aleraxArgs(dl, {"-r", "UndatedDL", "-g", "3", "--threads", "1"}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.out.count("--rec-model UndatedDL"), 2); // optimize, then sample
        const std::string params = fileText(dl + "/model_parameters/model_parameters.txt");
        QVERIFY2(params.rfind("node D L\n", 0) == 0, params.c_str());
        const nlohmann::json j = readJson(dl + "/result.json");
        QCOMPARE(j.at("options").at("rec_model").get<std::string>(), std::string("UndatedDL"));
        QVERIFY(!j.at("optimization").at("rates").contains("T"));
        for (const char* f :
             {"reconciliations/all/my_family_sample_2.xml", "reconciliations/totalTransfers.txt"})
            QVERIFY2(std::filesystem::exists(dl + "/" + f), f);
        QCOMPARE(fileText(dl + "/reconciliations/totalTransfers.txt"), std::string()); // no transfers at all

        const std::string again = folder + "/eval";
        CliRun ev =
            runGpurec({"eval", "-f", q(ds + "/families.txt"), "-s", q(ds + "/sp.nwk"), "-r", "UndatedDL",
                       "--rates-file", q(dl + "/model_parameters/model_parameters.txt"), "-p", q(again)});
        QVERIFY2(ev.exitCode == 0, qPrintable(ev.err));
        QCOMPARE(fileText(again + "/per_fam_likelihoods.txt"), fileText(dl + "/per_fam_likelihoods.txt"));
        // The same file under UndatedDTL is refused, naming its line and what it holds.
        CliRun dtl =
            runGpurec({"eval", "-f", q(ds + "/families.txt"), "-s", q(ds + "/sp.nwk"), "--rates-file",
                       q(dl + "/model_parameters/model_parameters.txt"), "-p", q(folder + "/dtl")});
        QCOMPARE(dtl.exitCode, 2);
        QVERIFY2(dtl.err.contains(
                     q(dl + "/model_parameters/model_parameters.txt") +
                     ":1:6: parameters 'D L' are UndatedDL rates; use them with --rec-model UndatedDL"),
                 qPrintable(dtl.err));

        // MAD weights the root splits: another likelihood than UNIFORM's, recorded in result.json.
        const std::string mad = folder + "/mad";
        CliRun m = runGpurec(aleraxArgs(mad, {"--gene-tree-rooting", "MAD", "-g", "0"}));
        QVERIFY2(m.exitCode == 0, qPrintable(m.err));
        QCOMPARE(readJson(mad + "/result.json").at("options").at("gene_tree_rooting").get<std::string>(),
                 std::string("MAD"));
        const std::string uniform = folder + "/uniform";
        QCOMPARE(runGpurec(aleraxArgs(uniform, {"-g", "0"})).exitCode, 0);
        QVERIFY(fileText(mad + "/per_fam_likelihoods.txt") != fileText(uniform + "/per_fam_likelihoods.txt"));

        // Each flag changes the optimum's likelihood.
        std::map<std::string, std::string> likelihoods;
        for (const char* flag : {"--no-dup", "--no-dl", "--no-tl"}) {
            const std::string out = folder + "/" + std::string(flag + 2);
            CliRun run = runGpurec(aleraxArgs(out, {flag, "-g", "0"}));
            QVERIFY2(run.exitCode == 0, qPrintable(run.err));
            QCOMPARE(run.out.count(flag), 1);
            likelihoods[flag] = fileText(out + "/per_fam_likelihoods.txt");
        }
        QVERIFY(likelihoods["--no-dup"] != likelihoods["--no-dl"]);
        QVERIFY(likelihoods["--no-dl"] != likelihoods["--no-tl"]);

        for (const auto& [extra, message] : std::vector<std::pair<QStringList, QString>>{
                 {{"--no-dup", "--no-tl"}, "--no-dup cannot be used with --no-tl"},
                 {{"-r", "UndatedDL", "--no-tl"}, "--no-tl can only be used with --rec-model UndatedDTL"},
                 {{"-r", "UndatedDL", "--transfer-constraint", "NONE"},
                  "--transfer-constraint can only be used with --rec-model UndatedDTL"}}) {
            const std::string out = folder + "/refused";
            CliRun refused = runGpurec(aleraxArgs(out, extra));
            QCOMPARE(refused.exitCode, 2);
            QVERIFY2(refused.err.contains(message), qPrintable(refused.err));
            QVERIFY(!std::filesystem::exists(out + "/result.json"));
        }
    }

    // --origination OPTIMIZE with ORIGINATION-PER-SPECIES: the O column (normalised weights) is fitted,
    // written as AleRax writes it, sampled at, and reads back to the same likelihood.
    void optimisedOriginationRunsEndToEnd() {
        const std::string out = temporaryFolder("alerax_optimize") + "/out";
        CliRun r = runGpurec(aleraxArgs(out, {"--origination", "OPTIMIZE", "--model-parametrization",
                                              "ORIGINATION-PER-SPECIES", "-g", "3"}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const std::string rates = out + "/model_parameters/model_parameters.txt";
        const SpeciesTree species = SpeciesTree::readFile(sharedData(kData) + "/sp.nwk");
        const NodeParameters file = readNodeParameters(rates, species);
        QCOMPARE(fileText(rates).substr(0, 13), std::string("node D L T O\n"));
        double total = 0;
        for (double o : file.origin)
            total += o;
        QVERIFY(std::abs(total - 1.0) < 1e-14);
        const nlohmann::json j = readJson(out + "/result.json");
        QCOMPARE(j.at("optimization").at("origination").size(), std::size_t(species.size()));
        QVERIFY(j.at("sampling").at("families").size() == 1);
        // Fitted weights beat uniform origination; eval at the written file gives the same likelihood.
        const std::string uniform = temporaryFolder("alerax_uniform") + "/out";
        QCOMPARE(runGpurec(aleraxArgs(uniform, {"-g", "0"})).exitCode, 0);
        const double fitted = readJson(out + "/result.json").at("total").at("ll_nats").get<double>();
        QVERIFY(fitted > readJson(uniform + "/result.json").at("total").at("ll_nats").get<double>() + 0.1);
        const std::string ds = sharedData(kData);
        const std::string again = temporaryFolder("alerax_optimize_eval") + "/out";
        CliRun e = runGpurec({"eval", "-f", q(ds + "/families.txt"), "-s", q(ds + "/sp.nwk"), "--origination",
                              "OPTIMIZE", "--rates-file", q(rates), "-p", q(again)});
        QVERIFY2(e.exitCode == 0, qPrintable(e.err));
        const double reread = readJson(again + "/result.json").at("total").at("ll_nats").get<double>();
        QVERIFY2(std::abs(reread - fitted) < 1e-9 * std::abs(fitted),
                 qPrintable(QString::number(reread - fitted)));
    }

    // A class file: the nodes of a class share their parameter in model_parameters.txt.
    void parametrizationFileRunsEndToEnd() {
        const std::string ds = sharedData(kData);
        const SpeciesTree species = SpeciesTree::readFile(ds + "/sp.nwk");
        const int left = species.left(species.root());
        const std::string classes = temporaryFolder("alerax_classes") + "/classes.txt";
        writeFile(classes, species.name(left) + " DL\n");
        const std::string out = temporaryFolder("alerax_classes") + "/out";
        CliRun r = runGpurec(aleraxArgs(out, {"--model-parametrization", q(classes), "-g", "0"}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const NodeParameters file =
            readNodeParameters(out + "/model_parameters/model_parameters.txt", species);
        QVERIFY(file.origin.empty());
        const int inside = species.left(left), outside = species.right(species.root());
        QCOMPARE(file.rates[inside].d, file.rates[left].d);
        QCOMPARE(file.rates[outside].d, file.rates[species.root()].d);
        QCOMPARE(file.rates[inside].t, file.rates[outside].t); // T: one class
        const std::string root = species.name(species.root()), sub = species.name(left);
        QCOMPARE(readJson(out + "/checkpoint.json").at("extra_parameters").get<std::vector<std::string>>(),
                 (std::vector<std::string>{root + " D", root + " L", root + " T", sub + " D", sub + " L"}));
        CliRun hybrid = runGpurec(aleraxArgs(
            out, {"--model-parametrization", q(classes), "--species-tree-search", "HYBRID", "--overwrite"}));
        QCOMPARE(hybrid.exitCode, 2);
        QCOMPARE(hybrid.err.trimmed(),
                 QString::fromStdString("gpurec: error: species tree search is not compatible with "
                                        "--model-parametrization " +
                                        classes));
        CliRun global = runGpurec(aleraxArgs(out, {"--origination", "OPTIMIZE", "--overwrite"}));
        QCOMPARE(global.exitCode, 2);
        QCOMPARE(global.err.trimmed(), QString("gpurec: error: --origination OPTIMIZE cannot be used with "
                                               "--model-parametrization GLOBAL or --model-parametrization "
                                               "PER-FAMILY"));
    }

    // --speciation-gamma-categories: α fitted with the rates, carried to the sampling stage, and the
    // mixture's likelihood read back by eval at the written rates and α.
    void gammaCategoriesRunEndToEnd() {
        const std::string out = temporaryFolder("alerax_gamma") + "/out";
        CliRun r = runGpurec(aleraxArgs(out, {"--speciation-gamma-categories", "3", "-g", "2"}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const nlohmann::json j = readJson(out + "/result.json");
        const nlohmann::json& gamma = j.at("optimization").at("speciation_gamma");
        QCOMPARE(gamma.at("categories").get<int>(), 3);
        const double alpha = gamma.at("alpha").get<double>();
        QVERIFY(alpha >= 0.0201 && alpha <= 100);
        QVERIFY2(r.out.contains("--gamma-alpha"), qPrintable(r.out)); // the sampling stage's α
        const std::string ds = sharedData(kData);
        const std::string again = temporaryFolder("alerax_gamma_eval") + "/out";
        CliRun e =
            runGpurec({"eval", "-f", q(ds + "/families.txt"), "-s", q(ds + "/sp.nwk"),
                       "--speciation-gamma-categories", "3", "--gamma-alpha", QString::number(alpha, 'g', 17),
                       "--rates-file", q(out + "/model_parameters/model_parameters.txt"), "-p", q(again)});
        QVERIFY2(e.exitCode == 0, qPrintable(e.err));
        QVERIFY(relativeError(readJson(again + "/result.json").at("total").at("ll_nats").get<double>(),
                              j.at("total").at("ll_nats").get<double>()) < 1e-12);
        CliRun perFamily =
            runGpurec(aleraxArgs(out, {"--speciation-gamma-categories", "3", "--model-parametrization",
                                       "PER-FAMILY", "--overwrite"}));
        QCOMPARE(perFamily.exitCode, 2);
        QVERIFY2(perFamily.err.contains(
                     "--speciation-gamma-categories cannot be used with --model-parametrization PER-FAMILY"),
                 qPrintable(perFamily.err));
    }

    // --transfer-constraint RELDATED reaches both stages: the species-tree files carry AleRax's
    // rank-derived lengths (the sampling stage reads the inferred tree and dates it alike), the
    // likelihood is `gpurec eval --transfer-constraint RELDATED`'s on the input tree, and no sampled
    // transfer goes to a recipient outside R(e) (brute force, reference_model.hpp).
    void relDatedRunsEndToEnd() {
        const std::string folder = temporaryFolder("alerax_reldated");
        const std::string ds = sharedData(kData);
        const std::string out = folder + "/out";
        const QStringList rates = {"--d", "0.05", "--l", "0.2", "--t", "0.3"};
        CliRun r = runGpurec(aleraxArgs(
            out, QStringList{"--fix-rates", "--transfer-constraint", "RELDATED", "-g", "20"} + rates));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.out.count("--transfer-constraint RELDATED"), 2); // optimize, then sample
        const SpeciesTree species = SpeciesTree::readFile(ds + "/sp.nwk");
        const std::string ranked = species.toRankedNewick() + "\n";
        QCOMPARE(fileText(out + "/species_trees/starting_species_tree.newick"), ranked);
        QCOMPARE(fileText(out + "/species_trees/inferred_species_tree.newick"), ranked);
        auto evalLikelihood = [&](const std::string& tree, const QString& constraint,
                                  const std::string& families) {
            return evalLikelihoods(tree, families, QStringList{"--transfer-constraint", constraint} + rates);
        };
        const std::string likelihoods = fileText(out + "/per_fam_likelihoods.txt");
        QCOMPARE(likelihoods, evalLikelihood(ds + "/sp.nwk", "RELDATED", ds + "/families.txt"));
        QCOMPARE(likelihoods, evalLikelihood(out + "/species_trees/inferred_species_tree.newick", "RELDATED",
                                             ds + "/families.txt"));
        QVERIFY(likelihoods != evalLikelihood(ds + "/sp.nwk", "PARENTS", ds + "/families.txt"));
        QCOMPARE(readJson(out + "/result.json").at("options").at("transfer_constraint").get<std::string>(),
                 std::string("RELDATED"));

        const auto R = referenceRecipients(species, TransferConstraint::RelDated);
        int transfers = 0;
        for (int i = 0; i < 20; ++i) {
            const RecPhyloDocument doc =
                readRecPhyloXml(out + "/reconciliations/all/my_family_sample_" + std::to_string(i) + ".xml");
            auto node = [&](int e) { return species.find(doc.species.name(e)); };
            for (const ReconNode& n : doc.reconciliations.at(0).nodes)
                for (const ReconEvent& ev : n.events)
                    if (ev.type == EventType::Transfer || ev.type == EventType::TransferLoss) {
                        const std::vector<int>& allowed = R[node(ev.species)];
                        QVERIFY(std::count(allowed.begin(), allowed.end(), node(ev.recipient)) == 1);
                        ++transfers;
                    }
        }
        QVERIFY(transfers > 0);

        // A search that keeps its start (SKIP) scores it with the start's dating, and writes it.
        const std::string skip = folder + "/skip";
        CliRun k = runGpurec(QStringList{"search", "-f", q(ds + "/families.txt"), "-s", q(ds + "/sp.nwk"),
                                         "--species-tree-search", "SKIP", "--transfer-constraint", "RELDATED",
                                         "--fix-rates", "-p", q(skip)} +
                             rates);
        QVERIFY2(k.exitCode == 0, qPrintable(k.err));
        QCOMPARE(fileText(skip + "/per_fam_likelihoods.txt"), likelihoods);
        QCOMPARE(SpeciesTree::readFile(skip + "/species_trees/inferred_species_tree.newick").toRankedNewick(),
                 species.toRankedNewick());
        // A start tree built from the families: the files carry its dating too, and the run's
        // likelihood is the one of the trees it wrote.
        const std::string nj = folder + "/nj";
        const std::string primates = sharedData("primates") + "/families.txt";
        CliRun n =
            runGpurec({"alerax", "-f", q(primates), "-s", "MiniNJ", "--transfer-constraint", "RELDATED",
                       "--fix-rates", "-g", "0", "-p", q(nj), "--d", "0.05", "--l", "0.2", "--t", "0.3"});
        QVERIFY2(n.exitCode == 0, qPrintable(n.err));
        const std::string start = nj + "/species_trees/starting_species_tree.newick";
        QCOMPARE(fileText(start), SpeciesTree::readFile(start).toRankedNewick() + "\n");
        QCOMPARE(fileText(nj + "/per_fam_likelihoods.txt"), evalLikelihood(start, "RELDATED", primates));
        QCOMPARE(fileText(nj + "/per_fam_likelihoods.txt"),
                 evalLikelihood(nj + "/species_trees/inferred_species_tree.newick", "RELDATED", primates));
    }

    // AleRax's refusals around RELDATED, with its messages, before anything is written.
    void relDatedRefusals() {
        const std::string out = temporaryFolder("alerax_reldated_refused") + "/out";
        const std::vector<std::pair<QStringList, std::string>> cases = {
            {{"--species-tree-search", "HYBRID", "--transfer-constraint", "RELDATED"},
             "species tree search is not compatible with --transfer-constraint RELDATED"},
            {{"--species-tree-search", "REROOT", "--transfer-constraint", "RELDATED"},
             "species tree root inference is not compatible with --transfer-constraint RELDATED unless using "
             "--infer-speciation-order"},
            {{"--infer-speciation-order"},
             "--infer-speciation-order can only be used with --transfer-constraint "
             "RELDATED"},
        };
        for (const auto& [extra, message] : cases) {
            CliRun r = runGpurec(aleraxArgs(out, extra));
            QCOMPARE(r.exitCode, 2);
            QCOMPARE(r.err.trimmed(), q("gpurec: error: " + message));
            QVERIFY(!std::filesystem::exists(out));
        }
        // The same from gpurec search itself (HYBRID by default).
        const std::string ds = sharedData(kData);
        const QStringList search = {"search",
                                    "-f",
                                    q(ds + "/families.txt"),
                                    "-s",
                                    q(ds + "/sp.nwk"),
                                    "--transfer-constraint",
                                    "RELDATED",
                                    "-p",
                                    q(out)};
        CliRun hybrid = runGpurec(search);
        QCOMPARE(hybrid.exitCode, 2);
        QCOMPARE(hybrid.err.trimmed(), q("gpurec: error: " + cases[0].second));
        QVERIFY(!std::filesystem::exists(out));
        // UndatedDL has no transfers to constrain.
        CliRun dl = runGpurec(aleraxArgs(out, {"-r", "UndatedDL", "--transfer-constraint", "RELDATED"}));
        QCOMPARE(dl.exitCode, 2);
        QVERIFY2(dl.err.contains("--transfer-constraint can only be used with --rec-model UndatedDTL"),
                 qPrintable(dl.err));
        QVERIFY(!std::filesystem::exists(out + "/result.json"));
    }

    // REROOT under RELDATED with --infer-speciation-order (AleRax re-dates every root candidate):
    // the search stage runs it and writes its species_trees/ files, the inferred tree with
    // rank-derived lengths and the likelihood `gpurec eval` gives on it; each root candidate's row
    // says it was dated, and the dating step ends the search.
    void relDatedRerootInfersTheOrder() {
        const std::string ds = sharedData(kData);
        const std::string out = temporaryFolder("alerax_reldated_reroot") + "/out";
        const QStringList rates = {"--d", "0.05", "--l", "0.2", "--t", "0.3"};
        CliRun r = runGpurec(
            aleraxArgs(out, QStringList{"--species-tree-search", "REROOT", "--transfer-constraint",
                                        "RELDATED", "--infer-speciation-order", "--fix-rates", "-g", "0"} +
                                rates));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("gpurec alerax: running gpurec search --species-tree-search REROOT"),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains("--infer-speciation-order"), qPrintable(r.out));
        const std::string trees = out + "/species_trees/";
        for (const char* f : {"starting_species_tree.newick", "inferred_species_tree.newick",
                              "species_tree_root_llr.newick", "species_tree_root_rell.newick"})
            QVERIFY2(std::filesystem::exists(trees + f), f);
        const std::string inferred = trees + "inferred_species_tree.newick";
        QCOMPARE(fileText(inferred), SpeciesTree::readFile(inferred).toRankedNewick() + "\n");
        QCOMPARE(fileText(out + "/per_fam_likelihoods.txt"),
                 evalLikelihoods(inferred, ds + "/families.txt",
                                 QStringList{"--transfer-constraint", "RELDATED"} + rates));
        const std::string trace = fileText(out + "/search_trace.csv");
        QVERIFY2(trace.find("root above ") != std::string::npos, trace.c_str());
        QVERIFY2(trace.find(", dated (") != std::string::npos, trace.c_str());
        QVERIFY2(trace.find("speciation order: ") != std::string::npos, trace.c_str());
    }

    // --highways: families simulated with a highway; AleRax's highways/ files, the rates fitted again
    // with the accepted highway held, and the sampling taking it (accepted_transfers).
    void highwaysRunEndToEnd() {
        const std::string folder = temporaryFolder("alerax_highways");
        const std::string species = sourcePath("samples/teaching/species.nwk");
        writeFile(folder + "/truth.txt", "src, dest, proba\nEscherichia, Bacillus, 0.4\n");
        CliRun sim = runGpurec({"simulate", "--species-tree", q(species), "--families", "60", "--d", "0.05",
                                "--l", "0.1", "--t", "0.03", "--highways-file", q(folder + "/truth.txt"),
                                "--min-covered-species", "4", "--seed", "3", "-o", q(folder + "/data")});
        QVERIFY2(sim.exitCode == 0, qPrintable(sim.err));
        const std::string out = folder + "/out";
        CliRun r = runGpurec({"alerax", "-f", q(folder + "/data/families.txt"), "-s",
                              q(folder + "/data/species.nwk"), "--highways", "-g", "5", "-p", q(out)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("running gpurec highways") && r.out.contains("--fix-highways"),
                 qPrintable(r.out));
        const SpeciesTree tree = SpeciesTree::readFile(folder + "/data/species.nwk");
        const std::vector<HighwayRecord> accepted =
            readHighways(out + "/highways/accepted_highways.txt", tree, TransferConstraint::Parents);
        QVERIFY(!accepted.empty());
        QVERIFY(accepted.front().highway == (Highway{tree.find("Escherichia"), tree.find("Bacillus")}));
        QVERIFY(std::filesystem::exists(out + "/highways/candidate_highways.txt"));
        QVERIFY(fileText(out + "/highways/accepted_transfers/highway_Escherichia_to_Bacillus.txt")
                    .starts_with("fam, transfers\n"));
        const nlohmann::json j = readJson(out + "/result.json");
        QCOMPARE(j.at("optimization").at("highways").at(0).at("src").get<std::string>(),
                 std::string("Escherichia"));
        QVERIFY(j.at("total").at("ll_nats").get<double>() >
                j.at("before_highways").at("total").at("ll_nats").get<double>());
        // The refit's likelihood is eval's with the same highways and rates (to the solver's tolerance:
        // the refit's last evaluation started warm).
        const std::string again = folder + "/eval";
        CliRun e = runGpurec({"eval", "-f", q(folder + "/data/families.txt"), "-s",
                              q(out + "/species_trees/inferred_species_tree.newick"), "--highways-file",
                              q(out + "/highways/accepted_highways.txt"), "--rates-file",
                              q(out + "/model_parameters/model_parameters.txt"), "-p", q(again)});
        QVERIFY2(e.exitCode == 0, qPrintable(e.err));
        QVERIFY(relativeError(readJson(again + "/result.json").at("total").at("ll_nats").get<double>(),
                              j.at("total").at("ll_nats").get<double>()) < 1e-12);
        // AleRax's checks on the highway options.
        for (const QStringList& extra : {QStringList{"--highway-candidates-file", "c.txt"},
                                         QStringList{"--highway-candidates-step2", "10"}}) {
            CliRun refused = runGpurec(aleraxArgs(folder + "/refused", extra));
            QCOMPARE(refused.exitCode, 2);
            QVERIFY2(refused.err.contains("need --highways"), qPrintable(refused.err));
        }
        CliRun both =
            runGpurec(aleraxArgs(folder + "/refused", {"--highways", "--highway-candidates-file", "c.txt",
                                                       "--highway-candidates-step1", "5"}));
        QCOMPARE(both.exitCode, 2);
        QVERIFY2(both.err.contains("cannot be used with --highway-candidates-step1"), qPrintable(both.err));
    }

    // --prune-species-tree reaches every stage; test_trees_2's family covers every species, so its
    // pruned tree is the full tree and the results are those of the unpruned pipeline, bit for bit.
    // With --fraction-missing-file it is AleRax's refusal.
    void pruningPassesThrough() {
        const std::string folder = temporaryFolder("alerax_pruned");
        CliRun r = runGpurec(aleraxArgs(folder + "/pruned", {"--prune-species-tree", "-g", "2"}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("running gpurec optimize") && r.out.contains("--prune-species-tree"),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(QRegularExpression("running gpurec sample [^\n]*--prune-species-tree")),
                 qPrintable(r.out));
        CliRun plain = runGpurec(aleraxArgs(folder + "/plain", {"-g", "2"}));
        QVERIFY2(plain.exitCode == 0, qPrintable(plain.err));
        QCOMPARE(fileText(folder + "/pruned/per_fam_likelihoods.txt"),
                 fileText(folder + "/plain/per_fam_likelihoods.txt"));
        QVERIFY(!fileText(folder + "/pruned/per_fam_likelihoods.txt").empty());
        CliRun missing = runGpurec(aleraxArgs(
            folder + "/refused", {"--prune-species-tree", "--fraction-missing-file", "missing.txt"}));
        QCOMPARE(missing.exitCode, 2);
        QCOMPARE(missing.err.trimmed(),
                 QString("gpurec: error: --fraction-missing-file cannot be used with --prune-species-tree"));
        QVERIFY(!std::filesystem::exists(folder + "/refused"));
    }

    void unsupportedOptionsAreRefusedByName() {
        const std::string out = temporaryFolder("alerax_refused") + "/out";
        const std::vector<std::pair<QStringList, QString>> cases = {
            {{"--origination", "OPTIMIZE", "--model-parametrization", "ORIGINATION-PER-SPECIES",
              "--species-tree-search", "REROOT"},
             "--species-tree-search REROOT with --model-parametrization ORIGINATION-PER-SPECIES"},
            {{"--prune-species-tree", "--highways"}, "--prune-species-tree with --highways"},
            {{"--prune-species-tree", "--species-tree-search", "HYBRID"},
             "--prune-species-tree with a species-tree search or a generated start tree"},
            {{"--species-tree-search", "HYBRID", "--model-parametrization", "PER-SPECIES"},
             "--species-tree-search HYBRID with --model-parametrization PER-SPECIES"},
        };
        for (const auto& [extra, what] : cases) {
            CliRun r = runGpurec(aleraxArgs(out, extra));
            QCOMPARE(r.exitCode, 2);
            QCOMPARE(r.err.trimmed(), "gpurec: error: " + what +
                                          " is not supported by gpurec yet (docs/alerax.md lists what gpurec "
                                          "alerax runs)");
            QVERIFY(!std::filesystem::exists(out)); // refused before anything is written
        }
        const std::string ds = sharedData(kData);
        CliRun nj = runGpurec({"alerax", "-f", q(ds + "/families.txt"), "-s", "MiniNJ",
                               "--model-parametrization", "PER-SPECIES", "-p", q(out)});
        QCOMPARE(nj.exitCode, 2);
        QVERIFY2(nj.err.contains("-s MiniNJ with --model-parametrization PER-SPECIES is not supported"),
                 qPrintable(nj.err));
        CliRun missing = runGpurec({"alerax", "-s", q(ds + "/sp.nwk"), "-p", q(out)});
        QCOMPARE(missing.exitCode, 106); // CLI11's RequiredError
        QVERIFY2(missing.err.contains("--families is required"), qPrintable(missing.err));
    }
};

QTEST_GUILESS_MAIN(CliAlerax)
#include "test_cli_alerax.moc"
