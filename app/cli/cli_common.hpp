#pragma once
// Option groups shared by the gpurec subcommands, and the input/rates set-up they all need.
#include "data/load.hpp"
#include "distributed/process_group.hpp"
#include "engine/backend.hpp"
#include "engine/backend_factory.hpp"
#include "model/rate_parameters.hpp"
#include "model/solver_options.hpp"
#include "optim/parametrization.hpp"
#include "species_search/candidate_scorer.hpp"

#include <CLI/CLI.hpp>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace gpurec::cli {

// The processes of this run (core/distributed): this one alone, unless main() joined the processes
// an MPI launcher started. eval, optimize, sample and search spread their families over them; the
// first process writes the outputs and prints, the others' stdout and stderr go to /dev/null and
// their errors reach the first through the group's agreement.
void joinRun(ProcessGroup& group);
ProcessGroup& runGroup();
bool writesOutputs(); // the first process
// Makes the subcommands that run as one process only refuse to start in a group of several.
void refuseInGroups(CLI::App& app);
// main()'s end of a run: agrees with the other processes on whether one failed (`failure`, null when
// this one did not) and returns the exit status, `status` when none failed, else 2 after one
// "gpurec: error: " line on stderr.
int finishRun(int status, const std::exception_ptr& failure);

// The values a number option accepts, described in the words its error uses ("must be > 0").
struct NumberRange {
    double min = -std::numeric_limits<double>::infinity(), max = std::numeric_limits<double>::infinity();
    bool minOpen = false, maxOpen = false; // open ends exclude the bound itself
    std::optional<double> alsoAllowed;     // one value outside the range, like -1 for "off"

    static NumberRange any() { return {}; }
    static NumberRange positive() { return {0, std::numeric_limits<double>::infinity(), true, false, {}}; }
    static NumberRange atLeast(double v) {
        return {v, std::numeric_limits<double>::infinity(), false, false, {}};
    }
    static NumberRange between(double lo, double hi) { return {lo, hi, false, false, {}}; }
    NumberRange orExactly(double v) const {
        NumberRange r = *this;
        r.alsoAllowed = v;
        return r;
    }
    bool contains(double v) const;
    std::string describe() const; // "> 0", ">= 1", "in [1e-10, 2]", ">= 0 or -1"; empty for any()
};

// Checks the text of a number option before CLI11 converts it: decimal notation only (no hex,
// octal or binary, no inf or nan), integers without a fraction or exponent, no negative value for
// an unsigned option, within the type's limits and `range`.
struct NumberType {
    bool integer;
    double min, max;              // the type's limits
    std::string minText, maxText; // the same, exactly as written in the message
};
CLI::Validator decimalNumber(const NumberType& type, const NumberRange& range);

// Declares a number option checked by decimalNumber: the one way every subcommand declares one.
template <class T>
CLI::Option* addNumber(CLI::App& app, const std::string& flags, T& value, const std::string& help,
                       const NumberRange& range = NumberRange::any()) {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
    using Limits = std::numeric_limits<T>;
    const NumberType type{std::is_integral_v<T>, static_cast<double>(Limits::lowest()),
                          static_cast<double>(Limits::max()), std::to_string(Limits::lowest()),
                          std::to_string(Limits::max())};
    return app.add_option(flags, value, help)->check(decimalNumber(type, range));
}

// The rates `eval` and `sample` accept: the bounds sampling checks (AleRax's [1e-10, 2]).
NumberRange fixedRateRange();

struct InputOptions {
    std::string species;
    std::string families;
    std::vector<std::string> geneTrees;
    std::string fractionMissingFile;
    std::string highwaysFile; // --highways-file
    std::string transferConstraint = "PARENTS";
    std::string rooting = "UNIFORM";
    std::string origination = "UNIFORM";
    std::string recModel = "UndatedDTL";
    bool noDup = false, noDl = false, noTl = false;
    int gammaCategories = 1;        // --speciation-gamma-categories
    bool pruneSpeciesTree = false;  // --prune-species-tree
    bool pairwiseTransfers = false; // --pairwise-transfers
    int minCoveredSpecies = 4;
    int ccpSampleFrequency = 1;
    double trimRatio = 0, maxCladeSplitRatio = -1;
    bool strict = false; // a bad family is fatal instead of skipped
};

struct RateOptions {
    double d = 0.1, l = 0.1, t = 0.1;
    double gammaAlpha = 1.0; // the speciation categories' shape (start, or fixed in eval and sample)
    std::string ratesFile;
};

struct EngineOptions {
    std::string device = "auto";
    std::string schedule; // empty: not given (the solver options' schedule, converged by default)
    int threads = 0;
    std::vector<std::string> solverSettings; // name=value
    std::string gpuMemoryLimit;
};

// The output folder of a run; an earlier run's results in it are refused unless --overwrite.
struct OutputOptions {
    std::string outdir = "gpurec_output";
    bool overwrite = false;
};

