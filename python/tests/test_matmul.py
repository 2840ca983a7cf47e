"""Matrix multiply on the CUBE path (docs/isa.md §18): GM kernels that load A into cube_m16 and B
into cube_n8, multiply with pto.tmatmul and pto.tmatmul_acc, and store D, compiled by ptoc and run
on its interpreter, against numpy computing the declared accumulation (§9 decision 51): inputs
widened to the accumulator type, then for each k in order the product rounded to it and the sum
rounded, from +0 (numpy's own float32 `*` and `+`; integers wrap in int32). np.matmul, whose
summation order is BLAS's, only has to agree to rounding."""

import os

import numpy as np
import pytest

import ptoc

RNG = np.random.default_rng(2026)

KERNEL = """
func.func @mm(%a: memref<16x64x{t}>, %b: memref<64x32x{t}>, %c: memref<16x32x{acc}>) {{
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %a0 = "pto.tload"(%a, %c0, %c0) : (memref<16x64x{t}>, index, index) -> !pto.tile<16x32x{t}, layout=cube_m16>
  %b0 = "pto.tload"(%b, %c0, %c0) : (memref<64x32x{t}>, index, index) -> !pto.tile<32x32x{t}, layout=cube_n8>
  %d0 = "pto.tmatmul"(%a0, %b0) : (!pto.tile<16x32x{t}, layout=cube_m16>, !pto.tile<32x32x{t}, layout=cube_n8>) -> !pto.tile<16x32x{acc}, layout=cube_m16>
  %a1 = "pto.tload"(%a, %c0, %c32) : (memref<16x64x{t}>, index, index) -> !pto.tile<16x32x{t}, layout=cube_m16>
  %b1 = "pto.tload"(%b, %c32, %c0) : (memref<64x32x{t}>, index, index) -> !pto.tile<32x32x{t}, layout=cube_n8>
  %d1 = "pto.tmatmul_acc"(%d0, %a1, %b1) : (!pto.tile<16x32x{acc}, layout=cube_m16>, !pto.tile<16x32x{t}, layout=cube_m16>, !pto.tile<32x32x{t}, layout=cube_n8>) -> !pto.tile<16x32x{acc}, layout=cube_m16>
  "pto.tstore"(%d1, %c, %c0, %c0) : (!pto.tile<16x32x{acc}, layout=cube_m16>, memref<16x32x{acc}>, index, index) -> ()
  return
}}
"""


def matmul_in_order(a, b, acc, init=None):
    a, b = a.astype(acc), b.astype(acc)
    d = np.zeros((a.shape[0], b.shape[1]), acc) if init is None else init.copy()
    with np.errstate(over="ignore"):
        for k in range(a.shape[1]):
            d = d + np.outer(a[:, k], b[k, :])
    return d


ACCUMULATOR_DTYPE = {"f32": np.float32, "si32": np.int32}


def run(t, acc, a, b):
    c = np.zeros((16, 32), ACCUMULATOR_DTYPE[acc])
    return ptoc.run(KERNEL.format(t=t, acc=acc), {"a": a, "b": b, "c": c})["c"]


@pytest.mark.parametrize("t", ["f32", "f16"])
def test_float_matmul_accumulates_in_order_bit_for_bit(t):
    dtype = np.float32 if t == "f32" else np.float16
    a = RNG.standard_normal((16, 64)).astype(dtype)
    b = RNG.standard_normal((64, 32)).astype(dtype)
    got = run(t, "f32", a, b)
    want = matmul_in_order(a, b, np.float32)
    assert got.dtype == np.float32
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    np.testing.assert_allclose(got, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4, atol=1e-4)


def test_int8_matmul_accumulates_in_int32():
    a = RNG.integers(-128, 128, (16, 64)).astype(np.int8)
    b = RNG.integers(-128, 128, (64, 32)).astype(np.int8)
    got = run("si8", "si32", a, b)
    want = a.astype(np.int32) @ b.astype(np.int32)
    assert got.dtype == np.int32 and np.array_equal(got, want)


def tile_kernel(op, operands, result):
    """A tile kernel applying one matrix op to its arguments, `operands` as (name, type) pairs."""
    args = ", ".join(f"%{n}: {t}" for n, t in operands)
    uses = ", ".join(f"%{n}" for n, _ in operands)
    types = ", ".join(t for _, t in operands)
    return f"""
func.func @k({args}) -> {result} {{
  %d = "pto.{op}"({uses}) : ({types}) -> {result}
  return %d : {result}
}}
"""


