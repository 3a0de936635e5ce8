// Species tree: AleRax relabelling, postorder structure, transfer recipients and Π̄ averaging.
#include "engine/species_operators.hpp"
#include "io/input_error.hpp"
#include "support.hpp"
#include "tree/species_tree.hpp"

#include <QtTest>
#include <random>

using namespace gpurec;
using namespace gpurec::test;

class SpeciesTrees : public QObject {
    Q_OBJECT

    static SpeciesTree tree(const std::string& text) {
        return SpeciesTree::fromNewick(parseNewick(text, "s.nwk")[0]);
    }

  private slots:
    void relabelsLikeAleRax() {
        SpeciesTree st = tree("(((5,(11,12)6)3,(13,14)4)1,((9,10)7,8)2)0;");
        std::vector<std::string> internal;
        for (int e = 0; e < st.size(); ++e)
            if (!st.isLeaf(e)) internal.push_back(st.name(e));
        QCOMPARE(internal,
                 (std::vector<std::string>{"Node_11_12_0", "Node_5_11_0", "Node_13_14_0", "Node_5_13_0",
                                           "Node_9_10_0", "Node_9_8_0", "Node_5_9_0"}));
        SpeciesTree named = tree("((A,B)AB,(C,D)0.95)R;");
        QCOMPARE(named.name(2), std::string("AB"));
        QCOMPARE(named.name(5), std::string("Node_C_D_0"));
        QCOMPARE(named.name(6), std::string("R"));
        SpeciesTree clash = tree("((A,B)A,(C,D)X)X;");
        QCOMPARE(clash.name(2), std::string("Node_A_B_0"));
        QCOMPARE(clash.name(5), std::string("X"));
        QCOMPARE(clash.name(6), std::string("Node_A_C_0"));
        QCOMPARE(SpeciesTree::fromNewick(parseNewick(clash.toNewick(false), "w")[0]).toNewick(false),
                 clash.toNewick(false));
    }

    void structureAndRecipients() {
        SpeciesTree st = tree("((A,B)AB,C)R;");
        QCOMPARE(st.size(), 5);
        QCOMPARE(st.root(), 4);
        QCOMPARE(st.leafCount(), 3);
        std::vector<int> depth, parents, none;
        for (int e = 0; e < st.size(); ++e) {
            depth.push_back(st.depth(e));
            parents.push_back(st.recipientCount(e, TransferConstraint::Parents));
            none.push_back(st.recipientCount(e, TransferConstraint::None));
            QCOMPARE(int(st.recipients(e, TransferConstraint::Parents).size()), parents.back());
        }
        QCOMPARE(depth, (std::vector<int>{3, 3, 2, 2, 1}));
        QCOMPARE(parents, (std::vector<int>{2, 2, 3, 3, 4})); // spec 11.1
        QCOMPARE(none, (std::vector<int>{4, 4, 4, 4, 4}));
        QCOMPARE(st.recipients(2, TransferConstraint::Parents), (std::vector<int>{0, 1, 3}));
        QVERIFY(parseTransferConstraint("NONE") == TransferConstraint::None);
    }

    void recipientAverageMatchesBruteForce() {
        SpeciesTree st = tree("(((A,B),(C,(D,E))),((F,G),H));");
        std::mt19937 rng(3);
        std::uniform_real_distribution<double> u(0, 1);
        for (TransferConstraint c : {TransferConstraint::Parents, TransferConstraint::None}) {
            SpeciesLayout layout(st, c);
            const int n = st.size();
            std::vector<double> x(n), bar(n), scratch(3 * n), u2(n), tr(n);
            for (double& v : x)
                v = u(rng);
            for (double& v : u2)
                v = u(rng) - 0.5;
            recipientAverage(layout, x.data(), bar.data(), scratch.data());
            recipientAverageTranspose(layout, u2.data(), tr.data(), scratch.data());
            for (int e = 0; e < n; ++e) {
                double sum = 0;
                for (int h : st.recipients(e, c))
                    sum += x[h];
                QVERIFY(relativeError(bar[e], sum / st.recipientCount(e, c)) < 1e-14);
            }
            // <u, M x> = <Mᵀ u, x>
            double lhs = 0, rhs = 0;
            for (int e = 0; e < n; ++e) {
                lhs += u2[e] * bar[e];
                rhs += tr[e] * x[e];
            }
            QVERIFY(std::abs(lhs - rhs) < 1e-13);
        }
    }
};

QTEST_GUILESS_MAIN(SpeciesTrees)
#include "test_species_tree.moc"
