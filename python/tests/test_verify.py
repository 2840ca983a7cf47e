"""ptoc.verify."""

import pytest

import ptoc
from conftest import scale_source


def test_compiled_kernels_match_their_source(softmax_source):
    assert ptoc.verify(softmax_source, trials=20, seed=3) is None
    assert ptoc.verify(scale_source("bf16"), trials=50) is None
    assert ptoc.verify(scale_source("si8"), trials=50, opt_level=0) is None


def test_source_that_does_not_compile_raises_compile_error():
    with pytest.raises(ptoc.CompileError) as info:
        ptoc.verify(scale_source().replace("2x1xf32", "2x1xf16"), filename="bad.mlir")
    assert info.value.diagnostics[0].file == "bad.mlir"


TWO = """
func.func @k(%x: !pto.tile<4x8xsi16>, %v: !pto.tile<4x1xsi16>) -> !pto.tile<4x8xsi16> {
  %r = "pto.trowexpandmax"(%x, %v) : (!pto.tile<4x8xsi16>, !pto.tile<4x1xsi16>) -> !pto.tile<4x8xsi16>
  return %r : !pto.tile<4x8xsi16>
}
func.func @k_min(%x: !pto.tile<4x8xsi16>, %v: !pto.tile<4x1xsi16>) -> !pto.tile<4x8xsi16> {
  %r = "pto.trowexpandmin"(%x, %v) : (!pto.tile<4x8xsi16>, !pto.tile<4x1xsi16>) -> !pto.tile<4x8xsi16>
  return %r : !pto.tile<4x8xsi16>
}
"""


def test_a_mismatch_raises_verify_error_with_its_fields():
    # The MAX kernel checked against the MIN function's meaning disagrees at the first element
    # where x != v; the error names the op, its location, the element, both values and inputs.
    from ptoc import _ptoc

    _ptoc.verify_against(TWO, "k.mlir", "k", "k", 20, 1)  # a kernel against itself matches
    with pytest.raises(ptoc.VerifyError) as info:
        _ptoc.verify_against(TWO, "k.mlir", "k", "k_min", 20, 1)
    e = info.value
    assert (e.kernel, e.trial, e.result, e.op) == ("k", 0, "r0", "pto.trowexpandmin")
    assert (e.file, e.line, e.col) == ("k.mlir", 7, 8)
    row, col = e.element
    x, v = e.inputs
    assert (x["argument"], x["row"], x["col"], x["dtype"]) == ("x", row, col, "si16")
    assert (v["argument"], v["row"], v["col"]) == ("v", row, 0)
    signed = lambda bits: bits - (1 << 16) if bits >= 1 << 15 else bits  # noqa: E731
    xs, vs = signed(x["bits"]), signed(v["bits"])
    assert int(e.compiled.split()[0], 16) == max(xs, vs) & 0xFFFF
    assert int(e.reference.split()[0], 16) == min(xs, vs) & 0xFFFF
    assert str(e).startswith("@k: mismatch in trial 0: result #0 (r0) = pto.trowexpandmin at k.mlir:7:8")
