"""Inputs and numpy-computed expectations for the GM kernels in test/runtime/gm/.

Run from this directory: python3 gen.py. Writes NAME.x.npy (inputs) and NAME.expected.npy.
The expectations follow docs/isa.md exactly, independently of ptoc: one f32 rounding per
elementwise op; reductions fold from the left in increasing index order, SUM from +0 (§1.5);
EXP of f32 is exp in binary64 rounded once to f32 (§9 decision 6).
"""
import numpy as np

rng = np.random.default_rng(12)
f32 = np.float32


def save(name, **arrays):
    for key, value in arrays.items():
        np.save(f"{name}.{key}.npy", np.ascontiguousarray(value))


def row_sum(a):
    acc = np.zeros(a.shape[0], dtype=f32)
    for c in range(a.shape[1]):
        acc = (acc + a[:, c]).astype(f32)
    return acc[:, None]


# Row softmax, 64x64: max, exp(x - max) (two roundings, EXPDIF), sequential sum, divide.
x = rng.normal(0, 2, (64, 64)).astype(f32)
m = x.max(axis=1, keepdims=True)
d = (x - m).astype(f32)
e = np.exp(d.astype(np.float64)).astype(f32)
s = row_sum(e)
save("softmax-rows", x=x, expected=(e / s).astype(f32))

# Row max over 16x16 column tiles (max is exact, so the partial order does not matter).
x = rng.normal(0, 10, (64, 64)).astype(f32)
save("row-max", x=x, expected=x.max(axis=1, keepdims=True))

# y[i] = x[i] * w[255 - i] + x[i], 256 rows of 64.
x = rng.normal(0, 3, (256, 64)).astype(f32)
w = rng.normal(0, 3, (256, 64)).astype(f32)
p = (x * w[::-1]).astype(f32)
save("affine-256", x=x, w=w, expected=(p + x).astype(f32))

# Column normalisation: divide by the column max (positive inputs, so no division by zero).
x = rng.uniform(0.25, 8, (64, 16)).astype(f32)
save("column-normalise", x=x, expected=(x / x.max(axis=0, keepdims=True)).astype(f32))

# Tile-scalar ops: max(x * a + b, lo) - c, one rounding per op; a, b, lo, c are written into
# scale-shift.scalars.npy in argument order.
x = rng.normal(0, 4, (64, 32)).astype(f32)
a, b, lo, c = (f32(v) for v in (1.7, -0.3, -1.25, 0.5))
r = np.maximum(((x * a).astype(f32) + b).astype(f32), lo)
save("scale-shift", x=x, scalars=np.array([a, b, lo, c], dtype=f32), expected=(r - c).astype(f32))
