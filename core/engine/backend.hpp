#pragma once
// The engine's one narrow interface: prepared families and rates in, per-family results out.
// The CPU reference and the CUDA backend implement it; the CLI, the GUI, the sampler and the
// workbench's per-clade and per-species quantities only talk to it (backend_factory.hpp makes one).
#include "data/dataset.hpp"
#include "engine/backend_diagnostics.hpp"
#include "engine/clade_tables.hpp"
#include "model/rate_parameters.hpp"
#include "model/solver_options.hpp"

#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpurec {

// Solves of one kind that ended at their iteration cap short of their tolerance: their results are
// approximations, and every output must say so.
struct EarlyStops {
    long solves = 0;        // E solves, clades or BiCGSTAB solves that stopped early
    long families = 0;      // families with at least one of them
    double residual = 0.0;  // largest relative change (residual) reached among them
    int iterationCap = 0;   // the cap they stopped at (from the solver options)
    double tolerance = 0.0; // the tolerance they missed
    // Counts `count` early stops of `familiesAffected` families that reached `reached`.
    void note(long count, double reached, long familiesAffected = 1);
    void add(const EarlyStops& other); // merges counts and residuals (caps and tolerances are the same)
};

struct SolverStats {
    int eIterations = 0;     // largest over E solves
    double eResidual = 0.0;  // largest last relative change
    long piIterations = 0;   // self-loop iterations summed over clades
    int maxPiIterations = 0; // largest for one clade
    long bicgstabIterations = 0;
    long bicgstabBreakdowns = 0;
    long prunedClades = 0;
    double seconds = 0.0; // wall time of the evaluation
    // Early stops of the converged schedule's fixed points and of the adjoint's BiCGSTAB solves
    // (the alerax schedule's 4 sweeps are its definition, not an early stop).
    EarlyStops eEarly, piEarly, bicgstabEarly;

    void add(const SolverStats& other); // merges another thread's or batch's statistics
    // Records the caps and tolerances of `options` in the early-stop entries.
    void setLimits(const SolverOptions& options);
    bool stoppedEarly() const { return eEarly.solves + piEarly.solves + bicgstabEarly.solves > 0; }
};

struct Evaluation {
    std::vector<double> logLikelihood; // per family, natural log
    double totalLogLikelihood = 0.0;
    double totalNllBits = 0.0;
    std::vector<double> gradient; // d totalNllBits / dθ, same shape as θ (empty without gradient)
    SolverStats stats;
};

// One family's converged quantities: event probabilities, E and Ē (length S) and the row-scaled
// Π, Π̄ tables (Π̄ without the factor pT), with the statistics of the solves that gave them.
struct FamilyTables {
    EventProbabilities p;
    std::vector<double> E, Ebar;
    std::vector<double> originWeights; // --origination OPTIMIZE: o_e per node (else empty)
    // --prune-species-tree: the full tree's index of each node of these tables, which are those of
    // the family's pruned tree (engine/species_pruning.hpp); empty: the tables cover the full tree.
    std::vector<int> speciesNodes;
    CladeTables clades; // cladeSelfIterations: per clade (1 where a backend solves a self loop directly)
    SolverStats stats;  // early stops of the E and Π solves, so sampling reports them as eval does
    // Speciation gamma categories (engine/gamma_mixture_backend.hpp): every category's own tables,
    // the fields above then left empty; empty for a model of one category.
    std::vector<FamilyTables> categories;
};

// Device memory budget and batch shape; the CPU ignores what it does not need.
struct BatchLimits {
    double memoryBytes = 0; // 0: backend default
    int maxFamiliesPerBatch = 0;
};

// The sums over families of a backend that holds one share of a larger dataset's families
// (core/distributed: one share per process), taken together with the other shares so that every
// result is, bit for bit, the one a backend on the whole dataset gives.
class FamilyShareExchange {
  public:
    virtual ~FamilyShareExchange() = default;
    // The whole dataset's families and clades: what the statistics count and the warm-start budget
    // is decided on, as a backend on the whole dataset decides it.
    virtual int wholeFamilies() const = 0;
    virtual long long wholeClades() const = 0;
    // Families per chunk of the sums (engine/family_chunks.hpp, `speciesNodes` 0 when there is no
    // shared gradient): the chunking the shares were cut at.
    virtual int familiesPerChunk(int speciesNodes, int rows) const = 0;
    // Called by every share once per evaluation, after its own families (`failure`: the error met
    // there, or null). Throws on every share when one failed; adds the other shares' `stats` to
    // `stats`; returns the sum over the whole dataset's chunks, in chunk order, of the chunk rows
    // (`rows`: this share's chunks in order, `rowLength` values each; empty when rowLength is 0).
    virtual std::vector<double> combine(const std::exception_ptr& failure, SolverStats& stats,
                                        const std::vector<double>& rows, int rowLength) = 0;
};

