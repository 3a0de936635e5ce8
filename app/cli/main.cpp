// gpurec command-line tool: a thin client of the core engine.
#include "build_cli.hpp"
#include "cli_common.hpp"
#include "distributed/mpi/mpi_process_group.hpp"
#include "run/interruption.hpp"

#include <iostream>

int main(int argc, char** argv) {
    std::unique_ptr<gpurec::ProcessGroup> group;
    try {
        group = gpurec::startProcessGroup(argc, argv); // this process alone unless mpirun started it
        gpurec::cli::joinRun(*group);
    } catch (const std::exception& e) {
        std::cerr << "gpurec: error: " << e.what() << "\n";
        return 2;
    }
    CLI::App app;
    gpurec::cli::buildCli(app);
    gpurec::cli::refuseInGroups(app);
    int status = 0;
    std::exception_ptr failure;
    try {
        app.parse(argc, argv);
        // Finished, but some families were skipped.
        status = gpurec::cli::skippedFamilyCount() > 0 ? 3 : 0;
    } catch (const CLI::ParseError& e) {
        status = app.exit(e);
    } catch (const gpurec::Interrupted& e) {
        status = e.exitStatus(); // the command has written what it had
    } catch (...) {
        failure = std::current_exception();
    }
    return gpurec::cli::finishRun(status, failure);
}
