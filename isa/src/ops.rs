//! The op catalogue: every tile op ptoc compiles, as one row of data.
//!
//! Rows come from each mnemonic's `PTO-INSTRUCTION` header under `asl/tile/` (mode, function,
//! catalogue index, engine, operand roles) and the executable DataType sets (docs/isa.md §9 decision 3).
//! A new op is one row here plus, at most, its semantics function in the runtime.

use crate::dtype::{DataType, A9, ARITHMETIC, EXPDIF_SOURCES, FLOATS, MATRIX_INPUTS};
use crate::encoding::{BStart, CubeStart, Instruction, TlsuOp, TlsuStart};

/// The execution engine, which picks the canonical `BSTART.SFU`/`BSTART.VEC` alias.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// The special-function unit (`BSTART.SFU`).
    Sfu,
    /// The vector unit (`BSTART.VEC`).
    Vec,
    /// The tile load/store unit: its ops open with their own BSTART (docs/isa.md §13.1).
    Tlsu,
    /// The matrix unit: its ops open with a CUBE BSTART (docs/isa.md §18.1).
    Cube,
}

impl Engine {
    /// The assembly alias the engine's ops print with (`SFU`, `VEC`, `TLSU`).
    pub fn alias(self) -> &'static str {
        match self {
            Engine::Sfu => "SFU",
            Engine::Vec => "VEC",
            Engine::Tlsu => "TLSU",
            Engine::Cube => "CUBE",
        }
    }
}

/// How an op's block start names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Carrier {
    /// BSTART.TEPL (and its SFU/VEC aliases) with this Mode and Function (docs/isa.md §2.2).
    Tepl {
        /// The Mode field.
        mode: u8,
        /// The Function field.
        function: u8,
    },
    /// BSTART.TLOAD/TSTORE/TMOV (docs/isa.md §13.1).
    Tlsu(TlsuOp),
    /// A CUBE start with this Function (docs/isa.md §18.1).
    Cube {
        /// The CUBE Function field.
        function: u8,
    },
}

const fn tepl(mode: u8, function: u8) -> Carrier {
    Carrier::Tepl { mode, function }
}

/// Which axis a reduce/expand op works along: `Row` ops keep one value per row (an R×1 vector),
/// `Col` ops one value per column (a 1×C vector).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Axis {
    /// Along each row: one result per row.
    Row,
    /// Along each column: one result per column.
    Col,
}

/// An element-level operation shared by the binary ops and the expand-op forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b` (docs/isa.md §1.8 for floats, §1.7 for integers).
    Div,
    /// The larger operand (docs/isa.md §1.8 for NaNs).
    Max,
    /// The smaller operand (docs/isa.md §1.8 for NaNs).
    Min,
    /// `exp(a - b)`, two rounded stages (docs/isa.md §9 decision 5).
    ExpDif,
}

impl ElementOp {
    /// Whether `a op b == b op a`, so operands may be swapped.
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            ElementOp::Add | ElementOp::Mul | ElementOp::Max | ElementOp::Min
        )
    }
}

/// What a matrix op adds to `left · right` (`TileMatrixFunctionUsesBias`, `…UsesAccumulator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MatmulForm {
    /// The product alone, summed from +0 (TMATMUL, TGEMV).
    Plain,
    /// The product summed onto an accumulator tile C (the `_ACC` forms).
    Acc,
    /// The product plus a 1×N bias row (the `_BIAS` forms).
    Bias,
}

/// A same-shape unary elementwise operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnaryOp {
    /// `e^x`, computed in binary64 and rounded once (docs/isa.md §9 decision 6).
    Exp,
    /// `|x|`: a float's sign bit cleared; integers modulo the width.
    Abs,
    /// `-x`: a float's sign bit flipped; integers `0 - x` modulo the width.
    Neg,
    /// `max(x, 0)` with negatives and both zeros to +0, NaNs to the canonical NaN.
    Relu,
    /// Correctly rounded square root.
    Sqrt,
    /// Correctly rounded `1/x`.
    Recip,
    /// Correctly rounded `1/sqrt(x)` (one rounding).
    Rsqrt,
    /// Natural logarithm, computed like EXP.
    Log,
}

/// A TCMP comparison: B.DATR CMode codes 0..=5; 6 and 7 are reserved (docs/isa.md §1.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CmpMode {
    /// Equal (CMode 0).
    Eq,
    /// Not equal (CMode 1).
    Ne,
    /// Less than (CMode 2).
    Lt,
    /// Greater than (CMode 3).
    Gt,
    /// Less or equal (CMode 4).
    Le,
    /// Greater or equal (CMode 5).
    Ge,
}

impl CmpMode {
    /// Every mode, in CMode code order.
    pub const ALL: [CmpMode; 6] = [
        CmpMode::Eq,
        CmpMode::Ne,
        CmpMode::Lt,
        CmpMode::Gt,
        CmpMode::Le,
        CmpMode::Ge,
    ];

    /// The B.DATR CMode code.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The mode with this CMode code; `None` for the reserved codes 6 and 7.
    pub fn from_code(code: u8) -> Option<CmpMode> {
        CmpMode::ALL.get(code as usize).copied()
    }

