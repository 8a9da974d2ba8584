#!/usr/bin/env python3
"""Compares two builds' record_probe rounds (tools/probes/record_probe.cu, run alternately).

usage: records_ab.py BASE_ROUND.txt... -- NEW_ROUND.txt...

Round i of the base is paired with round i of the new build. Per row (record and size): the new
time over the base's in each round, and CUB's time over gpureduce's, base -> new, in each round.
Rows where the new time is off the base's by more than --mark (default 0.02) in every round are
marked '<<' (faster) or '>>' (slower). Exits 1 where a result differs from CUB's in any round.
"""
import argparse
import re
import sys

ROW = re.compile(r"^\| (.+?) \| (\S+) \| ([\d.]+) \| ([\d.]+) \| [\d.]+ \| \d+ \| (\w+) \|")


def load(path):
    rows = {}
    with open(path) as f:
        for line in f:
            m = ROW.match(line)
            if m:
                rows[(m.group(1), m.group(2))] = (float(m.group(3)), float(m.group(4)), m.group(5) == "yes")
    if not rows:
        sys.exit(f"records_ab: no record_probe rows in {path}")
    return rows


def span(values):
    lo, hi = min(values), max(values)
    return f"{lo:.3f}" if f"{lo:.3f}" == f"{hi:.3f}" else f"{lo:.3f}-{hi:.3f}"


def main():
    if "--" not in sys.argv[1:]:
        sys.exit(__doc__)
    cut = sys.argv.index("--")
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mark", type=float, default=0.02)
    parser.add_argument("base", nargs="+")
    base_args = parser.parse_args(sys.argv[1:cut])
    new_paths = sys.argv[cut + 1:]
    if len(new_paths) != len(base_args.base):
        sys.exit("records_ab: as many new rounds as base rounds")
    rounds = [(load(b), load(n)) for b, n in zip(base_args.base, new_paths)]
    print("| record | n | new / base | CUB / ours, base -> new |")
    print("|---|---:|---:|---:|")
    differ = []
    for key in rounds[0][1]:
        if not all(key in b and key in n for b, n in rounds):
            continue
        times = [n[key][0] / b[key][0] for b, n in rounds]
        before = [b[key][1] / b[key][0] for b, _ in rounds]
        after = [n[key][1] / n[key][0] for _, n in rounds]
        if not all(b[key][2] and n[key][2] for b, n in rounds):
            differ.append(key)
        mark = " <<" if max(times) < 1 - base_args.mark else " >>" if min(times) > 1 + base_args.mark else ""
        print(f"| {key[0]} | {key[1]} | {span(times)}{mark} | {span(before)} -> {span(after)} |")
    for name, n in differ:
        print(f"records_ab: {name} at {n}: a result differs from CUB's", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
