#include "window/workbench_window.hpp"

#include "input/input_discovery.hpp"
#include "input/open_input_dialog.hpp"
#include "panels/cell_terms_panel.hpp"
#include "panels/families_panel.hpp"
#include "panels/guided_tour_panel.hpp"
#include "panels/problems_panel.hpp"
#include "panels/reconciliation_panel.hpp"
#include "panels/run_panel.hpp"
#include "panels/search_panel.hpp"
#include "panels/solver_knobs_panel.hpp"
#include "panels/species_tree_panel.hpp"
#include "panels/transfer_rates_panel.hpp"
#include "panels/waves_panel.hpp"
#include "plots/live_plots.hpp"
#include "window/eliding_label.hpp"

#include "engine/solver_report.hpp"
#include "optim/parametrization.hpp"

#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>
#include <functional>

namespace gpurec::ui {

namespace {
QDockWidget* addDock(QMainWindow* window, const QString& title, const QString& name, QWidget* content,
                     Qt::DockWidgetArea area, bool scrollable = false) {
    auto* dock = new QDockWidget(title, window);
    dock->setObjectName(name);
    if (scrollable) {
        auto* scroll = new QScrollArea;
        scroll->setWidget(content);
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        dock->setWidget(scroll);
    } else {
        dock->setWidget(content);
    }
    window->addDockWidget(area, dock);
    return dock;
}

ElidingLabel* statusField(const QString& name, const QString& tip) {
    auto* label = new ElidingLabel;
    label->setObjectName(name);
    label->setToolTip(tip);
    label->setAccessibleDescription(tip); // stays when a field's tooltip grows into details
    label->setContentsMargins(6, 0, 6, 0);
    return label;
}

const char* const kGeometryKey = "window/geometry";
const char* const kDockStateKey = "window/docks";
constexpr int kDockStateVersion = 2;   // bump when docks are added or renamed
constexpr int kFourColumnWidth = 1400; // device-independent pixels

QString bits(double v) {
    return QString::number(v, 'f', 3);
}

QString iterations(int n) {
    return n == 1 ? QObject::tr("1 iteration") : QObject::tr("%1 iterations").arg(n);
}

// "cuda:0 NVIDIA H200 (139.8 GiB)" without its parenthesis, for a narrow status bar.
QString deviceName(const QString& device) {
    const qsizetype open = device.indexOf(" (");
    return open < 0 ? QString() : device.left(open);
}

void showTiming(ElidingLabel* label, double seconds) {
    const QString value = QString::number(seconds, 'g', 3);
    label->setTexts(QObject::tr("%1 s / evaluation").arg(value), QObject::tr("%1 s/eval.").arg(value));
}
} // namespace

WorkbenchWindow::WorkbenchWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("gpurec workbench"));
    setAcceptDrops(true);
    tree_ = new SpeciesTreePanel;
    waves_ = new WavesPanel;
    plots_ = new LivePlots;
    families_ = new FamiliesPanel;
    run_ = new RunPanel;
    knobs_ = new SolverKnobsPanel;
    problems_ = new ProblemsPanel;
    reconciliations_ = new ReconciliationPanel;
    cells_ = new CellTermsPanel;
    search_ = new SearchPanel;
    search_->setObjectName("searchPanel");
    transferRates_ = new TransferRatesPanel;
    transferRates_->setObjectName("transferRatesPanel");
    tour_ = new GuidedTourPanel;
    tour_->setObjectName("guidedTour");
    log_ = new QPlainTextEdit;
    log_->setObjectName("log");
    log_->setAccessibleName(tr("Log"));
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(20000);

    tabs_ = new QTabWidget;
    tabs_->setObjectName("viewTabs");
    tabs_->addTab(plots_, tr("Optimisation"));
    tabs_->addTab(waves_, tr("Clade waves"));
    tabs_->addTab(reconciliations_, tr("Reconciliations"));
    tabs_->addTab(search_, tr("Species-tree search"));
    tabs_->addTab(transferRates_, tr("Transfer rates")); // last: sessions keep the tab by index
    tabs_->setTabVisible(tabs_->indexOf(transferRates_), false);
    central_ = new QSplitter(Qt::Horizontal);
    central_->addWidget(tree_);
    central_->addWidget(tabs_);
    central_->setStretchFactor(0, 1);
    central_->setStretchFactor(1, 2);
    setCentralWidget(central_);

    addDock(this, tr("Families"), "familiesDock", families_, Qt::LeftDockWidgetArea);
    QDockWidget* runDock = addDock(this, tr("Run"), "runDock", run_, Qt::RightDockWidgetArea, true);
    QDockWidget* knobsDock =
        addDock(this, tr("Solver options"), "knobsDock", knobs_, Qt::RightDockWidgetArea, true);
    tabifyDockWidget(runDock, knobsDock);
    runDock->raise();
    QDockWidget* problemsDock =
        addDock(this, tr("Problems"), "problemsDock", problems_, Qt::BottomDockWidgetArea);
    QDockWidget* logDock = addDock(this, tr("Log"), "logDock", log_, Qt::BottomDockWidgetArea);
    tabifyDockWidget(logDock, problemsDock);
    QDockWidget* cellDock =
        addDock(this, tr("Cell equation"), "cellDock", cells_, Qt::BottomDockWidgetArea, true);
    tabifyDockWidget(logDock, cellDock);
    logDock->raise();
    QDockWidget* tourDock = addDock(this, tr("Guided tour"), "tourDock", tour_, Qt::RightDockWidgetArea);
    addDockWidget(Qt::RightDockWidgetArea, tourDock, Qt::Vertical); // below the run controls, hiding none
    tourDock->hide();

    deviceLabel_ = statusField("statusDevice", tr("Device the engine runs on"));
    datasetLabel_ = statusField("statusDataset", tr("Loaded dataset"));
    iterationLabel_ = statusField("statusIteration", tr("Current run"));
    timingLabel_ = statusField("statusTiming", tr("Wall time of the last likelihood evaluation"));
    loadProgress_ = new QProgressBar;
    loadProgress_->setObjectName("loadProgress");
    loadProgress_->setMaximumWidth(220);
    loadProgress_->setFormat(tr("loading %v/%m families"));
    loadProgress_->hide();
    statusBar()->addWidget(loadProgress_);
    for (ElidingLabel* l : {datasetLabel_, iterationLabel_, timingLabel_, deviceLabel_})
        statusBar()->addPermanentWidget(l);
    datasetLabel_->setText(tr("no data loaded (File ▸ Open data, or drop files here)"));

    buildMenus();
    connectPanels();
    connectSession();
    connectReconciliations();
    connectAutosave();
    connectSearch();
    connect(&loader_, &InputLoader::progress, this, [this](int done, int total) {
        loadProgress_->setRange(0, total);
        loadProgress_->setValue(done);
    });
    connect(&loader_, &InputLoader::finished, this, &WorkbenchWindow::onLoaded);
    updateRunState();
    restoreWindowLayout();
}

