#!/usr/bin/env python3
"""Writes the measured tables into the Markdown docs from the JSON under bench/results/, so that no
figure in README.md or docs/ is typed by hand. A block

    <!-- results: bench/results/FILE.json n=16777216 -->
    ...
    <!-- /results -->

becomes the ladder table for that n; `sweep=r9,cub` instead gives median microseconds per n for
those variants. From a `gpureduce bench` file, `speedup=OP` gives CUB's time over gpureduce's per n
and element type for that operator, `headline=OP:TYPE,TYPE;OP:TYPE@N,N` a few operators' ratios at
a few sizes, and `detail=OP:TYPE,TYPE` the times, ratio and % of the read ceiling. From a
`gpureduce bench --mode exact` file, `exact=TYPE,TYPE` gives the exact and plain sums' times and
their throughput ratio, and `accuracy=float32` its ill-conditioned example. From a
`gpureduce matmul` file, `matmul=N` gives the rung table at that N. From a `gpureduce bench --axis`
file, `axis=TYPE@N` gives each shape's time per operator against its floor and CUB's, and the
batch-invariant and exact sums' against the sum's. From a `gpureduce_nccl_bench` file, `nccl=RANKS` gives the
distributed sums' times at that count of GPUs against NCCL's all-reduce. From a
`python -m gpureduce.bench` file, `python=TYPE` gives gpureduce's times from Python against torch's
and CuPy's. `example=NAME` copies a marked snippet from a source file (so
README examples compile and run as tests). --check exits 1 when a document is out of date (CTest
runs this).
usage: tools/render_results.py [--check] DOC.md..."""
import json
import math
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


def bench_rows(data, op):
    rows = {}
    for r in data["rows"]:
        if r["op"] == op:
            rows.setdefault((r["type"], r["n"]), {})[r["variant"]] = r
    return rows


def bench_caption(data, what):
    d = data["device"]
    return (f"{what}; {d['name']}, driver {d['driver']}; measured read ceiling {d['measured_read_gbps']:.0f} GB/s; "
            f"commit {data['commit'][:10]}, {data['date'][:10]}")


