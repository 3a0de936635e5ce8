#include "plots/live_plots.hpp"

#include "panels/convergence_table.hpp"
#include "plots/integer_ticker.hpp"

#include <QAbstractButton>
#include <QAction>
#include <QComboBox>
#include <QCoreApplication>
#include <QFontMetrics>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QResizeEvent>
#include <QSplitter>
#include <QToolBar>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace gpurec::ui {

namespace {
constexpr double kHoverReach = 12.0; // pixels from a point within which hovering names it

const QString kFloorNote = QObject::tr(
    "On logarithmic axes, values ≤ 0 (a zero gap or gradient) are drawn at the axis' smallest positive "
    "value / 10; hovering a point gives its true value.");

void setLogarithmic(QCPAxis* axis, bool logarithmic) {
    if (logarithmic) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        axis->setNumberFormat("gb"); // 0.12 within a decade, 10^-7 across decades
        axis->setNumberPrecision(3);
    } else {
        axis->setScaleType(QCPAxis::stLinear);
        axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        axis->setNumberFormat("f");
        axis->setNumberPrecision(1);
    }
}

// An axis title in a long and a short form: the short one is shown when the long one would be cut
// (a short plot on a small screen or at QT_SCALE_FACTOR 1.5); the full text is in the plot's tooltip.
void setAxisTitle(QCPAxis* axis, const QString& full, const QString& brief) {
    axis->setProperty("fullTitle", full);
    axis->setProperty("briefTitle", brief);
    axis->setLabel(full);
}

QString axisTitle(const QCPAxis* axis) {
    const QString full = axis->property("fullTitle").toString();
    return full.isEmpty() ? axis->label() : full;
}

// Titles that fit, and as many ticks as the axes have room for without their labels touching.
void fitAxes(QCustomPlot* plot) {
    bool changed = false;
    const int room = plot->axisRect()->height();
    for (QCPAxis* axis : {plot->yAxis, plot->yAxis2}) {
        const QString full = axis->property("fullTitle").toString();
        if (full.isEmpty() || !axis->visible()) continue;
        const QString want = QFontMetrics(axis->labelFont()).horizontalAdvance(full) <= room
                                 ? full
                                 : axis->property("briefTitle").toString();
        if (axis->label() != want) {
            axis->setLabel(want);
            changed = true;
        }
    }
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis, plot->yAxis2}) {
        const bool vertical = axis->orientation() == Qt::Vertical;
        const int length = vertical ? room : plot->axisRect()->width();
        const int labelRoom = QFontMetrics(axis->tickLabelFont()).height() * (vertical ? 2 : 3);
        const int ticks = std::clamp(length / std::max(1, labelRoom), 2, 5);
        if (axis->ticker()->tickCount() != ticks) {
            axis->ticker()->setTickCount(ticks);
            changed = true;
        }
    }
    if (changed) plot->replot(QCustomPlot::rpQueuedReplot); // the new titles change the margins
}

QCustomPlot* makePlot(const QString& name, const QString& title, const QString& yLabel,
                      const QString& briefYLabel, bool logY, const QString& help) {
    auto* plot = new QCustomPlot;
    plot->setObjectName(name);
    plot->setAccessibleName(title);
    plot->setProperty("help", help + "\n" + kFloorNote +
                                  QObject::tr("\nWheel: zoom · drag: pan · double-click: reset the view"));
    plot->setMinimumSize(160, 130);
    plot->plotLayout()->insertRow(0);
    auto* caption = new QCPTextElement(plot, title, QFont(plot->font().family(), 9, QFont::Bold));
    plot->plotLayout()->addElement(0, 0, caption);
    setAxisTitle(plot->yAxis, yLabel, briefYLabel);
    setCountingAxis(plot->xAxis, true); // iterations until another x axis is picked
    QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot] { fitAxes(plot); });
    if (logY) setLogarithmic(plot->yAxis, true);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->setNoAntialiasingOnDrag(true);
    return plot;
}

// Lays a legend out in as many columns (up to `columns`) as the plot's width holds, so that no
// series name is clipped on a narrow window.
class LegendWrap : public QObject {
  public:
    LegendWrap(QCustomPlot* plot, int columns) : QObject(plot), plot_(plot), columns_(columns) {
        plot->installEventFilter(this);
    }
    bool eventFilter(QObject*, QEvent* event) override {
        if (event->type() == QEvent::Resize) fit();
        return false;
    }

