#!/usr/bin/env bash
# Strong and weak scaling of gpurec under mpirun on the CPU (docs/performance.md, "Several
# processes"): the same dataset on 1 and N processes (strong), and 1/N of it on one process against
# all of it on N (weak), one thread per process. For each rate mode it prints the median wall time
# of an evaluation with gradient in an optimisation (trace.csv's eval_seconds, iterations 1 to
# --max-iter, warm starts as in a real fit) and the cold forward of `gpurec eval`.
#   scripts/mpi-scaling.sh [GPUREC] [SPECIES] [FAMILIES] [PROCESSES] [ITERATIONS]
# Defaults: build/release/app/gpurec, samples/medium (500 families, 199 species nodes), 2 processes,
# 6 iterations. As root, mpirun needs OMPI_ALLOW_RUN_AS_ROOT (set here).
set -euo pipefail
cd "$(dirname "$0")/.."
gpurec=$(realpath "${1:-build/release/app/gpurec}")
species=$(realpath "${2:-samples/medium/species.nwk}")
families=$(realpath "${3:-samples/medium/families.txt}")
processes=${4:-2}
iterations=${5:-6}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The first 1/processes of the families (the weak-scaling share of one process), paths made absolute.
base=$(dirname "$families")
awk -v base="$base/" '/^gene_tree *=/ { sub(/= */, "= "); if ($3 !~ /^\//) $3 = base $3 } { print }' \
  "$families" > "$work/all.txt"
total=$(grep -c '^- ' "$work/all.txt")
share=$((total / processes))
awk -v n="$share" '/^- / { k++ } k <= n { print }' "$work/all.txt" > "$work/share.txt"

run_on() { # processes, then a command
  local np=$1
  shift
  if ((np == 1)); then
    "$@"
  else
    mpirun -q --oversubscribe -np "$np" "$@"
  fi
}
launch() { # processes, then gpurec's arguments
  local np=$1
  shift
  run_on "$np" "$gpurec" "$@"
}

# Median eval_seconds over the trace's rows after the first (the cold start).
median_eval() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "eval_seconds") c = i; next }
           NR > 2 { print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# One row: the cold forward, then the median evaluation with gradient in each mode (seconds).
run_case() { # processes, families file, output folder
  local np=$1 list=$2 dir=$3 row
  row=$(launch "$np" eval -s "$species" -f "$list" --device cpu --threads 1 -p "$dir/eval" |
    sed -n 's/.*NLL [0-9.]* bits (\([0-9.]*\) s.*/\1/p')
  for mode in GLOBAL PER-SPECIES PER-FAMILY; do
    launch "$np" optimize -s "$species" -f "$list" --device cpu --threads 1 --model-parametrization "$mode" \
      --max-iter "$iterations" -p "$dir/$mode" > /dev/null
    row="$row $(median_eval "$dir/$mode/trace.csv")"
  done
  echo "$row"
}

echo "gpurec under mpirun, one thread per process, $(nproc --all) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
one=$(run_case 1 "$work/all.txt" "$work/one")
part=$(run_case 1 "$work/share.txt" "$work/part")
many=$(run_case "$processes" "$work/all.txt" "$work/many")
awk -v one="$one" -v part="$part" -v many="$many" -v np="$processes" -v total="$total" -v share="$share" 'BEGIN {
  split(one, a, " "); split(part, b, " "); split(many, c, " ")
  split("forward (eval, cold)|global, with gradient|specieswise, with gradient|genewise, with gradient", name, "|")
  printf "%-28s %12s %12s %12s %9s %9s\n", "seconds per evaluation", "1 x " total, "1 x " share, np " x " total, "strong", "weak"
  for (i = 1; i <= 4; i++)
    printf "%-28s %12.4f %12.4f %12.4f %8.2fx %8.0f%%\n", name[i], a[i], b[i], c[i], a[i] / c[i], 100 * b[i] / c[i]
  print "strong: speed-up of " np " processes over one on all " total " families; weak: efficiency, " share " families on one against " total " on " np
}'

# The compute of each process (user + system CPU seconds of the whole command, loading included) in
# the global fit: what the wall times above become on cores of their own.
cpu_case() { # processes
  local np=$1 dir="$work/cpu-$1"
  mkdir -p "$dir"
  run_on "$np" sh -c 'exec /usr/bin/time -f "%U %S" -o "$0.${OMPI_COMM_WORLD_RANK:-0}" "$@"' "$dir/cpu" \
    "$gpurec" optimize -s "$species" -f "$work/all.txt" --device cpu --threads 1 --max-iter "$iterations" \
    -p "$dir/out" > /dev/null
  printf 'CPU seconds per process, global fit of %d families on %d process(es):' "$total" "$np"
  for f in "$dir"/cpu.*; do awk '{ printf " %.2f", $1 + $2 }' "$f"; done
  printf '\n'
}
cpu_case 1
cpu_case "$processes"
