#pragma once
// The clade-waves view: the wave-size plot of all families above the selected family's clade DAG,
// whose clades can be coloured by a per-clade quantity of the engine's solve (a heat map, computed
// off the GUI thread), and a stepper that walks the clades in the order the waves compute them.
#include "engine/clade_statistics.hpp"
#include "panels/wave_stepper.hpp"
#include "plots/wave_plot.hpp"
#include "views/clade_dag_view.hpp"

#include <QFutureWatcher>
#include <QTimer>
#include <QWidget>
#include <memory>
#include <optional>

class QComboBox;
class QLabel;

namespace gpurec::ui {

class WavesPanel : public QWidget {
    Q_OBJECT
  public:
    explicit WavesPanel(QWidget* parent = nullptr);
    // `tables`: where the heat map's tables of `data`'s families come from (the session's backend).
    void setDataset(std::shared_ptr<const Dataset> data, std::shared_ptr<const WaveSchedule> waves,
                    FamilyTablesSource tables);
    void setSelectedFamily(int family);
    // Rates and solver options the heat map is computed at (recomputed shortly after a change).
    void setParameters(const RateParameters& theta);
    void setSolverOptions(const SolverOptions& options);
    // The speciation category whose tables the heat map shows (0-based; worker/table_requests.hpp).
    void setCategory(int category);
    WavePlot* plot() const { return plot_; }
    CladeDagView* dag() const { return dag_; }
    WaveStepper* stepper() const { return stepper_; }

    // What the clades are coloured by.
    enum class CladeColouring { WavePhase, SelfLoopIterations, Posterior, Log10Probability };
    void setColouring(CladeColouring colouring);
    QComboBox* colouringBox() const { return colouring_; }
    // Starts computing the selected family's statistics now (otherwise done on a short timer);
    // heatMapShown() follows once they colour the clades.
    void updateHeatMap();
    // From a request until its result is shown or discarded (the family changed meanwhile).
    bool heatMapComputing() const { return heatComputing_; }
    // The statistics the heat map shows (none while colouring by wave phase, without a family, or
    // until the selected family's are computed).
    const std::optional<CladeStatistics>& cladeStatistics() const { return stats_; }
    // The values coloured for `colouring` from `stats`.
    static std::vector<double> valuesOf(const CladeStatistics& stats, CladeColouring colouring);

    // A computation's outcome: statistics, or why there are none.
    struct HeatMapResult {
        std::shared_ptr<const Dataset> data;
        int family = -1;
        int category = 0;
        std::optional<CladeStatistics> stats;
        QString error;
    };

  signals:
    void cladeSelected(int family, int clade);
    void heatMapShown();

  private:
    CladeColouring colouring() const;
    void showHeatMap(); // colours from stats_ for the chosen quantity
    void finishHeatMap(HeatMapResult result);

    WavePlot* plot_;
    CladeDagView* dag_;
    WaveStepper* stepper_;
    QLabel* caption_;
    QLabel* heatNote_;
    QComboBox* colouring_;
    QTimer heatTimer_;
    QFutureWatcher<HeatMapResult> heatWatcher_;
    bool heatComputing_ = false; // until the last computation started has been shown or dropped
    bool heatPending_ = false;   // asked for while one was computing: started when it ends
    std::optional<CladeStatistics> stats_;
    RateParameters theta_;
    SolverOptions options_;
    std::shared_ptr<const Dataset> data_;
    FamilyTablesSource tables_;
    std::shared_ptr<const WaveSchedule> waves_;
    int family_ = -1;
    int category_ = 0;
};

} // namespace gpurec::ui
