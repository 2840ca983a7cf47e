"""linalg-on-tensors programs (test/linalg/*.mlir: torch-mlir's softmax, layer norms, RMSNorm with
named ops, ...) compiled by ptoc through convert-linalg-to-pto and run on its interpreter, against
numpy computing what each program means, operation by operation in the program's order: one
rounding per op (numpy's float32/float16/float64 arithmetic is IEEE, correctly rounded), sums
folded left from their +0 init (np.add.accumulate, not numpy's pairwise sum), exp and log in
binary64 rounded once (docs/isa.md §9 decision 6), rsqrt correctly rounded (decided exactly with
rationals), arith.maximumf propagating NaN. Every comparison is bit for bit; a NaN that a program
makes is the canonical NaN."""

import os
import re
from fractions import Fraction

import numpy as np
import pytest

import ptoc

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
RNG = np.random.default_rng(2027)


def program(name):
    with open(os.path.join(ROOT, "test", "linalg", name)) as f:
        return f.read()


def run(name, inputs):
    return ptoc.run(program(name), inputs, filename=name)["r0"]


def assert_bitwise(got, want):
    got = np.asarray(got).reshape(want.shape)
    assert got.dtype == want.dtype
    width = {2: np.uint16, 4: np.uint32, 8: np.uint64}[want.dtype.itemsize]
    diff = np.argwhere(got.view(width) != want.view(width))
    assert diff.size == 0, (
        f"{len(diff)} elements differ, first at {tuple(diff[0])}: "
        f"{got[tuple(diff[0])]!r} != {want[tuple(diff[0])]!r}")


def exp_once(x):
    """exp computed in binary64 and rounded once to x's type."""
    return np.exp(x.astype(np.float64)).astype(x.dtype)


def log_once(x):
    return np.log(x.astype(np.float64)).astype(x.dtype)


def row_sum(x, axis=1):
    """A left fold of + from +0 along `axis`, in x's type (linalg's order and init)."""
    return np.add.accumulate(x, axis=axis, dtype=x.dtype).take(-1, axis=axis)


def rsqrt_exact(v, dtype):
    """1/sqrt(v) correctly rounded to `dtype`, for positive finite v: the candidate nearest the
    float64 estimate whose rounding interval holds the exact value (compared as rationals)."""
    v = Fraction(float(v))
    guess = dtype(1 / np.sqrt(np.float64(v)))
    down = lambda y: np.nextafter(y, dtype(0))
    up = lambda y: np.nextafter(y, dtype(np.inf))
    candidates = [down(down(guess)), down(guess), guess, up(guess), up(up(guess))]
    for below, y, above in zip(candidates, candidates[1:], candidates[2:]):
        lo = (Fraction(float(below)) + Fraction(float(y))) / 2
        hi = (Fraction(float(y)) + Fraction(float(above))) / 2
        # lo <= 1/sqrt(v) <= hi  <=>  v*hi^2 >= 1 >= v*lo^2; a tie goes to the even candidate.
        if v * lo * lo <= 1 <= v * hi * hi:
            if v * hi * hi == 1 or v * lo * lo == 1:
                bits = np.array([y]).view({4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize])
                if bits[0] % 2:
                    continue
            return y
    raise AssertionError(f"no candidate for rsqrt({float(v)})")


def test_torch_mlir_row_softmax_with_dead_argmax():
    x = (RNG.standard_normal((64, 256)) * 4).astype(np.float32)
    m = x.max(axis=1, keepdims=True)
    e = exp_once(x - m)
    want = e / row_sum(e)[:, None]
    assert_bitwise(run("softmax-rows.mlir", {"arg0": x, "arg1": 7}), want)


def test_softmax_down_the_columns():
    x = (RNG.standard_normal((128, 96)) * 4).astype(np.float32)
    m = x.max(axis=0, keepdims=True)
    e = exp_once(x - m)
    want = e / row_sum(e, axis=0)[None, :]
    assert_bitwise(run("softmax-columns.mlir", {"x": x}), want)


