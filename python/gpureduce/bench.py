"""python -m gpureduce.bench: gpureduce against torch and CuPy in one process, on the GPU.

Full reductions (sum, max, argmax) of 2^10..2^30 elements and axis reductions of 2^26 elements
(rows of 2..2^20 reduced along dim -1, columns along dim 0, the middle axis of a 3-D array), for
int32, float32 and bfloat16 (CuPy has no bfloat16). Each sample: the L2 flushed (a 256 MB write),
then the call between CUDA events; the median of --reps samples. Each gpureduce result is checked
against torch's. Host overhead: the wall time of 10,000 back-to-back calls on 2^10 elements, with
no synchronisation between them, and the same calls issued while a spin kernel keeps the GPU busy
(the host's own time, no call waiting for the queue). Writes JSON (--json) with one row per
(library, case)."""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

import gpureduce


def _commit():
    env = os.environ.get("GPUREDUCE_COMMIT")
    if env:
        return env
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m gpureduce.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--reps", type=int, default=20, help="samples per case (default 20)")
    ap.add_argument("--max-log2", type=int, default=30, help="largest full reduction, 2^N elements (default 30)")
    ap.add_argument("--quick", action="store_true", help="a few cases only (a smoke test)")
    args = ap.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("gpureduce.bench: needs torch", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("gpureduce.bench: no CUDA device", file=sys.stderr)
        return 2
    try:
        import cupy
    except ImportError:
        cupy = None

    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def time_ms(f):
        f()  # warm-up
        samples = []
        for _ in range(args.reps):
            flush.fill_(1)
            start.record()
            f()
            stop.record()
            stop.synchronize()
            samples.append(start.elapsed_time(stop))
        return statistics.median(samples)

    types = {"int32": torch.int32, "float32": torch.float32, "bfloat16": torch.bfloat16}
    rows = []

    def data(shape, t):
        g = torch.Generator(device="cuda").manual_seed(7)
        if t == "int32":
            return torch.randint(-1000, 1000, shape, generator=g, device="cuda", dtype=torch.int32)
        return torch.rand(shape, generator=g, device="cuda").to(types[t]) * 2 - 1

    def verify(op, got, ref):
        if op == "sum" and got.is_floating_point():
            return bool(torch.allclose(got.float(), ref.float(), rtol=2e-2 if got.dtype == torch.bfloat16 else 1e-4,
                                       atol=1e-2 * max(1.0, float(ref.float().abs().max()))))
        return bool(torch.equal(got.to(ref.dtype), ref))

    def case(t, op, shape, axes):
        x = data(shape, t)
        dim = None if axes is None else axes[0]
        n = x.numel()
        kept = 1 if axes is None else n // shape[dim]
        out_size = {"sum": 8 if t == "int32" else x.element_size(), "max": x.element_size(), "argmax": 8}[op]
        nbytes = n * x.element_size() + kept * out_size
        g = {"sum": gpureduce.sum, "max": gpureduce.amax, "argmax": gpureduce.argmax}[op]
        tf = {"sum": torch.sum, "max": torch.amax, "argmax": torch.argmax}[op]
        calls = {"gpureduce": (lambda: g(x)) if dim is None else (lambda: g(x, dim)),
                 "torch": (lambda: tf(x)) if dim is None else (lambda: tf(x, dim))}
        ref = calls["torch"]()
        ok = verify(op, calls["gpureduce"](), ref)
        if cupy is not None and t != "bfloat16":
            c = cupy.asarray(x)
            cf = {"sum": cupy.sum, "max": cupy.max, "argmax": cupy.argmax}[op]
            calls["cupy"] = (lambda: cf(c)) if dim is None else (lambda: cf(c, axis=dim))
        for variant, f in calls.items():
            ms = time_ms(f)
            rows.append({"variant": variant, "type": t, "op": op, "shape": list(shape), "axes": axes,
                         "bytes": nbytes, "median_ms": ms, "gbps": nbytes / ms / 1e6,
                         "verified": ok if variant == "gpureduce" else True})
        line = "  ".join(f"{r['variant']} {r['median_ms'] * 1e3:9.1f} us" for r in rows[-len(calls):])
        print(f"{t:9} {op:7} {str(tuple(shape)):22} {str(axes):6} {line}{'' if ok else '  MISMATCH'}", flush=True)
        del x

    full = [10, 20, 26] if args.quick else list(range(10, args.max_log2 + 1, 2))
    n = 1 << 26
    shapes = [((n // c, c), [1]) for c in (2, 4, 8, 32, 256, 4096, 1 << 20)]
    shapes += [((n // c, c), [0]) for c in (2, 32, 256, 4096)]
    shapes += [((n // 16384, 4096, 4), [1])]
    if args.quick:
        shapes = shapes[:2]
    for t in types:
        for op in ("sum", "max", "argmax"):
            for k in full:
                case(t, op, (1 << k,), None)
            for shape, axes in shapes:
                case(t, op, shape, axes)

    x = data((1 << 10,), "float32")
    libs = {"gpureduce": lambda: gpureduce.sum(x), "torch": lambda: torch.sum(x)}
    if cupy is not None:
        c = cupy.asarray(x)
        libs["cupy"] = lambda: cupy.sum(c)
    def host_us(f, calls=10000, busy=False):
        """Wall time a call of `calls` back-to-back calls of f, after a tenth as many to warm up.
        busy: issued behind a 50 ms spin kernel, so that the GPU never drains the queue and no
        call waits for it: the host's own time."""
        for _ in range(calls // 10):
            f()
        torch.cuda.synchronize()
        if busy:
            torch.cuda._sleep(100_000_000)
        t0 = time.perf_counter()
        for _ in range(calls):
            f()
        us = (time.perf_counter() - t0) / calls * 1e6
        torch.cuda.synchronize()
        return us

    for variant, f in libs.items():
        us, busy = host_us(f), host_us(f, 500, busy=True)
        rows.append({"variant": variant, "type": "float32", "op": "sum", "shape": [1 << 10], "axes": None,
                     "host_us_per_call": us, "host_us_gpu_busy": busy})
        print(f"host overhead {variant:10} {us:6.2f} us a call ({busy:.2f} with the GPU busy)", flush=True)

    # Where gpureduce's host time goes (printed only): the output's allocation, the extension's
    # call alone (the library's host code and the launch) with the arguments prepared, and a bare
    # kernel launch (torch's spin kernel for 0 cycles), the floor of any call that launches one.
    from gpureduce import _core
    y = torch.empty((), device="cuda")
    stream = torch.cuda.current_stream().cuda_stream
    from gpureduce._arrays import Torch
    parts = {"x.new_empty(())": lambda: x.new_empty(()),
             "kernel launch alone": lambda: torch.cuda._sleep(0),
             "describe x": lambda: Torch.describe(x, "x"),
             "current stream": lambda: Torch.stream(0),
             "_core.reduce (library + launch)": lambda: _core.reduce(0, 11, 11, 13, x.data_ptr(), (1 << 10,), (1,),
                                                                     (0,), y.data_ptr(), (), (), 0, 0, 0, False, False,
                                                                     0, stream)}
    for name, f in parts.items():
        print(f"host breakdown {name:32} {host_us(f):6.2f} us a call", flush=True)

    report = {"device": torch.cuda.get_device_name(), "driver": _driver(), "commit": _commit(),
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "torch": torch.__version__, "cupy": getattr(cupy, "__version__", None),
              "gpureduce": gpureduce.__version__, "reps": args.reps, "rows": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    bad = [r for r in rows if r.get("verified") is False]
    if bad:
        print(f"gpureduce.bench: {len(bad)} results differ from torch's", file=sys.stderr)
        return 1
    return 0


def _driver():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, check=True).stdout.split("\n")[0].strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
