"""ptoc.run: typed numpy arrays in and out, checked against numpy's own IEEE arithmetic."""

import numpy as np
import pytest

import ptoc
from conftest import scale_source, unary_source

RNG = np.random.default_rng(11)


def test_float32_products_match_numpy_bit_for_bit():
    obj = ptoc.compile(scale_source(rows=8, cols=16))
    x = RNG.standard_normal((8, 16)).astype(np.float32) * 1e3
    v = RNG.standard_normal((8, 1)).astype(np.float32)
    out = ptoc.run(obj, {"x": x, "v": v})
    assert set(out) == {"r0"}
    assert out["r0"].dtype == np.float32 and out["r0"].shape == (8, 16)
    assert out["r0"].view(np.uint32).tolist() == (x * v).view(np.uint32).tolist()


@pytest.mark.parametrize("dtype, numpy_type", [("f64", np.float64), ("f16", np.float16)])
def test_other_float_widths_match_numpy(dtype, numpy_type):
    # An f16 product of f16 values is exact in float32, so numpy's one rounding back is the ISA's.
    x = (RNG.standard_normal((2, 4)) * 8).astype(numpy_type)
    v = RNG.standard_normal((2, 1)).astype(numpy_type)
    out = ptoc.run(scale_source(dtype), {0: x, 1: v})["r0"]
    assert out.dtype == numpy_type
    assert out.tobytes() == (x * v).astype(numpy_type).tobytes()


def test_integer_products_wrap_like_numpy():
    x = RNG.integers(-30000, 30000, (2, 4), dtype=np.int16)
    v = RNG.integers(-300, 300, (2, 1), dtype=np.int16)
    out = ptoc.run(scale_source("si16"), {"x": x, "v": v})["r0"]
    assert out.dtype == np.int16
    assert out.tolist() == (x * v).tolist()  # numpy int16 multiplication wraps too


