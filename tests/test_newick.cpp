// Newick parsing: the accepted syntax, every error with its exact message, and robustness.
#include "io/input_error.hpp"
#include "io/newick.hpp"
#include "support.hpp"
#include "tree/species_tree.hpp"

#include <QtTest>
#include <random>

using namespace gpurec;

class NewickParsing : public QObject {
    Q_OBJECT

    static QString errorOf(const std::string& text) {
        try {
            parseNewick(text, "t.nwk");
        } catch (const InputError& e) {
            return e.what();
        }
        return "no error";
    }
    static QString speciesErrorOf(const std::string& text) {
        try {
            SpeciesTree::fromNewick(parseNewick(text, "s.nwk").front());
        } catch (const InputError& e) {
            return e.what();
        }
        return "no error";
    }

  private slots:
    void parsesLengthsLabelsAndComments() {
        auto trees = parseNewick("[head comment]\n((A:1e-3,'B c':2.5E+1)90:0.5[&&NHX:S=x],C)root;", "t.nwk");
        QCOMPARE(trees.size(), std::size_t(1));
        const NewickTree& t = trees[0];
        QCOMPARE(t.nodes.size(), std::size_t(5));
        std::vector<std::string> leaves;
        for (int l : t.leaves())
            leaves.push_back(t.nodes[l].label);
        QCOMPARE(leaves, (std::vector<std::string>{"A", "B c", "C"}));
        QCOMPARE(*t.nodes[t.leaves()[0]].length, 1e-3);
        QCOMPARE(*t.nodes[t.leaves()[1]].length, 25.0);
        QCOMPARE(t.nodes[t.nodes[t.root].children[0]].label, std::string("90"));
        QCOMPARE(*t.nodes[t.nodes[t.root].children[0]].length, 0.5);
        QCOMPARE(t.nodes[t.root].label, std::string("root"));
        QVERIFY(!t.nodes[t.leaves()[2]].length.has_value());
    }

    void parsesManyTreesAcrossLines() {
        auto trees = parseNewick("(A,(B,C));\n\n((A,B),C,D);\r\n(A,B);", "t.nwk");
        QCOMPARE(trees.size(), std::size_t(3));
        QCOMPARE(trees[1].nodes[trees[1].root].children.size(),
                 std::size_t(3)); // unrooted: trifurcating root
        QCOMPARE(trees[1].line, 3);
        QCOMPARE(trees[2].line, 4);
    }

    void quotedLabelsEscapeQuotes() {
        auto t = parseNewick("('it''s',(b,c));", "t.nwk")[0];
        QCOMPARE(t.nodes[t.leaves()[0]].label, std::string("it's"));
        QCOMPARE(writeNewick(t, {false, true}), std::string("('it''s',(b,c));"));
    }

    void writeRoundTrip() {
        std::string text = "((A:0.1,B:0.2)x:0.3,(C:1,D:2)y:0.5)r;";
        auto t = parseNewick(text, "t.nwk")[0];
        auto again = parseNewick(writeNewick(t), "w.nwk")[0];
        QCOMPARE(writeNewick(again), writeNewick(t));
        QCOMPARE(writeNewick(t), text);
    }

