#!/usr/bin/env bash
# The genewise rate fit on the GPU machine (issue 17's "genewise fit to convergence"): times one
# genewise forward+gradient evaluation (gpurec bench --mode genewise), then the whole
# `gpurec optimize --model-parametrization genewise` from D = L = T = 0.1, and prints the fit's
# iterations, evaluations and seconds against evaluations × one evaluation of every family (what
# the fit cost before families that have converged were left out of the rounds).
#   scripts/device-genewise-fit.sh   (PRESET: the simulator preset, default hogenom-like)
# Needs the device build (scripts/device-check.sh builds it); output under $OUT or out/device.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/device}
mkdir -p "$out"
gpurec=${GPUREC:-build/device/app/gpurec}
preset=${PRESET:-hogenom-like}
data=/tmp/gpurec_$preset
if [[ ! -f $data/families.txt ]]; then
  "$gpurec" simulate --preset "$preset" -o "$data" --overwrite >"$out/simulate.txt" 2>&1 || { cat "$out/simulate.txt"; exit 1; }
fi
input=(-s "$data/species.nwk" -f "$data/families.txt" --device cuda)
"$gpurec" bench "${input[@]}" --mode genewise --repeats 3 -o "$out/bench_genewise.json" >"$out/bench_genewise.txt" 2>&1 ||
  { tail -n 20 "$out/bench_genewise.txt"; exit 1; }
start=$(date +%s.%N)
"$gpurec" optimize "${input[@]}" --model-parametrization genewise -p "$out/genewise_fit" --overwrite \
  >"$out/genewise_fit.txt" 2>&1 || { tail -n 20 "$out/genewise_fit.txt"; exit 1; }
end=$(date +%s.%N)
python3 - "$out/bench_genewise.json" "$out/genewise_fit/result.json" "$start" "$end" <<'PY'
import json, sys
bench, fit, start, end = sys.argv[1:]
b = json.load(open(bench))
r = json.load(open(fit))
evaluation = b["forward+gradient"]["median_seconds"]
o = r["optimization"]
print(f'genewise forward+gradient (every family): {evaluation:.3f} s; fit: {o["iterations"]} iterations, '
      f'{o["evaluations"]} evaluations, {o["seconds"]:.1f} s (every family in every round would be '
      f'~{o["evaluations"] * evaluation:.1f} s); whole command {float(end) - float(start):.1f} s; '
      f'{o["stop_reason"]}')
PY