  private:
    void fit() {
        QCPLegend* legend = plot_->legend;
        for (int columns = columns_; columns >= 1; --columns) {
            legend->setWrap(columns);
            legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true); // re-flows the items
            if (columns == 1 || legend->minimumOuterSizeHint().width() <= plot_->width()) break;
        }
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
    QCustomPlot* plot_;
    int columns_;
};

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
    new LegendWrap(plot, columns);
}

// Lighter, dashed pens for overlays, one hue per kept run.
QPen overlayPen(int index) {
    static const QColor hues[] = {QColor(230, 140, 40), QColor(60, 170, 110), QColor(170, 80, 170),
                                  QColor(120, 120, 120), QColor(200, 70, 70)};
    QColor c = hues[index % 5];
    c.setAlpha(150);
    return QPen(c, 1.3, Qt::DashLine);
}

QString number(double v) {
    return QString::number(v, 'g', 12);
}

// Values drawn for the current run and for overlays alike.
bool nllOf(const IterationSample& s, double& v) {
    v = s.nllBits;
    return true;
}
bool gradNormOf(const IterationSample& s, double& v) {
    v = s.gradNorm;
    return true;
}
} // namespace

LivePlots::LivePlots(QWidget* parent) : QWidget(parent) {
    loss_ = makePlot("lossPlot", tr("Loss"), tr("negative log-likelihood (bits)"), tr("NLL (bits)"), false,
                     tr("Negative log-likelihood of all families in bits, or its gap to the best NLL shown"));
    addLine(loss_, tr("NLL"), QColor(30, 90, 170), nullptr, &samples_, nllOf, true);
    showLegendBelow(loss_, 2);

    rates_ = makePlot("ratesPlot", tr("Rates"), tr("rate"), tr("rate"), true,
                      tr("D, L and T of one row of rates, and the speciation categories' shape α"));
    const QColor rateColours[] = {QColor(40, 120, 200), QColor(200, 60, 50), QColor(40, 160, 90)};
    const QString rateNames[] = {tr("duplication"), tr("loss"), tr("transfer")};
    for (int k = 0; k < 3; ++k)
        addLine(rates_, rateNames[k], rateColours[k], nullptr, &samples_,
                [this, k](const IterationSample& s, double& v) {
                    const std::size_t at = 3 * static_cast<std::size_t>(rateRow_) + k;
                    if (at >= s.theta.size()) return false;
                    v = std::exp2(s.theta[at]);
                    return true;
                });
    alpha_ = addLine(rates_, tr("shape α"), QColor(150, 110, 30), nullptr, &samples_,
                     [this](const IterationSample& s, double& v) {
                         if (shapeEntry_ < 0 || static_cast<std::size_t>(shapeEntry_) >= s.theta.size())
                             return false;
                         v = std::exp2(s.theta[shapeEntry_]);
                         return true;
                     });
    alpha_->setVisible(false);
    alpha_->removeFromLegend();
    showLegendBelow(rates_, 4);

    gradient_ =
        makePlot("gradientPlot", tr("Gradient"), tr("max |projected gradient| (bits)"), tr("|gradient|"),
                 true, tr("Largest component of the gradient that the bounds allow to move"));
    addLine(gradient_, tr("gradient norm"), QColor(120, 60, 160), nullptr, &samples_, gradNormOf);
    showLegendBelow(gradient_, 2);

    diagnostics_ = makePlot("diagnosticsPlot", tr("Solver diagnostics"), tr("iterations"), tr("iter."), true,
                            tr("How hard the numerical solvers worked in each iteration"));
    diagnostics_->yAxis2->setVisible(true);
    setAxisTitle(diagnostics_->yAxis2, tr("E residual"), tr("E res."));
    setLogarithmic(diagnostics_->yAxis2, true);
    addLine(diagnostics_, tr("E iter."), QColor(40, 120, 200), nullptr, &samples_,
            [](const IterationSample& s, double& v) { return v = s.stats.eIterations, true; });
    addLine(diagnostics_, tr("Π iter. (max)"), QColor(200, 120, 30), nullptr, &samples_,
            [](const IterationSample& s, double& v) { return v = s.stats.maxPiIterations, true; });
    addLine(diagnostics_, tr("BiCGSTAB (sum)"), QColor(120, 60, 160), nullptr, &samples_,
            [](const IterationSample& s, double& v) {
                return v = static_cast<double>(s.stats.bicgstabIterations), true;
            });
    QCPGraph* residual =
        addLine(diagnostics_, tr("E residual →"), QColor(120, 120, 120), diagnostics_->yAxis2, &samples_,
                [](const IterationSample& s, double& v) { return v = s.stats.eResidual, true; });
    residual->setPen(QPen(QColor(120, 120, 120), 1.2, Qt::DashLine));
    showLegendBelow(diagnostics_, 2);
    ownLines_ = static_cast<int>(lines_.size());

    // Controls.
    lossViewBox_ = new QComboBox;
    lossViewBox_->setObjectName("lossView");
    lossViewBox_->setAccessibleName(tr("Loss shown as"));
    lossViewBox_->addItem(tr("NLL (bits)"));
    lossViewBox_->addItem(tr("gap to best"));
    lossViewBox_->setToolTip(tr("Absolute NLL, or NLL − the best NLL of the shown runs on a logarithmic "
                                "axis (shows the last digits of convergence).\n") +
                             kFloorNote);
    xAxisBox_ = new QComboBox;
    xAxisBox_->setObjectName("xAxisKind");
    xAxisBox_->setAccessibleName(tr("Horizontal axis"));
    xAxisBox_->addItem(tr("iteration"));
    xAxisBox_->addItem(tr("evaluations"));
    xAxisBox_->addItem(tr("time (s)"));
    xAxisBox_->setToolTip(tr("Plot against the iteration, the number of likelihood evaluations "
                             "(line-search trials included) or the wall time since the run started"));
    // Actions in the tool bar (tool buttons: narrower than push buttons).
    auto makeAction = [this](const QString& text, const QString& name, const QString& accessible,
                             const QString& tip) {
        auto* action = new QAction(text, this);
        action->setObjectName(name);
        action->setToolTip(tip);
        action->setProperty("accessibleName", accessible);
        return action;
    };
    QAction* reset =
        makeAction(tr("Reset view"), "resetPlotView", tr("Reset plot view"),
                   tr("Show all the data again and follow new points (also: double-click a plot)"));
    QAction* keep = keepAction_ =
        makeAction(tr("Keep run"), "keepOverlay", tr("Keep run as overlay"),
                   tr("Keep this finished run's loss and gradient, drawn lighter, to compare the next "
                      "run (another schedule, method or start) with"));
    QAction* clearKept = clearOverlaysAction_ = makeAction(
        tr("Clear kept"), "clearOverlays", tr("Clear overlays"), tr("Remove every kept run from the plots"));
    // A tool bar: on a narrow window what does not fit goes behind its » button instead of widening
    // the window.
    auto* controls = new QToolBar;
    controls->setObjectName("plotControls");
    controls->setAccessibleName(tr("Plot controls"));
    controls->setMovable(false);
    // The loss combo's items name themselves; no label (the bar must fit beside the species tree).
    auto* xLabel = new QLabel(tr(" x:"));
    xLabel->setBuddy(xAxisBox_);
    auto* spacer = new QWidget;
    spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    for (QWidget* widget : std::initializer_list<QWidget*>{lossViewBox_, xLabel, xAxisBox_, spacer})
        controls->addWidget(widget);
    QAbstractButton** buttons[] = {&resetButton_, &keepButton_, &clearOverlaysButton_};
    QAction* actions[] = {reset, keep, clearKept};
    for (int i = 0; i < 3; ++i) {
        controls->addAction(actions[i]);
        *buttons[i] = qobject_cast<QAbstractButton*>(controls->widgetForAction(actions[i]));
        (*buttons[i])->setObjectName(actions[i]->objectName());
        (*buttons[i])->setAccessibleName(actions[i]->property("accessibleName").toString());
    }

    auto* plots = new QWidget;
    auto* grid = new QGridLayout(plots);
    grid->setContentsMargins(2, 2, 2, 2);
    grid->addWidget(loss_, 0, 0);
    grid->addWidget(rates_, 0, 1);
    grid->addWidget(gradient_, 1, 0);
    grid->addWidget(diagnostics_, 1, 1);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);
    convergence_ = new ConvergenceTable;
    convergence_->hide(); // shown by runs that report per-family searches
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(plots);
    split->addWidget(convergence_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(controls);
    layout->addWidget(split, 1);

    for (QCustomPlot* plot : {loss_, rates_, gradient_, diagnostics_}) {
        plot->installEventFilter(this);
        connect(plot, &QCustomPlot::mouseDoubleClick, this, [this, plot] { resetView(plot); });
    }
    connect(lossViewBox_, &QComboBox::currentIndexChanged, this,
            [this](int i) { setLossView(i == 1 ? LossView::GapToBest : LossView::Absolute); });
    connect(xAxisBox_, &QComboBox::currentIndexChanged, this,
            [this](int i) { setXAxis(static_cast<XAxis>(i)); });
    connect(reset, &QAction::triggered, this, qOverload<>(&LivePlots::resetView));
    connect(keep, &QAction::triggered, this, &LivePlots::keepAsOverlay);
    connect(clearKept, &QAction::triggered, this, &LivePlots::clearOverlays);

    replotTimer_.setSingleShot(true);
    replotTimer_.setInterval(50);
    connect(&replotTimer_, &QTimer::timeout, this, &LivePlots::replotAll);
    refill();
    updateButtons();
}

