// AleRax's family filters and input summaries on hand-counted families. An unrooted tree of n genes
// gives 4n - 5 clades (both sides of its 2n - 3 branches, and the root clade), so one tree of 2, 3,
// 4 and 5 genes has 3, 7, 11 and 15 clades; two 4-gene trees with different splits have 13.
#include "cli_run.hpp"
#include "support.hpp"

#include "ccp/ale_file.hpp"
#include "data/coverage_files.hpp"
#include "data/family_trimming.hpp"

#include <QtTest>

using namespace gpurec;
using namespace gpurec::test;

namespace {

const SpeciesTree& species() {
    static const SpeciesTree tree = SpeciesTree::fromNewick(parseNewick("((A,B)AB,(C,D)CD)R;", "sp").front());
    return tree;
}

GeneFamily family(const std::string& name, const std::string& newick) {
    return makeFamily(species(), name, parseNewick(newick, name), GeneTreeRooting::Unrooted);
}

// 3, 7, 11, 13 and 15 clades; f2 and big cover 2 species, f3 covers 3, the others 4.
GeneFamily f2() {
    return family("f2", "(A_1,B_1);");
}
GeneFamily f3(const std::string& name = "f3") {
    return family(name, "((A_1,B_1),C_1);");
}
GeneFamily f4() {
    return family("f4", "((A_1,B_1),(C_1,D_1));");
}
GeneFamily f4b() {
    return family("f4b", "((A_1,B_1),(C_1,D_1));\n((A_1,C_1),(B_1,D_1));");
}
GeneFamily big() {
    return family("big", "((A_1,A_2),(A_3,(B_1,B_2)));");
}

std::vector<std::string> names(const std::vector<GeneFamily>& families) {
    std::vector<std::string> out;
    for (const GeneFamily& f : families)
        out.push_back(f.name);
    return out;
}

std::vector<std::string> names(const std::vector<FamilyProblem>& problems) {
    std::vector<std::string> out;
    for (const FamilyProblem& p : problems)
        out.push_back(p.family);
    return out;
}

using Names = std::vector<std::string>;

// `gpurec eval` on samples/tiny (family1: 5 genes, 1 tree, 15 clades; family2: 4 genes, 11 clades).
nlohmann::json evalTiny(const std::string& tag, const QStringList& extra, CliRun* run = nullptr) {
    const std::string out = temporaryFolder(tag);
    CliRun r = runGpurec(QStringList{"eval", "-s", q(sourcePath("samples/tiny/species.nwk")), "-f",
                                     q(sourcePath("samples/tiny/families.txt")), "--min-covered-species", "1",
                                     "--threads", "1", "-p", q(out)} +
                         extra);
    if (run) *run = r;
    if (r.exitCode != 0) return nlohmann::json();
    return readJson(out + "/result.json");
}

Names jsonNames(const nlohmann::json& list) {
    Names out;
    for (const nlohmann::json& f : list)
        out.push_back(f.at("name").get<std::string>());
    return out;
}

} // namespace

class FamilyTrimming : public QObject {
    Q_OBJECT
  private slots:
    void handCountedClades() {
        const std::vector<GeneFamily> all = {f2(), f3(), f4(), f4b(), big()};
        std::vector<int> clades;
        for (const GeneFamily& f : all)
            clades.push_back(f.clades.cladeCount());
        QCOMPARE(clades, (std::vector<int>{3, 7, 11, 13, 15}));
        QCOMPARE(big().coveredSpecies, 2);
    }

