// The CPU reference backend: families in parallel over OpenMP threads, double precision.
#include "engine/backend.hpp"
#include "engine/evaluation_shape.hpp"
#include "engine/family_solver.hpp"
#include "engine/species_pruning.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <omp.h>

namespace gpurec {

namespace {

// Warm-start tables are kept only while they fit this budget.
constexpr double kWarmStartBytes = 2e9;
// Budget of the per-chunk sums of a shared gradient (six rows of species nodes per chunk, seven with
// origination weights), exceeded only to keep at least kMinChunks chunks for the dynamic schedule.
constexpr double kChunkGradientBytes = 64e6;
constexpr double kMinChunks = 256;

// Families per chunk of the fixed-order reductions, from the dataset's shape only (never from the
// thread count): one family per chunk unless the chunks' shared gradients (`rows` rows of `n`
// species nodes, n = 0 when there is none) would exceed the budget.
int familiesPerChunk(int families, int n, int rows) {
    if (n == 0) return 1;
    const double chunks = std::max(kMinChunks, std::floor(kChunkGradientBytes / (rows * sizeof(double) * n)));
    return std::max(1, static_cast<int>(std::ceil(families / chunks)));
}

class CpuBackend final : public LikelihoodBackend {
  public:
    explicit CpuBackend(std::shared_ptr<const Dataset> data) : data_(std::move(data)), layouts_(*data_) {
        double bytes = 0;
        for (const GeneFamily& f : data_->families)
            bytes += 2.0 * sizeof(double) * f.clades.cladeCount() * data_->species.size();
        keepTables_ = bytes <= kWarmStartBytes;
    }

    std::string name() const override { return "cpu"; }

    void clearWarmStarts() override {
        std::lock_guard lock(mutex_);
        warmTables_.clear();
        warmE_.clear();
    }

    void replan(const BatchLimits&) override {}

    void setSpeciesTree(std::shared_ptr<const Dataset> data) override {
        std::lock_guard lock(mutex_);
        requireSameFamilies(*data_, *data);
        data_ = std::move(data);
        layouts_ = FamilyLayouts(*data_);
        warmTables_.clear();
        warmE_.clear();
    }

    std::string planSummary() const override {
        return "cpu: " + std::to_string(data_->families.size()) + " families, one per thread task" +
               (keepTables_ ? ", warm starts kept" : ", warm starts for E only (tables too large)");
    }

