// The CUDA backend's solver steps (gpu/cuda/solver_steps.hpp) run serially on the host, driven by
// the backend's own batch loop (gpu/cuda/batch_driver.hpp) with a host executor, against the CPU
// reference: forward log-likelihoods and gradients in every rate mode, schedule and transfer
// constraint (RELDATED's scans over the rank order included), with poisoned tables that must all be
// written. Also the batch planner.
#include "cuda/batch_driver.hpp"
#include "cuda/host_structure.hpp"
#include "cuda/shared_gradient.hpp"
#include "cuda/solver_steps.hpp"
#include "data/dataset.hpp"
#include "data/origination.hpp"
#include "engine/backend.hpp"
#include "engine/family_chunks.hpp"
#include "engine/family_solver.hpp"
#include "engine/relative_error.hpp"
#include "engine/species_operators.hpp"
#include "highways/pairwise_transfers.hpp"
#include "optim/parameter_classes.hpp"
#include "support.hpp"

#include <QtTest>
#include <algorithm>
#include <barrier>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <set>
#include <thread>

using namespace gpurec;
using namespace gpurec::gpu;
using namespace gpurec::test;

namespace {

// The driving loop's executor on the host (batch_driver.hpp): each kernel's blocks one after another
// as SerialTeams, on host vectors.
struct HostExecutor {
    const SerialTeam team;
    double* scratch; // kMaxScratchVectors rows of n
    std::vector<double>*pi, *pibar, *adjoint, *partial;
    int n; // the full tree's nodes: each kernel's shared memory holds rows of n

    // Runs a team step as its kernel would, with `rows` scratch rows: the rest of the host scratch
    // holds a guard, which a step writing past its kernel's shared memory (into the team's
    // reduction scratch, or out of bounds on the device) overwrites.
    template <class Step> void inShared(const char* kernel, int rows, Step&& step) {
        constexpr double kGuard = -7.25e300;
        double *guard = scratch + static_cast<std::ptrdiff_t>(rows) * n,
               *end = scratch + kMaxScratchVectors * n;
        std::fill(guard, end, kGuard);
        step();
        if (!std::all_of(guard, end, [](double v) { return v == kGuard; }))
            throw std::logic_error(std::string(kernel) + " wrote past its " + std::to_string(rows) +
                                   " shared-memory rows");
    }

