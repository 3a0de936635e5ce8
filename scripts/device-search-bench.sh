#!/usr/bin/env bash
# The species-tree search benchmark (docs/performance.md, "Species-tree search"): HYBRID searches
# from MiniNJ on simulated families, on each device given, each stopped by SIGINT after a time
# limit if it has not finished (the search then writes its best tree and result.json; --foreground:
# one signal, where timeout would also signal its process group and the second one ends gpurec). Prints one
# line per run: species, families, device, finished or stopped, steps, evaluations, seconds,
# candidates per second, the search's log-likelihood and the true tree's at the search's rates.
#   scripts/device-search-bench.sh SPECIES FAMILIES LIMIT_S DEVICE...   (PRESET=hogenom-like: that preset;
#   PRESCREEN=F: gpurec search --prescreen F; LANES=N: --prescreen-lanes N)
# Needs the device build (scripts/device-check.sh builds it). Each search runs under
# /tmp/gpurec_search_runs; its log, result.json and trace (the tree column blanked: it is large at
# genome scale) are copied to $OUT or out/device, and the trace's phases printed
# (scripts/search_trace_summary.py). A search stopped at the limit can go on in a later call, on a
# fresh machine: its state (checkpoint.json, the start tree and the blanked trace) is copied to
# $OUT/NAME_state/; carry that folder back (e.g. as .device/NAME_state) and give it as RESUME=FOLDER
# with the same arguments: the search then resumes there (gpurec search --resume) for LIMIT more
# seconds, the families simulated again with the same seed. TRUTH=stopped: the true tree is scored
# only once the search has finished (saves a genome-scale evaluation per part of a search in parts).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/device}
mkdir -p "$out"
gpurec=${GPUREC:-build/device/app/gpurec}
species=$1 families=$2 limit=$3
shift 3
data=/tmp/gpurec_search_${PRESET:-$species}_$families
if [[ ! -f $data/families.txt ]]; then
  if [[ -n ${PRESET:-} ]]; then
    "$gpurec" simulate --preset "$PRESET" -o "$data" --overwrite >"$out/simulate_$PRESET.txt" 2>&1 || exit 1
  else
    "$gpurec" simulate --species "$species" --families "$families" --d 0.1 --l 0.1 --t 0.05 --seed 1 \
      --min-covered-species 4 -o "$data" --overwrite >"$out/simulate_$species.txt" 2>&1 || exit 1
  fi
fi
for device in "$@"; do
  name=search_${PRESET:-$species}_${device//:/}${LANES:+_lanes$LANES}
  run=/tmp/gpurec_search_runs/$name
  rm -rf "$run"
  mkdir -p /tmp/gpurec_search_runs
  if [[ -n ${RESUME:-} ]]; then
    mkdir -p "$run/species_trees"
    cp "$RESUME/checkpoint.json" "$run/"
    cp "$RESUME/starting_species_tree.newick" "$run/species_trees/"
    cp "$RESUME/search_trace.csv" "$run/"
    timeout --foreground -s INT "$limit" "$gpurec" search --resume "$run" --device "$device" \
      --prescreen-lanes "${LANES:-0}" >"$run.txt" 2>&1
  else
    timeout --foreground -s INT "$limit" "$gpurec" search -s MiniNJ -f "$data/families.txt" --device "$device" \
      -p "$run" --prescreen "${PRESCREEN:-0}" --prescreen-lanes "${LANES:-0}" >"$run.txt" 2>&1
  fi
  python3 - "$run/result.json" "$data" "$device" "$gpurec" "${PRESET:-$species species}" "${TRUTH:-always}" <<'PY'
import json, subprocess, sys
result, data, device, gpurec, label, when = sys.argv[1:]
j = json.load(open(result))
s = j["search"]
rates = s["rates"] if "D" in s["rates"] and (when != "stopped" or not s["interrupted"]) else None
truth = float("nan")
if rates:
    r = subprocess.run([gpurec, "eval", "-s", data + "/species.nwk", "-f", data + "/families.txt",
                        "--d", repr(rates["D"]), "--l", repr(rates["L"]), "--t", repr(rates["T"]),
                        "--device", device, "-p", result + ".truth", "--overwrite"], capture_output=True, text=True)
    try:
        truth = json.load(open(result + ".truth/result.json"))["total"]["ll_nats"]
    except Exception:
        pass
print(f'{label}, {len(j["input_files"]["families"])} families, '
      f'{device}: {"stopped" if s["interrupted"] else "finished"} after {s["steps"]} steps, '
      f'{s["evaluations"]} evaluations in {s["seconds"]:.1f} s ({s["evaluations"] / max(s["seconds"], 1e-9):.1f} per s); '
      + (f'{s["screenings"]} screenings in {s.get("prescreen_lanes", 1)} lanes ({s.get("screenings_unused", 0)} unused), '
         f'{s["steps"] / max(s["seconds"], 1e-9):.2f} steps per s; ' if s.get("prescreen", 0) > 0 else '') +
      f'LL {s["log_likelihood"]:.4f} (start {s["start_log_likelihood"]:.4f}, true tree {truth:.4f})')
if "activity_seconds" in s:
    print("seconds in " + ", ".join(f"{k.replace('_', ' ')} {v:.1f}" for k, v in s["activity_seconds"].items()))
PY
  cp "$run.txt" "$out/$name.txt"
  cp "$run/result.json" "$out/${name}_result.json"
  python3 - "$run/search_trace.csv" "$out/${name}_trace.csv" <<'PY'
import csv, sys
csv.field_size_limit(sys.maxsize)
rows = csv.DictReader(open(sys.argv[1], newline=""))
out = csv.DictWriter(open(sys.argv[2], "w", newline=""), rows.fieldnames, lineterminator="\n")
out.writeheader()
for row in rows:
    row["tree"] = ""
    out.writerow(row)
PY
  mkdir -p "$out/${name}_state"
  cp "$run/checkpoint.json" "$run/species_trees/starting_species_tree.newick" "$out/${name}_state/"
  cp "$out/${name}_trace.csv" "$out/${name}_state/search_trace.csv"
  python3 scripts/search_trace_summary.py "$out/${name}_trace.csv" --phases 30
done
