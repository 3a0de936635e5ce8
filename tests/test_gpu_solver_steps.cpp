// The CUDA backend's solver steps (gpu/cuda/solver_steps.hpp) run serially on the host, batch by
// batch and wave by wave exactly as the kernels schedule them, against the CPU reference: forward
// log-likelihoods and gradients in every rate mode and schedule. Also the batch planner.
#include "cuda/host_structure.hpp"
#include "cuda/shared_gradient.hpp"
#include "cuda/solver_steps.hpp"
#include "engine/backend.hpp"
#include "engine/family_solver.hpp"
#include "engine/relative_error.hpp"
#include "support.hpp"

#include <QtTest>
#include <cmath>
#include <random>

using namespace gpurec;
using namespace gpurec::gpu;
using namespace gpurec::test;

namespace {

// The backend's evaluate() with SerialTeam and host vectors in place of kernels and device memory.
// Split chunks of 3 splits, so that clades with more splits take the chunked path and clades with
// fewer the direct one, in every dataset.
Evaluation emulate(const Dataset& data, const RateParameters& theta, const SolverOptions& options,
                   bool withGradient, int maxFamiliesPerBatch = 0, int chunkSplits = 3) {
    const HostStructure h(data);
    const int n = h.n, F = static_cast<int>(data.families.size());
    const bool genewise = theta.mode() == RateMode::Genewise;
    const bool converged = options.schedule == Schedule::Converged;
    const int sets = genewise ? F : 1;
    const SpeciesView s = h.speciesView();
    const CladeView cv = h.cladeView(genewise);
    const SerialTeam team;
    std::vector<double> scratch(kScratchVectors * static_cast<std::size_t>(n));

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
    for (int set = 0; set < sets; ++set) {
        const EventProbabilities p = theta.probabilities(set);
        std::copy(p.pS.begin(), p.pS.end(), sv.pS + set * n);
        std::copy(p.pD.begin(), p.pD.end(), sv.pD + set * n);
        std::copy(p.pL.begin(), p.pL.end(), sv.pL + set * n);
        std::copy(p.pT.begin(), p.pT.end(), sv.pT + set * n);
        ExtinctionSettings ext{!converged, options.e_max_iter, options.e_tol, options.e_init, false};
        solveExtinctionSet(team, s, sv, set, ext, scratch.data());
        if (divergent[set] >= 0) throw std::runtime_error("divergent self loop");
    }

    BatchPlanInput in;
    in.species = n;
    in.familyClades = h.familyCladeCounts();
    in.budgetBytes = 1e18;
    in.maxFamiliesPerBatch = maxFamiliesPerBatch;
    in.chunkClades = kChunkClades;
    in.familySplitChunkRows = h.familySplitChunkRows(chunkSplits);
    const BatchPlan plan = planBatches(in);
    const BatchWaves waves = batchWaves(data, h, plan, chunkSplits);
    std::vector<double> partial(static_cast<std::size_t>(waves.maxWaveChunks) * n, std::nan(""));
    const SplitChunkView chunks = waves.view(partial.data());

    Evaluation out;
    out.logLikelihood.assign(F, std::nan(""));
    if (withGradient) out.gradient.assign(theta.theta().size(), 0.0);
    std::vector<double> total(kGradientRows * static_cast<std::size_t>(n), 0.0);
    const ForwardSettings fwd{!converged, options.pi_iters, options.pi_tol, options.pibar_side_threshold,
                              false};
    const AdjointSettings adj{options.bicgstab_max_iter, options.bicgstab_tol, options.pibar_side_threshold,
                              options.use_adjoint_pruning, options.adjoint_pruning_threshold};
    for (std::size_t bi = 0; bi < plan.batches.size(); ++bi) {
        const Batch& b = plan.batches[bi];
        const std::size_t entries = static_cast<std::size_t>(b.clades()) * n;
        std::vector<double> pi(entries, std::nan("")), pibar(entries, std::nan("")),
            adjoint(entries, std::nan(""));
        std::vector<double> peak(b.clades()), ll(b.families()), rootSum(b.families());
        std::vector<double> largestDone(b.families(), 0.0), largestRunning(b.families(), 0.0);
        std::vector<int> scale(b.clades());
        std::vector<long long> iterations(b.clades());
        const TableView tab{pi.data(),   pibar.data(),      adjoint.data(), scale.data(),
                            peak.data(), iterations.data(), b.cladeBegin,   n};
        for (std::size_t k = 0; k < waves.waves[bi].size(); ++k) {
            const auto& [chunkOffset, chunkCount] = waves.waveChunks[bi][k];
            for (int i = 0; i < chunkCount; ++i) {
                const SplitChunk& chunk = waves.chunks[chunkOffset + i];
                sumSplitChunk(team, s, SetRef(sv, cv.setOf(cv.cladeFamily[chunk.clade]), n), cv, tab, chunk,
                              chunks, options.pibar_side_threshold, scratch.data());
            }
            const auto& [offset, count] = waves.waves[bi][k];
            for (int i = 0; i < count; ++i) {
                const int c = waves.clades[offset + i];
                solveCladeForward(team, s, SetRef(sv, cv.setOf(cv.cladeFamily[c]), n), cv, tab, chunks, c,
                                  fwd, scratch.data());
            }
        }
        for (int f = b.familyBegin; f < b.familyEnd; ++f)
            familyLikelihood(team, s, sv, cv, tab, f, b.familyBegin, ll.data(), rootSum.data());
        std::copy(ll.begin(), ll.end(), out.logLikelihood.begin() + b.familyBegin);
        if (!withGradient) continue;
        for (auto wave = waves.waves[bi].rbegin(); wave != waves.waves[bi].rend(); ++wave) {
            for (int i = 0; i < wave->second; ++i) {
                const int c = waves.clades[wave->first + i];
                solveCladeAdjoint(team, s, SetRef(sv, cv.setOf(cv.cladeFamily[c]), n), cv, tab, c,
                                  b.familyBegin, rootSum.data(), largestDone.data(), largestRunning.data(),
                                  adj, scratch.data());
            }
            largestDone = largestRunning;
        }
        for (int f = b.familyBegin; f < b.familyEnd; ++f) {
            const SetRef p(sv, cv.setOf(f), n);
            std::vector<double> acc(kGradientRows * static_cast<std::size_t>(n), 0.0);
            for (int chunk = plan.familyChunkBegin[f]; chunk < plan.familyChunkBegin[f + 1]; ++chunk)
                for (int e = 0; e < n; ++e) {
                    double rows[kGradientRows];
                    gatherGradient(s, p, cv, tab, h.chunkFirst[chunk], h.chunkEnd[chunk], e,
                                   options.pibar_side_threshold, rows);
                    for (int k = 0; k < kGradientRows; ++k)
                        acc[k * n + e] += rows[k];
                }
            if (genewise) {
                eliminateExtinctionSet(team, s, p, survive[f], acc.data(), 1, adj.maxIterations,
                                       adj.tolerance, scratch.data(), out.gradient.data() + 3 * f);
            } else {
                for (std::size_t k = 0; k < total.size(); ++k)
                    total[k] += acc[k];
            }
        }
    }
    if (withGradient && !genewise) {
        ExtinctionState ext;
        ext.E.assign(sv.E, sv.E + n);
        ext.Ebar.assign(sv.Ebar, sv.Ebar + n);
        addSharedModeGradient(SpeciesLayout(data.species, data.transferConstraint), theta, F, options, total,
                              ext, out.gradient);
    }
    for (double v : out.logLikelihood)
        out.totalLogLikelihood += v;
    return out;
}

RateParameters randomRates(RateMode mode, const Dataset& data, unsigned seed) {
    RateParameters theta(mode, data.species.size(), static_cast<int>(data.families.size()), {0.1, 0.1, 0.1});
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> logRate(std::log2(0.01), std::log2(0.4));
    for (double& t : theta.theta())
        t = logRate(rng);
    return theta;
}

// The emulation against the CPU backend, forward and gradient.
void matchesCpu(const std::shared_ptr<const Dataset>& data, const RateParameters& theta,
                const SolverOptions& options) {
    Evaluation cpu = makeCpuBackend(data)->evaluate(theta, options, true);
    Evaluation gpu = emulate(*data, theta, options, true);
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
        const RateMode modes[] = {RateMode::Global, RateMode::Specieswise, RateMode::Genewise};
        for (RateMode m : modes) {
            const QString name = QString::fromStdString(toString(m));
            QTest::newRow(qPrintable("tiny " + name)) << "tiny"
                                                      << "species.nwk" << 3 << int(m) << "converged" << false;
            QTest::newRow(qPrintable("simulated_2 " + name))
                << "simulated_2"
                << "species.nwk" << 4 << int(m) << "converged" << false;
            QTest::newRow(qPrintable("test_trees_3 " + name))
                << "alerax/test_trees_3"
                << "sp.nwk" << 4 << int(m) << "converged" << false;
        }
        QTest::newRow("primates global")
            << "primates"
            << "species.nwk" << 4 << int(RateMode::Global) << "converged" << false;
        QTest::newRow("test_trees_200 global alerax")
            << "alerax/test_trees_200"
            << "sp.nwk" << 4 << int(RateMode::Global) << "alerax" << false;
        QTest::newRow("simulated_2 specieswise alerax")
            << "simulated_2"
            << "species.nwk" << 4 << int(RateMode::Specieswise) << "alerax" << false;
        QTest::newRow("simulated_2 genewise no constraint")
            << "simulated_2"
            << "species.nwk" << 4 << int(RateMode::Genewise) << "converged" << true;
    }
    void matchesCpuReference() {
        QFETCH(QString, folder);
        QFETCH(QString, species);
        QFETCH(int, minCovered);
        QFETCH(int, mode);
        QFETCH(QString, schedule);
        QFETCH(bool, noConstraint);
        InputPaths paths;
        paths.speciesTree = sharedData(folder.toStdString() + "/" + species.toStdString());
        paths.familiesFile = sharedData(folder.toStdString() + "/families.txt");
        LoadOptions lo;
        lo.minCoveredSpecies = minCovered;
        LoadedInput in =
            loadInput(paths, noConstraint ? TransferConstraint::None : TransferConstraint::Parents, lo);
        QVERIFY(!in.dataset->families.empty());
        SolverOptions options;
        options.schedule = parseSchedule(schedule.toStdString());
        RateParameters theta = randomRates(static_cast<RateMode>(mode), *in.dataset, 7);
        matchesCpu(in.dataset, theta, options);
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
            Evaluation whole = emulate(*in.dataset, theta, options, true);
            Evaluation split = emulate(*in.dataset, theta, options, true, 2);
            QVERIFY(whole.logLikelihood == split.logLikelihood);
            QVERIFY(whole.gradient == split.gradient);
        }
    }

    void plannerKeepsBatchesWithinBudget() {
        BatchPlanInput in;
        in.species = 100;
        in.familyClades = {500, 3000, 20, 20, 2500, 1000};
        const double perClade = batchBufferBytes(100, 1, 0, 0);
        in.fixedBytes = 1e6;
        in.budgetBytes = in.fixedBytes + 4000 * perClade;
        in.chunkClades = 1024;
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
