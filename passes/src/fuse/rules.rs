//! The rewrites of `pto-fuse`, each bit-exact under the ISA semantics (docs/isa.md §1.2–1.9).
//!
//! Every rule is generated from the catalogue (`ops::by_kind`), for both axes where it has one,
//! and written as a pattern whose name says what it does (`row-expand-into-add`,
//! `compare-lt-swapped`). Each rule that has exactness conditions checks them on the types the
//! analysis attaches to the matched classes: equal element types, equal physical and valid
//! geometry, a broadcast vector that fits the full shape (docs/isa.md §1.3), and an element type
//! the fused op accepts. Padding of a *source* is never read by these ops (docs/isa.md
//! §4), so source pads are ignored; a result's pad is kept by reusing the matched op's result-type
//! leaf `?t`. Sources persist (docs/isa.md §3.4), so reading a value in a different bundle can never
//! observe a modified tile.
//!
//! Faults: a rewritten kernel faults exactly when the original does, with the same class, though
//! possibly at another bundle. E.g. a copy expand does not check encodings (docs/isa.md §10) but the
//! binary op after it does, and the fused op checks its broadcast source itself: an invalid TF32
//! element gives Fault_TileLegality either way.
//!
//! Commutativity is never a rule of its own (it would double the e-graph at every commutative
//! op); the commutative ops get a second, mirrored pattern instead.

use super::lang::{
    leaf_type, spelling, value_type, OpCode, OpControl, TileAnalysis, TileGraph, TileNode,
};
use egg::{Applier, ConditionalApplier, Id, Pattern, PatternAst, Rewrite, Subst, Symbol, Var};
use ptoc_ir::TileType;
use ptoc_isa::dtype::EXPDIF_PAIRS;
use ptoc_isa::ops::CATALOGUE;
use ptoc_isa::{Axis, CmpMode, ElementOp, OpKind, PadValue, Reduction, TypeClass, UnaryOp};
use std::sync::OnceLock;

pub type TileRewrite = Rewrite<TileNode, TileAnalysis>;

/// Every rule, built once.
pub fn rules() -> &'static [TileRewrite] {
    static RULES: OnceLock<Vec<TileRewrite>> = OnceLock::new();
    RULES.get_or_init(build_rules)
}

const AXES: [Axis; 2] = [Axis::Row, Axis::Col];
const BINARY: [ElementOp; 6] = [
    ElementOp::Add,
    ElementOp::Sub,
    ElementOp::Mul,
    ElementOp::Div,
    ElementOp::Max,
    ElementOp::Min,
];

fn axis_name(axis: Axis) -> &'static str {
    match axis {
        Axis::Row => "row",
        Axis::Col => "col",
    }
}

fn op_name(op: ElementOp) -> String {
    format!("{op:?}").to_ascii_lowercase()
}

fn build_rules() -> Vec<TileRewrite> {
    let mut rules = Vec::new();
    for axis in AXES {
        for op in BINARY {
            rules.extend(expand_into_binary(axis, op, false));
            if op.is_commutative() {
                rules.extend(expand_into_binary(axis, op, true));
            }
        }
        rules.extend(expand_sub_into_exp(axis));
        rules.extend(broadcast_sub_into_exp(axis));
        for op in BINARY {
            rules.extend(expand_once(axis, OpKind::Binary(op)));
        }
        // Every unary op of the table: each is elementwise, so computing it before the copy is exact.
        for info in CATALOGUE {
            if let OpKind::Unary(_) = info.kind {
                rules.extend(expand_once(axis, info.kind));
            }
        }
        for red in [Reduction::Max, Reduction::Min] {
            rules.extend(reduce_of_expand(axis, red));
        }
    }
    for mode in CmpMode::ALL {
        rules.extend(compare_swapped(mode));
    }
    rules
}

fn var(name: &str) -> Var {
    // Only called with the literal names below, which always parse.
    name.parse()
        .unwrap_or_else(|_| Var::from(Symbol::from(name)))
}

/// Same element type and storage and the same physical and valid shape, all known. Pads are not
/// compared: no op reads a source's padding.
fn same_shape(a: &TileType, b: &TileType) -> bool {
    a.dtype == b.dtype && a.storage == b.storage && a.dims().is_some() && a.dims() == b.dims()
}