def test_bias_is_added_once_after_the_sum():
    # D = (Σ_k A·B from +0) + bias, one more rounded add (decision 51).
    a = RNG.standard_normal((16, 32)).astype(np.float16)
    b = RNG.standard_normal((32, 16)).astype(np.float16)
    bias = (RNG.standard_normal((1, 16)) * 1e3).astype(np.float32)
    source = tile_kernel(
        "tmatmul_bias",
        [
            ("a", "!pto.tile<16x32xf16, layout=cube_m16>"),
            ("b", "!pto.tile<32x16xf16, layout=cube_n8>"),
            ("bias", "!pto.tile<1x16xf32>"),
        ],
        "!pto.tile<16x16xf32, layout=cube_m16>",
    )
    got = ptoc.run(source, {"a": a, "b": b, "bias": bias})["r0"]
    want = matmul_in_order(a, b, np.float32) + bias
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_gemv_multiplies_one_row():
    a = RNG.integers(-128, 128, (1, 64)).astype(np.int8)
    b = RNG.integers(-128, 128, (64, 32)).astype(np.int8)
    source = tile_kernel(
        "tgemv",
        [("a", "!pto.tile<1x64xsi8, layout=cube_m16>"), ("b", "!pto.tile<64x32xsi8, layout=cube_n8>")],
        "!pto.tile<1x32xsi32, layout=cube_m16>",
    )
    got = ptoc.run(source, {"a": a, "b": b})["r0"]
    assert got.dtype == np.int32 and np.array_equal(got, a.astype(np.int32) @ b.astype(np.int32))


def test_unsigned_products_and_sums_wrap_modulo_2_32():
    # 5x40 by 40x3: ragged shapes, and 65535² · 40 overflows u32 many times over.
    a = RNG.integers(0, 65536, (5, 40)).astype(np.uint16)
    b = RNG.integers(0, 65536, (40, 3)).astype(np.uint16)
    source = tile_kernel(
        "tmatmul",
        [("a", "!pto.tile<5x40xui16, layout=cube_m16>"), ("b", "!pto.tile<40x3xui16, layout=cube_n8>")],
        "!pto.tile<5x3xui32, layout=cube_m16>",
    )
    got = ptoc.run(source, {"a": a, "b": b})["r0"]
    assert got.dtype == np.uint32
    assert np.array_equal(got, matmul_in_order(a, b, np.uint32))  # numpy's uint32 wraps too


def _bf16_bits(values):
    """float32 -> bf16 bits, round to nearest even (finite values)."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def _bf16_value(bits):
    """bf16 bits -> their (exact) float32 value."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def test_bf16_accumulate_onto_c_in_cube_m32():
    a_bits = _bf16_bits(RNG.standard_normal((32, 16)))
    b_bits = _bf16_bits(RNG.standard_normal((16, 8)))
    c = RNG.standard_normal((32, 8)).astype(np.float32)
    source = tile_kernel(
        "tmatmul_acc",
        [
            ("c", "!pto.tile<32x8xf32, layout=cube_m32>"),
            ("a", "!pto.tile<32x16xbf16, layout=cube_m32>"),
            ("b", "!pto.tile<16x8xbf16, layout=cube_n8>"),
        ],
        "!pto.tile<32x8xf32, layout=cube_m32>",
    )
    got = ptoc.run(source, {"c": c, "a": a_bits, "b": b_bits})["r0"]
    want = matmul_in_order(_bf16_value(a_bits), _bf16_value(b_bits), np.float32, init=c)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_the_sum_starts_at_positive_zero():
    # Every product is -0: a sum from +0 gives +0, where a sum seeded with the first product
    # would keep -0.
    a = np.full((1, 4), -0.0, np.float32)
    b = np.ones((4, 8), np.float32)
    source = tile_kernel(
        "tmatmul",
        [("a", "!pto.tile<1x4xf32, layout=cube_m16>"), ("b", "!pto.tile<4x8xf32, layout=cube_n8>")],
        "!pto.tile<1x8xf32, layout=cube_m16>",
    )
    got = ptoc.run(source, {"a": a, "b": b})["r0"]
    assert got.view(np.uint32).tolist() == [[0] * 8]


# linalg.matmul and linalg.batch_matmul (test/linalg/matmul.mlir), through convert-linalg-to-pto.
with open(os.path.join(os.path.dirname(__file__), "..", "..", "test", "linalg", "matmul.mlir")) as f:
    LINALG = f.read()


def run_linalg(function, inputs):
    return ptoc.run(LINALG, inputs, function=function, filename="matmul.mlir")["r0"]


def test_linalg_matmul_f32_is_linalgs_in_order_sum():
    a = RNG.standard_normal((64, 96)).astype(np.float32)
    b = RNG.standard_normal((96, 80)).astype(np.float32)
    got = run_linalg("mm_f32", {"a": a, "b": b}).reshape(64, 80)
    assert np.array_equal(got.view(np.uint32), matmul_in_order(a, b, np.float32).view(np.uint32))
    np.testing.assert_allclose(got, a @ b, rtol=1e-4, atol=1e-4)


