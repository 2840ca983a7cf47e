//! linalg-on-tensors programs (README, linalg-on-tensors input), as the front end hands them over after upstream
//! normalisation: every structured op is a `linalg.generic` (named ops are generalised, fills
//! are generics with a scalar input), unit dimensions are folded, and the function-level ops
//! left are constants, `tensor.empty`, reshapes and generics.
//!
//! The IR is a faithful transcription, not an interpretation: indexing maps, iterator kinds and
//! region bodies are kept as written, so the reference evaluator (`ptoc_runtime`) can execute a
//! program by linalg's own definition (loop over the iteration domain, apply the maps, run the
//! body) independently of `convert-linalg-to-pto`, which pattern-matches the same IR into tile
//! ops. Only the scalar ops this module names are representable; the importer refuses any other
//! op with a located error.

use crate::diag::Location;
use crate::func::ValueId;
use ptoc_isa::DataType;
use std::fmt;

/// A scalar element type inside linalg programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elem {
    /// A tile DataType; MLIR's signless integers (`i32`) are the signed ones (`S32`), and each
    /// integer op says whether it reads them signed or unsigned, as in `arith`.
    Data(DataType),
    /// `i1`: a comparison's result.
    I1,
    /// `index`: `linalg.index` and its casts.
    Index,
}

impl Elem {
    /// Parse MLIR's spelling (`f32`, `i32`, `i1`, `index`).
    pub fn parse(text: &str) -> Option<Elem> {
        match text {
            "i1" => Some(Elem::I1),
            "index" => Some(Elem::Index),
            _ => DataType::from_mlir_name(text).map(Elem::Data),
        }
    }

    /// Bits of the value.
    pub fn bits(self) -> u32 {
        match self {
            Elem::Data(t) => t.bits(),
            Elem::I1 => 1,
            Elem::Index => 64,
        }
    }

    /// The DataType, for elements that have one.
    pub fn data(self) -> Option<DataType> {
        match self {
            Elem::Data(t) => Some(t),
            Elem::I1 | Elem::Index => None,
        }
    }
}

impl fmt::Display for Elem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Elem::Data(t) => f.write_str(crate::gm::ScalarType::Element(*t).to_string().as_str()),
            Elem::I1 => f.write_str("i1"),
            Elem::Index => f.write_str("index"),
        }
    }
}

/// A static ranked tensor, rank 0 to 2: `tensor<512x1024xf32>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorType {
    /// The dimensions, outermost first (empty for rank 0).
    pub shape: Vec<u32>,
    /// The element type.
    pub elem: Elem,
}

impl TensorType {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().map(|&d| d as usize).product()
    }

    /// True when some dimension is 0.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tensor<")?;
        for d in &self.shape {
            write!(f, "{d}x")?;
        }
        write!(f, "{}>", self.elem)
    }
}

/// The type of a function-level value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LType {
    /// A tensor.
    Tensor(TensorType),
    /// A scalar.
    Scalar(Elem),
}

impl fmt::Display for LType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LType::Tensor(t) => write!(f, "{t}"),
            LType::Scalar(e) => write!(f, "{e}"),
        }
    }
}

/// A function-level value: an argument or an op's result.
#[derive(Clone, Debug, PartialEq)]
pub struct LValue {
    /// The SSA name in the source (`arg0` for `%arg0`), for diagnostics and `ptoc run`.
    pub name: Option<String>,
    /// Its type.
    pub ty: LType,
}

/// One result of an indexing map: a loop dimension `dN` or the constant `0` (a unit dimension
/// read at index 0, which is how a broadcast keeps its rank before unit dims are folded).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapExpr {
    /// Loop dimension `dN`.
    Dim(u8),
    /// The constant index 0.
    Zero,
}

/// `linalg.generic`'s loop kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IteratorKind {
    /// Every iteration writes its own output element.
    Parallel,
    /// Iterations along this dimension combine into the same output element.
    Reduction,
}

/// `arith.cmpf`'s predicates (ordered `o*`, unordered `u*`, and the two constants).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpFPredicate {
    /// Always false.
    False,
    /// Ordered and equal.
    Oeq,
    /// Ordered and greater.
    Ogt,
    /// Ordered and greater or equal.
    Oge,
    /// Ordered and less.
    Olt,
    /// Ordered and less or equal.
    Ole,
    /// Ordered and not equal.
    One,
    /// Neither operand is NaN.
    Ord,
    /// Unordered or equal.
    Ueq,
    /// Unordered or greater.
    Ugt,
    /// Unordered or greater or equal.
    Uge,
    /// Unordered or less.
    Ult,
    /// Unordered or less or equal.
    Ule,
    /// Unordered or not equal.
    Une,
    /// Either operand is NaN.
    Uno,
    /// Always true.
    True,
}

/// `arith.cmpi`'s predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpIPredicate {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// Signed less.
    Slt,
    /// Signed less or equal.
    Sle,
    /// Signed greater.
    Sgt,
    /// Signed greater or equal.
    Sge,
    /// Unsigned less.
    Ult,
    /// Unsigned less or equal.
    Ule,
    /// Unsigned greater.
    Ugt,
    /// Unsigned greater or equal.
    Uge,
}