/// `vector` is a legal broadcast operand for an expand op whose full shape is `full`: the same
/// element type and the axis's vector geometry of `full` (`Axis::vector`, docs/isa.md §1.3).
fn broadcast_fits(axis: Axis, vector: &TileType, full: &TileType) -> bool {
    match (vector.known_geometry(), full.known_geometry()) {
        (Some(v), Some(f)) => vector.dtype == full.dtype && v == axis.vector(f),
        _ => false,
    }
}

/// `tOP(a, trowexpand(b))` → `trowexpandOP(a, b)`, and for commutative OP also
/// `tOP(trowexpand(b), a)` → `trowexpandOP(a, b)`; columns likewise.
///
/// Exact: element `[r,c]` of both sides is `a[r,c] OP b[r,0]` (resp. `b[0,c]`), computed by the
/// same element rule (docs/isa.md §1.2 "TADD rules" …) with one rounding, and the copy expand is a bit
/// copy. The mirrored form relies on ADD/MUL being commutative under IEEE RNE with canonical NaN
/// results and on MAX/MIN being symmetric (one NaN → the other operand, two NaNs → canonical NaN,
/// signed-zero rules symmetric, equal keys mean equal bits; integers return equal values on
/// ties, docs/isa.md §1.7–1.8). Status flags are an OR over the same element operations. Integer DIV:
/// TDIV faults if its denominator rectangle, i.e. every valid `b[r,0]`, holds a zero; the expand
/// DIV faults if a used broadcast element, the same `b[r,0]`, is zero — same set, same fault.
/// Conditions: `a`, the expand result and the result share type and geometry, `b` fits as the
/// broadcast, and the fused op accepts the type; the fused op takes the binary op's result type.
fn expand_into_binary(axis: Axis, op: ElementOp, expand_on_left: bool) -> Option<TileRewrite> {
    let binary = OpCode::of_kind(OpKind::Binary(op))?;
    let copy = OpCode::of_kind(OpKind::Expand(axis, None))?;
    let fused = OpCode::of_kind(OpKind::Expand(axis, Some(op)))?;
    let (b, c) = (binary.name(), copy.name());
    let lhs = if expand_on_left {
        format!("({b} ({c} ?b ?te) ?a ?t)")
    } else {
        format!("({b} ?a ({c} ?b ?te) ?t)")
    };
    let name = format!(
        "{}-expand-into-{}{}",
        axis_name(axis),
        op_name(op),
        if expand_on_left { "-from-left" } else { "" }
    );
    fused_rule(name, lhs, fused, "?te", move |a, bv, te, t| {
        same_shape(a, te)
            && same_shape(a, t)
            && broadcast_fits(axis, bv, t)
            && fused.info().accepts(t.dtype)
    })
}

/// A rule `lhs => (fused ?a ?b ?t)`, applied when `check(a, b, inner, t)` holds for the types
/// bound to the values `?a`, `?b` and the result-type leaves `inner` (the matched inner op's) and
/// `?t` (the matched op's, which the fused op takes over).
fn fused_rule(
    name: String,
    lhs: String,
    fused: OpCode,
    inner: &str,
    check: impl Fn(&TileType, &TileType, &TileType, &TileType) -> bool + Send + Sync + 'static,
) -> Option<TileRewrite> {
    let vars = [var("?a"), var("?b"), var(inner), var("?t")];
    let condition = move |g: &mut TileGraph, _: Id, s: &Subst| match (
        value_type(g, s[vars[0]]),
        value_type(g, s[vars[1]]),
        leaf_type(g, s[vars[2]]),
        leaf_type(g, s[vars[3]]),
    ) {
        (Some(a), Some(b), Some(i), Some(t)) => check(&a, &b, &i, &t),
        _ => false,
    };
    conditional(
        name,
        &lhs,
        &format!("({} ?a ?b ?t)", fused.name()),
        condition,
    )
}

/// The rule `lhs => rhs` applied where `condition` holds.
fn conditional(
    name: String,
    lhs: &str,
    rhs: &str,
    condition: impl Fn(&mut TileGraph, Id, &Subst) -> bool + Send + Sync + 'static,
) -> Option<TileRewrite> {
    let lhs: Pattern<TileNode> = lhs.parse().ok()?;
    let rhs: Pattern<TileNode> = rhs.parse().ok()?;
    Rewrite::new(
        name,
        lhs,
        ConditionalApplier {
            condition,
            applier: rhs,
        },
    )
    .ok()
}

