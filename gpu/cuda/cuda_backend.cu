// The CUDA LikelihoodBackend: dataset structure resident on the device, families in contiguous
// batches sized to the memory budget, each batch's clades solved in cross-family waves (forward from
// the leaves, adjoint from the roots), E and the per-family results on the device.
#include "batch_driver.hpp"
#include "batch_plan.hpp"
#include "cuda_support.hpp"
#include "host_structure.hpp"
#include "shared_gradient.hpp"
#include "solver_kernels.hpp"
#include "table_staging.hpp"

#include "engine/backend_factory.hpp"
#include "engine/evaluation_shape.hpp"
#include "engine/family_chunks.hpp"
#include "engine/family_solver.hpp"
#include "engine/species_operators.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>

namespace gpurec {

namespace gpu {
namespace {

std::string gib(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    return text;
}

// Usable CUDA devices; 0 when there is no driver or no device (never throws).
int cudaDeviceCount() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

// "cuda:0 NVIDIA H200 (139.8 GiB)" per usable device.
std::vector<std::string> cudaDeviceDescriptions() {
    std::vector<std::string> out;
    const int count = cudaDeviceCount();
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
        out.push_back("cuda:" + std::to_string(d) + " " + prop.name + " (" +
                      gib(static_cast<double>(prop.totalGlobalMem)) + ")");
    }
    return out;
}

// Device-to-device copy bandwidth of the device in bytes/s (reads plus writes).
double measureCudaCopyBandwidth(int device) {
    check(cudaSetDevice(device), "selecting the CUDA device");
    const std::size_t bytes = std::size_t(1) << 30;
    MemoryCounter counter;
    DeviceArray<char> a, b;
    a.allocate(bytes, counter, "allocating the bandwidth probe");
    b.allocate(bytes, counter, "allocating the bandwidth probe");
    check(cudaMemset(a.get(), 1, bytes), "running the bandwidth probe");
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "creating CUDA events");
    check(cudaEventCreate(&stop), "creating CUDA events");
    check(cudaMemcpy(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice), "running the bandwidth probe");
    const int repeats = 10;
    check(cudaEventRecord(start), "running the bandwidth probe");
    for (int i = 0; i < repeats; ++i)
        check(cudaMemcpy(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice), "running the bandwidth probe");
    check(cudaEventRecord(stop), "running the bandwidth probe");
    check(cudaEventSynchronize(stop), "running the bandwidth probe");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "running the bandwidth probe");
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return 2.0 * bytes * repeats / (ms / 1e3);
}

// Device copies of the HostStructure arrays.
struct Structure {
    DeviceArray<int> left, right, parent, sibling, upOffset, downOffset, rank, byRank;
    DeviceArray<NodeRecord> upRecords, downRecords;
    DeviceArray<double> invRecipients, upInvRecipients, downInvRecipients, missing;
    DeviceArray<int> splitOffset, splitLeft, splitRight, splitParent, parentOffset, parentSplits, geneSpecies,
        cladeFamily, familyRoot, familyOrigin, chunkFirst, chunkEnd;
    DeviceArray<double> splitWeight;
    DeviceArray<int> highwaySource, highwayDestination, fromOffset, highwaysFrom, intoOffset, highwaysInto;
    // --prune-species-tree: each tree node's full-tree node, each family's tree, and the tree of each
    // parameter set (SetView::species) for the rate mode of the sets last allocated.
    DeviceArray<int> fullNode, familyTree;
    DeviceArray<SpeciesView> setTrees;
};

// Per parameter set arrays (one set, or one per family in the genewise mode).
struct SetArrays {
    int sets = 0;
    DeviceArray<double> pS, pD, pL, pT, E, Ebar, diag, bar, denom, survive, eResidual;
    DeviceArray<UpCoefficients> up;
    DeviceArray<double> upDiag, upBarInv;
    DeviceArray<DownCoefficients> down;
    DeviceArray<OutsideCoefficients> outside;
    DeviceArray<int> eIterations, divergentNode;
    // The E equations' own loop constants, where the Π equations leave DL or TL terms out.
    DeviceArray<double> eDiag, eBar, eDenom, eUpDiag, eUpBarInv;
    DeviceArray<UpCoefficients> eUp;
    DeviceArray<DownCoefficients> eDown;
    DeviceArray<OutsideCoefficients> eOutside;
};

// Buffers sized for the largest batch of the plan.
struct BatchBuffers {
    DeviceArray<double> pi, pibar, adjoint, pibarPeak, partial, rootSum, largestDone, largestRunning;
    DeviceArray<int> scale;
    DeviceArray<long long> iterations;
    DeviceArray<int> waveClades, copySources, rowSource, familyChunkBegin, cladeSlot;
    DeviceArray<SplitChunk> splitChunks;
    void release() { *this = BatchBuffers{}; }
};

// The backend's stream and the events that time an evaluation phase by phase.
class StreamAndEvents {
  public:
    cudaStream_t stream = nullptr;
    StreamAndEvents() {
        check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "creating a CUDA stream");
    }
    StreamAndEvents(const StreamAndEvents&) = delete;
    StreamAndEvents& operator=(const StreamAndEvents&) = delete;
    ~StreamAndEvents() {
        cudaStreamSynchronize(stream);
        for (cudaEvent_t e : marks_)
            cudaEventDestroy(e);
        cudaStreamDestroy(stream);
    }
    void begin() {
        segments_.clear();
        record(0);
    }
    // Closes the phase running since the last mark.
    void end(EvaluationPhase phase) { close({phase, -1, -1, 0}); }
    // Closes one wave of a batch (wave profiling).
    void endWave(EvaluationPhase phase, int batch, int wave, int clades) {
        close({phase, batch, wave, clades});
    }
    // After the stream has been synchronised: device seconds per phase, per wave and in all.
    void read(DeviceRunInfo& info) const {
        info.phaseSeconds.fill(0.0);
        info.deviceSeconds = 0;
        info.waves.clear();
        for (std::size_t i = 0; i < segments_.size(); ++i) {
            float ms = 0;
            check(cudaEventElapsedTime(&ms, marks_[i], marks_[i + 1]), "reading CUDA event times");
            const Segment& g = segments_[i];
            info.phaseSeconds[static_cast<int>(g.phase)] += ms / 1e3;
            info.deviceSeconds += ms / 1e3;
            if (g.wave >= 0) info.waves.push_back({g.phase, g.batch, g.wave, g.clades, ms / 1e3});
        }
    }

  private:
    struct Segment {
        EvaluationPhase phase;
        int batch, wave, clades; // wave −1: a whole phase
    };
    void close(const Segment& segment) {
        segments_.push_back(segment);
        record(segments_.size());
    }
    void record(std::size_t mark) {
        if (mark == marks_.size()) {
            marks_.push_back(nullptr);
            check(cudaEventCreate(&marks_.back()), "creating CUDA events");
        }
        check(cudaEventRecord(marks_[mark], stream), "recording a CUDA event");
    }
    std::vector<cudaEvent_t> marks_; // reused across evaluations
    std::vector<Segment> segments_;  // segments_[i] runs from marks_[i] to marks_[i + 1]
};

// The pinned host buffer that families' tables are read through (table_staging.hpp): two halves,
// each with an event marking when the copies into it are done.
class PinnedStaging {
  public:
    explicit PinnedStaging(std::size_t halfDoubles)
        : halfDoubles_(halfDoubles),
          buffer_(storage_.reserve(2 * halfDoubles, "allocating the staging buffer")) {
        try {
            for (cudaEvent_t& e : done_)
                check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "creating CUDA events");
        } catch (...) {
            release();
            throw;
        }
    }
    PinnedStaging(const PinnedStaging&) = delete;
    PinnedStaging& operator=(const PinnedStaging&) = delete;
    ~PinnedStaging() { release(); }
    std::size_t halfDoubles() const { return halfDoubles_; }
    double* half(int h) const { return buffer_ + h * halfDoubles_; }
    cudaEvent_t done(int h) const { return done_[h]; }

  private:
    void release() {
        for (cudaEvent_t e : done_)
            if (e) cudaEventDestroy(e);
    }
    PinnedHostArray<double> storage_; // declared first: allocated before buffer_ points into it
    std::size_t halfDoubles_;
    double* buffer_;
    cudaEvent_t done_[2] = {nullptr, nullptr};
};