QCPGraph* LivePlots::addLine(QCustomPlot* plot, const QString& name, const QColor& colour, QCPAxis* valueAxis,
                             const std::vector<IterationSample>* samples,
                             std::function<bool(const IterationSample&, double&)> value, bool loss) {
    QCPGraph* g = plot->addGraph(plot->xAxis, valueAxis ? valueAxis : plot->yAxis);
    g->setName(name);
    g->setPen(QPen(colour, 1.6));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 3.5));
    g->setAdaptiveSampling(true);
    lines_.push_back({g, samples, std::move(value), loss});
    return g;
}

void LivePlots::addOverlayLines(const Overlay& overlay, int index) {
    const QColor colour = overlayPen(index).color();
    QCPGraph* loss = addLine(loss_, overlay.name, colour, nullptr, &overlay.samples, nllOf, true);
    QCPGraph* grad = addLine(gradient_, overlay.name, colour, nullptr, &overlay.samples, gradNormOf);
    for (QCPGraph* g : {loss, grad}) {
        g->setPen(overlayPen(index));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, 3.0));
    }
}

void LivePlots::clear() {
    samples_.clear();
    kept_ = false;
    convergence_->model()->clear();
    convergence_->hide();
    refill();
    updateButtons();
}

void LivePlots::startRun(const QString& description) {
    clear();
    ++runNumber_;
    runDescription_ = description;
    running_ = true;
    updateButtons();
}

