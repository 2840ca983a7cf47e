//! Windows: a large function fuses as a chain of bounded slices of its ops instead of one
//! e-graph, so that each e-graph stays within the caches (one e-graph for 100 000 ops spends most
//! of its time on cache misses in egg's class lookups, and the pass's time grew twice as fast as
//! its instruction count).
//!
//! A window is a run of consecutive ops, fused as a function of its own ([`super::fuse_function_with`]):
//! every value it reads from an earlier window or the function's arguments is one of its
//! arguments, every value it defines that a later op or the function returns is one of its
//! results (so it is kept), and the windows' outputs are concatenated in order.
//!
//! **Cuts.** A rewrite whose pattern reads through a value defined in an earlier window (an
//! expand consumed across the boundary) would be lost, so cuts go where no crossing value can
//! hold a node any rule pattern reads *through* (a non-root pattern node: the expand copies,
//! TROWEXPANDSUB under TEXP, TSUB under TEXP). Which values can hold such a node is computed
//! from the rules themselves ([`Reach`]): an abstract run of every rule on the input, where a
//! value may hold its own op and whatever the result side of a rule that may match it adds,
//! ignoring the rules' type conditions (so it over-approximates what saturation does). A cut is
//! searched within [`Window::radius`] ops of the target size, nearest first; only when no clean
//! cut is there does the cut with the fewest such crossing values win.
//!
//! **Sharing.** One e-graph also merges equal ops of different windows (hash-consing); the
//! concatenation does the same, keeping the earlier op. The DAG costs of the report are the
//! same measure as the single e-graph's: each distinct op paid once.

use super::extract::{tile_bytes, BUNDLE_COST};
use super::lang::{OpCode, OpControl, TileNode};
use super::{fuse_function_with, rules, Limits, Report};
use egg::{ENodeOrVar, Id, Language, PatternAst, Var};
use ptoc_ir::{Function, Op, TileType, ValueDef, ValueId};
use rustc_hash::FxBuildHasher;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::OnceLock;

/// How big the windows are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    /// The target number of ops per window.
    pub size: usize,
    /// How far from the target a clean cut is searched, each way.
    pub radius: usize,
}

impl Window {
    /// The pass's windows: 2048 ops, a clean cut searched up to 256 ops each way. Of 1024, 2048
    /// and 4096 (each far inside the cache sizes that made one big e-graph slow), 2048 gave the
    /// lowest CPU time on the 100 000-op synthetic kernel (`cargo bench --bench fuse`). A window
    /// costs a fixed amount on top of its ops, so smaller is not better.
    pub const DEFAULT: Window = Window {
        size: 2048,
        radius: 256,
    };
}

/// A set of op codes (an [`OpCode`] is a byte).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Codes([u64; 4]);

impl Codes {
    const ALL: Codes = Codes([u64::MAX; 4]);

    fn insert(&mut self, code: OpCode) {
        let i = code.index();
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn contains(&self, code: OpCode) -> bool {
        let i = code.index();
        self.0[i / 64] & (1 << (i % 64)) != 0
    }

    fn union(&mut self, other: &Codes) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a |= b;
        }
    }

    /// The indices of its codes, ascending.
    fn indices(self) -> impl Iterator<Item = usize> {
        (0..4).flat_map(move |w| {
            let mut bits = self.0[w];
            std::iter::from_fn(move || {
                let bit = bits.trailing_zeros() as usize;
                (bits != 0).then(|| {
                    bits &= bits - 1;
                    w * 64 + bit
                })
            })
        })
    }

    fn minus(&self, other: &Codes) -> Codes {
        let mut out = *self;
        for (a, b) in out.0.iter_mut().zip(other.0) {
            *a &= !b;
        }
        out
    }

    fn with(&self, other: &Codes) -> Codes {
        let mut out = *self;
        out.union(other);
        out
    }

    fn meets(&self, other: &Codes) -> bool {
        self.0.iter().zip(other.0).any(|(a, b)| a & b != 0)
    }
}

/// What a rule adds to the class it matches.
#[derive(Clone, Copy, Debug)]
enum Adds {
    /// A node with this op.
    Op(OpCode),
    /// The class a variable of the pattern is bound to (a union).
    Class(Var),
    /// Something the rule does not describe: any op.
    Unknown,
}