    Evaluation evaluate(const RateParameters& theta, const SolverOptions& options, bool withGradient,
                        const std::vector<double>* familyWeights = nullptr) override {
        const auto start = std::chrono::steady_clock::now();
        requireEvaluable(*data_, theta, options, familyWeights);
        const int F = static_cast<int>(data_->families.size());
        const int n = layouts_.full().size;
        // --prune-species-tree: families are solved on the layouts of their pruned trees (the full
        // tree's is layouts[0]); without it every family is on the full tree.
        const std::vector<SpeciesLayout>& layouts = layouts_.layouts;
        const int L = static_cast<int>(layouts.size());
        Evaluation out = emptyEvaluation(*data_, theta, withGradient);
        const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
        const bool shared = theta.sharedAcrossFamilies();
        // --origination OPTIMIZE: the weights O_e, shared by the families (never genewise), read at
        // each layout's nodes.
        const std::vector<double> originWeights = theta.originWeights();
        std::vector<std::vector<double>> layoutOrigins(L);
        for (int l = 0; l < L; ++l)
            layoutOrigins[l] = keptValues(layouts[l], originWeights);
        auto originsOf = [&](int l) { return originWeights.empty() ? nullptr : &layoutOrigins[l]; };

        std::lock_guard lock(mutex_);
        if (warmE_.size() != static_cast<std::size_t>(F)) warmE_.assign(F, {});
        if (keepTables_ && warmTables_.size() != static_cast<std::size_t>(F)) warmTables_.assign(F, {});
        if (threadTables_.size() < static_cast<std::size_t>(threads)) threadTables_.resize(threads);
        const bool useWarm = options.schedule == Schedule::Converged;

        // Shared rates: one E per layout, warm-started from its first family's last E.
        std::vector<EventProbabilities> sharedP(shared ? L : 0);
        std::vector<ExtinctionState> sharedE(shared ? L : 0);
        if (shared) {
            const EventProbabilities fullP =
                theta.probabilities(0, data_->events.presentRates(), data_->highways);
            std::vector<int> first(L, -1);
            for (int f = F - 1; f >= 0; --f)
                first[layouts_.of[f]] = f;
            for (int l = 0; l < L; ++l) {
                sharedP[l] = keptProbabilities(layouts[l], fullP);
                const std::vector<double>* warm = useWarm && first[l] >= 0 ? &warmE_[first[l]] : nullptr;
                sharedE[l] = solveExtinction(layouts[l], sharedP[l], options, warm);
                out.stats.eEarly.note(sharedE[l].stoppedEarly ? 1 : 0, sharedE[l].residual,
                                      layouts_.families[l]);
            }
            for (int f = 0; f < F; ++f)
                warmE_[f] = sharedE[layouts_.of[f]].E;
        }
        // Fixed-order reductions, whatever the thread count: families are processed in fixed chunks
        // (one family each unless the shared gradient's buffers would be too large), each chunk sums
        // its families in order, and the chunks are combined in order after the loop.
        // Families on the full tree pool their shared gradient, whose E adjoint is solved once after
        // the loop; those on pruned trees eliminate their own E and add to a θ gradient per chunk.
        const bool sharedGradient = withGradient && shared;
        const bool prunedGradient = sharedGradient && L > 1;
        const int chunkSize = familiesPerChunk(F, sharedGradient ? n : 0,
                                               (originWeights.empty() ? 6 : 7) + (prunedGradient ? 4 : 0));
        const int chunks = (F + chunkSize - 1) / chunkSize;
        std::vector<ProbabilityGradient> chunkGrad(sharedGradient ? chunks : 0, ProbabilityGradient(n));
        std::vector<std::vector<double>> chunkTheta(prunedGradient ? chunks : 0,
                                                    std::vector<double>(theta.theta().size(), 0.0));
        std::vector<std::vector<double>> chunkOrigin(withGradient && !originWeights.empty() ? chunks : 0,
                                                     std::vector<double>(n, 0.0));
        std::vector<SolverStats> chunkStats(chunks);
        std::vector<std::exception_ptr> chunkFailure(chunks);

#pragma omp parallel for schedule(dynamic) num_threads(threads)
        for (int k = 0; k < chunks; ++k)
            for (int f = k * chunkSize; f < std::min(F, (k + 1) * chunkSize); ++f) {
                SolverStats& st = chunkStats[k];
                try {
                    const GeneFamily& family = data_->families[f];
                    const int l = layouts_.of[f];
                    const SpeciesLayout& s = layouts[l];
                    const std::vector<double>* origins = originsOf(l);
                    EventProbabilities ownP;
                    ExtinctionState ownE;
                    if (!shared) {
                        ownP = keptProbabilities(
                            s, theta.probabilities(f, data_->events.presentRates(), data_->highways));
                        ownE = solveExtinction(s, ownP, options, useWarm ? &warmE_[f] : nullptr);
                        warmE_[f] = ownE.E;
                        st.eEarly.note(ownE.stoppedEarly ? 1 : 0, ownE.residual);
                    }
                    const EventProbabilities& p = shared ? sharedP[l] : ownP;
                    const ExtinctionState& ext = shared ? sharedE[l] : ownE;
                    st.eIterations = std::max(st.eIterations, ext.iterations);
                    st.eResidual = std::max(st.eResidual, ext.residual);
                    // Each family keeps its tables (warm start, and memory that is already mapped) when they
                    // fit the budget; otherwise each thread reuses one scratch table.
                    CladeTables& tables = keepTables_ ? warmTables_[f] : threadTables_[omp_get_thread_num()];
                    solveClades(s, family, p, ext, options, tables, keepTables_ && useWarm);
                    const int origin = family.originSpecies >= 0 ? s.local(family.originSpecies) : -1;
                    out.logLikelihood[f] = familyLogLikelihood(tables, ext, origin, origins);
                    st.piIterations += tables.selfIterations;
                    st.maxPiIterations = std::max(st.maxPiIterations, tables.maxSelfIterations);
                    st.piEarly.note(tables.earlyClades, tables.earlyResidual);
                    if (withGradient) {
                        const bool pooled = shared && !s.isPruned();
                        ProbabilityGradient own(pooled ? 0 : s.size);
                        ProbabilityGradient& g = pooled ? chunkGrad[k] : own;
                        AdjointStats adj;
                        const double weight = familyWeights ? (*familyWeights)[f] : 1.0;
                        accumulateCladeAdjoint(s, family, p, ext, tables, options, g, adj, origins, weight);
                        if (origins) {
                            std::vector<double> kept(s.size, 0.0);
                            addOriginationGradient(tables, ext, *origins, weight, kept);
                            addToFullNodes(s, kept, chunkOrigin[k]);
                        }
                        st.prunedClades += adj.prunedClades;
                        if (!pooled) {
                            eliminateExtinction(s, p, ext, options, g, adj.krylov);
                            // A genewise family owns its rows of θ: no other thread writes them.
                            addThetaGradient(theta, f, p, g, shared ? chunkTheta[k] : out.gradient,
                                             s.highways, s.fullIndex);
                        }
                        st.bicgstabIterations += adj.krylov.iterations;
                        st.bicgstabBreakdowns += adj.krylov.breakdowns;
                        st.bicgstabEarly.note(adj.krylov.unconverged, adj.krylov.worstResidual);
                    }
                } catch (...) {
                    if (!chunkFailure[k]) chunkFailure[k] = std::current_exception();
                }
            }
        // The first failing family's error, whichever thread met it first.
        for (const std::exception_ptr& failure : chunkFailure)
            if (failure) std::rethrow_exception(failure);

        for (const SolverStats& s : chunkStats) {
            out.stats.add(s);
        }
        if (sharedGradient) {
            ProbabilityGradient total(n);
            for (const ProbabilityGradient& g : chunkGrad)
                total.add(g);
            KrylovStats ks;
            eliminateExtinction(layouts[0], sharedP[0], sharedE[0], options, total, ks);
            out.stats.bicgstabIterations += ks.iterations;
            out.stats.bicgstabBreakdowns += ks.breakdowns;
            // This solve serves every family: with the families noted above, all F are affected.
            out.stats.bicgstabEarly.note(ks.unconverged, ks.worstResidual,
                                         F - out.stats.bicgstabEarly.families);
            addThetaGradient(theta, 0, sharedP[0], total, out.gradient, layouts[0].highways);
        }
        for (const std::vector<double>& g : chunkTheta)
            for (std::size_t i = 0; i < g.size(); ++i)
                out.gradient[i] += g[i];
        for (const std::vector<double>& g : chunkOrigin)
            for (int e = 0; e < n; ++e)
                out.gradient[theta.originEntry(e)] += g[e];
        finishEvaluation(out, options, start);
        return out;
    }

