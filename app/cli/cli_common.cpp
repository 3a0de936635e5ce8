#include "cli_common.hpp"

#include "data/origination.hpp"
#include "distributed/distributed_backend.hpp"
#include "distributed/distributed_load.hpp"
#include "distributed/distributed_sampling.hpp"
#include "engine/solver_report.hpp"
#include "highways/highway_rates.hpp"
#include "io/json_number.hpp"
#include "io/output_folder.hpp"
#include "io/result_writer.hpp"
#include "model/gamma_categories.hpp"
#include "optim/rate_files.hpp"
#include "recon/sampling_run.hpp"
#include "run/interruption.hpp"
#include "species_search/fixed_tree_options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <omp.h>
#include <set>
#include <unistd.h>

namespace gpurec::cli {

namespace {
ProcessGroup* group = nullptr;
} // namespace

void joinRun(ProcessGroup& g) {
    group = &g;
    if (g.size() == 1) return;
    holdInterruptionsForAgreement(g.rank() == 0);
    if (g.rank() == 0) return;
    const int quiet = open("/dev/null", O_WRONLY);
    if (quiet < 0) throw std::runtime_error("cannot open /dev/null");
    dup2(quiet, STDOUT_FILENO);
    dup2(quiet, STDERR_FILENO);
    close(quiet);
}

ProcessGroup& runGroup() {
    static const std::unique_ptr<ProcessGroup> alone = singleProcess();
    return group ? *group : *alone;
}

bool writesOutputs() {
    return runGroup().rank() == 0;
}

void refuseInGroups(CLI::App& app) {
    if (runGroup().size() == 1) return;
    const std::set<std::string> spread = {"eval", "optimize", "sample", "search"};
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        if (!spread.count(sub->get_name()))
            sub->preparse_callback([name = sub->get_name()](std::size_t) {
                throw std::invalid_argument("gpurec " + name +
                                            " runs as one process: start it without mpirun (eval, optimize, "
                                            "sample and search run as several)");
            });
}

int finishRun(int status, const std::exception_ptr& failure) {
    try {
        try {
            if (failure) std::rethrow_exception(failure);
        } catch (const GroupFailure&) {
            throw; // every process has it already
        } catch (...) {
            runGroup().agree(std::current_exception());
        }
        runGroup().agree(); // another process may have failed after the last exchange
    } catch (const std::exception& e) {
        std::cerr << "gpurec: error: " << e.what() << "\n";
        return 2;
    }
    return status;
}

void addInputOptions(CLI::App& app, InputOptions& o) {
    app.add_option("-s,--species-tree", o.species, "Rooted binary species tree (Newick)")->required();
    app.add_option("-f,--families", o.families, "AleRax families file");
    app.add_option("gene_trees", o.geneTrees, "Gene-tree files, one family each (instead of or besides -f)");
    app.add_option("--fraction-missing-file", o.fractionMissingFile,
                   "Per species leaf 'label fraction': the share of its genes missing from the data");
    app.add_flag("--prune-species-tree", o.pruneSpeciesTree,
                 "Reconcile each family with the species tree pruned to the species it covers and the "
                 "nodes where two covered subtrees meet (AleRax's option)");
    app.add_option("--highways-file", o.highwaysFile,
                   "Transfer highways, 'src, dest, proba' per line (AleRax's accepted_highways.txt): extra "
                   "transfers from src to dest, proba their rate; with --pairwise-transfers, the starting "
                   "rates of the pairs it lists");
    app.add_flag("--pairwise-transfers", o.pairwiseTransfers,
                 "One transfer rate per donor -> recipient pair instead of T spread evenly over the "
                 "recipients (pairs not in --highways-file start at T / |R(donor)|)");
    app.add_option(
           "--transfer-constraint", o.transferConstraint,
           "Allowed transfer recipients: PARENTS (not the donor's ancestors, default), NONE (any other "
           "node) or RELDATED (no node older than the donor's parent, the ages read from the species "
           "tree's branch lengths as AleRax reads them)")
        ->check(CLI::IsMember({"PARENTS", "NONE", "RELDATED"}));
    app.add_option(
           "--gene-tree-rooting", o.rooting,
           "UNIFORM (every rooting of unrooted samples), ROOTED, or MAD (every rooting, weighted by its "
           "minimal ancestor deviation)")
        ->check(CLI::IsMember({"UNIFORM", "ROOTED", "MAD"}));
    app.add_option("--origination", o.origination,
                   "Where a family may originate: UNIFORM (any species node, default), ROOT, LCA (the last "
                   "common ancestor of the species it covers), or OPTIMIZE (any node, with fitted weights: "
                   "--model-parametrization PER-SPECIES, ORIGINATION-PER-SPECIES or a class file)")
        ->check(CLI::IsMember({"UNIFORM", "ROOT", "LCA", "OPTIMIZE"}));
    app.add_option("-r,--rec-model", o.recModel,
                   "Reconciliation model: UndatedDTL (default) or UndatedDL (no transfers)")
        ->check(CLI::IsMember({"UndatedDTL", "UndatedDL"}));
    app.add_flag("--no-dup", o.noDup, "No duplications: D = 0 (and so no DL terms)");
    app.add_flag("--no-dl", o.noDl, "Leave the duplication-loss term out of the clade equations");
    app.add_flag("--no-tl", o.noTl, "Leave the two transfer-loss terms out of the clade equations");
    addNumber(app, "--speciation-gamma-categories", o.gammaCategories,
              "Speciation rate categories: the likelihood is the mean over K categories whose speciation "
              "weights are the mean rates of K equal-probability bins of Gamma(alpha, alpha) (default 1)",
              NumberRange::atLeast(1));
    addNumber(app, "--min-covered-species", o.minCoveredSpecies,
              "Exclude families covering fewer species (default 4)", NumberRange::atLeast(0));
    addNumber(app, "--ccp-sample-frequency", o.ccpSampleFrequency,
              "Amalgamate gene trees 0, K, 2K, ... of each file (default 1: all; not for .ale input)",
              NumberRange::atLeast(1));
    addNumber(app, "--trim-ratio", o.trimRatio,
              "Exclude this fraction of the families, those with the most clades (default 0: none)",
              NumberRange::between(0, 1));
    addNumber(app, "--max-clade-split-ratio", o.maxCladeSplitRatio,
              "Exclude families with more clades than this times 2*genes-3 (default -1: off)",
              NumberRange::atLeast(0).orExactly(-1));
    app.add_flag("--strict", o.strict,
                 "Make any bad family fatal (exit status 2) instead of skipping it (exit status 3)");
}

void addSpeciationOrderOption(CLI::App& app, bool& given) {
    app.add_flag("--infer-speciation-order", given,
                 "Infer the order of the speciations (RELDATED only; with --species-tree-search SKIP, or "
                 "REROOT, which re-dates every root candidate)");
}

void refuseFixedTreeOptions(const InputOptions& o, const std::string& command) {
    gpurec::refuseFixedTreeOptions(o.pruneSpeciesTree, o.pairwiseTransfers, command);
}

void addOutputOptions(CLI::App& app, OutputOptions& o, const std::string& names) {
    CLI::Option* folder = app.add_option(names, o.outdir, "Output folder (default " + o.outdir + ")");
    if (o.outdir.empty()) folder->required()->description("Output folder");
    app.add_flag("--overwrite", o.overwrite, "Replace the results of an earlier run in the output folder");
}

void prepareOutputs(const OutputOptions& o, const std::vector<std::string>& owned) {
    prepareOutputFolder(o.outdir, owned, o.overwrite ? ExistingOutputs::Overwrite : ExistingOutputs::Refuse);
}

namespace {

std::string boundText(double v) {
    char buf[32];
    if (v == std::floor(v) && std::abs(v) < 1e15)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

// std::from_chars over the whole text; false when it stops early or the value does not fit.
template <class T> bool parseWhole(const std::string& text, T& value) {
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    return ec == std::errc() && ptr == end;
}

} // namespace

bool NumberRange::contains(double v) const {
    if (alsoAllowed && v == *alsoAllowed) return true;
    const bool below = minOpen ? !(v > min) : !(v >= min);
    const bool above = maxOpen ? !(v < max) : !(v <= max);
    return !below && !above;
}

std::string NumberRange::describe() const {
    const bool low = std::isfinite(min), high = std::isfinite(max);
    std::string rule;
    if (low && high)
        rule = std::string("in ") + (minOpen ? "(" : "[") + boundText(min) + ", " + boundText(max) +
               (maxOpen ? ")" : "]");
    else if (low)
        rule = (minOpen ? "> " : ">= ") + boundText(min);
    else if (high)
        rule = (maxOpen ? "< " : "<= ") + boundText(max);
    if (alsoAllowed) rule += " or " + boundText(*alsoAllowed);
    return rule;
}

CLI::Validator decimalNumber(const NumberType& type, const NumberRange& range) {
    const std::string rule = range.describe();
    const bool integer = type.integer;
    auto check = [=](std::string& text) -> std::string {
        const std::string digits = !text.empty() && text[0] == '+' ? text.substr(1) : text;
        double v = 0;
        if (integer) {
            // Digits with an optional minus sign; a value too long for 64 bits counts as out of range.
            const bool negative = !digits.empty() && digits[0] == '-';
            const std::string magnitude = negative ? digits.substr(1) : digits;
            if (magnitude.empty() || magnitude.find_first_not_of("0123456789") != std::string::npos)
                return "expects a decimal integer, got '" + text + "'";
            long long i = 0;
            unsigned long long u = 0;
            if (negative ? parseWhole(digits, i) : parseWhole(digits, u))
                v = negative ? static_cast<double>(i) : static_cast<double>(u);
            else
                v = (negative ? -1 : 1) * std::numeric_limits<double>::infinity();
        } else if (!parseWhole(digits, v) || !std::isfinite(v)) {
            return "expects a decimal number (like 0.5 or 1e-3), got '" + text + "'";
        }
        // Beyond an integer type's limits (a finite real cannot exceed a double's).
        if (integer && v < type.min) return "must be >= " + type.minText + ", got " + text;
        if (integer && v > type.max) return "must be <= " + type.maxText + ", got " + text;
        if (!range.contains(v)) return "must be " + rule + ", got " + text;
        return "";
    };
    return CLI::Validator(check, integer ? "INTEGER" : "NUMBER");
}

NumberRange fixedRateRange() {
    const SamplingSettings bounds;
    return NumberRange::between(bounds.minRate, bounds.maxRate);
}

void addRateOptions(CLI::App& app, RateOptions& o, const NumberRange& range) {
    const std::string within = range.describe();
    CLI::Option* d = addNumber(app, "--d", o.d, "Duplication rate (" + within + "; default 0.1)", range);
    CLI::Option* l = addNumber(app, "--l", o.l, "Loss rate (" + within + "; default 0.1)", range);
    CLI::Option* t = addNumber(app, "--t", o.t, "Transfer rate (" + within + "; default 0.1)", range);
    addNumber(app, "--gamma-alpha", o.gammaAlpha,
              "Shape alpha of the speciation categories' Gamma distribution (--speciation-gamma-categories > "
              "1; the start when it is fitted; default 1)",
              NumberRange::between(kMinGammaAlpha, kMaxGammaAlpha));
    app.add_option("--rates-file", o.ratesFile,
                   "AleRax model_parameters.txt (node D L T), or a folder of <family>_rates.txt (per-family "
                   "rates); excludes --d --l --t")
        ->excludes(d)
        ->excludes(l)
        ->excludes(t);
}

void addEngineOptions(CLI::App& app, EngineOptions& o, bool withDevice) {
    app.add_option("--schedule", o.schedule,
                   "converged (default) or alerax (AleRax v1.4's 4 sweeps); or --solver schedule=")
        ->check(CLI::IsMember({"converged", "alerax"}));
    addNumber(app, "--threads", o.threads, "CPU threads (default: all cores)", NumberRange::atLeast(0));
    std::string names;
    for (const SolverOptionInfo& i : solverOptionInfo())
        names += "\n  " + i.name + " (" + i.range + "): " + i.help;
    app.add_option("--solver", o.solverSettings, "Solver option name=value, repeatable:" + names);
    if (withDevice) {
        app.add_option("--device", o.device,
                       "auto (default: a usable CUDA device, else the CPU), cpu, cuda or cuda:N");
        app.add_option("--gpu-memory-limit", o.gpuMemoryLimit, "Device memory budget, e.g. 20GB");
    }
}

namespace {
int skippedFamilies = 0;

std::string familyCount(std::size_t n) {
    return std::to_string(n) + (n == 1 ? " family" : " families");
}
} // namespace

int skippedFamilyCount() {
    return skippedFamilies;
}

InputPaths inputPathsFrom(const InputOptions& o) {
    InputPaths paths;
    paths.speciesTree = o.species;
    paths.familiesFile = o.families;
    paths.geneTrees = o.geneTrees;
    paths.fractionMissingFile = o.fractionMissingFile;
    paths.highwaysFile = o.highwaysFile;
    return paths;
}

EventModel eventModelFrom(const InputOptions& o) {
    EventModel m;
    m.recModel = parseRecModel(o.recModel);
    m.noDup = o.noDup;
    m.noDl = o.noDl;
    m.noTl = o.noTl;
    m.pairwiseTransfers = o.pairwiseTransfers;
    return m;
}

LoadOptions loadOptionsFrom(const InputOptions& o, int threads) {
    LoadOptions lo;
    lo.rooting = parseGeneTreeRooting(o.rooting);
    lo.minCoveredSpecies = o.minCoveredSpecies;
    lo.ccpSampleFrequency = o.ccpSampleFrequency;
    lo.trimRatio = o.trimRatio;
    lo.maxCladeSplitRatio = o.maxCladeSplitRatio;
    lo.threads = threads;
    lo.origination = parseOrigination(o.origination);
    lo.events = eventModelFrom(o);
    lo.speciationCategories = o.gammaCategories;
    lo.pruneSpeciesTree = o.pruneSpeciesTree;
    return lo;
}

LoadedInput loadOrExplain(const InputOptions& o, int threads) {
    const InputPaths paths = inputPathsFrom(o);
    const TransferConstraint constraint = parseTransferConstraint(o.transferConstraint);
    LoadedInput in = runGroup().size() > 1
                         ? loadAcross(runGroup(), paths, constraint, loadOptionsFrom(o, threads))
                         : loadInput(paths, constraint, loadOptionsFrom(o, threads));
    for (const std::string& w : in.warnings)
        std::cerr << "gpurec: warning: " << w << "\n";
    for (const FamilyProblem& p : in.excluded)
        std::cerr << "excluded family " << p.family << ": " << p.message << "\n";
    if (!in.errors.empty() && o.strict) {
        std::string all;
        for (const FamilyProblem& p : in.errors)
            all += "\n  family " + p.family + ": " + p.message;
        throw std::runtime_error(familyCount(in.errors.size()) + " could not be read (--strict):" + all);
    }
    for (const FamilyProblem& p : in.errors)
        std::cerr << p.message << " (family " << p.family << " skipped)\n";
    const std::size_t listed = in.dataset->families.size() + in.excluded.size() + in.errors.size();
    if (in.dataset->families.empty() && in.errors.empty())
        throw std::runtime_error("no family left to reconcile after exclusions");
    if (in.dataset->families.empty())
        throw std::runtime_error("no family left to reconcile (" + familyCount(in.errors.size()) +
                                 " skipped for bad input, " + std::to_string(in.excluded.size()) +
                                 " excluded)");
    if (!in.errors.empty())
        std::cerr << "gpurec: skipped " << in.errors.size() << " of " << familyCount(listed)
                  << " for bad input (exit status 3; --strict stops instead)\n";
    skippedFamilies += static_cast<int>(in.errors.size());
    return in;
}

SolverOptions solverOptionsFrom(const EngineOptions& o) {
    SolverOptions s;
    if (!o.schedule.empty()) s.schedule = parseSchedule(o.schedule);
    s.threads = o.threads;
    for (const std::string& kv : o.solverSettings) {
        auto eq = kv.find('=');
        if (eq == std::string::npos)
            throw std::invalid_argument("--solver expects name=value, got '" + kv + "'");
        if (!o.schedule.empty() && kv.substr(0, eq) == "schedule")
            throw std::invalid_argument("--schedule " + o.schedule + " and --solver " + kv +
                                        " both set the schedule: give only one");
        setSolverOption(s, kv.substr(0, eq), kv.substr(eq + 1));
    }
    s.validate();
    return s;
}

RateParameters initialRates(const RateOptions& o, const Dataset& data, const Parametrization& p) {
    if (o.ratesFile.empty()) return makeParameters(p, data, {o.d, o.l, o.t}, o.gammaAlpha);
    if (std::filesystem::is_directory(o.ratesFile)) {
        if (p.mode != RateMode::Genewise)
            throw std::invalid_argument("--rates-file " + o.ratesFile +
                                        " is a folder: per-family rate files (<family>_rates.txt) go with "
                                        "per-family rates");
        RateParameters theta = readFamilyRateFiles(o.ratesFile, data);
        addSpeciationShape(theta, data, o.gammaAlpha); // refused: not with per-family rates
        return theta;
    }
    const NodeParameters file = readNodeParameters(o.ratesFile, data.species, data.events.recModel);
    RateParameters theta = makeParameters(p, data, file.rates[0], o.gammaAlpha);
    if (p.mode == RateMode::Genewise) {
        // Every family starts at the file's rates, which must then be the same on every node.
        RateParameters shared(RateMode::Global, data.species.size(), 0, file.rates[0]);
        setFromNodeParameters(shared, file, data.species, o.ratesFile, data.events.presentRates());
        for (int f = 0; f < theta.rowCount(); ++f)
            theta.setRates(f, shared.rates(0));
        return theta;
    }
    setFromNodeParameters(theta, file, data.species, o.ratesFile, data.events.presentRates());
    return theta;
}

RateParameters initialRates(const RateOptions& o, const Dataset& data, RateMode mode) {
    Parametrization p;
    p.mode = mode;
    p.originPerNode = data.origination == Origination::Optimize;
    return initialRates(o, data, p);
}

RateParameters fixedRunRates(const RateOptions& o, const Dataset& data) {
    if (o.ratesFile.empty()) return initialRates(o, data, RateMode::Global);
    if (std::filesystem::is_directory(o.ratesFile)) return initialRates(o, data, RateMode::Genewise);
    // The file's own shape: global rates when its rows agree, else per node.
    const NodeParameters file = readNodeParameters(o.ratesFile, data.species, data.events.recModel);
    const bool uniform = std::all_of(file.rates.begin(), file.rates.end(), [&](const Rates& r) {
        return r.d == file.rates[0].d && r.l == file.rates[0].l && r.t == file.rates[0].t;
    });
    return initialRates(o, data, uniform ? RateMode::Global : RateMode::Specieswise);
}

nlohmann::json ratesJson(const Dataset& data, const RateParameters& theta) {
    const bool transfers = data.events.presentRates().transfer;
    auto one = [transfers](Rates r) {
        nlohmann::json j = {{"D", r.d}, {"L", r.l}};
        if (transfers) j["T"] = r.t;
        return j;
    };
    if (theta.mode() == RateMode::Global) return one(theta.rates(0));
    nlohmann::json rows = nlohmann::json::object();
    if (theta.mode() == RateMode::Genewise) {
        for (int r = 0; r < theta.rowCount(); ++r)
            rows[data.families[r].name] = one(theta.rates(r));
        return rows;
    }
    for (int e = 0; e < data.species.size(); ++e)
        rows[data.species.name(e)] = one(theta.ratesAt(0, e));
    return rows;
}

nlohmann::json originationJson(const Dataset& data, const RateParameters& theta) {
    const std::vector<double> o = theta.originWeights();
    if (o.empty()) return nullptr;
    double total = 0;
    for (double v : o)
        total += v;
    nlohmann::json j = nlohmann::json::object();
    for (int e = 0; e < data.species.size(); ++e)
        j[data.species.name(e)] = o[e] / total;
    return j;
}

nlohmann::json highwaysJson(const Dataset& data, const RateParameters& theta) {
    if (data.highways.empty()) return nullptr;
    const std::vector<double> rates = highwayRates(theta);
    nlohmann::json list = nlohmann::json::array();
    for (std::size_t h = 0; h < data.highways.size(); ++h)
        list.push_back({{"src", data.species.name(data.highways[h].source)},
                        {"dest", data.species.name(data.highways[h].destination)},
                        {"rate", rates[h]}});
    return list;
}

nlohmann::json speciationGammaJson(const Dataset& data, const RateParameters& theta) {
    if (data.speciationCategories < 2) return nullptr;
    return {{"categories", data.speciationCategories},
            {"alpha", theta.speciationShape()},
            {"rates", gammaCategoryRates(theta.speciationShape(), data.speciationCategories)}};
}

void addRunDescription(nlohmann::json& j, const InputOptions& input, const LoadedInput& loaded,
                       const std::string& device, const SolverOptions& solver) {
    j["options"] = {{"species_tree", input.species},
                    {"families", input.families},
                    {"fraction_missing_file", input.fractionMissingFile},
                    {"highways_file", input.highwaysFile},
                    {"transfer_constraint", input.transferConstraint},
                    {"gene_tree_rooting", input.rooting},
                    {"origination", input.origination},
                    {"rec_model", input.recModel},
                    {"no_dup", input.noDup},
                    {"no_dl", input.noDl},
                    {"no_tl", input.noTl},
                    {"speciation_gamma_categories", input.gammaCategories},
                    {"prune_species_tree", input.pruneSpeciesTree},
                    {"pairwise_transfers", input.pairwiseTransfers},
                    {"min_covered_species", input.minCoveredSpecies},
                    {"ccp_sample_frequency", input.ccpSampleFrequency},
                    {"trim_ratio", input.trimRatio},
                    {"max_clade_split_ratio", input.maxCladeSplitRatio},
                    {"device", device},
                    {"solver", solverOptionsJson(solver)}};
    j["mpi_ranks"] = runGroup().size();
    addInputReport(j, input, loaded);
}

void addInputReport(nlohmann::json& j, const InputOptions& input, const LoadedInput& loaded) {
    auto resolved = [](const std::string& path) {
        return std::filesystem::absolute(path).lexically_normal().string();
    };
    nlohmann::json files = {{"species_tree", resolved(input.species)}};
    if (!input.families.empty()) files["families_file"] = resolved(input.families);
    if (!input.fractionMissingFile.empty())
        files["fraction_missing_file"] = resolved(input.fractionMissingFile);
    if (!input.highwaysFile.empty()) files["highways_file"] = resolved(input.highwaysFile);
    files["families"] = nlohmann::json::array();
    for (const GeneFamily& f : loaded.dataset->families) {
        nlohmann::json one = {{"name", f.name}, {"gene_tree", resolved(f.geneTreePath)}};
        if (!f.mappingPath.empty()) one["mapping"] = resolved(f.mappingPath);
        files["families"].push_back(std::move(one));
    }
    j["input_files"] = std::move(files);
    j["excluded_families"] = nlohmann::json::array();
    for (const FamilyProblem& p : loaded.excluded)
        j["excluded_families"].push_back({{"name", p.family}, {"reason", p.message}});
    j["skipped"] = nlohmann::json::array();
    for (const FamilyProblem& p : loaded.errors)
        j["skipped"].push_back({{"name", p.family},
                                {"file", p.file.empty() ? "" : resolved(p.file)},
                                {"line", p.line},
                                {"column", p.column},
                                {"reason", p.reason}});
}

void printEarlyStops(const SolverStats& stats) {
    for (const std::string& line : earlyStopWarnings(stats))
        std::printf("warning: %s\n", line.c_str());
}

void requireRecordedOptions(const CLI::App& app, const nlohmann::json& recorded, const nlohmann::json& now,
                            const std::string& checkpointPath) {
    std::string conflicts;
    for (const auto& [name, value] : recorded.items())
        if (app.count(name) > 0 && now.at(name) != value)
            conflicts += "\n  " + name + " " + now.at(name).dump() + " (the run has " + value.dump() + ")";
    if (!conflicts.empty())
        throw std::invalid_argument("options conflict with the run recorded in " + checkpointPath + ":" +
                                    conflicts +
                                    "\nleave them out to resume it, or start a new run in another "
                                    "folder");
}

std::string absolutePath(const std::string& path) {
    return path.empty() ? path : std::filesystem::absolute(path).lexically_normal().string();
}

nlohmann::json recordedRunOptions(const InputOptions& input, const RateOptions& rates,
                                  const EngineOptions& engine) {
    std::vector<std::string> geneTrees;
    for (const std::string& p : input.geneTrees)
        geneTrees.push_back(absolutePath(p));
    const bool generated =
        input.species == "MiniNJ" || input.species == "Random" || input.species == "random";
    return {{"--species-tree", generated ? input.species : absolutePath(input.species)},
            {"--families", absolutePath(input.families)},
            {"gene_trees", geneTrees},
            {"--fraction-missing-file", absolutePath(input.fractionMissingFile)},
            {"--highways-file", absolutePath(input.highwaysFile)},
            {"--transfer-constraint", input.transferConstraint},
            {"--gene-tree-rooting", input.rooting},
            {"--origination", input.origination},
            {"--rec-model", input.recModel},
            {"--no-dup", input.noDup},
            {"--no-dl", input.noDl},
            {"--no-tl", input.noTl},
            {"--speciation-gamma-categories", input.gammaCategories},
            {"--prune-species-tree", input.pruneSpeciesTree},
            {"--pairwise-transfers", input.pairwiseTransfers},
            {"--min-covered-species", input.minCoveredSpecies},
            {"--ccp-sample-frequency", input.ccpSampleFrequency},
            {"--trim-ratio", input.trimRatio},
            {"--max-clade-split-ratio", input.maxCladeSplitRatio},
            {"--d", rates.d},
            {"--l", rates.l},
            {"--t", rates.t},
            {"--gamma-alpha", rates.gammaAlpha},
            {"--rates-file", absolutePath(rates.ratesFile)},
            {"--schedule", engine.schedule},
            {"--solver", engine.solverSettings}};
}

void applyRecordedRunOptions(const nlohmann::json& j, InputOptions& input, RateOptions& rates,
                             EngineOptions& engine) {
    input.species = j.at("--species-tree").get<std::string>();
    input.families = j.at("--families").get<std::string>();
    input.geneTrees = j.at("gene_trees").get<std::vector<std::string>>();
    input.transferConstraint = j.at("--transfer-constraint").get<std::string>();
    input.rooting = j.at("--gene-tree-rooting").get<std::string>();
    input.minCoveredSpecies = integerField<int>(j, "--min-covered-species");
    // Absent from the checkpoints of gpurec before these options: their defaults.
    input.ccpSampleFrequency = j.value("--ccp-sample-frequency", 1);
    input.trimRatio = j.value("--trim-ratio", 0.0);
    input.maxCladeSplitRatio = j.value("--max-clade-split-ratio", -1.0);
    input.origination = j.value("--origination", std::string("UNIFORM"));
    input.recModel = j.value("--rec-model", std::string("UndatedDTL"));
    input.noDup = j.value("--no-dup", false);
    input.noDl = j.value("--no-dl", false);
    input.noTl = j.value("--no-tl", false);
    input.gammaCategories = j.contains("--speciation-gamma-categories")
                                ? integerField<int>(j, "--speciation-gamma-categories")
                                : 1;
    input.fractionMissingFile = j.value("--fraction-missing-file", std::string());
    input.pruneSpeciesTree = j.value("--prune-species-tree", false);
    input.pairwiseTransfers = j.value("--pairwise-transfers", false);
    input.highwaysFile = j.value("--highways-file", std::string());
    rates.d = j.at("--d").get<double>();
    rates.l = j.at("--l").get<double>();
    rates.t = j.at("--t").get<double>();
    rates.gammaAlpha = j.value("--gamma-alpha", 1.0);
    rates.ratesFile = j.at("--rates-file").get<std::string>();
    engine.schedule = j.at("--schedule").get<std::string>();
    engine.solverSettings = j.at("--solver").get<std::vector<std::string>>();
}

void requireResumeFolder(const CLI::App& app, const std::string& prefix, const std::string& resume) {
    if (app.count("--prefix") > 0 && absolutePath(prefix) != absolutePath(resume))
        throw std::invalid_argument("--resume " + resume + " continues the run in that folder; -p " + prefix +
                                    " names another (leave -p out)");
}

double parseByteSize(const std::string& text) {
    double v = 0;
    // Decimal only (std::stod would read 0x10 as 16).
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end == text.data())
        throw std::invalid_argument("bad size '" + text + "' (examples: 20GB, 512MiB)");
    std::string unit(end, text.data() + text.size());
    double mult = 1;
    if (unit.empty() || unit == "B")
        mult = 1;
    else if (unit == "KB" || unit == "K")
        mult = 1e3;
    else if (unit == "MB" || unit == "M")
        mult = 1e6;
    else if (unit == "GB" || unit == "G")
        mult = 1e9;
    else if (unit == "KiB")
        mult = 1024.0;
    else if (unit == "MiB")
        mult = 1024.0 * 1024;
    else if (unit == "GiB")
        mult = 1024.0 * 1024 * 1024;
    else
        throw std::invalid_argument("bad size '" + text + "' (examples: 20GB, 512MiB)");
    if (!(v > 0)) throw std::invalid_argument("size must be positive: '" + text + "'");
    return v * mult;
}

namespace {
BatchLimits batchLimitsFrom(const EngineOptions& o) {
    BatchLimits limits;
    if (!o.gpuMemoryLimit.empty()) limits.memoryBytes = parseByteSize(o.gpuMemoryLimit);
    return limits;
}

// The CUDA devices of this host.
int cudaDeviceCount() {
    const std::vector<std::string> names = availableDeviceNames();
    return static_cast<int>(std::count_if(names.begin(), names.end(),
                                          [](const std::string& n) { return n.rfind("cuda:", 0) == 0; }));
}

// In a group of several processes: a distributed backend over each process's backend on its own
// families, on the device deviceForProcess gives it (the CPU for a share without families).
BackendChoice spreadBackend(const EngineOptions& o, const std::shared_ptr<const Dataset>& data) {
    ProcessGroup& g = runGroup();
    const std::string device = deviceForProcess(o.device, g.hostRank(), cudaDeviceCount());
    BackendChoice local;
    std::unique_ptr<LikelihoodBackend> backend =
        makeDistributedBackend(g, data, [&](const std::shared_ptr<const Dataset>& own) {
            local = own->families.empty() ? BackendChoice{makeCpuBackend(own), "cpu", ""}
                                          : selectBackend(device, own, batchLimitsFrom(o));
            return std::move(local.backend);
        });
    return {std::move(backend), std::to_string(g.size()) + " processes; process 0: " + local.description,
            local.note};
}
} // namespace

BackendChoice backendFrom(const EngineOptions& o, const std::shared_ptr<const Dataset>& data) {
    if (o.threads > 0) omp_set_num_threads(o.threads);
    BackendChoice c =
        runGroup().size() > 1 ? spreadBackend(o, data) : selectBackend(o.device, data, batchLimitsFrom(o));
    // Information, not a problem: auto promises the CPU when no GPU is usable (stderr is kept for
    // errors and warnings).
    if (!c.note.empty()) std::cout << c.note << "\n";
    return c;
}

BackendFactory backendFactoryFrom(const EngineOptions& o) {
    if (runGroup().size() > 1)
        return [o](const std::shared_ptr<const Dataset>& d) { return spreadBackend(o, d).backend; };
    return [device = o.device, limits = batchLimitsFrom(o)](const std::shared_ptr<const Dataset>& d) {
        return selectBackend(device, d, limits).backend;
    };
}

FamilySampling outputSampling() {
    if (runGroup().size() == 1) return sampleFromBackend;
    return [](const Dataset& data, const RateParameters& theta, const std::vector<int>& families,
              const SamplingSettings& settings, const std::function<void(FamilySamples &&)>& consume,
              LikelihoodBackend& backend) {
        sampleAcross(runGroup(), data, theta, families, settings, consume, backend,
                     SampleDelivery::FirstProcess, true);
    };
}

FamilySampling searchSampling() {
    if (runGroup().size() == 1) return sampleFromBackend;
    return [](const Dataset& data, const RateParameters& theta, const std::vector<int>& families,
              const SamplingSettings& settings, const std::function<void(FamilySamples &&)>& consume,
              LikelihoodBackend& backend) {
        sampleAcross(runGroup(), data, theta, families, settings, consume, backend,
                     SampleDelivery::EveryProcess, false);
    };
}

} // namespace gpurec::cli
