#!/usr/bin/env python3
"""Generate float test vectors for ptoc-runtime's numerics from numpy and ml_dtypes.

Writes tests/data/vectors/<op>_<dtype>.txt, one vector per line as hex bit patterns:
    binary ops (add sub mul div max min):  a b expected
    exp:                                   a expected

Expected values come from an implementation independent of the Rust code:
  * add/sub/mul/div: numpy float64 / float32 arithmetic (native IEEE), then one cast to the target
    with numpy/ml_dtypes `astype` (float64 is exact for add/sub/mul of the narrow types and the
    float64 quotient re-rounds correctly since 53 >= 2p+2); FP32 uses numpy float32, FP64 float64.
    Every NaN result is replaced by the format's canonical NaN (docs/isa.md §5.2).
  * max/min: the rules of docs/isa.md §1.8 written with float comparisons (one NaN -> other operand's bits,
    two NaNs -> canonical NaN, ±0 rules, else the larger/smaller value, left on ties).
  * exp: Python's math.exp (the C libm the Rust side also calls) on the exact float64 value, then one
    cast to the target (decision 6), with the special values of §1.8.
E4M3 has no infinity: anything that overflows becomes 0x7F (decision 7). Run: python3 gen_vectors.py
(needs numpy and ml_dtypes); the output is committed, so the Rust tests do not need Python.
"""
import math
import os
import random

import ml_dtypes
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors")

# name: (numpy dtype, unsigned carrier dtype, bits, canonical NaN)
TYPES = {
    "fp64": (np.float64, np.uint64, 64, 0x7FF8000000000000),
    "fp32": (np.float32, np.uint32, 32, 0x7FC00000),
    "fp16": (np.float16, np.uint16, 16, 0x7E00),
    "bf16": (ml_dtypes.bfloat16, np.uint16, 16, 0x7FC0),
    "e4m3": (ml_dtypes.float8_e4m3fn, np.uint8, 8, 0x7F),
    "e5m2": (ml_dtypes.float8_e5m2, np.uint8, 8, 0x7E),
}


def from_bits(name, bits):
    dt, carrier, _, _ = TYPES[name]
    return np.array(bits, dtype=carrier).view(dt)


def to_bits(name, values):
    dt, carrier, _, canon = TYPES[name]
    arr = np.asarray(values).astype(dt)
    bits = arr.view(carrier).astype(np.uint64)
    nan = np.isnan(arr.astype(np.float64))
    return np.where(nan, np.uint64(canon), bits)


def edge_bits(name):
    _, _, bits, canon = TYPES[name]
    sign = 1 << (bits - 1)
    finfo = ml_dtypes.finfo(TYPES[name][0])
    vals = [0.0, 1.0, 2.0, 3.0, 0.5, 1.5, 7.0, 10.0, 0.1, 1 / 3]
    vals += [float(finfo.max), float(finfo.tiny), float(finfo.smallest_subnormal)]
    vals += [float(finfo.max) / 2, float(finfo.tiny) * 3, float(finfo.eps), 1 + float(finfo.eps)]
    out = set(int(b) for b in to_bits(name, np.array(vals, dtype=np.float64)))
    out |= {b | sign for b in list(out)}
    out |= {canon, canon | sign, 1, sign | 1, sign - 1}
    if name == "e4m3":
        out |= {0x7E, 0xFE, 0x7F, 0xFF}
    else:
        exp_all_ones = int(to_bits(name, [np.inf])[0])
        out |= {exp_all_ones, exp_all_ones | sign, exp_all_ones + 1, (exp_all_ones + 1) | sign}
    return sorted(out)


def random_bits(name, n, rng):
    bits = TYPES[name][2]
    mixed = []
    for _ in range(n):
        if rng.random() < 0.5:
            mixed.append(rng.getrandbits(bits))
        else:
            # Values of moderate magnitude make ties and cancellation more likely.
            v = rng.choice([1, -1]) * rng.uniform(0.25, 4) * 2.0 ** rng.randint(-6, 6)
            mixed.append(int(to_bits(name, [v])[0]))
    return mixed


def arith(name, op, a_bits, b_bits):
    a = from_bits(name, a_bits)
    b = from_bits(name, b_bits)
    wide = np.float32 if name == "fp32" else np.float64
    a, b = a.astype(wide), b.astype(wide)
    with np.errstate(all="ignore"):
        r = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b}[op]
    with np.errstate(all="ignore"):
        out = to_bits(name, r)
    if name == "e4m3":
        # No infinity: an infinite result (overflow, x/0) is the canonical NaN.
        out = np.where(np.isinf(r), np.uint64(0x7F), out)
    return out


def pick(name, op, a_bits, b_bits):
    _, _, bits, canon = TYPES[name]
    sign = 1 << (bits - 1)
    av = from_bits(name, a_bits).astype(np.float64)
    bv = from_bits(name, b_bits).astype(np.float64)
    out = []
    for ab, bb, a, b in zip(a_bits, b_bits, av, bv):
        if math.isnan(a) and math.isnan(b):
            out.append(canon)
        elif math.isnan(a):
            out.append(bb)
        elif math.isnan(b):
            out.append(ab)
        elif a == 0 and b == 0:
            na, nb = ab & sign != 0, bb & sign != 0
            neg = (na and nb) if op == "max" else (na or nb)
            out.append(sign if neg else 0)
        elif op == "max":
            out.append(ab if a >= b else bb)
        else:
            out.append(ab if a <= b else bb)
    return out


def exp_expected(name, a_bits):
    _, _, bits, canon = TYPES[name]
    one = int(to_bits(name, [1.0])[0])
    out = []
    for ab, a in zip(a_bits, from_bits(name, a_bits).astype(np.float64)):
        if math.isnan(a):
            out.append(canon)
        elif a == 0:
            out.append(one)
        elif math.isinf(a):
            out.append(0 if a < 0 else ab)
        else:
            try:
                y = math.exp(a)
            except OverflowError:
                y = math.inf
            with np.errstate(all="ignore"):
                r = int(to_bits(name, np.array([y], dtype=np.float64))[0])
            if name == "e4m3" and (math.isinf(y) or y > 464):
                r = 0x7F
            out.append(r)
    return out


def write(path, rows, width):
    digits = width // 4
    with open(path, "w") as f:
        for row in rows:
            f.write(" ".join(f"{int(v):0{digits}x}" for v in row) + "\n")


def main():
    rng = random.Random(20261201)
    os.makedirs(OUT, exist_ok=True)
    for name in TYPES:
        width = TYPES[name][2]
        edges = edge_bits(name)
        pairs = [(a, b) for a in edges for b in edges]
        rand = random_bits(name, 6000, rng)
        pairs += list(zip(rand[:3000], rand[3000:]))
        a_bits = [p[0] for p in pairs]
        b_bits = [p[1] for p in pairs]
        for op in ["add", "sub", "mul", "div"]:
            r = arith(name, op, a_bits, b_bits)
            write(os.path.join(OUT, f"{op}_{name}.txt"), zip(a_bits, b_bits, r), width)
        for op in ["max", "min"]:
            r = pick(name, op, a_bits, b_bits)
            write(os.path.join(OUT, f"{op}_{name}.txt"), zip(a_bits, b_bits, r), width)
        singles = edges + random_bits(name, 3000, rng)
        if width == 64:
            singles += [int(to_bits(name, [v])[0]) for v in np.linspace(-750, 720, 1500)]
        r = exp_expected(name, singles)
        write(os.path.join(OUT, f"exp_{name}.txt"), zip(singles, r), width)


if __name__ == "__main__":
    main()
