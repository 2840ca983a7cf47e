//! GM kernels: functions over global-memory tensors (`memref`), scalars and tiles, with
//! structured loops (README, Kernels over global memory).
//!
//! A straight-line tile kernel is a [`Function`](crate::Function): one DAG of tile ops. A GM
//! kernel adds what a DAG cannot say: values that are not tiles (memrefs, `index` and element
//! scalars), ops that are not catalogue tile ops (`pto.tload`, `pto.tstore`, `arith`), and nested
//! blocks (`scf.for`). Values live in one table, as in MLIR: a value defined outside a loop may be
//! used inside it. Tile ops inside a GM kernel are catalogue rows, exactly as in a `Function`.

use crate::diag::{Diagnostic, Location};
use crate::func::{Attr, ValueId};
use crate::tile_type::TileType;
use ptoc_isa::{DataType, NumericControl, OpInfo};
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// A static, row-major GM tensor: `memref<RxCxT>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemRefType {
    /// Rows.
    pub rows: u32,
    /// Columns (elements per row; rows are contiguous).
    pub cols: u32,
    /// The element type.
    pub dtype: DataType,
}

impl MemRefType {
    /// Bytes between the starts of two consecutive rows.
    pub fn row_stride_bytes(&self) -> u64 {
        u64::from(self.cols) * u64::from(self.dtype.bits()).div_ceil(8)
    }

    /// Parse `memref<4x8xf32>`; the element names are MLIR's (`f32`, `i16`, `bf16`, …).
    pub fn parse(text: &str) -> Option<MemRefType> {
        let inner = text.strip_prefix("memref<")?.strip_suffix('>')?;
        let mut parts = inner.split('x');
        let rows = parts.next()?.parse().ok()?;
        let cols = parts.next()?.parse().ok()?;
        let dtype = DataType::from_mlir_name(parts.next()?)?;
        (parts.next().is_none() && rows > 0 && cols > 0).then_some(MemRefType { rows, cols, dtype })
    }
}

impl fmt::Display for MemRefType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let element = signless_name(self.dtype);
        write!(f, "memref<{}x{}x{element}>", self.rows, self.cols)
    }
}

/// MLIR's spelling of an element outside a tile: signed integers are signless (`i32`), as
/// `arith` requires; everything else as in a tile type.
fn signless_name(dtype: DataType) -> &'static str {
    match dtype {
        DataType::S8 => "i8",
        DataType::S16 => "i16",
        DataType::S32 => "i32",
        DataType::S64 => "i64",
        other => other.mlir_name().unwrap_or(other.name()),
    }
}

/// A scalar SSA value's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// MLIR `index`: a 64-bit integer (loop counters, offsets).
    Index,
    /// An element of this DataType (`f32`, `i32`, …): its bit pattern in a GPR's low bits
    /// (docs/isa.md §14).
    Element(DataType),
}

impl ScalarType {
    /// Bits of the value (64 for `index`).
    pub fn bits(self) -> u32 {
        match self {
            ScalarType::Index => 64,
            ScalarType::Element(t) => t.bits(),
        }
    }

    /// The spelling in metadata and assembly: `index` or the spec's DataType name (`FP32`).
    pub fn spec_name(self) -> &'static str {
        match self {
            ScalarType::Index => "index",
            ScalarType::Element(t) => t.name(),
        }
    }

    /// Parse [`ScalarType::spec_name`]'s spelling; elements must be arithmetic types.
    pub fn from_spec_name(name: &str) -> Option<ScalarType> {
        match name {
            "index" => Some(ScalarType::Index),
            _ => DataType::from_name(name)
                .filter(|t| ptoc_isa::dtype::ARITHMETIC.contains(t))
                .map(ScalarType::Element),
        }
    }

    /// Parse MLIR's spelling: `index`, `f32`, `i32`, …
    pub fn parse(text: &str) -> Option<ScalarType> {
        match text {
            "index" => Some(ScalarType::Index),
            _ => DataType::from_mlir_name(text).map(ScalarType::Element),
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarType::Index => f.write_str("index"),
            ScalarType::Element(t) => f.write_str(signless_name(*t)),
        }
    }
}

