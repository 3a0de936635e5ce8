#!/usr/bin/env bash
# Short libFuzzer campaign on the parsers: scripts/fuzz.sh [seconds per target].
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)" --target fuzz_newick fuzz_families
for target in fuzz_newick fuzz_families; do
  corpus=build/fuzz/corpus/$target
  mkdir -p "$corpus"
  cp tests/fuzz/seeds/* "$corpus"/
  echo "fuzzing $target for ${seconds}s"
  build/fuzz/tests/fuzz/$target -max_total_time="$seconds" -max_len=4096 -timeout=5 -rss_limit_mb=2048 \
    -print_final_stats=1 "$corpus" 2>&1 | tail -n 4
done
echo "fuzzing finished without findings"
