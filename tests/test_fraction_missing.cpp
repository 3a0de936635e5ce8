// --fraction-missing-file (spec 1.5, 4.2): the reader's located errors, the extinction probabilities
// against an independent fixed point (reference_model.hpp: plain substitution from 0 with Ē summed
// over each node's recipients by brute force), fm = 0 leaving every number as it was, and the E
// decomposition of the teaching panel. The gradient with fm is checked by finite differences in
// test_gradient, the GPU's host emulation in test_gpu_solver_steps.
#include "data/fraction_missing.hpp"
#include "engine/backend.hpp"
#include "engine/cell_decomposition.hpp"
#include "engine/species_operators.hpp"
#include "io/input_error.hpp"
#include "reference_model.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>

using namespace gpurec;
using namespace gpurec::test;

namespace {

const char* const kSpecies = "((A,B)AB,(C,'D d')CD)R;";

SpeciesTree species() {
    return SpeciesTree::fromNewick(parseNewick(kSpecies, "test").front());
}

std::string fileWith(const std::string& text) {
    const std::string path = temporaryFolder("fraction_missing") + "/fm.txt";
    writeFile(path, text);
    return path;
}

std::shared_ptr<Dataset> familiesOn(const SpeciesTree& tree) {
    auto data = std::make_shared<Dataset>();
    data->species = tree;
    for (const char* newick : {"((A_1,B_1),(C_1,'D d_1'));", "((A_1,A_2),C_1);", "(B_1,('D d_1','D d_2'));"})
        data->families.push_back(makeFamily(tree, "f" + std::to_string(data->families.size()),
                                            parseNewick(newick, "test"), GeneTreeRooting::Rooted));
    return data;
}

} // namespace

class FractionMissing : public QObject {
    Q_OBJECT

  private slots:
    void readsOneFractionPerLeaf() {
        const SpeciesTree tree = species();
        const std::vector<double> fm =
            readFractionMissing(fileWith("# measured coverage\nA 0.25\n\n'D d' 1\nB 0\nC\t0.5\n"), tree);
        QCOMPARE(fm.size(), std::size_t(tree.size()));
        QCOMPARE(fm[tree.find("A")], 0.25);
        QCOMPARE(fm[tree.find("B")], 0.0);
        QCOMPARE(fm[tree.find("C")], 0.5);
        QCOMPARE(fm[tree.find("D d")], 1.0);
        QCOMPARE(fm[tree.find("AB")], 0.0);
        QCOMPARE(fm[tree.root()], 0.0);
    }

