// gpurec bench: times one evaluation (forward, and forward + gradient) of a dataset on a device and
// sets it against the memory-bandwidth floor of the dataset (docs/performance.md).
#include "cli_common.hpp"
#include "commands.hpp"

#include "engine/solver_report.hpp"
#include "io/result_writer.hpp"

#include <algorithm>
#include <cstdio>

namespace gpurec::cli {

namespace {

struct Timing {
    double median = 0, min = 0, max = 0;
    double peakBytes = 0, bytesMoved = 0;
    std::vector<double> samples;
    std::vector<std::pair<std::string, double>> phases; // device seconds per phase, last evaluation
    Evaluation last;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Cold evaluations (warm starts cleared): device time from CUDA events on the GPU, wall time on the CPU.
Timing timeEvaluations(LikelihoodBackend& backend, const RateParameters& theta, const SolverOptions& options,
                       bool withGradient, int warmup, int repeats) {
    Timing t;
    for (int i = 0; i < warmup + repeats; ++i) {
        backend.clearWarmStarts();
        t.last = backend.evaluate(theta, options, withGradient);
        double seconds = t.last.stats.seconds;
        if (const BackendDiagnostics* d = backend.diagnostics()) {
            const DeviceRunInfo info = d->lastRun();
            seconds = info.deviceSeconds;
            t.peakBytes = std::max(t.peakBytes, info.peakBytes);
            t.bytesMoved = info.tableBytesMoved;
            t.phases.clear();
            for (int p = 0; p < kEvaluationPhases; ++p)
                t.phases.emplace_back(toString(static_cast<EvaluationPhase>(p)), info.phaseSeconds[p]);
        }
        if (i >= warmup) t.samples.push_back(seconds);
    }
    t.median = median(t.samples);
    t.min = *std::min_element(t.samples.begin(), t.samples.end());
    t.max = *std::max_element(t.samples.begin(), t.samples.end());
    return t;
}

// Fewest table bytes an evaluation must move (docs/performance.md): forward writes Π and Π̄ of every
// clade once and reads every non-root clade's pair back once; the gradient writes and reads the
// adjoint once and reads Π and Π̄ once more.
double floorBytes(const Dataset& data, bool withGradient) {
    const double row = 8.0 * data.species.size();
    const double clades = static_cast<double>(data.cladeCount()),
                 families = static_cast<double>(data.families.size());
    const double forward = row * (2 * clades + 2 * (clades - families));
    return withGradient ? forward + row * 4 * clades : forward;
}

// One more cold forward+gradient evaluation with an event after every wave: per phase, the time in
// waves too small to fill the device and the slowest waves; every wave into the JSON.
void profileWaves(LikelihoodBackend& backend, const RateParameters& theta, const SolverOptions& options,
                  nlohmann::json& j) {
    BackendDiagnostics* device = backend.diagnostics();
    if (device == nullptr) {
        std::printf("\nwave profile: only on a CUDA device\n");
        return;
    }
    device->setWaveProfiling(true);
    backend.clearWarmStarts();
    backend.evaluate(theta, options, true);
    device->setWaveProfiling(false);
    const DeviceRunInfo info = device->lastRun();
    std::printf("\nwave profile (one forward+gradient evaluation, %d clades in flight):\n",
                info.cladesInFlight);
    for (const EvaluationPhase phase : {EvaluationPhase::Forward, EvaluationPhase::Adjoint}) {
        std::vector<DeviceRunInfo::WaveTime> waves;
        double total = 0, small = 0;
        int smallCount = 0;
        for (const DeviceRunInfo::WaveTime& w : info.waves) {
            if (w.phase != phase) continue;
            waves.push_back(w);
            total += w.seconds;
            if (w.clades < info.cladesInFlight) {
                small += w.seconds;
                ++smallCount;
            }
            j["wave_profile"][toString(phase)].push_back(
                {{"batch", w.batch}, {"wave", w.wave}, {"clades", w.clades}, {"seconds", w.seconds}});
        }
        std::sort(waves.begin(), waves.end(),
                  [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
        std::printf("  %s: %zu waves, %.4f s; %d waves below %d clades, %.4f s; slowest:", toString(phase),
                    waves.size(), total, smallCount, info.cladesInFlight, small);
        for (std::size_t k = 0; k < std::min<std::size_t>(5, waves.size()); ++k)
            std::printf(" wave %d of batch %d (%d clades) %.4f s%s", waves[k].wave, waves[k].batch,
                        waves[k].clades, waves[k].seconds,
                        k + 1 < std::min<std::size_t>(5, waves.size()) ? "," : "\n");
    }
}

} // namespace

void registerBench(CLI::App& root) {
    struct Options {
        InputOptions input;
        RateOptions rates;
        EngineOptions engine;
        std::string mode = "global", output = "gpurec_bench.json";
        int warmup = 1, repeats = 5;
        bool waveProfile = false;
    };
    auto o = std::make_shared<Options>();
    o->engine.device = "auto";
    CLI::App* app = root.add_subcommand("bench", "Time forward and forward+gradient evaluations on a device");
    addInputOptions(*app, o->input);
    addRateOptions(*app, o->rates, NumberRange::positive());
    addEngineOptions(*app, o->engine, true);
    app->add_option("--mode", o->mode, "Rate mode: global (default), specieswise or genewise")
        ->check(CLI::IsMember({"global", "specieswise", "genewise"}));
    addNumber(*app, "--warmup", o->warmup, "Untimed evaluations first (default 1)", NumberRange::atLeast(0));
    addNumber(*app, "--repeats", o->repeats, "Timed evaluations, median reported (default 5)",
              NumberRange::atLeast(1));
    app->add_option("-o,--output", o->output, "JSON file written (default gpurec_bench.json)");
    app->add_flag("--wave-profile", o->waveProfile,
                  "Then time every wave of one more forward+gradient evaluation (CUDA; not in the medians)");
    app->callback([o] {
        LoadedInput in = loadOrExplain(o->input, o->engine.threads);
        const Dataset& data = *in.dataset;
        SolverOptions solver = solverOptionsFrom(o->engine);
        RateParameters theta = initialRates(o->rates, data, parseRateMode(o->mode));
        BackendChoice backend = backendFrom(o->engine, in.dataset);
        const int species = data.species.size();
        std::printf("dataset: %d species nodes, %zu families, %lld clades, %lld splits\n", species,
                    data.families.size(), data.cladeCount(), data.splitCount());
        std::printf("device: %s; %s\n", backend.description.c_str(), backend.backend->planSummary().c_str());
        std::fflush(stdout);
        Timing forward = timeEvaluations(*backend.backend, theta, solver, false, o->warmup, o->repeats);
        Timing gradient = timeEvaluations(*backend.backend, theta, solver, true, o->warmup, o->repeats);
        BackendDiagnostics* diagnostics = backend.backend->diagnostics();
        const double bandwidth = diagnostics ? diagnostics->measureCopyBandwidth() : 0.0;

        nlohmann::json j;
        j["dataset"] = {{"species_tree", o->input.species}, {"families_file", o->input.families},
                        {"species_nodes", species},         {"families", data.families.size()},
                        {"clades", data.cladeCount()},      {"splits", data.splitCount()}};
        j["device"] = backend.description;
        j["plan"] = backend.backend->planSummary();
        j["mode"] = o->mode;
        j["schedule"] = toString(solver.schedule);
        j["copy_bandwidth_bytes_per_s"] = bandwidth;
        std::printf("\n| phase | median s | min s | max s | peak GB | table GB moved | floor GB | floor s | "
                    "floor/measured |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (const auto& [name, t, grad] :
             {std::tuple{"forward", &forward, false}, {"forward+gradient", &gradient, true}}) {
            const double floor = floorBytes(data, grad);
            const double floorSeconds = bandwidth > 0 ? floor / bandwidth : 0;
            std::printf("| %s | %.4f | %.4f | %.4f | %.2f | %.1f | %.1f | %.4f | %.1f%% |\n", name, t->median,
                        t->min, t->max, t->peakBytes / 1e9, t->bytesMoved / 1e9, floor / 1e9, floorSeconds,
                        floorSeconds > 0 ? 100 * floorSeconds / t->median : 0.0);
            j[name] = {{"median_seconds", t->median},
                       {"min_seconds", t->min},
                       {"max_seconds", t->max},
                       {"samples_seconds", t->samples},
                       {"peak_device_bytes", t->peakBytes},
                       {"table_bytes_moved", t->bytesMoved},
                       {"floor_bytes", floor},
                       {"floor_seconds", floorSeconds},
                       {"floor_fraction", floorSeconds > 0 ? floorSeconds / t->median : 0.0},
                       {"total_nll_bits", t->last.totalNllBits},
                       {"solver_stats", solverStatsJson(t->last.stats)}};
            for (const auto& [phase, seconds] : t->phases)
                j[name]["phase_seconds"][phase] = seconds;
        }
        for (const auto& [name, t] : {std::pair{"forward", &forward}, {"forward+gradient", &gradient}}) {
            if (t->phases.empty()) continue;
            std::printf("%s%s phases (last run):", name == std::string("forward") ? "\n" : "", name);
            for (const auto& [phase, seconds] : t->phases)
                std::printf(" %s %.4f s", phase.c_str(), seconds);
            std::printf("\n");
        }
        if (o->waveProfile) profileWaves(*backend.backend, theta, solver, j);
        std::printf(
            "\ntotal NLL %.10f bits; self-loop iterations %ld (max %d per clade); BiCGSTAB iterations %ld\n",
            gradient.last.totalNllBits, gradient.last.stats.piIterations, gradient.last.stats.maxPiIterations,
            gradient.last.stats.bicgstabIterations);
        writeJson(o->output, j);
        std::printf("wrote %s\n", o->output.c_str());
    });
}

} // namespace gpurec::cli
