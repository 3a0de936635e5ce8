#!/usr/bin/env bash
# End-to-end smoke test of the real gpurec-workbench: under Xvfb (1600×1000) and a private D-Bus
# session, scripts/gui_smoke.py finds the widgets through the accessibility tree (AT-SPI) and
# clicks and types with xdotool: open a sample through the Open dialog, Optimise, Pause, Resume,
# Stop, save the session, open the guided tour, sample, export, tell a sample's story, run a
# species-tree search from a random tree, stop it, compare and save its tree, enter and leave the
# presenter view; it then checks the files the workbench wrote and its log.
# Usage: scripts/gui-smoke.sh [path/to/gpurec-workbench] [sample folder (default samples/medium)]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exe=${1:-$root/build/release/app/workbench/gpurec-workbench}
sample=${2:-$root/samples/medium}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/out"
# A fresh home: no recent inputs, saved layout or autosave from earlier runs.
export HOME=$work/home
export QT_QPA_PLATFORM=xcb QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 QT_ACCESSIBILITY=1 OMP_NUM_THREADS=2
status=0
# A random display number: other sessions on this host may hold :99 where our lock files cannot
# see them. No outer timeout(1) (it keeps Xvfb's start signal from xvfb-run); gui_smoke.py has its own.
xvfb-run -n $((200 + RANDOM % 700)) -e "$work/out/xvfb.log" -s "-screen 0 1600x1000x24 -nolisten tcp -noreset" \
  dbus-run-session -- /usr/bin/python3 "$root/scripts/gui_smoke.py" \
  --exe "$exe" --sample "$sample" --out "$work/out" || status=$?
if ((status != 0)); then
  echo "gui-smoke: failed (status $status); the workbench's output:" >&2
  cat "$work/out/workbench.log" "$work/out/xvfb.log" >&2 || true
fi
exit "$status"
