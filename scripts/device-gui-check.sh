#!/usr/bin/env bash
# On the GPU machine: unpacks .device/gui.tar.xz (scripts/device-gui-pack.sh) and runs the workbench
# on the offscreen platform with the CUDA backend.
#   scripts/device-gui-check.sh [check|shots] [families]
#   check: the GUI suites, then the workbench benchmark (load, frame times, optimiser iterations) on
#          samples/medium and on the hogenom-like preset;
#   shots: the user guide's screenshot tour on both datasets at 1600×1000 and at QT_SCALE_FACTOR=1.5.
# families: the hogenom-like preset's size by default. Logs, JSON and pictures go to $OUT (the
# device tool's output folder) or out/device.
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-check}
families=${2:-}
out=${OUT:-out/device}
mkdir -p "$out"
gui=$(mktemp -d)
tar -C "$gui" -xJf .device/gui.tar.xz
bin=$gui/gui/bin
export LD_LIBRARY_PATH=$gui/gui/lib QT_PLUGIN_PATH=$gui/gui/plugins QT_QPA_FONTDIR=$gui/gui/fonts
# The machine has no fontconfig setup: without one, Qt's fonts (and so every widget's size) differ
# from a desktop's.
cat >"$gui/gui/fonts.conf" <<CONF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>$gui/gui/fonts</dir><cachedir>$gui/fontconfig-cache</cachedir>
<alias><family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias></fontconfig>
CONF
export FONTCONFIG_FILE=$gui/gui/fonts.conf
export QT_QPA_PLATFORM=offscreen:configfile=$PWD/tests/offscreen-1600x1000.json
export GPUREC_TEST_SOURCE_DIR=$PWD GPUREC_TEST_SHARED_DATA=$PWD/.device/data GPUREC_TEST_DEVICE=cuda
export GPUREC_TEST_WORKBENCH=$bin/gpurec-workbench
status=0
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpu.txt"

data=/tmp/gpurec_hogenom
hogenom() { # made once per machine
  [[ -f $data/families.txt ]] && return 0
  local simulate=(--preset hogenom-like -o "$data" --overwrite)
  [[ -n $families ]] && simulate+=(--families "$families")
  "$bin/gpurec" simulate "${simulate[@]}" >"$out/simulate.txt" 2>&1 || { tail -n 5 "$out/simulate.txt"; exit 1; }
}
medium=(-s samples/medium/species.nwk -f samples/medium/families.txt)

if [[ $what == check ]]; then
  for suite in "$bin"/test_gui_*; do
    name=$(basename "$suite")
    start=$(date +%s)
    "$suite" >"$out/$name.txt" 2>&1 || status=1
    echo "$name: $(grep -E '^Totals' "$out/$name.txt") ($(($(date +%s) - start)) s)"
  done
  grep -h -o "engine on .*" "$out"/test_gui_*.txt | sort | uniq -c
  bench() { # name, iterations, workbench arguments
    local name=$1 iterations=$2
    shift 2
    "$bin/gpurec-workbench" "$@" --device cuda --benchmark "$out/workbench_$name.json" \
      --benchmark-iterations "$iterations" >"$out/workbench_$name.txt" 2>&1 ||
      { status=1; tail -n 20 "$out/workbench_$name.txt"; }
    echo "workbench $name: $(tr -d '\n ' <"$out/workbench_$name.json" 2>/dev/null)"
  }
  bench medium 20 "${medium[@]}"
  hogenom
  bench hogenom 5 -s "$data/species.nwk" -f "$data/families.txt"
fi

if [[ $what == shots ]]; then
  hogenom
  for scale in 1 1.5; do
    for set in medium hogenom; do
      args=("${medium[@]}")
      [[ $set == hogenom ]] && args=(-s "$data/species.nwk" -f "$data/families.txt")
      start=$(date +%s)
      QT_SCALE_FACTOR=$scale "$bin/gpurec-workbench" "${args[@]}" --device cuda --screenshots "$out/shots-$set-$scale" \
        >"$out/shots-$set-$scale.txt" 2>&1 || { status=1; tail -n 5 "$out/shots-$set-$scale.txt"; }
      echo "shots $set at scale $scale: $(ls "$out/shots-$set-$scale" 2>/dev/null | wc -l) pictures ($(($(date +%s) - start)) s)"
    done
  done
fi
exit $status
