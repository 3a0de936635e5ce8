#pragma once
// The Search tab: runs the species-tree search (HYBRID or REROOT, as `gpurec search`; under
// RELDATED, REROOT with the speciation order inferred) on a worker thread and shows it live: the
// total log-likelihood of every scored candidate and of the current tree, and the current tree
// itself, redrawn as moves are accepted. After the search the tree's branches are coloured by their
// bootstrap support; the best tree can be saved as Newick or taken as the working tree (the window
// reloads the families on it). The Compare tab sets the search's tree face to face with the start
// tree, or with a tree read from a file (a tanglegram).
#include "worker/search_run.hpp"

#include <QWidget>
#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QTabWidget;
class QTimer;

namespace gpurec::ui {

class SpeciesTreeView;
class TanglegramView;

class SearchPanel : public QWidget {
    Q_OBJECT
  public:
    explicit SearchPanel(QWidget* parent = nullptr);
    ~SearchPanel() override;

    // Whether there are families to search with (Start is enabled only then), why the loaded
    // model cannot be searched with ("" when it can: Start is disabled and the status says why), and
    // its transfer constraint (under RELDATED only REROOT with the speciation order inferred runs, as
    // requireSearchAllowed decides; the tab greys what it refuses with its message).
    void setDataAvailable(bool available, const QString& refusal = {},
                          TransferConstraint constraint = TransferConstraint::Parents);
    // Starts the search with the panel's settings on `data` (see SearchRun::start).
    void start(std::shared_ptr<const Dataset> data, const QString& device, const BatchLimits& limits,
               const SolverOptions& options, RateParameters start);
    SpeciesSearchSettings settings() const;
    SearchStart startFrom() const;
    // The tab's settings as a session keeps them (strategy, radius, seed, pre-screen, speciation
    // order, start); the speciation order stays off where the loaded data refuses it.
    void restoreSettings(const SpeciesSearchSettings& settings, SearchStart from);
    // "from the working tree", "from MiniNJ" or "from a random tree, seed N" (the Log's words).
    QString startDescription() const;

    SearchRun& run() { return run_; }
    QPushButton* startButton() const { return start_; }
    QPushButton* pauseButton() const { return pause_; }
    QPushButton* stopButton() const { return stop_; }
    QPushButton* saveButton() const { return save_; }
    QPushButton* adoptButton() const { return adopt_; }
    QCustomPlot* plot() const { return plot_; }
    // Colours of the best tree's branches: what the finished search measured.
    enum class Colouring { Bootstrap, RootLlr, NewClades };
    void setColouring(Colouring colouring);
    QComboBox* colouringBox() const { return colourBy_; }
    QComboBox* startFromBox() const { return startFrom_; }
    QSpinBox* seedBox() const { return seed_; }
    QSpinBox* prescreenBox() const { return prescreen_; }
    QDoubleSpinBox* sprCutoffBox() const { return sprCutoff_; }
    QDoubleSpinBox* sprMemoryBox() const { return sprMemory_; }
    QDoubleSpinBox* prescreenConfirmBox() const { return prescreenConfirm_; }
    QComboBox* strategyBox() const { return strategy_; }
    QCheckBox* speciationOrderBox() const { return speciationOrder_; }
    SpeciesTreeView* treeView() const { return view_; }
    QTabWidget* treeTabs() const { return treeTabs_; }
    TanglegramView* tanglegram() const { return tanglegram_; }
    QCheckBox* everyNameBox() const { return everyName_; }
    QScrollArea* tanglegramScroll() const { return tanglegramScroll_; }
    QComboBox* compareBox() const { return compareWith_; }
    QLabel* compareSummary() const { return compareSummary_; }
    // Compares the search's tree with the rooted species tree in `path` (Newick) instead of the start
    // tree. False, with the reason under the drawing, when it cannot be read or has other species.
    bool compareWithFile(const QString& path);
    void compareWithStartTree();
    QString statusText() const;
    // The best tree of the last search (empty before one has finished).
    const QString& bestNewick() const { return best_.bestNewick; }
    const SearchOutcome& outcome() const { return best_; }
    int stepCount() const { return steps_; }

  signals:
    void startRequested();
    // The user asked to save the best tree as a file, or to take it as the working tree.
    void saveRequested(const QString& newick);
    void adoptRequested(const QString& newick);
    // A setting the session keeps has changed.
    void settingsChanged();

  private:
    void onStep(const SearchStepSample& step);
    void onFinished(const SearchOutcome& outcome);
    void showTree(const QString& newick);
    void applyColouring();
    void replot();
    void updateComparison();
    void updateButtons();
    // The engine's refusal of the search as set (requireSearchAllowed's message; "" when it runs),
    // with the speciation order inferred or as ticked.
    QString engineRefusal(bool inferSpeciationOrder) const;
    // The model's refusal, else the engine's: what keeps Start greyed ("" when it runs).
    QString refusal() const;
    void updateRefusal(); // after the data or a setting changed

    SearchRun run_;
    QComboBox *strategy_, *colourBy_, *startFrom_;
    QSpinBox *radius_, *seed_, *prescreen_;
    QDoubleSpinBox* sprCutoff_;
    QDoubleSpinBox* sprMemory_;
    QDoubleSpinBox* prescreenConfirm_;
    QPushButton *start_, *pause_, *stop_, *save_, *adopt_;
    QLabel* status_;
    QCustomPlot* plot_;
    SpeciesTreeView* view_;
    QTabWidget* treeTabs_;
    TanglegramView* tanglegram_;
    QScrollArea* tanglegramScroll_;
    QCheckBox *everyName_, *speciationOrder_;
    QWidget* compareTab_;
    QComboBox* compareWith_;
    QLabel* compareSummary_;
    std::optional<SpeciesTree> startTree_, fileTree_;
    QString fileTreeName_;
    int comparedWith_ = 0; // the compare box's entry the drawing shows
    QTimer* redraw_;
    std::unique_ptr<SpeciesTree> shown_; // the tree in the view
    QString pendingNewick_;              // the latest accepted tree, drawn at the next redraw
    SearchOutcome best_;
    double startLogLikelihood_ = 0.0;
    int steps_ = 0;
    bool dataAvailable_ = false;
    QString refusal_, shownRefusal_; // the model's; the one the status shows
    TransferConstraint constraint_ = TransferConstraint::Parents;
    static QString introduction(); // the status before any search
    bool userView_ = false;        // the user zoomed or panned the plot: new points keep the view
};

} // namespace gpurec::ui
