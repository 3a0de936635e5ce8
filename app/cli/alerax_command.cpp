// gpurec alerax: an AleRax command line run unchanged. The options keep AleRax's names, values and
// defaults; the run is the gpurec subcommands that do the same steps (printed as they start), into
// one output folder with AleRax's files: rates (optimize, or search when the species tree is
// searched), then -g reconciliations (sample). Options of AleRax's model that gpurec does not
// implement yet are refused by name instead of being ignored.
#include "build_cli.hpp"
#include "cli_common.hpp"
#include "commands.hpp"

#include "data/coverage_files.hpp"
#include "data/origination.hpp"
#include "data/pruning_options.hpp"
#include "io/number_text.hpp"
#include "io/output_file.hpp"
#include "io/result_writer.hpp"
#include "io/text_file.hpp"
#include "optim/parametrization.hpp"
#include "species_search/species_search.hpp"
#include "tree/species_tree.hpp"

#include <cstdio>
#include <filesystem>

namespace gpurec::cli {

namespace {

struct AleraxOptions {
    std::string families, speciesTree, prefix;
    std::string recModel = "UndatedDTL";
    std::string search = "SKIP";
    std::string parametrization = "GLOBAL";
    int geneTreeSamples = 100;
    std::string transferConstraint = "PARENTS";
    std::string rooting = "UNIFORM";
    std::string origination = "UNIFORM";
    std::string rateOptimizer = "LBFGSB";
    int gammaCategories = 1;
    bool fixRates = false;
    double d = 0.1, l = 0.1, t = 0.1;
    std::uint64_t seed = 123;
    int minCoveredSpecies = 4;
    bool skipFamilyFiltering = false, skipThoroughRates = false;
    double trimRatio = 0, maxCladeSplitRatio = -1;
    int ccpSampleFrequency = 1;
    bool highways = false, pruneSpeciesTree = false, noDup = false, noDl = false, noTl = false;
    bool inferSpeciationOrder = false;
    std::string highwayCandidatesFile, fractionMissingFile;
    int highwayCandidatesStep1 = 100, highwayCandidatesStep2 = 50;
    // gpurec's own, for the machine it runs on
    std::string device = "auto";
    int threads = 0;
    bool overwrite = false;
};

// A start tree built from the families (AleRax's spellings) rather than read from a file.
bool generatedStart(const AleraxOptions& o) {
    return o.speciesTree == "MiniNJ" || o.speciesTree == "Random" || o.speciesTree == "random";
}

// Parts of AleRax's model and pipeline gpurec does not have yet: refused, never ignored.
void refuseUnsupported(const CLI::App& app, const AleraxOptions& o) {
    auto refuse = [](const std::string& what) {
        throw std::invalid_argument(what + " is not supported by gpurec yet (docs/alerax.md lists what "
                                           "gpurec alerax runs)");
    };
    // AleRax's own refusals first, with its messages.
    const Parametrization p = parseParametrization(o.parametrization, parseOrigination(o.origination));
    if (o.gammaCategories > 1 && p.mode == RateMode::Genewise)
        throw std::invalid_argument(
            "--speciation-gamma-categories cannot be used with --model-parametrization PER-FAMILY");
    if (p.mode == RateMode::Classes && o.search == "HYBRID")
        throw std::invalid_argument("species tree search is not compatible with --model-parametrization " +
                                    o.parametrization);
    if (p.mode == RateMode::Classes && o.search == "REROOT")
        throw std::invalid_argument(
            "species tree root inference is not compatible with --model-parametrization " +
            o.parametrization);
    requireSearchAllowed(parseSearchStrategy(o.search), parseTransferConstraint(o.transferConstraint),
                         o.inferSpeciationOrder);
    // Parameters per species node do not follow the nodes through a search's moves.
    const bool perNode = p.originPerNode || (p.mode != RateMode::Global && p.mode != RateMode::Genewise);
    if (o.search != "SKIP" && perNode)
        refuse("--species-tree-search " + o.search + " with --model-parametrization " + o.parametrization);
    if (generatedStart(o) && perNode)
        refuse("-s " + o.speciesTree + " with --model-parametrization " + o.parametrization);
    if (o.rateOptimizer != "LBFGSB") refuse("--rate-optimizer " + o.rateOptimizer);
    // AleRax's refusal first (its message), then what gpurec's pruning does not support yet.
    requirePrunable(o.pruneSpeciesTree, !o.fractionMissingFile.empty(), false,
                    parseTransferConstraint(o.transferConstraint));
    if (o.pruneSpeciesTree && o.highways) refuse("--prune-species-tree with --highways");
    if (o.pruneSpeciesTree && (o.search != "SKIP" || generatedStart(o)))
        refuse("--prune-species-tree with a species-tree search or a generated start tree");
    // AleRax's checks on the highway options.
    const bool stepsGiven = o.highwayCandidatesStep1 != 100 || o.highwayCandidatesStep2 != 50;
    if (!o.highways && (app.count("--highway-candidates-file") > 0 || stepsGiven))
        throw std::invalid_argument(
            "--highway-candidates-file and --highway-candidates-step1/2 need --highways");
    if (app.count("--highway-candidates-file") > 0 && o.highwayCandidatesStep1 != 100)
        throw std::invalid_argument(
            "--highway-candidates-file cannot be used with --highway-candidates-step1");
    if (o.highways && o.recModel != "UndatedDTL")
        throw std::invalid_argument("--highways can only be used with --rec-model UndatedDTL");
    if (o.highways && p.mode == RateMode::Genewise)
        refuse("--highways with --model-parametrization PER-FAMILY");
}

// Runs one gpurec subcommand in this process, as `gpurec ARGS` would.
void runStage(const std::vector<std::string>& args) {
    std::string shown = "gpurec";
    for (const std::string& a : args)
        shown += " " + (a.find(' ') == std::string::npos ? a : "'" + a + "'");
    std::printf("gpurec alerax: running %s\n", shown.c_str());
    std::fflush(stdout);
    CLI::App stage;
    buildCli(stage);
    std::vector<std::string> reversed(args.rbegin(), args.rend()); // CLI11 takes them last first
    stage.parse(reversed);
}

// The options every stage shares, in gpurec's names.
std::vector<std::string> inputArguments(const AleraxOptions& o, bool withSpeciesTree) {
    std::vector<std::string> a = {"-f", o.families};
    if (withSpeciesTree) a.insert(a.end(), {"-s", o.speciesTree});
    a.insert(a.end(), {"--transfer-constraint", o.transferConstraint, "--gene-tree-rooting", o.rooting,
                       "--origination", o.origination, "--rec-model", o.recModel, "--min-covered-species",
                       std::to_string(o.minCoveredSpecies)});
    for (const auto& [flag, given] :
         {std::pair{"--no-dup", o.noDup}, {"--no-dl", o.noDl}, {"--no-tl", o.noTl}})
        if (given) a.emplace_back(flag);
    if (o.ccpSampleFrequency != 1)
        a.insert(a.end(), {"--ccp-sample-frequency", std::to_string(o.ccpSampleFrequency)});
    if (o.gammaCategories != 1)
        a.insert(a.end(), {"--speciation-gamma-categories", std::to_string(o.gammaCategories)});
    if (o.trimRatio != 0) a.insert(a.end(), {"--trim-ratio", exactNumberText(o.trimRatio)});
    if (o.maxCladeSplitRatio != -1)
        a.insert(a.end(), {"--max-clade-split-ratio", exactNumberText(o.maxCladeSplitRatio)});
    if (!o.fractionMissingFile.empty()) a.insert(a.end(), {"--fraction-missing-file", o.fractionMissingFile});
    if (o.pruneSpeciesTree) a.emplace_back("--prune-species-tree");
    a.insert(a.end(), {"--device", o.device, "--threads", std::to_string(o.threads), "-p", o.prefix});
    return a;
}

// AleRax's input summaries: coverage and missing fractions of the families kept, and the clade
// counts of every readable family (AleRax writes ccpdim.txt before trimming). The input is read
// once more, with the stages' options, against the species tree the run used.
void writeInputSummaries(const AleraxOptions& o) {
    InputOptions input;
    input.species = o.prefix + "/species_trees/starting_species_tree.newick";
    input.families = o.families;
    input.transferConstraint = o.transferConstraint;
    input.rooting = o.rooting;
    input.origination = o.origination;
    input.minCoveredSpecies = o.minCoveredSpecies;
    input.ccpSampleFrequency = o.ccpSampleFrequency;
    input.trimRatio = o.trimRatio;
    input.maxCladeSplitRatio = o.maxCladeSplitRatio;
    const LoadedInput in = loadInput(inputPathsFrom(input), parseTransferConstraint(input.transferConstraint),
                                     loadOptionsFrom(input, o.threads));
    const Dataset& data = *in.dataset;
    writeFileAtomically(o.prefix + "/perSpeciesCoverage.txt",
                        perSpeciesCoverageText(data.species, data.families));
    writeFileAtomically(o.prefix + "/perSpeciesMissing.txt",
                        perSpeciesMissingText(data.species, data.families));
    ensureDirectory(o.prefix + "/ccps");
    writeFileAtomically(o.prefix + "/ccps/ccpdim.txt", cladeDimensionsText(in.dimensions));
}

} // namespace

void registerAlerax(CLI::App& root) {
    auto o = std::make_shared<AleraxOptions>();
    CLI::App* app = root.add_subcommand(
        "alerax", "Run an AleRax command line unchanged (AleRax's options and files; docs/alerax.md)");
    app->add_option("-f,--families", o->families, "AleRax families file")->required();
    app->add_option("-s,--species-tree", o->speciesTree, "Species tree file, MiniNJ or Random")->required();
    app->add_option("-p,--prefix", o->prefix, "Output folder")->required();
    app->add_option("-r,--rec-model", o->recModel, "UndatedDTL (default) or UndatedDL")
        ->check(CLI::IsMember({"UndatedDTL", "UndatedDL"}));
    app->add_option("--species-tree-search", o->search, "SKIP (default), HYBRID or REROOT")
        ->check(CLI::IsMember({"SKIP", "HYBRID", "REROOT"}));
    app->add_option("--model-parametrization", o->parametrization,
                    "GLOBAL (default), PER-FAMILY, PER-SPECIES, ORIGINATION-PER-SPECIES or a file");
    addNumber(*app, "-g,--gene-tree-samples", o->geneTreeSamples,
              "Reconciliations sampled per family (default 100; 0: none)", NumberRange::atLeast(0));
    app->add_option("--transfer-constraint", o->transferConstraint, "PARENTS (default), NONE or RELDATED")
        ->check(CLI::IsMember({"PARENTS", "NONE", "RELDATED"}));
    app->add_option("--gene-tree-rooting", o->rooting, "UNIFORM (default), ROOTED or MAD")
        ->check(CLI::IsMember({"UNIFORM", "ROOTED", "MAD"}));
    app->add_option("--origination", o->origination, "UNIFORM (default), ROOT, LCA or OPTIMIZE")
        ->check(CLI::IsMember({"UNIFORM", "ROOT", "LCA", "OPTIMIZE"}));
    app->add_option("--rate-optimizer", o->rateOptimizer, "LBFGSB (default)");
    addNumber(*app, "--speciation-gamma-categories", o->gammaCategories, "Rate categories (default 1)",
              NumberRange::atLeast(1));
    app->add_flag("--fix-rates", o->fixRates, "Keep the starting rates --d --l --t");
    addNumber(*app, "--d", o->d, "Starting duplication rate (default 0.1)", NumberRange::positive());
    addNumber(*app, "--l", o->l, "Starting loss rate (default 0.1)", NumberRange::positive());
    addNumber(*app, "--t", o->t, "Starting transfer rate (default 0.1)", NumberRange::positive());
    addNumber(*app, "--seed", o->seed, "Random seed (default 123)");
    addNumber(*app, "--min-covered-species", o->minCoveredSpecies,
              "Exclude families covering fewer species (default 4)", NumberRange::atLeast(1));
    app->add_flag("--skip-family-filtering", o->skipFamilyFiltering,
                  "Accepted: gpurec checks every family as it reads it and skips bad ones either way");
    app->add_flag("--skip-thorough-rates", o->skipThoroughRates,
                  "Accepted: gpurec optimises the rates once, to convergence");
    addNumber(*app, "--trim-ratio", o->trimRatio,
              "Exclude this fraction of the families, those with the most clades (default 0)",
              NumberRange::between(0, 1));
    addNumber(*app, "--max-clade-split-ratio", o->maxCladeSplitRatio,
              "Exclude families with more clades than this times 2*genes-3 (default -1: off)",
              NumberRange::atLeast(0).orExactly(-1));
    addNumber(*app, "--ccp-sample-frequency", o->ccpSampleFrequency,
              "Amalgamate gene trees 0, K, 2K, ... of each file (default 1; ignored for .ale input)",
              NumberRange::atLeast(1));
    app->add_flag("--highways", o->highways,
                  "Infer transfer highways after the rates (gpurec highways), then fit the rates with them");
    app->add_option("--highway-candidates-file,--highway-candidate-file", o->highwayCandidatesFile,
                    "Candidate highways, 'FROM,TO' per line, instead of those the sampled transfers suggest");
    addNumber(*app, "--highway-candidates-step1,--highway-candidate-step1", o->highwayCandidatesStep1,
              "Automatic candidate highways tested at most (default 100)", NumberRange::atLeast(1));
    addNumber(*app, "--highway-candidates-step2,--highway-candidate-step2", o->highwayCandidatesStep2,
              "Accepted highways kept at most before their rates are fitted together (default 50)",
              NumberRange::atLeast(1));
    app->add_option("--fraction-missing-file", o->fractionMissingFile,
                    "Per species leaf 'label fraction': the share of its genes missing from the data");
    app->add_flag("--prune-species-tree", o->pruneSpeciesTree,
                  "Reconcile each family with the species tree pruned to the species it covers (not with "
                  "--fraction-missing-file; gpurec: not with a search or highways yet)");
    addSpeciationOrderOption(*app, o->inferSpeciationOrder);
    app->add_flag("--no-dup", o->noDup, "No duplications (D = 0, and so no DL terms)");
    app->add_flag("--no-dl", o->noDl, "No duplication-loss term in the clade equations");
    app->add_flag("--no-tl", o->noTl, "No transfer-loss terms in the clade equations");
    app->add_option("--device", o->device, "gpurec: auto (default), cpu, cuda or cuda:N");
    addNumber(*app, "--threads", o->threads, "gpurec: CPU threads (default: all cores)",
              NumberRange::atLeast(0));
    app->add_flag("--overwrite", o->overwrite, "gpurec: replace the results of an earlier run in the prefix");
    app->callback([o, app] {
        refuseUnsupported(*app, *o);
        // gpurec search builds MiniNJ and Random trees (with SKIP it keeps the tree it built) and
        // infers the speciation order.
        const bool searching = o->search != "SKIP" || generatedStart(*o) || o->inferSpeciationOrder;
        prepareOutputs({o->prefix, o->overwrite},
                       {"species_trees", "per_fam_likelihoods.txt", "model_parameters", "trace.csv",
                        "checkpoint.json", "search_trace.csv", "reconciliations", "highways",
                        "perSpeciesCoverage.txt", "perSpeciesMissing.txt", "ccps", "result.json"});
        std::vector<std::string> rates = {"--d", exactNumberText(o->d), "--l", exactNumberText(o->l),
                                          "--t", exactNumberText(o->t)};

        std::vector<std::string> first;
        if (searching) {
            first = {"search", "--species-tree-search", o->search, "--seed", std::to_string(o->seed)};
            if (o->fixRates) first.push_back("--fix-rates");
            if (o->inferSpeciationOrder) first.push_back("--infer-speciation-order");
        } else {
            first = {"optimize"};
            if (o->fixRates) first.emplace_back("--fix-rates");
        }
        first.insert(first.end(), {"--model-parametrization", o->parametrization, "--overwrite"});
        first.insert(first.end(), rates.begin(), rates.end());
        const std::vector<std::string> input = inputArguments(*o, true);
        first.insert(first.end(), input.begin(), input.end());
        runStage(first);
        if (!searching) { // AleRax writes the (relabelled) tree it used in every run, dated under RELDATED
            const std::string trees = o->prefix + "/species_trees";
            ensureDirectory(trees);
            const std::string text = SpeciesTree::readFile(o->speciesTree)
                                         .toNewickFor(parseTransferConstraint(o->transferConstraint)) +
                                     "\n";
            writeFileAtomically(trees + "/starting_species_tree.newick", text);
            writeFileAtomically(trees + "/inferred_species_tree.newick", text);
        }
        writeInputSummaries(*o);
        const std::string resultPath = o->prefix + "/result.json";
        nlohmann::json result = nlohmann::json::parse(readTextFile(resultPath));
        std::vector<std::vector<std::string>> commands = {first};
        const std::string inferred = o->prefix + "/species_trees/inferred_species_tree.newick";
        const std::string accepted = o->prefix + "/highways/accepted_highways.txt";
        // The categories' shape the last rate stage fitted (AleRax keeps it in memory).
        auto shapeOf = [](const nlohmann::json& stageResult) {
            const nlohmann::json& stage =
                stageResult.contains("search") ? stageResult.at("search") : stageResult.at("optimization");
            return stage.contains("speciation_gamma") && !stage["speciation_gamma"].is_null()
                       ? std::vector<std::string>{"--gamma-alpha",
                                                  exactNumberText(
                                                      stage["speciation_gamma"]["alpha"].get<double>())}
                       : std::vector<std::string>{};
        };
        bool withHighways = false;
        if (o->highways) {
            // Highways at the rates just fitted, then the rates fitted again with them held (AleRax's
            // steps 11 and 12).
            std::vector<std::string> search = {"highways",
                                               "-s",
                                               inferred,
                                               "--rates-file",
                                               o->prefix + "/model_parameters/model_parameters.txt",
                                               "--seed",
                                               std::to_string(o->seed),
                                               "--highway-candidates-step1",
                                               std::to_string(o->highwayCandidatesStep1),
                                               "--highway-candidates-step2",
                                               std::to_string(o->highwayCandidatesStep2),
                                               "--overwrite"};
            if (!o->highwayCandidatesFile.empty())
                search.insert(search.end(), {"--highway-candidates-file", o->highwayCandidatesFile});
            const std::vector<std::string> shape = shapeOf(result);
            search.insert(search.end(), shape.begin(), shape.end());
            const std::vector<std::string> searchInput = inputArguments(*o, false);
            search.insert(search.end(), searchInput.begin(), searchInput.end());
            runStage(search);
            const nlohmann::json highwaysResult = nlohmann::json::parse(readTextFile(resultPath));
            commands.push_back(search);
            withHighways = !highwaysResult.at("highways").at("accepted").empty();
            if (withHighways) {
                std::vector<std::string> refit = {"optimize",
                                                  "-s",
                                                  inferred,
                                                  "--highways-file",
                                                  accepted,
                                                  "--fix-highways",
                                                  "--model-parametrization",
                                                  o->parametrization,
                                                  "--overwrite"};
                if (o->fixRates) refit.emplace_back("--fix-rates");
                refit.insert(refit.end(), rates.begin(), rates.end());
                const std::vector<std::string> refitInput = inputArguments(*o, false);
                refit.insert(refit.end(), refitInput.begin(), refitInput.end());
                runStage(refit);
                commands.push_back(refit);
                const nlohmann::json before = result;
                result = nlohmann::json::parse(readTextFile(resultPath));
                result["before_highways"] = before;
            }
            result["highways"] = highwaysResult.at("highways");
        }

        if (o->geneTreeSamples > 0) {
            const std::string species = o->prefix + "/species_trees/inferred_species_tree.newick";
            const std::string ratesFile = o->parametrization == "PER-FAMILY"
                                              ? o->prefix + "/model_parameters"
                                              : o->prefix + "/model_parameters/model_parameters.txt";
            std::vector<std::string> second = {"sample",
                                               "--samples",
                                               std::to_string(o->geneTreeSamples),
                                               "--seed",
                                               std::to_string(o->seed),
                                               "--rates-file",
                                               ratesFile,
                                               "-s",
                                               species,
                                               "--overwrite"};
            const std::vector<std::string> sampleInput = inputArguments(*o, false);
            second.insert(second.end(), sampleInput.begin(), sampleInput.end());
            const std::vector<std::string> shape = shapeOf(result);
            second.insert(second.end(), shape.begin(), shape.end());
            if (withHighways) second.insert(second.end(), {"--highways-file", accepted});
            runStage(second); // its result.json replaces the first stage's, which `result` holds
            result["sampling"] = nlohmann::json::parse(readTextFile(resultPath));
            commands.push_back(second);
        }
        result["alerax"] = {{"commands", commands}};
        writeJson(resultPath, result);
        std::printf("gpurec alerax: wrote AleRax's files and %s\n", resultPath.c_str());
    });
}

} // namespace gpurec::cli
