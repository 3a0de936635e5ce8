#include "session/session_file.hpp"

#include "data/origination.hpp"
#include "engine/solver_report.hpp"
#include "input/input_loader.hpp"
#include "io/families_file.hpp"
#include "io/json_number.hpp"
#include "optim/checkpoint.hpp"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace gpurec::ui {

using nlohmann::json;

namespace {
const char* kFormat = "gpurec-workbench-session";

json strings(const std::vector<std::string>& items) {
    return json(items);
}

json historyToJson(const std::vector<IterationSample>& samples) {
    json history = json::array();
    for (const IterationSample& h : samples)
        history.push_back({{"iteration", h.iteration},
                           {"evaluations", h.evaluations},
                           {"nll_bits", jsonNumber(h.nllBits)},
                           {"grad_norm", jsonNumber(h.gradNorm)},
                           {"theta", h.theta},
                           {"seconds", jsonNumber(h.seconds)},
                           {"stats", solverStatsJson(h.stats)}});
    return history;
}

// Formats 1–3 kept no evaluation counts (they read as 0).
std::vector<IterationSample> historyFromJson(const json& j, int version) {
    std::vector<IterationSample> samples;
    for (const json& h : j) {
        IterationSample sample;
        sample.iteration = integerField<int>(h, "iteration");
        if (version >= 4) sample.evaluations = integerField<int>(h, "evaluations");
        sample.nllBits = numberFromJson(h.at("nll_bits"));
        sample.gradNorm = numberFromJson(h.at("grad_norm"));
        sample.theta = h.at("theta").get<std::vector<double>>();
        sample.seconds = numberFromJson(h.at("seconds"));
        sample.stats = solverStatsFromJson(h.at("stats"));
        samples.push_back(std::move(sample));
    }
    return samples;
}

json plotsToJson(const SessionState& s) {
    json kept = json::array();
    for (const KeptRun& run : s.keptRuns)
        kept.push_back({{"name", run.name}, {"history", historyToJson(run.samples)}});
    return {{"kept_runs", kept}, {"run_number", s.runNumber}, {"current_run_kept", s.currentRunKept}};
}

void readPlots(const json& j, int version, SessionState& s) {
    for (const json& run : j.at("kept_runs"))
        s.keptRuns.push_back(
            {run.at("name").get<std::string>(), historyFromJson(run.at("history"), version)});
    s.runNumber = integerField<int>(j, "run_number");
    if (s.runNumber < 0) throw std::runtime_error("\"run_number\" is negative");
    s.currentRunKept = j.at("current_run_kept").get<bool>();
}

// Format 1 kept the optimiser settings under "run" and the rates under "rates".
void readVersion1Rates(const json& j, SessionState& s) {
    const json& run = j.at("run");
    s.optimizer.kind = parseOptimizerKind(run.at("optimizer").get<std::string>());
    s.optimizer.max_iter = integerField<int>(run, "max_iterations");
    s.optimizer.grad_tol = run.at("grad_tol").get<double>();
    s.optimizer.rel_tol = run.at("rel_tol").get<double>();
    s.optimizer.min_rate = run.at("min_rate").get<double>();
    s.optimizer.max_rate = run.at("max_rate").get<double>();
    s.optimizer.learning_rate = run.at("learning_rate").get<double>();
    s.optimizer.validate();
    const json& rates = j.at("rates");
    s.mode = parseRateMode(rates.at("mode").get<std::string>());
    s.rowNames = rates.at("rows").get<std::vector<std::string>>();
    s.theta = rates.at("theta").get<std::vector<double>>();
    if (s.theta.size() != 3 * s.rowNames.size())
        throw std::runtime_error("\"rates\" has " + std::to_string(s.theta.size()) + " values for " +
                                 std::to_string(s.rowNames.size()) + " rows (expected 3 per row)");
}

// Sampled reconciliations, compactly (a session may hold thousands): per node
// [name, parent, [children], branch length, clade, [[event, species(, recipient)], ...]].
json reconciliationsToJson(const SessionState& s) {
    json families = json::array();
    for (const SampledFamily& f : s.sampled) {
        json samples = json::array();
        for (const Reconciliation& r : f.samples) {
            json nodes = json::array();
            for (const ReconNode& n : r.nodes) {
                json events = json::array();
                for (const ReconEvent& e : n.events)
                    events.push_back(e.recipient >= 0 ? json{eventName(e.type), e.species, e.recipient}
                                                      : json{eventName(e.type), e.species});
                nodes.push_back({n.name, n.parent, n.children, jsonNumber(n.branchLength), n.clade, events});
            }
            samples.push_back({{"root", r.root}, {"origin", r.originSpecies}, {"nodes", nodes}});
        }
        families.push_back({{"family", f.family}, {"samples", samples}});
    }
    return {{"species", s.sampledSpecies},
            {"families", families},
            {"sample_count", s.sampleCount},
            {"seed", s.sampleSeed}};
}

// The Search tab's start trees by name: gpurec search -s's MiniNJ and Random, or the loaded tree.
constexpr std::pair<SearchStart, const char*> kSearchStarts[] = {{SearchStart::WorkingTree, "working tree"},
                                                                 {SearchStart::MiniNj, "MiniNJ"},
                                                                 {SearchStart::Random, "Random"}};

// Under result.json's names for them.
json searchToJson(const SessionState& s) {
    const char* start = "";
    for (const auto& [from, name] : kSearchStarts)
        if (from == s.searchStart) start = name;
    return {{"strategy", toString(s.search.strategy)},
            {"max_radius", s.search.maxRadius},
            {"spr_cutoff", s.search.sprCutoff},
            {"spr_memory", s.search.sprMemory},
            {"start", start},
            {"seed", s.search.seed},
            {"prescreen", s.search.prescreen},
            {"prescreen_confirm", s.search.prescreenConfirm},
            {"infer_speciation_order", s.search.inferSpeciationOrder}};
}

void readSearch(const json& j, SessionState& s) {
    s.search.strategy = parseSearchStrategy(j.at("strategy").get<std::string>());
    s.search.maxRadius = integerField<int>(j, "max_radius");
    s.search.sprCutoff = j.value("spr_cutoff", SpeciesSearchSettings{}.sprCutoff); // absent before it existed
    s.search.sprMemory = j.value("spr_memory", SpeciesSearchSettings{}.sprMemory);
    s.search.seed = integerField<std::uint64_t>(j, "seed");
    s.search.prescreen = j.at("prescreen").get<double>();
    s.search.prescreenConfirm = j.value("prescreen_confirm", SpeciesSearchSettings{}.prescreenConfirm);
    s.search.inferSpeciationOrder = j.at("infer_speciation_order").get<bool>();
    s.search.validate();
    const std::string start = j.at("start").get<std::string>();
    const auto* known = std::find_if(std::begin(kSearchStarts), std::end(kSearchStarts),
                                     [&](const auto& entry) { return start == entry.second; });
    if (known == std::end(kSearchStarts))
        throw std::runtime_error("\"start\" must be \"working tree\", \"MiniNJ\" or \"Random\", not \"" +
                                 start + "\"");
    s.searchStart = known->first;
}

EventType eventFromName(const std::string& name) {
    for (EventType e :
         {EventType::Leaf, EventType::Speciation, EventType::SpeciationLoss, EventType::Duplication,
          EventType::Transfer, EventType::TransferLoss, EventType::Loss})
        if (name == eventName(e)) return e;
    throw std::runtime_error("unknown reconciliation event \"" + name + "\"");
}

// Throws unless `r` is one tree over its nodes (the view walks it from the root).
void checkTree(const Reconciliation& r, const std::string& where) {
    const int n = static_cast<int>(r.nodes.size());
    auto bad = [&](const std::string& what) { throw std::runtime_error(where + ": " + what); };
    if (r.root < 0 || r.root >= n || r.nodes[r.root].parent != -1)
        bad("its root is not a node without parent");
    std::vector<int> stack{r.root};
    int reached = 0;
    while (!stack.empty()) {
        const int node = stack.back();
        stack.pop_back();
        if (++reached > n) bad("its nodes do not form a tree");
        if (r.nodes[node].events.empty()) bad("a node has no event");
        const std::vector<int>& children = r.nodes[node].children;
        if (!children.empty() && children.size() != 2) bad("a node has neither 0 nor 2 children");
        for (int c : children) {
            if (c < 0 || c >= n || r.nodes[c].parent != node) bad("a child does not name its parent");
            stack.push_back(c);
        }
    }
    if (reached != n) bad("some nodes are not below its root");
}

void readReconciliations(const json& j, int version, SessionState& s) {
    if (version >= 4) {
        s.sampleCount = integerField<int>(j, "sample_count");
        if (s.sampleCount < 1) throw std::runtime_error("\"sample_count\" must be at least 1");
        const json& seed = j.at("seed");
        if (!seed.is_number_unsigned()) throw std::runtime_error("\"seed\" must be a whole number ≥ 0");
        s.sampleSeed = seed.get<std::uint64_t>();
    }
    s.sampledSpecies = j.at("species").get<std::vector<std::string>>();
    const int species = static_cast<int>(s.sampledSpecies.size());
    auto speciesIndex = [&](const json& v, bool optional, const std::string& where) {
        const int index = integerFromJson<int>(v);
        if (index < (optional ? -1 : 0) || index >= species)
            throw std::runtime_error(where + ": species " + std::to_string(index) + " is not one of the " +
                                     std::to_string(species) + " species listed");
        return index;
    };
    for (const json& f : j.at("families")) {
        SampledFamily family;
        family.family = f.at("family").get<std::string>();
        for (const json& sample : f.at("samples")) {
            const std::string where =
                "reconciliation " + std::to_string(family.samples.size() + 1) + " of family " + family.family;
            Reconciliation r;
            r.family = family.family;
            r.root = integerField<int>(sample, "root");
            r.originSpecies = speciesIndex(sample.at("origin"), true, where);
            for (const json& node : sample.at("nodes")) {
                ReconNode n;
                n.name = node.at(0).get<std::string>();
                n.parent = integerFromJson<int>(node.at(1));
                n.children = integersFromJson<int>(node.at(2));
                n.branchLength = numberFromJson(node.at(3));
                n.clade = integerFromJson<int>(node.at(4));
                for (const json& e : node.at(5)) {
                    ReconEvent event{eventFromName(e.at(0).get<std::string>()),
                                     speciesIndex(e.at(1), false, where)};
                    if (e.size() > 2) event.recipient = speciesIndex(e.at(2), false, where);
                    n.events.push_back(event);
                }
                r.nodes.push_back(std::move(n));
            }
            checkTree(r, where);
            family.samples.push_back(std::move(r));
        }
        s.sampled.push_back(std::move(family));
    }
}

FileFingerprint fingerprint(const std::string& path) {
    QFileInfo info(QString::fromStdString(path));
    return {path, info.isFile() ? info.size() : -1, info.isFile() ? info.lastModified() : QDateTime()};
}
} // namespace

