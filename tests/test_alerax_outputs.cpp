// AleRax's reconciliation files worked out by hand on small samples: per-sample event counts,
// per-species counts (AleRax's columns), transfer lists, mean transfer tables in AleRax's sort
// order, origins and the majority-rule consensus gene tree; and the folder a sampling run writes.
#include "io/newick.hpp"
#include "recon/alerax_tables.hpp"
#include "recon/gene_consensus.hpp"
#include "recon/reconciliation_files.hpp"
#include "support.hpp"

#include <QtTest>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace gpurec;
using test::addNode;
using test::fileText;

namespace {

SpeciesTree fourSpecies() {
    return SpeciesTree::fromNewick(parseNewick("((A,B)AB,(C,D)CD)R;", "species").front());
}

// S at R; an SL at AB (B lost) then a duplication in A; a transfer from CD to B whose staying copy
// speciates at CD, where gene c2 comes back into C by a transfer-loss from D.
Reconciliation withEveryEvent(const SpeciesTree& s) {
    const int A = s.find("A"), B = s.find("B"), AB = s.find("AB"), C = s.find("C"), D = s.find("D"),
              CD = s.find("CD"), R = s.find("R");
    Reconciliation r;
    r.family = "fam";
    const int root = addNode(r, -1, {{EventType::Speciation, R}});
    const int dup = addNode(r, root, {{EventType::SpeciationLoss, AB}, {EventType::Duplication, A}});
    addNode(r, dup, {{EventType::Leaf, A}}, "a1");
    addNode(r, dup, {{EventType::Leaf, A}}, "a2");
    const int transfer = addNode(r, root, {{EventType::Transfer, CD, B}});
    const int staying = addNode(r, transfer, {{EventType::Speciation, CD}});
    addNode(r, staying, {{EventType::Leaf, C}}, "c1");
    addNode(r, staying, {{EventType::TransferLoss, D, C}, {EventType::Leaf, C}}, "c2");
    addNode(r, transfer, {{EventType::Leaf, B}}, "b1");
    r.originSpecies = R;
    return r;
}

// The same genes without transfers between CD and B: ((a1,a2),b1) at AB, (c1,c2) at CD.
Reconciliation speciationsOnly(const SpeciesTree& s) {
    const int A = s.find("A"), B = s.find("B"), AB = s.find("AB"), C = s.find("C"), D = s.find("D"),
              CD = s.find("CD"), R = s.find("R");
    Reconciliation r;
    r.family = "fam";
    const int root = addNode(r, -1, {{EventType::Speciation, R}});
    const int ab = addNode(r, root, {{EventType::Speciation, AB}});
    const int dup = addNode(r, ab, {{EventType::Duplication, A}});
    addNode(r, dup, {{EventType::Leaf, A}}, "a1");
    addNode(r, dup, {{EventType::Leaf, A}}, "a2");
    addNode(r, ab, {{EventType::Leaf, B}}, "b1");
    const int cd = addNode(r, root, {{EventType::Speciation, CD}});
    addNode(r, cd, {{EventType::Leaf, C}}, "c1");
    addNode(r, cd, {{EventType::TransferLoss, D, C}, {EventType::Leaf, C}}, "c2");
    r.originSpecies = R;
    return r;
}

} // namespace

class AleraxOutputs : public QObject {
    Q_OBJECT
  private slots:
    void deterministicOrderSortsLabelsAsBytes() {
        const SpeciesTree s = fourSpecies();
        std::vector<std::string> names;
        for (int e : deterministicSpeciesOrder(s))
            names.push_back(s.name(e));
        QCOMPARE(names, (std::vector<std::string>{"A", "AB", "B", "C", "CD", "D", "R"}));
    }

    void oneSampleFiles() {
        const SpeciesTree s = fourSpecies();
        const Reconciliation r = withEveryEvent(s);
        QCOMPARE(aleraxEventCounts(r), std::string("S:2\nSL:1\nD:1\nDL:0\nT:1\nTL:1\nL:0\nLeaf:5\n"));
        QCOMPARE(aleraxTransferEvents(r, s), std::string("CD B 1\nD C 1\n"));
        QCOMPARE(
            aleraxSpeciesEventCounts(speciesEventCounts(r, s), s),
            std::string("species_label, speciations, duplications, losses, transfers, presence, origination, "
                        "copies, singletons, transfers_to\n"
                        "A, 2, 1, 0, 0, 1, 0, 2, 0, 0\n"
                        "AB, 1, 0, 0, 0, 1, 0, 1, 1, 0\n"
                        "B, 1, 0, 1, 0, 1, 0, 1, 0, 1\n"
                        "C, 2, 0, 0, 0, 1, 0, 2, 1, 1\n"
                        "CD, 1, 0, 0, 1, 1, 0, 1, 0, 0\n"
                        "D, 0, 0, 1, 1, 0, 0, 0, 0, 0\n"
                        "R, 1, 0, 0, 0, 1, 1, 1, 0, 0\n"));
    }