    /// The assembly spelling (`LT`).
    pub fn name(self) -> &'static str {
        ["EQ", "NE", "LT", "GT", "LE", "GE"][self as usize]
    }

    /// The `pto.cmode` attribute spelling (`lt`).
    pub fn mlir_name(self) -> &'static str {
        ["eq", "ne", "lt", "gt", "le", "ge"][self as usize]
    }

    /// The mode for a `pto.cmode` spelling (`lt`).
    pub fn from_mlir_name(name: &str) -> Option<CmpMode> {
        CmpMode::ALL.into_iter().find(|m| m.mlir_name() == name)
    }

    /// `TileCompareBoolean`: the relation from "left < right" and "equal" of an ordered pair.
    /// Unordered pairs (a NaN operand) never get here: they are NE only (docs/isa.md §1.9).
    pub fn holds(self, less: bool, equal: bool) -> bool {
        match self {
            CmpMode::Eq => equal,
            CmpMode::Ne => !equal,
            CmpMode::Lt => less,
            CmpMode::Le => less || equal,
            CmpMode::Gt => !less && !equal,
            CmpMode::Ge => !less || equal,
        }
    }
}

/// The attribute that names a TCMP's comparison (`pto.cmode = "lt"`).
pub const CMODE_ATTR: &str = "pto.cmode";

/// How a tile's payload is stored (`TileStorage` in `asl/tile/model/state/types.asl`): numeric
/// elements of a DataType, or one packed bit per logical element (docs/isa.md §3.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Storage {
    #[default]
    /// Elements of the descriptor's DataType.
    Numeric,
    /// One bit per logical element, packed (docs/isa.md §3.6).
    Predicate,
}

impl Storage {
    /// The bits an element may have: `dtype`'s carrier width, or the one bit of a predicate
    /// element (`dtype` is then the descriptor's [`crate::dtype::PREDICATE_DTYPE`]).
    pub fn element_mask(self, dtype: DataType) -> u64 {
        match self {
            Storage::Numeric => dtype.carrier_mask(),
            Storage::Predicate => 1,
        }
    }
}

/// A left-fold reduction along an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reduction {
    /// The sum of the elements.
    Sum,
    /// The largest element.
    Max,
    /// The smallest element.
    Min,
    /// The product of the elements.
    Prod,
    /// The index of the largest element.
    ArgMax,
    /// The index of the smallest element.
    ArgMin,
}

/// What an op computes, which is what every pass, the interpreter and the reference evaluator
/// dispatch on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// Full-shape source → one value per row/column.
    Reduce(Axis, Reduction),
    /// Broadcast a vector along `Axis`; `None` is the plain copy (TROWEXPAND/TCOLEXPAND), `Some`
    /// combines it with a full-shape source.
    Expand(Axis, Option<ElementOp>),
    /// Same-shape binary elementwise op.
    Binary(ElementOp),
    /// Same-shape unary elementwise op.
    Unary(UnaryOp),
    /// TCMP: two same-shape numeric sources → a predicate tile; the relation is the op's
    /// `pto.cmode` attribute, encoded as B.DATR CMode.
    Compare,
    /// TSEL: a predicate and two same-shape sources → each element's bits from the true source
    /// where the predicate bit is 1, else from the false source.
    Select,
    /// Same-shape conversion to the result's DataType under B.DATR RMode and Sat (TCVT,
    /// docs/isa.md §1.10).
    Convert,
    /// TMOV: a bit copy of a tile, payload, padding and definedness, into a new destination of
    /// the source's SizeCode (docs/isa.md §13.5, §13.7). The queue-naming allocator emits it to
    /// re-push a tile that would otherwise retire while still needed.
    Move,
    /// `tile op scalar` per valid element (TADDS …): the binary op's element rule with the B.IOR
    /// scalar as right operand, one same-shape tile source (docs/isa.md §14).
    TileScalar(ElementOp),
    /// TEXPANDS: the B.IOR scalar's low element-width bits in every valid element; no tile
    /// source, the shape from B.DIM (docs/isa.md §14).
    FillScalar,
    /// TTRANS: `dst[c][r] = src[r][c]` over the source's valid region, bits unchanged, into a
    /// new destination whose valid shape is the source's swapped; the padding is left Null
    /// (docs/isa.md §19). B.DIM describes the destination.
    Transpose,
    /// TMATMUL and TGEMV (`gemv`: M is 1): `D[M×N] = Σ_k A[m,k]·B[k,n]` in the accumulator type,
    /// under the profile's accumulation (docs/isa.md §18.3), with A in CUBE_M16/M32, B in
    /// CUBE_N8 and D in A's layout; M, N, K from LB0, LB1, LB2.
    Matmul {
        /// What is added to the product.
        form: MatmulForm,
        /// TGEMV: M must be 1.
        gemv: bool,
    },
}

impl OpKind {
    /// Whether the op reads a scalar through B.IOR RegSrc0 (docs/isa.md §14).
    pub fn takes_scalar(self) -> bool {
        match self {
            OpKind::TileScalar(_) | OpKind::FillScalar => true,
            OpKind::Reduce(..)
            | OpKind::Expand(..)
            | OpKind::Binary(_)
            | OpKind::Unary(_)
            | OpKind::Compare
            | OpKind::Select
            | OpKind::Convert
            | OpKind::Move
            | OpKind::Transpose
            | OpKind::Matmul { .. } => false,
        }
    }
}

