// ALE .ale files: a hand-worked file, write/read round trips on simulated samples, likelihoods from
// .ale input equal to those of the trees, errors on bad files, and gpurec observe end to end.
#include "ccp/ale_file.hpp"
#include "cli_run.hpp"
#include "data/load.hpp"
#include "engine/backend.hpp"
#include "io/input_error.hpp"
#include "simulated_data.hpp"
#include "species_search/start_trees.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

using namespace gpurec;
using namespace gpurec::test;

namespace {

// Three unrooted trees over A..D: AB|CD twice, AC|BD once. Set ids: leaves 1..4, then AB, CD, AC,
// BD, BCD, ACD, ABD, ABC. Directed counts: leaves and triples 3, AB and CD 2, AC and BD 1.
const char* kFourLeaves =
    "#constructor_string\n"
    "((A,B),(C,D));\n"
    "#observations\n"
    "3\n"
    "#Bip_counts\n"
    "5\t2\n6\t2\n7\t1\n8\t1\n9\t3\n10\t3\n11\t3\n12\t3\n"
    "#Bip_bls\n"
    "5\t0.5\n"
    "#Dip_counts\n"
    "5\t1\t2\t2\n6\t3\t4\t2\n7\t1\t3\t1\n8\t2\t4\t1\n"
    "9\t2\t6\t2\n9\t3\t8\t1\n10\t1\t6\t2\n10\t4\t7\t1\n"
    "11\t4\t5\t2\n11\t1\t8\t1\n12\t3\t5\t2\n12\t2\t7\t1\n"
    "#last_leafset_id\n"
    "12\n"
    "#leaf-id\n"
    "A\t1\nB\t2\nC\t3\nD\t4\n"
    "#set-id\n"
    "1\t:\t1\n2\t:\t2\n3\t:\t3\n4\t:\t4\n5\t:\t1\t2\n6\t:\t3\t4\n7\t:\t1\t3\n8\t:\t2\t4\n"
    "9\t:\t2\t3\t4\n10\t:\t1\t3\t4\n11\t:\t1\t2\t4\n12\t:\t1\t2\t3\n"
    "#END\n";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    if (at == std::string::npos) throw std::logic_error("test text lacks '" + from + "'");
    return text.replace(at, from.size(), to);
}

std::string errorOf(const std::string& text) {
    try {
        (void)parseAle(text, "f.ale");
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

// A random rooted binary tree over `labels` with random branch lengths.
std::string randomTree(std::vector<std::string> labels, std::mt19937_64& rng) {
    std::shuffle(labels.begin(), labels.end(), rng);
    std::uniform_real_distribution<double> length(0.01, 1.0);
    std::vector<std::string> parts;
    for (const std::string& l : labels)
        parts.push_back(l);
    while (parts.size() > 1) { // join two random subtrees until one is left
        std::uniform_int_distribution<std::size_t> pick(0, parts.size() - 1);
        std::size_t a = pick(rng), b = pick(rng);
        while (b == a)
            b = pick(rng);
        char buf[64];
        std::snprintf(buf, sizeof buf, ":%.6f", length(rng));
        std::string joined = "(" + parts[a] + buf;
        std::snprintf(buf, sizeof buf, ":%.6f", length(rng));
        joined += "," + parts[b] + buf + ")";
        if (a < b) std::swap(a, b);
        parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(a));
        parts[b] = joined;
    }
    return parts.front() + ";";
}

// The gene trees of the first `families` simulated families with at least 4 genes, each made a sample: its
// own tree three times and random trees over its leaves (shared clades and many others).
struct Sample {
    std::string name;
    std::string text;
};
std::vector<Sample> simulatedSamples(const SpeciesTree& species, int families) {
    FamilySimulator simulator(species, TransferConstraint::Parents, SimProcess::Undated, {});
    std::vector<Sample> out;
    std::mt19937_64 rng(11);
    for (int f = 0; static_cast<int>(out.size()) < families && f < 1000; ++f) {
        RandomSource source = RandomSource::stream(7, std::uint64_t(f));
        const SimulatedFamily sim = simulator.simulate(
            "sim" + std::to_string(f), std::vector<Rates>(species.size(), Rates{0.2, 0.1, 0.1}), source);
        std::vector<std::string> labels;
        for (int leaf : sim.geneTree.leaves())
            labels.push_back(sim.geneTree.nodes[leaf].label);
        if (labels.size() < 4) continue;
        std::string text;
        for (int k = 0; k < 3; ++k)
            text += writeNewick(sim.geneTree) + "\n";
        for (int k = 0; k < 7; ++k)
            text += randomTree(labels, rng) + "\n";
        out.push_back({"sim" + std::to_string(f), text});
    }
    return out;
}

void requireSameCladeSet(const CladeSet& a, const CladeSet& b) {
    QCOMPARE(a.geneNames, b.geneNames);
    QCOMPARE(a.treeCount, b.treeCount);
    QCOMPARE(a.cladeSize, b.cladeSize);
    QCOMPARE(a.cladeGene, b.cladeGene);
    QCOMPARE(a.splitOffset, b.splitOffset);
    QCOMPARE(a.splitCount(), b.splitCount());
    for (int k = 0; k < a.splitCount(); ++k) {
        QCOMPARE(a.splits[k].left, b.splits[k].left);
        QCOMPARE(a.splits[k].right, b.splits[k].right);
        QVERIFY(std::abs(a.splits[k].weight - b.splits[k].weight) < 1e-12);
    }
    for (int c = 0; c < a.cladeCount(); ++c)
        QVERIFY(std::abs(a.branchLength[c] - b.branchLength[c]) < 1e-12);
}

} // namespace

