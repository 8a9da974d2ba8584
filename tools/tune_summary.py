#!/usr/bin/env python3
"""Compares the one-block kernel with the grid, each forced (tools/device-run tune).

usage: tune_summary.py ONE_BLOCK.json... -- GRID.json...

Per op, type and n: the median over the runs of each kernel's median time, CUB's, and the faster
kernel; then per op and type the largest n up to which the one-block kernel was the faster at every
size, in elements and in bytes read.
"""
import statistics
import sys

from bench_runs import device_line, load_two_sides, table_head

ELEMENT_BYTES = {"int8": 1, "int32": 4, "int64": 8, "float32": 4, "float64": 8, "float16": 2, "bfloat16": 2}


def main():
    (one, one_runs), (grid, _) = load_two_sides(sys.argv, __doc__)
    d = one_runs[0]
    print(f"# one-block ({len(one_runs)} runs) against grid, each forced, alternating; {device_line(d)}, "
          f"commit {d['commit']}, {d['date']}")
    print(table_head("op", "type", "n", "one-block us", "grid us", "CUB us", "faster"))
    med = statistics.median
    limits = {}
    for (op, t, n, v) in sorted(one, key=lambda k: (k[0], k[1], k[2])):
        if v != "gpureduce" or (op, t, n, v) not in grid:
            continue
        a, b = med(one[(op, t, n, v)]), med(grid[(op, t, n, v)])
        cub = med(one.get((op, t, n, "cub"), []) + grid.get((op, t, n, "cub"), []) or [0])
        faster = "one-block" if a < b else "grid"
        print(f"| {op} | {t} | {n} | {a:.2f} | {b:.2f} | {cub:.2f} | {faster} |")
        lim = limits.setdefault((op, t), [0, True])
        if lim[1] and a < b:
            lim[0] = n
        elif a >= b:
            lim[1] = False
    print("\n| op | type | one-block faster up to n | bytes per array |\n|---|---|---:|---:|")
    for (op, t), (n, _) in sorted(limits.items()):
        print(f"| {op} | {t} | {n} | {n * ELEMENT_BYTES.get(t, 0)} |")


if __name__ == "__main__":
    main()
