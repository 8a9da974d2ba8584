#!/usr/bin/env python3
"""PyTorch's and CuPy's axis and segmented reductions on the shapes of `gpureduce bench --axis`.

Same shapes, types and operators as the CLI's sweep (rows and columns of every width, the 3-D
middle axis, ragged segments through torch.segment_reduce), timed as the CLI times: CUDA events,
L2 flushed by a 512 MB memset before each sample, warm-up first, median of --reps. Rows as the
CLI's JSON (variant "torch" or "cupy"), written to --json. Needs a GPU, torch; CuPy if present.

  python3 tools/axis_frameworks.py --json bench/results/NVIDIA_H200_axis_frameworks.json
"""
import argparse
import datetime
import json
import math
import random
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="2^26,2^28", help="elements per input (default 2^26,2^28)")
    ap.add_argument("--types", default="float32,bfloat16,int32")
    ap.add_argument("--ops", default="sum,max,argmax")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("axis_frameworks.py: error: needs torch")
    if not torch.cuda.is_available():
        sys.exit("axis_frameworks.py: error: no CUDA device")
    try:
        import cupy
    except ImportError:
        cupy = None

    flush = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")

    def timed(f):
        for _ in range(3):
            f()
        ms = []
        # Calls of 2 ms or more (CuPy's columns, torch's short segments): 7 samples, not reps.
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        f()
        end.record()
        end.synchronize()
        reps = args.reps if start.elapsed_time(end) < 2 else min(args.reps, 7)
        for i in range(reps):
            flush.fill_(i & 0xFF)
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            f()
            b.record()
            b.synchronize()
            ms.append(a.elapsed_time(b))
        ms.sort()
        return ms[len(ms) // 2], ms[0], ms[-1]

    dtypes = {"float32": torch.float32, "bfloat16": torch.bfloat16, "int32": torch.int32}
    rows = []
    for total in [int(eval(x.replace("^", "**"))) for x in args.n.split(",")]:
        for tname in args.types.split(","):
            dt = dtypes[tname]
            g = torch.Generator(device="cuda").manual_seed(42)
            if dt.is_floating_point:
                x = (torch.rand(total, device="cuda", generator=g) * 2 - 1).to(dt)
            else:
                x = torch.randint(-100, 101, (total,), device="cuda", dtype=dt, generator=g)
            cx = cupy.asarray(x) if cupy is not None and dt != torch.bfloat16 else None
            widths = [1, 2, 3, 4, 8, 16, 32, 100, 256, 1024, 4096, 1 << 16, 1 << 20, total]
            cases = [([total // c, c], 1) for c in widths]
            cases += [([total // c, c], 0) for c in [2, 3, 4, 8, 16, 32, 256, 4096, 1 << 16]]
            cases.append(([total // (4096 * 4), 4096, 4], 1))
            for shape, axis in cases:
                n = math.prod(shape)
                view = x[:n].view(*shape)
                cview = cx[:n].reshape(shape) if cx is not None else None
                for op in args.ops.split(","):
                    tf = {"sum": lambda: view.sum(dim=axis), "max": lambda: view.amax(dim=axis),
                          "argmax": lambda: view.argmax(dim=axis)}[op]
                    out = tf()
                    record(rows, "torch", tname, op, shape, axis, None, n * x.element_size(),
                           out.numel() * out.element_size(), timed(tf))
                    if cview is not None:
                        cf = {"sum": lambda: cview.sum(axis=axis), "max": lambda: cview.max(axis=axis),
                              "argmax": lambda: cview.argmax(axis=axis)}[op]
                        out = cf()
                        record(rows, "cupy", tname, op, shape, axis, None, n * x.element_size(),
                               out.size * out.itemsize, timed(cf))
            # Ragged segments, lengths log-uniform in [1, longest], as the CLI's.
            if dt.is_floating_point:
                for longest in [8, 64, 1024, 16384, 1 << 20]:
                    rng = random.Random(42 + longest)
                    lengths, s = [], 0
                    while s < total:
                        l = max(1, int(math.exp(rng.uniform(0, math.log(longest + 1)))))
                        l = min(l, total - s)
                        lengths.append(l)
                        s += l
                    lt = torch.tensor(lengths, device="cuda")
                    for op, red in [("sum", "sum"), ("max", "max")]:
                        if op not in args.ops.split(","):
                            continue
                        f = lambda: torch.segment_reduce(x, red, lengths=lt)
                        record(rows, "torch", tname, op, [total], None, (len(lengths), total / len(lengths)),
                               total * x.element_size(), len(lengths) * x.element_size(), timed(f))
            print(f"{tname} 2^{int(math.log2(total))}: {len(rows)} rows", file=sys.stderr)
            save(args.json, rows, torch, cupy, args.reps)  # so far, should the run be cut short
    for r in rows:
        print(f"{r['variant']:6} {r['type']:9} {r['op']:6} {str(r['shape']):24} "
              f"{r.get('axes', r.get('segments'))!s:10} {r['median_ms']:9.4f} ms {r['gbps']:8.1f} GB/s")
    save(args.json, rows, torch, cupy, args.reps)


def save(path, rows, torch, cupy, reps):
    if not path:
        return
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    with open(path, "w") as f:
        json.dump({"tool": "tools/axis_frameworks.py", "device": torch.cuda.get_device_name(),
                   "torch": torch.__version__, "cupy": cupy.__version__ if cupy else None,
                   "commit": commit, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                   "config": {"reps": reps, "timing": "CUDA events, 512 MB memset before each sample, "
                              "3 warm-up calls, median (7 samples for calls of 2 ms or more)"},
                   "rows": rows}, f, indent=1)


def record(rows, variant, tname, op, shape, axis, segments, in_bytes, out_bytes, t):
    r = {"variant": variant, "type": tname, "op": op, "shape": shape}
    if segments is None:
        r["axes"] = [axis]
    else:
        r["segments"], r["mean_segment"] = segments
    r.update({"bytes": in_bytes + out_bytes, "median_ms": t[0], "min_ms": t[1], "max_ms": t[2],
              "gbps": (in_bytes + out_bytes) / (t[0] * 1e6)})
    rows.append(r)


if __name__ == "__main__":
    main()
