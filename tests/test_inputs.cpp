// Families files, mapping files and the family loader: formats, path resolution and errors.
#include "data/load.hpp"
#include "io/families_file.hpp"
#include "io/gene_mapping.hpp"
#include "io/input_error.hpp"
#include "support.hpp"

#include <QtTest>
#include <filesystem>

using namespace gpurec;
using namespace gpurec::test;

class Inputs : public QObject {
    Q_OBJECT

    template <class F> static QString errorOf(F f) {
        try {
            f();
        } catch (const std::exception& e) {
            return e.what();
        }
        return "no error";
    }

  private slots:
    void familiesFileSyntax() {
        auto fams =
            parseFamilies("ignored\n[FAMILIES]  # the list\n- fam 1\n  gene_tree = a b.nwk # spaces vanish\n"
                          "mapping=m.link\n\n-fam2\nstarting_gene_tree=x.nwk\nalignment=al.fasta\n",
                          "");
        QCOMPARE(fams.size(), std::size_t(2));
        QCOMPARE(fams[0].name, std::string("fam1"));
        QCOMPARE(fams[0].geneTreePath, std::string("ab.nwk"));
        QCOMPARE(fams[0].mappingPath, std::string("m.link"));
        QCOMPARE(fams[1].geneTreePath, std::string("x.nwk"));
        QCOMPARE(fams[1].line, 7);
    }

