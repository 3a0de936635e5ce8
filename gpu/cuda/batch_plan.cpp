#include "batch_plan.hpp"

#include "device_views.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace gpurec::gpu {

namespace {
std::string gigabytes(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GB", bytes / 1e9);
    return text;
}
} // namespace

long long partialRows(long long chunks, long long splitChunkRows, int species, int highways,
                      int nodeThetaRows) {
    const long long width = gradientWidth(species, highways, nodeThetaRows);
    return std::max((width * chunks + species - 1) / species, splitChunkRows);
}

double batchBufferBytes(int species, long long clades, long long families, long long chunks,
                        long long splitChunkRows, int highways, int nodeThetaRows) {
    const double n = species;
    // Π, Π̄ and the adjoint rows; scale, Π̄ peak and iteration count per clade.
    const double perClade = 3.0 * 8.0 * n + 4.0 + 8.0 + 8.0;
    // Root sum and two running adjoint maxima per family.
    const double perFamily = 3.0 * 8.0;
    return perClade * clades +
           8.0 * n * partialRows(chunks, splitChunkRows, species, highways, nodeThetaRows) +
           perFamily * families;
}

namespace {

// Greedy packing under `limit` bytes per batch.
BatchPlan packBatches(const BatchPlanInput& in, double limit) {
    BatchPlan plan;
    plan.fixedBytes = in.fixedBytes;
    plan.budgetBytes = in.budgetBytes;
    const int F = static_cast<int>(in.familyClades.size());
    plan.familyChunkBegin.assign(F + 1, 0);
    for (int f = 0; f < F; ++f)
        plan.familyChunkBegin[f + 1] =
            plan.familyChunkBegin[f] + (in.familyChunks.empty() ? 1 : in.familyChunks[f]);
    const double available = in.budgetBytes - in.fixedBytes;
    auto bytesOf = [&](const Batch& b) {
        return batchBufferBytes(in.species, b.clades(), b.families(), b.chunks(),
                                std::max(b.splitChunkRows, in.narrowWaveChunkRows), in.highways,
                                in.nodeThetaRows);
    };
    auto splitRowsOf = [&](int f) {
        return f < static_cast<int>(in.familySplitChunkRows.size()) ? in.familySplitChunkRows[f] : 0;
    };

    Batch current;
    int clade = 0;
    for (int f = 0; f < F; ++f) {
        Batch grown = current;
        grown.familyEnd = f + 1;
        grown.cladeEnd = clade + in.familyClades[f];
        grown.chunkEnd = plan.familyChunkBegin[f + 1];
        grown.splitChunkRows += splitRowsOf(f);
        const bool full = in.maxFamiliesPerBatch > 0 && current.families() >= in.maxFamiliesPerBatch;
        if (current.families() > 0 && (full || bytesOf(grown) > limit)) {
            plan.batches.push_back(current);
            current = Batch{f,
                            f + 1,
                            clade,
                            clade + in.familyClades[f],
                            plan.familyChunkBegin[f],
                            plan.familyChunkBegin[f + 1],
                            splitRowsOf(f)};
        } else {
            current = grown;
        }
        if (bytesOf(current) > available)
            throw std::runtime_error(
                "family " +
                (f < static_cast<int>(in.familyNames.size()) ? in.familyNames[f] : std::to_string(f)) + " (" +
                std::to_string(in.familyClades[f]) + " clades) needs " + gigabytes(bytesOf(current)) +
                " of device memory, but only " + gigabytes(std::max(0.0, available)) + " of the " +
                gigabytes(in.budgetBytes) + " budget remain after the dataset's fixed " +
                gigabytes(in.fixedBytes));
        clade += in.familyClades[f];
    }
    if (current.families() > 0) plan.batches.push_back(current);
    for (Batch& b : plan.batches) {
        b.splitChunkRows = std::max(b.splitChunkRows, in.narrowWaveChunkRows);
        plan.maxClades = std::max(plan.maxClades, b.clades());
        plan.maxFamilies = std::max(plan.maxFamilies, b.families());
        plan.maxChunks = std::max(plan.maxChunks, b.chunks());
        plan.maxSplitChunkRows = std::max(plan.maxSplitChunkRows, b.splitChunkRows);
    }
    plan.highways = in.highways;
    plan.nodeThetaRows = in.nodeThetaRows;
    plan.batchBytes = batchBufferBytes(in.species, plan.maxClades, plan.maxFamilies, plan.maxChunks,
                                       plan.maxSplitChunkRows, in.highways, in.nodeThetaRows);
    return plan;
}

} // namespace

BatchPlan planBatches(const BatchPlanInput& in) {
    // Buffers are sized by the largest batch in each dimension, which can exceed every single batch:
    // tighten the packing limit until the combined size fits.
    const double available = in.budgetBytes - in.fixedBytes;
    for (double limit = available;; limit *= 0.98) {
        BatchPlan plan = packBatches(in, limit);
        if (plan.batchBytes <= available || plan.maxFamilies == 1) return plan;
    }
}

std::string BatchPlan::summary() const {
    return std::to_string(batches.size()) + (batches.size() == 1 ? " batch" : " batches") + " (largest " +
           std::to_string(maxFamilies) + " families, " + std::to_string(maxClades) +
           " clades), device memory " + gigabytes(peakBytes()) + " of a " + gigabytes(budgetBytes) +
           " budget";
}

} // namespace gpurec::gpu
