// gpurec check: the CUDA backend against the CPU reference on every reference dataset, the bundled
// samples and freshly simulated families, in every rate mode, with poisoned device buffers.
#include "cli_common.hpp"
#include "commands.hpp"

#include "engine/relative_error.hpp"
#include "io/result_writer.hpp"
#include "sim/simulation.hpp"

#ifdef GPUREC_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>

namespace gpurec::cli {

namespace {

constexpr double kLikelihoodTolerance = 1e-10;
constexpr double kGradientTolerance = 1e-8;

struct CheckDataset {
    std::string name, speciesTree, families;
    int minCoveredSpecies = 4;
    std::string transferConstraint = "PARENTS";
};

struct CheckRow {
    std::string dataset, mode, schedule;
    int families = 0;
    long long clades = 0;
    double likelihoodError = 0, gradientError = 0;
    long long unwritten = 0;
    std::string batches = "-"; // "same" when a split plan reproduced the one-batch results bit for bit
    bool passed = false;
};

std::vector<CheckDataset> referenceDatasets(const std::string& dataRoot, const std::string& samplesRoot) {
    namespace fs = std::filesystem;
    std::vector<CheckDataset> out;
    auto add = [&](const std::string& name, const fs::path& folder, const std::string& species,
                   int minCovered) {
        if (fs::exists(folder / species) && fs::exists(folder / "families.txt"))
            out.push_back(
                {name, (folder / species).string(), (folder / "families.txt").string(), minCovered});
    };
    const fs::path data(dataRoot);
    add("tiny", data / "tiny", "species.nwk", 3);
    if (fs::is_directory(data / "alerax")) {
        std::vector<fs::path> sets;
        for (const auto& entry : fs::directory_iterator(data / "alerax"))
            sets.push_back(entry.path());
        std::sort(sets.begin(), sets.end());
        for (const fs::path& p : sets)
            add("alerax/" + p.filename().string(), p, "sp.nwk", 4);
    }
    add("primates", data / "primates", "species.nwk", 4);
    add("simulated_2", data / "simulated_2", "species.nwk", 4);
    if (fs::is_directory(samplesRoot)) {
        std::vector<fs::path> samples;
        for (const auto& entry : fs::directory_iterator(samplesRoot))
            if (entry.is_directory()) samples.push_back(entry.path());
        std::sort(samples.begin(), samples.end());
        for (const fs::path& p : samples)
            add("samples/" + p.filename().string(), p, "species.nwk", 4);
    }
    return out;
}

// Families simulated under the model with rates drawn per family and species, with tree samples.
CheckDataset simulatedDataset(int families, std::uint64_t seed, const std::string& folder) {
    SimulationOptions o;
    o.birthDeath = {24, 1.0, 0.2, 1000};
    o.families = families;
    o.rates = {0.08, 0.12, 0.08};
    o.speciesRateSpread = 2.0;
    o.familyRateSpread = 2.0;
    o.limits.minCoveredSpecies = 4;
    o.treeSamples = 8;
    o.perturbation.rate = 0.15;
    o.seed = seed;
    SimulationSummary s = runSimulation(o, folder);
    return {"simulated (" + std::to_string(families) + " families, seed " + std::to_string(seed) + ")",
            s.speciesTreeFile, s.familiesFile, 4};
}

RateParameters randomRates(RateMode mode, const Dataset& data, std::mt19937_64& rng) {
    RateParameters theta(mode, data.species.size(), static_cast<int>(data.families.size()), {0.1, 0.1, 0.1});
    std::uniform_real_distribution<double> logRate(std::log2(0.005), std::log2(0.5));
    for (double& t : theta.theta())
        t = logRate(rng);
    return theta;
}

// NaN-fill the device buffers before each evaluation (CUDA builds), so unwritten entries show.
void poisonOutputs(LikelihoodBackend& backend) {
#ifdef GPUREC_HAVE_CUDA
    if (auto* cuda = dynamic_cast<CudaBackendControls*>(&backend)) cuda->setPoisonOutputs(true);
#else
    (void)backend;
#endif
}

// Table entries the last evaluation left at their poison value.
long long unwrittenEntries(const LikelihoodBackend& backend) {
#ifdef GPUREC_HAVE_CUDA
    if (auto* cuda = dynamic_cast<const CudaBackendControls*>(&backend))
        return std::max(0LL, cuda->lastRun().unwrittenEntries);
#else
    (void)backend;
#endif
    return 0;
}

std::string scientific(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1e", v);
    return text;
}

void printTable(const std::vector<CheckRow>& rows) {
    std::printf("\n| dataset | families | clades | mode | schedule | NLL rel. error | gradient rel. error | "
                "unwritten | "
                "split plan | result |\n|---|---:|---:|---|---|---:|---:|---:|---|---|\n");
    for (const CheckRow& r : rows)
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
            const std::string why =
                cudaBackendCompiled() ? "no usable CUDA device found" : "this build has no CUDA backend";
            if (explicitGpu) throw std::runtime_error(why + ": cannot check " + o->device);
            std::printf("%s: nothing to check (use --device cuda to make this an error)\n", why.c_str());
            return;
        }
        const std::string device = o->device == "auto" ? "cuda" : o->device;
        BatchLimits limits;
        if (!o->memoryLimit.empty()) limits.memoryBytes = parseByteSize(o->memoryLimit);