class LikelihoodBackend {
  public:
    virtual ~LikelihoodBackend() = default;
    virtual std::string name() const = 0;
    // `familyWeights`, when given (one per family), weight the families in the gradient: it is then
    // that of Σ_f w_f NLL_f (a mixture's categories, engine/gamma_mixture_backend.hpp); the
    // likelihoods and totals are unweighted. Null: every weight 1.
    virtual Evaluation evaluate(const RateParameters& theta, const SolverOptions& options, bool withGradient,
                                const std::vector<double>* familyWeights = nullptr) = 0;
    // Forget cached E and Π (warm starts); results never depend on them beyond tolerance.
    virtual void clearWarmStarts() = 0;
    // Which families a caller still needs from later evaluations without a gradient (the
    // species-tree search's screens), or with one whose rates are each family's own (genewise θ
    // without highways): one flag per family, 0 for a family not needed (a candidate's screen
    // leaves out families its move does not touch; a genewise fit's families that have converged);
    // empty: every family, as after construction. There the families not needed are not solved:
    // their log-likelihoods are NaN and left out of the total, their gradient entries 0, and the
    // needed ones' results are those of an evaluation of every family. A gradient at other θ sums
    // over every family. False: this backend always solves every family. Throws
    // std::invalid_argument when the flags are not one per family.
    virtual bool setNeededFamilies(const std::vector<char>& /*needed*/) { return false; }
    virtual void replan(const BatchLimits& limits) = 0;
    // The limits of the current plan (those of the last replan; the CPU's are the defaults).
    virtual BatchLimits batchLimits() const { return {}; }
    // Moves the backend onto `data`: the same families with the same clade sets on another species
    // tree of as many nodes (the species-tree search's candidates, CandidateScorer::datasetOn), or
    // with other transfer highways (the highway search). What
    // depends on the clade sets alone is kept (the CUDA backend's flattened clades, batch plan and
    // wave lists); warm starts are forgotten, so results equal a fresh backend's on `data`. Throws
    // std::invalid_argument when the families or their clade sets differ.
    virtual void setSpeciesTree(std::shared_ptr<const Dataset> data) = 0;
    // A short description of the work plan (batches, peak memory) for logs.
    virtual std::string planSummary() const = 0;
    // E, Ē, Π and Π̄ of `families` (indices into the dataset) at θ, in that order: what the sampler
    // and the workbench read. Throws like evaluate(), and std::out_of_range for an unknown family.
    virtual std::vector<FamilyTables> familyTables(const RateParameters& theta, const SolverOptions& options,
                                                   const std::vector<int>& families) = 0;
    // The backend's own controls and measurements (output poisoning, wave timings, injected
    // allocation failures); nullptr when it has none.
    virtual BackendDiagnostics* diagnostics() { return nullptr; }
    // Makes this backend one share of a larger dataset whose families begin at a chunk boundary
    // (FamilyShareExchange); null makes its dataset its own again. Warm starts are forgotten. False
    // when the backend cannot take part: its sums over families are then those of its share alone.
    // By value: the backends that take part keep it (a sink); this default only declines.
    virtual bool joinShares(
        std::shared_ptr<FamilyShareExchange> /*exchange*/) { // NOLINT(performance-unnecessary-value-param)
        return false;
    }
};

std::unique_ptr<LikelihoodBackend> makeCpuBackend(std::shared_ptr<const Dataset> data);

// familyTables of a backend the caller does not own (the workbench's panels reach the session's
// backend on the engine thread through one): same arguments, results and exceptions.
using FamilyTablesSource = std::function<std::vector<FamilyTables>(
    const RateParameters& theta, const SolverOptions& options, const std::vector<int>& families)>;
// The tables of `backend` (which must outlive the source).
inline FamilyTablesSource tablesOf(LikelihoodBackend& backend) {
    return [&backend](const RateParameters& theta, const SolverOptions& options,
                      const std::vector<int>& families) {
        return backend.familyTables(theta, options, families);
    };
}

} // namespace gpurec
