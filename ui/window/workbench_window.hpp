#pragma once
// The workbench's main window: loads data (dialog, drag and drop, recent inputs), shows the
// species tree, clade waves, reconciliations, families, live plots and problems, and drives the
// engine session. Sessions (save, open, autosave) are in workbench_session.cpp, undo in
// workbench_undo.cpp, the presenter view and figure export in workbench_presenter.cpp, the guided
// tour in workbench_tour.cpp.
#include "input/input_loader.hpp"
#include "session/recent_inputs.hpp"
#include "session/session_file.hpp"
#include "session/undo_commands.hpp"
#include "teaching/guided_tour.hpp"
#include "worker/engine_session.hpp"

#include <QElapsedTimer>
#include <QFont>
#include <QMainWindow>
#include <QPalette>
#include <QTimer>
#include <QUndoStack>
#include <optional>

class QAction;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QShortcut;
class QSplitter;
class QTabWidget;
class QUndoView;

namespace gpurec::ui {

class FamiliesPanel;
class GuidedTourPanel;
struct TourStop;
class LivePlots;
class ProblemsPanel;
class ReconciliationPanel;
class CellTermsPanel;
class ElidingLabel;
class RunPanel;
class SearchPanel;
class SolverKnobsPanel;
class SpeciesTreePanel;
class TransferRatesPanel;
class WavesPanel;

class WorkbenchWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit WorkbenchWindow(QWidget* parent = nullptr);
    ~WorkbenchWindow() override;

    // Loads in the background; inputLoaded() follows. With a run not saved yet, asks first
    // (confirmDiscardRun); false when the user kept it.
    bool openInput(const LoadRequest& request);
    // Files and folders (dropped or from the command line): loads when a species tree and families
    // are recognised, else opens the Open dialog filled with what was recognised.
    void openPaths(const QStringList& paths);
    void showOpenDialog(const LoadRequest* prefill = nullptr);

    std::shared_ptr<const Dataset> dataset() const { return dataset_; }
    const LoadRequest& lastRequest() const { return lastRequest_; }
    EngineSession& session() { return session_; }
    SpeciesTreePanel* speciesTreePanel() const { return tree_; }
    WavesPanel* wavesPanel() const { return waves_; }
    LivePlots* livePlots() const { return plots_; }
    FamiliesPanel* familiesPanel() const { return families_; }
    RunPanel* runPanel() const { return run_; }
    SolverKnobsPanel* knobsPanel() const { return knobs_; }
    ProblemsPanel* problemsPanel() const { return problems_; }
    QPlainTextEdit* logView() const { return log_; }
    QTabWidget* viewTabs() const { return tabs_; }
    ReconciliationPanel* reconciliationPanel() const { return reconciliations_; }
    CellTermsPanel* cellTermsPanel() const { return cells_; }
    SearchPanel* searchPanel() const { return search_; }
    TransferRatesPanel* transferRatesPanel() const { return transferRates_; }
    // Edit ▸ Undo / Redo: rate resets, mode changes, optimisations, solver options, the method.
    QUndoStack* undoStack() { return &undo_; }
    QAction* undoAction() const { return undoAction_; }
    QAction* redoAction() const { return redoAction_; }

    // Writes the session (inputs, settings, rates, history, selection); false (and a Log line) on failure.
    bool saveSession(const QString& path);
    // Restores the settings, reloads the input and then the rates, history and selection;
    // sessionOpened() follows. Problems (a damaged file, missing or changed inputs) go to Problems.
    void openSession(const QString& path);
    // Where the session is saved after every optimisation iteration.
    static QString autosavePath();
    // Brings a dock ("familiesDock", "runDock", "knobsDock", "problemsDock", "logDock") to the front.
    void raiseDock(const QString& objectName);
    QString statusText() const; // the status bar's fields joined, for tests and logs
    // Whether an optimisation ran (or runs) since the data was loaded or the session last saved.
    bool hasUnsavedRun() const { return unsavedRun_ || session_.running(); }
    // With an unsaved run, asks whether to save it (a file dialog), discard it or cancel; false
    // when the user cancels (or the save fails). `action` completes "…before you %1?".
    bool confirmDiscardRun(const QString& action);
    // Help ▸ User guide: docs/user-guide.md beside the sources or the installed executable ("" if absent).
    static QString userGuidePath();
    void showUserGuide();
    void showShortcuts();
    // Menu path and shortcut of every menu action that has one ("Run ▸ Optimise", "F6").
    std::vector<std::pair<QString, QString>> shortcuts() const;
    // The size and dock widths a first start gets on this screen (also the screenshot tour's).
    void fitToScreen();
    // Teaching: the presenter view (View ▸ Presenter view, F11; Esc leaves): full screen, docks
    // hidden so the tree and one view fill it, text kPresenterFontScale times larger, a
    // high-contrast palette. Leaving restores the layout, fonts and colours.
    static constexpr double kPresenterFontScale = 1.6;
    void setPresenterView(bool on);
    bool presenterView() const { return presenter_.has_value(); }
    static QPalette highContrastPalette();
    // File ▸ Export figure: the tree and the current view as they are (the current step of a
    // story or of the waves), at a chosen size, as SVG, PDF or PNG.
    void exportFigure();
    bool writeFigure(const QString& path, const QSize& size);
    // Teaching: Help ▸ Guided tour, for datasets simulated with their truth (truth/ beside the
    // input): a welcome, one stop per kind of event (duplication, transfer, loss) showing it in a
    // family's true history beside that family's sampled reconciliations, and what to try next. It
    // opens by itself when such a dataset has at most kTourSpeciesLimit species (the samples).
    static constexpr int kTourSpeciesLimit = 32;
    void startGuidedTour();
    GuidedTourPanel* guidedTour() const;
    const std::vector<TourExample>& tourExamples() const { return tourExamples_; }
    // Species-tree search (the Search tab): starts it on the loaded families from their tree, at
    // the session's global rates (the Run panel's starting rates in the other modes).
    void startSpeciesSearch();
    // Writes the search's best tree to `path` (Newick); false, with a Log line, when it cannot.
    bool saveSearchedTree(const QString& path);
    // Saves it and reloads the loaded input on it (asking first about an unsaved run).
    bool useSearchedTree(const QString& path);

