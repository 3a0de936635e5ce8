#include "cli_common.hpp"
#include "commands.hpp"

#include "io/json_number.hpp"
#include "io/newick.hpp"
#include "io/output_file.hpp"
#include "io/output_folder.hpp"
#include "io/result_writer.hpp"
#include "io/text_file.hpp"
#include "optim/checkpoint.hpp"
#include "optim/rate_files.hpp"
#include "run/interruption.hpp"
#include "species_search/search_files.hpp"
#include "species_search/start_trees.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numbers>
#include <optional>
#include <set>
#include <sstream>

namespace gpurec::cli {

namespace {

struct SearchOptions {
    InputOptions input;
    RateOptions rates;
    EngineOptions engine;
    OutputOptions output;
    std::string strategy = "HYBRID";
    std::string parametrization = "GLOBAL";
    SpeciesSearchSettings settings;
    bool fixRates = false;
    bool inferSpeciationOrder = false;
    int prescreenLanes = 0; // not recorded in checkpoints: results do not depend on it
    std::string resume;
};

// The options that define a search, under their command-line names: recorded in checkpoint.json
// and compared on --resume. --device, --threads and --gpu-memory-limit may change between parts.
nlohmann::json recordedOptions(const SearchOptions& o) {
    nlohmann::json j = recordedRunOptions(o.input, o.rates, o.engine);
    j.update(nlohmann::json{{"--species-tree-search", o.strategy},
                            {"--model-parametrization", o.parametrization},
                            {"--max-radius", o.settings.maxRadius},
                            {"--spr-cutoff", o.settings.sprCutoff},
                            {"--spr-memory", o.settings.sprMemory},
                            {"--root-depth", o.settings.rootDepth},
                            {"--replicates", o.settings.replicates},
                            {"--seed", o.settings.seed},
                            {"--rate-iterations", o.settings.rates.max_iter},
                            {"--prescreen", o.settings.prescreen},
                            {"--prescreen-confirm", o.settings.prescreenConfirm},
                            {"--infer-speciation-order", o.inferSpeciationOrder},
                            {"--fix-rates", o.fixRates}});
    return j;
}

// Where a HYBRID search stands, its current tree's node ids and what it has learned, kept in
// checkpoint.json so that --resume goes on there (SearchPosition) as the uninterrupted search would.
void keepPosition(OptimizationCheckpoint& checkpoint, const SearchPosition& at, const SpeciesTopology& tree,
                  const SearchMemory& memory) {
    const SpeciesTopology::Links links = tree.links();
    checkpoint.run["position"] = {{"phase", toString(at.phase)},
                                  {"radius", at.radius},
                                  {"node", at.prune},
                                  {"round_improved", at.roundImproved},
                                  {"changed", at.changed}};
    checkpoint.run["node_links"] = {{"left", links.left}, {"right", links.right}, {"root", links.root}};
    checkpoint.run["memory"] = searchMemoryJson(memory);
}

struct KeptPosition {
    SearchPosition position;
    std::optional<SearchMemory> memory; // none in checkpoints from before it was kept
};

// The position kept in the checkpoint at `path` (none: the search's start), `tree` given the node ids
// kept with it.
KeptPosition keptPosition(const OptimizationCheckpoint& checkpoint, SpeciesTopology& tree,
                          const std::string& path) {
    const nlohmann::json& run = checkpoint.run;
    if (!run.contains("position") || !run.contains("node_links")) return {};
    try {
        const nlohmann::json &p = run.at("position"), &l = run.at("node_links");
        tree = tree.relinked({l.at("left").get<std::vector<int>>(), l.at("right").get<std::vector<int>>(),
                              l.at("root").get<int>()});
        KeptPosition kept{{parseSearchPhase(p.at("phase").get<std::string>()), p.at("radius").get<int>(),
                           p.at("node").get<int>(), p.at("round_improved").get<bool>(),
                           p.at("changed").get<bool>()},
                          std::nullopt};
        if (run.contains("memory")) kept.memory = searchMemoryFromJson(run.at("memory"));
        return kept;
    } catch (const std::exception& e) { // a missing or mistyped entry, or links of another tree
        throw std::invalid_argument(path + ": " + e.what());
    }
}

std::string describe(const SearchPosition& at) {
    switch (at.phase) {
    case SearchPosition::Phase::Start:
        return "from the start";
    case SearchPosition::Phase::Transfer:
        return "at a pass's transfer-guided rounds";
    case SearchPosition::Phase::Spr:
        return "in the SPR round of radius " + std::to_string(at.radius) + " at node " +
               std::to_string(at.prune);
    case SearchPosition::Phase::PassEnd:
        return "at a pass's root search and rate fit";
    }
    return "";
}

// The options of the search recorded in `checkpoint`, with this command line's device and threads.
SearchOptions resumedOptions(const CLI::App& app, const SearchOptions& given,
                             const OptimizationCheckpoint& checkpoint, const std::string& checkpointPath) {
    requireResumeFolder(app, given.output.outdir, given.resume);
    const nlohmann::json& j = checkpoint.run.at("options");
    requireRecordedOptions(app, j, recordedOptions(given), checkpointPath);
    SearchOptions o = given;
    try {
        applyRecordedRunOptions(j, o.input, o.rates, o.engine);
        o.strategy = j.at("--species-tree-search").get<std::string>();
        o.parametrization = j.at("--model-parametrization").get<std::string>();
        o.settings.maxRadius = integerField<int>(j, "--max-radius");
        // Absent from checkpoints before it existed: those searches tried every regraft.
        o.settings.sprCutoff = j.value("--spr-cutoff", 0.0);
        o.settings.sprMemory = j.value("--spr-memory", 0.0); // likewise: every move on every tree
        o.settings.rootDepth = integerField<int>(j, "--root-depth");
        o.settings.replicates = integerField<int>(j, "--replicates");
        o.settings.seed = integerField<std::uint64_t>(j, "--seed");
        o.settings.rates.max_iter = integerField<int>(j, "--rate-iterations");
        o.fixRates = j.at("--fix-rates").get<bool>();
        o.settings.prescreen = j.value("--prescreen", 0.0); // absent from checkpoints before it existed
        o.settings.prescreenConfirm = j.value("--prescreen-confirm", 0.0); // likewise: no confirming stage
        o.inferSpeciationOrder = j.value("--infer-speciation-order", false);
    } catch (const std::exception& e) {
        throw std::invalid_argument(checkpointPath +
                                    ": the recorded run options cannot be read: " + e.what());
    }
    o.output.outdir = given.resume;
    return o;
}

std::vector<FamilyInput> listedFamilies(const InputOptions& o) {
    std::vector<FamilyInput> inputs;
    if (!o.families.empty()) inputs = readFamiliesFile(o.families);
    std::vector<FamilyInput> listed = familiesFromGeneTreeFiles(o.geneTrees);
    inputs.insert(inputs.end(), listed.begin(), listed.end());
    if (inputs.empty()) throw std::invalid_argument("no gene families given (use -f or gene-tree files)");
    return inputs;
}

// The start tree the user asked for: MiniNJ, Random (seeded) or a file whose leaves must be
// exactly the families' species.
SpeciesTree startTree(const SearchOptions& o, const std::vector<FamilyInput>& families) {
    const std::string& s = o.input.species;
    if (s == "MiniNJ") return miniNjSpeciesTree(families);
    if (s == "Random" || s == "random") {
        RandomSource rng(o.settings.seed);
        return randomSpeciesTree(familySpecies(families), rng);
    }
    std::vector<std::string> warnings;
    SpeciesTree tree = SpeciesTree::readFile(s, &warnings);
    for (const std::string& w : warnings)
        std::cerr << "gpurec: warning: " << w << "\n";
    const std::vector<std::string> species = familySpecies(families);
    const std::set<std::string> mapped(species.begin(), species.end());
    std::string missing, unused;
    int nMissing = 0, nUnused = 0;
    for (const std::string& name : species)
        if (tree.find(name) < 0 || !tree.isLeaf(tree.find(name)))
            missing += (nMissing++ < 5 ? " " + name : std::string());
    for (int e : tree.leaves())
        if (!mapped.count(tree.name(e))) unused += (nUnused++ < 5 ? " " + tree.name(e) : std::string());
    if (nMissing + nUnused > 0)
        throw std::invalid_argument(
            s + ": the start tree's leaves do not match the families' species" +
            (nMissing ? "; " + std::to_string(nMissing) +
                            " species of the families are not leaves of it:" + missing
                      : std::string()) +
            (nUnused ? "; " + std::to_string(nUnused) + " of its leaves have no gene:" + unused
                     : std::string()));
    return tree;
}

} // namespace

void registerSearch(CLI::App& root) {
    auto o = std::make_shared<SearchOptions>();
    CLI::App* app = root.add_subcommand(
        "search",
        "Maximum-likelihood species tree (SPR and re-rooting with rate re-optimisation; AleRax's files)");
    addInputOptions(*app, o->input);
    app->get_option("--species-tree")
        ->description(
            "Start tree: a rooted binary Newick file, MiniNJ (distance tree of the families) or Random");
    addRateOptions(*app, o->rates, NumberRange::positive());
    addEngineOptions(*app, o->engine, true);
    app->add_option("--species-tree-search", o->strategy,
                    "HYBRID (SPR and root moves, default), REROOT (root position only) or SKIP (the start "
                    "tree kept: rates fitted on it)")
        ->check(CLI::IsMember({"HYBRID", "REROOT", "SKIP"}));
    app->add_option("--model-parametrization", o->parametrization,
                    "GLOBAL (default) or PER-FAMILY (each family its own rates)")
        ->check(CLI::IsMember({"GLOBAL", "PER-FAMILY"}));
    addNumber(*app, "--max-radius", o->settings.maxRadius,
              "Largest SPR radius tried when smaller ones stop paying (default 3)", NumberRange::atLeast(1));
    addNumber(
        *app, "--spr-cutoff", o->settings.sprCutoff,
        "Try a regraft only when the one a step nearer on its way lies at most this many times the mean "
        "drop of the candidates scored so far below the current tree (default 1; 0: every regraft "
        "within the radius)",
        NumberRange::atLeast(0));
    addNumber(*app, "--spr-memory", o->settings.sprMemory,
              "Do not try an SPR move again when the same local move (same pruned and target clades, same "
              "clades between them) fell more than this many times the mean drop below an earlier tree "
              "of the search (default 1; 0: every move on every tree)",
              NumberRange::atLeast(0));
    addNumber(*app, "--root-depth", o->settings.rootDepth,
              "Root moves past the best root in the root searches between SPR rounds (default 3)",
              NumberRange::atLeast(1));
    addNumber(*app, "--replicates", o->settings.replicates,
              "RELL replicates of the KH, bootstrap and root supports (default 1000)",
              NumberRange::atLeast(1));
    addNumber(*app, "--seed", o->settings.seed,
              "Seed of the Random start tree and the replicates (default 123)");
    addNumber(*app, "--rate-iterations", o->settings.rates.max_iter,
              "Iterations of each rate re-optimisation at most (default 100)", NumberRange::atLeast(1));
    addNumber(*app, "--prescreen", o->settings.prescreen,
              "Score candidate moves on this fraction of the families first, and on all of them only "
              "when that could be an improvement (the estimate plus z standard errors, z learned on the way) "
              "(default 0: "
              "off)",
              NumberRange{0, 1, false, true, {}});
    addNumber(*app, "--prescreen-confirm", o->settings.prescreenConfirm,
              "Score a candidate the pre-screen cannot rule out on this many times the pre-screen's families "
              "(those included) before scoring it on all of them, and stop there when these rule it out "
              "(default 2.5; 0: straight to every family)",
              NumberRange::atLeast(0));
    addNumber(*app, "--prescreen-lanes", o->prescreenLanes,
              "Candidates pre-screened at once, each by a backend of its own: the next ones the search "
              "would score are screened beside the one it needs, with the same decisions for any number "
              "(default 0: 4 on a GPU, 1 on the CPU and with several processes)",
              NumberRange{0, 64, false, false, {}});
    app->add_flag("--fix-rates", o->fixRates, "Keep the starting rates (no re-optimisation)");
    addSpeciationOrderOption(*app, o->inferSpeciationOrder);
    addOutputOptions(*app, o->output);
    app->get_option("--species-tree")->required(false); // not with --resume: the checkpoint names it
    app->add_option("--resume", o->resume,
                    "Continue the interrupted search in this output folder from its checkpoint.json (its "
                    "inputs and options are read from there)")
        ->excludes("--overwrite");
    app->callback([given = o, app] {
        refuseFixedTreeOptions(given->input, "search");
        OptimizationCheckpoint checkpoint;
        const bool resuming = !given->resume.empty();
        const std::string checkpointPath =
            (resuming ? given->resume : given->output.outdir) + "/checkpoint.json";
        if (resuming) {
            checkpoint = readCheckpoint(checkpointPath);
            if (checkpoint.finished) {
                std::printf("%s: the search there has finished; nothing to resume\n", given->resume.c_str());
                return;
            }
        }
        if (!resuming && given->input.species.empty())
            throw CLI::RequiredError("--species-tree (or --resume FOLDER)");
        const auto o = std::make_shared<const SearchOptions>(
            resuming ? resumedOptions(*app, *given, checkpoint, checkpointPath) : *given);
        SolverOptions solver = solverOptionsFrom(o->engine);
        SpeciesSearchSettings settings = o->settings;
        settings.strategy = parseSearchStrategy(o->strategy);
        settings.optimizeRates = !o->fixRates;
        settings.inferSpeciationOrder = o->inferSpeciationOrder;
        settings.validate();
        const TransferConstraint constraint = parseTransferConstraint(o->input.transferConstraint);
        requireSearchAllowed(settings.strategy, constraint, settings.inferSpeciationOrder);
        const std::string& outdir = o->output.outdir;
        const std::string trees = outdir + "/species_trees";
        const std::vector<std::string> owned = {"species_trees",    "per_fam_likelihoods.txt",
                                                "model_parameters", "search_trace.csv",
                                                "checkpoint.json",  "result.json"};
        const bool writer = writesOutputs();
        if (writer && resuming)
            prepareOutputFolder(outdir, owned, ExistingOutputs::Keep);
        else if (writer)
            prepareOutputs(o->output, owned);
        const InterruptionHandlers handlers; // from here on a signal ends the search with its best tree
        const std::string startPath = trees + "/starting_species_tree.newick";
        if (writer) ensureDirectory(trees);
        if (writer && !resuming) { // a resumed search keeps the first part's start tree and files
            const SpeciesTree start = startTree(*o, listedFamilies(o->input));
            // Under RELDATED both carry the start's dating (SpeciesTree::toRankedNewick).
            const bool dated = constraint == TransferConstraint::RelDated;
            writeFileAtomically(startPath, start.toNewickFor(constraint) + "\n");
            writeFileAtomically(
                trees + "/inferred_species_tree.newick",
                SpeciesTopology::fromSpeciesTree(start, {}, dated).toSpeciesTree().toNewick(true) + "\n");
        }
        runGroup().agree(); // the other processes read the start tree the first one wrote
        InputOptions input = o->input;
        input.species = startPath; // the families are mapped onto the start tree
        LoadedInput in = loadOrExplain(input, o->engine.threads);
        throwIfInterrupted();
        const Dataset& data = *in.dataset;
        BackendChoice first = backendFrom(o->engine, in.dataset);
        // Lanes run side by side on threads: several processes would mix their collective sums.
        settings.prescreenLanes = runGroup().size() > 1 ? 1 : o->prescreenLanes;
        CandidateScorer scorer(in.dataset, backendFactoryFrom(o->engine), solver, std::move(first.backend),
                               searchSampling());
        const Parametrization parametrization = parseParametrization(o->parametrization, data.origination);
        const RateParameters theta =
            resuming ? checkpointParameters(checkpoint, data, makeParameters(parametrization, data, {}))
                     : initialRates(o->rates, data, parametrization);
        SpeciesTopology from =
            resuming ? scorer.topologyOf(SpeciesTree::fromNewick(
                           parseNewick(checkpoint.run.at("tree").get<std::string>(), checkpointPath).at(0)))
                     : scorer.loadedTopology();
        const KeptPosition kept = resuming ? keptPosition(checkpoint, from, checkpointPath) : KeptPosition{};
        const SearchPosition& position = kept.position;
        if (!resuming) {
            checkpoint = checkpointOf(theta, data);
            checkpoint.run = {{"command", "search"},
                              {"options", recordedOptions(*o)},
                              {"tree", from.toSpeciesTree().toNewick(true)},
                              {"steps", 0}};
            if (writer)
                writeCheckpoint(checkpointPath,
                                checkpoint); // a search killed before its first move resumes too
        }
        checkpoint.settings = settings.rates;
        std::printf("%zu families, %d species, %lld clades on %s; %s search from %s\n", data.families.size(),
                    data.species.leafCount(), data.cladeCount(), first.description.c_str(),
                    toString(settings.strategy).c_str(), o->input.species.c_str());
        std::fflush(stdout);

        const std::string tracePath = outdir + "/search_trace.csv";
        // A resumed search goes on with the earlier parts' rows (numbered on from them).
        std::string traceText = searchTraceHeader() + "\n";
        if (resuming && std::filesystem::exists(tracePath)) {
            const std::string earlier = readTextFile(tracePath);
            if (earlier.rfind(traceText, 0) == 0) {
                traceText = earlier.substr(0, earlier.rfind('\n') + 1);
            } else if (const std::string before = "step,move,log_likelihood,accepted,seconds,d,l,t,tree\n";
                       earlier.rfind(before, 0) == 0) {
                // A trace from before the pre-screen: its rows were all scored on every family.
                std::istringstream rows(
                    earlier.substr(before.size(), earlier.rfind('\n') + 1 - before.size()));
                for (std::string row; std::getline(rows, row);)
                    traceText += row + ",0\n";
            }
        }
        const int earlierSteps = static_cast<int>(std::count(traceText.begin(), traceText.end(), '\n')) - 1;
        double earlierSeconds = 0; // the resumed rows' clock goes on from the earlier part's last row
        try {
            earlierSeconds = lastTraceSeconds(traceText);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(tracePath + ": " + e.what());
        }
        std::ofstream trace;
        if (writer) trace.open(tracePath);
        if (writer && !(trace << traceText << std::flush))
            throw std::runtime_error("cannot write " + tracePath);
        if (resuming)
            std::printf("resuming %s after %d steps, LL %.10f, %s\n", outdir.c_str(), earlierSteps,
                        -checkpoint.bestNllBits * std::numbers::ln2, describe(position).c_str());
        // Besides every accepted step, the position is kept as the search moves on (at most every few
        // seconds): a killed search then resumes near where it was.
        auto keptAt = std::chrono::steady_clock::now();
        SpeciesSearchResult result = searchSpeciesTree(
            scorer, from, theta, settings,
            [&](const SearchStep& s) {
                SearchStep step = s;
                step.index += earlierSteps;
                step.seconds += earlierSeconds;
                const std::string row = searchTraceRow(step);
                traceText += row + "\n";
                if (writer && !(trace << row << std::endl))
                    throw std::runtime_error("cannot write " + tracePath);
                const auto now = std::chrono::steady_clock::now();
                if (step.position && (step.accepted || now - keptAt > std::chrono::seconds(5))) {
                    keepPosition(checkpoint, *step.position, *step.tree, (*step.memory)());
                    if (!step.accepted && writer) writeCheckpoint(checkpointPath, checkpoint);
                    keptAt = now;
                }
                if (step.accepted) {
                    // The best tree and its rates survive a kill: --resume starts from them.
                    checkpoint.theta = step.theta->theta();
                    checkpoint.bestNllBits = -step.logLikelihood / std::numbers::ln2;
                    checkpoint.run["tree"] = step.newick;
                    checkpoint.run["steps"] = step.index + 1;
                    if (writer) writeCheckpoint(checkpointPath, checkpoint);
                    if (step.move == "rates") return;
                    if (writer)
                        writeFileAtomically(trees + "/inferred_species_tree.newick", step.newick + "\n");
                    std::printf("step %d: %s, LL %.10f\n", step.index, step.move.c_str(), step.logLikelihood);
                    std::fflush(stdout);
                }
            },
            position, kept.memory ? &*kept.memory : nullptr);
        trace.close();
        std::shared_ptr<const Dataset> onBest = scorer.datasetOn(result.best);
        if (writer) {
            writeFileAtomically(tracePath, traceText);
            writeSearchTrees(trees, result, constraint, settings.strategy);
            writePerFamilyLikelihoods(outdir + "/per_fam_likelihoods.txt", *onBest, result.evaluation);
            writeRateFiles(outdir + "/model_parameters", *onBest, result.theta);
        }
        nlohmann::json j = evaluationJson(*onBest, result.evaluation);
        j["search"] = {{"strategy", toString(settings.strategy)},
                       {"start", o->input.species},
                       {"starting_tree", result.start.toSpeciesTree().toNewick(true)},
                       {"inferred_tree", result.best.toSpeciesTree().toNewick(true)},
                       {"start_log_likelihood", result.startLogLikelihood},
                       {"log_likelihood", result.evaluation.totalLogLikelihood},
                       {"model_parametrization", toString(result.theta.mode())},
                       {"rates", ratesJson(data, result.theta)},
                       {"speciation_gamma", speciationGammaJson(data, result.theta)},
                       {"highways", highwaysJson(data, result.theta)},
                       {"steps", result.trace.size()},
                       {"evaluations", result.evaluations},
                       {"prescreen", settings.prescreen},
                       {"screenings", result.screenings},
                       {"screened_out", result.screenedOut},
                       {"prescreen_lanes", result.prescreenLanes},
                       {"prescreen_confirm", settings.prescreenConfirm},
                       {"confirming_families", result.confirmingFamilies},
                       {"confirmations", result.confirmations},
                       {"confirmed_out", result.confirmedOut},
                       {"confirming_z", result.confirmingZ},
                       {"screenings_unused", result.screeningsUnused},
                       {"screened_families", result.screenedFamilies},
                       {"repeats_skipped", result.repeatsSkipped},
                       {"screening_z", result.screeningZ},
                       {"seconds", result.seconds},
                       {"activity_seconds",
                        {{"start", result.activitySeconds.start},
                         {"scoring", result.activitySeconds.scoring},
                         {"screening", result.activitySeconds.screening},
                         {"confirming", result.activitySeconds.confirming},
                         {"rate_fits", result.activitySeconds.rateFits},
                         {"transfer_rounds", result.activitySeconds.transferRounds}}},
                       {"max_radius", settings.maxRadius},
                       {"spr_cutoff", settings.sprCutoff},
                       {"spr_cutoff_skipped", result.sprCutoffSkipped},
                       {"spr_memory", settings.sprMemory},
                       {"spr_memory_skipped", result.sprMemorySkipped},
                       {"root_depth", settings.rootDepth},
                       {"replicates", settings.replicates},
                       {"seed", settings.seed},
                       {"fix_rates", o->fixRates},
                       {"infer_speciation_order", settings.inferSpeciationOrder},
                       {"interrupted", result.interrupted}};
        if (const std::optional<SpeciationOrderResult>& so = result.speciationOrder)
            j["search"]["speciation_order"] = {{"log_likelihood_before", so->startLogLikelihood},
                                               {"log_likelihood_after", so->evaluation.totalLogLikelihood},
                                               {"sampled_transfers", so->sampledTransfers},
                                               {"random_datings", so->transferDatings},
                                               {"datings_scored", so->likelihoodDatings},
                                               {"from_random_dating", so->fromRandomDating}};
        j["search"]["resumed_at_step"] = resuming ? nlohmann::json(earlierSteps) : nlohmann::json(nullptr);
        addRunDescription(j, input, in, first.description, solver);
        j["options"]["species_tree"] = o->input.species;
        checkpoint.theta = result.theta.theta();
        checkpoint.bestNllBits = -result.evaluation.totalLogLikelihood / std::numbers::ln2;
        checkpoint.run["tree"] = result.best.toSpeciesTree().toNewick(true);
        checkpoint.finished = !result.interrupted;
        if (result.interrupted && settings.strategy == SearchStrategy::Hybrid) {
            keepPosition(checkpoint, result.position, result.best, result.memory);
        } else {
            checkpoint.run.erase("position");
            checkpoint.run.erase("node_links");
            checkpoint.run.erase("memory");
        }
        checkpoint.stopReason = result.interrupted ? "interrupted" : "no move improves the likelihood";
        if (writer) {
            writeJson(outdir + "/result.json", j);
            writeCheckpoint(checkpointPath, checkpoint);
        }
        const Rates r0 = result.theta.rates(0);
        const std::string rates = result.theta.mode() == RateMode::Global
                                      ? "rates D " + std::to_string(r0.d) + " L " + std::to_string(r0.l) +
                                            " T " + std::to_string(r0.t)
                                      : "per-family rates in model_parameters/";
        std::printf("%s after %zu steps (%d evaluations; not scored: %d repeated candidates, %d regrafts "
                    "past the SPR cutoff, %d moves by the SPR memory; %.2f s): LL %.10f (start %.10f), %s\n",
                    result.interrupted ? "interrupted" : "done", result.trace.size(), result.evaluations,
                    result.repeatsSkipped, result.sprCutoffSkipped, result.sprMemorySkipped, result.seconds,
                    result.evaluation.totalLogLikelihood, result.startLogLikelihood, rates.c_str());
        if (settings.prescreen > 0)
            std::printf("pre-screening on %zu families in %d lanes: %d candidates screened (%d of them "
                        "ahead and not needed; %.1f families solved per screen), %d left there (z %.3g)\n",
                        scorer.screeningFamilies().size(), result.prescreenLanes, result.screenings,
                        result.screeningsUnused,
                        result.screenings > 0 ? double(result.screenedFamilies) / result.screenings : 0.0,
                        result.screenedOut, result.screeningZ);
        if (result.confirmingFamilies > 0)
            std::printf("confirming stage on %d more families: %d candidates, %d left there (z %.3g)\n",
                        result.confirmingFamilies, result.confirmations, result.confirmedOut,
                        result.confirmingZ);
        else if (settings.prescreen > 0 && settings.prescreenConfirm > 0)
            std::printf("no confirming stage: it would add fewer than two families or reach all of them, "
                        "or the device had no memory left for it\n");
        const SearchSeconds& spent = result.activitySeconds;
        std::printf(
            "time: start %.2f s, scoring %.2f s, screening %.2f s, confirming %.2f s, rate fits %.2f s, "
            "transfer rounds %.2f s, the rest %.2f s\n",
            spent.start, spent.scoring, spent.screening, spent.confirming, spent.rateFits,
            spent.transferRounds,
            result.seconds - spent.start - spent.scoring - spent.screening - spent.confirming -
                spent.rateFits - spent.transferRounds);
        printEarlyStops(result.evaluation.stats);
        std::printf("wrote %s/species_trees/, %s/per_fam_likelihoods.txt, %s/model_parameters/, "
                    "%s/search_trace.csv and %s/result.json\n",
                    outdir.c_str(), outdir.c_str(), outdir.c_str(), outdir.c_str(), outdir.c_str());
        std::fflush(stdout);
        throwIfInterrupted();
    });
}

} // namespace gpurec::cli
