#!/usr/bin/env bash
# One call on the GPU machine: build with the `device` preset, run the backend conformance suite
# (CTest label gpu), compare the CUDA backend with the CPU reference (gpurec check), then time it
# (gpurec bench) on a simulated dataset, with all the memory and with a 20 GB budget. Needs .device/
# (made by scripts/device-prepare.sh).
#   scripts/device-check.sh [conformance|check|bench|all] [families]   (default: all; families: the preset's)
# PRESET names the simulator preset of the bench (default hogenom-like; hogenom-big-families: half
# as many families, about five times larger).
# BENCH_ARGS adds options to every gpurec bench run (e.g. BENCH_ARGS=--wave-profile).
# Logs and JSON go to $OUT (the device tool's output folder) or out/device.
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
families=${2:-}
out=${OUT:-out/device}
mkdir -p "$out"
status=0

nvidia-smi --query-gpu=name,memory.total,memory.used,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
start=$(date +%s)
if ! { cmake --preset device >"$out/configure.log" 2>&1 &&
       cmake --build --preset device -j"$(nproc)" --target gpurec backend_conformance >"$out/build.log" 2>&1; }; then
  tail -n 60 "$out/configure.log" "$out/build.log"
  exit 1
fi
echo "build: $(($(date +%s) - start)) s"
gpurec=build/device/app/gpurec

if [[ $what == conformance || $what == all ]]; then
  start=$(date +%s)
  GPUREC_TEST_SHARED_DATA=$PWD/.device/data ctest --test-dir build/device -L gpu --output-on-failure \
    >"$out/conformance.txt" 2>&1 || status=1
  tail -n 25 "$out/conformance.txt"
  echo "conformance: $(($(date +%s) - start)) s"
fi

if [[ $what == check || $what == all ]]; then
  start=$(date +%s)
  $gpurec check --device cuda --data .device/data --json "$out/check.json" >"$out/check.txt" 2>&1 || status=1
  tail -n 45 "$out/check.txt"
  echo "check: $(($(date +%s) - start)) s"
fi

if [[ $what == bench || $what == all ]]; then
  start=$(date +%s)
  preset=${PRESET:-hogenom-like}
  data=/tmp/gpurec_$preset
  simulate=(--preset "$preset" -o "$data" --overwrite)
  [[ -n $families ]] && simulate+=(--families "$families")
  $gpurec simulate "${simulate[@]}" >"$out/simulate.txt" 2>&1 || { cat "$out/simulate.txt"; exit 1; }
  tail -n 4 "$out/simulate.txt"
  echo "simulate: $(($(date +%s) - start)) s"
  for limit in "" 20GB; do
    tag=${limit:-full}
    args=(-s "$data/species.nwk" -f "$data/families.txt" --device cuda -o "$out/bench_$tag.json" ${BENCH_ARGS:-})
    [[ -n $limit ]] && args+=(--gpu-memory-limit "$limit")
    start=$(date +%s)
    $gpurec bench "${args[@]}" >"$out/bench_$tag.txt" 2>&1 || status=1
    tail -n 16 "$out/bench_$tag.txt"
    echo "bench $tag: $(($(date +%s) - start)) s"
  done
fi
exit $status
