#pragma once
// The Reconciliations view: samples reconciliations of the selected families at the current rates
// (off the GUI thread) or opens a RecPhyloXML file, draws one sample at a time or all samples
// aggregated, tabulates events per species and transfers, and exports drawings and tables.
#include "data/dataset.hpp"
#include "event_tables.hpp"
#include "model/rate_parameters.hpp"
#include "model/solver_options.hpp"
#include "recon/recon_summary.hpp"
#include "reconciliation_view.hpp"

#include <QFutureWatcher>
#include <QWidget>
#include <memory>

class QLabel;
class QRadioButton;
class QSlider;
class QSpinBox;

namespace gpurec::ui {

// Reconciliations of one family: sampled, or read from a file.
struct ReconciliationGroup {
    QString name;
    int family = -1; // dataset index; -1 for a file's families
    std::vector<Reconciliation> samples;
    ReconciliationSummary summary; // means over the samples
};

struct SamplingOutcome {
    std::vector<ReconciliationGroup> groups;
    QString error;
};

class ReconciliationPanel : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kMaxFamiliesDrawn = 8;

    explicit ReconciliationPanel(QWidget* parent = nullptr);

    void setDataset(std::shared_ptr<const Dataset> data);
    void setParameters(const RateParameters& theta);
    void setSolverOptions(const SolverOptions& options);
    void setRateBounds(double minRate, double maxRate);
    void setFamilies(const std::vector<int>& families); // selected in the Families table

    // Samples the selected families (the Sample button); sampled() follows.
    void sample();
    // Shows the reconciliations of a RecPhyloXML file (with its own species tree); sampled() follows.
    void openRecPhyloXml(const QString& path);
    // Shows reconciliations sampled earlier from the dataset (a session's); sampled() follows.
    void showSampled(std::vector<ReconciliationGroup> groups);
    void setAggregate(bool aggregate);
    void showSample(int index);
    void setThreshold(double threshold);

    ReconciliationView* view() const { return view_; }
    const std::vector<ReconciliationGroup>& groups() const { return groups_; }
    // The species tree of what is shown (the dataset's, or the opened file's).
    const SpeciesTree* species() const;
    int currentSample() const;
    // Means summed over the shown families (expected numbers over families).
    const ReconciliationSummary& total() const { return total_; }
    SpeciesEventTable* speciesTable() const { return speciesTable_; }
    TransferMatrix* transferMatrix() const { return transfers_; }

    bool exportRecPhyloXml(const QString& path) const;
    bool exportSpeciesCsv(const QString& path) const;
    bool exportTransfersCsv(const QString& path) const;
    bool exportEventsCsv(const QString& path) const;

  signals:
    void sampled(bool ok);
    void logMessage(const QString& text);

  private:
    void display(std::vector<ReconciliationGroup> groups, std::shared_ptr<const SpeciesTree> ownSpecies);
    void redraw();
    void updateControls();
    void exportMenu();

    ReconciliationView* view_;
    SpeciesEventTable* speciesTable_;
    TransferMatrix* transfers_;
    QSpinBox *samples_, *seed_, *index_;
    QRadioButton *oneSample_, *aggregate_;
    QSlider* threshold_;
    QLabel *thresholdLabel_, *info_;
    QWidget* browse_;
    QFutureWatcher<SamplingOutcome> watcher_;

    std::shared_ptr<const Dataset> data_;
    std::shared_ptr<const SpeciesTree> fileSpecies_; // set while a RecPhyloXML file is shown
    RateParameters theta_;
    SolverOptions options_;
    double minRate_ = 1e-10, maxRate_ = 2.0;
    std::vector<int> families_;
    std::vector<ReconciliationGroup> groups_;
    ReconciliationSummary total_;
};

} // namespace gpurec::ui
