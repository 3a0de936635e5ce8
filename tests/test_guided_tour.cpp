// Teaching: the guided tour's examples (core/teaching/guided_tour) — the clearest event of each kind
// in the true reconciliations, from the smallest family — on hand-built truths with known answers
// and on the teaching sample's truth, checked against the event counts its truth.json lists.
#include "recon/recphyloxml.hpp"
#include "sim/simulation.hpp"
#include "support.hpp"
#include "teaching/guided_tour.hpp"

#include <QtTest>
#include <map>

using namespace gpurec;
using namespace gpurec::test;

namespace {

SpeciesTree species() {
    return SpeciesTree::fromNewick(parseNewick("((A:1,B:1)AB:1,C:1)R;", "tour")[0]);
}

// A speciation at R whose C child is the given subtree; `extra` more leaves under AB make it larger.
Reconciliation family(const std::string& name, const SpeciesTree& s, EventType cEvent, int extra) {
    const int A = s.find("A"), B = s.find("B"), AB = s.find("AB"), C = s.find("C"), R = s.find("R");
    Reconciliation r;
    r.family = name;
    r.originSpecies = R;
    const int root = addNode(r, -1, {{EventType::Speciation, R}});
    int ab = addNode(r, root, {{EventType::Speciation, AB}});
    addNode(r, ab, {{EventType::Leaf, A}}, name + "_a");
    for (int k = 0; k < extra; ++k) { // duplications in B
        const int d = addNode(r, ab, {{EventType::Duplication, B}});
        addNode(r, d, {{EventType::Leaf, B}}, name + "_b" + std::to_string(k));
        ab = d;
    }
    addNode(r, ab, {{EventType::Leaf, B}}, name + "_b");
    if (cEvent == EventType::Duplication) {
        const int d = addNode(r, root, {{EventType::Duplication, C}});
        addNode(r, d, {{EventType::Leaf, C}}, name + "_c1");
        addNode(r, d, {{EventType::Leaf, C}}, name + "_c2");
    } else if (cEvent == EventType::Transfer) {
        const int t = addNode(r, root, {{EventType::Transfer, C, A}});
        addNode(r, t, {{EventType::Leaf, C}}, name + "_c");
        addNode(r, t, {{EventType::Leaf, A}}, name + "_ta");
    } else if (cEvent == EventType::TransferLoss) {
        addNode(r, root, {{EventType::TransferLoss, C, A}, {EventType::Leaf, A}}, name + "_ta");
    } else {
        addNode(r, root, {{EventType::Leaf, C}}, name + "_c");
    }
    return r;
}

// The copy in B is lost at AB's speciation (SL); the one in A duplicates twice.
Reconciliation speciationLossFamily(const SpeciesTree& s) {
    const int A = s.find("A"), AB = s.find("AB"), C = s.find("C"), R = s.find("R");
    Reconciliation r;
    r.family = "sl";
    r.originSpecies = R;
    const int root = addNode(r, -1, {{EventType::Speciation, R}});
    const int d = addNode(r, root, {{EventType::SpeciationLoss, AB}, {EventType::Duplication, A}});
    addNode(r, d, {{EventType::Leaf, A}}, "a1");
    const int d2 = addNode(r, d, {{EventType::Duplication, A}});
    addNode(r, d2, {{EventType::Leaf, A}}, "a2");
    addNode(r, d2, {{EventType::Leaf, A}}, "a3");
    addNode(r, root, {{EventType::Leaf, C}}, "c");
    return r;
}

const TourExample* exampleOf(const std::vector<TourExample>& examples, TourTopic topic) {
    for (const TourExample& e : examples)
        if (e.topic == topic) return &e;
    return nullptr;
}

} // namespace

