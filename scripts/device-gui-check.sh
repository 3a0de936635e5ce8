#!/usr/bin/env bash
# On the GPU machine: unpacks .device/gui.tar.xz (scripts/device-gui-pack.sh), runs the workbench's
# GUI suites on the offscreen platform with the CUDA backend, then the workbench benchmark
# (load, frame times, optimiser iterations) on samples/medium and on the hogenom-like preset.
#   scripts/device-gui-check.sh [families]   (families: hogenom-like size by default)
# Logs and JSON go to $OUT (the device tool's output folder) or out/device.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/device}
mkdir -p "$out"
gui=$(mktemp -d)
tar -C "$gui" -xJf .device/gui.tar.xz
bin=$gui/gui/bin
export LD_LIBRARY_PATH=$gui/gui/lib QT_PLUGIN_PATH=$gui/gui/plugins QT_QPA_FONTDIR=$gui/gui/fonts
export QT_QPA_PLATFORM=offscreen:configfile=$PWD/tests/offscreen-1600x1000.json
export GPUREC_TEST_SOURCE_DIR=$PWD GPUREC_TEST_SHARED_DATA=$PWD/.device/data GPUREC_TEST_DEVICE=cuda
status=0
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpu.txt"
for suite in "$bin"/test_gui_*; do
  name=$(basename "$suite")
  start=$(date +%s)
  "$suite" >"$out/$name.txt" 2>&1 || status=1
  echo "$name: $(grep -E '^Totals' "$out/$name.txt") ($(($(date +%s) - start)) s)"
done
grep -h -o "engine on .*" "$out"/test_gui_*.txt | sort | uniq -c

bench() { # name, workbench arguments
  local name=$1
  shift
  "$bin/gpurec-workbench" "$@" --device cuda --benchmark "$out/workbench_$name.json" >"$out/workbench_$name.txt" 2>&1 ||
    { status=1; tail -n 20 "$out/workbench_$name.txt"; }
  echo "workbench $name:"
  tr -d '\n ' <"$out/workbench_$name.json" 2>/dev/null; echo
}
bench medium -s samples/medium/species.nwk -f samples/medium/families.txt --benchmark-iterations 20
data=/tmp/gpurec_hogenom
simulate=(--preset hogenom-like -o "$data" --overwrite)
[[ -n ${1:-} ]] && simulate+=(--families "$1")
"$bin/gpurec" simulate "${simulate[@]}" >"$out/simulate.txt" 2>&1 || { tail -n 5 "$out/simulate.txt"; exit 1; }
bench hogenom -s "$data/species.nwk" -f "$data/families.txt" --benchmark-iterations 5
exit $status
