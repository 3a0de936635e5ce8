#pragma once
// The CUDA backend's driving loop over one batch, written once over an executor: forward waves
// (split chunks first), the family likelihoods, then with a gradient the adjoint waves in reverse,
// the gradient's gather, per-family fold and its reduction (shared sets) or E elimination
// (genewise). cuda_backend.cu's executor launches the kernels of solver_kernels.cu on its stream;
// the host emulation test's executor runs the same steps serially (SerialTeam), so CI without a GPU
// tests the loop the GPU runs.
//
// An executor provides, with the arguments of the solver_kernels.hpp launcher of the same name:
//   splitChunks, forwardWave, copyRows, likelihood, originPosterior, adjointWave, gradientGather, foldChunks,
//   accumulateShared, genewiseTheta, prunedTheta, countStats, countNaN, and
//   zero(double*, count), copy(double* to, const double* from, count), poison(const Batch&),
//   endPhase(EvaluationPhase), endWave(EvaluationPhase, batch, wave, clades).
#include "batch_plan.hpp"
#include "device_views.hpp"
#include "engine/backend_diagnostics.hpp"

#include <cstddef>
#include <utility>
#include <vector>

namespace gpurec::gpu {

// Counters the kernels accumulate over an evaluation (unsigned long long each).
enum Counter {
    ForwardSum,
    ForwardMax,
    ForwardZero,
    AdjointSum,
    AdjointMax,
    AdjointZero,
    Unwritten,
    CounterCount
};

// Everything one batch's steps read and write, as views of the executor's memory.
struct BatchJob {
    const Batch* batch = nullptr;
    int index = 0;                                           // of the batch in the plan
    const std::vector<std::pair<int, int>>* waves = nullptr; // (offset, count) into waveClades
    const std::vector<WaveChunks>* waveChunks = nullptr;
    const std::vector<std::pair<int, int>>* waveCopies = nullptr; // (offset, count) into copySources
    const int* waveClades = nullptr;
    const int* copySources = nullptr;
    const int* rowSource = nullptr; // BatchWaves::rowSource
    const SplitChunk* splitChunks = nullptr;
    SpeciesView s;
    SetView sv;
    SetView extinctionLoop; // sv with the E equations' loop constants (solveExtinctionSet), for the E adjoint
    CladeView cv;
    TableView tab; // without a row source (runBatchSteps adds it where it pays)
    SplitChunkView chunks;
    ChunkView gradientChunks;
    ForwardSettings fwd;
    AdjointSettings adj;
    bool withGradient = false, genewise = false, poison = false;
    double* logLikelihood = nullptr;                                              // all families'
    double *rootSum = nullptr, *largestDone = nullptr, *largestRunning = nullptr; // per batch family
    double* partial = nullptr;
    // Shared sets: gradientWidth(n, highways, nodeThetaRows) entries per chunk of familiesPerChunk families
    // (the chunks of engine/family_chunks.hpp), genewise sets with highways the highways' entries;
    // --origination OPTIMIZE with a gradient: n per chunk (originPosteriorEntry).
    int familiesPerChunk = 1;
    double* sharedTotal = nullptr;
    double* originPosterior = nullptr;
    double* thetaGradient = nullptr; // genewise: 3 per family (the highways' rates in sharedTotal)
    unsigned long long* counters = nullptr;
};

template <class Executor> void runBatchSteps(Executor& x, const BatchJob& j) {
    const Batch& b = *j.batch;
    if (j.poison) x.poison(b);
    // The forward's and the adjoint's split terms read a repeated clade's rows from its solved
    // clade (their staged split records pay the extra load once per team); the genewise mode solves
    // the repeated clades too. The gathering walks a chunk's splits one thread per node, unstaged,
    // where the extra dependent load cost more than the shared rows saved (v26 in
    // docs/performance.md): it reads each child's own rows.
    TableView splitTab = j.tab;
    if (!j.genewise) splitTab.rowSource = j.rowSource;
    for (std::size_t k = 0; k < j.waves->size(); ++k) {
        const auto& [offset, count] = (*j.waves)[k];
        const WaveChunks& cut = (*j.waveChunks)[k];
        SplitChunkView chunks = j.chunks;
        chunks.chunkSplits = cut.splits;
        // The genewise mode has a set per family: its repeated clades are solved like the others.
        const auto& [copyOffset, copyCount] = (*j.waveCopies)[k];
        const int copies = j.genewise ? 0 : copyCount;
        x.splitChunks(j.s, j.sv, j.cv, splitTab, j.splitChunks + cut.offset, cut.count, chunks,
                      j.fwd.pibarSideThreshold);
        x.forwardWave(j.s, j.sv, j.cv, splitTab, chunks, j.waveClades + offset, count - copies, j.fwd);
        if (copies > 0)
            x.copyRows(j.tab, j.waveClades + offset + count - copies, j.copySources + copyOffset, copies);
        x.endWave(EvaluationPhase::Forward, j.index, static_cast<int>(k), count);
    }
    x.likelihood(j.s, j.sv, j.cv, j.tab, b.familyBegin, b.families(), j.logLikelihood + b.familyBegin,
                 j.rootSum);
    x.countStats(j.tab.iterations, b.clades(), j.counters + ForwardSum);
    x.endPhase(EvaluationPhase::Forward);
    const std::size_t tableEntries = static_cast<std::size_t>(b.clades()) * j.s.n;
    if (j.withGradient && j.originPosterior)
        x.originPosterior(j.cv, j.tab, b.familyBegin, b.families(), j.familiesPerChunk, j.rootSum,
                          j.originPosterior);
    if (j.withGradient) {
        x.zero(j.largestDone, b.families());
        x.zero(j.largestRunning, b.families());
        for (std::size_t k = j.waves->size(); k-- > 0;) {
            const auto& [offset, count] = (*j.waves)[k];
            x.adjointWave(j.s, j.sv, j.cv, splitTab, j.waveClades + offset, count, b.familyBegin, j.rootSum,
                          j.largestDone, j.largestRunning, j.adj);
            if (j.adj.pruning) x.copy(j.largestDone, j.largestRunning, b.families());
            x.endWave(EvaluationPhase::Adjoint, j.index, static_cast<int>(k), count);
        }
        x.countStats(j.tab.iterations, b.clades(), j.counters + AdjointSum);
        x.endPhase(EvaluationPhase::Adjoint);
        x.gradientGather(j.s, j.sv, j.cv, j.tab, j.gradientChunks, b.chunkBegin, b.chunkEnd,
                         j.adj.pibarSideThreshold, j.partial);
        const long long width = gradientWidth(j.s.n, j.s.highways, j.gradientChunks.nodeThetaRows);
        x.foldChunks(j.gradientChunks, b.familyBegin, b.familyEnd, b.chunkBegin, width, j.partial);
        if (j.genewise) {
            x.genewiseTheta(j.s, j.extinctionLoop, j.cv, j.gradientChunks, b.familyBegin, b.familyEnd,
                            b.chunkBegin, j.partial, j.adj, j.thetaGradient);
            // The highways' rates are every family's: their terms are summed like the shared rows.
            if (j.s.highways > 0)
                x.accumulateShared(j.gradientChunks, b.familyBegin, b.familyEnd, b.chunkBegin,
                                   j.familiesPerChunk, SharedSlice{width, width - j.s.highways, j.s.highways},
                                   j.partial, j.sharedTotal);
        } else {
            // Families on pruned trees eliminate their own E first (their rows become node θ rows).
            if (j.gradientChunks.nodeThetaRows > 0)
                x.prunedTheta(j.s, j.extinctionLoop, j.cv, j.tab, j.gradientChunks, b.familyBegin,
                              b.familyEnd, b.chunkBegin, j.rootSum, j.partial, j.adj);
            x.accumulateShared(j.gradientChunks, b.familyBegin, b.familyEnd, b.chunkBegin, j.familiesPerChunk,
                               SharedSlice{width, 0, width}, j.partial, j.sharedTotal);
        }
        x.endPhase(EvaluationPhase::Gradient);
        if (j.poison) x.countNaN(j.tab.adjoint, tableEntries, j.counters + Unwritten);
    }
    if (j.poison) {
        x.countNaN(j.tab.pi, tableEntries, j.counters + Unwritten);
        x.countNaN(j.tab.pibar, tableEntries, j.counters + Unwritten);
    }
}

} // namespace gpurec::gpu