    // Keeps floor(N (1 - r)) of the fewest clades, ties to the earlier family, in input order.
    void trimRatioKeepsTheSmallest() {
        std::vector<GeneFamily> fams = {f4b(), f3("f3"), f4(), f2(), f3("f3_again")};
        std::vector<FamilyProblem> excluded;
        filterByCladeCount(fams, 0.5, excluded); // floor(5 * 0.5) = 2: f2 (3) and the first f3 (7)
        QCOMPARE(names(fams), (Names{"f3", "f2"}));
        QCOMPARE(names(excluded), (Names{"f4b", "f4", "f3_again"}));
        QCOMPARE(excluded[0].message,
                 std::string("has 13 clades; --trim-ratio 0.5 keeps the 2 of 5 families with the fewest "
                             "clades (at most 7)"));
        QCOMPARE(excluded[2].reason, excluded[2].message);
        QCOMPARE(excluded[2].line, 0);

        fams = {f4b(), f3("f3"), f4(), f2(), f3("f3_again")};
        excluded.clear();
        filterByCladeCount(fams, 0.3, excluded); // floor(3.5) = 3
        QCOMPARE(names(fams), (Names{"f3", "f2", "f3_again"}));

        fams = {f4(), f2()};
        excluded.clear();
        filterByCladeCount(fams, 1, excluded);
        QVERIFY(fams.empty());
        QCOMPARE(excluded[1].message,
                 std::string("has 3 clades; --trim-ratio 1 keeps none of the 2 families"));

        fams = {f4(), f2()};
        excluded.clear();
        filterByCladeCount(fams, 0, excluded); // off
        QCOMPARE(names(fams), (Names{"f4", "f2"}));
        QVERIFY(excluded.empty());
    }

    // AleRax computes N * (1 - r) in doubles: 10 * (1 - 0.9) = 0.9999999999999998 keeps none.
    void trimRatioUsesAleRaxArithmetic() {
        std::vector<GeneFamily> fams(10, f3());
        std::vector<FamilyProblem> excluded;
        filterByCladeCount(fams, 0.9, excluded);
        QCOMPARE(fams.size(), std::size_t(0));
        fams.assign(10, f3());
        excluded.clear();
        filterByCladeCount(fams, 0.8, excluded); // 10 * 0.19999999999999996 = 1.9999999999999996
        QCOMPARE(fams.size(), std::size_t(1));
    }

    // Keeps a family iff x (2 genes - 3) >= clades.
    void cladeSplitRatioComparesWithTheBranches() {
        std::vector<GeneFamily> fams = {f2(), f3(), f4(), f4b()};
        std::vector<FamilyProblem> excluded;
        filterByCladeSplitRatio(fams, 3, excluded); // limits 3, 9, 15, 15: equality keeps f2
        QCOMPARE(names(fams), (Names{"f2", "f3", "f4", "f4b"}));
        filterByCladeSplitRatio(fams, 2.5, excluded); // limits 2.5, 7.5, 12.5, 12.5
        QCOMPARE(names(fams), (Names{"f3", "f4"}));
        QCOMPARE(names(excluded), (Names{"f2", "f4b"}));
        QCOMPARE(excluded[0].message,
                 std::string("has 3 clades for 2 genes, more than --max-clade-split-ratio "
                             "2.5 times 1 (2 * 2 - 3) = 2.5"));
        QCOMPARE(excluded[1].message,
                 std::string("has 13 clades for 4 genes, more than --max-clade-split-ratio "
                             "2.5 times 5 (2 * 4 - 3) = 12.5"));
        filterByCladeSplitRatio(fams, -1, excluded); // off
        QCOMPARE(fams.size(), std::size_t(2));
        filterByCladeSplitRatio(fams, 0, excluded);
        QVERIFY(fams.empty());
    }

    // Coverage first: the trim ratio counts only the families that cover enough species.
    void coverageComesBeforeTheTrimRatio() {
        LoadOptions o;
        o.minCoveredSpecies = 3;
        o.trimRatio = 0.5;
        std::vector<GeneFamily> fams = {f3(), f4(), f4b(), big()};
        std::vector<FamilyProblem> excluded;
        filterFamilies(fams, o, excluded); // big out, then floor(3 * 0.5) = 1 (trimming first keeps 2)
        QCOMPARE(names(fams), (Names{"f3"}));
        QCOMPARE(names(excluded), (Names{"big", "f4", "f4b"}));
        QCOMPARE(excluded[0].message, std::string("covers 2 species, fewer than the minimum of 3"));
    }

    // The trim ratio before the split ratio: split first would leave f3, f4 and keep 1 of 2.
    void trimRatioComesBeforeTheSplitRatio() {
        LoadOptions o;
        o.minCoveredSpecies = 1;
        o.trimRatio = 0.25;
        o.maxCladeSplitRatio = 2.5;
        std::vector<GeneFamily> fams = {f2(), f3(), f4(), f4b()};
        std::vector<FamilyProblem> excluded;
        filterFamilies(fams, o, excluded); // floor(4 * 0.75) = 3: f2, f3, f4; then f2 fails 2.5 >= 3
        QCOMPARE(names(fams), (Names{"f3", "f4"}));
        QCOMPARE(names(excluded), (Names{"f4b", "f2"}));
    }