void LivePlots::finishRun() {
    running_ = false;
    updateConvergence();
    updateButtons();
}

void LivePlots::addSample(const IterationSample& s) {
    samples_.push_back(s);
    if (samples_.size() == 1 || !appendLatest()) refill();
    if (!s.families.empty()) {
        convergence_->model()->setProgress(s.families, !running_);
        convergence_->show();
        samples_.back().families.clear(); // only the latest is shown: no history of them is kept
    }
    scheduleReplot();
}

void LivePlots::updateConvergence() {
    if (convergence_->model()->rowCount() > 0)
        convergence_->model()->setProgress(convergence_->model()->progress(), !running_);
}

void LivePlots::setFamilyNames(const QStringList& names) {
    convergence_->model()->setFamilyNames(names);
    convergence_->hide();
}

bool LivePlots::keepAsOverlay() {
    if (samples_.empty() || running_ || kept_) return false;
    Overlay overlay;
    overlay.name = runDescription_.isEmpty()
                       ? tr("run %1").arg(std::max(runNumber_, 1))
                       : tr("run %1: %2").arg(std::max(runNumber_, 1)).arg(runDescription_);
    overlay.samples = samples_;
    addOverlay(std::move(overlay));
    // Kept once; the run stays the current one (and in sessions) until the next starts.
    kept_ = true;
    refill();
    updateButtons();
    return true;
}

void LivePlots::addOverlay(Overlay overlay) {
    for (IterationSample& s : overlay.samples)
        s.theta.clear(); // rates are not overlaid
    overlays_.push_back(std::move(overlay));
    addOverlayLines(overlays_.back(), static_cast<int>(overlays_.size()) - 1);
}

void LivePlots::restoreOverlays(std::list<Overlay> overlays, int runNumber, bool currentRunKept) {
    clearOverlays();
    for (Overlay& overlay : overlays)
        addOverlay(std::move(overlay));
    runNumber_ = runNumber;
    kept_ = currentRunKept && !samples_.empty();
    refill();
    updateButtons();
}

void LivePlots::clearOverlays() {
    for (auto it = lines_.begin() + ownLines_; it != lines_.end(); ++it) {
        trueValues_.remove(it->graph);
        it->graph->parentPlot()->removeGraph(it->graph);
    }
    lines_.resize(ownLines_);
    overlays_.clear();
    refill();
    updateButtons();
}

