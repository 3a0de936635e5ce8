// Species tree: AleRax relabelling, postorder structure, RELDATED ranks, transfer recipients and Π̄
// averaging, against brute force (reference_model.hpp).
#include "engine/species_operators.hpp"
#include "io/input_error.hpp"
#include "reference_model.hpp"
#include "support.hpp"
#include "tree/ranked_recipients.hpp"
#include "tree/species_tree.hpp"

#include <QtTest>
#include <algorithm>
#include <random>

using namespace gpurec;
using namespace gpurec::test;

namespace {

// A random rooted binary tree over leaves L0..L(n−1), internal nodes unnamed (relabelled like
// AleRax) or named, lengths drawn from values that make ties, rounding and the ≤ 0 rule matter.
std::string randomNewick(int leaves, std::mt19937& rng) {
    const char* const lengths[] = {"",   ":0",   ":-1",        ":0.1",       ":0.2",       ":0.3", ":0.7",
                                   ":1", ":1.5", ":0.0000001", ":2.0000004", ":2.0000001", ":1e-3"};
    std::uniform_int_distribution<int> length(0, std::size(lengths) - 1), coin(0, 1);
    std::vector<std::string> parts;
    for (int i = 0; i < leaves; ++i)
        parts.push_back("L" + std::to_string(i) + lengths[length(rng)]);
    int named = 0;
    while (parts.size() > 1) {
        std::uniform_int_distribution<std::size_t> pick(0, parts.size() - 1);
        const std::size_t a = pick(rng);
        std::string left = parts[a];
        parts.erase(parts.begin() + static_cast<long>(a));
        const std::size_t b = pick(rng) % parts.size();
        const std::string label = coin(rng) ? "N" + std::to_string(named++) : "";
        parts[b] = "(" + left + "," + parts[b] + ")" + label + lengths[length(rng)];
    }
    return parts[0] + ";";
}

std::vector<std::string> namesOf(const SpeciesTree& st, const std::vector<int>& nodes) {
    std::vector<std::string> out;
    for (int e : nodes)
        out.push_back(st.name(e));
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

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
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseTransferConstraint("RELDATE"));
    }

    // The worked example of the RELDATED notes: not ultrametric, the root without a length (1).
    void relDatedWorkedExample() {
        const SpeciesTree st = tree("((A:1,B:3)X:2,(C:2,D:0.5)Y:1)R;");
        std::vector<std::string> byRank;
        for (int r = 0; r < st.size(); ++r)
            byRank.push_back(st.name(st.nodeAtRank(r)));
        QCOMPARE(byRank, (std::vector<std::string>{"R", "Y", "X", "A", "B", "C", "D"}));
        QCOMPARE(st.ranks(), referenceRanks(st));
        const std::map<std::string, std::vector<std::string>> expected = {
            {"R", {"A", "B", "C", "D", "X", "Y"}},
            {"X", {"A", "B", "C", "D", "Y"}},
            {"Y", {"A", "B", "C", "D", "X"}},
            {"A", {"B", "C", "D"}},
            {"B", {"A", "C", "D"}},
            {"C", {"A", "B", "D", "X"}},
            {"D", {"A", "B", "C", "X"}}};
        const auto reference = referenceRecipients(st, TransferConstraint::RelDated);
        for (const auto& [name, recipients] : expected) {
            const int e = st.find(name);
            QCOMPARE(namesOf(st, st.recipients(e, TransferConstraint::RelDated)), recipients);
            QCOMPARE(namesOf(st, reference[e]), recipients);
            QCOMPARE(st.recipientCount(e, TransferConstraint::RelDated), int(recipients.size()));
        }
        // AleRax's written form: every leaf at depth H = 3, the root's length 1; read back, the same ranks.
        QCOMPARE(st.toRankedNewick(), std::string("((A:1,B:1)X:2,(C:2,D:2)Y:1)R:1;"));
        QCOMPARE(tree(st.toRankedNewick()).ranks(), st.ranks());
        QCOMPARE(st.toNewickFor(TransferConstraint::Parents), st.toNewick(true));

        // Equal dates (X and Y at 3) go by name: X first, and A may now transfer to Y but C not to X.
        const SpeciesTree tie = tree("((A:1,B:3)X:2,(C:2,D:0.5)Y:2)R;");
        QCOMPARE(tie.rank(tie.find("X")), 1);
        QCOMPARE(tie.rank(tie.find("Y")), 2);
        QCOMPARE(tie.ranks(), referenceRanks(tie));
        QCOMPARE(namesOf(tie, tie.recipients(tie.find("A"), TransferConstraint::RelDated)),
                 (std::vector<std::string>{"B", "C", "D", "Y"}));
        QCOMPARE(namesOf(tie, tie.recipients(tie.find("C"), TransferConstraint::RelDated)),
                 (std::vector<std::string>{"A", "B", "D"}));
        QVERIFY(parseTransferConstraint("RELDATED") == TransferConstraint::RelDated);
        QCOMPARE(toString(TransferConstraint::RelDated), std::string("RELDATED"));
    }

    // Lengths as AleRax reads them: rounded to 6 decimals before the dates (1.0000004 and 1.0000001
    // tie, so X goes first by name), a length rounded to 0 counts 1, the tie-break uses the names
    // AleRax gives unnamed nodes.
    void relDatedLengthsAreRoundedFirst() {
        const SpeciesTree rounded = tree("((A,B)X:1.0000004,(C,D)Y:1.0000001)R;");
        QCOMPARE(rounded.rank(rounded.find("X")), 1);
        const SpeciesTree tiny = tree("((A,B)X:0.0000001,(C,D)Y:0.5)R;");
        QCOMPARE(tiny.rank(tiny.find("Y")), 1);
        const SpeciesTree unnamed = tree("((C,D),(A,B));");
        QCOMPARE(unnamed.name(unnamed.nodeAtRank(1)), std::string("Node_A_B_0"));
        // A node whose distance from the top rounds to its parent's cannot be dated: refused, but
        // only under RELDATED.
        const SpeciesTree flat = tree("((A,B)X:0.000001,(C,D)Y:1)R:1e17;");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, flat.requireDating());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, flat.recipientCount(0, TransferConstraint::RelDated));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, SpeciesLayout(flat, TransferConstraint::RelDated));
        QCOMPARE(flat.recipientCount(0, TransferConstraint::Parents), 4);
    }

    // Random trees: ranks, every constraint's recipient sets and counts against brute force.
    void recipientSetsMatchBruteForce() {
        std::mt19937 rng(17);
        for (int trial = 0; trial < 200; ++trial) {
            const SpeciesTree st = tree(randomNewick(2 + trial % 12, rng));
            QCOMPARE(st.ranks(), referenceRanks(st));
            for (int e = 0; e < st.size(); ++e) {
                QVERIFY(st.rank(st.nodeAtRank(e)) == e);
                if (e != st.root()) QVERIFY(st.rank(e) > st.rank(st.parent(e)));
            }
            for (TransferConstraint c :
                 {TransferConstraint::Parents, TransferConstraint::None, TransferConstraint::RelDated}) {
                const auto reference = referenceRecipients(st, c);
                const SpeciesLayout layout(st, c);
                for (int e = 0; e < st.size(); ++e) {
                    QCOMPARE(st.recipients(e, c), reference[e]);
                    QCOMPARE(st.recipientCount(e, c), int(reference[e].size()));
                    for (int h = 0; h < st.size(); ++h)
                        QCOMPARE(layout.isRecipient(e, h), std::find(reference[e].begin(), reference[e].end(),
                                                                     h) != reference[e].end());
                }
            }
            const SpeciesTree back = tree(st.toRankedNewick());
            QCOMPARE(back.ranks(), st.ranks());
        }
    }

    // The recipient average and its transpose against sums over the brute-force sets, on random
    // trees, the average of values spread over 30 orders of magnitude, the transpose of signed ones
    // (adjoints): to the last digits under every constraint (the average adds non-negative terms
    // only; RELDATED's range sums are pairwise sums, never differences), never negative.
    void recipientAveragesOnRandomTrees() {
        std::mt19937 rng(29);
        std::uniform_real_distribution<double> u(0, 1), exponent(-30, 0);
        for (int trial = 0; trial < 100; ++trial) {
            const SpeciesTree st = tree(randomNewick(2 + trial % 15, rng));
            const int n = st.size();
            for (TransferConstraint c :
                 {TransferConstraint::Parents, TransferConstraint::None, TransferConstraint::RelDated}) {
                const auto reference = referenceRecipients(st, c);
                const SpeciesLayout layout(st, c);
                std::vector<double> x(n), w(n), bar(n), tr(n), scratch(3 * n);
                for (int e = 0; e < n; ++e) {
                    x[e] = u(rng) * std::pow(10.0, exponent(rng));
                    w[e] = (u(rng) - 0.5) * std::pow(10.0, exponent(rng));
                }
                recipientAverage(layout, x.data(), bar.data(), scratch.data());
                recipientAverageTranspose(layout, w.data(), tr.data(), scratch.data());
                // |got − expected| within 1e-13 of the sum of the terms' sizes.
                auto close = [&](double got, double expected, double size) {
                    return std::abs(got - expected) <= 1e-13 * size;
                };
                std::vector<double> expectedTr(n, 0.0), sizeTr(n, 0.0);
                for (int e = 0; e < n; ++e) {
                    const double expected = averageOver(reference[e], x);
                    const double share = 1.0 / static_cast<double>(reference[e].size());
                    QVERIFY2(bar[e] >= 0 && close(bar[e], expected, expected),
                             qPrintable(QString("%1 x̄(%2) = %3, expected %4")
                                            .arg(QString::fromStdString(toString(c)))
                                            .arg(e)
                                            .arg(bar[e], 0, 'g', 17)
                                            .arg(expected, 0, 'g', 17)));
                    for (int h : reference[e]) {
                        expectedTr[h] += w[e] * share;
                        sizeTr[h] += std::abs(w[e]) * share;
                    }
                }
                for (int h = 0; h < n; ++h)
                    QVERIFY2(close(tr[h], expectedTr[h], sizeTr[h]),
                             qPrintable(QString("%1 transpose(%2) = %3, expected %4")
                                            .arg(QString::fromStdString(toString(c)))
                                            .arg(h)
                                            .arg(tr[h], 0, 'g', 17)
                                            .arg(expectedTr[h], 0, 'g', 17)));
            }
        }
    }

    // The rank sums (tree/ranked_recipients.hpp) of integers, exact: every range of every size,
    // including sizes that are not powers of two.
    void rankSumsCoverEveryRange() {
        for (int n = 1; n <= 40; ++n) {
            std::vector<double> node(n, std::nan(""));
            auto leaf = [](int i) { return static_cast<double>(1 + i * i); };
            buildRankSums(node.data(), n, leaf);
            for (int a = 0; a <= n; ++a)
                for (int b = a; b <= n; ++b) {
                    double expected = 0.0;
                    for (int i = a; i < b; ++i)
                        expected += leaf(i);
                    QVERIFY2(rankRangeSum(node.data(), n, leaf, a, b) == expected,
                             qPrintable(QString("n %1, [%2, %3)").arg(n).arg(a).arg(b)));
                }
        }
    }

    // RELDATED's averages and transposes where one term dwarfs the others (Π of a clade peaks at the
    // species it maps to): each result to 1e-14 of itself against long-double sums over R(e), whatever
    // the terms it leaves out. Differences of running sums (the plain formula, computed alongside)
    // lose most digits here.
    void relDatedSumsIgnoreTheTermsLeftOut() {
        std::mt19937 rng(41);
        std::uniform_real_distribution<double> u(1e-3, 1);
        double worstAverage = 0.0, worstTranspose = 0.0, plainAverage = 0.0, plainTranspose = 0.0;
        for (int trial = 0; trial < 30; ++trial) {
            const SpeciesTree st = tree(randomNewick(3 + trial % 40, rng));
            const int n = st.size();
            const auto reference = referenceRecipients(st, TransferConstraint::RelDated);
            const SpeciesLayout layout(st, TransferConstraint::RelDated);
            for (int big = 0; big < n; ++big) {
                std::vector<double> x(n), bar(n), tr(n), scratch(3 * n);
                for (double& v : x)
                    v = u(rng);
                x[big] = 1e12;
                recipientAverage(layout, x.data(), bar.data(), scratch.data());
                recipientAverageTranspose(layout, x.data(), tr.data(), scratch.data());
                // The plain formula: suffix sums of x and prefix sums of the first-rank buckets of
                // v = x / |R|, with ranges as their differences.
                std::vector<double> suffix(n + 1, 0.0), prefix(n + 1, 0.0);
                auto v = [&](int e) { return x[e] * layout.invRecipients[e]; };
                for (int r = n - 1; r >= 0; --r)
                    suffix[r] = suffix[r + 1] + x[layout.byRank[r]];
                for (int k = 0; k < n; ++k)
                    prefix[k + 1] = prefix[k] + firstRankBucket(layout.byRank.data(), layout.left.data(),
                                                                layout.right.data(), n, v, k);
                std::vector<double> plainBar(n), plainTr(n);
                for (int e = 0; e < n; ++e) {
                    const int first = firstRecipientRank(layout.rank.data(), layout.parent.data(), e);
                    const int own = layout.rank[e], up = layout.parent[e];
                    plainBar[e] = (suffix[first] - suffix[own] + suffix[own + 1]) * layout.invRecipients[e];
                    const double sibling =
                        up < 0 ? 0.0 : v(layout.left[up] == e ? layout.right[up] : layout.left[up]);
                    plainTr[e] = prefix[first] + sibling + prefix[own + 1] - prefix[first + 1];
                }
                std::vector<long double> expectedTr(n, 0.0L);
                for (int e = 0; e < n; ++e) {
                    long double sum = 0.0L;
                    for (int h : reference[e]) {
                        sum += x[h];
                        expectedTr[h] += static_cast<long double>(x[e]) / reference[e].size();
                    }
                    const double expected = static_cast<double>(sum / reference[e].size());
                    worstAverage = std::max(worstAverage, relativeError(bar[e], expected));
                    plainAverage = std::max(plainAverage, relativeError(plainBar[e], expected));
                    QVERIFY2(relativeError(bar[e], expected) < 1e-14,
                             qPrintable(QString("x̄(%1) = %2, expected %3 (x %4 at %5)")
                                            .arg(e)
                                            .arg(bar[e], 0, 'g', 17)
                                            .arg(expected, 0, 'g', 17)
                                            .arg(x[big])
                                            .arg(big)));
                }
                for (int h = 0; h < n; ++h) {
                    const double expected = static_cast<double>(expectedTr[h]);
                    worstTranspose = std::max(worstTranspose, relativeError(tr[h], expected));
                    plainTranspose = std::max(plainTranspose, relativeError(plainTr[h], expected));
                    QVERIFY2(relativeError(tr[h], expected) < 1e-14,
                             qPrintable(QString("transpose(%1) = %2, expected %3 (u %4 at %5)")
                                            .arg(h)
                                            .arg(tr[h], 0, 'g', 17)
                                            .arg(expected, 0, 'g', 17)
                                            .arg(x[big])
                                            .arg(big)));
                }
            }
        }
        qInfo("worst relative error: average %.3g (plain formula %.3g), transpose %.3g (plain %.3g)",
              worstAverage, plainAverage, worstTranspose, plainTranspose);
        QVERIFY(plainAverage > 1e-8 && plainTranspose > 1e-8); // the inputs are adversarial
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