// The driving loop's executor on the device (batch_driver.hpp): the kernels of solver_kernels.cu on
// the backend's stream, with an event after each phase (and each wave when profiling).
struct DeviceExecutor {
    cudaStream_t stream;
    StreamAndEvents& timing;
    BatchBuffers& batch;
    int n;
    bool profileWaves;

    void splitChunks(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                     const SplitChunk* list, int count, const SplitChunkView& chunks, double threshold) {
        launchSplitChunks(s, sv, cv, tab, list, count, chunks, threshold, stream);
    }
    void forwardWave(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                     const SplitChunkView& chunks, const int* clades, int count, const ForwardSettings& opt) {
        launchForwardWave(s, sv, cv, tab, chunks, clades, count, opt, stream);
    }
    void copyRows(const TableView& tab, const int* to, const int* from, int count) {
        launchCopyRows(tab, to, from, count, stream);
    }
    void likelihood(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                    int familyBegin, int families, double* logLikelihood, double* rootSum) {
        launchLikelihood(s, sv, cv, tab, familyBegin, families, logLikelihood, rootSum, stream);
    }
    void originPosterior(const CladeView& cv, const TableView& tab, int familyBegin, int families,
                         int familiesPerChunk, const double* rootSum, double* acc) {
        launchOriginPosterior(cv, tab, familyBegin, families, familiesPerChunk, rootSum, acc, stream);
    }
    void adjointWave(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                     const int* clades, int count, int familyBegin, const double* rootSum,
                     const double* largestDone, double* largestRunning, const AdjointSettings& opt) {
        launchAdjointWave(s, sv, cv, tab, clades, count, familyBegin, rootSum, largestDone, largestRunning,
                          opt, stream);
    }
    void gradientGather(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                        const ChunkView& chunks, int chunkBegin, int chunkEnd, double threshold,
                        double* partial) {
        launchGradientGather(s, sv, cv, tab, chunks, chunkBegin, chunkEnd, threshold, partial, stream);
    }
    void foldChunks(const ChunkView& chunks, int familyBegin, int familyEnd, int chunkBegin, long long width,
                    double* partial) {
        launchFoldChunks(chunks, familyBegin, familyEnd, chunkBegin, width, partial, stream);
    }
    void accumulateShared(const ChunkView& chunks, int familyBegin, int familyEnd, int chunkBegin,
                          int familiesPerChunk, SharedSlice slice, const double* partial, double* total) {
        launchAccumulateShared(chunks, familyBegin, familyEnd, chunkBegin, familiesPerChunk, slice, partial,
                               total, stream);
    }
    void genewiseTheta(const SpeciesView& s, const SetView& sv, const CladeView& cv, const ChunkView& chunks,
                       int familyBegin, int familyEnd, int chunkBegin, double* partial,
                       const AdjointSettings& opt, double* theta) {
        launchGenewiseTheta(s, sv, cv, chunks, familyBegin, familyEnd, chunkBegin, partial, opt, theta,
                            stream);
    }
    void prunedTheta(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                     const ChunkView& chunks, int familyBegin, int familyEnd, int chunkBegin,
                     const double* rootSum, double* partial, const AdjointSettings& opt) {
        launchPrunedTheta(s, sv, cv, tab, chunks, familyBegin, familyEnd, chunkBegin, rootSum, partial, opt,
                          stream);
    }
    void countStats(const long long* values, long long count, unsigned long long* result) {
        launchCountStats(values, count, result, stream);
    }
    void countNaN(const double* values, std::size_t count, unsigned long long* result) {
        launchCountNaN(values, count, result, stream);
    }
    void zero(double* values, int count) {
        check(cudaMemsetAsync(values, 0, count * sizeof(double), stream), "clearing the adjoint maxima");
    }
    void copy(double* to, const double* from, int count) {
        check(cudaMemcpyAsync(to, from, count * sizeof(double), cudaMemcpyDeviceToDevice, stream),
              "updating the adjoint maxima");
    }
    void poison(const Batch& b) {
        const std::size_t rows = static_cast<std::size_t>(b.clades()) * n * sizeof(double);
        for (DeviceArray<double>* a : {&batch.pi, &batch.pibar, &batch.adjoint})
            check(cudaMemsetAsync(a->get(), 0xff, rows, stream), "poisoning the tables");
        check(cudaMemsetAsync(batch.partial.get(), 0xff, batch.partial.bytes(), stream),
              "poisoning the tables");
    }
    void endPhase(EvaluationPhase phase) { timing.end(phase); }
    void endWave(EvaluationPhase phase, int batchIndex, int wave, int clades) {
        if (profileWaves) timing.endWave(phase, batchIndex, wave, clades);
    }
};

class CudaBackend final : public LikelihoodBackend, public BackendDiagnostics {
  public:
    CudaBackend(std::shared_ptr<const Dataset> data, int device, const BatchLimits& limits)
        : data_(std::move(data)), device_(device), layout_(*data_), host_(*data_),
          schedule_(computeWaveSchedule(*data_)) {
        check(cudaSetDevice(device_), "selecting the CUDA device");
        cudaDeviceProp prop{};
        check(cudaGetDeviceProperties(&prop, device_), "reading the device properties");
        deviceName_ = "cuda:" + std::to_string(device_) + " " + prop.name;
        multiprocessors_ = prop.multiProcessorCount;
        configureTeams();
        classes_ = cladeClasses(schedule_, host_);
        timing_ = std::make_unique<StreamAndEvents>();
        stream_ = timing_->stream;
        uploadStructure();
        const int F = familyCount();
        allocateRates();
        entries_.allocate(3 * static_cast<std::size_t>(layout_.size), memory_, "allocating the rates");
        originWeights_.allocate(layout_.size, memory_, "allocating the origination weights");
        familyWeightsDevice_.allocate(F, memory_, "allocating the family weights");
        thetaGradient_.allocate(3 * static_cast<std::size_t>(F), memory_, "allocating the rate gradient");
        logLikelihood_.allocate(F, memory_, "allocating the log-likelihoods");
        counters_.allocate(CounterCount, memory_, "allocating counters");
        replan(limits);
    }

    ~CudaBackend() override { cudaSetDevice(device_); }

    std::string name() const override { return "cuda"; }

    void clearWarmStarts() override {
        std::lock_guard lock(mutex_);
        eWarm_ = false;
        tablesWarm_ = false;
        resident_.reset();
    }

    void replan(const BatchLimits& limits) override {
        std::lock_guard lock(mutex_);
        replanHeld(limits);
    }

    bool setNeededFamilies(const std::vector<char>& needed) override {
        std::lock_guard lock(mutex_);
        requireNeededFlags(*data_, needed);
        needed_ = needed;
        return true;
    }

    BatchLimits batchLimits() const override {
        std::lock_guard lock(mutex_);
        return limits_;
    }

    void setSpeciesTree(std::shared_ptr<const Dataset> data) override {
        std::lock_guard lock(mutex_);
        check(cudaSetDevice(device_), "selecting the CUDA device");
        requireSameFamilies(*data_, *data);
        data_ = std::move(data);
        layout_ = SpeciesLayout(*data_);
        const int highwaysBefore = host_.speciesView().highways;
        host_.setSpeciesTree(*data_);
        uploadSpeciesTree();
        eWarm_ = false;
        tablesWarm_ = false;
        resident_.reset();
        // Other highways (the highway search) change the teams' scratch and the gradient's chunk rows.
        if (host_.speciesView().highways != highwaysBefore) {
            configureTeams();
            allocateRates();
            replanHeld(limits_);
        }
    }

    std::string planSummary() const override {
        return deviceName_ + ": " + plan_.summary() + "; species tree height " +
               std::to_string(host_.maxHeight) + ", depth " + std::to_string(host_.maxDepth) + "; " +
               std::to_string(teamsPerSM_) + " clades per SM (" + std::to_string(teamSize(layout_.size)) +
               " threads each)";
    }

    void setPoisonOutputs(bool poison) override {
        std::lock_guard lock(mutex_);
        poison_ = poison;
        tablesWarm_ = false;
        resident_.reset();
    }

    void setWaveProfiling(bool on) override {
        std::lock_guard lock(mutex_);
        profileWaves_ = on;
    }

