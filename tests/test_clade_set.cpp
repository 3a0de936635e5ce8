// Conditional clade probabilities: counts against the reference datasets, weights, and rooting modes.
#include "ccp/clade_set.hpp"
#include "io/input_error.hpp"
#include "support.hpp"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

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

    // MAD (spec 2.4): root splits weighted by 1/(1 + d)². Hand-worked on ((A:1,B:1):1,(C:1,D:1):1):
    // the middle of the central branch has every relative deviation 0 (weight 1); on a leaf branch
    // the best point is its inner end, d = (1 − 1)² + 2 (2·1/4 − 1)² = 1/2 (weight 4/9 each). So the
    // central split gets 1/(1 + 16/9) = 9/25, each leaf split 4/25.
    void madWeightsRootSplitsByTheirDeviation() {
        const CladeSet cs = build("((A_1:1,B_1:1):1,(C_1:1,D_1:1):1);", GeneTreeRooting::Mad);
        const int root = cs.rootClade();
        QCOMPARE(cs.splitOffset[root + 1] - cs.splitOffset[root], 5);
        for (int k = cs.splitOffset[root]; k < cs.splitOffset[root + 1]; ++k) {
            const CladeSplit& sp = cs.splits[k];
            const bool central = cs.cladeSize[sp.left] == 2;
            QVERIFY2(std::abs(sp.weight - (central ? 9.0 / 25 : 4.0 / 25)) < 1e-15,
                     qPrintable(QString::number(sp.weight, 'g', 17)));
        }
        // Splits below the root are not reweighted: the same as UNIFORM's.
        const CladeSet uniform = build("((A_1:1,B_1:1):1,(C_1:1,D_1:1):1);");
        QCOMPARE(cs.cladeCount(), uniform.cladeCount());
        for (int c = 0; c < root; ++c)
            for (int k = cs.splitOffset[c]; k < cs.splitOffset[c + 1]; ++k)
                QCOMPARE(cs.splits[k].weight, uniform.splits[k].weight);
    }

    // An independent minimiser: for every branch of random trees, the least sum found by a fine scan
    // of the rooting point (no closed form), against the weights MAD gives; with two samples, a split
    // they share keeps the first sample's deviation and counts twice (AleRax's rule).
    void madDeviationIsTheLeastOnTheBranch() {
        const std::string first = "((A_1:0.3,B_1:1.2):0.4,(C_1:0.7,(D_1:0.2,E_1:0.9):0.5):0.25);";
        const std::string second = "((A_1:0.8,B_1:0.1):0.6,(C_1:0.3,(D_1:1.1,E_1:0.4):0.2):0.9);";
        // Pairwise leaf distances and branches of `first`, written out: leaves A..E, inner u (AB),
        // v (DE), w (C,v); the root branch u–w has length 0.65.
        // d(x, y) in `first`
        auto d = [](char x, char y) {
            // Paths from u: each leaf's depth below u, and the inner nodes on its way.
            const std::map<char, double> depth = {
                {'A', 0.3}, {'B', 1.2}, {'C', 0.65 + 0.7}, {'D', 0.65 + 0.5 + 0.2}, {'E', 0.65 + 0.5 + 0.9}};
            const std::map<char, std::string> path = {
                {'A', "uA"}, {'B', "uB"}, {'C', "uwC"}, {'D', "uwvD"}, {'E', "uwvE"}};
            const std::map<char, double> nodeDepth = {{'u', 0.0}, {'w', 0.65}, {'v', 1.15}};
            const std::string& px = path.at(x);
            const std::string& py = path.at(y);
            std::size_t k = 0;
            while (k < px.size() && k < py.size() && px[k] == py[k])
                ++k;
            const double lca = nodeDepth.at(px[k - 1]);
            return depth.at(x) + depth.at(y) - 2 * lca;
        };
        auto leastSum = [&](const std::vector<char>& I, const std::vector<char>& J, double length,
                            const std::function<double(char)>& toEndI) {
            double best = INFINITY;
            for (int step = 0; step <= 100000; ++step) {
                const double x = length * step / 100000.0;
                double sum = 0;
                for (char b : I)
                    for (char c : J) {
                        const double r = 2 * (toEndI(b) + x) / d(b, c) - 1;
                        sum += r * r;
                    }
                best = std::min(best, sum);
            }
            return best;
        };
        const std::vector<char> all = {'A', 'B', 'C', 'D', 'E'};
        auto others = [&](const std::vector<char>& I) {
            std::vector<char> J;
            for (char c : all)
                if (std::find(I.begin(), I.end(), c) == I.end()) J.push_back(c);
            return J;
        };
        // Per root split of `first` (by its smaller side's leaves): the deviation.
        std::map<std::string, double> deviation;
        for (char leaf : all) {
            const double length = leaf == 'A'   ? 0.3
                                  : leaf == 'B' ? 1.2
                                  : leaf == 'C' ? 0.7
                                  : leaf == 'D' ? 0.2
                                                : 0.9;
            deviation[std::string(1, leaf)] =
                leastSum({leaf}, others({leaf}), length, [](char) { return 0.0; });
        }
        deviation["AB"] =
            leastSum({'A', 'B'}, {'C', 'D', 'E'}, 0.65, [&](char b) { return b == 'A' ? 0.3 : 1.2; });
        deviation["DE"] =
            leastSum({'D', 'E'}, {'A', 'B', 'C'}, 0.5, [&](char b) { return b == 'D' ? 0.2 : 0.9; });
        const CladeSet one = build(first, GeneTreeRooting::Mad);
        auto sideName = [&](const CladeSet& cs, const CladeSplit& sp) {
            std::vector<int> genes =
                genesOf(cs, cs.cladeSize[sp.left] <= cs.cladeSize[sp.right] ? sp.left : sp.right);
            std::string name;
            for (int g : genes)
                name += cs.geneNames[g][0];
            return name;
        };
        double total = 0;
        for (const auto& [name, dev] : deviation)
            total += 1 / ((1 + dev) * (1 + dev));
        const int root = one.rootClade();
        QCOMPARE(one.splitOffset[root + 1] - one.splitOffset[root], 7);
        for (int k = one.splitOffset[root]; k < one.splitOffset[root + 1]; ++k) {
            const std::string name = sideName(one, one.splits[k]);
            const double dev = deviation.at(name);
            QVERIFY2(relativeError(one.splits[k].weight, 1 / ((1 + dev) * (1 + dev)) / total) < 1e-8,
                     qPrintable(QString::fromStdString(name)));
        }
        // Two samples of one topology with other lengths: every root split counts twice and keeps the
        // first sample's deviation, so `first` then `second` weighs as `first` alone, and the other
        // order differently.
        const CladeSet two = buildCladeSet(parseNewick(first + "\n" + second, "g.nwk"), GeneTreeRooting::Mad);
        const CladeSet secondFirst =
            buildCladeSet(parseNewick(second + "\n" + first, "g.nwk"), GeneTreeRooting::Mad);
        for (int k = two.splitOffset[root]; k < two.splitOffset[root + 1]; ++k) {
            QVERIFY(relativeError(two.splits[k].weight, one.splits[k].weight) < 1e-15);
            QVERIFY(std::abs(secondFirst.splits[k].weight - one.splits[k].weight) >
                    1e-6); // the order matters
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
