#!/usr/bin/env python3
"""Generate row-softmax vectors for the linalg reference evaluator (tests/reference_linalg.rs).

Writes tests/data/vectors/linalg_softmax_<dtype>.txt: line 1 "rows cols", line 2 the input, line 3
the expected output, each element as a hex bit pattern, row-major.

The expected values follow torch-mlir's softmax program in its own operation order, with numpy as
the implementation independent of the Rust code:
  m = max over the row from -inf, one np.maximum at a time (NaN-propagating, like arith.maximumf);
  e = exp(x - m): the subtraction in the element type, exp in float64 and one cast to the type
      (the project's meaning of math.exp);
  s = sum over the row from +0, one addition at a time in the element type;
  y = e / s in the element type.
Rows hold edge values: -inf (exp gives 0), +inf (inf - inf is NaN, so the row is NaN), a NaN
(the max is NaN), huge and subnormal values. Run: python3 gen_linalg_softmax.py (needs numpy);
the output is committed, so the Rust tests do not need Python.
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors")
ROWS, COLS = 12, 40


def softmax(x, dtype):
    m = np.full(x.shape[0], -np.inf, dtype=dtype)
    with np.errstate(all="ignore"):
        for j in range(x.shape[1]):
            m = np.maximum(m, x[:, j]).astype(dtype)
        d = (x - m[:, None]).astype(dtype)
        e = np.exp(d.astype(np.float64)).astype(dtype)
        s = np.zeros(x.shape[0], dtype=dtype)
        for j in range(x.shape[1]):
            s = (s + e[:, j]).astype(dtype)
        return (e / s[:, None]).astype(dtype)


def main():
    rng = np.random.default_rng(20261203)
    for name, dtype, carrier, scale in [
        ("f32", np.float32, np.uint32, 30.0),
        ("f16", np.float16, np.uint16, 8.0),
    ]:
        x = (rng.standard_normal((ROWS, COLS)) * scale).astype(dtype)
        x[1, 5] = -np.inf
        x[2, 7] = np.inf
        x[3, 11] = np.nan
        x[4, :] = np.finfo(dtype).max
        x[5, 3] = np.finfo(dtype).smallest_subnormal
        x[6, :] = 0
        x[7, ::2] = -np.inf  # half the row is -inf
        y = softmax(x, dtype)
        path = os.path.join(OUT, f"linalg_softmax_{name}.txt")
        with open(path, "w") as f:
            f.write(f"{ROWS} {COLS}\n")
            for a in (x, y):
                f.write(" ".join(f"{int(v):x}" for v in a.view(carrier).ravel()) + "\n")


if __name__ == "__main__":
    main()
