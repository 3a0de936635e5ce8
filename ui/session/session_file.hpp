#pragma once
// A workbench session as a JSON file: the input files (with sizes and dates, to notice changes),
// the run settings, rates (rows named by species or family, so they survive a changed input) and
// optimiser settings as the CLI's optimisation checkpoint (optim/checkpoint.hpp),
// solver options, the optimisation history behind the plots and the runs kept beside it, what was
// selected, how the species tree is drawn, and the reconciliations sampled from the data.
#include "input/input_loader.hpp"
#include "recon/reconciliation.hpp"
#include "recon/sampling_run.hpp"
#include "worker/engine_session.hpp"
#include "worker/search_run.hpp"

#include <QDateTime>
#include <QString>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpurec::ui {

// 2: rates and optimiser state as an optim/checkpoint.hpp object; 3: sampled reconciliations;
// 4: evaluations per iteration, kept runs, the species tree's layout and collapsed clades, the
// sample count and seed; 5: origination weights and the speciation categories' shape α in the rates
// (named extra parameters), the categories' count and the starting α; 6: the transfer highways file,
// pairwise transfers and pruning in the input, and the Search tab's settings.
constexpr int kSessionFormatVersion = 6;

struct FileFingerprint {
    std::string path;
    long long size = -1; // -1: missing when saved
    QDateTime modified;
};

// The reconciliations of one family sampled in the Reconciliations view.
struct SampledFamily {
    std::string family;
    std::vector<Reconciliation> samples; // species as indices into SessionState::sampledSpecies
};

// A finished run kept in the plots as an overlay (Keep run).
struct KeptRun {
    std::string name;
    std::vector<IterationSample> samples; // without rates (overlays draw none)
};

struct SessionState {
    LoadRequest input;
    std::vector<FileFingerprint> files; // every input file, to report missing or changed ones
    QString device = "auto";
    double memoryGiB = 0;
    Rates startingRates;
    double startingAlpha = 1.0; // the speciation categories' shape α after a reset (formats 1–4: 1)
    OptimizerSettings optimizer;
    SolverOptions solver;
    RateMode mode = RateMode::Global;
    std::vector<std::string> rowNames; // "global", species names or family names
    // θ's entries after the rows, by name (RateParameters::extraEntryNames): "O <node>", "alpha".
    std::vector<std::string> extraNames;
    std::vector<double> theta; // 3 per row (log2 D, L, T), then the extra entries
    std::vector<IterationSample> history;
    std::string selectedFamily, selectedSpecies;
    int selectedClade = -1;
    int viewTab = 0;
    // The plots' kept runs, the number of the current run (the next is named one more) and whether
    // the current run is kept already.
    std::vector<KeptRun> keptRuns;
    int runNumber = 0;
    bool currentRunKept = false;
    // The species tree view: circular or rectangular, and its collapsed clades by node name.
    bool circularTree = false;
    std::vector<std::string> collapsedClades;
    // The Reconciliations view's sampling settings (formats 1–3: the defaults).
    int sampleCount = SamplingSettings{}.samples;
    std::uint64_t sampleSeed = SamplingSettings{}.seed;
    // Species names by node index when the samples were drawn: the samples are matched to the
    // data by name when the session is opened.
    std::vector<std::string> sampledSpecies;
    std::vector<SampledFamily> sampled;
    // The Search tab's settings: strategy, largest SPR radius, seed, pre-screen and speciation order
    // (the other fields are not kept), and where it starts (formats 1–5: the defaults).
    SpeciesSearchSettings search;
    SearchStart searchStart = SearchStart::WorkingTree;
};

// Every file the input reads: species tree, families file, gene trees and mapping files.
std::vector<FileFingerprint> fingerprintInput(const LoadRequest& input);
struct FileChange {
    std::string path;
    bool missing = false; // otherwise changed (size or date)
};
// The files that vanished or changed since they were fingerprinted.
std::vector<FileChange> compareFingerprints(const std::vector<FileFingerprint>& saved);

nlohmann::json sessionToJson(const SessionState& state);
// Throws std::runtime_error for a document that is not a session of a version this build reads.
SessionState sessionFromJson(const nlohmann::json& json);

// Atomic (a crash never leaves half a file). Throws std::runtime_error naming the file.
void writeSessionFile(const QString& path, const SessionState& state);
// Throws std::runtime_error naming the file and what is wrong with it.
SessionState readSessionFile(const QString& path);

} // namespace gpurec::ui
