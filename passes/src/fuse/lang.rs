//! The e-graph language of `pto-fuse`: one node per catalogue op, function arguments, and type
//! leaves, plus the e-class analysis that gives every value class its tile type.
//!
//! Every op node carries its result type as its **last child**, a class holding one
//! [`TileNode::Type`] leaf. Patterns therefore read `(tadd ?a (trowexpand ?b ?te) ?t)`: `?t` binds
//! the result type, so a rewrite can give the fused op exactly the original result type (pad
//! included), and hash-consing never merges two ops that differ only in their result type (an
//! expand copy's full shape is not implied by its operand).
//!
//! Op names come from [`ptoc_isa::ops::CATALOGUE`] (the lower-case mnemonic), never from a second
//! table. A TCMP's relation is part of its op ([`OpCode`]): `tcmp.lt`, `tcmp.ge`, ….

use egg::{Analysis, DidMerge, EGraph, FromOp, Id, Language};
use ptoc_ir::{Op, TileType};
use ptoc_isa::ops::{self, OpInfo, CATALOGUE};
use ptoc_isa::{CmpMode, OpKind};
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

/// A catalogue op, as its index in [`CATALOGUE`], with TCMP's relation (`pto.cmode`).
///
/// The relation is part of the op, as if `tcmp.lt` and `tcmp.ge` were two ops: it takes part in
/// the node's equality, hash and discriminant, so hash-consing never merges two TCMPs of the same
/// operands with different relations, and a pattern names the relation it matches
/// (`(tcmp.lt ?a ?b ?t)`). Every other op has no relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OpCode {
    row: u8,
    cmode: Option<CmpMode>,
}

impl OpCode {
    /// The code of a catalogue row that needs no attribute (`None` for TCMP, whose code needs its
    /// relation: [`OpCode::of_op`], [`OpCode::compare`]).
    pub fn of(info: &OpInfo) -> Option<OpCode> {
        OpCode::with(info, None)
    }

    /// The code of an op of a function: its row, and for TCMP the relation its `pto.cmode` names
    /// (`None` if it names none).
    pub fn of_op(op: &Op) -> Option<OpCode> {
        OpCode::with(op.info, op.cmode())
    }

    /// TCMP with relation `mode`.
    pub fn compare(mode: CmpMode) -> Option<OpCode> {
        OpCode::with(ops::by_kind(OpKind::Compare)?, Some(mode))
    }

    /// The row of `info` with `cmode`, which must be present exactly for TCMP.
    fn with(info: &OpInfo, cmode: Option<CmpMode>) -> Option<OpCode> {
        if (info.kind == OpKind::Compare) != cmode.is_some() {
            return None;
        }
        CATALOGUE
            .iter()
            .position(|row| std::ptr::eq(row, info) || row.mnemonic == info.mnemonic)
            .and_then(|i| u8::try_from(i).ok())
            .map(|row| OpCode { row, cmode })
    }

    /// The code of the op with this kind (`None` for TCMP, [`OpCode::compare`]).
    pub fn of_kind(kind: OpKind) -> Option<OpCode> {
        ops::by_kind(kind).and_then(OpCode::of)
    }

    pub fn info(self) -> &'static OpInfo {
        &CATALOGUE[self.row as usize]
    }

    /// TCMP's relation; `None` for every other op.
    pub fn cmode(self) -> Option<CmpMode> {
        self.cmode
    }

    /// The pattern spelling: the lower-case mnemonic (`trowexpandadd`), and for TCMP a dot and
    /// the `pto.cmode` spelling of its relation (`tcmp.lt`).
    pub fn name(self) -> String {
        let mnemonic = self.info().mnemonic.to_ascii_lowercase();
        match self.cmode {
            Some(mode) => format!("{mnemonic}.{}", mode.mlir_name()),
            None => mnemonic,
        }
    }
}

impl FromStr for OpCode {
    type Err = ();
    fn from_str(s: &str) -> Result<OpCode, ()> {
        let (mnemonic, cmode) = match s.split_once('.') {
            Some((m, mode)) => (m, Some(CmpMode::from_mlir_name(mode).ok_or(())?)),
            None => (s, None),
        };
        ops::by_mnemonic(mnemonic)
            .and_then(|info| OpCode::with(info, cmode))
            .ok_or(())
    }
}

/// Most children an op node has: three sources (TSEL's predicate, true and false sources) and the
/// result-type leaf.
const MAX_CHILDREN: usize = 4;

/// One e-node.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TileNode {
    /// A result type: an index into [`TileAnalysis::types`].
    Type(u32),
    /// The n-th function argument.
    Arg(u32),
    /// A catalogue op: its sources in B.IOT order, then the result-type leaf. Unused slots of
    /// `ids` are always `Id(0)`, so the derived order and hash only see the used ones.
    Op {
        code: OpCode,
        arity: u8,
        ids: [Id; MAX_CHILDREN],
    },
}

impl TileNode {
    /// An op node over `sources` with result type class `ty`; `None` if there are too many sources.
    pub fn op(code: OpCode, sources: &[Id], ty: Id) -> Option<TileNode> {
        if sources.len() + 1 > MAX_CHILDREN {
            return None;
        }
        let mut ids = [Id::from(0usize); MAX_CHILDREN];
        ids[..sources.len()].copy_from_slice(sources);
        ids[sources.len()] = ty;
        Some(TileNode::Op {
            code,
            arity: sources.len() as u8 + 1,
            ids,
        })
    }

    /// The op's sources (all children but the type leaf); empty for leaves.
    pub fn sources(&self) -> &[Id] {
        let children = self.children();
        &children[..children.len().saturating_sub(1)]
    }

