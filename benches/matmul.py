#!/usr/bin/env python3
"""linalg.matmul on the matrix unit: a 512x512x512 f32 product compiled by ptoc and run on its
interpreter, against numpy's matmul in this process (docs/isa.md §18; README, Matrix multiply).

Reports, over RUNS runs (release build):
  run:      median wall time of `ptoc run out.bin --arg a=A.npy --arg b=B.npy --out-dir D` (a
            process: load, execute, save) against the median of numpy's `a @ b` here, and the
            ratio; ptoc's result is checked bit for bit against numpy computing linalg's order
            (k in order from +0, each product and sum rounded once: decision 51), so a fast wrong
            answer cannot pass;
  bundles:  tile bundles the kernel executes (each pto op of the compiled GM kernel times its
            loops' trip counts; the scalar bundles that compute addresses come on top);
  traffic:  GM bytes the tile loads and stores move, against two floors: each input read once
            per block of D's rows (B) or columns (A) with the kernel's own blocks (the issue's
            minimum; goal: within 2x), and each tensor touched once.
Usage: benches/matmul.py [RUNS=3]  (needs numpy: .venv/bin/python after scripts/python-env;
PTOC=path/to/ptoc skips the release build)
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
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
M = N = K = 512

SOURCE = f"""
func.func @matmul(%a: tensor<{M}x{K}xf32>, %b: tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{M}x{N}xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>)
                     outs(%c : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  return %r : tensor<{M}x{N}xf32>
}}
"""


def median_s(run):
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def in_order(a, b):
    """linalg's matmul: for each k in order, the f32 product, then the f32 sum, from +0."""
    d = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        d = d + np.outer(a[:, k], b[k, :])
    return d


def executed(mlir):
    """Tile bundles executed and GM bytes loaded and stored, from the compiled kernel's text:
    every pto op counted once per iteration of the scf.for loops around it (constant bounds)."""
    consts, trips = {}, []
    bundles = loaded = stored = 0
    blocks = {}
    for line in mlir.splitlines():
        text = line.strip()
        if m := re.match(r"(%\w+) = arith.constant (\d+) : index", text):
            consts[m.group(1)] = int(m.group(2))
        if text == "}":
            trips.pop()
            continue
        times = int(np.prod(trips))
        if m := re.search(r'"pto\.(\w+)"', text):
            bundles += times
            tiles = re.findall(r"!pto\.tile<(\d+)x(\d+)x\w+([^>]*)>", text)
            rows, cols, rest = tiles[-1]
            if m.group(1) == "tload":
                loaded += times * int(rows) * int(cols) * 4
                blocks.setdefault("a" if "cube_m" in rest else "b", (int(rows), int(cols)))
            elif m.group(1) == "tstore":
                stored += times * int(rows) * int(cols) * 4
        if text.endswith("{"):
            loop = re.search(r"scf.for %\w+ = (%\w+) to (%\w+) step (%\w+)", text)
            bounds = [consts[loop.group(i)] for i in (1, 2, 3)] if loop else [0, 1, 1]
            trips.append(len(range(*bounds)))
    return bundles, loaded, stored, blocks


def main():
    ptoc = os.environ.get("PTOC")
    if not ptoc:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "ptoc"], cwd=ROOT, check=True)
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
        ptoc = os.path.join(target, "release", "ptoc")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        src, obj, out = (os.path.join(tmp, n) for n in ("matmul.mlir", "out.bin", "out"))
        with open(src, "w") as f:
            f.write(SOURCE)
        an, bn = os.path.join(tmp, "a.npy"), os.path.join(tmp, "b.npy")
        np.save(an, a)
        np.save(bn, b)
        subprocess.run([ptoc, src, "-o", obj], check=True)
        mlir = subprocess.run([ptoc, src, "--emit=mlir"], check=True, capture_output=True,
                              text=True).stdout
        cmd = [ptoc, "run", obj, "--arg", f"a={an}", "--arg", f"b={bn}", "--out-dir", out]
        run_s = median_s(lambda: subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL))
        numpy_s = median_s(lambda: a @ b)
        got = np.load(os.path.join(out, "r0.npy")).reshape(M, N)
    exact = np.array_equal(got.view(np.uint32), in_order(a, b).view(np.uint32))
    bundles, loaded, stored, blocks = executed(mlir)
    mb, kb = blocks["a"]
    _, nb = blocks["b"]
    floor_blocks = 4 * (M * K * (N // nb) + K * N * (M // mb) + M * N)
    floor_once = 4 * (M * K + K * N + M * N)
    moved = loaded + stored
    print(f"blocks   A {mb}x{kb}, B {kb}x{nb}, D {mb}x{nb} (f32)")
    print(f"run      ptoc run {run_s * 1e3:9.1f} ms   numpy a @ b {numpy_s * 1e3:7.2f} ms"
          f"   ratio {run_s / numpy_s:8.1f}; bit-exact against linalg's order: {exact}")
    print(f"bundles  {bundles} tile bundles executed")
    print(f"traffic  {moved / 2**20:7.2f} MiB moved ({loaded / 2**20:.2f} loaded, "
          f"{stored / 2**20:.2f} stored); per-block floor {floor_blocks / 2**20:.2f} MiB "
          f"(ratio {moved / floor_blocks:.2f}, goal <= 2); touch-once floor "
          f"{floor_once / 2**20:.2f} MiB (ratio {moved / floor_once:.2f})")
    if not exact:
        sys.exit("ptoc's matmul differs from linalg's order")


if __name__ == "__main__":
    main()
