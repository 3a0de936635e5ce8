#include "sim/simulation.hpp"

#include "highways/highway_files.hpp"

#include "io/input_error.hpp"
#include "io/number_text.hpp"
#include "io/output_file.hpp"
#include "io/result_writer.hpp"
#include "optim/rate_files.hpp"
#include "recon/recphyloxml.hpp"

#include <nlohmann/json.hpp>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace gpurec {

namespace {

void requireInRange(bool ok, const std::string& what, double value, const std::string& range) {
    if (!ok) throw std::invalid_argument(what + " must be " + range + ", got " + shortestNumberText(value));
}

bool isNonNegative(double x) {
    return x >= 0.0 && std::isfinite(x);
}

} // namespace

void SimulationOptions::validate() const {
    if (speciesTreePath.empty()) birthDeath.validate();
    requireInRange(families >= 1, "number of families", families, "at least 1");
    if (familyPrefix.empty() || familyPrefix.find_first_of(" \t\r\n/\\#") != std::string::npos)
        throw std::invalid_argument("family name prefix '" + familyPrefix +
                                    "' must be non-empty without blanks, slashes or '#'");
    requireInRange(isNonNegative(rates.d), "duplication rate", rates.d, "finite and >= 0");
    requireInRange(isNonNegative(rates.l), "loss rate", rates.l, "finite and >= 0");
    requireInRange(isNonNegative(rates.t), "transfer rate", rates.t, "finite and >= 0");
    requireInRange(speciesRateSpread >= 1.0 && std::isfinite(speciesRateSpread), "species rate spread",
                   speciesRateSpread, "finite and >= 1");
    requireInRange(familyRateSpread >= 1.0 && std::isfinite(familyRateSpread), "family rate spread",
                   familyRateSpread, "finite and >= 1");
    requireInRange(limits.minCoveredSpecies >= 1, "minimum number of covered species",
                   limits.minCoveredSpecies, "at least 1");
    requireInRange(limits.maxGenes >= 0, "maximum number of genes per family", double(limits.maxGenes),
                   ">= 0 (0: no limit)");
    requireInRange(limits.maxAttempts >= 1, "maximum number of draws per family", limits.maxAttempts,
                   "at least 1");
    requireInRange(limits.maxLineages >= 1, "maximum number of gene lineages", double(limits.maxLineages),
                   "at least 1");
    requireInRange(treeSamples >= 1, "number of gene-tree samples", treeSamples, "at least 1");
    requireInRange(sampledFraction >= 0.0 && sampledFraction <= 1.0, "fraction of sampled families",
                   sampledFraction, "in [0, 1]");
    perturbation.validate();
}

std::vector<std::string> presetNames() {
    return {"hogenom-like", "hogenom-4x", "hogenom-big-families"};
}

SimulationOptions presetOptions(const std::string& name) {
    SimulationOptions o;
    if (name == "hogenom-like") {
        // The scale of the HOGENOM core benchmark (666 species, 12,408 families, CCPs of about 3.9 M
        // clades and 10.5 M splits). Rates and tree uncertainty were tuned so that the totals land
        // there (docs/simulator.md).
        o.birthDeath = {666, 1.0, 0.3, 1000};
        o.families = 12408;
        o.familyPrefix = "hogenom";
        o.rates = {0.05, 0.1, 0.05};
        o.familyRateSpread = 2.0;
        o.limits.minCoveredSpecies = 4;
        o.limits.maxGenes = 1500;
        o.treeSamples = 64;
        o.perturbation = {0.2, 0.0, 3};
        o.compactXml = true;
        o.seed = 666;
        return o;
    }
    if (name == "hogenom-4x") {
        // Four times the families on the same species tree, for runs spread over processes and
        // GPUs (docs/performance.md): each family has its own random stream, so the first 12,408
        // are hogenom-like's.
        o = presetOptions("hogenom-like");
        o.families = 4 * 12408;
        return o;
    }
    if (name == "hogenom-big-families") {
        // The second shape of the GPU benchmarks (issue 17): half as many families, each about five
        // times larger (families covering at least 34 of the 666 species: 4.8× the genes and 5.2×
        // the clades of hogenom-like's on a 1,000-family draw), on the same tree, rates and trees.
        o = presetOptions("hogenom-like");
        o.families = 12408 / 2;
        o.limits.minCoveredSpecies = 34;
        return o;
    }
    std::string known;
    for (const std::string& n : presetNames())
        known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown preset '" + name + "' (known: " + known + ")");
}

