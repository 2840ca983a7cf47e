//! SSA functions of tile ops: one DAG per function, ops in program order.
//!
//! Each op has exactly one result (every op in the catalogue does). Values are indices into the
//! function's value table, so passes can rewrite without lifetimes and the DAG is explicit.

use crate::diag::Location;
use crate::tile_type::TileType;
use ptoc_isa::{NumericControl, OpInfo};
use std::collections::BTreeMap;
use std::fmt;

/// A value: its index in the function's (or GM kernel's, or linalg program's) value table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

/// An op of a [`Function`]: its index in [`Function::ops`] (program order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub u32);

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// The n-th function argument.
    Arg(usize),
    /// The result of an op.
    Op(OpId),
}

/// One SSA value of a [`Function`]: an argument or an op's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    /// The SSA name in the source (`x` for `%x`), kept for diagnostics and `ptoc run --arg x=…`.
    pub name: Option<String>,
    /// Its tile type (dimensions may be `?` before `pto-infer-shapes`).
    pub ty: TileType,
    /// The argument or op that defines it.
    pub def: ValueDef,
}

/// The attributes of the allocation contract between `pto-allocate`, which writes them, and the
/// code generator, which reads them.
pub mod alloc_attrs {
    /// An op's or argument's destination register (`"T#3"`).
    pub const DST: &str = "pto.dst";
    /// Its SizeCode (TSize, 1..=10).
    pub const TSIZE: &str = "pto.tsize";
    /// The physical rows its SizeCode derives.
    pub const ROWS: &str = "pto.rows";
    /// On the function: the PE mask every bundle is allocated under (`"1111"`).
    pub const PE_MASK: &str = "pto.pe_mask";
    /// On the function: the target profile's naming model (`"queue"`, `"absolute"`; docs/isa.md
    /// §9 decisions 1–2); absent means absolute.
    pub const PROFILE: &str = "pto.profile";
    /// On a GM kernel's op that reads tiles: the code naming each tile operand when the op
    /// reads it, comma-separated (`"T#2,U#1"`); kernels with loops cannot be replayed.
    pub const SRCS: &str = "pto.srcs";
}

/// The attributes that spell an op's numeric control (B.DATR RMode and Sat) in MLIR:
/// `pto.rmode = "rtz"` (absent: the op's default) and `pto.sat = true` (absent: false).
pub mod control_attrs {
    /// The rounding mode, by its MLIR name (`"rtz"`).
    pub const RMODE: &str = "pto.rmode";
    /// Saturation (`true`).
    pub const SAT: &str = "pto.sat";
}

/// A discardable attribute on an op (allocation results such as `pto.dst = "T#3"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attr {
    /// An integer (`3 : i64`).
    Int(i64),
    /// A string (`"T#3"`).
    Str(String),
}

impl fmt::Display for Attr {
    /// MLIR attribute syntax.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Attr::Int(n) => write!(f, "{n} : i64"),
            Attr::Str(s) => write!(f, "{s:?}"),
        }
    }
}

/// One catalogue tile op with its single result.
#[derive(Clone, Debug)]
pub struct Op {
    /// Its catalogue row: mnemonic, engine, operand roles, legal types.
    pub info: &'static OpInfo,
    /// Its tile sources, in catalogue order.
    pub operands: Vec<ValueId>,
    /// The value it defines.
    pub result: ValueId,
    /// Where it is in the source.
    pub loc: Location,
    /// B.DATR RMode and Sat, for the ops that read them (TCVT); the default everywhere else.
    /// Part of what the op computes, unlike the discardable `attrs`.
    pub control: NumericControl,
    /// Discardable attributes, by name (allocation results, [`alloc_attrs`]).
    pub attrs: BTreeMap<String, Attr>,
}

