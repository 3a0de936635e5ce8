// The CPU reference backend: families in parallel over OpenMP threads, double precision.
#include "engine/backend.hpp"
#include "engine/evaluation_shape.hpp"
#include "engine/family_chunks.hpp"
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

// Whether the Π tables of `clades` clades on `species` nodes fit the warm-start budget.
bool tablesFit(long long clades, int species) {
    return 2.0 * sizeof(double) * static_cast<double>(clades) * species <= kWarmStartBytes;
}

// The rows a chunk contributes to a share's exchange (FamilyShareExchange::combine): its shared
// gradient's six rows and highway row, its origination row, its genewise families' highway row,
// then its pruned families' θ gradient (each row sized as its total is).
void appendRows(const ProbabilityGradient* g, const std::vector<double>* origin,
                const std::vector<double>* highways, const std::vector<double>* theta,
                std::vector<double>& rows) {
    if (g)
        for (const std::vector<double>* row : {&g->gS, &g->gD, &g->gL, &g->gT, &g->gE, &g->gEbar, &g->gH})
            rows.insert(rows.end(), row->begin(), row->end());
    for (const std::vector<double>* row : {origin, highways, theta})
        if (row) rows.insert(rows.end(), row->begin(), row->end());
}

// The sums of appendRows' layout back into their places.
void readRows(const std::vector<double>& rows, ProbabilityGradient* g, std::vector<double>* origin,
              std::vector<double>* highways, std::vector<double>* theta) {
    auto at = rows.begin();
    const auto take = [&at](std::vector<double>& row) {
        std::copy(at, at + static_cast<std::ptrdiff_t>(row.size()), row.begin());
        at += static_cast<std::ptrdiff_t>(row.size());
    };
    if (g)
        for (std::vector<double>* row : {&g->gS, &g->gD, &g->gL, &g->gT, &g->gE, &g->gEbar, &g->gH})
            take(*row);
    for (std::vector<double>* row : {origin, highways, theta})
        if (row) take(*row);
}

class CpuBackend final : public LikelihoodBackend {
  public:
    explicit CpuBackend(std::shared_ptr<const Dataset> data)
        : data_(std::move(data)), layouts_(*data_),
          keepTables_(tablesFit(data_->cladeCount(), layouts_.full().size)) {}

    std::string name() const override { return "cpu"; }

    void clearWarmStarts() override {
        std::lock_guard lock(mutex_);
        forgetWarmStarts();
    }

    bool joinShares(std::shared_ptr<FamilyShareExchange> exchange) override {
        std::lock_guard lock(mutex_);
        share_ = std::move(exchange);
        // The whole dataset's budget, so that every share keeps its tables exactly when one
        // backend on the whole dataset would (warm starts seed the fixed points' iterations).
        keepTables_ = tablesFit(share_ ? share_->wholeClades() : data_->cladeCount(), layouts_.full().size);
        forgetWarmStarts();
        return true;
    }

    void replan(const BatchLimits&) override {}

    bool setNeededFamilies(const std::vector<char>& needed) override {
        std::lock_guard lock(mutex_);
        requireNeededFlags(*data_, needed);
        needed_ = needed;
        return true;
    }