/// A rule as the window analysis sees it: its left side and what it adds.
struct Shape {
    lhs: PatternAst<TileNode>,
    adds: Adds,
    /// The op each source of the root must hold, where the pattern names one (a quick test
    /// before the full match).
    sources: Vec<Option<OpCode>>,
}

impl Shape {
    fn new(lhs: PatternAst<TileNode>, adds: Adds) -> Shape {
        let sources = match lhs.as_ref().last() {
            Some(ENodeOrVar::ENode(node @ TileNode::Op { .. })) => node
                .sources()
                .iter()
                .map(|&child| match &lhs[child] {
                    ENodeOrVar::ENode(TileNode::Op { code, .. }) => Some(*code),
                    ENodeOrVar::ENode(TileNode::Type(_) | TileNode::Arg(_))
                    | ENodeOrVar::Var(_) => None,
                })
                .collect(),
            Some(ENodeOrVar::ENode(TileNode::Type(_) | TileNode::Arg(_)) | ENodeOrVar::Var(_))
            | None => Vec::new(),
        };
        Shape { lhs, adds, sources }
    }
}

/// The rules' shapes, indexed by the op at the root of their pattern, and the ops some pattern
/// reads through.
struct Shapes {
    /// By [`OpCode::index`].
    by_root: Vec<Vec<Shape>>,
    /// Rules whose pattern root is not an op (none today): tried on every value.
    any_root: Vec<Shape>,
    /// The ops some pattern reads through (a node below its root).
    inner: Codes,
    /// The ops some pattern starts at (all of them if a pattern starts at a variable).
    roots: Codes,
}

fn root(ast: &PatternAst<TileNode>) -> Option<&ENodeOrVar<TileNode>> {
    ast.as_ref().last()
}

fn shapes() -> &'static Shapes {
    static SHAPES: OnceLock<Shapes> = OnceLock::new();
    SHAPES.get_or_init(|| {
        let mut shapes = Shapes {
            by_root: (0..=u8::MAX).map(|_| Vec::new()).collect(),
            any_root: Vec::new(),
            inner: Codes::default(),
            roots: Codes::default(),
        };
        for rule in rules::rules() {
            let Some(lhs) = rule.searcher.get_pattern_ast() else {
                // A searcher that is not a pattern could match anything anywhere; no rule has
                // one, and treating it as a root-less pattern keeps the analysis sound.
                shapes
                    .any_root
                    .push(Shape::new("?x".parse().unwrap_or_default(), Adds::Unknown));
                shapes.roots = Codes::ALL;
                continue;
            };
            let nodes = lhs.as_ref();
            for node in &nodes[..nodes.len().saturating_sub(1)] {
                if let ENodeOrVar::ENode(TileNode::Op { code, .. }) = node {
                    shapes.inner.insert(*code);
                }
            }
            let adds = match rule.applier.get_pattern_ast().and_then(root) {
                Some(ENodeOrVar::ENode(TileNode::Op { code, .. })) => Adds::Op(*code),
                Some(ENodeOrVar::Var(v)) => Adds::Class(*v),
                Some(ENodeOrVar::ENode(TileNode::Type(_) | TileNode::Arg(_))) | None => {
                    Adds::Unknown
                }
            };
            let shape = Shape::new(lhs.clone(), adds);
            match root(lhs) {
                Some(ENodeOrVar::ENode(TileNode::Op { code, .. })) => {
                    shapes.roots.insert(*code);
                    shapes.by_root[code.index()].push(shape)
                }
                Some(
                    ENodeOrVar::Var(_) | ENodeOrVar::ENode(TileNode::Type(_) | TileNode::Arg(_)),
                )
                | None => {
                    shapes.roots = Codes::ALL;
                    shapes.any_root.push(shape)
                }
            }
        }
        shapes
    })
}

/// Which ops each value's class may hold after saturation: its own op and, transitively, what
/// the rules that may match it add (an over-approximation: the rules' type conditions and the
/// ops' controls are ignored, and a node a rule added is assumed to have any operands).
struct Reach {
    /// Per value (by `ValueId`), the ops rules may add to its class.
    gained: Vec<Codes>,
}

impl Reach {
    fn of(func: &Function, code_of: &[Option<OpCode>]) -> Reach {
        let shapes = shapes();
        let mut reach = Reach {
            gained: vec![Codes::default(); func.values.len()],
        };
        let mut binds = Vec::new();
        // A union can add ops to an earlier class; sweep again while that can change a match
        // (the sets only grow, so this ends).
        loop {
            let mut earlier_grew = false;
            for op in &func.ops {
                earlier_grew |= reach.saturate_value(func, code_of, shapes, op.result, &mut binds);
            }
            if !earlier_grew {
                return reach;
            }
        }
    }