def _round_to_bf16(values: np.ndarray) -> np.ndarray:
    """float32 -> bf16 bits, round to nearest even (finite values)."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def test_bf16_travels_as_raw_bits_without_ml_dtypes():
    x_bits = _round_to_bf16(RNG.standard_normal((2, 4)).astype(np.float32))
    v_bits = _round_to_bf16(RNG.standard_normal((2, 1)).astype(np.float32))
    out = ptoc.run(scale_source("bf16"), {"x": x_bits, "v": v_bits})["r0"]
    as_f32 = lambda b: (b.astype(np.uint32) << 16).view(np.float32)  # noqa: E731
    # A bf16 product is exact in float32 (8 x 8 significant bits); one RNE rounding to bf16.
    want = _round_to_bf16(as_f32(x_bits) * as_f32(v_bits))
    if ptoc._ml_dtypes is None:
        assert out.dtype == np.uint16
        assert out.tolist() == want.tolist()
    else:
        assert out.view(np.uint16).tolist() == want.tolist()


# Every arithmetic element type through TNEG: floats flip the sign bit only, integers are
# 0 - x modulo the width (docs/isa.md §1.6). Results of types numpy lacks come back as raw bits.
TYPES = {
    "f64": (np.float64, 64),
    "f32": (np.float32, 32),
    "f16": (np.float16, 16),
    "bf16": (None, 16),
    "tf32": (None, 32),
    "hf32": (None, 32),
    "f8E4M3FN": (None, 8),
    "f8E5M2": (None, 8),
    "si64": (np.int64, 64),
    "si32": (np.int32, 32),
    "si16": (np.int16, 16),
    "si8": (np.int8, 8),
    "ui64": (np.uint64, 64),
    "ui32": (np.uint32, 32),
    "ui16": (np.uint16, 16),
    "ui8": (np.uint8, 8),
}
RAW = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


@pytest.mark.parametrize("dtype", sorted(TYPES))
def test_every_element_type_round_trips_through_tneg(dtype):
    numpy_type, width = TYPES[dtype]
    raw = RAW[width]
    bits = RNG.integers(0, 2**width - 1, (2, 8), dtype=raw, endpoint=True)
    if dtype in ("tf32", "hf32"):  # valid encodings: the low 13 (tf32) or 12 (hf32) bits are 0
        bits &= raw(~((1 << (13 if dtype == "tf32" else 12)) - 1) & (2**32 - 1))
    if dtype == "f8E4M3FN":  # keep off the NaN encodings 0x7f/0xff
        bits &= raw(0xF7)
    out = ptoc.run(unary_source("tneg", dtype), {"x": bits})["r0"]
    float_type = dtype.startswith(("f", "bf", "tf", "hf"))
    if float_type:
        want = bits ^ raw(1 << (width - 1))
    else:
        want = (raw(0) - bits).astype(raw)  # 0 - x modulo 2**width
    expected_type = numpy_type if numpy_type is not None else raw
    if ptoc._ml_dtypes is not None and dtype in ("bf16", "f8E4M3FN", "f8E5M2"):
        expected_type = out.dtype  # typed by ml_dtypes; the bits are what is checked
    assert out.dtype == np.dtype(expected_type)
    assert out.view(raw).tolist() == want.tolist()


def test_one_dimensional_inputs_take_the_valid_shape(softmax_source):
    x = np.load(ptoc_repo_file("examples/softmax_rows.x.npy"))
    out2d = ptoc.run(softmax_source, {"x": x})["r0"]
    out1d = ptoc.run(softmax_source, {"x": x.reshape(-1)})["r0"]
    assert out1d.tobytes() == out2d.tobytes()
    # Each row of a softmax sums to one (within float32 rounding of 64 terms).
    assert np.all(np.abs(out2d.astype(np.float64).sum(axis=1) - 1) < 1e-5)


def ptoc_repo_file(path):
    from conftest import REPO

    return REPO / path


def test_fortran_order_and_big_endian_inputs_mean_their_values():
    x = np.asfortranarray(RNG.standard_normal((2, 4)).astype(np.float32))
    v = RNG.standard_normal((2, 1)).astype(">f4")
    out = ptoc.run(scale_source(), {"x": x, "v": v})["r0"]
    assert out.tobytes() == (x * v.astype(np.float32)).astype(np.float32).tobytes()


def test_wrong_inputs_are_run_errors_that_say_what_fits():
    src = scale_source()
    x = np.zeros((2, 4), np.float32)
    with pytest.raises(ptoc.RunError, match="takes a 2x1 valid region, the input is 1x2"):
        ptoc.run(src, {"x": x, "v": np.zeros((1, 2), np.float32)})
    with pytest.raises(ptoc.RunError, match="has no argument 'w'"):
        ptoc.run(src, {"x": x, "w": np.zeros((2, 1), np.float32)})
    with pytest.raises(ptoc.RunError, match="no input for 'v'"):
        ptoc.run(src, {"x": x})
    with pytest.raises(ptoc.RunError, match="holds FP32 elements; the input holds S32"):
        ptoc.run(src, {"x": x, "v": np.zeros((2, 1), np.int32)})
    with pytest.raises(ptoc.RunError, match="holds no ptoc element type"):
        ptoc.run(src, {"x": x, "v": np.zeros((2, 1), np.complex64)})
    with pytest.raises(ptoc.RunError, match="cannot load the object"):
        ptoc.run(b"\x7fELF-not-really", {})


def test_a_fault_reports_class_bundle_and_reason():
    src = scale_source("si32").replace("trowexpandmul", "trowexpanddiv")
    n = np.array([[7, -7, 100, -128], [1, 2, 3, 4]], np.int32)
    with pytest.raises(ptoc.FaultError) as info:
        ptoc.run(src, {"x": n, "v": np.array([[2], [0]], np.int32)})
    e = info.value
    assert (e.fault_class, e.bundle) == ("Fault_TileLegality", 0)
    assert "zero" in e.reason
    # Without the zero it runs: S32 division truncates toward zero.
    out = ptoc.run(src, {"x": n, "v": np.array([[2], [-3]], np.int32)})["r0"]
    assert out.tolist() == [[3, -3, 50, -64], [0, 0, -1, -1]]


def test_source_that_does_not_compile_raises_compile_error():
    with pytest.raises(ptoc.CompileError) as info:
        ptoc.run("func.func @k(", {}, filename="k.mlir")
    assert info.value.diagnostics[0].file == "k.mlir"


def test_several_kernels_need_a_function_name():
    two = scale_source() + scale_source().replace("@scale", "@other")
    x, v = np.ones((2, 4), np.float32), np.full((2, 1), 3, np.float32)
    with pytest.raises(ptoc.RunError, match="2 kernels"):
        ptoc.run(two, {"x": x, "v": v})
    assert ptoc.run(two, {"x": x, "v": v}, function="other")["r0"].tolist() == [[3] * 4] * 2


# TCMP -> TSEL: a predicate result (a < b), the minimum it selects, and a predicate argument
# picking between the same sources.
MINSEL = """
func.func @minsel(%a: !pto.tile<4x16xf32>, %b: !pto.tile<4x16xf32>, %p: !pto.tile<4x16xi1>) -> (!pto.tile<4x16xi1>, !pto.tile<4x16xf32>, !pto.tile<4x16xf32>) {
  %lt = "pto.tcmp"(%a, %b) {pto.cmode = "lt"} : (!pto.tile<4x16xf32>, !pto.tile<4x16xf32>) -> !pto.tile<4x16xi1>
  %m = "pto.tsel"(%lt, %a, %b) : (!pto.tile<4x16xi1>, !pto.tile<4x16xf32>, !pto.tile<4x16xf32>) -> !pto.tile<4x16xf32>
  %s = "pto.tsel"(%p, %a, %b) : (!pto.tile<4x16xi1>, !pto.tile<4x16xf32>, !pto.tile<4x16xf32>) -> !pto.tile<4x16xf32>
  return %lt, %m, %s : !pto.tile<4x16xi1>, !pto.tile<4x16xf32>, !pto.tile<4x16xf32>
}
"""


def test_predicates_are_bool_arrays_checked_against_numpy():
    # Ties, signed zeros, NaNs and infinities among random values, so every relation case occurs.
    special = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1.0], np.float32)
    a = RNG.choice(special, (4, 16)).astype(np.float32)
    b = RNG.choice(special, (4, 16)).astype(np.float32)
    a[2:] = RNG.standard_normal((2, 16)).astype(np.float32)
    b[3] = a[3]
    p = RNG.integers(0, 2, (4, 16)).astype(bool)
    obj = ptoc.compile(MINSEL)
    out = ptoc.run(obj, {"a": a, "b": b, "p": p})
    with np.errstate(invalid="ignore"):
        lt = a < b  # IEEE: NaN compares false, -0 == +0
    assert out["r0"].dtype == np.bool_ and out["r0"].shape == (4, 16)
    assert out["r0"].tolist() == lt.tolist()
    # TSEL copies the chosen element's bits: compare bit patterns (zeros' signs, NaNs).
    assert out["r1"].view(np.uint32).tolist() == np.where(lt, a, b).view(np.uint32).tolist()
    assert out["r2"].view(np.uint32).tolist() == np.where(p, a, b).view(np.uint32).tolist()
    # uint8 0s and 1s are a predicate's raw bits: the same run.
    again = ptoc.run(obj, {"a": a, "b": b, "p": p.astype(np.uint8)})
    assert all(again[k].tobytes() == out[k].tobytes() for k in out)
    assert ptoc.verify(MINSEL, trials=50, seed=5) is None


def test_predicate_inputs_are_checked():
    obj = ptoc.compile(MINSEL)
    a = np.zeros((4, 16), np.float32)
    two = np.zeros((4, 16), np.uint8)
    two[1, 3] = 2
    with pytest.raises(ptoc.RunError, match="a predicate element is 0 or 1, not 2"):
        ptoc.run(obj, {"a": a, "b": a, "p": two})
    with pytest.raises(ptoc.RunError, match="holds PRED elements; the input holds FP32"):
        ptoc.run(obj, {"a": a, "b": a, "p": a})
    with pytest.raises(ptoc.RunError, match="holds FP32 elements; the input holds PRED"):
        ptoc.run(obj, {"a": a.astype(bool), "b": a, "p": a.astype(bool)})