/// The role of one B.IOT source, in contract order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandRole {
    /// Full-shape source (`source0` of reductions and expands, TEXP's source).
    Src,
    /// The one-column (row ops) or one-row (column ops) broadcast vector.
    Bcast,
    /// A binary op's left operand.
    SrcLeft,
    /// A binary op's right operand.
    SrcRight,
    /// TDIV's dividend.
    Numerator,
    /// TDIV's divisor.
    Denominator,
    /// TSEL's packed predicate mask.
    Pred,
    /// TSEL's source taken where the predicate bit is 1.
    SrcTrue,
    /// TSEL's source taken where the predicate bit is 0.
    SrcFalse,
    /// A matrix op's A[M×K] (CUBE_M16/M32).
    Left,
    /// A matrix op's B[K×N] (CUBE_N8).
    Right,
    /// An `_ACC` form's C[M×N], in the accumulator type and A's layout.
    Accumulator,
    /// A `_BIAS` form's 1×N row-major bias, in the accumulator type.
    Bias,
}

impl OperandRole {
    /// The contract's name for the role (`source`, `broadcast`, …).
    pub fn name(self) -> &'static str {
        match self {
            OperandRole::Src => "source",
            OperandRole::Bcast => "broadcast",
            OperandRole::SrcLeft => "left source",
            OperandRole::SrcRight => "right source",
            OperandRole::Numerator => "numerator",
            OperandRole::Denominator => "denominator",
            OperandRole::Pred => "predicate",
            OperandRole::SrcTrue => "true source",
            OperandRole::SrcFalse => "false source",
            OperandRole::Left => "left matrix",
            OperandRole::Right => "right matrix",
            OperandRole::Accumulator => "accumulator",
            OperandRole::Bias => "bias",
        }
    }

    /// The storage a source in this role must have.
    pub fn storage(self) -> Storage {
        match self {
            OperandRole::Pred => Storage::Predicate,
            OperandRole::Src
            | OperandRole::Bcast
            | OperandRole::SrcLeft
            | OperandRole::SrcRight
            | OperandRole::Numerator
            | OperandRole::Denominator
            | OperandRole::SrcTrue
            | OperandRole::SrcFalse
            | OperandRole::Left
            | OperandRole::Right
            | OperandRole::Accumulator
            | OperandRole::Bias => Storage::Numeric,
        }
    }

    /// Whether a source in this role has the bundle's DataType (BSTART's type). A predicate has
    /// none of its own (its descriptor says U8, `ConfigurePredicateTile`); a matrix op's
    /// accumulator and bias have the accumulator type, its right operand B.DATR's BType.
    pub fn carries_type(self) -> bool {
        match self {
            OperandRole::Right | OperandRole::Accumulator | OperandRole::Bias => false,
            _ => self.storage() == Storage::Numeric,
        }
    }
}

/// The shape and type of an op's single result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResultKind {
    /// Same physical and valid geometry and type as the full-shape source.
    SameAsSource,
    /// Row reductions: `ValidRow×1`, physical Col 1; column reductions: `1×ValidCol`, physical
    /// Col = source Col. Same type as the source.
    Reduced,
    /// ARG reductions: geometry of `Reduced`, type U32 (or S32).
    Index,
    /// Expand copies and TEXPANDS: the full shape comes from the result type (B.DIM), type of
    /// the broadcast (TEXPANDS: the bundle's DataType).
    Broadcast,
    /// EXPDIF: full-shape geometry, type FP32 or the source's (the five legal pairs).
    ExpDif,
    /// TCMP: a predicate tile of the sources' physical and valid geometry (docs/isa.md §3.6).
    Predicate,
    /// TCVT: the source's physical and valid geometry in any type of the op's set (B.DATR
    /// DataType), so its SizeCode follows the result's element width.
    Converted,
    /// TTRANS: the source's valid shape swapped (valid rows = the source's valid columns and
    /// the reverse) in the source's type; the physical columns are the destination's own, so
    /// its SizeCode is the allocator's to choose (docs/isa.md §19).
    Transposed,
    /// Matrix ops: valid M×N (LB0×LB1) in the left operand's CUBE layout and the accumulator
    /// type (FP32, S32, U32; `TileMatrixAccumulatorDataType`).
    Matrix,
}

/// One row of the catalogue.
#[derive(Debug)]
pub struct OpInfo {
    /// Spec mnemonic, upper case (`TROWEXPANDMAX`).
    pub mnemonic: &'static str,
    /// How the op's block start names it.
    pub carrier: Carrier,
    /// Position in `spec/catalog/tile-operations.json` `operations[]`.
    pub catalog_index: u16,
    /// The engine that runs it.
    pub engine: Engine,
    /// What the op computes.
    pub kind: OpKind,
    /// B.IOT sources in contract order.
    pub sources: &'static [OperandRole],
    /// How many of `sources` each B.IOT binding carries, in order; the last binding also carries
    /// the destination and L=1 (TSEL: `[2, 1]`, docs/isa.md §1.9; every other op `[n]`).
    pub bindings: &'static [usize],
    /// DataTypes the typed sources ([`OperandRole::carries_type`]) may have; BSTART's DataType.
    pub legal_types: &'static [DataType],
    /// How the result's geometry and type follow from the sources.
    pub result: ResultKind,
}

