#include "cli_common.hpp"
#include "commands.hpp"

#include "data/load.hpp"
#include "sim/simulation.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>

namespace gpurec::cli {

namespace {

// Options given on the command line override the preset (or the defaults) field by field.
class Overrides {
  public:
    SimulationOptions given; // what CLI11 writes into

    template <class T, class Field>
    CLI::Option* add(CLI::App& app, const std::string& flags, Field field, const std::string& help) {
        CLI::Option* option = nullptr;
        if constexpr (std::is_arithmetic_v<T>)
            option = addNumber(app, flags, field(given), help); // ranges: SimulationOptions::validate
        else
            option = app.add_option(flags, field(given), help);
        list_.emplace_back(option, [field, this](SimulationOptions& o) { field(o) = field(given); });
        return option;
    }
    template <class Field>
    void addFlag(CLI::App& app, const std::string& flags, Field field, const std::string& help) {
        CLI::Option* option = app.add_flag(flags, field(given), help);
        list_.emplace_back(option, [field, this](SimulationOptions& o) { field(o) = field(given); });
    }
    void apply(SimulationOptions& o) const {
        for (const auto& [option, set] : list_)
            if (option->count() > 0) set(o);
    }

  private:
    std::vector<std::pair<CLI::Option*, std::function<void(SimulationOptions&)>>> list_;
};

long peakResidentMegabytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024;
}

} // namespace

