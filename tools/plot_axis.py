#!/usr/bin/env python3
"""Draws throughput against row length from a `gpureduce bench --axis` file (and, where given, the
torch and CuPy rows of tools/axis_frameworks.py): one panel per operator for rows (the last axis)
and one for columns (axis 0), one line per library, at the file's largest input of one type, with
the floor's throughput (input at the read ceiling plus results at the write ceiling) dotted.
Saves a PNG beside the first JSON.
usage: tools/plot_axis.py AXIS.json [FRAMEWORKS.json] [--type float32] [--out OUT.png]"""
import argparse
import json
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLES = {"gpureduce": ("tab:blue", "-"), "gpureduce-exact": ("tab:blue", ":"), "cub": ("tab:orange", "--"),
          "torch": ("tab:red", "-."), "cupy": ("tab:green", "-.")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("axis_json")
    ap.add_argument("frameworks_json", nargs="?")
    ap.add_argument("--type", default="float32")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    src = Path(args.axis_json)
    data = json.loads(src.read_text())
    rows = [r for r in data["rows"] if r["type"] == args.type and "axes" in r and len(r["shape"]) == 2]
    if args.frameworks_json:
        rows += [r for r in json.loads(Path(args.frameworks_json).read_text())["rows"]
                 if r["type"] == args.type and "axes" in r and len(r["shape"]) == 2]
    n = max(math.prod(r["shape"]) for r in rows)
    rows = [r for r in rows if math.prod(r["shape"]) in (n, n - n % r["shape"][-1])]
    ops = list(dict.fromkeys(r["op"] for r in rows))
    fig, axes = plt.subplots(2, len(ops), figsize=(6 * len(ops), 9), squeeze=False)
    for col, op in enumerate(ops):
        for row, (axis, label) in enumerate(((1, "rows (last axis)"), (0, "columns (axis 0)"))):
            ax = axes[row][col]
            mine = [r for r in rows if r["op"] == op and r["axes"][0] in (axis, axis - 2)]
            length = (lambda r: r["shape"][1]) if axis == 1 else (lambda r: r["shape"][0])
            for variant, (color, style) in STYLES.items():
                pts = sorted((length(r), r["gbps"]) for r in mine if r["variant"] == variant)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=color, marker="o", ms=3,
                            label=variant)
            floor = sorted((length(r), r["bytes"] / (r["floor_ms"] * 1e6)) for r in mine if r["variant"] == "gpureduce")
            ax.plot([p[0] for p in floor], [p[1] for p in floor], ":", color="grey", lw=1, label="floor")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("reduced length (elements)")
            ax.set_ylabel("GB/s (input + result bytes / median time)")
            ax.set_title(f"{op}, {label}")
            ax.grid(True, which="both", alpha=0.3)
    axes[0][-1].legend(fontsize=8)
    d = data["device"]
    fig.suptitle(f"{args.type}, {n:,} elements; {d['name']}, commit {data['commit'][:12]}, {data['date'][:10]}")
    fig.tight_layout()
    dst = Path(args.out) if args.out else src.with_suffix(".png")
    fig.savefig(dst, dpi=110)
    print(dst)


if __name__ == "__main__":
    main()
