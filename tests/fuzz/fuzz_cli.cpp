// The gpurec command line on arbitrary arguments (one per line of the input): the real subcommands
// and options, stopped once every option is parsed and checked, before any subcommand's callback
// runs. A bad command line must end in an exception (what main() turns into an exit status),
// never a crash.
#include "build_cli.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

namespace {
// Thrown where the command would start.
struct Parsed {
    int unused = 0;
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    CLI::App app;
    gpurec::cli::buildCli(app);
    // The root's parse-complete callback runs after all options are processed and before the
    // subcommands' callbacks (which own the option values, so they must stay in place).
    app.parse_complete_callback([] { throw Parsed{}; });
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    std::vector<std::string> args;
    for (std::string token; std::getline(in, token);)
        args.push_back(token);
    std::reverse(args.begin(), args.end()); // CLI11 takes the arguments last first
    try {
        app.parse(args);
    } catch (const Parsed&) {
    } catch (const CLI::ParseError&) {
    } catch (const std::exception&) {
    }
    return 0;
}