impl OpInfo {
    /// The 7-bit TEPL selector `Mode·32 + Function`; `None` for a TLSU or CUBE op.
    pub fn selector(&self) -> Option<u32> {
        match self.carrier {
            Carrier::Tepl { mode, function } => Some(mode as u32 * 32 + function as u32),
            Carrier::Tlsu(_) | Carrier::Cube { .. } => None,
        }
    }
    /// The block start of one bundle of this op on `dtype`.
    pub fn bstart(&self, dtype: DataType) -> Instruction {
        match self.carrier {
            Carrier::Tepl { mode, function } => Instruction::BStart(BStart {
                mode,
                function,
                dtype,
            }),
            Carrier::Tlsu(op) => Instruction::BStartTlsu(TlsuStart {
                op,
                dtype: Some(dtype),
            }),
            Carrier::Cube { function } => Instruction::BStartCube(CubeStart { function, dtype }),
        }
    }
    /// The MLIR op name: `pto.` + the lower-case mnemonic.
    pub fn mlir_name(&self) -> String {
        format!("pto.{}", self.mnemonic.to_ascii_lowercase())
    }
    /// Whether `t` is one of the op's legal types.
    pub fn accepts(&self, t: DataType) -> bool {
        self.legal_types.contains(&t)
    }
    /// Whether the op reads a scalar through B.IOR RegSrc0 (the tile-scalar ops, docs/isa.md §14).
    pub fn takes_scalar(&self) -> bool {
        self.kind.takes_scalar()
    }
    /// The position of the source with `role` (the first, if several have it).
    pub fn position_of(&self, role: OperandRole) -> Option<usize> {
        self.sources.iter().position(|&r| r == role)
    }
    /// The position of the first source that carries the bundle's DataType (TSEL's true source;
    /// the first source of every other op; 0 for TEXPANDS, which has none).
    pub fn typed_source(&self) -> usize {
        self.sources
            .iter()
            .position(|r| r.carries_type())
            .unwrap_or(0)
    }
    /// The storage of the op's result.
    pub fn result_storage(&self) -> Storage {
        match self.result {
            ResultKind::Predicate => Storage::Predicate,
            ResultKind::SameAsSource
            | ResultKind::Reduced
            | ResultKind::Index
            | ResultKind::Broadcast
            | ResultKind::ExpDif
            | ResultKind::Converted
            | ResultKind::Transposed
            | ResultKind::Matrix => Storage::Numeric,
        }
    }
}

use Axis::{Col, Row};
use ElementOp as E;
use Engine::{Sfu, Vec as VecEngine};
use OperandRole::*;
use Reduction as R;
use UnaryOp as U;

const SRC: &[OperandRole] = &[Src];
const BCAST: &[OperandRole] = &[Bcast];
const SRC_BCAST: &[OperandRole] = &[Src, Bcast];
const LEFT_RIGHT: &[OperandRole] = &[SrcLeft, SrcRight];
const SELECT: &[OperandRole] = &[Pred, SrcTrue, SrcFalse];
/// TEXPANDS: no tile source (its value comes through B.IOR).
const NO_SOURCE: &[OperandRole] = &[];
/// Matrix ops: B.IOT A, B, ->D; the `_ACC` forms C, A then B, ->D; the `_BIAS` forms A, B then
/// Bias, ->D (the `block` templates of `asl/tile/matrix-and-matrix-vector/`).
const MATMUL: &[OperandRole] = &[Left, Right];
const MATMUL_ACC: &[OperandRole] = &[Accumulator, Left, Right];
const MATMUL_BIAS: &[OperandRole] = &[Left, Right, Bias];

const fn cube(function: u8) -> Carrier {
    Carrier::Cube { function }
}

const fn matmul(form: MatmulForm, gemv: bool) -> OpKind {
    OpKind::Matmul { form, gemv }
}

macro_rules! catalogue {
    ($( $mn:literal: $carrier:expr, idx $idx:literal, $engine:expr, $kind:expr,
        $srcs:expr $(=> $bind:expr)?, $types:expr, $result:ident; )*) => {
        /// Every op ptoc knows: the 28 reduce-and-expand ops (docs/isa.md §1.2, all Mode 2, SFU),
        /// the elementwise ops they fuse with (docs/isa.md §1.6), TCMP and TSEL (§1.9), TCVT
        /// (§1.10), TMOV (§13), TTRANS (§19), the tile-scalar ops (§14; executable types, §9
        /// decision 3) and the ordinary matrix ops (§18).
        pub static CATALOGUE: &[OpInfo] = &[ $( OpInfo {
            mnemonic: $mn, carrier: $carrier, catalog_index: $idx, engine: $engine,
            kind: $kind, sources: $srcs, bindings: catalogue!(@bind $srcs $(, $bind)?),
            legal_types: $types, result: ResultKind::$result,
        }, )* ];
    };
    (@bind $srcs:expr) => { &[$srcs.len()] };
    (@bind $srcs:expr, $bind:expr) => { $bind };
}

