#pragma once
// One optimisation iteration as text: the CLI's progress line and a trace.csv row (the GUI plots
// the same fields from IterationReport directly).
#include "optim/optimizer.hpp"

#include <string>

namespace gpurec {

// Each rate over the rows of θ (one row in the global mode): geometric mean, smallest, largest.
struct RateSummary {
    Rates geometricMean, smallest, largest;
};
RateSummary summarizeRates(const RateParameters& theta);

std::string traceCsvHeader();
std::string traceCsvRow(const IterationReport& report);
// One line per iteration for the terminal; T only where the model has a uniform transfer rate
// (not under UndatedDL or --pairwise-transfers, where its entry is never read).
std::string progressLine(const IterationReport& report, PresentRates present = {});

// Makes `path` a trace of the first `keptIterations` iterations, ready to be appended to: a new
// file is just the header; a resumed run keeps the complete rows of iterations before
// keptIterations (a run killed after writing a row but before its checkpoint leaves one row more,
// a killed write half a row). Rewritten atomically.
void prepareTraceFile(const std::string& path, int keptIterations);

} // namespace gpurec
