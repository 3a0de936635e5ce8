#pragma once
// Helpers shared by the workbench GUI suites (test_gui_*.cpp): the teaching sample, loading
// through the window's real load path, showing the window as the active one and clicking like a
// user (the suites are built with QTEST_QPA_MOUSE_HANDLING: clicks go through the window system
// to whatever is drawn at that point, and move focus), reading plot data, typing into fields.
#include "engine/backend_factory.hpp"
#include "panels/families_panel.hpp"
#include "panels/reconciliation_panel.hpp"
#include "panels/run_panel.hpp"
#include "panels/species_tree_panel.hpp"
#include "support.hpp"
#include "window/workbench_window.hpp"

#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QtTest>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <qcustomplot.h>

namespace gpurec::test {

constexpr int kGuiTimeoutMs = 60000;

// For initTestCase: autosaves, recent inputs and the saved window layout go to a fresh
// temporary folder, not the user's.
inline void isolateSettings(const std::string& suite) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("gpurec-tests");
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope,
                       QString::fromStdString(temporaryFolder(suite + "_settings")));
}

// The bundled teaching sample (samples/teaching: 12 species, 30 families).
inline ui::LoadRequest teachingRequest() {
    ui::LoadRequest r;
    r.paths.speciesTree = sourcePath("samples/teaching/species.nwk");
    r.paths.familiesFile = sourcePath("samples/teaching/families.txt");
    return r;
}

// The device the suites' sessions use: GPUREC_TEST_DEVICE, else the workbench's own choice ("auto").
inline std::string sessionDevice() {
    const char* device = std::getenv("GPUREC_TEST_DEVICE");
    return device && *device ? device : "auto";
}

// A backend on that device, for a test's own expectations of what the workbench's panels show
// (they take their numbers from the session's backend: on a GPU, summed in another order than on
// the CPU).
inline std::unique_ptr<LikelihoodBackend> sessionLikeBackend(std::shared_ptr<const Dataset> data) {
    return selectBackend(sessionDevice(), data, BatchLimits{}).backend;
}

// Numbers of the session's engine against a test's expectation: equal to `relative` (batches of
// another size may sum in another order on a device).
[[nodiscard]] inline bool sameNumbers(const std::vector<double>& actual, const std::vector<double>& expected,
                                      double relative = 1e-12) {
    if (actual.size() != expected.size()) return false;
    for (std::size_t i = 0; i < actual.size(); ++i)
        if (!(std::abs(actual[i] - expected[i]) <= relative * std::abs(expected[i]))) {
            qWarning("value %zu: %.17g, expected %.17g", i, actual[i], expected[i]);
            return false;
        }
    return true;
}

// Loads through the window's load path and waits until the engine is ready; false on failure.
// GPUREC_TEST_DEVICE (e.g. cuda on the GPU machine) picks the engine's device; the default is the
// workbench's own ("auto").
inline bool loadInto(ui::WorkbenchWindow& window, const ui::LoadRequest& request) {
    if (const char* device = std::getenv("GPUREC_TEST_DEVICE"); device && *device)
        window.runPanel()->setDevice(device);
    QSignalSpy loaded(&window, &ui::WorkbenchWindow::inputLoaded);
    QSignalSpy ready(&window.session(), &ui::EngineSession::modelReady);
    if (!window.openInput(request)) return false;
    if (!loaded.wait(kGuiTimeoutMs) || !loaded.at(0).at(0).toBool()) return false;
    if (ready.count() == 0 && !ready.wait(kGuiTimeoutMs)) return false;
    qInfo("engine on %s", qPrintable(ready.at(0).at(0).toString()));
    return true;
}

// The species-tree panel first shows a colouring that was still being computed when the newest
// request came, then the newest: waits (spying on valuesShown) until `quantity` is shown.
[[nodiscard]] inline bool waitForShown(QSignalSpy& shown, ui::SpeciesQuantity quantity) {
    return QTest::qWaitFor(
        [&] { return !shown.isEmpty() && shown.last().at(0).value<ui::SpeciesQuantity>() == quantity; },
        kGuiTimeoutMs);
}

// Shows the window and waits until it is the active window: focus only moves (and fields only
// "finish editing" as they lose it) in an active window.
[[nodiscard]] inline bool showActive(QWidget& window) {
    window.show();
    window.activateWindow();
    return QTest::qWaitForWindowActive(&window);
}