catalogue! {
    "TROWSUM": tepl(2, 0), idx 40, Sfu, OpKind::Reduce(Row, R::Sum), SRC, ARITHMETIC, Reduced;
    "TROWMAX": tepl(2, 1), idx 41, Sfu, OpKind::Reduce(Row, R::Max), SRC, ARITHMETIC, Reduced;
    "TROWMIN": tepl(2, 2), idx 42, Sfu, OpKind::Reduce(Row, R::Min), SRC, ARITHMETIC, Reduced;
    "TROWPROD": tepl(2, 3), idx 43, Sfu, OpKind::Reduce(Row, R::Prod), SRC, ARITHMETIC, Reduced;
    "TROWEXPAND": tepl(2, 4), idx 44, Sfu, OpKind::Expand(Row, None), BCAST, ARITHMETIC, Broadcast;
    "TROWEXPANDADD": tepl(2, 5), idx 45, Sfu, OpKind::Expand(Row, Some(E::Add)), SRC_BCAST, ARITHMETIC, SameAsSource;
    "TROWEXPANDSUB": tepl(2, 6), idx 46, Sfu, OpKind::Expand(Row, Some(E::Sub)), SRC_BCAST, ARITHMETIC, SameAsSource;
    "TROWEXPANDMUL": tepl(2, 7), idx 47, Sfu, OpKind::Expand(Row, Some(E::Mul)), SRC_BCAST, ARITHMETIC, SameAsSource;
    "TROWEXPANDDIV": tepl(2, 8), idx 48, Sfu, OpKind::Expand(Row, Some(E::Div)), SRC_BCAST, ARITHMETIC, SameAsSource;
    "TROWEXPANDMAX": tepl(2, 9), idx 49, Sfu, OpKind::Expand(Row, Some(E::Max)), SRC_BCAST, ARITHMETIC, SameAsSource;
    "TROWEXPANDMIN": tepl(2, 10), idx 50, Sfu, OpKind::Expand(Row, Some(E::Min)), SRC_BCAST, ARITHMETIC, SameAsSource;
    "TROWEXPANDEXPDIF": tepl(2, 11), idx 51, Sfu, OpKind::Expand(Row, Some(E::ExpDif)), SRC_BCAST, EXPDIF_SOURCES, ExpDif;
    "TROWARGMAX": tepl(2, 12), idx 52, Sfu, OpKind::Reduce(Row, R::ArgMax), SRC, A9, Index;
    "TROWARGMIN": tepl(2, 13), idx 53, Sfu, OpKind::Reduce(Row, R::ArgMin), SRC, A9, Index;
    "TCOLSUM": tepl(2, 16), idx 54, Sfu, OpKind::Reduce(Col, R::Sum), SRC, ARITHMETIC, Reduced;
    "TCOLMAX": tepl(2, 17), idx 55, Sfu, OpKind::Reduce(Col, R::Max), SRC, ARITHMETIC, Reduced;
    "TCOLMIN": tepl(2, 18), idx 56, Sfu, OpKind::Reduce(Col, R::Min), SRC, ARITHMETIC, Reduced;
    "TCOLPROD": tepl(2, 19), idx 57, Sfu, OpKind::Reduce(Col, R::Prod), SRC, ARITHMETIC, Reduced;
    "TCOLEXPAND": tepl(2, 20), idx 58, Sfu, OpKind::Expand(Col, None), BCAST, ARITHMETIC, Broadcast;
    "TCOLEXPANDADD": tepl(2, 21), idx 59, Sfu, OpKind::Expand(Col, Some(E::Add)), SRC_BCAST, ARITHMETIC, SameAsSource;
    "TCOLEXPANDSUB": tepl(2, 22), idx 60, Sfu, OpKind::Expand(Col, Some(E::Sub)), SRC_BCAST, ARITHMETIC, SameAsSource;
    "TCOLEXPANDMUL": tepl(2, 23), idx 61, Sfu, OpKind::Expand(Col, Some(E::Mul)), SRC_BCAST, ARITHMETIC, SameAsSource;
    "TCOLEXPANDDIV": tepl(2, 24), idx 62, Sfu, OpKind::Expand(Col, Some(E::Div)), SRC_BCAST, ARITHMETIC, SameAsSource;
    "TCOLEXPANDMAX": tepl(2, 25), idx 63, Sfu, OpKind::Expand(Col, Some(E::Max)), SRC_BCAST, ARITHMETIC, SameAsSource;
    "TCOLEXPANDMIN": tepl(2, 26), idx 64, Sfu, OpKind::Expand(Col, Some(E::Min)), SRC_BCAST, ARITHMETIC, SameAsSource;
    "TCOLEXPANDEXPDIF": tepl(2, 27), idx 65, Sfu, OpKind::Expand(Col, Some(E::ExpDif)), SRC_BCAST, EXPDIF_SOURCES, ExpDif;
    "TCOLARGMAX": tepl(2, 28), idx 66, Sfu, OpKind::Reduce(Col, R::ArgMax), SRC, A9, Index;
    "TCOLARGMIN": tepl(2, 29), idx 67, Sfu, OpKind::Reduce(Col, R::ArgMin), SRC, A9, Index;
    "TADD": tepl(0, 0), idx 0, VecEngine, OpKind::Binary(E::Add), LEFT_RIGHT, ARITHMETIC, SameAsSource;
    "TSUB": tepl(0, 1), idx 1, VecEngine, OpKind::Binary(E::Sub), LEFT_RIGHT, ARITHMETIC, SameAsSource;
    "TMUL": tepl(0, 2), idx 2, VecEngine, OpKind::Binary(E::Mul), LEFT_RIGHT, ARITHMETIC, SameAsSource;
    "TDIV": tepl(0, 3), idx 3, Sfu, OpKind::Binary(E::Div), &[Numerator, Denominator], ARITHMETIC, SameAsSource;
    "TMAX": tepl(0, 11), idx 10, VecEngine, OpKind::Binary(E::Max), LEFT_RIGHT, ARITHMETIC, SameAsSource;
    "TMIN": tepl(0, 12), idx 11, VecEngine, OpKind::Binary(E::Min), LEFT_RIGHT, ARITHMETIC, SameAsSource;
    "TEXP": tepl(0, 18), idx 16, Sfu, OpKind::Unary(U::Exp), SRC, FLOATS, SameAsSource;
    "TABS": tepl(0, 15), idx 13, VecEngine, OpKind::Unary(U::Abs), SRC, ARITHMETIC, SameAsSource;
    "TNEG": tepl(0, 17), idx 15, VecEngine, OpKind::Unary(U::Neg), SRC, ARITHMETIC, SameAsSource;
    "TRELU": tepl(0, 23), idx 21, VecEngine, OpKind::Unary(U::Relu), SRC, ARITHMETIC, SameAsSource;
    "TSQRT": tepl(0, 21), idx 19, Sfu, OpKind::Unary(U::Sqrt), SRC, FLOATS, SameAsSource;
    "TRECIP": tepl(0, 20), idx 18, Sfu, OpKind::Unary(U::Recip), SRC, FLOATS, SameAsSource;
    "TRSQRT": tepl(0, 22), idx 20, Sfu, OpKind::Unary(U::Rsqrt), SRC, FLOATS, SameAsSource;
    "TLOG": tepl(0, 19), idx 17, Sfu, OpKind::Unary(U::Log), SRC, FLOATS, SameAsSource;
    "TCMP": tepl(0, 13), idx 12, VecEngine, OpKind::Compare, LEFT_RIGHT, ARITHMETIC, Predicate;
    "TSEL": tepl(0, 26), idx 22, VecEngine, OpKind::Select, SELECT => &[2, 1], ARITHMETIC, SameAsSource;
    "TCVT": tepl(0, 27), idx 23, VecEngine, OpKind::Convert, SRC, ARITHMETIC, Converted;
    "TMOV": Carrier::Tlsu(TlsuOp::Mov), idx 89, Engine::Tlsu, OpKind::Move, SRC, ARITHMETIC, SameAsSource;
    "TTRANS": tepl(3, 14), idx 80, Sfu, OpKind::Transpose, SRC, ARITHMETIC, Transposed;
    "TADDS": tepl(1, 0), idx 25, VecEngine, OpKind::TileScalar(E::Add), SRC, ARITHMETIC, SameAsSource;
    "TSUBS": tepl(1, 1), idx 26, VecEngine, OpKind::TileScalar(E::Sub), SRC, ARITHMETIC, SameAsSource;
    "TMULS": tepl(1, 2), idx 27, VecEngine, OpKind::TileScalar(E::Mul), SRC, ARITHMETIC, SameAsSource;
    "TDIVS": tepl(1, 3), idx 28, Sfu, OpKind::TileScalar(E::Div), SRC, ARITHMETIC, SameAsSource;
    "TMAXS": tepl(1, 11), idx 35, VecEngine, OpKind::TileScalar(E::Max), SRC, ARITHMETIC, SameAsSource;
    "TMINS": tepl(1, 12), idx 36, VecEngine, OpKind::TileScalar(E::Min), SRC, ARITHMETIC, SameAsSource;
    "TEXPANDS": tepl(1, 27), idx 39, VecEngine, OpKind::FillScalar, NO_SOURCE, ARITHMETIC, Broadcast;
    "TMATMUL": cube(0), idx 97, Engine::Cube, matmul(MatmulForm::Plain, false), MATMUL, MATRIX_INPUTS, Matrix;
    "TMATMUL_BIAS": cube(1), idx 98, Engine::Cube, matmul(MatmulForm::Bias, false), MATMUL_BIAS => &[2, 1], MATRIX_INPUTS, Matrix;
    "TMATMUL_ACC": cube(2), idx 99, Engine::Cube, matmul(MatmulForm::Acc, false), MATMUL_ACC => &[2, 1], MATRIX_INPUTS, Matrix;
    "TGEMV": cube(16), idx 103, Engine::Cube, matmul(MatmulForm::Plain, true), MATMUL, MATRIX_INPUTS, Matrix;
    "TGEMV_BIAS": cube(17), idx 104, Engine::Cube, matmul(MatmulForm::Bias, true), MATMUL_BIAS => &[2, 1], MATRIX_INPUTS, Matrix;
    "TGEMV_ACC": cube(18), idx 105, Engine::Cube, matmul(MatmulForm::Acc, true), MATMUL_ACC => &[2, 1], MATRIX_INPUTS, Matrix;
}

