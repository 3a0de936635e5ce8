// The backend conformance suite: every backend of one kind that this build and machine have
// ("cpu", or each CUDA device) against the CPU reference, on every dataset, rate mode and schedule
// of `gpurec check` (check/backend_comparison.hpp), with poisoned outputs, split batch plans and
// injected out-of-memory re-planning where the backend has diagnostics; then the tables the
// sampler and the workbench read (LikelihoodBackend::familyTables) and reconciliations sampled from
// them with the same seed. Plain C++ with its own few assertions, so that the `device` preset builds
// it on the GPU machine, which has no Qt.
//   backend_conformance <cpu|cuda> [simulated families]   exit 0: pass, 1: fail, 77: no such device
#include "check/backend_comparison.hpp"
#include "data/load.hpp"
#include "data/origination.hpp"
#include "engine/backend_factory.hpp"
#include "recon/recon_newick.hpp"
#include "recon/sampling_run.hpp"
#include "species_search/candidate_scorer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gpurec;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
    if (ok) return;
    ++failures;
    std::printf("FAIL: %s\n", what.c_str());
}

std::string pathOr(const char* variable, const char* builtIn) {
    const char* moved = std::getenv(variable);
    return moved && *moved ? moved : builtIn;
}

// Worst relative difference of Π (mantissa · 2^scale) and of Π̄ over the rows of one family.
double worstTableError(const CladeTables& a, const CladeTables& ref) {
    if (a.clades != ref.clades || a.species != ref.species || a.pi.size() != ref.pi.size()) return NAN;
    std::vector<double> x, y;
    for (int c = 0; c < ref.clades; ++c)
        for (int e = 0; e < ref.species; ++e) {
            x.push_back(std::ldexp(a.piRow(c)[e], a.scale[c]));
            y.push_back(std::ldexp(ref.piRow(c)[e], ref.scale[c]));
            x.push_back(std::ldexp(a.pibarRow(c)[e], a.scale[c]));
            y.push_back(std::ldexp(ref.pibarRow(c)[e], ref.scale[c]));
        }
    return worstRelativeError(x, y);
}

// Reconciliations of `families` sampled from `backend`'s tables, as AleRax-style Newick lines.
std::vector<std::string> sampled(LikelihoodBackend& backend, const Dataset& data, const RateParameters& theta,
                                 const std::vector<int>& families) {
    SamplingSettings settings;
    settings.samples = 20;
    settings.seed = 3;
    std::vector<std::vector<std::string>> lines(data.families.size());
    sampleFamilies(
        data, theta, families, settings,
        [&](FamilySamples&& fs) {
            for (const Reconciliation& r : fs.reconciliations)
                lines[fs.family].push_back(toAleNewick(r, data.species));
        },
        backendTables(backend, theta, settings));
    std::vector<std::string> out;
    for (int f : families)
        out.insert(out.end(), lines[f].begin(), lines[f].end());
    return out;
}

void checkTablesAndSampling(LikelihoodBackend& reference, LikelihoodBackend& candidate, const Dataset& data,
                            const std::string& name) {
    const SolverOptions options;
    // Rates inside the sampler's bounds (and the highways', which it draws as transfers); every
    // family, so a split plan serves several batches.
    RateParameters theta(RateMode::Specieswise, data.species.size(), static_cast<int>(data.families.size()),
                         {0.05, 0.1, 0.05});
    if (!data.highways.empty()) theta.addHighways(static_cast<int>(data.highways.size()), 0.02);
    std::vector<int> families;
    for (int f = static_cast<int>(data.families.size()) - 1; f >= 0; --f)
        families.push_back(f); // reversed: the tables come back in the order asked for
    const std::vector<FamilyTables> ref = reference.familyTables(theta, options, families);
    const std::vector<FamilyTables> got = candidate.familyTables(theta, options, families);
    expect(got.size() == families.size(), name + ": one table set per family asked for");
    double worstPi = 0, worstE = 0;
    for (std::size_t i = 0; i < got.size() && i < ref.size(); ++i) {
        const double t = worstTableError(got[i].clades, ref[i].clades);
        const double e =
            std::max({worstRelativeError(got[i].E, ref[i].E), worstRelativeError(got[i].Ebar, ref[i].Ebar),
                      worstRelativeError(got[i].p.pH, ref[i].p.pH)});
        if (!(t <= worstPi)) worstPi = t;
        if (!(e <= worstE)) worstE = e;
    }
    expect(worstPi <= kLikelihoodTolerance, name + ": Π and Π̄ tables within " +
                                                std::to_string(kLikelihoodTolerance) + " (worst " +
                                                std::to_string(worstPi) + ")");
    expect(worstE <= kLikelihoodTolerance,
           name + ": E, Ē and the highways' probabilities within tolerance (worst " + std::to_string(worstE) +
               ")");
    // Asked again at the same rates (a sampling run's next group), alone or after an evaluation
    // there, a family gets the same tables bit for bit (the CUDA backend reads them again).
    const auto same = [](const FamilyTables& a, const FamilyTables& b) {
        return a.clades.pi == b.clades.pi && a.clades.pibar == b.clades.pibar &&
               a.clades.scale == b.clades.scale && a.E == b.E && a.Ebar == b.Ebar;
    };
    const std::vector<FamilyTables> again = candidate.familyTables(theta, options, {families.front()});
    expect(!again.empty() && !got.empty() && same(again.front(), got.front()),
           name + ": the same tables when asked again at the same rates");
    candidate.evaluate(theta, options, false);
    const std::vector<FamilyTables> afterEvaluation =
        candidate.familyTables(theta, options, {families.back()});
    expect(!afterEvaluation.empty() &&
               worstTableError(afterEvaluation.front().clades, ref.back().clades) <= kLikelihoodTolerance,
           name + ": tables after an evaluation at the same rates");
    // Draws compare uniform numbers with shares of Π: tables equal to ~1e-13 give the same draws
    // unless a number falls within that distance of a boundary (about 1e-13 per draw).
    expect(sampled(candidate, data, theta, families) == sampled(reference, data, theta, families),
           name + ": the same reconciliations for the same seed");
}

