#include "distributed/distributed_backend.hpp"

#include "distributed/wire.hpp"
#include "engine/evaluation_shape.hpp"
#include "engine/family_chunks.hpp"

#include <chrono>
#include <stdexcept>

namespace gpurec {

namespace {

// The shares' side of FamilyShareExchange: statistics gathered, chunk rows folded along the ranks.
class ShareExchange final : public FamilyShareExchange {
  public:
    ShareExchange(ProcessGroup& group, int families, long long clades, int chunk)
        : group_(group), families_(families), clades_(clades), chunk_(chunk) {}

    int wholeFamilies() const override { return families_; }
    long long wholeClades() const override { return clades_; }
    int familiesPerChunk(int speciesNodes, int rows) const override {
        if (speciesNodes == 0) return 1;
        return chunk_ > 0 ? chunk_ : gpurec::familiesPerChunk(families_, speciesNodes, rows);
    }

    std::vector<double> combine(const std::exception_ptr& failure, SolverStats& stats,
                                const std::vector<double>& rows, int rowLength) override {
        ByteWriter out;
        write(out, stats);
        SolverStats sum; // sums and maxima: the same in any order
        for (const std::string& part : group_.allGather(out.bytes(), failure)) {
            ByteReader in(part);
            sum.add(readSolverStats(in));
        }
        stats = sum;
        return group_.foldInRankOrder(rows, static_cast<std::size_t>(rowLength));
    }

  private:
    ProcessGroup& group_;
    int families_;
    long long clades_;
    int chunk_;
};

class DistributedBackend final : public LikelihoodBackend {
  public:
    DistributedBackend(ProcessGroup& group, std::shared_ptr<const Dataset> whole,
                       const LocalBackendFactory& makeLocal, int chunk)
        : group_(group), whole_(std::move(whole)), offsets_(group.size() + 1, 0) {
        int last = 0;
        for (int f = 0; f < static_cast<int>(whole_->families.size()); ++f) {
            const int holder = whole_->families[f].holder;
            if (holder < last || holder >= group_.size())
                throw std::invalid_argument("the families are not placed on the processes in rank order");
            last = holder;
            ++offsets_[holder + 1];
            if (holder == group_.rank()) mine_.push_back(f);
        }
        for (int p = 0; p < group_.size(); ++p)
            offsets_[p + 1] += offsets_[p];
        // Every process takes the same path: exact sums only when every backend can share them.
        std::exception_ptr failure;
        bool joined = false;
        try {
            local_ = makeLocal(localOn(*whole_));
            joined = local_->joinShares(std::make_shared<ShareExchange>(
                group_, static_cast<int>(whole_->families.size()), whole_->cladeCount(), chunk));
        } catch (...) {
            failure = std::current_exception();
        }
        exact_ = true;
        for (const std::string& flag : group_.allGather(joined ? "1" : "0", failure))
            exact_ = exact_ && flag == "1";
        if (joined && !exact_) local_->joinShares(nullptr);
    }

    std::string name() const override { return local_->name(); }

    std::string planSummary() const override {
        return local_->planSummary() + "; process " + std::to_string(group_.rank()) + " of " +
               std::to_string(group_.size()) + " holds " + std::to_string(mine_.size()) + " of " +
               std::to_string(whole_->families.size()) + " families" +
               (exact_ ? "" : " (gradients added in rank order)");
    }