std::vector<FileFingerprint> fingerprintInput(const LoadRequest& input) {
    std::set<std::string> paths;
    auto add = [&](const std::string& p) {
        if (!p.empty()) paths.insert(QFileInfo(QString::fromStdString(p)).absoluteFilePath().toStdString());
    };
    add(input.paths.speciesTree);
    add(input.paths.familiesFile);
    add(input.paths.fractionMissingFile);
    add(input.paths.highwaysFile);
    for (const std::string& p : input.paths.geneTrees)
        add(p);
    for (const std::string& p : input.paths.geneTreeMappings)
        add(p);
    if (!input.paths.familiesFile.empty()) {
        try {
            for (const FamilyInput& f : readFamiliesFile(input.paths.familiesFile)) {
                add(f.geneTreePath);
                add(f.mappingPath);
            }
        } catch (const std::exception&) {
            // An unreadable families file is reported by the loader; its own fingerprint is kept.
        }
    }
    std::vector<FileFingerprint> out;
    out.reserve(paths.size());
    for (const std::string& p : paths)
        out.push_back(fingerprint(p));
    return out;
}

std::vector<FileChange> compareFingerprints(const std::vector<FileFingerprint>& saved) {
    std::vector<FileChange> out;
    for (const FileFingerprint& was : saved) {
        FileFingerprint now = fingerprint(was.path);
        if (now.size < 0 && was.size >= 0)
            out.push_back({was.path, true});
        else if (now.size != was.size || now.modified != was.modified)
            out.push_back({was.path, false});
    }
    return out;
}

