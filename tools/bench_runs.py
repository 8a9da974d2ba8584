"""Loading `gpureduce bench --json` runs for the scripts that compare two sets of them
(ab_summary.py and ab_axis_summary.py: two builds; tune_summary.py: two kernels forced)."""
import json
import statistics
import sys


def load(paths):
    """Per (op, type, n, variant), the median microseconds of every run; and the runs."""
    rows, runs = {}, []
    for p in paths:
        d = json.load(open(p))
        runs.append(d)
        for r in d["rows"]:
            rows.setdefault((r["op"], r["type"], r["n"], r["variant"]), []).append(r["median_ms"] * 1000)
    return rows, runs


def axis_case(r):
    """A `gpureduce bench --axis` row's case: its shape and axes, or its segments' mean length."""
    if "mean_segment" in r:
        return f"ragged, mean {r['mean_segment']:.0f}"
    return " x ".join(str(e) for e in r["shape"]) + ", axes " + ",".join(str(a) for a in r["axes"])


def load_axis(paths):
    """Per (op, type, case, variant) of `--axis` runs, the median microseconds of every run, and
    per (op, type, case) the floor in microseconds; and the runs."""
    rows, floors, runs = {}, {}, []
    for p in paths:
        d = json.load(open(p))
        runs.append(d)
        for r in d["rows"]:
            case = axis_case(r)
            rows.setdefault((r["op"], r["type"], case, r["variant"]), []).append(r["median_ms"] * 1000)
            floors[(r["op"], r["type"], case)] = r["floor_ms"] * 1000
    return rows, floors, runs


def load_two_sides(argv, usage, loader=load):
    """FIRST.json... -- SECOND.json... from argv: both sides loaded by `loader`, or exit with `usage`."""
    if "--" not in argv:
        sys.exit(usage)
    cut = argv.index("--")
    return loader(argv[1:cut]), loader(argv[cut + 1 :])


def device_line(run):
    """GPU name and driver of a run, for a summary's heading."""
    return f"{run['device']['name']}, driver {run['device']['driver']}"


def table_head(*columns):
    """A Markdown table's first two lines; the op, type and `faster` columns align left."""
    align = ["---" if c in ("op", "type", "faster") else "---:" for c in columns]
    return "| " + " | ".join(columns) + " |\n|" + "|".join(align) + "|"


def print_ratios_and_unverified(ratios, runs):
    """A comparison's last lines: new/base over its rows, and the rows of any run not verified."""
    if ratios:
        print(f"\nnew/base over {len(ratios)} rows: median {statistics.median(ratios):.3f}, "
              f"min {min(ratios):.3f}, max {max(ratios):.3f}")
    unverified = sum(not r.get("verified", True) for run in runs for r in run["rows"])
    print(f"rows not verified: {unverified}")
