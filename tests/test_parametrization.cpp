// AleRax's --model-parametrization (GLOBAL, PER-SPECIES, PER-FAMILY, ORIGINATION-PER-SPECIES or a
// class file) with --origination OPTIMIZE: the class file's classes worked by hand, its errors, the
// option combinations AleRax refuses, the rate files with an O column, and checkpoints of these
// parametrisations. The likelihood and gradient of classes and weights are checked against the
// equations in test_origination and by finite differences in test_gradient.
#include "io/input_error.hpp"
#include "optim/checkpoint.hpp"
#include "optim/parameter_classes.hpp"
#include "optim/parametrization.hpp"
#include "optim/rate_files.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>

using namespace gpurec;
using namespace gpurec::test;

namespace {

// Postorder: A0 B1 AB2 C3 D4 CD5 E6 CDE7 R8.
const char* const kSpecies = "((A,B)AB,((C,D)CD,E)CDE)R;";

SpeciesTree species() {
    return SpeciesTree::fromNewick(parseNewick(kSpecies, "test").front());
}

std::string classFile(const std::string& text) {
    const std::string path = temporaryFolder("classes") + "/classes.txt";
    writeFile(path, text);
    return path;
}

// The InputError a class file raises, as "line:column: problem".
std::string classFileError(const std::string& text, RecModel model = RecModel::UndatedDTL,
                           bool origination = false) {
    try {
        readParameterClasses(classFile(text), species(), model, origination);
    } catch (const InputError& e) {
        return std::to_string(e.line()) + ":" + std::to_string(e.column()) + ": " + e.problem();
    }
    return "accepted";
}

std::string refusal(const std::string& parametrization, Origination origination) {
    try {
        parseParametrization(parametrization, origination);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "accepted";
}

Dataset speciesOnly(Origination origination) {
    Dataset data;
    data.species = species();
    data.origination = origination;
    return data;
}

} // namespace

class ParametrizationTest : public QObject {
    Q_OBJECT

  private slots:
    // Classes by hand: root classes D L T (O) first, then one per (line, letter) in file order;
    // a node takes its own class, else its nearest listed ancestor's, else the root's.
    void classesAreInheritedDownTheTree() {
        const SpeciesTree sp = species();
        const ParameterClassMap m = readParameterClasses(classFile("# comment\n"
                                                                   "CDE DT\n"
                                                                   "\n"
                                                                   "D L\n"
                                                                   "R DLT\n" // the root's: nothing new
                                                                   "CD D\n"),
                                                         sp, RecModel::UndatedDTL, false);
        QCOMPARE(m.entryType, (std::vector<char>{'D', 'L', 'T', 'D', 'T', 'L', 'D'}));
        QCOMPARE(m.entryNames,
                 (std::vector<std::string>{"R D", "R L", "R T", "CDE D", "CDE T", "D L", "CD D"}));
        const int A = sp.find("A"), C = sp.find("C"), D = sp.find("D"), E = sp.find("E"), R = sp.root();
        // D: root 0, CDE and its subtree 3, except CD's subtree 6.
        QCOMPARE(m.rateEntry[0][A], 0);
        QCOMPARE(m.rateEntry[0][R], 0);
        QCOMPARE(m.rateEntry[0][E], 3);
        QCOMPARE(m.rateEntry[0][sp.find("CDE")], 3);
        QCOMPARE(m.rateEntry[0][C], 6);
        QCOMPARE(m.rateEntry[0][D], 6);
        // L: the root's everywhere but D.
        QCOMPARE(m.rateEntry[1][C], 1);
        QCOMPARE(m.rateEntry[1][D], 5);
        // T: CDE's subtree.
        QCOMPARE(m.rateEntry[2][C], 4);
        QCOMPARE(m.rateEntry[2][A], 2);
        QVERIFY(m.originEntry.empty());

        const RateParameters theta(m, sp.size(), {0.1, 0.2, 0.3}, 0.5);
        QCOMPARE(theta.theta().size(), std::size_t(7));
        QCOMPARE(theta.ratesAt(0, C).l, 0.2);
        QVERIFY(!theta.optimizesOrigination());
    }

    void originationClassesFollowTheSameRules() {
        const SpeciesTree sp = species();
        const ParameterClassMap m =
            readParameterClasses(classFile("AB O\nC DO\n"), sp, RecModel::UndatedDTL, true);
        QCOMPARE(m.entryType, (std::vector<char>{'D', 'L', 'T', 'O', 'O', 'D', 'O'}));
        QCOMPARE(m.originEntry[sp.find("A")], 4);
        QCOMPARE(m.originEntry[sp.find("AB")], 4);
        QCOMPARE(m.originEntry[sp.find("C")], 6);
        QCOMPARE(m.originEntry[sp.find("D")], 3);
        const RateParameters theta(m, sp.size(), {0.1, 0.2, 0.3}, 0.25);
        QVERIFY(theta.optimizesOrigination());
        QCOMPARE(theta.originWeights()[sp.find("B")], 0.25);
        QCOMPARE(theta.extraEntryNames(sp.names()), m.entryNames);
        // UndatedDL: parameters D and L (a T root class the model never reads).
        QCOMPARE(readParameterClasses(classFile("C DL\n"), sp, RecModel::UndatedDL, false).entryType.size(),
                 std::size_t(5));
    }

