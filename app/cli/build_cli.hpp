#pragma once
// The whole gpurec command line (subcommands, options, callbacks) without parsing or running it:
// main() parses argv with it, and the CLI fuzz target parses arbitrary tokens, stopping after the
// options are checked and before any command runs.
#include "commands.hpp"

namespace gpurec::cli {

inline void buildCli(CLI::App& app) {
    app.description("gpurec: gene-tree / species-tree reconciliation under the undated DTL model");
    app.set_version_flag("--version", GPUREC_VERSION);
    app.require_subcommand(1);
    registerEval(app);
    registerOptimize(app);
    registerSample(app);
    registerSampleRecovery(app);
    registerSimulate(app);
    registerCheck(app);
    registerBench(app);
    registerSearch(app);
    registerTestTrees(app);
    registerAlerax(app);
    registerObserve(app);
    registerHighways(app);
}

} // namespace gpurec::cli
