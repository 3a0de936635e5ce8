#pragma once
// Splits the families into contiguous batches whose tables fit a device-memory budget. Batches are
// contiguous in input order so every per-family and cross-family sum is taken in the same order
// whatever the plan: results do not depend on the budget. Batches are independent units of work, so
// a later version can hand them to several GPUs.
#include <string>
#include <vector>

namespace gpurec::gpu {

struct BatchPlanInput {
    int species = 0;                      // species tree nodes
    int highways = 0;                     // transfer highways (widen the gradient's chunk rows)
    int nodeThetaRows = 0;                // ChunkView::nodeThetaRows (widen them too)
    std::vector<int> familyClades;        // clades per family, input order
    std::vector<std::string> familyNames; // for messages (optional)
    double budgetBytes = 0;               // for everything the backend allocates
    double fixedBytes = 0;                // allocations independent of the batch shape (structure, rates, E)
    int maxFamiliesPerBatch = 0;          // 0: no limit
    // Gradient partial sums: one row set per chunk of a family's clades (HostStructure::
    // familyChunks); empty: one per family.
    std::vector<int> familyChunks;
    // Partial split-term rows a family's many-split clades need (HostStructure::familySplitChunkRows);
    // they share the gradient's partial-sum buffer, which is idle during the forward waves. Empty: none.
    std::vector<int> familySplitChunkRows;
    // Partial rows a wave narrower than the device may need whatever its families
    // (SplitChunking::narrowWaveRows): the fewest split-chunk rows of any batch.
    long long narrowWaveChunkRows = 0;
};

struct Batch {
    int familyBegin = 0, familyEnd = 0;
    int cladeBegin = 0, cladeEnd = 0; // global clade ids (families concatenated)
    int chunkBegin = 0, chunkEnd = 0; // global gradient-chunk ids
    long long splitChunkRows = 0;     // at most this many partial split-term rows in one wave
    int families() const { return familyEnd - familyBegin; }
    int clades() const { return cladeEnd - cladeBegin; }
    int chunks() const { return chunkEnd - chunkBegin; }
};

struct BatchPlan {
    std::vector<Batch> batches;
    std::vector<int> familyChunkBegin; // per family, plus one past the end
    int maxClades = 0, maxFamilies = 0, maxChunks = 0;
    long long maxSplitChunkRows = 0;
    int highways = 0, nodeThetaRows = 0; // BatchPlanInput's
    double fixedBytes = 0;
    double batchBytes = 0; // buffers sized for the largest batch
    double budgetBytes = 0;
    double peakBytes() const { return fixedBytes + batchBytes; }
    std::string summary() const;
};

// Bytes of the per-batch buffers for a batch of this shape.
double batchBufferBytes(int species, long long clades, long long families, long long chunks,
                        long long splitChunkRows = 0, int highways = 0, int nodeThetaRows = 0);
// Rows of n = `species` doubles in the partial-sum buffer: the gradient's (gradientWidth per chunk)
// or the split chunks', whichever is more.
long long partialRows(long long chunks, long long splitChunkRows, int species, int highways,
                      int nodeThetaRows = 0);

// Throws std::runtime_error when a single family does not fit the budget.
BatchPlan planBatches(const BatchPlanInput& input);

} // namespace gpurec::gpu