WorkbenchWindow::~WorkbenchWindow() {
    // The widgets outlive the members (session, loader): nothing they emit while dying may reach us.
    for (QObject* child : findChildren<QObject*>())
        child->disconnect(this);
}

void WorkbenchWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open data…"), QKeySequence::Open, this, [this] { showOpenDialog(); });
    recentMenu_ = file->addMenu(tr("Open &recent"));
    rebuildRecentMenu();
    file->addSeparator();
    file->addAction(tr("Open &session…"), this, [this] {
        QString path = QFileDialog::getOpenFileName(this, tr("Open session"), {},
                                                    tr("gpurec sessions (*.json);;All files (*)"));
        if (!path.isEmpty()) openSession(path);
    });
    file->addAction(tr("Open &autosaved session"), this, [this] { openSession(autosavePath()); });
    file->addAction(tr("&Save session…"), QKeySequence::Save, this, [this] {
        QString path = QFileDialog::getSaveFileName(this, tr("Save session"), "session.gpurec.json",
                                                    tr("gpurec sessions (*.json)"));
        if (!path.isEmpty()) saveSession(path);
    });
    file->addSeparator();
    file->addAction(tr("&Export species tree…"), tree_, &SpeciesTreePanel::exportTree);
    QAction* figure = file->addAction(tr("Export &figure…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E),
                                      this, &WorkbenchWindow::exportFigure);
    figure->setObjectName("exportFigureAction");
    figure->setToolTip(
        tr("The species tree and the current view as they are, at a chosen size (SVG, PDF, PNG)"));
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    buildEditMenu();

    QMenu* runMenu = menuBar()->addMenu(tr("&Run"));
    runMenu->addAction(tr("&Evaluate"), QKeySequence(Qt::Key_F5), run_->evaluateButton(),
                       &QPushButton::click);
    runMenu->addAction(tr("&Optimise"), QKeySequence(Qt::Key_F6), run_->optimiseButton(),
                       &QPushButton::click);
    runMenu->addAction(tr("&Pause / resume"), QKeySequence(Qt::Key_F7), run_->pauseButton(),
                       &QPushButton::click);
    runMenu->addAction(tr("&Stop"), QKeySequence(Qt::Key_F8), run_->stopButton(), &QPushButton::click);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    view->addSeparator();
    view->addAction(tree_->fitSelectionAction());
    view->addSeparator();
    presenterAction_ = view->addAction(tr("&Presenter view"), QKeySequence(Qt::Key_F11), this,
                                       [this](bool on) { setPresenterView(on); });
    presenterAction_->setObjectName("presenterViewAction");
    presenterAction_->setCheckable(true);
    presenterAction_->setToolTip(
        tr("Full screen, large text, high contrast, the tree and one view (Esc leaves)"));
    addAction(presenterAction_); // F11 works while the menu bar is hidden too

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&User guide"), QKeySequence::HelpContents, this, &WorkbenchWindow::showUserGuide);
    help->addAction(tr("&Keyboard shortcuts"), this, &WorkbenchWindow::showShortcuts);
    tourAction_ = help->addAction(tr("&Guided tour"), this, &WorkbenchWindow::startGuidedTour);
    tourAction_->setObjectName("guidedTourAction");
    tourAction_->setToolTip(tr("What duplications, transfers and losses look like on this tree (datasets "
                               "simulated with their truth, such as samples/teaching)"));
    tourAction_->setEnabled(false);
    help->addAction(tr("&About"), this, [this] {
        QMessageBox::about(
            this, tr("About gpurec workbench"),
            tr("<b>gpurec workbench</b> %1<br>Gene-tree / species-tree reconciliation under the undated "
               "duplication-transfer-loss model (AleRax's model).<br>See docs/user-guide.md.")
                .arg(GPUREC_VERSION));
    });
}

void WorkbenchWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    std::vector<LoadRequest> entries = recent_.entries();
    for (const LoadRequest& r : entries)
        recentMenu_->addAction(describe(r), this, [this, r] { openInput(r); });
    if (entries.empty())
        recentMenu_->addAction(tr("(none yet)"))->setEnabled(false);
    else {
        recentMenu_->addSeparator();
        recentMenu_->addAction(tr("Clear list"), this, [this] {
            recent_.clear();
            rebuildRecentMenu();
        });
    }
}

void WorkbenchWindow::connectPanels() {
    connect(run_, &RunPanel::evaluateRequested, this, [this] {
        run_->showError({});
        session_.evaluate();
    });
    connect(run_, &RunPanel::optimiseRequested, this, &WorkbenchWindow::startOptimisation);
    connect(run_, &RunPanel::pauseRequested, this, [this] {
        pauseRequested_ = true;
        session_.pause();
        showRunStatus({tr("pausing after this iteration…"), tr("pausing…")});
        updateRunState();
    });
    connect(run_, &RunPanel::resumeRequested, this, [this] {
        pauseRequested_ = false;
        session_.resume();
        updateRunState();
    });
    connect(run_, &RunPanel::stopRequested, this, [this] {
        session_.stop(tr("stopped by you"));
        showRunStatus({tr("stopping after this iteration…"), tr("stopping…")});
    });
    connect(run_, &RunPanel::resetRatesRequested, this, &WorkbenchWindow::resetRates);
    connect(run_, &RunPanel::deviceChanged, this, [this] {
        if (dataset_) session_.changeDevice(run_->device(), batchLimits());
    });
    connect(run_, &RunPanel::clearWarmStartsRequested, &session_, &EngineSession::clearWarmStarts);
    connect(run_, &RunPanel::shownCategoryChanged, this, [this](int category) {
        tree_->setCategory(category);
        waves_->setCategory(category);
        cells_->setCategory(category);
    });
    connect(knobs_, &SolverKnobsPanel::optionsChanged, this, [this](const SolverOptions& options) {
        session_.setSolverOptions(options);
        tree_->setSolverOptions(options);
        waves_->setSolverOptions(options);
        reconciliations_->setSolverOptions(options);
        cells_->setSolverOptions(options);
    });
    connect(families_, &FamiliesPanel::familySelected, this, [this](int family) {
        selectedFamily_ = family;
        waves_->setSelectedFamily(family);
        tree_->setSelectedFamily(family);
        updateRateRow();
    });
    connect(waves_, &WavesPanel::cladeSelected, tree_, &SpeciesTreePanel::showClade);
    connect(waves_, &WavesPanel::cladeSelected, cells_, &CellTermsPanel::setClade);
    connect(tree_, &SpeciesTreePanel::speciesSelected, cells_, &CellTermsPanel::setSpecies);
    connect(tree_, &SpeciesTreePanel::speciesSelected, this, [this](int node) {
        selectedSpecies_ = node;
        updateRateRow();
    });
}

