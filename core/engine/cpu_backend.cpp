// The CPU reference backend: families in parallel over OpenMP threads, double precision.
#include "engine/backend.hpp"
#include "engine/evaluation_shape.hpp"
#include "engine/family_chunks.hpp"
#include "engine/family_solver.hpp"

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
// gradient's six rows and highway row, its origination row, then its genewise families' highway
// row (each row sized as its total is).
void appendRows(const ProbabilityGradient* g, const std::vector<double>* origin,
                const std::vector<double>* highways, std::vector<double>& rows) {
    if (g)
        for (const std::vector<double>* row : {&g->gS, &g->gD, &g->gL, &g->gT, &g->gE, &g->gEbar, &g->gH})
            rows.insert(rows.end(), row->begin(), row->end());
    if (origin) rows.insert(rows.end(), origin->begin(), origin->end());
    if (highways) rows.insert(rows.end(), highways->begin(), highways->end());
}

// The sums of appendRows' layout back into their places.
void readRows(const std::vector<double>& rows, ProbabilityGradient* g, std::vector<double>* origin,
              std::vector<double>* highways) {
    auto at = rows.begin();
    const auto take = [&at](std::vector<double>& row) {
        std::copy(at, at + static_cast<std::ptrdiff_t>(row.size()), row.begin());
        at += static_cast<std::ptrdiff_t>(row.size());
    };
    if (g)
        for (std::vector<double>* row : {&g->gS, &g->gD, &g->gL, &g->gT, &g->gE, &g->gEbar, &g->gH})
            take(*row);
    if (origin) take(*origin);
    if (highways) take(*highways);
}

