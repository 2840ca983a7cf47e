//! The named legality and allocation rules the passes report, and how their diagnostics read.
//!
//! Every error a pass raises names one [`Rule`], the operand (or result) it is about, the fault
//! class the hardware would raise if the program ran anyway, and, where one exists, the nearest
//! legal alternative. Keeping the rule table here lets verification and allocation (which
//! re-checks everything before it assigns registers) word their errors identically.

use ptoc_ir::{Diagnostic, Dim, Function, Location, Op, TileType, ValueId};
use ptoc_isa::ops::OperandRole;
use ptoc_isa::FaultClass;

/// One checkable rule of the spec (docs/isa.md §1.2–1.6, §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The op has as many sources as its B.IOT contract lists.
    OperandCount,
    /// The source DataType is in the op's legal set.
    DataType,
    /// Sources and destination share one DataType.
    SameType,
    /// EXPDIF (source, destination) is one of the five legal pairs.
    ExpDifPair,
    /// ARGMAX/ARGMIN results are U32 or S32.
    ArgResultType,
    /// Every dimension is 1..=65535.
    DimRange,
    /// No `?` is left once inference has run.
    InferredShape,
    /// Physical columns are a nonzero power of two.
    ColsPowerOfTwo,
    /// The valid region lies inside the physical shape.
    ValidWithinPhysical,
    /// Some SizeCode (128 B..64 KiB) holds the physical shape.
    SizeCode,
    /// Full-shape sources and the destination have identical physical and valid geometry.
    FullShape,
    /// Row broadcast: valid rows equal, valid cols 1, physical cols 1.
    RowBroadcast,
    /// Column broadcast: valid rows 1, valid and physical cols equal.
    ColBroadcast,
    /// Reduction results: `ValidRow×1`/physical Col 1 (row), `1×ValidCol`/source Col (column).
    ReductionResult,
    /// Operand shapes of an elementwise op that no row or column broadcast explains.
    BroadcastShape,
    /// A full-shape destination needs the SizeCode giving its source's physical rows.
    ForcedSizeCode,
    /// At most 4 hands × 16 Local tile registers, never freed.
    RegisterCount,
    /// B.DATR RMode and Sat (`pto.rmode`, `pto.sat`) only on an op that reads them (TCVT).
    NumericControl,
    /// Σ popcount(mask) × capacity ≤ the core's tile capacity.
    CoreCapacity,
    /// A predicate role (TSEL's mask, TCMP's result) is a predicate tile, every other one numeric.
    Storage,
    /// TCMP names its relation in `pto.cmode` (eq, ne, lt, gt, le, ge); no other op has one.
    CMode,
    /// Matrix operands are in their CUBE layouts; every other op reads row-major tiles
    /// (docs/isa.md §18.2).
    Layout,
    /// A matrix op's M, N and K agree across A, B, C, the bias and the result (docs/isa.md §18.4).
    MatrixShape,
    /// A TTRANS result has its source's valid shape swapped and no pad (docs/isa.md §19).
    TransposedShape,
}

impl Rule {
    /// The rule's name as it appears in diagnostics.
    pub fn name(self) -> &'static str {
        match self {
            Rule::OperandCount => "operand-count",
            Rule::DataType => "data-type",
            Rule::SameType => "same-type",
            Rule::ExpDifPair => "expdif-pair",
            Rule::ArgResultType => "arg-result-type",
            Rule::DimRange => "dim-range",
            Rule::InferredShape => "inferred-shape",
            Rule::ColsPowerOfTwo => "cols-power-of-two",
            Rule::ValidWithinPhysical => "valid-within-physical",
            Rule::SizeCode => "size-code",
            Rule::FullShape => "full-shape",
            Rule::RowBroadcast => "row-broadcast",
            Rule::ColBroadcast => "col-broadcast",
            Rule::ReductionResult => "reduction-result",
            Rule::BroadcastShape => "broadcast-shape",
            Rule::ForcedSizeCode => "forced-size-code",
            Rule::RegisterCount => "register-count",
            Rule::NumericControl => "numeric-control",
            Rule::CoreCapacity => "core-capacity",
            Rule::Storage => "storage",
            Rule::CMode => "cmode",
            Rule::Layout => "layout",
            Rule::MatrixShape => "matrix-shape",
            Rule::TransposedShape => "transposed-shape",
        }
    }

    /// The fault the hardware raises when the rule is broken (docs/isa.md §3.5, §9 decision 13).
    pub fn fault(self) -> FaultClass {
        match self {
            Rule::OperandCount => FaultClass::BundleControl,
            Rule::ColsPowerOfTwo
            | Rule::ValidWithinPhysical
            | Rule::SizeCode
            | Rule::ForcedSizeCode
            | Rule::RegisterCount
            | Rule::CoreCapacity => FaultClass::TileAllocation,
            Rule::DataType
            | Rule::SameType
            | Rule::ExpDifPair
            | Rule::ArgResultType
            | Rule::DimRange
            | Rule::InferredShape
            | Rule::FullShape
            | Rule::RowBroadcast
            | Rule::ColBroadcast
            | Rule::ReductionResult
            | Rule::BroadcastShape
            | Rule::Storage
            | Rule::CMode
            | Rule::Layout
            | Rule::MatrixShape
            | Rule::TransposedShape
            | Rule::NumericControl => FaultClass::TileLegality,
        }
    }
}