void LivePlots::updateButtons() {
    keepAction_->setEnabled(!samples_.empty() && !running_ && !kept_);
    clearOverlaysAction_->setEnabled(!overlays_.empty());
}

void LivePlots::setLossView(LossView view) {
    lossView_ = view;
    {
        const QSignalBlocker block(lossViewBox_);
        lossViewBox_->setCurrentIndex(view == LossView::GapToBest ? 1 : 0);
    }
    setLogarithmic(loss_->yAxis, view == LossView::GapToBest);
    if (view == LossView::GapToBest)
        setAxisTitle(loss_->yAxis, tr("NLL − best NLL (bits)"), tr("gap (bits)"));
    else
        setAxisTitle(loss_->yAxis, tr("negative log-likelihood (bits)"), tr("NLL (bits)"));
    refill();
    resetView(loss_);
}

void LivePlots::setXAxis(XAxis axis) {
    xAxis_ = axis;
    {
        const QSignalBlocker block(xAxisBox_);
        xAxisBox_->setCurrentIndex(static_cast<int>(axis));
    }
    refill();
    resetView();
}

double LivePlots::keyOf(const IterationSample& s) const {
    switch (xAxis_) {
    case XAxis::Evaluations:
        return s.evaluations;
    case XAxis::Seconds:
        return s.seconds;
    case XAxis::Iteration:
        break;
    }
    return s.iteration;
}

QString LivePlots::keyLabel() const {
    switch (xAxis_) {
    case XAxis::Evaluations:
        return tr("likelihood evaluations");
    case XAxis::Seconds:
        return tr("wall time (s)");
    case XAxis::Iteration:
        break;
    }
    return tr("iteration");
}

void LivePlots::setRateRow(int row, const QString& scope) {
    static_cast<QCPTextElement*>(rates_->plotLayout()->element(0, 0))->setText(tr("Rates: %1").arg(scope));
    if (row != rateRow_) {
        rateRow_ = row;
        refill();
    }
    scheduleReplot();
}

void LivePlots::setShapeEntry(int entry) {
    if (entry == shapeEntry_) return;
    shapeEntry_ = entry;
    alpha_->setVisible(entry >= 0);
    if (entry >= 0)
        alpha_->addToLegend();
    else
        alpha_->removeFromLegend();
    // The legend's columns are fitted on a resize (LegendWrap): one of the same size re-fits them.
    QResizeEvent resized(rates_->size(), rates_->size());
    QCoreApplication::sendEvent(rates_, &resized);
    refill();
    scheduleReplot();
}

int LivePlots::pointCount() const {
    return static_cast<int>(samples_.size());
}

double LivePlots::trueValue(const QCPGraph* graph, int index) const {
    return trueValues_.value(graph).value(index, NAN);
}

void LivePlots::scheduleReplot() {
    if (!replotTimer_.isActive()) replotTimer_.start();
}

// Every line's points from its samples, in the current x axis and loss view. Values ≤ 0 on a log
// axis are lifted to that axis' floor so that they stay visible.
void LivePlots::refill() {
    best_ = INFINITY;
    for (const IterationSample& s : samples_)
        best_ = std::min(best_, s.nllBits);
    for (const Overlay& o : overlays_)
        for (const IterationSample& s : o.samples)
            best_ = std::min(best_, s.nllBits);
    const bool gap = lossView_ == LossView::GapToBest;

    QHash<const QCPGraph*, QVector<double>> keys;
    trueValues_.clear();
    smallestPositive_.clear();
    for (const Line& line : lines_) {
        QVector<double>& k = keys[line.graph];
        QVector<double>& v = trueValues_[line.graph];
        for (const IterationSample& s : *line.samples) {
            double value = 0;
            if (!line.value(s, value)) continue;
            if (line.loss && gap) value -= best_;
            k << keyOf(s);
            v << value;
            if (value > 0 && std::isfinite(value)) {
                auto it = smallestPositive_.find(line.graph->valueAxis());
                if (it == smallestPositive_.end())
                    smallestPositive_.insert(line.graph->valueAxis(), value);
                else
                    *it = std::min(*it, value);
            }
        }
    }
    floors_.clear();
    for (auto it = smallestPositive_.begin(); it != smallestPositive_.end(); ++it)
        floors_.insert(it.key(), it.value() / 10);
    for (const Line& line : lines_) {
        QVector<double> drawn = trueValues_[line.graph];
        if (line.graph->valueAxis()->scaleType() == QCPAxis::stLogarithmic) {
            const double floor = logFloor(line.graph->valueAxis());
            for (double& d : drawn)
                if (!(d > 0)) d = floor;
        }
        line.graph->setData(keys[line.graph], drawn, true);
    }
    for (QCustomPlot* plot : {loss_, rates_, gradient_, diagnostics_}) {
        plot->xAxis->setLabel(keyLabel());
        setCountingAxis(plot->xAxis, xAxis_ != XAxis::Seconds);
        plot->legend->setVisible(plot != loss_ || !overlays_.empty());
    }
    scheduleReplot();
}