void WorkbenchWindow::connectReconciliations() {
    connect(families_, &FamiliesPanel::familiesSelected, reconciliations_, &ReconciliationPanel::setFamilies);
    connect(reconciliations_, &ReconciliationPanel::logMessage, this, &WorkbenchWindow::appendLog);
    connect(reconciliations_, &ReconciliationPanel::sampled, this, [this](bool ok) {
        if (!ok) return;
        std::size_t samples = 0;
        for (const ReconciliationGroup& g : reconciliations_->groups())
            samples += g.samples.size();
        appendLog(tr("Showing %1 reconciliation(s) of %2 family(ies)")
                      .arg(samples)
                      .arg(reconciliations_->groups().size()));
        // Per-species means colour the tree only when they are over the loaded species tree.
        const bool ours = dataset_ && reconciliations_->species() == &dataset_->species;
        tree_->setEventSummary(ours ? std::make_shared<const ReconciliationSummary>(reconciliations_->total())
                                    : nullptr);
        std::map<int, ReconciliationSummary> summaries;
        for (const ReconciliationGroup& g : reconciliations_->groups())
            if (ours && g.family >= 0) summaries[g.family] = g.summary;
        families_->model()->setSampledEvents(summaries);
    });
    // Linked views: a branch click filters the families, a transfer carrier selects its family.
    connect(tree_, &SpeciesTreePanel::speciesSelected, families_, &FamiliesPanel::setBranchFilter);
    connect(reconciliations_, &ReconciliationPanel::familyRequested, families_, &FamiliesPanel::selectFamily);
    // A story's draw at (clade, species): the tree shows the clade's Π row, the Cell equation its terms.
    connect(tour_, &GuidedTourPanel::stopShown, this, &WorkbenchWindow::showTourStop);
    connect(tour_, &GuidedTourPanel::finished, this, [this] { findChild<QDockWidget*>("tourDock")->hide(); });
    connect(reconciliations_, &ReconciliationPanel::storyCellShown, this,
            [this](int family, int clade, int species) {
                tree_->showClade(family, clade);
                cells_->setClade(family, clade);
                if (species >= 0) cells_->setSpecies(species);
            });
}

void WorkbenchWindow::connectSession() {
    connect(&session_, &EngineSession::logMessage, this, &WorkbenchWindow::appendLog);
    connect(&session_, &EngineSession::modelReady, this,
            [this](const QString& device, const QString& note, const QString& plan) {
                deviceLabel_->setTexts(device, deviceName(device));
                if (!note.isEmpty()) appendLog(note);
                appendLog(tr("Engine ready on %1: %2").arg(device, plan));
                run_->showError({});
            });
    connect(&session_, &EngineSession::modelFailed, this, [this](const QString& message) {
        deviceLabel_->setText(tr("no engine"));
        appendLog(tr("Could not open the device: %1").arg(message));
        run_->showError(message);
    });
    connect(&session_, &EngineSession::runStarted, this, [this](RunKind kind) {
        runProgress_ = kind == RunKind::Evaluation ? tr("evaluating…") : tr("optimising…");
        showRunStatus();
        updateRunState();
    });
    connect(&session_, &EngineSession::iterationFinished, this, [this](const IterationSample& s) {
        unsavedRun_ = true;
        plots_->addSample(s);
        runProgress_ = {tr("iteration %1 · NLL %2 bits").arg(s.iteration).arg(bits(s.nllBits)),
                        tr("it. %1 · %2 bits").arg(s.iteration).arg(bits(s.nllBits))};
        showRunStatus(runState_);
        showTiming(timingLabel_, s.stats.seconds);
        autosave();
    });
    connect(&session_, &EngineSession::pausedChanged, this, [this](bool paused) {
        showRunStatus(paused ? tr("paused") : QString());
        appendLog(paused ? tr("Paused") : tr("Resumed"));
    });
    connect(&session_, &EngineSession::runFinished, this, [this](const RunOutcome& o) {
        if (o.kind == RunKind::Optimisation) plots_->finishRun();
        pauseRequested_ = false;
        if (o.kind == RunKind::Optimisation) recordOptimisation(o);
        updateRunState();
        if (o.kind == RunKind::Optimisation) writeAutosave(); // the final rates
        if (!o.error.isEmpty()) {
            run_->showError(o.error);
            appendLog(tr("Run failed: %1").arg(o.error));
            showRunStatus({}, tr("failed"));
            return;
        }
        families_->model()->setLogLikelihoods(o.familyLogLikelihood);
        showTiming(timingLabel_, o.stats.seconds);
        for (const std::string& line : earlyStopWarnings(o.stats)) // the CLI's text
            appendLog(tr("Warning: %1").arg(QString::fromStdString(line)));
        if (o.kind == RunKind::Evaluation) {
            showRunStatus({}, tr("NLL %1 bits").arg(bits(o.nllBits)));
            appendLog(tr("Evaluated: NLL %1 bits (log-likelihood %2)")
                          .arg(bits(o.nllBits))
                          .arg(-o.nllBits * std::log(2.0), 0, 'f', 4));
        } else {
            showRunStatus(
                {}, StatusText{
                        tr("done after %1 · best NLL %2 bits").arg(iterations(o.iterations), bits(o.nllBits)),
                        tr("done · %1 bits").arg(bits(o.nllBits))});
            appendLog(tr("Optimisation finished after %1: %2. Best NLL %3 bits; the best rates are kept.")
                          .arg(iterations(o.iterations))
                          .arg(o.stopReason.isEmpty() ? tr("stopped") : o.stopReason)
                          .arg(bits(o.nllBits)));
        }
    });
    connect(&session_, &EngineSession::parametersChanged, this, [this](const RateParameters& theta) {
        run_->showCurrentRates(theta);
        tree_->setParameters(theta);
        waves_->setParameters(theta);
        reconciliations_->setParameters(theta);
        cells_->setParameters(theta);
        transferRates_->setParameters(theta);
        families_->model()->setRates(theta);
    });
}