def test_linalg_matmul_f16_ragged_blocks():
    # 37x300 by 300x45: tails in M, N and K.
    a = RNG.standard_normal((37, 300)).astype(np.float16)
    b = RNG.standard_normal((300, 45)).astype(np.float16)
    got = run_linalg("mm_f16_ragged", {"a": a, "b": b}).reshape(37, 45)
    want = matmul_in_order(a, b, np.float32)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_linalg_matmul_bf16_onto_an_init():
    a_bits = _bf16_bits(RNG.standard_normal((16, 64)))
    b_bits = _bf16_bits(RNG.standard_normal((64, 32)))
    c = RNG.standard_normal((16, 32)).astype(np.float32)
    got = run_linalg("mm_bf16_init", {"a": a_bits, "b": b_bits, "c": c}).reshape(16, 32)
    want = matmul_in_order(_bf16_value(a_bits), _bf16_value(b_bits), np.float32, init=c)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_linalg_matmul_i8_accumulates_in_i32():
    a = RNG.integers(-128, 128, (32, 128)).astype(np.int8)
    b = RNG.integers(-128, 128, (128, 64)).astype(np.int8)
    got = run_linalg("mm_i8", {"a": a, "b": b}).reshape(32, 64)
    assert np.array_equal(got, a.astype(np.int32) @ b.astype(np.int32))


def test_linalg_batch_matmul_multiplies_each_batch():
    a = RNG.standard_normal((3, 20, 48)).astype(np.float32)
    b = RNG.standard_normal((3, 48, 24)).astype(np.float32)
    got = run_linalg("bmm", {"a": a, "b": b}).reshape(3, 20, 24)
    for i in range(3):
        want = matmul_in_order(a[i], b[i], np.float32)
        assert np.array_equal(got[i].view(np.uint32), want.view(np.uint32))


def test_linalg_vector_matrix():
    a = RNG.standard_normal((1, 64)).astype(np.float32)
    b = RNG.standard_normal((64, 32)).astype(np.float32)
    got = run_linalg("vector_matrix", {"a": a, "b": b}).reshape(1, 32)
    assert np.array_equal(got.view(np.uint32), matmul_in_order(a, b, np.float32).view(np.uint32))


with open(os.path.join(os.path.dirname(__file__), "..", "..", "test", "linalg",
                       "matmul-epilogue.mlir")) as f:
    EPILOGUE = f.read()


def test_linear_layer_bias_then_relu():
    x = RNG.standard_normal((48, 64)).astype(np.float32)
    w = RNG.standard_normal((64, 40)).astype(np.float32)
    bias = RNG.standard_normal(40).astype(np.float32)
    x[3, 5] = np.nan  # arith.maximumf propagates it through the ReLU
    got = ptoc.run(EPILOGUE, {"x": x, "w": w, "bias": bias}, function="linear_relu")["r0"]
    with np.errstate(invalid="ignore"):
        want = np.maximum(matmul_in_order(x, w, np.float32) + bias, np.float32(0))
    got = got.reshape(48, 40)
    assert np.array_equal(np.isnan(got), np.isnan(want)) and np.isnan(want).any()
    finite = ~np.isnan(want)
    assert np.array_equal(got[finite].view(np.uint32), want[finite].view(np.uint32))


def test_attention_scores_softmax():
    # softmax(Q·Kᵀ / 8) by rows, K passed as Kᵀ: scale (exact, a power of two), max, exp in
    # binary64 rounded once (docs/isa.md §9 decision 6), sequential sum from +0, divide.
    q = RNG.standard_normal((128, 64)).astype(np.float32)
    kt = RNG.standard_normal((64, 128)).astype(np.float32)
    got = ptoc.run(EPILOGUE, {"q": q, "kt": kt}, function="scores_softmax")["r0"].reshape(128, 128)
    s = matmul_in_order(q, kt, np.float32) * np.float32(0.125)
    e = np.exp((s - s.max(axis=1, keepdims=True)).astype(np.float64)).astype(np.float32)
    total = np.add.accumulate(e, axis=1, dtype=np.float32)[:, -1:]
    assert np.array_equal(got.view(np.uint32), (e / total).view(np.uint32))


def test_narrowing_after_a_matmul_goes_through_a_workspace():
    # f16 inputs accumulate in f32, then arith.truncf rounds each element once to f16.
    a = RNG.standard_normal((16, 32)).astype(np.float16)
    b = RNG.standard_normal((32, 16)).astype(np.float16)
    got = ptoc.run(EPILOGUE, {"a": a, "b": b}, function="narrowed_after")
    assert set(got) == {"r0"}
    want = matmul_in_order(a, b, np.float32).astype(np.float16)
    assert np.array_equal(got["r0"].reshape(16, 16).view(np.uint16), want.view(np.uint16))


def test_row_sums_of_a_product():
    a = RNG.standard_normal((24, 32)).astype(np.float32)
    b = RNG.standard_normal((32, 40)).astype(np.float32)
    got = ptoc.run(EPILOGUE, {"a": a, "b": b}, function="row_sums_after")["r0"].reshape(24)
    want = np.add.accumulate(matmul_in_order(a, b, np.float32), axis=1, dtype=np.float32)[:, -1]
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_linalg_matmul_transpose_b():
    # B passed N×K (matmul_transpose_b's maps): transposed into a workspace, then multiplied.
    a = RNG.standard_normal((40, 96)).astype(np.float32)
    b = RNG.standard_normal((24, 96)).astype(np.float32)
    got = run_linalg("mm_transpose_b", {"a": a, "b": b}).reshape(40, 24)
    assert np.array_equal(got.view(np.uint32), matmul_in_order(a, b.T, np.float32).view(np.uint32))
