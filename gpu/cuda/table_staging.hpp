#pragma once
// Families' tables read back to the host through a pinned staging buffer (the sampler reads every
// family's Π and Π̄ rows: 84 GB for the hogenom-like preset). Copies into pageable vectors go
// through the driver's staging on one host thread; into pinned memory they run at the link's speed
// (measured: 35.7 s against 38.6 s for `gpurec sample` of that preset, docs/performance.md), and the rows are
// then copied out of it into the families' CladeTables on every core, one chunk while the device copies the
// next into the buffer's other half.
#include "engine/clade_tables.hpp"

#include <cstddef>
#include <utility>
#include <vector>

namespace gpurec::gpu {

// One family's rows in a chunk: Π (clades × width doubles) `offset` doubles into the chunk, Π̄
// right after it.
struct StagedFamily {
    int index = 0; // into the caller's list of families
    int clades = 0, width = 0;
    std::size_t offset = 0;
    std::size_t rowDoubles() const { return static_cast<std::size_t>(clades) * width; }
};

// Families that are staged together; `direct`: one family too large for a half of the buffer,
// read straight into its vectors.
struct StagingChunk {
    std::vector<StagedFamily> families;
    bool direct = false;
};

// The families (clades and width of each, in list order) in chunks of at most `capacity` doubles,
// in list order.
std::vector<StagingChunk> stagingChunks(const std::vector<std::pair<int, int>>& shapes, std::size_t capacity);

// Copies a staged chunk's rows into *out[family.index] (clades, species, pi and pibar set), families
// in parallel.
void unstage(const double* staged, const StagingChunk& chunk, const std::vector<CladeTables*>& out);

// Reads the chunks' families into *out[index]: a direct chunk's rows straight into the family's
// vectors, a staged chunk's into halves[h] (alternating), copied out of it while the device fills
// the other half. queue(family, pi, pibar) queues the copies of a family's Π and Π̄ rows to those
// addresses; markDone(h) marks the copies queued so far, those into half h; waitDone(h) waits for
// them; waitAll() for every copy queued.
template <class Queue, class Mark, class Wait, class WaitAll>
void readChunks(const std::vector<StagingChunk>& chunks, double* const halves[2],
                const std::vector<CladeTables*>& out, Queue&& queue, Mark&& markDone, Wait&& waitDone,
                WaitAll&& waitAll) {
    const StagingChunk* pending = nullptr; // staged in half pendingHalf, not yet copied out
    int pendingHalf = 0, nextHalf = 0;
    auto copyOutPending = [&] {
        if (!pending) return;
        waitDone(pendingHalf);
        unstage(halves[pendingHalf], *pending, out);
        pending = nullptr;
    };
    for (const StagingChunk& chunk : chunks) {
        if (chunk.direct) {
            for (const StagedFamily& k : chunk.families) {
                CladeTables& c = *out[k.index];
                c.clades = k.clades;
                c.species = k.width;
                c.pi.resize(k.rowDoubles());
                c.pibar.resize(k.rowDoubles());
                queue(k, c.pi.data(), c.pibar.data());
            }
            copyOutPending();
            continue;
        }
        double* half = halves[nextHalf];
        for (const StagedFamily& k : chunk.families)
            queue(k, half + k.offset, half + k.offset + k.rowDoubles());
        markDone(nextHalf);
        copyOutPending(); // the other half, while the device fills this one
        pending = &chunk;
        pendingHalf = nextHalf;
        nextHalf = 1 - nextHalf;
    }
    copyOutPending();
    waitAll();
}

} // namespace gpurec::gpu