void addInputOptions(CLI::App& app, InputOptions& o);
// AleRax's --infer-speciation-order, on the commands that run its species-tree steps.
void addSpeciationOrderOption(CLI::App& app, bool& given);
// Throws when --prune-species-tree or --pairwise-transfers was given to `command` (search,
// highways, test-trees), which does not support it yet: they are for one fixed species tree.
void refuseFixedTreeOptions(const InputOptions& o, const std::string& command);
// `names`: "-p,--prefix" for the analysis commands, "-o,--output" for simulate.
void addOutputOptions(CLI::App& app, OutputOptions& o, const std::string& names = "-p,--prefix");
// Checks the folder is writable and holds no earlier results of the command (`owned` entries),
// or removes them with --overwrite; call before loading so a bad folder fails at once.
void prepareOutputs(const OutputOptions& o, const std::vector<std::string>& owned);
// --d, --l and --t within `range`, and --rates-file, which excludes them.
void addRateOptions(CLI::App& app, RateOptions& o, const NumberRange& range);
void addEngineOptions(CLI::App& app, EngineOptions& o, bool withDevice);

// The loader's paths and options from the command line's.
InputPaths inputPathsFrom(const InputOptions& o);
EventModel eventModelFrom(const InputOptions& o); // --rec-model, --no-dup, --no-dl, --no-tl
LoadOptions loadOptionsFrom(const InputOptions& o, int threads);
// Loads the dataset and prints warnings, excluded and skipped (bad) families on stderr. A bad
// family is skipped, and counted for the exit status, unless --strict makes it fatal.
LoadedInput loadOrExplain(const InputOptions& o, int threads);
// Families skipped for bad input by the loadOrExplain calls of this process (main() exits with 3).
int skippedFamilyCount();
SolverOptions solverOptionsFrom(const EngineOptions& o);
// θ of parametrisation `p` from --d --l --t or --rates-file (a model_parameters.txt, whose nodes
// sharing a parameter must agree, or for per-family rates a folder of <family>_rates.txt).
RateParameters initialRates(const RateOptions& o, const Dataset& data, const Parametrization& p);
// The same for rates of `mode`, with origination weights per node under --origination OPTIMIZE.
RateParameters initialRates(const RateOptions& o, const Dataset& data, RateMode mode);
// The rates of a fixed-rate run (eval, sample): --d --l --t (global), a model_parameters.txt
// (per species, or global when its rows agree) or a folder of <family>_rates.txt (per family).
RateParameters fixedRunRates(const RateOptions& o, const Dataset& data);
// Prints the choice's note (a GPU asked for by auto but not usable) on stdout. In a group of
// several processes, a distributed backend over this process's own (one GPU each).
BackendChoice backendFrom(const EngineOptions& o, const std::shared_ptr<const Dataset>& data);
// Backends on the same device and memory budget for the datasets of candidate species trees.
BackendFactory backendFactoryFrom(const EngineOptions& o);
// How `sample` samples: the outputs' families all reach the first process, which writes them; a
// signal ends the run between families (Interrupted from the sampling or from `consume`).
FamilySampling outputSampling();
// How the species-tree search samples (every process gets every family's samples).
FamilySampling searchSampling();
// θ's rates for result.json: one {"D", "L", "T"} object (no "T" under UndatedDL) for global rates,
// else one per species node or family, by name; origination weights go to originationJson.
nlohmann::json ratesJson(const Dataset& data, const RateParameters& theta);
// θ's origination weights O_e (normalised to sum to 1) by species node; null without them.
nlohmann::json originationJson(const Dataset& data, const RateParameters& theta);
// The transfer highways: source, destination and rate of each; null without highways.
nlohmann::json highwaysJson(const Dataset& data, const RateParameters& theta);
// The speciation categories: their count, the shape α and the weights s_c; null for one category.
nlohmann::json speciationGammaJson(const Dataset& data, const RateParameters& theta);
// Adds the inputs, device, solver options, excluded and skipped families, and the number of processes
// ("mpi_ranks") to a result.json object.
void addRunDescription(nlohmann::json& j, const InputOptions& input, const LoadedInput& loaded,
                       const std::string& device, const SolverOptions& solver);
// One "warning: ..." line on stdout per solver that stopped early (engine/solver_report.hpp).
void printEarlyStops(const SolverStats& stats);
// The part of addRunDescription every command writes: "input_files" (resolved paths),
// "excluded_families" and "skipped".
void addInputReport(nlohmann::json& j, const InputOptions& input, const LoadedInput& loaded);
// For --resume: throws std::invalid_argument listing every option given on this command line (by its
// recorded name, e.g. "--species-tree") whose value differs from the run recorded in `checkpointPath`.
void requireRecordedOptions(const CLI::App& app, const nlohmann::json& recorded, const nlohmann::json& now,
                            const std::string& checkpointPath);
// The input, starting-rate and solver options a resumable run records under their command-line
// names (paths absolute; MiniNJ and Random kept as they are), and their reading back (options
// missing from an older recording keep their defaults).
nlohmann::json recordedRunOptions(const InputOptions& input, const RateOptions& rates,
                                  const EngineOptions& engine);
void applyRecordedRunOptions(const nlohmann::json& recorded, InputOptions& input, RateOptions& rates,
                             EngineOptions& engine);
// --resume FOLDER continues the run in FOLDER: a -p naming another folder is an error.
void requireResumeFolder(const CLI::App& app, const std::string& prefix, const std::string& resume);
// A path made absolute, so that a run resumes from any working directory ("" stays "").
std::string absolutePath(const std::string& path);
// "20GB", "512MiB", "1e9" -> bytes.
double parseByteSize(const std::string& text);

} // namespace gpurec::cli
