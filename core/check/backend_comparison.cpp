#include "check/backend_comparison.hpp"

#include "highways/highway_files.hpp"
#include "io/newick.hpp"
#include "io/number_text.hpp"
#include "io/output_file.hpp"
#include "optim/parameter_classes.hpp"
#include "sim/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace gpurec {

std::vector<ComparisonDataset> referenceDatasets(const std::string& dataRoot,
                                                 const std::string& samplesRoot) {
    namespace fs = std::filesystem;
    std::vector<ComparisonDataset> out;
    auto add = [&](const std::string& name, const fs::path& folder, const std::string& species,
                   int minCovered) {
        if (fs::exists(folder / species) && fs::exists(folder / "families.txt"))
            out.push_back({name, (folder / species).string(), (folder / "families.txt").string(), minCovered,
                           "PARENTS", "UNIFORM", "", EventModel{}, 1, "", ""});
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
    for (const std::string name : {"tiny", "simulated_2"}) // a transfer highway on every allowed pair
        for (const ComparisonDataset& d : std::vector<ComparisonDataset>(out))
            if (d.name == name) {
                ComparisonDataset pairwise = d;
                pairwise.name += ", pairwise";
                pairwise.events.pairwiseTransfers = true;
                out.push_back(pairwise);
            }
    for (const ComparisonDataset& d : std::vector<ComparisonDataset>(out))
        if (d.name == "simulated_2") { // families on their pruned trees, some on the full one
            ComparisonDataset pruned = d;
            pruned.name += ", pruned";
            pruned.minCoveredSpecies = 3;
            pruned.pruneSpeciesTree = true;
            out.push_back(pruned);
        }
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

std::vector<ComparisonDataset> simulatedDatasets(int families, std::uint64_t seed,
                                                 const std::string& folder) {
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
    ComparisonDataset parents;
    parents.name = "simulated (" + std::to_string(families) + " families, seed " + std::to_string(seed) + ")";
    parents.speciesTree = s.speciesTreeFile;
    parents.families = s.familiesFile;
    ComparisonDataset none = parents;
    none.name += ", NONE";
    none.transferConstraint = "NONE";
    ComparisonDataset reldated = parents; // dated by the birth-death tree's branch lengths
    reldated.name += ", RELDATED";
    reldated.transferConstraint = "RELDATED";
    ComparisonDataset lca = parents;
    lca.name += ", LCA";
    lca.origination = "LCA";
    ComparisonDataset missing = parents;
    missing.name += ", fraction missing";
    missing.fractionMissingFile = (std::filesystem::path(folder) / "fraction_missing.txt").string();
    const SpeciesTree species = SpeciesTree::readFile(s.speciesTreeFile);
    std::string text;
    for (int e = 0, leaf = 0; e < species.size(); ++e)
        if (species.isLeaf(e))
            text += quoteNewickLabel(species.name(e)) + " " + exactNumberText(0.1 * (leaf++ % 6)) + "\n";
    writeFileAtomically(missing.fractionMissingFile, text);
    std::vector<ComparisonDataset> out = {parents, none, reldated, lca, missing};
    const std::pair<const char*, EventModel> variants[] = {
        {"UndatedDL", {RecModel::UndatedDL, false, false, false}},
        {"--no-dup --no-dl", {RecModel::UndatedDTL, true, true, false}},
        {"--no-dl", {RecModel::UndatedDTL, false, true, false}},
        {"--no-tl", {RecModel::UndatedDTL, false, false, true}}};
    for (const auto& [name, events] : variants) {
        ComparisonDataset variant = parents;
        variant.name += std::string(", ") + name;
        variant.events = events;
        out.push_back(variant);
    }
    ComparisonDataset optimized = parents;
    optimized.name += ", OPTIMIZE";
    optimized.origination = "OPTIMIZE";
    ComparisonDataset gamma = parents;
    gamma.name += ", 3 speciation categories";
    gamma.speciationCategories = 3;
    ComparisonDataset classes = optimized;
    classes.name += " with classes";
    classes.classFile = (std::filesystem::path(folder) / "classes.txt").string();
    writeFileAtomically(classes.classFile, quoteNewickLabel(species.name(species.left(species.root()))) +
                                               " DO\n" + quoteNewickLabel(species.name(0)) + " LT\n");
    ComparisonDataset highways = parents;
    highways.name += ", 3 highways";
    highways.highwaysFile = (std::filesystem::path(folder) / "highways.txt").string();
    // Leaf to leaf both ways, and a second highway leaving the first one's source to a clade: from
    // the first leaf (in the root's left subtree) into the right subtree.
    const int a = 0, right = species.right(species.root());
    int c = right;
    while (!species.isLeaf(c))
        c = species.left(c);
    const int clade = right != c ? right : species.parent(a);
    writeHighways(highways.highwaysFile, species, {{{a, c}, 0.05}, {{c, a}, 0.2}, {{a, clade}, 0.1}}, false);
    ComparisonDataset highwaysNoTl = highways;
    highwaysNoTl.name += ", --no-tl";
    highwaysNoTl.events.noTl = true;
    ComparisonDataset highwaysRelDated = highways; // leaf to leaf only: both ends in the present
    highwaysRelDated.name = parents.name + ", 2 highways, RELDATED";
    highwaysRelDated.transferConstraint = "RELDATED";
    highwaysRelDated.highwaysFile = (std::filesystem::path(folder) / "highways_reldated.txt").string();
    writeHighways(highwaysRelDated.highwaysFile, species, {{{a, c}, 0.05}, {{c, a}, 0.2}}, false);
    ComparisonDataset pruned = parents;
    pruned.name += ", pruned";
    pruned.pruneSpeciesTree = true;
    ComparisonDataset prunedVariants = pruned;
    prunedVariants.name += ", NONE, LCA, --no-tl";
    prunedVariants.transferConstraint = "NONE";
    prunedVariants.origination = "LCA";
    prunedVariants.events.noTl = true;
    ComparisonDataset prunedOptimized = pruned;
    prunedOptimized.name += ", OPTIMIZE";
    prunedOptimized.origination = "OPTIMIZE";
    out.insert(out.end(), {optimized, gamma, classes, highways, highwaysNoTl, highwaysRelDated, pruned,
                           prunedVariants, prunedOptimized});
    return out;
}

const std::vector<ComparisonCase>& comparisonCases() {
    static const std::vector<ComparisonCase> cases = {{RateMode::Global, Schedule::Converged},
                                                      {RateMode::Specieswise, Schedule::Converged},
                                                      {RateMode::Genewise, Schedule::Converged},
                                                      {RateMode::Global, Schedule::AleRax}};
    return cases;
}

RateParameters randomRates(RateMode mode, const Dataset& data, std::mt19937_64& rng) {
    RateParameters theta(mode, data.species.size(), static_cast<int>(data.families.size()), {0.1, 0.1, 0.1});
    std::uniform_real_distribution<double> logRate(std::log2(0.005), std::log2(0.5));
    for (double& t : theta.theta())
        t = logRate(rng);
    return theta;
}

std::optional<RateParameters> randomParameters(const ComparisonDataset& d, const ComparisonCase& c,
                                               const Dataset& data, std::mt19937_64& rng) {
    const bool optimize = data.origination == Origination::Optimize;
    if (c.mode == RateMode::Genewise && (optimize || data.speciationCategories > 1 || !d.classFile.empty()))
        return std::nullopt;
    RateParameters theta =
        !d.classFile.empty() && c.mode == RateMode::Specieswise
            ? RateParameters(readParameterClasses(d.classFile, data.species, data.events.recModel, optimize),
                             data.species.size(), {0.1, 0.1, 0.1}, 0.1)
            : RateParameters(c.mode, data.species.size(), static_cast<int>(data.families.size()),
                             {0.1, 0.1, 0.1});
    if (optimize && theta.mode() != RateMode::Classes) theta.addOriginationPerNode(0.1);
    if (!data.highways.empty()) theta.addHighways(static_cast<int>(data.highways.size()), 0.1);
    std::uniform_real_distribution<double> logRate(std::log2(0.005), std::log2(0.5));
    for (double& t : theta.theta())
        t = logRate(rng);
    if (data.speciationCategories > 1) {
        std::uniform_real_distribution<double> logShape(std::log2(0.3), std::log2(5.0));
        theta.addSpeciationShape(std::exp2(logShape(rng)));
    }
    return theta;
}

namespace {

// Table entries the last evaluation left at their poison value.
long long unwrittenEntries(LikelihoodBackend& backend) {
    const BackendDiagnostics* d = backend.diagnostics();
    return d ? std::max(0LL, d->lastRun().unwrittenEntries) : 0;
}

} // namespace

ComparisonRow compareBackends(LikelihoodBackend& reference, LikelihoodBackend& candidate, const Dataset& data,
                              const std::string& datasetName, const ComparisonCase& c,
                              const RateParameters& theta, const SolverOptions& asked,
                              const BatchLimits& limits) {
    SolverOptions options = asked;
    options.bicgstab_tol = std::min(options.bicgstab_tol, kComparedAdjointTolerance);
    ComparisonRow row;
    row.dataset = datasetName;
    row.mode = toString(c.mode);
    row.schedule = toString(c.schedule);
    row.families = static_cast<int>(data.families.size());
    row.clades = data.cladeCount();
    // Every evaluation cold, so that they differ by their plan only.
    reference.clearWarmStarts();
    candidate.clearWarmStarts();
    const Evaluation ref = reference.evaluate(theta, options, true);
    const Evaluation forward = candidate.evaluate(theta, options, false);
    long long unwritten = unwrittenEntries(candidate);
    candidate.clearWarmStarts();
    const Evaluation full = candidate.evaluate(theta, options, true);
    unwritten += unwrittenEntries(candidate);
    row.likelihoodError = std::max(worstRelativeError(forward.logLikelihood, ref.logLikelihood),
                                   worstRelativeError(full.logLikelihood, ref.logLikelihood));
    row.gradientError = worstRelativeError(full.gradient, ref.gradient);
    row.unwritten = unwritten;
    if (data.families.size() >= 3) {
        // The same evaluation under a plan of about three batches must give identical bits.
        BatchLimits split = limits;
        split.maxFamiliesPerBatch = static_cast<int>((data.families.size() + 2) / 3);
        candidate.replan(split);
        candidate.clearWarmStarts();
        const Evaluation again = candidate.evaluate(theta, options, true);
        candidate.replan(limits);
        row.batches = again.logLikelihood == full.logLikelihood && again.gradient == full.gradient
                          ? "same"
                          : "DIFFERENT";
    }
    row.passed = row.likelihoodError <= kLikelihoodTolerance && row.gradientError <= kGradientTolerance &&
                 row.unwritten == 0 && row.batches != "DIFFERENT";
    return row;
}

} // namespace gpurec
