#!/usr/bin/env bash
# Short libFuzzer campaign: scripts/fuzz.sh [seconds per target] [target...]. Each target first
# re-runs its fixed findings (tests/fuzz/regressions/<target>/), then fuzzes from its committed
# seeds (tests/fuzz/corpus/<target>) with its dictionary (tests/fuzz/dict/<target>.dict); new
# inputs go to build/sanitize/corpus/<target>, crash files to build/sanitize/artifacts/<target>/. Any
# finding fails the script (its report is printed); otherwise one line of statistics per target.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(fuzz_newick fuzz_families fuzz_recphyloxml fuzz_rates fuzz_loader fuzz_ale fuzz_checkpoint fuzz_cli fuzz_session)
fi
# The targets live in the sanitize build (clang, ASan + UBSan), which scripts/test.sh has built.
cmake --preset sanitize >/dev/null
cmake --build --preset sanitize -j "$(nproc)" --target "${targets[@]}"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
stats=()
for target in "${targets[@]}"; do
  exe=build/sanitize/tests/fuzz/$target
  corpus=build/sanitize/corpus/$target
  artifacts=build/sanitize/artifacts/$target
  log=build/sanitize/$target.log
  mkdir -p "$corpus" "$artifacts"
  regressions=(tests/fuzz/regressions/"$target"/*)
  if [ -e "${regressions[0]}" ]; then
    if ! "$exe" -runs=1 "${regressions[@]}" >"$log" 2>&1; then
      tail -n 60 "$log"
      echo "fuzz: $target fails on a fixed finding in tests/fuzz/regressions/$target" >&2
      exit 1
    fi
  fi
  echo "fuzzing $target for ${seconds}s"
  if ! "$exe" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -dict=tests/fuzz/dict/"$target".dict -artifact_prefix="$artifacts"/ -print_final_stats=1 \
    "$corpus" tests/fuzz/corpus/"$target" >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "fuzz: $target found a crash, leak, hang or undefined behaviour (input in $artifacts/)" >&2
    exit 1
  fi
  # The last status line ("#runs DONE cov: N ft: N corp: N/size ...") and the final statistics.
  status=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<<"$status")
  stats+=("$(printf '%-18s %10s runs %7s/s  cov %6s  ft %7s  corpus %-12s rss %5s MB' \
    "$target" "$runs" "$speed" "$cov" "$ft" "$corp" "$rss")")
done
printf '%s\n' "${stats[@]}"
echo "fuzzing finished without findings"
