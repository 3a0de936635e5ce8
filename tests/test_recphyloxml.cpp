// RecPhyloXML: the exact layout written for SL/TL (AleRax's intermediate NULL clades), round trips
// of reconciliations with every event type, the older tags, and located errors on bad input.
#include "io/input_error.hpp"
#include "recon/recphyloxml.hpp"
#include "support.hpp"

#include <QtTest>

using namespace gpurec;
using namespace gpurec::test;

namespace {

SpeciesTree tinySpecies() {
    return SpeciesTree::fromNewick(parseNewick("((A:1,B:2)AB:0.5,C:3)R;", "tiny")[0]);
}

// Every event type: S at the root, SL then T, TL after a transfer, D with an explicit loss.
Reconciliation richReconciliation(const SpeciesTree& s) {
    int A = s.find("A"), B = s.find("B"), AB = s.find("AB"), C = s.find("C"), R = s.find("R");
    Reconciliation r;
    r.family = "fam1";
    r.originSpecies = R;
    int root = addNode(r, -1, {{EventType::Speciation, R}});
    int t = addNode(r, root, {{EventType::SpeciationLoss, AB}, {EventType::Transfer, A, C}});
    addNode(r, t, {{EventType::Leaf, A}}, "A_1");
    addNode(r, t, {{EventType::TransferLoss, C, B}, {EventType::Leaf, B}}, "B_1");
    int d = addNode(r, root, {{EventType::Duplication, C}});
    addNode(r, d, {{EventType::Leaf, C}}, "C_1");
    addNode(r, d, {{EventType::Loss, C}});
    r.nodes[1].branchLength = 0.25;
    return r;
}

void compareReconciliations(const Reconciliation& got, const Reconciliation& want) {
    QCOMPARE(got.family, want.family);
    QCOMPARE(got.root, want.root);
    QCOMPARE(got.originSpecies, want.originSpecies);
    QCOMPARE(got.nodes.size(), want.nodes.size());
    for (std::size_t i = 0; i < want.nodes.size(); ++i) {
        const ReconNode &g = got.nodes[i], &w = want.nodes[i];
        QCOMPARE(g.name, w.name);
        QCOMPARE(g.parent, w.parent);
        QCOMPARE(g.children, w.children);
        QCOMPARE(g.branchLength, w.branchLength);
        QCOMPARE(g.events.size(), w.events.size());
        for (std::size_t k = 0; k < w.events.size(); ++k) {
            QCOMPARE(eventName(g.events[k].type), eventName(w.events[k].type));
            QCOMPARE(g.events[k].species, w.events[k].species);
            QCOMPARE(g.events[k].recipient, w.events[k].recipient);
        }
    }
}

std::string expectError(const std::string& xml) {
    try {
        parseRecPhyloXml(xml, "bad.xml");
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

const char* kHeader =
    "<recPhylo><spTree><phylogeny><clade><name>R</name>"
    "<clade><name>AB</name><clade><name>A</name></clade><clade><name>B</name></clade></clade>"
    "<clade><name>C</name></clade></clade></phylogeny></spTree>\n";

} // namespace

class RecPhyloXmlTest : public QObject {
    Q_OBJECT

  private slots:
    void speciationLossLayout() {
        SpeciesTree s = tinySpecies();
        Reconciliation r;
        r.family = "f";
        addNode(r, -1, {{EventType::SpeciationLoss, s.find("AB")}, {EventType::Leaf, s.find("B")}}, "B_1");
        std::string xml = toRecPhyloXml(s, {r});
        const std::string expected = R"(<recGeneTree>
    <phylogeny rooted="true">
      <name>f</name>
      <clade>
        <name>NULL</name>
        <eventsRec>
          <speciation speciesLocation="AB" />
        </eventsRec>
        <clade>
          <name>loss</name>
          <eventsRec>
            <loss speciesLocation="A" />
          </eventsRec>
        </clade>
        <clade>
          <name>B_1</name>
          <eventsRec>
            <leaf speciesLocation="B" />
          </eventsRec>
        </clade>
      </clade>
    </phylogeny>
  </recGeneTree>)";
        QVERIFY2(xml.find(expected) != std::string::npos, xml.c_str());
        QVERIFY(xml.find("<recPhylo xmlns:xsi=") != std::string::npos);
        QVERIFY(xml.find("<name>AB</name>\n          <branch_length>0.5</branch_length>") !=
                std::string::npos);
    }

    void roundTripEveryEvent() {
        SpeciesTree s = tinySpecies();
        Reconciliation rich = richReconciliation(s);
        Reconciliation leafOnly;
        addNode(leafOnly, -1, {{EventType::Leaf, s.find("C")}}, "C_7");
        leafOnly.originSpecies = s.find("C");
        std::string dir = temporaryFolder("recphyloxml");
        writeRecPhyloXml(dir + "/r.xml", s, {rich, leafOnly});
        RecPhyloDocument doc = readRecPhyloXml(dir + "/r.xml");
        QCOMPARE(doc.species.toNewick(), s.toNewick());
        QCOMPARE(doc.species.size(), 5);
        QCOMPARE(doc.reconciliations.size(), std::size_t(2));
        compareReconciliations(doc.reconciliations[0], rich);
        compareReconciliations(doc.reconciliations[1], leafOnly);
        EventCounts c = countEvents(doc.reconciliations[0]);
        QCOMPARE(c.S, 1L);
        QCOMPARE(c.SL, 1L);
        QCOMPARE(c.T, 1L);
        QCOMPARE(c.TL, 1L);
        QCOMPARE(c.D, 1L);
        QCOMPARE(c.Leaf, 3L);
        // Writing the read document again gives the same bytes.
        QCOMPARE(toRecPhyloXml(doc.species, doc.reconciliations), toRecPhyloXml(s, {rich, leafOnly}));
    }

    void olderTagsAndPrefixes() {
        // speciationLoss / speciationOutLoss + transferBack inside one eventsRec, speciationOut as a
        // transfer, and namespace-prefixed element names.
        std::string xml =
            std::string(kHeader) +
            "<recGeneTree><phylogeny><clade><name>x</name><eventsRec>"
            "<speciationLoss speciesLocation='R'/><speciationOut speciesLocation='AB'/></eventsRec>"
            "<clade><name>B_1</name><eventsRec><speciationLoss speciesLocation='AB'/>"
            "<leaf speciesLocation='B'/></eventsRec></clade>"
            "<clade><name>C_1</name><eventsRec><transferBack destinationSpecies='C'/>"
            "<speciationOutLoss speciesLocation='C'/><transferBack destinationSpecies='A'/>"
            "<r:leaf speciesLocation='A'/></eventsRec></clade>"
            "</clade></phylogeny></recGeneTree></recPhylo>";
        RecPhyloDocument doc = parseRecPhyloXml(xml, "old.xml");
        QCOMPARE(doc.reconciliations.size(), std::size_t(1));
        const Reconciliation& r = doc.reconciliations[0];
        const SpeciesTree& s = doc.species;
        QCOMPARE(r.nodes.size(), std::size_t(3));
        QCOMPARE(r.nodes[0].name, std::string("x"));
        QCOMPARE(r.nodes[0].events.size(), std::size_t(2));
        QCOMPARE(r.nodes[0].events[0].type, EventType::SpeciationLoss);
        QCOMPARE(r.nodes[0].events[1].type, EventType::Transfer);
        QCOMPARE(r.nodes[0].events[1].recipient, s.find("C"));
        QCOMPARE(r.nodes[2].events.size(), std::size_t(2));
        QCOMPARE(r.nodes[2].events[0].type, EventType::TransferLoss);
        QCOMPARE(r.nodes[2].events[0].species, s.find("C"));
        QCOMPARE(r.nodes[2].events[0].recipient, s.find("A"));
        QCOMPARE(r.originSpecies, s.find("R"));
    }

    void errorsAreLocated_data() {
        QTest::addColumn<QString>("xml");
        QTest::addColumn<QString>("message");
        QTest::newRow("not xml") << "<recPhylo><spTree>"
                                 << "bad.xml:1:18: not well-formed XML: Start-end tags mismatch";
        QTest::newRow("root") << "<phylogeny/>"
                              << "bad.xml:1:1: the document element must be <recPhylo>";
        QTest::newRow("no species tree") << "<recPhylo>\n<x/></recPhylo>"
                                         << "bad.xml:1:1: <recPhylo> has no <spTree>";
        QTest::newRow("unknown species")
            << QString(kHeader) +
                   "<recGeneTree><phylogeny><clade><name>a</name><eventsRec>\n"
                   "  <leaf speciesLocation='Z'/></eventsRec></clade></phylogeny></recGeneTree></recPhylo>"
            << "bad.xml:3:3: unknown species 'Z' in <leaf>";
        QTest::newRow("unsupported event")
            << QString(kHeader) + "<recGeneTree><phylogeny><clade><name>a</name><eventsRec>"
                                  "<bifurcationOut/></eventsRec></clade></phylogeny></recGeneTree></recPhylo>"
            << "bad.xml:2:57: unsupported event <bifurcationOut>";
        QTest::newRow("event order") << QString(kHeader) +
                                            "<recGeneTree><phylogeny><clade><name>a</name><eventsRec>"
                                            "<leaf speciesLocation='A'/><speciationLoss speciesLocation='R'/>"
                                            "</eventsRec></clade></phylogeny></recGeneTree></recPhylo>"
                                     << "bad.xml:2:46: the last event of a clade must be leaf, speciation, "
                                        "duplication, branchingOut or loss";
        QTest::newRow("leaf with children")
            << QString(kHeader) +
                   "<recGeneTree><phylogeny><clade><name>a</name><eventsRec>"
                   "<leaf speciesLocation='A'/></eventsRec><clade/></clade></phylogeny></recGeneTree>"
                   "</recPhylo>"
            << "bad.xml:2:25: a clade ending with <leaf> has 1 child clades";
        // Transfers leave their species, and the lineages go on where the events say.
        const QString gene = QString(kHeader) + "<recGeneTree><phylogeny><clade><name>a</name><eventsRec>\n";
        const QString end = "</phylogeny></recGeneTree></recPhylo>";
        QTest::newRow("transfer-loss to its own species")
            << gene +
                   "<speciationOutLoss speciesLocation='A'/><transferBack destinationSpecies='A'/>"
                   "<leaf speciesLocation='A'/></eventsRec></clade>" +
                   end
            << "bad.xml:3:41: a transfer must leave its species: <speciationOutLoss> in 'A' is followed by "
               "<transferBack> to it";
        QTest::newRow("arrival elsewhere")
            << gene +
                   "<speciationOutLoss speciesLocation='A'/><transferBack destinationSpecies='C'/>"
                   "<leaf speciesLocation='B'/></eventsRec></clade>" +
                   end
            << "bad.xml:3:79: the lineage transferred to 'C' (<transferBack>) goes on in 'B'";
        QTest::newRow("transferBack mid-branch")
            << gene +
                   "<speciationLoss speciesLocation='R'/><transferBack destinationSpecies='C'/>"
                   "<leaf speciesLocation='C'/></eventsRec></clade>" +
                   end
            << "bad.xml:3:38: a <transferBack> must open its clade or follow a <speciationOutLoss>";
        const QString transfer = gene + "<branchingOut speciesLocation='A'/></eventsRec>\n";
        QTest::newRow("transfer to its own species")
            << transfer +
                   "<clade><name>x</name><eventsRec><leaf speciesLocation='A'/></eventsRec></clade>\n"
                   "<clade><name>y</name><eventsRec><transferBack destinationSpecies='A'/>"
                   "<leaf speciesLocation='A'/></eventsRec></clade></clade>" +
                   end
            << "bad.xml:5:1: a transfer must leave its species: <branchingOut> in 'A' has its "
               "<transferBack> to it";
        QTest::newRow("both children transferred")
            << transfer +
                   "<clade><name>x</name><eventsRec><transferBack destinationSpecies='B'/>"
                   "<leaf speciesLocation='B'/></eventsRec></clade>\n"
                   "<clade><name>y</name><eventsRec><transferBack destinationSpecies='C'/>"
                   "<leaf speciesLocation='C'/></eventsRec></clade></clade>" +
                   end
            << "bad.xml:2:25: a transfer (branchingOut) with both child clades starting with <transferBack>";
        QTest::newRow("staying lineage elsewhere")
            << transfer +
                   "<clade><name>x</name><eventsRec><leaf speciesLocation='B'/></eventsRec></clade>\n"
                   "<clade><name>y</name><eventsRec><transferBack destinationSpecies='C'/>"
                   "<leaf speciesLocation='C'/></eventsRec></clade></clade>" +
                   end
            << "bad.xml:4:1: the lineage staying at the <branchingOut> in 'A' goes on in 'B'";
        QTest::newRow("arrival under a speciation")
            << gene +
                   "<speciation speciesLocation='AB'/></eventsRec>\n"
                   "<clade><name>x</name><eventsRec><leaf speciesLocation='A'/></eventsRec></clade>\n"
                   "<clade><name>y</name><eventsRec><transferBack destinationSpecies='B'/>"
                   "<leaf speciesLocation='B'/></eventsRec></clade></clade>" +
                   end
            << "bad.xml:2:25: a child clade starts with <transferBack>, but only a <branchingOut> sends a "
               "gene "
               "to another species";
        QTest::newRow("arrival at the root")
            << gene +
                   "<transferBack destinationSpecies='A'/><leaf speciesLocation='A'/></eventsRec></clade>" +
                   end
            << "bad.xml:2:25: a gene tree's root clade starts with <transferBack>: it arrives from nowhere";
    }
    void errorsAreLocated() {
        QFETCH(QString, xml);
        QFETCH(QString, message);
        QCOMPARE(QString::fromStdString(expectError(xml.toStdString())), message);
    }

    void inconsistentReconciliationIsRefused() {
        SpeciesTree s = tinySpecies();
        Reconciliation r;
        r.family = "bad";
        addNode(r, -1, {{EventType::Duplication, s.find("A")}}); // a duplication without children
        try {
            toRecPhyloXml(s, {r});
            QFAIL("no error");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(
                std::string(e.what()),
                std::string("reconciliation of family 'bad' has a gene node with event D and 0 children"));
        }
    }
};

QTEST_GUILESS_MAIN(RecPhyloXmlTest)
#include "test_recphyloxml.moc"
