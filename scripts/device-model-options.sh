#!/usr/bin/env bash
# On the GPU machine after scripts/device-check.sh has built build/device: the model options that
# change the species tree's arrays, on the CUDA backend against the CPU, as a user runs them. The
# teaching sample fitted with --pairwise-transfers (5 iterations), samples/medium evaluated with
# pairwise transfers (about 39,000 highways), and samples/medium fitted on pruned species trees
# (--prune-species-tree, per-species rates, 5 iterations), each on both devices, with timings; then
# AleRax's highway search (gpurec highways) on samples/medium on both devices, its accepted
# highways compared.
# Logs go to $OUT (the device tool's output folder) or out/device.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/device}
mkdir -p "$out"
gpurec=${GPUREC:-build/device/app/gpurec}
status=0
timed() { # name, then the command; its wall time and the command's tail
  local name=$1
  shift
  local start=$EPOCHREALTIME # the GPU machine has no bc
  "$@" >"$out/$name.txt" 2>&1 || status=1
  awk -v name="$name" -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%s: %.1f s\n", name, b - a }'
  tail -n 4 "$out/$name.txt"
}
teaching=(-s samples/teaching/species.nwk -f samples/teaching/families.txt)
medium=(-s samples/medium/species.nwk -f samples/medium/families.txt)
for device in ${DEVICES:-cpu cuda}; do
  timed "pairwise_fit_$device" $gpurec optimize "${teaching[@]}" --pairwise-transfers --max-iter 5 \
    --device $device -p "$out/pairwise_fit_$device"
  timed "pairwise_eval_$device" $gpurec eval "${medium[@]}" --pairwise-transfers --device $device \
    -p "$out/pairwise_eval_$device"
  timed "pruned_fit_$device" $gpurec optimize "${medium[@]}" --prune-species-tree \
    --model-parametrization PER-SPECIES --max-iter 5 --device $device -p "$out/pruned_fit_$device"
  timed "highways_$device" $gpurec highways "${medium[@]}" --device $device -p "$out/highways_$device"
done
for run in pairwise_fit pairwise_eval pruned_fit; do
  python3 - "$out/${run}_cpu" "$out/${run}_cuda" <<'PY'
import json, sys
a, b = (json.load(open(p + "/result.json")) for p in sys.argv[1:])
la, lb = a["total"]["ll_nats"], b["total"]["ll_nats"]
print(f"{sys.argv[1]}: total log-likelihood cpu {la!r} cuda {lb!r} relative difference {abs(la - lb) / abs(la):.2e}")
PY
done
# The same highways accepted in the same order; their fitted rates agree to the optimiser's
# tolerance, not bit for bit (each device's fit stops where its own last step lands).
python3 - "$out/highways_cpu" "$out/highways_cuda" <<'PY' || status=1
import sys
rows = [[line.split(", ") for line in open(p + "/highways/accepted_highways.txt") if line.strip()][1:] for p in sys.argv[1:]]
pairs = [[r[:2] for r in side] for side in rows]
if pairs[0] != pairs[1]:
    print("accepted highways differ:", pairs[0], pairs[1])
    sys.exit(1)
worst = max((abs(float(a[2]) - float(b[2])) / abs(float(a[2])) for a, b in zip(*rows)), default=0.0)
print(f"accepted highways: the same {len(pairs[0])} on both devices, rates within {worst:.1e} relative")
PY
exit $status