/// The type of a value in a GM kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// A tile.
    Tile(TileType),
    /// A GM tensor.
    MemRef(MemRefType),
    /// An `index` or element scalar.
    Scalar(ScalarType),
}

impl Type {
    /// The tile type, if this is a tile.
    pub fn tile(&self) -> Option<&TileType> {
        match self {
            Type::Tile(t) => Some(t),
            _ => None,
        }
    }

    /// The memref type, if this is a memref.
    pub fn memref(&self) -> Option<MemRefType> {
        match self {
            Type::MemRef(m) => Some(*m),
            _ => None,
        }
    }

    /// The scalar type, if this is a scalar.
    pub fn scalar(&self) -> Option<ScalarType> {
        match self {
            Type::Scalar(s) => Some(*s),
            _ => None,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Tile(t) => write!(f, "{t}"),
            Type::MemRef(m) => write!(f, "{m}"),
            Type::Scalar(s) => write!(f, "{s}"),
        }
    }
}

/// Where a GM kernel's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GmDef {
    /// The n-th kernel argument.
    Arg(usize),
    /// The n-th result of an op.
    Result(usize),
    /// The n-th argument of a block (a loop's induction variable is #0, its carried values
    /// follow).
    BlockArg(usize),
}

/// One SSA value of a [`GmKernel`].
#[derive(Clone, Debug, PartialEq)]
pub struct GmValue {
    /// The SSA name in the source (`x` for `%x`), for diagnostics and `ptoc run --arg x=…`.
    pub name: Option<String>,
    /// Its type.
    pub ty: Type,
    /// What defines it.
    pub def: GmDef,
}

/// Scalar integer arithmetic (`arith` on `index` and integer scalars), each the MLIR op of the
/// same name: results wrap at the operands' width; the divisions are refused at a zero divisor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithOp {
    /// `arith.addi`.
    AddI,
    /// `arith.subi`.
    SubI,
    /// `arith.muli`.
    MulI,
    /// `arith.divsi`: signed division, rounding toward zero.
    DivSI,
    /// `arith.divui`: unsigned division.
    DivUI,
    /// `arith.remsi`: signed remainder (the dividend's sign).
    RemSI,
    /// `arith.remui`: unsigned remainder.
    RemUI,
    /// `arith.minsi`.
    MinSI,
    /// `arith.minui`.
    MinUI,
    /// `arith.maxsi`.
    MaxSI,
    /// `arith.maxui`.
    MaxUI,
    /// `arith.andi`.
    AndI,
    /// `arith.ori`.
    OrI,
    /// `arith.xori`.
    XOrI,
    /// `arith.shli`.
    ShLI,
    /// `arith.shrsi`: arithmetic shift right.
    ShRSI,
    /// `arith.shrui`: logical shift right.
    ShRUI,
}

impl ArithOp {
    /// Every op, for parsing by name and for tests.
    pub const ALL: [ArithOp; 17] = [
        ArithOp::AddI,
        ArithOp::SubI,
        ArithOp::MulI,
        ArithOp::DivSI,
        ArithOp::DivUI,
        ArithOp::RemSI,
        ArithOp::RemUI,
        ArithOp::MinSI,
        ArithOp::MinUI,
        ArithOp::MaxSI,
        ArithOp::MaxUI,
        ArithOp::AndI,
        ArithOp::OrI,
        ArithOp::XOrI,
        ArithOp::ShLI,
        ArithOp::ShRSI,
        ArithOp::ShRUI,
    ];