def test_log_softmax():
    x = (RNG.standard_normal((32, 512)) * 4).astype(np.float32)
    d = x - x.max(axis=1, keepdims=True)
    want = d - log_once(row_sum(exp_once(d)))[:, None]
    assert_bitwise(run("log-softmax.mlir", {"x": x}), want)


def test_layer_norm_in_f32_divides_by_n_and_rounds_rsqrt_once():
    x = (RNG.standard_normal((64, 128)) * 3 + 1).astype(np.float32)
    n, eps = np.float32(128), np.float32(1e-5)
    mean = row_sum(x) / n
    d = x - mean[:, None]
    var = row_sum(d * d) / n
    rs = np.array([rsqrt_exact(v, np.float32) for v in var + eps], dtype=np.float32)
    want = d * rs[:, None]
    assert_bitwise(run("layer-norm.mlir", {"x": x}), want)


def test_layer_norm_computed_in_f64_and_truncated():
    x = (RNG.standard_normal((256, 128)) * 3 + 1).astype(np.float32)
    w = x.astype(np.float64)
    n, eps = 128.0, 1e-5
    s = row_sum(w)
    mu = (s / n)[:, None]
    d = w - mu
    var = row_sum(d * d) / n
    rs = np.array([rsqrt_exact(v, np.float64) for v in var + eps])
    want = (d * rs[:, None]).astype(np.float32)
    assert_bitwise(run("layer-norm-f64.mlir", {"x": x}), want)


def test_rmsnorm_written_with_named_ops():
    x = RNG.standard_normal((64, 4096)).astype(np.float32)
    w = (RNG.standard_normal(4096) + 1).astype(np.float32)
    ms = row_sum(x * x) / np.float32(4096)
    rt = np.sqrt(ms + np.float32(1e-6))
    want = (x / rt[:, None]) * w[None, :]
    assert_bitwise(run("rmsnorm-named.mlir", {"x": x, "w": w}), want)


def maximum_propagating(a, b):
    """arith.maximumf on float32 arrays: NaN (canonical) if either is NaN, -0 < +0."""
    out = np.where(a > b, a, b)
    zeros = (a == 0) & (b == 0)
    out = np.where(zeros, np.where(np.signbit(a) & np.signbit(b), a, np.abs(a)), out)
    return np.where(np.isnan(a) | np.isnan(b), np.float32(np.nan), out).astype(a.dtype)


def test_amax_propagates_nan_and_orders_zeros():
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    x[3, 17] = np.nan
    x[5, :] = -np.abs(x[5, :])
    x[5, 9], x[5, 40] = -0.0, 0.0
    x[7, :] = -0.0
    x[9, 0] = np.float32(np.inf)
    x[9, 1] = np.nan
    want = np.full(16, -np.inf, dtype=np.float32)
    for j in range(64):
        want = maximum_propagating(want, x[:, j])
    got = run("amax-nan.mlir", {"x": x}).reshape(16)
    assert_bitwise(got, want)
    assert got[3].view(np.uint32) == 0x7FC00000 and got[9].view(np.uint32) == 0x7FC00000
    assert got[5].view(np.uint32) == 0 and got[7].view(np.uint32) == 0x80000000


def test_f16_bias_then_clamp_propagates_nan():
    x = (RNG.standard_normal((1024, 512)) * 2).astype(np.float16)
    b = (RNG.standard_normal(512)).astype(np.float16)
    x[0, :4] = [np.nan, np.inf, -np.inf, 65504]
    s = x + b[None, :]
    lo, hi = np.float16(-1.5), np.float16(2.0)
    want = np.minimum(np.maximum(s, lo), hi)
    want = np.where(np.isnan(s), np.float16(np.nan), want)  # the canonical NaN, 0x7E00
    assert_bitwise(run("bias-clamp-f16.mlir", {"x": x, "b": b}), want)


