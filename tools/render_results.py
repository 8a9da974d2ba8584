#!/usr/bin/env python3
"""Writes the measured tables into the Markdown docs from the JSON under bench/results/, so that no
figure in README.md or docs/ is typed by hand. A block

    <!-- results: bench/results/FILE.json n=16777216 -->
    ...
    <!-- /results -->

becomes the ladder table for that n; `sweep=r9,cub` instead gives median microseconds per n for
those variants. --check exits 1 when a document is out of date (CTest runs this).
usage: tools/render_results.py [--check] DOC.md..."""
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"(<!-- results: (\S+) (\w+)=(\S+) -->\n)(.*?)(<!-- /results -->)", re.S)


def is_rung(name):
    return re.fullmatch(r"r\d+", name) is not None


def ladder_table(data, n):
    rows = [r for r in data["rows"] if r["n"] == n]
    if not rows:
        raise SystemExit(f"no rows with n={n}")
    d = data["device"]
    out = [f"{rows[0]['type']} sum, n = {n:,}; {d['name']}, driver {d['driver']}; measured read ceiling "
           f"{d['measured_read_gbps']:.0f} GB/s; commit {data['commit'][:10]}, {data['date'][:10]}", "",
           "| variant | adds | median (us) | GB/s | % of ceiling | step | vs r0 | verified |",
           "|---|---|---:|---:|---:|---:|---:|---|"]
    r0 = prev = None
    for r in rows:
        ms = r["median_ms"]
        if r["variant"] == "r0":
            r0 = ms
        step = f"{prev / ms:.2f}x" if is_rung(r["variant"]) and prev else ""
        if is_rung(r["variant"]):
            prev = ms
        vs = f"{r0 / ms:.2f}x" if r0 else ""
        adds = r["adds"].replace("|", "\\|")
        out.append(f"| {r['variant']} | {adds} | {ms * 1e3:.1f} | {r['gbps']:.0f} | {r['pct_peak']:.1f} | {step} | {vs} | "
                   f"{'yes' if r['verified'] else 'NO'} |")
    return "\n".join(out) + "\n"


def sweep_table(data, variants):
    ns = sorted({r["n"] for r in data["rows"]})
    t = {(r["variant"], r["n"]): r["median_ms"] for r in data["rows"]}
    out = [f"{data['rows'][0]['type']} sum, median microseconds; {data['device']['name']}; commit "
           f"{data['commit'][:10]}, {data['date'][:10]}", "",
           "| n | " + " | ".join(variants) + " | " + variants[0] + " / " + variants[1] + " |",
           "|---:|" + "---:|" * (len(variants) + 1)]
    for n in ns:
        cells = [f"{t[(v, n)] * 1e3:.1f}" for v in variants]
        ratio = t[(variants[0], n)] / t[(variants[1], n)]
        out.append(f"| 2^{n.bit_length() - 1} | " + " | ".join(cells) + f" | {ratio:.2f} |")
    return "\n".join(out) + "\n"


def render(text):
    def sub(m):
        data = json.loads((ROOT / m.group(2)).read_text())
        kind, arg = m.group(3), m.group(4)
        body = ladder_table(data, int(arg)) if kind == "n" else sweep_table(data, arg.split(","))
        return m.group(1) + body + m.group(6)
    return BLOCK.sub(sub, text)


def main():
    args = sys.argv[1:]
    check = "--check" in args
    stale = []
    for doc in (Path(a) for a in args if a != "--check"):
        old = doc.read_text()
        new = render(old)
        if new != old:
            stale.append(str(doc))
            if not check:
                doc.write_text(new)
    if check and stale:
        print("out of date (run tools/render_results.py):", *stale)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
