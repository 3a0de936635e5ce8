#pragma once
// Helpers shared by the workbench GUI suites (test_gui_*.cpp): the teaching sample, loading
// through the window's real load path, reading plot data, typing into fields.
#include "support.hpp"
#include "workbench_window.hpp"

#include <QLineEdit>
#include <QSignalSpy>
#include <QtTest>
#include <qcustomplot.h>

namespace gpurec::test {

constexpr int kGuiTimeoutMs = 60000;

// The bundled teaching sample (samples/teaching: 12 species, 30 families).
inline ui::LoadRequest teachingRequest() {
    ui::LoadRequest r;
    r.paths.speciesTree = sourcePath("samples/teaching/species.nwk");
    r.paths.familiesFile = sourcePath("samples/teaching/families.txt");
    return r;
}

// Loads through the window's load path and waits until the engine is ready; false on failure.
inline bool loadInto(ui::WorkbenchWindow& window, const ui::LoadRequest& request) {
    QSignalSpy loaded(&window, &ui::WorkbenchWindow::inputLoaded);
    QSignalSpy ready(&window.session(), &ui::EngineSession::modelReady);
    window.openInput(request);
    if (!loaded.wait(kGuiTimeoutMs) || !loaded.at(0).at(0).toBool()) return false;
    return ready.count() > 0 || ready.wait(kGuiTimeoutMs);
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

// Replaces the text and presses Return (commits like a user).
inline void typeInto(QLineEdit* edit, const QString& text) {
    edit->selectAll();
    QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Return);
}

} // namespace gpurec::test
