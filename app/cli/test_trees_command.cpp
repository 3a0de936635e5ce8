#include "cli_common.hpp"
#include "commands.hpp"

#include "engine/solver_report.hpp"
#include "io/csv_field.hpp"
#include "io/number_text.hpp"
#include "io/output_file.hpp"
#include "io/result_writer.hpp"
#include "species_search/candidate_scorer.hpp"
#include "species_search/tree_tests.hpp"

#include <cstdio>

namespace gpurec::cli {

namespace {

struct TestTreesOptions {
    InputOptions input;
    std::vector<std::string> trees;
    RateOptions rates;
    EngineOptions engine;
    OutputOptions output;
    TreeTestSettings tests;
    int rateIterations = 100;
    bool fixRates = false;
};

} // namespace

void registerTestTrees(CLI::App& root) {
    auto o = std::make_shared<TestTreesOptions>();
    CLI::App* app = root.add_subcommand(
        "test-trees", "Per-family log-likelihoods of candidate species trees and their KH, SH and AU tests");
    addInputOptions(*app, o->input);
    app->remove_option(app->get_option("--species-tree"));
    app->add_option("-s,--species-tree", o->trees, "Candidate species tree (Newick), repeated: two or more")
        ->required();
    addRateOptions(*app, o->rates, NumberRange::positive());
    addEngineOptions(*app, o->engine, true);
    addNumber(*app, "--replicates", o->tests.replicates,
              "RELL replicates per scale of the SH and AU tests (default 10000)", NumberRange::atLeast(1));
    addNumber(*app, "--seed", o->tests.seed, "Seed of the replicates (default 123)");
    addNumber(*app, "--rate-iterations", o->rateIterations,
              "Iterations of each tree's rate optimisation at most (default 100)", NumberRange::atLeast(1));
    app->add_flag("--fix-rates", o->fixRates,
                  "Score every tree at the given rates (default: each tree's own ML rates)");
    addOutputOptions(*app, o->output);
    app->callback([o] {
        refuseFixedTreeOptions(o->input, "test-trees");
        if (o->trees.size() < 2)
            throw std::invalid_argument("test-trees needs two or more trees (-s T1 -s T2 ...)");
        SolverOptions solver = solverOptionsFrom(o->engine);
        o->tests.validate();
        OptimizerSettings rateSettings;
        rateSettings.max_iter = o->rateIterations;
        const std::string& outdir = o->output.outdir;
        prepareOutputs(o->output, {"per_family_likelihoods.csv", "tree_tests.csv", "result.json"});
        InputOptions input = o->input;
        input.species = o->trees[0]; // the families are mapped onto the first tree, then re-indexed
        LoadedInput in = loadOrExplain(input, o->engine.threads);
        const Dataset& data = *in.dataset;
        BackendChoice first = backendFrom(o->engine, in.dataset);
        CandidateScorer scorer(in.dataset, backendFactoryFrom(o->engine), solver, std::move(first.backend));
        const RateParameters start = initialRates(o->rates, data, RateMode::Global);
        std::vector<std::vector<double>> ll;
        std::vector<Rates> rates;
        std::vector<std::string> topologies;
        for (const std::string& path : o->trees) {
            SpeciesTopology tree;
            try {
                tree = scorer.topologyOf(SpeciesTree::readFile(path));
            } catch (const std::invalid_argument& e) {
                throw std::invalid_argument(path + ": " + e.what());
            }
            topologies.push_back(tree.canonicalNewick());
            for (std::size_t k = 0; k + 1 < topologies.size(); ++k)
                if (topologies[k] == topologies.back())
                    std::printf("warning: %s is the same rooted tree as %s (ties go to the first in the "
                                "bootstrap and AU tests)\n",
                                path.c_str(), o->trees[k].c_str());
            Evaluation eval;
            RateParameters theta = start;
            if (o->fixRates) {
                eval = scorer.evaluate(tree, theta);
            } else {
                theta = scorer.optimizeRates(tree, start, rateSettings, eval).best;
            }
            requireFiniteLikelihoods(*scorer.datasetOn(tree), theta, eval);
            ll.push_back(eval.logLikelihood);
            rates.push_back(theta.rates(0));
            std::printf("%s: LL %.10f\n", path.c_str(), eval.totalLogLikelihood);
            std::fflush(stdout);
        }
        const std::vector<TreeTestRow> rows = testTrees(ll, o->tests);

        writeFileAtomically(outdir + "/per_family_likelihoods.csv", [&](std::ostream& out) {
            out << "family";
            for (std::size_t k = 0; k < o->trees.size(); ++k)
                out << ",tree" << k + 1;
            out << "\n";
            for (std::size_t f = 0; f < data.families.size(); ++f) {
                out << csvField(data.families[f].name);
                for (const std::vector<double>& tree : ll)
                    out << "," << exactNumberText(tree[f]);
                out << "\n";
            }
        });
        nlohmann::json trees = nlohmann::json::array();
        writeFileAtomically(outdir + "/tree_tests.csv", [&](std::ostream& out) {
            out << "tree,file,log_likelihood,delta,kh,sh,bp,au,d,l,t\n";
            for (std::size_t k = 0; k < rows.size(); ++k) {
                const TreeTestRow& r = rows[k];
                out << "tree" << k + 1 << "," << csvField(o->trees[k]) << ","
                    << exactNumberText(r.logLikelihood) << "," << exactNumberText(r.delta) << ","
                    << exactNumberText(r.kh) << "," << exactNumberText(r.sh) << "," << exactNumberText(r.bp)
                    << "," << exactNumberText(r.au) << "," << exactNumberText(rates[k].d) << ","
                    << exactNumberText(rates[k].l) << "," << exactNumberText(rates[k].t) << "\n";
                trees.push_back({{"file", o->trees[k]},
                                 {"log_likelihood", r.logLikelihood},
                                 {"delta", r.delta},
                                 {"kh", r.kh},
                                 {"sh", r.sh},
                                 {"bp", r.bp},
                                 {"au", r.au},
                                 {"rates", {{"D", rates[k].d}, {"L", rates[k].l}, {"T", rates[k].t}}}});
            }
        });
        nlohmann::json j;
        j["trees"] = trees;
        j["tests"] = {{"replicates", o->tests.replicates},
                      {"scales", o->tests.scales},
                      {"seed", o->tests.seed},
                      {"fix_rates", o->fixRates}};
        addRunDescription(j, input, in, first.description, solver);
        writeJson(outdir + "/result.json", j);
        std::printf("%-6s %20s %12s %8s %8s %8s %8s\n", "tree", "log_likelihood", "delta", "kh", "sh", "bp",
                    "au");
        for (std::size_t k = 0; k < rows.size(); ++k)
            std::printf("tree%-2zu %20.10f %12.6f %8.4f %8.4f %8.4f %8.4f\n", k + 1, rows[k].logLikelihood,
                        rows[k].delta, rows[k].kh, rows[k].sh, rows[k].bp, rows[k].au);
        std::printf("wrote %s/per_family_likelihoods.csv, %s/tree_tests.csv and %s/result.json\n",
                    outdir.c_str(), outdir.c_str(), outdir.c_str());
    });
}

} // namespace gpurec::cli