def test_scalar_argument_broadcast():
    x = (RNG.standard_normal((100, 300)) * 10).astype(np.float32)
    s = 0.3
    want = x * np.float32(s) + np.float32(1)
    assert_bitwise(run("scalar-arg.mlir", {"x": x, "s": s}), want)


def test_verify_checks_a_linalg_program_against_its_own_meaning():
    ptoc.verify(program("amax-nan.mlir"), trials=5, filename="amax-nan.mlir")


def test_an_op_the_isa_lacks_is_a_located_compile_error():
    src = program("softmax-columns.mlir").replace("math.exp %d", "math.sin %d")
    with pytest.raises(ptoc.CompileError) as e:
        ptoc.compile(src, filename="sin.mlir")
    assert "sin.mlir:" in str(e.value) and "math.sin" in str(e.value)


def reduction(name, dtype, shape, reduced, combine, init):
    """A one-generic reduction program over `shape` folding dimension `reduced` (`d0` or `d1`)."""
    keep = "d1" if reduced == "d0" else "d0"
    n = shape[1] if reduced == "d0" else shape[0]
    iters = '["reduction", "parallel"]' if reduced == "d0" else '["parallel", "reduction"]'
    t = f"tensor<{shape[0]}x{shape[1]}x{dtype}>"
    v = f"tensor<{n}x{dtype}>"
    return f"""
func.func @{name}(%x: {t}) -> {v} {{
  %init = arith.constant {init} : {dtype}
  %e = tensor.empty() : {v}
  %f = linalg.fill ins(%init : {dtype}) outs(%e : {v}) -> {v}
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> ({keep})>],
                        iterator_types = {iters}}} ins(%x : {t}) outs(%f : {v}) {{
  ^bb0(%in: {dtype}, %acc: {dtype}):
    %c = arith.{combine} %in, %acc : {dtype}
    linalg.yield %c : {dtype}
  }} -> {v}
  return %r : {v}
}}"""


def test_a_row_too_wide_for_a_tile_folds_maximumf_in_exact_pieces():
    # 20000 f32 (80 KB) a row: folded chunk by chunk, with the NaN and -0 < +0 rules intact.
    x = RNG.standard_normal((4, 20000)).astype(np.float32)
    x[0, 19999] = np.nan  # in the last piece only
    x[1, :] = -np.abs(x[1, :])
    x[1, 5], x[1, 15000] = -0.0, 0.0  # the largest is +0, in a later piece than -0
    x[2, 3] = np.float32(np.inf)
    src = reduction("amax", "f32", (4, 20000), "d1", "maximumf", "0xFF800000")
    got = ptoc.run(src, {"x": x})["r0"].reshape(4)
    want = np.full(4, -np.inf, dtype=np.float32)
    for j in range(20000):
        want = maximum_propagating(want, x[:, j])
    assert_bitwise(got, want)
    assert got[0].view(np.uint32) == 0x7FC00000 and got[1].view(np.uint32) == 0


def test_a_wrapping_integer_sum_over_a_wide_row_is_exact_in_pieces():
    x = RNG.integers(-2**31, 2**31, size=(4, 32768), dtype=np.int64).astype(np.int32)
    src = reduction("isum", "i32", (4, 32768), "d1", "addi", "7")
    got = ptoc.run(src, {"x": x})["r0"].reshape(4)
    want = (x.astype(np.int64).sum(axis=1) + 7) % 2**32  # modular: any order gives the same bits
    assert_bitwise(got, want.astype(np.uint32).view(np.int32))


def test_a_column_too_tall_for_a_tile_folds_minnumf_in_exact_pieces():
    x = RNG.standard_normal((40000, 4)).astype(np.float32)
    x[:, 0] = np.nan  # all NaN: minnum of nothing but NaNs (and the NaN init) is NaN
    x[39999, 1] = np.float32(-np.inf)
    x[:, 2] = np.abs(x[:, 2])
    x[100, 2], x[30000, 2] = 0.0, -0.0  # the smallest is -0 (minimumNumber's order)
    src = reduction("cmin", "f32", (40000, 4), "d0", "minnumf", "0x7FC00000")
    got = ptoc.run(src, {"x": x})["r0"].reshape(4)
    assert got[0].view(np.uint32) == 0x7FC00000
    assert got[1] == -np.inf
    assert got[2].view(np.uint32) == 0x80000000
    assert_bitwise(got[3:], np.array([x[:, 3].min()], dtype=np.float32))