    void classFileErrorsAreLocated() {
        QCOMPARE(classFileError("AB D\nX L\n"), std::string("2:1: label 'X' is not in the species tree"));
        QCOMPARE(classFileError("AB\n"), std::string("1:1: no parameter type (DLT) for species node 'AB'"));
        QCOMPARE(classFileError("AB DQ\n"),
                 std::string("1:5: parameter type 'Q' is not one of the model's (DLT)"));
        QCOMPARE(classFileError("AB O\n"),
                 std::string("1:4: parameter type 'O' is not one of the model's (DLT)"));
        QCOMPARE(classFileError("AB T\n", RecModel::UndatedDL),
                 std::string("1:4: parameter type 'T' is not one of the model's (DL)"));
        QCOMPARE(classFileError("AB D extra\n"),
                 std::string("1:6: expected 'label TYPES', found extra field 'extra'"));
        QCOMPARE(classFileError("AB D\nA L\nAB LD\n"),
                 std::string("3:5: species node 'AB' already has its own class of type D (line 1)"));
        QCOMPARE(classFileError("AB DD\n"),
                 std::string("1:5: species node 'AB' already has its own class of type D (line 1)"));
        QCOMPARE(classFileError("AB DO\n", RecModel::UndatedDTL, true), std::string("accepted"));
        try {
            readParameterClasses("/nonexistent/classes.txt", species(), RecModel::UndatedDTL, false);
            QFAIL("a missing file was read");
        } catch (const InputError& e) {
            QCOMPARE(e.problem(), std::string("cannot open the parametrization file"));
        }
    }

    // AleRax's refusals, with its messages.
    void combinationsAleRaxRefuses() {
        const std::string optimizeWith = "--origination OPTIMIZE cannot be used with --model-parametrization "
                                         "GLOBAL or --model-parametrization PER-FAMILY";
        QCOMPARE(refusal("GLOBAL", Origination::Optimize), optimizeWith);
        QCOMPARE(refusal("PER-FAMILY", Origination::Optimize), optimizeWith);
        QCOMPARE(refusal("ORIGINATION-PER-SPECIES", Origination::Uniform),
                 std::string("--model-parametrization ORIGINATION-PER-SPECIES can only be used with "
                             "--origination OPTIMIZE"));
        QCOMPARE(refusal("PER-SPECIES", Origination::Optimize), std::string("accepted"));
        const Parametrization perNode =
            parseParametrization("ORIGINATION-PER-SPECIES", Origination::Optimize);
        QVERIFY(perNode.mode == RateMode::Global && perNode.originPerNode);
        const Parametrization file = parseParametrization("my/classes.txt", Origination::Uniform);
        QVERIFY(file.mode == RateMode::Classes && file.classFile == "my/classes.txt");
        QVERIFY(!parseParametrization("PER-SPECIES", Origination::Uniform).originPerNode);
    }

    // The starting θ: every rate at the start value, origination weights all 1/N (AleRax's start).
    void startingParameters() {
        const Dataset data = speciesOnly(Origination::Optimize);
        const RateParameters perSpecies =
            makeParameters(parseParametrization("PER-SPECIES", Origination::Optimize), data, {0.1, 0.2, 0.3});
        QCOMPARE(perSpecies.theta().size(), std::size_t(4 * data.species.size()));
        for (double o : perSpecies.originWeights())
            QCOMPARE(o, 1.0 / data.species.size());
        QCOMPARE(perSpecies.ratesAt(0, 3).t, 0.3);
        const RateParameters originOnly = makeParameters(
            parseParametrization("ORIGINATION-PER-SPECIES", Origination::Optimize), data, {0.1, 0.2, 0.3});
        QCOMPARE(originOnly.theta().size(), std::size_t(3 + data.species.size()));
        QCOMPARE(originOnly.extraEntryNames(data.species.names()).front(), std::string("O A"));
    }