/// A straight-line tile kernel (`func.func` over tiles): one DAG of tile ops.
#[derive(Clone, Debug, Default)]
pub struct Function {
    /// The symbol name, without `@`.
    pub name: String,
    /// Where the `func.func` is.
    pub loc: Location,
    /// The arguments' values, in order.
    pub args: Vec<ValueId>,
    /// Attributes per argument (`{pto.dst = "T#1", pto.tsize = 3 : i64}` after allocation).
    pub arg_attrs: Vec<BTreeMap<String, Attr>>,
    /// What `func.return` returns, in order (the kernel's results `r0, r1, …`).
    pub results: Vec<ValueId>,
    /// Program order; every operand is defined before its use.
    pub ops: Vec<Op>,
    /// Every value, indexed by [`ValueId`].
    pub values: Vec<Value>,
    /// Attributes on the function itself (e.g. the kernel's PE mask).
    pub attrs: BTreeMap<String, Attr>,
}

impl Function {
    /// An empty function `@name`.
    pub fn new(name: impl Into<String>, loc: Location) -> Function {
        Function {
            name: name.into(),
            loc,
            ..Function::default()
        }
    }

    /// The value `id` (panics on an id of another function).
    pub fn value(&self, id: ValueId) -> &Value {
        &self.values[id.0 as usize]
    }

    /// The value `id`, to retype or rename it.
    pub fn value_mut(&mut self, id: ValueId) -> &mut Value {
        &mut self.values[id.0 as usize]
    }

    /// The tile type of `id`.
    pub fn ty(&self, id: ValueId) -> &TileType {
        &self.value(id).ty
    }

    /// Append an argument of type `ty` and return its value.
    pub fn add_arg(&mut self, name: Option<String>, ty: TileType) -> ValueId {
        let id = ValueId(self.values.len() as u32);
        self.values.push(Value {
            name,
            ty,
            def: ValueDef::Arg(self.args.len()),
        });
        self.args.push(id);
        self.arg_attrs.push(BTreeMap::new());
        id
    }

    /// Append an op at the end of the body and return its result.
    pub fn push_op(
        &mut self,
        info: &'static OpInfo,
        operands: Vec<ValueId>,
        result_ty: TileType,
        name: Option<String>,
        loc: Location,
    ) -> ValueId {
        let result = ValueId(self.values.len() as u32);
        self.values.push(Value {
            name,
            ty: result_ty,
            def: ValueDef::Op(OpId(self.ops.len() as u32)),
        });
        self.ops.push(Op {
            info,
            operands,
            result,
            loc,
            control: NumericControl::default(),
            attrs: BTreeMap::new(),
        });
        result
    }

    /// Insert an op before the op at position `at` (program order) and return its result; later
    /// ops move one place down and their results' definitions follow them.
    pub fn insert_op(
        &mut self,
        at: usize,
        info: &'static OpInfo,
        operands: Vec<ValueId>,
        result_ty: TileType,
        name: Option<String>,
        loc: Location,
    ) -> ValueId {
        let at = at.min(self.ops.len());
        let result = self.push_op(info, operands, result_ty, name, loc);
        self.ops[at..].rotate_right(1);
        for (i, op) in self.ops.iter().enumerate().skip(at) {
            self.values[op.result.0 as usize].def = ValueDef::Op(OpId(i as u32));
        }
        result
    }

    /// The op defining `id`, if it is not an argument.
    pub fn def_op(&self, id: ValueId) -> Option<&Op> {
        match self.value(id).def {
            ValueDef::Op(op) => Some(&self.ops[op.0 as usize]),
            ValueDef::Arg(_) => None,
        }
    }

    /// How many times each value is used (by ops and by the return).
    pub fn use_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.values.len()];
        for v in self
            .ops
            .iter()
            .flat_map(|op| &op.operands)
            .chain(&self.results)
        {
            counts[v.0 as usize] += 1;
        }
        counts
    }

    /// The location a value was defined at (its op, or the function for arguments).
    pub fn def_loc(&self, id: ValueId) -> &Location {
        self.def_op(id).map_or(&self.loc, |op| &op.loc)
    }
}

/// Everything one MLIR module holds, in source order within each kind.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// Straight-line tile kernels.
    pub functions: Vec<Function>,
    /// Kernels over global memory, with loops (README, Kernels over global memory).
    pub gm_kernels: Vec<crate::gm::GmKernel>,
    /// linalg-on-tensors programs not yet converted (README, linalg-on-tensors input); `convert-linalg-to-pto`
    /// turns each into a GM kernel.
    pub linalg: Vec<crate::linalg::Program>,
}