    // A clade's set, as the kernels find it.
    static int setOfClade(const CladeView& cv, int c) { return cv.setOf(cv.cladeFamily[c]); }
    void splitChunks(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                     const SplitChunk* list, int count, const SplitChunkView& chunks, double threshold) {
        for (int i = 0; i < count; ++i) {
            const int set = setOfClade(cv, list[i].clade);
            inShared("the split-chunk kernel", kSplitChunkVectors, [&] {
                sumSplitChunk(team, speciesOf(s, sv, set), SetRef(sv, set, s.stride), cv, tab, list[i],
                              chunks, threshold, scratch);
            });
        }
    }
    void forwardWave(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                     const SplitChunkView& chunks, const int* clades, int count, const ForwardSettings& opt) {
        for (int i = 0; i < count; ++i) {
            const int set = setOfClade(cv, clades[i]);
            inShared("the forward kernel", forwardScratchVectors(s, opt.alerax), [&] {
                solveCladeForward(team, speciesOf(s, sv, set), SetRef(sv, set, s.stride), cv, tab, chunks,
                                  clades[i], opt, scratch);
            });
        }
    }
    void copyRows(const TableView& tab, const int* to, const int* from, int count) {
        for (int i = 0; i < count; ++i)
            for (int e = 0; e < tab.n; ++e)
                copyRowEntry(tab, to[i], from[i], e);
    }
    void likelihood(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                    int familyBegin, int families, double* logLikelihood, double* rootSum) {
        for (int f = familyBegin; f < familyBegin + families; ++f)
            inShared("the likelihood kernel", scratchVectors(s.highways > 0), [&] {
                familyLikelihood(team, speciesOf(s, sv, cv.setOf(f)), sv, cv, tab, f, familyBegin,
                                 logLikelihood, rootSum);
            });
    }
    void originPosterior(const CladeView& cv, const TableView& tab, int familyBegin, int families,
                         int familiesPerChunk, const double* rootSum, double* acc) {
        const long long entries = chunkEntries(familyBegin, familyBegin + families, familiesPerChunk, tab.n);
        for (long long k = 0; k < entries; ++k)
            originPosteriorEntry(cv, tab, familyBegin, families, familiesPerChunk, rootSum, k, acc);
    }
    void adjointWave(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                     const int* clades, int count, int familyBegin, const double* rootSum,
                     const double* largestDone, double* largestRunning, const AdjointSettings& opt) {
        for (int i = 0; i < count; ++i) {
            const int set = setOfClade(cv, clades[i]);
            inShared("the adjoint kernel", adjointScratchVectors(s), [&] {
                solveCladeAdjoint(team, speciesOf(s, sv, set), SetRef(sv, set, s.stride), cv, tab, clades[i],
                                  familyBegin, rootSum, largestDone, largestRunning, opt, scratch);
            });
        }
    }
    void gradientGather(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                        const ChunkView& chunks, int chunkBegin, int chunkEnd, double threshold,
                        double* rows) {
        for (int chunk = chunkBegin; chunk < chunkEnd; ++chunk)
            for (int i = 0; i < s.n + s.highways; ++i)
                gatherChunkEntry(speciesOf(s, sv, setOfClade(cv, chunks.firstClade[chunk])), sv, cv, tab,
                                 chunks, chunk, chunkBegin, i, threshold, rows);
    }
    void foldChunks(const ChunkView& chunks, int familyBegin, int familyEnd, int chunkBegin, long long width,
                    double* rows) {
        for (int f = familyBegin; f < familyEnd; ++f)
            for (long long k = 0; k < width; ++k)
                foldChunkEntry(chunks, f, chunkBegin, width, k, rows);
    }
    void accumulateShared(const ChunkView& chunks, int familyBegin, int familyEnd, int chunkBegin,
                          int familiesPerChunk, SharedSlice slice, const double* rows, double* total) {
        const long long entries = chunkEntries(familyBegin, familyEnd, familiesPerChunk, slice.width);
        for (long long k = 0; k < entries; ++k)
            accumulateSharedEntry(chunks, familyBegin, familyEnd, chunkBegin, familiesPerChunk, slice, k,
                                  rows, total);
    }
    void genewiseTheta(const SpeciesView& s, const SetView& sv, const CladeView& cv, const ChunkView& chunks,
                       int familyBegin, int familyEnd, int chunkBegin, double* rows,
                       const AdjointSettings& opt, double* theta) {
        for (int f = familyBegin; f < familyEnd; ++f)
            inShared("the E-adjoint kernel", scratchVectors(s.highways > 0), [&] {
                genewiseThetaFamily(team, speciesOf(s, sv, f), sv, cv, chunks, f, chunkBegin, rows, opt,
                                    scratch, theta);
            });
    }
    void prunedTheta(const SpeciesView& s, const SetView& sv, const CladeView& cv, const TableView& tab,
                     const ChunkView& chunks, int familyBegin, int familyEnd, int chunkBegin,
                     const double* rootSum, double* rows, const AdjointSettings& opt) {
        for (int f = familyBegin; f < familyEnd; ++f)
            inShared("the pruned trees' E-adjoint kernel", scratchVectors(s.highways > 0), [&] {
                prunedThetaFamily(team, speciesOf(s, sv, cv.setOf(f)), sv, cv, tab, chunks, f, familyBegin,
                                  chunkBegin, rootSum, rows, opt, scratch);
            });
    }
    void countStats(const long long* values, long long count, unsigned long long* result) {
        for (long long i = 0; i < count; ++i) {
            result[0] += static_cast<unsigned long long>(values[i]);
            result[1] = std::max(result[1], static_cast<unsigned long long>(values[i]));
            result[2] += values[i] == 0;
        }
    }
    void countNaN(const double* values, std::size_t count, unsigned long long* result) {
        for (std::size_t i = 0; i < count; ++i)
            *result += std::isnan(values[i]);
    }
    void zero(double* values, int count) { std::fill(values, values + count, 0.0); }
    void copy(double* to, const double* from, int count) { std::copy(from, from + count, to); }
    void poison(const Batch&) {
        for (std::vector<double>* v : {pi, pibar, adjoint, partial})
            std::fill(v->begin(), v->end(), std::nan(""));
    }
    void endPhase(EvaluationPhase) {}
    void endWave(EvaluationPhase, int, int, int) {}
};

// A team of host threads, one per member, for the steps whose work is split between members:
// barriers are real, so a missing one shows as a race (and as wrong sums).
struct ThreadTeam {
    int rank, size;
    std::barrier<>* barrier;
    void sync() const { barrier->arrive_and_wait(); }
};

// Runs body(team) on `members` host threads.
template <class Body> void runTeam(int members, Body&& body) {
    std::barrier<> barrier(members);
    std::vector<std::thread> threads;
    threads.reserve(members);
    for (int r = 0; r < members; ++r)
        threads.emplace_back([&, r] { body(ThreadTeam{r, members, &barrier}); });
    for (std::thread& t : threads)
        t.join();
}

struct Emulation {
    Evaluation out;
    unsigned long long unwritten = 0; // poisoned table entries left unwritten
    // The shared modes' gradient: the chunk rows (sharedChunkRows) and E, before the chunks are added.
    std::vector<double> chunkRows;
    int rowLength = 0;
    ExtinctionState extinction;
};

// The backend's evaluate() with the host executor and host vectors in place of kernels and device
// memory: p and E per set as the kernels compute them, then the batch loop of batch_driver.hpp.
// The waves are cut into split chunks as for a device running 4 clades at once, of at most 5
// splits, so that in every dataset clades with more splits take the chunked path, clades with fewer
// the direct one, and the narrow waves near the roots chunks of 2 to 5 splits.
// familiesPerChunk: of the shared gradient's chunk rows (0: the backend's own choice).
constexpr SplitChunking kEmulatedChunking{4, 2, 5};
// Gradient chunks of at most 7 clades and splits, so that every family is gathered in several chunks
// and its many-split clades each in one of their own.
constexpr int kEmulatedChunkWork = 7;

Emulation emulate(const Dataset& data, const RateParameters& theta, const SolverOptions& options,
                  bool withGradient, int maxFamiliesPerBatch = 0, SplitChunking chunking = kEmulatedChunking,
                  const std::vector<double>* familyWeights = nullptr, int familiesPerChunk = 0,
                  const std::vector<char>* needed = nullptr, bool copyRepeatedClades = true) {
    const HostStructure h(data, kEmulatedChunkWork);
    const int n = h.n, F = static_cast<int>(data.families.size());
    const bool genewise = theta.mode() == RateMode::Genewise;
    const bool converged = options.schedule == Schedule::Converged;
    // One set per family (genewise), else per tree (pruned trees), as the backend's setCount.
    const int sets = genewise ? F : static_cast<int>(h.trees.size());
    const SpeciesView s = h.speciesView();
    CladeView cv = h.cladeView(genewise);
    const int nodeThetaRows =
        nodeThetaRowsOf(data.pruneSpeciesTree && !genewise, data.origination == Origination::Optimize);
    if (h.pruned() && !genewise) cv.familySet = h.familyTree.data();
    const std::vector<double> originWeights = theta.originWeights();
    if (!originWeights.empty()) cv.originWeights = originWeights.data();
    if (familyWeights) cv.familyWeights = familyWeights->data();
    const std::vector<int> entries = theta.sharedEntries();
    const SerialTeam team;
    std::vector<double> scratch(kMaxScratchVectors * static_cast<std::size_t>(n));

    std::vector<std::vector<double>> setArrays(9, std::vector<double>(static_cast<std::size_t>(sets) * n));
    std::vector<UpCoefficients> up(static_cast<std::size_t>(sets) * n);
    std::vector<double> upDiag(static_cast<std::size_t>(sets) * n),
        upBarInv(static_cast<std::size_t>(sets) * n);
    std::vector<DownCoefficients> down(static_cast<std::size_t>(sets) * n);
    std::vector<OutsideCoefficients> outside(static_cast<std::size_t>(sets) * n);
    std::vector<int> eIterations(sets), divergent(sets);
    std::vector<double> survive(sets), eResidual(sets);
    SetView sv{setArrays[0].data(), setArrays[1].data(), setArrays[2].data(), setArrays[3].data(),
               setArrays[4].data(), setArrays[5].data(), setArrays[6].data(), setArrays[7].data(),
               setArrays[8].data(), up.data(),           upDiag.data(),       upBarInv.data(),
               down.data(),         outside.data(),      survive.data(),      eIterations.data(),
               eResidual.data(),    divergent.data()};
    // Transfer highways, as the backend's solveSets uploads them.
    const HighwayRates highways = highwayRates(theta, data.highways, n);
    sv.highwayRate = highways.rate.data();
    sv.highwayExtra = highways.extra.data();
    sv.highwayCoupling = s.highways > 0 && s.cladeTransferLoss;
    // Pruned trees: each set's tree, as the backend's uploadSetTrees.
    const std::vector<SpeciesView> trees = h.treeViews(s, h.fullNode.data());
    std::vector<SpeciesView> setTrees;
    for (int set = 0; h.pruned() && set < sets; ++set)
        setTrees.push_back(trees[genewise ? h.familyTree[set] : set]);
    if (h.pruned()) sv.species = setTrees.data();
    // The E equations' own loop constants where Π leaves terms out (the backend's extinctionLoopView).
    const bool ownLoop = !s.cladeDuplicationLoss || !s.cladeTransferLoss;
    std::vector<std::vector<double>> loopArrays(5, std::vector<double>(static_cast<std::size_t>(sets) * n));
    std::vector<UpCoefficients> loopUp(up.size());
    std::vector<DownCoefficients> loopDown(down.size());
    std::vector<OutsideCoefficients> loopOutside(outside.size());
    SetView eLoop = sv;
    if (ownLoop) {
        eLoop.diag = loopArrays[0].data();
        eLoop.bar = loopArrays[1].data();
        eLoop.denom = loopArrays[2].data();
        eLoop.upDiag = loopArrays[3].data();
        eLoop.upBarInv = loopArrays[4].data();
        eLoop.up = loopUp.data();
        eLoop.down = loopDown.data();
        eLoop.outside = loopOutside.data();
    }
    eLoop.highwayCoupling = s.highways > 0;
    for (int set = 0; set < sets; ++set) {
        const SpeciesView& tree = speciesOf(s, sv, set);
        for (int e = 0; e < tree.n; ++e) // what probabilitiesKernel computes
            setProbabilities(theta.theta().data(), entries.data(), genewise, data.events.presentRates(), set,
                             n, e, tree.fullNode ? tree.fullNode[e] : e, sv);
        ExtinctionSettings ext{!converged, options.e_max_iter, options.e_tol, options.e_init, false};
        HostExecutor{team, scratch.data(), nullptr, nullptr, nullptr, nullptr, n}.inShared(
            "the extinction kernel", scratchVectors(s.highways > 0),
            [&] { solveExtinctionSet(team, tree, sv, eLoop, set, ext, scratch.data()); });
        if (divergent[set] >= 0) throw std::runtime_error("divergent self loop");
    }

    BatchPlanInput in;
    in.species = n;
    in.highways = s.highways;
    in.nodeThetaRows = nodeThetaRows;
    in.familyClades = h.familyCladeCounts();
    in.budgetBytes = 1e18;
    in.maxFamiliesPerBatch = maxFamiliesPerBatch;
    in.familyChunks = h.familyChunks;
    in.familySplitChunkRows = h.familySplitChunkRows(chunking.most);
    in.narrowWaveChunkRows = chunking.narrowWaveRows();
    const BatchPlan plan = planBatches(in);
    const WaveSchedule schedule = computeWaveSchedule(data);
    const BatchWaves waves =
        batchWaves(schedule, h, plan, copyRepeatedClades ? cladeClasses(schedule, h) : std::vector<int>{},
                   chunking, needed);
    // As the backend: the plan's partial rows hold every wave's chunks.
    if (waves.maxWaveChunks > plan.maxSplitChunkRows)
        throw std::logic_error("split chunks exceed the planned partial rows");
    std::vector<double> partial(static_cast<std::size_t>(partialRows(plan.maxChunks, plan.maxSplitChunkRows,
                                                                     n, s.highways, nodeThetaRows)) *
                                    n,
                                std::nan(""));

    Emulation result;
    Evaluation& out = result.out;
    out.logLikelihood.assign(F, std::nan(""));
    if (withGradient) out.gradient.assign(theta.theta().size(), 0.0);
    // Genewise rates share only the highways' rates: one family per chunk, as the CPU backend.
    const int chunkSize = familiesPerChunk > 0 ? familiesPerChunk
                          : genewise
                              ? 1
                              : gpurec::familiesPerChunk(
                                    F, n, sharedGradientRows(!originWeights.empty(), data.pruneSpeciesTree));
    const std::size_t chunks = (F + chunkSize - 1) / chunkSize;
    std::vector<double> total(chunks * (genewise ? s.highways : gradientWidth(n, s.highways, nodeThetaRows)),
                              0.0);
    std::vector<double> originPosterior(originWeights.empty() ? 0 : chunks * n, 0.0);
    std::vector<unsigned long long> counters(CounterCount, 0);
    BatchJob j;
    j.waveClades = waves.clades.data();
    j.copySources = waves.copySources.data();
    j.rowSource = waves.rowSource.data();
    j.splitChunks = waves.chunks.data();
    j.s = s;
    j.sv = sv;
    j.extinctionLoop = eLoop;
    j.cv = cv;
    j.chunks = SplitChunkView{waves.cladeSlot.data(), partial.data()};
    j.gradientChunks = ChunkView{h.chunkFirst.data(), h.chunkEnd.data(), plan.familyChunkBegin.data(),
                                 nodeThetaRows, needed ? needed->data() : nullptr};
    j.fwd = ForwardSettings{!converged && data.events.cladeTransferLoss(), options.pi_iters, options.pi_tol,
                            options.pibar_side_threshold, false};
    j.adj = AdjointSettings{options.bicgstab_max_iter, options.bicgstab_tol, options.pibar_side_threshold,
                            options.use_adjoint_pruning, options.adjoint_pruning_threshold};
    j.withGradient = withGradient;
    j.genewise = genewise;
    j.poison = true;
    j.logLikelihood = out.logLikelihood.data();
    j.partial = partial.data();
    j.familiesPerChunk = chunkSize;
    j.sharedTotal = total.data();
    j.thetaGradient = out.gradient.data();
    j.originPosterior = originWeights.empty() ? nullptr : originPosterior.data();
    j.counters = counters.data();
    for (std::size_t bi = 0; bi < plan.batches.size(); ++bi) {
        const Batch& b = plan.batches[bi];
        if (waves.waves[bi].empty()) continue; // as the backend: none of its families needed
        const std::size_t entries = static_cast<std::size_t>(b.clades()) * n;
        std::vector<double> pi(entries), pibar(entries), adjoint(entries, 0.0);
        std::vector<double> peak(b.clades()), rootSum(b.families());
        std::vector<double> largestDone(b.families()), largestRunning(b.families());
        std::vector<int> scale(b.clades());
        std::vector<long long> iterations(b.clades());
        HostExecutor x{team, scratch.data(), &pi, &pibar, &adjoint, &partial, n};
        j.batch = &b;
        j.index = static_cast<int>(bi);
        j.waves = &waves.waves[bi];
        j.waveChunks = &waves.waveChunks[bi];
        j.waveCopies = &waves.waveCopies[bi];
        j.tab = TableView{pi.data(),   pibar.data(),      adjoint.data(), scale.data(),
                          peak.data(), iterations.data(), b.cladeBegin,   n};
        j.rootSum = rootSum.data();
        j.largestDone = largestDone.data();
        j.largestRunning = largestRunning.data();
        runBatchSteps(x, j);
    }
    if (withGradient && !genewise) { // what readGradient and finishSharedGradient do with the rows
        ExtinctionState& ext = result.extinction;
        ext.E.assign(sv.E, sv.E + n);
        ext.Ebar.assign(sv.Ebar, sv.Ebar + n);
        result.rowLength = sharedRowLength(n, s.highways, !originWeights.empty(), nodeThetaRows);
        sharedChunkRows(theta, ext.E, h.familyOrigin, familyWeights ? *familyWeights : std::vector<double>{},
                        chunkSize, total, originPosterior, result.chunkRows, nodeThetaRows, h.familyTree);
        addSharedModeGradient(SpeciesLayout(data), theta, options,
                              sumChunkRows(result.chunkRows, result.rowLength), ext,
                              data.events.presentRates(), out.gradient, nodeThetaRows);
    }
    if (withGradient && genewise && s.highways > 0)
        addGenewiseHighwayGradient(theta, sumChunkRows(total, s.highways), out.gradient);
    for (double v : out.logLikelihood)
        out.totalLogLikelihood += v;
    result.unwritten = counters[Unwritten];
    return result;
}

// Random log2 rates, and origination weights per node when the dataset optimises them.
RateParameters randomRates(RateMode mode, const Dataset& data, unsigned seed) {
    RateParameters theta(mode, data.species.size(), static_cast<int>(data.families.size()), {0.1, 0.1, 0.1});
    if (data.origination == Origination::Optimize) theta.addOriginationPerNode(0.1);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> logRate(std::log2(0.01), std::log2(0.4));
    for (double& t : theta.theta())
        t = logRate(rng);
    return theta;
}

// The emulation against the CPU backend, forward and gradient (of Σ_f w_f NLL_f with weights).
void matchesCpu(const std::shared_ptr<const Dataset>& data, const RateParameters& theta,
                const SolverOptions& options, const std::vector<double>* familyWeights = nullptr) {
    Evaluation cpu = makeCpuBackend(data)->evaluate(theta, options, true, familyWeights);
    const Emulation emulated = emulate(*data, theta, options, true, 0, kEmulatedChunking, familyWeights);
    const Evaluation& gpu = emulated.out;
    QCOMPARE(emulated.unwritten, 0ull);
    const double llError = worstRelativeError(gpu.logLikelihood, cpu.logLikelihood);
    const double gradError = worstRelativeError(gpu.gradient, cpu.gradient);
    QVERIFY2(llError < 1e-12, qPrintable(QString("log-likelihood relative error %1").arg(llError)));
    QVERIFY2(gradError < 1e-9, qPrintable(QString("gradient relative error %1").arg(gradError)));
}

} // namespace

