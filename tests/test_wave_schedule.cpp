// The clade waves (spec §5.4) and the order the workbench's wave stepper walks: wave by wave, every
// clade after the clades of its splits, and the even selection of steps for large families.
#include "engine/wave_schedule.hpp"
#include "simulated_data.hpp"

#include <QtTest>
#include <stdexcept>

using namespace gpurec;

class TestWaveSchedule : public QObject {
    Q_OBJECT
  private slots:
    void waveOrderFinishesChildrenFirst() {
        const SpeciesTree species = test::simulatedSpeciesTree(12, 5);
        auto data = test::simulatedDataset(
            species, 8,
            [](int) {
                return Rates{0.3, 0.2, 0.2};
            },
            5);
        for (const GeneFamily& f : data->families) {
            const CladeSet& cs = f.clades;
            const FamilyWaves waves = computeFamilyWaves(cs);
            const std::vector<int> order = cladesInWaveOrder(waves);
            QCOMPARE(static_cast<int>(order.size()), cs.cladeCount());
            std::vector<int> place(order.size(), -1);
            for (std::size_t i = 0; i < order.size(); ++i)
                place[order[i]] = static_cast<int>(i);
            for (int c = 0; c < cs.cladeCount(); ++c) {
                QVERIFY(place[c] >= 0); // a permutation
                for (int k = cs.splitOffset[c]; k < cs.splitOffset[c + 1]; ++k) {
                    QVERIFY(place[cs.splits[k].left] < place[c]);
                    QVERIFY(place[cs.splits[k].right] < place[c]);
                }
            }
            for (std::size_t i = 1; i < order.size(); ++i) { // by wave, then by clade index
                const int a = order[i - 1], b = order[i];
                QVERIFY(waves.cladeWave[a] < waves.cladeWave[b] ||
                        (waves.cladeWave[a] == waves.cladeWave[b] && a < b));
            }
            QCOMPARE(order.back(), cs.rootClade());
            QCOMPARE(waves.cladeWave[order.back()], waves.waveCount - 1);
        }
    }

    void spreadStepsKeepsTheEndsEvenly() {
        std::vector<int> order(1000);
        for (int i = 0; i < 1000; ++i)
            order[i] = 3 * i + 1;
        const std::vector<int> steps = spreadSteps(order, 7);
        QCOMPARE(steps, (std::vector<int>{1, 499, 1000, 1498, 1999, 2497, 2998})); // order[⌊i·999/6⌋]
        QCOMPARE(spreadSteps({4, 2, 9}, 7), (std::vector<int>{4, 2, 9}));          // short orders stay whole
        QCOMPARE(spreadSteps(order, 2), (std::vector<int>{1, 2998}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, spreadSteps(order, 1));
    }
};

QTEST_MAIN(TestWaveSchedule)
#include "test_wave_schedule.moc"