/// `texp(trowexpandsub(a, b))` → `trowexpandexpdif(a, b)`; columns likewise.
///
/// Exact: a same-type EXPDIF is `SUB` rounded to the type, then `EXP` rounded to the type, with
/// EXP's special values applied to the difference and both stages' flags OR'ed (docs/isa.md §1.4, §9
/// decision 5) — exactly TROWEXPANDSUB followed by TEXP. Conditions: the sub's result type, the
/// exp's result type and the source type are one of EXPDIF's same-type pairs (FP16, BF16, FP32),
/// with equal geometry. Whether a sub with other users is worth fusing is the extractor's choice.
fn expand_sub_into_exp(axis: Axis) -> Option<TileRewrite> {
    let exp = OpCode::of_kind(OpKind::Unary(UnaryOp::Exp))?;
    let sub = OpCode::of_kind(OpKind::Expand(axis, Some(ElementOp::Sub)))?;
    let fused = OpCode::of_kind(OpKind::Expand(axis, Some(ElementOp::ExpDif)))?;
    let lhs = format!("({} ({} ?a ?b ?ts) ?t)", exp.name(), sub.name());
    let name = format!("{}-expand-sub-into-exp", axis_name(axis));
    fused_rule(name, lhs, fused, "?ts", move |a, bv, ts, t| {
        same_shape(ts, t)
            && same_shape(a, t)
            && broadcast_fits(axis, bv, t)
            && EXPDIF_PAIRS.contains(&(t.dtype, t.dtype))
            && fused.info().accepts(t.dtype)
    })
}

/// `texp(tsub(a, trowexpand(b)))` → `trowexpandexpdif(a, b)` in one step; columns likewise.
///
/// Exact: the composition of `row-expand-into-sub` and `row-expand-sub-into-exp`, under both
/// rules' conditions. It lets a softmax saturate one iteration earlier.
fn broadcast_sub_into_exp(axis: Axis) -> Option<TileRewrite> {
    let exp = OpCode::of_kind(OpKind::Unary(UnaryOp::Exp))?;
    let sub = OpCode::of_kind(OpKind::Binary(ElementOp::Sub))?;
    let copy = OpCode::of_kind(OpKind::Expand(axis, None))?;
    let fused = OpCode::of_kind(OpKind::Expand(axis, Some(ElementOp::ExpDif)))?;
    let lhs = format!(
        "({} ({} ?a ({} ?b ?te) ?ts) ?t)",
        exp.name(),
        sub.name(),
        copy.name()
    );
    let [va, vb, vte, vts, vt] = ["?a", "?b", "?te", "?ts", "?t"].map(var);
    let condition = move |g: &mut TileGraph, _: Id, s: &Subst| {
        let (Some(a), Some(bv), Some(te), Some(ts), Some(t)) = (
            value_type(g, s[va]),
            value_type(g, s[vb]),
            leaf_type(g, s[vte]),
            leaf_type(g, s[vts]),
            leaf_type(g, s[vt]),
        ) else {
            return false;
        };
        same_shape(&a, &te)
            && same_shape(&a, &ts)
            && same_shape(&ts, &t)
            && broadcast_fits(axis, &bv, &t)
            && EXPDIF_PAIRS.contains(&(t.dtype, t.dtype))
            && fused.info().accepts(t.dtype)
    };
    let name = format!("{}-broadcast-sub-into-exp", axis_name(axis));
    conditional(
        name,
        &lhs,
        &format!("({} ?a ?b ?t)", fused.name()),
        condition,
    )
}

