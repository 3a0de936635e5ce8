// Reading families' tables back through the CUDA backend's pinned staging buffer
// (gpu/cuda/table_staging.hpp): how families are packed into chunks of one half of the buffer, and
// their rows copied out of a chunk into each family's CladeTables. The device copies themselves are
// checked by the backend conformance suite on a GPU (familyTables against the CPU).
#include "cuda/table_staging.hpp"

#include <QtTest>
#include <functional>
#include <random>

using namespace gpurec;
using namespace gpurec::gpu;

class GpuTableStaging : public QObject {
    Q_OBJECT
  private slots:
    void familiesArePackedInOrderIntoChunksThatFit() {
        // Π and Π̄ of each family: 2 × clades × width doubles.
        const std::vector<std::pair<int, int>> shapes = {{10, 4}, {20, 4}, {5, 4}, {100, 4}, {1, 4}, {12, 3}};
        const std::vector<StagingChunk> chunks = stagingChunks(shapes, 200);
        QCOMPARE(chunks.size(), std::size_t{4});
        auto expect = [&](int chunk, bool direct, std::vector<std::pair<int, std::size_t>> indexAndOffset) {
            QCOMPARE(chunks[chunk].direct, direct);
            QCOMPARE(chunks[chunk].families.size(), indexAndOffset.size());
            for (std::size_t k = 0; k < indexAndOffset.size(); ++k) {
                const StagedFamily& f = chunks[chunk].families[k];
                QCOMPARE(f.index, indexAndOffset[k].first);
                QCOMPARE(f.offset, indexAndOffset[k].second);
                QCOMPARE(f.clades, shapes[f.index].first);
                QCOMPARE(f.width, shapes[f.index].second);
            }
        };
        expect(0, false, {{0, 0}});           // 80 doubles; the next 160 would make 240
        expect(1, false, {{1, 0}, {2, 160}}); // 160 + 40 fill it exactly
        expect(2, true, {{3, 0}});            // 800 doubles: read directly
        expect(3, false, {{4, 0}, {5, 8}});   // a new chunk after a direct one
        for (const StagingChunk& c : chunks)
            if (!c.direct) {
                std::size_t end = 0;
                for (const StagedFamily& f : c.families) {
                    QCOMPARE(f.offset, end); // packed without gaps or overlaps
                    end += 2 * f.rowDoubles();
                }
                QVERIFY(end <= 200);
            }
        // Without a buffer every family is read directly, one chunk each.
        const std::vector<StagingChunk> none = stagingChunks(shapes, 0);
        QCOMPARE(none.size(), shapes.size());
        for (std::size_t i = 0; i < none.size(); ++i) {
            QVERIFY(none[i].direct);
            QCOMPARE(none[i].families.front().index, static_cast<int>(i));
        }
        QVERIFY(stagingChunks({}, 200).empty());
    }

    void stagedRowsReachEachFamilysTables() {
        // Device-like tables: rows of stride n, each family's rows the first `width` entries (a
        // pruned tree's rows are narrower than the full tree's), staged as the backend copies them.
        const int n = 7;
        const std::vector<std::pair<int, int>> shapes = {{3, 7}, {2, 5}, {4, 7}, {1, 2}};
        std::mt19937_64 rng(5);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        std::vector<std::vector<double>> pi(shapes.size()), pibar(shapes.size());
        for (std::size_t f = 0; f < shapes.size(); ++f)
            for (int c = 0; c < shapes[f].first * n; ++c) {
                pi[f].push_back(u(rng));
                pibar[f].push_back(u(rng));
            }
        const std::vector<StagingChunk> chunks = stagingChunks(shapes, 60);
        QCOMPARE(chunks.size(), std::size_t{3}); // 42 doubles, then 20, then 56 + 4
        std::vector<CladeTables> tables(shapes.size());
        std::vector<CladeTables*> out;
        for (CladeTables& t : tables)
            out.push_back(&t);
        for (const StagingChunk& chunk : chunks) {
            QVERIFY(!chunk.direct);
            std::vector<double> staged(60, -1.0);
            for (const StagedFamily& k : chunk.families)
                for (int c = 0; c < k.clades; ++c)
                    for (int e = 0; e < k.width; ++e) {
                        staged[k.offset + c * k.width + e] = pi[k.index][c * n + e];
                        staged[k.offset + k.rowDoubles() + c * k.width + e] = pibar[k.index][c * n + e];
                    }
            unstage(staged.data(), chunk, out);
        }
        for (std::size_t f = 0; f < shapes.size(); ++f) {
            const auto [clades, width] = shapes[f];
            QCOMPARE(tables[f].clades, clades);
            QCOMPARE(tables[f].species, width);
            QCOMPARE(tables[f].pi.size(), static_cast<std::size_t>(clades * width));
            QCOMPARE(tables[f].pibar.size(), static_cast<std::size_t>(clades * width));
            for (int c = 0; c < clades; ++c)
                for (int e = 0; e < width; ++e) {
                    QCOMPARE(tables[f].piRow(c)[e], pi[f][c * n + e]);
                    QCOMPARE(tables[f].pibarRow(c)[e], pibar[f][c * n + e]);
                }
        }
    }

