#pragma once
// Measures the workbench as a user meets it on large data: load time and memory, how long the
// event loop stalls while loading, frame times of pan and zoom, and the time per optimiser iteration.
#include "window/workbench_window.hpp"

namespace gpurec::ui {

struct BenchmarkSettings {
    QString reportPath;  // JSON report (also printed as a table on stdout)
    int iterations = 10; // optimiser iterations timed
};

// Waits for the data given on the command line, then measures. Returns the process exit code.
int runBenchmarkTour(WorkbenchWindow& window, const BenchmarkSettings& settings);

} // namespace gpurec::ui
