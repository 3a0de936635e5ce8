// Edit ▸ Undo / Redo in the workbench, driven like a user (typing, keyboard shortcuts, clicks):
// solver option edits (merged when consecutive, also during a run), rate resets, mode and method
// changes and optimisations, each restoring exactly the state before.
#include "gui_test_support.hpp"
#include "panels/run_panel.hpp"
#include "panels/solver_knobs_panel.hpp"
#include "plots/live_plots.hpp"
#include "window/workbench_window.hpp"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QUndoView>

using namespace gpurec;
using namespace gpurec::ui;
using test::kGuiTimeoutMs;
using test::loadInto;
using test::teachingRequest;

namespace {
QLineEdit* knob(WorkbenchWindow& w, const std::string& name) {
    return qobject_cast<QLineEdit*>(w.knobsPanel()->editor(name));
}

// Keys as a user presses them: to the widget with the focus (the window when none has it).
void press(WorkbenchWindow& w, Qt::Key key, Qt::KeyboardModifiers modifiers) {
    QWidget* focus = QApplication::focusWidget();
    QTest::keyClick(focus ? focus : &w, key, modifiers);
}
void undo(WorkbenchWindow& w) {
    press(w, Qt::Key_Z, Qt::ControlModifier);
}
void redo(WorkbenchWindow& w) {
    press(w, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
}

// Clicks into the field, replaces its text by typing and presses Return.
[[nodiscard]] bool typeIntoKnob(WorkbenchWindow& w, const std::string& name, const QString& text) {
    QLineEdit* edit = knob(w, name);
    if (!test::click(edit)) return false;
    edit->selectAll();
    QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Return);
    return true;
}

// The engine session's Log line for a change of one option while idle.
QString engineLine(const std::string& name, const std::string& from, const std::string& to) {
    return QString("Solver options %1 %2 → %3")
        .arg(QString::fromStdString(name), QString::fromStdString(from), QString::fromStdString(to));
}

std::string optionText(double value) {
    SolverOptions o;
    o.e_tol = value;
    return getSolverOption(o, "e_tol");
}

bool optimise(WorkbenchWindow& w, int iterations, RunOutcome* outcome = nullptr) {
    w.runPanel()->maxIterations()->setValue(iterations);
    QSignalSpy finished(&w.session(), &EngineSession::runFinished);
    if (!test::click(w.runPanel()->optimiseButton()) || !test::waitForCount(finished, 1)) return false;
    if (outcome) *outcome = finished.at(0).at(0).value<RunOutcome>();
    return finished.at(0).at(0).value<RunOutcome>().error.isEmpty();
}

bool evaluate(WorkbenchWindow& w, double* nllBits) {
    QSignalSpy finished(&w.session(), &EngineSession::runFinished);
    if (!test::click(w.runPanel()->evaluateButton()) || !test::waitForCount(finished, 1)) return false;
    *nllBits = finished.at(0).at(0).value<RunOutcome>().nllBits;
    return true;
}
} // namespace

