#!/usr/bin/env python3
"""numpy baseline for benches/interp.rs: the same two ops on the same 64 KiB tiles.

TROWEXPANDMAX is np.maximum(src, bcast[:, None]) and TCOLEXPANDMIN is np.minimum(src, bcast[None, :])
(numpy's NaN propagation differs from the ISA's MIN/MAX rules, so this is a speed reference only),
plus a copy of the same bytes. Shapes: FP32 128x128, FP16 128x256, S8 256x256 (64 KiB each).
Run: python3 benches/numpy_baseline.py   (needs numpy). Prints elements/second per case.
"""
import timeit

import numpy as np

CASES = [("fp32", np.float32, 128, 128), ("fp16", np.float16, 128, 256), ("s8", np.int8, 256, 256)]


def rate(fn, elements, repeat=7):
    number = 200
    best = min(timeit.repeat(fn, number=number, repeat=repeat)) / number
    return elements / best


def main():
    rng = np.random.default_rng(1)
    for name, dt, rows, cols in CASES:
        if np.issubdtype(dt, np.floating):
            src = rng.standard_normal((rows, cols)).astype(dt)
            row_b = rng.standard_normal(rows).astype(dt)
            col_b = rng.standard_normal(cols).astype(dt)
        else:
            src = rng.integers(-128, 128, (rows, cols)).astype(dt)
            row_b = rng.integers(-128, 128, rows).astype(dt)
            col_b = rng.integers(-128, 128, cols).astype(dt)
        n = rows * cols
        results = {
            "TROWEXPANDMAX": rate(lambda: np.maximum(src, row_b[:, None]), n),
            "TCOLEXPANDMIN": rate(lambda: np.minimum(src, col_b[None, :]), n),
            "copy": rate(lambda: src.copy(), n),
        }
        for op, r in results.items():
            print(f"numpy {op}/{name}: {r / 1e6:10.1f} Melem/s")


if __name__ == "__main__":
    main()
