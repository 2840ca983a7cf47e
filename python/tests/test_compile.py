"""ptoc.compile: outputs, diagnostics as objects, options."""

import re

import pytest

import ptoc
from conftest import scale_source


def test_object_is_elf_bytes_and_text_outputs_are_str(softmax_source):
    obj = ptoc.compile(softmax_source, filename="softmax_rows.mlir")
    assert isinstance(obj, bytes) and obj[:4] == b"\x7fELF"
    asm = ptoc.compile(softmax_source, emit="asm")
    assert isinstance(asm, str) and "BSTART.SFU TROWMAX, FP32" in asm
    words = ptoc.compile(softmax_source, emit="words")
    # One hex word per line, followed by the same instruction the assembly has there.
    word_lines = [l for l in words.splitlines() if l and not l.startswith(";")]
    asm_lines = [l for l in asm.splitlines() if l and not l.startswith((";", "."))]
    assert all(re.fullmatch(r"0x[0-9A-F]{8}  .+", l) for l in word_lines)
    assert [l[12:] for l in word_lines] == asm_lines
    mlir = ptoc.compile(softmax_source, emit="mlir")
    assert 'pto.tsize' in mlir and "func.func @softmax_rows" in mlir


def test_opt_level_0_leaves_fusion_out():
    # x * trowexpand(v) fuses into one trowexpandmul bundle at -O2 and stays two at -O0.
    t, v = "!pto.tile<2x4xf32>", "!pto.tile<2x1xf32>"
    src = (
        f"func.func @k(%x: {t}, %v: {v}) -> {t} {{\n"
        f'  %b = "pto.trowexpand"(%v) : ({v}) -> {t}\n'
        f'  %r = "pto.tmul"(%x, %b) : ({t}, {t}) -> {t}\n'
        f"  return %r : {t}\n}}\n"
    )
    assert ptoc.compile(src, emit="asm").count("BSTART") == 1
    assert ptoc.compile(src, emit="asm", opt_level=0).count("BSTART") == 2


def test_pipeline_and_pe_mask_reach_the_compiler():
    src = scale_source()
    assert "mask=1100" in ptoc.compile(src, emit="asm", pe_mask="1100")
    mlir = ptoc.compile(src, emit="mlir", pipeline="pto-verify")
    assert "pto.tsize" not in mlir  # no allocation ran


def test_compile_error_carries_located_diagnostics_with_rule_and_fault():
    bad = scale_source().replace("%v: !pto.tile<2x1xf32>", "%v: !pto.tile<2x1xf16>").replace(
        "(!pto.tile<2x4xf32>, !pto.tile<2x1xf32>)", "(!pto.tile<2x4xf32>, !pto.tile<2x1xf16>)"
    )
    with pytest.raises(ptoc.CompileError) as info:
        ptoc.compile(bad, filename="bad.mlir")
    d = info.value.diagnostics[0]
    assert (d.file, d.line, d.col, d.severity) == ("bad.mlir", 2, 8, "error")
    assert (d.rule, d.fault) == ("same-type", "Fault_TileLegality")
    assert "[same-type, Fault_TileLegality]" in d.message
    assert str(info.value).startswith("bad.mlir:2:8: error: ")


def test_mlir_parse_errors_have_no_rule_but_a_location():
    with pytest.raises(ptoc.CompileError) as info:
        ptoc.compile("func.func @k(%x: !pto.tile<2x4xf32>) {\n  return %y\n}\n", filename="p.mlir")
    d = info.value.diagnostics[0]
    assert (d.file, d.line, d.severity, d.rule, d.fault) == ("p.mlir", 2, "error", None, None)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"emit": "elf"}, "'elf' is not an output kind"),
        ({"pe_mask": "0000"}, "no-op"),
        ({"pe_mask": "101"}, "not an encodable PE mask"),
        ({"pipeline": "pto-verify,,"}, "invalid --pass-pipeline at character 12"),
    ],
)
def test_options_that_cannot_run_are_value_errors(kwargs, words):
    with pytest.raises(ValueError, match=words):
        ptoc.compile(scale_source(), **kwargs)
