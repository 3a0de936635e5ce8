// gpurec command-line tool: a thin client of the core engine.
#include "cli_common.hpp"
#include "commands.hpp"
#include "run/interruption.hpp"

#include <iostream>

int main(int argc, char** argv) {
    CLI::App app{"gpurec: gene-tree / species-tree reconciliation under the undated DTL model"};
    app.set_version_flag("--version", GPUREC_VERSION);
    app.require_subcommand(1);
    gpurec::cli::registerEval(app);
    gpurec::cli::registerOptimize(app);
    gpurec::cli::registerSample(app);
    gpurec::cli::registerSampleRecovery(app);
    gpurec::cli::registerSimulate(app);
    gpurec::cli::registerCheck(app);
    gpurec::cli::registerBench(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const gpurec::Interrupted& e) {
        return e.exitStatus(); // the command has written what it had
    } catch (const std::exception& e) {
        std::cerr << "gpurec: error: " << e.what() << "\n";
        return 2;
    }
    return gpurec::cli::skippedFamilyCount() > 0 ? 3 : 0; // finished, but some families were skipped
}
