// The workbench driven like a user: real load path, real buttons, real engine on its worker thread.
#include "data/origination.hpp"
#include "engine/family_solver.hpp"
#include "engine/wave_schedule.hpp"
#include "gui_test_support.hpp"
#include "input/input_discovery.hpp"
#include "input/open_input_dialog.hpp"
#include "panels/backtrack_panel.hpp"
#include "panels/cell_terms_panel.hpp"
#include "panels/eliding_combo_box.hpp"
#include "panels/families_panel.hpp"
#include "panels/problems_panel.hpp"
#include "panels/reconciliation_panel.hpp"
#include "panels/run_panel.hpp"
#include "panels/solver_knobs_panel.hpp"
#include "panels/species_tree_panel.hpp"
#include "panels/step_controls.hpp"
#include "panels/waves_panel.hpp"
#include "plots/live_plots.hpp"
#include "session/session_file.hpp"
#include "window/eliding_label.hpp"
#include "window/workbench_window.hpp"

#include <QAbstractItemView>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QGraphicsSimpleTextItem>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabBar>
#include <QTableView>
#include <QTableWidget>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeWidget>
#include <QtTest>
#include <cmath>

using namespace gpurec;
using namespace gpurec::ui;

using test::loadInto;
using test::plotKeys;
using test::plotValues;
using test::teachingRequest;
using test::typeInto;
constexpr int kTimeoutMs = test::kGuiTimeoutMs;

// Clicks Evaluate: true when the run gives the NLL of a CPU backend of its own on the loaded data
// (to 1e-9), which it leaves in `nllBits`.
bool evaluationMatchesTheCpu(WorkbenchWindow& w, double& nllBits) {
    QSignalSpy finished(&w.session(), &EngineSession::runFinished);
    if (!test::click(w.runPanel()->evaluateButton()) || !test::waitForCount(finished, 1)) return false;
    const auto outcome = finished.at(0).at(0).value<RunOutcome>();
    nllBits =
        makeCpuBackend(w.dataset())->evaluate(w.session().parameters(), SolverOptions{}, false).totalNllBits;
    if (outcome.error.isEmpty() && std::abs(outcome.nllBits - nllBits) < 1e-9 * nllBits) return true;
    qWarning("run: %s, NLL %.17g; CPU backend %.17g", qPrintable(outcome.error), outcome.nllBits, nllBits);
    return false;
}

// Selects the family with the most genes in the Families panel; its index.
int selectLargestFamily(WorkbenchWindow& w) {
    const Dataset& d = *w.dataset();
    int family = 0;
    for (int f = 0; f < static_cast<int>(d.families.size()); ++f)
        if (d.families[f].clades.geneCount() > d.families[family].clades.geneCount()) family = f;
    w.familiesPanel()->selectFamily(family);
    return family;
}