    DeviceRunInfo lastRun() const override { return last_; }

    double measureCopyBandwidth() override {
        std::lock_guard lock(mutex_);
        return measureCudaCopyBandwidth(device_);
    }

    void failNextAllocations(int count) override {
        std::lock_guard lock(mutex_);
        injectedFailures_ = count;
    }

    BackendDiagnostics* diagnostics() override { return this; }

    Evaluation evaluate(const RateParameters& theta, const SolverOptions& options, bool withGradient,
                        const std::vector<double>* familyWeights = nullptr) override {
        const auto wallStart = std::chrono::steady_clock::now();
        requireEvaluable(*data_, theta, options, familyWeights);
        std::lock_guard lock(mutex_);
        const bool sharedGradient = withGradient && theta.mode() != RateMode::Genewise;
        const bool origins = !theta.originWeights().empty();
        // Genewise rates share the highways' rates (one entry each per chunk row), the shared modes all.
        const int H = static_cast<int>(layout_.highways.size());
        const int rowLength = sharedGradient ? sharedRowLength(layout_.size, H, origins, nodeThetaRows(false))
                              : withGradient ? H
                                             : 0;
        Evaluation out = emptyEvaluation(*data_, theta, withGradient,
                                         poison_ ? std::numeric_limits<double>::quiet_NaN() : 0.0);
        // Families no longer needed are left out of the waves (output poisoning checks every family).
        const std::vector<char> none;
        const std::vector<char>& needed = poison_ ? none : needed_;
        // A share meets the others in the combine even when its own part failed: they would wait.
        std::exception_ptr failure;
        chunkRows_.clear();
        try {
            evaluateFamilies(theta, options, withGradient, familyWeights,
                             leavesFamiliesOut(theta, needed, withGradient) ? needed : none, out);
        } catch (...) {
            if (!share_) throw;
            failure = std::current_exception();
        }
        std::vector<double> total;
        if (share_)
            total = share_->combine(failure, out.stats, chunkRows_, rowLength);
        else if (rowLength > 0)
            total = sumChunkRows(chunkRows_, rowLength);
        if (sharedGradient)
            finishSharedGradient(theta, options, total, out);
        else if (withGradient && H > 0)
            addGenewiseHighwayGradient(theta, total, out.gradient);
        finishEvaluation(out, theta, needed, options, wallStart);
        return out;
    }

    bool joinShares(std::shared_ptr<FamilyShareExchange> exchange) override {
        std::lock_guard lock(mutex_);
        share_ = std::move(exchange);
        eWarm_ = false;
        tablesWarm_ = false;
        resident_.reset();
        return true;
    }

    std::vector<FamilyTables> familyTables(const RateParameters& theta, const SolverOptions& options,
                                           const std::vector<int>& families) override {
        requireEvaluable(*data_, theta, options);
        requireFamilies(*data_, families);
        std::lock_guard lock(mutex_);
        check(cudaSetDevice(device_), "selecting the CUDA device");
        const int n = layout_.size;
        const bool genewise = theta.mode() == RateMode::Genewise;
        // The tables of one batch are still on the device at these rates (a sampling run asks for its
        // families in groups): read them again instead of solving again.
        bool reuse = resident_ && resident_->holds(theta, options);
        for (int f : families)
            reuse = reuse && f >= plan_.batches[resident_->batch].familyBegin &&
                    f < plan_.batches[resident_->batch].familyEnd;
        SolverStats eStats;
        const SetView sv = reuse ? setView() : solveSets(theta, options, eStats);
        const std::size_t setEntries = static_cast<std::size_t>(sets_.sets) * n;
        std::vector<std::vector<double>> set(6, std::vector<double>(setEntries));
        const DeviceArray<double>* setArrays[6] = {&sets_.pS, &sets_.pD, &sets_.pL,
                                                   &sets_.pT, &sets_.E,  &sets_.Ebar};
        for (int k = 0; k < 6; ++k)
            check(cudaMemcpyAsync(set[k].data(), setArrays[k]->get(), setEntries * sizeof(double),
                                  cudaMemcpyDeviceToHost, stream_),
                  "reading E");
        std::vector<double> residual(sets_.sets);
        check(cudaMemcpyAsync(residual.data(), sets_.eResidual.get(), residual.size() * sizeof(double),
                              cudaMemcpyDeviceToHost, stream_),
              "reading E");
        const CladeView cv = cladeView(genewise);
        const ForwardSettings fwd = forwardSettings(options);
        std::vector<FamilyTables> out(families.size());
        std::vector<std::vector<long long>> iterations(families.size());
        if (!reuse && !wavesNeeded_.empty()) uploadWaves({}); // every family's clades, as asked
        // A batch's tables stay on the device only until the next batch runs: each batch holding a
        // requested family is solved and its families' rows read before the next one.
        for (std::size_t b = 0; b < plan_.batches.size(); ++b) {
            const Batch& batch = plan_.batches[b];
            bool needed = false;
            for (int f : families)
                needed = needed || (f >= batch.familyBegin && f < batch.familyEnd);
            if (!needed) continue;
            if (!reuse) {
                runBatch(b, sv, cv, fwd, AdjointSettings{}, false, genewise);
                if (!poison_) resident_ = ResidentTables{b, theta, options};
            }
            std::vector<int> listed; // positions in `families` of this batch's families
            for (std::size_t i = 0; i < families.size(); ++i)
                if (families[i] >= batch.familyBegin && families[i] < batch.familyEnd)
                    listed.push_back(static_cast<int>(i));
            readBatchTables(batch, families, listed, out, iterations);
        }
        check(cudaStreamSynchronize(stream_), "reading E");
        tablesWarm_ = options.schedule == Schedule::Converged && !poison_;
        for (std::size_t i = 0; i < families.size(); ++i) {
            FamilyTables& t = out[i];
            const int f = families[i], setIndex = genewise ? f : host_.familyTree[f];
            const TreeOffsets& tree = host_.trees[host_.familyTree[f]];
            const std::size_t o = static_cast<std::size_t>(setIndex) * n;
            std::vector<double>* parts[6] = {&t.p.pS, &t.p.pD, &t.p.pL, &t.p.pT, &t.E, &t.Ebar};
            for (int k = 0; k < 6; ++k)
                parts[k]->assign(set[k].begin() + o, set[k].begin() + o + tree.n);
            // A pruned tree's tables name its nodes' full-tree nodes (the CPU's speciesNodes).
            if (host_.familyTree[f] != 0)
                t.speciesNodes.assign(host_.fullNode.begin() + tree.node,
                                      host_.fullNode.begin() + tree.node + tree.n);
            // The highways' probabilities the sampler draws from, as the CPU computes them.
            if (!data_->highways.empty())
                t.p.pH = theta
                             .probabilities(genewise ? families[i] : 0, data_->events.presentRates(),
                                            data_->highways)
                             .pH;
            CladeTables& c = t.clades;
            c.cladeSelfIterations.assign(iterations[i].begin(), iterations[i].end());
            for (int it : c.cladeSelfIterations) {
                c.selfIterations += it;
                c.maxSelfIterations = std::max(c.maxSelfIterations, it);
            }
            // The origination weights at the tree's nodes, as the tables are (the CPU's keptValues).
            const std::vector<double> weights = theta.originWeights();
            t.originWeights.clear();
            for (int e = 0; e < tree.n && !weights.empty(); ++e)
                t.originWeights.push_back(weights[host_.fullNode[tree.node + e]]);
            const double r = residual[setIndex];
            t.stats.eEarly.note(options.schedule == Schedule::Converged && r > options.e_tol ? 1 : 0, r);
        }
        return out;
    }

  private:
    // Parameter sets: one per family (genewise), else one per tree (one without pruning).
    int setCount(bool genewise) const {
        return genewise ? familyCount() : static_cast<int>(host_.trees.size());
    }

    // The tree of each parameter set (SetView::species) with pruned trees: each family's own
    // (genewise), else each tree's.
    void uploadSetTrees(bool genewise) {
        setTreesGenewise_ = genewise;
        setTreesStale_ = false;
        if (!host_.pruned()) return;
        const std::vector<SpeciesView> trees = host_.treeViews(speciesView(), s_.fullNode.get());
        std::vector<SpeciesView> perSet;
        if (genewise)
            for (int t : host_.familyTree)
                perSet.push_back(trees[t]);
        else
            perSet = trees;
        s_.setTrees.upload(perSet, memory_, "uploading the pruned species trees");
    }

