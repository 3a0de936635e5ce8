// The DTL simulator: the undated process against the engine's likelihood, determinism, the truth
// files (RecPhyloXML, JSON, text) against the gene trees, RELDATED's transfers and written tree, the
// species tree and perturbation helpers, and the errors for bad parameters.
#include "ccp/clade_set.hpp"
#include "data/dataset.hpp"
#include "data/load.hpp"
#include "engine/backend.hpp"
#include "io/result_writer.hpp"
#include "io/text_file.hpp"
#include "optim/rate_files.hpp"
#include "recon/recphyloxml.hpp"
#include "reference_model.hpp"
#include "sim/simulation.hpp"
#include "support.hpp"

#include <QProcess>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

using namespace gpurec;
using namespace gpurec::test;

namespace {

std::string speciesOfGene(const std::string& gene) {
    return gene.substr(0, gene.find('_'));
}

// Rooted topology over species names with ordered children ("((A,B),C)"); empty when a species
// carries two genes.
std::string canonicalTopology(const NewickTree& tree) {
    std::vector<std::string> text(tree.nodes.size());
    std::set<std::string> seen;
    for (int v : tree.postorder()) {
        const NewickNode& n = tree.nodes[v];
        if (n.children.empty()) {
            text[v] = speciesOfGene(n.label);
            if (!seen.insert(text[v]).second) return {};
        } else {
            std::string a = text[n.children[0]], b = text[n.children[1]];
            text[v] = "(" + std::min(a, b) + "," + std::max(a, b) + ")";
        }
    }
    return text[tree.root];
}

// One family per rooted Newick tree with genes named <species>_<n>, on `species`.
std::shared_ptr<Dataset> rootedFamilies(const SpeciesTree& species, const std::vector<std::string>& trees) {
    auto data = std::make_shared<Dataset>();
    data->species = species;
    for (const std::string& text : trees) {
        data->families.push_back(makeFamily(species, text, parseNewick(text, text), GeneTreeRooting::Rooted));
    }
    return data;
}

// Checks every rule of the reconciliation layout (core/recon/reconciliation.hpp) on a simulated truth.
void checkReconciliation(const Reconciliation& r, const SpeciesTree& s, TransferConstraint constraint) {
    auto firstSpecies = [&](int g) { return r.nodes[g].events.front().species; };
    QCOMPARE(firstSpecies(r.root), r.originSpecies);
    for (const ReconNode& n : r.nodes) {
        QVERIFY(!n.events.empty());
        for (std::size_t k = 0; k + 1 < n.events.size(); ++k) {
            const ReconEvent& ev = n.events[k];
            int next = n.events[k + 1].species;
            if (ev.type == EventType::SpeciationLoss) {
                QVERIFY(!s.isLeaf(ev.species));
                QVERIFY(next == s.left(ev.species) || next == s.right(ev.species));
            } else {
                QCOMPARE(ev.type, EventType::TransferLoss);
                QCOMPARE(next, ev.recipient);
                std::vector<int> allowed = s.recipients(ev.species, constraint);
                QVERIFY(std::count(allowed.begin(), allowed.end(), ev.recipient) == 1);
            }
        }
        const ReconEvent& own = n.events.back();
        if (own.type == EventType::Leaf) {
            QVERIFY(n.children.empty());
            QVERIFY(s.isLeaf(own.species));
            QCOMPARE(speciesOfGene(n.name), s.name(own.species));
            continue;
        }
        QCOMPARE(n.children.size(), std::size_t(2));
        int a = firstSpecies(n.children[0]), b = firstSpecies(n.children[1]);
        if (own.type == EventType::Speciation) {
            QCOMPARE(std::minmax(a, b), std::minmax(s.left(own.species), s.right(own.species)));
        } else if (own.type == EventType::Duplication) {
            QVERIFY(a == own.species && b == own.species);
        } else {
            QCOMPARE(own.type, EventType::Transfer);
            QCOMPARE(std::minmax(a, b), std::minmax(own.species, own.recipient));
            std::vector<int> allowed = s.recipients(own.species, constraint);
            QVERIFY(std::count(allowed.begin(), allowed.end(), own.recipient) == 1);
        }
    }
}

std::map<std::string, std::string> filesUnder(const std::string& dir) {
    std::map<std::string, std::string> out;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
        if (entry.is_regular_file())
            out[std::filesystem::relative(entry.path(), dir).string()] = readTextFile(entry.path().string());
    return out;
}

SimulationOptions smallDataset(SimProcess process) {
    SimulationOptions o;
    o.birthDeath.leaves = 8;
    o.birthDeath.deathRate = 0.2;
    o.families = 30;
    o.process = process;
    o.rates = process == SimProcess::Undated ? Rates{0.2, 0.2, 0.2} : Rates{0.3, 0.3, 0.3};
    o.familyRateSpread = 1.5;
    o.treeSamples = 4;
    o.sampledFraction = 0.5;
    o.perturbation.rate = 0.3;
    o.mappingFiles = true;
    o.seed = 42;
    return o;
}

std::string errorOf(const SimulationOptions& o) {
    try {
        runSimulation(o, temporaryFolder("sim_error"));
    } catch (const std::exception& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

class SimulatorTest : public QObject {
    Q_OBJECT

  private slots:
    // Under the undated process, the frequency of each observed rooted topology (every species
    // at most once) over 100k surviving families is exp(LL) of that tree from the engine (ROOTED,
    // conditioned on survival), within 3 standard errors. The engine's duplication term counts
    // the two copies of a duplication as one ordering (AleRax's convention, docs/simulator.md),
    // so exp(LL) falls below the process probability by up to ~1.6% relative at the first rates
    // (far below 3 standard errors here); without duplications the two are equal exactly.
    void generativeModelMatchesLikelihood_data() {
        QTest::addColumn<double>("d");
        QTest::addColumn<double>("l");
        QTest::addColumn<double>("t");
        QTest::newRow("D, L, T") << 0.1 << 0.2 << 0.15;
        QTest::newRow("transfers and losses") << 1e-10 << 0.5 << 0.5;
    }
    void generativeModelMatchesLikelihood() {
        QFETCH(double, d);
        QFETCH(double, l);
        QFETCH(double, t);
        const long families = 100000;
        SpeciesTree species = SpeciesTree::fromNewick(parseNewick("((A,B)AB,C)R;", "species")[0]);
        FamilySimulator simulator(species, TransferConstraint::Parents, SimProcess::Undated, {});
        std::vector<Rates> rates(species.size(), Rates{d, l, t});
        std::map<std::string, long> counts;
        RandomSource rng(2024); // one stream for all families: seeding a generator per family would dominate
        for (long f = 0; f < families; ++f)
            ++counts[canonicalTopology(simulator.simulate("f", rates, rng).geneTree)];
        const std::vector<std::string> trees = {"A_1;",
                                                "B_1;",
                                                "C_1;",
                                                "(A_1,B_1);",
                                                "(A_1,C_1);",
                                                "(B_1,C_1);",
                                                "((A_1,B_1),C_1);",
                                                "((A_1,C_1),B_1);",
                                                "((B_1,C_1),A_1);"};
        auto data = rootedFamilies(species, trees);
        RateParameters theta(RateMode::Global, species.size(), int(trees.size()), Rates{d, l, t});
        Evaluation eval = makeCpuBackend(data)->evaluate(theta, SolverOptions{}, false);
        long seen = 0;
        for (std::size_t k = 0; k < trees.size(); ++k) {
            std::string topology = canonicalTopology(parseNewick(trees[k], "t")[0]);
            double p = std::exp(eval.logLikelihood[k]);
            double frequency = double(counts[topology]) / families;
            double se = std::sqrt(p * (1 - p) / families);
            QVERIFY2(std::abs(frequency - p) < 3 * se,
                     qPrintable(QString("%1: frequency %2, exp(LL) %3, %4 SE")
                                    .arg(topology.c_str())
                                    .arg(frequency)
                                    .arg(p)
                                    .arg((frequency - p) / se)));
            seen += counts[topology];
        }
        // Every other family has a species with two genes (or more genes than species).
        QCOMPARE(seen + counts[""], families);
    }

    // Two genes in one species: the process draws unordered copies whose labels are exchangeable,
    // while the likelihood counts the speciation and transfer splits of the labelled tree
    // (A_1,A_2) in both orders and the duplication split once. So exp(LL) is twice the frequency
    // when the pair can only arise by transfer, and equal to it when only by duplication
    // (docs/simulator.md).
    void sameSpeciesGenesFollowLabelledCounting_data() {
        QTest::addColumn<double>("d");
        QTest::addColumn<double>("t");
        QTest::addColumn<double>("factor");
        QTest::newRow("transfers only") << 1e-10 << 0.5 << 2.0;
        QTest::newRow("duplications only") << 0.5 << 1e-10 << 1.0;
    }
    void sameSpeciesGenesFollowLabelledCounting() {
        QFETCH(double, d);
        QFETCH(double, t);
        QFETCH(double, factor);
        const long families = 200000;
        SpeciesTree species = SpeciesTree::fromNewick(parseNewick("((A,B)AB,C)R;", "species")[0]);
        FamilySimulator simulator(species, TransferConstraint::Parents, SimProcess::Undated, {});
        std::vector<Rates> rates(species.size(), Rates{d, 0.5, t});
        std::map<std::string, long> pairs; // two-gene families with both genes in one species
        RandomSource rng(7);
        for (long f = 0; f < families; ++f) {
            const NewickTree tree = simulator.simulate("f", rates, rng).geneTree;
            if (tree.nodes.size() != 3) continue;
            std::set<std::string> speciesOfLeaves;
            for (const NewickNode& n : tree.nodes)
                if (n.children.empty()) speciesOfLeaves.insert(speciesOfGene(n.label));
            if (speciesOfLeaves.size() == 1) ++pairs[*speciesOfLeaves.begin()];
        }
        const std::vector<std::string> names = {"A", "B", "C"};
        std::vector<std::string> trees;
        for (const std::string& name : names)
            trees.push_back("(" + name + "_1," + name + "_2);");
        auto data = rootedFamilies(species, trees);
        RateParameters theta(RateMode::Global, species.size(), 3, Rates{d, 0.5, t});
        Evaluation eval = makeCpuBackend(data)->evaluate(theta, SolverOptions{}, false);
        for (std::size_t k = 0; k < names.size(); ++k) {
            const double p = std::exp(eval.logLikelihood[k]) / factor;
            const double frequency = double(pairs[names[k]]) / families;
            const double se = std::sqrt(p * (1 - p) / families);
            QVERIFY2(std::abs(frequency - p) < 3 * se,
                     qPrintable(QString("%1 twice: frequency %2, exp(LL) / %3 = %4, %5 SE")
                                    .arg(names[k].c_str())
                                    .arg(frequency)
                                    .arg(factor)
                                    .arg(p)
                                    .arg((frequency - p) / se)));
        }
    }

    void sameSeedSameBytes_data() {
        QTest::addColumn<int>("process");
        QTest::newRow("undated") << int(SimProcess::Undated);
        QTest::newRow("dated") << int(SimProcess::Dated);
    }
    void sameSeedSameBytes() {
        QFETCH(int, process);
        SimulationOptions o = smallDataset(SimProcess(process));
        std::string a = temporaryFolder("sim_a"), b = temporaryFolder("sim_b"), c = temporaryFolder("sim_c");
        o.threads = 1;
        runSimulation(o, a);
        o.threads = 2;
        runSimulation(o, b);
        std::map<std::string, std::string> first = filesUnder(a), second = filesUnder(b);
        QVERIFY(first.size() > 30 * 2);
        QVERIFY(first == second);
        o.seed = 43;
        runSimulation(o, c);
        std::map<std::string, std::string> other = filesUnder(c);
        QVERIFY(other["gene_trees/family01.nwk"] != first["gene_trees/family01.nwk"] ||
                other["species.nwk"] != first["species.nwk"]);
    }

    void truthParsesBack_data() { sameSeedSameBytes_data(); }
    void truthParsesBack() {
        QFETCH(int, process);
        SimulationOptions o = smallDataset(SimProcess(process));
        std::string dir = temporaryFolder("sim_truth");
        SimulationSummary summary = runSimulation(o, dir);
        QCOMPARE(summary.families, 30);

        LoadOptions lo;
        lo.minCoveredSpecies = 1;
        LoadedInput in = loadInput({dir + "/species.nwk", dir + "/families.txt", {}, {}, {}, {}},
                                   TransferConstraint::Parents, lo);
        QVERIFY(in.errors.empty());
        QCOMPARE(in.dataset->families.size(), std::size_t(30));

        RecPhyloDocument doc = readRecPhyloXml(dir + "/truth/reconciliations.xml");
        QCOMPARE(doc.species.toNewick(), in.dataset->species.toNewick());
        QCOMPARE(doc.reconciliations.size(), std::size_t(30));
        nlohmann::json truth = readJson(dir + "/truth/truth.json");
        QCOMPARE(truth["families"].size(), std::size_t(30));
        std::vector<std::string> countLines;
        {
            std::istringstream text(readTextFile(dir + "/truth/event_counts.txt"));
            for (std::string line; std::getline(text, line);)
                if (!line.empty() && line[0] != '#') countLines.push_back(line);
        }
        QCOMPARE(countLines.size(), std::size_t(30));
        long genes = 0, perturbed = 0;
        for (std::size_t f = 0; f < 30; ++f) {
            const Reconciliation& r = doc.reconciliations[f];
            const nlohmann::json& j = truth["families"][f];
            const GeneFamily& family = in.dataset->families[f];
            QCOMPARE(r.family, family.name);
            QCOMPARE(j["name"].get<std::string>(), family.name);
            checkReconciliation(r, doc.species, TransferConstraint::Parents);
            // The reconciliation's leaves are the family's genes.
            std::vector<std::string> leaves;
            for (const ReconNode& n : r.nodes)
                if (n.children.empty()) leaves.push_back(n.name);
            std::sort(leaves.begin(), leaves.end());
            QCOMPARE(leaves, family.clades.geneNames);
            QCOMPARE(j["genes"].get<long>(), long(leaves.size()));
            QCOMPARE(j["covered_species"].get<int>(), family.coveredSpecies);
            EventCounts c = countEvents(r);
            const nlohmann::json& events = j["events"];
            QCOMPARE(events["S"].get<long>(), c.S);
            QCOMPARE(events["SL"].get<long>(), c.SL);
            QCOMPARE(events["D"].get<long>(), c.D);
            QCOMPARE(events["T"].get<long>(), c.T);
            QCOMPARE(events["TL"].get<long>(), c.TL);
            QCOMPARE(events["Leaf"].get<long>(), c.Leaf);
            std::ostringstream expected;
            expected << family.name << ' ' << leaves.size() << ' ' << family.coveredSpecies << ' '
                     << j["origin_species"].get<std::string>() << ' ' << j["attempts"].get<int>() << ' '
                     << j["gene_trees"].get<int>() << ' ' << c.S << ' ' << c.SL << ' ' << c.D << ' ' << c.T
                     << ' ' << c.TL << ' ' << c.L << ' ' << c.Leaf << " |";
            QVERIFY2(countLines[f].rfind(expected.str(), 0) == 0, countLines[f].c_str());
            // The gene-tree file holds the true tree, or perturbed samples beside truth/true_trees.
            std::string trueTreeText = j["perturbed"].get<bool>()
                                           ? readTextFile(dir + "/truth/true_trees/" + family.name + ".nwk")
                                           : readTextFile(dir + "/gene_trees/" + family.name + ".nwk");
            NewickTree trueTree = parseNewick(trueTreeText, "true")[0];
            QCOMPARE(int(parseNewick(readTextFile(dir + "/gene_trees/" + family.name + ".nwk"), "g").size()),
                     j["gene_trees"].get<int>());
            QCOMPARE(int(trueTree.leaves().size()), int(leaves.size()));
            genes += long(leaves.size());
            perturbed += j["perturbed"].get<bool>();
        }
        QCOMPARE(summary.genes, genes);
        QVERIFY(perturbed > 0 && perturbed < 30); // sampledFraction 0.5
        QVERIFY(summary.events.D > 0 && summary.events.T > 0);
        // Per-species rates and per-family factors are written for the rate-recovery tests.
        RateParameters written = readModelParameters(dir + "/truth/rates.txt", doc.species, 1);
        QCOMPARE(written.rates(0).d, o.rates.d);
    }

    // RELDATED (undated process): transfers from e go only to nodes ranked after e's parent
    // (recipient sets by brute force, reference_model.hpp), and every such node is drawn.
    void relDatedTransfersFollowTheRanks() {
        const SpeciesTree species =
            SpeciesTree::fromNewick(parseNewick("((A:1,B:1)X:2,(C:1,D:1)Y:1)R;", "species")[0]);
        const int n = species.size();
        const auto R = referenceRecipients(species, TransferConstraint::RelDated);
        FamilySimulator simulator(species, TransferConstraint::RelDated, SimProcess::Undated, {});
        const std::vector<Rates> rates(n, Rates{0.05, 0.2, 0.6});
        std::vector<std::set<int>> drawn(n);
        RandomSource rng(7);
        for (int f = 0; f < 2000; ++f)
            for (const ReconNode& node : simulator.simulate("f", rates, rng).truth.nodes)
                for (const ReconEvent& ev : node.events)
                    if (ev.type == EventType::Transfer || ev.type == EventType::TransferLoss)
                        drawn[ev.species].insert(ev.recipient);
        for (int e = 0; e < n; ++e)
            QCOMPARE(std::vector<int>(drawn[e].begin(), drawn[e].end()), R[e]);
    }

    // The written species tree gives the ranks the simulation drew by (AleRax's rank lengths), and
    // the truth's transfers follow them.
    void relDatedDatasetKeepsItsRanks() {
        SimulationOptions o = smallDataset(SimProcess::Undated);
        o.transferConstraint = TransferConstraint::RelDated;
        const std::string dir = temporaryFolder("sim_reldated");
        runSimulation(o, dir);
        const SpeciesTree written = SpeciesTree::readFile(dir + "/species.nwk");
        RandomSource rng = RandomSource::stream(o.seed, 0); // the stream of the birth-death tree
        const SpeciesTree drawnOn = SpeciesTree::fromNewick(simulateBirthDeathTree(o.birthDeath, rng));
        QCOMPARE(readTextFile(dir + "/species.nwk"), drawnOn.toRankedNewick() + "\n");
        QCOMPARE(written.ranks(), drawnOn.ranks());
        const RecPhyloDocument doc = readRecPhyloXml(dir + "/truth/reconciliations.xml");
        const auto R = referenceRecipients(written, TransferConstraint::RelDated);
        long transfers = 0;
        for (const Reconciliation& r : doc.reconciliations)
            for (const ReconNode& node : r.nodes)
                for (const ReconEvent& ev : node.events)
                    if (ev.type == EventType::Transfer || ev.type == EventType::TransferLoss) {
                        QVERIFY(std::count(R[ev.species].begin(), R[ev.species].end(), ev.recipient) == 1);
                        ++transfers;
                    }
        QVERIFY(transfers > 0);
    }

    void datedTransfersAreContemporary() {
        SimulationOptions o = smallDataset(SimProcess::Dated);
        o.rates = {0.0, 0.2, 2.0};
        std::string dir = temporaryFolder("sim_dated");
        runSimulation(o, dir);
        SpeciesTree s = SpeciesTree::readFile(dir + "/species.nwk");
        std::vector<double> end(s.size());
        for (int e = s.size() - 1; e >= 0; --e)
            end[e] = (e == s.root() ? 0.0 : end[s.parent(e)]) + s.branchLength(e);
        auto begin = [&](int e) { return end[e] - s.branchLength(e); };
        long transfers = 0;
        for (const Reconciliation& r : readRecPhyloXml(dir + "/truth/reconciliations.xml").reconciliations)
            for (const ReconNode& n : r.nodes)
                for (const ReconEvent& ev : n.events)
                    if (ev.type == EventType::Transfer || ev.type == EventType::TransferLoss) {
                        ++transfers;
                        QVERIFY(begin(ev.recipient) < end[ev.species] &&
                                begin(ev.species) < end[ev.recipient]);
                    }
        QVERIFY(transfers > 10);
    }

    // The GPU benchmarks' second shape: hogenom-like's tree, rates and tree samples with half the
    // families, each covering at least 34 species (so several times larger); an unknown name is
    // refused with the list.
    void bigFamiliesPreset() {
        const SimulationOptions like = presetOptions("hogenom-like");
        SimulationOptions big = presetOptions("hogenom-big-families");
        QCOMPARE(big.families, like.families / 2);
        QCOMPARE(big.limits.minCoveredSpecies, 34);
        QCOMPARE(big.birthDeath.leaves, like.birthDeath.leaves);
        QCOMPARE(big.treeSamples, like.treeSamples);
        QCOMPARE(big.seed, like.seed);
        QVERIFY(std::find(presetNames().begin(), presetNames().end(), "hogenom-big-families") !=
                presetNames().end());
        // A few families of each: every big one covers 34 species, and they are larger.
        big.families = 12;
        big.treeSamples = 1;
        SimulationOptions small = like;
        small.families = 12;
        small.treeSamples = 1;
        const SimulationSummary bigRun = runSimulation(big, temporaryFolder("sim_big_families"));
        const SimulationSummary smallRun = runSimulation(small, temporaryFolder("sim_like_families"));
        QCOMPARE(bigRun.families, 12);
        QVERIFY2(bigRun.genes > 2 * smallRun.genes,
                 qPrintable(QString("%1 genes against %2").arg(bigRun.genes).arg(smallRun.genes)));
        InputPaths paths;
        paths.speciesTree = bigRun.speciesTreeFile;
        paths.familiesFile = bigRun.familiesFile;
        LoadOptions lo;
        lo.minCoveredSpecies = 34;
        QCOMPARE(static_cast<int>(loadInput(paths, TransferConstraint::Parents, lo).dataset->families.size()),
                 12);
        try {
            presetOptions("hogenom-huge");
            QFAIL("an unknown preset was accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY(QString(e.what()).contains("hogenom-big-families"));
        }
    }

    void birthDeathTree() {
        BirthDeathOptions o;
        o.leaves = 50;
        o.deathRate = 0.5;
        RandomSource rng(9);
        NewickTree tree = simulateBirthDeathTree(o, rng);
        SpeciesTree s = SpeciesTree::fromNewick(tree);
        QCOMPARE(s.leafCount(), 50);
        QCOMPARE(s.name(s.leaves().front()), std::string("S01"));
        std::vector<double> depth(s.size(), 0.0);
        for (int e = s.size() - 2; e >= 0; --e)
            depth[e] = depth[s.parent(e)] + s.branchLength(e);
        for (int leaf : s.leaves())
            QVERIFY(std::abs(depth[leaf] - depth[s.leaves().front()]) < 1e-9);
        RandomSource again(9);
        QCOMPARE(writeNewick(simulateBirthDeathTree(o, again)), writeNewick(tree));
    }

    void perturbationKeepsLeaves() {
        BirthDeathOptions bd;
        bd.leaves = 30;
        RandomSource rng(5);
        NewickTree tree = simulateBirthDeathTree(bd, rng);
        QCOMPARE(writeNewick(perturbTree(tree, {0.0, 0.3, 3}, rng)), writeNewick(tree));
        std::set<std::string> labels;
        for (int leaf : tree.leaves())
            labels.insert(tree.nodes[leaf].label);
        int changed = 0;
        for (int k = 0; k < 20; ++k) {
            NewickTree p = perturbTree(tree, {0.5, 0.5, 3}, rng);
            std::set<std::string> after;
            for (int leaf : p.leaves())
                after.insert(p.nodes[leaf].label);
            QVERIFY(after == labels);
            for (const NewickNode& n : p.nodes)
                QVERIFY(n.children.empty() || n.children.size() == 2);
            CladeSet a = buildCladeSet({tree}, GeneTreeRooting::Unrooted),
                     b = buildCladeSet({p}, GeneTreeRooting::Unrooted);
            CladeSet both = buildCladeSet({tree, p}, GeneTreeRooting::Unrooted);
            changed += both.cladeCount() > a.cladeCount();
            QCOMPARE(b.cladeCount(), a.cladeCount());
        }
        QVERIFY(changed >= 18);
    }

    void badParametersAreRefused_data() {
        QTest::addColumn<QString>("setting");
        QTest::addColumn<QString>("message");
        QTest::newRow("negative rate") << "l=-1"
                                       << "loss rate must be finite and >= 0, got -1";
        QTest::newRow("zero leaves") << "leaves=0"
                                     << "number of species leaves must be at least 2, got 0";
        QTest::newRow("death rate")
            << "death=2"
            << "death rate must be in [0, birth rate), got 2.000000 with birth rate 1.000000";
        QTest::newRow("no family") << "families=0"
                                   << "number of families must be at least 1, got 0";
        QTest::newRow("samples") << "samples=0"
                                 << "number of gene-tree samples must be at least 1, got 0";
        QTest::newRow("perturbation") << "perturbation=1.5"
                                      << "perturbation rate must be in [0, 1], got 1.500000";
        QTest::newRow("coverage")
            << "covered=9"
            << "minimum number of covered species (9) exceeds the number of species leaves (8)";
        QTest::newRow("survival")
            << "survival"
            << "family family1: none of 10 draws left genes in at least 8 species; the loss rate "
               "is too high for these rates (survival is too unlikely)";
        QTest::newRow("explosion")
            << "explosion"
            << "family family1: a draw made more than 1000 gene lineages; duplication and "
               "transfer rates are too high for the loss rate";
        // With a gene cap, a draw past the lineage limit with more genes than the cap is discarded
        // like any draw over the cap (the preset hogenom-big-families meets such draws).
        QTest::newRow("explosion past the gene cap")
            << "explosion capped"
            << "family family1: none of 10 draws left genes in at least 1 species and at most 20 genes";
        QTest::newRow("missing tree")
            << "tree"
            << "/nonexistent/species.nwk: cannot open file: No such file or directory";
    }
    void badParametersAreRefused() {
        QFETCH(QString, setting);
        QFETCH(QString, message);
        SimulationOptions o;
        o.birthDeath.leaves = 8;
        o.families = 1;
        if (setting == "l=-1") o.rates.l = -1;
        if (setting == "leaves=0") o.birthDeath.leaves = 0;
        if (setting == "death=2") o.birthDeath.deathRate = 2;
        if (setting == "families=0") o.families = 0;
        if (setting == "samples=0") o.treeSamples = 0;
        if (setting == "perturbation=1.5") o.perturbation.rate = 1.5;
        if (setting == "covered=9") o.limits.minCoveredSpecies = 9;
        if (setting == "survival") {
            o.rates = {0.0, 1000.0, 0.0};
            o.limits.minCoveredSpecies = 8;
            o.limits.maxAttempts = 10;
        }
        if (setting.startsWith("explosion")) {
            o.rates = {5.0, 0.001, 5.0};
            o.limits.maxLineages = 1000;
        }
        if (setting == "explosion capped") {
            o.limits.maxGenes = 20;
            o.limits.maxAttempts = 10;
        }
        if (setting == "tree") o.speciesTreePath = "/nonexistent/species.nwk";
        QCOMPARE(QString::fromStdString(errorOf(o)), message);
    }

    void commandLine() {
        std::string dir = temporaryFolder("sim_cli");
        QProcess p;
        p.start(GPUREC_CLI_PATH,
                {"simulate", "-o", QString::fromStdString(dir), "--species", "6", "--families", "5", "--seed",
                 "3", "--tree-samples", "3", "--perturbation-rate", "0.5"});
        QVERIFY(p.waitForFinished(60000));
        QString out = p.readAllStandardOutput();
        QCOMPARE(p.exitCode(), 0);
        QVERIFY2(out.contains(QRegularExpression(
                     "CCP totals \\(UNIFORM rooting\\): 5 families, \\d+ clades, \\d+ splits")),
                 qPrintable(out));
        QVERIFY(std::filesystem::exists(dir + "/truth/reconciliations.xml"));
        p.start(GPUREC_CLI_PATH, {"simulate", "-o", QString::fromStdString(dir), "--families", "5"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        QCOMPARE(QString(p.readAllStandardError()).trimmed(),
                 QString("gpurec: error: give a species tree (-s) or a number of species (--species)"));
    }
};

QTEST_GUILESS_MAIN(SimulatorTest)
#include "test_simulator.moc"