/// `tOP(trowexpand(b), trowexpand(c))` → `trowexpand(tOP(b, c))` and, for a unary op,
/// `tU(trowexpand(b))` → `trowexpand(tU(b))`; columns likewise.
///
/// Exact: element `[r,c]` of both sides is `b[r,0] OP c[r,0]` (or `U(b[r,0])`) under the same
/// element rule; the left side merely computes it once per column. Flags are a sticky OR, so
/// computing an element once or VC times raises the same flags; integer DIV faults on a zero
/// `c[r,0]` in both (TDIV checks the whole expanded denominator, the small TDIV checks `c`'s valid
/// rectangle, which holds the same elements); a unary op rejects an invalid TF32/HF32 encoding of
/// `b` in both, since the copy expand copies it unchanged. Conditions: the sources have identical
/// type and geometry (the op's schema requires it of the new small op), every expand and the
/// result have the same full shape, `b` fits as a broadcast and the op accepts the type. The new
/// intermediate has `b`'s geometry and Null pad; the expand takes the original result type (its
/// pad included).
fn expand_once(axis: Axis, kind: OpKind) -> Option<TileRewrite> {
    let op = OpCode::of_kind(kind)?;
    let copy = OpCode::of_kind(OpKind::Expand(axis, None))?;
    let names: &[(&str, &str)] = match kind {
        OpKind::Binary(_) => &[("?b", "?tb"), ("?c", "?tc")],
        OpKind::Unary(_) => &[("?b", "?tb")],
        // TCVT gets no rule. `tcvt(trowexpand(b))` → `trowexpand(tcvt(b))` would be exact for
        // the same reasons (elementwise, flags a sticky OR, the same elements checked), but
        // the small conversion needs a type no operand has (b's geometry in the result's
        // element type) and the node's numeric control, which patterns do not spell. TCMP and
        // TSEL get none either: the small op's result (TCMP) or mask (TSEL) would be a
        // predicate, and no expand copies a predicate.
        // TMOV copies whole tiles, padding included; it only exists to re-push a tile under
        // queue naming, after fusion. The tile-scalar ops take a scalar no pattern spells.
        // TTRANS is opaque to every rule: a row broadcast's transpose is a column broadcast
        // of another shape, and no rule reads through it (docs/isa.md §19).
        OpKind::Expand(..)
        | OpKind::TileScalar(_)
        | OpKind::FillScalar
        | OpKind::Reduce(..)
        | OpKind::Convert
        | OpKind::Compare
        | OpKind::Select
        | OpKind::Move
        | OpKind::Transpose
        | OpKind::Matmul { .. } => return None,
    };
    let expands: Vec<String> = names
        .iter()
        .map(|(v, t)| format!("({} {v} {t})", copy.name()))
        .collect();
    let lhs: Pattern<TileNode> = format!("({} {} ?t)", op.name(), expands.join(" "))
        .parse()
        .ok()?;
    let small: Vec<&str> = names.iter().map(|(v, _)| *v).collect();
    let result = format!(
        "({} ({} {} ?ts) ?t)",
        copy.name(),
        op.name(),
        small.join(" ")
    )
    .parse()
    .ok()?;
    let applier = ExpandOnce {
        axis,
        op,
        copy,
        sources: names.iter().map(|(v, t)| (var(v), var(t))).collect(),
        t: var("?t"),
        result,
    };
    let name = match kind {
        OpKind::Binary(e) => op_name(e),
        _ => op.name(),
    };
    Rewrite::new(
        format!("{}-expand-once-{name}", axis_name(axis)),
        lhs,
        applier,
    )
    .ok()
}

/// The applier of [`expand_once`]: it builds the small op's result type, which no pattern can.
struct ExpandOnce {
    axis: Axis,
    op: OpCode,
    copy: OpCode,
    /// Each source's broadcast vector and the type of its expand.
    sources: Vec<(Var, Var)>,
    t: Var,
    /// What it adds to the matched class, as a pattern (`?ts` stands for the small op's type,
    /// which the applier builds): read by the window analysis, never applied.
    result: PatternAst<TileNode>,
}

impl Applier<TileNode, TileAnalysis> for ExpandOnce {
    fn apply_one(
        &self,
        g: &mut TileGraph,
        eclass: Id,
        s: &Subst,
        _searcher_ast: Option<&PatternAst<TileNode>>,
        _rule_name: Symbol,
    ) -> Vec<Id> {
        let Some(t) = leaf_type(g, s[self.t]) else {
            return vec![];
        };
        let mut vectors = Vec::with_capacity(self.sources.len());
        for &(v, tv) in &self.sources {
            match (value_type(g, s[v]), leaf_type(g, s[tv])) {
                (Some(vector), Some(expanded)) if same_shape(&expanded, &t) => vectors.push(vector),
                _ => return vec![],
            }
        }
        let Some(first) = vectors.first().copied() else {
            return vec![];
        };
        let fits = vectors.iter().all(|v| same_shape(v, &first))
            && broadcast_fits(self.axis, &first, &t)
            && self.op.info().accepts(first.dtype);
        if !fits {
            return vec![];
        }
        let small_ty = g.analysis.intern(first.with_pad(PadValue::Null));
        let leaf = g.add(TileNode::Type(small_ty));
        let ids: Vec<Id> = self.sources.iter().map(|&(v, _)| s[v]).collect();
        let Some(small) = TileNode::op(self.op, &ids, leaf) else {
            return vec![];
        };
        let small = g.add(small);
        let Some(expand) = TileNode::op(self.copy, &[small], s[self.t]) else {
            return vec![];
        };
        let expand = g.add(expand);
        if g.union(eclass, expand) {
            vec![expand]
        } else {
            vec![]
        }
    }

