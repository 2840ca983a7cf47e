"""GM kernels written in MLIR (scf.for loops, pto.tload/tstore, tile-scalar ops), compiled by ptoc
and run on its interpreter, against numpy computing the same thing. Every expectation is numpy's
own float32 arithmetic, with the ISA's order spelt out where numpy's would differ: a row sum folds
left from +0 (np.add.accumulate, not numpy's pairwise sum), EXPDIF rounds the difference to FP32
and then exp once (docs/isa.md §1.4, §9 decision 6: exp computed in binary64, rounded once)."""

import numpy as np
import pytest

import ptoc

RNG = np.random.default_rng(2026)


def bits(a):
    return np.ascontiguousarray(a).view(np.uint32)


def assert_bitwise(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    mismatch = np.argwhere(bits(got) != bits(want))
    assert mismatch.size == 0, f"{len(mismatch)} elements differ, first at {tuple(mismatch[0])}: {got[tuple(mismatch[0])]!r} != {want[tuple(mismatch[0])]!r}"


ROW_SOFTMAX = """
func.func @row_softmax(%x: memref<64x128xf32>, %y: memref<64x128xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c4 {
    %t = "pto.tload"(%x, %i, %c0) : (memref<64x128xf32>, index, index) -> !pto.tile<4x128xf32>
    %m = "pto.trowmax"(%t) : (!pto.tile<4x128xf32>) -> !pto.tile<4x1xf32>
    %d = "pto.trowexpandsub"(%t, %m) : (!pto.tile<4x128xf32>, !pto.tile<4x1xf32>) -> !pto.tile<4x128xf32>
    %e = "pto.texp"(%d) : (!pto.tile<4x128xf32>) -> !pto.tile<4x128xf32>
    %s = "pto.trowsum"(%e) : (!pto.tile<4x128xf32>) -> !pto.tile<4x1xf32>
    %r = "pto.trowexpanddiv"(%e, %s) : (!pto.tile<4x128xf32>, !pto.tile<4x1xf32>) -> !pto.tile<4x128xf32>
    "pto.tstore"(%r, %y, %i, %c0) : (!pto.tile<4x128xf32>, memref<64x128xf32>, index, index) -> ()
  }
  return
}
"""


def row_softmax(x):
    m = x.max(axis=1, keepdims=True)
    d = x - m
    e = np.exp(d.astype(np.float64)).astype(np.float32)
    s = np.add.accumulate(e, axis=1, dtype=np.float32)[:, -1:]
    return e / s


def test_row_softmax_in_a_loop_matches_numpy_bit_for_bit():
    x = (RNG.standard_normal((64, 128)) * 3).astype(np.float32)
    out = ptoc.run(ROW_SOFTMAX, {"x": x, "y": np.zeros_like(x)})
    assert set(out) == {"y"}
    assert_bitwise(out["y"], row_softmax(x))


ROW_MAX = """
func.func @row_max(%x: memref<16x256xf32>, %out: memref<16x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %ninf = arith.constant 0xFF800000 : f32
  %init = "pto.texpands"(%ninf) : (f32) -> !pto.tile<16x1xf32>
  %m = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (!pto.tile<16x1xf32>) {
    %col = arith.muli %j, %c64 : index
    %t = "pto.tload"(%x, %c0, %col) : (memref<16x256xf32>, index, index) -> !pto.tile<16x64xf32>
    %p = "pto.trowmax"(%t) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
    %n = "pto.tmax"(%acc, %p) : (!pto.tile<16x1xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x1xf32>
    scf.yield %n : !pto.tile<16x1xf32>
  }
  "pto.tstore"(%m, %out, %c0, %c0) : (!pto.tile<16x1xf32>, memref<16x1xf32>, index, index) -> ()
  return
}
"""


def test_row_max_from_partial_maxes_across_column_tiles():
    x = RNG.standard_normal((16, 256)).astype(np.float32)
    x[3, 200] = 1e30  # the winner of row 3 sits in the last column tile
    x[5, :] = -np.inf
    out = ptoc.run(ROW_MAX, {"x": x, "out": np.zeros((16, 1), np.float32)})
    assert_bitwise(out["out"], x.max(axis=1, keepdims=True))


AFFINE = """
func.func @affine(%x: memref<256x64xf32>, %y: memref<256x64xf32>, %a: f32, %b: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 256 : index
  scf.for %i = %c0 to %n step %c1 {
    %t = "pto.tload"(%x, %i, %c0) : (memref<256x64xf32>, index, index) -> !pto.tile<1x64xf32>
    %s = "pto.tmuls"(%t, %a) : (!pto.tile<1x64xf32>, f32) -> !pto.tile<1x64xf32>
    %r = "pto.tadds"(%s, %b) : (!pto.tile<1x64xf32>, f32) -> !pto.tile<1x64xf32>
    "pto.tstore"(%r, %y, %i, %c0) : (!pto.tile<1x64xf32>, memref<256x64xf32>, index, index) -> ()
  }
  return
}
"""


def test_affine_map_over_256_iterations():
    x = RNG.standard_normal((256, 64)).astype(np.float32)
    a, b = np.float32(1.7), np.float32(-0.25)
    out = ptoc.run(AFFINE, {"x": x, "y": np.zeros_like(x), "a": float(a), "b": float(b)})
    assert_bitwise(out["y"], x * a + b)  # two float32 roundings, as numpy does them


COLUMN_NORM = """
func.func @column_norm(%x: memref<64x32xf32>, %y: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %t0 = "pto.tload"(%x, %c0, %c0) : (memref<64x32xf32>, index, index) -> !pto.tile<8x32xf32>
  %m0 = "pto.tcolmax"(%t0) : (!pto.tile<8x32xf32>) -> !pto.tile<1x32xf32>
  %m = scf.for %i = %c8 to %c64 step %c8 iter_args(%acc = %m0) -> (!pto.tile<1x32xf32>) {
    %t = "pto.tload"(%x, %i, %c0) : (memref<64x32xf32>, index, index) -> !pto.tile<8x32xf32>
    %p = "pto.tcolmax"(%t) : (!pto.tile<8x32xf32>) -> !pto.tile<1x32xf32>
    %n = "pto.tmax"(%acc, %p) : (!pto.tile<1x32xf32>, !pto.tile<1x32xf32>) -> !pto.tile<1x32xf32>
    scf.yield %n : !pto.tile<1x32xf32>
  }
  scf.for %i = %c0 to %c64 step %c8 {
    %t = "pto.tload"(%x, %i, %c0) : (memref<64x32xf32>, index, index) -> !pto.tile<8x32xf32>
    %r = "pto.tcolexpanddiv"(%t, %m) : (!pto.tile<8x32xf32>, !pto.tile<1x32xf32>) -> !pto.tile<8x32xf32>
    "pto.tstore"(%r, %y, %i, %c0) : (!pto.tile<8x32xf32>, memref<64x32xf32>, index, index) -> ()
  }
  return
}
"""


def test_column_normalisation_with_a_loop_carried_running_max():
    x = (RNG.random((64, 32)) * 10 + 0.5).astype(np.float32)
    out = ptoc.run(COLUMN_NORM, {"x": x, "y": np.zeros_like(x)})
    assert_bitwise(out["y"], x / x.max(axis=0, keepdims=True))


@pytest.mark.parametrize("source", [ROW_SOFTMAX, ROW_MAX, AFFINE, COLUMN_NORM])
def test_compiled_gm_kernels_verify_against_their_source(source):
    ptoc.verify(source, trials=5, seed=3)


def test_a_constant_offset_past_the_memref_is_a_located_error():
    bad = AFFINE.replace("%n = arith.constant 256", "%n = arith.constant 257")
    with pytest.raises(ptoc.CompileError) as info:
        ptoc.compile(bad, filename="affine.mlir")
    d = info.value.diagnostics[0]
    assert d.file == "affine.mlir" and d.severity == "error"