// Families no longer needed (setNeededFamilies, genewise rates): the needed ones' log-likelihoods
// and gradient rows are those of an evaluation of every family bit for bit, the others NaN and 0;
// the tables of a family left out are still the reference's, and with every family needed again
// the evaluation is the first one.
void checkNeededFamilies(LikelihoodBackend& reference, LikelihoodBackend& candidate, const Dataset& data,
                         const std::string& name, std::mt19937_64& rng) {
    const int F = static_cast<int>(data.families.size());
    if (F < 3) return;
    const RateParameters theta = randomRates(RateMode::Genewise, data, rng);
    const SolverOptions options;
    auto fresh = [&] {
        candidate.clearWarmStarts();
        return candidate.evaluate(theta, options, true);
    };
    const Evaluation all = fresh();
    std::vector<char> needed(F, 0);
    for (int f = 1; f < F; f += 3)
        needed[f] = 1;
    if (!candidate.setNeededFamilies(needed)) return;
    const Evaluation some = fresh();
    bool same = true, leftOut = true;
    double total = 0;
    for (int f = 0; f < F; ++f) {
        const bool kept = needed[f] != 0;
        if (kept) {
            same = same && some.logLikelihood[f] == all.logLikelihood[f];
            total += all.logLikelihood[f];
        } else {
            leftOut = leftOut && std::isnan(some.logLikelihood[f]);
        }
        for (int k = 0; k < 3; ++k) {
            const int i = theta.entry(f, 0, k);
            if (kept)
                same = same && some.gradient[i] == all.gradient[i];
            else
                leftOut = leftOut && some.gradient[i] == 0.0;
        }
    }
    expect(same, name + ": the needed families' results bit for bit as when every family is solved");
    expect(leftOut, name + ": the families left out have NaN log-likelihoods and zero gradient rows");
    expect(std::abs(some.totalLogLikelihood - total) <= 1e-12 * std::abs(total),
           name + ": the total is the needed families'");
    const int out = 0; // a family left out
    const std::vector<FamilyTables> ref = reference.familyTables(theta, options, {out});
    const std::vector<FamilyTables> got = candidate.familyTables(theta, options, {out});
    expect(got.size() == 1 && worstTableError(got.front().clades, ref.front().clades) <= kLikelihoodTolerance,
           name + ": the tables of a family left out while it was");
    candidate.setNeededFamilies({});
    const Evaluation again = fresh();
    expect(again.logLikelihood == all.logLikelihood && again.gradient == all.gradient,
           name + ": every family again once every family is needed");
}

