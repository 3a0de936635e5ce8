#!/usr/bin/env python3
"""Splits a search's search_trace.csv into its phases (root searches, transfer-guided rounds, SPR
rounds by radius, rate fits) and prints, per phase, its candidates, how many the pre-screen left
out, how many were accepted, its seconds and candidates per second; then the totals per kind. It
says where a search's time goes (docs/performance.md, "Species-tree search").
    scripts/search_trace_summary.py OUT/search_trace.csv [--phases N]   (N: the first N phases listed)
"""
import argparse
import csv
import re
import sys
from collections import OrderedDict


def kind_of(move):
    if move.startswith("transfer SPR"):
        return "transfer"
    m = re.search(r"\(radius (\d+)\)$", move)
    if move.startswith("SPR") and m:
        return "SPR radius " + m.group(1)
    if move.startswith("root above"):
        return "root"
    return move.split(" ")[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--phases", type=int, default=40)
    args = parser.parse_args()
    csv.field_size_limit(sys.maxsize)
    with open(args.trace, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit("no rows in " + args.trace)
    phases = []
    previous_end = 0.0
    for row in rows:
        kind = kind_of(row["move"])
        seconds = float(row["seconds"])
        if not phases or phases[-1]["kind"] != kind:
            phases.append({"kind": kind, "first": int(row["step"]), "rows": 0, "screened": 0,
                           "accepted": 0, "begin": previous_end, "end": seconds})
        phase = phases[-1]
        phase["rows"] += 1
        phase["screened"] += row.get("screened", "0") == "1"
        phase["accepted"] += row["accepted"] == "1"
        phase["end"] = seconds
        previous_end = seconds
    print(f"{'phase':<14}{'from step':>10}{'rows':>8}{'left out':>10}{'accepted':>10}{'seconds':>10}{'per s':>8}")
    for phase in phases[: args.phases]:
        span = phase["end"] - phase["begin"]
        rate = phase["rows"] / span if span > 0 else float("nan")
        print(f"{phase['kind']:<14}{phase['first']:>10}{phase['rows']:>8}{phase['screened']:>10}"
              f"{phase['accepted']:>10}{span:>10.1f}{rate:>8.1f}")
    if len(phases) > args.phases:
        print(f"... {len(phases) - args.phases} phases more")
    totals = OrderedDict()
    for phase in phases:
        t = totals.setdefault(phase["kind"], {"phases": 0, "rows": 0, "screened": 0, "accepted": 0, "seconds": 0.0})
        t["phases"] += 1
        t["rows"] += phase["rows"]
        t["screened"] += phase["screened"]
        t["accepted"] += phase["accepted"]
        t["seconds"] += phase["end"] - phase["begin"]
    print(f"\n{'kind':<14}{'phases':>8}{'rows':>8}{'left out':>10}{'accepted':>10}{'seconds':>10}{'per s':>8}")
    for kind, t in totals.items():
        rate = t["rows"] / t["seconds"] if t["seconds"] > 0 else float("nan")
        print(f"{kind:<14}{t['phases']:>8}{t['rows']:>8}{t['screened']:>10}{t['accepted']:>10}"
              f"{t['seconds']:>10.1f}{rate:>8.1f}")
    print(f"\n{len(rows)} rows in {float(rows[-1]['seconds']):.1f} s; "
          f"log-likelihood {float(rows[0]['log_likelihood']):.2f} -> "
          f"{max(float(r['log_likelihood']) for r in rows if r['accepted'] == '1'):.2f}")


if __name__ == "__main__":
    main()