    // The team kernels' shared memory for this tree (transfer highways take one more row per team).
    void configureTeams() {
        const bool highways = !layout_.highways.empty();
        if (layout_.size > maxTeamSpecies(highways))
            throw std::runtime_error(
                "the species tree has " + std::to_string(layout_.size) +
                " nodes; the CUDA backend keeps a clade's rows in one block's shared memory, "
                "which holds at most " +
                std::to_string(maxTeamSpecies(highways)) + " nodes on this device" +
                (highways ? " with transfer highways" : "") + " (use --device cpu)");
        configureTeamKernels(layout_.size, highways);
        teamsPerSM_ = teamsPerMultiprocessor(host_.speciesView());
    }

    // θ on the device: rows of 3 per family or node, or a class parametrisation's entries (4 types
    // per node at most), the origination weights and the highways' rates; and the highways' ρ and
    // per-node sums (highwayRates).
    void allocateRates() {
        const std::size_t size =
            4 * static_cast<std::size_t>(std::max(familyCount(), layout_.size)) + 4 + data_->highways.size();
        if (theta_.size() < size) theta_.allocate(size, memory_, "allocating the rates");
        highwayRate_.allocate(data_->highways.size(), memory_, "allocating the highway rates");
        highwayExtra_.allocate(data_->highways.empty() ? 0 : layout_.size, memory_,
                               "allocating the highway rates");
    }

    // replan() with mutex_ held.
    void replanHeld(const BatchLimits& limits) {
        check(cudaSetDevice(device_), "selecting the CUDA device");
        limits_ = limits;
        tablesWarm_ = false;
        resident_.reset();
        batch_.release();
        std::size_t freeBytes = 0, totalBytes = 0;
        check(cudaMemGetInfo(&freeBytes, &totalBytes), "reading the free device memory");
        // What is already held counts against the budget; keep a margin for the CUDA runtime.
        const double usable = memory_.current + 0.95 * static_cast<double>(freeBytes) - 256e6;
        double budget = limits.memoryBytes > 0 ? std::min(limits.memoryBytes, usable) : usable;
        for (int attempt = 0;; ++attempt) {
            plan_ = makePlan(budget);
            try {
                if (injectedFailures_ > 0) {
                    --injectedFailures_;
                    throw CudaError("allocating the batch tables (injected)", cudaErrorMemoryAllocation);
                }
                allocateBatchBuffers();
                return;
            } catch (const CudaError& e) {
                batch_.release();
                if (!e.outOfMemory() || attempt >= 8 || plan_.maxFamilies == 1) throw;
                budget *= 0.75; // out of memory despite the plan (fragmentation, other processes)
            }
        }
    }

    int familyCount() const { return static_cast<int>(data_->families.size()); }

    // Starts the evaluation's timing, clears the counters and solves p and E of every parameter set
    // on the device (their iterations and early stops into `stats`).
    SetView solveSets(const RateParameters& theta, const SolverOptions& options, SolverStats& stats) {
        const bool converged = options.schedule == Schedule::Converged;
        const bool genewise = theta.mode() == RateMode::Genewise;
        const int sets = setCount(genewise);
        resident_.reset(); // the tables on the device were solved with the E about to be replaced
        if (sets_.sets != sets) allocateSets(sets);
        if (setTreesStale_ || setTreesGenewise_ != genewise) uploadSetTrees(genewise);
        timing_->begin();
        check(cudaMemsetAsync(counters_.get(), 0, counters_.bytes(), stream_), "clearing counters");
        const SetView sv = setView();
        if (theta.theta().size() > theta_.size())
            throw std::logic_error("more rate parameters than the backend holds");
        check(cudaMemcpyAsync(theta_.get(), theta.theta().data(), theta.theta().size() * sizeof(double),
                              cudaMemcpyHostToDevice, stream_),
              "uploading the rates");
        if (!genewise) {
            const std::vector<int> entries = theta.sharedEntries();
            check(cudaMemcpyAsync(entries_.get(), entries.data(), entries.size() * sizeof(int),
                                  cudaMemcpyHostToDevice, stream_),
                  "uploading the rates");
        }
        originOptimized_ = theta.optimizesOrigination();
        if (originOptimized_) {
            const std::vector<double> weights = theta.originWeights();
            check(cudaMemcpyAsync(originWeights_.get(), weights.data(), weights.size() * sizeof(double),
                                  cudaMemcpyHostToDevice, stream_),
                  "uploading the origination weights");
        }
        if (!data_->highways.empty()) {
            highwayRates_ = highwayRates(theta, data_->highways, layout_.size);
            check(cudaMemcpyAsync(highwayRate_.get(), highwayRates_.rate.data(),
                                  highwayRates_.rate.size() * sizeof(double), cudaMemcpyHostToDevice,
                                  stream_),
                  "uploading the highway rates");
            check(cudaMemcpyAsync(highwayExtra_.get(), highwayRates_.extra.data(),
                                  highwayRates_.extra.size() * sizeof(double), cudaMemcpyHostToDevice,
                                  stream_),
                  "uploading the highway rates");
        }
        launchProbabilities(theta_.get(), entries_.get(), genewise, data_->events.presentRates(), sets,
                            layout_.size, sv, stream_);
        ExtinctionSettings ext{!converged, options.e_max_iter, options.e_tol, options.e_init,
                               converged && eWarm_};
        launchExtinction(speciesView(), sv, extinctionLoopView(sv), sets, ext, stream_);
        timing_->end(EvaluationPhase::Extinction);
        checkExtinction(options, stats);
        eWarm_ = converged;
        return sv;
    }

    ForwardSettings forwardSettings(const SolverOptions& options) const {
        // Without TL terms a clade's loop is solved exactly by the converged path's first pass, as
        // AleRax solves it (UndatedDL, --no-tl): the 4 sweeps are for the coupled loop only.
        const bool alerax = options.schedule == Schedule::AleRax && data_->events.cladeTransferLoss();
        const bool converged = options.schedule == Schedule::Converged;
        return ForwardSettings{alerax, options.pi_iters, options.pi_tol, options.pibar_side_threshold,
                               converged && tablesWarm_ && plan_.batches.size() == 1 && !poison_};
    }

    // Reads the tables of families[i], i in `listed` (all in `batch`), out of the batch's tables
    // (rows of each family's tree's nodes: a pruned tree's rows are the first entries of the
    // device's rows): Π and Π̄ through the pinned staging buffer, a chunk copied out of one half on
    // the host's cores while the device fills the other; scales and self-loop iterations directly.
    void readBatchTables(const Batch& batch, const std::vector<int>& families, const std::vector<int>& listed,
                         std::vector<FamilyTables>& out, std::vector<std::vector<long long>>& iterations) {
        const char* what = "reading the tables";
        std::vector<std::pair<int, int>> shapes;
        std::vector<CladeTables*> tables;
        for (int i : listed) {
            const int f = families[i], first = host_.familyCladeBegin[f] - batch.cladeBegin;
            CladeTables& c = out[i].clades;
            c.clades = host_.familyCladeBegin[f + 1] - host_.familyCladeBegin[f];
            c.species = host_.trees[host_.familyTree[f]].n;
            shapes.emplace_back(c.clades, c.species);
            tables.push_back(&c);
            c.scale.resize(c.clades);
            iterations[i].resize(c.clades);
            check(cudaMemcpyAsync(c.scale.data(), batch_.scale.get() + first, c.clades * sizeof(int),
                                  cudaMemcpyDeviceToHost, stream_),
                  what);
            check(cudaMemcpyAsync(iterations[i].data(), batch_.iterations.get() + first,
                                  c.clades * sizeof(long long), cudaMemcpyDeviceToHost, stream_),
                  what);
        }
        if (!stagingTried_) {
            stagingTried_ = true;
            try {
                staging_ = std::make_unique<PinnedStaging>(stagingHalfDoubles());
            } catch (const CudaError&) { // no pinned memory to spare: every family is read directly
            }
        }
        const std::vector<StagingChunk> chunks =
            stagingChunks(shapes, staging_ ? staging_->halfDoubles() : 0);
        // Queues family k's rows of Π and Π̄ (k: into listed) to pi and pibar.
        auto queueRows = [&](const StagedFamily& k, double* pi, double* pibar) {
            const std::size_t n = layout_.size, width = k.width;
            const std::size_t offset =
                static_cast<std::size_t>(host_.familyCladeBegin[families[listed[k.index]]] -
                                         batch.cladeBegin) *
                n;
            check(cudaMemcpy2DAsync(pi, width * sizeof(double), batch_.pi.get() + offset, n * sizeof(double),
                                    width * sizeof(double), k.clades, cudaMemcpyDeviceToHost, stream_),
                  what);
            check(cudaMemcpy2DAsync(pibar, width * sizeof(double), batch_.pibar.get() + offset,
                                    n * sizeof(double), width * sizeof(double), k.clades,
                                    cudaMemcpyDeviceToHost, stream_),
                  what);
        };
        double* const halves[2] = {staging_ ? staging_->half(0) : nullptr,
                                   staging_ ? staging_->half(1) : nullptr};
        readChunks(
            chunks, halves, tables, queueRows,
            [&](int h) { check(cudaEventRecord(staging_->done(h), stream_), what); },
            [&](int h) { check(cudaEventSynchronize(staging_->done(h)), what); },
            [&] { check(cudaStreamSynchronize(stream_), what); });
    }

