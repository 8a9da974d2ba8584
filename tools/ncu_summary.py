#!/usr/bin/env python3
"""Summarizes `ncu --csv --page details` runs of gpureduce's grid kernels (tools/device-run ncugrid).

usage: ncu_summary.py TITLE LABEL=FILE.csv...

One column per file: the median over the profiled launches of every metric ncu reported (duration
in ns, cycles, instructions, warp states, launch shape).
"""
import collections
import csv
import statistics
import sys


def medians(path):
    values = collections.defaultdict(list)
    with open(path) as f:
        for row in csv.DictReader(line for line in f if line.startswith('"')):
            try:
                values[row["Metric Name"]].append(float(row["Metric Value"].replace(",", "")))
            except (KeyError, ValueError):
                continue
    return {k: statistics.median(v) for k, v in values.items() if v}, max((len(v) for v in values.values()), default=0)


def main():
    if len(sys.argv) < 3 or any("=" not in a for a in sys.argv[2:]):
        sys.exit(__doc__)
    print(sys.argv[1])
    columns = [(a.split("=", 1)[0], *medians(a.split("=", 1)[1])) for a in sys.argv[2:]]
    print("launches per column: " + ", ".join(f"{label} {count}" for label, _, count in columns))
    print("| metric | " + " | ".join(label for label, _, _ in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for metric in sorted(set().union(*(m for _, m, _ in columns))):
        cells = [f"{m[metric]:.2f}" if metric in m else "" for _, m, _ in columns]
        print(f"| {metric} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
