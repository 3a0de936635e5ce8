// gpurec highways: AleRax's transfer-highway inference at fixed rates (core/highways/highway_search.hpp),
// writing OUT/highways/ as AleRax does; `gpurec optimize --highways-file OUT/highways/accepted_highways.txt`
// then fits the rates with them.
#include "cli_common.hpp"
#include "commands.hpp"

#include "highways/highway_search.hpp"
#include "io/result_writer.hpp"
#include "run/interruption.hpp"

#include <cstdio>

namespace gpurec::cli {

void registerHighways(CLI::App& root) {
    struct Options {
        InputOptions input;
        RateOptions rates;
        EngineOptions engine;
        OutputOptions output;
        HighwaySearchSettings search;
    };
    auto o = std::make_shared<Options>();
    CLI::App* app = root.add_subcommand(
        "highways",
        "Transfer highways at fixed rates: candidates, tests, BIC acceptance (AleRax's highways/ files)");
    addInputOptions(*app, o->input);
    app->remove_option(app->get_option("--highways-file")); // the search starts without highways
    addRateOptions(*app, o->rates, fixedRateRange());
    addEngineOptions(*app, o->engine, true);
    app->add_option("--highway-candidates-file", o->search.candidatesFile,
                    "Candidates, 'FROM,TO' per line (species labels or *), instead of those the sampled "
                    "transfers suggest");
    addNumber(*app, "--highway-candidates-step1", o->search.candidatesStep1,
              "Automatic candidates tested at most (default 100)", NumberRange::atLeast(1));
    addNumber(*app, "--highway-candidates-step2", o->search.candidatesStep2,
              "Accepted highways kept at most before their rates are fitted together (default 50)",
              NumberRange::atLeast(1));
    addNumber(*app, "--seed", o->search.seed,
              "Seed of the reconciliations sampled for candidates (default 123)");
    addOutputOptions(*app, o->output);
    app->callback([o] {
        refuseFixedTreeOptions(o->input, "highways");
        o->search.solver = solverOptionsFrom(o->engine);
        const std::string& outdir = o->output.outdir;
        const InterruptionHandlers handlers; // a signal stops at the next evaluation, writing nothing more
        prepareOutputs(o->output, {"highways/candidate_highways.txt", "highways/candidate_tests",
                                   "highways/accepted_highways.txt", "result.json"});
        LoadedInput in = loadOrExplain(o->input, o->engine.threads);
        const Dataset& data = *in.dataset;
        const RateParameters theta = fixedRunRates(o->rates, data);
        BackendChoice first = backendFrom(o->engine, in.dataset);
        std::printf("%zu families, %d species nodes on %s; testing transfer highways\n", data.families.size(),
                    data.species.size(), first.description.c_str());
        std::fflush(stdout);
        const BackendFactory factory = backendFactoryFrom(o->engine);
        const HighwaySearchResult r = searchHighways(in.dataset, theta, factory, o->search,
                                                     outdir + "/highways", [](const std::string& line) {
                                                         std::printf("%s\n", line.c_str());
                                                         std::fflush(stdout);
                                                         throwIfInterrupted();
                                                     });
        nlohmann::json tests = nlohmann::json::array();
        for (const HighwayTest& t : r.tests)
            tests.push_back({{"src", data.species.name(t.record.highway.source)},
                             {"dest", data.species.name(t.record.highway.destination)},
                             {"outcome", t.outcome},
                             {"ll_gain", t.gain},
                             {"rate", t.outcome == "accepted" ? nlohmann::json(t.record.rate) : nullptr}});
        nlohmann::json accepted = nlohmann::json::array();
        for (const HighwayRecord& a : r.accepted)
            accepted.push_back({{"src", data.species.name(a.highway.source)},
                                {"dest", data.species.name(a.highway.destination)},
                                {"rate", a.rate},
                                {"ll_gain", a.llDiff}});
        nlohmann::json j;
        j["highways"] = {{"candidates", r.candidates.size()},
                         {"tests", tests},
                         {"accepted", accepted},
                         {"start_ll_nats", r.startLogLikelihood},
                         {"ll_nats", r.logLikelihood},
                         {"bic_threshold_nats", r.bicThreshold},
                         {"evaluations", r.evaluations},
                         {"rates", ratesJson(data, theta)}};
        addRunDescription(j, o->input, in, first.description, o->search.solver);
        writeJson(outdir + "/result.json", j);
        std::printf("%zu of %zu candidate highways accepted; LL %.10f nats (%.10f without)\n",
                    r.accepted.size(), r.candidates.size(), r.logLikelihood, r.startLogLikelihood);
        std::printf("wrote %s/highways/candidate_highways.txt, candidate_tests/, accepted_highways.txt and "
                    "%s/result.json\n",
                    outdir.c_str(), outdir.c_str());
    });
}

} // namespace gpurec::cli
