// Plots for convergence debugging: the live plots' loss gap, x axes, kept zoom, log floors and
// tooltips; run-versus-run overlays; the per-family convergence table of a genewise fit; the clade
// heat map against the core's per-clade statistics.
#include "colours/colour_scale.hpp"
#include "engine/clade_statistics.hpp"
#include "gui_test_support.hpp"
#include "panels/convergence_table.hpp"
#include "panels/families_panel.hpp"
#include "panels/run_panel.hpp"
#include "panels/solver_knobs_panel.hpp"
#include "panels/waves_panel.hpp"
#include "plots/live_plots.hpp"
#include "plots/wave_plot.hpp"
#include "views/clade_dag_view.hpp"
#include "window/workbench_window.hpp"

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolTip>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

using namespace gpurec;
using namespace gpurec::ui;

using test::loadInto;
using test::plotKeys;
using test::plotValues;
using test::teachingRequest;
constexpr int kTimeoutMs = test::kGuiTimeoutMs;

namespace {
IterationSample sample(int iteration, double nll, double gradNorm) {
    IterationSample s;
    s.iteration = iteration;
    s.evaluations = 2 * iteration + 1;
    s.nllBits = nll;
    s.gradNorm = gradNorm;
    s.theta = {std::log2(0.1), std::log2(0.2), std::log2(0.05)};
    s.stats.eIterations = 3;
    s.stats.maxPiIterations = 5;
    s.stats.eResidual = 1e-16;
    s.seconds = 0.25 * iteration + 0.125;
    return s;
}

// A wheel step over the middle of the plot's axis rect, as the mouse wheel sends it.
void wheelZoomIn(QCustomPlot* plot) {
    const QPointF at = plot->axisRect()->rect().center();
    QWheelEvent wheel(at, plot->mapToGlobal(at), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot, &wheel);
}

QPointF pixelOf(const QCPGraph* graph, int index) {
    auto it = graph->data()->constBegin() + index;
    return {graph->keyAxis()->coordToPixel(it->key), graph->valueAxis()->coordToPixel(it->value)};
}

// Runs an optimisation through the Optimise button; the iterations it reported.
QList<IterationSample> optimise(WorkbenchWindow& w) {
    QSignalSpy iterations(&w.session(), &EngineSession::iterationFinished);
    QSignalSpy finished(&w.session(), &EngineSession::runFinished);
    QList<IterationSample> out;
    if (!test::click(w.runPanel()->optimiseButton()) || !test::waitForCount(finished, 1)) return out;
    const auto outcome = finished.at(0).at(0).value<RunOutcome>();
    if (!outcome.error.isEmpty()) qWarning("run failed: %s", qPrintable(outcome.error));
    for (const QList<QVariant>& args : iterations)
        out << args.at(0).value<IterationSample>();
    return out;
}
} // namespace

