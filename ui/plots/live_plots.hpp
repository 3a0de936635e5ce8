#pragma once
// Plots of a running optimisation, one point per iteration: loss (NLL in bits, or its gap to the
// best NLL shown), the D/L/T rates of one parameter row on a log axis, the projected gradient norm,
// and the solver's diagnostics; against iteration, evaluation count or wall time. Finished runs can
// be kept as overlays (lighter lines in the loss and gradient plots) to compare the next run with.
// Replots are coalesced so thousands of points stay responsive; a view the user zoomed or panned is
// kept while points arrive, until Reset view (or a double-click). In genewise L-BFGS-B runs a table
// below the plots shows each family's own convergence.
#include "worker/engine_session.hpp"

#include <QHash>
#include <QTimer>
#include <QWidget>
#include <cmath>
#include <functional>
#include <list>
#include <qcustomplot.h>

class QComboBox;
class QAbstractButton;
class QAction;

namespace gpurec::ui {

class ConvergenceTable;

class LivePlots : public QWidget {
    Q_OBJECT
  public:
    enum class LossView { Absolute, GapToBest };
    enum class XAxis { Iteration, Evaluations, Seconds };
    struct Overlay {
        QString name;
        std::vector<IterationSample> samples;
    };

    explicit LivePlots(QWidget* parent = nullptr);

    // Forgets the current run's points (overlays stay).
    void clear();
    // Clears and starts a run described by `description` ("converged schedule, L-BFGS-B"), the
    // name it gets when kept as an overlay.
    void startRun(const QString& description);
    // The run ended (finished or stopped): it can now be kept as an overlay.
    void finishRun();
    void addSample(const IterationSample& sample);
    // Which θ row the rates plot follows, and how to name it ("global", "species X", "family Y").
    void setRateRow(int row, const QString& scope);
    // θ's entry holding the speciation categories' shape α, drawn in the rates plot (−1: none).
    void setShapeEntry(int entry);
    // Names of the families, for the per-family convergence table (clears it).
    void setFamilyNames(const QStringList& names);
    int pointCount() const;
    // Every sample added since the last clear (sessions save them to redraw the plots).
    const std::vector<IterationSample>& samples() const { return samples_; }

    // A copy of the current run becomes an overlay named "run N: description"; false when there is
    // nothing to keep, a run is going on or this run was kept already.
    bool keepAsOverlay();
    void clearOverlays();
    const std::list<Overlay>& overlays() const { return overlays_; }
    // The number of the current run (the next is named one more) and whether it is kept already.
    int runNumber() const { return runNumber_; }
    bool currentRunKept() const { return kept_; }
    // Puts back the overlays of a session (replacing these) with the run number and whether the
    // current run, whose samples were added since the last clear, is one of them.
    void restoreOverlays(std::list<Overlay> overlays, int runNumber, bool currentRunKept);

    void setLossView(LossView view);
    LossView lossView() const { return lossView_; }
    void setXAxis(XAxis axis);
    XAxis xAxis() const { return xAxis_; }
    // Rescales every plot to its data and follows new points again.
    void resetView();
    void resetView(QCustomPlot* plot);
    bool followsData(QCustomPlot* plot) const { return !userView_.value(plot, false); }
    // Drawn points replace values ≤ 0 on a logarithmic axis by this: the smallest positive value on
    // that axis / 10 (1 when there is none).
    double logFloor(const QCPAxis* axis) const { return floors_.value(axis, 1.0); }
    // The value a drawn point stands for (before a log axis' floor), by graph and data index.
    double trueValue(const QCPGraph* graph, int index) const;
    // The hover text at a pixel of `plot`: the nearest point's series, x and y; empty when no
    // point is within reach.
    QString tooltipAt(QCustomPlot* plot, const QPointF& pixel) const;
    // Lays out and redraws now instead of at the next timer tick (tests, screenshots).
    void replotNow();

    QCustomPlot* lossPlot() const { return loss_; }
    QCustomPlot* ratesPlot() const { return rates_; }
    QCustomPlot* gradientPlot() const { return gradient_; }
    QCustomPlot* diagnosticsPlot() const { return diagnostics_; }
    QComboBox* lossViewBox() const { return lossViewBox_; }
    QComboBox* xAxisBox() const { return xAxisBox_; }
    // The tool buttons of the Reset view, Keep run and Clear kept actions.
    QAbstractButton* resetViewButton() const { return resetButton_; }
    QAbstractButton* keepOverlayButton() const { return keepButton_; }
    QAbstractButton* clearOverlaysButton() const { return clearOverlaysButton_; }
    ConvergenceTable* convergenceTable() const { return convergence_; }
    // Diagnostics graphs, in this order; overlay graphs come after a plot's own ones.
    enum Diagnostic { EIterations, MaxPiIterations, BicgstabIterations, EResidual };

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    // One drawn line: a value of each sample of a run.
    struct Line {
        QCPGraph* graph;
        const std::vector<IterationSample>* samples;
        std::function<bool(const IterationSample&, double&)> value; // false: no point for this sample
        bool loss = false;                                          // shows the loss view (absolute or gap)
    };
    QCPGraph* addLine(QCustomPlot* plot, const QString& name, const QColor& colour, QCPAxis* valueAxis,
                      const std::vector<IterationSample>* samples,
                      std::function<bool(const IterationSample&, double&)> value, bool loss = false);
    void addOverlayLines(const Overlay& overlay, int index);
    void addOverlay(Overlay overlay);
    double keyOf(const IterationSample& s) const;
    QString keyLabel() const;
    void scheduleReplot();
    void replotAll();
    // Every line's points from its samples (after a change of view, overlays or floors).
    void refill();
    // Appends the newest sample's points; false when the best NLL or a log floor moved (refill).
    bool appendLatest();
    void updateButtons();
    void updateConvergence();

    QCustomPlot *loss_, *rates_, *gradient_, *diagnostics_;
    QComboBox *lossViewBox_, *xAxisBox_;
    QAbstractButton *resetButton_, *keepButton_, *clearOverlaysButton_;
    QAction *keepAction_, *clearOverlaysAction_;
    ConvergenceTable* convergence_;
    QTimer replotTimer_;
    std::vector<IterationSample> samples_;
    std::list<Overlay> overlays_; // a list: lines point at their samples
    std::vector<Line> lines_;
    QHash<const QCPGraph*, QVector<double>> trueValues_;
    QHash<const QCPAxis*, double> floors_;
    // The ranges the last rescale set; a plot whose ranges differ was zoomed or panned by the user.
    QHash<const QCustomPlot*, std::pair<QCPRange, QCPRange>> autoRanges_;
    QHash<const QCustomPlot*, bool> userView_;
    LossView lossView_ = LossView::Absolute;
    XAxis xAxis_ = XAxis::Iteration;
    double best_ = INFINITY;                         // lowest NLL of the shown runs
    QHash<const QCPAxis*, double> smallestPositive_; // per value axis, over its lines
    int ownLines_ = 0;                               // lines of the current run; overlay lines follow
    int rateRow_ = 0;
    int shapeEntry_ = -1;
    QCPGraph* alpha_ = nullptr;
    int runNumber_ = 0;
    QString runDescription_;
    bool running_ = false;
    bool kept_ = false; // the current run is an overlay already
};

} // namespace gpurec::ui
