// Sessions of the workbench window: save, open (settings first, then the input, then the rates,
// history and selection once the input has loaded) and autosave during optimisations.
#include "panels/families_panel.hpp"
#include "panels/problems_panel.hpp"
#include "panels/reconciliation_panel.hpp"
#include "panels/run_panel.hpp"
#include "panels/search_panel.hpp"
#include "panels/solver_knobs_panel.hpp"
#include "panels/species_tree_panel.hpp"
#include "panels/waves_panel.hpp"
#include "plots/live_plots.hpp"
#include "views/clade_dag_view.hpp"
#include "views/species_tree_view.hpp"
#include "window/workbench_window.hpp"

#include "optim/checkpoint.hpp"

#include <QDir>
#include <QFileInfo>
#include <QPlainTextEdit>
#include <QStandardPaths>
#include <QTabWidget>
#include <algorithm>
#include <unordered_map>

namespace gpurec::ui {

namespace {
constexpr int kAutosaveIntervalMs = 200; // at most five autosaves a second when iterations are fast

// Copies into `theta` (from entry `first` on, `width` entries per name) the saved values (from
// `savedFirst` on) of every name of `names` that `saved` holds; returns how many matched.
int copyByName(const std::vector<std::string>& saved, const std::vector<double>& savedTheta,
               std::size_t savedFirst, const std::vector<std::string>& names, std::vector<double>& theta,
               std::size_t first, std::size_t width) {
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < saved.size(); ++i)
        index[saved[i]] = i;
    int matched = 0;
    for (std::size_t i = 0; i < names.size(); ++i) {
        auto it = index.find(names[i]);
        if (it == index.end()) continue;
        ++matched;
        for (std::size_t k = 0; k < width; ++k)
            theta[first + width * i + k] = savedTheta[savedFirst + width * it->second + k];
    }
    return matched;
}
} // namespace

QString WorkbenchWindow::autosavePath() {
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QDir().mkpath(folder);
    return folder + "/autosave.gpurec-session.json";
}

SessionState WorkbenchWindow::captureSession() const {
    SessionState s;
    s.input = lastRequest_;
    s.files = fingerprintInput(lastRequest_);
    s.device = run_->device();
    s.memoryGiB = run_->memoryLimitGiB();
    try {
        s.startingRates = run_->startingRates();
        s.optimizer = run_->optimizerSettings();
        s.startingAlpha = run_->startingAlpha();
    } catch (const std::exception&) {
        // A field being edited is unreadable: its default is saved instead.
    }
    s.solver = knobs_->options();
    const RateParameters& theta = session_.parameters();
    s.mode = theta.mode();
    if (dataset_ && fitsDataset(theta, *dataset_)) {
        s.rowNames = rateRowNames(theta.mode(), *dataset_);
        s.extraNames = theta.extraEntryNames(dataset_->species.names());
        s.theta = theta.theta();
    }
    s.history = plots_->samples();
    for (const LivePlots::Overlay& overlay : plots_->overlays())
        s.keptRuns.push_back({overlay.name.toStdString(), overlay.samples});
    s.runNumber = plots_->runNumber();
    s.currentRunKept = plots_->currentRunKept();
    const SpeciesTreeView* tree = tree_->view();
    s.circularTree = tree->circular();
    if (dataset_)
        for (int node = 0; node < dataset_->species.size(); ++node)
            if (tree->isCollapsed(node)) s.collapsedClades.push_back(dataset_->species.name(node));
    s.sampleCount = reconciliations_->sampleCount();
    s.sampleSeed = reconciliations_->sampleSeed();
    s.search = search_->settings();
    s.searchStart = search_->startFrom();
    if (dataset_ && selectedFamily_ >= 0) s.selectedFamily = dataset_->families[selectedFamily_].name;
    if (dataset_ && selectedSpecies_ >= 0) s.selectedSpecies = dataset_->species.name(selectedSpecies_);
    s.selectedClade = waves_->dag()->selectedClade();
    s.viewTab = tabs_->currentIndex();
    // Samples drawn from this data (not a RecPhyloXML file's, which has its own species tree).
    if (dataset_ && reconciliations_->species() == &dataset_->species) {
        for (const ReconciliationGroup& g : reconciliations_->groups())
            if (g.family >= 0) s.sampled.push_back({dataset_->families[g.family].name, g.samples});
        if (!s.sampled.empty())
            for (int node = 0; node < dataset_->species.size(); ++node)
                s.sampledSpecies.push_back(dataset_->species.name(node));
    }
    return s;
}

