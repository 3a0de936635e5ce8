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
  local start
  start=$(date +%s.%N)
  "$@" >"$out/$name.txt" 2>&1 || status=1
  printf '%s: %.1f s\n' "$name" "$(echo "$(date +%s.%N) - $start" | bc)"
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
if cmp -s "$out/highways_cpu/highways/accepted_highways.txt" "$out/highways_cuda/highways/accepted_highways.txt"; then
  echo "accepted highways: identical files"
else
  echo "accepted highways differ:"
  diff "$out/highways_cpu/highways/accepted_highways.txt" "$out/highways_cuda/highways/accepted_highways.txt" | head -20
fi
exit $status