    // A half of the staging buffer: the largest family's Π and Π̄ rows, so every family can be staged,
    // within 32–256 MB (small halves let a sampling group's chunks overlap; larger families are read
    // directly).
    std::size_t stagingHalfDoubles() const {
        std::size_t largest = 0;
        for (int f = 0; f < familyCount(); ++f)
            largest = std::max(
                largest,
                2 * static_cast<std::size_t>(host_.familyCladeBegin[f + 1] - host_.familyCladeBegin[f]) *
                    static_cast<std::size_t>(host_.trees[host_.familyTree[f]].n));
        constexpr std::size_t kMB = (std::size_t{1} << 20) / sizeof(double);
        return std::clamp(largest, 32 * kMB, 256 * kMB);
    }

    void uploadStructure() {
        uploadSpeciesTree();
        const HostStructure& h = host_;
        const char* what = "uploading the clade structure";
        s_.splitOffset.upload(h.splitOffset, memory_, what);
        s_.splitLeft.upload(h.splitLeft, memory_, what);
        s_.splitRight.upload(h.splitRight, memory_, what);
        s_.splitWeight.upload(h.splitWeight, memory_, what);
        s_.splitParent.upload(h.splitParent, memory_, what);
        s_.parentOffset.upload(h.parentOffset, memory_, what);
        s_.parentSplits.upload(h.parentSplits, memory_, what);
        s_.cladeFamily.upload(h.cladeFamily, memory_, what);
        s_.familyRoot.upload(h.familyRoot, memory_, what);
        s_.chunkFirst.upload(h.chunkFirst, memory_, what);
        s_.chunkEnd.upload(h.chunkEnd, memory_, what);
    }

    // What HostStructure::setSpeciesTree recomputes.
    void uploadSpeciesTree() {
        const HostStructure& h = host_;
        const char* species = "uploading the species tree";
        s_.left.upload(h.left, memory_, species);
        s_.right.upload(h.right, memory_, species);
        s_.parent.upload(h.parent, memory_, species);
        s_.sibling.upload(h.sibling, memory_, species);
        s_.missing.upload(h.missing, memory_, species);
        s_.rank.upload(h.rank, memory_, species);
        s_.byRank.upload(h.byRank, memory_, species);
        s_.invRecipients.upload(h.invRecipients, memory_, species);
        s_.upOffset.upload(h.upOffset, memory_, species);
        s_.upRecords.upload(h.upRecords, memory_, species);
        s_.upInvRecipients.upload(h.upInvRecipients, memory_, species);
        s_.downOffset.upload(h.downOffset, memory_, species);
        s_.downRecords.upload(h.downRecords, memory_, species);
        s_.downInvRecipients.upload(h.downInvRecipients, memory_, species);
        s_.geneSpecies.upload(h.geneSpecies, memory_, species);
        s_.familyOrigin.upload(h.familyOrigin, memory_, species);
        s_.highwaySource.upload(h.highwaySource, memory_, species);
        s_.highwayDestination.upload(h.highwayDestination, memory_, species);
        s_.fromOffset.upload(h.fromOffset, memory_, species);
        s_.highwaysFrom.upload(h.highwaysFrom, memory_, species);
        s_.intoOffset.upload(h.intoOffset, memory_, species);
        s_.highwaysInto.upload(h.highwaysInto, memory_, species);
        s_.fullNode.upload(h.fullNode, memory_, species);
        s_.familyTree.upload(h.familyTree, memory_, species);
        setTreesStale_ = true; // the sets' trees point into the arrays just replaced
    }

    BatchPlan makePlan(double budget) const {
        const int F = familyCount();
        const double n = layout_.size;
        BatchPlanInput in;
        in.species = layout_.size;
        in.highways = static_cast<int>(layout_.highways.size());
        in.nodeThetaRows = nodeThetaRows(false);
        in.familyClades = host_.familyCladeCounts();
        for (const GeneFamily& f : data_->families)
            in.familyNames.push_back(f.name);
        in.budgetBytes = budget;
        // Held now (structure and rates, less batch buffers), the genewise worst case of the parameter
        // sets, and the wave lists.
        const double loopBytes =
            5 * 8 + sizeof(UpCoefficients) + sizeof(DownCoefficients) + sizeof(OutsideCoefficients);
        const double setBytes = static_cast<double>(std::max(F, setCount(false))) *
                                ((6 * 8 + loopBytes * (ownExtinctionLoop() ? 2 : 1)) * n + 8 + 8 + 4 + 4);
        in.familySplitChunkRows = host_.familySplitChunkRows(kChunkSplits);
        in.narrowWaveChunkRows = splitChunking().narrowWaveRows();
        // The chunks of clades of more than kChunkSplits splits, and at most narrowWaveRows() more
        // per wave narrower than the device.
        double splitChunks = static_cast<double>(in.narrowWaveChunkRows) * schedule_.waves.size();
        for (int rows : in.familySplitChunkRows)
            splitChunks += rows;
        // Wave lists, clades' chunk slots and row sources, the repeated clades' sources and the chunk
        // list.
        in.fixedBytes = memory_.current - setArrayBytes() + setBytes + 16.0 * host_.cladeCount() +
                        sizeof(SplitChunk) * splitChunks + 4.0 * (F + 1);
        in.maxFamiliesPerBatch = limits_.maxFamiliesPerBatch;
        in.familyChunks = host_.familyChunks;
        return planBatches(in);
    }

    double setArrayBytes() const {
        return static_cast<double>(sets_.pS.bytes()) + sets_.up.bytes() + sets_.upDiag.bytes() +
               sets_.upBarInv.bytes() + sets_.down.bytes() + sets_.outside.bytes() + sets_.pD.bytes() +
               sets_.pL.bytes() + sets_.pT.bytes() + sets_.E.bytes() + sets_.Ebar.bytes() +
               sets_.diag.bytes() + sets_.bar.bytes() + sets_.denom.bytes() + sets_.survive.bytes() +
               sets_.eResidual.bytes() + sets_.eIterations.bytes() + sets_.divergentNode.bytes() +
               sets_.eDiag.bytes() + sets_.eBar.bytes() + sets_.eDenom.bytes() + sets_.eUpDiag.bytes() +
               sets_.eUpBarInv.bytes() + sets_.eUp.bytes() + sets_.eDown.bytes() + sets_.eOutside.bytes();
    }

    // The Π equations leave out terms the E equations keep (--no-dl, --no-tl): the E adjoint needs
    // its own loop constants.
    bool ownExtinctionLoop() const { return !layout_.cladeDuplicationLoss || !layout_.cladeTransferLoss; }