class TestGuidedTour : public QObject {
    Q_OBJECT
  private slots:
    void choosesTheClearestEventInTheSmallestFamily() {
        const SpeciesTree s = species();
        std::vector<Reconciliation> truths = {
            family("big_dup", s, EventType::Duplication, 3),   // D in C, three more D in B
            family("small_dup", s, EventType::Duplication, 0), // D in C only
            family("tl_only", s, EventType::TransferLoss, 0),
            family("big_transfer", s, EventType::Transfer, 2),
        };
        const auto all = [](const std::string&) { return true; };
        std::vector<TourExample> examples = chooseTourExamples(truths, all);
        QCOMPARE(examples.size(), std::size_t(3));
        QVERIFY(examples[0].topic == TourTopic::Duplication && examples[1].topic == TourTopic::Transfer &&
                examples[2].topic == TourTopic::Loss);
        // The smallest family with a duplication.
        QCOMPARE(truths[examples[0].reconciliation].family, std::string("small_dup"));
        QVERIFY(examples[0].what.type == EventType::Duplication);
        QCOMPARE(examples[0].what.species, s.find("C"));
        // A plain transfer beats a transfer-loss, even in a larger family.
        QCOMPARE(truths[examples[1].reconciliation].family, std::string("big_transfer"));
        QVERIFY(examples[1].what.type == EventType::Transfer);
        QCOMPARE(examples[1].what.recipient, s.find("A"));
        // No SL anywhere: the loss is the TL's.
        QCOMPARE(truths[examples[2].reconciliation].family, std::string("tl_only"));
        QVERIFY(examples[2].what.type == EventType::TransferLoss);
        // The example points at the event it describes.
        for (const TourExample& e : examples)
            QVERIFY(truths[e.reconciliation].nodes[e.node].events[e.event] == e.what);

        // An SL beats a TL as the example of a loss, in a larger family too.
        truths.push_back(speciationLossFamily(s));
        QVERIFY(truths.back().nodes.size() > truths[2].nodes.size());
        examples = chooseTourExamples(truths, all);
        const TourExample* loss = exampleOf(examples, TourTopic::Loss);
        QCOMPARE(truths[loss->reconciliation].family, std::string("sl"));
        QVERIFY(loss->what.type == EventType::SpeciationLoss);
        QCOMPARE(loss->what.species, s.find("AB"));
        QCOMPARE(loss->node, 1);
        QCOMPARE(loss->event, 0);
        QCOMPARE(truths[exampleOf(examples, TourTopic::Duplication)->reconciliation].family,
                 std::string("small_dup")); // as small as sl's, and first

        // Families the dataset did not load are skipped.
        examples =
            chooseTourExamples(truths, [](const std::string& f) { return f != "small_dup" && f != "sl"; });
        QCOMPARE(truths[exampleOf(examples, TourTopic::Duplication)->reconciliation].family,
                 std::string("big_transfer")); // two duplications in B, smaller than big_dup
        // Nothing to show: no examples.
        QVERIFY(chooseTourExamples({family("plain", s, EventType::Leaf, 0)}, all).empty());
        QVERIFY(chooseTourExamples(truths, [](const std::string&) { return false; }).empty());
    }

    void teachingSampleHasOneExampleOfEachEvent() {
        const std::string folder = sourcePath("samples/teaching");
        const RecPhyloDocument truth = readRecPhyloXml(truthReconciliationsPath(folder));
        const nlohmann::json counts = readJson(folder + "/truth/truth.json");
        std::map<std::string, nlohmann::json> events;
        for (const nlohmann::json& f : counts["families"])
            events[f["name"].get<std::string>()] = f["events"];
        QCOMPARE(truth.reconciliations.size(), events.size());
        const std::vector<TourExample> examples =
            chooseTourExamples(truth.reconciliations, [](const std::string&) { return true; });
        QCOMPARE(examples.size(), std::size_t(3));
        const std::map<TourTopic, std::vector<std::string>> counted = {
            {TourTopic::Duplication, {"D"}}, {TourTopic::Transfer, {"T"}}, {TourTopic::Loss, {"SL"}}};
        for (const TourExample& e : examples) {
            const Reconciliation& r = truth.reconciliations[e.reconciliation];
            QVERIFY(r.nodes[e.node].events[e.event] == e.what);
            // The simulator's own count of that event in this family is at least one, and no family
            // with one is smaller.
            const std::string key = counted.at(e.topic).front();
            QVERIFY2(events[r.family][key].get<int>() >= 1, r.family.c_str());
            for (const Reconciliation& other : truth.reconciliations)
                if (events[other.family][key].get<int>() >= 1) QVERIFY(other.nodes.size() >= r.nodes.size());
            QVERIFY(e.what.species >= 0 && e.what.species < truth.species.size());
        }
        QCOMPARE(std::string(tourTopicName(examples[2].topic)), std::string("loss"));
    }
};

QTEST_APPLESS_MAIN(TestGuidedTour)
#include "test_guided_tour.moc"
