// The teaching story of a sampled reconciliation: it retells exactly the samples sampleFamilies
// draws (and so `gpurec sample`) with the same seed, its steps build the reconciliation event by
// event, and on the tiny example the probability of every alternative at every draw matches the
// model's terms written from the independent reference's Π, E and Ē (../shared/data/tiny).
#include "recon/backtrack_story.hpp"
#include "recon/sampling_run.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>

using namespace gpurec;
using namespace gpurec::test;

namespace {

// The steps rebuild the reconciliation: each Event draw's outcome is the event at its place, each
// Recipient draw's outcome the event's recipient, and every recorded event has its draw.
void checkStepsBuild(const BacktrackStory& story) {
    const Reconciliation& r = story.reconciliation;
    QVERIFY(!story.steps.empty());
    QVERIFY(story.steps.front().draw == StoryDraw::Origin);
    QCOMPARE(story.steps.front().outcome().species, r.originSpecies);
    std::size_t events = 0;
    for (const ReconNode& n : r.nodes)
        events += n.events.size();
    std::size_t eventDraws = 0;
    for (std::size_t i = 0; i < story.steps.size(); ++i) {
        const StoryStep& step = story.steps[i];
        double sum = 0;
        for (const StoryAlternative& a : step.alternatives) {
            QVERIFY(a.probability > 0);
            sum += a.probability;
        }
        QVERIFY2(std::abs(sum - 1) < 1e-12,
                 qPrintable(QString("step %1: probabilities sum to %2").arg(i).arg(sum)));
        QVERIFY(step.chosen >= 0 && step.chosen < static_cast<int>(step.alternatives.size()));
        if (step.draw == StoryDraw::Origin) {
            QCOMPARE(i, std::size_t(0));
            continue;
        }
        const ReconEvent& ev = r.nodes.at(step.node).events.at(step.event);
        QCOMPARE(ev.species, step.species);
        if (step.draw == StoryDraw::Event) {
            ++eventDraws;
            QVERIFY(ev.type == step.outcome().event);
            QCOMPARE(r.nodes[step.node].clade, step.clade);
            const bool needsRecipient = ev.type == EventType::Transfer || ev.type == EventType::TransferLoss;
            QCOMPARE(i + 1 < story.steps.size() && story.steps[i + 1].draw == StoryDraw::Recipient,
                     needsRecipient);
        } else {
            QCOMPARE(ev.recipient, step.outcome().species);
            QCOMPARE(story.steps[i - 1].node, step.node);
            QCOMPARE(story.steps[i - 1].event, step.event);
        }
    }
    QCOMPARE(eventDraws, events);
}

} // namespace

class BacktrackStoryTest : public QObject {
    Q_OBJECT

