#!/usr/bin/env python3
"""Draws throughput against n for gpureduce and CUB from a `gpureduce bench --json` file: one panel
per operator, one colour per element type (solid gpureduce, dashed CUB), with the measured
streaming-read ceiling. Saves a PNG beside the JSON.
usage: tools/plot_bench.py RESULTS.json [OUT.png]"""
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
    ops = list(dict.fromkeys(r["op"] for r in data["rows"]))
    types = list(dict.fromkeys(r["type"] for r in data["rows"]))
    fig, axes = plt.subplots(1, len(ops), figsize=(7 * len(ops), 6), squeeze=False)
    ceiling = data["device"]["measured_read_gbps"]
    for ax, op in zip(axes[0], ops):
        for i, t in enumerate(types):
            for variant, style in (("gpureduce", "-"), ("cub", "--")):
                pts = sorted((r["n"], r["gbps"]) for r in data["rows"]
                             if r["op"] == op and r["type"] == t and r["variant"] == variant)
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", ms=3,
                        color=plt.cm.tab10(i), label=f"{t} {variant}")
        ax.axhline(ceiling, color="grey", lw=1, ls=":", label=f"streaming read {ceiling:.0f} GB/s")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n (elements)")
        ax.set_ylabel("GB/s (input bytes / median time)")
        ax.set_title(f"{op}: gpureduce (solid) vs CUB (dashed)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][-1].legend(fontsize=7, ncol=2)
    fig.suptitle(f"{data['device']['name']}, commit {data['commit'][:12]}, {data['date']}")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    print(dst)


if __name__ == "__main__":
    main()
