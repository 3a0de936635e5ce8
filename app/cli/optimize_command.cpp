#include "cli_common.hpp"
#include "commands.hpp"

#include "io/result_writer.hpp"
#include "optim/optimization_trace.hpp"
#include "optim/optimizer.hpp"
#include "optim/rate_files.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace gpurec::cli {

namespace {

nlohmann::json ratesJson(const Dataset& data, const RateParameters& theta) {
    auto one = [](Rates r) { return nlohmann::json{{"D", r.d}, {"L", r.l}, {"T", r.t}}; };
    if (theta.mode() == RateMode::Global) return one(theta.rates(0));
    nlohmann::json rows = nlohmann::json::object();
    for (int r = 0; r < theta.rowCount(); ++r)
        rows[theta.mode() == RateMode::Specieswise ? data.species.name(r) : data.families[r].name] =
            one(theta.rates(r));
    return rows;
}

nlohmann::json settingsJson(const OptimizerSettings& s) {
    return {{"optimizer", toString(s.kind)},
            {"max_iter", s.max_iter},
            {"grad_tol", s.grad_tol},
            {"rel_tol", s.rel_tol},
            {"min_rate", s.min_rate},
            {"max_rate", s.max_rate},
            {"learning_rate", s.learning_rate},
            {"beta1", s.beta1},
            {"beta2", s.beta2},
            {"lbfgsb_memory", s.lbfgsb_memory},
            {"warm_starts", s.warm_starts}};
}

// Starting rates of the chosen mode; a folder given as --rates-file holds per-family rate files.
RateParameters startingRates(const RateOptions& o, const Dataset& data, RateMode mode) {
    if (mode == RateMode::Genewise && !o.ratesFile.empty() && std::filesystem::is_directory(o.ratesFile))
        return readFamilyRateFiles(o.ratesFile, data);
    return initialRates(o, data, mode);
}

} // namespace

void registerOptimize(CLI::App& root) {
    struct Options {
        InputOptions input;
        RateOptions rates;
        EngineOptions engine;
        std::string parametrization = "GLOBAL";
        std::string optimizer = "lbfgsb";
        OptimizerSettings settings;
        std::string outdir = "gpurec_output";
    };
    auto o = std::make_shared<Options>();
    CLI::App* app =
        root.add_subcommand("optimize", "Maximum-likelihood DTL rates (analytic gradients, bounded)");
    addInputOptions(*app, o->input);
    addRateOptions(*app, o->rates, NumberRange::positive());
    app->get_option("--rates-file")
        ->description(
            "Starting rates: AleRax model_parameters.txt, or (PER-FAMILY) a folder of <family>_rates.txt");
    addEngineOptions(*app, o->engine, true);
    app->add_option("--model-parametrization", o->parametrization,
                    "GLOBAL (default), PER-SPECIES or PER-FAMILY")
        ->check(CLI::IsMember({"GLOBAL", "PER-SPECIES", "PER-FAMILY", "global", "specieswise", "genewise"}));
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
    app->add_flag(
        "!--no-warm-starts", o->settings.warm_starts,
        "Start every evaluation's fixed points afresh (for benchmarks; results agree within tolerance)");
    app->add_option("-p,--prefix", o->outdir, "Output folder (default gpurec_output)");
    app->callback([o] {
        OptimizerSettings settings = o->settings;
        settings.kind = parseOptimizerKind(o->optimizer);
        settings.validate();
        LoadedInput in = loadOrExplain(o->input, o->engine.threads);
        const Dataset& data = *in.dataset;
        const RateMode mode = parseRateMode(o->parametrization);
        SolverOptions solver = solverOptionsFrom(o->engine);
        BackendChoice backend = backendFrom(o->engine, in.dataset);
        ReconModel model(in.dataset, std::move(backend.backend), startingRates(o->rates, data, mode), solver);

        ensureDirectory(o->outdir);
        std::ofstream trace(o->outdir + "/trace.csv");
        if (!trace) throw std::runtime_error("cannot write " + o->outdir + "/trace.csv");
        trace << traceCsvHeader() << "\n";
        std::printf(
            "%zu families, %d species nodes, %lld clades, %lld splits on %s; %s rates (%d parameters), %s\n",
            data.families.size(), data.species.size(), data.cladeCount(), data.splitCount(),
            backend.description.c_str(), toString(mode).c_str(), int(model.parameters().theta().size()),
            toString(settings.kind).c_str());
        OptimizationResult result = optimizeRates(model, settings, [&](const IterationReport& r) {
            trace << traceCsvRow(r) << std::endl; // flushed: the trace survives an interrupted run
            std::printf("%s\n", progressLine(r).c_str());
            std::fflush(stdout);
            return true;
        });

        const Evaluation& best = model.lastEvaluation();
        writePerFamilyLikelihoods(o->outdir + "/per_fam_likelihoods.txt", data, best);
        std::vector<std::string> rateFiles =
            writeRateFiles(o->outdir + "/model_parameters", data, result.best);
        nlohmann::json j = evaluationJson(data, best);
        j["optimization"] = {{"mode", toString(mode)},
                             {"settings", settingsJson(settings)},
                             {"iterations", result.iterations},
                             {"evaluations", result.evaluations},
                             {"converged", result.converged},
                             {"stop_reason", result.stopReason},
                             {"initial_nll_bits", result.initialNllBits},
                             {"best_nll_bits", result.bestNllBits},
                             {"seconds", result.seconds},
                             {"rates", ratesJson(data, result.best)}};
        addRunDescription(j, o->input, in, backend.description, solver);
        writeJson(o->outdir + "/result.json", j);
        std::printf("%s after %d iterations (%d evaluations, %.2f s): %s\n",
                    result.converged ? "converged" : "stopped", result.iterations, result.evaluations,
                    result.seconds, result.stopReason.c_str());
        std::printf("total LL %.10f nats, NLL %.10f bits (start %.10f bits)\n", best.totalLogLikelihood,
                    best.totalNllBits, result.initialNllBits);
        printEarlyStops(best.stats);
        std::printf("wrote %s/per_fam_likelihoods.txt, %s, %s/trace.csv and %s/result.json\n",
                    o->outdir.c_str(),
                    rateFiles.size() == 1 ? rateFiles[0].c_str()
                                          : (o->outdir + "/model_parameters/<family>_rates.txt").c_str(),
                    o->outdir.c_str(), o->outdir.c_str());
    });
}

} // namespace gpurec::cli