def test_cmpf_predicates_of_two_relations_select_like_numpy():
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    y = RNG.standard_normal((16, 64)).astype(np.float32)
    y[::3] = x[::3]  # equal pairs
    x[1, :8], y[2, :8] = np.nan, np.nan
    x[4, :4] = y[4, :4] = np.nan
    x[5, 0], y[5, 0] = 0.0, -0.0  # equal: one is false, ueq true
    out = ptoc.run(program("cmpf-two-relations.mlir"), {"x": x, "y": y})
    with np.errstate(invalid="ignore"):
        one = (x < y) | (x > y)
        ordered = ~np.isnan(x) & ~np.isnan(y)
    for name, cond in [("r0", one), ("r1", ~one), ("r2", ordered), ("r3", ~ordered)]:
        assert_bitwise(out[name], np.where(cond, x, y))


def test_prime_extents_walk_full_blocks_then_a_shorter_tail():
    # 509 rows and 1013 columns divide into nothing but blocks of one: ptoc walks blocks as
    # large as fit and ends each axis with a shorter block, instead of one element at a time.
    src = """
func.func @scale(%x: tensor<509x1013xf32>, %y: tensor<1013xf32>) -> tensor<509x1013xf32> {
  %e = tensor.empty() : tensor<509x1013xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<509x1013xf32>, tensor<1013xf32>) outs(%e : tensor<509x1013xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<509x1013xf32>
  return %r : tensor<509x1013xf32>
}"""
    x = RNG.standard_normal((509, 1013)).astype(np.float32)
    y = RNG.standard_normal(1013).astype(np.float32)
    assert_bitwise(ptoc.run(src, {"x": x, "y": y})["r0"], x * y[None, :])
    # Tiles of whole rows: blocks of some rows > 1, and a tail of what is left of 509.
    rows = sorted({int(r) for r in re.findall(r"valid=(\d+)x1013>", ptoc.compile(src, emit="mlir"))})
    assert len(rows) == 2 and rows[1] > 1 and 509 % rows[1] == rows[0], rows
    # A column sum over a prime height: whole chunks, then a shorter last chunk; integers wrap,
    # so the pieces combine exactly.
    x = RNG.integers(-2**31, 2**31, size=(40009, 5), dtype=np.int64).astype(np.int32)
    got = ptoc.run(reduction("csum", "i32", (40009, 5), "d0", "addi", "3"), {"x": x})["r0"]
    want = (x.astype(np.int64).sum(axis=0) + 3) % 2**32
    assert_bitwise(got.reshape(5), want.astype(np.uint32).view(np.int32))


def test_semantics_options_and_a_softmax_over_rows_wider_than_a_tile():
    # Rows of 32003 f32 do not fit a 64 KiB tile: the sum of exponentials must be folded in
    # pieces, which reassociates it, so the compile refuses without allow_reassociation.
    src = (program("softmax-rows.mlir").replace("64x256", "4x32003")
           .replace("tensor<64x", "tensor<4x").replace("tensor<64xi64>", "tensor<4xi64>")
           .replace("tensor<64xf32>", "tensor<4xf32>").replace("[64, 1]", "[4, 1]"))
    with pytest.raises(ptoc.CompileError) as e:
        ptoc.compile(src)
    assert "--allow-reassociation" in str(e.value)
    obj = ptoc.compile(src, allow_reassociation=True)
    piece = int(re.search(r"pto\.fold_piece = (\d+)",
                          ptoc.compile(src, emit="mlir", allow_reassociation=True)).group(1))
    assert 1 < piece < 32003
    x = (RNG.standard_normal((4, 32003)) * 4).astype(np.float32)
    m = x.max(axis=1, keepdims=True)  # exact in pieces: a maximum is the same in any grouping
    e = exp_once(x - m)
    # Each piece folded from +0 in order, the pieces' sums then added in order from the init +0.
    s = np.zeros(4, dtype=np.float32)
    for start in range(0, 32003, piece):
        s = row_sum(e[:, start:start + piece]) + s
    assert_bitwise(ptoc.run(obj, {"arg0": x, "arg1": 7})["r0"], e / s[:, None])


