"""ptoc: compile, run and verify PTO tile-ISA kernels written in the MLIR ``pto`` dialect.

>>> import numpy as np, ptoc
>>> src = '''
... func.func @neg(%x: !pto.tile<2x4xf32>) -> !pto.tile<2x4xf32> {
...   %r = "pto.tneg"(%x) : (!pto.tile<2x4xf32>) -> !pto.tile<2x4xf32>
...   return %r : !pto.tile<2x4xf32>
... }'''
>>> obj = ptoc.compile(src, filename="neg.mlir")       # ELF object bytes
>>> out = ptoc.run(obj, {"x": np.arange(8, dtype=np.float32).reshape(2, 4)})
>>> out["r0"].tolist()
[[-0.0, -1.0, -2.0, -3.0], [-4.0, -5.0, -6.0, -7.0]]
>>> ptoc.verify(src, trials=20)

Kernels over global memory take numpy arrays for their memref arguments (the whole buffer) and
Python numbers for their scalar arguments; a memref left out starts as zeros, and every memref
the kernel stores to comes back, by its argument's name, next to the result tiles. They come from
MLIR (``pto.tload``/``pto.tstore`` in ``scf.for`` loops), from PTO assembly (:func:`assemble`),
or from linalg-on-tensors programs as torch-mlir emits them: ``ptoc.run(src, {"arg0": x})``
returns the program's results as ``"r0"``, ``"r1"``, ... (2-D arrays; a vector comes back as a
column or a row).

Every call releases the GIL while it compiles or runs and shares nothing with other calls, so
threads run in parallel. Elements whose type numpy lacks (bf16, f8E4M3FN, f8E5M2, tf32, hf32)
travel as raw unsigned bits of their width, or as ``ml_dtypes`` arrays when that package is
installed (bf16 and the fp8 types; tf32 and hf32 stay raw: ml_dtypes has no such types). A
predicate tile (``!pto.tile<RxCxi1>``, TCMP's result and TSEL's mask) is a ``bool`` array, one
element per bit; a predicate argument also takes ``uint8`` 0s and 1s.
"""

from __future__ import annotations

from typing import Dict, Mapping, Optional, Union

import numpy as np

from . import _ptoc
from ._errors import CompileError, Diagnostic, FaultError, RunError, VerifyError

__all__ = [
    "assemble",
    "compile",
    "run",
    "verify",
    "CompileError",
    "Diagnostic",
    "FaultError",
    "RunError",
    "VerifyError",
]

try:  # optional: typed bf16 / fp8 arrays
    import ml_dtypes as _ml_dtypes
except ImportError:  # pragma: no cover - depends on the environment
    _ml_dtypes = None

# ptoc element type -> numpy dtype of its values, where numpy (or ml_dtypes) has one.
_NUMPY = {
    "f64": np.dtype(np.float64),
    "f32": np.dtype(np.float32),
    "f16": np.dtype(np.float16),
    "si64": np.dtype(np.int64),
    "si32": np.dtype(np.int32),
    "si16": np.dtype(np.int16),
    "si8": np.dtype(np.int8),
    "ui64": np.dtype(np.uint64),
    "ui32": np.dtype(np.uint32),
    "ui16": np.dtype(np.uint16),
    "ui8": np.dtype(np.uint8),
    "i1": np.dtype(np.bool_),  # a predicate: numpy's bool bytes are the unpacked 0/1 elements
}
if _ml_dtypes is not None:
    _NUMPY.update(
        {
            "bf16": np.dtype(_ml_dtypes.bfloat16),
            "f8E4M3FN": np.dtype(_ml_dtypes.float8_e4m3fn),
            "f8E5M2": np.dtype(_ml_dtypes.float8_e5m2),
        }
    )
_PTOC = {dtype: name for name, dtype in _NUMPY.items()}
_RAW = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}


