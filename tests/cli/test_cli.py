"""The gpureduce binary's exit codes and messages: --help, bad arguments (exit 2, one line on
stderr) and, on a machine without a GPU, the no-device error (exit 1)."""
import shutil
import subprocess
import sys

exe = sys.argv[1]


def run(*args):
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=120)


failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


r = run("--help")
expect(r.returncode == 0 and "usage: gpureduce" in r.stdout, f"--help: rc={r.returncode}")

for bad in (["ladder", "--block", "100"], ["ladder", "--type", "int4"], ["nope"], [], ["ladder", "--n"],
            ["matmul", "--rung", "m9"], ["matmul", "--n", "0"], ["bench", "--mode", "exact", "--types", "int8"]):
    r = run(*bad)
    lines = r.stderr.strip().splitlines()
    expect(r.returncode == 2, f"{bad}: rc={r.returncode}, want 2")
    expect(len(lines) == 1 and lines[0].startswith("gpureduce: error:"), f"{bad}: stderr={r.stderr!r}")
    expect(r.stdout == "", f"{bad}: stdout not empty")

# Without a GPU the ladder must fail cleanly. With one, this case is covered by the GPU run itself.
has_gpu = shutil.which("nvidia-smi") is not None and subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0
if not has_gpu:
    r = run("ladder", "--n", "1000")
    lines = r.stderr.strip().splitlines()
    expect(r.returncode == 1, f"no GPU: rc={r.returncode}, want 1")
    expect(len(lines) == 1 and "no usable CUDA GPU" in lines[0], f"no GPU: stderr={r.stderr!r}")

for f in failures:
    print("FAIL:", f)
print("ok" if not failures else f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