bool WorkbenchWindow::openInput(const LoadRequest& request) {
    if (!confirmDiscardRun(tr("load other data"))) return false;
    loadInput(request);
    return true;
}

void WorkbenchWindow::loadInput(const LoadRequest& request) {
    lastRequest_ = request;
    loadProgress_->setRange(0, 0);
    loadProgress_->show();
    appendLog(tr("Loading %1").arg(describe(request)));
    loader_.load(request);
}

void WorkbenchWindow::showOpenDialog(const LoadRequest* prefill) {
    OpenInputDialog dialog(this);
    dialog.setRequest(prefill ? *prefill : lastRequest_);
    if (dialog.exec() == QDialog::Accepted) openInput(dialog.request());
}

void WorkbenchWindow::openPaths(const QStringList& paths) {
    DiscoveredInput found = discoverInput(paths, dataset_ != nullptr);
    if (found.speciesTree.isEmpty() && dataset_)
        found.speciesTree = QString::fromStdString(lastRequest_.paths.speciesTree);
    for (const QString& ignored : found.ignored)
        appendLog(tr("Ignored %1 (not a tree, mapping or families file)").arg(ignored));
    LoadRequest request = lastRequest_;
    request.paths = {};
    request.paths.speciesTree = found.speciesTree.toStdString();
    request.paths.familiesFile = found.familiesFile.toStdString();
    bool anyMapping = false;
    for (int i = 0; i < found.geneTrees.size(); ++i) {
        request.paths.geneTrees.push_back(found.geneTrees[i].toStdString());
        request.paths.geneTreeMappings.push_back(found.mappings[i].toStdString());
        anyMapping = anyMapping || !found.mappings[i].isEmpty();
    }
    if (!anyMapping) request.paths.geneTreeMappings.clear();
    if (found.complete())
        openInput(request);
    else
        showOpenDialog(&request);
}

void WorkbenchWindow::onLoaded(const LoadOutcome& outcome) {
    loadProgress_->hide();
    std::optional<SessionState> session;
    session.swap(pendingSession_);
    std::vector<LoadProblem> problems = session ? sessionProblems_ : std::vector<LoadProblem>{};
    problems.insert(problems.end(), outcome.problems.begin(), outcome.problems.end());
    problems_->showProblems(problems, outcome.dataset != nullptr);
    if (!problems.empty()) raiseDock("problemsDock");
    if (!outcome.dataset) {
        appendLog(tr("Could not load %1 (see Problems)").arg(describe(outcome.request)));
        emit inputLoaded(false);
        if (session) emit sessionOpened(false);
        return;
    }
    recent_.add(outcome.request);
    rebuildRecentMenu();
    dataset_ = outcome.dataset;
    schedule_ = outcome.waves;
    selectedFamily_ = selectedSpecies_ = -1;
    unsavedRun_ = false;
    const Dataset& d = *dataset_;
    setWindowTitle(tr("gpurec workbench — %1").arg(describe(outcome.request)));
    const QLocale locale;
    datasetLabel_->setTexts(
        tr("%1 species · %2 families · %3 clades")
            .arg(locale.toString(d.species.leafCount()), locale.toString(int(d.families.size())),
                 locale.toString(d.cladeCount())),
        tr("%1 species · %2 families")
            .arg(locale.toString(d.species.leafCount()), locale.toString(int(d.families.size()))));
    datasetLabel_->setToolTip(
        tr("Loaded dataset: %1 species (%2 tree nodes), %3 families, %4 clades, %5 splits")
            .arg(locale.toString(d.species.leafCount()), locale.toString(d.species.size()),
                 locale.toString(int(d.families.size())), locale.toString(d.cladeCount()),
                 locale.toString(d.splitCount())));
    showRunStatus({}, QString());
    timingLabel_->clear();
    tree_->setSolverOptions(knobs_->options());
    waves_->setSolverOptions(knobs_->options());
    // The panels' tables come from the session's backend (the GPU when the session runs there).
    const FamilyTablesSource tables = sessionTables(session_.tableRequests(), dataset_);
    tree_->setDataset(dataset_, tables);
    waves_->setDataset(dataset_, schedule_, tables);
    families_->setDataset(dataset_);
    run_->setPresentRates(dataset_->events.presentRates());
    if (const QString moved = run_->setModel(d.origination, d.speciationCategories); !moved.isEmpty())
        appendLog(moved);
    reconciliations_->setDataset(dataset_, tables);
    transferRates_->setDataset(dataset_);
    // Shown for data with transfer highways or pairwise transfers only: a fifth tab overflows the bar.
    tabs_->setTabVisible(tabs_->indexOf(transferRates_), !d.highways.empty());
    cells_->setSolverOptions(knobs_->options());
    cells_->setDataset(dataset_, tables);
    reconciliations_->setSolverOptions(knobs_->options());
    setTruth(outcome.truth, outcome.truthFile);
    plots_->clear();
    QStringList familyNames;
    for (const GeneFamily& f : d.families)
        familyNames << QString::fromStdString(f.name);
    plots_->setFamilyNames(familyNames);
    session_.open(dataset_, run_->device(), batchLimits(), startingParameters(), knobs_->options());
    updateRateRow();
    updateRunState();
    appendLog(tr("Loaded %1 families on %2 species in %3 s (%4 problem(s))")
                  .arg(d.families.size())
                  .arg(d.species.leafCount())
                  .arg(outcome.seconds, 0, 'f', 2)
                  .arg(outcome.problems.size()));
    emit inputLoaded(true);
    if (session)
        applySession(*session);
    else if (truth_ && d.species.leafCount() <= kTourSpeciesLimit)
        startGuidedTour();
    else
        findChild<QDockWidget*>("tourDock")->hide();
}