    /// The MLIR op name (`arith.addi`).
    pub fn mlir_name(self) -> &'static str {
        match self {
            ArithOp::AddI => "arith.addi",
            ArithOp::SubI => "arith.subi",
            ArithOp::MulI => "arith.muli",
            ArithOp::DivSI => "arith.divsi",
            ArithOp::DivUI => "arith.divui",
            ArithOp::RemSI => "arith.remsi",
            ArithOp::RemUI => "arith.remui",
            ArithOp::MinSI => "arith.minsi",
            ArithOp::MinUI => "arith.minui",
            ArithOp::MaxSI => "arith.maxsi",
            ArithOp::MaxUI => "arith.maxui",
            ArithOp::AndI => "arith.andi",
            ArithOp::OrI => "arith.ori",
            ArithOp::XOrI => "arith.xori",
            ArithOp::ShLI => "arith.shli",
            ArithOp::ShRSI => "arith.shrsi",
            ArithOp::ShRUI => "arith.shrui",
        }
    }

    /// The op named `name` (`arith.addi`), if it is one of these.
    pub fn from_mlir_name(name: &str) -> Option<ArithOp> {
        ArithOp::ALL.into_iter().find(|op| op.mlir_name() == name)
    }

    /// The MLIR op on two `bits`-wide operands (1..=64; their bit patterns in the low bits),
    /// giving the result's bit pattern, wrapped to the width. `None` where MLIR gives no value:
    /// a zero divisor, a signed division overflowing (MIN / −1), a shift by the width or more.
    pub fn apply(self, a: u64, b: u64, bits: u32) -> Option<u64> {
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let (ua, ub) = (a & mask, b & mask);
        let signed = |x: u64| ((x << (64 - bits)) as i64) >> (64 - bits);
        let (sa, sb) = (signed(ua), signed(ub));
        let min = signed(1u64 << (bits - 1));
        let shift = || u32::try_from(ub).ok().filter(|&s| s < bits);
        let out = match self {
            ArithOp::AddI => ua.wrapping_add(ub),
            ArithOp::SubI => ua.wrapping_sub(ub),
            ArithOp::MulI => ua.wrapping_mul(ub),
            ArithOp::DivSI if sb == 0 || (sa == min && sb == -1) => return None,
            ArithOp::DivSI => (sa / sb) as u64,
            ArithOp::DivUI => ua.checked_div(ub)?,
            ArithOp::RemSI if sb == 0 || (sa == min && sb == -1) => return None,
            ArithOp::RemSI => (sa % sb) as u64,
            ArithOp::RemUI => ua.checked_rem(ub)?,
            ArithOp::MinSI => sa.min(sb) as u64,
            ArithOp::MinUI => ua.min(ub),
            ArithOp::MaxSI => sa.max(sb) as u64,
            ArithOp::MaxUI => ua.max(ub),
            ArithOp::AndI => ua & ub,
            ArithOp::OrI => ua | ub,
            ArithOp::XOrI => ua ^ ub,
            ArithOp::ShLI => ua << shift()?,
            ArithOp::ShRSI => (sa >> shift()?) as u64,
            ArithOp::ShRUI => ua >> shift()?,
        };
        Some(out & mask)
    }
}

/// What a GM kernel's op does.
#[derive(Clone, Debug)]
pub enum GmOpKind {
    /// A catalogue tile op. Operands: its tile sources in catalogue order, then (tile-scalar
    /// ops) the scalar. One tile result.
    Tile {
        /// The catalogue row.
        info: &'static OpInfo,
        /// B.DATR RMode and Sat (as [`Op::control`](crate::Op::control)).
        control: NumericControl,
    },
    /// `pto.tload(mem, row, col) -> tile`: the tile's valid region from `mem[row.., col..]`.
    Load,
    /// `pto.tstore(tile, mem, row, col)`: the tile's valid region to `mem[row.., col..]`.
    Store,
    /// `arith.constant`: the result's bit pattern (an `index` or integer as its two's complement
    /// value, a float as its IEEE bits), zero-extended to 64 bits.
    Constant(u64),
    /// Integer arithmetic on two scalars of the result's type.
    Arith(ArithOp),
    /// `scf.for %iv = lb to ub step s iter_args(...)`. Operands: lb, ub, step, then the initial
    /// carried values; results: the final carried values. The body's arguments are the
    /// induction variable and the carried values; it ends with [`GmOpKind::Yield`].
    For(Block),
    /// `scf.yield`: the next iteration's carried values.
    Yield,
    /// `func.return`: the kernel's results (none for a GM kernel that only stores).
    Return,
}