    void optionsOutOfRangeAreRefused() {
        auto message = [](auto set) {
            LoadOptions o;
            set(o);
            try {
                checkFilterOptions(o);
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        QCOMPARE(message([](LoadOptions& o) { o.trimRatio = 1.5; }),
                 std::string("--trim-ratio must be in [0, 1], got 1.5"));
        QCOMPARE(message([](LoadOptions& o) { o.maxCladeSplitRatio = -0.5; }),
                 std::string("--max-clade-split-ratio must be >= 0 or -1, got -0.5"));
        QCOMPARE(message([](LoadOptions& o) { o.ccpSampleFrequency = 0; }),
                 std::string("--ccp-sample-frequency must be >= 1, got 0"));
        QCOMPARE(message([](LoadOptions&) {}), std::string());
    }

    // Trees 0, k, 2k, ... of a Newick file; an .ale file is taken whole.
    void sampleFrequencyKeepsEveryKthTree() {
        const std::string dir = temporaryFolder("trim_frequency");
        const std::string trees = "((A_1,B_1),(C_1,D_1));\n((A_1,C_1),(B_1,D_1));\n((A_1,D_1),(B_1,C_1));\n";
        writeFile(dir + "/g.nwk", trees);
        writeAleFile(dir + "/g.ale", buildCladeSet(parseNewick(trees, "g"), GeneTreeRooting::Unrooted));
        auto load = [&](const std::string& file, int k) {
            FamilyInput input;
            input.name = "g";
            input.geneTreePath = dir + "/" + file;
            const GeneFamily f = prepareFamily(species(), input, GeneTreeRooting::Unrooted, k);
            return std::pair{f.clades.treeCount, f.clades.cladeCount()};
        };
        // 8 leaf-side clades and the root, plus the cherries: 6 of 3 trees, 4 of trees 0 and 2, 2 of one.
        QCOMPARE(load("g.nwk", 1), (std::pair{3, 15}));
        QCOMPARE(load("g.nwk", 2), (std::pair{2, 13}));
        QCOMPARE(load("g.nwk", 3), (std::pair{1, 11}));
        QCOMPARE(load("g.nwk", 7), (std::pair{1, 11}));
        QCOMPARE(load("g.ale", 2), (std::pair{3, 15}));
    }

    void loaderReportsDimensionsBeforeTheFilters() {
        const std::string dir = temporaryFolder("trim_loader");
        writeFile(dir + "/a.nwk", "((A_1,B_1),(C_1,D_1));\n");
        writeFile(dir + "/b.nwk", "((A_1,B_1),C_1);\n");
        std::vector<FamilyInput> inputs(2);
        inputs[0].name = "a";
        inputs[0].geneTreePath = dir + "/a.nwk";
        inputs[1].name = "b";
        inputs[1].geneTreePath = dir + "/b.nwk";
        LoadOptions o;
        o.minCoveredSpecies = 1;
        o.trimRatio = 0.5;
        const LoadReport r = loadFamilies(species(), inputs, o);
        QCOMPARE(names(r.families), (Names{"b"}));
        QCOMPARE(names(r.excluded), (Names{"a"}));
        QCOMPARE(r.dimensions.size(), std::size_t(2));
        QCOMPARE(r.dimensions[0].family, std::string("a"));
        QCOMPARE(r.dimensions[0].leaves, 4);
        QCOMPARE(r.dimensions[0].clades, 11);
        o.trimRatio = 2;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loadFamilies(species(), inputs, o));
    }

    // A: 3 of 3 families and 5 genes; B: 3 families, 4 genes; C: 1 family, 1 gene; D: none.
    void perSpeciesFilesByHand() {
        const std::vector<GeneFamily> fams = {f3(), f2(), big()};
        QCOMPARE(perSpeciesCoverageText(species(), fams),
                 std::string("D 0\nC 0.3333333333333333\nA 1\nB 1\n"));
        QCOMPARE(perSpeciesMissingText(species(), fams), std::string("A 0\nB 0.2\nC 0.8\nD 1\n"));
    }

    void evalTrimsByEachOption_data() {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("kept");
        QTest::addColumn<QString>("dropped");
        QTest::addColumn<QString>("reason");
        QTest::newRow("trim ratio") << QStringList{"--trim-ratio", "0.5"} << "family2"
                                    << "family1"
                                    << "has 15 clades; --trim-ratio 0.5 keeps the 1 of 2 families with the "
                                       "fewest clades (at most 11)";
        // family1: 2.15 * 7 = 15.05 >= 15; family2: 2.15 * 5 = 10.75 < 11.
        QTest::newRow("split ratio") << QStringList{"--max-clade-split-ratio", "2.15"} << "family1"
                                     << "family2"
                                     << "has 11 clades for 4 genes, more than --max-clade-split-ratio 2.15 "
                                        "times 5 (2 * 4 - 3) = 10.75";
    }
    void evalTrimsByEachOption() {
        QFETCH(QStringList, options);
        QFETCH(QString, kept);
        QFETCH(QString, dropped);
        QFETCH(QString, reason);
        CliRun r;
        const nlohmann::json j = evalTiny("trim_eval", options, &r);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.err, "excluded family " + dropped + ": " + reason + "\n");
        QCOMPARE(jsonNames(j.at("families")), (Names{kept.toStdString()}));
        QCOMPARE(jsonNames(j.at("input_files").at("families")), (Names{kept.toStdString()}));
        QCOMPARE(j.at("excluded_families"),
                 nlohmann::json::parse(R"([{"name": ")" + dropped.toStdString() + R"(", "reason": ")" +
                                       reason.toStdString() + R"("}])"));
    }

    // Defaults: nothing trimmed, and the options recorded.
    void evalKeepsEveryFamilyByDefault() {
        const nlohmann::json j = evalTiny("trim_default", {});
        QCOMPARE(jsonNames(j.at("families")), (Names{"family1", "family2"}));
        QVERIFY(j.at("excluded_families").empty());
        QCOMPARE(j.at("options").at("trim_ratio").get<double>(), 0.0);
        QCOMPARE(j.at("options").at("max_clade_split_ratio").get<double>(), -1.0);
        QCOMPARE(j.at("options").at("ccp_sample_frequency").get<int>(), 1);
    }

    // samples/teaching family04 has 10 trees (9 distinct): frequency 3 amalgamates trees 0, 3, 6 and 9,
    // exactly like a file holding only those.
    void evalSamplesEveryKthTree() {
        const std::string dir = temporaryFolder("trim_every_kth");
        const std::string all = fileText(sourcePath("samples/teaching/gene_trees/family04.nwk"));
        std::string kept;
        std::size_t start = 0;
        for (int i = 0; start < all.size(); ++i) {
            const std::size_t end = all.find('\n', start) + 1;
            if (i % 3 == 0) kept += all.substr(start, end - start);
            start = end;
        }
        writeFile(dir + "/kept.nwk", kept);
        auto run = [&](const std::string& tag, const std::string& file, const QStringList& extra) {
            const std::string out = dir + "/" + tag;
            CliRun r = runGpurec(QStringList{"eval", "-s", q(sourcePath("samples/teaching/species.nwk")),
                                             q(file), "--threads", "1", "-p", q(out)} +
                                 extra);
            if (r.exitCode != 0) qWarning("%s", qPrintable(r.err));
            return readJson(out + "/result.json").at("families").at(0);
        };
        const std::string family04 = sourcePath("samples/teaching/gene_trees/family04.nwk");
        const nlohmann::json every = run("every", family04, {});
        const nlohmann::json sampled = run("sampled", family04, {"--ccp-sample-frequency", "3"});
        const nlohmann::json reference = run("reference", dir + "/kept.nwk", {});
        QCOMPARE(sampled.at("clades"), reference.at("clades"));
        QCOMPARE(sampled.at("ll_nats"), reference.at("ll_nats"));
        QVERIFY(sampled.at("clades") != every.at("clades"));
    }

    void cladeDimensionsByDecreasingCladeCount() {
        const std::vector<CladeDimension> dims = {{"z3", 3, 7}, {"f2", 2, 3}, {"big", 5, 15}, {"a3", 3, 7}};
        QCOMPARE(cladeDimensionsText(dims),
                 std::string("fam, leaves, ccps\nbig, 5, 15\na3, 3, 7\nz3, 3, 7\nf2, 2, 3\n"));
    }
};

QTEST_GUILESS_MAIN(FamilyTrimming)
#include "test_family_trimming.moc"
