// gpurec sample: reconciliations drawn from their posterior at fixed rates, written in the forms
// AleRax users read (docs/formats.md, "Reconciliation outputs").
#include "cli_common.hpp"
#include "commands.hpp"
#include "highways/highway_files.hpp"

#include "engine/solver_report.hpp"
#include "io/result_writer.hpp"
#include "recon/recon_summary.hpp"
#include "recon/reconciliation_files.hpp"
#include "recon/sampling_run.hpp"
#include "run/interruption.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <set>

namespace gpurec::cli {

namespace {

nlohmann::json summaryJson(const ReconciliationSummary& s, const SpeciesTree& species) {
    nlohmann::json events;
    for (std::size_t k = 0; k < s.events.size(); ++k)
        events[eventCountNames()[k]] = s.events[k];
    nlohmann::json perSpecies = nlohmann::json::array();
    for (int e = 0; e < species.size(); ++e) {
        nlohmann::json row = {{"species", species.name(e)}};
        bool any = false;
        for (int k = 0; k < kSpeciesColumnCount; ++k) {
            row[speciesColumnNames()[k]] = s.species[e][k];
            any = any || s.species[e][k] != 0.0;
        }
        if (any) perSpecies.push_back(row);
    }
    nlohmann::json transfers = nlohmann::json::array();
    for (const TransferFrequency& t : sortedTransfers(s.transfers, species))
        transfers.push_back({{"source", species.name(t.source)},
                             {"destination", species.name(t.destination)},
                             {"frequency", t.count}});
    nlohmann::json origins = nlohmann::json::array();
    for (int e = 0; e < species.size(); ++e)
        if (s.origination[e] != 0.0)
            origins.push_back({{"species", species.name(e)}, {"frequency", s.origination[e]}});
    return {{"mean_event_counts", events},
            {"species_event_counts", perSpecies},
            {"transfers", transfers},
            {"originations", origins}};
}

// Dataset indices of the requested families (all when none is named).
std::vector<int> selectFamilies(const LoadedInput& in, const std::vector<std::string>& requested,
                                int minCovered) {
    const Dataset& data = *in.dataset;
    std::vector<int> out;
    if (requested.empty()) {
        for (int f = 0; f < static_cast<int>(data.families.size()); ++f)
            out.push_back(f);
        return out;
    }
    std::set<int> chosen;
    for (const std::string& name : requested) {
        if (const int found = data.familyIndex(name); found >= 0) {
            chosen.insert(found);
            continue;
        }
        for (const FamilyProblem& p : in.excluded)
            if (p.family == name)
                throw std::invalid_argument(
                    "family '" + name + "' was excluded (" + p.message + "); " +
                    (p.filter == "--min-covered-species"
                         ? "lower --min-covered-species (now " + std::to_string(minCovered) + ")"
                         : "change " + p.filter) +
                    " to sample it");
        for (const FamilyProblem& p : in.errors)
            if (p.family == name)
                throw std::invalid_argument("family '" + name + "' has bad input: " + p.message);
        throw std::invalid_argument("family '" + name + "' is not in the input");
    }
    return {chosen.begin(), chosen.end()};
}

} // namespace

void registerSample(CLI::App& root) {
    struct Options {
        InputOptions input;
        RateOptions rates;
        EngineOptions engine;
        int samples = 100;
        std::uint64_t seed = 123;
        std::vector<std::string> families;
        bool xmlPerFamily = false;
        bool compactXml = false;
        OutputOptions output;
    };
    auto o = std::make_shared<Options>();
    CLI::App* app =
        root.add_subcommand("sample", "Sample reconciled gene trees from their posterior at fixed rates");
    addInputOptions(*app, o->input);
    addRateOptions(*app, o->rates, fixedRateRange());
    addEngineOptions(*app, o->engine, true);
    addNumber(*app, "--samples", o->samples, "Reconciliations per family (default 100)",
              NumberRange::atLeast(1));
    addNumber(*app, "--seed", o->seed, "Random seed (default 123); each family has its own stream");
    app->add_option("--family", o->families, "Sample only this family (repeatable)");
    app->add_flag(
        "--xml-per-family", o->xmlPerFamily,
        "One RecPhyloXML file per family (<family>_samples.xml) instead of AleRax's one per sample");
    app->add_flag(
        "--compact-xml", o->compactXml,
        "RecPhyloXML without indentation (default: indented unless a gene tree nests deeper than 64 levels)");
    addOutputOptions(*app, o->output);
    app->callback([o] {
        auto start = std::chrono::steady_clock::now();
        SamplingSettings settings;
        settings.samples = o->samples;
        settings.seed = o->seed;
        settings.solver = solverOptionsFrom(o->engine);
        settings.halveRootBranches = o->input.rooting == "UNIFORM";
        validateSampleCount(settings.samples); // before the (possibly long) loading
        const std::string& outdir = o->output.outdir;
        const bool writer = writesOutputs();
        if (writer)
            prepareOutputs(o->output, {"reconciliations", "highways/accepted_transfers", "result.json"});
        // A signal stops the run between families: those written stay, result.json lists them.
        const InterruptionHandlers handlers;
        LoadedInput in = loadOrExplain(o->input, o->engine.threads);
        const Dataset& data = *in.dataset;
        const SpeciesTree& species = data.species;
        std::vector<int> families = selectFamilies(in, o->families, o->input.minCoveredSpecies);
        RateParameters theta = fixedRunRates(o->rates, data);
        validateSampling(data, theta, settings);
        BackendChoice backend = backendFrom(o->engine, in.dataset);

        const std::string recDir = outdir + "/reconciliations";
        if (writer) prepareReconciliationFolder(recDir);
        const ReconciliationFileOptions fileOptions{o->xmlPerFamily,
                                                    o->compactXml ? XmlLayout::Compact : XmlLayout::Auto};
        std::vector<nlohmann::json> familyJson(data.families.size());
        // Families finish in any order: their summaries are added up in family order below, so the
        // totals have the same bits for any thread and process count (the first process writes
        // every family's files).
        std::vector<ReconciliationSummary> familySummary(data.families.size());
        std::vector<SolverStats> familyStats(data.families.size());
        const auto consume = [&](FamilySamples&& fs) {
            throwIfInterrupted(); // ends the loop; the families written so far are complete
            const std::string& name = data.families[fs.family].name;
            ReconciliationSummary summary =
                writeFamilyReconciliations(recDir, name, fs.reconciliations, species, fileOptions);
            const std::size_t sampleCount = fs.reconciliations.size();
            nlohmann::json j = summaryJson(summary, species);
            j["name"] = name;
            j["samples"] = sampleCount;
            j["ll_nats"] = fs.logLikelihood;
            familyJson[fs.family] = std::move(j);
            familySummary[fs.family] = std::move(summary);
            familyStats[fs.family] = fs.stats;
        };
        bool interrupted = false;
        try {
            outputSampling()(data, theta, families, settings, consume, *backend.backend);
        } catch (const Interrupted&) {
            interrupted = true;
        }
        if (!writer) { // the first process has every family's samples: it writes and reports them
            if (interrupted) throwIfInterrupted();
            return;
        }
        ReconciliationSummary total; // sized for the species even when a signal came before any family
        total.species.assign(species.size(), SpeciesCounts{});
        total.origination.assign(species.size(), 0.0);
        SolverStats stats;
        stats.setLimits(settings.solver);
        for (int f : families)
            if (!familyJson[f].is_null()) { // null: not sampled before an interruption
                addFamily(total, familySummary[f]);
                stats.add(familyStats[f]);
            }
        writeReconciliationTotals(recDir, total, species);
        if (!data.highways.empty()) { // AleRax's families taking each highway
            std::vector<std::string> names;
            std::vector<const TransferCounts*> perFamily;
            for (int f : families) {
                names.push_back(data.families[f].name);
                perFamily.push_back(familyJson[f].is_null() ? nullptr : &familySummary[f].transfers);
            }
            writeHighwayTransfers(outdir + "/highways/accepted_transfers", species, data.highways, names,
                                  perFamily);
        }

        nlohmann::json j;
        j["families"] = nlohmann::json::array();
        std::size_t sampled = 0;
        for (int f : families)
            if (!familyJson[f].is_null()) { // null: not sampled before an interruption
                j["families"].push_back(std::move(familyJson[f]));
                ++sampled;
            }
        j["interrupted"] = interrupted;
        j["solver_stats"] = {{"stopped_early", earlyStopsJson(stats)}};
        j["total"] = summaryJson(total, species);
        j["total"]["families"] = sampled;
        nlohmann::json rates = {{"D", o->rates.d}, {"L", o->rates.l}, {"T", o->rates.t}};
        if (!o->rates.ratesFile.empty()) rates = {{"rates_file", o->rates.ratesFile}};
        addRunDescription(j, o->input, in, backend.description, settings.solver);
        j["options"]["samples"] = settings.samples;
        j["options"]["seed"] = settings.seed;
        j["options"]["rates"] = rates;
        writeJson(outdir + "/result.json", j);
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("sampled %d reconciliations for each of %zu families (seed %llu) in %.2f s\n",
                    settings.samples, sampled, static_cast<unsigned long long>(settings.seed), seconds);
        printEarlyStops(stats);
        std::printf("wrote %s/reconciliations and %s/result.json\n", outdir.c_str(), outdir.c_str());
        if (interrupted) {
            std::fflush(stdout);
            std::cerr << "gpurec: interrupted by " << signalName(interruptSignal()) << " after " << sampled
                      << " of " << families.size() << " families; their files and result.json are complete\n";
            throwIfInterrupted();
        }
    });
}

} // namespace gpurec::cli