namespace {

std::string zeroPadded(long value, long largest) {
    std::string digits = std::to_string(value), width = std::to_string(largest);
    return std::string(width.size() > digits.size() ? width.size() - digits.size() : 0, '0') + digits;
}

// What is kept of each family after its files are written.
struct FamilyRecord {
    std::string name;
    Rates factors{1.0, 1.0, 1.0};
    SimulatedFamily family;
    int treesWritten = 0;
    bool perturbed = false;
};

struct SpeciesSetup {
    SpeciesTree tree;
    bool lengths = true; // whether the tree has branch lengths worth writing
    std::string source;  // file name, or "birth-death"
};

SpeciesSetup makeSpeciesTree(const SimulationOptions& o) {
    SpeciesSetup s;
    if (!o.speciesTreePath.empty()) {
        std::vector<NewickTree> trees = readNewickFile(o.speciesTreePath);
        if (trees.size() != 1)
            throw InputError(o.speciesTreePath, trees.size() > 1 ? trees[1].line : 0, 0,
                             "species tree file holds " + std::to_string(trees.size()) +
                                 " trees, expected one");
        s.tree = SpeciesTree::fromNewick(trees[0]);
        s.lengths = false;
        for (const NewickNode& n : trees[0].nodes)
            s.lengths = s.lengths || n.length.has_value();
        s.source = o.speciesTreePath;
    } else {
        RandomSource rng = RandomSource::stream(o.seed, 0);
        s.tree = SpeciesTree::fromNewick(simulateBirthDeathTree(o.birthDeath, rng));
        s.source = "birth-death";
    }
    return s;
}

std::vector<Rates> speciesRates(const SimulationOptions& o, const SpeciesTree& species) {
    std::vector<Rates> rates(species.size(), o.rates);
    if (!o.speciesRatesFile.empty()) {
        RateParameters fromFile = readModelParameters(o.speciesRatesFile, species, 1);
        for (int e = 0; e < species.size(); ++e)
            rates[e] = fromFile.rates(fromFile.row(0, e));
    }
    RandomSource rng = RandomSource::stream(o.seed, 1);
    for (Rates& r : rates) {
        r.d *= rng.logUniformFactor(o.speciesRateSpread);
        r.l *= rng.logUniformFactor(o.speciesRateSpread);
        r.t *= rng.logUniformFactor(o.speciesRateSpread);
    }
    return rates;
}

nlohmann::json ratesJson(const Rates& r) {
    return {{"D", r.d}, {"L", r.l}, {"T", r.t}};
}

nlohmann::json eventsJson(const EventCounts& c) {
    return {{"S", c.S}, {"SL", c.SL}, {"D", c.D}, {"T", c.T}, {"TL", c.TL}, {"L", c.L}, {"Leaf", c.Leaf}};
}

nlohmann::json processJson(const ProcessCounts& c) {
    return {{"speciations", c.speciations},
            {"duplications", c.duplications},
            {"transfers", c.transfers},
            {"losses", c.losses},
            {"observed_genes", c.observedGenes}};
}

nlohmann::json optionsJson(const SimulationOptions& o, const SpeciesSetup& s) {
    nlohmann::json j = {{"seed", o.seed},
                        {"process", toString(o.process)},
                        {"transfer_constraint", toString(o.transferConstraint)},
                        {"origination", o.process == SimProcess::Undated
                                            ? "uniform over species nodes"
                                            : "uniform over the total branch length"},
                        {"species_tree", s.source},
                        {"families", o.families},
                        {"rates", ratesJson(o.rates)},
                        {"species_rates_file", o.speciesRatesFile},
                        {"species_rate_spread", o.speciesRateSpread},
                        {"family_rate_spread", o.familyRateSpread},
                        {"min_covered_species", o.limits.minCoveredSpecies},
                        {"max_genes", o.limits.maxGenes},
                        {"max_attempts", o.limits.maxAttempts},
                        {"max_lineages", o.limits.maxLineages},
                        {"tree_samples", o.treeSamples},
                        {"sampled_fraction", o.sampledFraction},
                        {"perturbation_rate", o.perturbation.rate},
                        {"spr_fraction", o.perturbation.sprFraction},
                        {"spr_radius", o.perturbation.sprRadius}};
    if (o.speciesTreePath.empty())
        j["birth_death"] = {{"leaves", o.birthDeath.leaves},
                            {"birth_rate", o.birthDeath.birthRate},
                            {"death_rate", o.birthDeath.deathRate}};
    return j;
}

void writeTruth(const std::string& dir, const std::string& reconciliationsPath, const SimulationOptions& o,
                const SpeciesSetup& s, const std::vector<Rates>& perSpecies,
                const std::vector<FamilyRecord>& records) {
    const SpeciesTree& species = s.tree;
    bool uniformSpecies = o.speciesRatesFile.empty() && o.speciesRateSpread == 1.0;
    nlohmann::json truth;
    truth["generator"] = std::string("gpurec simulate ") + GPUREC_VERSION;
    truth["options"] = optionsJson(o, s);
    nlohmann::json speciesJson = nlohmann::json::array();
    std::string ratesText = "node D L T\n";
    for (int e = 0; e < species.size(); ++e) {
        speciesJson.push_back({{"node", species.name(e)},
                               {"D", perSpecies[e].d},
                               {"L", perSpecies[e].l},
                               {"T", perSpecies[e].t}});
        ratesText += species.name(e) + " " + exactNumberText(perSpecies[e].d) + " " +
                     exactNumberText(perSpecies[e].l) + " " + exactNumberText(perSpecies[e].t) + "\n";
    }
    truth["species_rates"] = speciesJson;
    writeFileAtomically(dir + "/rates.txt", ratesText);

    std::string familyRatesText =
        "# family D_factor L_factor T_factor (rates of a family at a species node = factor x rates.txt)\n";
    std::string countsText = "# family genes covered_species origin attempts trees S SL D T TL L Leaf"
                             " | process: speciations duplications transfers losses\n";
    nlohmann::json families = nlohmann::json::array();
    for (const FamilyRecord& r : records) {
        const SimulatedFamily& f = r.family;
        EventCounts c = countEvents(f.truth);
        nlohmann::json j = {{"name", r.name},
                            {"genes", f.process.observedGenes},
                            {"covered_species", f.coveredSpecies},
                            {"origin_species", species.name(f.truth.originSpecies)},
                            {"attempts", f.attempts},
                            {"gene_trees", r.treesWritten},
                            {"perturbed", r.perturbed},
                            {"rate_factors", ratesJson(r.factors)},
                            {"events", eventsJson(c)},
                            {"process_events", processJson(f.process)}};
        if (uniformSpecies)
            j["rates"] =
                ratesJson({o.rates.d * r.factors.d, o.rates.l * r.factors.l, o.rates.t * r.factors.t});
        families.push_back(j);
        familyRatesText += r.name + " " + exactNumberText(r.factors.d) + " " + exactNumberText(r.factors.l) +
                           " " + exactNumberText(r.factors.t) + "\n";
        std::ostringstream line;
        line << r.name << ' ' << f.process.observedGenes << ' ' << f.coveredSpecies << ' '
             << species.name(f.truth.originSpecies) << ' ' << f.attempts << ' ' << r.treesWritten << ' '
             << c.S << ' ' << c.SL << ' ' << c.D << ' ' << c.T << ' ' << c.TL << ' ' << c.L << ' ' << c.Leaf
             << " | " << f.process.speciations << ' ' << f.process.duplications << ' ' << f.process.transfers
             << ' ' << f.process.losses << '\n';
        countsText += line.str();
    }
    truth["families"] = families;
    writeFileAtomically(dir + "/family_rates.txt", familyRatesText);
    writeFileAtomically(dir + "/event_counts.txt", countsText);
    writeJson(dir + "/truth.json", truth);

    std::vector<Reconciliation> reconciliations;
    reconciliations.reserve(records.size());
    for (const FamilyRecord& r : records)
        reconciliations.push_back(r.family.truth);
    writeRecPhyloXml(reconciliationsPath, species, reconciliations,
                     o.compactXml ? XmlLayout::Compact : XmlLayout::Auto);
}

SimulationSummary writeSimulation(const SimulationOptions& o, const std::string& outdir) {
    SpeciesSetup setup = makeSpeciesTree(o);
    const SpeciesTree& species = setup.tree;
    if (o.limits.minCoveredSpecies > species.leafCount())
        throw std::invalid_argument(
            "minimum number of covered species (" + std::to_string(o.limits.minCoveredSpecies) +
            ") exceeds the number of species leaves (" + std::to_string(species.leafCount()) + ")");
    const std::vector<Rates> perSpecies = speciesRates(o, species);
    FamilySimulator simulator(species, o.transferConstraint, o.process, o.limits);
    if (!o.highwaysFile.empty()) {
        std::vector<Highway> highways;
        std::vector<double> rates;
        for (const HighwayRecord& r : readHighways(o.highwaysFile, species, o.transferConstraint)) {
            highways.push_back(r.highway);
            rates.push_back(r.rate);
        }
        simulator.setHighways(std::move(highways), std::move(rates));
    }

    ensureDirectory(outdir + "/gene_trees");
    ensureDirectory(outdir + "/truth");
    if (o.mappingFiles) ensureDirectory(outdir + "/mappings");
    const bool perturb = o.perturbation.rate > 0.0 || o.treeSamples > 1;
    if (perturb) ensureDirectory(outdir + "/truth/true_trees");

    std::vector<FamilyRecord> records(o.families);
    std::vector<std::string> errors(o.families);
    const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (int i = 0; i < o.families; ++i) {
        try {
            FamilyRecord& r = records[i];
            r.name = o.familyPrefix + zeroPadded(i + 1, o.families);
            RandomSource rng = RandomSource::stream(o.seed, 2 + std::uint64_t(i));
            r.factors = {rng.logUniformFactor(o.familyRateSpread), rng.logUniformFactor(o.familyRateSpread),
                         rng.logUniformFactor(o.familyRateSpread)};
            std::vector<Rates> rates = perSpecies;
            for (Rates& x : rates)
                x = {x.d * r.factors.d, x.l * r.factors.l, x.t * r.factors.t};
            r.family = simulator.simulate(r.name, rates, rng);
            const NewickTree& tree = r.family.geneTree;
            std::string trees;
            r.perturbed = perturb && rng.uniform() < o.sampledFraction;
            if (r.perturbed) {
                for (int k = 0; k < o.treeSamples; ++k)
                    trees += writeNewick(perturbTree(tree, o.perturbation, rng)) + "\n";
                writeFileAtomically(outdir + "/truth/true_trees/" + r.name + ".nwk",
                                    writeNewick(tree) + "\n");
            } else {
                trees = writeNewick(tree) + "\n";
            }
            r.treesWritten = r.perturbed ? o.treeSamples : 1;
            writeFileAtomically(outdir + "/gene_trees/" + r.name + ".nwk", trees);
            if (o.mappingFiles) {
                std::string mapping;
                for (const ReconNode& n : r.family.truth.nodes)
                    if (n.children.empty())
                        mapping += n.name + " " + species.name(n.events.back().species) + "\n";
                writeFileAtomically(outdir + "/mappings/" + r.name + ".link", mapping);
            }
        } catch (const std::exception& e) {
            errors[i] = e.what();
        }
    }
    for (const std::string& e : errors)
        if (!e.empty()) throw std::runtime_error(e);

    SimulationSummary summary;
    summary.speciesNodes = species.size();
    summary.families = o.families;
    summary.speciesTreeFile = outdir + "/species.nwk";
    summary.familiesFile = outdir + "/families.txt";
    // Under RELDATED the undated process drew transfers by rank: the tree is written with the
    // lengths that give any reader those ranks (AleRax's form), not the ones read.
    const bool ranked =
        o.process == SimProcess::Undated && o.transferConstraint == TransferConstraint::RelDated;
    writeFileAtomically(summary.speciesTreeFile,
                        (ranked ? species.toRankedNewick() : species.toNewick(setup.lengths)) + "\n");
    std::string familiesText = "[FAMILIES]\n";
    for (const FamilyRecord& r : records) {
        familiesText += "- " + r.name + "\ngene_tree = gene_trees/" + r.name + ".nwk\n";
        if (o.mappingFiles) familiesText += "mapping = mappings/" + r.name + ".link\n";
        summary.genes += r.family.process.observedGenes;
        summary.geneTrees += r.treesWritten;
        summary.attempts += r.family.attempts;
        summary.process.speciations += r.family.process.speciations;
        summary.process.duplications += r.family.process.duplications;
        summary.process.transfers += r.family.process.transfers;
        summary.process.losses += r.family.process.losses;
        summary.process.observedGenes += r.family.process.observedGenes;
        EventCounts c = countEvents(r.family.truth);
        summary.events.S += c.S;
        summary.events.SL += c.SL;
        summary.events.D += c.D;
        summary.events.T += c.T;
        summary.events.TL += c.TL;
        summary.events.L += c.L;
        summary.events.Leaf += c.Leaf;
    }
    writeTruth(outdir + "/truth", truthReconciliationsPath(outdir), o, setup, perSpecies, records);
    // Last: families.txt marks the dataset complete (a killed run leaves none).
    writeFileAtomically(summary.familiesFile, familiesText);
    return summary;
}

} // namespace

std::string truthReconciliationsPath(const std::string& outdir) {
    return outdir + "/truth/reconciliations.xml";
}

const std::vector<std::string>& simulationOutputEntries() {
    static const std::vector<std::string> entries = {"families.txt", "species.nwk", "gene_trees", "mappings",
                                                     "truth"};
    return entries;
}

SimulationSummary runSimulation(const SimulationOptions& o, const std::string& outdir) {
    o.validate();
    try {
        return writeSimulation(o, outdir);
    } catch (...) {
        // A failed run leaves no half-written dataset behind.
        std::error_code ignored;
        for (const std::string& entry : simulationOutputEntries())
            std::filesystem::remove_all(outdir + "/" + entry, ignored);
        throw;
    }
}

} // namespace gpurec