def compile(
    source: str,
    filename: str = "<string>",
    emit: str = "obj",
    opt_level: int = 2,
    pipeline: Optional[str] = None,
    pe_mask: str = "1111",
    target_profile: Optional[str] = None,
    assume_no_nans: bool = False,
    allow_reassociation: bool = False,
    strip_assertions: bool = False,
) -> Union[bytes, str]:
    """Compile MLIR ``source``: ``bytes`` of an ELF object for ``emit="obj"``, ``str`` for
    ``"asm"``, ``"words"`` and ``"mlir"``. ``target_profile`` (``"queue"`` or ``"absolute"``;
    ``None`` for the default) is how the target names tiles, recorded in the object. For linalg
    input, ``assume_no_nans`` and ``allow_reassociation`` are ``--assume-no-nans`` and
    ``--allow-reassociation``: less exact meanings the program then has (run a kernel compiled
    with them by passing the object to :func:`run`); ``strip_assertions`` is
    ``--strip-assertions``, which drops torch-mlir's ``cf.assert`` checks instead of refusing
    them. Raises :class:`CompileError` (with
    ``.diagnostics``) when it does not compile, ``ValueError`` for options that cannot run."""
    semantics = (assume_no_nans, allow_reassociation, strip_assertions)
    return _ptoc.compile(
        source, filename, emit, opt_level, pipeline, pe_mask, target_profile, semantics)


def assemble(source: str, filename: str = "<string>") -> bytes:
    """The ELF object of PTO assembly ``source`` (canonical syntax or the spec's variants, with
    ``.kernel``, ``.profile``, ``.memref``, ``.scalar`` ... directives), as ``ptoc asm`` writes
    it; :func:`run` runs it. Raises :class:`CompileError` with located diagnostics."""
    return _ptoc.assemble(source, filename)


def _element_type(array: np.ndarray) -> str:
    name = _PTOC.get(array.dtype.newbyteorder("="))
    if name is None:
        raise RunError(f"numpy dtype {array.dtype} holds no ptoc element type")
    return name


def _result_array(dtype: str, rows: int, cols: int, data: bytes) -> np.ndarray:
    numpy_type = _NUMPY.get(dtype)
    if numpy_type is None:  # no numpy type: raw bits of the element's width
        numpy_type = _RAW[len(data) // (rows * cols)]
    return np.frombuffer(data, dtype=numpy_type).reshape(rows, cols).copy()


def run(
    obj_or_source: Union[bytes, str],
    inputs: Mapping[Union[str, int], Union[np.ndarray, int, float]],
    function: Optional[str] = None,
    filename: str = "<string>",
) -> Dict[str, np.ndarray]:
    """Run a kernel on the interpreter.

    ``obj_or_source`` is an object from :func:`compile` or :func:`assemble`, or MLIR source
    text (compiled first). ``inputs`` maps each argument, by source name (``"x"`` for ``%x``)
    or position (``0``), to its value: for a tile its valid region, for a memref the whole
    buffer, as a 2-D array of that shape (or 1-D of that many elements) whose dtype is the
    element type's, or the unsigned integer of its width for raw bits (``bool``, or ``uint8``
    0s and 1s, for a predicate); for a scalar a Python ``int`` or ``float`` (rounded once to a
    float type; an integer must fit an integer type) or a numpy scalar of its type. Returns
    each result tile by the name ``ptoc run`` uses (``"r0"``, ...) and each memref the kernel
    stores to by its argument's name, as typed arrays (``bool`` for a predicate). Raises
    :class:`RunError` for inputs the kernel cannot take, :class:`FaultError` when it faults
    (with the GM ``address`` of a GM fault), :class:`CompileError` for source that does not
    compile."""
    packed, numbers = [], []
    for name, value in inputs.items():
        if isinstance(value, (int, float)) and not isinstance(value, np.generic):
            numbers.append((str(name), value))
            continue
        array = np.asarray(value)
        array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("="))
        packed.append((str(name), _element_type(array), list(array.shape), array.tobytes()))
    _flags, results, memrefs = _ptoc.run(obj_or_source, packed, numbers, function, filename)
    # Result tiles win a name clash, as ptoc::Outputs::get has it.
    return {
        name: _result_array(dtype, rows, cols, data)
        for name, dtype, rows, cols, data in memrefs + results
    }


def verify(
    source: str,
    trials: int = 200,
    seed: int = 0,
    filename: str = "<string>",
    opt_level: int = 2,
    assume_no_nans: bool = False,
    allow_reassociation: bool = False,
    strip_assertions: bool = False,
) -> None:
    """Compile every kernel of ``source`` and compare it bit for bit with the reference
    evaluator of its unoptimised source on ``trials`` random input sets (edge values included)
    drawn from ``seed``, under the meaning ``assume_no_nans`` and ``allow_reassociation`` give a
    linalg program (as :func:`compile`). Returns ``None`` when all match; raises
    :class:`VerifyError` with the first mismatch's fields, or :class:`CompileError`."""
    semantics = (assume_no_nans, allow_reassociation, strip_assertions)
    _ptoc.verify(source, filename, trials, seed, opt_level, semantics)
