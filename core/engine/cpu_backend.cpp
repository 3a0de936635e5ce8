// The CPU reference backend: families in parallel over OpenMP threads, double precision.
#include "engine/backend.hpp"
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

class CpuBackend final : public LikelihoodBackend {
  public:
    explicit CpuBackend(std::shared_ptr<const Dataset> data)
        : data_(std::move(data)), layout_(data_->species, data_->transferConstraint) {
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

    std::string planSummary() const override {
        return "cpu: " + std::to_string(data_->families.size()) + " families, one per thread task" +
               (keepTables_ ? ", warm starts kept" : ", warm starts for E only (tables too large)");
    }

    Evaluation evaluate(const RateParameters& theta, const SolverOptions& options, bool withGradient) override {
        options.validate();
        auto start = std::chrono::steady_clock::now();
        const int F = static_cast<int>(data_->families.size());
        const int n = layout_.size;
        if (theta.speciesCount() != n || (theta.mode() == RateMode::Genewise && theta.familyCount() != F))
            throw std::invalid_argument("rate parameters do not match the dataset's shape");
        Evaluation out;
        out.logLikelihood.assign(F, 0.0);
        if (withGradient) out.gradient.assign(theta.theta().size(), 0.0);
        const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
        const bool shared = theta.sharedAcrossFamilies();

        std::lock_guard lock(mutex_);
        if (warmE_.size() != static_cast<std::size_t>(F)) warmE_.assign(F, {});
        if (keepTables_ && warmTables_.size() != static_cast<std::size_t>(F)) warmTables_.assign(F, {});
        if (threadTables_.size() < static_cast<std::size_t>(threads)) threadTables_.resize(threads);
        const bool useWarm = options.schedule == Schedule::Converged;

        EventProbabilities sharedP;
        ExtinctionState sharedE;
        if (shared) {
            sharedP = theta.probabilities(0);
            sharedE = solveExtinction(layout_, sharedP, options, useWarm && !warmE_.empty() ? &warmE_[0] : nullptr);
            for (auto& w : warmE_) w = sharedE.E;
            out.stats.eEarly.note(sharedE.stoppedEarly ? 1 : 0, sharedE.residual, F);
        }
        std::vector<ProbabilityGradient> threadGrad(threads, ProbabilityGradient(withGradient && shared ? n : 0));
        std::vector<std::vector<double>> threadTheta(threads, std::vector<double>(out.gradient.size(), 0.0));
        std::vector<SolverStats> threadStats(threads);

        std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
        for (int f = 0; f < F; ++f) {
            try {
            const int tid = omp_get_thread_num();
            SolverStats& st = threadStats[tid];
            const GeneFamily& family = data_->families[f];
            EventProbabilities ownP;
            ExtinctionState ownE;
            if (!shared) {
                ownP = theta.probabilities(f);
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
            CladeTables& tables = keepTables_ ? warmTables_[f] : threadTables_[tid];
            solveClades(layout_, family, p, ext, options, tables, keepTables_ && useWarm);
            out.logLikelihood[f] = familyLogLikelihood(tables, ext);
            st.piIterations += tables.selfIterations;
            st.maxPiIterations = std::max(st.maxPiIterations, tables.maxSelfIterations);
            st.piEarly.note(tables.earlyClades, tables.earlyResidual);
            if (withGradient) {
                ProbabilityGradient g(n);
                AdjointStats adj;
                accumulateCladeAdjoint(layout_, family, p, ext, tables, options, g, adj);
                st.prunedClades += adj.prunedClades;
                if (shared) {
                    threadGrad[tid].add(g);
                } else {
                    eliminateExtinction(layout_, p, ext, 1, options, g, adj.krylov);
                    addThetaGradient(theta, f, p, g, threadTheta[tid]);
                }
                st.bicgstabIterations += adj.krylov.iterations;
                st.bicgstabBreakdowns += adj.krylov.breakdowns;
                st.bicgstabEarly.note(adj.krylov.unconverged, adj.krylov.worstResidual);
            }
            } catch (...) {
#pragma omp critical(gpurec_cpu_failure)
                if (!failure) failure = std::current_exception();
            }
        }
        if (failure) std::rethrow_exception(failure);

        for (int t = 0; t < threads; ++t) {
            out.stats.add(threadStats[t]);
            for (std::size_t i = 0; i < out.gradient.size(); ++i) out.gradient[i] += threadTheta[t][i];
        }
        if (withGradient && shared) {
            ProbabilityGradient total(n);
            for (const ProbabilityGradient& g : threadGrad) total.add(g);
            KrylovStats ks;
            eliminateExtinction(layout_, sharedP, sharedE, F, options, total, ks);
            out.stats.bicgstabIterations += ks.iterations;
            out.stats.bicgstabBreakdowns += ks.breakdowns;
            // This solve serves every family: with the families noted above, all F are affected.
            out.stats.bicgstabEarly.note(ks.unconverged, ks.worstResidual,
                                         F - out.stats.bicgstabEarly.families);
            addThetaGradient(theta, 0, sharedP, total, out.gradient);
        }
        for (double ll : out.logLikelihood) out.totalLogLikelihood += ll;
        out.totalNllBits = -out.totalLogLikelihood / std::log(2.0);
        out.stats.setLimits(options);
        out.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return out;
    }

  private:
    std::shared_ptr<const Dataset> data_;
    SpeciesLayout layout_;
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
