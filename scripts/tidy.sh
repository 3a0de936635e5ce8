#!/usr/bin/env bash
# clang-tidy over core/ and app/cli with the committed .clang-tidy (every finding is an error), on
# the compile commands of a configured build (default build/release). The workbench and ui/ are left
# out: their translation units need the build's generated moc files and pull in Qt's headers.
#   scripts/tidy.sh [build-dir] [jobs]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
jobs=${2:-$(nproc)}
if [[ ! -f "$build/compile_commands.json" ]]; then
  echo "tidy: $build/compile_commands.json is missing (configure the build first)" >&2
  exit 2
fi
root=$(pwd)
# GCC-only warning flags in the compile commands are unknown to clang: not findings.
run-clang-tidy-14 -p "$build" -j "$jobs" -quiet -extra-arg=-Wno-unknown-warning-option \
  "^$root/(core|app/cli)/.*\.cpp$"
