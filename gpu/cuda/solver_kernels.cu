// The solver kernels: thin wrappers running the steps of solver_steps.hpp with one thread block per
// clade or parameter set, and the element-wise gradient gathering and reductions.
#include "block_team.cuh"
#include "cuda_support.hpp"
#include "solver_kernels.hpp"
#include "solver_steps.hpp"

#include <cub/block/block_reduce.cuh>

#include <climits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace gpurec::gpu {

namespace {

constexpr int kElementBlock = 128;

constexpr int kMaxTeam = 256;
// Register cap for the team kernels: 4 teams of 256 threads (64 registers each) per multiprocessor,
// so a 192-thread team is never register-limited below the 5 teams its shared memory allows for the
// 1,331-node hogenom-like tree.
constexpr int kTeamsPerSM = 4;
static_assert(3 * kMaxTeam / 32 <= BlockTeam::kReductionDoubles, "reduction scratch too small for a team");

// Team scratch: `vectors` shared arrays of n doubles, then the reduction scratch.
std::size_t teamSharedBytes(int n, int vectors) {
    return (vectors * static_cast<std::size_t>(n) + BlockTeam::kReductionDoubles) * sizeof(double);
}

// A team's rows live in shared memory: opt in beyond 48 KB and ask for the largest shared-memory
// carveout, so that as many teams as fit run on each multiprocessor.
template <class Kernel> void allowSharedMemory(Kernel kernel, std::size_t bytes, const char* name) {
    if (bytes > 48 * 1024)
        check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(bytes)),
              name);
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutMaxShared),
          name);
}

// The tree a team of set `set` works on: the set's own with pruned trees, else the full tree (the
// kernel's parameter itself, so the full-tree kernels read it as before).
template <bool kPruned>
__device__ inline const SpeciesView& treeOf(const SpeciesView& full, const SetView& sv, int set) {
    if constexpr (kPruned)
        return sv.species[set];
    else
        return full;
}

__global__ void probabilitiesKernel(const double* theta, const int* entries, bool genewise,
                                    PresentRates present, int sets, int n, SetView sv) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= static_cast<long long>(sets) * n) return;
    const int set = static_cast<int>(i / n), e = static_cast<int>(i % n);
    int node = e;
    if (sv.species) {
        const SpeciesView& tree = sv.species[set];
        if (e >= tree.n) return;
        if (tree.fullNode) node = tree.fullNode[e];
    }
    setProbabilities(theta, entries, genewise, present, set, n, e, node, sv);
}

__global__ void originPosteriorKernel(CladeView cv, TableView tab, int familyBegin, int families,
                                      int familiesPerChunk, long long entries, const double* rootSum,
                                      double* acc) {
    const long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (k >= entries) return;
    originPosteriorEntry(cv, tab, familyBegin, families, familiesPerChunk, rootSum, k, acc);
}

// The team kernels: one block per set, split chunk, clade or family; kPruned: each on its set's
// pruned tree (SetView::species), its scratch sized for the full tree `s`.
template <bool kPruned>
__global__ void __launch_bounds__(kMaxTeam, kTeamsPerSM)
    extinctionKernel(SpeciesView s, SetView sv, SetView eLoop, ExtinctionSettings opt) {
    extern __shared__ double shared[];
    BlockTeam team(shared + scratchVectors(s.highways > 0) * s.n);
    solveExtinctionSet(team, treeOf<kPruned>(s, sv, blockIdx.x), sv, eLoop, blockIdx.x, opt, shared);
}

template <bool kPruned>
__global__ void __launch_bounds__(kMaxTeam, kTeamsPerSM)
    splitChunkKernel(SpeciesView s, SetView sv, CladeView cv, TableView tab, const SplitChunk* list,
                     SplitChunkView chunks, double pibarSideThreshold) {
    extern __shared__ double shared[];
    BlockTeam team(shared + kSplitChunkVectors * s.n);
    const SplitChunk chunk = list[blockIdx.x];
    const int set = cv.setOf(cv.cladeFamily[chunk.clade]);
    const SetRef p(sv, set, s.stride);
    sumSplitChunk(team, treeOf<kPruned>(s, sv, set), p, cv, tab, chunk, chunks, pibarSideThreshold, shared);
}

