#!/usr/bin/env python3
"""Interpreter speed against memcpy, as issue-style ratios.

Runs criterion's `interp` bench of ptoc-runtime (TROWEXPANDMAX and TCOLEXPANDMIN at a 64 KiB tile
for FP32, FP16 and S8, next to a memcpy of the same bytes, all in one process) pinned to one core,
then prints each expand op's median time and its ratio to the memcpy of the same element type,
measured in the same run. The target is a ratio of at most 1.25 for every op. Both modes also
print the register-copy floor: a vector-register copy of the same bytes, as a ratio to memcpy.

Usage: benches/interp_ratio.py [--core N] [--measurement-time S] [--runs K] [--paired [--rounds R]]
With --runs K the bench runs K times and each ratio is the median of the K runs' ratios (a shared
virtual machine's timings move between processes; the ratio within one process moves much less).
With --paired it runs the `interp_paired` bench instead: the same bundles and memcpy, alternated
batch by batch in one process for R rounds, each ratio the median of the rounds' ratios, which a
host whose speed drifts over seconds moves far less than criterion's one op after another.
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
        floor = median_ns(group, f"register_copy_{ty}")
        times[("REGISTER_COPY", ty)] = (floor, floor / copy)
        for op in OPS:
            t = median_ns(group, f"{op}_{ty}")
            times[(op, ty)] = (t, t / copy)
    return times


def run_paired(core: int, rounds: int) -> dict:
    command = [
        "taskset", "-c", str(core),
        "cargo", "bench", "-q", "-p", "ptoc-runtime", "--bench", "interp_paired", "--",
        "--rounds", str(rounds),
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"interp_ratio: the paired bench failed (exit {done.returncode})")
    times = {}
    # Lines after the header: op, type, op ns, memcpy ns, ratio.
    for line in done.stdout.splitlines()[1:]:
        op, ty, t_op, t_copy, ratio = line.split()
        times[(op, ty)] = (float(t_op), float(ratio))
        times[("memcpy", ty)] = (float(t_copy), 1.0)
    missing = [(op, ty) for op in OPS for ty in TYPES if (op, ty) not in times]
    if missing:
        raise SystemExit(f"interp_ratio: the paired bench reported no {missing}")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--core", type=int, default=1)
    parser.add_argument("--measurement-time", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--paired", action="store_true", help="alternate each op with its memcpy")
    parser.add_argument("--rounds", type=int, default=300, help="rounds of the paired bench")
    args = parser.parse_args()
    if args.paired:
        runs = [run_paired(args.core, args.rounds) for _ in range(args.runs)]
    else:
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
    # Both benches also time a vector-register copy of the same bytes: no kernel that computes
    # in registers can beat it, and some cores run memcpy's `rep movsb` faster.
    floors = [(ty, statistics.median(r[("REGISTER_COPY", ty)][1] for r in runs)) for ty in TYPES]
    print("register-copy floor (× memcpy): " + ", ".join(f"{ty} {f:.2f}" for ty, f in floors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