/// A broken rule before it is placed: what it is about, what is wrong, and the fix if any.
#[derive(Clone, Debug)]
pub struct Violation {
    pub rule: Rule,
    pub problem: String,
    pub hint: Option<String>,
}

impl Violation {
    pub fn new(rule: Rule, problem: impl Into<String>) -> Violation {
        Violation {
            rule,
            problem: problem.into(),
            hint: None,
        }
    }
    pub fn hint(mut self, hint: impl Into<String>) -> Violation {
        self.hint = Some(hint.into());
        self
    }

    /// `SUBJECT PROBLEM; HINT [rule, fault]`.
    pub fn message(&self, subject: &str) -> String {
        let hint = self
            .hint
            .as_ref()
            .map_or(String::new(), |h| format!("; {h}"));
        format!(
            "{subject} {}{hint} [{}, {}]",
            self.problem,
            self.rule.name(),
            self.rule.fault()
        )
    }

    pub fn at(&self, loc: Location, subject: &str) -> Diagnostic {
        Diagnostic::error(loc, self.message(subject)).with_rule(self.rule.name(), self.rule.fault())
    }
}

/// The operand whose geometry an op's result follows: the first typed one that is not the
/// broadcast vector (the copy expands, whose only source is the vector, have none; TSEL's is its
/// true source, not the predicate).
pub fn full_source(op: &Op) -> Option<ValueId> {
    op.info
        .sources
        .iter()
        .zip(&op.operands)
        .find(|(r, _)| **r != OperandRole::Bcast && r.carries_type())
        .map(|(_, &v)| v)
}

/// `'pto.tadd' op`: the MLIR prefix of a diagnostic about an op.
pub fn op_prefix(op: &Op) -> String {
    format!("'{}' op", op.info.mlir_name())
}

/// How a diagnostic names a value: `%x`, or `#3` when the source gave it no name.
pub fn value_name(func: &Function, id: ValueId) -> String {
    match &func.value(id).name {
        Some(name) => format!("%{name}"),
        None => format!("#{}", id.0),
    }
}

/// A note at the definition of `id` (where the offending type was written), if that is elsewhere.
pub fn defined_here(func: &Function, id: ValueId, diag: Diagnostic) -> Diagnostic {
    let loc = func.def_loc(id).clone();
    if loc.is_known() && loc != diag.loc {
        let name = value_name(func, id);
        diag.with_note(loc, format!("{name} defined here"))
    } else {
        diag
    }
}

/// `16x64xf32` or `16x64xf32, valid=5x64`: a tile type without the `!pto.tile<…>` wrapping.
pub fn shape(ty: &TileType) -> String {
    let text = ty.to_string();
    text.strip_prefix("!pto.tile<")
        .and_then(|t| t.strip_suffix('>'))
        .map_or(text.clone(), str::to_string)
}

/// The shape `rows×cols×dtype` with the given valid region, spelled like [`shape`].
pub fn shape_of(ty: &TileType, rows: u32, cols: u32, valid_rows: u32, valid_cols: u32) -> String {
    let mut t = *ty;
    t.rows = Dim::Known(rows);
    t.cols = Dim::Known(cols);
    t.valid_rows = Dim::Known(valid_rows);
    t.valid_cols = Dim::Known(valid_cols);
    shape(&t)
}

/// `1280 bytes` or `300 KiB`.
pub fn bytes(n: u64) -> String {
    if n >= 1024 && n.is_multiple_of(1024) {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} bytes")
    }
}