    void familiesFileErrors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("no section") << "- a\n"
                                    << "f.txt: no [FAMILIES] section";
        QTest::newRow("empty") << "[FAMILIES]\n"
                               << "f.txt: no family listed after [FAMILIES]";
        QTest::newRow("key first") << "[FAMILIES]\ngene_tree = g\n"
                                   << "f.txt:2:1: 'gene_tree' before the first '- family_name'";
        QTest::newRow("garbage first")
            << "[FAMILIES]\nhello\n"
            << "f.txt:2:1: expected '- family_name' or 'key = value', found 'hello'";
        QTest::newRow("no name") << "[FAMILIES]\n-\n"
                                 << "f.txt:2:1: family name missing after '-'";
    }
    void familiesFileErrors() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QCOMPARE(errorOf([&] { parseFamilies(text.toStdString(), "f.txt"); }), message);
    }

    // A bad line inside a family's block marks that family only; the others stay usable.
    void familyBlockErrors_data() {
        QTest::addColumn<QString>("block");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown key")
            << "- a\ngene_tree = g\ncolour = red\n"
            << "f.txt:6:1: unknown key 'colour' (expected gene_tree, mapping, alignment, subst_model)";
        QTest::newRow("no gene tree") << "- a\nmapping = m\n"
                                      << "f.txt:4:1: family 'a' has no gene_tree";
        QTest::newRow("garbage") << "- a\nhello\ngene_tree = g\n"
                                 << "f.txt:5:1: expected '- family_name' or 'key = value', found 'hello'";
        QTest::newRow("empty value") << "- a\ngene_tree=\n"
                                     << "f.txt:5:11: empty value for 'gene_tree'";
        QTest::newRow("first problem kept")
            << "- a\nx=1\ny=2\n"
            << "f.txt:5:1: unknown key 'x' (expected gene_tree, mapping, alignment, subst_model)";
        QTest::newRow("duplicate") << "- ok\ngene_tree = g\n"
                                   << "f.txt:4:1: duplicate family name 'ok' (first at line 2)";
    }
    void familyBlockErrors() {
        QFETCH(QString, block);
        QFETCH(QString, message);
        auto fams = parseFamilies("[FAMILIES]\n- ok\ngene_tree = g.nwk\n" + block.toStdString() +
                                      "- last\ngene_tree = h.nwk\n",
                                  "f.txt");
        QCOMPARE(fams.size(), std::size_t(3));
        QVERIFY(!fams[0].error);
        QVERIFY(fams[1].error.has_value());
        QCOMPARE(QString(fams[1].error->what()), message);
        QVERIFY(!fams[2].error);
        QCOMPARE(fams[2].geneTreePath, std::string("h.nwk"));
    }

    void pathsResolveBesideTheFamiliesFileOnly() {
        std::string dir = temporaryFolder("paths");
        writeFile(dir + "/sub/g.nwk", "(A_1,B_1);");
        writeFile(dir + "/fams.txt", "[FAMILIES]\n- f\ngene_tree = sub/g.nwk\n- h\ngene_tree = /abs/x.nwk\n- "
                                     "k\ngene_tree = nowhere.nwk\n"
                                     "mapping = ../m.link\n");
        auto fams = readFamiliesFile(dir + "/fams.txt");
        QCOMPARE(fams[0].geneTreePath,
                 (std::filesystem::path(dir) / "sub/g.nwk").lexically_normal().string());
        QCOMPARE(fams[1].geneTreePath, std::string("/abs/x.nwk"));
        QCOMPARE(fams[2].geneTreePath,
                 (std::filesystem::path(dir) / "nowhere.nwk").string()); // never the working directory
        QCOMPARE(fams[2].mappingPath, (std::filesystem::path(dir).parent_path() / "m.link").string());
    }

    void mappingFormats() {
        GeneMapping phyldog = GeneMapping::parse("Homo:h1;h2\n\nPan:p1\n", "p.link");
        QCOMPARE(phyldog.speciesOf("h2"), std::string("Homo"));
        QCOMPARE(phyldog.speciesOf("p1"), std::string("Pan"));
        QCOMPARE(phyldog.speciesOf("zz"), std::string());
        GeneMapping treerecs = GeneMapping::parse("h1 Homo\n p1\tPan \n", "t.link");
        QCOMPARE(treerecs.speciesOf("p1"), std::string("Pan"));
        QCOMPARE(QString::fromStdString(treerecs.describe()),
                 QString("mapping file t.link (Treerecs format)"));
        GeneMapping rule;
        QCOMPARE(rule.speciesOf("HUMAN_12_b"), std::string("HUMAN"));
        QCOMPARE(rule.speciesOf("solo"), std::string("solo"));
    }

    void mappingErrors() {
        QCOMPARE(errorOf([] { GeneMapping::parse("g1 A extra\n", "m"); }),
                 QString("m:1: expected 'gene species' (Treerecs format), found extra field 'extra'"));
        QCOMPARE(errorOf([] { GeneMapping::parse("g1\n", "m"); }),
                 QString("m:1: expected 'gene species' (Treerecs format), found one field"));
        QCOMPARE(errorOf([] { GeneMapping::parse("A:g1\nB:g1\n", "m"); }),
                 QString("m:2: gene 'g1' mapped to both 'A' and 'B'"));
        QCOMPARE(errorOf([] { GeneMapping::parse("\n\n", "m"); }), QString("m: mapping file is empty"));
    }

    void unmappedGenesAreNamed() {
        std::string dir = temporaryFolder("unmapped");
        writeFile(dir + "/s.nwk", "((A,B)AB,(C,D)CD);");
        writeFile(dir + "/g.nwk", "((A_1,B_1),\n(C_1,X_1));");
        writeFile(dir + "/m.link", "A_1 A\nB_1 B\nC_1 C\n");
        writeFile(dir + "/fams.txt",
                  "[FAMILIES]\n- byrule\ngene_tree = g.nwk\n- byfile\ngene_tree = g.nwk\nmapping = m.link\n"
                  "- internal\ngene_tree = i.nwk\n");
        writeFile(dir + "/i.nwk", "((A_1,AB_1),(C_1,D_1));");
        LoadOptions lo;
        lo.threads = 1;
        InputPaths paths;
        paths.speciesTree = dir + "/s.nwk";
        paths.familiesFile = dir + "/fams.txt";
        LoadedInput in = loadInput(paths, TransferConstraint::Parents, lo);
        QCOMPARE(in.dataset->families.size(), std::size_t(0));
        QCOMPARE(in.errors.size(), std::size_t(3));
        QCOMPARE(QString::fromStdString(in.errors[0].message),
                 QString::fromStdString(
                     dir + "/g.nwk:2:6: gene 'X_1' of family 'byrule' maps to species 'X', which is not "
                           "in the species tree (default rule (species = gene label up to the first '_'))"));
        QCOMPARE(QString::fromStdString(in.errors[1].message),
                 QString::fromStdString(
                     dir + "/g.nwk:2:6: gene 'X_1' of family 'byfile' is not in the mapping file " + dir +
                     "/m.link (Treerecs format)"));
        QVERIFY(QString::fromStdString(in.errors[2].message)
                    .contains("maps to 'AB', an internal node of the species tree"));
    }

    void sharedDatasetsLoadWithExclusions() {
        LoadedInput primates = loadShared("primates", "species.nwk");
        QCOMPARE(primates.errors.size(), std::size_t(0));
        QCOMPARE(primates.dataset->families.size(), std::size_t(7));
        QCOMPARE(primates.excluded.size(), std::size_t(1));
        QCOMPARE(primates.excluded[0].family, std::string("family_16338"));
        QCOMPARE(QString::fromStdString(primates.excluded[0].message),
                 QString("covers 1 species, fewer than the minimum of 4"));
        for (const GeneFamily& f : primates.dataset->families)
            QCOMPARE(f.clades.treeCount, 1001);
        LoadedInput sim = loadShared("simulated_2", "species.nwk");
        QCOMPARE(sim.errors.size(), std::size_t(0));
        QCOMPARE(sim.dataset->families.size(), std::size_t(3));
        QCOMPARE(sim.dataset->species.size(), 37);
        LoadedInput tinyDefault = loadShared("tiny", "species.nwk");
        QCOMPARE(tinyDefault.dataset->families.size(), std::size_t(0));
        QCOMPARE(tinyDefault.excluded.size(), std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(Inputs)
#include "test_inputs.moc"
