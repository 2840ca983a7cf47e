"""Kernels over global memory from Python: memref arguments as numpy arrays, scalars as Python
numbers, stored memrefs back as arrays, GM faults with their address, and target profiles.
The kernel is test/runtime/gm-loop.s, written by hand in PTO assembly (the assembler's path
into the same API; test_gm_kernels.py compiles GM kernels from MLIR): for i < n, out[i, :] = x[i, :] + x[i, :], one 8-column FP32 row a loop."""

import numpy as np
import pytest

import ptoc
from conftest import REPO, scale_source

GM_LOOP = (REPO / "test" / "runtime" / "gm-loop.s").read_text()
X = (np.arange(32, dtype=np.float32) / 2 - 3).reshape(4, 8)


@pytest.fixture(scope="module")
def double_rows():
    return ptoc.assemble(GM_LOOP, filename="gm-loop.s")


def expected(n):
    want = np.zeros((4, 8), np.float32)
    want[:n] = X[:n] + X[:n]  # numpy's own FP32 sums
    return want


@pytest.mark.parametrize("n", [0, 1, 3, 4])
def test_memref_in_memref_out(double_rows, n):
    out = ptoc.run(double_rows, {"x": X, "out": np.zeros((4, 8), np.float32), "n": n})
    assert set(out) == {"out"}  # x is only read; no result tiles
    assert out["out"].dtype == np.float32 and out["out"].shape == (4, 8)
    assert out["out"].view(np.uint32).tolist() == expected(n).view(np.uint32).tolist()


def test_a_memref_not_given_starts_as_zeros(double_rows):
    # As `ptoc run` has it: an output need not be passed in.
    out = ptoc.run(double_rows, {"x": X, "n": 3})["out"]
    assert out.view(np.uint32).tolist() == expected(3).view(np.uint32).tolist()


def test_memrefs_keep_what_the_kernel_does_not_store(double_rows):
    # Rows at and past n are the caller's buffer as given.
    start = np.full((4, 8), 7.5, np.float32)
    out = ptoc.run(double_rows, {0: X.reshape(-1), 1: start, 2: np.int64(2)})["out"]
    want = expected(2)
    want[2:] = 7.5
    assert out.tolist() == want.tolist()


def test_scalars_must_fit_their_type(double_rows):
    base = {"x": X, "out": np.zeros((4, 8), np.float32)}
    with pytest.raises(ptoc.RunError, match=r"'n' \(index in a2\): 3.0 is not an integer"):
        ptoc.run(double_rows, {**base, "n": 3.0})
    with pytest.raises(ptoc.RunError, match="needs more than 64 bits"):
        ptoc.run(double_rows, {**base, "n": 2**70})
    with pytest.raises(ptoc.RunError, match="takes an array, not a number"):
        ptoc.run(double_rows, {**base, "x": 1, "n": 1})
    with pytest.raises(ptoc.RunError, match="no input for 'n'"):
        ptoc.run(double_rows, {"x": X, "out": np.zeros((4, 8), np.float32)})
    with pytest.raises(ptoc.RunError, match="takes a 4x8 valid region, the input is 2x8"):
        ptoc.run(double_rows, {**base, "x": X[:2], "n": 1})


def test_a_gm_fault_has_class_bundle_and_address(double_rows):
    # n = 5 reads row 4 of a 4-row x: the element past the buffer, in bundle 1 + 4 * 4 = 17.
    with pytest.raises(ptoc.FaultError) as info:
        ptoc.run(double_rows, {"x": X, "out": np.zeros((4, 8), np.float32), "n": 5})
    e = info.value
    assert (e.fault_class, e.bundle, e.address) == ("Fault_DataPage", 17, 0x10080)
    assert str(e).startswith("Fault_DataPage in bundle 17 at GM address 0x10080: ")


def test_a_tile_fault_has_no_address():
    src = scale_source("si32").replace("trowexpandmul", "trowexpanddiv")
    with pytest.raises(ptoc.FaultError) as info:
        ptoc.run(src, {"x": np.ones((2, 4), np.int32), "v": np.zeros((2, 1), np.int32)})
    assert info.value.address is None


def test_assembly_errors_are_located():
    with pytest.raises(ptoc.CompileError) as info:
        ptoc.assemble(".kernel k\nBSTART.VEC TNOPE, FP32\n", filename="bad.s")
    d = info.value.diagnostics[0]
    assert (d.file, d.line, d.severity) == ("bad.s", 2, "error")


@pytest.mark.parametrize("profile", ["queue", "absolute"])
def test_target_profile_is_recorded(profile):
    text = ptoc.compile(scale_source(), emit="asm", target_profile=profile)
    assert f".profile {profile}\n" in text
    obj = ptoc.compile(scale_source(), target_profile=profile)
    out = ptoc.run(obj, {"x": np.ones((2, 4), np.float32), "v": np.full((2, 1), 2, np.float32)})
    assert out["r0"].tolist() == [[2.0] * 4] * 2


def test_an_unknown_target_profile_is_a_value_error():
    with pytest.raises(ValueError, match="'fifo' is not a target profile"):
        ptoc.compile(scale_source(), target_profile="fifo")


def test_float_scalars_round_once_to_their_type():
    # test/runtime/tile-scalar.s: out = min(max(x * alpha + beta, +0), hi), shifted = (x - beta)
    # / alpha, fill = hi. alpha = 0.1 is not an FP32 value: it rounds once (RNE) to 0x3dcccccd,
    # and every op then rounds once, as numpy's float32 arithmetic does.
    obj = ptoc.assemble((REPO / "test" / "runtime" / "tile-scalar.s").read_text())
    zeros = np.zeros((4, 8), np.float32)
    args = {"x": X, "out": zeros, "shifted": zeros, "fill": np.zeros((1, 8), np.float32)}
    out = ptoc.run(obj, {**args, "alpha": 0.1, "beta": -1, "hi": 4})
    alpha, beta, hi = np.float32(0.1), np.float32(-1), np.float32(4)
    assert alpha.view(np.uint32) == 0x3DCCCCCD
    want = np.minimum(np.maximum(X * alpha + beta, np.float32(0)), hi)
    assert out["out"].view(np.uint32).tolist() == want.view(np.uint32).tolist()
    shifted = (X - beta) / alpha
    assert out["shifted"].view(np.uint32).tolist() == shifted.view(np.uint32).tolist()
    assert out["fill"].tolist() == [[4.0] * 8]
    # A numpy scalar of the type passes as it is; an int without an exact binary64 value fails.
    again = ptoc.run(obj, {**args, "alpha": alpha, "beta": np.float32(-1), "hi": np.float32(4)})
    assert all(again[k].tobytes() == out[k].tobytes() for k in out)
    with pytest.raises(ptoc.RunError, match="has no exact binary64 value"):
        ptoc.run(obj, {**args, "alpha": 2**53 + 1, "beta": -1, "hi": 4})