/// The catalogue row with this CUBE Function.
pub fn by_cube_function(function: u8) -> Option<&'static OpInfo> {
    CATALOGUE
        .iter()
        .find(|op| op.carrier == Carrier::Cube { function })
}

/// The catalogue row with this (case-insensitive) mnemonic.
pub fn by_mnemonic(mnemonic: &str) -> Option<&'static OpInfo> {
    CATALOGUE
        .iter()
        .find(|op| op.mnemonic.eq_ignore_ascii_case(mnemonic))
}

/// The catalogue row for an MLIR op name (`pto.trowexpandmax`).
pub fn by_mlir_name(name: &str) -> Option<&'static OpInfo> {
    by_mnemonic(name.strip_prefix("pto.")?)
}

/// The catalogue row with this TEPL Mode and Function.
pub fn by_selector(mode: u32, function: u32) -> Option<&'static OpInfo> {
    if mode >= 4 || function >= 32 {
        return None;
    }
    let index = BY_SELECTOR[(mode * 32 + function) as usize]?;
    CATALOGUE.get(index as usize)
}

/// TEPL selectors (Mode×32 + Function; Mode is 2 bits, Function 5) to catalogue rows, built on
/// first use: the interpreter looks its op up at every bundle, where a catalogue search cost
/// about 80 instructions (callgrind).
static BY_SELECTOR: std::sync::LazyLock<[Option<u16>; 128]> = std::sync::LazyLock::new(|| {
    let mut table = [None; 128];
    // In reverse, so that the first row of a selector is the one kept, as a search finds it.
    for (i, op) in CATALOGUE.iter().enumerate().rev() {
        if let Carrier::Tepl { mode, function } = op.carrier {
            if mode < 4 && function < 32 {
                table[mode as usize * 32 + function as usize] = u16::try_from(i).ok();
            }
        }
    }
    table
});