// Clicks the middle of `widget` as a user would: false (with a warning naming it) unless the
// widget is enabled, on screen and in the active window. Like a user, it first brings the dock
// the widget sits in to the front and scrolls it into view.
[[nodiscard]] inline bool click(QWidget* widget) {
    for (QWidget* w = widget; w; w = w->parentWidget()) {
        if (auto* dock = qobject_cast<QDockWidget*>(w)) dock->raise();
        QWidget* stack = w->parentWidget();
        if (auto* tabs = qobject_cast<QTabWidget*>(stack ? stack->parentWidget() : nullptr);
            tabs && tabs->indexOf(w) >= 0)
            tabs->setCurrentWidget(w);
        if (auto* scroll = qobject_cast<QScrollArea*>(w)) scroll->ensureWidgetVisible(widget);
    }
    QCoreApplication::processEvents();
    const bool onScreen = widget->isVisible() && widget->visibleRegion().contains(widget->rect().center());
    const bool active = QApplication::activeWindow() == widget->window();
    if (!widget->isEnabled() || !onScreen || !active) {
        qWarning("cannot click %s: enabled %d, on screen %d, window active %d",
                 qPrintable(widget->objectName()), widget->isEnabled(), onScreen, active);
        return false;
    }
    QTest::mouseClick(widget, Qt::LeftButton);
    return true;
}

// Opens `combo`'s list with a click and clicks its entry `index`.
[[nodiscard]] inline bool chooseWithMouse(QComboBox* combo, int index) {
    if (!test::click(combo)) return false;
    QAbstractItemView* list = combo->view();
    if (!QTest::qWaitFor([&] { return list->isVisible(); }, kGuiTimeoutMs)) return false;
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                      list->visualRect(list->model()->index(index, 0)).center());
    return QTest::qWaitFor([&] { return !list->isVisible(); }, kGuiTimeoutMs) &&
           combo->currentIndex() == index;
}

// The same for the entry whose data is `data`.
[[nodiscard]] inline bool chooseWithMouse(QComboBox* combo, const QVariant& data) {
    return chooseWithMouse(combo, combo->findData(data));
}

// The first child of `root` of type Widget whose accessible name is `accessibleName` (as a screen
// reader finds it); null, with a warning, when there is none.
template <class Widget> Widget* named(QWidget* root, const QString& accessibleName) {
    for (Widget* w : root->findChildren<Widget*>())
        if (w->accessibleName() == accessibleName) return w;
    qWarning("no widget named '%s'", qPrintable(accessibleName));
    return nullptr;
}

// Waits until `spy` holds `count` signals. Use it after clicks rather than QSignalSpy::wait: a
// click delivers queued events, so a quick run may have finished by the time it returns.
[[nodiscard]] inline bool waitForCount(QSignalSpy& spy, int count, int timeoutMs = kGuiTimeoutMs) {
    return QTest::qWaitFor([&] { return spy.count() >= count; }, timeoutMs);
}

// Answers the next message box named `objectName` by clicking `button` once it shows (call before
// the action that opens it); its text goes to `text` when given. Stops watching when the handle
// it returns goes.
[[nodiscard]] inline std::unique_ptr<QTimer>
answerMessageBox(const QString& objectName, QMessageBox::StandardButton button, QString* text = nullptr) {
    auto poll = std::make_unique<QTimer>();
    poll->setInterval(20);
    QObject::connect(poll.get(), &QTimer::timeout, [objectName, button, text, timer = poll.get()] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box || box->objectName() != objectName || !box->isVisible()) return;
        if (QApplication::activeWindow() != box) { // just shown: a user clicks once it is in front
            box->activateWindow();
            return;
        }
        timer->stop();
        if (text) *text = box->text();
        if (!click(box->button(button))) box->reject(); // a failed click must not leave the test waiting
    });
    poll->start();
    return poll;
}

// Selects table rows (dataset order) and samples them with the Reconciliations view's Sample button.
[[nodiscard]] inline bool sampleInView(ui::WorkbenchWindow& w, const std::vector<int>& families,
                                       int samples) {
    QTableView* table = w.familiesPanel()->table();
    table->clearSelection();
    for (int f : families)
        table->selectionModel()->select(table->model()->index(f, 0),
                                        QItemSelectionModel::Select | QItemSelectionModel::Rows);
    ui::ReconciliationPanel* panel = w.reconciliationPanel();
    panel->findChild<QSpinBox*>("sampleCount")->setValue(samples);
    QSignalSpy sampled(panel, &ui::ReconciliationPanel::sampled);
    if (!click(panel->findChild<QPushButton*>("sampleButton"))) return false;
    return waitForCount(sampled, 1) && sampled.at(0).at(0).toBool();
}

inline QVector<double> plotValues(QCustomPlot* plot, int graph) {
    QVector<double> out;
    for (auto it = plot->graph(graph)->data()->constBegin(); it != plot->graph(graph)->data()->constEnd();
         ++it)
        out << it->value;
    return out;
}

inline QVector<double> plotKeys(QCustomPlot* plot, int graph) {
    QVector<double> out;
    for (auto it = plot->graph(graph)->data()->constBegin(); it != plot->graph(graph)->data()->constEnd();
         ++it)
        out << it->key;
    return out;
}

// Replaces the text and presses Return (commits like a user); the field gets the focus first.
inline void typeInto(QLineEdit* edit, const QString& text) {
    edit->setFocus(Qt::OtherFocusReason);
    edit->selectAll();
    QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Return);
}

} // namespace gpurec::test