    // model_parameters.txt: AleRax's O column holds the weights normalised over the nodes; read
    // back into any parametrisation whose shared entries agree in the file.
    void rateFilesCarryOriginationWeights() {
        const Dataset data = speciesOnly(Origination::Optimize);
        const SpeciesTree& sp = data.species;
        RateParameters theta =
            makeParameters(parseParametrization("PER-SPECIES", Origination::Optimize), data, {0.1, 0.2, 0.3});
        for (int e = 0; e < sp.size(); ++e) {
            theta.setRates(e, {0.01 * (e + 1), 0.02, 0.03});
            theta.theta()[theta.originEntry(e)] = std::log2(3.0 * (e + 1));
        }
        const std::string path = temporaryFolder("rates") + "/model_parameters.txt";
        writeModelParameters(path, sp, theta);
        const std::string text = fileText(path);
        QVERIFY(text.starts_with("node D L T O\n"));
        const NodeParameters file = readNodeParameters(path, sp);
        double total = 0;
        for (int e = 0; e < sp.size(); ++e)
            total += file.origin[e];
        QVERIFY(std::abs(total - 1.0) < 1e-15);
        QVERIFY(std::abs(file.origin[1] / file.origin[0] - 2.0) < 1e-14);
        const RateParameters back = readModelParameters(path, sp, 0);
        QVERIFY(back.mode() == RateMode::Specieswise && back.optimizesOrigination());
        QCOMPARE(back.ratesAt(0, 4).d, theta.ratesAt(0, 4).d);

        // Global rates with per-node weights: ORIGINATION-PER-SPECIES's shape.
        RateParameters originOnly = makeParameters(
            parseParametrization("ORIGINATION-PER-SPECIES", Origination::Optimize), data, {0.1, 0.2, 0.3});
        try {
            setFromNodeParameters(originOnly, file, sp, path, {});
            QFAIL("per-species rates were read into global ones");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(std::string(e.what()).find("share one D parameter here but have different values") !=
                         std::string::npos,
                     e.what());
        }
        // A file with weights for a run without them.
        RateParameters plain(RateMode::Specieswise, sp.size(), 0, {});
        try {
            setFromNodeParameters(plain, file, sp, path, {});
            QFAIL("weights were read into parameters without them");
        } catch (const InputError& e) {
            QCOMPARE(e.line(), 1);
            QCOMPARE(e.column(), 12);
        }
        // Per-family rates have no O column.
        const std::string familyRates = temporaryFolder("rates") + "/f_rates.txt";
        writeFile(familyRates, "D L T O\n0.1 0.1 0.1 0.5\n");
        QVERIFY_THROWS_EXCEPTION(InputError, readFamilyRates(familyRates, sp));
    }

    // A class parametrisation is written per node and read back class by class.
    void classRatesRoundTrip() {
        Dataset data = speciesOnly(Origination::Optimize);
        const SpeciesTree& sp = data.species;
        const std::string classes = classFile("CDE DO\nA L\n");
        RateParameters theta = makeParameters(parseParametrization(classes, Origination::Optimize), data, {});
        for (std::size_t i = 0; i < theta.theta().size(); ++i)
            theta.theta()[i] = -1.0 - 0.5 * static_cast<double>(i);
        const std::string path = temporaryFolder("rates") + "/model_parameters.txt";
        writeModelParameters(path, sp, theta);
        RateParameters back = makeParameters(parseParametrization(classes, Origination::Optimize), data, {});
        setFromNodeParameters(back, readNodeParameters(path, sp), sp, path, {});
        for (std::size_t i = 0; i < theta.theta().size(); ++i) {
            if (back.classes().entryType[i] == 'O') continue; // written normalised: compared as ratios
            QVERIFY(std::abs(back.theta()[i] - theta.theta()[i]) < 1e-13);
        }
        const std::vector<double> a = theta.originWeights(), b = back.originWeights();
        for (int e = 0; e < sp.size(); ++e)
            QVERIFY(relativeError(a[e] / a[0], b[e] / b[0]) < 1e-14);
    }

    // Checkpoints name every entry after the rows: a resumed run must have the same ones.
    void checkpointsKeepTheParametrisation() {
        Dataset data = speciesOnly(Origination::Optimize);
        const std::string classes = classFile("CDE DO\n");
        const RateParameters theta =
            makeParameters(parseParametrization(classes, Origination::Optimize), data, {0.1, 0.2, 0.3});
        OptimizationCheckpoint c = checkpointOf(theta, data);
        QVERIFY(c.rowNames.empty());
        QCOMPARE(c.extraNames.size(), theta.theta().size());
        const OptimizationCheckpoint back = checkpointFromJson(checkpointToJson(c));
        QCOMPARE(back.extraNames, c.extraNames);
        QCOMPARE(checkpointParameters(back, data, theta).theta(), theta.theta());
        const RateParameters other =
            makeParameters(parseParametrization(classFile("CD DO\n"), Origination::Optimize), data, {});
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, checkpointParameters(back, data, other));
        const RateParameters perSpecies =
            makeParameters(parseParametrization("PER-SPECIES", Origination::Optimize), data, {});
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, checkpointParameters(back, data, perSpecies));
        const OptimizationCheckpoint rows = checkpointOf(perSpecies, data);
        QCOMPARE(rows.extraNames.front(), std::string("O A"));
        QCOMPARE(checkpointParameters(checkpointFromJson(checkpointToJson(rows)), data, perSpecies).theta(),
                 perSpecies.theta());
    }
};

QTEST_GUILESS_MAIN(ParametrizationTest)
#include "test_parametrization.moc"