    void allocateBatchBuffers() {
        const std::size_t n = layout_.size;
        const std::size_t C = plan_.maxClades, Fb = plan_.maxFamilies, chunks = plan_.maxChunks;
        const char* what = "allocating the batch tables";
        batch_.pi.allocate(C * n, memory_, what);
        batch_.pibar.allocate(C * n, memory_, what);
        batch_.adjoint.allocate(C * n, memory_, what);
        batch_.scale.allocate(C, memory_, what);
        batch_.pibarPeak.allocate(C, memory_, what);
        batch_.iterations.allocate(C, memory_, what);
        const long long rows = partialRows(static_cast<long long>(chunks), plan_.maxSplitChunkRows,
                                           layout_.size, plan_.highways, plan_.nodeThetaRows);
        batch_.partial.allocate(static_cast<std::size_t>(rows) * n, memory_, what);
        batch_.rootSum.allocate(Fb, memory_, what);
        batch_.largestDone.allocate(Fb, memory_, what);
        batch_.largestRunning.allocate(Fb, memory_, what);
        uploadWaves({});
        batch_.familyChunkBegin.upload(plan_.familyChunkBegin, memory_, "uploading the gradient chunks");
    }

    // The wave lists of `needed`'s families (empty: every family's) on the device; a batch holding
    // none of them has no waves. Fewer clades than the plan's need no more partial rows than it
    // allocated.
    // Narrow waves' split terms spread over the teams the device runs at once.
    SplitChunking splitChunking() const { return SplitChunking{teamsPerSM_ * multiprocessors_}; }

    void uploadWaves(const std::vector<char>& needed) {
        BatchWaves waves = batchWaves(schedule_, host_, plan_, classes_, splitChunking(),
                                      needed.empty() ? nullptr : &needed);
        if (waves.maxWaveChunks > static_cast<long long>(batch_.partial.size() / layout_.size))
            throw std::logic_error("split chunks exceed the planned partial rows");
        batch_.waveClades.upload(waves.clades, memory_, "uploading the wave schedule");
        batch_.copySources.upload(waves.copySources, memory_, "uploading the wave schedule");
        batch_.rowSource.upload(waves.rowSource, memory_, "uploading the wave schedule");
        batch_.cladeSlot.upload(waves.cladeSlot, memory_, "uploading the wave schedule");
        batch_.splitChunks.upload(waves.chunks, memory_, "uploading the wave schedule");
        waves_ = std::move(waves.waves);
        waveChunks_ = std::move(waves.waveChunks);
        waveCopies_ = std::move(waves.waveCopies);
        if (!needed.empty()) neededDevice_.upload(needed, memory_, "uploading the needed families");
        wavesNeeded_ = needed;
    }

    void allocateSets(int sets) {
        sets_ = SetArrays{};
        const std::size_t count = static_cast<std::size_t>(sets) * layout_.size;
        const char* what = "allocating the rate and extinction arrays";
        for (DeviceArray<double>* a : {&sets_.pS, &sets_.pD, &sets_.pL, &sets_.pT, &sets_.E, &sets_.Ebar,
                                       &sets_.diag, &sets_.bar, &sets_.denom})
            a->allocate(count, memory_, what);
        sets_.up.allocate(count, memory_, what);
        sets_.upDiag.allocate(count, memory_, what);
        sets_.upBarInv.allocate(count, memory_, what);
        sets_.down.allocate(count, memory_, what);
        sets_.outside.allocate(count, memory_, what);
        if (ownExtinctionLoop()) {
            for (DeviceArray<double>* a :
                 {&sets_.eDiag, &sets_.eBar, &sets_.eDenom, &sets_.eUpDiag, &sets_.eUpBarInv})
                a->allocate(count, memory_, what);
            sets_.eUp.allocate(count, memory_, what);
            sets_.eDown.allocate(count, memory_, what);
            sets_.eOutside.allocate(count, memory_, what);
        }
        sets_.survive.allocate(sets, memory_, what);
        sets_.eResidual.allocate(sets, memory_, what);
        sets_.eIterations.allocate(sets, memory_, what);
        sets_.divergentNode.allocate(sets, memory_, what);
        sets_.sets = sets;
        eWarm_ = false;
    }

    SpeciesView speciesView() const {
        SpeciesView v = host_.speciesView();
        v.left = s_.left.get();
        v.right = s_.right.get();
        v.parent = s_.parent.get();
        v.sibling = s_.sibling.get();
        v.missing = s_.missing.get();
        v.rank = s_.rank.get();
        v.byRank = s_.byRank.get();
        v.invRecipients = s_.invRecipients.get();
        v.upOffset = s_.upOffset.get();
        v.upRecords = s_.upRecords.get();
        v.upInvRecipients = s_.upInvRecipients.get();
        v.downOffset = s_.downOffset.get();
        v.downRecords = s_.downRecords.get();
        v.downInvRecipients = s_.downInvRecipients.get();
        v.highwaySource = s_.highwaySource.get();
        v.highwayDestination = s_.highwayDestination.get();
        v.fromOffset = s_.fromOffset.get();
        v.highwaysFrom = s_.highwaysFrom.get();
        v.intoOffset = s_.intoOffset.get();
        v.highwaysInto = s_.highwaysInto.get();
        return v;
    }

    SetView setView() {
        SetView v{sets_.pS.get(),          sets_.pD.get(),        sets_.pL.get(),
                  sets_.pT.get(),          sets_.E.get(),         sets_.Ebar.get(),
                  sets_.diag.get(),        sets_.bar.get(),       sets_.denom.get(),
                  sets_.up.get(),          sets_.upDiag.get(),    sets_.upBarInv.get(),
                  sets_.down.get(),        sets_.outside.get(),   sets_.survive.get(),
                  sets_.eIterations.get(), sets_.eResidual.get(), sets_.divergentNode.get()};
        v.highwayRate = highwayRate_.get();
        v.highwayExtra = highwayExtra_.get();
        v.highwayCoupling = !layout_.highways.empty() && layout_.cladeTransferLoss;
        v.species = host_.pruned() ? s_.setTrees.get() : nullptr;
        return v;
    }

    // The node θ rows of the shared gradient's chunks (ChunkView::nodeThetaRows): with pruning under
    // shared rates, decided by the option, not by this share's trees, so every share sends the same rows.
    int nodeThetaRows(bool genewise) const {
        return nodeThetaRowsOf(data_->pruneSpeciesTree && !genewise,
                               data_->origination == Origination::Optimize);
    }

    // sv with the E equations' loop constants in place of the Π equations' (sv itself when equal).
    SetView extinctionLoopView(SetView sv) {
        sv.highwayCoupling = !layout_.highways.empty();
        if (!ownExtinctionLoop()) return sv;
        sv.diag = sets_.eDiag.get();
        sv.bar = sets_.eBar.get();
        sv.denom = sets_.eDenom.get();
        sv.up = sets_.eUp.get();
        sv.upDiag = sets_.eUpDiag.get();
        sv.upBarInv = sets_.eUpBarInv.get();
        sv.down = sets_.eDown.get();
        sv.outside = sets_.eOutside.get();
        return sv;
    }

    CladeView cladeView(bool genewise) const {
        CladeView v{s_.splitOffset.get(), s_.splitLeft.get(),    s_.splitRight.get(),   s_.splitWeight.get(),
                    s_.splitParent.get(), s_.parentOffset.get(), s_.parentSplits.get(), s_.geneSpecies.get(),
                    s_.cladeFamily.get(), s_.familyRoot.get(),   s_.familyOrigin.get(), genewise};
        v.originWeights = originOptimized_ ? originWeights_.get() : nullptr;
        if (host_.pruned() && !genewise) v.familySet = s_.familyTree.get();
        return v;
    }

    ChunkView chunkView(bool genewise) const {
        return ChunkView{s_.chunkFirst.get(), s_.chunkEnd.get(), batch_.familyChunkBegin.get(),
                         nodeThetaRows(genewise), wavesNeeded_.empty() ? nullptr : neededDevice_.get()};
    }