class AleFiles : public QObject {
    Q_OBJECT

  private slots:
    void fourLeafFileGivesItsConditionalWeights() {
        const CladeSet cs = parseAle(kFourLeaves, "f.ale").clades;
        QCOMPARE(cs.geneNames, (std::vector<std::string>{"A", "B", "C", "D"}));
        QCOMPARE(cs.treeCount, 3);
        // Clades by size, then bits: A B C D, AB AC BD CD, ABC ABD ACD BCD, ABCD.
        QCOMPARE(cs.cladeSize, (std::vector<int>{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4}));
        QCOMPARE(cs.cladeGene, (std::vector<int>{0, 1, 2, 3, -1, -1, -1, -1, -1, -1, -1, -1, -1}));
        QCOMPARE(cs.splitOffset, (std::vector<int>{0, 0, 0, 0, 0, 1, 2, 3, 4, 6, 8, 10, 12, 18}));
        const std::vector<std::tuple<int, int, double>> expected = {
            {0, 1, 1.0},       {0, 2, 1.0},       {1, 3, 1.0},      {2, 3, 1.0},      // pairs
            {1, 5, 1.0 / 3},   {2, 4, 2.0 / 3},                                       // ABC = B+AC, C+AB
            {0, 6, 1.0 / 3},   {3, 4, 2.0 / 3},                                       // ABD = A+BD, D+AB
            {0, 7, 2.0 / 3},   {3, 5, 1.0 / 3},                                       // ACD = A+CD, D+AC
            {1, 7, 2.0 / 3},   {2, 6, 1.0 / 3},                                       // BCD = B+CD, C+BD
            {0, 11, 6.0 / 30}, {1, 10, 6.0 / 30}, {2, 9, 6.0 / 30}, {3, 8, 6.0 / 30}, // root: leaf edges
            {4, 7, 4.0 / 30},  {5, 6, 2.0 / 30}};                                     // AB|CD, AC|BD
        QCOMPARE(cs.splitCount(), int(expected.size()));
        for (int k = 0; k < cs.splitCount(); ++k) {
            QCOMPARE(cs.splits[k].left, std::get<0>(expected[k]));
            QCOMPARE(cs.splits[k].right, std::get<1>(expected[k]));
            QCOMPARE(cs.splits[k].weight, std::get<2>(expected[k]));
        }
        QCOMPARE(cs.branchLength[4], 0.25); // AB: length sum 0.5 over 2 trees
        QCOMPARE(cs.branchLength[0], 0.0);

        // The same three trees as a sample give the same clade set.
        const CladeSet fromTrees =
            buildCladeSet(parseNewick("((A,B),(C,D));\n((A,B),(C,D));\n((A,C),(B,D));", "g.nwk"),
                          GeneTreeRooting::Unrooted);
        CladeSet noLengths = cs;
        noLengths.branchLength.assign(cs.cladeCount(), 0.0);
        requireSameCladeSet(noLengths, fromTrees);
    }

