"""Shared kernels for the ptoc package's tests."""

import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def scale_source(dtype: str = "f32", rows: int = 2, cols: int = 4) -> str:
    """r = x * v, with the (rows x 1) vector v broadcast along each row of x."""
    t, v = f"!pto.tile<{rows}x{cols}x{dtype}>", f"!pto.tile<{rows}x1x{dtype}>"
    return (
        f"func.func @scale(%x: {t}, %v: {v}) -> {t} {{\n"
        f'  %r = "pto.trowexpandmul"(%x, %v) : ({t}, {v}) -> {t}\n'
        f"  return %r : {t}\n"
        "}\n"
    )


def unary_source(op: str, dtype: str, rows: int = 2, cols: int = 8) -> str:
    t = f"!pto.tile<{rows}x{cols}x{dtype}>"
    return (
        f"func.func @{op}(%x: {t}) -> {t} {{\n"
        f'  %r = "pto.{op}"(%x) : ({t}) -> {t}\n'
        f"  return %r : {t}\n"
        "}\n"
    )


@pytest.fixture
def softmax_source() -> str:
    return (REPO / "examples" / "softmax_rows.mlir").read_text()
