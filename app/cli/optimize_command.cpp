#include "cli_common.hpp"
#include "commands.hpp"

#include "io/json_number.hpp"
#include "io/output_folder.hpp"
#include "io/result_writer.hpp"
#include "optim/checkpoint.hpp"
#include "optim/optimization_trace.hpp"
#include "optim/optimizer.hpp"
#include "optim/rate_files.hpp"
#include "run/interruption.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace gpurec::cli {

namespace {

struct OptimizeOptions {
    InputOptions input;
    RateOptions rates;
    EngineOptions engine;
    std::string parametrization = "GLOBAL";
    std::string optimizer = "lbfgsb";
    OptimizerSettings settings;
    OutputOptions output;
    std::string resume;
};

// The recorded --model-parametrization: gpurec's name of a rate mode, ORIGINATION-PER-SPECIES, or a
// class file's absolute path (a run resumes from any working directory).
std::string recordedParametrization(const std::string& text) {
    if (text == "ORIGINATION-PER-SPECIES") return text;
    try {
        return toString(parseRateMode(text));
    } catch (const std::invalid_argument&) {
        return absolutePath(text);
    }
}

// The options that define a run, under their command-line names: recorded in the checkpoint and
// compared on --resume. Paths are absolute so that a run resumes from any working directory.
// --device, --threads and --gpu-memory-limit are left out: they may change between the parts of
// a run (results agree within the solver tolerance).
nlohmann::json recordedOptions(const OptimizeOptions& o) {
    nlohmann::json j = recordedRunOptions(o.input, o.rates, o.engine);
    j.update(nlohmann::json{{"--model-parametrization", recordedParametrization(o.parametrization)},
                            {"--optimizer", o.optimizer},
                            {"--max-iter", o.settings.max_iter},
                            {"--min-rate", o.settings.min_rate},
                            {"--max-rate", o.settings.max_rate},
                            {"--grad-tol", o.settings.grad_tol},
                            {"--rel-tol", o.settings.rel_tol},
                            {"--learning-rate", o.settings.learning_rate},
                            {"--no-warm-starts", !o.settings.warm_starts},
                            {"--fix-rates", o.settings.fix_rates},
                            {"--fix-highways", o.settings.fix_highways}});
    return j;
}

void applyRecordedOptions(const nlohmann::json& j, OptimizeOptions& o) {
    applyRecordedRunOptions(j, o.input, o.rates, o.engine);
    o.parametrization = j.at("--model-parametrization").get<std::string>();
    o.optimizer = j.at("--optimizer").get<std::string>();
    o.settings.max_iter = integerField<int>(j, "--max-iter");
    o.settings.min_rate = j.at("--min-rate").get<double>();
    o.settings.max_rate = j.at("--max-rate").get<double>();
    o.settings.grad_tol = j.at("--grad-tol").get<double>();
    o.settings.rel_tol = j.at("--rel-tol").get<double>();
    o.settings.learning_rate = j.at("--learning-rate").get<double>();
    o.settings.warm_starts = !j.at("--no-warm-starts").get<bool>();
    o.settings.fix_rates = j.value("--fix-rates", false);
    o.settings.fix_highways = j.value("--fix-highways", false);
}

// The options of the run recorded in `checkpoint`, with this command line's device and threads.
// Any other option given on the command line must agree with the recording.
OptimizeOptions resumedOptions(const CLI::App& app, const OptimizeOptions& given,
                               const OptimizationCheckpoint& checkpoint, const std::string& checkpointPath) {
    requireResumeFolder(app, given.output.outdir, given.resume);
    const nlohmann::json& recorded = checkpoint.run.at("options");
    requireRecordedOptions(app, recorded, recordedOptions(given), checkpointPath);
    OptimizeOptions o = given;
    try {
        applyRecordedOptions(recorded, o);
    } catch (const std::exception& e) {
        throw std::invalid_argument(checkpointPath +
                                    ": the recorded run options cannot be read: " + e.what());
    }
    o.output.outdir = given.resume;
    return o;
}

} // namespace