    void writtenFileIsAleLayout() {
        const CladeSet cs =
            buildCladeSet(parseNewick("((A,B),(C,D));\n((A,B),(C,D));\n((A,C),(B,D));", "g.nwk"),
                          GeneTreeRooting::Unrooted);
        const std::string text = aleText(cs);
        // Set ids: leaves 1..4, then AB AC BD CD ABC ABD ACD BCD (clade order).
        QCOMPARE(text,
                 std::string(
                     "#constructor_string\n(A,(B,(C,D)));\n#observations\n3\n#Bip_counts\n"
                     "5\t2\n6\t1\n7\t1\n8\t2\n9\t3\n10\t3\n11\t3\n12\t3\n"
                     "#Bip_bls\n1\t0\n2\t0\n3\t0\n4\t0\n5\t0\n6\t0\n7\t0\n8\t0\n9\t0\n10\t0\n11\t0\n12\t0\n"
                     "#Dip_counts\n5\t1\t2\t2\n6\t1\t3\t1\n7\t2\t4\t1\n8\t3\t4\t2\n"
                     "9\t2\t6\t1\n9\t3\t5\t2\n10\t1\t7\t1\n10\t4\t5\t2\n"
                     "11\t1\t8\t2\n11\t4\t6\t1\n12\t2\t8\t2\n12\t3\t7\t1\n"
                     "#last_leafset_id\n12\n#leaf-id\nA\t1\nB\t2\nC\t3\nD\t4\n#set-id\n"
                     "1\t:\t1\n2\t:\t2\n3\t:\t3\n4\t:\t4\n5\t:\t1\t2\n6\t:\t1\t3\n7\t:\t2\t4\n"
                     "8\t:\t3\t4\n9\t:\t1\t2\t3\n10\t:\t1\t2\t4\n11\t:\t1\t3\t4\n12\t:\t2\t3\t4\n"
                     "#END\n"));
        requireSameCladeSet(parseAle(text, "w.ale").clades, cs);
    }

    void simulatedSamplesRoundTrip() {
        const SpeciesTree species = simulatedSpeciesTree(20, 3);
        const std::vector<Sample> samples = simulatedSamples(species, 8);
        QCOMPARE(int(samples.size()), 8);
        const std::string dir = temporaryFolder("ale_round_trip");
        int largest = 0;
        for (const Sample& s : samples) {
            const CladeSet cs = buildCladeSet(parseNewick(s.text, s.name), GeneTreeRooting::Unrooted);
            QCOMPARE(cs.treeCount, 10);
            largest = std::max(largest, cs.geneCount());
            const std::string path = dir + "/" + s.name + ".ale";
            writeAleFile(path, cs);
            QVERIFY(isAleFile(path));
            requireSameCladeSet(readAleFile(path), cs);
        }
        QVERIFY(largest >= 10);
        // The single trees of the teaching sample too.
        LoadedInput in = loadInput({sourcePath("samples/teaching/species.nwk"),
                                    sourcePath("samples/teaching/families.txt"),
                                    {},
                                    {},
                                    {},
                                    {}},
                                   TransferConstraint::Parents, LoadOptions{});
        QCOMPARE(int(in.dataset->families.size()), 30);
        for (const GeneFamily& f : in.dataset->families)
            requireSameCladeSet(parseAle(aleText(f.clades), "t.ale").clades, f.clades);
    }

