#!/usr/bin/env python3
"""Compares two builds' `gpureduce bench --json` runs of the same sizes (tools/device-run ab).

usage: ab_summary.py BASE.json... -- NEW.json...

Per row: the median over the runs of each side's median time, CUB's (from every run), new/base and
CUB/new. Rows where new and base differ by less than the spread between a side's own runs are
marked '~'. Runs of `--mode exact` compare the exact sums, with the plain sum in CUB's place. The
last line counts the rows whose result did not match its reference (`verified`), on either side.
"""
import statistics
import sys

from bench_runs import device_line, load_two_sides, print_ratios_and_unverified, table_head


def main():
    (base, base_runs), (new, new_runs) = load_two_sides(sys.argv, __doc__)
    d = new_runs[0]
    exact = d["config"].get("mode") == "exact"
    ours, ref = ("gpureduce-exact", "gpureduce") if exact else ("gpureduce", "cub")
    print(f"# base {base_runs[0]['commit']} ({len(base_runs)} runs) against new {d['commit']} ({len(new_runs)} runs), "
          f"alternating; {device_line(d)}, {d['date']}")
    ref_name = "plain" if exact else "CUB"
    print(table_head("op", "type", "n", "base us", "new us", f"{ref_name} us", "new/base", f"{ref_name}/new"))
    ratios = []
    for key in sorted(k for k in new if k[3] == ours):
        op, t, n, _ = key
        b, w = base.get(key), new[key]
        cub = base.get((op, t, n, ref), []) + new.get((op, t, n, ref), [])
        if not b or not cub:
            continue
        mb, mw, mc = statistics.median(b), statistics.median(w), statistics.median(cub)
        spread = max(max(b) - min(b), max(w) - min(w))
        mark = "~" if abs(mw - mb) <= spread else ""
        ratios.append(mw / mb)
        print(f"| {op} | {t} | {n} | {mb:.2f} | {mw:.2f} | {mc:.2f} | {mw / mb:.3f}{mark} | {mc / mw:.2f} |")
    print_ratios_and_unverified(ratios, base_runs + new_runs)


if __name__ == "__main__":
    main()
