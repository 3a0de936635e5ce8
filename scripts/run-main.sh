#!/usr/bin/env bash
# The main job: installs what is needed, builds gpurec and reconciles the bundled teaching sample:
# likelihood at the default rates, then a global rate fit.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)"
sample=${1:-samples/teaching}
out=${2:-out/main}
build/release/app/gpurec eval -s "$sample/species.nwk" -f "$sample/families.txt" -p "$out/eval" --overwrite
build/release/app/gpurec optimize -s "$sample/species.nwk" -f "$sample/families.txt" --max-iter 30 -p "$out/optimize" --overwrite
echo "results in $out; explore them in the workbench: build/release/app/workbench/gpurec-workbench -s $sample/species.nwk -f $sample/families.txt"