    std::vector<FamilyTables> familyTables(const RateParameters& theta, const SolverOptions& options,
                                           const std::vector<int>& families) override {
        requireEvaluable(*data_, theta, options);
        requireFamilies(*data_, families);
        const int count = static_cast<int>(families.size());
        const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
        std::vector<FamilyTables> out(count);
        std::vector<std::exception_ptr> failure(count);
#pragma omp parallel for schedule(dynamic) num_threads(threads)
        for (int i = 0; i < count; ++i) {
            try {
                const int f = families[i];
                const SpeciesLayout& s = layouts_.family(f);
                out[i] = computeFamilyTables(
                    s, data_->families[f],
                    keptProbabilities(s,
                                      theta.probabilities(f, data_->events.presentRates(), data_->highways)),
                    options);
                out[i].originWeights = keptValues(s, theta.originWeights());
                out[i].speciesNodes = s.fullIndex;
            } catch (...) {
                failure[i] = std::current_exception();
            }
        }
        for (const std::exception_ptr& f : failure) // the first failing family in list order
            if (f) std::rethrow_exception(f);
        return out;
    }

  private:
    std::shared_ptr<const Dataset> data_;
    FamilyLayouts layouts_;
    bool keepTables_ = false;
    std::mutex mutex_;
    std::vector<std::vector<double>> warmE_;
    std::vector<CladeTables> warmTables_;
    std::vector<CladeTables> threadTables_;
};

} // namespace

std::unique_ptr<LikelihoodBackend> makeCpuBackend(std::shared_ptr<const Dataset> data) {
    return std::make_unique<CpuBackend>(std::move(data));
}

} // namespace gpurec
