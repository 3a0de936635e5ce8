#pragma once
// The Reconciliations view: samples reconciliations of the selected families at the current rates
// (off the GUI thread) or opens a RecPhyloXML file, draws each family's consensus with the support
// of its events, one sample at a time or all samples aggregated, tabulates events per species and
// transfers, and exports drawings and tables. Linked views: the drawn families follow the selection
// in the Families table (sampled ones, up to kMaxFamiliesDrawn), and clicking a cell of the transfer
// matrix highlights those transfers in the drawing and lists the families that carry them.
#include "data/dataset.hpp"
#include "engine/backend.hpp"
#include "model/rate_parameters.hpp"
#include "model/solver_options.hpp"
#include "panels/backtrack_panel.hpp"
#include "panels/event_tables.hpp"
#include "panels/truth_pane.hpp"
#include "recon/consensus.hpp"
#include "recon/recon_summary.hpp"
#include "views/reconciliation_view.hpp"

#include <QFutureWatcher>
#include <QWidget>
#include <cstdint>
#include <memory>

class QCheckBox;
class QLabel;
class QListWidget;
class QSplitter;
class QTabWidget;
class QRadioButton;
class QSlider;
class QSpinBox;

namespace gpurec::ui {

// Reconciliations of one family: sampled, or read from a file.
struct ReconciliationGroup {
    QString name;
    int family = -1; // dataset index; -1 for a file's families
    std::vector<Reconciliation> samples;
    ReconciliationSummary summary;        // means over the samples
    ConsensusReconciliation consensus;    // the best-supported sample and its supports
    std::optional<SamplingSource> source; // how this session drew them (a story retells them)
};

struct SamplingOutcome {
    std::vector<ReconciliationGroup> groups;
    QString error;
};

class ReconciliationPanel : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kMaxFamiliesDrawn = 8;
    // How the shown families are drawn.
    enum class Mode { Consensus, OneSample, Aggregate };
    // Rows of the tables below the drawing that stay visible when the panel has the height.
    static constexpr int kTableRows = 8;

    explicit ReconciliationPanel(QWidget* parent = nullptr);

    // `tables`: where the sampler's tables of `data`'s families come from (the session's backend).
    void setDataset(std::shared_ptr<const Dataset> data, FamilyTablesSource tables);
    void setParameters(const RateParameters& theta);
    void setSolverOptions(const SolverOptions& options);
    void setRateBounds(double minRate, double maxRate);
    // A simulated dataset's true reconciliations (nullptr: none): drawn beside the sampled ones for
    // the selected families while True history is checked (the guided tour checks it).
    void setTruth(std::shared_ptr<const RecPhyloDocument> truth, const QString& file);
    TruthPane* truthPane() const { return truth_; }
    void setTruthShown(bool shown);
    bool truthShown() const;
    // Selected in the Families table: the sampled ones among them are drawn (as consensus).
    void setFamilies(const std::vector<int>& families);

    // Samples the selected families (the Sample button); sampled() follows.
    void sample();
    bool sampling() const { return watcher_.isRunning(); }
    // Shows the reconciliations of a RecPhyloXML file (with its own species tree); sampled() follows.
    void openRecPhyloXml(const QString& path);
    // Shows reconciliations sampled earlier from the dataset (a session's); sampled() follows.
    void showSampled(std::vector<ReconciliationGroup> groups);
    void setMode(Mode mode);
    Mode mode() const;
    void setAggregate(bool aggregate); // All samples, or One sample
    void showSample(int index);        // switches to One sample
    // Highlights the transfers donor → recipient in the drawing and lists the families carrying
    // them (the transfer matrix's cell clicks); −1, −1 clears.
    void showTransferCarriers(int donor, int recipient);
    QListWidget* transferCarriers() const { return carriers_; }
    // Indices into groups() of the families drawn.
    const std::vector<int>& shownGroups() const { return shown_; }
    void setThreshold(double threshold);
    // Reconciliations drawn per family and the seed of the next sampling (sessions keep them).
    void setSampling(int count, std::uint64_t seed);
    int sampleCount() const;
    std::uint64_t sampleSeed() const;

    ReconciliationView* view() const { return view_; }
    const std::vector<ReconciliationGroup>& groups() const { return groups_; }
    // The species tree of what is shown (the dataset's, or the opened file's).
    const SpeciesTree* species() const;
    int currentSample() const;
    // Means summed over the shown families (expected numbers over families).
    const ReconciliationSummary& total() const { return total_; }
    SpeciesEventTable* speciesTable() const { return speciesTable_; }
    TransferMatrix* transferMatrix() const { return transfers_; }
    BacktrackPanel* backtrack() const { return backtrack_; }
    QTabWidget* tables() const { return tables_; }

    bool exportRecPhyloXml(const QString& path) const;
    bool exportSpeciesCsv(const QString& path) const;
    bool exportTransfersCsv(const QString& path) const;
    bool exportEventsCsv(const QString& path) const;

  signals:
    void sampled(bool ok);
    void logMessage(const QString& text);
    // A family of the dataset was picked in the list of transfer carriers.
    void familyRequested(int family);
    // The story's current draw happens at (clade, species) of family (species −1: the origination).
    void storyCellShown(int family, int clade, int species);

  private:
    void display(std::vector<ReconciliationGroup> groups, std::shared_ptr<const SpeciesTree> ownSpecies);
    void redraw();
    void updateControls();
    void exportMenu();
    void chooseShown(); // shown_ from the selection
    // The tables get kTableRows rows (at most a quarter of the height while the truth is shown)
    // unless the user moved the divider.
    void fitTableHeight();
    void offerStory(); // the one sample on show, if any, to the story tab
    int drawnSample(const ReconciliationGroup& group) const; // the index of the sample drawn of it

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    ReconciliationView* view_;
    TruthPane* truth_;
    QCheckBox* showTruth_;
    QLabel* sampledCaption_;
    SpeciesEventTable* speciesTable_;
    TransferMatrix* transfers_;
    BacktrackPanel* backtrack_;
    QSpinBox *samples_, *seed_, *index_;
    QRadioButton *consensus_, *oneSample_, *aggregate_;
    QSlider* threshold_;
    QLabel *thresholdLabel_, *info_, *carriersTitle_;
    QListWidget* carriers_;
    QSplitter* split_;
    QTabWidget* tables_;
    bool userSplit_ = false;
    QWidget* browse_;
    QFutureWatcher<SamplingOutcome> watcher_;

    std::shared_ptr<const Dataset> data_;
    FamilyTablesSource familyTables_;
    std::shared_ptr<const SpeciesTree> fileSpecies_; // set while a RecPhyloXML file is shown
    RateParameters theta_;
    SolverOptions options_;
    double minRate_ = 1e-10, maxRate_ = 2.0;
    std::vector<int> families_;
    std::vector<ReconciliationGroup> groups_;
    std::vector<int> shown_;
    ReconciliationSummary total_;
};

} // namespace gpurec::ui
