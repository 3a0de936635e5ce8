#!/usr/bin/env bash
# On the GPU machine: where the CUDA backend's time goes. Builds build/device with line information,
# then for each preset in PRESETS (default: hogenom-like and hogenom-big-families, issue 17's two
# shapes) runs `gpurec bench --wave-profile` with all the memory (per-phase and per-wave times),
# and, unless NCU=0, Nsight Compute's occupancy, warp-stall and memory sections for one mid-sized
# wave of the forward, adjoint and gradient kernels on FAMILIES_NCU families of the first preset.
# Needs .device/ (scripts/device-prepare.sh). Logs go to $OUT (the device tool's output folder) or
# out/device.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/device}
mkdir -p "$out"
status=0
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
start=$EPOCHREALTIME
if ! { cmake --preset device -DCMAKE_CUDA_FLAGS=-lineinfo >"$out/configure.log" 2>&1 &&
       cmake --build --preset device -j"$(nproc)" --target gpurec >"$out/build.log" 2>&1; }; then
  tail -n 60 "$out/configure.log" "$out/build.log"
  exit 1
fi
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f s", b - a }'; }
echo "build: $(since "$start")"
gpurec=build/device/app/gpurec
read -r -a presets <<<"${PRESETS:-hogenom-like hogenom-big-families}"
for preset in "${presets[@]}"; do
  data=/tmp/gpurec_$preset
  start=$EPOCHREALTIME
  $gpurec simulate --preset "$preset" -o "$data" --overwrite >"$out/simulate_$preset.txt" 2>&1 ||
    { cat "$out/simulate_$preset.txt"; exit 1; }
  $gpurec bench -s "$data/species.nwk" -f "$data/families.txt" --device cuda --wave-profile \
    --repeats 3 -o "$out/profile_$preset.json" >"$out/profile_$preset.txt" 2>&1 || status=1
  echo "== $preset ($(since "$start"))"
  tail -n 40 "$out/profile_$preset.txt"
done
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -n 1)
if [[ ${NCU:-1} != 0 && -n $ncu ]]; then
  data=/tmp/gpurec_ncu
  $gpurec simulate --preset "${presets[0]}" --families "${FAMILIES_NCU:-3000}" -o "$data" --overwrite \
    >"$out/simulate_ncu.txt" 2>&1 || { cat "$out/simulate_ncu.txt"; exit 1; }
  # The bench's warm-up forward+gradient runs first: skip into its middle waves.
  for kernel in forwardWaveKernel:60 adjointWaveKernel:60 gradientGatherKernel:0; do
    name=${kernel%%:*}
    start=$EPOCHREALTIME
    report=/tmp/ncu_$name
    "$ncu" --clock-control none --kernel-name "regex:$name" --launch-skip "${kernel##*:}" --launch-count 1 \
      --section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats \
      --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters \
      --import-source yes -f -o "$report" \
      $gpurec bench -s "$data/species.nwk" -f "$data/families.txt" --device cuda --repeats 1 --warmup 0 \
      -o "$out/ncu_bench.json" >"$out/ncu_run_$name.txt" 2>&1 || status=1
    "$ncu" -i "$report.ncu-rep" >"$out/ncu_$name.txt" 2>&1 || status=1
    echo "== ncu $name ($(since "$start"))"
    # Which source lines and instructions the warps wait on (the build has line information).
    for view in cuda sass; do
      "$ncu" -i "$report.ncu-rep" --page source --csv --print-source "$view" >"/tmp/source_${name}_$view.csv" 2>&1 &&
        python3 scripts/ncu_source_summary.py "/tmp/source_${name}_$view.csv" "${SOURCE_ROWS:-30}" ||
        { status=1; head -n 5 "/tmp/source_${name}_$view.csv"; }
    done
    grep -E "Block Size|Registers Per|Shared Memory Per Block|Achieved Occupancy|Theoretical Occupancy|Block Limit|Duration|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Issued Ipc|No Eligible|Warp Cycles Per Issued|Stall|stall" \
      "$out/ncu_$name.txt" | head -40
  done
fi
exit $status
