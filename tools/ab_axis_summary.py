#!/usr/bin/env python3
"""Compares two builds' `gpureduce bench --axis --json` runs of the same cases (tools/device-run ab
with AB_AXIS set).

usage: ab_axis_summary.py BASE.json... -- NEW.json...

Per gpureduce row (operator, type, and the shape and axes or the segments' mean length): the
median over the runs of each side's median time, the floor (the case's bytes at the ceilings the
run measured), new/base and the share of the floor each side reaches. Rows where new and base
differ by less than the spread between a side's own runs are marked '~'. The last line counts the
rows whose result did not match its reference (`verified`), on either side.
"""
import statistics
import sys

from bench_runs import device_line, load_axis, load_two_sides, print_ratios_and_unverified, table_head


def compare(base, new, floors):
    """(op, type, case, base us, new us, floor us, new/base, marked '~') per gpureduce row in both."""
    out = []
    for key in sorted(k for k in new if k[3] == "gpureduce"):
        op, t, case, _ = key
        b, w = base.get(key), new[key]
        if not b:
            continue
        mb, mw = statistics.median(b), statistics.median(w)
        spread = max(max(b) - min(b), max(w) - min(w))
        out.append((op, t, case, mb, mw, floors[(op, t, case)], mw / mb, abs(mw - mb) <= spread))
    return out


def main():
    (base, _, base_runs), (new, floors, new_runs) = load_two_sides(sys.argv, __doc__, load_axis)
    d = new_runs[0]
    print(f"# base {base_runs[0]['commit']} ({len(base_runs)} runs) against new {d['commit']} ({len(new_runs)} runs), "
          f"alternating; {device_line(d)}, {d['date']}")
    print(table_head("op", "type", "case", "base us", "new us", "floor us", "new/base", "base % floor",
                     "new % floor"))
    rows = compare(base, new, floors)
    for op, t, case, mb, mw, fl, ratio, same in rows:
        print(f"| {op} | {t} | {case} | {mb:.1f} | {mw:.1f} | {fl:.1f} | {ratio:.3f}{'~' if same else ''} | "
              f"{100 * fl / mb:.0f} | {100 * fl / mw:.0f} |")
    print_ratios_and_unverified([r[6] for r in rows], base_runs + new_runs)


if __name__ == "__main__":
    main()