// 56 registers let 6 teams of 192 threads share a multiprocessor (64: 5).
template <bool kPruned>
__global__ void __maxnreg__(56)
    forwardWaveKernel(SpeciesView s, SetView sv, CladeView cv, TableView tab, SplitChunkView chunks,
                      const int* clades, ForwardSettings opt) {
    extern __shared__ double shared[];
    BlockTeam team(shared + forwardScratchVectors(s, opt.alerax) * s.n);
    const int c = clades[blockIdx.x];
    const int set = cv.setOf(cv.cladeFamily[c]);
    const SetRef p(sv, set, s.stride);
    solveCladeForward(team, treeOf<kPruned>(s, sv, set), p, cv, tab, chunks, c, opt, shared);
}

template <bool kPruned>
__global__ void __launch_bounds__(kMaxTeam, kTeamsPerSM)
    likelihoodKernel(SpeciesView s, SetView sv, CladeView cv, TableView tab, int familyBegin,
                     double* logLikelihood, double* rootSum) {
    extern __shared__ double shared[];
    BlockTeam team(shared + scratchVectors(s.highways > 0) * s.n);
    const int f = familyBegin + static_cast<int>(blockIdx.x);
    familyLikelihood(team, treeOf<kPruned>(s, sv, cv.setOf(f)), sv, cv, tab, f, familyBegin, logLikelihood,
                     rootSum);
}

// 56 registers let 6 teams of 192 threads share a multiprocessor, as the forward kernel's.
template <bool kPruned>
__global__ void __maxnreg__(56)
    adjointWaveKernel(SpeciesView s, SetView sv, CladeView cv, TableView tab, const int* clades,
                      int familyBegin, const double* rootSum, const double* largestDone,
                      double* largestRunning, AdjointSettings opt) {
    extern __shared__ double shared[];
    BlockTeam team(shared + adjointScratchVectors(s) * s.n);
    const int c = clades[blockIdx.x];
    const int set = cv.setOf(cv.cladeFamily[c]);
    const SetRef p(sv, set, s.stride);
    solveCladeAdjoint(team, treeOf<kPruned>(s, sv, set), p, cv, tab, c, familyBegin, rootSum, largestDone,
                      largestRunning, opt, shared);
}

// One thread per (chunk, species node or highway); a chunk's ranges of species nodes are
// consecutive blocks, so they run side by side and find in L2 the child rows' entries that their
// neighbours' nodes read (a node's children lie outside its range).
template <bool kPruned>
__global__ void __launch_bounds__(kElementBlock, 8)
    gradientGatherKernel(SpeciesView s, SetView sv, CladeView cv, TableView tab, ChunkView chunks,
                         int chunkBegin, int ranges, double threshold, double* partial) {
    const int chunk = chunkBegin + static_cast<int>(blockIdx.x / ranges);
    const int i = static_cast<int>(blockIdx.x % ranges) * blockDim.x + threadIdx.x;
    if (i >= s.n + s.highways) return;
    const int set = cv.setOf(cv.cladeFamily[chunks.firstClade[chunk]]);
    gatherChunkEntry(treeOf<kPruned>(s, sv, set), sv, cv, tab, chunks, chunk, chunkBegin, i, threshold,
                     partial);
}

__global__ void foldChunksKernel(ChunkView chunks, int familyBegin, int families, int chunkBegin,
                                 long long width, double* partial) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= width * families) return;
    foldChunkEntry(chunks, familyBegin + static_cast<int>(i / width), chunkBegin, width, i % width, partial);
}

__global__ void accumulateSharedKernel(ChunkView chunks, int familyBegin, int familyEnd, int chunkBegin,
                                       int familiesPerChunk, long long entries, SharedSlice slice,
                                       const double* partial, double* total) {
    const long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (k >= entries) return;
    accumulateSharedEntry(chunks, familyBegin, familyEnd, chunkBegin, familiesPerChunk, slice, k, partial,
                          total);
}

template <bool kPruned>
__global__ void __launch_bounds__(kMaxTeam, kTeamsPerSM)
    genewiseThetaKernel(SpeciesView s, SetView sv, CladeView cv, ChunkView chunks, int familyBegin,
                        int chunkBegin, double* partial, AdjointSettings opt, double* theta) {
    extern __shared__ double shared[];
    BlockTeam team(shared + scratchVectors(s.highways > 0) * s.n);
    const int f = familyBegin + static_cast<int>(blockIdx.x);
    genewiseThetaFamily(team, treeOf<kPruned>(s, sv, f), sv, cv, chunks, f, chunkBegin, partial, opt, shared,
                        theta);
}