/// The catalogue row with this kind (each kind has exactly one op).
pub fn by_kind(kind: OpKind) -> Option<&'static OpInfo> {
    CATALOGUE.iter().find(|op| op.kind == kind)
}

/// TEPL functions the ISA accepts per mode (`tepl.accepted_functions` in
/// `spec/evidence/pto-isa-0583-encoding-totality.json`); the holes are illegal instructions.
pub fn tepl_function_accepted(mode: u32, function: u32) -> bool {
    let ranges: &[(u32, u32)] = match mode {
        0 => &[(0, 4), (6, 13), (15, 23), (26, 28)],
        1 => &[(0, 4), (6, 13), (26, 27)],
        2 => &[(0, 13), (16, 29)],
        3 => &[(0, 0), (2, 8), (10, 20)],
        _ => &[],
    };
    ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&function))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn cmode_relations_match_the_spec_vectors() {
        // tests/asl/.../TCMP/tile-bound-tcmp-modes-001.asl: (mode, less, equal) → true.
        assert!(CmpMode::Eq.holds(false, true));
        assert!(CmpMode::Ne.holds(false, false));
        assert!(CmpMode::Lt.holds(true, false));
        assert!(CmpMode::Gt.holds(false, false));
        assert!(CmpMode::Le.holds(false, true));
        assert!(CmpMode::Ge.holds(false, true));
        assert_eq!(CmpMode::from_code(6), None);
        for m in CmpMode::ALL {
            assert_eq!(CmpMode::from_code(m.code()), Some(m));
            assert_eq!(CmpMode::from_mlir_name(m.mlir_name()), Some(m));
        }
    }

    #[test]
    fn catalogue_is_complete_and_consistent() {
        let reduce_expand = CATALOGUE
            .iter()
            .filter(|o| matches!(o.carrier, Carrier::Tepl { mode: 2, .. }))
            .count();
        assert_eq!(reduce_expand, 28);
        assert_eq!(CATALOGUE.len(), 60);
        assert_eq!(CATALOGUE.iter().filter(|o| o.takes_scalar()).count(), 7);
        let mut selectors = HashSet::new();
        let mut names = HashSet::new();
        for op in CATALOGUE {
            assert!(selectors.insert(op.carrier), "{} carrier", op.mnemonic);
            assert!(names.insert(op.mnemonic));
            if let Carrier::Tepl { mode, function } = op.carrier {
                assert!(tepl_function_accepted(mode as u32, function as u32));
            }
            assert_eq!(by_kind(op.kind).unwrap().mnemonic, op.mnemonic);
            assert_eq!(op.bindings.iter().sum::<usize>(), op.sources.len());
            assert!(op.sources.is_empty() || op.sources[op.typed_source()].carries_type());
        }
    }

    #[test]
    fn selectors_and_indices_match_the_spec() {
        let expect = [
            ("TROWEXPANDMAX", 0x049, 49),
            ("TCOLEXPANDMIN", 0x05A, 64),
            ("TCOLARGMIN", 0x05D, 67),
            ("TROWSUM", 0x040, 40),
            ("TMAX", 0x00B, 10),
            ("TEXP", 0x012, 16),
            ("TDIV", 0x003, 3),
            ("TABS", 0x00F, 13),
            ("TNEG", 0x011, 15),
            ("TLOG", 0x013, 17),
            ("TRECIP", 0x014, 18),
            ("TSQRT", 0x015, 19),
            ("TRSQRT", 0x016, 20),
            ("TRELU", 0x017, 21),
            ("TCMP", 0x00D, 12),
            ("TSEL", 0x01A, 22),
            ("TCVT", 0x01B, 23),
            // docs/isa.md §14 (the `selector` of each header under asl/tile/tile-scalar-and-immediate/).
            ("TADDS", 0x020, 25),
            ("TSUBS", 0x021, 26),
            ("TMULS", 0x022, 27),
            ("TDIVS", 0x023, 28),
            ("TMAXS", 0x02B, 35),
            ("TMINS", 0x02C, 36),
            ("TEXPANDS", 0x03B, 39),
            // asl/tile/layout-and-rearrangement/layout/TTRANS.asl: Mode 3, Function 14.
            ("TTRANS", 0x06E, 80),
        ];
        for (mn, sel, idx) in expect {
            let op = by_mnemonic(mn).unwrap();
            assert_eq!((op.selector(), op.catalog_index), (Some(sel), idx), "{mn}");
        }
        assert_eq!(by_mnemonic("TDIV").unwrap().engine, Engine::Sfu);
        assert_eq!(by_mnemonic("TADD").unwrap().engine, Engine::Vec);
        // TSEL: B.IOT Predicate, SrcTrue; B.IOT SrcFalse, last, ->Dst (asl/.../logical/TSEL.asl).
        let tsel = by_mnemonic("TSEL").unwrap();
        assert_eq!((tsel.bindings, tsel.typed_source()), (&[2usize, 1][..], 1));
        assert_eq!(
            by_mnemonic("TCMP").unwrap().result_storage(),
            Storage::Predicate
        );
        assert_eq!(by_mnemonic("TCVT").unwrap().engine, Engine::Vec);
        assert_eq!(by_mnemonic("TDIVS").unwrap().engine, Engine::Sfu);
        let ttrans = by_mnemonic("TTRANS").unwrap();
        assert_eq!(
            (
                ttrans.engine,
                ttrans.carrier,
                ttrans.sources,
                ttrans.bindings
            ),
            (Engine::Sfu, tepl(3, 14), SRC, &[1usize][..])
        );
        assert_eq!(by_selector(3, 14).unwrap().mnemonic, "TTRANS");
        // The selector table finds each catalogue row by its own Mode and Function, and
        // nothing else.
        for mode in 0..5u32 {
            for function in 0..40u32 {
                let row = CATALOGUE
                    .iter()
                    .find(|op| op.carrier == tepl(mode as u8, function as u8));
                let found = by_selector(mode, function);
                assert_eq!(found.map(|op| op.mnemonic), row.map(|op| op.mnemonic));
            }
        }
        assert!(by_selector(u32::MAX, 0).is_none() && by_selector(0, u32::MAX).is_none());
        assert!(tepl_function_accepted(3, 14) && !tepl_function_accepted(3, 9));
        let texpands = by_mnemonic("TEXPANDS").unwrap();
        assert_eq!(
            (texpands.sources.len(), texpands.bindings),
            (0, &[0usize][..])
        );
        assert!(texpands.takes_scalar() && !by_mnemonic("TADD").unwrap().takes_scalar());
        assert_eq!(
            by_mlir_name("pto.tcolexpandmin").unwrap().mnemonic,
            "TCOLEXPANDMIN"
        );
    }

    #[test]
    fn matrix_rows_match_the_spec() {
        // `function` and `catalog_indices` of each header under
        // asl/tile/matrix-and-matrix-vector/; operand roles in contract order.
        let expect = [
            ("TMATMUL", 0, 97, MATMUL),
            ("TMATMUL_BIAS", 1, 98, MATMUL_BIAS),
            ("TMATMUL_ACC", 2, 99, MATMUL_ACC),
            ("TGEMV", 16, 103, MATMUL),
            ("TGEMV_BIAS", 17, 104, MATMUL_BIAS),
            ("TGEMV_ACC", 18, 105, MATMUL_ACC),
        ];
        for (mn, function, idx, roles) in expect {
            let op = by_mnemonic(mn).unwrap();
            assert_eq!(op.carrier, Carrier::Cube { function }, "{mn}");
            assert_eq!((op.catalog_index, op.sources), (idx, roles), "{mn}");
            assert_eq!(by_cube_function(function).unwrap().mnemonic, mn);
            assert_eq!(op.selector(), None);
            // The left operand carries AType: it is BSTART's DataType.
            assert_eq!(op.sources[op.typed_source()], Left);
        }
        assert!(
            by_cube_function(4).is_none(),
            "the MX forms are not modelled"
        );
    }
}