    fn may_hold(&self, code_of: &[Option<OpCode>], v: ValueId) -> Codes {
        let mut codes = self.gained[v.0 as usize];
        if let Some(code) = code_of[v.0 as usize] {
            codes.insert(code);
        }
        codes
    }

    /// Apply every rule that may match `v` until its set stops growing (a rule is tried again
    /// only for an op the class newly holds, or after a union changed an operand); whether a
    /// union grew an earlier value's set by an op that can change a match there: one a pattern
    /// reads through, or for an op's result one a pattern starts at.
    fn saturate_value(
        &mut self,
        func: &Function,
        code_of: &[Option<OpCode>],
        shapes: &Shapes,
        v: ValueId,
        binds: &mut Vec<(Var, Option<ValueId>)>,
    ) -> bool {
        let mut earlier_grew = false;
        let mut tried = Codes::default();
        let mut tried_any_root = false;
        let own = def_op(func, v);
        loop {
            let holds = self.may_hold(code_of, v);
            let fresh = holds.minus(&tried);
            if fresh == Codes::default() && tried_any_root {
                return earlier_grew;
            }
            tried = holds;
            let any_root: &[Shape] = if tried_any_root {
                &[]
            } else {
                &shapes.any_root
            };
            tried_any_root = true;
            for shape in fresh
                .indices()
                .flat_map(|i| &shapes.by_root[i])
                .chain(any_root)
            {
                if !self.sources_may_match(code_of, shape, v, own) {
                    continue;
                }
                binds.clear();
                let top = Id::from(shape.lhs.as_ref().len().saturating_sub(1));
                if !self.matches(func, code_of, &shape.lhs, top, v, binds) {
                    continue;
                }
                match shape.adds {
                    Adds::Op(code) => self.gained[v.0 as usize].insert(code),
                    Adds::Unknown => self.gained[v.0 as usize] = Codes::ALL,
                    Adds::Class(x) => {
                        for &(b, w) in binds.iter() {
                            match w {
                                // The two classes become one: each may hold the other's ops.
                                Some(w) if b == x && w != v => {
                                    let (mv, mw) =
                                        (self.may_hold(code_of, v), self.may_hold(code_of, w));
                                    self.gained[v.0 as usize].union(&mw);
                                    let old = self.gained[w.0 as usize];
                                    self.gained[w.0 as usize].union(&mv);
                                    let grown = self.gained[w.0 as usize].minus(&old);
                                    if grown != Codes::default() {
                                        // Matches at `v` may read `w`: try them all again.
                                        tried = Codes::default();
                                        tried_any_root = false;
                                        let matters = match code_of[w.0 as usize] {
                                            Some(_) => shapes.inner.with(&shapes.roots),
                                            None => shapes.inner,
                                        };
                                        earlier_grew |= grown.meets(&matters);
                                    }
                                }
                                Some(_) => {}
                                None if b == x => self.gained[v.0 as usize] = Codes::ALL,
                                None => {}
                            }
                        }
                    }
                }
            }
        }
    }

    /// A quick necessary condition for `shape` to match at `v` (defined by `op`): when the
    /// pattern reads `v`'s own op, each source it names an op for may hold that op.
    fn sources_may_match(
        &self,
        code_of: &[Option<OpCode>],
        shape: &Shape,
        v: ValueId,
        op: Option<&Op>,
    ) -> bool {
        let root_is_own = match shape.lhs.as_ref().last() {
            Some(ENodeOrVar::ENode(TileNode::Op { code, .. })) => {
                !self.gained[v.0 as usize].contains(*code)
            }
            _ => false,
        };
        let Some(op) = op.filter(|_| root_is_own) else {
            return true;
        };
        shape.sources.len() == op.operands.len()
            && shape
                .sources
                .iter()
                .zip(&op.operands)
                .all(|(want, &w)| want.is_none_or(|code| self.may_hold(code_of, w).contains(code)))
    }