    void likelihoodFromAleEqualsTheSamples() {
        const SpeciesTree species = simulatedSpeciesTree(20, 3);
        const std::vector<Sample> samples = simulatedSamples(species, 8);
        const std::string dir = temporaryFolder("ale_likelihood");
        writeFile(dir + "/species.nwk", species.toNewick() + "\n");
        std::vector<std::string> trees, ales;
        for (const Sample& s : samples) {
            trees.push_back(dir + "/" + s.name + ".nwk");
            ales.push_back(dir + "/" + s.name + ".ale");
            writeFile(trees.back(), s.text);
            writeAleFile(ales.back(), buildCladeSet(parseNewick(s.text, s.name), GeneTreeRooting::Unrooted));
        }
        LoadOptions options;
        options.minCoveredSpecies = 0;
        const LoadedInput fromTrees =
            loadInput({dir + "/species.nwk", "", trees, {}, {}, {}}, TransferConstraint::Parents, options);
        const LoadedInput fromAle =
            loadInput({dir + "/species.nwk", "", ales, {}, {}, {}}, TransferConstraint::Parents, options);
        QVERIFY(fromTrees.errors.empty() && fromAle.errors.empty());
        const int n = static_cast<int>(samples.size());
        QCOMPARE(int(fromAle.dataset->families.size()), n);
        RateParameters theta(RateMode::Global, species.size(), n, Rates{0.05, 0.1, 0.02});
        SolverOptions solver;
        solver.threads = 1;
        const Evaluation a = makeCpuBackend(fromTrees.dataset)->evaluate(theta, solver, false);
        const Evaluation b = makeCpuBackend(fromAle.dataset)->evaluate(theta, solver, false);
        for (int f = 0; f < n; ++f) {
            QCOMPARE(fromAle.dataset->families[f].name, fromTrees.dataset->families[f].name);
            QCOMPARE(fromAle.dataset->families[f].geneSpecies, fromTrees.dataset->families[f].geneSpecies);
            QVERIFY(std::isfinite(a.logLikelihood[f]) && a.logLikelihood[f] < 0);
            QVERIFY(relativeError(b.logLikelihood[f], a.logLikelihood[f]) < 1e-12);
        }
    }

    // Species-tree starts read an .ale file's constructor tree, as AleRax does: the same start as
    // from that tree in a Newick file.
    void startTreesUseTheConstructorTree() {
        const std::string dir = temporaryFolder("ale_start_trees");
        LoadedInput in = loadInput({sourcePath("samples/teaching/species.nwk"),
                                    sourcePath("samples/teaching/families.txt"),
                                    {},
                                    {},
                                    {},
                                    {}},
                                   TransferConstraint::Parents, LoadOptions{});
        std::vector<std::string> ales, trees;
        for (const GeneFamily& f : in.dataset->families) {
            ales.push_back(dir + "/" + f.name + ".ale");
            trees.push_back(dir + "/" + f.name + ".nwk");
            writeAleFile(ales.back(), f.clades);
            writeFile(trees.back(),
                      writeNewick(parseAle(fileText(ales.back()), "a.ale").constructorTree) + "\n");
        }
        const std::vector<FamilyInput> fromAle = familiesFromGeneTreeFiles(ales);
        const std::vector<FamilyInput> fromTrees = familiesFromGeneTreeFiles(trees);
        QCOMPARE(familySpecies(fromAle), familySpecies(fromTrees));
        QCOMPARE(int(familySpecies(fromAle).size()), in.dataset->species.leafCount());
        QCOMPARE(miniNjSpeciesTree(fromAle).toNewick(), miniNjSpeciesTree(fromTrees).toNewick());
    }

    void detectionAcceptsAByteOrderMark() {
        const std::string dir = temporaryFolder("ale_detect");
        writeFile(dir + "/bom.ale", std::string("\xEF\xBB\xBF") + kFourLeaves);
        writeFile(dir + "/tree.nwk", "((A,B),(C,D));\n");
        writeFile(dir + "/empty.ale", "");
        QVERIFY(isAleFile(dir + "/bom.ale"));
        QVERIFY(!isAleFile(dir + "/tree.nwk"));
        QVERIFY(!isAleFile(dir + "/empty.ale"));
        QVERIFY(!isAleFile(dir + "/missing.ale"));
        QCOMPARE(readAleFile(dir + "/bom.ale").cladeCount(), 13);
    }