def speedup_table(data, op):
    rows = bench_rows(data, op)
    types = list(dict.fromkeys(t for t, _ in rows))
    ns = sorted({n for _, n in rows})
    out = [bench_caption(data, f"{op}: CUB time / gpureduce time (above 1: gpureduce faster)"), "",
           "| n | " + " | ".join(types) + " |", "|---:|" + "---:|" * len(types)]
    for n in ns:
        cells = []
        for t in types:
            v = rows.get((t, n))
            ok = v and v["gpureduce"]["verified"]
            cells.append(f"{v['cub']['median_ms'] / v['gpureduce']['median_ms']:.2f}" + ("" if ok else " (NO)") if v else "")
        out.append(f"| 2^{n.bit_length() - 1} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def detail_table(data, arg):
    op, types = arg.split(":")
    rows = bench_rows(data, op)
    out = [bench_caption(data, f"{op}, median microseconds"), "",
           "| n | type | gpureduce | CUB | CUB / gpureduce | gpureduce GB/s | % of ceiling |",
           "|---:|---|---:|---:|---:|---:|---:|"]
    for n in sorted({n for _, n in rows}):
        for t in types.split(","):
            v = rows.get((t, n))
            if not v:
                continue
            g, c = v["gpureduce"], v["cub"]
            out.append(f"| 2^{n.bit_length() - 1} | {t} | {g['median_ms'] * 1e3:.1f} | {c['median_ms'] * 1e3:.1f} | "
                       f"{c['median_ms'] / g['median_ms']:.2f} | {g['gbps']:.0f} | {g['pct_peak']:.1f} |")
    return "\n".join(out) + "\n"


def headline_table(data, arg):
    """`headline=OP:TYPE,...;...@N,N`: per operator and type, CUB's time over gpureduce's at each n,
    the two medians beside it, and gpureduce's % of the read ceiling at the largest n."""
    pairs, sizes = arg.split("@")
    ns = [int(eval(n.replace("^", "**"))) for n in sizes.split(",")]
    out = [bench_caption(data, "CUB time / gpureduce time (median microseconds, gpureduce vs CUB)"), "",
           "| operation | " + " | ".join(f"n = 2^{n.bit_length() - 1}" for n in ns) + " | % of read ceiling |",
           "|---|" + "---:|" * (len(ns) + 1)]
    for group in pairs.split(";"):
        op, types = group.split(":")
        rows = bench_rows(data, op)
        for t in types.split(","):
            cells = []
            for n in ns:
                g, c = rows[(t, n)]["gpureduce"], rows[(t, n)]["cub"]
                cells.append(f"{c['median_ms'] / g['median_ms']:.2f}x ({g['median_ms'] * 1e3:.1f} vs "
                             f"{c['median_ms'] * 1e3:.1f})" + ("" if g["verified"] else " NO"))
            out.append(f"| {t} {op} | " + " | ".join(cells) + f" | {rows[(t, ns[-1])]['gpureduce']['pct_peak']:.0f}% |")
    return "\n".join(out) + "\n"


def exact_table(data, types):
    rows = bench_rows(data, "sum")
    g2g = any("cub-gpu_to_gpu" in v for v in rows.values())
    head = "| n | type | exact | plain | exact / plain throughput | exact GB/s | % of ceiling | bits = host |"
    out = [bench_caption(data, "sum, median microseconds: exact (rounded once) against plain"
                         + (" and CUB's gpu_to_gpu reproducible sum" if g2g else "")), "",
           head + (" CUB gpu_to_gpu | exact / gpu_to_gpu throughput |" if g2g else ""),
           "|---:|---|---:|---:|---:|---:|---:|---|" + ("---:|---:|" if g2g else "")]
    for n in sorted({n for _, n in rows}):
        for t in types.split(","):
            v = rows.get((t, n))
            if not v:
                continue
            e, p = v["gpureduce-exact"], v["gpureduce"]
            line = (f"| 2^{n.bit_length() - 1} | {t} | {e['median_ms'] * 1e3:.1f} | {p['median_ms'] * 1e3:.1f} | "
                    f"{p['median_ms'] / e['median_ms']:.2f} | {e['gbps']:.0f} | {e['pct_peak']:.1f} | "
                    f"{'yes' if e['verified'] else 'NO'} |")
            if g2g:
                c = v.get("cub-gpu_to_gpu")
                line += (f" {c['median_ms'] * 1e3:.1f} | {c['median_ms'] / e['median_ms']:.2f} |" if c else " | |")
            out.append(line)
    return "\n".join(out) + "\n"


def accuracy_table(data, _):
    a = data["accuracy"]
    ref = a["reference"]

    def rel(v):
        return f"{abs(v - ref) / abs(ref):.1e}"
    return "\n".join([
        f"float32, n = {a['n']:,}: cancelling pairs of values up to 1e8 among values in [0, 1), shuffled; "
        f"{data['device']['name']}, commit {data['commit'][:10]}", "",
        "| sum | value | relative error |", "|---|---:|---:|",
        f"| exact, rounded once to double (host) | {ref:.17g} | 0 |",
        f"| gpureduce sum into a float accumulator | {a['plain_float']:.9g} | {rel(a['plain_float'])} |",
        f"| double, left to right (host) | {a['host_double']:.17g} | {rel(a['host_double'])} |",
        f"| gpureduce exact sum, float | {a['exact_float']:.9g} | {rel(a['exact_float'])} |"]) + "\n"


def matmul_table(data, n):
    rows = [r for r in data["rows"] if r["n"] == int(n)]
    d = data["device"]
    out = [f"int32 C = A x A, N = {int(n):,}; {d['name']}, driver {d['driver']}; commit {data['commit'][:10]}, "
           f"{data['date'][:10]}", "",
           "| variant | adds | median (ms) | GOP/s | step | vs m2 | verified | note |",
           "|---|---|---:|---:|---:|---:|---|---|"]
    prev = m2 = None
    for r in rows:
        ms = r["median_ms"]
        ran = ms > 0
        rung = r["variant"].startswith("m")
        if r["variant"] == "m2" and ran:
            m2 = ms
        step = f"{prev / ms:.2f}x" if rung and ran and prev else ""
        if rung and ran:
            prev = ms
        vs = f"{m2 / ms:.2f}x" if ran and m2 else ""
        out.append(f"| {r['variant']} | {r['adds']} | {ms:.3f} | {r['gops']:.0f} | {step} | {vs} | "
                   f"{'yes' if r['verified'] else 'NO'} | {r['note']} |" if ran else
                   f"| {r['variant']} | {r['adds']} | - | - | | | - | {r['note']} |")
    return "\n".join(out) + "\n"


def axis_table(data, arg):
    t, n = arg.split("@")
    n = int(n)
    ops = ["sum", "max", "argmax"]
    rows = {}
    for r in data["rows"]:
        if r["type"] != t or math.prod(r["shape"]) not in (n, n - n % r["shape"][-1]):
            continue
        if "segments" in r:
            key = (f"ragged, mean {r['mean_segment']:.0f}", f"{r['segments']:,} segments")
        else:
            key = (" x ".join(str(e) for e in r["shape"]), f"axis {r['axes'][0]}")
        rows.setdefault(key, {}).setdefault(r["op"], {})[r["variant"]] = r
    d = data["device"]
    out = [f"{t}, {n:,} elements (2^{n.bit_length() - 1}); median microseconds, % of the floor (input at "
           f"{data['read_ceiling_gbps']:.0f} GB/s read plus results at {data['write_ceiling_gbps']:.0f} GB/s "
           f"written), and CUB DeviceSegmentedReduce's time over gpureduce's where it applies; {d['name']}, "
           f"commit {data['commit'][:10]}, {data['date'][:10]}", "",
           "| shape | reduced | " + " | ".join(ops) + " |", "|---|---|" + "---:|" * len(ops)]
    # The batch-invariant and exact sums' times, and their throughput over the plain sum's.
    extra = [(name, variant) for name, variant in (("invariant sum", "gpureduce-invariant"),
                                                    ("exact sum", "gpureduce-exact"))
             if any(variant in ops_of.get("sum", {}) for ops_of in rows.values())]
    for name, _ in extra:
        out[-2] += f" {name} |"
        out[-1] += "---:|"
    for (shape, reduced), v in rows.items():
        cells = []
        for op in ops:
            g = v.get(op, {}).get("gpureduce")
            c = v.get(op, {}).get("cub")
            if not g:
                cells.append("")
                continue
            cell = f"{g['median_ms'] * 1e3:.1f} ({100 * g['floor_ms'] / g['median_ms']:.0f}%)"
            if c:
                cell += f", CUB {c['median_ms'] / g['median_ms']:.2f}x"
            cells.append(cell + ("" if g["verified"] else " NO"))
        for _, variant in extra:
            e, g = v.get("sum", {}).get(variant), v.get("sum", {}).get("gpureduce")
            cells.append(f"{e['median_ms'] * 1e3:.1f} ({g['median_ms'] / e['median_ms']:.2f}x)"
                         + ("" if e["verified"] else " NO") if e and g else "")
        out.append(f"| {shape} | {reduced} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def nccl_table(data, arg):
    k = int(arg)
    t = {}
    for r in data["rows"]:
        if r["ranks"] == k:
            t.setdefault(r["elements"], {})[r["variant"]] = r["median_us"]
    v = data["nccl_version"]
    out = [f"float32 over {k} GPU{'s' if k > 1 else ''} ({data['gpu']}, NCCL {v // 10000}.{v // 100 % 100}.{v % 100}), median "
           f"microseconds of the slowest rank, L2 flushed; the sum against the local sum plus an all-reduce of "
           f"one float, the exact sum against the sum; commit {data['commit'][:10]}, {data['date'][:10]}", "",
           "| elements in all | all-reduce of 1 float | local sum | local sum + all-reduce | nccl::sum | "
           "vs local + all-reduce of 1 | nccl::exact_sum | exact vs sum |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n, v in sorted(t.items()):
        ar, loc, both = v["nccl_allreduce_1_float"], v["local_sum"], v["local_sum+nccl_allreduce"]
        s, e = v["gpureduce_nccl_sum"], v["gpureduce_nccl_exact_sum"]
        out.append(f"| 2^{n.bit_length() - 1} | {ar:.1f} | {loc:.1f} | {both:.1f} | {s:.1f} | {s / (loc + ar):.2f}x "
                   f"| {e:.1f} | {e / s:.2f}x |")
    return "\n".join(out) + "\n"


def python_table(data, t):
    """A python -m gpureduce.bench file: per case, gpureduce's median time and torch's and CuPy's over it."""
    ops = ["sum", "max", "argmax"]
    rows, host = {}, {}
    for r in data["rows"]:
        if "host_us_per_call" in r:
            host[r["variant"]] = r["host_us_per_call"]
        elif r["type"] == t:
            shape = " x ".join(str(e) for e in r["shape"])
            key = (shape, "all" if r["axes"] is None else f"dim {r['axes'][0]}")
            rows.setdefault(key, {}).setdefault(r["op"], {})[r["variant"]] = r
    out = [f"{t}: gpureduce's median microseconds from Python, and torch's (CuPy's) time over it, L2 flushed; "
           f"{data['device']}, torch {data['torch']}, CuPy {data['cupy']}, commit {data['commit'][:10]}, "
           f"{data['date'][:10]}; host time per call (10,000 back-to-back calls of sum on 2^10 float32): "
           + ", ".join(f"{k} {v:.1f} us" for k, v in host.items()), "",
           "| shape | reduced | " + " | ".join(ops) + " |", "|---|---|" + "---:|" * len(ops)]
    for (shape, reduced), v in rows.items():
        cells = []
        for op in ops:
            g = v.get(op, {}).get("gpureduce")
            if not g:
                cells.append("")
                continue
            others = [f"{v[op][lib]['median_ms'] / g['median_ms']:.2f}x" for lib in ("torch", "cupy") if lib in v[op]]
            cells.append(f"{g['median_ms'] * 1e3:.1f} ({', '.join(others)})" + ("" if g["verified"] else " NO"))
        out.append(f"| {shape} | {reduced} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def example(path, name):
    """The lines between `// [example: NAME]` and `// [/example]` in a test source, dedented."""
    text = path.read_text()
    m = re.search(r"^[ \t]*// \[example: " + re.escape(name) + r"\]\n(.*?)^[ \t]*// \[/example\]", text, re.S | re.M)
    if not m:
        raise SystemExit(f"no example {name} in {path}")
    lines = m.group(1).rstrip("\n").split("\n")
    indent = min(len(l) - len(l.lstrip()) for l in lines if l.strip())
    return "```cpp\n" + "\n".join(l[indent:] for l in lines) + "\n```\n"


def render(text):
    kinds = {"n": lambda d, a: ladder_table(d, int(a)), "sweep": lambda d, a: sweep_table(d, a.split(",")),
             "speedup": speedup_table, "detail": detail_table, "exact": exact_table,
             "accuracy": accuracy_table, "matmul": matmul_table, "headline": headline_table, "axis": axis_table,
             "nccl": nccl_table, "python": python_table}

    def sub(m):
        if m.group(3) == "example":
            return m.group(1) + example(ROOT / m.group(2), m.group(4)) + m.group(6)
        data = json.loads((ROOT / m.group(2)).read_text())
        return m.group(1) + kinds[m.group(3)](data, m.group(4)) + m.group(6)
    return BLOCK.sub(sub, text)


def main():
    args = sys.argv[1:]
    if not args or "-h" in args or "--help" in args:
        print(__doc__, file=sys.stdout if args else sys.stderr)
        return 0 if args else 2
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
