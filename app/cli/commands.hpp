#pragma once
#include <CLI/CLI.hpp>

namespace gpurec::cli {
// One function per subcommand; each file registers its own options and callback.
void registerEval(CLI::App& root);
} // namespace gpurec::cli
