#!/usr/bin/env python3
"""The linalg front door on torch-mlir's 512x1024 f32 row softmax (examples/linalg_softmax.mlir).

Median wall time of RUNS process runs each (release build):
  compile:  `ptoc linalg_softmax.mlir -o out.bin` against `mlir-opt-22` parsing and printing the
            same file (goal: at most 2x);
  fusion:   the same compile with and without pto-fuse in the pipeline (the difference is the
            fusion time on the tiled program);
  run:      `ptoc run out.bin --arg arg0=x.npy --arg arg1=0 --out-dir D` against a python3 process
            that imports numpy, loads x.npy, computes the softmax in float32 and saves it (goal:
            ptoc at most 1x the numpy process);
  bundles:  tile ops in the loop body after fusion, exact and with --assume-no-nans, against the
            hand-optimal four (TROWMAX, TROWEXPANDEXPDIF, TROWSUM, TROWEXPANDDIV).
ptoc's output is compared with numpy in the ISA's order (sequential row sums, exp in binary64
rounded once) bit for bit, so a fast wrong answer cannot pass as a result.
Usage: benches/linalg_softmax.py [RUNS=5]  (needs numpy: .venv/bin/python after scripts/python-env)
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
SOURCE = os.path.join(ROOT, "examples", "linalg_softmax.mlir")
MLIR_OPT = "/usr/lib/llvm-22/bin/mlir-opt"

NUMPY_SCRIPT = """
import sys, numpy as np
x = np.load(sys.argv[1])
m = x.max(axis=1, keepdims=True)
e = np.exp(x - m)
np.save(sys.argv[2], e / e.sum(axis=1, keepdims=True))
"""


def median_ms(cmd):
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def body_ops(ptoc, *flags):
    """The pto tile ops inside the scf.for of the compiled module."""
    text = subprocess.run([ptoc, SOURCE, "--emit=mlir", *flags], check=True,
                          capture_output=True, text=True).stdout
    body = text[text.index("scf.for"):]
    return [op for op in re.findall(r'"pto\.(\w+)"', body) if op not in ("tload", "tstore")]


def isa_order_softmax(x):
    m = x.max(axis=1, keepdims=True)
    e = np.exp((x - m).astype(np.float64)).astype(np.float32)
    s = np.add.accumulate(e, axis=1, dtype=np.float32)[:, -1:]
    return e / s


def main():
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "ptoc"], cwd=ROOT, check=True)
    ptoc = os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR", "target"), "release", "ptoc")
    x = (np.random.default_rng(7).standard_normal((512, 1024)) * 4).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        obj, xs, out = (os.path.join(tmp, n) for n in ("out.bin", "x.npy", "out"))
        np.save(xs, x)
        compile_ms = median_ms([ptoc, SOURCE, "-o", obj])
        mlir_opt_ms = median_ms([MLIR_OPT, SOURCE])
        no_fuse = "convert-linalg-to-pto,pto-verify,pto-infer-shapes,pto-allocate"
        unfused_ms = median_ms([ptoc, SOURCE, "-o", obj + ".nofuse", f"--pass-pipeline={no_fuse}"])
        run_ms = median_ms([ptoc, "run", obj, "--arg", f"arg0={xs}", "--arg", "arg1=0",
                            "--out-dir", out])
        numpy_ms = median_ms([sys.executable, "-c", NUMPY_SCRIPT, xs, os.path.join(tmp, "np.npy")])
        got = np.load(os.path.join(out, "r0.npy"))
        exact = np.array_equal(got.view(np.uint32), isa_order_softmax(x).view(np.uint32))
    exact_ops = body_ops(ptoc)
    no_nan_ops = body_ops(ptoc, "--assume-no-nans")
    print(f"compile  ptoc {compile_ms:8.2f} ms   mlir-opt-22 parse+print {mlir_opt_ms:8.2f} ms"
          f"   ratio {compile_ms / mlir_opt_ms:5.2f} (goal <= 2)")
    print(f"fusion   with pto-fuse {compile_ms:8.2f} ms   without {unfused_ms:8.2f} ms"
          f"   difference {compile_ms - unfused_ms:6.2f} ms")
    print(f"run      ptoc run {run_ms:8.2f} ms   numpy process {numpy_ms:8.2f} ms"
          f"   ratio {run_ms / numpy_ms:5.2f} (goal <= 1); bit-exact against the ISA order: {exact}")
    print(f"bundles  per row block: exact {len(exact_ops)} {exact_ops}")
    print(f"         --assume-no-nans {len(no_nan_ops)} {no_nan_ops}; hand-optimal 4")
    if not exact:
        sys.exit("ptoc's softmax differs from numpy in the ISA's order")


if __name__ == "__main__":
    main()