RateParameters WorkbenchWindow::startingParameters() {
    // An unreadable starting value is shown, and its default used.
    auto orDefault = [this](auto read, auto fallback, const QString& note) {
        try {
            return read();
        } catch (const std::exception& e) {
            run_->showError(QString::fromStdString(e.what()) + note);
            return fallback;
        }
    };
    const Rates start = orDefault([this] { return run_->startingRates(); }, Rates{}, tr(" (using 0.1)"));
    const double alpha = dataset_->speciationCategories > 1
                             ? orDefault([this] { return run_->startingAlpha(); }, 1.0, tr(" (using 1)"))
                             : 1.0;
    // The Run panel offers only the parametrisations the loaded model accepts (RunPanel::setModel).
    return makeParameters(parseParametrization(run_->parametrization(), dataset_->origination), *dataset_,
                          start, alpha);
}

BatchLimits WorkbenchWindow::batchLimits() const {
    BatchLimits limits;
    limits.memoryBytes = run_->memoryLimitBytes();
    return limits;
}

void WorkbenchWindow::startOptimisation() {
    OptimizerSettings settings;
    try {
        settings = run_->optimizerSettings();
    } catch (const std::exception& e) {
        run_->showError(QString::fromStdString(e.what()));
        return;
    }
    run_->showError({});
    runStart_ = RatesState{session_.parameters(), plots_->samples()};
    // Named for the overlay it may become: "converged schedule, L-BFGS-B, per family".
    plots_->startRun(tr("%1 schedule, %2, %3 rates")
                         .arg(QString::fromStdString(toString(knobs_->options().schedule)),
                              settings.kind == OptimizerKind::Lbfgsb ? tr("L-BFGS-B") : tr("Adam"),
                              parametrizationName(session_.parameters())));
    updateRateRow();
    reconciliations_->setRateBounds(settings.min_rate, settings.max_rate);
    session_.optimise(settings);
}

void WorkbenchWindow::updateRunState() {
    run_->setState(dataset_ != nullptr, session_.running(), pauseRequested_);
    updateUndoActions();
}

void WorkbenchWindow::updateRateRow() {
    if (!dataset_) return;
    const RateParameters& theta = session_.parameters();
    plots_->setShapeEntry(theta.shapeEntry());
    switch (theta.mode()) {
    case RateMode::Global:
        plots_->setRateRow(0, tr("global"));
        break;
    case RateMode::Specieswise: {
        int node = selectedSpecies_ >= 0 ? selectedSpecies_ : dataset_->species.root();
        plots_->setRateRow(node, tr("species %1 (click another branch)")
                                     .arg(QString::fromStdString(dataset_->species.name(node))));
        break;
    }
    case RateMode::Genewise: {
        int family = selectedFamily_ >= 0 ? selectedFamily_ : 0;
        plots_->setRateRow(family, tr("family %1 (select another in the table)")
                                       .arg(QString::fromStdString(dataset_->families[family].name)));
        break;
    }
    case RateMode::Classes: // the workbench fits no class parametrisation
        break;
    }
}

