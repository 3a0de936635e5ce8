// Sampled reconciliations against simulated truth: the recovery tally on hand-made cases, and
// calibration on families drawn by our simulator (an independent implementation of the model):
// averaged over families, the posterior mean number of each event type equals the true number.
// Duplications are left out of the calibration: AleRax's D term (spec 5.1) is half the generative
// probability of a duplication whose two copies both survive (the copies can yield the two
// subclades in either order), so on simulated families the posterior sees too few D and too many
// T (measured in docs/validation.md); the sampler follows the spec.
#include "data/dataset.hpp"
#include "recon/recovery.hpp"
#include "recon/sampling_run.hpp"
#include "sim/family_simulation.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>
#include <mutex>

using namespace gpurec;
using namespace gpurec::test;

class SamplingRecovery : public QObject {
    Q_OBJECT

  private slots:
    void tallyByHand() {
        // Species ((A,B)AB,C)R in postorder: A 0, B 1, AB 2, C 3, R 4.
        Reconciliation truth;
        int root = addNode(truth, -1, {{EventType::Speciation, 4}});
        addNode(truth, root, {{EventType::SpeciationLoss, 2}, {EventType::Leaf, 0}}, "A_1");
        int d = addNode(truth, root, {{EventType::Duplication, 3}});
        addNode(truth, d, {{EventType::Leaf, 3}}, "C_1");
        addNode(truth, d, {{EventType::Leaf, 3}}, "C_2");

        // The same genes: the root a transfer, the lineage to A_1 without the SL, a TL above C_2,
        // and the children stored in another order.
        Reconciliation sample;
        int sroot = addNode(sample, -1, {{EventType::Transfer, 2, 3}});
        int sd = addNode(sample, sroot, {{EventType::Duplication, 3}});
        addNode(sample, sd, {{EventType::TransferLoss, 3, 0}, {EventType::Leaf, 3}}, "C_2");
        addNode(sample, sd, {{EventType::Leaf, 3}}, "C_1");
        addNode(sample, sroot, {{EventType::Leaf, 0}}, "A_1");

        RecoveryTally t;
        t.add(truth, truth);
        t.add(truth, sample);
        QCOMPARE(t.nodes[RecoveryTally::kS], 2.0);
        QCOMPARE(t.confusion[RecoveryTally::kS][RecoveryTally::kS], 1.0);
        QCOMPARE(t.confusion[RecoveryTally::kS][RecoveryTally::kT], 1.0);
        QCOMPARE(t.exact[RecoveryTally::kS], 1.0);
        QCOMPARE(t.nodes[RecoveryTally::kD], 2.0);
        QCOMPARE(t.exact[RecoveryTally::kD], 2.0);
        QCOMPARE(t.nodes[RecoveryTally::kLeaf], 6.0);
        QCOMPARE(t.exact[RecoveryTally::kLeaf], 6.0);
        QCOMPARE(t.trueSL, 2.0);
        QCOMPARE(t.sharedSL, 1.0);
        QCOMPARE(t.sampledSL, 1.0);
        QCOMPARE(t.trueTL, 0.0);
        QCOMPARE(t.sampledTL, 1.0);

        // Unrooted samples may root elsewhere: a true node whose genes form no sampled node.
        Reconciliation rerooted;
        int rr = addNode(rerooted, -1, {{EventType::Speciation, 4}});
        int ab = addNode(rerooted, rr, {{EventType::Duplication, 4}});
        addNode(rerooted, ab, {{EventType::Leaf, 0}}, "A_1");
        addNode(rerooted, ab, {{EventType::Leaf, 3}}, "C_1");
        addNode(rerooted, rr, {{EventType::Leaf, 3}}, "C_2");
        RecoveryTally u;
        u.add(truth, rerooted);
        QCOMPARE(u.confusion[RecoveryTally::kD][RecoveryTally::kNodeTypes], 1.0);
    }

    void posteriorCalibratedOnSimulatedFamilies() {
        SpeciesTree species =
            SpeciesTree::fromNewick(parseNewick("(((A,B),(C,D)),((E,F),(G,H)));", "species").front());
        const Rates rates{1e-10, 0.25, 0.3};
        auto data = std::make_shared<Dataset>();
        data->species = species;
        FamilySimulator simulator(species, TransferConstraint::Parents, SimProcess::Undated, {});
        std::vector<Reconciliation> truths;
        const int F = 400;
        for (int f = 0; f < F; ++f) {
            RandomSource rng = RandomSource::stream(2024, f);
            SimulatedFamily sim =
                simulator.simulate("f" + std::to_string(f), std::vector<Rates>(species.size(), rates), rng);
            data->families.push_back(
                makeFamily(species, sim.truth.family, {sim.geneTree}, GeneTreeRooting::Rooted));
            truths.push_back(std::move(sim.truth));
        }
        RateParameters theta(RateMode::Global, species.size(), F, rates);
        SamplingSettings settings;
        settings.samples = 40;
        settings.seed = 9;
        settings.halveRootBranches = false;
        std::vector<int> all(F);
        for (int f = 0; f < F; ++f)
            all[f] = f;
        // Per family: posterior mean count minus true count, for S, SL, T, TL.
        auto counts = [](const Reconciliation& r) {
            EventCounts c = countEvents(r);
            return std::array<double, 4>{double(c.S), double(c.SL), double(c.T), double(c.TL)};
        };
        std::vector<std::array<double, 4>> difference(F);
        std::array<double, 4> truth{};
        for (const Reconciliation& r : truths)
            for (int k = 0; k < 4; ++k)
                truth[k] += counts(r)[k];
        std::mutex m;
        sampleFamilies(
            *data, theta, all, settings,
            [&](FamilySamples&& fs) {
                std::array<double, 4> d = counts(truths[fs.family]);
                for (double& v : d)
                    v = -v;
                for (const Reconciliation& r : fs.reconciliations)
                    for (int k = 0; k < 4; ++k)
                        d[k] += counts(r)[k] / fs.reconciliations.size();
                std::lock_guard lock(m);
                difference[fs.family] = d;
            },
            cpuTables(data, theta, settings));
        const char* names[] = {"S", "SL", "T", "TL"};
        for (int k = 0; k < 4; ++k) {
            double sum = 0, sq = 0;
            for (int f = 0; f < F; ++f) {
                sum += difference[f][k];
                sq += difference[f][k] * difference[f][k];
            }
            double mean = sum / F, se = std::sqrt((sq / F - mean * mean) / F);
            qInfo("%s: %.0f true events, posterior mean minus truth per family %.4f (se %.4f)", names[k],
                  truth[k], mean, se);
            QVERIFY(truth[k] > 20);
            QVERIFY2(std::abs(mean) <= 3 * se, names[k]);
        }
    }
};

QTEST_GUILESS_MAIN(SamplingRecovery)
#include "test_sampling_recovery.moc"