  signals:
    void inputLoaded(bool ok);
    void sessionOpened(bool ok);

  protected:
    void showEvent(QShowEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

  private:
    void buildMenus();
    void connectPanels();
    void connectSession();
    void loadInput(const LoadRequest& request); // openInput without the question
    void onLoaded(const LoadOutcome& outcome);
    // Geometry and dock layout from QSettings, or a size fitted to the screen the first time.
    void restoreWindowLayout();
    void rebuildRecentMenu();
    RateParameters startingParameters();
    BatchLimits batchLimits() const;
    void updateRunState();
    void updateRateRow();
    void startOptimisation();
    void appendLog(const QString& text);
    // A status-bar text and the shorter words drawn when the field is narrow (empty: the text).
    struct StatusText {
        StatusText(const QString& text = {}, const QString& compact = {}) : text(text), compact(compact) {}
        QString text, compact;
    };
    // The status bar's run field: the run's progress ("iteration 3 · NLL … bits", kept when only
    // `progress` is left out) followed by its state ("paused"), if any.
    void showRunStatus(const StatusText& state = {}, std::optional<StatusText> progress = std::nullopt);
    void connectReconciliations();
    // Guided tour (workbench_tour.cpp).
    void setTruth(std::shared_ptr<const RecPhyloDocument> truth, const QString& file);
    std::vector<TourStop> tourStops() const;
    void showTourStop(int stop);
    // Species-tree search (workbench_search.cpp).
    void connectSearch();
    // Undo (workbench_undo.cpp).
    void buildEditMenu();
    void resetRates(); // to the starting values in the chosen mode, as a command
    void applyRates(const RatesState& state);
    void recordOptimisation(const RunOutcome& outcome); // the finished run as a command
    void updateUndoActions();                           // rate changes cannot be undone while the engine runs
    // Sessions (workbench_session.cpp).
    SessionState captureSession() const;
    void applySession(const SessionState& state);
    void restoreSamples(const SessionState& state); // into the Reconciliations view
    void connectAutosave();
    void autosave(); // now, or soon when the last autosave was just written
    void writeAutosave();

    InputLoader loader_;
    EngineSession session_;
    RecentInputs recent_;
    std::shared_ptr<const Dataset> dataset_;
    std::shared_ptr<const WaveSchedule> schedule_;
    LoadRequest lastRequest_;
    int selectedFamily_ = -1;
    int selectedSpecies_ = -1;
    bool pauseRequested_ = false;
    bool unsavedRun_ = false;
    StatusText runProgress_, runState_;
    std::optional<SessionState> pendingSession_; // applied once its input has loaded
    std::vector<LoadProblem> sessionProblems_;   // input files missing or changed since it was saved
    QElapsedTimer lastAutosave_;
    qint64 autosaveCostMs_ = 0; // what the last autosave took (sessions with many samples are large)
    QTimer autosaveTimer_;
    QUndoStack undo_;
    QAction *undoAction_ = nullptr, *redoAction_ = nullptr;
    QUndoView* undoView_ = nullptr;
    std::optional<RatesState> runStart_;            // the rates and history an optimisation started from
    std::shared_ptr<const RecPhyloDocument> truth_; // the loaded dataset's true reconciliations
    QString truthFile_;
    std::vector<TourExample> tourExamples_;

    SpeciesTreePanel* tree_;
    WavesPanel* waves_;
    LivePlots* plots_;
    FamiliesPanel* families_;
    RunPanel* run_;
    SolverKnobsPanel* knobs_;
    ProblemsPanel* problems_;
    ReconciliationPanel* reconciliations_;
    CellTermsPanel* cells_;
    GuidedTourPanel* tour_;
    SearchPanel* search_;
    TransferRatesPanel* transferRates_;
    QAction* tourAction_ = nullptr;
    QPlainTextEdit* log_;
    QTabWidget* tabs_;
    QSplitter* central_;
    bool shown_ = false;
    QMenu* recentMenu_ = nullptr;
    ElidingLabel *deviceLabel_, *datasetLabel_, *iterationLabel_, *timingLabel_;
    struct PresenterState {
        QByteArray docks;
        QFont font;
        QPalette palette;
        Qt::WindowStates states;
    };
    std::optional<PresenterState> presenter_;
    QAction* presenterAction_ = nullptr;
    QShortcut* leavePresenter_ = nullptr;
    QProgressBar* loadProgress_;
};

} // namespace gpurec::ui
