#!/usr/bin/env python3
"""Summarises an Nsight Compute source page exported as CSV (ncu -i REPORT --page source --csv
--print-source cuda|sass): the rows (source lines or SASS instructions) holding most of the warp
stall samples, with their share, so a profile says which lines the kernel waits on.
  scripts/ncu_source_summary.py FILE.csv [ROWS]"""
import csv
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def main():
    path = sys.argv[1]
    rows_wanted = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    with open(path, newline="") as f:
        lines = [line for line in f if line.strip() and not line.startswith("==")]
    table = list(csv.reader(lines))
    header_at = next((i for i, r in enumerate(table) if any("Warp Stall Sampling" in c for c in r)), None)
    if header_at is None:
        print(f"{path}: no 'Warp Stall Sampling' column; first rows:")
        for r in table[:5]:
            print("  ", r[:12])
        return 1
    header = table[header_at]
    print(f"{path}: columns: {', '.join(header)}")
    samples = next(i for i, c in enumerate(header) if c.startswith("Warp Stall Sampling (All"))
    text = next((i for i, c in enumerate(header) if c in ("Source", "Line", "# Source")), 0)
    where = next((i for i, c in enumerate(header) if c in ("#", "Line Number", "Address", "# Address")), None)
    body = [r for r in table[header_at + 1:] if len(r) == len(header)]
    total = sum(number(r[samples]) for r in body)
    print(f"{len(body)} rows, {total:.0f} stall samples")
    shown = 0.0
    for r in sorted(body, key=lambda r: -number(r[samples]))[:rows_wanted]:
        share = number(r[samples]) / total if total else 0.0
        shown += share
        label = r[where] if where is not None else ""
        print(f"{100 * share:6.2f} % {label:>8} {r[text].strip()[:150]}")
    print(f"shown: {100 * shown:.1f} % of the samples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
