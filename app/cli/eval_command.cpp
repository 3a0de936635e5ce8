#include "cli_common.hpp"
#include "commands.hpp"

#include "engine/solver_report.hpp"
#include "io/result_writer.hpp"
#include "recon/sampling_run.hpp"
#include "run/interruption.hpp"

#include <cstdio>
#include <iostream>

namespace gpurec::cli {

void registerEval(CLI::App& root) {
    struct Options {
        InputOptions input;
        RateOptions rates;
        EngineOptions engine;
        OutputOptions output;
    };
    auto o = std::make_shared<Options>();
    CLI::App* app = root.add_subcommand("eval", "Negative log-likelihood of every family at fixed rates");
    addInputOptions(*app, o->input);
    addRateOptions(*app, o->rates, fixedRateRange());
    addEngineOptions(*app, o->engine, true);
    addOutputOptions(*app, o->output);
    app->callback([o] {
        SolverOptions solver = solverOptionsFrom(o->engine); // bad knobs fail before any loading
        const std::string& outdir = o->output.outdir;
        // A signal: finish the evaluation, write nothing, exit 130/143 (handled from before the
        // output folder exists, so a signal sent once it does is never the default one).
        const InterruptionHandlers handlers;
        if (writesOutputs()) prepareOutputs(o->output, {"per_fam_likelihoods.txt", "result.json"});
        LoadedInput in = loadOrExplain(o->input, o->engine.threads);
        const Dataset& data = *in.dataset;
        RateParameters theta = fixedRunRates(o->rates, data);
        validateSampling(data, theta, SamplingSettings{}); // the rates sample accepts, rate files included
        BackendChoice backend = backendFrom(o->engine, in.dataset);
        Evaluation eval = backend.backend->evaluate(theta, solver, false);
        throwIfInterrupted();
        requireFiniteLikelihoods(data, theta, eval);
        if (writesOutputs()) {
            writePerFamilyLikelihoods(outdir + "/per_fam_likelihoods.txt", data, eval);
            nlohmann::json j = evaluationJson(data, eval);
            addRunDescription(j, o->input, in, backend.description, solver);
            writeJson(outdir + "/result.json", j);
        }
        std::printf("%zu families, %d species nodes, %lld clades, %lld splits on %s\n", data.families.size(),
                    data.species.size(), data.cladeCount(), data.splitCount(), backend.description.c_str());
        std::printf("total LL %.10f nats, NLL %.10f bits (%.3f s, schedule %s%s)\n", eval.totalLogLikelihood,
                    eval.totalNllBits, eval.stats.seconds, toString(solver.schedule).c_str(),
                    eval.stats.stoppedEarly() ? ", but solves stopped early" : "");
        printEarlyStops(eval.stats);
        std::printf("wrote %s/per_fam_likelihoods.txt and %s/result.json\n", outdir.c_str(), outdir.c_str());
    });
}

} // namespace gpurec::cli