/// One op of a GM kernel's block.
#[derive(Clone, Debug)]
pub struct GmOp {
    /// What it does (and, for a loop, its body).
    pub kind: GmOpKind,
    /// Its operands, in the order [`GmOpKind`] gives for the kind.
    pub operands: Vec<ValueId>,
    /// The values it defines.
    pub results: Vec<ValueId>,
    /// Where it is in the source.
    pub loc: Location,
    /// Discardable attributes (allocation results such as `pto.dst`).
    pub attrs: BTreeMap<String, Attr>,
}

/// A block: arguments, then ops in program order; every operand is defined before its use,
/// in this block or one that encloses it.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// The block's arguments (a loop body: the induction variable, then the carried values).
    pub args: Vec<ValueId>,
    /// Its ops, ending with a terminator (`scf.yield` or `func.return`).
    pub ops: Vec<GmOp>,
}

/// One value a loop carries: the body's block argument, the initial value (a `scf.for`
/// operand), the value the body yields for it and the loop's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Carried {
    /// The body's block argument that holds it during an iteration.
    pub arg: ValueId,
    /// Its value before the first iteration.
    pub init: ValueId,
    /// `None` when the body does not end with a `scf.yield` of enough values.
    pub yielded: Option<ValueId>,
    /// The loop's result: its value after the last iteration.
    pub result: ValueId,
}

impl GmOp {
    /// The values a `scf.for` carries, in order (empty for any other op).
    pub fn carried(&self) -> Vec<Carried> {
        let GmOpKind::For(body) = &self.kind else {
            return Vec::new();
        };
        let yields = body
            .ops
            .last()
            .filter(|y| matches!(y.kind, GmOpKind::Yield))
            .map_or(&[][..], |y| &y.operands[..]);
        let args = body.args.iter().skip(1);
        let inits = self.operands.iter().skip(3);
        args.zip(inits)
            .zip(&self.results)
            .enumerate()
            .map(|(i, ((&arg, &init), &result))| Carried {
                arg,
                init,
                yielded: yields.get(i).copied(),
                result,
            })
            .collect()
    }
}

/// The argument attribute (a unit attribute, `%ws: memref<32x128xf32> {pto.workspace}`) that
/// marks a GM kernel's memref argument as a workspace ([`GmKernel::workspaces`]).
pub const WORKSPACE_ATTR: &str = "pto.workspace";

/// A kernel over global memory with loops: arguments, one value table, and a body block.
#[derive(Clone, Debug, Default)]
pub struct GmKernel {
    /// The symbol name, without `@`.
    pub name: String,
    /// Where the `func.func` is.
    pub loc: Location,
    /// The arguments' values (memrefs and scalars), in order.
    pub args: Vec<ValueId>,
    /// Every value, indexed by [`ValueId`], wherever it is defined.
    pub values: Vec<GmValue>,
    /// The kernel's body; it ends with `func.return`.
    pub body: Block,
    /// Attributes on the kernel itself (target profile, PE mask).
    pub attrs: BTreeMap<String, Attr>,
    /// The memref arguments that are ptoc's working memory rather than the caller's (the
    /// tensors between a linalg program's stages): the last arguments, zero-filled by the
    /// loader, never outputs (codegen/METADATA.md `workspace`).
    pub workspaces: Vec<ValueId>,
}

impl GmKernel {
    /// An empty kernel `@name`.
    pub fn new(name: impl Into<String>, loc: Location) -> GmKernel {
        GmKernel {
            name: name.into(),
            loc,
            ..GmKernel::default()
        }
    }

    /// The value `id`.
    pub fn value(&self, id: ValueId) -> &GmValue {
        &self.values[id.0 as usize]
    }

    /// The type of `id`.
    pub fn ty(&self, id: ValueId) -> &Type {
        &self.value(id).ty
    }

    /// A new value (an argument, result or block argument; the caller puts it in place).
    pub fn add_value(&mut self, name: Option<String>, ty: Type, def: GmDef) -> ValueId {
        let id = ValueId(self.values.len() as u32);
        self.values.push(GmValue { name, ty, def });
        id
    }

    /// Append an argument of type `ty` and return its value.
    pub fn add_arg(&mut self, name: Option<String>, ty: Type) -> ValueId {
        let id = self.add_value(name, ty, GmDef::Arg(self.args.len()));
        self.args.push(id);
        id
    }