/// The scalar ops a region body may hold, each with the meaning of the MLIR op it is named
/// after (operand order as in MLIR).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarOp {
    /// `arith.constant`: the value's bits, zero-extended.
    Constant(u64),
    /// `arith.addf`.
    AddF,
    /// `arith.subf`.
    SubF,
    /// `arith.mulf`.
    MulF,
    /// `arith.divf`.
    DivF,
    /// NaN-propagating maximum, `-0 < +0` (IEEE 754-2019 `maximum`).
    MaximumF,
    /// NaN-propagating minimum, `-0 < +0` (IEEE 754-2019 `minimum`).
    MinimumF,
    /// NaN-ignoring maximum (IEEE 754-2019 `maximumNumber`).
    MaxNumF,
    /// NaN-ignoring minimum (IEEE 754-2019 `minimumNumber`).
    MinNumF,
    /// `arith.negf`: the sign flipped.
    NegF,
    /// Widening float conversion (exact).
    ExtF,
    /// Narrowing float conversion, rounded to nearest even.
    TruncF,
    /// `arith.cmpf` with its predicate; an `i1` result.
    CmpF(CmpFPredicate),
    /// `arith.select %cond, %a, %b`.
    Select,
    /// `arith.addi`, wrapping.
    AddI,
    /// `arith.subi`, wrapping.
    SubI,
    /// `arith.muli`, wrapping.
    MulI,
    /// `arith.divsi`: signed division, rounding toward zero.
    DivSI,
    /// `arith.divui`: unsigned division.
    DivUI,
    /// `arith.maxsi`.
    MaxSI,
    /// `arith.minsi`.
    MinSI,
    /// `arith.maxui`.
    MaxUI,
    /// `arith.minui`.
    MinUI,
    /// `arith.cmpi` with its predicate; an `i1` result.
    CmpI(CmpIPredicate),
    /// `arith.index_cast` (index ↔ integer).
    IndexCast,
    /// `arith.sitofp`: a signed integer to the nearest float (ties to even).
    SIToFP,
    /// `arith.uitofp`: an unsigned integer to the nearest float (ties to even).
    UIToFP,
    /// `arith.fptosi`: a float truncated toward zero to a signed integer; poison when that is
    /// out of range (NaN and infinities included).
    FPToSI,
    /// `arith.fptoui`: as `FPToSI`, to an unsigned integer.
    FPToUI,
    /// `arith.extsi`: a wider integer, sign-extended.
    ExtSI,
    /// `arith.extui`: a wider integer, zero-extended.
    ExtUI,
    /// `arith.trunci`: a narrower integer, the low bits kept.
    TruncI,
    /// `math.exp`.
    Exp,
    /// `math.log`.
    Log,
    /// `math.sqrt`.
    Sqrt,
    /// `math.rsqrt`: 1 / sqrt.
    Rsqrt,
    /// `math.absf`.
    AbsF,
    /// `linalg.index N`: the current iteration's index along loop dimension N.
    Index(u8),
}

impl ScalarOp {
    /// The MLIR op's name, for diagnostics.
    pub fn mlir_name(self) -> &'static str {
        match self {
            ScalarOp::Constant(_) => "arith.constant",
            ScalarOp::AddF => "arith.addf",
            ScalarOp::SubF => "arith.subf",
            ScalarOp::MulF => "arith.mulf",
            ScalarOp::DivF => "arith.divf",
            ScalarOp::MaximumF => "arith.maximumf",
            ScalarOp::MinimumF => "arith.minimumf",
            ScalarOp::MaxNumF => "arith.maxnumf",
            ScalarOp::MinNumF => "arith.minnumf",
            ScalarOp::NegF => "arith.negf",
            ScalarOp::ExtF => "arith.extf",
            ScalarOp::TruncF => "arith.truncf",
            ScalarOp::CmpF(_) => "arith.cmpf",
            ScalarOp::Select => "arith.select",
            ScalarOp::AddI => "arith.addi",
            ScalarOp::SubI => "arith.subi",
            ScalarOp::MulI => "arith.muli",
            ScalarOp::DivSI => "arith.divsi",
            ScalarOp::DivUI => "arith.divui",
            ScalarOp::MaxSI => "arith.maxsi",
            ScalarOp::MinSI => "arith.minsi",
            ScalarOp::MaxUI => "arith.maxui",
            ScalarOp::MinUI => "arith.minui",
            ScalarOp::CmpI(_) => "arith.cmpi",
            ScalarOp::IndexCast => "arith.index_cast",
            ScalarOp::SIToFP => "arith.sitofp",
            ScalarOp::UIToFP => "arith.uitofp",
            ScalarOp::FPToSI => "arith.fptosi",
            ScalarOp::FPToUI => "arith.fptoui",
            ScalarOp::ExtSI => "arith.extsi",
            ScalarOp::ExtUI => "arith.extui",
            ScalarOp::TruncI => "arith.trunci",
            ScalarOp::Exp => "math.exp",
            ScalarOp::Log => "math.log",
            ScalarOp::Sqrt => "math.sqrt",
            ScalarOp::Rsqrt => "math.rsqrt",
            ScalarOp::AbsF => "math.absf",
            ScalarOp::Index(_) => "linalg.index",
        }
    }
}