class GuiLivePlots : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { test::isolateSettings("gui_live_plots"); }

    // A zoomed plot keeps its view while points arrive; the others follow the data; Reset view and
    // a double-click show everything again.
    void zoomIsKeptUntilReset() {
        LivePlots plots;
        plots.resize(1000, 700);
        QVERIFY(test::showActive(plots));
        for (int i = 0; i < 10; ++i)
            plots.addSample(sample(i, 100.0 - i, std::pow(10.0, -i)));
        plots.replotNow();
        QCustomPlot* loss = plots.lossPlot();
        const QCPRange full = loss->xAxis->range();
        QVERIFY(full.contains(0) && full.contains(9));
        wheelZoomIn(loss);
        const QCPRange zoomedX = loss->xAxis->range(), zoomedY = loss->yAxis->range();
        QVERIFY2(zoomedX.size() < 0.9 * full.size(), qPrintable(QString::number(zoomedX.size())));

        for (int i = 10; i < 30; ++i)
            plots.addSample(sample(i, 100.0 - i, std::pow(10.0, -i)));
        plots.replotNow();
        QVERIFY(!plots.followsData(loss));
        QCOMPARE(loss->xAxis->range().lower, zoomedX.lower);
        QCOMPARE(loss->xAxis->range().upper, zoomedX.upper);
        QCOMPARE(loss->yAxis->range().lower, zoomedY.lower);
        QCOMPARE(loss->yAxis->range().upper, zoomedY.upper);
        QCOMPARE(loss->graph(0)->dataCount(), 30); // the points are there, only the view stays
        QVERIFY(plots.followsData(plots.gradientPlot()));
        QVERIFY(plots.gradientPlot()->xAxis->range().contains(29));

        QVERIFY(test::click(plots.resetViewButton()));
        QVERIFY(plots.followsData(loss));
        QVERIFY(loss->xAxis->range().contains(0) && loss->xAxis->range().contains(29));
        QVERIFY(loss->yAxis->range().contains(100) && loss->yAxis->range().contains(71));

        wheelZoomIn(loss);
        plots.replotNow();
        QVERIFY(!plots.followsData(loss));
        QTest::mouseDClick(loss, Qt::LeftButton, Qt::NoModifier, loss->axisRect()->rect().center());
        QVERIFY(plots.followsData(loss));
        QVERIFY(loss->xAxis->range().contains(0) && loss->xAxis->range().contains(29));
    }

    // A narrow rates plot wraps its legend: also when the shape α joins it with speciation
    // categories after the window was laid out (no resize then), no series name is clipped.
    void ratesLegendFitsWhenTheShapeJoins() {
        LivePlots plots;
        plots.resize(560, 500);
        QVERIFY(test::showActive(plots));
        QCustomPlot* rates = plots.ratesPlot();
        QTRY_VERIFY(rates->width() > 0);
        QCPGraph* alpha = nullptr;
        for (int g = 0; g < rates->graphCount(); ++g)
            if (rates->graph(g)->name() == "shape α") alpha = rates->graph(g);
        QVERIFY(alpha && !rates->legend->hasItemWithPlottable(alpha));
        plots.setShapeEntry(3);
        QVERIFY(rates->legend->hasItemWithPlottable(alpha));
        QVERIFY2(rates->legend->minimumOuterSizeHint().width() <= rates->width(),
                 qPrintable(QString("legend %1 px in a %2 px plot")
                                .arg(rates->legend->minimumOuterSizeHint().width())
                                .arg(rates->width())));
        QVERIFY(rates->legend->wrap() < 4); // wrapped onto a second row
        plots.setShapeEntry(-1);
        QVERIFY(!rates->legend->hasItemWithPlottable(alpha));
    }

    // The gap to the best NLL on a log axis: the best point's gap of 0 (and a zero gradient) stay in
    // the graph, drawn at the axis' smallest positive value / 10; hovering gives the true value.
    void zerosOnLogAxesAreDrawnAtTheFloor() {
        LivePlots plots;
        plots.resize(1000, 700);
        QVERIFY(test::showActive(plots));
        const double nll[] = {10, 5, 2, 2.5}, grad[] = {1e-2, 1e-4, 0, 1e-6};
        for (int i = 0; i < 4; ++i)
            plots.addSample(sample(i, nll[i], grad[i]));
        plots.lossViewBox()->setCurrentIndex(1);
        QCOMPARE(plots.lossView(), LivePlots::LossView::GapToBest);
        QCOMPARE(plots.lossPlot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
        QCPGraph* gap = plots.lossPlot()->graph(0);
        QCOMPARE(plotValues(plots.lossPlot(), 0), (QVector<double>{8, 3, 0.05, 0.5}));
        QCOMPARE(plots.logFloor(plots.lossPlot()->yAxis), 0.05);
        QCOMPARE(plots.trueValue(gap, 2), 0.0);
        QCOMPARE(plotValues(plots.gradientPlot(), 0), (QVector<double>{1e-2, 1e-4, 1e-7, 1e-6}));
        QCOMPARE(plots.trueValue(plots.gradientPlot()->graph(0), 2), 0.0);

        plots.replotNow();
        QVERIFY(plots.lossPlot()->yAxis->range().contains(0.05)); // the floored point is in view
        const QString tip = plots.tooltipAt(plots.lossPlot(), pixelOf(gap, 2));
        QVERIFY2(tip.startsWith("NLL\niteration: 2\nNLL − best NLL (bits): 0\n(drawn at 0.05"),
                 qPrintable(tip));
        // A new best moves every gap: the former best is now 0.5 above it.
        plots.addSample(sample(4, 1.5, 1e-7));
        QCOMPARE(plotValues(plots.lossPlot(), 0), (QVector<double>{8.5, 3.5, 0.5, 1, 0.05}));

        // Absolute NLL again: a linear axis with the plain values.
        plots.lossViewBox()->setCurrentIndex(0);
        QCOMPARE(plots.lossPlot()->yAxis->scaleType(), QCPAxis::stLinear);
        QCOMPARE(plotValues(plots.lossPlot(), 0), (QVector<double>{10, 5, 2, 2.5, 1.5}));
    }

    // The x axis: iteration, evaluation count or wall time, for every plot.
    void xAxisChoosesTheKeys() {
        LivePlots plots;
        for (int i = 0; i < 5; ++i)
            plots.addSample(sample(i, 50.0 - i, 0.1));
        QCOMPARE(plotKeys(plots.lossPlot(), 0), (QVector<double>{0, 1, 2, 3, 4}));
        QVERIFY(!plots.xAxisBox()->accessibleName().isEmpty() && !plots.xAxisBox()->toolTip().isEmpty());
        plots.xAxisBox()->setCurrentIndex(1);
        QCOMPARE(plots.xAxis(), LivePlots::XAxis::Evaluations);
        for (QCustomPlot* plot :
             {plots.lossPlot(), plots.ratesPlot(), plots.gradientPlot(), plots.diagnosticsPlot()})
            QCOMPARE(plotKeys(plot, 0), (QVector<double>{1, 3, 5, 7, 9}));
        QCOMPARE(plots.lossPlot()->xAxis->label(), QString("likelihood evaluations"));
        plots.xAxisBox()->setCurrentIndex(2);
        QCOMPARE(plotKeys(plots.diagnosticsPlot(), LivePlots::EResidual),
                 (QVector<double>{0.125, 0.375, 0.625, 0.875, 1.125}));
        QCOMPARE(plotValues(plots.lossPlot(), 0), (QVector<double>{50, 49, 48, 47, 46}));
    }

    // Iterations and evaluations are counts: their axes tick and label whole numbers only, also
    // zoomed in to a few units (where a plain ticker puts 0.5 steps); wall time may tick 0.2 s.
    void countingAxesTickWholeNumbers() {
        LivePlots plots;
        plots.resize(1000, 700);
        QVERIFY(test::showActive(plots));
        for (int i = 0; i < 4; ++i)
            plots.addSample(sample(i, 50.0 - i, 0.1));
        QCustomPlot* loss = plots.lossPlot();
        // The axis' ticks and their labels as last drawn, with the x range set to `range` (none: as
        // the plot chose it).
        auto ticksAt = [&](std::optional<QCPRange> range) {
            plots.replotNow();
            if (range) loss->xAxis->setRange(*range);
            loss->replot(QCustomPlot::rpImmediateRefresh);
            return std::pair(loss->xAxis->tickVector(), loss->xAxis->tickVectorLabels());
        };
        // Whole numbers only; at least one unless the range holds no whole number.
        auto whole = [](const std::pair<QVector<double>, QVector<QString>>& ticks, bool some = true) {
            const auto& [at, labels] = ticks;
            bool ok = (!some || !at.isEmpty()) && labels.size() == at.size();
            for (int i = 0; ok && i < at.size(); ++i)
                ok = at[i] == std::round(at[i]) && labels[i] == QString::number(std::lround(at[i]));
            if (!ok) qWarning() << "ticks" << at << labels;
            return ok;
        };
        QVERIFY(whole(ticksAt(std::nullopt)));
        QVERIFY(whole(ticksAt(QCPRange(0, 3))));
        QVERIFY(whole(ticksAt(QCPRange(1.2, 2.9))));        // under two steps of 1: still whole
        QVERIFY(whole(ticksAt(QCPRange(1.2, 1.9)), false)); // no whole number in view: no tick
        // Zoomed in with the wheel, as a user does.
        plots.resetView();
        for (int step = 0; step < 10 && loss->xAxis->range().size() >= 3; ++step)
            wheelZoomIn(loss);
        QVERIFY(loss->xAxis->range().size() < 3);
        QVERIFY(whole(ticksAt(std::nullopt)));

        plots.setXAxis(LivePlots::XAxis::Evaluations); // 1, 3, 5, 7
        QVERIFY(whole(ticksAt(std::nullopt)));
        QVERIFY(whole(ticksAt(QCPRange(0, 3))));

        plots.setXAxis(LivePlots::XAxis::Seconds); // not a count: fractions are right here
        const QVector<double> seconds = ticksAt(QCPRange(0, 1)).first;
        QVERIFY(std::any_of(seconds.begin(), seconds.end(), [](double t) { return t != std::round(t); }));
    }
    // The waves plot's y title stands whole along its axis: in full when the plot is tall enough,
    // shortened when it is short (QT_SCALE_FACTOR 1.5 on a 1600x1000 screen cut it to "clades (log scale").
    void wavePlotTitleFitsItsAxis() {
        WavePlot plot;
        auto titleAt = [&](int height) {
            plot.resize(600, height);
            QCoreApplication::processEvents();
            plot.replot(QCustomPlot::rpImmediateRefresh);
            QCoreApplication::processEvents(); // the replot a changed title queues
            const int room = plot.axisRect()->height();
            const int needs = QFontMetrics(plot.yAxis->labelFont()).horizontalAdvance(plot.yAxis->label());
            if (needs > room)
                qWarning("title '%s' needs %d pixels, the axis has %d", qPrintable(plot.yAxis->label()),
                         needs, room);
            return needs <= room ? plot.yAxis->label() : QString();
        };
        QVERIFY(test::showActive(plot));
        QCOMPARE(titleAt(400), QString("clades (log scale)"));
        QCOMPARE(titleAt(150), QString("clades"));
        QCOMPARE(titleAt(400), QString("clades (log scale)"));
    }

    // Every series names itself, its x and its y (12 significant digits) under the mouse.
    void hoverShowsSeriesAndValues() {
        LivePlots plots;
        plots.resize(1000, 700);
        QVERIFY(test::showActive(plots));
        plots.addSample(sample(0, 1234.56789012345, 0.5));
        plots.addSample(sample(1, 1200.25, 0.25));
        plots.replotNow();
        QCOMPARE(plots.tooltipAt(plots.lossPlot(), pixelOf(plots.lossPlot()->graph(0), 0)),
                 QString("NLL\niteration: 0\nnegative log-likelihood (bits): 1234.56789012"));
        QCPGraph* transfer = plots.ratesPlot()->graph(2);
        QCOMPARE(plots.tooltipAt(plots.ratesPlot(), pixelOf(transfer, 1)),
                 QString("transfer\niteration: 1\nrate: 0.05"));
        QCPGraph* eIterations = plots.diagnosticsPlot()->graph(LivePlots::EIterations);
        QVERIFY(plots.tooltipAt(plots.diagnosticsPlot(), pixelOf(eIterations, 1))
                    .startsWith("E iter.\niteration: 1"));
        QCOMPARE(plots.tooltipAt(plots.lossPlot(), QPointF(-100, -100)), QString()); // nothing there

        // Hovering: the tooltip event shows the point's text, and the plot's help away from points.
        const QPoint at = pixelOf(plots.gradientPlot()->graph(0), 1).toPoint();
        QHelpEvent hover(QEvent::ToolTip, at, plots.gradientPlot()->mapToGlobal(at));
        QApplication::sendEvent(plots.gradientPlot(), &hover);
        QTRY_COMPARE(QToolTip::text(),
                     QString("gradient norm\niteration: 1\nmax |projected gradient| (bits): 0.25"));
        const QPoint away(2, 2);
        QHelpEvent help(QEvent::ToolTip, away, plots.gradientPlot()->mapToGlobal(away));
        QApplication::sendEvent(plots.gradientPlot(), &help);
        QTRY_VERIFY(QToolTip::text().contains("smallest positive value / 10"));
    }

    // A finished run kept as an overlay stays drawn, lighter, under the next run; Clear removes it.
    void overlayKeepsThePreviousRun() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        LivePlots* plots = w.livePlots();
        w.runPanel()->maxIterations()->setValue(3);
        QVERIFY(!plots->keepOverlayButton()->isEnabled());
        const QList<IterationSample> first = optimise(w);
        QCOMPARE(first.size(), 4);
        QVERIFY(test::click(plots->keepOverlayButton()));
        QCOMPARE(plots->overlays().size(), std::size_t(1));
        QCOMPARE(plots->overlays().front().name,
                 QString("run 1: converged schedule, L-BFGS-B, global rates"));
        QVERIFY(!plots->keepOverlayButton()->isEnabled()); // kept once
        QVERIFY(!plots->keepAsOverlay());
        QCOMPARE(plots->samples().size(), std::size_t(first.size())); // still the current run (sessions)

        // Another method, from where the first run ended.
        w.runPanel()->findChild<QComboBox*>("optimizerKind")->setCurrentIndex(1); // Adam
        const QList<IterationSample> second = optimise(w);
        QCOMPARE(second.size(), 4);
        QCustomPlot* loss = plots->lossPlot();
        QCOMPARE(loss->graphCount(), 2);
        QCPGraph* overlay = loss->graph(1);
        QCOMPARE(overlay->name(), plots->overlays().front().name);
        QVector<double> firstNll, secondNll, firstKeys;
        for (const IterationSample& s : first) {
            firstNll << s.nllBits;
            firstKeys << s.iteration;
        }
        for (const IterationSample& s : second)
            secondNll << s.nllBits;
        QCOMPARE(plotValues(loss, 1), firstNll);
        QCOMPARE(plotKeys(loss, 1), firstKeys);
        QCOMPARE(plotValues(loss, 0), secondNll);
        QVERIFY(overlay->pen().color().alpha() < 255 && overlay->pen().style() == Qt::DashLine);
        QCOMPARE(plots->gradientPlot()->graphCount(), 2);
        QCOMPARE(plotValues(plots->gradientPlot(), 1).size(), first.size());
        QVERIFY(loss->legend->visible());

        // The x axis and gap view apply to the overlay too: evaluations, and the gap to the best of
        // both runs.
        plots->xAxisBox()->setCurrentIndex(1);
        QVector<double> firstEvaluations;
        for (const IterationSample& s : first)
            firstEvaluations << s.evaluations;
        QCOMPARE(plotKeys(loss, 1), firstEvaluations);
        plots->lossViewBox()->setCurrentIndex(1);
        double best = INFINITY;
        for (double v : firstNll + secondNll)
            best = std::min(best, v);
        QCOMPARE(plots->trueValue(overlay, 0), firstNll[0] - best);

        QVERIFY(test::click(plots->clearOverlaysButton()));
        QCOMPARE(loss->graphCount(), 1);
        QCOMPARE(plots->gradientPlot()->graphCount(), 1);
        QVERIFY(plots->overlays().empty());
        QVERIFY(!plots->clearOverlaysButton()->isEnabled());
    }

    // Per family mode: one row per family with the optimiser's own per-family results, sortable.
    void convergenceTableShowsEachFamily() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        w.runPanel()->findChild<QComboBox*>("rateMode")->setCurrentIndex(2); // per family
        w.runPanel()->maxIterations()->setValue(3);
        ConvergenceTable* table = w.livePlots()->convergenceTable();
        QVERIFY(!table->isVisible());
        const QList<IterationSample> iterations = optimise(w);
        QCOMPARE(iterations.size(), 4);
        const std::vector<FamilyProgress>& last = iterations.back().families;
        const auto& families = w.dataset()->families;
        QCOMPARE(last.size(), families.size());
        QVERIFY(table->isVisible());
        QVERIFY(!table->view()->accessibleName().isEmpty());
        ConvergenceModel* model = table->model();
        QCOMPARE(model->rowCount(), static_cast<int>(families.size()));
        int stoppedEarly = 0;
        for (int f = 0; f < model->rowCount(); ++f) {
            QCOMPARE(model->index(f, ConvergenceModel::Family).data().toString(),
                     QString::fromStdString(families[f].name));
            QCOMPARE(model->index(f, ConvergenceModel::Nll).data(ConvergenceModel::SortRole).toDouble(),
                     last[f].nllBits);
            QCOMPARE(model->index(f, ConvergenceModel::GradNorm).data(ConvergenceModel::SortRole).toDouble(),
                     last[f].gradNorm);
            QCOMPARE(model->index(f, ConvergenceModel::Iterations).data().toInt(), last[f].iterations);
            const QString status = model->index(f, ConvergenceModel::Status).data().toString();
            if (last[f].status == FamilyStatus::Searching) {
                QCOMPARE(status, QString("stopped early (the run ended)"));
                ++stoppedEarly;
            } else {
                QCOMPARE(status, QString::fromStdString(toString(last[f].status)));
            }
        }
        QVERIFY(stoppedEarly > 0); // 3 iterations are too few for some families
        QCOMPARE(table->summary()->text(),
                 QString("Per-family convergence: %1 of %2 families ended their search, "
                         "%3 stopped early")
                     .arg(model->rowCount() - stoppedEarly)
                     .arg(model->rowCount())
                     .arg(stoppedEarly));
        double total = 0;
        for (const FamilyProgress& p : last)
            total += p.nllBits;
        QCOMPARE(total, iterations.back().nllBits);

        // Clicking the NLL header sorts by NLL.
        QHeaderView* header = table->view()->horizontalHeader();
        table->view()->scrollTo(
            table->view()->model()->index(0, ConvergenceModel::Nll)); // as a user scrolls to it
        // The table was just filled and shown: let its layout settle (two equal readings 50 ms apart)
        // before aiming, as a person's click comes after the table is drawn.
        int aimedAt = -1;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const int now = header->sectionViewportPosition(ConvergenceModel::Nll);
                return std::exchange(aimedAt, now) == now;
            }(),
            kTimeoutMs);
        QVERIFY(header->sectionViewportPosition(ConvergenceModel::Nll) + 5 < header->viewport()->width());
        QTest::mouseClick(
            header->viewport(), Qt::LeftButton, Qt::NoModifier,
            QPoint(header->sectionViewportPosition(ConvergenceModel::Nll) + 5, header->height() / 2));
        QCOMPARE(header->sortIndicatorSection(), int(ConvergenceModel::Nll));
        QSortFilterProxyModel* proxy = table->proxy();
        const bool ascending = header->sortIndicatorOrder() == Qt::AscendingOrder;
        for (int r = 1; r < proxy->rowCount(); ++r) {
            const double a =
                proxy->index(r - 1, ConvergenceModel::Nll).data(ConvergenceModel::SortRole).toDouble();
            const double b =
                proxy->index(r, ConvergenceModel::Nll).data(ConvergenceModel::SortRole).toDouble();
            QVERIFY(ascending ? a <= b : a >= b);
        }
    }

    // The clade DAG coloured by a per-clade quantity: each clade's colour is the colour scale's
    // colour of the core's value for that clade, and its tooltip gives the value.
    void heatMapColoursFollowTheCoreStatistics() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        const int family = 3;
        w.familiesPanel()->selectFamily(family);
        WavesPanel* waves = w.wavesPanel();
        CladeDagView* dag = waves->dag();
        const int clades = w.dataset()->families[family].clades.cladeCount();
        QCOMPARE(dag->cladeItemCount(), clades);
        QVERIFY(!dag->showsValues());
        QVERIFY(!waves->colouringBox()->accessibleName().isEmpty() &&
                !waves->colouringBox()->toolTip().isEmpty());

        const CladeStatistics core =
            computeCladeStatistics(tablesOf(*test::sessionLikeBackend(w.dataset())), *w.dataset(),
                                   w.session().parameters(), w.knobsPanel()->options(), family);
        waves->colouringBox()->setCurrentIndex(2); // posterior probability, computed off the GUI thread
        QTRY_VERIFY_WITH_TIMEOUT(waves->cladeStatistics().has_value(), kTimeoutMs);
        QVERIFY(dag->showsValues());
        QVERIFY(test::sameNumbers(waves->cladeStatistics()->posterior, core.posterior));
        const ColourScale posteriorScale(0, 1, false);
        for (int c = 0; c < clades; ++c) {
            QCOMPARE(dag->cladeColour(c), posteriorScale.colour(core.posterior[c]));
            QVERIFY(dag->cladeToolTip(c).endsWith(QString("<b>posterior probability</b>: %1")
                                                      .arg(QString::number(core.posterior[c], 'g', 10))));
        }
        const int root = w.dataset()->families[family].clades.rootClade();
        QCOMPARE(dag->cladeColour(root), posteriorScale.colour(1.0));

        waves->colouringBox()->setCurrentIndex(1); // self-loop iterations
        std::vector<double> iterations(core.selfLoopIterations.begin(), core.selfLoopIterations.end());
        const ColourScale iterationScale = ColourScale::fit(iterations, false);
        QCOMPARE(dag->valueScale().low(), iterationScale.low());
        QCOMPARE(dag->valueScale().high(), iterationScale.high());
        for (int c = 0; c < clades; ++c)
            QCOMPARE(dag->cladeColour(c), iterationScale.colour(iterations[c]));

        // Other rates: recomputed at them (after the short coalescing delay).
        RateParameters theta = w.session().parameters();
        theta.setRates(0, Rates{0.3, 0.05, 0.2});
        w.session().setParameters(theta);
        const CladeStatistics moved =
            computeCladeStatistics(tablesOf(*test::sessionLikeBackend(w.dataset())), *w.dataset(), theta,
                                   w.knobsPanel()->options(), family);
        QVERIFY(moved.posterior != core.posterior);
        QTRY_VERIFY_WITH_TIMEOUT(test::sameNumbers(waves->cladeStatistics()->posterior, moved.posterior),
                                 kTimeoutMs);
        QCOMPARE(waves->cladeStatistics()->selfLoopIterations, moved.selfLoopIterations);

        waves->colouringBox()->setCurrentIndex(0); // back to wave phases
        QVERIFY(!dag->showsValues());
        QVERIFY(dag->cladeColour(root) != posteriorScale.colour(1.0));
    }

    // The heat map is computed off the GUI thread: of two families selected one right after the
    // other, the second's statistics are shown and the first's, arriving late, are dropped.
    void heatMapShowsTheLastSelectedFamily() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        WavesPanel* waves = w.wavesPanel();
        w.viewTabs()->setCurrentWidget(waves);
        waves->colouringBox()->setCurrentIndex(2); // posterior probability; no family yet: nothing to do
        QVERIFY(!waves->heatMapComputing());
        // First the family with the most clades (the longest solve), then another.
        const std::vector<GeneFamily>& families = w.dataset()->families;
        int first = 0;
        for (int f = 1; f < static_cast<int>(families.size()); ++f)
            if (families[f].clades.cladeCount() > families[first].clades.cladeCount()) first = f;
        const int second = first == 0 ? 1 : 0;
        const CladeStatistics expected =
            computeCladeStatistics(tablesOf(*test::sessionLikeBackend(w.dataset())), *w.dataset(),
                                   w.session().parameters(), w.knobsPanel()->options(), second);
        QVERIFY(expected.posterior != computeCladeStatistics(tablesOf(*test::sessionLikeBackend(w.dataset())),
                                                             *w.dataset(), w.session().parameters(),
                                                             w.knobsPanel()->options(), first)
                                          .posterior);

        QSignalSpy shown(waves, &WavesPanel::heatMapShown);
        w.familiesPanel()->selectFamily(first);
        QVERIFY(waves->heatMapComputing()); // the selection did not wait for the solve
        w.familiesPanel()->selectFamily(second);
        QVERIFY(waves->heatMapComputing());
        auto* note = waves->findChild<QLabel*>("heatMapNote");
        QVERIFY(note->isVisible());
        QVERIFY2(note->text().startsWith(QString("Computing the posterior probability of family %1")
                                             .arg(QString::fromStdString(families[second].name))),
                 qPrintable(note->text()));
        QVERIFY(!waves->dag()->showsValues());

        QTRY_VERIFY_WITH_TIMEOUT(!waves->heatMapComputing(), kTimeoutMs);
        QCOMPARE(shown.count(), 1);
        QVERIFY(waves->cladeStatistics().has_value());
        QVERIFY(test::sameNumbers(waves->cladeStatistics()->posterior, expected.posterior));
        CladeDagView* dag = waves->dag();
        QCOMPARE(dag->cladeItemCount(), families[second].clades.cladeCount());
        QVERIFY(dag->showsValues());
        const ColourScale scale(0, 1, false);
        for (int c = 0; c < dag->cladeItemCount(); ++c)
            QCOMPARE(dag->cladeColour(c), scale.colour(expected.posterior[c]));
        QVERIFY2(note->text().startsWith("Colours: posterior probability"), qPrintable(note->text()));
    }
};

QTEST_MAIN(GuiLivePlots)
#include "test_gui_live_plots.moc"
