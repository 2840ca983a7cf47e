"""Whole transformer blocks (test/linalg/blocks.mlir) against numpy: each stage in linalg's
order of operations, each op rounded once as IEEE binary32 does, so the comparisons are bit for
bit; only exp goes through binary64 rounded once (docs/isa.md §9 decision 6)."""

import os

import numpy as np

import ptoc

RNG = np.random.default_rng(2027)

with open(os.path.join(os.path.dirname(__file__), "..", "..", "test", "linalg",
                       "blocks.mlir")) as f:
    BLOCKS = f.read()


def matmul_in_order(a, b):
    """linalg.matmul on f32: for each element, k in order from +0, each product and sum rounded."""
    d = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        d = d + np.outer(a[:, k], b[k, :])
    return d


def softmax_rows(s):
    """torch-mlir's softmax: the row max, exp(x - max) in binary64 rounded once, the row sum in
    order from +0, then a division."""
    e = np.exp((s - s.max(axis=1, keepdims=True)).astype(np.float64)).astype(np.float32)
    total = np.add.accumulate(e, axis=1, dtype=np.float32)[:, -1:]
    return e / total


def bits(x):
    return np.ascontiguousarray(x, np.float32).view(np.uint32)


def test_mlp_linear_relu_linear():
    x = RNG.standard_normal((32, 64)).astype(np.float32)
    w1 = RNG.standard_normal((128, 64)).astype(np.float32)
    b1 = RNG.standard_normal(128).astype(np.float32)
    w2 = RNG.standard_normal((48, 128)).astype(np.float32)
    b2 = RNG.standard_normal(48).astype(np.float32)
    got = ptoc.run(BLOCKS, {"x": x, "w1": w1, "b1": b1, "w2": w2, "b2": b2},
                   function="mlp", filename="blocks.mlir")
    assert set(got) == {"r0"}  # the workspaces are not outputs
    h = matmul_in_order(x, w1.T) + b1
    h = np.where(h > 0, h, np.float32(0))
    want = matmul_in_order(h, w2.T) + b2
    assert np.array_equal(bits(got["r0"].reshape(32, 48)), bits(want))
    np.testing.assert_allclose(got["r0"].reshape(32, 48),
                               np.maximum(x @ w1.T + b1, 0) @ w2.T + b2, rtol=1e-4, atol=1e-4)


def test_attention_one_head():
    q, k, v = (RNG.standard_normal((128, 64)).astype(np.float32) for _ in range(3))
    got = ptoc.run(BLOCKS, {"q": q, "k": k, "v": v}, function="attention",
                   filename="blocks.mlir")["r0"].reshape(128, 64)
    p = softmax_rows(matmul_in_order(q, k.T) / np.float32(8))
    assert np.array_equal(bits(got), bits(matmul_in_order(p, v)))


def test_attention_two_heads():
    q, k, v = (RNG.standard_normal((2, 128, 64)).astype(np.float32) for _ in range(3))
    got = ptoc.run(BLOCKS, {"q": q, "k": k, "v": v}, function="attention_heads",
                   filename="blocks.mlir")["r0"].reshape(2, 128, 64)
    for h in range(2):
        p = softmax_rows(matmul_in_order(q[h], k[h].T) / np.float32(8))
        assert np.array_equal(bits(got[h]), bits(matmul_in_order(p, v[h])))
