#!/usr/bin/env python3
"""Draws GB/s against n for every variant of a `gpureduce ladder --sweep --json` file, with the
measured streaming-read ceiling, and saves it as a PNG beside the JSON.
usage: tools/plot_sweep.py RESULTS.json [OUT.png]"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    src = Path(sys.argv[1])
    dst = Path(sys.argv[2]) if len(sys.argv) > 2 else src.with_suffix(".png")
    data = json.loads(src.read_text())
    series = {}
    for row in data["rows"]:
        series.setdefault(row["variant"], []).append((row["n"], row["gbps"]))
    times = {}
    for row in data["rows"]:
        times.setdefault(row["variant"], []).append((row["n"], row["median_ms"] * 1e3))
    fig, (ax, ax_t) = plt.subplots(1, 2, figsize=(15, 6))
    for i, name in enumerate(series):
        style = "-" if name.startswith("r") else "--"
        for a, pts in ((ax, sorted(series[name])), (ax_t, sorted(times[name]))):
            a.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", ms=3, label=name,
                   color=plt.cm.tab20(i % 20))
    ax_t.set_xscale("log", base=2)
    ax_t.set_yscale("log")
    ax_t.set_xlabel("n (elements)")
    ax_t.set_ylabel("median time (us), log scale")
    ax_t.grid(True, which="both", alpha=0.3)
    peak = data["device"]["measured_read_gbps"]
    ax.axhline(peak, color="black", lw=0.8, ls=":", label=f"measured read ceiling {peak:.0f} GB/s")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("n (elements)")
    ax.set_ylabel("GB/s (n x element size / median time)")
    types = sorted({r["type"] for r in data["rows"]})
    ax.set_title(f"gpureduce ladder, {'/'.join(types)} sum, {data['device']['name']} "
                 f"(commit {data['commit'][:10]}, {data['date'][:10]})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(ncol=2, fontsize=8)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    print(dst)


if __name__ == "__main__":
    main()