    /// The op's result-type class.
    pub fn type_child(&self) -> Option<Id> {
        match self {
            TileNode::Op { .. } => self.children().last().copied(),
            _ => None,
        }
    }
}

/// What [`Language::discriminant`] compares: the op itself, so egg's per-op index only hands a
/// pattern the classes that contain its root op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeKind {
    Type,
    Arg,
    Op(OpCode),
}

impl Language for TileNode {
    type Discriminant = NodeKind;

    fn discriminant(&self) -> NodeKind {
        match self {
            TileNode::Type(_) => NodeKind::Type,
            TileNode::Arg(_) => NodeKind::Arg,
            TileNode::Op { code, .. } => NodeKind::Op(*code),
        }
    }

    fn matches(&self, other: &Self) -> bool {
        match (self, other) {
            (TileNode::Type(a), TileNode::Type(b)) => a == b,
            (TileNode::Arg(a), TileNode::Arg(b)) => a == b,
            (
                TileNode::Op { code, arity, .. },
                TileNode::Op {
                    code: c2,
                    arity: a2,
                    ..
                },
            ) => code == c2 && arity == a2,
            _ => false,
        }
    }

    fn children(&self) -> &[Id] {
        match self {
            TileNode::Op { arity, ids, .. } => &ids[..*arity as usize],
            _ => &[],
        }
    }

    fn children_mut(&mut self) -> &mut [Id] {
        match self {
            TileNode::Op { arity, ids, .. } => &mut ids[..*arity as usize],
            _ => &mut [],
        }
    }
}

impl fmt::Display for TileNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TileNode::Type(t) => write!(f, "type{t}"),
            TileNode::Arg(a) => write!(f, "arg{a}"),
            TileNode::Op { code, .. } => f.write_str(&code.name()),
        }
    }
}

/// A node spelling that is not a catalogue op, `argN` or `typeN`.
#[derive(Debug)]
pub struct BadNode(pub String);

impl FromOp for TileNode {
    type Error = BadNode;

    fn from_op(op: &str, children: Vec<Id>) -> Result<TileNode, BadNode> {
        let bad = || BadNode(op.to_string());
        let leaf = |prefix: &str| {
            op.strip_prefix(prefix)
                .and_then(|n| n.parse::<u32>().ok())
                .filter(|_| children.is_empty())
        };
        if let Some(t) = leaf("type") {
            return Ok(TileNode::Type(t));
        }
        if let Some(a) = leaf("arg") {
            return Ok(TileNode::Arg(a));
        }
        let code: OpCode = op.parse().map_err(|()| bad())?;
        let (ty, sources) = children.split_last().ok_or_else(bad)?;
        TileNode::op(code, sources, *ty).ok_or_else(bad)
    }
}

/// Per-class data: the tile type of the values in the class, and whether the class is a type leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassData {
    pub ty: Option<u32>,
    pub is_type: bool,
}

/// The e-class analysis: interns tile types and types every class.
///
/// Every rewrite keeps the class's type (the fused op reuses the matched op's result-type leaf,
/// and a union with an existing value is only made when the two types are equal), so a class never
/// holds values of two types.
#[derive(Debug, Default)]
pub struct TileAnalysis {
    /// Interned types, in first-use order (deterministic for a given function).
    pub types: Vec<TileType>,
    lookup: HashMap<TileType, u32>,
    /// The type index of each function argument.
    pub arg_types: Vec<u32>,
}

impl TileAnalysis {
    /// The index of `ty`, interning it on first use.
    pub fn intern(&mut self, ty: TileType) -> u32 {
        if let Some(&t) = self.lookup.get(&ty) {
            return t;
        }
        let t = self.types.len() as u32;
        self.types.push(ty);
        self.lookup.insert(ty, t);
        t
    }

    pub fn ty(&self, t: u32) -> Option<&TileType> {
        self.types.get(t as usize)
    }
}

impl Analysis<TileNode> for TileAnalysis {
    type Data = ClassData;

    fn make(egraph: &mut EGraph<TileNode, Self>, enode: &TileNode, _id: Id) -> ClassData {
        match enode {
            TileNode::Type(t) => ClassData {
                ty: Some(*t),
                is_type: true,
            },
            TileNode::Arg(a) => ClassData {
                ty: egraph.analysis.arg_types.get(*a as usize).copied(),
                is_type: false,
            },
            TileNode::Op { .. } => {
                let leaf = enode.type_child().map(|id| egraph[id].data);
                ClassData {
                    ty: leaf.filter(|d| d.is_type).and_then(|d| d.ty),
                    is_type: false,
                }
            }
        }
    }

    fn merge(&mut self, to: &mut ClassData, from: ClassData) -> DidMerge {
        let before = *to;
        if to.ty.is_none() {
            to.ty = from.ty;
        }
        to.is_type |= from.is_type;
        DidMerge(*to != before, *to != from)
    }
}

/// The e-graph `pto-fuse` saturates.
pub type TileGraph = EGraph<TileNode, TileAnalysis>;

/// The tile type of a value class (`None` for type leaves and untyped classes).
pub fn value_type(egraph: &TileGraph, id: Id) -> Option<TileType> {
    let data = egraph[id].data;
    if data.is_type {
        return None;
    }
    data.ty.and_then(|t| egraph.analysis.ty(t)).copied()
}

/// The tile type a type-leaf class stands for.
pub fn leaf_type(egraph: &TileGraph, id: Id) -> Option<TileType> {
    let data = egraph[id].data;
    if !data.is_type {
        return None;
    }
    data.ty.and_then(|t| egraph.analysis.ty(t)).copied()
}