// Families not needed by an evaluation without a gradient at shared rates (the species-tree
// search's screens): the needed ones' log-likelihoods are those of an evaluation of every family
// bit for bit, the others NaN; a gradient at these rates still sums over every family.
void checkNeededFamiliesForward(LikelihoodBackend& candidate, const Dataset& data, const std::string& name,
                                std::mt19937_64& rng) {
    const int F = static_cast<int>(data.families.size());
    if (F < 3) return;
    const RateParameters theta = randomRates(RateMode::Global, data, rng);
    const SolverOptions options;
    auto fresh = [&](bool withGradient) {
        candidate.clearWarmStarts();
        return candidate.evaluate(theta, options, withGradient);
    };
    const Evaluation all = fresh(false), allGradient = fresh(true);
    std::vector<char> needed(F, 0);
    for (int f = 2; f < F; f += 3)
        needed[f] = 1;
    if (!candidate.setNeededFamilies(needed)) return;
    const Evaluation some = fresh(false);
    bool same = true, leftOut = true;
    double total = 0;
    for (int f = 0; f < F; ++f)
        if (needed[f]) {
            same = same && some.logLikelihood[f] == all.logLikelihood[f];
            total += all.logLikelihood[f];
        } else {
            leftOut = leftOut && std::isnan(some.logLikelihood[f]);
        }
    expect(same, name + ": forward at shared rates, the needed families bit for bit as with every family");
    expect(leftOut, name + ": forward at shared rates, the families left out NaN");
    expect(std::abs(some.totalLogLikelihood - total) <= 1e-12 * std::abs(total),
           name + ": forward at shared rates, the total is the needed families'");
    const Evaluation gradient = fresh(true);
    expect(gradient.logLikelihood == allGradient.logLikelihood && gradient.gradient == allGradient.gradient,
           name + ": a shared gradient solves every family whatever is needed");
    candidate.setNeededFamilies({});
    expect(fresh(false).logLikelihood == all.logLikelihood,
           name + ": every family again once every family is needed");
}

// A shortage met while allocating the batch buffers re-plans with a smaller budget; the results
// stay those of the CPU reference.
void checkOutOfMemoryReplanning(LikelihoodBackend& reference, LikelihoodBackend& candidate,
                                const Dataset& data, const std::string& name, std::mt19937_64& rng) {
    BackendDiagnostics* d = candidate.diagnostics();
    if (d == nullptr || data.families.size() < 2) return;
    const ComparisonCase c{RateMode::Genewise, Schedule::Converged};
    const RateParameters theta = randomRates(c.mode, data, rng);
    candidate.evaluate(theta, SolverOptions{}, false);
    const double budget = d->lastRun().budgetBytes;
    d->failNextAllocations(2);
    candidate.replan(BatchLimits{});
    candidate.evaluate(theta, SolverOptions{}, false);
    expect(d->lastRun().budgetBytes < budget, name + ": re-planned within a smaller budget");
    // compareBackends evaluates under this plan first (then under a split plan and the default one).
    const ComparisonRow row =
        compareBackends(reference, candidate, data, name, c, theta, SolverOptions{}, BatchLimits{});
    expect(row.passed, name + ": results after out-of-memory re-planning");
}

// A backend moved onto another species tree (an SPR and a new root, as a search's candidate) gives
// a fresh CPU backend's results there, and again once moved back; a dataset with other families is
// refused.
void checkSpeciesTreeMoves(LikelihoodBackend& candidate, const std::shared_ptr<const Dataset>& data,
                           const std::string& name, std::mt19937_64& rng) {
    const CandidateScorer scorer(
        data, [](std::shared_ptr<const Dataset>) -> std::unique_ptr<LikelihoodBackend> { return nullptr; },
        SolverOptions{});
    // Rearranged from an undated copy (a RELDATED dataset's own topology keeps its ranks and cannot
    // be): under RELDATED the moved tree is dated by its depths, as good a tree as any to move onto.
    SpeciesTopology moved =
        SpeciesTopology::fromSpeciesTree(data->species, scorer.loadedTopology().leafNames());
    for (int p = 0; p < moved.nodeCount(); ++p)
        if (const std::vector<int> regrafts = moved.sprRegrafts(p, 3); !regrafts.empty()) {
            moved.applySpr(p, regrafts.back());
            break;
        }
    moved.rerootAbove(0);
    expect(moved.canonicalNewick() != scorer.loadedTopology().canonicalNewick(),
           name + ": the moved species tree differs");
    const ComparisonCase c{RateMode::Genewise, Schedule::Converged};
    const RateParameters theta = randomRates(c.mode, *data, rng);
    for (const std::shared_ptr<const Dataset>& on :
         {scorer.datasetOn(moved), scorer.datasetOn(scorer.loadedTopology())}) {
        candidate.setSpeciesTree(on);
        const std::unique_ptr<LikelihoodBackend> fresh = makeCpuBackend(on);
        const ComparisonRow row =
            compareBackends(*fresh, candidate, *on, name, c, theta, SolverOptions{}, BatchLimits{});
        expect(row.passed, name + ": results after moving onto another species tree");
    }
    auto fewer = std::make_shared<Dataset>(*data);
    fewer->families.pop_back();
    bool refused = false;
    try {
        candidate.setSpeciesTree(fewer);
    } catch (const std::invalid_argument&) {
        refused = true;
    }
    expect(refused, name + ": moving onto other families is refused");
}

