// Conditional clade probabilities: counts against the reference datasets, weights, and rooting modes.
#include "ccp/clade_set.hpp"
#include "io/input_error.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>

using namespace gpurec;
using namespace gpurec::test;

class CladeSets : public QObject {
    Q_OBJECT

    static CladeSet build(const std::string& text, GeneTreeRooting rooting = GeneTreeRooting::Unrooted) {
        return buildCladeSet(parseNewick(text, "g.nwk"), rooting);
    }
    static double weightSum(const CladeSet& cs, int c) {
        double s = 0;
        for (int k = cs.splitOffset[c]; k < cs.splitOffset[c + 1]; ++k)
            s += cs.splits[k].weight;
        return s;
    }

  private slots:
    void referenceCounts_data() {
        QTest::addColumn<QString>("dataset");
        for (const char* d :
             {"test_trees_1", "test_trees_2", "test_trees_3", "test_trees_200", "test_mixed_200"})
            QTest::newRow(d) << d;
    }
    void referenceCounts() {
        QFETCH(QString, dataset);
        std::string folder = "alerax/" + dataset.toStdString();
        nlohmann::json ref = readJson(sharedData(folder + "/reference.json"));
        LoadedInput in = loadShared(folder, "sp.nwk");
        for (const GeneFamily& f : in.dataset->families) {
            const nlohmann::json& info = ref["family_info"][f.name];
            QCOMPARE(f.clades.geneCount(), int(info["genes"]));
            QCOMPARE(f.clades.cladeCount(), int(info["clades"]));
            QCOMPARE(f.clades.splitCount(), int(info["splits"]));
            QCOMPARE(f.coveredSpecies, int(info["covered_species"]));
            QCOMPARE(f.clades.cladeCount(), 4 * f.clades.geneCount() - 5); // one tree: 4n − 5 clades
        }
    }

    void oneUnrootedTreeWeightsEveryRootingEqually() {
        CladeSet cs = build("((A_1,B_1),(C_1,D_1),E_1);");
        QCOMPARE(cs.geneCount(), 5);
        QCOMPARE(cs.cladeCount(), 15);
        const int root = cs.rootClade();
        QCOMPARE(cs.cladeSize[root], 5);
        QCOMPARE(cs.splitOffset[root + 1] - cs.splitOffset[root], 2 * 5 - 3);
        for (int k = cs.splitOffset[root]; k < cs.splitOffset[root + 1]; ++k)
            QCOMPARE(cs.splits[k].weight, 1.0 / 7);
        for (int c = 0; c < cs.cladeCount(); ++c) {
            if (cs.cladeSize[c] == 1) {
                QVERIFY(cs.cladeGene[c] >= 0);
                QCOMPARE(cs.splitOffset[c + 1], cs.splitOffset[c]);
            } else {
                QVERIFY(std::abs(weightSum(cs, c) - 1.0) < 1e-15);
                for (int k = cs.splitOffset[c]; k < cs.splitOffset[c + 1]; ++k) {
                    const CladeSplit& s = cs.splits[k];
                    QVERIFY(s.left < c && s.right < c); // children precede parents
                    QCOMPARE(cs.cladeSize[s.left] + cs.cladeSize[s.right], cs.cladeSize[c]);
                }
            }
        }
    }

    void samplesAreAmalgamated() {
        // Two rooted-as-written samples of one unrooted topology and one different topology.
        CladeSet cs = build("((A_1,B_1),(C_1,D_1));\n(A_1,(B_1,(C_1,D_1)));\n((A_1,C_1),(B_1,D_1));");
        QCOMPARE(cs.treeCount, 3);
        const int root = cs.rootClade();
        // Bipartition AB|CD occurs in 2 of 3 trees; each tree has 5 edges, so its weight is 2/15.
        bool found = false;
        for (int k = cs.splitOffset[root]; k < cs.splitOffset[root + 1]; ++k) {
            const CladeSplit& s = cs.splits[k];
            if (cs.cladeSize[s.left] == 2 && cs.cladeSize[s.right] == 2) {
                std::vector<int> left = genesOf(cs, s.left);
                if (left == std::vector<int>{0, 1} || left == std::vector<int>{2, 3}) {
                    QCOMPARE(s.weight, 2.0 / 15);
                    found = true;
                }
            }
        }
        QVERIFY(found);
        // The clade {A,B,C} appears in both topologies (as the complement of D) and splits
        // differently: {A,B}|{C} twice, {A,C}|{B} once.
        for (int c = 0; c < cs.cladeCount(); ++c) {
            if (genesOf(cs, c) != std::vector<int>{0, 1, 2}) continue;
            QCOMPARE(cs.splitOffset[c + 1] - cs.splitOffset[c], 2);
            for (int k = cs.splitOffset[c]; k < cs.splitOffset[c + 1]; ++k) {
                const CladeSplit& s = cs.splits[k];
                bool abc =
                    genesOf(cs, s.left) == std::vector<int>{2} || genesOf(cs, s.right) == std::vector<int>{2};
                QCOMPARE(s.weight, abc ? 2.0 / 3 : 1.0 / 3);
            }
        }
    }

    void rootedModeUsesTheTreesRoot() {
        CladeSet cs = build("((A_1,B_1),(C_1,D_1));", GeneTreeRooting::Rooted);
        QCOMPARE(cs.cladeCount(), 7); // 2n − 1
        const int root = cs.rootClade();
        QCOMPARE(cs.splitOffset[root + 1] - cs.splitOffset[root], 1);
        QCOMPARE(cs.splits[cs.splitOffset[root]].weight, 1.0);
        try {
            build("(A_1,B_1,C_1);", GeneTreeRooting::Rooted);
            QFAIL("trifurcating root accepted in ROOTED mode");
        } catch (const InputError& e) {
            QCOMPARE(
                QString(e.what()),
                QString(
                    "g.nwk:1:13: gene tree must be binary, found a trifurcating (unrooted) root, but ROOTED "
                    "gene-tree rooting needs a binary root"));
        }
    }

    void geneTreeErrors() {
        auto message = [](const std::string& text) -> QString {
            try {
                build(text);
            } catch (const InputError& e) {
                return e.what();
            }
            return "no error";
        };
        QCOMPARE(message("((A,B,C),D);"),
                 QString("g.nwk:1:8: gene tree must be binary, found a polytomy (3 children)"));
        QCOMPARE(message("((A),B);"),
                 QString("g.nwk:1:4: gene tree must be binary, found a node with a single child"));
        QCOMPARE(message("(A,(B,C));\n(A,(B,D));"),
                 QString("g.nwk:2:7: leaf 'D' of tree 2 is not in the first tree (all samples must share one "
                         "leaf set)"));
        QCOMPARE(message("(A,(B,C));\n(A,B);"),
                 QString("g.nwk:2: tree 2 has 2 leaves but the first tree has 3"));
    }

    void twoGenes() {
        CladeSet cs = build("(A_1,B_1);");
        QCOMPARE(cs.cladeCount(), 3);
        QCOMPARE(cs.splitCount(), 1);
    }
};

QTEST_GUILESS_MAIN(CladeSets)
#include "test_clade_set.moc"