    /// The value's source name, or `%N` by its number.
    pub fn display_name(&self, id: ValueId) -> String {
        match &self.value(id).name {
            Some(n) if !n.is_empty() => n.clone(),
            _ => id.0.to_string(),
        }
    }

    /// Every op, outer ones before the ops of their bodies, in program order.
    pub fn walk(&self, mut visit: impl FnMut(&GmOp)) {
        fn walk_block(block: &Block, visit: &mut impl FnMut(&GmOp)) {
            for op in &block.ops {
                visit(op);
                if let GmOpKind::For(body) = &op.kind {
                    walk_block(body, visit);
                }
            }
        }
        walk_block(&self.body, &mut visit);
    }

    /// The memref arguments the kernel stores to (its outputs).
    pub fn stored_memrefs(&self) -> Vec<ValueId> {
        let mut stored = Vec::new();
        self.walk(|op| {
            if let (GmOpKind::Store, Some(&mem)) = (&op.kind, op.operands.get(1)) {
                if !stored.contains(&mem) {
                    stored.push(mem);
                }
            }
        });
        stored
    }
}

// The GM bound and step rules, here beside the IR so that pto-verify and the lowering (which a
// kernel reaches without pto-verify under an explicit `--pass-pipeline=pto-allocate`) apply one
// copy: a rectangle that certainly leaves its memref would fault at run time (docs/isa.md §13.8,
// §17 decision 46), a non-positive step would never end.

/// An `index` value as `Σ coefficient × induction variable + constant`, over the induction
/// variables of loops with constant bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Affine {
    terms: Vec<(ValueId, i128)>,
    constant: i128,
}

impl Affine {
    fn constant(c: i128) -> Affine {
        Affine {
            terms: Vec::new(),
            constant: c,
        }
    }

    fn as_constant(&self) -> Option<i128> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// `self + k × other`; `None` past the 64-bit range, where `index` arithmetic wraps.
    fn add_scaled(&self, other: &Affine, k: i128) -> Option<Affine> {
        let mut out = self.clone();
        for &(iv, c) in &other.terms {
            match out.terms.iter_mut().find(|(v, _)| *v == iv) {
                Some(slot) => slot.1 += c * k,
                None => out.terms.push((iv, c * k)),
            }
        }
        out.terms.retain(|&(_, c)| c != 0);
        out.constant += other.constant * k;
        out.fits().then_some(out)
    }

    fn scale(&self, k: i128) -> Option<Affine> {
        Affine::constant(0).add_scaled(self, k)
    }

    fn fits(&self) -> bool {
        let ok = |x: i128| i128::from(i64::MIN) <= x && x <= i128::from(i64::MAX);
        ok(self.constant) && self.terms.iter().all(|&(_, c)| ok(c))
    }
}

/// What the bounds analysis knows while walking the kernel.
#[derive(Default)]
struct Bounds {
    affine: HashMap<ValueId, Affine>,
    /// The first and last value of each induction variable of a loop with constant bounds.
    ivs: HashMap<ValueId, (i128, i128)>,
}

impl Bounds {
    /// The smallest and largest value `a` takes (exact: every corner of the iteration box runs).
    /// `None` when some iteration's value leaves the 64-bit range: `index` arithmetic wraps
    /// there, so the exact value is not the one the kernel computes.
    fn range(&self, a: &Affine) -> Option<(i128, i128)> {
        let (mut lo, mut hi) = (a.constant, a.constant);
        for &(iv, c) in &a.terms {
            let &(first, last) = self.ivs.get(&iv)?;
            let (x, y) = (c.checked_mul(first)?, c.checked_mul(last)?);
            lo = lo.checked_add(x.min(y))?;
            hi = hi.checked_add(x.max(y))?;
        }
        let in_index = |x: i128| i128::from(i64::MIN) <= x && x <= i128::from(i64::MAX);
        (in_index(lo) && in_index(hi)).then_some((lo, hi))
    }
}

