#pragma once
// Plots of a running optimisation, one point per iteration: loss (NLL in bits), the D/L/T rates
// of one parameter row on a log axis, the projected gradient norm, and the solver's diagnostics.
// Replots are coalesced so thousands of points stay responsive.
#include "engine_session.hpp"

#include <QTimer>
#include <QWidget>
#include <qcustomplot.h>

namespace gpurec::ui {

class LivePlots : public QWidget {
    Q_OBJECT
  public:
    explicit LivePlots(QWidget* parent = nullptr);

    void clear();
    void addSample(const IterationSample& sample);
    // Which θ row the rates plot follows, and how to name it ("global", "species X", "family Y").
    void setRateRow(int row, const QString& scope);
    int pointCount() const;
    // Every sample added since the last clear (sessions save them to redraw the plots).
    const std::vector<IterationSample>& samples() const { return samples_; }

    QCustomPlot* lossPlot() const { return loss_; }
    QCustomPlot* ratesPlot() const { return rates_; }
    QCustomPlot* gradientPlot() const { return gradient_; }
    QCustomPlot* diagnosticsPlot() const { return diagnostics_; }
    // Diagnostics graphs, in this order.
    enum Diagnostic { EIterations, MaxPiIterations, BicgstabIterations, EResidual };

  private:
    void scheduleReplot();
    void replotAll();
    void refillRates();

    QCustomPlot *loss_, *rates_, *gradient_, *diagnostics_;
    QTimer replotTimer_;
    std::vector<IterationSample> samples_;
    int rateRow_ = 0;
};

} // namespace gpurec::ui