void WorkbenchWindow::raiseDock(const QString& objectName) {
    if (auto* dock = findChild<QDockWidget*>(objectName)) {
        dock->show();
        dock->raise();
    }
}

QString WorkbenchWindow::statusText() const {
    QStringList parts;
    for (ElidingLabel* l : {datasetLabel_, iterationLabel_, timingLabel_, deviceLabel_})
        if (!l->text().isEmpty()) parts << l->text();
    return parts.join(" | ");
}

void WorkbenchWindow::showRunStatus(const StatusText& state, std::optional<StatusText> progress) {
    if (progress) runProgress_ = *progress;
    runState_ = state;
    auto joined = [](const QString& a, const QString& b) {
        return a.isEmpty() || b.isEmpty() ? a + b : a + " · " + b;
    };
    auto shorter = [](const StatusText& t) { return t.compact.isEmpty() ? t.text : t.compact; };
    const QString text = joined(runProgress_.text, runState_.text);
    const QString compact = joined(shorter(runProgress_), shorter(runState_));
    iterationLabel_->setTexts(text, compact == text ? QString() : compact);
}

void WorkbenchWindow::appendLog(const QString& text) {
    log_->appendPlainText(QDateTime::currentDateTime().toString("hh:mm:ss  ") + text);
}

void WorkbenchWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (shown_) return;
    shown_ = true;
    // Size hints would give the tree most of the room; start at 1:2 for tree and plots, once laid out.
    QTimer::singleShot(0, this, [this] {
        const int width = central_->width();
        central_->setSizes({width / 3, width - width / 3});
    });
}

void WorkbenchWindow::closeEvent(QCloseEvent* event) {
    if (!confirmDiscardRun(tr("quit"))) {
        event->ignore();
        return;
    }
    setPresenterView(false); // the layout a next start restores is the working one
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kDockStateKey, saveState(kDockStateVersion));
    QMainWindow::closeEvent(event);
}

void WorkbenchWindow::restoreWindowLayout() {
    QSettings settings;
    // restoreGeometry moves a window saved on a screen that is gone back onto this one.
    // Docks first: the default four-column layout may need more width than a compact one saved on a
    // small screen, and would widen the restored window.
    const bool docksRestored = restoreState(settings.value(kDockStateKey).toByteArray(), kDockStateVersion);
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray()) || !docksRestored) fitToScreen();
}

void WorkbenchWindow::fitToScreen() {
    // In device-independent pixels: at QT_SCALE_FACTOR 1.5 a 1600×1000 screen is 1067×667 of them.
    const QRect available = screen()->availableGeometry();
    const QSize size = (available.size() * 0.92).expandedTo(minimumSizeHint()).boundedTo(available.size());
    setGeometry(QStyle::alignedRect(Qt::LeftToRight, Qt::AlignCenter, size, available));
    auto* familiesDock = findChild<QDockWidget*>("familiesDock");
    auto* runDock = findChild<QDockWidget*>("runDock");
    auto* knobsDock = findChild<QDockWidget*>("knobsDock");
    auto* tourDock = findChild<QDockWidget*>("tourDock");
    const int runNeeds =
        run_->minimumSizeHint().width() + style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 4;
    const int familiesNeeds = families_->widthForMainColumns();
    // Four columns (families, tree, plots, run) need about this much; a smaller window puts the Run
    // and Solver options panels in tabs beside the Families panel, so the tree and plots keep their room.
    const bool compact = size.width() < kFourColumnWidth;
    if (compact) {
        // The tour too: a column of its own would push the window off the screen.
        for (QDockWidget* dock : {runDock, knobsDock, tourDock}) {
            addDockWidget(Qt::LeftDockWidgetArea, dock);
            tabifyDockWidget(familiesDock, dock);
        }
    } else {
        for (QDockWidget* dock : {runDock, knobsDock})
            addDockWidget(Qt::RightDockWidgetArea, dock);
        tabifyDockWidget(runDock, knobsDock);
        addDockWidget(Qt::RightDockWidgetArea, tourDock, Qt::Vertical);
    }
    runDock->raise();
    // Docks share the width by proportion (no fixed minimum that a small screen cannot hold). The
    // Families and Run panels get the width their columns and fields need when the screen has it.
    if (compact) {
        // What the central views leave (their minimum, a splitter handle and frames), or the window
        // would grow past the screen.
        const int left = size.width() - central_->minimumSizeHint().width() - 12;
        resizeDocks({familiesDock},
                    {std::min(left, std::clamp(std::max(familiesNeeds, runNeeds), size.width() / 5,
                                               size.width() / 3))},
                    Qt::Horizontal);
    } else {
        resizeDocks({familiesDock, runDock},
                    {std::clamp(familiesNeeds, size.width() / 6, size.width() / 4),
                     std::clamp(runNeeds, size.width() / 5, size.width() / 3)},
                    Qt::Horizontal);
    }
    resizeDocks({findChild<QDockWidget*>("logDock")}, {size.height() / 6}, Qt::Vertical);
}

