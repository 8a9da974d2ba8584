"""tools/ab_axis_summary.py on made-up `bench --axis` runs whose outcome is worked out by hand: the
cases it names, new/base over the runs' medians, the '~' of a difference within a side's spread,
rows only one side has, and unverified rows counted."""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

tools = Path(__file__).resolve().parents[2] / "tools"
sys.path.insert(0, str(tools))
from ab_axis_summary import compare  # noqa: E402
from bench_runs import axis_case, load_axis  # noqa: E402

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def run(commit, rows_ms, verified=True):
    """A run with a 2-D case (rows of 4), a ragged one and, in base runs only, a column case."""
    rows = [{"variant": "gpureduce", "type": "float32", "op": "sum", "shape": [1024, 4], "axes": [1],
             "median_ms": rows_ms[0], "floor_ms": 0.5, "verified": verified},
            {"variant": "cub", "type": "float32", "op": "sum", "shape": [1024, 4], "axes": [1],
             "median_ms": 9.0, "floor_ms": 0.5, "verified": True},
            {"variant": "gpureduce", "type": "float32", "op": "argmax", "shape": [4096], "segments": 256,
             "mean_segment": 16.0, "median_ms": rows_ms[1], "floor_ms": 0.8, "verified": True}]
    if commit == "base":
        rows.append({"variant": "gpureduce", "type": "int32", "op": "max", "shape": [8, 512], "axes": [0],
                     "median_ms": 1.0, "floor_ms": 0.9, "verified": True})
    return {"commit": commit, "date": "2026-12-05T00:00:00Z", "device": {"name": "GPU", "driver": "1"},
            "rows": rows}


expect(axis_case({"shape": [1024, 4], "axes": [1]}) == "1024 x 4, axes 1", "axis case")
expect(axis_case({"shape": [4096], "segments": 256, "mean_segment": 16.0}) == "ragged, mean 16", "ragged case")

with tempfile.TemporaryDirectory() as d:
    files = {}
    # rows of 4: base 1.0 and 1.2 ms (median 1.1), new 0.60 and 0.62 (median 0.61): 0.555x, outside
    # the spread; ragged: base 2.0 and 2.1, new 2.05 and 2.0: within the spread, '~'.
    for name, commit, ms, ok in [("b1", "base", (1.0, 2.0), True), ("b2", "base", (1.2, 2.1), True),
                                 ("n1", "new", (0.60, 2.05), True), ("n2", "new", (0.62, 2.0), False)]:
        files[name] = Path(d) / f"{name}.json"
        files[name].write_text(json.dumps(run(commit, ms, ok)))
    base, _, _ = load_axis([files["b1"], files["b2"]])
    new, floors, _ = load_axis([files["n1"], files["n2"]])
    got = {(op, case): (round(ratio, 3), same) for op, t, case, mb, mw, fl, ratio, same in compare(base, new, floors)}
    want = {("sum", "1024 x 4, axes 1"): (0.555, False), ("argmax", "ragged, mean 16"): (0.988, True)}
    expect(got == want, f"compare: got {got}, want {want}")
    out = subprocess.run([sys.executable, str(tools / "ab_axis_summary.py"), files["b1"], files["b2"], "--",
                          files["n1"], files["n2"]], capture_output=True, text=True)
    expect(out.returncode == 0, f"command: {out.returncode} {out.stderr}")
    expect("| sum | float32 | 1024 x 4, axes 1 | 1100.0 | 610.0 | 500.0 | 0.555 | 45 | 82 |" in out.stdout,
           out.stdout)
    expect("rows not verified: 1" in out.stdout, out.stdout)
    bare = subprocess.run([sys.executable, str(tools / "ab_axis_summary.py")], capture_output=True, text=True)
    expect(bare.returncode != 0 and "usage:" in bare.stderr, f"no argument: {bare.returncode}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