json sessionToJson(const SessionState& s) {
    json files = json::array();
    for (const FileFingerprint& f : s.files)
        files.push_back({{"path", f.path},
                         {"size", f.size},
                         {"modified", f.modified.toString(Qt::ISODateWithMs).toStdString()}});
    json solver = json::object();
    for (const SolverOptionInfo& info : solverOptionInfo())
        solver[info.name] = getSolverOption(s.solver, info.name);
    // Rates and optimiser state in the CLI's checkpoint form (optim/checkpoint.hpp).
    OptimizationCheckpoint optimization;
    optimization.mode = s.mode;
    optimization.rowNames = s.rowNames;
    optimization.extraNames = s.extraNames;
    optimization.theta = s.theta;
    optimization.settings = s.optimizer;
    optimization.bestNllBits = NAN;
    optimization.progress.initialNllBits = s.history.empty() ? NAN : s.history.front().nllBits;
    for (const IterationSample& h : s.history)
        if (!(h.nllBits >= optimization.bestNllBits)) optimization.bestNllBits = h.nllBits;
    optimization.progress.iterations = static_cast<int>(s.history.size());
    optimization.progress.seconds = s.history.empty() ? 0.0 : s.history.back().seconds;
    optimization.run = {{"command", "workbench"}};
    return {{"format", kFormat},
            {"version", kSessionFormatVersion},
            {"gpurec_version", GPUREC_VERSION},
            {"input",
             {{"species_tree", s.input.paths.speciesTree},
              {"families_file", s.input.paths.familiesFile},
              {"gene_trees", strings(s.input.paths.geneTrees)},
              {"gene_tree_mappings", strings(s.input.paths.geneTreeMappings)},
              {"fraction_missing_file", s.input.paths.fractionMissingFile},
              {"highways_file", s.input.paths.highwaysFile},
              {"pairwise_transfers", s.input.options.events.pairwiseTransfers},
              {"prune_species_tree", s.input.options.pruneSpeciesTree},
              {"rooted_gene_trees", s.input.options.rooting == GeneTreeRooting::Rooted},
              {"gene_tree_rooting", toString(s.input.options.rooting)},
              {"min_covered_species", s.input.options.minCoveredSpecies},
              {"transfer_constraint", toString(s.input.constraint)},
              {"origination", toString(s.input.options.origination)},
              {"rec_model", toString(s.input.options.events.recModel)},
              {"no_dup", s.input.options.events.noDup},
              {"no_dl", s.input.options.events.noDl},
              {"no_tl", s.input.options.events.noTl},
              {"speciation_gamma_categories", s.input.options.speciationCategories},
              {"files", files}}},
            {"device", {{"name", s.device.toStdString()}, {"memory_gib", s.memoryGiB}}},
            {"run",
             {{"starting_rates", {s.startingRates.d, s.startingRates.l, s.startingRates.t}},
              {"starting_alpha", s.startingAlpha}}},
            {"solver", solver},
            {"optimization", checkpointToJson(optimization)},
            {"history", historyToJson(s.history)},
            {"plots", plotsToJson(s)},
            {"selection",
             {{"family", s.selectedFamily},
              {"species", s.selectedSpecies},
              {"clade", s.selectedClade},
              {"view_tab", s.viewTab}}},
            {"species_tree", {{"circular", s.circularTree}, {"collapsed", s.collapsedClades}}},
            {"reconciliations", reconciliationsToJson(s)},
            {"search", searchToJson(s)}};
}

