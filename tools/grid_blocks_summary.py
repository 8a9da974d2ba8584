#!/usr/bin/env python3
"""Tabulates `gpureduce bench --kernel grid [--grid-blocks B] --json` runs of one or more builds:
per row, gpureduce's median microseconds for each (build, block count) and CUB's.

usage: grid_blocks_summary.py LABEL=RUN.json...

LABEL names the build (the JSON's commit string is the one its build directory was configured at);
the block count is read from each run's config (0: the tuned grid). Runs of the same build and
block count (rounds) give the median of their per-row medians, as do CUB's rows of every run.
"""
import statistics
import sys

from bench_runs import device_line, load, table_head


def main():
    if len(sys.argv) < 2 or any("=" not in a for a in sys.argv[1:]):
        sys.exit(__doc__)
    times, cub, columns, first = {}, {}, [], None
    for arg in sys.argv[1:]:
        label, path = arg.split("=", 1)
        rows, runs = load([path])
        first = first or runs[0]
        column = (label, runs[0]["config"]["grid_blocks"])
        if column not in columns:
            columns.append(column)
        for (op, t, n, variant), us in rows.items():
            side = times if variant == "gpureduce" else cub
            side.setdefault((op, t, n), {}).setdefault(column, []).extend(us)
    columns.sort(key=lambda c: (c[0], c[1]))
    rounds = max(len(us) for row in times.values() for us in row.values())
    print(f"# {device_line(first)}, {first['date']}; blocks 0: the tuned grid; median of {rounds} round(s)")
    print(table_head("op", "type", "n", *(f"{l} {b}" for l, b in columns), "CUB"))
    for key in sorted(times, key=lambda k: (k[0], k[1], k[2])):
        op, t, n = key
        cells = [f"{statistics.median(times[key][c]):.2f}" if c in times[key] else "" for c in columns]
        c = [us for runs in cub.get(key, {}).values() for us in runs]
        print(f"| {op} | {t} | {n} | " + " | ".join(cells) + (f" | {statistics.median(c):.2f} |" if c else " |  |"))


if __name__ == "__main__":
    main()
