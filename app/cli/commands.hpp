#pragma once
#include <CLI/CLI.hpp>

namespace gpurec::cli {
// One function per subcommand; each file registers its own options and callback.
void registerEval(CLI::App& root);
void registerOptimize(CLI::App& root);
void registerSample(CLI::App& root);
void registerSampleRecovery(CLI::App& root);
void registerSimulate(CLI::App& root);
void registerCheck(CLI::App& root);
void registerBench(CLI::App& root);
void registerSearch(CLI::App& root);
void registerTestTrees(CLI::App& root);
void registerAlerax(CLI::App& root);
void registerObserve(CLI::App& root);
void registerHighways(CLI::App& root);
} // namespace gpurec::cli