void registerOptimize(CLI::App& root) {
    auto o = std::make_shared<OptimizeOptions>();
    CLI::App* app =
        root.add_subcommand("optimize", "Maximum-likelihood DTL rates (analytic gradients, bounded)");
    addInputOptions(*app, o->input);
    app->get_option("--species-tree")->required(false); // not with --resume: the checkpoint names it
    addRateOptions(*app, o->rates, NumberRange::positive());
    app->get_option("--rates-file")
        ->description(
            "Starting rates: AleRax model_parameters.txt, or (PER-FAMILY) a folder of <family>_rates.txt");
    addEngineOptions(*app, o->engine, true);
    app->add_option("--model-parametrization", o->parametrization,
                    "GLOBAL (default), PER-SPECIES, PER-FAMILY, ORIGINATION-PER-SPECIES (global rates, "
                    "origination weights per species node; with --origination OPTIMIZE) or a class file "
                    "('label TYPES' lines: the node and its subtree get their own D, L, T or O parameter)");
    app->add_option("--optimizer", o->optimizer, "lbfgsb (default) or adam")
        ->check(CLI::IsMember({"lbfgsb", "adam"}));
    addNumber(*app, "--max-iter", o->settings.max_iter, "Iterations at most (default 100)",
              NumberRange::atLeast(0));
    addNumber(*app, "--min-rate", o->settings.min_rate, "Lower bound of every rate (default 1e-10)",
              NumberRange::positive());
    addNumber(*app, "--max-rate", o->settings.max_rate, "Upper bound of every rate (default 2)",
              NumberRange::positive());
    addNumber(*app, "--grad-tol", o->settings.grad_tol,
              "Stop when the projected gradient's largest component is below this (bits per log2 rate; "
              "default 1e-5)",
              NumberRange::atLeast(0));
    addNumber(*app, "--rel-tol", o->settings.rel_tol,
              "Stop when an iteration changes the NLL by less than this fraction (default 1e-10)",
              NumberRange::atLeast(0));
    addNumber(*app, "--learning-rate", o->settings.learning_rate,
              "Adam step size in log2-rate units (default 0.1)", NumberRange::positive());
    app->add_flag("--fix-highways", o->settings.fix_highways,
                  "Keep the transfer highways' rates of --highways-file (fitted with the rates otherwise)");
    app->add_flag(
        "--fix-rates", o->settings.fix_rates,
        "Keep the starting rates and origination weights (AleRax's --fix-rates): only the speciation "
        "categories' shape is fitted");
    app->add_flag(
        "!--no-warm-starts", o->settings.warm_starts,
        "Start every evaluation's fixed points afresh (for benchmarks; results agree within tolerance)");
    addOutputOptions(*app, o->output);
    app->add_option("--resume", o->resume,
                    "Continue the interrupted run in this output folder from its checkpoint.json (the "
                    "run's inputs and options are read from there)")
        ->excludes("--overwrite");
    app->callback([o, app] {
        OptimizationCheckpoint checkpoint;
        const bool resuming = !o->resume.empty();
        const std::string checkpointPath = (resuming ? o->resume : o->output.outdir) + "/checkpoint.json";
        if (resuming) {
            checkpoint = readCheckpoint(checkpointPath);
            if (checkpoint.finished) {
                std::printf("%s: the run there has finished (%s); nothing to resume\n", o->resume.c_str(),
                            checkpoint.stopReason.c_str());
                return;
            }
        }
        if (!resuming && o->input.species.empty())
            throw CLI::RequiredError("--species-tree (or --resume FOLDER)");
        const OptimizeOptions opts = resuming ? resumedOptions(*app, *o, checkpoint, checkpointPath) : *o;
        const std::string& outdir = opts.output.outdir;
        OptimizerSettings settings = opts.settings;
        settings.kind = parseOptimizerKind(opts.optimizer);
        settings.validate();
        const std::vector<std::string> owned = {"per_fam_likelihoods.txt", "model_parameters", "trace.csv",
                                                "checkpoint.json", "result.json"};
        const bool writer = writesOutputs();
        if (writer && resuming)
            prepareOutputFolder(outdir, owned, ExistingOutputs::Keep);
        else if (writer)
            prepareOutputs(opts.output, owned);
        const InterruptionHandlers handlers; // from here on a signal ends the run at the next safe point
        LoadedInput in = loadOrExplain(opts.input, opts.engine.threads);
        throwIfInterrupted(); // nothing computed yet: nothing to write
        const Dataset& data = *in.dataset;
        const Parametrization parametrization = parseParametrization(opts.parametrization, data.origination);
        const RateMode mode = parametrization.mode;
        SolverOptions solver = solverOptionsFrom(opts.engine);
        BackendChoice backend = backendFrom(opts.engine, in.dataset);
        RateParameters start =
            resuming ? checkpointParameters(checkpoint, data, makeParameters(parametrization, data, {}))
                     : initialRates(opts.rates, data, parametrization);
        ReconModel model(in.dataset, std::move(backend.backend), start, solver);
        if (!resuming) {
            checkpoint = checkpointOf(start, data);
            checkpoint.run = {{"command", "optimize"}, {"options", recordedOptions(opts)}};
        }
        checkpoint.settings = settings;

        const std::string tracePath = outdir + "/trace.csv";
        std::ofstream trace;
        if (writer) {
            prepareTraceFile(tracePath, resuming ? checkpoint.progress.iterations : 0);
            trace.open(tracePath, std::ios::app);
            if (!trace) throw std::runtime_error("cannot write " + tracePath);
        }
        std::printf(
            "%zu families, %d species nodes, %lld clades, %lld splits on %s; %s rates (%d parameters), %s\n",
            data.families.size(), data.species.size(), data.cladeCount(), data.splitCount(),
            backend.description.c_str(), toString(mode).c_str(), int(model.parameters().theta().size()),
            toString(settings.kind).c_str());
        if (resuming)
            std::printf("resuming %s at iteration %d (best NLL %.10f bits, %d evaluations so far)\n",
                        outdir.c_str(), checkpoint.progress.iterations, checkpoint.bestNllBits,
                        checkpoint.progress.evaluations);
        const ResumePoint resumePoint = checkpoint.progress;
        OptimizationResult result = optimizeRates(
            model, settings,
            [&](const IterationReport& r) {
                // Flushed: the trace survives an interrupted run. Then the checkpoint, so that a
                // run killed at any moment resumes from its last iteration (prepareTraceFile drops
                // a row written after the last checkpoint).
                if (writer && !(trace << traceCsvRow(r) << std::endl))
                    throw std::runtime_error("cannot write " + tracePath);
                checkpoint.theta = *r.bestTheta;
                checkpoint.bestNllBits = r.bestNllBits;
                checkpoint.progress = {r.iteration + 1, r.evaluations, r.initialNllBits, r.seconds};
                if (writer) writeCheckpoint(checkpointPath, checkpoint);
                std::printf("%s\n", progressLine(r, data.events.presentRates()).c_str());
                std::fflush(stdout);
                return true;
            },
            resuming ? &resumePoint : nullptr);

        const Evaluation& best = model.lastEvaluation();
        std::vector<std::string> rateFiles{outdir + "/model_parameters"};
        if (writer) {
            writePerFamilyLikelihoods(outdir + "/per_fam_likelihoods.txt", data, best);
            rateFiles = writeRateFiles(outdir + "/model_parameters", data, result.best);
        }
        nlohmann::json j = evaluationJson(data, best);
        j["optimization"] = {
            {"mode", toString(mode)},
            {"model_parametrization", parametrization.text},
            {"settings", optimizerSettingsJson(settings)},
            {"iterations", result.iterations},
            {"evaluations", result.evaluations},
            {"converged", result.converged},
            {"stop_reason", result.stopReason},
            {"resumed_at_iteration", resuming ? nlohmann::json(resumePoint.iterations) : nullptr},
            {"initial_nll_bits", result.initialNllBits},
            {"best_nll_bits", result.bestNllBits},
            {"seconds", result.seconds},
            {"rates", ratesJson(data, result.best)},
            {"origination", originationJson(data, result.best)},
            {"speciation_gamma", speciationGammaJson(data, result.best)},
            {"highways", highwaysJson(data, result.best)}};
        j["interrupted"] = result.interrupted;
        addRunDescription(j, opts.input, in, backend.description, solver);
        checkpoint.theta = result.best.theta();
        checkpoint.bestNllBits = result.bestNllBits;
        checkpoint.progress = {result.iterations + 1, result.evaluations, result.initialNllBits,
                               result.seconds};
        checkpoint.finished = !result.interrupted;
        checkpoint.stopReason = result.stopReason;
        if (writer) {
            writeJson(outdir + "/result.json", j);
            writeCheckpoint(checkpointPath, checkpoint);
        }
        std::printf("%s after %d iterations (%d evaluations, %.2f s): %s\n",
                    result.converged     ? "converged"
                    : result.interrupted ? "interrupted"
                                         : "stopped",
                    result.iterations, result.evaluations, result.seconds, result.stopReason.c_str());
        std::printf("total LL %.10f nats, NLL %.10f bits (start %.10f bits)\n", best.totalLogLikelihood,
                    best.totalNllBits, result.initialNllBits);
        printEarlyStops(best.stats);
        // The rate files: highways.txt first when there are highways (writeRateFiles' order), then
        // model_parameters.txt or one file per family.
        std::string rates = data.highways.empty() || rateFiles.size() < 2 ? "" : rateFiles.front() + ", ";
        rates +=
            mode != RateMode::Genewise ? rateFiles.back() : outdir + "/model_parameters/<family>_rates.txt";
        std::printf(
            "wrote %s/per_fam_likelihoods.txt, %s, %s/trace.csv, %s/checkpoint.json and %s/result.json\n",
            outdir.c_str(), rates.c_str(), outdir.c_str(), outdir.c_str(), outdir.c_str());
        if (result.interrupted) {
            std::fflush(stdout);
            std::cerr << "gpurec: " << result.stopReason << "; resume with: gpurec optimize --resume "
                      << outdir << "\n";
            throwIfInterrupted();
        }
    });
}

} // namespace gpurec::cli
