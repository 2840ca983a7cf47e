//! The e-graph language of `pto-fuse`: one node per catalogue op, function arguments, and type
//! leaves, plus the e-class analysis that gives every value class its tile type.
//!
//! Every op node carries its result type as its **last child**, a class holding one
//! [`TileNode::Type`] leaf. Patterns therefore read `(tadd ?a (trowexpand ?b ?te) ?t)`: `?t` binds
//! the result type, so a rewrite can give the fused op exactly the original result type (pad
//! included), and hash-consing never merges two ops that differ only in their result type (an
//! expand copy's full shape is not implied by its operand).
//!
//! An op node also carries what the op reads from B.DATR besides its types and pad ([`OpControl`]:
//! TCVT's RMode and Sat, `pto.rmode` and `pto.sat`; TCMP's CMode, `pto.cmode`), so two conversions
//! that round differently, or two comparisons by different relations, are never one class.
//! Patterns spell a TCMP's relation after a dot (`tcmp.lt`, [`spelling`]) and no numeric control,
//! so a rule creates a TCMP with the relation it names and every other op with the default control.
//!
//! Op names come from [`ptoc_isa::ops::CATALOGUE`] (the lower-case mnemonic), never from a second
//! table.

use egg::{Analysis, DidMerge, EGraph, FromOp, Id, Language};
use ptoc_ir::{Attr, Op, TileType};
use ptoc_isa::ops::{self, OpInfo, CATALOGUE, CMODE_ATTR};
use ptoc_isa::{CmpMode, NumericControl};
use rustc_hash::FxBuildHasher;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

/// A catalogue op, as its index in [`CATALOGUE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OpCode(u8);

impl OpCode {
    /// The code of a catalogue row (`None` only for a row that is not in the catalogue).
    pub fn of(info: &OpInfo) -> Option<OpCode> {
        // A row of the catalogue itself (what every op holds): its index from its address,
        // instead of comparing mnemonics row by row (that scan was a measurable part of the pass).
        let offset = (info as *const OpInfo as usize).checked_sub(CATALOGUE.as_ptr() as usize);
        let by_address = offset
            .map(|bytes| bytes / std::mem::size_of::<OpInfo>().max(1))
            .filter(|&i| CATALOGUE.get(i).is_some_and(|row| std::ptr::eq(row, info)));
        by_address
            .or_else(|| {
                CATALOGUE
                    .iter()
                    .position(|row| row.mnemonic == info.mnemonic)
            })
            .and_then(|i| u8::try_from(i).ok())
            .map(OpCode)
    }

    /// The code of the op with this kind.
    pub fn of_kind(kind: ops::OpKind) -> Option<OpCode> {
        ops::by_kind(kind).and_then(OpCode::of)
    }

    /// Its index in [`CATALOGUE`].
    pub fn index(self) -> usize {
        self.0 as usize
    }

    pub fn info(self) -> &'static OpInfo {
        &CATALOGUE[self.0 as usize]
    }

    /// The pattern spelling: the lower-case mnemonic (`trowexpandadd`).
    pub fn name(self) -> String {
        self.info().mnemonic.to_ascii_lowercase()
    }
}

impl FromStr for OpCode {
    type Err = ();
    fn from_str(s: &str) -> Result<OpCode, ()> {
        ops::by_mnemonic(s).and_then(OpCode::of).ok_or(())
    }
}

/// Most children an op node has: three sources (TSEL) and the result-type leaf.
const MAX_CHILDREN: usize = 4;

/// What an op reads from B.DATR besides its types and pad (`OpKind::datr_fields`): RMode and Sat
/// (TCVT, the IR op's `control`) and CMode (TCMP, its `pto.cmode` attribute; docs/isa.md §1.9,
/// §1.10). Part of what the op computes, so part of its e-node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OpControl {
    pub numeric: NumericControl,
    pub cmode: Option<CmpMode>,
}

impl OpControl {
    /// The control of `op`; `None` when an op that reads CMode has no relation in `pto.cmode`
    /// (an error `pto-verify` reports).
    pub fn of(op: &Op) -> Option<OpControl> {
        let cmode = if op.info.kind.datr_fields().cmode {
            match op.attrs.get(CMODE_ATTR) {
                Some(Attr::Str(name)) => Some(CmpMode::from_mlir_name(name)?),
                _ => return None,
            }
        } else {
            None
        };
        Some(OpControl {
            numeric: op.control,
            cmode,
        })
    }