class GuiUndo : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { test::isolateSettings("gui_undo"); }

    void editMenuHasUndoAndRedoWithTheStandardShortcuts() {
        WorkbenchWindow w;
        QCOMPARE(w.undoAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Z));
        QVERIFY(w.redoAction()->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)));
        QVERIFY(!w.undoAction()->isEnabled()); // nothing to undo yet
        QVERIFY(!w.redoAction()->isEnabled());
        auto* history = w.findChild<QUndoView*>("undoHistory");
        QVERIFY(history);
        QCOMPARE(history->accessibleName(), QString("Edit history"));
        QVERIFY(!history->toolTip().isEmpty());
        QCOMPARE(w.findChild<QPushButton*>("resetRates")->accessibleName(), QString("Reset rates"));
        bool listed = false;
        for (const auto& [name, keys] : w.shortcuts())
            listed = listed || (name == "Edit ▸ Undo" && keys == "Ctrl+Z");
        QVERIFY(listed); // in Help ▸ Keyboard shortcuts
    }

    void knobEditsUndoRedoAndMerge() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        QSignalSpy engineLog(&w.session(), &EngineSession::logMessage);
        const SolverOptions defaults;
        QVERIFY(typeIntoKnob(w, "e_tol", "1e-12"));
        QCOMPARE(w.knobsPanel()->options().e_tol, 1e-12);
        QCOMPARE(engineLog.last().at(0).toString(),
                 engineLine("e_tol", optionText(1e-15), optionText(1e-12)));
        QCOMPARE(w.undoAction()->text(), QString("&Undo Set e_tol to 1e-12"));

        // Ctrl+Z with the focus still in the committed field: the window's Undo.
        QVERIFY(knob(w, "e_tol")->hasFocus());
        undo(w);
        QCOMPARE(w.knobsPanel()->options().e_tol, defaults.e_tol); // bit for bit
        QCOMPARE(knob(w, "e_tol")->text(), QString("1e-15"));
        QCOMPARE(engineLog.last().at(0).toString(),
                 engineLine("e_tol", optionText(1e-12), optionText(1e-15)));
        QVERIFY(w.logView()->toPlainText().contains("Undo: Set e_tol to 1e-12"));
        redo(w);
        QCOMPARE(w.knobsPanel()->options().e_tol, 1e-12);
        QCOMPARE(knob(w, "e_tol")->text(), QString("1e-12"));
        QCOMPARE(engineLog.last().at(0).toString(),
                 engineLine("e_tol", optionText(1e-15), optionText(1e-12)));

        // Consecutive edits of one option are one command; another option is a new one.
        QCOMPARE(w.undoStack()->count(), 1);
        QVERIFY(typeIntoKnob(w, "pi_iters", "150"));
        QVERIFY(typeIntoKnob(w, "pi_iters", "100"));
        QVERIFY(typeIntoKnob(w, "pi_iters", "50"));
        QCOMPARE(w.undoStack()->count(), 2);
        QCOMPARE(w.knobsPanel()->options().pi_iters, 50);
        QCOMPARE(w.undoStack()->undoText(), QString("Set pi_iters to 50"));
        undo(w);
        QCOMPARE(w.knobsPanel()->options().pi_iters, defaults.pi_iters);
        QCOMPARE(knob(w, "pi_iters")->text(), QString("200"));
        QCOMPARE(engineLog.last().at(0).toString(), engineLine("pi_iters", "50", "200"));
        QCOMPARE(w.knobsPanel()->options().e_tol, 1e-12); // the earlier command is still there
        undo(w);
        QCOMPARE(w.knobsPanel()->options().e_tol, defaults.e_tol);
        QVERIFY(!w.undoAction()->isEnabled());
        // Edits that come back to the value before merge away.
        QVERIFY(typeIntoKnob(w, "neumann_terms", "5"));
        QVERIFY(typeIntoKnob(w, "neumann_terms", "3"));
        QCOMPARE(w.undoStack()->index(), 0);
        QVERIFY(!w.undoAction()->isEnabled());
        // The history view lists what Undo steps through.
        QVERIFY(typeIntoKnob(w, "bicgstab_max_iter", "300"));
        auto* history = w.findChild<QUndoView*>("undoHistory");
        QCOMPARE(history->model()->rowCount(), 2); // "(as loaded)" and the edit
        QCOMPARE(history->model()->index(1, 0).data().toString(), QString("Set bicgstab_max_iter to 300"));
        // Restore defaults is one command.
        QVERIFY(typeIntoKnob(w, "pi_tol", "1e-10"));
        QVERIFY(test::click(w.knobsPanel()->findChild<QPushButton*>("restoreKnobDefaults")));
        QCOMPARE(w.knobsPanel()->options().bicgstab_max_iter, defaults.bicgstab_max_iter);
        QCOMPARE(w.knobsPanel()->options().pi_tol, defaults.pi_tol);
        QVERIFY(test::click(w.knobsPanel()->findChild<QPushButton*>("restoreKnobDefaults")));
        QCOMPARE(w.undoStack()->count(), 3); // nothing changed by the second click
        undo(w);
        QCOMPARE(w.knobsPanel()->options().bicgstab_max_iter, 300);
        QCOMPARE(w.knobsPanel()->options().pi_tol, 1e-10);
    }

    void knobEditUndoneDuringARunReachesTheRunningEngine() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        RunPanel* run = w.runPanel();
        run->findChild<QComboBox*>("rateMode")->setCurrentIndex(1); // per species: a long run
        run->maxIterations()->setValue(1000);
        QSignalSpy paused(&w.session(), &EngineSession::pausedChanged);
        QSignalSpy finished(&w.session(), &EngineSession::runFinished);
        QVERIFY(test::click(run->optimiseButton()));
        QVERIFY(test::click(run->pauseButton()));
        QVERIFY(test::waitForCount(paused, 1));
        QVERIFY(w.session().running());
        QVERIFY(typeIntoKnob(w, "pi_iters", "2"));
        QVERIFY(w.logView()->toPlainText().contains(
            "Solver options pi_iters 200 → 2: will apply from the next iteration"));
        QVERIFY(w.undoAction()->isEnabled());
        undo(w);
        QCOMPARE(w.knobsPanel()->options().pi_iters, 200);
        QVERIFY(w.logView()->toPlainText().contains(
            "Solver options pi_iters 2 → 200: will apply from the next iteration"));
        // Below it is the mode change: rates do not change under a running optimisation.
        QCOMPARE(w.undoStack()->undoText(), QString("Rate mode specieswise"));
        QVERIFY(!w.undoAction()->isEnabled());
        QVERIFY(!w.findChild<QUndoView*>("undoHistory")->isEnabled());
        undo(w); // the shortcut of a disabled action does nothing
        QVERIFY(w.session().parameters().mode() == RateMode::Specieswise);
        QVERIFY(w.redoAction()->isEnabled()); // the option edit again
        QVERIFY(test::click(run->stopButton()));
        QVERIFY(test::waitForCount(finished, 1));
        // The finished run is a command of its own, above the mode change.
        QVERIFY(w.undoAction()->isEnabled());
        QVERIFY(w.undoStack()->undoText().startsWith("Optimisation, "));
        QVERIFY(w.findChild<QUndoView*>("undoHistory")->isEnabled());
        QVERIFY(!w.redoAction()->isEnabled()); // the undone option edit is gone
    }

    void resetRatesAndOptimisationsUndoToIdenticalRates() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        const std::vector<double> start = w.session().parameters().theta();
        double startNll = 0;
        QVERIFY(evaluate(w, &startNll));
        RunOutcome fit;
        QVERIFY(optimise(w, 8, &fit));
        const std::vector<double> fitted = w.session().parameters().theta();
        QVERIFY(fitted != start);
        const int points = w.livePlots()->pointCount();
        const QVector<double> loss = test::plotValues(w.livePlots()->lossPlot(), 0);
        QVERIFY(points > 1);
        const QString shown = w.runPanel()->findChild<QLabel*>("currentRates")->text();

        QVERIFY(test::click(w.runPanel()->resetButton()));
        QCOMPARE(w.session().parameters().theta(), start);
        QCOMPARE(w.livePlots()->pointCount(), 0);
        QCOMPARE(w.undoStack()->undoText(), QString("Reset rates"));
        undo(w);
        QCOMPARE(w.session().parameters().theta(), fitted); // bit for bit
        QCOMPARE(w.livePlots()->pointCount(), points);
        QCOMPARE(test::plotValues(w.livePlots()->lossPlot(), 0), loss);
        QCOMPARE(w.runPanel()->findChild<QLabel*>("currentRates")->text(), shown);
        // The next evaluation uses the restored rates: the fit's best NLL again.
        double nll = 0;
        QVERIFY(evaluate(w, &nll));
        QVERIFY2(std::abs(nll - fit.nllBits) <= 1e-9 * fit.nllBits,
                 qPrintable(QString("%1 vs %2").arg(nll, 0, 'g', 17).arg(fit.nllBits, 0, 'g', 17)));
        redo(w);
        QCOMPARE(w.session().parameters().theta(), start);
        undo(w);
        // Undoing the optimisation brings back the rates it started from.
        QVERIFY(w.undoStack()->undoText().startsWith("Optimisation, "));
        undo(w);
        QCOMPARE(w.session().parameters().theta(), start);
        QCOMPARE(w.livePlots()->pointCount(), 0);
        QVERIFY(evaluate(w, &nll));
        QVERIFY(std::abs(nll - startNll) <= 1e-9 * startNll);
        redo(w);
        QCOMPARE(w.session().parameters().theta(), fitted);
        QCOMPARE(w.livePlots()->pointCount(), points);
    }

    void modeAndMethodChangesUndo() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        RunOutcome fit;
        QVERIFY(optimise(w, 5, &fit)); // global rates fitted
        const RateParameters global = w.session().parameters();
        auto* mode = w.runPanel()->findChild<QComboBox*>("rateMode");
        QVERIFY(test::click(mode)); // opens its list: Down and Return choose "per species"
        QTRY_VERIFY(mode->view()->isVisible());
        QTest::keyClick(mode->view(), Qt::Key_Down);
        QTest::keyClick(mode->view(), Qt::Key_Return);
        QCOMPARE(mode->currentIndex(), 1);
        QVERIFY(w.session().parameters().mode() == RateMode::Specieswise);
        QCOMPARE(w.session().parameters().rowCount(), w.dataset()->species.size());
        QCOMPARE(w.undoStack()->undoText(), QString("Rate mode specieswise"));
        undo(w);
        QCOMPARE(mode->currentIndex(), 0);
        QCOMPARE(w.runPanel()->parametrization(), std::string("GLOBAL"));
        QVERIFY(w.session().parameters().mode() == RateMode::Global);
        QCOMPARE(w.session().parameters().theta(), global.theta());
        redo(w);
        QCOMPARE(mode->currentIndex(), 1);
        QCOMPARE(w.session().parameters().rowCount(), w.dataset()->species.size());
        undo(w);

        auto* method = w.runPanel()->findChild<QComboBox*>("optimizerKind");
        method->setFocus(Qt::OtherFocusReason);
        QTest::keyClick(method, Qt::Key_Down); // Adam
        QVERIFY(w.runPanel()->optimizerSettings().kind == OptimizerKind::Adam);
        QCOMPARE(w.undoStack()->undoText(), QString("Optimiser Adam"));
        undo(w);
        QVERIFY(w.runPanel()->optimizerSettings().kind == OptimizerKind::Lbfgsb);
        QCOMPARE(method->currentIndex(), 0);
        QCOMPARE(w.session().parameters().theta(), global.theta()); // the rates stay
        redo(w);
        QVERIFY(w.runPanel()->optimizerSettings().kind == OptimizerKind::Adam);
    }
};

QTEST_MAIN(GuiUndo)
#include "test_gui_undo.moc"
