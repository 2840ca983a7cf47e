#!/usr/bin/env python3
"""Generate layer-norm vectors for the linalg reference evaluator (tests/reference_linalg.rs).

Writes tests/data/vectors/linalg_layernorm_f32.txt: line 1 "rows cols", line 2 the f32 input, line
3 the f32 output, each element as a hex bit pattern, row-major.

The program is torch-mlir's layer norm computed in f64 (without affine weights), in its own
operation order, with numpy's native IEEE float64 as the independent implementation:
  w = extf(x) to f64;  mean = (sum of w over the row from +0, sequentially) / cols;
  d = w - mean;  var = (sum of d * d over the row, sequentially) / cols;
  r = rsqrt(var + eps), correctly rounded (computed exactly with Python fractions below);
  y = truncf(d * r) to f32 (numpy's float64 -> float32 cast rounds to nearest even).
cols and eps are f64 constants captured from outside the regions. Run: python3
gen_linalg_layernorm.py (needs numpy); the output is committed, so the Rust tests do not need Python.
"""
import math
import os
from fractions import Fraction

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors")
ROWS, COLS = 8, 32
EPS = 1e-5


def rsqrt(v):
    """The float64 nearest to 1/sqrt(v) (v > 0 finite), ties to even."""
    fv = Fraction(v)
    a = 1.0 / math.sqrt(v)
    # Step to the largest a with a*a*v <= 1 (a <= the true value).
    while Fraction(a) ** 2 * fv > 1:
        a = np.nextafter(a, 0.0)
    while Fraction(np.nextafter(a, math.inf)) ** 2 * fv <= 1:
        a = np.nextafter(a, math.inf)
    b = np.nextafter(a, math.inf)
    mid = (Fraction(a) + Fraction(b)) / 2
    m2v = mid**2 * fv
    if m2v > 1:  # the true value is below the midpoint
        return float(a)
    if m2v < 1:
        return float(b)
    return float(a) if int(np.float64(a).view(np.uint64)) % 2 == 0 else float(b)


def main():
    rng = np.random.default_rng(1203)
    x = (rng.standard_normal((ROWS, COLS)) * 3.0 + rng.standard_normal((ROWS, 1)) * 50).astype(
        np.float32
    )
    x[1, :] = 7.25  # a constant row: var = 0, r = rsqrt(eps)
    x[2, 0] = 1e30
    x[3, :] = np.float32(1e-40)  # subnormal f32, normal in f64
    w = x.astype(np.float64)
    y = np.zeros_like(x)
    for i in range(ROWS):
        s = np.float64(0.0)
        for j in range(COLS):
            s = s + w[i, j]
        mean = s / np.float64(COLS)
        d = w[i] - mean
        v = np.float64(0.0)
        for j in range(COLS):
            v = v + d[j] * d[j]
        var = v / np.float64(COLS)
        r = np.float64(rsqrt(float(var + np.float64(EPS))))
        y[i] = (d * r).astype(np.float32)
    path = os.path.join(OUT, "linalg_layernorm_f32.txt")
    with open(path, "w") as f:
        f.write(f"{ROWS} {COLS}\n")
        for a in (x, y):
            f.write(" ".join(f"{int(v):x}" for v in a.view(np.uint32).ravel()) + "\n")


if __name__ == "__main__":
    main()