    void errors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << ""
                               << "t.nwk: no tree found (empty input)";
        QTest::newRow("only comment") << "  [x]\n"
                                      << "t.nwk: no tree found (empty input)";
        QTest::newRow("missing semicolon") << "(A,B)"
                                           << "t.nwk:1:6: missing ';' at end of tree";
        QTest::newRow("missing close") << "((A,B);"
                                       << "t.nwk:1:7: unbalanced parentheses: missing ')' before ';'";
        QTest::newRow("missing close at end") << "((A,B)"
                                              << "t.nwk:1:7: unbalanced parentheses: missing ')'";
        QTest::newRow("extra close") << "(A,B));"
                                     << "t.nwk:1:6: unbalanced parentheses: ')' without matching '('";
        QTest::newRow("comma outside") << "A,B;"
                                       << "t.nwk:1:2: ',' outside parentheses";
        QTest::newRow("bad length") << "(A:x1,B);"
                                    << "t.nwk:1:4: invalid branch length 'x1'";
        QTest::newRow("missing length") << "(A:,B);"
                                        << "t.nwk:1:4: missing branch length after ':'";
        QTest::newRow("nan length") << "(A:nan,B);"
                                    << "t.nwk:1:4: branch length 'nan' is not a finite number";
        QTest::newRow("unterminated comment") << "(A,B)[oops;"
                                              << "t.nwk:1:6: unterminated comment: '[' without matching ']'";
        QTest::newRow("unterminated quote") << "('A,B);"
                                            << "t.nwk:1:2: unterminated quoted label";
        QTest::newRow("space in label")
            << "(A B,C);"
            << "t.nwk:1:4: unexpected character 'B' after a node (expected ',', ')' or ';')";
        QTest::newRow("second line") << "(A,B);\n(C,D"
                                     << "t.nwk:2:5: unbalanced parentheses: missing ')'";
        QTest::newRow("junk after ;")
            << "(A,B);x"
            << "t.nwk:1:7: unexpected text after ';': 'x' (a further tree must end with ';')";
        QTest::newRow("junk line after ;") << "(A,B);\n\n  ) and more words here\n\n"
                                           << "t.nwk:3:3: unexpected text after ';': ') and more words "
                                              "her...' (a further tree must end with ';')";
        QTest::newRow("second tree without ;") << "(A,B);\n(C,D)"
                                               << "t.nwk:2:6: missing ';' at end of tree";
        QTest::newRow("stray ]") << "(A,]);"
                                 << "t.nwk:1:4: unexpected character ']'";
    }
    void errors() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QCOMPARE(errorOf(text.toStdString()), message);
    }

    void leafLabelErrors() {
        auto dup = parseNewick("((A,B),\n(C,A));", "g.nwk")[0];
        try {
            requireUniqueLeafLabels(dup);
            QFAIL("duplicate accepted");
        } catch (const InputError& e) {
            QCOMPARE(QString(e.what()),
                     QString("g.nwk:2:4: duplicate leaf name 'A' (first at line 1, column 3)"));
        }
        auto unnamed = parseNewick("((A,),C);", "g.nwk")[0];
        try {
            requireUniqueLeafLabels(unnamed);
            QFAIL("unnamed leaf accepted");
        } catch (const InputError& e) {
            QCOMPARE(QString(e.what()), QString("g.nwk:1:5: leaf without a label"));
        }
        // A NUL byte in a label is shown, not allowed to cut the message short.
        auto nul = parseNewick(std::string("(A\0B,A\0B);", 10), "g.nwk")[0];
        try {
            requireUniqueLeafLabels(nul);
            QFAIL("duplicate accepted");
        } catch (const InputError& e) {
            QCOMPARE(QString(e.what()),
                     QString("g.nwk:1:6: duplicate leaf name 'A\\0B' (first at line 1, column 2)"));
            QCOMPARE(e.problem(), std::string("duplicate leaf name 'A\\0B' (first at line 1, column 2)"));
        }
    }

    void speciesTreeMustBeRootedBinary() {
        QCOMPARE(speciesErrorOf("(A,B,C);"),
                 QString("s.nwk:1:7: species tree must be rooted and binary, but a node has 3 children"));
        QCOMPARE(speciesErrorOf("((A,B,C),D);"),
                 QString("s.nwk:1:8: species tree must be rooted and binary, but a node has 3 children"));
        QCOMPARE(speciesErrorOf("((A),B);"),
                 QString("s.nwk:1:4: species tree must be rooted and binary, but a node has 1 child"));
        QCOMPARE(speciesErrorOf("A;"), QString("s.nwk:1: species tree needs at least 2 leaves"));
        QCOMPARE(speciesErrorOf("(A,A);"),
                 QString("s.nwk:1:4: duplicate leaf name 'A' (first at line 1, column 2)"));
    }

    void deepNestingDoesNotOverflowTheStack() {
        const int depth = 200000;
        std::string text(depth, '(');
        text += "A";
        for (int i = 0; i < depth; ++i)
            text += ",B" + std::to_string(i) + ")";
        text += ";";
        auto trees = parseNewick(text, "deep.nwk");
        QCOMPARE(trees[0].leaves().size(), std::size_t(depth + 1));
        QVERIFY(writeNewick(trees[0]).size() > text.size() / 2);
    }

    void randomBytesNeverCrash() {
        std::mt19937 rng(7);
        const std::string alphabet = "(),:;[]' \nAB_0.1e-";
        int parsed = 0, rejected = 0;
        for (int i = 0; i < 20000; ++i) {
            std::string s(rng() % 40, ' ');
            for (char& c : s)
                c = alphabet[rng() % alphabet.size()];
            try {
                auto trees = parseNewick(s, "r");
                for (auto& t : trees)
                    (void)writeNewick(t);
                ++parsed;
            } catch (const InputError&) {
                ++rejected;
            }
        }
        QVERIFY(parsed > 0);
        QVERIFY(rejected > 0);
    }
};

QTEST_GUILESS_MAIN(NewickParsing)
#include "test_newick.moc"