    /// Whether the pattern node `at` of `lhs` may match the class of `v`, recording what its
    /// variables may be bound to (`None`: some class the analysis does not know).
    fn matches(
        &self,
        func: &Function,
        code_of: &[Option<OpCode>],
        lhs: &PatternAst<TileNode>,
        at: Id,
        v: ValueId,
        binds: &mut Vec<(Var, Option<ValueId>)>,
    ) -> bool {
        match &lhs[at] {
            ENodeOrVar::Var(x) => {
                binds.push((*x, Some(v)));
                true
            }
            ENodeOrVar::ENode(node @ TileNode::Op { code, .. }) => {
                if self.gained[v.0 as usize].contains(*code) {
                    // A node a rule added: its operands are unknown.
                    unknown_vars(lhs, at, binds);
                    return true;
                }
                if code_of[v.0 as usize] != Some(*code) {
                    return false;
                }
                let Some(op) = def_op(func, v) else {
                    return false;
                };
                let children = node.children();
                let Some((ty, sources)) = children.split_last() else {
                    return false;
                };
                if sources.len() != op.operands.len() {
                    return false;
                }
                unknown_vars(lhs, *ty, binds);
                sources
                    .iter()
                    .zip(&op.operands)
                    .all(|(&child, &w)| self.matches(func, code_of, lhs, child, w, binds))
            }
            ENodeOrVar::ENode(TileNode::Type(_) | TileNode::Arg(_)) => {
                unknown_vars(lhs, at, binds);
                true
            }
        }
    }
}

/// Bind every variable under pattern node `at` to an unknown class.
fn unknown_vars(lhs: &PatternAst<TileNode>, at: Id, binds: &mut Vec<(Var, Option<ValueId>)>) {
    match &lhs[at] {
        ENodeOrVar::Var(x) => binds.push((*x, None)),
        ENodeOrVar::ENode(node) => {
            for &child in node.children() {
                unknown_vars(lhs, child, binds);
            }
        }
    }
}

fn def_op(func: &Function, v: ValueId) -> Option<&ptoc_ir::Op> {
    match func.values.get(v.0 as usize)?.def {
        ValueDef::Op(id) => func.ops.get(id.0 as usize),
        ValueDef::Arg(_) => None,
    }
}

/// The ends of the windows of `func` (the last is `func.ops.len()`), or `None` if an op is not
/// representable or reads a value not defined before it.
pub(crate) fn cuts(func: &Function, window: Window) -> Option<Vec<usize>> {
    let n = func.ops.len();
    let size = window.size.max(1);
    if n <= size + window.radius {
        return Some(vec![n]);
    }
    let mut code_of: Vec<Option<OpCode>> = vec![None; func.values.len()];
    // Op index of each value's definition (`None` for arguments), and its last use (`n` for a
    // result, `None` for a value nothing reads).
    let mut def: Vec<Option<usize>> = vec![None; func.values.len()];
    let mut last_use: Vec<Option<usize>> = vec![None; func.values.len()];
    let mut defined = vec![false; func.values.len()];
    for &a in &func.args {
        *defined.get_mut(a.0 as usize)? = true;
    }
    for (i, op) in func.ops.iter().enumerate() {
        for v in &op.operands {
            if !*defined.get(v.0 as usize)? {
                return None;
            }
            last_use[v.0 as usize] = Some(i);
        }
        let r = op.result.0 as usize;
        *code_of.get_mut(r)? = Some(OpCode::of(op.info)?);
        def[r] = Some(i);
        defined[r] = true;
    }
    for r in &func.results {
        *last_use.get_mut(r.0 as usize)? = Some(n);
    }
    let reach = Reach::of(func, &code_of);
    let inner = shapes().inner;
    let dirty: Vec<bool> = func
        .ops
        .iter()
        .map(|op| reach.may_hold(&code_of, op.result).meets(&inner))
        .collect();

    let mut ends = Vec::new();
    let mut start = 0;
    while n - start > size + window.radius {
        // Sweep the window's end from `start + 1`, counting the crossing values that some
        // pattern may read through.
        let (lo, target, hi) = (
            start + size.saturating_sub(window.radius).max(1),
            start + size,
            start + size + window.radius,
        );
        let mut crossing = 0usize;
        let mut best: Option<(usize, usize, usize)> = None; // (crossing, distance, end)
        for end in start + 1..=hi {
            let op = &func.ops[end - 1];
            let mut seen: Vec<ValueId> = Vec::with_capacity(op.operands.len());
            for &v in &op.operands {
                if seen.contains(&v) {
                    continue;
                }
                seen.push(v);
                let in_window = def[v.0 as usize].is_some_and(|d| d >= start);
                if in_window
                    && last_use[v.0 as usize] == Some(end - 1)
                    && def_dirty(&dirty, &def, v)
                {
                    crossing -= 1;
                }
            }
            if last_use[op.result.0 as usize].is_some_and(|u| u >= end) && dirty[end - 1] {
                crossing += 1;
            }
            if end < lo {
                continue;
            }
            let candidate = (crossing, end.abs_diff(target), end);
            if best.is_none_or(|b| candidate < b) {
                best = Some(candidate);
            }
        }
        let (_, _, end) = best?;
        ends.push(end);
        start = end;
    }
    ends.push(n);
    Some(ends)
}

