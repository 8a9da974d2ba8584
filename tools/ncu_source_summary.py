#!/usr/bin/env python3
"""Summarizes ncu's source page (`ncu --set full --page source --print-source sass --csv`) of one kernel
launch: warp-stall samples and warp instructions executed between the SASS's barriers, calls,
fences and exits, with the global and warp-wide instructions in between, then the instructions
that drew the most samples.

usage: ncu_source_summary.py FILE.csv [TOP]

Samples are taken per SM sub-partition at a fixed interval from one of its resident warps: a phase
that one warp runs alone (the exact sum's rounding) draws samples at a quarter of the rate of one
that all four sub-partitions run.
"""
import csv
import sys

REGION_ENDS = ("BAR.SYNC", "CALL.REL", "MEMBAR", "WARPSYNC", "EXIT", "RET.REL")
SHOWN = ("LDG", "STG", "ATOM", "RED.", "REDUX")


def rows_of(path):
    lines = open(path).read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"Address"'))
    kernel = next((line for line in lines[:start] if line.startswith('"Kernel Name"')), "")
    return kernel, list(csv.DictReader(lines[start:]))


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    kernel, rows = rows_of(path)
    samples = [int(r["Warp Stall Sampling (All Samples)"] or 0) for r in rows]
    executed = [int(r["Instructions Executed"] or 0) for r in rows]
    total = sum(samples) or 1
    stalls = [k for k in rows[0] if k.startswith("stall_") and "Not Issued" not in k]
    print(kernel.split(",", 1)[1].strip().rstrip(",").strip('"') if kernel else path)
    print(f"{len(rows)} SASS instructions, {sum(samples)} samples, {sum(executed)} warp instructions executed\n")
    print("| SASS lines | samples | % | warp instructions | ends at |")
    print("|---|---:|---:|---:|---|")
    first, acc, ex = 0, 0, 0
    for i, r in enumerate(rows):
        src = r["Source"].strip()
        acc += samples[i]
        ex += executed[i]
        if any(k in src for k in SHOWN) and executed[i]:
            print(f"| {i} | {samples[i]} | | {executed[i]} | {src[:60]} |")
        elif any(k in src for k in REGION_ENDS):
            if acc or ex:
                print(f"| {first}-{i} | {acc} | {100 * acc / total:.1f} | {ex} | {src[:60]} |")
            first, acc, ex = i + 1, 0, 0
    print(f"\ninstructions with the most samples (stall reasons: the three largest)\n")
    for i in sorted(range(len(rows)), key=lambda k: -samples[k])[:top]:
        reasons = sorted(((int(rows[i][k] or 0), k[len("stall_"):]) for k in stalls), reverse=True)[:3]
        why = ", ".join(f"{n} {name}" for n, name in reasons if n)
        print(f"{i:5d} {samples[i]:5d} ex={executed[i]:<6d} {rows[i]['Source'].strip()[:60]:60s} {why}")


if __name__ == "__main__":
    main()