    void setSpeciesTree(std::shared_ptr<const Dataset> data) override {
        std::lock_guard lock(mutex_);
        requireSameFamilies(*data_, *data);
        data_ = std::move(data);
        layouts_ = FamilyLayouts(*data_);
        forgetWarmStarts();
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
        const auto originsOf = [&](int l) { return originWeights.empty() ? nullptr : &layoutOrigins[l]; };

        std::lock_guard lock(mutex_);
        if (warmE_.size() != static_cast<std::size_t>(F)) warmE_.assign(F, {});
        if (keepTables_ && warmTables_.size() != static_cast<std::size_t>(F)) warmTables_.assign(F, {});
        if (threadTables_.size() < static_cast<std::size_t>(threads)) threadTables_.resize(threads);
        const bool useWarm = options.schedule == Schedule::Converged;

        // A share of a larger dataset counts and chunks its families as the whole dataset's.
        const int wholeF = share_ ? share_->wholeFamilies() : F;
        // Shared rates: one E per layout, warm-started from that layout's last one. Each layout's E
        // depends on its tree alone, so every process holding one of its families solves the same.
        std::vector<EventProbabilities> sharedP(shared ? L : 0);
        std::vector<ExtinctionState> sharedE(shared ? L : 0);
        if (shared) {
            const EventProbabilities fullP =
                theta.probabilities(0, data_->events.presentRates(), data_->highways);
            warmSharedE_.resize(L);
            for (int l = 0; l < L; ++l) {
                sharedP[l] = keptProbabilities(layouts[l], fullP);
                sharedE[l] =
                    solveExtinction(layouts[l], sharedP[l], options,
                                    useWarm && !warmSharedE_[l].empty() ? &warmSharedE_[l] : nullptr);
                warmSharedE_[l] = sharedE[l].E;
            }
            for (int f = 0; f < F; ++f)
                warmE_[f] = sharedE[layouts_.of[f]].E;
        }
        // Fixed-order reductions, whatever the thread count: families are processed in fixed chunks
        // (one family each unless the shared gradient's buffers would be too large), each chunk sums
        // its families in order, and the chunks are combined in order after the loop.
        // Families on the full tree pool their shared gradient, whose E adjoint is solved once after
        // the loop; those on pruned trees eliminate their own E and add to a θ gradient per chunk
        // (decided by the option, not by this share's layouts, so every share sends the same rows).
        const bool sharedGradient = withGradient && shared;
        const bool prunedGradient = sharedGradient && data_->pruneSpeciesTree;
        const int rowsPerNode = sharedGradientRows(!originWeights.empty(), data_->pruneSpeciesTree);
        const int gradientNodes = sharedGradient ? n : 0;
        const int chunkSize = share_ ? share_->familiesPerChunk(gradientNodes, rowsPerNode)
                                     : familiesPerChunk(F, gradientNodes, rowsPerNode);
        const int chunks = (F + chunkSize - 1) / chunkSize;
        const int H = static_cast<int>(layouts_.full().highways.size());
        // No gradient, or genewise θ without highways: no sum over families, so the families no
        // longer needed (setNeededFamilies) are left out without changing the others' results.
        const bool restricted = leavesFamiliesOut(theta, needed_, withGradient);
        const auto skipped = [&](int f) { return restricted && !needed_[f]; };
        const int thetaSize = static_cast<int>(theta.theta().size());
        std::vector<ProbabilityGradient> chunkGrad(sharedGradient ? chunks : 0, ProbabilityGradient(n, H));
        std::vector<std::vector<double>> chunkTheta(prunedGradient ? chunks : 0,
                                                    std::vector<double>(thetaSize, 0.0));
        std::vector<std::vector<double>> chunkOrigin(withGradient && !originWeights.empty() ? chunks : 0,
                                                     std::vector<double>(n, 0.0));
        // Genewise families' terms of the highways' rates, which every family shares.
        std::vector<std::vector<double>> chunkHighway(withGradient && !shared && H > 0 ? chunks : 0,
                                                      std::vector<double>(H, 0.0));
        std::vector<SolverStats> chunkStats(chunks);
        std::vector<std::exception_ptr> chunkFailure(chunks);

#pragma omp parallel for schedule(dynamic) num_threads(threads)
        for (int k = 0; k < chunks; ++k)
            for (int f = k * chunkSize; f < std::min(F, (k + 1) * chunkSize); ++f) {
                if (skipped(f)) continue;
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
                        ProbabilityGradient own(pooled ? 0 : s.size, pooled ? 0 : H);
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
                            // A genewise family owns its rows of θ: no other thread writes them. The
                            // highways' rates are every family's: summed by chunk like the shared rows.
                            addThetaGradient(theta, f, p, g, shared ? chunkTheta[k] : out.gradient,
                                             s.highways, chunkHighway.empty() ? nullptr : &chunkHighway[k],
                                             s.fullIndex);
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
        std::exception_ptr failure;
        for (const std::exception_ptr& f : chunkFailure)
            if (f && !failure) failure = f;

        for (const SolverStats& s : chunkStats) {
            out.stats.add(s);
        }
        // The chunks' sums, in chunk order: of this dataset, or of every share of the whole one.
        ProbabilityGradient total(sharedGradient ? n : 0, sharedGradient ? H : 0);
        std::vector<double> originTotal(chunkOrigin.empty() ? 0 : n, 0.0);
        std::vector<double> highwayTotal(chunkHighway.empty() ? 0 : H, 0.0);
        std::vector<double> thetaTotal(chunkTheta.empty() ? 0 : thetaSize, 0.0);
        // Pruned trees' shared E solves, noted for this share's families on each (a tree held by two
        // processes counts its solve twice); without pruning, the one E is noted after the combine.
        if (data_->pruneSpeciesTree)
            for (int l = 0; l < static_cast<int>(sharedE.size()); ++l)
                out.stats.eEarly.note(sharedE[l].stoppedEarly ? 1 : 0, sharedE[l].residual,
                                      layouts_.families[l]);
        if (share_) {
            std::vector<double> rows;
            for (int k = 0; k < chunks; ++k)
                appendRows(sharedGradient ? &chunkGrad[k] : nullptr,
                           chunkOrigin.empty() ? nullptr : &chunkOrigin[k],
                           chunkHighway.empty() ? nullptr : &chunkHighway[k],
                           chunkTheta.empty() ? nullptr : &chunkTheta[k], rows);
            const int rowLength = (sharedGradient ? 6 * n + H : 0) + static_cast<int>(originTotal.size()) +
                                  static_cast<int>(highwayTotal.size()) + static_cast<int>(thetaTotal.size());
            readRows(share_->combine(failure, out.stats, rows, rowLength), sharedGradient ? &total : nullptr,
                     &originTotal, &highwayTotal, &thetaTotal);
        } else {
            if (failure) std::rethrow_exception(failure);
            for (const ProbabilityGradient& g : chunkGrad)
                total.add(g);
            for (const std::vector<double>& g : chunkOrigin)
                for (int e = 0; e < n; ++e)
                    originTotal[e] += g[e];
            for (const std::vector<double>& g : chunkHighway)
                for (int h = 0; h < H; ++h)
                    highwayTotal[h] += g[h];
            for (const std::vector<double>& g : chunkTheta)
                for (int i = 0; i < thetaSize; ++i)
                    thetaTotal[i] += g[i];
        }
        // The solve every family shares, counted once for the whole dataset.
        if (shared && !data_->pruneSpeciesTree)
            out.stats.eEarly.note(sharedE[0].stoppedEarly ? 1 : 0, sharedE[0].residual, wholeF);
        if (sharedGradient) {
            KrylovStats ks;
            eliminateExtinction(layouts[0], sharedP[0], sharedE[0], options, total, ks);
            out.stats.bicgstabIterations += ks.iterations;
            out.stats.bicgstabBreakdowns += ks.breakdowns;
            // This solve serves every family: with the families noted above, all of them are affected.
            out.stats.bicgstabEarly.note(ks.unconverged, ks.worstResidual,
                                         wholeF - out.stats.bicgstabEarly.families);
            addThetaGradient(theta, 0, sharedP[0], total, out.gradient, layouts[0].highways);
        }
        for (int i = 0; i < static_cast<int>(thetaTotal.size()); ++i)
            out.gradient[i] += thetaTotal[i];
        for (int e = 0; e < static_cast<int>(originTotal.size()); ++e)
            out.gradient[theta.originEntry(e)] += originTotal[e];
        for (int h = 0; h < static_cast<int>(highwayTotal.size()); ++h)
            out.gradient[theta.highwayEntry(h)] += highwayTotal[h];
        finishEvaluation(out, theta, needed_, options, start);
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
    void forgetWarmStarts() {
        warmTables_.clear();
        warmE_.clear();
        warmSharedE_.clear();
    }

    std::shared_ptr<const Dataset> data_;
    FamilyLayouts layouts_;
    bool keepTables_ = false;
    std::shared_ptr<FamilyShareExchange> share_; // null: the dataset is the whole one
    std::mutex mutex_;
    std::vector<std::vector<double>> warmE_;
    // Per layout: the shared E's, whichever families this backend holds.
    std::vector<std::vector<double>> warmSharedE_;
    std::vector<char> needed_; // per family (setNeededFamilies); empty: every family
    std::vector<CladeTables> warmTables_;
    std::vector<CladeTables> threadTables_;
};

} // namespace

int familiesPerChunk(int families, int speciesNodes, int rows) {
    if (speciesNodes == 0) return 1;
    const double chunks =
        std::max(kMinChunks, std::floor(kChunkGradientBytes / (rows * sizeof(double) * speciesNodes)));
    return std::max(1, static_cast<int>(std::ceil(families / chunks)));
}

std::unique_ptr<LikelihoodBackend> makeCpuBackend(std::shared_ptr<const Dataset> data) {
    return std::make_unique<CpuBackend>(std::move(data));
}

} // namespace gpurec