    Evaluation evaluate(const RateParameters& theta, const SolverOptions& options, bool withGradient,
                        const std::vector<double>* familyWeights = nullptr) override {
        const auto start = std::chrono::steady_clock::now();
        if (!ratesFitDataset(theta, *whole_))
            throw std::invalid_argument("rate parameters do not match the dataset's shape");
        const bool genewise = theta.mode() == RateMode::Genewise;
        const int first = offsets_[group_.rank()], count = static_cast<int>(mine_.size());
        std::vector<double> weights;
        if (familyWeights) {
            if (familyWeights->size() != whole_->families.size())
                throw std::invalid_argument("family weights: " + std::to_string(familyWeights->size()) +
                                            " for " + std::to_string(whole_->families.size()) + " families");
            weights.assign(familyWeights->begin() + first, familyWeights->begin() + first + count);
        }
        Evaluation mine;
        std::exception_ptr failure;
        try {
            mine = local_->evaluate(localRates(theta), options, withGradient,
                                    familyWeights ? &weights : nullptr);
        } catch (const GroupFailure&) {
            throw; // every process has it already
        } catch (...) {
            failure = std::current_exception();
        }
        ByteWriter out;
        out.values(mine.logLikelihood);
        const bool wholeGradient = withGradient && !genewise && (!exact_ || group_.rank() == 0);
        if (withGradient && genewise) out.values(mine.gradient);
        if (wholeGradient) out.values(mine.gradient);
        if (!exact_) write(out, mine.stats);
        const std::vector<std::string> parts = group_.allGather(out.bytes(), failure);

        Evaluation result = emptyEvaluation(*whole_, theta, withGradient);
        if (exact_) result.stats = mine.stats; // the whole dataset's already
        for (int from = 0; from < group_.size(); ++from) {
            ByteReader in(parts[from]);
            const std::vector<double> ll = in.values<double>();
            std::copy(ll.begin(), ll.end(), result.logLikelihood.begin() + offsets_[from]);
            if (withGradient && genewise) {
                // The process's families' rows, then the entries every family shares (the
                // highways' rates): the whole dataset's sums already when the shares are exact.
                const std::vector<double> local = in.values<double>();
                const auto rows = static_cast<std::ptrdiff_t>(3L * (offsets_[from + 1] - offsets_[from]));
                std::copy(local.begin(), local.begin() + rows, result.gradient.begin() + 3L * offsets_[from]);
                if (!exact_ || from == 0)
                    for (std::ptrdiff_t i = rows; i < static_cast<std::ptrdiff_t>(local.size()); ++i)
                        result.gradient[3 * whole_->families.size() + (i - rows)] += local[i];
            }
            if (withGradient && !genewise && (!exact_ || from == 0)) {
                const std::vector<double> gradient = in.values<double>();
                for (std::size_t i = 0; i < gradient.size(); ++i)
                    result.gradient[i] += gradient[i];
            }
            if (!exact_) result.stats.add(readSolverStats(in));
        }
        finishEvaluation(result, theta, needed_, options, start);
        return result;
    }

    void clearWarmStarts() override { local_->clearWarmStarts(); }

    // Every process is told the same flags (the optimisers run alike on every process) and passes
    // its own families' on; the restriction holds only where every local backend takes it, so the
    // results stay those of one process.
    bool setNeededFamilies(const std::vector<char>& needed) override {
        requireNeededFlags(*whole_, needed);
        std::vector<char> local;
        if (!needed.empty())
            local.assign(needed.begin() + offsets_[group_.rank()],
                         needed.begin() + offsets_[group_.rank() + 1]);
        std::exception_ptr failure;
        bool taken = false;
        try {
            taken = local_->setNeededFamilies(local);
        } catch (...) {
            failure = std::current_exception();
        }
        bool everywhere = true;
        for (const std::string& flag : group_.allGather(taken ? "1" : "0", failure))
            everywhere = everywhere && flag == "1";
        if (taken && !everywhere) local_->setNeededFamilies({});
        needed_ = everywhere ? needed : std::vector<char>{};
        return everywhere;
    }

    void replan(const BatchLimits& limits) override { local_->replan(limits); }
    BatchLimits batchLimits() const override { return local_->batchLimits(); }

    void setSpeciesTree(std::shared_ptr<const Dataset> data) override {
        requireSameFamilies(*whole_, *data);
        for (std::size_t f = 0; f < data->families.size(); ++f)
            if (data->families[f].holder != whole_->families[f].holder)
                throw std::invalid_argument("cannot move the backend onto another dataset: family " +
                                            data->families[f].name + " is placed on another process");
        whole_ = std::move(data);
        local_->setSpeciesTree(localOn(*whole_));
    }

    // The tables of families this process holds (the sampler asks each process for its own:
    // distributed_sampling.hpp).
    std::vector<FamilyTables> familyTables(const RateParameters& theta, const SolverOptions& options,
                                           const std::vector<int>& families) override {
        requireFamilies(*whole_, families);
        std::vector<int> local;
        for (int f : families) {
            if (whole_->families[f].holder != group_.rank())
                throw std::out_of_range("family " + whole_->families[f].name + " is held by process " +
                                        std::to_string(whole_->families[f].holder) + ", not by process " +
                                        std::to_string(group_.rank()));
            local.push_back(f - offsets_[group_.rank()]);
        }
        return local_->familyTables(localRates(theta), options, local);
    }

