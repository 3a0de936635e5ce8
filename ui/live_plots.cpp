#include "live_plots.hpp"

#include <QGridLayout>
#include <cmath>

namespace gpurec::ui {

namespace {
QCustomPlot* makePlot(const QString& name, const QString& title, const QString& yLabel, bool logY) {
    auto* plot = new QCustomPlot;
    plot->setObjectName(name);
    plot->setMinimumSize(160, 130);
    plot->plotLayout()->insertRow(0);
    auto* caption = new QCPTextElement(plot, title, QFont(plot->font().family(), 9, QFont::Bold));
    plot->plotLayout()->addElement(0, 0, caption);
    plot->xAxis->setLabel(QObject::tr("iteration"));
    plot->yAxis->setLabel(yLabel);
    if (logY) {
        plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
        plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        plot->yAxis->setNumberFormat("gb"); // 0.12 within a decade, 10^-7 across decades
        plot->yAxis->setNumberPrecision(3);
    }
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->setNoAntialiasingOnDrag(true);
    return plot;
}

QCPGraph* addLine(QCustomPlot* plot, const QString& name, const QColor& colour,
                  QCPAxis* valueAxis = nullptr) {
    QCPGraph* g = plot->addGraph(plot->xAxis, valueAxis ? valueAxis : plot->yAxis);
    g->setName(name);
    g->setPen(QPen(colour, 1.6));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 3.5));
    g->setAdaptiveSampling(true);
    return g;
}

// The legend in its own row under the axes, so it never hides data.
void showLegendBelow(QCustomPlot* plot, int columns) {
    plot->legend->setVisible(true);
    plot->legend->setFont(QFont(plot->font().family(), 8));
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setIconSize(18, 10);
    plot->legend->setWrap(columns);
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    plot->axisRect()->insetLayout()->take(plot->legend);
    plot->plotLayout()->addElement(plot->plotLayout()->rowCount(), 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(plot->plotLayout()->rowCount() - 1, 0.001);
}
} // namespace

LivePlots::LivePlots(QWidget* parent) : QWidget(parent) {
    loss_ = makePlot("lossPlot", tr("Loss"), tr("negative log-likelihood (bits)"), false);
    addLine(loss_, tr("NLL"), QColor(30, 90, 170));
    loss_->yAxis->setNumberFormat("f");
    loss_->yAxis->setNumberPrecision(1);

    rates_ = makePlot("ratesPlot", tr("Rates"), tr("rate"), true);
    addLine(rates_, tr("duplication"), QColor(40, 120, 200));
    addLine(rates_, tr("loss"), QColor(200, 60, 50));
    addLine(rates_, tr("transfer"), QColor(40, 160, 90));
    showLegendBelow(rates_, 3);

    gradient_ = makePlot("gradientPlot", tr("Gradient"), tr("max |projected gradient| (bits)"), true);
    addLine(gradient_, tr("gradient norm"), QColor(120, 60, 160));

    diagnostics_ = makePlot("diagnosticsPlot", tr("Solver diagnostics"), tr("iterations"), true);
    diagnostics_->yAxis2->setVisible(true);
    diagnostics_->yAxis2->setLabel(tr("E residual"));
    diagnostics_->yAxis2->setScaleType(QCPAxis::stLogarithmic);
    diagnostics_->yAxis2->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    diagnostics_->yAxis2->setNumberFormat("gb"); // 0.12 within a decade, 10^-7 across decades
    diagnostics_->yAxis2->setNumberPrecision(3);
    addLine(diagnostics_, tr("E iterations"), QColor(40, 120, 200));
    addLine(diagnostics_, tr("Π iterations (max)"), QColor(200, 120, 30));
    addLine(diagnostics_, tr("BiCGSTAB (sum)"), QColor(120, 60, 160));
    QCPGraph* residual =
        addLine(diagnostics_, tr("E residual (right)"), QColor(120, 120, 120), diagnostics_->yAxis2);
    residual->setPen(QPen(QColor(120, 120, 120), 1.2, Qt::DashLine));
    showLegendBelow(diagnostics_, 2);

    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(2, 2, 2, 2);
    grid->addWidget(loss_, 0, 0);
    grid->addWidget(rates_, 0, 1);
    grid->addWidget(gradient_, 1, 0);
    grid->addWidget(diagnostics_, 1, 1);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);

    replotTimer_.setSingleShot(true);
    replotTimer_.setInterval(50);
    connect(&replotTimer_, &QTimer::timeout, this, &LivePlots::replotAll);
}

void LivePlots::clear() {
    for (QCustomPlot* plot : {loss_, rates_, gradient_, diagnostics_})
        for (int g = 0; g < plot->graphCount(); ++g)
            plot->graph(g)->data()->clear();
    samples_.clear();
    scheduleReplot();
}

void LivePlots::addSample(const IterationSample& s) {
    const double x = s.iteration;
    samples_.push_back(s);
    loss_->graph(0)->addData(x, s.nllBits);
    gradient_->graph(0)->addData(x, s.gradNorm);
    diagnostics_->graph(EIterations)->addData(x, s.stats.eIterations);
    diagnostics_->graph(MaxPiIterations)->addData(x, s.stats.maxPiIterations);
    diagnostics_->graph(BicgstabIterations)->addData(x, static_cast<double>(s.stats.bicgstabIterations));
    diagnostics_->graph(EResidual)->addData(x, s.stats.eResidual);
    const std::size_t base = 3 * static_cast<std::size_t>(rateRow_);
    for (int k = 0; k < 3; ++k)
        if (base + k < s.theta.size()) rates_->graph(k)->addData(x, std::exp2(s.theta[base + k]));
    scheduleReplot();
}

void LivePlots::setRateRow(int row, const QString& scope) {
    static_cast<QCPTextElement*>(rates_->plotLayout()->element(0, 0))->setText(tr("Rates: %1").arg(scope));
    if (row == rateRow_) {
        scheduleReplot();
        return;
    }
    rateRow_ = row;
    refillRates();
}

void LivePlots::refillRates() {
    const std::size_t at = 3 * static_cast<std::size_t>(rateRow_);
    for (int k = 0; k < 3; ++k) {
        QVector<double> keys, values;
        for (const IterationSample& sample : samples_) {
            if (at + k >= sample.theta.size()) continue;
            keys << sample.iteration;
            values << std::exp2(sample.theta[at + k]);
        }
        rates_->graph(k)->setData(keys, values, true);
    }
    scheduleReplot();
}

int LivePlots::pointCount() const {
    return loss_->graph(0)->dataCount();
}

void LivePlots::scheduleReplot() {
    if (!replotTimer_.isActive()) replotTimer_.start();
}

void LivePlots::replotAll() {
    for (QCustomPlot* plot : {loss_, rates_, gradient_, diagnostics_}) {
        plot->rescaleAxes();
        if (plot->xAxis->range().size() < 1)
            plot->xAxis->setRange(plot->xAxis->range().center(), 2, Qt::AlignCenter);
        plot->xAxis->scaleRange(1.05, plot->xAxis->range().center());
        plot->yAxis->scaleRange(1.1, plot->yAxis->range().center());
        plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

} // namespace gpurec::ui
