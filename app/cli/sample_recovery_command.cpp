// gpurec sample-recovery: a benchmark of the sampler on simulated families with known true
// reconciliations (docs/validation.md, "Reconciliation sampling"). Families are drawn from the
// undated model at the given rates, sampled at the same rates, and every sampled gene node is
// compared with the true node holding the same genes.
#include "cli_common.hpp"
#include "commands.hpp"

#include "io/result_writer.hpp"
#include "recon/recovery.hpp"
#include "recon/sampling_run.hpp"
#include "sim/family_simulation.hpp"
#include "sim/species_tree_simulation.hpp"

#include <cstdio>
#include <mutex>

namespace gpurec::cli {

namespace {

double share(double part, double whole) {
    return whole > 0 ? part / whole : 0.0;
}

nlohmann::json recoveryJson(const RecoveryTally& t) {
    nlohmann::json nodes;
    for (int k = 0; k < RecoveryTally::kNodeTypes; ++k) {
        nlohmann::json sampled;
        for (int c = 0; c < RecoveryTally::kNodeTypes; ++c)
            sampled[RecoveryTally::nodeTypeNames()[c]] = share(t.confusion[k][c], t.nodes[k]);
        sampled["absent"] = share(t.confusion[k][RecoveryTally::kNodeTypes], t.nodes[k]);
        nodes[RecoveryTally::nodeTypeNames()[k]] = {{"compared", t.nodes[k]},
                                                    {"same_type", share(t.confusion[k][k], t.nodes[k])},
                                                    {"same_event_and_species", share(t.exact[k], t.nodes[k])},
                                                    {"sampled_as", sampled}};
    }
    auto branch = [](double truth, double sampled, double shared) {
        return nlohmann::json{{"true", truth},
                              {"sampled", sampled},
                              {"recall", share(shared, truth)},
                              {"precision", share(shared, sampled)}};
    };
    nlohmann::json calibration;
    const char* names[] = {"S", "SL", "D", "T", "TL"};
    for (int k = 0; k < 5; ++k)
        calibration[names[k]] = {{"true", t.trueEvents[k]}, {"sampled", t.sampledEvents[k]}};
    return {{"node_events", nodes},
            {"event_totals_per_sample", calibration},
            {"SL", branch(t.trueSL, t.sampledSL, t.sharedSL)},
            {"TL", branch(t.trueTL, t.sampledTL, t.sharedTL)}};
}

} // namespace

void registerSampleRecovery(CLI::App& root) {
    struct Options {
        std::string speciesTree;
        int speciesLeaves = 20;
        int families = 100;
        double d = 0.1, l = 0.1, t = 0.1;
        int samples = 100;
        std::uint64_t seed = 1;
        std::string rooting = "ROOTED";
        int threads = 0;
        std::string outdir;
    };
    auto o = std::make_shared<Options>();
    CLI::App* app = root.add_subcommand(
        "sample-recovery", "Benchmark: how often sampled reconciliations recover simulated true events");
    app->add_option("-s,--species-tree", o->speciesTree, "Species tree (default: a birth-death tree)");
    addNumber(*app, "--species-leaves", o->speciesLeaves,
              "Leaves of the birth-death species tree (default 20)", NumberRange::atLeast(2));
    addNumber(*app, "--families", o->families, "Simulated families (default 100)", NumberRange::atLeast(1));
    addNumber(*app, "--d", o->d, "Duplication rate, simulated and sampled (default 0.1)", fixedRateRange());
    addNumber(*app, "--l", o->l, "Loss rate (default 0.1)", fixedRateRange());
    addNumber(*app, "--t", o->t, "Transfer rate (default 0.1)", fixedRateRange());
    addNumber(*app, "--samples", o->samples, "Reconciliations per family (default 100)",
              NumberRange::atLeast(1));
    addNumber(*app, "--seed", o->seed, "Seed of the simulation and of the sampling (default 1)");
    app->add_option(
           "--gene-tree-rooting", o->rooting,
           "ROOTED (the true rooted gene tree, default) or UNIFORM (its unrooted form: roots are sampled)")
        ->check(CLI::IsMember({"UNIFORM", "ROOTED"}));
    addNumber(*app, "--threads", o->threads, "CPU threads (default: all cores)", NumberRange::atLeast(0));
    app->add_option("-p,--prefix", o->outdir, "Also write <prefix>/recovery.json");
    app->callback([o] {
        validateSampleCount(o->samples);
        auto data = std::make_shared<Dataset>();
        if (!o->speciesTree.empty()) {
            data->species = SpeciesTree::readFile(o->speciesTree);
        } else {
            BirthDeathOptions bd;
            bd.leaves = o->speciesLeaves;
            bd.validate();
            RandomSource rng = RandomSource::stream(o->seed, 0);
            data->species = SpeciesTree::fromNewick(simulateBirthDeathTree(bd, rng));
        }
        const SpeciesTree& species = data->species;
        RateParameters theta(RateMode::Global, species.size(), o->families, {o->d, o->l, o->t});
        FamilySimulator simulator(species, data->transferConstraint, SimProcess::Undated, {});
        const std::vector<Rates> rates(species.size(), Rates{o->d, o->l, o->t});
        const GeneTreeRooting rooting = parseGeneTreeRooting(o->rooting);
        std::vector<Reconciliation> truths;
        for (int f = 0; f < o->families; ++f) {
            RandomSource rng = RandomSource::stream(o->seed, std::uint64_t(f) + 1);
            SimulatedFamily sim = simulator.simulate("sim" + std::to_string(f), rates, rng);
            data->families.push_back(makeFamily(species, sim.truth.family, {sim.geneTree}, rooting));
            truths.push_back(std::move(sim.truth));
        }
        SamplingSettings settings;
        settings.samples = o->samples;
        settings.seed = o->seed;
        settings.halveRootBranches = rooting != GeneTreeRooting::Rooted;
        settings.solver.threads = o->threads;
        std::vector<int> all(o->families);
        for (int f = 0; f < o->families; ++f)
            all[f] = f;
        RecoveryTally total;
        std::mutex mutex;
        const std::unique_ptr<LikelihoodBackend> backend = makeCpuBackend(data);
        sampleFamilies(
            *data, theta, all, settings,
            [&](FamilySamples&& fs) {
                RecoveryTally tally;
                for (const Reconciliation& r : fs.reconciliations)
                    tally.add(truths[fs.family], r);
                std::lock_guard lock(mutex);
                total.merge(tally);
            },
            backendTables(*backend, theta, settings));

        std::printf("%d families on %d species nodes, D=%g L=%g T=%g, %d samples each, %s gene trees\n",
                    o->families, species.size(), o->d, o->l, o->t, o->samples, o->rooting.c_str());
        std::printf("%-5s %8s %10s %10s   sampled as:  S      D      T      Leaf   absent\n", "true", "nodes",
                    "same type", "+species");
        for (int k = 0; k < RecoveryTally::kNodeTypes; ++k) {
            double n = total.nodes[k];
            std::printf("%-5s %8.0f %10.4f %10.4f %12s", RecoveryTally::nodeTypeNames()[k], n / o->samples,
                        share(total.confusion[k][k], n), share(total.exact[k], n), "");
            for (int c = 0; c <= RecoveryTally::kNodeTypes; ++c)
                std::printf(" %.4f", share(total.confusion[k][c], n));
            std::printf("\n");
        }
        std::printf("SL on branches: %.0f true, recall %.4f, precision %.4f\n", total.trueSL / o->samples,
                    share(total.sharedSL, total.trueSL), share(total.sharedSL, total.sampledSL));
        std::printf("TL on branches: %.0f true, recall %.4f, precision %.4f\n", total.trueTL / o->samples,
                    share(total.sharedTL, total.trueTL), share(total.sharedTL, total.sampledTL));
        std::printf("events per sample, true vs sampled:");
        const char* names[] = {"S", "SL", "D", "T", "TL"};
        for (int k = 0; k < 5; ++k)
            std::printf("  %s %.1f/%.1f", names[k], total.trueEvents[k] / o->samples,
                        total.sampledEvents[k] / o->samples);
        std::printf("\n");
        if (!o->outdir.empty()) {
            ensureDirectory(o->outdir);
            nlohmann::json j = recoveryJson(total);
            j["options"] = {{"families", o->families},
                            {"species_nodes", species.size()},
                            {"rates", {{"D", o->d}, {"L", o->l}, {"T", o->t}}},
                            {"samples", o->samples},
                            {"seed", o->seed},
                            {"gene_tree_rooting", o->rooting}};
            writeJson(o->outdir + "/recovery.json", j);
        }
    });
}

} // namespace gpurec::cli