class GpuSolverSteps : public QObject {
    Q_OBJECT

  private slots:
    void matchesCpuReference_data() {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("species");
        QTest::addColumn<int>("minCovered");
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<bool>("noConstraint");
        QTest::addColumn<QString>("origination");
        const RateMode modes[] = {RateMode::Global, RateMode::Specieswise, RateMode::Genewise};
        for (RateMode m : modes) {
            const QString name = QString::fromStdString(toString(m));
            QTest::newRow(qPrintable("tiny " + name))
                << "tiny"
                << "species.nwk" << 3 << int(m) << "converged" << false << "UNIFORM";
            QTest::newRow(qPrintable("simulated_2 " + name))
                << "simulated_2"
                << "species.nwk" << 4 << int(m) << "converged" << false << "UNIFORM";
            QTest::newRow(qPrintable("test_trees_3 " + name))
                << "alerax/test_trees_3"
                << "sp.nwk" << 4 << int(m) << "converged" << false << "UNIFORM";
        }
        QTest::newRow("primates global")
            << "primates"
            << "species.nwk" << 4 << int(RateMode::Global) << "converged" << false << "UNIFORM";
        QTest::newRow("test_trees_200 global alerax")
            << "alerax/test_trees_200"
            << "sp.nwk" << 4 << int(RateMode::Global) << "alerax" << false << "UNIFORM";
        QTest::newRow("simulated_2 specieswise alerax")
            << "simulated_2"
            << "species.nwk" << 4 << int(RateMode::Specieswise) << "alerax" << false << "UNIFORM";
        QTest::newRow("simulated_2 genewise no constraint")
            << "simulated_2"
            << "species.nwk" << 4 << int(RateMode::Genewise) << "converged" << true << "UNIFORM";
        for (RateMode m : modes) // one origination node per family: the root seed and conditioning move
            QTest::newRow(qPrintable("simulated_2 " + QString::fromStdString(toString(m)) + " LCA"))
                << "simulated_2"
                << "species.nwk" << 4 << int(m) << "converged" << false << "LCA";
        QTest::newRow("tiny genewise ROOT")
            << "tiny"
            << "species.nwk" << 3 << int(RateMode::Genewise) << "converged" << false << "ROOT";
    }
    void matchesCpuReference() {
        QFETCH(QString, folder);
        QFETCH(QString, species);
        QFETCH(int, minCovered);
        QFETCH(int, mode);
        QFETCH(QString, schedule);
        QFETCH(bool, noConstraint);
        QFETCH(QString, origination);
        InputPaths paths;
        paths.speciesTree = sharedData(folder.toStdString() + "/" + species.toStdString());
        paths.familiesFile = sharedData(folder.toStdString() + "/families.txt");
        LoadOptions lo;
        lo.minCoveredSpecies = minCovered;
        lo.origination = parseOrigination(origination.toStdString());
        LoadedInput in =
            loadInput(paths, noConstraint ? TransferConstraint::None : TransferConstraint::Parents, lo);
        QVERIFY(!in.dataset->families.empty());
        SolverOptions options;
        options.schedule = parseSchedule(schedule.toStdString());
        RateParameters theta = randomRates(static_cast<RateMode>(mode), *in.dataset, 7);
        matchesCpu(in.dataset, theta, options);
    }

    // --prune-species-tree: each family on its pruned tree (its own view in the kernels, the full
    // tree's stride in the sets, tables and gradient rows); under shared rates a set per tree and
    // the pruned families' E eliminated on their own trees, under genewise rates a set per family.
    void matchesCpuOnPrunedTrees_data() {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<bool>("noConstraint");
        QTest::addColumn<QString>("origination");
        QTest::addColumn<bool>("noTl");
        for (RateMode m : {RateMode::Global, RateMode::Specieswise, RateMode::Genewise}) {
            const std::string mode = toString(m);
            QTest::newRow(("simulated_2 " + mode).c_str())
                << "simulated_2" << int(m) << "converged" << false << "UNIFORM" << false;
            QTest::newRow(("simulated_2 " + mode + " alerax").c_str())
                << "simulated_2" << int(m) << "alerax" << false << "UNIFORM" << false;
            QTest::newRow(("simulated_2 " + mode + " no constraint ROOT").c_str())
                << "simulated_2" << int(m) << "converged" << true << "ROOT" << false;
        }
        QTest::newRow("simulated_2 specieswise OPTIMIZE")
            << "simulated_2" << int(RateMode::Specieswise) << "converged" << false << "OPTIMIZE" << false;
        QTest::newRow("simulated_2 global OPTIMIZE alerax")
            << "simulated_2" << int(RateMode::Global) << "alerax" << false << "OPTIMIZE" << false;
        QTest::newRow("simulated_2 global LCA")
            << "simulated_2" << int(RateMode::Global) << "converged" << false << "LCA" << false;
        QTest::newRow("simulated_2 specieswise no-tl")
            << "simulated_2" << int(RateMode::Specieswise) << "converged" << false << "UNIFORM" << true;
        QTest::newRow("simulated_2 genewise no-tl alerax")
            << "simulated_2" << int(RateMode::Genewise) << "alerax" << false << "UNIFORM" << true;
        // The option on, every species covered: the shared rows keep their node θ rows (zero).
        QTest::newRow("tiny specieswise, nothing pruned")
            << "tiny" << int(RateMode::Specieswise) << "converged" << false << "UNIFORM" << false;
    }
    void matchesCpuOnPrunedTrees() {
        QFETCH(QString, folder);
        QFETCH(int, mode);
        QFETCH(QString, schedule);
        QFETCH(bool, noConstraint);
        QFETCH(QString, origination);
        QFETCH(bool, noTl);
        InputPaths paths;
        paths.speciesTree = sharedData(folder.toStdString() + "/species.nwk");
        paths.familiesFile = sharedData(folder.toStdString() + "/families.txt");
        LoadOptions lo;
        lo.minCoveredSpecies = 3;
        lo.origination = parseOrigination(origination.toStdString());
        lo.pruneSpeciesTree = true;
        lo.events.noTl = noTl;
        LoadedInput in =
            loadInput(paths, noConstraint ? TransferConstraint::None : TransferConstraint::Parents, lo);
        // Families on the full tree and on several pruned ones, so both paths run side by side
        // (tiny's one family covers every species).
        const FamilyLayouts layouts(*in.dataset);
        if (folder == "tiny")
            QCOMPARE(layouts.layouts.size(), std::size_t(1));
        else
            QVERIFY2(layouts.layouts.size() >= 3, "fewer than two distinct pruned trees");
        const HostStructure h(*in.dataset);
        QCOMPARE(h.trees.size(), layouts.layouts.size());
        SolverOptions options;
        options.schedule = parseSchedule(schedule.toStdString());
        matchesCpu(in.dataset, randomRates(static_cast<RateMode>(mode), *in.dataset, 13), options);
    }

