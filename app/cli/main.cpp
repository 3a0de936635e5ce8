// gpurec command-line tool: a thin client of the core engine.
#include "build_cli.hpp"
#include "cli_common.hpp"
#include "run/interruption.hpp"

#include <iostream>

int main(int argc, char** argv) {
    CLI::App app;
    gpurec::cli::buildCli(app);
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
