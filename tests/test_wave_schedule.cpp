// The clade waves (spec §5.4) and the order the workbench's wave stepper walks: wave by wave, every
// clade after the clades of its splits, and the even selection of steps for large families.
#include "engine/wave_schedule.hpp"
#include "simulated_data.hpp"

#include <QtTest>
#include <stdexcept>

using namespace gpurec;

namespace {

// Families simulated on a 12-species tree at D = 0.3, L = T = 0.2.
std::shared_ptr<Dataset> simulatedFamilies(int families, std::uint64_t seed) {
    return test::simulatedDataset(
        test::simulatedSpeciesTree(12, 5), families,
        [](int) {
            return Rates{0.3, 0.2, 0.2};
        },
        seed);
}

} // namespace

class TestWaveSchedule : public QObject {
    Q_OBJECT
  private slots:
    void waveOrderFinishesChildrenFirst() {
        auto data = simulatedFamilies(8, 5);
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

    // Every cross-family wave lists its clades in family order, then by clade index (the CUDA
    // backend's batchWaves finds a batch's clades by bisection on it), the roots of families of
    // several clades last.
    void crossFamilyWavesAreInFamilyOrder() {
        auto data = simulatedFamilies(9, 6);
        const WaveSchedule schedule = computeWaveSchedule(*data);
        QVERIFY(schedule.waves.size() > 2);
        long long clades = 0;
        for (const CrossFamilyWave& wave : schedule.waves) {
            for (std::size_t i = 1; i < wave.clades.size(); ++i) {
                const CladeRef &a = wave.clades[i - 1], &b = wave.clades[i];
                QVERIFY(a.family < b.family || (a.family == b.family && a.clade < b.clade));
            }
            clades += static_cast<long long>(wave.clades.size());
        }
        long long expected = 0;
        int rooted = 0; // families whose root is not their only clade (a single gene stays in wave 0)
        for (const GeneFamily& f : data->families) {
            expected += f.clades.cladeCount();
            rooted += f.clades.cladeCount() > 1;
        }
        QCOMPARE(clades, expected);
        QVERIFY(rooted > 0);
        QCOMPARE(static_cast<int>(schedule.waves.back().clades.size()), rooted);
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
