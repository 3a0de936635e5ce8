#include "benchmark_tour.hpp"

#include "event_wait.hpp"
#include "io/output_file.hpp"
#include "panels/families_panel.hpp"
#include "panels/run_panel.hpp"
#include "panels/species_tree_panel.hpp"
#include "views/species_tree_view.hpp"

#include <QApplication>
#include <QElapsedTimer>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QTableView>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sys/resource.h>

namespace gpurec::ui {

namespace {

double peakResidentMiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024.0; // Linux reports KiB
}

struct Frames {
    std::vector<double> ms;
    nlohmann::json summary() const {
        if (ms.empty()) return {{"frames", 0}};
        const double total = std::accumulate(ms.begin(), ms.end(), 0.0);
        return {{"frames", static_cast<int>(ms.size())},
                {"mean_ms", total / ms.size()},
                {"max_ms", *std::max_element(ms.begin(), ms.end())}};
    }
};

// One synchronous repaint per step, timed from the change to the painted viewport.
template <typename Step> void timeFrames(QAbstractScrollArea* area, int steps, Frames& frames, Step step) {
    for (int k = 0; k < steps; ++k) {
        QElapsedTimer timer;
        timer.start();
        step(k);
        area->viewport()->repaint();
        frames.ms.push_back(timer.nsecsElapsed() / 1e6);
    }
}

// The longest gap between ticks of a 5 ms timer: how long a click would wait for an answer.
class StallMeter : public QObject {
  public:
    StallMeter() {
        clock_.start();
        timer_.setInterval(5);
        connect(&timer_, &QTimer::timeout, this, [this] {
            const double now = clock_.nsecsElapsed() / 1e6;
            longestMs_ = std::max(longestMs_, now - lastMs_);
            lastMs_ = now;
        });
        timer_.start();
    }
    double longestMs() const { return longestMs_; }

  private:
    QElapsedTimer clock_;
    QTimer timer_;
    double lastMs_ = 0.0;
    double longestMs_ = 0.0;
};

} // namespace

int runBenchmarkTour(WorkbenchWindow& w, const BenchmarkSettings& settings) {
    auto fail = [](const char* what) {
        std::fprintf(stderr, "benchmark: %s\n", what);
        return 1;
    };
    QElapsedTimer clock;
    clock.start();
    nlohmann::json report;
    QString device;
    QObject::connect(&w.session(), &EngineSession::modelReady, &w,
                     [&device](const QString& name, const QString&, const QString&) { device = name; });
    {
        StallMeter stalls;
        if (!w.dataset() && !waitFor(&w, &WorkbenchWindow::inputLoaded, 1800000))
            return fail("the data did not load");
        if (!w.dataset()) return fail("the data given on the command line could not be loaded");
        report["load_seconds"] = clock.nsecsElapsed() / 1e9;
        if (device.isEmpty() && !waitFor(&w.session(), &EngineSession::modelReady, 1800000))
            return fail("the engine did not start");
        report["ready_seconds"] = clock.nsecsElapsed() / 1e9;
        report["longest_stall_ms"] = stalls.longestMs();
    }
    report["peak_resident_mib_after_load"] = peakResidentMiB();
    const Dataset& data = *w.dataset();
    std::size_t clades = 0;
    for (const GeneFamily& f : data.families)
        clades += f.clades.cladeCount();
    report["dataset"] = {{"species_nodes", data.species.size()},
                         {"families", static_cast<int>(data.families.size())},
                         {"clades", clades}};
    report["device"] = device.toStdString();
    settle();

    SpeciesTreeView* tree = w.speciesTreePanel()->view();
    QElapsedTimer fit;
    fit.start();
    tree->fitAll();
    tree->viewport()->repaint();
    report["species_tree_fit_ms"] = fit.nsecsElapsed() / 1e6;
    Frames zoom, pan;
    timeFrames(tree, 12, zoom, [tree](int) { tree->zoomBy(1.25); });
    QScrollBar* vertical = tree->verticalScrollBar();
    timeFrames(tree, 24, pan, [vertical](int k) {
        vertical->setValue(vertical->minimum() + (vertical->maximum() - vertical->minimum()) * (k + 1) / 24);
    });
    timeFrames(tree, 12, zoom, [tree](int) { tree->zoomBy(0.8); });
    report["species_tree_zoom"] = zoom.summary();
    report["species_tree_pan"] = pan.summary();

    QTableView* table = w.familiesPanel()->table();
    Frames scroll;
    QScrollBar* rows = table->verticalScrollBar();
    timeFrames(table, 24, scroll, [rows](int k) {
        rows->setValue(rows->minimum() + (rows->maximum() - rows->minimum()) * (k + 1) / 24);
    });
    report["families_table_scroll"] = scroll.summary();

    // The optimiser as the Optimise button runs it; the first sample is the starting point.
    std::vector<double> seconds;
    std::vector<int> evaluations;
    QObject::connect(&w.session(), &EngineSession::iterationFinished, &w, [&](const IterationSample& s) {
        seconds.push_back(s.seconds);
        evaluations.push_back(s.evaluations);
    });
    if (settings.iterations > 0) { // 0: loading and drawing only
        w.runPanel()->maxIterations()->setValue(settings.iterations);
        w.runPanel()->optimiseButton()->click();
        if (!waitFor(&w.session(), &EngineSession::runFinished, 3600000))
            return fail("the optimisation did not finish");
    }
    if (seconds.size() >= 2) {
        const int steps = static_cast<int>(seconds.size()) - 1;
        report["optimiser"] = {
            {"iterations", steps},
            {"first_evaluation_seconds", seconds.front()},
            {"seconds_per_iteration", (seconds.back() - seconds.front()) / steps},
            {"evaluations_per_iteration", double(evaluations.back() - evaluations.front()) / steps}};
    }
    report["peak_resident_mib"] = peakResidentMiB();

    const std::string text = report.dump(2);
    std::printf("%s\n", text.c_str());
    if (!settings.reportPath.isEmpty()) {
        try {
            writeFileAtomically(settings.reportPath.toStdString(), text + "\n");
        } catch (const std::exception& e) {
            return fail(e.what());
        }
    }
    return 0;
}

} // namespace gpurec::ui