  private slots:
    void retellsTheSamplesOfTheSamplingRun() {
        LoadedInput in = loadShared("simulated_2", "species.nwk");
        const Dataset& data = *in.dataset;
        RateParameters theta(RateMode::Global, data.species.size(), int(data.families.size()),
                             {0.05, 0.1, 0.05});
        SamplingSettings settings;
        settings.samples = 6;
        settings.seed = 11;
        std::map<int, std::vector<Reconciliation>> sampled;
        std::mutex m;
        sampleFamilies(
            data, theta, {0, 1, 2}, settings,
            [&](FamilySamples&& fs) {
                std::lock_guard lock(m);
                sampled[fs.family] = std::move(fs.reconciliations);
            },
            cpuTables(in.dataset, theta, settings));
        QCOMPARE(sampled.size(), std::size_t(3));
        const SpeciesLayout layout(data);
        const std::vector<FamilyTables> tables =
            makeCpuBackend(in.dataset)->familyTables(theta, settings.solver, {0, 1, 2});
        int transfers = 0;
        for (int f = 0; f < 3; ++f) {
            for (int k = 0; k < settings.samples; ++k) {
                const BacktrackStory story =
                    tellSample(layout, data.families[f], tables[f], settings.seed, k);
                QVERIFY2(story.reconciliation == sampled[f][k],
                         qPrintable(QString("family %1, sample %2 retold differently").arg(f).arg(k)));
                checkStepsBuild(story);
                if (QTest::currentTestFailed()) return;
                for (const StoryStep& s : story.steps)
                    transfers += s.draw == StoryDraw::Recipient;
            }
        }
        QVERIFY(transfers > 0); // the recipient draws are exercised
        // Another seed tells another story; a negative index is refused.
        const BacktrackStory other = tellSample(layout, data.families[0], tables[0], settings.seed + 1, 0);
        QVERIFY(!(other.reconciliation == sampled[0][0]));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 tellSample(layout, data.families[0], tables[0], 1, -1));
    }

    void tinyAlternativesMatchTheReference() {
        const nlohmann::json ref = readJson(sharedData("tiny/reference.json"));
        const nlohmann::json& res = ref["results"]["converged"];
        LoadedInput in = loadShared("tiny", "species.nwk", 3);
        const Dataset& data = *in.dataset;
        const RateParameters theta(RateMode::Global, data.species.size(), 1,
                                   {ref["rates"]["D"], ref["rates"]["L"], ref["rates"]["T"]});
        const FamilyTables tables =
            makeCpuBackend(in.dataset)->familyTables(theta, SolverOptions{}, {0}).front();
        const SpeciesLayout layout(data);
        QVERIFY(data.transferConstraint == TransferConstraint::Parents);
        const GeneFamily& family = data.families[0];
        const CladeSet& cs = family.clades;
        const int n = data.species.size();
        // The reference's numbers: Π per clade, E, Ē, and Π̄ as the mean of Π over the recipients.
        std::vector<std::vector<double>> pi(cs.cladeCount()), pibar(cs.cladeCount());
        auto recipient = [&](int donor, int h) {
            return h != donor && !data.species.isAncestorOrSelf(h, donor);
        };
        for (int c = 0; c < cs.cladeCount(); ++c) {
            pi[c] = res["Pi"][referenceCladeName(cs, c)].get<std::vector<double>>();
            pibar[c].assign(n, 0.0);
            for (int e = 0; e < n; ++e) {
                int count = 0;
                for (int h = 0; h < n; ++h)
                    if (recipient(e, h)) {
                        pibar[c][e] += pi[c][h];
                        ++count;
                    }
                pibar[c][e] /= count;
            }
        }
        const auto E = res["E"].get<std::vector<double>>();
        const double pS = res["probabilities"]["S"], pD = res["probabilities"]["D"],
                     pT = res["probabilities"]["T"];
        using Key = std::tuple<EventType, int, int, bool>; // event, species, split, swapped
        // The drawable terms of Π(γ, e) (spec 5.1 without DL and TL with the transferred copy lost).
        auto terms = [&](int c, int e) {
            std::map<Key, double> t;
            const int f = data.species.left(e), g = data.species.right(e);
            if (cs.cladeGene[c] >= 0 && family.geneSpecies[cs.cladeGene[c]] == e)
                t[{EventType::Leaf, -1, -1, false}] = pS;
            for (int k = cs.splitOffset[c]; k < cs.splitOffset[c + 1]; ++k) {
                const CladeSplit& sp = cs.splits[k];
                const auto &a = pi[sp.left], &b = pi[sp.right];
                if (f >= 0) {
                    t[{EventType::Speciation, -1, k, false}] = sp.weight * pS * a[f] * b[g];
                    t[{EventType::Speciation, -1, k, true}] = sp.weight * pS * b[f] * a[g];
                }
                t[{EventType::Duplication, -1, k, false}] = sp.weight * pD * a[e] * b[e];
                t[{EventType::Transfer, -1, k, false}] = sp.weight * pT * a[e] * pibar[sp.right][e];
                t[{EventType::Transfer, -1, k, true}] = sp.weight * pT * b[e] * pibar[sp.left][e];
            }
            if (f >= 0) {
                t[{EventType::SpeciationLoss, f, -1, false}] = pS * pi[c][f] * E[g];
                t[{EventType::SpeciationLoss, g, -1, false}] = pS * pi[c][g] * E[f];
            }
            t[{EventType::TransferLoss, -1, -1, false}] = pT * E[e] * pibar[c][e];
            double total = 0;
            for (auto& [key, w] : t)
                total += w;
            for (auto it = t.begin(); it != t.end();)
                it = it->second > 0 ? (it->second /= total, std::next(it)) : t.erase(it);
            return t;
        };
        int checked = 0;
        for (int k = 0; k < 300; ++k) {
            const BacktrackStory story = tellSample(layout, family, tables, 42, k);
            for (const StoryStep& step : story.steps) {
                std::map<Key, double> want;
                if (step.draw == StoryDraw::Event) {
                    want = terms(step.clade, step.species);
                } else {
                    const int c = step.draw == StoryDraw::Origin ? cs.rootClade() : step.clade;
                    double total = 0;
                    for (int h = 0; h < n; ++h)
                        if (step.draw == StoryDraw::Origin || recipient(step.species, h)) total += pi[c][h];
                    for (int h = 0; h < n; ++h)
                        if ((step.draw == StoryDraw::Origin || recipient(step.species, h)) && pi[c][h] > 0)
                            want[{EventType::Leaf, h, -1, false}] = pi[c][h] / total;
                }
                QCOMPARE(step.alternatives.size(), want.size());
                for (const StoryAlternative& a : step.alternatives) {
                    const auto it = want.find({a.event, a.species, a.split, a.swapped});
                    QVERIFY2(it != want.end(), "an alternative the model does not have");
                    QVERIFY2(relativeError(a.probability, it->second) < 1e-12,
                             qPrintable(QString("draw at clade %1, species %2: %3, reference %4")
                                            .arg(step.clade)
                                            .arg(step.species)
                                            .arg(a.probability, 0, 'g', 17)
                                            .arg(it->second, 0, 'g', 17)));
                    ++checked;
                }
            }
        }
        qInfo("%d alternatives checked", checked);
        QVERIFY(checked > 3000);
    }
};

QTEST_GUILESS_MAIN(BacktrackStoryTest)
#include "test_backtrack_story.moc"