SessionState sessionFromJson(const json& j) {
    if (!j.is_object() || j.value("format", std::string()) != kFormat)
        throw std::runtime_error("not a gpurec workbench session (no \"format\": \"" + std::string(kFormat) +
                                 "\")");
    const int version = integerField<int>(j, "version");
    if (version > kSessionFormatVersion)
        throw std::runtime_error("written by a newer gpurec (session format " + std::to_string(version) +
                                 "; this version reads format " + std::to_string(kSessionFormatVersion) +
                                 ")");
    SessionState s;
    const json& input = j.at("input");
    s.input.paths.speciesTree = input.at("species_tree").get<std::string>();
    s.input.paths.familiesFile = input.at("families_file").get<std::string>();
    s.input.paths.geneTrees = input.at("gene_trees").get<std::vector<std::string>>();
    s.input.paths.geneTreeMappings = input.at("gene_tree_mappings").get<std::vector<std::string>>();
    s.input.paths.fractionMissingFile = input.value("fraction_missing_file", std::string()); // older: none
    if (version >= 6) {
        s.input.paths.highwaysFile = input.at("highways_file").get<std::string>();
        s.input.options.events.pairwiseTransfers = input.at("pairwise_transfers").get<bool>();
        s.input.options.pruneSpeciesTree = input.at("prune_species_tree").get<bool>();
    } else {
        // Formats 1–4 had none of them (as if off); some format 5 files, written before the
        // version said so, have them.
        s.input.paths.highwaysFile = input.value("highways_file", std::string());
        s.input.options.events.pairwiseTransfers = input.value("pairwise_transfers", false);
        s.input.options.pruneSpeciesTree = input.value("prune_species_tree", false);
    }
    // Sessions before MAD rooting kept only whether the trees were rooted.
    s.input.options.rooting = input.contains("gene_tree_rooting")
                                  ? parseGeneTreeRooting(input.at("gene_tree_rooting").get<std::string>())
                                  : (input.at("rooted_gene_trees").get<bool>() ? GeneTreeRooting::Rooted
                                                                               : GeneTreeRooting::Unrooted);
    s.input.options.minCoveredSpecies = integerField<int>(input, "min_covered_species");
    s.input.constraint = parseTransferConstraint(input.at("transfer_constraint").get<std::string>());
    // Sessions written before --origination reached the workbench started families anywhere.
    s.input.options.origination = parseOrigination(input.value("origination", std::string("UNIFORM")));
    // And before the model's variants reached it, the default model.
    s.input.options.events.recModel = parseRecModel(input.value("rec_model", std::string("UndatedDTL")));
    s.input.options.events.noDup = input.value("no_dup", false);
    s.input.options.events.noDl = input.value("no_dl", false);
    s.input.options.events.noTl = input.value("no_tl", false);
    // Formats 1–4: one speciation category.
    if (version >= 5) {
        s.input.options.speciationCategories = integerField<int>(input, "speciation_gamma_categories");
        if (s.input.options.speciationCategories < 1)
            throw std::runtime_error("\"speciation_gamma_categories\" must be at least 1");
    }
    for (const json& f : input.at("files"))
        s.files.push_back({f.at("path").get<std::string>(), integerField<long long>(f, "size"),
                           QDateTime::fromString(QString::fromStdString(f.at("modified").get<std::string>()),
                                                 Qt::ISODateWithMs)});
    s.device = QString::fromStdString(j.at("device").at("name").get<std::string>());
    s.memoryGiB = j.at("device").at("memory_gib").get<double>();
    const json& run = j.at("run");
    auto start = run.at("starting_rates").get<std::vector<double>>();
    if (start.size() != 3) throw std::runtime_error("\"starting_rates\" must hold 3 numbers");
    s.startingRates = {start[0], start[1], start[2]};
    if (version >= 5) s.startingAlpha = numberFromJson(run.at("starting_alpha"));
    for (const auto& [name, value] : j.at("solver").items())
        setSolverOption(s.solver, name, value.get<std::string>());
    if (version >= 2) {
        const OptimizationCheckpoint optimization = checkpointFromJson(j.at("optimization"));
        s.optimizer = optimization.settings;
        s.mode = optimization.mode;
        s.rowNames = optimization.rowNames;
        s.extraNames = optimization.extraNames;
        s.theta = optimization.theta;
    } else {
        readVersion1Rates(j, s);
    }
    s.history = historyFromJson(j.at("history"), version);
    const json& selection = j.at("selection");
    s.selectedFamily = selection.at("family").get<std::string>();
    s.selectedSpecies = selection.at("species").get<std::string>();
    s.selectedClade = integerField<int>(selection, "clade");
    s.viewTab = integerField<int>(selection, "view_tab");
    if (version >= 3) readReconciliations(j.at("reconciliations"), version, s); // earlier formats had none
    if (version >= 4) {
        readPlots(j.at("plots"), version, s);
        const json& tree = j.at("species_tree");
        s.circularTree = tree.at("circular").get<bool>();
        s.collapsedClades = tree.at("collapsed").get<std::vector<std::string>>();
    }
    if (version >= 6) readSearch(j.at("search"), s);
    return s;
}