LoadedInput load(const ComparisonDataset& d) {
    InputPaths paths;
    paths.speciesTree = d.speciesTree;
    paths.familiesFile = d.families;
    paths.fractionMissingFile = d.fractionMissingFile;
    paths.highwaysFile = d.highwaysFile;
    LoadOptions lo;
    lo.minCoveredSpecies = d.minCoveredSpecies;
    lo.origination = parseOrigination(d.origination);
    lo.events = d.events;
    lo.speciationCategories = d.speciationCategories;
    lo.pruneSpeciesTree = d.pruneSpeciesTree;
    return loadInput(paths, parseTransferConstraint(d.transferConstraint), lo);
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: backend_conformance <cpu|cuda> [simulated families] [most clades]\n");
        return 2;
    }
    const std::string kind = argv[1];
    const int simulated = argc > 2 ? std::atoi(argv[2]) : 60;
    // Under the sanitizers the whole list takes 39 min on CI's two cores: there the larger
    // datasets are left out (every code path still runs on the smaller ones).
    const long long mostClades = argc > 3 ? std::atoll(argv[3]) : 0;
    std::vector<std::string> devices;
    for (const std::string& name : availableDeviceNames())
        if (name == kind || name.rfind(kind + ":", 0) == 0) devices.push_back(name);
    if (devices.empty()) {
        std::printf("no %s device in this build or on this machine: skipped\n", kind.c_str());
        return 77;
    }
    const std::string data = pathOr("GPUREC_TEST_SHARED_DATA", GPUREC_SHARED_DATA);
    const std::string samples = pathOr("GPUREC_TEST_SOURCE_DIR", GPUREC_SOURCE_DIR) + "/samples";
    std::vector<ComparisonDataset> datasets = referenceDatasets(data, samples);
    expect(!datasets.empty(), "reference datasets under " + data);
    const std::string folder =
        (std::filesystem::temp_directory_path() / ("gpurec_conformance_" + kind)).string();
    if (simulated > 0)
        for (const ComparisonDataset& d : simulatedDatasets(simulated, 1, folder))
            datasets.push_back(d);

    std::mt19937_64 rng(1);
    int rows = 0;
    for (const std::string& device : devices)
        for (const ComparisonDataset& d : datasets) {
            const LoadedInput in = load(d);
            const std::shared_ptr<const Dataset> set = in.dataset;
            if (mostClades > 0 && set->cladeCount() > mostClades) {
                std::printf("%s: %lld clades, more than %lld: left out\n", d.name.c_str(), set->cladeCount(),
                            mostClades);
                continue;
            }
            BackendChoice candidate = selectBackend(device, set, BatchLimits{});
            if (BackendDiagnostics* diag = candidate.backend->diagnostics()) diag->setPoisonOutputs(true);
            const std::unique_ptr<LikelihoodBackend> reference = selectBackend("cpu", set, {}).backend;
            const std::string name = device + " " + d.name;
            for (const ComparisonCase& c : comparisonCases()) {
                SolverOptions options;
                const std::optional<RateParameters> theta = randomParameters(d, c, *set, rng);
                if (!theta) continue;
                options.schedule = c.schedule;
                const ComparisonRow row = compareBackends(*reference, *candidate.backend, *set, d.name, c,
                                                          *theta, options, BatchLimits{});
                ++rows;
                char line[256];
                std::snprintf(line, sizeof line,
                              "%s %s %s: NLL %.1e, gradient %.1e, unwritten %lld, split plan %s",
                              name.c_str(), row.mode.c_str(), row.schedule.c_str(), row.likelihoodError,
                              row.gradientError, row.unwritten, row.batches.c_str());
                std::printf("%s\n", line);
                expect(row.passed, line);
            }
            if (BackendDiagnostics* diag = candidate.backend->diagnostics()) diag->setPoisonOutputs(false);
            // The checks below take plain rates; the tables and draws take highway rates too.
            const bool highwaysOnly = !set->highways.empty() && d.origination != "OPTIMIZE" &&
                                      d.speciationCategories == 1 && d.classFile.empty();
            if (!d.extendedParameters() || highwaysOnly)
                checkTablesAndSampling(*reference, *candidate.backend, *set, name);
            if (d.extendedParameters()) continue;
            checkOutOfMemoryReplanning(*reference, *candidate.backend, *set, name, rng);
            checkNeededFamilies(*reference, *candidate.backend, *set, name, rng);
            checkNeededFamiliesForward(*candidate.backend, *set, name, rng);
            if (set->species.leafCount() >= 4) checkSpeciesTreeMoves(*candidate.backend, set, name, rng);
        }
    std::printf("%d comparisons on %zu device(s): %d failure(s)\n", rows, devices.size(), failures);
    return failures == 0 ? 0 : 1;
}