/// Prove every `pto.tload`/`pto.tstore` rectangle (offset + the tile's valid shape) lies inside
/// its memref, over constants and the induction variables of loops with constant bounds
/// (offsets `iv × c + d` and `addi`/`subi`/`muli`/`shli` on them; constant operands of the other
/// ops fold). The bounds found are exact (every iteration of such loops runs), so an error here
/// is an access that certainly happens. An offset the analysis cannot bound (a scalar argument,
/// a loop-carried index, a division of an induction variable) is allowed: the interpreter
/// faults precisely at run time on the element that leaves the buffer (docs/isa.md §17), and a
/// compile-time refusal would reject correct kernels. Also refuses a constant non-positive loop
/// step (MLIR's scf.for requires a positive step). Tiles whose valid shape is still `?` are
/// skipped (shape inference runs the check again).
pub fn check_bounds(kernel: &GmKernel) -> Vec<Diagnostic> {
    let mut bounds = Bounds::default();
    let mut errors = Vec::new();
    check_block(kernel, &kernel.body, true, &mut bounds, &mut errors);
    errors
}

fn check_block(
    kernel: &GmKernel,
    block: &Block,
    reachable: bool,
    bounds: &mut Bounds,
    errors: &mut Vec<Diagnostic>,
) {
    for op in &block.ops {
        let get = |i: usize| op.operands.get(i).and_then(|v| bounds.affine.get(v));
        match &op.kind {
            GmOpKind::Constant(bits) => {
                if kernel.ty(op.results[0]) == &Type::Scalar(ScalarType::Index) {
                    let c = Affine::constant(i128::from(*bits as i64));
                    bounds.affine.insert(op.results[0], c);
                }
            }
            GmOpKind::Arith(arith) => {
                if kernel.ty(op.results[0]) != &Type::Scalar(ScalarType::Index) {
                    continue;
                }
                let (Some(a), Some(b)) = (get(0), get(1)) else {
                    continue;
                };
                use ArithOp::*;
                let folded = match (arith, a.as_constant(), b.as_constant()) {
                    (AddI, _, _) => a.add_scaled(b, 1),
                    (SubI, _, _) => a.add_scaled(b, -1),
                    (MulI, _, Some(k)) => a.scale(k),
                    (MulI, Some(k), _) => b.scale(k),
                    (ShLI, _, Some(k)) if (0..63).contains(&k) => a.scale(1 << k),
                    (_, Some(x), Some(y)) => arith
                        .apply(x as u64, y as u64, 64)
                        .map(|r| Affine::constant(i128::from(r as i64))),
                    _ => None,
                };
                if let Some(f) = folded {
                    bounds.affine.insert(op.results[0], f);
                }
            }
            GmOpKind::For(body) => {
                let consts = [0, 1, 2].map(|i| get(i).and_then(Affine::as_constant));
                let mut body_reachable = reachable;
                if let [Some(lb), Some(ub), Some(step)] = consts {
                    if step <= 0 {
                        errors.push(Diagnostic::error(
                            op.loc.clone(),
                            format!("'scf.for' has step {step}; a loop's step must be positive"),
                        ));
                        continue;
                    }
                    let trips = if ub > lb {
                        (ub - lb + step - 1) / step
                    } else {
                        0
                    };
                    if trips == 0 {
                        body_reachable = false;
                    } else if let Some(&iv) = body.args.first() {
                        bounds.ivs.insert(iv, (lb, lb + (trips - 1) * step));
                        bounds.affine.insert(
                            iv,
                            Affine {
                                terms: vec![(iv, 1)],
                                constant: 0,
                            },
                        );
                    }
                }
                check_block(kernel, body, body_reachable, bounds, errors);
            }
            GmOpKind::Load | GmOpKind::Store => {
                if reachable {
                    if let Some(e) = rectangle_error(kernel, op, bounds) {
                        errors.push(e);
                    }
                }
            }
            GmOpKind::Tile { .. } | GmOpKind::Yield | GmOpKind::Return => {}
        }
    }
}