    // Iterations, residual and early stops of the E solves; the CPU's message when a self loop diverges.
    void checkExtinction(const SolverOptions& options, SolverStats& stats) {
        const int sets = sets_.sets;
        std::vector<int> iterations(sets), divergent(sets);
        std::vector<double> residual(sets);
        check(cudaMemcpyAsync(iterations.data(), sets_.eIterations.get(), sets * sizeof(int),
                              cudaMemcpyDeviceToHost, stream_),
              "reading the extinction solve");
        check(cudaMemcpyAsync(divergent.data(), sets_.divergentNode.get(), sets * sizeof(int),
                              cudaMemcpyDeviceToHost, stream_),
              "reading the extinction solve");
        check(cudaMemcpyAsync(residual.data(), sets_.eResidual.get(), sets * sizeof(double),
                              cudaMemcpyDeviceToHost, stream_),
              "reading the extinction solve");
        check(cudaStreamSynchronize(stream_), "solving the extinction probabilities");
        const bool genewise = setTreesGenewise_;
        for (int s = 0; s < sets; ++s) {
            // The set's tree and the families whose E this is.
            const int tree = genewise ? host_.familyTree[s] : s;
            if (divergent[s] >= 0) {
                eWarm_ = false;
                const int node = host_.fullNode[host_.trees[tree].node + divergent[s]];
                throw std::runtime_error("the self loop of species node " + std::to_string(node) +
                                         " diverges (2 pD E + pT Ē >= 1): rates out of the model's range");
            }
            stats.eIterations = std::max(stats.eIterations, iterations[s]);
            stats.eResidual = std::max(stats.eResidual, residual[s]);
            if (options.schedule == Schedule::Converged && residual[s] > options.e_tol)
                stats.eEarly.note(1, residual[s], genewise ? 1 : host_.treeFamilies[s]);
        }
    }

    TableView tableView(const Batch& b) {
        return TableView{
            batch_.pi.get(),        batch_.pibar.get(),      batch_.adjoint.get(), batch_.scale.get(),
            batch_.pibarPeak.get(), batch_.iterations.get(), b.cladeBegin,         layout_.size};
    }

    // Forward (and adjoint) of one batch (batch_driver.hpp); returns the table bytes its kernels move.
    double runBatch(std::size_t index, const SetView& sv, const CladeView& cv, const ForwardSettings& fwd,
                    const AdjointSettings& adj, bool withGradient, bool genewise) {
        const Batch& b = plan_.batches[index];
        BatchJob j;
        j.batch = &b;
        j.index = static_cast<int>(index);
        j.waves = &waves_[index];
        j.waveChunks = &waveChunks_[index];
        j.waveCopies = &waveCopies_[index];
        j.waveClades = batch_.waveClades.get();
        j.copySources = batch_.copySources.get();
        j.rowSource = batch_.rowSource.get();
        j.splitChunks = batch_.splitChunks.get();
        j.s = speciesView();
        j.sv = sv;
        j.extinctionLoop = extinctionLoopView(sv);
        j.cv = cv;
        j.tab = tableView(b);
        j.chunks = SplitChunkView{batch_.cladeSlot.get(), batch_.partial.get()};
        j.gradientChunks = chunkView(genewise);
        j.fwd = fwd;
        j.adj = adj;
        j.withGradient = withGradient;
        j.genewise = genewise;
        j.poison = poison_;
        j.logLikelihood = logLikelihood_.get();
        j.rootSum = batch_.rootSum.get();
        j.largestDone = batch_.largestDone.get();
        j.largestRunning = batch_.largestRunning.get();
        j.partial = batch_.partial.get();
        j.familiesPerChunk = familiesPerChunk_;
        j.sharedTotal = sharedTotal_.get();
        j.thetaGradient = thetaGradient_.get();
        j.originPosterior = originOptimized_ ? originPosterior_.get() : nullptr;
        j.counters = counters_.get();
        DeviceExecutor x{stream_, *timing_, batch_, layout_.size, profileWaves_};
        runBatchSteps(x, j);
        long long splits = 0;
        for (int f = b.familyBegin; f < b.familyEnd; ++f)
            splits += data_->families[f].clades.splitCount();
        const double rowBytes = 8.0 * layout_.size;
        double moved = rowBytes * (2.0 * b.clades() + 4.0 * splits);
        if (withGradient) moved += rowBytes * (4.0 * b.clades() + 10.0 * splits);
        return moved;
    }

    // This dataset's families on the device (`needed`'s only, when not empty: their results are
    // those of every family's evaluation, the others' are left as the device had them):
    // log-likelihoods and statistics into `out`, with a gradient the genewise rows too, and the
    // gradient's chunk rows into chunkRows_ (readGradient).
    void evaluateFamilies(const RateParameters& theta, const SolverOptions& options, bool withGradient,
                          const std::vector<double>* familyWeights, const std::vector<char>& needed,
                          Evaluation& out) {
        check(cudaSetDevice(device_), "selecting the CUDA device");
        const int F = familyCount(), n = layout_.size;
        const bool genewise = theta.mode() == RateMode::Genewise;
        const bool converged = options.schedule == Schedule::Converged;
        const SetView sv = solveSets(theta, options, out.stats);
        // The families' gradient weights (a mixture's categories), read by the adjoint's seeds.
        familyWeights_ = familyWeights && withGradient ? *familyWeights : std::vector<double>{};
        CladeView cv = cladeView(genewise);
        if (!familyWeights_.empty()) {
            check(cudaMemcpyAsync(familyWeightsDevice_.get(), familyWeights_.data(),
                                  familyWeights_.size() * sizeof(double), cudaMemcpyHostToDevice, stream_),
                  "uploading the family weights");
            cv.familyWeights = familyWeightsDevice_.get();
        }
        const ForwardSettings fwd = forwardSettings(options);
        AdjointSettings adj{options.bicgstab_max_iter, options.bicgstab_tol, options.pibar_side_threshold,
                            options.use_adjoint_pruning, options.adjoint_pruning_threshold};
        const int H = static_cast<int>(layout_.highways.size());
        if (withGradient && (!genewise || H > 0)) {
            // The chunks of the CPU backend's sums, decided as a backend on the whole dataset decides them
            // (genewise rates share only the highways' rates: one family per chunk).
            const int rows = sharedGradientRows(originOptimized_, data_->pruneSpeciesTree),
                      nodes = genewise ? 0 : n;
            familiesPerChunk_ =
                share_ ? share_->familiesPerChunk(nodes, rows) : familiesPerChunk(F, nodes, rows);
            const std::size_t chunks = (F + familiesPerChunk_ - 1) / familiesPerChunk_;
            clearChunkRows(sharedTotal_, chunks * (genewise ? H : gradientWidth(n, H, nodeThetaRows(false))));
            if (originOptimized_) clearChunkRows(originPosterior_, chunks * n);
        }
        if (withGradient && genewise && poison_)
            check(cudaMemsetAsync(thetaGradient_.get(), 0xff, thetaGradient_.bytes(), stream_),
                  "poisoning the gradient");
        if (poison_)
            check(cudaMemsetAsync(logLikelihood_.get(), 0xff, logLikelihood_.bytes(), stream_),
                  "poisoning the log-likelihoods");
        if (needed != wavesNeeded_) uploadWaves(needed);
        double bytesMoved = 0;
        for (std::size_t b = 0; b < plan_.batches.size(); ++b) {
            if (waves_[b].empty()) continue; // none of its families needed
            bytesMoved += runBatch(b, sv, cv, fwd, adj, withGradient, genewise);
        }
        // One copy at the end: a copy to pageable memory after each batch would stall the host
        // while the next batch could already be queued.
        check(cudaMemcpyAsync(out.logLikelihood.data(), logLikelihood_.get(), F * sizeof(double),
                              cudaMemcpyDeviceToHost, stream_),
              "reading the log-likelihoods");
        if (withGradient) {
            readGradient(theta, genewise, out);
            timing_->end(EvaluationPhase::Gradient);
        }
        check(cudaStreamSynchronize(stream_), "running the evaluation");
        tablesWarm_ = converged && !poison_;
        if (!withGradient && !poison_ && needed.empty() && !plan_.batches.empty())
            resident_ = ResidentTables{plan_.batches.size() - 1, theta, options};

        unsigned long long counters[CounterCount];
        check(cudaMemcpy(counters, counters_.get(), sizeof counters, cudaMemcpyDeviceToHost),
              "reading counters");
        out.stats.piIterations += static_cast<long>(counters[ForwardSum]);
        out.stats.maxPiIterations = static_cast<int>(counters[ForwardMax]);
        if (withGradient) {
            out.stats.bicgstabIterations += static_cast<long>(counters[AdjointSum]);
            out.stats.prunedClades = static_cast<long>(counters[AdjointZero]);
        }
        last_ = DeviceRunInfo{};
        last_.device = deviceName_;
        timing_->read(last_);
        last_.peakBytes = memory_.peak;
        last_.budgetBytes = plan_.budgetBytes;
        last_.batches = static_cast<int>(plan_.batches.size());
        last_.unwrittenEntries = poison_ ? static_cast<long long>(counters[Unwritten]) : -1;
        last_.tableBytesMoved = bytesMoved;
        last_.cladesInFlight = teamsPerSM_ * multiprocessors_;
    }

