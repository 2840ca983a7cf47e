#!/usr/bin/env python3
"""Throughput of `ptoc run` on a GM row softmax (examples/gm_softmax.mlir, 4096x1024 FP32)
against numpy computing the same softmax in this script.

Both sides get the same input; each is timed as the median of RUNS runs of wall time:
  ptoc:  `ptoc run gm_softmax.bin --arg x=x.npy --out-dir D` (a process: reading the object and
         the 16 MiB .npy, interpreting every bundle, writing y.npy);
  numpy: m = x.max(1); e = exp(x - m); y = e / e.sum(1)  (float32 throughout, in-process).
The outputs are compared (largest difference in units in the last place), so a fast wrong answer
cannot pass as a result. Usage: benches/gm_softmax.py [RUNS=3]  (builds ptoc in release first, in $CARGO_TARGET_DIR or
target/; needs numpy, e.g.
.venv/bin/python benches/gm_softmax.py after scripts/python-env)
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
ROWS, COLS = 4096, 1024


def median_seconds(run):
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def ulps(a, b):
    """Distance in float32 steps between same-signed finite values."""
    ai = a.view(np.int32).astype(np.int64)
    bi = b.view(np.int32).astype(np.int64)
    return np.abs(ai - bi)


def main():
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "ptoc"], cwd=ROOT, check=True)
    # cargo resolves a relative CARGO_TARGET_DIR against its working directory, ROOT here.
    ptoc = os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR", "target"), "release", "ptoc")
    rng = np.random.default_rng(12)
    x = rng.standard_normal((ROWS, COLS), dtype=np.float32) * np.float32(4)
    with tempfile.TemporaryDirectory() as tmp:
        obj = os.path.join(tmp, "gm_softmax.bin")
        xs = os.path.join(tmp, "x.npy")
        out = os.path.join(tmp, "out")
        np.save(xs, x)
        subprocess.run([ptoc, os.path.join(ROOT, "examples", "gm_softmax.mlir"), "-o", obj], check=True)

        def run_ptoc():
            subprocess.run([ptoc, "run", obj, "--arg", f"x={xs}", "--out-dir", out],
                           check=True, stdout=subprocess.DEVNULL)

        def run_numpy():
            m = x.max(axis=1, keepdims=True)
            e = np.exp(x - m)
            return e / e.sum(axis=1, keepdims=True)

        t_ptoc = median_seconds(run_ptoc)
        t_numpy = median_seconds(run_numpy)
        y = np.load(os.path.join(out, "y.npy"))
    expected = run_numpy()
    worst = int(ulps(y, expected).max())
    elements = ROWS * COLS
    print(f"gm softmax {ROWS}x{COLS} f32, median of {RUNS}")
    print(f"  ptoc run: {t_ptoc * 1e3:10.1f} ms  {elements / t_ptoc / 1e6:8.2f} M elements/s")
    print(f"  numpy:    {t_numpy * 1e3:10.1f} ms  {elements / t_numpy / 1e6:8.2f} M elements/s")
    print(f"  ptoc/numpy throughput: {t_numpy / t_ptoc:.3f}")
    print(f"  largest difference from numpy: {worst} ulp")


if __name__ == "__main__":
    main()