void writeSessionFile(const QString& path, const SessionState& state) {
    QSaveFile file(path);
    const std::string text = sessionToJson(state).dump(1) + "\n";
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text) ||
        file.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size()) ||
        !file.commit())
        throw std::runtime_error(path.toStdString() +
                                 ": cannot write the session file: " + file.errorString().toStdString());
}

SessionState readSessionFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw std::runtime_error(path.toStdString() +
                                 ": cannot open the session file: " + file.errorString().toStdString());
    const QByteArray bytes = file.readAll();
    // The JSON library's text starts with its own tag ("[json.exception.parse_error.101] parse error
    // at line 1, column 5: "); users get the file, line and column once, then the reason.
    auto reason = [](const json::exception& e) {
        std::string text = e.what();
        if (auto tag = text.find("] "); text.rfind("[json.exception.", 0) == 0 && tag != std::string::npos)
            text = text.substr(tag + 2);
        if (auto at = text.find(": "); text.rfind("parse error", 0) == 0 && at != std::string::npos)
            text = text.substr(at + 2);
        return text;
    };
    try {
        return sessionFromJson(json::parse(bytes.begin(), bytes.end()));
    } catch (const json::parse_error& e) {
        const auto upTo = bytes.left(static_cast<qsizetype>(std::min<std::size_t>(e.byte, bytes.size())));
        const qsizetype lastBreak = upTo.lastIndexOf('\n');
        const std::string where = std::to_string(upTo.count('\n') + 1) + ":" +
                                  std::to_string(upTo.size() - lastBreak - (lastBreak < 0 ? 0 : 1));
        throw std::runtime_error(path.toStdString() + ":" + where +
                                 ": not a valid session file (damaged or cut short): " + reason(e));
    } catch (const json::exception& e) {
        throw std::runtime_error(path.toStdString() + ": not a valid session file: " + reason(e));
    } catch (const std::exception& e) {
        throw std::runtime_error(path.toStdString() + ": " + e.what());
    }
}

} // namespace gpurec::ui