class CpuBackend final : public LikelihoodBackend {
  public:
    explicit CpuBackend(std::shared_ptr<const Dataset> data)
        : data_(std::move(data)), layout_(*data_), keepTables_(tablesFit(data_->cladeCount(), layout_.size)) {
    }

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
        keepTables_ = tablesFit(share_ ? share_->wholeClades() : data_->cladeCount(), layout_.size);
        forgetWarmStarts();
        return true;
    }

    void replan(const BatchLimits&) override {}

    void setSpeciesTree(std::shared_ptr<const Dataset> data) override {
        std::lock_guard lock(mutex_);
        requireSameFamilies(*data_, *data);
        data_ = std::move(data);
        layout_ = SpeciesLayout(*data_);
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
        const int n = layout_.size;
        Evaluation out = emptyEvaluation(*data_, theta, withGradient);
        const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
        const bool shared = theta.sharedAcrossFamilies();
        // --origination OPTIMIZE: the weights O_e, shared by the families (never genewise).
        const std::vector<double> originWeights = theta.originWeights();
        const std::vector<double>* origins = originWeights.empty() ? nullptr : &originWeights;

        std::lock_guard lock(mutex_);
        if (warmE_.size() != static_cast<std::size_t>(F)) warmE_.assign(F, {});
        if (keepTables_ && warmTables_.size() != static_cast<std::size_t>(F)) warmTables_.assign(F, {});
        if (threadTables_.size() < static_cast<std::size_t>(threads)) threadTables_.resize(threads);
        const bool useWarm = options.schedule == Schedule::Converged;

        // A share of a larger dataset counts and chunks its families as the whole dataset's.
        const int wholeF = share_ ? share_->wholeFamilies() : F;
        EventProbabilities sharedP;
        ExtinctionState sharedE;
        if (shared) {
            sharedP = theta.probabilities(0, data_->events.presentRates(), data_->highways);
            sharedE = solveExtinction(layout_, sharedP, options,
                                      useWarm && !warmSharedE_.empty() ? &warmSharedE_ : nullptr);
            warmSharedE_ = sharedE.E;
            for (auto& w : warmE_)
                w = sharedE.E;
        }
        // Fixed-order reductions, whatever the thread count: families are processed in fixed chunks
        // (one family each unless the shared gradient's buffers would be too large), each chunk sums
        // its families in order, and the chunks are combined in order after the loop.
        const bool sharedGradient = withGradient && shared;
        const int rowsPerNode = origins ? 7 : 6, gradientNodes = sharedGradient ? n : 0;
        const int chunkSize = share_ ? share_->familiesPerChunk(gradientNodes, rowsPerNode)
                                     : familiesPerChunk(F, gradientNodes, rowsPerNode);
        const int chunks = (F + chunkSize - 1) / chunkSize;
        const int H = static_cast<int>(layout_.highways.size());
        std::vector<ProbabilityGradient> chunkGrad(sharedGradient ? chunks : 0, ProbabilityGradient(n, H));
        std::vector<std::vector<double>> chunkOrigin(withGradient && origins ? chunks : 0,
                                                     std::vector<double>(n, 0.0));
        // Genewise families' terms of the highways' rates, which every family shares.
        std::vector<std::vector<double>> chunkHighway(withGradient && !shared && H > 0 ? chunks : 0,
                                                      std::vector<double>(H, 0.0));
        std::vector<SolverStats> chunkStats(chunks);
        std::vector<std::exception_ptr> chunkFailure(chunks);

#pragma omp parallel for schedule(dynamic) num_threads(threads)
        for (int k = 0; k < chunks; ++k)
            for (int f = k * chunkSize; f < std::min(F, (k + 1) * chunkSize); ++f) {
                SolverStats& st = chunkStats[k];
                try {
                    const GeneFamily& family = data_->families[f];
                    EventProbabilities ownP;
                    ExtinctionState ownE;
                    if (!shared) {
                        ownP = theta.probabilities(f, data_->events.presentRates(), data_->highways);
                        ownE = solveExtinction(layout_, ownP, options, useWarm ? &warmE_[f] : nullptr);
                        warmE_[f] = ownE.E;
                        st.eEarly.note(ownE.stoppedEarly ? 1 : 0, ownE.residual);
                    }
                    const EventProbabilities& p = shared ? sharedP : ownP;
                    const ExtinctionState& ext = shared ? sharedE : ownE;
                    st.eIterations = std::max(st.eIterations, ext.iterations);
                    st.eResidual = std::max(st.eResidual, ext.residual);
                    // Each family keeps its tables (warm start, and memory that is already mapped) when they
                    // fit the budget; otherwise each thread reuses one scratch table.
                    CladeTables& tables = keepTables_ ? warmTables_[f] : threadTables_[omp_get_thread_num()];
                    solveClades(layout_, family, p, ext, options, tables, keepTables_ && useWarm);
                    out.logLikelihood[f] = familyLogLikelihood(tables, ext, family.originSpecies, origins);
                    st.piIterations += tables.selfIterations;
                    st.maxPiIterations = std::max(st.maxPiIterations, tables.maxSelfIterations);
                    st.piEarly.note(tables.earlyClades, tables.earlyResidual);
                    if (withGradient) {
                        ProbabilityGradient own(shared ? 0 : n);
                        ProbabilityGradient& g = shared ? chunkGrad[k] : own;
                        AdjointStats adj;
                        const double weight = familyWeights ? (*familyWeights)[f] : 1.0;
                        accumulateCladeAdjoint(layout_, family, p, ext, tables, options, g, adj, origins,
                                               weight);
                        if (origins)
                            addOriginationGradient(tables, ext, originWeights, weight, chunkOrigin[k]);
                        st.prunedClades += adj.prunedClades;
                        if (!shared) {
                            eliminateExtinction(layout_, p, ext, options, g, adj.krylov);
                            // A genewise family owns its rows of θ: no other thread writes them. The
                            // highways' rates are every family's: summed by chunk like the shared rows.
                            addThetaGradient(theta, f, p, g, out.gradient, layout_.highways,
                                             chunkHighway.empty() ? nullptr : &chunkHighway[k]);
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
        if (share_) {
            std::vector<double> rows;
            for (int k = 0; k < chunks; ++k)
                appendRows(sharedGradient ? &chunkGrad[k] : nullptr,
                           chunkOrigin.empty() ? nullptr : &chunkOrigin[k],
                           chunkHighway.empty() ? nullptr : &chunkHighway[k], rows);
            const int rowLength = (sharedGradient ? 6 * n + H : 0) + static_cast<int>(originTotal.size()) +
                                  static_cast<int>(highwayTotal.size());
            readRows(share_->combine(failure, out.stats, rows, rowLength), sharedGradient ? &total : nullptr,
                     &originTotal, &highwayTotal);
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
        }
        // The solves every family shares, counted once for the whole dataset.
        if (shared) out.stats.eEarly.note(sharedE.stoppedEarly ? 1 : 0, sharedE.residual, wholeF);
        if (sharedGradient) {
            KrylovStats ks;
            eliminateExtinction(layout_, sharedP, sharedE, options, total, ks);
            out.stats.bicgstabIterations += ks.iterations;
            out.stats.bicgstabBreakdowns += ks.breakdowns;
            // This solve serves every family: with the families noted above, all of them are affected.
            out.stats.bicgstabEarly.note(ks.unconverged, ks.worstResidual,
                                         wholeF - out.stats.bicgstabEarly.families);
            addThetaGradient(theta, 0, sharedP, total, out.gradient, layout_.highways);
        }
        for (int e = 0; e < static_cast<int>(originTotal.size()); ++e)
            out.gradient[theta.originEntry(e)] += originTotal[e];
        for (int h = 0; h < static_cast<int>(highwayTotal.size()); ++h)
            out.gradient[theta.highwayEntry(h)] += highwayTotal[h];
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
                out[i] = computeFamilyTables(
                    layout_, data_->families[f],
                    theta.probabilities(f, data_->events.presentRates(), data_->highways), options);
                out[i].originWeights = theta.originWeights();
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
    SpeciesLayout layout_;
    bool keepTables_ = false;
    std::shared_ptr<FamilyShareExchange> share_; // null: the dataset is the whole one
    std::mutex mutex_;
    std::vector<std::vector<double>> warmE_;
    std::vector<double> warmSharedE_; // the shared E's, whichever families this backend holds
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