    void rootedRootingAndUnmappedGenesAreInputErrors() {
        const std::string dir = temporaryFolder("ale_family");
        writeFile(dir + "/s.nwk", "((A,B),(C,E));\n");
        writeFile(dir + "/f.ale", kFourLeaves);
        const SpeciesTree species = SpeciesTree::fromNewick(parseNewick("((A,B),(C,E));", "s.nwk").front());
        FamilyInput input;
        input.name = "f";
        input.geneTreePath = dir + "/f.ale";
        try {
            (void)prepareFamily(species, input, GeneTreeRooting::Rooted);
            QFAIL("ROOTED accepted");
        } catch (const InputError& e) {
            QCOMPARE(std::string(e.what()),
                     dir + "/f.ale:1:1: an .ale file holds unrooted samples without "
                           "branch lengths: it needs --gene-tree-rooting UNIFORM, not ROOTED");
        }
        try {
            (void)prepareFamily(species, input, GeneTreeRooting::Mad);
            QFAIL("MAD accepted");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).ends_with("it needs --gene-tree-rooting UNIFORM, not MAD"));
        }
        try {
            (void)prepareFamily(species, input, GeneTreeRooting::Unrooted);
            QFAIL("unmapped gene accepted");
        } catch (const InputError& e) { // D is on line 35 of #leaf-id
            QCOMPARE(
                std::string(e.what()),
                dir + "/f.ale:35:1: gene 'D' of family 'f' maps to species 'D', which is not in the species "
                      "tree (default rule (species = gene label up to the first '_'))");
        }
    }

    void badFilesNameTheirPlace_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        const std::string good = kFourLeaves;
        auto row = [](const char* name, const std::string& text, const std::string& message) {
            QTest::newRow(name) << QString::fromStdString(text) << QString::fromStdString(message);
        };
        row("empty", "", "f.ale:1: empty file (an .ale file starts with '#constructor_string')");
        row("blank lines only", "\n \n",
            "f.ale:1: empty file (an .ale file starts with '#constructor_string')");
        row("no header", "((A,B),C);\n", "f.ale:1:1: expected '#constructor_string' on the first line");
        row("section missing", replaced(good, "#Bip_bls\n5\t0.5\n", ""),
            "f.ale:14:1: section '#Dip_counts' out of order: expected '#Bip_bls' here");
        row("unknown section", replaced(good, "#Bip_bls", "#Bip_lengths"),
            "f.ale:14:1: unknown section '#Bip_lengths' (expected '#Bip_bls')");
        row("truncated", good.substr(0, good.find("#set-id")),
            "f.ale:35: the file ends before section '#set-id'");
        row("non-numeric count", replaced(good, "7\t1\n8\t1\n9", "7\tone\n8\t1\n9"),
            "f.ale:8:3: a count must be a positive number, found 'one'");
        row("non-numeric observations", replaced(good, "#observations\n3", "#observations\n3.5"),
            "f.ale:4:1: the number of observations must be a whole number from 1 to 2147483647, found '3.5'");
        row("bip listed twice", replaced(good, "6\t2\n7\t1", "6\t2\n6\t1"),
            "f.ale:8:1: set id 6 listed twice in '#Bip_counts' (first at line 7)");
        row("unknown set id", replaced(good, "#Bip_bls\n5", "#Bip_bls\n13"),
            "f.ale:15:1: set id 13 of '#Bip_bls' has no line in '#set-id'");
        row("set listed twice", replaced(good, "12\t:\t1\t2\t3", "11\t:\t1\t2\t3"),
            "f.ale:48:1: set id 11 listed twice in '#set-id' (first at line 47)");
        row("dip parent without bip", replaced(good, "12\t3\n#Bip_bls", "#Bip_bls"),
            "f.ale:26:1: split of set 12, which has no count in '#Bip_counts'");
        row("inconsistent split", replaced(good, "9\t2\t6\t2", "9\t2\t5\t2"),
            "f.ale:21:1: set 9 is not the disjoint union of sets 2 and 5");
        row("weights do not sum to 1", replaced(good, "10\t4\t7\t1", "10\t4\t7\t1.5"),
            "f.ale:11:4: the splits of set 10 in '#Dip_counts' add up to 3.5, not its count 3");
        row("root weights do not sum to 1",
            replaced(replaced(good, "5\t2\n6\t2", "5\t4\n6\t2"), "5\t1\t2\t2", "5\t1\t2\t4"),
            "f.ale:5: the counts of all sets (leaves counted 3 times unless listed) add up to 32, not "
            "observations * 2 * (2n - 3) = 30");
        row("leaf id outside 1..n", replaced(good, "D\t4", "D\t7"),
            "f.ale:35:3: leaf id 7 is outside 1..4 ('#leaf-id' lists 4 leaves)");
        row("set leaf outside 1..n", replaced(good, "8\t:\t2\t4", "8\t:\t2\t9"),
            "f.ale:44:7: leaf id '9' is outside 1..4 ('#leaf-id' lists 4 leaves)");
        row("full set has an id", replaced(good, "12\t:\t1\t2\t3", "12\t:\t1\t2\t3\t4"),
            "f.ale:48:1: set 12 holds all 4 leaves, but the full leaf set has no set id");
        row("same clade twice", replaced(good, "8\t:\t2\t4", "8\t:\t1\t2"),
            "f.ale:44:1: set 8 has the same leaves as set 5 (line 41)");
        row("constructor leaf unknown", replaced(good, "((A,B),(C,D));", "((A,B),(C,X));"),
            "f.ale:2:11: leaf 'X' of the constructor tree is not in '#leaf-id'");
        row("NUL byte", replaced(good, "#END", std::string("#E\0ND", 5)),
            "f.ale:49:3: NUL byte (\\0) in a text file: the file is binary or corrupted");
        row("text after END", good + "5\t1\n", "f.ale:50:1: text after '#END'");
        row("missing set id", replaced(good, "#last_leafset_id\n12", "#last_leafset_id\n13"),
            "f.ale:49: set id 13 has no line in '#set-id' (set ids run from 1 to '#last_leafset_id' 13)");
        row("too few fields", replaced(good, "9\t3\t8\t1", "9\t3\t8"),
            "f.ale:22:5: expected 'parent child1 child2 count' in '#Dip_counts', found 3 fields");
        row("one leaf",
            "#constructor_string\nA;\n#observations\n1\n#Bip_counts\n#Bip_bls\n#Dip_counts\n"
            "#last_leafset_id\n1\n#leaf-id\nA\t1\n#set-id\n1\t:\t1\n#END\n",
            "f.ale:12: an .ale file needs at least 2 leaves, '#leaf-id' lists 1");
    }
    void badFilesNameTheirPlace() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QCOMPARE(QString::fromStdString(errorOf(text.toStdString())), message);
    }

    void writerRefusesWhatAleCannotHold() {
        const CladeSet rooted =
            buildCladeSet(parseNewick("((A,B),(C,D));", "g.nwk"), GeneTreeRooting::Rooted);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, aleText(rooted));
        const CladeSet blank =
            buildCladeSet(parseNewick("(('A 1',B),(C,D));", "g.nwk"), GeneTreeRooting::Unrooted);
        try {
            (void)aleText(blank);
            QFAIL("a blank in a gene name accepted");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(std::string(e.what()),
                     std::string("cannot write an .ale file: gene name 'A 1' is empty, starts with '#' "
                                 "or holds a blank (.ale fields are split on blanks)"));
        }
    }

    // A family that .ale cannot hold (a single gene) is left out with a warning; the others are written.
    void observeLeavesOutWhatAleCannotHold() {
        const std::string dir = temporaryFolder("cli_observe_single");
        writeFile(dir + "/s.nwk", "((A,B),(C,D));\n");
        writeFile(dir + "/g1.nwk", "((A_1,B_1),(C_1,D_1));\n((A_1,C_1),(B_1,D_1));\n");
        writeFile(dir + "/g2.nwk", "A_2;\n");
        CliRun r = runGpurec({"observe", "-s", q(dir + "/s.nwk"), q(dir + "/g1.nwk"), q(dir + "/g2.nwk"),
                              "--min-covered-species", "0", "-p", q(dir + "/o")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.err,
                 QString("gpurec: warning: family g2 not written: cannot write an .ale file: it needs at "
                         "least 2 genes, the clade set has 1\n"));
        QVERIFY(r.out.startsWith("1 families observed\n"));
        QCOMPARE(fileText(dir + "/o/families.txt"),
                 std::string("[FAMILIES]\n- g1\ngene_tree = ale/g1.ale\n"));
        const nlohmann::json j = readJson(dir + "/o/result.json");
        QCOMPARE(std::string(j["not_written"][0]["name"]), std::string("g2"));
        QCOMPARE(int(j["families"][0]["trees"]), 2);
        const CladeSet cs = readAleFile(dir + "/o/ale/g1.ale");
        requireSameCladeSet(
            cs, buildCladeSet(parseNewick(fileText(dir + "/g1.nwk"), "g1.nwk"), GeneTreeRooting::Unrooted));
    }

    // Mapping files stay with their families, as absolute paths (the new families file lives elsewhere).
    void observeKeepsMappingFiles() {
        const std::string dir = temporaryFolder("cli_observe_mapping");
        writeFile(dir + "/s.nwk", "((X,Y),(Z,W));\n");
        writeFile(dir + "/g.nwk", "((a,b),(c,d));\n((a,c),(b,d));\n");
        writeFile(dir + "/g.link", "a X\nb Y\nc Z\nd W\n");
        writeFile(dir + "/families.txt", "[FAMILIES]\n- fam\ngene_tree = g.nwk\nmapping = g.link\n");
        CliRun r = runGpurec(
            {"observe", "-s", q(dir + "/s.nwk"), "-f", q(dir + "/families.txt"), "-p", q(dir + "/o")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(fileText(dir + "/o/families.txt"),
                 "[FAMILIES]\n- fam\ngene_tree = ale/fam.ale\nmapping = " + dir + "/g.link\n");
        CliRun a =
            runGpurec({"eval", "-s", q(dir + "/s.nwk"), "-f", q(dir + "/families.txt"), "-p", q(dir + "/a")});
        CliRun b = runGpurec(
            {"eval", "-s", q(dir + "/s.nwk"), "-f", q(dir + "/o/families.txt"), "-p", q(dir + "/b")});
        QCOMPARE(a.exitCode, 0);
        QCOMPARE(b.exitCode, 0);
        QCOMPARE(fileText(dir + "/b/per_fam_likelihoods.txt"), fileText(dir + "/a/per_fam_likelihoods.txt"));
    }

    // gpurec observe writes one .ale per family and a families file that eval reads to the same
    // likelihoods as the original input.
    void observeThenEvalGivesTheSameLikelihoods() {
        const std::string out = temporaryFolder("cli_observe");
        const QString species = q(sourcePath("samples/teaching/species.nwk"));
        const QString families = q(sourcePath("samples/teaching/families.txt"));
        CliRun r = runGpurec({"observe", "-s", species, "-f", families, "-p", q(out + "/obs")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("30 families observed"));
        const std::string list = fileText(out + "/obs/families.txt");
        QVERIFY(list.rfind("[FAMILIES]\n- family01\ngene_tree = ale/family01.ale\n- family02\n", 0) == 0);
        QVERIFY(isAleFile(out + "/obs/ale/family30.ale"));
        nlohmann::json j = readJson(out + "/obs/result.json");
        QCOMPARE(int(j["families"].size()), 30);
        QCOMPARE(std::string(j["families"][0]["ale"]), std::string("ale/family01.ale"));

        CliRun a = runGpurec({"eval", "-s", species, "-f", families, "-p", q(out + "/a")});
        CliRun b =
            runGpurec({"eval", "-s", species, "-f", q(out + "/obs/families.txt"), "-p", q(out + "/b")});
        QCOMPARE(a.exitCode, 0);
        QCOMPARE(b.exitCode, 0);
        const std::string la = fileText(out + "/a/per_fam_likelihoods.txt");
        QVERIFY(la.size() > 30 * 10);
        QCOMPARE(fileText(out + "/b/per_fam_likelihoods.txt"), la);

        CliRun rooted = runGpurec({"observe", "-s", species, "-f", families, "--gene-tree-rooting", "ROOTED",
                                   "-p", q(out + "/rooted")});
        QCOMPARE(rooted.exitCode, 2);
        QCOMPARE(rooted.err,
                 QString("gpurec: error: observe writes .ale files, which hold unrooted samples: it "
                         "needs --gene-tree-rooting UNIFORM, not ROOTED\n"));
        CliRun evalRooted = runGpurec({"eval", "-s", species, "-f", q(out + "/obs/families.txt"),
                                       "--gene-tree-rooting", "ROOTED", "--strict", "-p", q(out + "/c")});
        QCOMPARE(evalRooted.exitCode, 2);
        QVERIFY(evalRooted.err.contains(
            q(out + "/obs/ale/family01.ale:1:1: an .ale file holds unrooted samples")));
    }
};

QTEST_GUILESS_MAIN(AleFiles)
#include "test_ale_file.moc"