    void badFilesNameTheirPlace_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("problem");
        const QString rest = "B 0\nC 0\n'D d' 0\n";
        QTest::newRow("unknown species")
            << "A 0\nE 0.1\n" + rest << 2 << 1 << "'E' is not a species of the tree";
        QTest::newRow("internal node")
            << "A 0\n" + rest + "AB 0.1\n"
            << 5 << 1 << "'AB' is an internal node; fractions are given for leaves";
        QTest::newRow("given twice") << "A 0\n" + rest + "  A 0.2\n"
                                     << 5 << 3 << "'A' is given twice (first on line 1)";
        QTest::newRow("not a number") << "A 0.1x\n" + rest << 1 << 3 << "expected a fraction, found '0.1x'";
        QTest::newRow("not finite") << "A nan\n" + rest << 1 << 3 << "expected a fraction, found 'nan'";
        QTest::newRow("above one") << "A 1.5\n" + rest << 1 << 3
                                   << "the fraction missing must be in [0, 1], found '1.5'";
        QTest::newRow("negative") << "A -0.1\n" + rest << 1 << 3
                                  << "the fraction missing must be in [0, 1], found '-0.1'";
        QTest::newRow("one field") << "A\n" + rest << 1 << 1 << "expected 'species fraction', found 1 fields";
        QTest::newRow("three fields")
            << "A 0 0\n" + rest << 1 << 1 << "expected 'species fraction', found 3 fields";
        QTest::newRow("unterminated quote") << "A 0\n'D d 0\n" << 2 << 1 << "unterminated quoted name";
        QTest::newRow("leaves left out")
            << "A 0\n"
            << 0 << 0 << "no fraction for 3 species leaves (B, C, D d); every leaf needs one";
        QTest::newRow("empty file")
            << "" << 0 << 0 << "no fraction for 4 species leaves (A, B, C, D d); every leaf needs one";
    }
    void badFilesNameTheirPlace() {
        QFETCH(QString, text);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, problem);
        const std::string path = fileWith(text.toStdString());
        try {
            readFractionMissing(path, species());
            QFAIL("the file was accepted");
        } catch (const InputError& e) {
            QCOMPARE(e.file(), path);
            QCOMPARE(e.line(), line);
            QCOMPARE(e.column(), column);
            QCOMPARE(QString::fromStdString(e.problem()), problem);
        }
    }

    void aMissingFileIsAnInputError() {
        try {
            readFractionMissing("/nonexistent/fm.txt", species());
            QFAIL("a missing file was accepted");
        } catch (const InputError& e) {
            QCOMPARE(e.file(), std::string("/nonexistent/fm.txt"));
        }
    }

    // The loader reads the file against the species tree; a species-tree search candidate with the
    // same leaves gets the same values under its own node numbering.
    void loaderAndCandidatesKeepTheValuesOfTheirLeaves() {
        const std::string folder = temporaryFolder("fraction_missing_load");
        writeFile(folder + "/species.nwk", std::string(kSpecies) + "\n");
        writeFile(folder + "/f.nwk", "((A_1,B_1),(C_1,'D d_1'));\n");
        writeFile(folder + "/fm.txt", "A 0.1\nB 0.2\nC 0.3\n'D d' 0.4\n");
        InputPaths paths;
        paths.speciesTree = folder + "/species.nwk";
        paths.geneTrees = {folder + "/f.nwk"};
        paths.fractionMissingFile = folder + "/fm.txt";
        const LoadedInput in = loadInput(paths, TransferConstraint::Parents, LoadOptions{});
        const Dataset& d = *in.dataset;
        QCOMPARE(d.fractionMissing.size(), std::size_t(d.species.size()));
        QCOMPARE(d.fractionMissing[d.species.find("C")], 0.3);
        const SpeciesTree other = SpeciesTree::fromNewick(parseNewick("(('D d',(A,C)),B);", "test").front());
        const std::vector<double> moved = fractionMissingOn(d.fractionMissing, d.species, other);
        QCOMPARE(moved.size(), std::size_t(other.size()));
        for (const char* leaf : {"A", "B", "C", "D d"})
            QCOMPARE(moved[other.find(leaf)], d.fractionMissing[d.species.find(leaf)]);
        QVERIFY(fractionMissingOn({}, d.species, other).empty());
        const SpeciesLayout layout(d);
        QCOMPARE(layout.missing[d.species.find("D d")], 0.4);
        QCOMPARE(layout.missing[d.species.root()], 0.0);
    }

    void extinctionMatchesAnIndependentFixedPoint_data() {
        QTest::addColumn<int>("constraint");
        QTest::addColumn<QString>("schedule");
        QTest::newRow("PARENTS") << int(TransferConstraint::Parents) << "converged";
        QTest::newRow("NONE") << int(TransferConstraint::None) << "converged";
        QTest::newRow("RELDATED") << int(TransferConstraint::RelDated) << "converged";
    }
    void extinctionMatchesAnIndependentFixedPoint() {
        QFETCH(int, constraint);
        auto data = familiesOn(species());
        data->transferConstraint = static_cast<TransferConstraint>(constraint);
        const SpeciesTree& tree = data->species;
        data->fractionMissing.assign(tree.size(), 0.0);
        data->fractionMissing[tree.find("A")] = 0.3;
        data->fractionMissing[tree.find("C")] = 0.9;
        data->fractionMissing[tree.find("D d")] = 1.0;
        const RateParameters theta(RateMode::Global, tree.size(), 3, {0.2, 0.3, 0.25});
        auto backend = makeCpuBackend(data);
        const FamilyTables t = backend->familyTables(theta, SolverOptions{}, {0}).front();
        const std::vector<double> E = referenceExtinction(
            tree, referenceRecipients(tree, data->transferConstraint), t.p, data->fractionMissing, false);
        for (int e = 0; e < tree.size(); ++e)
            QVERIFY2(relativeError(t.E[e], E[e]) < 1e-13,
                     qPrintable(QString("E(%1) = %2, independent %3")
                                    .arg(QString::fromStdString(tree.name(e)))
                                    .arg(t.E[e], 0, 'g', 17)
                                    .arg(E[e], 0, 'g', 17)));
        // A missing share makes the leaf's lineage more likely to go unseen, and B (fm 0) keeps its E.
        auto plain = std::make_shared<Dataset>(*data);
        plain->fractionMissing.clear();
        const FamilyTables base = makeCpuBackend(plain)->familyTables(theta, SolverOptions{}, {0}).front();
        QVERIFY(t.E[tree.find("C")] > base.E[tree.find("C")] + 0.1);
        QVERIFY(t.E[tree.root()] > base.E[tree.root()]);
        QVERIFY(std::abs(t.E[tree.find("B")] - base.E[tree.find("B")]) < 0.1); // only through Ē
        // The teaching panel's E decomposition: the leaf's speciation term is pS · fm.
        const SpeciesLayout layout(*data);
        const int c = tree.find("C");
        const ExtinctionCellDecomposition x = decomposeExtinctionCell(layout, t, c);
        QVERIFY(x.leaf);
        QCOMPARE(x.speciation, t.p.pS[c] * 0.9);
        QVERIFY(std::abs(x.sum() - x.stored) < 1e-15);
        QVERIFY(!decomposeExtinctionCell(layout, t, tree.find("AB")).leaf);
    }

    // AleRax's four sweeps read fm the same way.
    void aleraxSweepsUseTheFraction() {
        auto data = familiesOn(species());
        const SpeciesTree& tree = data->species;
        data->fractionMissing.assign(tree.size(), 0.0);
        data->fractionMissing[tree.find("B")] = 0.5;
        const RateParameters theta(RateMode::Global, tree.size(), 3, {0.1, 0.2, 0.15});
        SolverOptions options;
        options.schedule = Schedule::AleRax;
        const FamilyTables t = makeCpuBackend(data)->familyTables(theta, options, {0}).front();
        // Sweep by sweep by hand: postorder Gauss–Seidel, Ē refreshed after each sweep.
        const SpeciesLayout layout(*data);
        std::vector<double> E(tree.size(), 0.0), bar(tree.size(), 0.0), scratch(3 * tree.size());
        for (int sweep = 0; sweep < 4; ++sweep) {
            for (int e = 0; e < tree.size(); ++e)
                E[e] = t.p.pL[e] +
                       t.p.pS[e] *
                           (tree.isLeaf(e) ? data->fractionMissing[e] : E[tree.left(e)] * E[tree.right(e)]) +
                       t.p.pD[e] * E[e] * E[e] + t.p.pT[e] * E[e] * bar[e];
            recipientAverage(layout, E.data(), bar.data(), scratch.data());
        }
        for (int e = 0; e < tree.size(); ++e)
            QCOMPARE(t.E[e], E[e]);
    }

    // A file of zeros changes nothing: every family's log-likelihood and the gradient bit for bit.
    void zeroFractionsChangeNothing() {
        auto data = familiesOn(species());
        auto zeros = std::make_shared<Dataset>(*data);
        zeros->fractionMissing = readFractionMissing(fileWith("A 0\nB 0\nC 0\n'D d' 0\n"), data->species);
        for (RateMode mode : {RateMode::Global, RateMode::Specieswise, RateMode::Genewise}) {
            const RateParameters theta(mode, data->species.size(), 3, {0.2, 0.1, 0.3});
            const Evaluation a = makeCpuBackend(data)->evaluate(theta, SolverOptions{}, true);
            const Evaluation b = makeCpuBackend(zeros)->evaluate(theta, SolverOptions{}, true);
            QCOMPARE(b.logLikelihood, a.logLikelihood);
            QCOMPARE(b.gradient, a.gradient);
        }
    }
};

QTEST_GUILESS_MAIN(FractionMissing)
#include "test_fraction_missing.moc"