    fn get_pattern_ast(&self) -> Option<&PatternAst<TileNode>> {
        Some(&self.result)
    }

    fn vars(&self) -> Vec<Var> {
        let sources = self.sources.iter().flat_map(|&(v, t)| [v, t]);
        sources.chain([self.t]).collect()
    }
}

/// `trowmax(trowexpand(b))` → `b` and `trowmin(trowexpand(b))` → `b`; columns likewise; integer
/// element types only.
///
/// Exact for integers: the fold of MAX (MIN) over VC copies of `b[r,0]` is `b[r,0]`, bit for bit
/// (ties return an equal value, docs/isa.md §1.7), and integer MIN/MAX raise no flags. Not for floats:
/// the MAX of two equal NaNs is the canonical NaN, not the operand's payload (docs/isa.md §1.8, §10).
/// Condition: `b`'s type equals the reduction's result type exactly (geometry, valid shape and
/// pad), since `b` then stands for that result everywhere, including as a function result.
fn reduce_of_expand(axis: Axis, red: Reduction) -> Option<TileRewrite> {
    let reduce = OpCode::of_kind(OpKind::Reduce(axis, red))?;
    let copy = OpCode::of_kind(OpKind::Expand(axis, None))?;
    let lhs = format!("({} ({} ?b ?te) ?t)", reduce.name(), copy.name());
    let (vb, vte, vt) = (var("?b"), var("?te"), var("?t"));
    let condition = move |g: &mut TileGraph, _: Id, s: &Subst| {
        let (Some(bv), Some(te), Some(t)) = (
            value_type(g, s[vb]),
            leaf_type(g, s[vte]),
            leaf_type(g, s[vt]),
        ) else {
            return false;
        };
        let integer = matches!(bv.dtype.class(), TypeClass::Signed | TypeClass::Unsigned);
        integer && bv == t && broadcast_fits(axis, &bv, &te)
    };
    let name = format!(
        "{}-{}-of-expand",
        axis_name(axis),
        format!("{red:?}").to_ascii_lowercase()
    );
    conditional(name, &lhs, "?b", condition)
}

/// The relation that holds of `(b, a)` exactly when `mode` holds of `(a, b)`: EQ and NE are
/// symmetric, LT mirrors GT and LE mirrors GE.
fn mirrored(mode: CmpMode) -> CmpMode {
    match mode {
        CmpMode::Eq => CmpMode::Eq,
        CmpMode::Ne => CmpMode::Ne,
        CmpMode::Lt => CmpMode::Gt,
        CmpMode::Gt => CmpMode::Lt,
        CmpMode::Le => CmpMode::Ge,
        CmpMode::Ge => CmpMode::Le,
    }
}

/// `tcmp.MODE(a, b)` → `tcmp.MIRROR(b, a)` (`lt` ↔ `gt`, `le` ↔ `ge`, `eq` and `ne` to
/// themselves), so a comparison written both ways round is computed once.
///
/// Exact: for an ordered pair the relations come from one total order (integers at their width,
/// floats by the IEEE order with ±0 equal), where `a < b` ⇔ `b > a` and `a ≤ b` ⇔ `b ≥ a`; an
/// unordered pair (a NaN on either side) makes every relation but NE false and NE true, on both
/// sides (docs/isa.md §1.9). NV is raised when either operand is a signalling NaN, so by both; the
/// sources' legality checks (types, shapes, definedness, encodings) are the same two tiles', so
/// both fault alike. The mirrored op keeps the result type `?t` (its pad included).
///
/// What is *not* a rule here: TCMP and TSEL have no expand forms, and `tsel(p, a, a)` → `a` would
/// drop the only use of `p`, whose TCMP may raise NV or fault on an invalid TF32/HF32 encoding,
/// while a function argument's padding need not be what TSEL's pad writes.
fn compare_swapped(mode: CmpMode) -> Option<TileRewrite> {
    let tcmp = OpCode::of_kind(OpKind::Compare)?;
    let (from, to) = (
        spelling(tcmp, OpControl::relation(mode)),
        spelling(tcmp, OpControl::relation(mirrored(mode))),
    );
    let lhs: Pattern<TileNode> = format!("({from} ?a ?b ?t)").parse().ok()?;
    let rhs: Pattern<TileNode> = format!("({to} ?b ?a ?t)").parse().ok()?;
    Rewrite::new(format!("compare-{}-swapped", mode.mlir_name()), lhs, rhs).ok()
}
