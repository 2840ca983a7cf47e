#!/usr/bin/env python3
"""Interpreter cost per bundle, in instructions counted by callgrind (deterministic, so it stays
meaningful on a loaded machine, unlike wall time).

Runs `ptoc run` (release) under `valgrind --tool=callgrind` on a chain of N TROWEXPANDMAX bundles
over a 16x16 FP32 tile and a 16x1 row (one bundle per op, each reading the previous result), for
N = 10 and N = 50, and prints (I(50) - I(10)) / 40: the fixed costs (start-up, reading the object
and the .npy inputs, printing the result) cancel. Each N runs REPEATS times and the median count is
used (counts vary by a few hundred instructions between runs).

Usage: benches/bundle_cost.py [--ptoc PATH] [--profile queue|absolute] [--repeats 3]
  Without --ptoc it builds ptoc in release first (in $CARGO_TARGET_DIR or target/). --ptoc measures
  another build, e.g. one of an older commit, on the same kernels. Needs numpy and valgrind.
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = (10, 50)
FULL = "!pto.tile<16x16xf32>"
ROW = "!pto.tile<16x1xf32>"


def chain(n):
    """A kernel of n TROWEXPANDMAX ops, each on the previous result and the row argument."""
    lines = [f"func.func @chain(%a: {FULL}, %r: {ROW}) -> {FULL} {{"]
    prev = "%a"
    for i in range(n):
        lines.append(f'  %v{i} = "pto.trowexpandmax"({prev}, %r) : ({FULL}, {ROW}) -> {FULL}')
        prev = f"%v{i}"
    lines += [f"  return {prev} : {FULL}", "}"]
    return "\n".join(lines) + "\n"


def instructions(cmd):
    """Instructions callgrind counts for one run of cmd."""
    run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    refs = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    if refs is None:
        raise SystemExit(f"no instruction count from callgrind:\n{run.stderr}")
    return int(refs.group(1).replace(",", ""))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ptoc")
    parser.add_argument("--profile", default="queue", choices=["queue", "absolute"])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    ptoc = args.ptoc
    if ptoc is None:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "ptoc"], cwd=ROOT, check=True)
        # cargo resolves a relative CARGO_TARGET_DIR against its working directory, ROOT here.
        ptoc = os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR", "target"), "release", "ptoc")
    rng = np.random.default_rng(3)
    counts = {}
    with tempfile.TemporaryDirectory() as tmp:
        a, r = os.path.join(tmp, "a.npy"), os.path.join(tmp, "r.npy")
        np.save(a, rng.standard_normal((16, 16), dtype=np.float32))
        np.save(r, rng.standard_normal((16, 1), dtype=np.float32))
        for n in SIZES:
            src, obj = os.path.join(tmp, f"chain{n}.mlir"), os.path.join(tmp, f"chain{n}.bin")
            with open(src, "w") as f:
                f.write(chain(n))
            subprocess.run([ptoc, "--target-profile", args.profile, src, "-o", obj], check=True)
            runs = [instructions([ptoc, "run", obj, "--arg", f"a={a}", "--arg", f"r={r}"])
                    for _ in range(args.repeats)]
            counts[n] = statistics.median(runs)
            print(f"N={n}: {' '.join(str(c) for c in runs)} instructions (median {counts[n]:.0f})")
    lo, hi = SIZES
    print(f"per bundle ({args.profile} naming): {(counts[hi] - counts[lo]) / (hi - lo):.1f} instructions")


if __name__ == "__main__":
    main()