    /// TCMP's control: relation `mode` and no numeric control (docs/isa.md §1.9).
    pub fn relation(mode: CmpMode) -> OpControl {
        OpControl {
            cmode: Some(mode),
            ..OpControl::default()
        }
    }

    /// Give `op` this control: its `control` field and, with a relation, its `pto.cmode`.
    pub fn apply(self, op: &mut Op) {
        op.control = self.numeric;
        if let Some(mode) = self.cmode {
            op.attrs.insert(
                CMODE_ATTR.to_string(),
                Attr::Str(mode.mlir_name().to_string()),
            );
        }
    }
}

/// The spelling of an op node in patterns and dumps: the lower-case mnemonic (`tadd`), and for
/// an op that reads CMode a dot and its relation's `pto.cmode` name (`tcmp.lt`; docs/isa.md
/// §1.9). [`TileNode`]'s `FromOp` reads it back.
pub fn spelling(code: OpCode, control: OpControl) -> String {
    match control.cmode {
        Some(mode) => format!("{}.{}", code.name(), mode.mlir_name()),
        None => code.name(),
    }
}

/// The code and control a [`spelling`] names; `None` unless the relation is there exactly for an
/// op that reads CMode (`OpKind::datr_fields`) and names one.
fn parse_spelling(s: &str) -> Option<(OpCode, OpControl)> {
    let (name, relation) = match s.split_once('.') {
        Some((name, relation)) => (name, Some(relation)),
        None => (s, None),
    };
    let code: OpCode = name.parse().ok()?;
    if code.info().kind.datr_fields().cmode != relation.is_some() {
        return None;
    }
    match relation {
        Some(relation) => Some((
            code,
            OpControl::relation(CmpMode::from_mlir_name(relation)?),
        )),
        None => Some((code, OpControl::default())),
    }
}

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
        control: OpControl,
        arity: u8,
        ids: [Id; MAX_CHILDREN],
    },
}

impl TileNode {
    /// An op node over `sources` with result type class `ty` and the default control; `None` if
    /// there are too many sources.
    pub fn op(code: OpCode, sources: &[Id], ty: Id) -> Option<TileNode> {
        TileNode::op_with(code, OpControl::default(), sources, ty)
    }

    /// [`TileNode::op`] with the op's control.
    pub fn op_with(code: OpCode, control: OpControl, sources: &[Id], ty: Id) -> Option<TileNode> {
        if sources.len() + 1 > MAX_CHILDREN {
            return None;
        }
        let mut ids = [Id::from(0usize); MAX_CHILDREN];
        ids[..sources.len()].copy_from_slice(sources);
        ids[sources.len()] = ty;
        Some(TileNode::Op {
            code,
            control,
            arity: sources.len() as u8 + 1,
            ids,
        })
    }

    /// The op's control (the default for leaves).
    pub fn control(&self) -> OpControl {
        match self {
            TileNode::Op { control, .. } => *control,
            TileNode::Type(_) | TileNode::Arg(_) => OpControl::default(),
        }
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
                TileNode::Op {
                    code,
                    control,
                    arity,
                    ..
                },
                TileNode::Op {
                    code: c2,
                    control: k2,
                    arity: a2,
                    ..
                },
            ) => code == c2 && control == k2 && arity == a2,
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
            TileNode::Op { code, control, .. } => f.write_str(&spelling(*code, *control)),
        }
    }
}

/// A node spelling that is not a catalogue op's [`spelling`], `argN` or `typeN`.
#[derive(Debug)]
#[allow(dead_code)] // the spelling is read through `Debug`, in egg's parse errors
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
        let (code, control) = parse_spelling(op).ok_or_else(bad)?;
        let (ty, sources) = children.split_last().ok_or_else(bad)?;
        TileNode::op_with(code, control, sources, *ty).ok_or_else(bad)
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
    /// Keyed with FxHash (egg's own hash, and a few times cheaper than SipHash here), never a
    /// per-process random seed, so that the pass does the same work on every run (reproducible
    /// instruction counts).
    lookup: HashMap<TileType, u32, FxBuildHasher>,
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
