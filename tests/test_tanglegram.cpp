// Tanglegram layout: crossings against a brute-force count, clades one tree lacks against the rooted
// Robinson–Foulds distance, rotations that untangle equal trees, and leaf sets that differ.
#include "io/newick.hpp"
#include "sim/random_source.hpp"
#include "species_search/species_topology.hpp"
#include "species_search/start_trees.hpp"
#include "tree/tanglegram.hpp"

#include <QtTest>

using namespace gpurec;

namespace {

SpeciesTree tree(const std::string& text) {
    return SpeciesTree::fromNewick(parseNewick(text, "t.nwk")[0]);
}

// Crossing pairs counted pair by pair from the drawn rows.
int bruteCrossings(const SpeciesTree& a, const SpeciesTree& b, const Tanglegram& t) {
    int n = 0;
    const std::vector<int> leaves = a.leaves();
    for (std::size_t i = 0; i < leaves.size(); ++i)
        for (std::size_t j = i + 1; j < leaves.size(); ++j) {
            const int bi = b.find(a.name(leaves[i])), bj = b.find(a.name(leaves[j]));
            const double dl = t.left.row[leaves[i]] - t.left.row[leaves[j]];
            const double dr = t.right.row[bi] - t.right.row[bj];
            n += dl * dr < 0;
        }
    return n;
}

// Leaves at rows 0..n-1 once each, parents midway between their children.
void checkSide(const SpeciesTree& s, const TanglegramSide& side) {
    std::vector<int> seen(s.leafCount(), 0);
    for (int e = 0; e < s.size(); ++e) {
        if (s.isLeaf(e)) {
            ++seen[static_cast<int>(side.row[e])];
            QCOMPARE(side.leafAtRow[static_cast<int>(side.row[e])], e);
            QVERIFY(!side.unshared[e]);
        } else {
            QCOMPARE(side.row[e], (side.row[s.left(e)] + side.row[s.right(e)]) / 2);
        }
    }
    QVERIFY(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
    QVERIFY(!side.unshared[s.root()]);
}

} // namespace

class Tanglegrams : public QObject {
    Q_OBJECT
  private slots:
    void equalTreesUntangle() {
        // The same rooted tree written with every pair of children swapped: rotations undo it all.
        const SpeciesTree a = tree("(((A,B),(C,D)),((E,F),G));"), b = tree("((G,(F,E)),((D,C),(B,A)));");
        const Tanglegram t = layoutTanglegram(a, b);
        QCOMPARE(t.crossings, 0);
        QCOMPARE(t.robinsonFoulds, 0);
        QCOMPARE(bruteCrossings(a, b, t), 0);
        checkSide(a, t.left);
        checkSide(b, t.right);
    }

    void cladesTheOtherTreeLacks() {
        const SpeciesTree a = tree("(((A,B)ab,(C,D)cd)abcd,E);"), b = tree("(((A,C)ac,(B,D)bd)abcd,E);");
        const Tanglegram t = layoutTanglegram(a, b);
        QCOMPARE(t.robinsonFoulds, 4);
        QCOMPARE(t.left.unsharedCount, 2);
        QVERIFY(t.left.unshared[a.find("ab")] && t.left.unshared[a.find("cd")]);
        QVERIFY(!t.left.unshared[a.find("abcd")]);
        QVERIFY(t.right.unshared[b.find("ac")] && t.right.unshared[b.find("bd")]);
        QVERIFY(!t.right.unshared[b.find("abcd")]);
        QCOMPARE(t.crossings, bruteCrossings(a, b, t));
        QCOMPARE(t.crossings, 1); // one of B, C must cross: no rotation avoids it
    }

    void randomPairsAgreeWithTheirDefinitions() {
        RandomSource rng(7);
        for (int leaves : {2, 3, 10, 70, 130}) { // 130 leaves: clade sets of three words
            std::vector<std::string> names;
            for (int i = 0; i < leaves; ++i)
                names.push_back("s" + std::to_string(i));
            for (int k = 0; k < 4; ++k) {
                const SpeciesTree a = randomSpeciesTree(names, rng), b = randomSpeciesTree(names, rng);
                const Tanglegram t = layoutTanglegram(a, b);
                checkSide(a, t.left);
                checkSide(b, t.right);
                QCOMPARE(t.crossings, bruteCrossings(a, b, t));
                const SpeciesTopology ta = SpeciesTopology::fromSpeciesTree(a, names),
                                      tb = SpeciesTopology::fromSpeciesTree(b, names);
                QCOMPARE(t.robinsonFoulds, rootedRobinsonFoulds(ta, tb));
                QCOMPARE(t.left.unsharedCount, t.right.unsharedCount); // binary trees on the same leaves
                // Against itself: nothing differs, nothing crosses.
                const Tanglegram self = layoutTanglegram(a, a);
                QCOMPARE(self.crossings + self.robinsonFoulds, 0);
            }
        }
    }

    void crossingCountIsTheInversionCount() {
        QCOMPARE(crossingCount({0, 1, 2, 3}, {3, 2, 1, 0}), 6LL);
        QCOMPARE(crossingCount({0, 1, 2, 3}, {0, 1, 2, 3}), 0LL);
        QCOMPARE(crossingCount({2, 0, 1}, {0, 1, 2}), 2LL);
        QCOMPARE(crossingCount({}, {}), 0LL);
    }

    void leafSetsMustMatch() {
        const SpeciesTree a = tree("((A,B),C);");
        try {
            layoutTanglegram(a, tree("((A,B),D);"));
            QFAIL("no error");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(QString(e.what()), QString("leaf 'D' is in the second tree only"));
        }
        try {
            layoutTanglegram(a, tree("(A,B);"));
            QFAIL("no error");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(QString(e.what()), QString("leaf 'C' is in the first tree only"));
        }
    }
};

QTEST_APPLESS_MAIN(Tanglegrams)
#include "test_tanglegram.moc"
