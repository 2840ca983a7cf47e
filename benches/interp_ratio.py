#!/usr/bin/env python3
"""Interpreter speed against memcpy, as issue-style ratios.

Runs criterion's `interp` bench of ptoc-runtime (TROWEXPANDMAX and TCOLEXPANDMIN at a 64 KiB tile
for FP32, FP16 and S8, next to a memcpy of the same bytes, all in one process) pinned to one core,
then prints each expand op's median time and its ratio to the memcpy of the same element type,
measured in the same run. The target is a ratio of at most 1.25 for every op.

Usage: benches/interp_ratio.py [--core N] [--measurement-time S] [--runs K]
With --runs K the bench runs K times and each ratio is the median of the K runs' ratios (a shared
virtual machine's timings move between processes; the ratio within one process moves much less).
"""

import argparse
import json
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OPS = ["TROWEXPANDMAX", "TCOLEXPANDMIN"]
TYPES = ["fp32", "fp16", "s8"]


def median_ns(group_dir: pathlib.Path, name: str) -> float:
    estimates = group_dir / name / "new" / "estimates.json"
    return json.loads(estimates.read_text())["median"]["point_estimate"]


def run_once(core: int, measurement: float) -> dict:
    command = [
        "taskset", "-c", str(core),
        "cargo", "bench", "-q", "-p", "ptoc-runtime", "--bench", "interp", "--",
        "--warm-up-time", "1", "--measurement-time", str(measurement),
    ]
    # criterion reports on stderr; it is shown only when the bench fails.
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"interp_ratio: the bench failed (exit {done.returncode})")
    group = ROOT / "target" / "criterion" / "interp"
    times = {}
    for ty in TYPES:
        copy = median_ns(group, f"memcpy_{ty}")
        times[("memcpy", ty)] = (copy, 1.0)
        for op in OPS:
            t = median_ns(group, f"{op}_{ty}")
            times[(op, ty)] = (t, t / copy)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--core", type=int, default=1)
    parser.add_argument("--measurement-time", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    runs = [run_once(args.core, args.measurement_time) for _ in range(args.runs)]
    worst = 0.0
    print(f"{'op':<15}{'type':<6}{'median µs':>11}{'× memcpy':>10}")
    for ty in TYPES:
        for op in ["memcpy"] + OPS:
            t = statistics.median(r[(op, ty)][0] for r in runs) / 1000
            ratio = statistics.median(r[(op, ty)][1] for r in runs)
            if op != "memcpy":
                worst = max(worst, ratio)
            print(f"{op:<15}{ty:<6}{t:>11.2f}{ratio:>10.2f}")
    print(f"worst expand ratio: {worst:.2f} (target <= 1.25)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