bool WorkbenchWindow::confirmDiscardRun(const QString& action) {
    if (!hasUnsavedRun()) return true;
    QMessageBox box(QMessageBox::Warning, tr("Unsaved run"),
                    tr("The optimisation run in memory has not been saved as a session. Save it before "
                       "you %1?")
                        .arg(action),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setObjectName("unsavedRunPrompt");
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Discard:
        return true;
    case QMessageBox::Save: {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save session"), "session.gpurec.json",
                                                          tr("gpurec sessions (*.json)"));
        return !path.isEmpty() && saveSession(path);
    }
    default:
        return false;
    }
}

QString WorkbenchWindow::userGuidePath() {
    const QString exe = QCoreApplication::applicationDirPath();
    for (const QString& candidate : {QStringLiteral(GPUREC_SOURCE_DIR "/docs/user-guide.md"),
                                     exe + "/../share/doc/gpurec/user-guide.md", exe + "/docs/user-guide.md"})
        if (QFileInfo::exists(candidate)) return QFileInfo(candidate).canonicalFilePath();
    return {};
}

void WorkbenchWindow::showUserGuide() {
    const QString path = userGuidePath();
    if (path.isEmpty()) {
        QMessageBox::information(this, tr("User guide"),
                                 tr("The user guide (docs/user-guide.md) is not beside this executable nor "
                                    "in the source folder %1.")
                                     .arg(GPUREC_SOURCE_DIR));
        return;
    }
    auto* viewer = findChild<QDialog*>("userGuide");
    if (!viewer) {
        viewer = new QDialog(this);
        viewer->setObjectName("userGuide");
        viewer->setWindowTitle(tr("gpurec workbench — user guide"));
        auto* browser = new QTextBrowser;
        browser->setObjectName("userGuideText");
        browser->setAccessibleName(tr("User guide"));
        browser->setOpenExternalLinks(true);
        browser->setSource(QUrl::fromLocalFile(path)); // .md: read as Markdown, images beside it
        auto* layout = new QVBoxLayout(viewer);
        layout->addWidget(browser);
        const QRect available = screen()->availableGeometry();
        viewer->resize(QSize(900, 1100).boundedTo(available.size() * 0.9));
    }
    viewer->show();
    viewer->raise();
    viewer->activateWindow();
}

std::vector<std::pair<QString, QString>> WorkbenchWindow::shortcuts() const {
    std::vector<std::pair<QString, QString>> out;
    std::function<void(const QMenu*, const QString&)> walk = [&](const QMenu* menu, const QString& path) {
        for (QAction* a : menu->actions()) {
            const QString name = path + " ▸ " + QString(a->text()).remove('&');
            if (a->menu())
                walk(a->menu(), name);
            else if (!a->shortcut().isEmpty())
                out.emplace_back(name, a->shortcut().toString(QKeySequence::NativeText));
        }
    };
    for (QAction* a : menuBar()->actions())
        if (a->menu()) walk(a->menu(), QString(a->text()).remove('&'));
    // The wave stepper's keys work inside the clade-waves view (WaveStepper::installShortcuts).
    for (const auto& [name, keys] : WaveStepper::keyHelp())
        out.emplace_back(tr("Clade waves ▸ %1").arg(name), keys);
    for (const auto& [name, keys] : BacktrackPanel::keyHelp())
        out.emplace_back(tr("Reconciliations ▸ Backtracking ▸ %1").arg(name), keys);
    return out;
}

void WorkbenchWindow::showShortcuts() {
    QString rows;
    for (const auto& [name, keys] : shortcuts())
        rows +=
            QString("<tr><td>%1</td><td><b>%2</b></td></tr>").arg(name.toHtmlEscaped(), keys.toHtmlEscaped());
    QMessageBox box(
        QMessageBox::NoIcon, tr("Keyboard shortcuts"),
        tr("<table cellspacing=6>%1</table><p>In the species tree and the clade DAG: mouse "
           "wheel zooms, dragging pans. In the plots: the wheel zooms, dragging pans, a double-click "
           "shows all the data again.</p>")
            .arg(rows),
        QMessageBox::Close, this);
    box.setObjectName("shortcutsDialog");
    box.exec();
}

void WorkbenchWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void WorkbenchWindow::dropEvent(QDropEvent* event) {
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile()) paths << url.toLocalFile();
    if (paths.isEmpty()) return;
    event->acceptProposedAction();
    openPaths(paths);
}

} // namespace gpurec::ui