__global__ void __launch_bounds__(kMaxTeam, kTeamsPerSM)
    prunedThetaKernel(SpeciesView s, SetView sv, CladeView cv, TableView tab, ChunkView chunks,
                      int familyBegin, int chunkBegin, const double* rootSum, double* partial,
                      AdjointSettings opt) {
    extern __shared__ double shared[];
    BlockTeam team(shared + scratchVectors(s.highways > 0) * s.n);
    const int f = familyBegin + static_cast<int>(blockIdx.x);
    const int set = cv.setOf(f);
    if (set == 0) return; // on the full tree (the only one when this share has no pruned family)
    prunedThetaFamily(team, sv.species[set], sv, cv, tab, chunks, f, familyBegin, chunkBegin, rootSum,
                      partial, opt, shared);
}

constexpr int kStatsBlock = 256;

__global__ void countStatsKernel(const long long* values, long long count, unsigned long long* result) {
    using Reduce = cub::BlockReduce<long long, kStatsBlock>;
    __shared__ typename Reduce::TempStorage storage;
    long long sum = 0, largest = 0, zeros = 0;
    for (long long i = blockIdx.x * static_cast<long long>(kStatsBlock) + threadIdx.x; i < count;
         i += static_cast<long long>(gridDim.x) * kStatsBlock) {
        sum += values[i];
        largest = values[i] > largest ? values[i] : largest;
        zeros += values[i] == 0;
    }
    sum = Reduce(storage).Sum(sum);
    __syncthreads();
    largest = Reduce(storage).Reduce(largest, [](long long a, long long b) { return a < b ? b : a; });
    __syncthreads();
    zeros = Reduce(storage).Sum(zeros);
    if (threadIdx.x == 0) {
        atomicAdd(result, static_cast<unsigned long long>(sum));
        atomicMax(result + 1, static_cast<unsigned long long>(largest));
        atomicAdd(result + 2, static_cast<unsigned long long>(zeros));
    }
}

// One block per copied clade.
__global__ void copyRowsKernel(TableView tab, const int* to, const int* from) {
    const int target = to[blockIdx.x], source = from[blockIdx.x];
    for (int e = threadIdx.x; e < tab.n; e += blockDim.x)
        copyRowEntry(tab, target, source, e);
}

__global__ void countNaNKernel(const double* values, std::size_t count, unsigned long long* result) {
    using Reduce = cub::BlockReduce<unsigned long long, kStatsBlock>;
    __shared__ typename Reduce::TempStorage storage;
    unsigned long long nan = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(kStatsBlock) + threadIdx.x; i < count;
         i += static_cast<std::size_t>(gridDim.x) * kStatsBlock)
        nan += values[i] != values[i];
    nan = Reduce(storage).Sum(nan);
    if (threadIdx.x == 0 && nan) atomicAdd(result, nan);
}

unsigned blocksFor(long long threads, int block) {
    return static_cast<unsigned>((threads + block - 1) / block);
}

} // namespace

int teamSize(int species) {
    // About eight nodes per thread. Teams are latency-bound (shared memory caps the clades in flight
    // per multiprocessor), so more warps per team help more than the idle warps in narrow levels
    // cost: twelve nodes per thread was 9 % slower on the H200, and eleven or sixteen with more
    // clades per multiprocessor 7–22 % slower forward (docs/performance.md, versions 4 and 8).
    constexpr int nodes = 8;
    const int threads = ((species + nodes * 32 - 1) / (nodes * 32)) * 32;
    return threads < 32 ? 32 : threads > kMaxTeam ? kMaxTeam : threads;
}

int maxTeamSpecies(bool highways) {
    int device = 0, limit = 0;
    check(cudaGetDevice(&device), "reading the current device");
    check(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
          "reading the device limits");
    return static_cast<int>((limit / sizeof(double) - BlockTeam::kReductionDoubles) /
                            scratchVectors(highways));
}

void configureTeamKernels(int species, bool highways) {
    const std::size_t bytes = teamSharedBytes(species, scratchVectors(highways));
    auto allow = [&](auto pruned) { // both instances of each team kernel
        constexpr bool kPruned = decltype(pruned)::value;
        allowSharedMemory(extinctionKernel<kPruned>, bytes, "configuring the extinction kernel");
        allowSharedMemory(forwardWaveKernel<kPruned>, bytes, "configuring the forward kernel");
        allowSharedMemory(splitChunkKernel<kPruned>, bytes, "configuring the split-chunk kernel");
        allowSharedMemory(likelihoodKernel<kPruned>, bytes, "configuring the likelihood kernel");
        allowSharedMemory(adjointWaveKernel<kPruned>, bytes, "configuring the adjoint kernel");
        allowSharedMemory(genewiseThetaKernel<kPruned>, bytes, "configuring the E-adjoint kernel");
    };
    allow(std::false_type{});
    allow(std::true_type{});
    allowSharedMemory(prunedThetaKernel, bytes, "configuring the pruned trees' E-adjoint kernel");
}