fn def_dirty(dirty: &[bool], def: &[Option<usize>], v: ValueId) -> bool {
    def[v.0 as usize].is_some_and(|d| dirty[d])
}

/// An op as one e-graph hash-conses it: the same op, control, operands and result type are the
/// same node ([`TileNode`] with its type leaf).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct NodeKey {
    code: OpCode,
    control: OpControl,
    arity: u8,
    operands: [u32; 3],
    ty: TileType,
}

/// With a fixed-key hash (the same work on every run), the one egg uses.
type Nodes = HashMap<NodeKey, ValueId, FxBuildHasher>;

/// The key of `op` reading `operands`, with result type `ty`; `None` if it has more sources
/// than a node can (such a function is not represented at all).
fn node_key(op: &Op, operands: &[ValueId], ty: TileType) -> Option<NodeKey> {
    let mut ids = [0u32; 3];
    ids.get_mut(..operands.len())?
        .iter_mut()
        .zip(operands)
        .for_each(|(slot, v)| *slot = v.0);
    Some(NodeKey {
        code: OpCode::of(op.info)?,
        control: OpControl::of(op)?,
        arity: operands.len() as u8,
        operands: ids,
        ty,
    })
}

/// What one op costs in the DAG cost ([`super::extract::node_cost`]).
fn op_cost(ty: &TileType) -> u64 {
    BUNDLE_COST + tile_bytes(ty)
}

/// The DAG cost of `func` as [`super::extract::input_cost`] measures its e-graph: every distinct
/// op (equal op, control, operands up to equality and result type) paid once. Every op counts:
/// an op is either unused (a root) or read by a later one.
fn program_cost(func: &Function) -> Option<u64> {
    let mut canonical: Vec<ValueId> = (0..func.values.len() as u32).map(ValueId).collect();
    let mut seen = Nodes::with_capacity_and_hasher(func.ops.len(), FxBuildHasher);
    let mut total: u64 = 0;
    let mut operands = Vec::new();
    for op in &func.ops {
        operands.clear();
        for v in &op.operands {
            operands.push(*canonical.get(v.0 as usize)?);
        }
        let ty = func.values.get(op.result.0 as usize)?.ty;
        match seen.entry(node_key(op, &operands, ty)?) {
            Entry::Occupied(first) => canonical[op.result.0 as usize] = *first.get(),
            Entry::Vacant(slot) => {
                slot.insert(op.result);
                total = total.saturating_add(op_cost(&ty));
            }
        }
    }
    Some(total)
}

