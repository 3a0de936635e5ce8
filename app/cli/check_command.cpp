// gpurec check: the CUDA backend against the CPU reference on every reference dataset, the bundled
// samples and freshly simulated families, in every rate mode, with poisoned device buffers.
#include "cli_common.hpp"
#include "commands.hpp"

#include "check/backend_comparison.hpp"
#include "io/result_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>

namespace gpurec::cli {

namespace {

// NaN-fill the device buffers before each evaluation (backends that can), so unwritten entries show.
void poisonOutputs(LikelihoodBackend& backend) {
    if (BackendDiagnostics* d = backend.diagnostics()) d->setPoisonOutputs(true);
}

std::string scientific(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1e", v);
    return text;
}

void printTable(const std::vector<ComparisonRow>& rows) {
    std::printf("\n| dataset | families | clades | mode | schedule | NLL rel. error | gradient rel. error | "
                "unwritten | "
                "split plan | result |\n|---|---:|---:|---|---|---:|---:|---:|---|---|\n");
    for (const ComparisonRow& r : rows)
        std::printf("| %s | %d | %lld | %s | %s | %s | %s | %lld | %s | %s |\n", r.dataset.c_str(),
                    r.families, r.clades, r.mode.c_str(), r.schedule.c_str(),
                    scientific(r.likelihoodError).c_str(), scientific(r.gradientError).c_str(), r.unwritten,
                    r.batches.c_str(), r.passed ? "pass" : "FAIL");
}

} // namespace

void registerCheck(CLI::App& root) {
    struct Options {
        std::string data = "../shared/data", samples = "samples", device = "auto", memoryLimit, json;
        int simulatedFamilies = 60;
        std::uint64_t seed = 1;
        int threads = 0;
    };
    auto o = std::make_shared<Options>();
    CLI::App* app =
        root.add_subcommand("check", "Compare the CUDA backend with the CPU reference (NLL and gradients)");
    app->add_option("--data", o->data, "Reference datasets folder (default ../shared/data)");
    app->add_option("--samples", o->samples, "Bundled samples folder (default samples)");
    app->add_option("--device", o->device, "auto (default: check when a GPU is present), cuda or cuda:N");
    app->add_option("--gpu-memory-limit", o->memoryLimit, "Device memory budget, e.g. 20GB");
    addNumber(*app, "--simulated-families", o->simulatedFamilies,
              "Freshly simulated families (default 60; 0: none)", NumberRange::atLeast(0));
    addNumber(*app, "--seed", o->seed, "Seed of the simulated families and random rates (default 1)");
    addNumber(*app, "--threads", o->threads, "CPU threads of the reference (default: all cores)",
              NumberRange::atLeast(0));
    app->add_option("--json", o->json, "Also write the table as JSON to this file");
    app->callback([o] {
        if (o->device != "auto" && o->device.rfind("cuda", 0) != 0)
            throw std::invalid_argument(
                "check compares a GPU with the CPU: --device must be auto, cuda or cuda:N");
        const bool explicitGpu = o->device != "auto";
        std::vector<std::string> devices = availableDevices();
        if (devices.size() < 2) {
            const std::string why = deviceBackendKinds().empty() ? "this build has no CUDA backend"
                                                                 : "no usable CUDA device found";
            if (explicitGpu) throw std::runtime_error(why + ": cannot check " + o->device);
            std::printf("%s: nothing to check (use --device cuda to make this an error)\n", why.c_str());
            return;
        }
        const std::string device = o->device == "auto" ? "cuda" : o->device;
        BatchLimits limits;
        if (!o->memoryLimit.empty()) limits.memoryBytes = parseByteSize(o->memoryLimit);

        std::vector<ComparisonDataset> datasets = referenceDatasets(o->data, o->samples);
        if (datasets.empty()) std::printf("no reference dataset under %s\n", o->data.c_str());
        const std::string simFolder =
            (std::filesystem::temp_directory_path() / ("gpurec_check_" + std::to_string(o->seed))).string();
        if (o->simulatedFamilies > 0)
            for (const ComparisonDataset& d : simulatedDatasets(o->simulatedFamilies, o->seed, simFolder))
                datasets.push_back(d);

        std::vector<ComparisonRow> rows;
        std::mt19937_64 rng(o->seed);
        bool allPassed = true;
        for (const ComparisonDataset& d : datasets) {
            InputOptions input;
            input.species = d.speciesTree;
            input.families = d.families;
            input.minCoveredSpecies = d.minCoveredSpecies;
            input.transferConstraint = d.transferConstraint;
            input.origination = d.origination;
            input.fractionMissingFile = d.fractionMissingFile;
            input.recModel = toString(d.events.recModel);
            input.noDup = d.events.noDup;
            input.noDl = d.events.noDl;
            input.noTl = d.events.noTl;
            input.gammaCategories = d.speciationCategories;
            input.highwaysFile = d.highwaysFile;
            input.pairwiseTransfers = d.events.pairwiseTransfers;
            input.pruneSpeciesTree = d.pruneSpeciesTree;
            LoadedInput in = loadOrExplain(input, o->threads);
            std::shared_ptr<const Dataset> data = in.dataset;
            BackendChoice gpu = selectBackend(device, data, limits);
            poisonOutputs(*gpu.backend);
            std::unique_ptr<LikelihoodBackend> cpu = selectBackend("cpu", data, {}).backend;
            for (const ComparisonCase& c : comparisonCases()) {
                SolverOptions options;
                options.schedule = c.schedule;
                options.threads = o->threads;
                const std::optional<RateParameters> theta = randomParameters(d, c, *data, rng);
                if (!theta) continue;
                ComparisonRow row =
                    compareBackends(*cpu, *gpu.backend, *data, d.name, c, *theta, options, limits);
                allPassed = allPassed && row.passed;
                rows.push_back(row);
                std::printf("%-40s %-12s %-9s NLL %s grad %s %s\n", d.name.c_str(), row.mode.c_str(),
                            row.schedule.c_str(), scientific(row.likelihoodError).c_str(),
                            scientific(row.gradientError).c_str(), row.passed ? "pass" : "FAIL");
                std::fflush(stdout);
            }
        }
        if (o->simulatedFamilies > 0) std::filesystem::remove_all(simFolder);
        std::printf("\n%s vs cpu reference; tolerances: NLL %.0e, gradient %.0e (relative)\n",
                    availableDevices()[1].c_str(), kLikelihoodTolerance, kGradientTolerance);
        printTable(rows);
        if (!o->json.empty()) {
            nlohmann::json j = nlohmann::json::array();
            for (const ComparisonRow& r : rows)
                j.push_back({{"dataset", r.dataset},
                             {"families", r.families},
                             {"clades", r.clades},
                             {"mode", r.mode},
                             {"schedule", r.schedule},
                             {"nll_relative_error", r.likelihoodError},
                             {"gradient_relative_error", r.gradientError},
                             {"unwritten_entries", r.unwritten},
                             {"split_plan", r.batches},
                             {"passed", r.passed}});
            writeJson(o->json, j);
        }
        if (!allPassed) throw std::runtime_error("the GPU does not match the CPU reference (see the table)");
        std::printf("\nall %zu comparisons passed\n", rows.size());
    });
}

} // namespace gpurec::cli