/// A value a region body reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BodyValue {
    /// The n-th block argument: inputs first, then outputs (an output's argument is the
    /// element the output holds so far).
    Arg(usize),
    /// The result of the n-th body op.
    Op(usize),
    /// A function-level scalar captured from outside the region (an argument or constant).
    Outer(ValueId),
}

/// One scalar op of a region body.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyOp {
    /// What it computes.
    pub op: ScalarOp,
    /// What it reads, in the MLIR op's operand order.
    pub operands: Vec<BodyValue>,
    /// The result's type.
    /// The result's type.
    pub ty: Elem,
    /// `fastmath<nnan>` (or `fast`): the op may assume no operand or result is NaN.
    pub no_nans: bool,
    /// Where it is in the source.
    pub loc: Location,
}

/// A `linalg.generic`'s region: the block's argument types (inputs, then outputs), its ops in
/// order, and what `linalg.yield` yields (one value per output).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Body {
    /// The block arguments' element types: inputs, then outputs.
    pub args: Vec<Elem>,
    /// The ops, in order; op n defines [`BodyValue::Op`]`(n)`.
    pub ops: Vec<BodyOp>,
    /// What `linalg.yield` yields, one value per output.
    pub yields: Vec<BodyValue>,
}

/// A `linalg.generic` on tensors.
#[derive(Clone, Debug, PartialEq)]
pub struct Generic {
    /// One kind per loop dimension.
    pub iterators: Vec<IteratorKind>,
    /// `ins(...)`: tensors, or scalars (read through a map with no results).
    pub inputs: Vec<ValueId>,
    /// `outs(...)`: the tensors the results start from.
    pub outputs: Vec<ValueId>,
    /// One map per input, then one per output; each lists the operand's indices as functions
    /// of the loop dimensions.
    pub maps: Vec<Vec<MapExpr>>,
    /// The region, run once per point of the iteration domain.
    pub body: Body,
}

/// What a function-level op does.
#[derive(Clone, Debug, PartialEq)]
pub enum LOpKind {
    /// A scalar `arith.constant` (bits, zero-extended) or a splat tensor constant
    /// (`dense<c>`) with the same bits in every element.
    Constant(u64),
    /// `tensor.empty`: a tensor whose elements are never read (linalg reads an output's
    /// elements only when its body uses the output's block argument).
    Empty,
    /// `tensor.expand_shape` / `tensor.collapse_shape`: the same elements in row-major order,
    /// under another shape.
    Reshape,
    /// A `linalg.generic`.
    Generic(Generic),
}

/// One function-level op; `results` are its values.
#[derive(Clone, Debug, PartialEq)]
pub struct LOp {
    /// What it does.
    pub kind: LOpKind,
    /// Its operands (a generic's inputs, then its outputs; a reshape's source).
    pub operands: Vec<ValueId>,
    /// The values it defines.
    pub results: Vec<ValueId>,
    /// Where it is in the source.
    pub loc: Location,
}

/// One `func.func` over tensors and scalars.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Program {
    /// The symbol name, without `@`.
    pub name: String,
    /// Where the `func.func` is.
    pub loc: Location,
    /// Every value, indexed by [`ValueId`].
    pub values: Vec<LValue>,
    /// The arguments' values, in order.
    pub args: Vec<ValueId>,
    /// The function-level ops, in program order.
    pub ops: Vec<LOp>,
    /// What `func.return` returns, in order (the kernel's results `r0, r1, …`).
    pub results: Vec<ValueId>,
}

impl Program {
    /// An empty program `@name`.
    pub fn new(name: impl Into<String>, loc: Location) -> Program {
        Program {
            name: name.into(),
            loc,
            ..Program::default()
        }
    }

    /// The value `id`.
    pub fn value(&self, id: ValueId) -> &LValue {
        &self.values[id.0 as usize]
    }

    /// The type of `id`.
    pub fn ty(&self, id: ValueId) -> &LType {
        &self.value(id).ty
    }

    /// A new value (the caller records it as an argument or a result).
    pub fn add_value(&mut self, name: Option<String>, ty: LType) -> ValueId {
        let id = ValueId(self.values.len() as u32);
        self.values.push(LValue { name, ty });
        id
    }

    /// Append an argument of type `ty` and return its value.
    pub fn add_arg(&mut self, name: Option<String>, ty: LType) -> ValueId {
        let id = self.add_value(name, ty);
        self.args.push(id);
        id
    }

    /// The op that defines `id`, if it is not an argument.
    pub fn defining_op(&self, id: ValueId) -> Option<&LOp> {
        self.ops.iter().find(|op| op.results.contains(&id))
    }

    /// The value's source name, or its number.
    pub fn display_name(&self, id: ValueId) -> String {
        match &self.value(id).name {
            Some(n) if !n.is_empty() => n.clone(),
            _ => id.0.to_string(),
        }
    }
}
