#!/usr/bin/env python3
"""Fits the f32 tanh and erf formulas of dialect/src/expand_math.rs and measures their bounds.

The coefficients are least-squares fits in relative error on Chebyshev nodes (float64), then
rounded to f32; the script prints them as expand_math.rs holds them. It then evaluates each
formula in f32 op by op, as the ISA does (each op rounded once to nearest even; exp as the
interpreter computes it, binary64 exp rounded to f32), on about 14 million inputs (random bit
patterns, a dense grid over [-8, 8], normal samples) and prints the largest distance from
the exact function (math.tanh / math.erf in binary64) in ulp of the exact value.

Usage: python3 test/frontends/fit_approximations.py   (numpy only)
"""

import math

import numpy as np

F32 = np.float32
TANH_SWITCH, TANH_DEGREE = 0.75, 6
ERF_SWITCH, ERF_P_DEGREE, ERF_R_DEGREE = 1.0, 8, 10
ERF_R_RANGE = 4.5  # erf(x) rounds to 1 in f32 beyond about 3.9


def chebyshev(lo, hi, n):
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos((2 * k + 1) * np.pi / (2 * n))


def fit(var, target, scale, degree):
    """Coefficients c of sum c_k var^k minimising |(sum - target) / scale|, rounded to f32."""
    basis = np.stack([var**k for k in range(degree)], 1) / scale[:, None]
    c, *_ = np.linalg.lstsq(basis, target / scale, rcond=None)
    return [F32(v) for v in c]


def coefficients():
    x = chebyshev(1e-4, TANH_SWITCH, 4000)
    s = x * x
    # tanh(x) = x + x s Q(s)
    tanh_q = fit(s, (np.tanh(x) - x) / (x * s), np.abs(np.tanh(x) / (x * s)), TANH_DEGREE)
    x = chebyshev(1e-4, ERF_SWITCH, 3000)
    s = x * x
    erf = np.vectorize(math.erf)(x)
    # erf(x) = x + x P(s)
    erf_p = fit(s, erf / x - 1, erf / x, ERF_P_DEGREE)
    a = chebyshev(ERF_SWITCH, ERF_R_RANGE, 3000)
    t = 1 / (1 + 0.5 * a)
    g = np.vectorize(math.erfc)(a) * np.exp(a * a)
    # erfc(a) = e^(-a^2) R(1 / (1 + a/2))
    erf_r = fit(t, g, g, ERF_R_DEGREE)
    return tanh_q, erf_p, erf_r


def _exp(v):
    return np.exp(v.astype(np.float64)).astype(F32)


def _horner(s, c):
    acc = np.full_like(s, c[-1])
    for k in reversed(c[:-1]):
        acc = acc * s + k
    return acc


def tanh32(x, q):
    """expand_math.rs's tanh, op by op in f32."""
    with np.errstate(all="ignore"):
        a = np.abs(x)
        s = x * x
        near = x + (x * s) * _horner(s, q)
        t = F32(1) - F32(2) / (_exp(a + a) + F32(1))
        far = np.where(x < 0, -t, t)
        value = np.where(a < F32(TANH_SWITCH), near, far)
        return np.where(x == 0, x, value)


def erf32(x, p, r):
    """expand_math.rs's erf, op by op in f32."""
    with np.errstate(all="ignore"):
        a = np.abs(x)
        s = x * x
        near = x + x * _horner(s, p)
        t = F32(1) / (F32(1) + F32(0.5) * a)
        v = F32(1) - _exp(-s) * _horner(t, r)
        far = np.where(x < 0, -v, v)
        return np.where(a < F32(ERF_SWITCH), near, far)


def ulp_error(got, exact):
    """|got - exact| in ulp of the f32 nearest the exact value (binary64)."""
    ulp = np.spacing(np.abs(exact.astype(F32))).astype(np.float64)
    return np.abs(got.astype(np.float64) - exact) / ulp


def samples(seed=1):
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**31, 4_000_000, dtype=np.int64).astype(np.uint32)
    x = bits.view(F32)
    x = x[np.isfinite(x) & (np.abs(x) < 20)]
    grid = np.linspace(-8, 8, 4_000_001).astype(F32)
    normal = (rng.standard_normal(2_000_000) * 3).astype(F32)
    return np.concatenate([x, -x, grid, normal])


def main():
    tanh_q, erf_p, erf_r = coefficients()
    for name, c in [("TANH_Q", tanh_q), ("ERF_P", erf_p), ("ERF_R", erf_r)]:
        print(f"{name} = [{', '.join(str(v) for v in c)}]")
    x = samples()
    x64 = x.astype(np.float64)
    e = ulp_error(tanh32(x, tanh_q), np.tanh(x64))
    print(f"tanh: {len(x)} inputs, at most {e.max():.3f} ulp (at {x[np.argmax(e)]!r})")
    e = ulp_error(erf32(x, erf_p, erf_r), np.vectorize(math.erf)(x64))
    print(f"erf: {len(x)} inputs, at most {e.max():.3f} ulp (at {x[np.argmax(e)]!r})")


if __name__ == "__main__":
    main()
