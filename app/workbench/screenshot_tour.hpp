#pragma once
// Drives the workbench through the views shown in docs/user-guide.md and saves one PNG per view.
#include "window/workbench_window.hpp"

namespace gpurec::ui {

// Waits for the data given on the command line to load, selects a family and a clade, runs a short
// optimisation, shows an invalid solver value and a broken input, and saves the screenshots into
// `folder`. Returns the process exit code.
int runScreenshotTour(WorkbenchWindow& window, const QString& folder);

} // namespace gpurec::ui