class GuiWorkbench : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        test::isolateSettings("gui_workbench");
        RecentInputs().clear();
    }

    void loadsTheSampleThroughTheLoadPath() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        const LoadRequest request = teachingRequest();
        QSignalSpy progress(w.findChild<QObject*>("loadProgress"), SIGNAL(valueChanged(int)));
        QVERIFY(loadInto(w, request));
        const Dataset& d = *w.dataset();
        LoadedInput direct = loadInput(request.paths, request.constraint, request.options);
        QCOMPARE(d.families.size(), direct.dataset->families.size());
        QCOMPARE(w.familiesPanel()->table()->model()->rowCount(), static_cast<int>(d.families.size()));
        QCOMPARE(w.wavesPanel()->plot()->waveCount(), static_cast<int>(computeWaveSchedule(d).waves.size()));
        QCOMPARE(w.problemsPanel()->problemCount(),
                 static_cast<int>(direct.errors.size() + direct.excluded.size()));
        const QLocale locale;
        QVERIFY(w.statusText().contains(QString("%1 species · %2 families · %3 clades")
                                            .arg(locale.toString(d.species.leafCount()),
                                                 locale.toString(int(d.families.size())),
                                                 locale.toString(d.cladeCount()))));
        // The status field is short; its tooltip has the tree nodes and splits too.
        QVERIFY(w.findChild<QLabel*>("statusDataset")
                    ->toolTip()
                    .contains(QString("%1 tree nodes").arg(locale.toString(d.species.size()))));
        QVERIFY(progress.count() > 0);
        // The input is remembered for File ▸ Open recent.
        std::vector<LoadRequest> recent = RecentInputs().entries();
        QVERIFY(!recent.empty());
        QCOMPARE(recent.front().paths.familiesFile, request.paths.familiesFile);
    }

    void optimisesWithTheButtonsAndPlotsEveryIteration() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        RunPanel* run = w.runPanel();
        run->maxIterations()->setValue(4);
        QSignalSpy iterations(&w.session(), &EngineSession::iterationFinished);
        QSignalSpy finished(&w.session(), &EngineSession::runFinished);
        QVERIFY(test::click(run->optimiseButton()));
        QVERIFY(!run->optimiseButton()->isEnabled());
        QVERIFY(run->stopButton()->isEnabled());
        QVERIFY(test::waitForCount(finished, 1));
        auto outcome = finished.at(0).at(0).value<RunOutcome>();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        QCOMPARE(outcome.iterations, 4);

        // One point per reported iteration (0 is the starting point), in order, and the loss went down.
        QCustomPlot* loss = w.livePlots()->lossPlot();
        QCOMPARE(loss->graph(0)->dataCount(), iterations.count());
        QCOMPARE(iterations.count(), outcome.iterations + 1);
        QCOMPARE(plotKeys(loss, 0), (QVector<double>{0, 1, 2, 3, 4}));
        QVector<double> nll = plotValues(loss, 0);
        QVERIFY2(nll.back() < nll.front(), qPrintable(QString("%1 → %2").arg(nll.front()).arg(nll.back())));
        for (int i = 0; i < iterations.count(); ++i)
            QCOMPARE(nll[i], iterations.at(i).at(0).value<IterationSample>().nllBits);
        QCOMPARE(w.livePlots()->ratesPlot()->graph(0)->dataCount(), iterations.count());
        QCOMPARE(w.livePlots()->gradientPlot()->graph(0)->dataCount(), iterations.count());
        QCOMPARE(w.livePlots()->diagnosticsPlot()->graph(LivePlots::EIterations)->dataCount(),
                 iterations.count());

        // The best rates are in the model, the families table shows their log-likelihoods.
        QCOMPARE(w.session().parameters().theta(), outcome.theta.theta());
        QVERIFY(std::abs(outcome.nllBits - *std::min_element(nll.begin(), nll.end())) <
                1e-9 * outcome.nllBits);
        QAbstractItemModel* table = w.familiesPanel()->table()->model();
        double sum = 0;
        for (int row = 0; row < table->rowCount(); ++row)
            sum += table->index(row, FamiliesModel::LogLikelihood).data(Qt::UserRole).toDouble();
        QVERIFY(std::abs(-sum / std::log(2.0) - outcome.nllBits) < 1e-9 * outcome.nllBits);
        QVERIFY(w.statusText().contains("done after 4 iterations"));
        QVERIFY(run->optimiseButton()->isEnabled());
        QVERIFY(!run->stopButton()->isEnabled());

        // Another device rebuilds the engine with the fitted rates: evaluating gives the same loss.
        QSignalSpy ready(&w.session(), &EngineSession::modelReady);
        auto* device = w.findChild<QComboBox*>("device");
        device->setCurrentIndex(device->findData("cpu"));
        QVERIFY(test::waitForCount(ready, 1));
        QVERIFY(ready.at(0).at(0).toString().startsWith("cpu ("));
        QVERIFY(w.statusText().endsWith(ready.at(0).at(0).toString()));
        QVERIFY(test::click(run->evaluateButton()));
        QVERIFY(test::waitForCount(finished, 2));
        auto evaluation = finished.last().at(0).value<RunOutcome>();
        QVERIFY(evaluation.kind == RunKind::Evaluation);
        QVERIFY(std::abs(evaluation.nllBits - outcome.nllBits) < 1e-9 * outcome.nllBits);
    }

    // --origination in the Open data dialog: picked from its list with the mouse, it reaches the
    // loaded families and the engine's likelihood.
    void originationChosenInTheOpenDialogReachesTheEngine() {
        OpenInputDialog dialog;
        dialog.setRequest(teachingRequest());
        QVERIFY(test::showActive(dialog));
        QComboBox* origination = nullptr;
        for (QComboBox* box : dialog.findChildren<QComboBox*>())
            if (box->accessibleName() == "Families originate") origination = box;
        QVERIFY(origination);
        QCOMPARE(origination->currentData().toString(), QString("UNIFORM"));
        QVERIFY(test::click(origination));
        QAbstractItemView* list = origination->view();
        QTRY_VERIFY(list->isVisible());
        const QModelIndex lca = list->model()->index(origination->findData("LCA"), 0);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(lca).center());
        QTRY_VERIFY(!list->isVisible());
        QCOMPARE(origination->currentData().toString(), QString("LCA"));
        const LoadRequest request = dialog.request();
        QVERIFY(request.options.origination == Origination::Lca);
        dialog.close();

        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, request));
        const Dataset& d = *w.dataset();
        bool belowRoot = false;
        for (const GeneFamily& f : d.families) {
            QCOMPARE(f.originSpecies, coveredSpeciesAncestor(d.species, f));
            belowRoot = belowRoot || f.originSpecies != d.species.root();
        }
        QVERIFY(belowRoot);
        double expected = 0;
        QVERIFY(evaluationMatchesTheCpu(w, expected));
        LoadRequest uniform = request;
        uniform.options.origination = Origination::Uniform;
        const double anywhere =
            makeCpuBackend(loadInput(uniform.paths, uniform.constraint, uniform.options).dataset)
                ->evaluate(w.session().parameters(), SolverOptions{}, false)
                .totalNllBits;
        QVERIFY(std::abs(anywhere - expected) > 1e-6); // the option changed the model
    }

    // RELDATED picked with the mouse in the Open data dialog reaches the engine (its likelihood, not
    // PARENTS'), comes back into the dialog, and is remembered with the recent input and the session.
    void relDatedChosenInTheOpenDialogReachesTheEngine() {
        OpenInputDialog dialog;
        dialog.setRequest(teachingRequest());
        QVERIFY(test::showActive(dialog));
        QComboBox* constraint = nullptr;
        for (QComboBox* box : dialog.findChildren<QComboBox*>())
            if (box->accessibleName() == "Transfers go") constraint = box;
        QVERIFY(constraint);
        QCOMPARE(constraint->currentData().toString(), QString("PARENTS"));
        QVERIFY(test::click(constraint));
        QAbstractItemView* list = constraint->view();
        QTRY_VERIFY(list->isVisible());
        const QModelIndex dated = list->model()->index(constraint->findData("RELDATED"), 0);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(dated).center());
        QTRY_VERIFY(!list->isVisible());
        const LoadRequest request = dialog.request();
        QVERIFY(request.constraint == TransferConstraint::RelDated);
        dialog.close();
        OpenInputDialog again;
        again.setRequest(request);
        QVERIFY(again.request().constraint == TransferConstraint::RelDated);

        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, request));
        QVERIFY(w.dataset()->transferConstraint == TransferConstraint::RelDated);
        double expected = 0;
        QVERIFY(evaluationMatchesTheCpu(w, expected));
        LoadRequest parents = request;
        parents.constraint = TransferConstraint::Parents;
        const double notDated =
            makeCpuBackend(loadInput(parents.paths, parents.constraint, parents.options).dataset)
                ->evaluate(w.session().parameters(), SolverOptions{}, false)
                .totalNllBits;
        QVERIFY(std::abs(notDated - expected) > 1e-6); // the choice changed the model
        QVERIFY(RecentInputs().entries().front().constraint == TransferConstraint::RelDated);
        const std::string session = test::temporaryFolder("gui_reldated") + "/session.json";
        QVERIFY(w.saveSession(QString::fromStdString(session)));
        QVERIFY(readSessionFile(QString::fromStdString(session)).input.constraint ==
                TransferConstraint::RelDated);
    }

    // The model's events in the Open data dialog: UndatedDL picked with the mouse greys what it
    // lacks (the transfer constraint, --no-dup, --no-tl); --no-dl clicked on; the loaded model's
    // likelihood is the engine's, its T starting rate is greyed and its T column blank.
    void modelEventsChosenInTheOpenDialogReachTheEngine() {
        OpenInputDialog dialog;
        dialog.setRequest(teachingRequest());
        QVERIFY(test::showActive(dialog));
        QComboBox *model = nullptr, *constraint = nullptr;
        for (QComboBox* box : dialog.findChildren<QComboBox*>()) {
            if (box->accessibleName() == "Model events") model = box;
            if (box->accessibleName() == "Transfers go") constraint = box;
        }
        QCheckBox *noDup = nullptr, *noDl = nullptr, *noTl = nullptr;
        for (QCheckBox* box : dialog.findChildren<QCheckBox*>()) {
            if (box->accessibleName() == "Leave out duplications") noDup = box;
            if (box->accessibleName() == "Leave out the duplication-loss term") noDl = box;
            if (box->accessibleName() == "Leave out the transfer-loss terms") noTl = box;
        }
        QVERIFY(model && constraint && noDup && noDl && noTl);
        QVERIFY(noDup->isEnabled() && noTl->isEnabled() && constraint->isEnabled());
        QVERIFY(test::click(noTl)); // --no-dup and --no-tl do not go together
        QVERIFY(noTl->isChecked());
        QVERIFY(!noDup->isEnabled());
        QVERIFY(test::click(noTl));
        QVERIFY(noDup->isEnabled());
        QVERIFY(test::click(model));
        QAbstractItemView* list = model->view();
        QTRY_VERIFY(list->isVisible());
        const QModelIndex dl = list->model()->index(model->findData("UndatedDL"), 0);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(dl).center());
        QTRY_VERIFY(!list->isVisible());
        QVERIFY(!constraint->isEnabled() && !noDup->isEnabled() && !noTl->isEnabled());
        QVERIFY(noDl->isEnabled());
        QVERIFY(test::click(noDl));
        const LoadRequest request = dialog.request();
        QVERIFY(request.options.events.recModel == RecModel::UndatedDL);
        QVERIFY(request.options.events.noDl && !request.options.events.noTl && !request.options.events.noDup);
        dialog.close();

        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, request));
        QVERIFY(w.dataset()->events.recModel == RecModel::UndatedDL);
        double expected = 0;
        QVERIFY(evaluationMatchesTheCpu(w, expected));
        LoadRequest plain = request;
        plain.options.events = EventModel{};
        const double dtl = makeCpuBackend(loadInput(plain.paths, plain.constraint, plain.options).dataset)
                               ->evaluate(w.session().parameters(), SolverOptions{}, false)
                               .totalNllBits;
        QVERIFY(std::abs(dtl - expected) > 1e-6); // the choice changed the model
        auto* startT = w.runPanel()->findChild<QLineEdit*>("startT");
        QVERIFY(startT && !startT->isEnabled());
        QVERIFY(w.runPanel()->findChild<QLineEdit*>("startD")->isEnabled());
        const QString current = w.runPanel()->findChild<QLabel*>("currentRates")->text();
        QVERIFY2(current.contains("L ") && !current.contains("T "), qPrintable(current));
        FamiliesModel* families = w.familiesPanel()->model();
        QVERIFY(!families->data(families->index(0, FamiliesModel::RateT)).isValid());
        QVERIFY(families->data(families->index(0, FamiliesModel::RateL)).isValid());
    }

    // --fraction-missing-file typed into the Open data dialog reaches the engine's likelihood; a bad
    // file loads nothing and names its line in the Problems panel.
    void fractionMissingFileFromTheOpenDialogReachesTheEngine() {
        const std::string dir = test::temporaryFolder("gui_fraction_missing");
        const LoadRequest teaching = teachingRequest();
        const SpeciesTree species = SpeciesTree::readFile(teaching.paths.speciesTree);
        std::string text;
        for (int e = 0; e < species.size(); ++e)
            if (species.isLeaf(e))
                text += quoteNewickLabel(species.name(e)) + (e % 3 == 0 ? " 0.4\n" : " 0\n");
        test::writeFile(dir + "/fm.txt", text);
        OpenInputDialog dialog;
        dialog.setRequest(teaching);
        QVERIFY(test::showActive(dialog));
        auto* field = dialog.findChild<QLineEdit*>("fractionMissingPath");
        QVERIFY(field);
        QCOMPARE(field->accessibleName(), QString("Fraction-missing file"));
        QVERIFY(test::click(field));
        QCOMPARE(QApplication::focusWidget(), field);
        QTest::keyClicks(field, QString::fromStdString(dir + "/fm.txt"));
        const LoadRequest request = dialog.request();
        QCOMPARE(request.paths.fractionMissingFile, dir + "/fm.txt");
        dialog.close();

        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, request));
        QCOMPARE(w.dataset()->fractionMissing.size(), std::size_t(species.size()));
        double expected = 0;
        QVERIFY(evaluationMatchesTheCpu(w, expected));
        const double complete =
            makeCpuBackend(loadInput(teaching.paths, teaching.constraint, teaching.options).dataset)
                ->evaluate(w.session().parameters(), SolverOptions{}, false)
                .totalNllBits;
        QVERIFY(std::abs(complete - expected) > 1e-6); // the file changed the model

        test::writeFile(dir + "/fm.txt", "nobody 0.5\n");
        QSignalSpy loaded(&w, &WorkbenchWindow::inputLoaded);
        w.openInput(request);
        QVERIFY(loaded.wait(kTimeoutMs));
        QCOMPARE(loaded.at(0).at(0).toBool(), false);
        auto* list = w.problemsPanel()->findChild<QTreeWidget*>("problemsList");
        QCOMPARE(list->topLevelItemCount(), 1);
        QCOMPARE(list->topLevelItem(0)->text(2), QString("fm.txt"));
        QCOMPARE(list->topLevelItem(0)->text(3), QString("1:1"));
        QCOMPARE(list->topLevelItem(0)->text(4), QString("'nobody' is not a species of the tree"));
    }

    // Issue 12: a mouse click on Optimise disabled the focused button; focus went down the tab
    // chain into the memory-limit field, which "finished editing" as it was disabled in turn, so
    // the engine was rebuilt and the run stopped before its first step.
    void clickingOptimiseRunsAndLeavesTheEngineAlone() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        RunPanel* run = w.runPanel();
        run->maxIterations()->setValue(1);
        QSignalSpy rebuilt(&w.session(), &EngineSession::modelReady);
        QSignalSpy iterations(&w.session(), &EngineSession::iterationFinished);
        QSignalSpy finished(&w.session(), &EngineSession::runFinished);
        QVERIFY(test::click(run->optimiseButton()));
        QCOMPARE(QApplication::focusWidget(), run->pauseButton());
        QVERIFY(test::waitForCount(finished, 1));
        auto outcome = finished.at(0).at(0).value<RunOutcome>();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        QCOMPARE(outcome.iterations, 1);
        QCOMPARE(iterations.count(), 2); // the starting point and one step
        QCOMPARE(outcome.stopReason, QString("reached max_iter"));
        QCOMPARE(rebuilt.count(), 0);
        QCOMPARE(QApplication::focusWidget(), run->optimiseButton());
        const QString log = w.logView()->toPlainText();
        QVERIFY2(log.contains(
                     QString("Optimisation finished after 1 iteration: reached max_iter. Best NLL %1 bits")
                         .arg(outcome.nllBits, 0, 'f', 3)),
                 qPrintable(log));
        QVERIFY(w.statusText().contains(
            QString("done after 1 iteration · best NLL %1 bits").arg(outcome.nllBits, 0, 'f', 3)));

        // Passing through the memory field without a change rebuilds nothing; a change does.
        auto* memory = run->findChild<QDoubleSpinBox*>("memoryLimit");
        QVERIFY(test::click(memory));
        QCOMPARE(QApplication::focusWidget(), memory);
        QTest::keyClick(memory, Qt::Key_Tab);
        QVERIFY(QApplication::focusWidget() != memory);
        QVERIFY(!rebuilt.wait(300));
        QVERIFY(test::click(memory));
        QTest::keyClick(memory, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(memory, "2");
        QTest::keyClick(memory, Qt::Key_Tab);
        QCOMPARE(run->memoryLimitGiB(), 2.0);
        QVERIFY(test::waitForCount(rebuilt, 1));
        QCOMPARE(rebuilt.count(), 1);
    }

    void knobChangeMidRunReachesTheEngineAndPauseResumeStopWork() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        RunPanel* run = w.runPanel();
        // Per species: enough iterations that the run is still going when Pause is clicked (a
        // click delivers the events queued meanwhile; a global fit of this sample takes a few ms).
        run->findChild<QComboBox*>("rateMode")->setCurrentIndex(1);
        run->maxIterations()->setValue(1000);
        QSignalSpy paused(&w.session(), &EngineSession::pausedChanged);
        QSignalSpy finished(&w.session(), &EngineSession::runFinished);
        QVERIFY(test::click(run->optimiseButton()));
        QVERIFY(test::click(run->pauseButton())); // takes effect at the first iteration's end
        QVERIFY2(run->pauseButton()->text() == "Resume", qPrintable(w.logView()->toPlainText()));
        QVERIFY(test::waitForCount(paused, 1));
        QCOMPARE(paused.at(0).at(0).toBool(), true);
        QVERIFY(w.session().paused());
        const QString status = w.findChild<QLabel*>("statusIteration")->text();
        QVERIFY2(QRegularExpression("^iteration \\d+ · NLL [0-9.]+ bits · paused$").match(status).hasMatch(),
                 qPrintable(status));
        QCOMPARE(finished.count(), 0);
        // The device does not change under a running optimisation, and the log says why.
        QVERIFY(!w.session().changeDevice("cpu", {}));
        QVERIFY(w.logView()->toPlainText().contains(
            "The device stays as it is during a run: stop the run to change it to cpu"));

        // On the CPU every iteration so far needed more than 2 self-loop iterations for some clade;
        // the CUDA backend solves the self-loop directly (one pass per clade, pi_iters unused).
        const bool direct = w.statusText().contains("cuda");
        QCustomPlot* diagnostics = w.livePlots()->diagnosticsPlot();
        const int before = w.livePlots()->pointCount();
        QVERIFY(before >= 1);
        for (double v : plotValues(diagnostics, LivePlots::MaxPiIterations))
            QVERIFY(direct ? v == 1 : v > 2);

        // Lower pi_iters to 2 while paused: the engine must use it from the next iteration on.
        auto* piIters = qobject_cast<QLineEdit*>(w.knobsPanel()->editor("pi_iters"));
        QVERIFY(piIters);
        typeInto(piIters, "2");
        QCOMPARE(w.knobsPanel()->errorText("pi_iters"), QString());
        QCOMPARE(w.knobsPanel()->options().pi_iters, 2);
        QVERIFY(w.logView()->toPlainText().contains(
            "Solver options pi_iters 200 → 2: will apply from the next iteration"));

        QVERIFY(test::click(w.findChild<QPushButton*>("clearWarmStarts")));
        QVERIFY(w.logView()->toPlainText().contains("Warm starts will be cleared before the next iteration"));

        QVERIFY(test::click(run->pauseButton())); // Resume
        QCOMPARE(run->pauseButton()->text(), QString("Pause"));
        // A few more iterations (or the end of the run, should the optimiser converge first).
        QTRY_VERIFY_WITH_TIMEOUT(w.livePlots()->pointCount() >= before + 3 || finished.count() > 0,
                                 kTimeoutMs);
        QVERIFY2(w.livePlots()->pointCount() > before, qPrintable(w.logView()->toPlainText()));
        QCOMPARE(paused.last().at(0).toBool(), false);
        const int lastBefore = before - 1;
        QVERIFY(w.logView()->toPlainText().contains(
            QString("After iteration %1: warm starts cleared").arg(lastBefore)));
        QVERIFY(w.logView()->toPlainText().contains(
            QString("After iteration %1: solver options pi_iters 200 → 2 (used from iteration %2 on)")
                .arg(lastBefore)
                .arg(lastBefore + 1)));

        bool stopped = false;
        if (finished.count() == 0) {
            stopped = test::click(run->stopButton());
            QVERIFY(stopped || finished.count() > 0); // (unless the optimiser ended on its own just now)
            QVERIFY(test::waitForCount(finished, 1));
        }
        auto outcome = finished.at(0).at(0).value<RunOutcome>();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        QVERIFY(outcome.iterations < 1000);
        if (stopped && outcome.stopped) { // (the optimiser may still end on its own during the click)
            QCOMPARE(outcome.stopReason, QString("stopped by you"));
            QVERIFY(w.logView()->toPlainText().contains(
                QString("Optimisation finished after %1: stopped by you. Best NLL")
                    .arg(outcome.iterations == 1 ? QString("1 iteration")
                                                 : QString("%1 iterations").arg(outcome.iterations))));
        }

        QVector<double> pi = plotValues(diagnostics, LivePlots::MaxPiIterations);
        QVector<double> iteration = plotKeys(diagnostics, LivePlots::MaxPiIterations);
        for (int i = 0; i < pi.size(); ++i) {
            if (direct)
                QCOMPARE(pi[i], 1.0);
            else if (iteration[i] <= lastBefore)
                QVERIFY(pi[i] > 2);
            else
                QCOMPARE(pi[i], 2.0);
        }
        // Stop kept the best point evaluated (the rates plot shows the root's row): the best
        // iteration, or a line-search trial better than every iteration when Stop came during the
        // line search.
        QVector<double> nll = plotValues(w.livePlots()->lossPlot(), 0);
        const int best = static_cast<int>(std::min_element(nll.begin(), nll.end()) - nll.begin());
        Rates kept = w.session().parameters().rates(w.dataset()->species.root());
        QCOMPARE(w.session().parameters().theta(), outcome.theta.theta());
        if (std::abs(outcome.nllBits - nll[best]) <= 1e-12 * nll[best]) {
            QCOMPARE(kept.d, plotValues(w.livePlots()->ratesPlot(), 0)[best]);
            QCOMPARE(kept.l, plotValues(w.livePlots()->ratesPlot(), 1)[best]);
            QCOMPARE(kept.t, plotValues(w.livePlots()->ratesPlot(), 2)[best]);
        } else {
            QVERIFY2(outcome.nllBits < nll[best], qPrintable(QString("kept %1, best plotted %2")
                                                                 .arg(outcome.nllBits, 0, 'g', 17)
                                                                 .arg(nll[best], 0, 'g', 17)));
        }
        QVERIFY(!w.session().running());
        QVERIFY(run->optimiseButton()->isEnabled());
    }

    void loadingOtherDataDuringARunStopsTheRun() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        w.runPanel()->findChild<QComboBox*>("rateMode")->setCurrentIndex(1); // per species
        w.runPanel()->maxIterations()->setValue(1000);
        QSignalSpy finished(&w.session(), &EngineSession::runFinished);
        QVERIFY(test::click(w.runPanel()->optimiseButton()));
        QSignalSpy paused(&w.session(), &EngineSession::pausedChanged);
        QVERIFY(test::click(w.runPanel()->pauseButton()));
        QVERIFY(test::waitForCount(paused, 1));

        const std::string dir = test::temporaryFolder("gui_reload");
        test::writeFile(dir + "/species.nwk", "((A,B)AB,(C,D)CD)R;\n");
        test::writeFile(dir + "/fam.nwk", "((A_1,B_1),(C_1,D_1));\n");
        LoadRequest other;
        other.paths.speciesTree = dir + "/species.nwk";
        other.paths.geneTrees = {dir + "/fam.nwk"};
        // The run is not saved: loading asks first. Cancel keeps everything, Discard goes on.
        QString question;
        auto cancel = test::answerMessageBox("unsavedRunPrompt", QMessageBox::Cancel, &question);
        QVERIFY(!w.openInput(other));
        QCOMPARE(question, QString("The optimisation run in memory has not been saved as a session. Save it "
                                   "before you load other data?"));
        QVERIFY(w.session().running());
        QCOMPARE(w.dataset()->families.size(), std::size_t(30));
        auto discard = test::answerMessageBox("unsavedRunPrompt", QMessageBox::Discard);
        QVERIFY(loadInto(w, other));
        QVERIFY(test::showActive(w)); // back from the question (there is no window manager to do it)
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
        QCOMPARE(finished.at(0).at(0).value<RunOutcome>().error,
                 QString("the run was stopped: other data was loaded"));
        // The new data's rates are in place (7 species nodes, per-species mode) and the engine works on it.
        QCOMPARE(w.session().parameters().rowCount(), 7);
        QVERIFY(test::click(w.runPanel()->evaluateButton()));
        QVERIFY(test::waitForCount(finished, 2));
        auto evaluation = finished.last().at(0).value<RunOutcome>();
        QVERIFY2(evaluation.error.isEmpty(), qPrintable(evaluation.error));
        QCOMPARE(evaluation.familyLogLikelihood.size(), std::size_t(1));
    }

    // Sized to the screen in device-independent pixels (CTest runs this again at QT_SCALE_FACTOR
    // 1.5, where a 1600×1000 screen holds 1067×667 of them); geometry and docks come back.
    void windowFitsTheScreenAndKeepsItsLayout() {
        QSettings().remove("window");
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        QSize kept;
        {
            WorkbenchWindow w;
            QVERIFY(test::showActive(w));
            QVERIFY2(available.contains(w.frameGeometry()),
                     qPrintable(QString("window %1×%2 at %3,%4 on a screen of %5×%6")
                                    .arg(w.frameGeometry().width())
                                    .arg(w.frameGeometry().height())
                                    .arg(w.frameGeometry().x())
                                    .arg(w.frameGeometry().y())
                                    .arg(available.width())
                                    .arg(available.height())));
            QVERIFY(w.width() >= available.width() * 0.8);
            // The Run dock's menus show their choice whole or elided ("…"), never cut mid-word.
            for (const char* name : {"device", "rateMode", "optimizerKind"}) {
                auto* combo = w.findChild<ElidingComboBox*>(name);
                QVERIFY2(combo, name);
                const QString shown = combo->shownText();
                QVERIFY2(shown == combo->currentText() || (shown.endsWith(QChar(0x2026)) &&
                                                           combo->currentText().startsWith(shown.chopped(1))),
                         qPrintable(QString("%1: '%2' for '%3'").arg(name, shown, combo->currentText())));
            }
            w.findChild<QDockWidget*>("logDock")->hide();
            w.resize(w.minimumSizeHint().expandedTo(available.size() * 0.7));
            kept = w.size();
            QVERIFY(w.close());
        }
        WorkbenchWindow again;
        QVERIFY(test::showActive(again));
        QCOMPARE(again.size(), kept);
        QVERIFY(again.findChild<QDockWidget*>("logDock")->isHidden());
        QVERIFY(again.findChild<QDockWidget*>("problemsDock")->isVisible());
    }

    // A narrow status bar shows each field in shorter words before it cuts anything, and the whole
    // text stays in the field (screen readers, tooltip).
    void statusFieldsShortenBeforeTheyElide() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        w.runPanel()->maxIterations()->setValue(2);
        QSignalSpy finished(&w.session(), &EngineSession::runFinished);
        QVERIFY(test::click(w.runPanel()->optimiseButton()));
        QVERIFY(test::waitForCount(finished, 1));
        const double nll = finished.at(0).at(0).value<RunOutcome>().nllBits;
        auto* dataset = w.findChild<ElidingLabel*>("statusDataset");
        auto* run = w.findChild<ElidingLabel*>("statusIteration");
        auto* timing = w.findChild<ElidingLabel*>("statusTiming");
        QCOMPARE(run->text(), QString("done after 2 iterations · best NLL %1 bits").arg(nll, 0, 'f', 3));
        for (ElidingLabel* field : {dataset, run, timing})
            QTRY_COMPARE(field->shownText(), field->text());

        // Each field given the width of its compact words draws exactly those.
        const QString compactRun = QString("done · %1 bits").arg(nll, 0, 'f', 3);
        const QString compactData = QString("%1 species · %2 families")
                                        .arg(w.dataset()->species.leafCount())
                                        .arg(w.dataset()->families.size());
        const QString compactTiming = timing->text().replace(" s / evaluation", " s/eval.");
        const std::pair<ElidingLabel*, QString> compact[] = {
            {dataset, compactData}, {run, compactRun}, {timing, compactTiming}};
        for (const auto& [field, words] : compact) {
            const QString whole = field->text();
            const QMargins m = field->contentsMargins();
            field->resize(field->fontMetrics().horizontalAdvance(words) + m.left() + m.right() + 1,
                          field->height());
            QCOMPARE(field->shownText(), words);
            QVERIFY(field->isElided());
            QCOMPARE(field->text(), whole);
            // Narrower still: the compact words are elided, never the long ones.
            field->resize(field->width() / 2, field->height());
            QVERIFY2(field->shownText().endsWith(QChar(0x2026)) &&
                         words.startsWith(field->shownText().chopped(1)),
                     qPrintable(field->shownText()));
        }
        // A text set without a compact form forgets the old one.
        dataset->setText("no data loaded");
        dataset->resize(dataset->fontMetrics().horizontalAdvance("no data") + 12, dataset->height());
        QVERIFY(dataset->shownText().endsWith(QChar(0x2026)) &&
                QString("no data loaded").startsWith(dataset->shownText().chopped(1)));
    }

    void quittingOrLoadingAsksBeforeAnUnsavedRunIsLost() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        QVERIFY(!w.hasUnsavedRun());
        QVERIFY(w.close()); // nothing ran: no question
        QVERIFY(test::showActive(w));
        w.runPanel()->maxIterations()->setValue(2);
        QSignalSpy finished(&w.session(), &EngineSession::runFinished);
        QVERIFY(test::click(w.runPanel()->optimiseButton()));
        QVERIFY(test::waitForCount(finished, 1));
        QVERIFY(w.hasUnsavedRun());
        QString question;
        auto cancel = test::answerMessageBox("unsavedRunPrompt", QMessageBox::Cancel, &question);
        QVERIFY(!w.close());
        QCOMPARE(question, QString("The optimisation run in memory has not been saved as a session. Save it "
                                   "before you quit?"));
        QVERIFY(w.isVisible());
        // Saved: quitting asks nothing (a question would be cancelled and keep the window open).
        QVERIFY(test::showActive(w));
        const QString dir = QString::fromStdString(test::temporaryFolder("gui_unsaved"));
        QVERIFY(w.saveSession(dir + "/run.json"));
        QVERIFY(!w.hasUnsavedRun());
        question.clear();
        {
            auto cancel = test::answerMessageBox("unsavedRunPrompt", QMessageBox::Cancel, &question);
            QVERIFY(w.close());
            QCOMPARE(question, QString());
        }
        // Discard lets the new data in.
        QVERIFY(test::showActive(w));
        QVERIFY(test::click(w.runPanel()->optimiseButton()));
        QVERIFY(test::waitForCount(finished, 2));
        auto discard = test::answerMessageBox("unsavedRunPrompt", QMessageBox::Discard, &question);
        QVERIFY(loadInto(w, teachingRequest()));
        QVERIFY(question.endsWith("before you load other data?"));
        QVERIFY(!w.hasUnsavedRun());
    }

    void helpOpensTheUserGuideAndListsShortcuts() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        // The source tree's guide, or the same text where an installed workbench keeps it.
        const QString guidePath = WorkbenchWindow::userGuidePath();
        QVERIFY(!guidePath.isEmpty());
        QCOMPARE(test::fileText(guidePath.toStdString()),
                 test::fileText(test::sourcePath("docs/user-guide.md")));
        QAction* guide = nullptr;
        for (QAction* a : w.menuBar()->findChildren<QAction*>())
            if (a->text() == "&User guide") guide = a;
        QVERIFY(guide);
        QCOMPARE(guide->shortcut(), QKeySequence(QKeySequence::HelpContents));
        guide->trigger();
        auto* text = w.findChild<QTextBrowser*>("userGuideText");
        QVERIFY(text);
        QVERIFY(text->isVisible());
        QVERIFY(text->toPlainText().startsWith("The gpurec workbench: a user guide"));
        QVERIFY(text->toPlainText().contains("Opening data"));

        const auto shortcuts = w.shortcuts();
        using Row = std::pair<QString, QString>;
        for (const Row& expected :
             {Row{"File ▸ Open data…", "Ctrl+O"}, Row{"Run ▸ Optimise", "F6"}, Row{"Run ▸ Stop", "F8"},
              Row{"Help ▸ User guide", "F1"}, Row{"Clade waves ▸ Play or pause the waves", "Space"}})
            QVERIFY2(std::find(shortcuts.begin(), shortcuts.end(), expected) != shortcuts.end(),
                     qPrintable(expected.first));
        QString listed;
        auto close = test::answerMessageBox("shortcutsDialog", QMessageBox::Close, &listed);
        w.showShortcuts();
        QVERIFY(listed.contains("<td>Run ▸ Optimise</td><td><b>F6</b></td>"));
    }

    void invalidKnobValuesAreRefusedInline() {
        SolverKnobsPanel knobs;
        QSignalSpy changed(&knobs, &SolverKnobsPanel::optionsChanged);
        auto* eTol = qobject_cast<QLineEdit*>(knobs.editor("e_tol"));
        typeInto(eTol, "0.5");
        QCOMPARE(knobs.errorText("e_tol"), QString("solver option e_tol = 0.5 is outside its range 0..1e-2"));
        QCOMPARE(knobs.options().e_tol, SolverOptions{}.e_tol);
        typeInto(eTol, "abc");
        QCOMPARE(knobs.errorText("e_tol"), QString("solver option e_tol expects a number, got 'abc'"));
        auto* maxIter = qobject_cast<QLineEdit*>(knobs.editor("e_max_iter"));
        typeInto(maxIter, "2.5");
        QCOMPARE(knobs.errorText("e_max_iter"),
                 QString("solver option e_max_iter expects an integer, got '2.5'"));
        QCOMPARE(changed.count(), 0);
        typeInto(eTol, "1e-12");
        QCOMPARE(knobs.errorText("e_tol"), QString());
        QCOMPARE(knobs.options().e_tol, 1e-12);
        QCOMPARE(changed.count(), 1);
        // Every field of SolverOptions has an editor with its range in the tooltip.
        for (const SolverOptionInfo& info : solverOptionInfo())
            QVERIFY(knobs.editor(info.name)->toolTip().contains(QString::fromStdString(info.range)));
        auto* schedule = qobject_cast<QComboBox*>(knobs.editor("schedule"));
        QVERIFY(schedule);
        schedule->setCurrentText("alerax");
        emit schedule->textActivated("alerax");
        QVERIFY(knobs.options().schedule == Schedule::AleRax);
    }

    void brokenInputIsListedWithFileLineAndReason() {
        const std::string dir = test::temporaryFolder("gui_broken");
        test::writeFile(dir + "/species.nwk", "(((A,B)AB,(C,D)CD)ABCD,E)R;\n");
        test::writeFile(dir + "/good.nwk", "((A_1,B_1),((C_1,D_1),E_1));\n");
        test::writeFile(dir + "/truncated.nwk", "((A_1,B_1),(C_1,\n  D_1);\n");
        test::writeFile(dir + "/unknown.nwk", "((A_1,B_1),(yeti_1,D_1));\n");
        test::writeFile(dir + "/narrow.nwk", "(A_1,(A_2,B_1));\n");
        test::writeFile(dir + "/families.txt",
                        "[FAMILIES]\n- good\ngene_tree = good.nwk\n- truncated\ngene_tree = truncated.nwk\n"
                        "- missing\ngene_tree = missing.nwk\n- unknown\ngene_tree = unknown.nwk\n"
                        "- narrow\ngene_tree = narrow.nwk\n");
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        LoadRequest request;
        request.paths.speciesTree = dir + "/species.nwk";
        request.paths.familiesFile = dir + "/families.txt";
        QVERIFY(loadInto(w, request));
        QCOMPARE(w.dataset()->families.size(), std::size_t(1));
        QCOMPARE(w.familiesPanel()->table()->model()->index(0, 0).data().toString(), QString("good"));

        auto* list = w.problemsPanel()->findChild<QTreeWidget*>("problemsList");
        QCOMPARE(list->topLevelItemCount(), 4);
        QStringList rows;
        for (int i = 0; i < list->topLevelItemCount(); ++i) {
            QTreeWidgetItem* item = list->topLevelItem(i);
            QStringList cells;
            for (int c = 0; c < 5; ++c)
                cells << item->text(c);
            rows << cells.join(" | ");
        }
        QCOMPARE(
            rows,
            (QStringList{
                "error | truncated | truncated.nwk | 2:7 | unbalanced parentheses: missing ')' before ';'",
                "error | missing | missing.nwk |  | cannot open file: No such file or directory",
                "error | unknown | unknown.nwk | 1:13 | gene 'yeti_1' of family 'unknown' maps to species "
                "'yeti', "
                "which is not in the species tree (default rule (species = gene label up to the first '_'))",
                "excluded | narrow |  |  | covers 2 species, fewer than the minimum of 4",
            }));
        QVERIFY(
            w.findChild<QLabel*>("problemsSummary")->text().startsWith("3 error(s), 1 family(ies) excluded"));

        // An unreadable species tree loads nothing and keeps the current data.
        test::writeFile(dir + "/bad_species.nwk", "((A,B),C;\n");
        request.paths.speciesTree = dir + "/bad_species.nwk";
        QSignalSpy loaded(&w, &WorkbenchWindow::inputLoaded);
        w.openInput(request);
        QVERIFY(loaded.wait(kTimeoutMs));
        QCOMPARE(loaded.at(0).at(0).toBool(), false);
        QCOMPARE(list->topLevelItemCount(), 1);
        QCOMPARE(list->topLevelItem(0)->text(2), QString("bad_species.nwk"));
        QVERIFY(!list->topLevelItem(0)->text(4).isEmpty());
        QCOMPARE(w.dataset()->families.size(), std::size_t(1));
    }

    void droppedDatasetFolderIsRecognised() {
        const std::string dir = test::temporaryFolder("gui_drop");
        test::writeFile(dir + "/species.nwk", "((A,B)AB,(C,D)CD)R;\n");
        test::writeFile(dir + "/trees/fam1.nwk", "((A_1,B_1),(C_1,D_1));\n");
        test::writeFile(dir + "/trees/fam1.link", "A_1 A\nB_1 B\nC_1 C\nD_1 D\n");
        test::writeFile(dir + "/trees/fam2.newick", "((A_2,C_2),(B_2,D_2));\n");
        DiscoveredInput found = discoverInput(
            {QString::fromStdString(dir + "/species.nwk"), QString::fromStdString(dir + "/trees")}, false);
        QCOMPARE(found.speciesTree, QString::fromStdString(dir + "/species.nwk"));
        QCOMPARE(found.geneTrees, (QStringList{QString::fromStdString(dir + "/trees/fam1.nwk"),
                                               QString::fromStdString(dir + "/trees/fam2.newick")}));
        QCOMPARE(found.mappings, (QStringList{QString::fromStdString(dir + "/trees/fam1.link"), QString()}));

        WorkbenchWindow w;

        QVERIFY(test::showActive(w));
        QSignalSpy loaded(&w, &WorkbenchWindow::inputLoaded);
        w.openPaths({QString::fromStdString(dir + "/species.nwk"), QString::fromStdString(dir + "/trees")});
        QVERIFY(loaded.wait(kTimeoutMs));
        QVERIFY(loaded.at(0).at(0).toBool());
        QCOMPARE(w.dataset()->families.size(), std::size_t(2));
        QCOMPARE(w.dataset()->families[0].name, std::string("fam1"));
    }

    void speciesTreeSearchColourTooltipsAndExport() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        const SpeciesTree& tree = w.dataset()->species;
        SpeciesTreePanel* panel = w.speciesTreePanel();
        SpeciesTreeView* view = panel->view();
        const int leaf = tree.leaves().at(tree.leafCount() / 2);
        const QString name = QString::fromStdString(tree.name(leaf));
        QSignalSpy selected(panel, &SpeciesTreePanel::speciesSelected);
        typeInto(panel->findChild<QLineEdit*>("speciesSearch"), name);
        QCOMPARE(view->selectedSpecies(), leaf);
        QVERIFY(selected.count() >= 1);
        QCOMPARE(selected.last().at(0).toInt(), leaf);

        QSignalSpy shown(panel, &SpeciesTreePanel::valuesShown);
        panel->setQuantity(SpeciesQuantity::Extinction);
        QVERIFY(test::waitForShown(shown, SpeciesQuantity::Extinction));
        const std::vector<double> E =
            test::sessionLikeBackend(w.dataset())
                ->familyTables(w.session().parameters(), w.knobsPanel()->options(), {0})
                .front()
                .E;
        QVERIFY(test::sameNumbers(panel->shownValues().values, E));
        QVERIFY(view->toolTipOf(leaf).contains(
            QString("Extinction probability E: %1").arg(QString::number(E[leaf], 'g', 4))));
        QVERIFY(view->branchColour(leaf) != view->branchColour(tree.root()));

        const QString dir = QString::fromStdString(test::temporaryFolder("gui_export"));
        QVERIFY(view->exportDrawing(dir + "/tree.svg"));
        QVERIFY(view->exportDrawing(dir + "/tree.png"));
        QVERIFY(view->exportDrawing(dir + "/tree.pdf"));
        QFile pdf(dir + "/tree.pdf");
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QVERIFY(pdf.read(5) == "%PDF-");
        QFile svg(dir + "/tree.svg");
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QByteArray text = svg.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains(name.toUtf8()));
        QImage png(dir + "/tree.png");
        QVERIFY(png.width() > 100 && png.height() > 100);
    }

    void selectingACladeShowsItsPiRowOnTheTree() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        const Dataset& d = *w.dataset();
        const int family = selectLargestFamily(w);
        CladeDagView* dag = w.wavesPanel()->dag();
        QCOMPARE(dag->cladeItemCount(), d.families[family].clades.cladeCount());

        const CladeSet& clades = d.families[family].clades;
        int clade = 0;
        while (clades.cladeSize[clade] < 3)
            ++clade;
        w.viewTabs()->setCurrentWidget(w.wavesPanel());
        dag->fitAll();
        dag->centerOn(dag->cladePosition(clade));
        QSignalSpy shown(w.speciesTreePanel(), &SpeciesTreePanel::valuesShown);
        QTest::mouseClick(dag->viewport(), Qt::LeftButton, {}, dag->mapFromScene(dag->cladePosition(clade)));
        QCOMPARE(dag->selectedClade(), clade);
        QVERIFY(test::waitForShown(shown, SpeciesQuantity::CladeProbability));

        // The colours are log10 Π(clade, ·) from the engine's own solver at the current rates.
        SpeciesLayout layout(d);
        EventProbabilities p = w.session().parameters().probabilities(family, PresentRates{});
        ExtinctionState ext = solveExtinction(layout, p, SolverOptions{});
        CladeTables tables = solveClades(layout, d.families[family], p, ext, SolverOptions{});
        const std::vector<double>& shownValues = w.speciesTreePanel()->shownValues().values;
        for (int e = 0; e < d.species.size(); ++e) {
            double pi = tables.piRow(clade)[e];
            if (pi > 0)
                QVERIFY(std::abs(shownValues[e] - (std::log10(pi) + tables.scale[clade] * std::log10(2.0))) <
                        1e-9);
            else
                QVERIFY(std::isnan(shownValues[e]));
        }
    }

    // Teaching: a clicked clade and a clicked branch are taken apart into the terms of Π(clade,
    // branch), which add up to the engine's cell; E(branch) likewise.
    void clickingACladeAndABranchTakesTheirCellApart() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        const Dataset& d = *w.dataset();
        const int family = selectLargestFamily(w);
        const CladeSet& clades = d.families[family].clades;
        const int clade = clades.rootClade();
        CladeDagView* dag = w.wavesPanel()->dag();
        w.viewTabs()->setCurrentWidget(w.wavesPanel());
        dag->fitAll();
        dag->centerOn(dag->cladePosition(clade));
        QTest::mouseClick(dag->viewport(), Qt::LeftButton, {}, dag->mapFromScene(dag->cladePosition(clade)));
        QCOMPARE(dag->selectedClade(), clade);

        CellTermsPanel* cells = w.cellTermsPanel();
        QSignalSpy updated(cells, &CellTermsPanel::updated);
        SpeciesTreeView* view = w.speciesTreePanel()->view();
        const int node = d.species.root();
        view->centerOn(view->nodePosition(node));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(view->nodePosition(node)));
        QVERIFY(QTest::qWaitFor(
            [&] {
                return cells->shown() && cells->shown()->cell && cells->shown()->species == node &&
                       cells->shown()->clade == clade;
            },
            kTimeoutMs));
        QVERIFY(updated.count() > 0);
        const CladeCellDecomposition& cell = *cells->shown()->cell;
        QVERIFY(cells->caption().contains(QString("clade %1").arg(clade)));
        QVERIFY(cells->caption().contains(QString::fromStdString(d.species.name(node))));
        QCOMPARE(cells->cladeTable()->rowCount(), static_cast<int>(cell.terms.size()));
        // The root clade at the root: speciation and the split terms carry it.
        bool speciation = false;
        for (int r = 0; r < cells->cladeTable()->rowCount(); ++r)
            speciation = speciation || cells->cladeTable()->item(r, 0)->text() == "S";
        QVERIFY(speciation);

        SpeciesLayout layout(d);
        EventProbabilities p = w.session().parameters().probabilities(family, PresentRates{});
        ExtinctionState ext = solveExtinction(layout, p, SolverOptions{});
        CladeTables tables = solveClades(layout, d.families[family], p, ext, SolverOptions{});
        QVERIFY(std::abs(cell.sumScaled() * std::ldexp(1.0, cell.scale - tables.scale[clade]) /
                             tables.piRow(clade)[node] -
                         1) < 1e-12);
        QCOMPARE(cells->extinctionTable()->rowCount(), 4);
        QVERIFY(std::abs(cells->shown()->extinction->sum() / ext.E[node] - 1) < 1e-12);
        // The dock is one click away in the bottom area.
        auto* dock = w.findChild<QDockWidget*>("cellDock");
        QVERIFY(dock);
        dock->raise();
        QTRY_VERIFY(cells->cladeTable()->isVisible());
    }

    void steppingThroughTheWavesWalksTheComputationOrder() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        const Dataset& d = *w.dataset();
        const int family = selectLargestFamily(w);
        const CladeSet& clades = d.families[family].clades;
        w.viewTabs()->setCurrentWidget(w.wavesPanel());
        WaveStepper* stepper = w.wavesPanel()->stepper();
        CladeDagView* dag = w.wavesPanel()->dag();
        QCOMPARE(stepper->stepCount(), clades.cladeCount()); // a teaching family: every clade
        QCOMPARE(stepper->step(), -1);

        // The first click on "Step forward" shows the first clade computed: a single gene.
        auto* forward = stepper->findChild<QToolButton*>("waveStepForward");
        QVERIFY(forward && forward->isVisible() && forward->isEnabled());
        QTest::mouseClick(forward, Qt::LeftButton);
        QCOMPARE(stepper->step(), 0);
        QCOMPARE(dag->selectedClade(), stepper->cladeAt(0));
        QCOMPARE(clades.cladeSize[stepper->cladeAt(0)], 1);
        // Keys work once focus is in the view, as after a click there.
        QTest::mouseClick(dag->viewport(), Qt::LeftButton, {}, QPoint(2, 2)); // empty corner
        QTRY_VERIFY(w.wavesPanel()->isAncestorOf(QApplication::focusWidget()));
        const int before = stepper->step();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Right);
        QCOMPARE(stepper->step(), before + 1);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Left);
        QCOMPARE(stepper->step(), before);

        // Every step's clade comes after the clades of its splits, and the DAG shows the state.
        const FamilyWaves waves = computeFamilyWaves(clades);
        for (int step = 0; step < stepper->stepCount(); ++step) {
            stepper->setStep(step);
            const int clade = stepper->cladeAt(step);
            QCOMPARE(dag->selectedClade(), clade);
            const std::vector<char> done = stepper->computedAt(step);
            for (int k = clades.splitOffset[clade]; k < clades.splitOffset[clade + 1]; ++k)
                QVERIFY(done[clades.splits[k].left] && done[clades.splits[k].right]);
            for (int c = 0; c < clades.cladeCount(); ++c) {
                QCOMPARE(dag->cladeFaded(c), !done[c]);
                QCOMPARE(dag->cladeInStepWave(c), waves.cladeWave[c] == waves.cladeWave[clade]);
            }
        }
        QCOMPARE(stepper->cladeAt(stepper->stepCount() - 1), clades.rootClade()); // computed last
        // The tree shows the Π row of the clade just computed.
        QTRY_VERIFY_WITH_TIMEOUT(
            w.speciesTreePanel()->shownValues().title.contains(QString("clade %1 ").arg(clades.rootClade())),
            kTimeoutMs);

        // Home, then Space plays through the waves and Space pauses.
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Home);
        QCOMPARE(stepper->step(), 0);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
        QVERIFY(stepper->playing());
        QTRY_VERIFY_WITH_TIMEOUT(stepper->step() >= 2, 10 * WaveStepper::kPlayIntervalMs);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
        QVERIFY(!stepper->playing());
        const int paused = stepper->step();
        QTest::qWait(2 * WaveStepper::kPlayIntervalMs);
        QCOMPARE(stepper->step(), paused);
        auto* status = stepper->findChild<QLabel*>("waveStepStatus");
        QVERIFY(status->text().contains(QString("clade %1").arg(stepper->cladeAt(paused))));

        // Another family starts again, off, with its own steps.
        const int other = family == 0 ? 1 : 0;
        w.familiesPanel()->selectFamily(other);
        QCOMPARE(stepper->step(), -1);
        QCOMPARE(stepper->stepCount(), d.families[other].clades.cladeCount());
        for (int c = 0; c < dag->cladeItemCount(); ++c)
            QVERIFY(!dag->cladeFaded(c));
    }

    void tellingASampleStepsThroughItsDraws() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        const Dataset& d = *w.dataset();
        const int family = selectLargestFamily(w);
        QVERIFY(test::sampleInView(w, {family}, 5));
        ReconciliationPanel* panel = w.reconciliationPanel();
        BacktrackPanel* story = panel->backtrack();
        QVERIFY(test::click(panel->findChild<QRadioButton*>("oneSampleMode")));
        panel->findChild<QSpinBox*>("sampleIndex")->setValue(3); // the third sample
        QCOMPARE(panel->currentSample(), 2);

        // The Backtracking tab, then Tell.
        QTabWidget* tabs = panel->tables();
        QTest::mouseClick(tabs->tabBar(), Qt::LeftButton, {},
                          tabs->tabBar()->tabRect(tabs->indexOf(story)).center());
        QCOMPARE(tabs->currentWidget(), story);
        QVERIFY(test::click(story->findChild<QPushButton*>("tellStory")));
        QTRY_VERIFY_WITH_TIMEOUT(story->story().has_value(), kTimeoutMs);
        const BacktrackStory& told = *story->story();
        const ReconciliationGroup& group = panel->groups().front();
        QVERIFY(told.reconciliation == group.samples[2]);
        QCOMPARE(story->storySample(), 2);
        // The same draws as sampling with the seed on the CPU (what `gpurec sample` does).
        {
            SamplingSettings settings;
            settings.samples = 3;
            QVERIFY(group.source.has_value());
            settings.seed = group.source->settings.seed;
            settings.solver = group.source->settings.solver;
            QCOMPARE(settings.seed, panel->sampleSeed());
            std::vector<Reconciliation> cpu;
            const RateParameters theta = w.session().parameters();
            auto backend = makeCpuBackend(w.dataset());
            sampleFamilies(
                d, theta, {family}, settings, [&](FamilySamples&& f) { cpu = std::move(f.reconciliations); },
                backendTables(*backend, theta, settings));
            QCOMPARE(cpu.size(), std::size_t(3));
            QVERIFY(cpu[2] == told.reconciliation);
        }
        ReconciliationView* view = panel->view();
        int glyphs = 0;
        for (const ReconNode& n : told.reconciliation.nodes)
            glyphs += static_cast<int>(n.events.size());
        auto toldGlyphs = [&] {
            int opaque = 0;
            for (const QGraphicsItem* item : view->items(ReconciliationView::Glyph))
                opaque += item->opacity() > 0.5;
            return opaque;
        };
        // The first draw: the origination; nothing is told yet, every event faded.
        QCOMPARE(story->controls()->step(), 0);
        QVERIFY(view->storyProgress().has_value());
        QCOMPARE(toldGlyphs(), 0);
        QVERIFY(story->caption().contains(
            QString::fromStdString(d.species.name(told.reconciliation.originSpecies))));

        // Keys step once focus is in the drawing, as after a click there.
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, QPoint(3, 3));
        QTRY_VERIFY(panel->isAncestorOf(QApplication::focusWidget()));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Right);
        QCOMPARE(story->controls()->step(), 1);
        const StoryStep& first = told.steps[1];
        QVERIFY(first.draw == StoryDraw::Event);
        QCOMPARE(first.node, told.reconciliation.root);
        const bool waitsForRecipient = told.steps.size() > 2 && told.steps[2].draw == StoryDraw::Recipient;
        QCOMPARE(toldGlyphs(), waitsForRecipient ? 0 : 1);
        QVERIFY(view->storyRingAt().has_value());
        // The alternatives table lists the draw's outcomes by probability, the drawn one marked.
        QTableWidget* table = story->alternatives();
        int marked = -1;
        for (int r = 0; r < table->rowCount(); ++r)
            if (table->item(r, 0)->text().contains("drawn")) marked = r;
        QVERIFY(marked >= 0);
        const double shown = table->item(marked, 1)->text().toDouble(), drawn = first.outcome().probability;
        QVERIFY(std::abs(shown - drawn) <= 5e-4 + 5e-3 * drawn);
        // By probability (the last listed row may be the drawn one, the row after it the rest).
        const int listed = std::min<int>(table->rowCount(), BacktrackPanel::kMaxAlternativeRows) - 1;
        for (int r = 1; r < listed; ++r)
            QVERIFY(table->item(r - 1, 1)->text().toDouble() >= table->item(r, 1)->text().toDouble());
        // The Cell equation and the tree follow the draw's cell.
        QTRY_VERIFY_WITH_TIMEOUT(w.cellTermsPanel()->shown() &&
                                     w.cellTermsPanel()->shown()->clade == first.clade &&
                                     w.cellTermsPanel()->shown()->species == first.species,
                                 kTimeoutMs);

        // End: every event told, the reconciled gene tree complete.
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_End);
        QCOMPARE(story->controls()->step(), static_cast<int>(told.steps.size()) - 1);
        QCOMPARE(toldGlyphs(), glyphs);
        QVERIFY(story->caption().contains("complete"));
        // Every glyph's event was told by a draw whose outcome it is.
        for (const QGraphicsItem* item : view->items(ReconciliationView::Glyph)) {
            const int n = item->data(ReconciliationView::kNodeRole).toInt();
            const int i = item->data(ReconciliationView::kEventIndexRole).toInt();
            const auto it = std::find_if(told.steps.begin(), told.steps.end(), [&](const StoryStep& s) {
                return s.draw == StoryDraw::Event && s.node == n && s.event == i;
            });
            QVERIFY(it != told.steps.end());
            QCOMPARE(static_cast<int>(it->outcome().event),
                     item->data(ReconciliationView::kEventRole).toInt());
        }

        // Another sample ends the story; all samples together cannot be told.
        panel->findChild<QSpinBox*>("sampleIndex")->setValue(4);
        QVERIFY(!story->story().has_value());
        QVERIFY(!view->storyProgress().has_value());
        QVERIFY(story->findChild<QPushButton*>("tellStory")->isEnabled());
        QVERIFY(test::click(panel->findChild<QRadioButton*>("aggregateMode")));
        QVERIFY(!story->findChild<QPushButton*>("tellStory")->isEnabled());
        QVERIFY(story->caption().contains("One sample"));
    }

    void presenterViewIsFullScreenLargeHighContrastAndExportsFigures() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        std::vector<QDockWidget*> shown;
        for (QDockWidget* dock : w.findChildren<QDockWidget*>())
            if (dock->isVisible()) shown.push_back(dock);
        QVERIFY(!shown.empty());
        const double pointSize = w.font().pointSizeF();
        const QPalette before = w.palette();
        // The largest text drawn in a view (species names), in pixels.
        auto largestText = [](QGraphicsView* view) {
            double largest = 0;
            for (QGraphicsItem* item : view->scene()->items())
                if (auto* text = dynamic_cast<QGraphicsSimpleTextItem*>(item))
                    largest =
                        std::max(largest, QFontMetricsF(text->font()).height() * text->transform().m22());
            return largest;
        };
        SpeciesTreeView* tree = w.speciesTreePanel()->view();
        ReconciliationView* tubes = w.reconciliationPanel()->view();
        const double treeText = largestText(tree), tubeText = largestText(tubes);
        QVERIFY(treeText > 0 && tubeText > 0);

        // F11, as a presenter presses it.
        QTest::keyClick(&w, Qt::Key_F11);
        QVERIFY(w.presenterView());
        for (QDockWidget* dock : w.findChildren<QDockWidget*>())
            QVERIFY2(!dock->isVisible(), qPrintable(dock->objectName()));
        QTRY_VERIFY(w.windowState() & Qt::WindowFullScreen);
        QVERIFY(w.viewTabs()->isVisible() && w.speciesTreePanel()->isVisible());
        QVERIFY(w.font().pointSizeF() >= 1.5 * pointSize);
        QVERIFY(w.viewTabs()->font().pointSizeF() >= 1.5 * pointSize); // the panels' text
        QTRY_VERIFY(largestText(tree) >= 1.4 * treeText);              // and the names in the drawings
        QVERIFY(largestText(tubes) >= 1.4 * tubeText);
        // WCAG contrast of every text on its background (relative luminance, sRGB).
        auto luminance = [](const QColor& c) {
            auto channel = [](double v) {
                return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
            };
            return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
        };
        auto contrast = [&](QPalette::ColorGroup g, QPalette::ColorRole fg, QPalette::ColorRole bg) {
            const double a = luminance(w.palette().color(g, fg)), b = luminance(w.palette().color(g, bg));
            return (std::max(a, b) + 0.05) / (std::min(a, b) + 0.05);
        };
        for (QPalette::ColorGroup g : {QPalette::Active, QPalette::Disabled})
            for (auto [fg, bg] : {std::pair{QPalette::WindowText, QPalette::Window},
                                  {QPalette::Text, QPalette::Base},
                                  {QPalette::ButtonText, QPalette::Button},
                                  {QPalette::HighlightedText, QPalette::Highlight}})
                QVERIFY2(contrast(g, fg, bg) >= 7,
                         qPrintable(QString("roles %1 on %2: %3").arg(fg).arg(bg).arg(contrast(g, fg, bg))));

        // File ▸ Export figure (Ctrl+Shift+E): a slide-sized PNG of what the screen shows, then an SVG.
        const QString folder = QString::fromStdString(test::temporaryFolder("figure"));
        for (const QString& name : {QString("slide.png"), QString("slide.svg")}) {
            const QString path = folder + "/" + name;
            QTimer fill;
            fill.setInterval(20);
            connect(&fill, &QTimer::timeout, [&] {
                auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
                if (!dialog || dialog->objectName() != "figureDialog") return;
                if (QApplication::activeWindow() != dialog) { // just shown: typed into once it is in front
                    dialog->activateWindow();
                    return;
                }
                fill.stop();
                auto* preset = dialog->findChild<QComboBox*>("figurePreset");
                preset->setCurrentIndex(0); // 1920 × 1080
                auto* width = dialog->findChild<QSpinBox*>("figureWidth");
                QCOMPARE(width->value(), 1920);
                width->selectAll();
                QTest::keyClicks(width, "1280");
                QTest::keyClick(width, Qt::Key_Tab);
                auto* height = dialog->findChild<QSpinBox*>("figureHeight");
                height->setFocus();
                height->selectAll();
                QTest::keyClicks(height, "720");
                auto* file = dialog->findChild<QLineEdit*>("figurePath");
                file->setFocus();
                file->selectAll();
                QTest::keyClicks(file, path);
                QVERIFY(test::click(dialog->findChild<QPushButton*>("figureExport")));
            });
            fill.start();
            QVERIFY(test::showActive(w)); // back in front once the last dialog closed, as a desktop does
            QTest::keyClick(&w, Qt::Key_E, Qt::ControlModifier | Qt::ShiftModifier);
            QTRY_VERIFY(QFileInfo::exists(path));
        }
        const QImage png(folder + "/slide.png");
        QCOMPARE(png.size(), QSize(1280, 720));
        int dark = 0;
        for (int y = 0; y < png.height(); y += 4)
            for (int x = 0; x < png.width(); x += 4)
                dark += qGray(png.pixel(x, y)) < 128;
        QVERIFY2(dark > 200, "the figure is blank"); // text and branches
        const QString svg = QString::fromStdString(test::fileText((folder + "/slide.svg").toStdString()));
        QVERIFY(svg.contains("<svg") && svg.contains("width=\"1280") && svg.contains("<text"));

        // Esc leaves: docks, text size and colours come back.
        QVERIFY(test::showActive(w));
        QTest::keyClick(&w, Qt::Key_Escape);
        QVERIFY(!w.presenterView());
        QTRY_VERIFY(!(w.windowState() & Qt::WindowFullScreen));
        for (QDockWidget* dock : shown)
            QTRY_VERIFY2(dock->isVisible(), qPrintable(dock->objectName()));
        QCOMPARE(w.font().pointSizeF(), pointSize);
        QTRY_COMPARE(largestText(tree), treeText);
        QCOMPARE(largestText(tubes), tubeText);
        QCOMPARE(w.palette().color(QPalette::Window), before.color(QPalette::Window));
        QVERIFY(!w.findChild<QAction*>("presenterViewAction")->isChecked());
    }

    void familiesTableSortsFiltersAndDrivesTheViews() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        const Dataset& d = *w.dataset();
        FamiliesPanel* families = w.familiesPanel();
        QTableView* table = families->table();
        table->sortByColumn(FamiliesModel::Genes, Qt::DescendingOrder);
        int most = 0;
        for (const GeneFamily& f : d.families)
            most = std::max(most, f.clades.geneCount());
        QCOMPARE(table->model()->index(0, FamiliesModel::Genes).data().toInt(), most);

        const QString name = QString::fromStdString(d.families.back().name);
        typeInto(families->findChild<QLineEdit*>("familyFilter"), name);
        QVERIFY(families->visibleRows() >= 1);
        for (int row = 0; row < families->visibleRows(); ++row)
            QVERIFY(table->model()->index(row, 0).data().toString().contains(name, Qt::CaseInsensitive));

        QSignalSpy selected(families, &FamiliesPanel::familySelected);
        table->selectRow(0);
        QCOMPARE(selected.last().at(0).toInt(), static_cast<int>(d.families.size()) - 1);
        QCOMPARE(w.wavesPanel()->dag()->cladeItemCount(), d.families.back().clades.cladeCount());
    }
};

QTEST_MAIN(GuiWorkbench)
#include "test_gui_workbench.moc"