    // Zeroed chunk rows of `count` doubles, grown when the chunks need more.
    void clearChunkRows(DeviceArray<double>& rows, std::size_t count) {
        if (rows.size() < count) rows.allocate(count, memory_, "allocating the gradient accumulators");
        check(cudaMemsetAsync(rows.get(), 0, count * sizeof(double), stream_), "clearing the gradient");
    }

    // Reads the gradient back: genewise rows into `out` (and the chunk rows of the highways' rates, if
    // any, into chunkRows_); the shared modes' chunk rows, through a pinned buffer, completed on the
    // host into chunkRows_, and E for finishSharedGradient.
    void readGradient(const RateParameters& theta, bool genewise, Evaluation& out) {
        const int F = familyCount(), n = layout_.size, H = static_cast<int>(layout_.highways.size());
        const std::size_t chunks = (F + familiesPerChunk_ - 1) / familiesPerChunk_;
        if (genewise) {
            check(cudaMemcpyAsync(out.gradient.data(), thetaGradient_.get(),
                                  3 * static_cast<std::size_t>(F) * sizeof(double), cudaMemcpyDeviceToHost,
                                  stream_),
                  "reading the gradient");
            chunkRows_.resize(H > 0 ? chunks * H : 0);
            if (!chunkRows_.empty()) {
                check(cudaMemcpyAsync(chunkRows_.data(), sharedTotal_.get(),
                                      chunkRows_.size() * sizeof(double), cudaMemcpyDeviceToHost, stream_),
                      "reading the gradient");
                check(cudaStreamSynchronize(stream_), "computing the gradient");
            }
            return;
        }
        const std::size_t count = chunks * gradientWidth(n, H, nodeThetaRows(false));
        double* deviceRows = deviceChunkRows_.reserve(count, "allocating the gradient's host rows");
        std::vector<double> posterior(originOptimized_ ? chunks * n : 0);
        ExtinctionState& ext = sharedExtinction_;
        ext.E.resize(n);
        ext.Ebar.resize(n);
        check(cudaMemcpyAsync(deviceRows, sharedTotal_.get(), count * sizeof(double), cudaMemcpyDeviceToHost,
                              stream_),
              "reading the gradient");
        check(
            cudaMemcpyAsync(ext.E.data(), sets_.E.get(), n * sizeof(double), cudaMemcpyDeviceToHost, stream_),
            "reading E");
        check(cudaMemcpyAsync(ext.Ebar.data(), sets_.Ebar.get(), n * sizeof(double), cudaMemcpyDeviceToHost,
                              stream_),
              "reading E");
        if (!posterior.empty())
            check(cudaMemcpyAsync(posterior.data(), originPosterior_.get(), posterior.size() * sizeof(double),
                                  cudaMemcpyDeviceToHost, stream_),
                  "reading the gradient");
        check(cudaStreamSynchronize(stream_), "computing the gradient");
        sharedChunkRows(theta, ext.E, host_.familyOrigin, familyWeights_, familiesPerChunk_,
                        {deviceRows, count}, posterior, chunkRows_, nodeThetaRows(false), host_.familyTree);
    }

    // θ gradient of the shared modes from the whole dataset's summed chunk rows: E eliminated on the
    // host with the CPU reference's code (one small solve), once for every family.
    void finishSharedGradient(const RateParameters& theta, const SolverOptions& options,
                              const std::vector<double>& total, Evaluation& out) {
        const KrylovStats ks =
            addSharedModeGradient(layout_, theta, options, total, sharedExtinction_,
                                  data_->events.presentRates(), out.gradient, nodeThetaRows(false));
        out.stats.bicgstabIterations += ks.iterations;
        out.stats.bicgstabBreakdowns += ks.breakdowns;
        out.stats.bicgstabEarly.note(ks.unconverged, ks.worstResidual,
                                     share_ ? share_->wholeFamilies() : familyCount());
    }

    std::shared_ptr<const Dataset> data_;
    int device_;
    std::string deviceName_;
    SpeciesLayout layout_;
    HostStructure host_;
    WaveSchedule schedule_; // the families' cross-family waves (clade sets only: kept across trees)
    BatchLimits limits_;
    std::unique_ptr<StreamAndEvents> timing_; // declared before the device arrays: freed after them
    cudaStream_t stream_ = nullptr;
    MemoryCounter memory_;
    Structure s_;
    SetArrays sets_;
    BatchBuffers batch_;
    DeviceArray<double> theta_, thetaGradient_, sharedTotal_, logLikelihood_, originWeights_,
        originPosterior_;
    DeviceArray<double> familyWeightsDevice_;
    DeviceArray<double> highwayRate_, highwayExtra_; // SetView::highwayRate, highwayExtra
    HighwayRates highwayRates_;                      // their host copies, until the upload is done
    std::vector<double> familyWeights_;              // of the evaluation in progress (empty: 1 each)
    std::shared_ptr<FamilyShareExchange> share_;     // this dataset is one share of a larger one (joinShares)
    int familiesPerChunk_ = 1;                       // of the shared gradient's chunk rows
    PinnedHostArray<double> deviceChunkRows_;        // those rows read back, reused
    std::vector<double> chunkRows_;                  // and completed (sharedChunkRows), reused
    ExtinctionState sharedExtinction_;               // E of the shared modes' gradient in progress
    DeviceArray<int> entries_;                       // RateParameters::sharedEntries of the shared modes
    bool originOptimized_ = false;                   // θ of the last solveSets holds origination weights
    DeviceArray<unsigned long long> counters_;
    BatchPlan plan_;
    std::vector<std::vector<std::pair<int, int>>> waves_;      // per batch: (offset, count) of each wave
    std::vector<std::vector<WaveChunks>> waveChunks_;          // the same for the waves' split chunks
    std::vector<std::vector<std::pair<int, int>>> waveCopies_; // and for their repeated clades' sources
    std::vector<int> classes_;                                 // cladeClasses: the same for any tree
    std::vector<char> needed_;               // per family (setNeededFamilies); empty: every family
    std::vector<char> wavesNeeded_;          // the families the uploaded waves hold (empty: every family)
    DeviceArray<char> neededDevice_;         // wavesNeeded_ on the device (ChunkView::needed)
    std::unique_ptr<PinnedStaging> staging_; // made at the first table read
    bool stagingTried_ = false;
    int teamsPerSM_ = 0, multiprocessors_ = 0;
    bool eWarm_ = false, tablesWarm_ = false, poison_ = false, profileWaves_ = false;
    bool setTreesGenewise_ = false; // the rate mode s_.setTrees was uploaded for
    bool setTreesStale_ = true;     // s_.setTrees not uploaded since the species tree's arrays were
    // Which batch's Π tables the device holds and at what rates; none once anything replaces them.
    struct ResidentTables {
        std::size_t batch = 0;
        RateParameters theta;
        SolverOptions options;
        bool holds(const RateParameters& t, const SolverOptions& o) const {
            return t.mode() == theta.mode() && t.theta() == theta.theta() && o == options;
        }
    };
    std::optional<ResidentTables> resident_;
    int injectedFailures_ = 0; // batch allocations still to fail (BackendDiagnostics::failNextAllocations)
    DeviceRunInfo last_;
    mutable std::mutex mutex_;
};

} // namespace
} // namespace gpu

// The CUDA backend joins the factory of core/engine (gpurec_devices links this file whole).
[[maybe_unused]] const bool registered = registerDeviceBackend(
    DeviceBackendKind{"cuda", "CUDA", [] { return gpu::cudaDeviceDescriptions(); },
                      [](std::shared_ptr<const Dataset> data, int device,
                         const BatchLimits& limits) -> std::unique_ptr<LikelihoodBackend> {
                          return std::make_unique<gpu::CudaBackend>(std::move(data), device, limits);
                      }});

} // namespace gpurec