    void aChunkIsCopiedOutBeforeItsHalfIsFilledAgain() {
        // A stand-in for the device's stream: copies run in queue order, only when waited for, so a
        // half refilled before its chunk was copied out would hand the wrong rows to the families.
        const int n = 6;
        std::vector<std::pair<int, int>> shapes;
        for (int f = 0; f < 14; ++f)
            shapes.emplace_back(1 + (f * 7) % 5, f % 3 == 0 ? 4 : n);
        shapes[6] = {9, n}; // 108 doubles: more than a half, read directly
        std::mt19937_64 rng(11);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        std::vector<std::vector<double>> pi(shapes.size()), pibar(shapes.size()); // rows of stride n
        for (std::size_t f = 0; f < shapes.size(); ++f)
            for (int c = 0; c < shapes[f].first * n; ++c) {
                pi[f].push_back(u(rng));
                pibar[f].push_back(u(rng));
            }
        const std::size_t half = 40;
        const std::vector<StagingChunk> chunks = stagingChunks(shapes, half);
        int staged = 0;
        for (const StagingChunk& c : chunks)
            staged += c.direct ? 0 : 1;
        QVERIFY(staged >= 4); // both halves used twice or more
        std::vector<double> buffer(2 * half, -1.0);
        double* const halves[2] = {buffer.data(), buffer.data() + half};
        std::vector<std::function<void()>> queued;
        std::size_t ran = 0, markedAt[2] = {0, 0};
        auto runUpTo = [&](std::size_t end) {
            while (ran < end)
                queued[ran++]();
        };
        std::vector<CladeTables> tables(shapes.size());
        std::vector<CladeTables*> out;
        for (CladeTables& t : tables)
            out.push_back(&t);
        readChunks(
            chunks, halves, out,
            [&](const StagedFamily& k, double* to, double* barTo) {
                queued.push_back([&, k, to, barTo] {
                    for (int c = 0; c < k.clades; ++c)
                        for (int e = 0; e < k.width; ++e) {
                            to[c * k.width + e] = pi[k.index][c * n + e];
                            barTo[c * k.width + e] = pibar[k.index][c * n + e];
                        }
                });
            },
            [&](int h) { markedAt[h] = queued.size(); }, [&](int h) { runUpTo(markedAt[h]); },
            [&] { runUpTo(queued.size()); });
        QCOMPARE(ran, queued.size());
        for (std::size_t f = 0; f < shapes.size(); ++f) {
            const auto [clades, width] = shapes[f];
            QCOMPARE(tables[f].clades, clades);
            QCOMPARE(tables[f].species, width);
            QCOMPARE(tables[f].pi.size(), static_cast<std::size_t>(clades * width));
            for (int c = 0; c < clades; ++c)
                for (int e = 0; e < width; ++e) {
                    QCOMPARE(tables[f].piRow(c)[e], pi[f][c * n + e]);
                    QCOMPARE(tables[f].pibarRow(c)[e], pibar[f][c * n + e]);
                }
        }
    }
};

QTEST_GUILESS_MAIN(GpuTableStaging)
#include "test_gpu_table_staging.moc"
