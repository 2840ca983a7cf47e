"""The exceptions and diagnostics ptoc raises (the native module builds them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple


@dataclass(frozen=True)
class Diagnostic:
    """One located diagnostic: ``file:line:col: severity: message``.

    ``rule`` names the legality rule the error breaks (``"same-type"``) and ``fault`` the
    fault class the hardware would raise (``"Fault_TileLegality"``), where there is one.
    """

    file: str
    line: int
    col: int
    severity: str
    message: str
    rule: Optional[str] = None
    fault: Optional[str] = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.severity}: {self.message}"


class CompileError(Exception):
    """The source does not compile; ``diagnostics`` says where and why."""

    def __init__(self, message: str, diagnostics: List[Diagnostic]):
        super().__init__(message)
        self.diagnostics = diagnostics


class RunError(ValueError):
    """The kernel cannot run on these inputs (names, shapes, types) or does not load."""


class FaultError(RuntimeError):
    """The kernel faulted: ``fault_class`` (``"Fault_TileLegality"``, ``"Fault_DataPage"``,
    ...), the faulting ``bundle``, the GM byte ``address`` of a GM fault (``None`` otherwise)
    and the ``reason``; ``flags`` are the sticky status flags at the fault."""

    def __init__(
        self,
        message: str,
        fault_class: str,
        bundle: int,
        reason: str,
        flags: int,
        address: Optional[int] = None,
    ):
        super().__init__(message)
        self.fault_class = fault_class
        self.bundle = bundle
        self.reason = reason
        self.flags = flags
        self.address = address


class VerifyError(Exception):
    """Compiled code disagrees with its source.

    ``kernel`` and ``trial`` say where; ``result`` (``"r0"``), ``op`` (``"pto.trowmax"``),
    ``file``/``line``/``col`` (the op's location) and ``element`` (``(row, col)``) what; the
    ``compiled`` and ``reference`` values as text; ``inputs`` every argument's element there
    (dicts with ``argument``, ``row``, ``col``, ``dtype``, ``bits``). Fields that do not apply
    (a flags mismatch has no element) are ``None``.
    """

    def __init__(
        self,
        message: str,
        *,
        kernel: str,
        trial: int,
        result: Optional[str],
        op: Optional[str],
        file: Optional[str],
        line: Optional[int],
        col: Optional[int],
        element: Optional[Tuple[int, int]],
        compiled: str,
        reference: str,
        inputs: list,
    ):
        super().__init__(message)
        self.kernel = kernel
        self.trial = trial
        self.result = result
        self.op = op
        self.file = file
        self.line = line
        self.col = col
        self.element = element
        self.compiled = compiled
        self.reference = reference
        self.inputs = inputs