    // Fractions of the leaves' genes missing (spec 1.5): the E sweeps and the E adjoint read them.
    void matchesCpuWithFractionMissing_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("schedule");
        for (RateMode m : {RateMode::Global, RateMode::Specieswise, RateMode::Genewise})
            QTest::newRow(toString(m).c_str()) << int(m) << "converged";
        QTest::newRow("global alerax") << int(RateMode::Global) << "alerax";
    }
    void matchesCpuWithFractionMissing() {
        QFETCH(int, mode);
        QFETCH(QString, schedule);
        auto data = std::make_shared<Dataset>(*loadShared("simulated_2", "species.nwk").dataset);
        data->fractionMissing.assign(data->species.size(), 0.0);
        for (int e = 0, leaf = 0; e < data->species.size(); ++e)
            if (data->species.isLeaf(e)) data->fractionMissing[e] = 0.2 * (leaf++ % 5);
        SolverOptions options;
        options.schedule = parseSchedule(schedule.toStdString());
        matchesCpu(data, randomRates(static_cast<RateMode>(mode), *data, 11), options);
    }

    // The model's variants (UndatedDL, --no-dup, --no-dl, --no-tl): the Π loop's constants lose their
    // terms, the E adjoint keeps its own, an uncoupled clade is solved in one pass under alerax too.
    void matchesCpuUnderEventModels_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<bool>("noConstraint");
        QTest::addColumn<int>("recModel");
        QTest::addColumn<bool>("noDup");
        QTest::addColumn<bool>("noDl");
        QTest::addColumn<bool>("noTl");
        for (RateMode m : {RateMode::Global, RateMode::Genewise}) {
            const std::string mode = toString(m);
            for (const char* schedule : {"converged", "alerax"}) {
                const std::string tail = " " + mode + " " + schedule;
                QTest::newRow(("UndatedDL" + tail).c_str())
                    << int(m) << schedule << false << int(RecModel::UndatedDL) << false << false << false;
                QTest::newRow(("no-dup" + tail).c_str())
                    << int(m) << schedule << false << int(RecModel::UndatedDTL) << true << false << false;
                QTest::newRow(("no-dl" + tail).c_str())
                    << int(m) << schedule << false << int(RecModel::UndatedDTL) << false << true << false;
                QTest::newRow(("no-tl" + tail).c_str())
                    << int(m) << schedule << false << int(RecModel::UndatedDTL) << false << false << true;
                QTest::newRow(("no-dl no-tl, no constraint" + tail).c_str())
                    << int(m) << schedule << true << int(RecModel::UndatedDTL) << false << true << true;
            }
        }
        QTest::newRow("no-tl specieswise converged") << int(RateMode::Specieswise) << "converged" << false
                                                     << int(RecModel::UndatedDTL) << false << false << true;
    }
    void matchesCpuUnderEventModels() {
        QFETCH(int, mode);
        QFETCH(QString, schedule);
        QFETCH(bool, noConstraint);
        QFETCH(int, recModel);
        QFETCH(bool, noDup);
        QFETCH(bool, noDl);
        QFETCH(bool, noTl);
        InputPaths paths;
        paths.speciesTree = sharedData("simulated_2/species.nwk");
        paths.familiesFile = sharedData("simulated_2/families.txt");
        LoadOptions lo;
        lo.events = EventModel{static_cast<RecModel>(recModel), noDup, noDl, noTl};
        LoadedInput in =
            loadInput(paths, noConstraint ? TransferConstraint::None : TransferConstraint::Parents, lo);
        SolverOptions options;
        options.schedule = parseSchedule(schedule.toStdString());
        matchesCpu(in.dataset, randomRates(static_cast<RateMode>(mode), *in.dataset, 13), options);
    }

    // AleRax's rate classes and fitted origination weights: the shared sets read θ through
    // RateParameters::sharedEntries, the root seed and the conditioning take O_e, and the weights'
    // gradient comes from the root rows (originPosteriorEntry).
    void matchesCpuWithClassesAndOriginWeights_data() {
        QTest::addColumn<QString>("parametrization");
        QTest::addColumn<bool>("originWeights");
        QTest::addColumn<QString>("schedule");
        QTest::newRow("classes") << "classes" << false << "converged";
        QTest::newRow("classes with O") << "classes" << true << "converged";
        QTest::newRow("classes with O, alerax") << "classes" << true << "alerax";
        QTest::newRow("specieswise with O") << "specieswise" << true << "converged";
        QTest::newRow("origination per species") << "global" << true << "converged";
    }
    void matchesCpuWithClassesAndOriginWeights() {
        QFETCH(QString, parametrization);
        QFETCH(bool, originWeights);
        QFETCH(QString, schedule);
        InputPaths paths;
        paths.speciesTree = sharedData("simulated_2/species.nwk");
        paths.familiesFile = sharedData("simulated_2/families.txt");
        LoadOptions lo;
        lo.origination = originWeights ? Origination::Optimize : Origination::Uniform;
        const LoadedInput in = loadInput(paths, TransferConstraint::Parents, lo);
        const SpeciesTree& sp = in.dataset->species;
        RateParameters theta;
        if (parametrization == "classes") {
            const std::string path = temporaryFolder("classes") + "/classes.txt";
            writeFile(path, sp.name(sp.left(sp.root())) + " DL" + (originWeights ? "O" : "") + "\n" +
                                sp.name(0) + " T\n");
            theta = RateParameters(readParameterClasses(path, sp, RecModel::UndatedDTL, originWeights),
                                   sp.size(), {0.1, 0.1, 0.1}, 0.1);
        } else {
            theta =
                RateParameters(parseRateMode(parametrization.toStdString()), sp.size(), 0, {0.1, 0.1, 0.1});
            theta.addOriginationPerNode(0.1);
        }
        std::mt19937 rng(17);
        std::uniform_real_distribution<double> logRate(std::log2(0.01), std::log2(0.4));
        for (double& t : theta.theta())
            t = logRate(rng);
        SolverOptions options;
        options.schedule = parseSchedule(schedule.toStdString());
        matchesCpu(in.dataset, theta, options);
    }

    // Under mpirun each process's CUDA backend holds one share of the families, cut at a chunk
    // boundary (FamilyShareExchange): its chunk rows, the shares' rows added in chunk order, must give
    // the whole dataset's gradient bit for bit, with and without origination weights and family
    // weights, in batches of any size.
    void sharesGiveTheWholeDatasetsGradientBits_data() {
        QTest::addColumn<bool>("originWeights");
        QTest::addColumn<bool>("familyWeights");
        QTest::addColumn<bool>("pruned");
        QTest::newRow("global") << false << false << false;
        QTest::newRow("origination weights") << true << false << false;
        QTest::newRow("family weights") << false << true << false;
        // A share may hold no family on a pruned tree: its rows keep the node θ rows all the same.
        QTest::newRow("pruned trees") << false << true << true;
        QTest::newRow("pruned trees, origination weights") << true << false << true;
    }
    void sharesGiveTheWholeDatasetsGradientBits() {
        QFETCH(bool, originWeights);
        QFETCH(bool, familyWeights);
        QFETCH(bool, pruned);
        InputPaths paths;
        paths.speciesTree = sharedData("primates/species.nwk");
        paths.familiesFile = sharedData("primates/families.txt");
        LoadOptions lo;
        lo.origination = originWeights ? Origination::Optimize : Origination::Uniform;
        lo.pruneSpeciesTree = pruned;
        const LoadedInput in = loadInput(paths, TransferConstraint::Parents, lo);
        const Dataset& whole = *in.dataset;
        if (pruned) QVERIFY(FamilyLayouts(whole).layouts.size() >= 3);
        const int F = static_cast<int>(whole.families.size()), chunk = 2;
        QVERIFY2(F >= 3 * chunk, qPrintable(QString("%1 families").arg(F)));
        RateParameters theta(RateMode::Specieswise, whole.species.size(), 0, {0.1, 0.1, 0.1});
        if (originWeights) theta.addOriginationPerNode(0.1);
        std::mt19937 rng(23);
        std::uniform_real_distribution<double> logRate(std::log2(0.01), std::log2(0.4));
        for (double& t : theta.theta())
            t = logRate(rng);
        std::vector<double> weights;
        for (int f = 0; familyWeights && f < F; ++f)
            weights.push_back(0.25 + 0.125 * (f % 5));
        const SolverOptions options;
        const Emulation one = emulate(whole, theta, options, true, 3, kEmulatedChunking,
                                      familyWeights ? &weights : nullptr, chunk);
        // Two shares, cut at a chunk boundary (a cut inside a chunk is not a share).
        const int cut = 2 * chunk;
        std::vector<int> first(cut), second(F - cut);
        std::iota(first.begin(), first.end(), 0);
        std::iota(second.begin(), second.end(), cut);
        std::vector<double> rows;
        ExtinctionState extinction;
        for (const std::vector<int>& share : {first, second}) {
            const Dataset part = withFamilies(whole, share);
            std::vector<double> partWeights;
            for (int f : share)
                if (familyWeights) partWeights.push_back(weights[f]);
            const Emulation e = emulate(part, theta, options, true, 2, kEmulatedChunking,
                                        familyWeights ? &partWeights : nullptr, chunk);
            rows.insert(rows.end(), e.chunkRows.begin(), e.chunkRows.end());
            extinction = e.extinction;
        }
        QCOMPARE(rows.size(), one.chunkRows.size());
        std::vector<double> gradient(theta.theta().size(), 0.0);
        addSharedModeGradient(SpeciesLayout(whole), theta, options, sumChunkRows(rows, one.rowLength),
                              extinction, whole.events.presentRates(), gradient,
                              nodeThetaRowsOf(pruned, originWeights));
        QCOMPARE(gradient.size(), one.out.gradient.size());
        for (std::size_t i = 0; i < gradient.size(); ++i)
            QVERIFY2(gradient[i] == one.out.gradient[i],
                     qPrintable(QString("entry %1: %2 against %3")
                                    .arg(i)
                                    .arg(gradient[i], 0, 'g', 17)
                                    .arg(one.out.gradient[i], 0, 'g', 17)));
    }

    // Family weights in the gradient (a category mixture's): the adjoint's seeds and the
    // conditioning terms scale, in every mode, with and without origination weights.
    void matchesCpuWithFamilyWeights_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<bool>("originWeights");
        for (RateMode m : {RateMode::Global, RateMode::Specieswise, RateMode::Genewise})
            QTest::newRow(toString(m).c_str()) << int(m) << false;
        QTest::newRow("specieswise with O") << int(RateMode::Specieswise) << true;
    }
    void matchesCpuWithFamilyWeights() {
        QFETCH(int, mode);
        QFETCH(bool, originWeights);
        InputPaths paths;
        paths.speciesTree = sharedData("simulated_2/species.nwk");
        paths.familiesFile = sharedData("simulated_2/families.txt");
        LoadOptions lo;
        lo.origination = originWeights ? Origination::Optimize : Origination::Uniform;
        const LoadedInput in = loadInput(paths, TransferConstraint::Parents, lo);
        const RateParameters theta = randomRates(static_cast<RateMode>(mode), *in.dataset, 19);
        std::vector<double> weights;
        for (std::size_t f = 0; f < in.dataset->families.size(); ++f)
            weights.push_back(0.2 + 0.7 * static_cast<double>(f));
        matchesCpu(in.dataset, theta, SolverOptions{}, &weights);
        // The weights matter: the weighted gradient is not the plain one.
        const Evaluation plain = makeCpuBackend(in.dataset)->evaluate(theta, SolverOptions{}, true);
        QVERIFY(worstRelativeError(
                    emulate(*in.dataset, theta, SolverOptions{}, true, 0, kEmulatedChunking, &weights)
                        .out.gradient,
                    plain.gradient) > 1e-3);
    }

    // RELDATED: the iterated self loop with the recipient averages and their transposes from the
    // team's scans over the rank order, in every rate mode and schedule, with one origination node,
    // fractions missing, the model's variants, and on a tree whose dates all tie (tiny: by name).
    void matchesCpuUnderRelDated_data() {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("species");
        QTest::addColumn<int>("minCovered");
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<QString>("origination");
        QTest::addColumn<QString>("events");
        QTest::addColumn<bool>("missing");
        for (RateMode m : {RateMode::Global, RateMode::Specieswise, RateMode::Genewise}) {
            const std::string mode = toString(m);
            QTest::newRow(("simulated_2 " + mode).c_str()) << "simulated_2"
                                                           << "species.nwk" << 4 << int(m) << "converged"
                                                           << "UNIFORM"
                                                           << "" << false;
            QTest::newRow(("simulated_2 " + mode + " LCA").c_str())
                << "simulated_2"
                << "species.nwk" << 4 << int(m) << "converged"
                << "LCA"
                << "" << false;
            for (const char* events : {"no-dl", "no-tl", "no-dup+no-dl"})
                QTest::newRow(("simulated_2 " + mode + " " + events).c_str())
                    << "simulated_2"
                    << "species.nwk" << 4 << int(m) << "converged"
                    << "UNIFORM" << events << false;
        }
        QTest::newRow("test_trees_3 global alerax") << "alerax/test_trees_3"
                                                    << "sp.nwk" << 4 << int(RateMode::Global) << "alerax"
                                                    << "UNIFORM"
                                                    << "" << false;
        QTest::newRow("simulated_2 global alerax no-tl")
            << "simulated_2"
            << "species.nwk" << 4 << int(RateMode::Global) << "alerax"
            << "UNIFORM"
            << "no-tl" << false;
        QTest::newRow("simulated_2 genewise fraction missing")
            << "simulated_2"
            << "species.nwk" << 4 << int(RateMode::Genewise) << "converged"
            << "UNIFORM"
            << "" << true;
        QTest::newRow("primates specieswise")
            << "primates"
            << "species.nwk" << 4 << int(RateMode::Specieswise) << "converged"
            << "UNIFORM"
            << "" << false;
        QTest::newRow("tiny genewise (equal dates)")
            << "tiny"
            << "species.nwk" << 3 << int(RateMode::Genewise) << "converged"
            << "UNIFORM"
            << "" << false;
    }
    void matchesCpuUnderRelDated() {
        QFETCH(QString, folder);
        QFETCH(QString, species);
        QFETCH(int, minCovered);
        QFETCH(int, mode);
        QFETCH(QString, schedule);
        QFETCH(QString, origination);
        QFETCH(QString, events);
        QFETCH(bool, missing);
        InputPaths paths;
        paths.speciesTree = sharedData(folder.toStdString() + "/" + species.toStdString());
        paths.familiesFile = sharedData(folder.toStdString() + "/families.txt");
        LoadOptions lo;
        lo.minCoveredSpecies = minCovered;
        lo.origination = parseOrigination(origination.toStdString());
        for (const QString& part : events.split('+', Qt::SkipEmptyParts)) {
            lo.events.noDup = lo.events.noDup || part == "no-dup";
            lo.events.noDl = lo.events.noDl || part == "no-dl";
            lo.events.noTl = lo.events.noTl || part == "no-tl";
        }
        LoadedInput in = loadInput(paths, TransferConstraint::RelDated, lo);
        QVERIFY(!in.dataset->families.empty());
        if (missing) {
            Dataset& data = *in.dataset;
            data.fractionMissing.assign(data.species.size(), 0.0);
            for (int e = 0, leaf = 0; e < data.species.size(); ++e)
                if (data.species.isLeaf(e)) data.fractionMissing[e] = 0.2 * (leaf++ % 5);
        }
        SolverOptions options;
        options.schedule = parseSchedule(schedule.toStdString());
        matchesCpu(in.dataset, randomRates(static_cast<RateMode>(mode), *in.dataset, 17), options);
    }

    // Transfer highways: E's q_h E_e E_d, the split terms down each highway, both transfer-loss terms
    // coupling a source to its destination (iterated with Π̄, and transposed in the adjoint), the
    // highways' rates in the softmax, their gradient rows, and under genewise rates their terms
    // summed over the families; --pairwise-transfers is a highway on every allowed pair.
    void matchesCpuWithHighways_data() {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("constraint");
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("schedule");
        const RateMode modes[] = {RateMode::Global, RateMode::Specieswise, RateMode::Genewise};
        const TransferConstraint constraints[] = {TransferConstraint::Parents, TransferConstraint::None,
                                                  TransferConstraint::RelDated};
        for (RateMode m : modes)
            for (TransferConstraint c : constraints)
                QTest::newRow(("simulated_2 " + toString(m) + " " + toString(c)).c_str())
                    << "simulated_2" << int(m) << int(c) << ""
                    << "converged";
        for (RateMode m : modes) {
            QTest::newRow(("simulated_2 " + toString(m) + " no-tl").c_str())
                << "simulated_2" << int(m) << int(TransferConstraint::Parents) << "no-tl"
                << "converged";
            QTest::newRow(("simulated_2 " + toString(m) + " LCA").c_str())
                << "simulated_2" << int(m) << int(TransferConstraint::Parents) << "LCA"
                << "converged";
            QTest::newRow(("tiny " + toString(m) + " pairwise").c_str())
                << "tiny" << int(m) << int(TransferConstraint::Parents) << "pairwise"
                << "converged";
            // AleRax's sweeps: each highway's destination read as the postorder leaves it.
            QTest::newRow(("simulated_2 " + toString(m) + " alerax").c_str())
                << "simulated_2" << int(m) << int(TransferConstraint::Parents) << ""
                << "alerax";
        }
        QTest::newRow("simulated_2 global alerax RELDATED")
            << "simulated_2" << int(RateMode::Global) << int(TransferConstraint::RelDated) << ""
            << "alerax";
        QTest::newRow("simulated_2 global alerax no-tl")
            << "simulated_2" << int(RateMode::Global) << int(TransferConstraint::Parents) << "no-tl"
            << "alerax";
        QTest::newRow("tiny specieswise pairwise alerax")
            << "tiny" << int(RateMode::Specieswise) << int(TransferConstraint::Parents) << "pairwise"
            << "alerax";
        QTest::newRow("simulated_2 global origination weights")
            << "simulated_2" << int(RateMode::Global) << int(TransferConstraint::Parents) << "OPTIMIZE"
            << "converged";
        QTest::newRow("simulated_2 specieswise pairwise RELDATED")
            << "simulated_2" << int(RateMode::Specieswise) << int(TransferConstraint::RelDated) << "pairwise"
            << "converged";
    }
    void matchesCpuWithHighways() {
        QFETCH(QString, folder);
        QFETCH(int, mode);
        QFETCH(int, constraint);
        QFETCH(QString, variant);
        QFETCH(QString, schedule);
        InputPaths paths;
        paths.speciesTree = sharedData(folder.toStdString() + "/species.nwk");
        paths.familiesFile = sharedData(folder.toStdString() + "/families.txt");
        LoadOptions lo;
        lo.minCoveredSpecies = folder == "tiny" ? 3 : 4;
        lo.events.noTl = variant == "no-tl";
        lo.events.pairwiseTransfers = variant == "pairwise";
        if (variant == "LCA" || variant == "OPTIMIZE")
            lo.origination = parseOrigination(variant.toStdString());
        LoadedInput in = loadInput(paths, static_cast<TransferConstraint>(constraint), lo);
        Dataset& data = *in.dataset;
        QVERIFY(!data.families.empty());
        const SpeciesTree& tree = data.species;
        if (variant == "pairwise") {
            QVERIFY(data.highways == everyTransferPair(tree, data.transferConstraint));
        } else {
            // Leaf to leaf, clade to leaf, and two leaving the same node (its softmax's shared terms).
            const int n = tree.size();
            data.highways = {{0, n - 2}, {n - 3, 1}, {0, 2}};
        }
        RateParameters theta(static_cast<RateMode>(mode), tree.size(), static_cast<int>(data.families.size()),
                             {0.1, 0.1, 0.1});
        if (variant == "OPTIMIZE") theta.addOriginationPerNode(1.0);
        theta.addHighways(static_cast<int>(data.highways.size()), 0.1);
        std::mt19937 rng(23);
        std::uniform_real_distribution<double> logRate(std::log2(0.01), std::log2(0.4));
        for (double& t : theta.theta())
            t = logRate(rng);
        SolverOptions options;
        options.schedule = parseSchedule(schedule.toStdString());
        matchesCpu(in.dataset, theta, options);
    }

    // RELDATED at the rates where one event dominates or vanishes.
    void matchesCpuUnderRelDatedAtExtremeRates() {
        InputPaths paths;
        paths.speciesTree = sharedData("simulated_2/species.nwk");
        paths.familiesFile = sharedData("simulated_2/families.txt");
        LoadedInput in = loadInput(paths, TransferConstraint::RelDated, LoadOptions{});
        for (const Rates& r : {Rates{1e-10, 1e-10, 1e-10}, Rates{0.2, 0.3, 1e-10}, Rates{0.05, 1e-10, 0.05},
                               Rates{1e-6, 0.05, 1.5}, Rates{0.9, 0.5, 1e-4}}) {
            const RateParameters theta(RateMode::Global, in.dataset->species.size(),
                                       static_cast<int>(in.dataset->families.size()), r);
            matchesCpu(in.dataset, theta, SolverOptions{});
        }
    }

    // RELDATED's rank sums built by a team level by level (buildTeamRankSums): every node as the
    // serial build has it, bit for bit, for teams larger and smaller than n.
    void teamRankSumsMatchTheSerialBuild() {
        std::mt19937 rng(3);
        std::uniform_real_distribution<double> u(0, 1);
        for (int n : {1, 2, 5, 37, 100, 1331})
            for (int members : {1, 2, 3, 8, 13}) {
                std::vector<double> x(n), serial(n, 0.0), team(n, 0.0);
                for (double& v : x)
                    v = u(rng);
                auto leaf = [&](int i) { return x[i]; };
                buildRankSums(serial.data(), n, leaf);
                runTeam(members, [&](const ThreadTeam& t) { buildTeamRankSums(t, n, leaf, team.data()); });
                QVERIFY2(team == serial, qPrintable(QString("n %1, %2 members").arg(n).arg(members)));
            }
    }

    // Level sweeps (sweepLevels) by teams of host threads with real barriers, larger and smaller than
    // the widest level: every node visited once, after its children (upward) or its parent
    // (downward), and every member passes one barrier per level, so a member fetching ahead never
    // runs past a level the others are still in.
    void levelSweepsKeepTheirOrderInTeamsOfAnySize() {
        for (const char* folder : {"primates", "simulated_2"}) {
            LoadedInput in = loadShared(folder, "species.nwk");
            const HostStructure h(*in.dataset);
            const SpeciesView s = h.speciesView();
            std::vector<int> size(s.n, 1), depth(s.n, 0);
            for (int e = 0; e < s.n; ++e)
                if (s.left[e] >= 0) size[e] += size[s.left[e]] + size[s.right[e]];
            for (int e = s.n - 1; e >= 0; --e)
                if (s.parent[e] >= 0) depth[e] = depth[s.parent[e]] + 1;
            for (int members : {1, 2, 3, 8, 13, 32}) {
                std::vector<int> up(s.n, -1), down(s.n, -1), visits(s.n, 0);
                std::vector<int> barriers(members, 0);
                std::barrier<> barrier(members);
                std::vector<std::thread> threads;
                for (int r = 0; r < members; ++r)
                    threads.emplace_back([&, r] {
                        struct CountingTeam {
                            int rank, size;
                            std::barrier<>* barrier;
                            int* passed;
                            void sync() const {
                                ++*passed;
                                barrier->arrive_and_wait();
                            }
                        } t{r, members, &barrier, &barriers[r]};
                        sweepUp(t, s, [&](const NodeValue& v) {
                            const NodeRecord& n = v.r;
                            ++visits[n.node];
                            up[n.node] = 1 + (n.left >= 0 ? up[n.left] + up[n.right] : 0);
                        });
                        sweepDown(t, s, [&](const NodeValue& v) {
                            down[v.r.node] = v.r.parent < 0 ? 0 : down[v.r.parent] + 1;
                        });
                    });
                for (std::thread& thread : threads)
                    thread.join();
                const QString what = QString("%1, %2 members").arg(folder).arg(members);
                QVERIFY2(up == size && down == depth, qPrintable(what));
                QVERIFY2(std::all_of(visits.begin(), visits.end(), [](int v) { return v == 1; }),
                         qPrintable(what));
                for (int passed : barriers)
                    QCOMPARE(passed, s.maxHeight + 1 + s.maxDepth + 1);
            }
        }
    }

    // The team code's RELDATED recipient average and its transpose (team_sweeps.hpp) against the
    // CPU's (engine/species_operators.cpp) where one term dwarfs the others, so that differences of
    // running sums would lose most digits: to 1e-15 of each result, for teams of several sizes.
    void teamRecipientAveragesMatchTheCpuUnderRelDated_data() {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("species");
        QTest::newRow("simulated_2") << "simulated_2"
                                     << "species.nwk";
        QTest::newRow("test_trees_200") << "alerax/test_trees_200"
                                        << "sp.nwk";
    }
    void teamRecipientAveragesMatchTheCpuUnderRelDated() {
        QFETCH(QString, folder);
        QFETCH(QString, species);
        InputPaths paths;
        paths.speciesTree = sharedData(folder.toStdString() + "/" + species.toStdString());
        paths.familiesFile = sharedData(folder.toStdString() + "/families.txt");
        LoadOptions lo;
        lo.minCoveredSpecies = 4;
        const LoadedInput in = loadInput(paths, TransferConstraint::RelDated, lo);
        const Dataset& data = *in.dataset;
        const HostStructure h(data);
        const SpeciesView s = h.speciesView();
        const SpeciesLayout layout(data);
        const int n = s.n;
        std::mt19937 rng(5);
        std::uniform_real_distribution<double> u(1e-3, 1);
        double worstAverage = 0.0, worstTranspose = 0.0;
        for (int big = 0; big < n; big += 1 + n / 40) {
            std::vector<double> x(n), cpuBar(n), cpuTr(n), scratch(3 * n);
            for (double& v : x)
                v = u(rng);
            x[big] = 1e12;
            recipientAverage(layout, x.data(), cpuBar.data(), scratch.data());
            recipientAverageTranspose(layout, x.data(), cpuTr.data(), scratch.data());
            for (int members : {1, 3, 32}) {
                std::vector<double> sub(n, std::nan("")), bar(n, std::nan("")), tr(n, 0.0);
                runTeam(members, [&](const ThreadTeam& t) {
                    forEachRecipientAverage(t, s, x.data(), sub.data(), [&](int e, double a) { bar[e] = a; });
                    addRecipientAverageTranspose(t, s, x.data(), sub.data(), tr.data());
                });
                for (int e = 0; e < n; ++e) {
                    worstAverage = std::max(worstAverage, relativeError(bar[e], cpuBar[e]));
                    worstTranspose = std::max(worstTranspose, relativeError(tr[e], cpuTr[e]));
                }
            }
        }
        qInfo("worst relative difference from the CPU: average %.3g, transpose %.3g", worstAverage,
              worstTranspose);
        QVERIFY2(worstAverage <= 1e-15 && worstTranspose <= 1e-15,
                 qPrintable(QString("%1, %2").arg(worstAverage).arg(worstTranspose)));
    }

    // The direct self-loop solve adds only non-negative terms: no loss of accuracy at rates where
    // transfers, losses or duplications almost vanish, or where one event dominates.
    void matchesCpuAtExtremeRates_data() {
        QTest::addColumn<double>("d");
        QTest::addColumn<double>("l");
        QTest::addColumn<double>("t");
        QTest::newRow("all at the lower bound") << 1e-10 << 1e-10 << 1e-10;
        QTest::newRow("transfers vanish") << 0.2 << 0.3 << 1e-10;
        QTest::newRow("losses vanish") << 0.05 << 1e-10 << 0.05;
        QTest::newRow("transfers dominate") << 1e-6 << 0.05 << 1.5;
        QTest::newRow("duplications dominate") << 0.9 << 0.5 << 1e-4;
    }
    void matchesCpuAtExtremeRates() {
        QFETCH(double, d);
        QFETCH(double, l);
        QFETCH(double, t);
        LoadedInput in = loadShared("simulated_2", "species.nwk");
        const RateParameters theta(RateMode::Global, in.dataset->species.size(),
                                   static_cast<int>(in.dataset->families.size()), {d, l, t});
        const SolverOptions options;
        matchesCpu(in.dataset, theta, options);
    }

    // Any batch plan gives bit-identical results: batches are contiguous and every sum keeps its order.
    void batchesDoNotChangeResults() {
        LoadedInput in = loadShared("primates", "species.nwk");
        QVERIFY(in.dataset->families.size() > 2);
        SolverOptions options;
        for (RateMode mode : {RateMode::Specieswise, RateMode::Genewise}) {
            RateParameters theta = randomRates(mode, *in.dataset, 11);
            const Evaluation whole = emulate(*in.dataset, theta, options, true).out;
            const Evaluation split = emulate(*in.dataset, theta, options, true, 2).out;
            QVERIFY(whole.logLikelihood == split.logLikelihood);
            QVERIFY(whole.gradient == split.gradient);
        }
    }

    // Waves of the needed families only (LikelihoodBackend::setNeededFamilies): their genewise
    // log-likelihoods and gradient rows are those of the waves of every family, bit for bit, also
    // where a whole batch holds none of them.
    void neededFamiliesWavesKeepTheirResults() {
        LoadedInput in = loadShared("primates", "species.nwk");
        const int F = static_cast<int>(in.dataset->families.size());
        QVERIFY(F > 4);
        const RateParameters theta = randomRates(RateMode::Genewise, *in.dataset, 17);
        std::vector<char> needed(F, 0);
        needed[1] = needed[F - 1] = 1; // with 2 families per batch, batch 0 holds family 1 only
        for (int maxFamilies : {0, 2}) {
            const Evaluation whole = emulate(*in.dataset, theta, SolverOptions{}, true, maxFamilies).out;
            const Evaluation some = emulate(*in.dataset, theta, SolverOptions{}, true, maxFamilies,
                                            kEmulatedChunking, nullptr, 0, &needed)
                                        .out;
            for (int f = 0; f < F; ++f) {
                if (!needed[f]) continue;
                QCOMPARE(some.logLikelihood[f], whole.logLikelihood[f]);
                for (int k = 0; k < 3; ++k)
                    QCOMPARE(some.gradient[theta.entry(f, 0, k)], whole.gradient[theta.entry(f, 0, k)]);
            }
        }
        const HostStructure h(*in.dataset);
        BatchPlanInput plan;
        plan.species = h.n;
        plan.familyClades = h.familyCladeCounts();
        plan.budgetBytes = 1e18;
        const BatchWaves all =
            batchWaves(computeWaveSchedule(*in.dataset), h, planBatches(plan), {}, kEmulatedChunking);
        const BatchWaves some = batchWaves(computeWaveSchedule(*in.dataset), h, planBatches(plan), {},
                                           kEmulatedChunking, &needed);
        const int keptClades =
            h.familyCladeBegin[2] - h.familyCladeBegin[1] + h.familyCladeBegin[F] - h.familyCladeBegin[F - 1];
        QCOMPARE(static_cast<int>(some.clades.size()), keptClades);
        QVERIFY(some.waves[0].size() <= all.waves[0].size());
    }

    // Each family's clades are gathered in consecutive chunks, each as long as the work limit allows
    // (a clade and each of its splits count one), a clade of more splits alone in its own.
    void gradientChunksAreCutByWork() {
        LoadedInput in = loadShared("simulated_2", "species.nwk");
        for (int limit : {1, 7, 40, kChunkWork}) {
            const HostStructure h(*in.dataset, limit);
            const int F = static_cast<int>(in.dataset->families.size());
            QCOMPARE(static_cast<int>(h.familyChunks.size()), F);
            auto work = [&](int c) { return 1 + h.splitOffset[c + 1] - h.splitOffset[c]; };
            int chunk = 0, alone = 0;
            for (int f = 0; f < F; ++f) {
                QVERIFY(h.familyChunks[f] >= 1);
                int next = h.familyCladeBegin[f];
                for (int k = 0; k < h.familyChunks[f]; ++k, ++chunk) {
                    QCOMPARE(h.chunkFirst[chunk], next);
                    QVERIFY(h.chunkEnd[chunk] > next);
                    int sum = 0;
                    for (int c = h.chunkFirst[chunk]; c < h.chunkEnd[chunk]; ++c)
                        sum += work(c);
                    const bool single = h.chunkEnd[chunk] - h.chunkFirst[chunk] == 1;
                    QVERIFY(sum <= limit || single);
                    if (single && sum > limit) ++alone;
                    next = h.chunkEnd[chunk];
                    // Cut only where the next clade would not have fitted.
                    if (next < h.familyCladeBegin[f + 1]) QVERIFY(sum + work(next) > limit);
                }
                QCOMPARE(next, h.familyCladeBegin[f + 1]);
            }
            QCOMPARE(chunk, static_cast<int>(h.chunkFirst.size()));
            if (limit == 1) QVERIFY(alone > 0);
        }
    }

    // A batch's wave lists hold its families' clades of each wave, in the schedule's order, and no
    // other: whatever the families per batch (one each: the plan the search's screening set-up asks
    // for, where each batch's clades are found by bisection in the waves).
    void batchesListTheirFamiliesCladesWaveByWave() {
        LoadedInput in = loadShared("simulated_2", "species.nwk");
        const HostStructure h(*in.dataset);
        const WaveSchedule schedule = computeWaveSchedule(*in.dataset);
        for (int maxFamilies : {1, 3, 0}) {
            BatchPlanInput input;
            input.species = h.n;
            input.familyClades = h.familyCladeCounts();
            input.budgetBytes = 1e18;
            input.maxFamiliesPerBatch = maxFamilies;
            const BatchPlan plan = planBatches(input);
            if (maxFamilies == 1) QCOMPARE(plan.batches.size(), input.familyClades.size());
            const BatchWaves out = batchWaves(schedule, h, plan, {}, kEmulatedChunking);
            int listed = 0;
            for (std::size_t b = 0; b < plan.batches.size(); ++b) {
                const Batch& batch = plan.batches[b];
                std::vector<std::vector<int>> expected; // the schedule's waves, filtered by family
                for (const CrossFamilyWave& wave : schedule.waves) {
                    std::vector<int> clades;
                    for (const CladeRef& ref : wave.clades)
                        if (ref.family >= batch.familyBegin && ref.family < batch.familyEnd)
                            clades.push_back(h.familyCladeBegin[ref.family] + ref.clade);
                    if (!clades.empty()) expected.push_back(clades);
                }
                QCOMPARE(out.waves[b].size(), expected.size());
                for (std::size_t k = 0; k < expected.size(); ++k) {
                    const auto [offset, count] = out.waves[b][k];
                    const std::vector<int> got(out.clades.begin() + offset,
                                               out.clades.begin() + offset + count);
                    QCOMPARE(got, expected[k]);
                    listed += count;
                }
            }
            QCOMPARE(listed, h.cladeCount());
        }
    }

    // Splits per chunk: waves that fill the device cut at `most`; narrower ones spread their splits
    // over the clades in flight, within [fewest, most].
    void narrowWavesSpreadTheirSplitsOverTheDevice() {
        const SplitChunking device{1188, 8, 256};
        QCOMPARE(device.splitsPerChunk(100, 13600), 12); // 500 species x 100 families: the roots
        QCOMPARE(device.splitsPerChunk(100, 500), 8);
        QCOMPARE(device.splitsPerChunk(100, 1000000), 256);
        QCOMPARE(device.splitsPerChunk(1187, 13600), 12);
        QCOMPARE(device.splitsPerChunk(1188, 13600), 256);
        QCOMPARE(device.narrowWaveRows(), 2376LL);
        QCOMPARE((SplitChunking{4, 8, 3}.splitsPerChunk(1, 100)), 3); // fewest never above most

        // Each wave's chunks cover its cut clades' splits in order, in slots 0, 1, ..., within the
        // plan's partial rows, whatever the device's width.
        LoadedInput in = loadShared("simulated_2", "species.nwk");
        const HostStructure h(*in.dataset);
        const WaveSchedule schedule = computeWaveSchedule(*in.dataset);
        bool narrowCut = false;
        for (const SplitChunking chunking : {SplitChunking{1, 2, 5}, SplitChunking{4, 2, 5},
                                             SplitChunking{64, 1, 9}, SplitChunking{1000, 2, 5}}) {
            for (int maxFamilies : {1, 0}) {
                BatchPlanInput input;
                input.species = h.n;
                input.familyClades = h.familyCladeCounts();
                input.budgetBytes = 1e18;
                input.maxFamiliesPerBatch = maxFamilies;
                input.familySplitChunkRows = h.familySplitChunkRows(chunking.most);
                input.narrowWaveChunkRows = chunking.narrowWaveRows();
                const BatchPlan plan = planBatches(input);
                const BatchWaves out = batchWaves(schedule, h, plan, {}, chunking);
                QVERIFY(out.maxWaveChunks <= plan.maxSplitChunkRows);
                for (std::size_t b = 0; b < plan.batches.size(); ++b)
                    for (std::size_t k = 0; k < out.waves[b].size(); ++k) {
                        const auto [offset, count] = out.waves[b][k];
                        const WaveChunks cut = out.waveChunks[b][k];
                        long long splits = 0;
                        for (int i = offset; i < offset + count; ++i)
                            splits += h.splitOffset[out.clades[i] + 1] - h.splitOffset[out.clades[i]];
                        const int size =
                            count >= chunking.cladesInFlight
                                ? chunking.most
                                : std::clamp<int>(static_cast<int>((splits + chunking.cladesInFlight - 1) /
                                                                   chunking.cladesInFlight),
                                                  std::min(chunking.fewest, chunking.most), chunking.most);
                        QCOMPARE(cut.splits, size);
                        int next = cut.offset, slot = 0;
                        for (int i = offset; i < offset + count; ++i) {
                            const int c = out.clades[i], k0 = h.splitOffset[c], k1 = h.splitOffset[c + 1];
                            if (k1 - k0 <= size) {
                                QCOMPARE(out.cladeSlot[c], -1);
                                continue;
                            }
                            QCOMPARE(out.cladeSlot[c], slot);
                            if (count < chunking.cladesInFlight && size < chunking.most) narrowCut = true;
                            for (int at = k0; at < k1; at += size, ++next, ++slot) {
                                const SplitChunk& chunk = out.chunks[next];
                                QCOMPARE(chunk.clade, c);
                                QCOMPARE(chunk.splitBegin, at);
                                QCOMPARE(chunk.splitEnd, std::min(at + size, k1));
                                QCOMPARE(chunk.slot, slot);
                            }
                        }
                        QCOMPARE(next, cut.offset + cut.count);
                    }
            }
        }
        QVERIFY(narrowCut); // some narrow wave was cut finer than `most`
    }

    // Clade classes: two clades share one exactly when they are genes of one species or their splits
    // are, in order, of equal weights and children of equal classes (checked pair by pair against
    // that definition); pruned trees give none.
    void cladeClassesFollowTheirDefinition() {
        LoadedInput in = loadShared("primates", "species.nwk");
        const HostStructure h(*in.dataset);
        const std::vector<int> classes = cladeClasses(computeWaveSchedule(*in.dataset), h);
        const int C = h.cladeCount();
        QCOMPARE(static_cast<int>(classes.size()), C);
        std::vector<std::vector<signed char>> memo(C, std::vector<signed char>(C, -1));
        std::function<bool(int, int)> same = [&](int a, int b) -> bool {
            signed char& m = memo[a][b];
            if (m >= 0) return m;
            bool equal;
            if (h.geneSpecies[a] >= 0 || h.geneSpecies[b] >= 0)
                equal = h.geneSpecies[a] == h.geneSpecies[b];
            else {
                const int na = h.splitOffset[a + 1] - h.splitOffset[a];
                equal = na == h.splitOffset[b + 1] - h.splitOffset[b];
                for (int i = 0; equal && i < na; ++i) {
                    const int ka = h.splitOffset[a] + i, kb = h.splitOffset[b] + i;
                    equal = h.splitWeight[ka] == h.splitWeight[kb] &&
                            same(h.splitLeft[ka], h.splitLeft[kb]) &&
                            same(h.splitRight[ka], h.splitRight[kb]);
                }
            }
            m = equal;
            return equal;
        };
        int repeated = 0;
        std::set<int> seen;
        for (int a = 0; a < C; ++a) {
            repeated += !seen.insert(classes[a]).second;
            for (int b = 0; b < C; ++b)
                if ((classes[a] == classes[b]) != same(a, b))
                    QFAIL(qPrintable(
                        QString("clades %1 and %2: classes disagree with the definition").arg(a).arg(b)));
        }
        QVERIFY2(repeated > 0, "no repeated clade to copy in the test data");

        InputPaths paths;
        paths.speciesTree = sharedData("primates/species.nwk");
        paths.familiesFile = sharedData("primates/families.txt");
        LoadOptions pruning;
        pruning.pruneSpeciesTree = true;
        LoadedInput pruned = loadInput(paths, TransferConstraint::Parents, pruning);
        QVERIFY(cladeClasses(computeWaveSchedule(*pruned.dataset), HostStructure(*pruned.dataset)).empty());
    }

    // The wave lists with repeated clades copied: per batch and wave, each class solved once, the
    // copies last, each naming a solved clade of its class in the same batch, whose rows the split
    // terms read for it (rowSource); every clade listed once.
    // The evaluation's results are those of solving every clade, bit for bit (shared rates; the
    // genewise mode solves the copies too), over one batch and several.
    void repeatedCladesAreCopiedFromOneSolvedClade() {
        LoadedInput in = loadShared("primates", "species.nwk");
        const HostStructure h(*in.dataset);
        const WaveSchedule schedule = computeWaveSchedule(*in.dataset);
        const std::vector<int> classes = cladeClasses(schedule, h);
        BatchPlanInput plan;
        plan.species = h.n;
        plan.familyClades = h.familyCladeCounts();
        plan.budgetBytes = 1e18;
        plan.maxFamiliesPerBatch = 3;
        const BatchPlan batches = planBatches(plan);
        QVERIFY(batches.batches.size() > 1);
        const BatchWaves waves = batchWaves(schedule, h, batches, classes, kEmulatedChunking);
        QCOMPARE(static_cast<int>(waves.clades.size()), h.cladeCount());
        QCOMPARE(std::set<int>(waves.clades.begin(), waves.clades.end()).size(), std::size_t(h.cladeCount()));
        std::size_t copies = 0;
        for (std::size_t b = 0; b < batches.batches.size(); ++b) {
            QCOMPARE(waves.waveCopies[b].size(), waves.waves[b].size());
            for (std::size_t k = 0; k < waves.waves[b].size(); ++k) {
                const auto [offset, count] = waves.waves[b][k];
                const auto [copyOffset, copyCount] = waves.waveCopies[b][k];
                QCOMPARE(copyOffset, static_cast<int>(copies));
                const int solved = count - copyCount;
                std::set<int> solvedClasses, solvedClades;
                for (int i = 0; i < solved; ++i) {
                    const int c = waves.clades[offset + i];
                    QVERIFY2(solvedClasses.insert(classes[c]).second, "a class solved twice in one wave");
                    QCOMPARE(waves.rowSource[c], c);
                    solvedClades.insert(c);
                }
                for (int i = 0; i < copyCount; ++i) {
                    const int c = waves.clades[offset + solved + i], from = waves.copySources[copyOffset + i];
                    QVERIFY(solvedClades.count(from) == 1);
                    QCOMPARE(classes[c], classes[from]);
                    QCOMPARE(waves.rowSource[c], from);
                    QVERIFY(c >= batches.batches[b].cladeBegin && c < batches.batches[b].cladeEnd);
                }
                copies += copyCount;
            }
        }
        QCOMPARE(waves.copySources.size(), copies);
        QVERIFY(copies > 0);

        for (const RateMode mode : {RateMode::Global, RateMode::Specieswise, RateMode::Genewise}) {
            const RateParameters theta = randomRates(mode, *in.dataset, 23);
            for (int maxFamilies : {0, 3}) {
                const Evaluation copied = emulate(*in.dataset, theta, SolverOptions{}, true, maxFamilies,
                                                  kEmulatedChunking, nullptr, 0, nullptr, true)
                                              .out;
                const Evaluation solved = emulate(*in.dataset, theta, SolverOptions{}, true, maxFamilies,
                                                  kEmulatedChunking, nullptr, 0, nullptr, false)
                                              .out;
                QVERIFY(copied.logLikelihood == solved.logLikelihood);
                QVERIFY(copied.gradient == solved.gradient);
            }
        }
    }

    void plannerKeepsBatchesWithinBudget() {
        BatchPlanInput in;
        in.species = 100;
        in.familyClades = {500, 3000, 20, 20, 2500, 1000};
        const double perClade = batchBufferBytes(100, 1, 0, 0);
        in.fixedBytes = 1e6;
        in.budgetBytes = in.fixedBytes + 4000 * perClade;
        in.familyChunks = {1, 3, 1, 1, 3, 1};
        BatchPlan plan = planBatches(in);
        QVERIFY(plan.batches.size() >= 2);
        QVERIFY(plan.peakBytes() <= in.budgetBytes);
        int next = 0;
        for (const Batch& b : plan.batches) {
            QCOMPARE(b.familyBegin, next);
            next = b.familyEnd;
            QVERIFY(batchBufferBytes(100, b.clades(), b.families(), b.chunks()) <=
                    in.budgetBytes - in.fixedBytes);
        }
        QCOMPARE(next, 6);
        QCOMPARE(plan.familyChunkBegin.back(), 1 + 3 + 1 + 1 + 3 + 1);

        // Partial split-term rows share the gradient's partial-sum buffer and enlarge it when they
        // need more rows than the gradient.
        BatchPlanInput chunked = in;
        chunked.familySplitChunkRows = {0, 0, 0, 0, 3000, 0};
        const BatchPlan withChunks = planBatches(chunked);
        QVERIFY(withChunks.maxSplitChunkRows == 3000);
        QVERIFY(withChunks.batchBytes >= 8.0 * 100 * 3000);
        QVERIFY(withChunks.peakBytes() <= chunked.budgetBytes);

        in.budgetBytes = in.fixedBytes + 2000 * perClade;
        try {
            planBatches(in);
            QFAIL("a family larger than the budget was planned");
        } catch (const std::runtime_error& e) {
            QVERIFY2(QString(e.what()).startsWith("family 1 (3000 clades) needs"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(GpuSolverSteps)
#include "test_gpu_solver_steps.moc"