bool LivePlots::appendLatest() {
    const IterationSample& s = samples_.back();
    const bool gap = lossView_ == LossView::GapToBest;
    if (gap && !(s.nllBits >= best_)) return false;
    for (int i = 0; i < ownLines_; ++i) {
        const Line& line = lines_[i];
        double value = 0;
        if (!line.value(s, value)) continue;
        if (line.loss && gap) value -= best_;
        const bool log = line.graph->valueAxis()->scaleType() == QCPAxis::stLogarithmic;
        if (log && value > 0 && !(value >= smallestPositive_.value(line.graph->valueAxis(), INFINITY)))
            return false;
        trueValues_[line.graph] << value;
        line.graph->addData(keyOf(s), log && !(value > 0) ? logFloor(line.graph->valueAxis()) : value);
    }
    return true;
}

void LivePlots::resetView() {
    for (QCustomPlot* plot : {loss_, rates_, gradient_, diagnostics_}) {
        userView_[plot] = false;
        autoRanges_.remove(plot);
    }
    replotNow();
}

void LivePlots::resetView(QCustomPlot* plot) {
    userView_[plot] = false;
    autoRanges_.remove(plot);
    replotNow();
}

void LivePlots::replotNow() {
    replotTimer_.stop();
    replotAll();
}

void LivePlots::replotAll() {
    for (QCustomPlot* plot : {loss_, rates_, gradient_, diagnostics_}) {
        // A view that is no longer the one the last rescale set was zoomed or panned: keep it.
        auto it = autoRanges_.constFind(plot);
        if (it != autoRanges_.constEnd() &&
            (plot->xAxis->range() != it->first || plot->yAxis->range() != it->second))
            userView_[plot] = true;
        if (!userView_.value(plot, false)) {
            plot->rescaleAxes();
            if (plot->xAxis->range().size() < 1)
                plot->xAxis->setRange(plot->xAxis->range().center(), 2, Qt::AlignCenter);
            plot->xAxis->scaleRange(1.05, plot->xAxis->range().center());
            plot->yAxis->scaleRange(1.1, plot->yAxis->range().center());
            autoRanges_[plot] = {plot->xAxis->range(), plot->yAxis->range()};
        }
        plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

QString LivePlots::tooltipAt(QCustomPlot* plot, const QPointF& pixel) const {
    const QCPGraph* nearest = nullptr;
    int nearestIndex = -1;
    double reach = kHoverReach * kHoverReach;
    for (int g = 0; g < plot->graphCount(); ++g) {
        const QCPGraph* graph = plot->graph(g);
        int i = 0;
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it, ++i) {
            const double dx = graph->keyAxis()->coordToPixel(it->key) - pixel.x();
            const double dy = graph->valueAxis()->coordToPixel(it->value) - pixel.y();
            if (dx * dx + dy * dy < reach) {
                reach = dx * dx + dy * dy;
                nearest = graph;
                nearestIndex = i;
            }
        }
    }
    if (!nearest) return {};
    const double key = (nearest->data()->constBegin() + nearestIndex)->key;
    const double drawn = (nearest->data()->constBegin() + nearestIndex)->value;
    const double value = trueValue(nearest, nearestIndex);
    QString text =
        QString("%1\n%2: %3\n%4: %5")
            .arg(nearest->name(), keyLabel(), number(key), axisTitle(nearest->valueAxis()), number(value));
    if (drawn != value)
        text += tr("\n(drawn at %1: values ≤ 0 cannot be shown on a log axis)").arg(number(drawn));
    return text;
}

bool LivePlots::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* plot = qobject_cast<QCustomPlot*>(watched);
        auto* help = static_cast<QHelpEvent*>(event);
        if (plot) {
            QString text = tooltipAt(plot, help->pos());
            QToolTip::showText(help->globalPos(), text.isEmpty() ? plot->property("help").toString() : text,
                               plot);
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace gpurec::ui