bool WorkbenchWindow::saveSession(const QString& path) {
    try {
        writeSessionFile(path, captureSession());
    } catch (const std::exception& e) {
        appendLog(tr("Could not save the session: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    unsavedRun_ = false;
    appendLog(tr("Session saved to %1").arg(path));
    return true;
}

void WorkbenchWindow::openSession(const QString& path) {
    SessionState s;
    try {
        s = readSessionFile(path);
    } catch (const std::exception& e) {
        problems_->showProblems({{LoadProblem::Kind::Error, {}, path, 0, 0, QString::fromUtf8(e.what())}},
                                dataset_ != nullptr);
        raiseDock("problemsDock");
        appendLog(tr("Could not open the session: %1").arg(QString::fromUtf8(e.what())));
        emit sessionOpened(false);
        return;
    }
    if (!confirmDiscardRun(tr("open session %1").arg(QFileInfo(path).fileName()))) {
        emit sessionOpened(false);
        return;
    }
    session_.stop(tr("stopped to open session %1").arg(path));
    run_->restore(s.mode, s.input.options.origination == Origination::Optimize, s.startingRates,
                  s.startingAlpha, s.optimizer, s.device, s.memoryGiB);
    knobs_->setOptions(s.solver);
    tree_->setSolverOptions(s.solver);
    session_.setSolverOptions(s.solver);
    undo_.clear(); // the settings of the session replace those the commands changed
    sessionProblems_.clear();
    for (const FileChange& change : compareFingerprints(s.files)) {
        const QString file = QString::fromStdString(change.path);
        sessionProblems_.push_back({change.missing ? LoadProblem::Kind::Error : LoadProblem::Kind::Changed,
                                    {},
                                    file,
                                    0,
                                    0,
                                    change.missing
                                        ? tr("missing: the file was there when the session was saved")
                                        : tr("changed since the session was saved")});
        appendLog(tr("Session input %1: %2").arg(file, sessionProblems_.back().reason));
    }
    appendLog(tr("Opening session %1").arg(path));
    pendingSession_ = s;
    loadInput(s.input);
}

void WorkbenchWindow::applySession(const SessionState& s) {
    const Dataset& d = *dataset_;
    // The session's parametrisation and starting values, then the saved rows and other entries
    // (origination weights, the shape α) matched by name.
    RateParameters theta = startingParameters();
    const std::vector<std::string> names = rateRowNames(theta.mode(), d);
    const std::vector<std::string> extras = theta.extraEntryNames(d.species.names());
    const int matched = copyByName(s.rowNames, s.theta, 0, names, theta.theta(), 0, 3);
    const int matchedExtras =
        copyByName(s.extraNames, s.theta, 3 * s.rowNames.size(), extras, theta.theta(), 3 * names.size(), 1);
    session_.setParameters(theta);
    if (matched < static_cast<int>(s.rowNames.size()) || matched < static_cast<int>(names.size()))
        appendLog(
            tr("Session rates: %1 of %2 saved rows match the data; the others start from the starting rates")
                .arg(matched)
                .arg(s.rowNames.size()));
    if (matchedExtras < static_cast<int>(s.extraNames.size()) ||
        matchedExtras < static_cast<int>(extras.size()))
        appendLog(tr("Session parameters: %1 of %2 saved origination weights and shapes match the model; the "
                     "others start from their starting values")
                      .arg(matchedExtras)
                      .arg(s.extraNames.size()));
    plots_->clear();
    for (const IterationSample& sample : s.history)
        plots_->addSample(sample);
    std::list<LivePlots::Overlay> kept;
    for (const KeptRun& run : s.keptRuns)
        kept.push_back({QString::fromStdString(run.name), run.samples});
    plots_->restoreOverlays(std::move(kept), s.runNumber, s.currentRunKept);
    tree_->setCircular(s.circularTree);
    for (const std::string& name : s.collapsedClades)
        if (int node = d.species.find(name); node >= 0) tree_->view()->setCollapsed(node, true);
    reconciliations_->setSampling(s.sampleCount, s.sampleSeed);
    search_->restoreSettings(s.search, s.searchStart); // with the data: its speciation order may be refused
    if (int f = d.familyIndex(s.selectedFamily); f >= 0) families_->selectFamily(f);
    if (int e = d.species.find(s.selectedSpecies); !s.selectedSpecies.empty() && e >= 0)
        tree_->view()->selectSpecies(e);
    if (s.selectedClade >= 0 && s.selectedClade < waves_->dag()->cladeItemCount())
        waves_->dag()->selectClade(s.selectedClade);
    if (s.viewTab >= 0 && s.viewTab < tabs_->count()) tabs_->setCurrentIndex(s.viewTab);
    restoreSamples(s);
    updateRateRow();
    undo_.clear();
    appendLog(
        tr("Session restored: rates, solver options and %1 iteration(s) of history").arg(s.history.size()));
    emit sessionOpened(true);
}

void WorkbenchWindow::restoreSamples(const SessionState& s) {
    const Dataset& d = *dataset_;
    std::vector<int> species; // the session's species index → the data's
    for (const std::string& name : s.sampledSpecies)
        species.push_back(d.species.find(name));
    std::unordered_map<std::string, int> families;
    for (int f = 0; f < static_cast<int>(d.families.size()); ++f)
        families[d.families[f].name] = f;
    std::vector<ReconciliationGroup> groups;
    for (const SampledFamily& f : s.sampled) {
        auto family = families.find(f.family);
        bool matches = family != families.end();
        ReconciliationGroup group;
        group.name = QString::fromStdString(f.family);
        group.family = matches ? family->second : -1;
        group.samples = f.samples;
        auto mapped = [&](int& index) {
            if (index < 0) return;
            index = species[index];
            matches = matches && index >= 0;
        };
        for (Reconciliation& r : group.samples) {
            mapped(r.originSpecies);
            for (ReconNode& n : r.nodes)
                for (ReconEvent& e : n.events) {
                    mapped(e.species);
                    mapped(e.recipient);
                }
        }
        if (matches)
            groups.push_back(std::move(group));
        else
            appendLog(tr("Session: the sampled reconciliations of family %1 are left out (the family or "
                         "some of their species are not in the data)")
                          .arg(group.name));
    }
    if (!groups.empty()) reconciliations_->showSampled(std::move(groups));
}

void WorkbenchWindow::connectAutosave() {
    autosaveTimer_.setSingleShot(true);
    connect(&autosaveTimer_, &QTimer::timeout, this, &WorkbenchWindow::writeAutosave);
    // Every change worth keeping is autosaved, not only optimisation iterations: the next start
    // offers it back after a crash (crash_recovery.hpp).
    connect(this, &WorkbenchWindow::inputLoaded, this, [this](bool ok) {
        // Shortly: a session being opened puts its rates in place right after the input has loaded.
        if (ok && !autosaveTimer_.isActive()) autosaveTimer_.start(kAutosaveIntervalMs);
    });
    connect(this, &WorkbenchWindow::sessionOpened, this, [this](bool ok) {
        if (ok) autosave();
    });
    connect(&undo_, &QUndoStack::indexChanged, this, &WorkbenchWindow::autosave);
    connect(tree_->view(), &SpeciesTreeView::collapsedChanged, this, &WorkbenchWindow::autosave);
    connect(reconciliations_, &ReconciliationPanel::sampled, this, [this](bool ok) {
        if (ok) autosave();
    });
}

void WorkbenchWindow::autosave() {
    if (!dataset_ || pendingSession_) return; // nothing loaded, or a session is being opened
    // At most a tenth of the GUI thread's time goes to autosaving.
    const qint64 interval = std::max<qint64>(kAutosaveIntervalMs, 10 * autosaveCostMs_);
    if (!lastAutosave_.isValid() || lastAutosave_.elapsed() >= interval) {
        writeAutosave();
    } else if (!autosaveTimer_.isActive()) {
        autosaveTimer_.start(static_cast<int>(interval - lastAutosave_.elapsed()));
    }
}

void WorkbenchWindow::writeAutosave() {
    autosaveTimer_.stop();
    if (!dataset_ || pendingSession_) return;
    lastAutosave_.start();
    try {
        writeSessionFile(autosavePath(), captureSession());
    } catch (const std::exception& e) {
        appendLog(tr("Autosave failed: %1").arg(QString::fromUtf8(e.what())));
    }
    autosaveCostMs_ = lastAutosave_.elapsed();
}

} // namespace gpurec::ui
