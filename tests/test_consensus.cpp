// Event supports and the consensus of sampled reconciliations on hand-built samples: events are
// matched by the genes below them whatever the order of the children, losses by where they
// happen, each event counts once per sample, and the consensus is the sample with the largest
// product of supports (the first among equals).
#include "recon/consensus.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>

using namespace gpurec;
using test::addNode;

namespace {
// Species nodes of a small tree: leaves 0, 1, 2 and internal nodes 3 = (0, 1), 4 = (3, 2).
// A speciation at 3 giving gene a in 0 and gene b in 1, children in the given order.
Reconciliation speciation(bool swapped) {
    Reconciliation r;
    const int root = addNode(r, -1, {{EventType::Speciation, 3}});
    if (swapped) {
        addNode(r, root, {{EventType::Leaf, 1}}, "b");
        addNode(r, root, {{EventType::Leaf, 0}}, "a");
    } else {
        addNode(r, root, {{EventType::Leaf, 0}}, "a");
        addNode(r, root, {{EventType::Leaf, 1}}, "b");
    }
    return r;
}

// A transfer from 0 to 1 (twice in a row on b's branch when `twice`).
Reconciliation transfer(bool twice) {
    Reconciliation r;
    const int root = addNode(r, -1, {{EventType::Transfer, 0, 1}});
    addNode(r, root, {{EventType::Leaf, 0}}, "a");
    std::vector<ReconEvent> b = {{EventType::Leaf, 1}};
    if (twice) b.insert(b.begin(), {EventType::TransferLoss, 0, 1});
    addNode(r, root, b, "b");
    return r;
}

// A speciation-loss written as RecPhyloXML does: a speciation at 4 with an explicit loss child in 2
// and the lineage going on in 3 (nodes: 0 root, 1 the speciation at 3, 2 gene a, 3 gene b, 4 the loss).
Reconciliation withLossNode() {
    Reconciliation r;
    const int root = addNode(r, -1, {{EventType::Speciation, 4}});
    const int inner = addNode(r, root, {{EventType::Speciation, 3}});
    addNode(r, inner, {{EventType::Leaf, 0}}, "a");
    addNode(r, inner, {{EventType::Leaf, 1}}, "b");
    addNode(r, root, {{EventType::Loss, 2}});
    return r;
}
} // namespace

class Consensus : public QObject {
    Q_OBJECT
  private slots:
    void supportsMatchEventsAcrossSamples() {
        const std::vector<Reconciliation> samples = {speciation(false), transfer(true), speciation(true)};
        const std::map<EventKey, double> support = eventSupport(samples);
        const auto keys0 = eventKeys(samples[0]), keys2 = eventKeys(samples[2]);
        // The same speciation whatever the order of the children; the leaves in every sample.
        QCOMPARE(keys0[0][0], keys2[0][0]);
        QCOMPARE(support.at(keys0[0][0]), 2.0 / 3.0);
        QCOMPARE(support.at(keys0[1][0]), 1.0);
        QCOMPARE(support.at(keys0[2][0]), 1.0);
        QCOMPARE(keys0[1][0], keys2[2][0]); // gene a
        // The transfer of the root and the transfer-loss on b's branch are different events.
        const auto keys1 = eventKeys(samples[1]);
        QVERIFY(keys1[0][0] != keys1[2][0]);
        QCOMPARE(support.at(keys1[0][0]), 1.0 / 3.0);
        QCOMPARE(support.at(keys1[2][0]), 1.0 / 3.0);
        QCOMPARE(keys1[2][1], keys0[2][0]);       // gene b's leaf, after the transfer-loss or not
        QCOMPARE(support.size(), std::size_t(5)); // S, T, TL and the two genes
    }

    void lossesAreKeyedWhereTheyHappen() {
        const Reconciliation r = withLossNode();
        const auto keys = eventKeys(r);
        QCOMPARE(keys[4][0].genes, keys[0][0].genes); // the loss happens on the root's lineage
        QCOMPARE(keys[4][0].type, EventType::Loss);
        QCOMPARE(keys[4][0].species, 2);
        const std::map<EventKey, double> support = eventSupport({r, speciation(false)});
        QCOMPARE(support.at(keys[4][0]), 0.5);
        QCOMPARE(support.at(keys[0][0]), 0.5);
        QCOMPARE(support.at(keys[1][0]), 1.0); // the speciation at 3 of genes a and b, in both
    }

    void consensusIsTheBestSupportedSample() {
        // S in 3 of 5 samples, T in 2, TL in 1: the first speciation wins (samples 3 and 4 tie with it).
        const std::vector<Reconciliation> samples = {transfer(true), speciation(true), transfer(false),
                                                     speciation(false), speciation(false)};
        const ConsensusReconciliation c = consensusReconciliation(samples);
        QCOMPARE(c.sample, 1);
        QCOMPARE(c.support.size(), samples[1].nodes.size());
        QCOMPARE(c.support[0], std::vector<double>{0.6});
        QCOMPARE(c.support[1], std::vector<double>{1.0});
        QCOMPARE(c.support[2], std::vector<double>{1.0});
        // Without the speciations, the plain transfer beats the one followed by a transfer-loss.
        QCOMPARE(consensusReconciliation({transfer(true), transfer(false)}).sample, 1);
        QCOMPARE(consensusReconciliation({transfer(true), transfer(false)}).support[2],
                 (std::vector<double>{1.0}));
        QCOMPARE(consensusReconciliation({}).sample, -1);
    }

    void transferFrequencyCountsSamplesNotTransfers() {
        const std::vector<Reconciliation> samples = {transfer(true), speciation(false), transfer(false)};
        QCOMPARE(transferSampleFrequency(samples, 0, 1), 2.0 / 3.0);
        QCOMPARE(transferSampleFrequency(samples, 1, 0), 0.0);
        QCOMPARE(transferSampleFrequency({}, 0, 1), 0.0);
    }
};

QTEST_MAIN(Consensus)
#include "test_consensus.moc"