int teamsPerMultiprocessor(const SpeciesView& s) {
    const std::size_t bytes = teamSharedBytes(s.n, forwardScratchVectors(s, false));
    int blocks = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, forwardWaveKernel<false>, teamSize(s.n),
                                                        bytes),
          "reading the forward kernel's occupancy");
    return blocks;
}

void launchProbabilities(const double* theta, const int* entries, bool genewise, PresentRates present,
                         int sets, int n, const SetView& sv, cudaStream_t stream) {
    const long long count = static_cast<long long>(sets) * n;
    probabilitiesKernel<<<blocksFor(count, kElementBlock), kElementBlock, 0, stream>>>(
        theta, entries, genewise, present, sets, n, sv);
    checkLaunch("the rate-to-probability kernel");
}

void launchOriginPosterior(const CladeView& cv, const TableView& tab, int familyBegin, int families,
                           int familiesPerChunk, const double* rootSum, double* acc, cudaStream_t stream) {
    const long long entries = chunkEntries(familyBegin, familyBegin + families, familiesPerChunk, tab.n);
    originPosteriorKernel<<<blocksFor(entries, kElementBlock), kElementBlock, 0, stream>>>(
        cv, tab, familyBegin, families, familiesPerChunk, entries, rootSum, acc);
    checkLaunch("the origination-weight gradient kernel");
}

void launchExtinction(const SpeciesView& s, const SetView& sv, const SetView& eLoop, int sets,
                      const ExtinctionSettings& opt, cudaStream_t stream) {
    const std::size_t bytes = teamSharedBytes(s.n, scratchVectors(s.highways > 0));
    (sv.species ? extinctionKernel<true>
                : extinctionKernel<false>)<<<sets, teamSize(s.n), bytes, stream>>>(s, sv, eLoop, opt);
    checkLaunch("the extinction kernel");
}

void launchSplitChunks(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                       const SplitChunk* list, int count, const SplitChunkView& chunks,
                       double pibarSideThreshold, cudaStream_t stream) {
    if (count == 0) return;
    (sv.species ? splitChunkKernel<true>
                : splitChunkKernel<
                      false>)<<<count, teamSize(s.n), teamSharedBytes(s.n, kSplitChunkVectors), stream>>>(
        s, sv, cv, tab, list, chunks, pibarSideThreshold);
    checkLaunch("the split-chunk kernel");
}

void launchForwardWave(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                       const SplitChunkView& chunks, const int* clades, int count, const ForwardSettings& opt,
                       cudaStream_t stream) {
    if (count == 0) return;
    const std::size_t bytes = teamSharedBytes(s.n, forwardScratchVectors(s, opt.alerax));
    (sv.species ? forwardWaveKernel<true>
                : forwardWaveKernel<false>)<<<count, teamSize(s.n), bytes, stream>>>(s, sv, cv, tab, chunks,
                                                                                     clades, opt);
    checkLaunch("the forward (clade probability) kernel");
}

void launchCopyRows(const TableView& tab, const int* to, const int* from, int count, cudaStream_t stream) {
    if (count == 0) return;
    copyRowsKernel<<<count, kElementBlock, 0, stream>>>(tab, to, from);
    checkLaunch("the row copy kernel");
}

void launchLikelihood(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                      int familyBegin, int families, double* logLikelihood, double* rootSum,
                      cudaStream_t stream) {
    const std::size_t bytes = teamSharedBytes(s.n, scratchVectors(s.highways > 0));
    (sv.species ? likelihoodKernel<true>
                : likelihoodKernel<false>)<<<families, teamSize(s.n), bytes, stream>>>(
        s, sv, cv, tab, familyBegin, logLikelihood, rootSum);
    checkLaunch("the root likelihood kernel");
}

