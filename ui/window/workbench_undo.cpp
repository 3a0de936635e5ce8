// Edit ▸ Undo / Redo of the workbench window: rate resets, mode changes and optimisations (the
// rates and the plots' history), solver options and the optimiser's method (pushed by their
// panels), and the Edit history dock.
#include "panels/run_panel.hpp"
#include "panels/solver_knobs_panel.hpp"
#include "plots/live_plots.hpp"
#include "session/undo_commands.hpp"
#include "window/workbench_window.hpp"

#include <QAction>
#include <QDockWidget>
#include <QMenuBar>
#include <QUndoView>

namespace gpurec::ui {

namespace {
constexpr int kUndoLimit = 200;

// Every command on the workbench's stack is a WorkbenchCommand.
const WorkbenchCommand* commandAt(const QUndoStack& stack, int index) {
    return index >= 0 && index < stack.count() ? static_cast<const WorkbenchCommand*>(stack.command(index))
                                               : nullptr;
}
} // namespace

void WorkbenchWindow::buildEditMenu() {
    undo_.setUndoLimit(kUndoLimit); // rate commands hold the plotted history: bound their number
    run_->setUndoStack(&undo_);
    knobs_->setUndoStack(&undo_);
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    undoAction_ = edit->addAction(tr("&Undo"), this, [this] {
        appendLog(tr("Undo: %1").arg(undo_.undoText()));
        undo_.undo();
    });
    undoAction_->setObjectName("undoAction");
    undoAction_->setShortcuts(QKeySequence::Undo);
    redoAction_ = edit->addAction(tr("&Redo"), this, [this] {
        appendLog(tr("Redo: %1").arg(undo_.redoText()));
        undo_.redo();
    });
    redoAction_->setObjectName("redoAction");
    redoAction_->setShortcuts(QKeySequence::Redo);

    undoView_ = new QUndoView(&undo_);
    undoView_->setObjectName("undoHistory");
    undoView_->setAccessibleName(tr("Edit history"));
    undoView_->setEmptyLabel(tr("(as loaded)"));
    auto* dock = new QDockWidget(tr("Edit history"), this);
    dock->setObjectName("historyDock");
    dock->setWidget(undoView_);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    dock->hide();
    edit->addSeparator();
    QAction* showHistory = dock->toggleViewAction();
    showHistory->setText(tr("Edit &history"));
    showHistory->setToolTip(tr("The changes that Undo and Redo step through; click one to go back to it"));
    edit->addAction(showHistory);

    connect(&undo_, &QUndoStack::indexChanged, this, &WorkbenchWindow::updateUndoActions);
    connect(this, &WorkbenchWindow::inputLoaded, this, [this](bool ok) {
        if (ok) undo_.clear(); // the commands were about the data that was open
    });
    updateUndoActions();
}

void WorkbenchWindow::updateUndoActions() {
    const bool running = session_.running();
    const WorkbenchCommand* back = commandAt(undo_, undo_.index() - 1);
    const WorkbenchCommand* again = commandAt(undo_, undo_.index());
    undoAction_->setEnabled(back && !(running && back->needsIdleEngine()));
    undoAction_->setText(back ? tr("&Undo %1").arg(back->text()) : tr("&Undo"));
    redoAction_->setEnabled(again && !(running && again->needsIdleEngine()));
    redoAction_->setText(again ? tr("&Redo %1").arg(again->text()) : tr("&Redo"));
    undoAction_->setToolTip(running && back && back->needsIdleEngine()
                                ? tr("Rates cannot change while the engine runs")
                                : tr("Undo the last change"));
    redoAction_->setToolTip(tr("Redo the change undone last"));
    // Clicking an entry jumps over commands the running engine would refuse.
    undoView_->setEnabled(!running);
    undoView_->setToolTip(running ? tr("Locked while the engine runs (Undo still steps back solver options)")
                                  : tr("Click a change to go back to the state after it"));
}

void WorkbenchWindow::resetRates() {
    if (!dataset_) return;
    RatesState before{session_.parameters(), plots_->samples()};
    RatesState after{startingParameters(), {}};
    const QString mode = parametrizationName(after.theta);
    const QString text =
        mode != parametrizationName(before.theta) ? tr("Rate mode %1").arg(mode) : tr("Reset rates");
    StateChange<RatesState>::Options how;
    how.needsIdleEngine = true;
    undo_.push(new StateChange<RatesState>(
        text, std::move(before), std::move(after), [this](const RatesState& s) { applyRates(s); }, how));
    appendLog(tr("Rates reset to the starting values (%1 mode)").arg(mode));
}

void WorkbenchWindow::applyRates(const RatesState& state) {
    run_->showParametrization(state.theta);
    session_.setParameters(state.theta);
    plots_->clear();
    for (const IterationSample& sample : state.history)
        plots_->addSample(sample);
    updateRateRow();
}

void WorkbenchWindow::recordOptimisation(const RunOutcome& outcome) {
    std::optional<RatesState> before;
    before.swap(runStart_);
    if (!before || !outcome.error.isEmpty()) return; // nothing changed (or other data replaced it)
    StateChange<RatesState>::Options how;
    how.needsIdleEngine = true;
    how.alreadyApplied = true;
    undo_.push(new StateChange<RatesState>(
        tr("Optimisation, %1 iteration(s)").arg(outcome.iterations), std::move(*before),
        RatesState{session_.parameters(), plots_->samples()}, [this](const RatesState& s) { applyRates(s); },
        how));
}

} // namespace gpurec::ui