/// The error for a tload/tstore whose rectangle provably leaves its memref.
fn rectangle_error(kernel: &GmKernel, op: &GmOp, bounds: &Bounds) -> Option<Diagnostic> {
    let (tile_v, mem_v, first_offset) = match op.kind {
        GmOpKind::Load => (*op.results.first()?, *op.operands.first()?, 1),
        _ => (*op.operands.first()?, *op.operands.get(1)?, 2),
    };
    let mem = kernel.ty(mem_v).memref()?;
    let tile = kernel.ty(tile_v).tile()?;
    let what = match op.kind {
        GmOpKind::Load => "pto.tload' reads",
        _ => "pto.tstore' writes",
    };
    let axes = [
        ("rows", "row", tile.valid_rows.known(), mem.rows),
        ("columns", "column", tile.valid_cols.known(), mem.cols),
    ];
    for (k, (plural, singular, valid, extent)) in axes.into_iter().enumerate() {
        let offset = op.operands.get(first_offset + k)?;
        let Some((lo, hi)) = bounds.affine.get(offset).and_then(|a| bounds.range(a)) else {
            continue;
        };
        let Some(valid) = valid else { continue };
        let last = hi + i128::from(valid) - 1;
        if lo < 0 || last >= i128::from(extent) {
            let offsets = if lo == hi {
                format!("the {singular} offset is {lo}")
            } else {
                format!("the {singular} offset ranges over {lo}..={hi}")
            };
            return Some(Diagnostic::error(
                op.loc.clone(),
                format!(
                    "'{what} {plural} {lo}..={last} of %{} ({mem}, {plural} 0..={}): {offsets} \
                     and the tile has {valid} valid {plural}",
                    kernel.display_name(mem_v),
                    extent - 1
                ),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memref_types_parse_and_print_mlir_spelling() {
        let m = MemRefType::parse("memref<4096x1024xf32>").unwrap();
        assert_eq!((m.rows, m.cols, m.dtype), (4096, 1024, DataType::FP32));
        assert_eq!(m.row_stride_bytes(), 4096);
        assert_eq!(m.to_string(), "memref<4096x1024xf32>");
        for bad in [
            "memref<4xf32>",
            "memref<0x4xf32>",
            "memref<4x4xq7>",
            "tensor<4x4xf32>",
        ] {
            assert_eq!(MemRefType::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn scalar_types_round_trip() {
        for text in ["index", "f32", "i32", "f16", "bf16"] {
            assert_eq!(ScalarType::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(ScalarType::Index.bits(), 64);
    }

    /// Hand-computed values of MLIR's integer semantics at 8, 32 and 64 bits.
    #[test]
    fn arith_semantics() {
        use ArithOp::*;
        assert_eq!(AddI.apply(0xFF, 1, 8), Some(0));
        assert_eq!(SubI.apply(0, 1, 32), Some(0xFFFF_FFFF));
        assert_eq!(MulI.apply(u64::MAX, 3, 64), Some(u64::MAX - 2));
        assert_eq!(DivSI.apply(0xF9, 2, 8), Some(0xFD)); // -7 / 2 = -3 (toward zero)
        assert_eq!(RemSI.apply(0xF9, 2, 8), Some(0xFF)); // -7 % 2 = -1
        assert_eq!(DivUI.apply(0xF9, 2, 8), Some(0x7C));
        assert_eq!(DivSI.apply(0x80, 0xFF, 8), None); // -128 / -1 overflows
        assert_eq!(DivUI.apply(5, 0, 64), None);
        assert_eq!(RemUI.apply(5, 0, 32), None);
        assert_eq!(MinSI.apply(0xFFFF_FFFF, 1, 32), Some(0xFFFF_FFFF));
        assert_eq!(MinUI.apply(0xFFFF_FFFF, 1, 32), Some(1));
        assert_eq!(MaxSI.apply(u64::MAX, 1, 64), Some(1));
        assert_eq!(ShLI.apply(1, 7, 8), Some(0x80));
        assert_eq!(ShLI.apply(1, 8, 8), None);
        assert_eq!(ShRSI.apply(0x80, 7, 8), Some(0xFF));
        assert_eq!(ShRUI.apply(0x80, 7, 8), Some(1));
        assert_eq!(XOrI.apply(0b1100, 0b1010, 4), Some(0b0110));
    }

    #[test]
    fn arith_names_round_trip() {
        for op in ArithOp::ALL {
            assert_eq!(ArithOp::from_mlir_name(op.mlir_name()), Some(op));
        }
    }
}