    void meansTransfersAndOrigins() {
        const SpeciesTree s = fourSpecies();
        const std::vector<Reconciliation> samples = {withEveryEvent(s), speciationsOnly(s),
                                                     withEveryEvent(s)};
        const ReconciliationSummary summary = summarize(samples, s);
        QCOMPARE(aleraxTransferTable(summary.transfers, s), std::string("D C 1\nCD B 0.6666666666666666\n"));
        // Ties sort by decreasing deterministic id of the source, then of the destination.
        TransferCounts ties = {{{s.find("A"), s.find("B")}, 0.5},
                               {{s.find("B"), s.find("A")}, 0.5},
                               {{s.find("AB"), s.find("D")}, 0.5},
                               {{s.find("AB"), s.find("C")}, 0.5},
                               {{s.find("C"), s.find("D")}, 0.0}};
        QCOMPARE(aleraxTransferTable(ties, s), std::string("B A 0.5\nAB D 0.5\nAB C 0.5\nA B 0.5\n"));
        // B is entered vertically once per sample (the lost copy of the SL counts), and by a
        // transfer from CD in two samples of three.
        QCOMPARE(aleraxOrigins(summary, s, s.find("B")),
                 std::string("vertical: 1\nCD, 0.6666666666666666\n"));
        QCOMPARE(aleraxOrigins(summary, s, s.find("C")), std::string("vertical: 1\nD, 1\n"));
        QCOMPARE(aleraxOrigins(summary, s, s.find("R")), std::string("vertical: 0\n"));
        // Means over the three samples.
        const std::string mean = aleraxSpeciesEventCounts(summary.species, s);
        QVERIFY2(mean.find("\nA, 2, 1, 0, 0, 1, 0, 2, 0, 0\n") != std::string::npos, mean.c_str());
        QVERIFY2(mean.find("\nAB, 1, 0, 0, 0, 1, 0, 1, 1, 0\n") != std::string::npos, mean.c_str());
        QVERIFY2(mean.find(
                     "\nB, 1, 0, 0.6666666666666666, 0, 1, 0, 1, 0.3333333333333333, 0.6666666666666666\n") !=
                     std::string::npos,
                 mean.c_str());
    }

    void majorityConsensus() {
        const SpeciesTree s = fourSpecies();
        // Two samples: only the clades both hold; the rest is a polytomy at the root.
        QCOMPARE(majorityConsensusNewick({withEveryEvent(s), speciationsOnly(s)}),
                 std::string("((a1:0.1,a2:0.1)1:0.1,b1:0.1,(c1:0.1,c2:0.1)1:0.1);\n"));
        // Three samples: (b1,(c1,c2)) is in two of them.
        QCOMPARE(
            majorityConsensusNewick({withEveryEvent(s), speciationsOnly(s), withEveryEvent(s)}),
            std::string("((a1:0.1,a2:0.1)1:0.1,(b1:0.1,(c1:0.1,c2:0.1)1:0.1)0.6666666666666666:0.1);\n"));
        Reconciliation other = speciationsOnly(s);
        other.nodes[3].name = "x1";
        try {
            majorityConsensusNewick({withEveryEvent(s), other});
            QFAIL("samples with different genes were accepted");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(std::string(e.what()),
                     std::string("sampled gene trees of family 'fam' differ in gene 'x1'"));
        }
    }

    void folderLayout() {
        const SpeciesTree s = fourSpecies();
        const std::vector<Reconciliation> samples = {withEveryEvent(s), speciationsOnly(s)};
        const std::string dir = test::temporaryFolder("alerax_layout") + "/reconciliations";
        prepareReconciliationFolder(dir);
        ReconciliationSummary total;
        addFamily(total, writeFamilyReconciliations(dir, "fam", samples, s, {}));
        addFamily(total, writeFamilyReconciliations(dir, "fam2", {samples[0]}, s, {true, XmlLayout::Auto}));
        writeReconciliationTotals(dir, total, s);
        for (const char* f :
             {"all/fam_samples.newick", "all/fam_samples.alerec", "all/fam_sample_0.xml",
              "all/fam_sample_1.xml", "all/fam_eventCounts_1.txt", "all/fam_speciesEventCounts_1.txt",
              "all/fam_transfers_1.txt", "all/fam_eventCounts.csv", "all/fam_speciesEventCounts.csv",
              "all/fam2_samples.xml", "summaries/fam_consensus_50.newick",
              "summaries/fam_meanSpeciesEventCounts.txt", "summaries/fam_meanTransfers.txt",
              "totalSpeciesEventCounts.txt", "totalTransfers.txt", "origins/R.txt", "origins/AB.txt",
              "originations.csv"})
            QVERIFY2(std::filesystem::exists(dir + "/" + f), f);
        QVERIFY(!std::filesystem::exists(dir + "/all/fam2_sample_0.xml"));
        QCOMPARE(fileText(dir + "/all/fam_transfers_1.txt"), std::string("D C 1\n"));
        QCOMPARE(fileText(dir + "/summaries/fam_meanTransfers.txt"), std::string("D C 1\nCD B 0.5\n"));
        // Totals: the sum over families of their means.
        QCOMPARE(fileText(dir + "/totalTransfers.txt"), std::string("D C 2\nCD B 1.5\n"));
        QCOMPARE(fileText(dir + "/origins/B.txt"), std::string("vertical: 2\nCD, 1.5\n"));
        QCOMPARE(fileText(dir + "/all/fam2_samples.alerec"),
                 std::string("((a1:0,a2:0).AB.D@A:0,((c1:0,c2:0).CD:0,b1:0).T@CD->B:0).R;\n"));
        QCOMPARE(fileText(dir + "/all/fam2_samples.newick"),
                 std::string("((a1:0,a2:0)D:0,((c1:0,c2:0)S:0,b1:0)T:0)S;\n"));
    }
};

QTEST_APPLESS_MAIN(AleraxOutputs)
#include "test_alerax_outputs.moc"