void registerSimulate(CLI::App& root) {
    struct Options {
        Overrides overrides;
        std::string preset, process = "undated", constraint = "PARENTS";
        OutputOptions output{""}; // no default: -o is required
        bool skipTotals = false;
    };
    auto o = std::make_shared<Options>();
    Overrides& ov = o->overrides;
    CLI::App* app = root.add_subcommand("simulate", "Simulate a dataset under the DTL model, with its truth");
    std::string presets;
    for (const std::string& n : presetNames())
        presets += (presets.empty() ? "" : ", ") + n;
    addOutputOptions(*app, o->output, "-o,--output");
    app->add_option("--preset", o->preset,
                    "Named parameter set (" + presets + "); other options override it");
    ov.add<std::string>(
        *app, "-s,--species-tree", [](SimulationOptions& x) -> std::string& { return x.speciesTreePath; },
        "Species tree (Newick); default: a birth-death tree");
    ov.add<int>(
        *app, "--species", [](SimulationOptions& x) -> int& { return x.birthDeath.leaves; },
        "Species leaves of the birth-death tree");
    ov.add<double>(
        *app, "--birth-rate", [](SimulationOptions& x) -> double& { return x.birthDeath.birthRate; },
        "Birth-death speciation rate (default 1)");
    ov.add<double>(
        *app, "--death-rate", [](SimulationOptions& x) -> double& { return x.birthDeath.deathRate; },
        "Birth-death extinction rate (default 0)");
    ov.add<int>(
        *app, "--families", [](SimulationOptions& x) -> int& { return x.families; },
        "Gene families (default 100)");
    ov.add<std::string>(
        *app, "--family-prefix", [](SimulationOptions& x) -> std::string& { return x.familyPrefix; },
        "Family names: prefix + number (default family)");
    app->add_option("--process", o->process, "undated (the engine's model, default) or dated (time-based)")
        ->check(CLI::IsMember({"undated", "dated"}));
    app->add_option("--transfer-constraint", o->constraint,
                    "Recipients of the undated process's transfers: PARENTS (default), NONE or RELDATED (by "
                    "the species tree's ranks; species.nwk is then written with rank lengths)")
        ->check(CLI::IsMember({"PARENTS", "NONE", "RELDATED"}));
    ov.add<double>(
        *app, "--d", [](SimulationOptions& x) -> double& { return x.rates.d; },
        "Duplication rate (default 0.1)");
    ov.add<double>(
        *app, "--l", [](SimulationOptions& x) -> double& { return x.rates.l; }, "Loss rate (default 0.1)");
    ov.add<double>(
        *app, "--t", [](SimulationOptions& x) -> double& { return x.rates.t; },
        "Transfer rate (default 0.1)");
    ov.add<std::string>(
        *app, "--species-rates", [](SimulationOptions& x) -> std::string& { return x.speciesRatesFile; },
        "Per species node rates (AleRax model_parameters.txt), instead of --d --l --t");
    ov.add<std::string>(
        *app, "--highways-file", [](SimulationOptions& x) -> std::string& { return x.highwaysFile; },
        "Transfer highways, 'src, dest, proba' per line (the undated process takes them)");
    ov.add<double>(
        *app, "--species-rate-spread", [](SimulationOptions& x) -> double& { return x.speciesRateSpread; },
        "Multiply each species node's rates by log-uniform factors in [1/s, s] (default 1)");
    ov.add<double>(
        *app, "--family-rate-spread", [](SimulationOptions& x) -> double& { return x.familyRateSpread; },
        "Multiply each family's rates by log-uniform factors in [1/s, s] (default 1)");
    ov.add<int>(
        *app, "--min-covered-species",
        [](SimulationOptions& x) -> int& { return x.limits.minCoveredSpecies; },
        "Discard and redraw families covering fewer species (default 1: survival only)");
    ov.add<long>(
        *app, "--max-genes", [](SimulationOptions& x) -> long& { return x.limits.maxGenes; },
        "Discard and redraw families with more genes (default 0: no limit)");
    ov.add<int>(
        *app, "--max-attempts", [](SimulationOptions& x) -> int& { return x.limits.maxAttempts; },
        "Draws per family at most (default 10000)");
    ov.add<long>(
        *app, "--max-lineages", [](SimulationOptions& x) -> long& { return x.limits.maxLineages; },
        "Gene lineages per draw at most (default 2000000)");
    ov.add<int>(
        *app, "--tree-samples", [](SimulationOptions& x) -> int& { return x.treeSamples; },
        "Perturbed gene trees per sampled family (default 1)");
    ov.add<double>(
        *app, "--sampled-fraction", [](SimulationOptions& x) -> double& { return x.sampledFraction; },
        "Share of the families that get perturbed samples (default 1)");
    ov.add<double>(
        *app, "--perturbation-rate", [](SimulationOptions& x) -> double& { return x.perturbation.rate; },
        "Probability of a move per internal gene branch and sample (default 0)");
    ov.add<double>(
        *app, "--spr-fraction", [](SimulationOptions& x) -> double& { return x.perturbation.sprFraction; },
        "Share of SPR moves, the others are NNI (default 0.3)");
    ov.add<int>(
        *app, "--spr-radius", [](SimulationOptions& x) -> int& { return x.perturbation.sprRadius; },
        "SPR regrafting distance in branches at most (default 3)");
    ov.addFlag(
        *app, "--mapping-files", [](SimulationOptions& x) -> bool& { return x.mappingFiles; },
        "Also write Treerecs mapping files");
    ov.addFlag(
        *app, "--compact-xml", [](SimulationOptions& x) -> bool& { return x.compactXml; },
        "Truth RecPhyloXML without indentation");
    ov.add<std::uint64_t>(
        *app, "--seed", [](SimulationOptions& x) -> std::uint64_t& { return x.seed; },
        "Random seed (default 1); the output depends only on the seed and the options");
    ov.add<int>(
        *app, "--threads", [](SimulationOptions& x) -> int& { return x.threads; },
        "CPU threads (default: all cores)");
    app->add_flag("--skip-totals", o->skipTotals, "Do not load the result back to count clades and splits");
    app->callback([o] {
        auto start = std::chrono::steady_clock::now();
        SimulationOptions options = o->preset.empty() ? SimulationOptions{} : presetOptions(o->preset);
        o->overrides.apply(options);
        if (o->overrides.given.speciesTreePath.empty() && options.speciesTreePath.empty() &&
            options.birthDeath.leaves == 0)
            throw std::invalid_argument("give a species tree (-s) or a number of species (--species)");
        options.process = parseSimProcess(o->process);
        options.transferConstraint = parseTransferConstraint(o->constraint);
        options.validate(); // bad options fail before the folder is touched
        prepareOutputs(o->output, simulationOutputEntries());
        SimulationSummary s = runSimulation(options, o->output.outdir);
        double simulated = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("%d families (%lld genes, %lld gene trees) on %d species nodes, %lld draws, in %.1f s\n",
                    s.families, s.genes, s.geneTrees, s.speciesNodes, s.attempts, simulated);
        std::printf("true reconciliations: S %ld, SL %ld, D %ld, T %ld, TL %ld, Leaf %ld\n", s.events.S,
                    s.events.SL, s.events.D, s.events.T, s.events.TL, s.events.Leaf);
        std::printf("wrote %s, %s, gene_trees/ and truth/ in %s\n", s.speciesTreeFile.c_str(),
                    s.familiesFile.c_str(), o->output.outdir.c_str());
        if (!o->skipTotals) {
            LoadOptions lo;
            lo.minCoveredSpecies = 1;
            lo.threads = options.threads;
            LoadedInput in = loadInput({s.speciesTreeFile, s.familiesFile, {}, {}, {}, {}},
                                       options.transferConstraint, lo);
            if (!in.errors.empty())
                throw std::runtime_error("the written dataset does not load: " + in.errors[0].message);
            const Dataset& data = *in.dataset;
            std::printf("CCP totals (UNIFORM rooting): %zu families, %lld clades, %lld splits\n",
                        data.families.size(), data.cladeCount(), data.splitCount());
        }
        double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("total %.1f s, peak memory %ld MB\n", total, peakResidentMegabytes());
    });
}

} // namespace gpurec::cli