void launchAdjointWave(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                       const int* clades, int count, int familyBegin, const double* rootSum,
                       const double* largestDone, double* largestRunning, const AdjointSettings& opt,
                       cudaStream_t stream) {
    if (count == 0) return;
    const std::size_t bytes = teamSharedBytes(s.n, adjointScratchVectors(s));
    (sv.species ? adjointWaveKernel<true>
                : adjointWaveKernel<false>)<<<count, teamSize(s.n), bytes, stream>>>(
        s, sv, cv, tab, clades, familyBegin, rootSum, largestDone, largestRunning, opt);
    checkLaunch("the adjoint kernel");
}

void launchGradientGather(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                          const ChunkView& chunks, int chunkBegin, int chunkEnd, double pibarSideThreshold,
                          double* partial, cudaStream_t stream) {
    if (chunkEnd <= chunkBegin) return;
    const int ranges = static_cast<int>(blocksFor(s.n + s.highways, kElementBlock));
    (sv.species
         ? gradientGatherKernel<true>
         : gradientGatherKernel<
               false>)<<<static_cast<unsigned>(chunkEnd - chunkBegin) * ranges, kElementBlock, 0, stream>>>(
        s, sv, cv, tab, chunks, chunkBegin, ranges, pibarSideThreshold, partial);
    checkLaunch("the gradient gathering kernel");
}

void launchFoldChunks(const ChunkView& chunks, int familyBegin, int familyEnd, int chunkBegin,
                      long long width, double* partial, cudaStream_t stream) {
    const long long threads = static_cast<long long>(familyEnd - familyBegin) * width;
    if (threads == 0) return;
    foldChunksKernel<<<blocksFor(threads, kElementBlock), kElementBlock, 0, stream>>>(
        chunks, familyBegin, familyEnd - familyBegin, chunkBegin, width, partial);
    checkLaunch("the chunk folding kernel");
}

void launchAccumulateShared(const ChunkView& chunks, int familyBegin, int familyEnd, int chunkBegin,
                            int familiesPerChunk, SharedSlice slice, const double* partial, double* total,
                            cudaStream_t stream) {
    const long long entries = chunkEntries(familyBegin, familyEnd, familiesPerChunk, slice.width);
    accumulateSharedKernel<<<blocksFor(entries, kElementBlock), kElementBlock, 0, stream>>>(
        chunks, familyBegin, familyEnd, chunkBegin, familiesPerChunk, entries, slice, partial, total);
    checkLaunch("the shared-gradient accumulation kernel");
}

void launchGenewiseTheta(const SpeciesView& s, const SetView& sv, const CladeView& cv,
                         const ChunkView& chunks, int familyBegin, int familyEnd, int chunkBegin,
                         double* partial, const AdjointSettings& opt, double* theta, cudaStream_t stream) {
    if (familyEnd <= familyBegin) return;
    const std::size_t bytes = teamSharedBytes(s.n, scratchVectors(s.highways > 0));
    (sv.species ? genewiseThetaKernel<true>
                : genewiseThetaKernel<false>)<<<familyEnd - familyBegin, teamSize(s.n), bytes, stream>>>(
        s, sv, cv, chunks, familyBegin, chunkBegin, partial, opt, theta);
    checkLaunch("the E-adjoint kernel");
}

void launchPrunedTheta(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                       const ChunkView& chunks, int familyBegin, int familyEnd, int chunkBegin,
                       const double* rootSum, double* partial, const AdjointSettings& opt,
                       cudaStream_t stream) {
    if (familyEnd <= familyBegin) return;
    const std::size_t bytes = teamSharedBytes(s.n, scratchVectors(s.highways > 0));
    prunedThetaKernel<<<familyEnd - familyBegin, teamSize(s.n), bytes, stream>>>(
        s, sv, cv, tab, chunks, familyBegin, chunkBegin, rootSum, partial, opt);
    checkLaunch("the pruned trees' E-adjoint kernel");
}

void launchCountStats(const long long* values, long long count, unsigned long long* result,
                      cudaStream_t stream) {
    if (count == 0) return;
    const unsigned blocks = blocksFor(count, kStatsBlock) < 1024 ? blocksFor(count, kStatsBlock) : 1024;
    countStatsKernel<<<blocks, kStatsBlock, 0, stream>>>(values, count, result);
    checkLaunch("the statistics kernel");
}

void launchCountNaN(const double* values, std::size_t count, unsigned long long* result,
                    cudaStream_t stream) {
    if (count == 0) return;
    const unsigned blocks = 4096;
    countNaNKernel<<<blocks, kStatsBlock, 0, stream>>>(values, count, result);
    checkLaunch("the poison-count kernel");
}

} // namespace gpurec::gpu