/// [`fuse_function_with`] window by window (see the module note); a function no bigger than one
/// window fuses as a whole.
pub(crate) fn fuse_windowed(
    func: &Function,
    limits: impl Fn(usize) -> Limits,
    window: Window,
) -> Option<(Function, Report)> {
    let ends = cuts(func, window)?;
    if ends.len() <= 1 {
        return fuse_function_with(func, limits);
    }
    let mut out = Function::new(func.name.clone(), func.loc.clone());
    out.attrs = func.attrs.clone();
    // Sized up front: growing 100 000-op vectors copies them over and over.
    out.ops.reserve(func.ops.len());
    out.values.reserve(func.values.len());
    // The output value of each input value, once its window is done.
    let mut outer: Vec<Option<ValueId>> = vec![None; func.values.len()];
    for &a in &func.args {
        let v = func.values.get(a.0 as usize)?;
        *outer.get_mut(a.0 as usize)? = Some(out.add_arg(v.name.clone(), v.ty));
    }
    out.arg_attrs = func.arg_attrs.clone();
    let mut last_use: Vec<usize> = vec![0; func.values.len()];
    for (i, op) in func.ops.iter().enumerate() {
        for v in &op.operands {
            *last_use.get_mut(v.0 as usize)? = i;
        }
    }
    for r in &func.results {
        *last_use.get_mut(r.0 as usize)? = func.ops.len();
    }
    // Equal output ops, merged as one e-graph would (the earlier one stays).
    let mut existing = Nodes::with_capacity_and_hasher(func.ops.len(), FxBuildHasher);
    let mut cost_after: u64 = 0;
    let mut report = Report::default();
    let mut local: Vec<Option<ValueId>> = vec![None; func.values.len()];
    let mut start = 0;
    for end in ends {
        let mut sub = Function::new(func.name.clone(), func.loc.clone());
        sub.attrs = func.attrs.clone();
        sub.ops.reserve(end - start);
        sub.values.reserve(2 * (end - start));
        let mut sources = Vec::new();
        let mut touched = Vec::new();
        for op in &func.ops[start..end] {
            let mut operands = Vec::with_capacity(op.operands.len());
            for &v in &op.operands {
                let slot = *local.get(v.0 as usize)?;
                let mapped = match slot {
                    Some(m) => m,
                    None => {
                        let value = func.values.get(v.0 as usize)?;
                        let m = sub.add_arg(value.name.clone(), value.ty);
                        local[v.0 as usize] = Some(m);
                        touched.push(v);
                        sources.push(v);
                        m
                    }
                };
                operands.push(mapped);
            }
            let value = func.values.get(op.result.0 as usize)?;
            let r = sub.push_op(
                op.info,
                operands,
                value.ty,
                value.name.clone(),
                op.loc.clone(),
            );
            if let Some(new) = sub.ops.last_mut() {
                new.control = op.control;
                new.attrs = op.attrs.clone();
            }
            local[op.result.0 as usize] = Some(r);
            touched.push(op.result);
        }
        let kept: Vec<ValueId> = func.ops[start..end]
            .iter()
            .map(|op| op.result)
            .filter(|r| last_use[r.0 as usize] >= end)
            .collect();
        sub.results = kept
            .iter()
            .map(|r| local[r.0 as usize])
            .collect::<Option<_>>()?;
        for v in touched {
            local[v.0 as usize] = None;
        }

        let (mut fused, part) = fuse_function_with(&sub, &limits)?;
        report.egraph_nodes += part.egraph_nodes;
        report.egraph_classes += part.egraph_classes;
        report.iterations += part.iterations;
        report.rules_applied += part.rules_applied;
        for (rule, n) in part.applied {
            *report.applied.entry(rule).or_default() += n;
        }
        report.hit_limit |= part.hit_limit;

        let mut mapped: Vec<Option<ValueId>> = vec![None; fused.values.len()];
        if fused.args.len() != sources.len() {
            return None;
        }
        for (&a, source) in fused.args.iter().zip(&sources) {
            *mapped.get_mut(a.0 as usize)? = outer[source.0 as usize];
        }
        // The window's ops move over (operands renamed in place, names and attributes taken).
        for mut op in std::mem::take(&mut fused.ops) {
            for v in &mut op.operands {
                *v = mapped.get(v.0 as usize).copied().flatten()?;
            }
            let value = fused.values.get_mut(op.result.0 as usize)?;
            let result = match existing.entry(node_key(&op, &op.operands, value.ty)?) {
                Entry::Occupied(first) => *first.get(),
                Entry::Vacant(slot) => {
                    let r = out.push_op(op.info, op.operands, value.ty, value.name.take(), op.loc);
                    if let Some(new) = out.ops.last_mut() {
                        new.control = op.control;
                        new.attrs = op.attrs;
                    }
                    cost_after = cost_after.saturating_add(op_cost(&value.ty));
                    *slot.insert(r)
                }
            };
            *mapped.get_mut(op.result.0 as usize)? = Some(result);
        }
        if fused.results.len() != kept.len() {
            return None;
        }
        for (r, v) in fused.results.iter().zip(kept) {
            outer[v.0 as usize] = Some(mapped.get(r.0 as usize).copied().flatten()?);
        }
        start = end;
    }
    out.results = func
        .results
        .iter()
        .map(|r| outer.get(r.0 as usize).copied().flatten())
        .collect::<Option<_>>()?;
    report.ops_before = func.ops.len();
    report.cost_before = program_cost(func)?;
    report.cost_after = cost_after;
    // As for one e-graph: should the windows together end above the input's cost, the input is
    // the better program.
    if report.cost_after > report.cost_before {
        out = func.clone();
        report.cost_after = report.cost_before;
    }
    report.ops_after = out.ops.len();
    Some((out, report))
}