        std::vector<CheckDataset> datasets = referenceDatasets(o->data, o->samples);
        if (datasets.empty()) std::printf("no reference dataset under %s\n", o->data.c_str());
        const std::string simFolder =
            (std::filesystem::temp_directory_path() / ("gpurec_check_" + std::to_string(o->seed))).string();
        if (o->simulatedFamilies > 0) {
            datasets.push_back(simulatedDataset(o->simulatedFamilies, o->seed, simFolder));
            // The NONE constraint takes the GPU's iterated self loop instead of the direct solve.
            CheckDataset none = datasets.back();
            none.name += ", NONE";
            none.transferConstraint = "NONE";
            datasets.push_back(none);
        }

        std::vector<CheckRow> rows;
        std::mt19937_64 rng(o->seed);
        bool allPassed = true;
        for (const CheckDataset& d : datasets) {
            InputOptions input;
            input.species = d.speciesTree;
            input.families = d.families;
            input.minCoveredSpecies = d.minCoveredSpecies;
            input.transferConstraint = d.transferConstraint;
            LoadedInput in = loadOrExplain(input, o->threads);
            std::shared_ptr<const Dataset> data = in.dataset;
            BackendChoice gpu = selectBackend(device, data, limits);
            poisonOutputs(*gpu.backend);
            std::unique_ptr<LikelihoodBackend> cpu = makeCpuBackend(data);
            struct Case {
                RateMode mode;
                Schedule schedule;
            };
            const Case cases[] = {{RateMode::Global, Schedule::Converged},
                                  {RateMode::Specieswise, Schedule::Converged},
                                  {RateMode::Genewise, Schedule::Converged},
                                  {RateMode::Global, Schedule::AleRax}};
            for (const Case& c : cases) {
                SolverOptions options;
                options.schedule = c.schedule;
                options.threads = o->threads;
                RateParameters theta = randomRates(c.mode, *data, rng);
                CheckRow row;
                row.dataset = d.name;
                row.mode = toString(c.mode);
                row.schedule = toString(c.schedule);
                row.families = static_cast<int>(data->families.size());
                row.clades = data->cladeCount();
                cpu->clearWarmStarts();
                gpu.backend->clearWarmStarts();
                Evaluation ref = cpu->evaluate(theta, options, true);
                Evaluation forward = gpu.backend->evaluate(theta, options, false);
                long long unwritten = unwrittenEntries(*gpu.backend);
                Evaluation full = gpu.backend->evaluate(theta, options, true);
                unwritten += unwrittenEntries(*gpu.backend);
                row.likelihoodError = std::max(worstRelativeError(forward.logLikelihood, ref.logLikelihood),
                                               worstRelativeError(full.logLikelihood, ref.logLikelihood));
                row.gradientError = worstRelativeError(full.gradient, ref.gradient);
                row.unwritten = unwritten;
                if (data->families.size() >= 3) {
                    // The same evaluation under a plan of about three batches must give identical bits.
                    BatchLimits split = limits;
                    split.maxFamiliesPerBatch = static_cast<int>((data->families.size() + 2) / 3);
                    gpu.backend->replan(split);
                    Evaluation again = gpu.backend->evaluate(theta, options, true);
                    gpu.backend->replan(limits);
                    row.batches = again.logLikelihood == full.logLikelihood && again.gradient == full.gradient
                                      ? "same"
                                      : "DIFFERENT";
                }
                row.passed = row.likelihoodError <= kLikelihoodTolerance &&
                             row.gradientError <= kGradientTolerance && row.unwritten == 0 &&
                             row.batches != "DIFFERENT";
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
            for (const CheckRow& r : rows)
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
