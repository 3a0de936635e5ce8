#pragma once
// Host-side launchers of the solver kernels (solver_kernels.cu). Each launch runs on `stream` and
// checks its launch error; execution errors surface at the caller's next synchronisation.
#include "device_views.hpp"
#include "model/event_softmax.hpp"

#include <cuda_runtime.h>

namespace gpurec::gpu {

// Threads per team for a species tree of n nodes (a multiple of 32).
int teamSize(int species);
// Largest species tree whose team scratch fits the current device's shared memory (with transfer
// highways: a team keeps one more row).
int maxTeamSpecies(bool highways);
// Lets the team kernels use the shared memory a team needs for this tree (at most
// scratchVectors(highways) rows) and asks for the largest shared-memory carveout; once per device,
// before any launch.
void configureTeamKernels(int species, bool highways);
// Clades the forward kernel (converged schedule) runs at once on one multiprocessor.
int teamsPerMultiprocessor(const SpeciesView& s);

// p of every set from θ: a genewise set s reads its row s, a shared set the entries `entries` names
// (RateParameters::sharedEntries).
void launchProbabilities(const double* theta, const int* entries, bool genewise, PresentRates present,
                         int sets, int n, const SetView& sv, cudaStream_t stream);

// eLoop: sv, or sv with its own loop-constant arrays for the E equations (solveExtinctionSet).
void launchExtinction(const SpeciesView& s, const SetView& sv, const SetView& eLoop, int sets,
                      const ExtinctionSettings& opt, cudaStream_t stream);

// Partial split-term rows of the chunks list[0 .. count) (before the forward wave that needs them).
void launchSplitChunks(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                       const SplitChunk* list, int count, const SplitChunkView& chunks,
                       double pibarSideThreshold, cudaStream_t stream);
void launchForwardWave(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                       const SplitChunkView& chunks, const int* clades, int count, const ForwardSettings& opt,
                       cudaStream_t stream);

// The rows of clades to[0 .. count) copied from those of from[0 .. count) (copyRowEntry).
void launchCopyRows(const TableView& tab, const int* to, const int* from, int count, cudaStream_t stream);

void launchLikelihood(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                      int familyBegin, int families, double* logLikelihood, double* rootSum,
                      cudaStream_t stream);

// acc[chunk · n + e] += Σ over the batch's families of each chunk of Π(root, e) / rootSum, in family
// order (originPosteriorEntry).
void launchOriginPosterior(const CladeView& cv, const TableView& tab, int familyBegin, int families,
                           int familiesPerChunk, const double* rootSum, double* acc, cudaStream_t stream);

void launchAdjointWave(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                       const int* clades, int count, int familyBegin, const double* rootSum,
                       const double* largestDone, double* largestRunning, const AdjointSettings& opt,
                       cudaStream_t stream);

void launchGradientGather(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                          const ChunkView& chunks, int chunkBegin, int chunkEnd, double pibarSideThreshold,
                          double* partial, cudaStream_t stream);

// Sums each family's chunk rows, in chunk order, into its first chunk's rows.
void launchFoldChunks(const ChunkView& chunks, int familyBegin, int familyEnd, int chunkBegin,
                      long long width, double* partial, cudaStream_t stream);

// Each chunk's total += its families' rows, in family order (shared parameter sets;
// accumulateSharedEntry).
void launchAccumulateShared(const ChunkView& chunks, int familyBegin, int familyEnd, int chunkBegin,
                            int familiesPerChunk, SharedSlice slice, const double* partial, double* total,
                            cudaStream_t stream);

// d NLL / dθ of each family of a genewise batch: E eliminated per family, theta[3 f + k].
void launchGenewiseTheta(const SpeciesView& s, const SetView& sv, const CladeView& cv,
                         const ChunkView& chunks, int familyBegin, int familyEnd, int chunkBegin,
                         double* partial, const AdjointSettings& opt, double* theta, cudaStream_t stream);

// Shared rates on pruned trees: each batch family on a pruned tree eliminates its own E, its folded
// rows turned into d NLL / dθ per full-tree node (prunedThetaFamily).
void launchPrunedTheta(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                       const ChunkView& chunks, int familyBegin, int familyEnd, int chunkBegin,
                       const double* rootSum, double* partial, const AdjointSettings& opt,
                       cudaStream_t stream);

// result[0] += Σ values, result[1] = max(result[1], max values), result[2] += count of zeros.
void launchCountStats(const long long* values, long long count, unsigned long long* result,
                      cudaStream_t stream);

// result += number of NaN entries.
void launchCountNaN(const double* values, std::size_t count, unsigned long long* result, cudaStream_t stream);

} // namespace gpurec::gpu