    BackendDiagnostics* diagnostics() override { return local_->diagnostics(); }

  private:
    // θ of this process's families: genewise rows cut out (then the highways' rates, which every
    // family shares), shared rates as they are.
    RateParameters localRates(const RateParameters& theta) const {
        if (theta.mode() != RateMode::Genewise) return theta;
        const int count = static_cast<int>(mine_.size());
        RateParameters out(RateMode::Genewise, theta.speciesCount(), count, Rates{});
        const std::size_t rows = 3 * whole_->families.size();
        if (theta.highwayCount() > 0) out.addHighways(theta.highwayCount(), 1.0);
        if (theta.theta().size() != rows + theta.highwayCount() ||
            (theta.highwayCount() > 0 && theta.highwayEntry(0) != static_cast<int>(rows)))
            throw std::invalid_argument("per-family rates with entries besides the families' rows and the "
                                        "highways' rates (origination weights, the speciation shape) "
                                        "cannot be shared out over processes");
        const auto begin = theta.theta().begin() + 3L * offsets_[group_.rank()];
        std::copy(begin, begin + 3L * count, out.theta().begin());
        std::copy(theta.theta().begin() + static_cast<std::ptrdiff_t>(rows), theta.theta().end(),
                  out.theta().begin() + 3L * count);
        return out;
    }

    // This process's families of `whole` (on its species tree): one of two datasets rewritten in
    // place when the backend no longer holds it, so that moving between candidate trees copies no
    // clade set.
    std::shared_ptr<const Dataset> localOn(const Dataset& whole) {
        for (std::shared_ptr<Dataset>& slot : scratch_)
            if (slot && slot.use_count() == 1) {
                Dataset next = withFamilies(whole, {});
                next.families = std::move(slot->families);
                for (std::size_t i = 0; i < mine_.size(); ++i) {
                    next.families[i].geneSpecies = whole.families[mine_[i]].geneSpecies;
                    next.families[i].originSpecies = whole.families[mine_[i]].originSpecies;
                }
                *slot = std::move(next);
                return slot;
            }
        auto fresh = std::make_shared<Dataset>(withFamilies(whole, mine_));
        for (std::shared_ptr<Dataset>& slot : scratch_)
            if (!slot) {
                slot = fresh;
                break;
            }
        return fresh;
    }

    ProcessGroup& group_;
    std::shared_ptr<const Dataset> whole_;
    std::vector<int> offsets_; // first family of each process, then the end
    std::vector<int> mine_;
    std::shared_ptr<Dataset> scratch_[2];
    std::unique_ptr<LikelihoodBackend> local_;
    bool exact_ = false;
    std::vector<char> needed_; // the whole dataset's flags every local backend took (setNeededFamilies)
};

} // namespace

std::unique_ptr<LikelihoodBackend> makeDistributedBackend(ProcessGroup& group,
                                                          std::shared_ptr<const Dataset> whole,
                                                          const LocalBackendFactory& makeLocal,
                                                          int familiesPerChunk) {
    return std::make_unique<DistributedBackend>(group, std::move(whole), makeLocal, familiesPerChunk);
}

std::string deviceForProcess(const std::string& device, int hostRank, int deviceCount) {
    if (device != "cuda" && device != "auto") return device; // cpu, cuda:N (shared as asked), or bad
    if (deviceCount == 0) return device;                     // auto: the CPU; cuda: the factory's error
    if (hostRank < deviceCount) return "cuda:" + std::to_string(hostRank);
    throw std::runtime_error("--device " + device + ": this host has " + std::to_string(deviceCount) +
                             " CUDA device(s) for more processes (this one is its process " +
                             std::to_string(hostRank) + " from 0); start at most " +
                             std::to_string(deviceCount) + " per host (mpirun --map-by ppr:" +
                             std::to_string(deviceCount) + ":node), or share one with --device cuda:N");
}

} // namespace gpurec