def test_integer_conversions_agree_with_numpy():
    i = RNG.integers(-2**31, 2**31, size=(8, 64), dtype=np.int64).astype(np.int32)
    i[0, :4] = [0, -1, 2**31 - 1, -2**31]
    i[1, :3] = [16777217, -16777217, 2**24 + 3]  # not representable in f32: ties to even
    f = (RNG.standard_normal((8, 64)) * 1e6).astype(np.float32)
    f[0, :6] = [2.5, -2.5, -0.7, 0.7, -0.0, 4294967040.0]  # truncation toward zero; u32 range
    w = RNG.integers(-2**63, 2**63, size=(8, 64), dtype=np.int64)
    out = ptoc.run(program("conversions.mlir"), {"i": i, "f": f, "w": w})
    u = i.view(np.uint32)
    assert_bitwise(out["r0"], i.astype(np.float32))  # numpy rounds to nearest even too
    assert_bitwise(out["r1"], u.astype(np.float32))
    signed = (f > -2**31) & (f < 2**31)  # elsewhere MLIR's result is poison
    np.testing.assert_array_equal(out["r2"][signed], np.trunc(f[signed]).astype(np.int32))
    unsigned = (f > -1) & (f < 2**32)
    want_u = np.trunc(f[unsigned]).astype(np.int64).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(out["r3"][unsigned], want_u)
    assert out["r3"][0, 5] == np.uint32(4294967040).view(np.int32)
    np.testing.assert_array_equal(out["r4"], i.astype(np.int64))
    np.testing.assert_array_equal(out["r5"], u.astype(np.int64))
    np.testing.assert_array_equal(out["r6"], w.astype(np.int16))  # numpy keeps the low bits
    assert_bitwise(out["r7"], (f > 0).astype(np.float32))
    np.testing.assert_array_equal(out["r8"], -(f > 0).astype(np.int32))


def test_batch_dimensions_merge_into_rows_and_take_nd_arrays():
    # A rank-4 attention softmax over [batch, heads, seq, seq]: the leading loops merge into
    # rows (the arrays' own row-major order), so a 4-D array goes in as it is.
    src = program("batch-dims.mlir")
    s = (RNG.standard_normal((2, 4, 16, 64)) * 3).astype(np.float32)
    m = s.max(axis=3, keepdims=True)
    e = exp_once(s - m)
    want = e / row_sum(e, axis=3)[..., None]
    got = ptoc.run(src, {"s": s}, function="attention_softmax")["r0"]
    assert_bitwise(got.reshape(2, 4, 16, 64), want)
    with pytest.raises(ptoc.RunError):
        ptoc.run(src, {"s": s[:1]}, function="attention_softmax")  # not the argument's elements


def test_a_vector_reduces_to_a_rank_0_result():
    src = program("vector-reductions.mlir")
    x = RNG.standard_normal(1000).astype(np.float32)
    got = ptoc.run(src, {"x": x}, function="vsum")["r0"]
    assert_bitwise(got.reshape(()), row_sum((x * x)[None, :])[0])  # sequential, one rounding each
    x = RNG.standard_normal(100003).astype(np.float32)
    x[100002] = np.float32(50.0)  # in the last, shorter chunk
    got = ptoc.run(src, {"x": x}, function="vmax")["r0"]
    assert got.reshape(()) == np.float32(50.0)
