//! `pto-verify`: every operand-legality rule of the spec that is decidable at compile time.
//!
//! The hardware checks these rules when a bundle commits and faults (Fault_TileLegality or
//! Fault_TileAllocation, docs/isa.md §3.5) without publishing anything; ptoc rejects the same programs
//! before they are ever encoded, at the op's source location, naming the rule, the operand, the
//! fault and the nearest legal alternative. All op knowledge comes from the catalogue row
//! (`OpKind`, `ResultKind`, `OperandRole`, `legal_types`).
//!
//! Verification runs at two stages. At [`Stage::Source`] (the `pto-verify` pass, first in the
//! pipeline) a `?` dimension is skipped and an elementwise op written with a numpy-style broadcast
//! is accepted, because `pto-infer-shapes` fills and rewrites them. At [`Stage::Final`] (run by
//! `pto-allocate` before it assigns registers) neither is allowed any more.
//!
//! A type's written rows are a lower bound on its physical rows: the allocator derives the real
//! rows from the SizeCode (5x64xf32 becomes 8 rows at 2 KiB), so the identity rules here compare
//! shapes as written, and `pto-allocate` makes the derived rows of related tiles agree.

use crate::infer_shapes::broadcast_axis;
use crate::rules::{defined_here, op_prefix, shape, shape_of, value_name, Rule, Violation};
use crate::{Pass, PassContext};
use ptoc_ir::{
    control_attrs, Attr, Diagnostic, Dim, Function, GmKernel, GmOpKind, Op, TileType, ValueId,
};
use ptoc_isa::dtype::EXPDIF_PAIRS;
use ptoc_isa::geometry::MAX_DIM;
use ptoc_isa::ops::{OperandRole, CMODE_ATTR};
use ptoc_isa::{
    Axis, CmpMode, DataType, Engine, Geometry, Layout, OpKind, ResultKind, SizeCode, Storage,
};

/// When verification runs, which decides how strict it is about what inference still changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Before shape inference: `?` dims and implicit elementwise broadcasts are left for later.
    Source,
    /// After inference (at allocation): everything must be explicit and legal.
    Final,
}

/// The `pto-verify` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Verify;

impl Pass for Verify {
    fn name(&self) -> &'static str {
        "pto-verify"
    }
    fn description(&self) -> &'static str {
        "Check every pto op against the ISA's operand-legality rules"
    }
    fn run(&self, func: &mut Function, ctx: &mut PassContext) -> Result<(), Vec<Diagnostic>> {
        ctx.record(self.name(), "ops-verified", func.ops.len() as u64);
        let errors = verify_function(func, Stage::Source);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
    fn run_gm(&self, kernel: &mut GmKernel, ctx: &mut PassContext) -> Result<(), Vec<Diagnostic>> {
        let mut tile_ops = 0;
        kernel.walk(|op| tile_ops += u64::from(matches!(op.kind, GmOpKind::Tile { .. })));
        ctx.record(self.name(), "ops-verified", tile_ops);
        let errors = verify_gm_kernel(kernel, Stage::Source);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
    fn statistics(&self) -> &'static [(&'static str, &'static str)] {
        &[("ops-verified", "Number of pto ops verified")]
    }
}

/// Every violation in a GM kernel: the tile rules on each tile its arguments, loads and loops
/// bring in (which must be fully written: shapes are inferred only for tile-op results), the
/// per-op rules of [`op_violations`] on each block's tile ops as a DAG ([`crate::gm::block_dag`]),
/// the element type of each load and store, and the bounds of their rectangles
/// ([`crate::gm::check_bounds`]).
pub fn verify_gm_kernel(kernel: &GmKernel, stage: Stage) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let mut check_tile = |id: ValueId, loc: &ptoc_ir::Location, subject: String| {
        let Some(ty) = kernel.ty(id).tile() else {
            return;
        };
        for v in tile_violations(ty, stage) {
            errors.push(v.at(loc.clone(), &subject));
        }
        if !ty.is_static() {
            let v = Violation::new(
                Rule::InferredShape,
                format!("has type {}; only tile-op results are inferred", shape(ty)),
            )
            .hint("write every dimension");
            errors.push(v.at(loc.clone(), &subject));
        }
    };
    let name = |id: ValueId| format!("%{}", kernel.display_name(id));
    for (i, &arg) in kernel.args.iter().enumerate() {
        check_tile(arg, &kernel.loc, format!("argument #{i} {}", name(arg)));
    }
    kernel.walk(|op| match &op.kind {
        GmOpKind::Load => check_tile(op.results[0], &op.loc, "'pto.tload' result".into()),
        GmOpKind::For(body) => {
            for (i, &a) in body.args.iter().enumerate().skip(1) {
                check_tile(
                    a,
                    &op.loc,
                    format!("'scf.for' carried value #{} {}", i - 1, name(a)),
                );
            }
        }
        GmOpKind::Tile { .. }
        | GmOpKind::Store
        | GmOpKind::Constant(_)
        | GmOpKind::Arith(_)
        | GmOpKind::Yield
        | GmOpKind::Return => {}
    });
    kernel.walk(|op| {
        let (tile, mem) = match op.kind {
            GmOpKind::Load => (op.results.first(), op.operands.first()),
            GmOpKind::Store => (op.operands.first(), op.operands.get(1)),
            _ => return,
        };
        let (Some(tile), Some(mem)) = (
            tile.and_then(|&t| kernel.ty(t).tile()),
            mem.and_then(|&m| kernel.ty(m).memref()),
        ) else {
            errors.push(Diagnostic::error(
                op.loc.clone(),
                "a tload or tstore moves a tile between it and a memref",
            ));
            return;
        };
        if tile.dtype != mem.dtype || tile.is_predicate() {
            let v = Violation::new(
                Rule::SameType,
                format!("moves a {tile} between {mem}: the element types differ"),
            )
            .hint(format!(
                "make the tile's element type that of the memref ({})",
                mem.dtype.name()
            ));
            errors.push(v.at(op.loc.clone(), "GM transfer"));
        }
    });
    // Where each value is defined, for the "defined here" notes on a DAG's arguments.
    let mut def_locs = std::collections::HashMap::new();
    kernel.walk(|op| {
        let body_args = match &op.kind {
            GmOpKind::For(body) => &body.args[..],
            _ => &[],
        };
        for &v in op.results.iter().chain(body_args) {
            def_locs.insert(v, op.loc.clone());
        }
    });
    for block in crate::gm::blocks(kernel) {
        let dag = crate::gm::block_dag(kernel, block, crate::gm::ScalarOps::Included);
        let notes: Vec<(String, ptoc_ir::Location)> = dag
            .leaves
            .iter()
            .map(|&v| {
                let loc = def_locs.get(&v).unwrap_or(&kernel.loc).clone();
                (format!("{} defined here", value_name(&dag.func, v)), loc)
            })
            .collect();
        for op in &dag.func.ops {
            let subject = format!("{} result", op_prefix(op));
            for v in tile_violations(dag.func.ty(op.result), stage) {
                errors.push(v.at(op.loc.clone(), &subject));
            }
            for mut diag in op_violations(&dag.func, op, stage) {
                for (loc, text) in &mut diag.notes {
                    if let Some((_, def)) = notes.iter().find(|(t, _)| t == text) {
                        loc.clone_from(def);
                    }
                }
                errors.push(diag);
            }
        }
    }
    errors.extend(crate::gm::check_bounds(kernel));
    errors
}

/// Every violation in `func`, in program order (arguments first).
pub fn verify_function(func: &Function, stage: Stage) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    for (i, &arg) in func.args.iter().enumerate() {
        let subject = format!("argument #{i} {}", value_name(func, arg));
        for v in tile_violations(func.ty(arg), stage) {
            errors.push(v.at(func.loc.clone(), &subject));
        }
    }
    for op in &func.ops {
        let subject = format!("{} result", op_prefix(op));
        for v in tile_violations(func.ty(op.result), stage) {
            errors.push(v.at(op.loc.clone(), &subject));
        }
        errors.extend(op_violations(func, op, stage));
    }
    errors
}

/// The per-tile rules: dimension range, power-of-two columns, valid region inside the physical
/// shape, and a SizeCode that holds the shape (docs/isa.md §3.3).
pub fn tile_violations(ty: &TileType, stage: Stage) -> Vec<Violation> {
    let mut out = Vec::new();
    let dims = [
        ("rows", ty.rows),
        ("columns", ty.cols),
        ("valid rows", ty.valid_rows),
        ("valid columns", ty.valid_cols),
    ];
    for (what, dim) in dims {
        if let Dim::Known(n) = dim {
            if n == 0 || n > MAX_DIM {
                out.push(
                    Violation::new(
                        Rule::DimRange,
                        format!("has {what} {n}, outside 1..{MAX_DIM}"),
                    )
                    .hint("B.DIM and the descriptor hold 1..65535"),
                );
            }
        }
    }
    let unknown: Vec<&str> = dims
        .iter()
        .filter(|(_, d)| *d == Dim::Unknown)
        .map(|(what, _)| *what)
        .collect();
    if stage == Stage::Final && !unknown.is_empty() {
        out.push(
            Violation::new(
                Rule::InferredShape,
                format!("type {} still has '?' {}", shape(ty), unknown.join(", ")),
            )
            .hint("write the dimensions or run pto-infer-shapes first"),
        );
    }
    if !out.is_empty() {
        return out;
    }
    let Some((rows, cols, valid_rows, valid_cols)) = ty.dims() else {
        return out;
    };
    if ty.layout.is_cube() {
        // Storage follows the valid shape (the type's parser made it so); the cells must fit a
        // SizeCode (docs/isa.md §18.2).
        let need = ty.layout.required_bytes(ty.dtype, valid_rows, valid_cols);
        if need.and_then(SizeCode::holding).is_none() {
            out.push(
                Violation::new(
                    Rule::SizeCode,
                    format!(
                        "needs {} of {} cells, which no SizeCode holds",
                        crate::rules::bytes(need.unwrap_or(u32::MAX) as u64),
                        ty.layout
                    ),
                )
                .hint("split the matrix: at most 64 KiB per tile"),
            );
        }
        return out;
    }
    let pow2_cols = cols.max(valid_cols).checked_next_power_of_two();
    if !cols.is_power_of_two() {
        let mut v = Violation::new(
            Rule::ColsPowerOfTwo,
            format!(
                "has physical shape {} with {cols} columns, not a power of two, so no rows can be derived",
                shape(ty)
            ),
        );
        if let Some(c) = pow2_cols.filter(|&c| c <= MAX_DIM) {
            v = v.hint(format!(
                "use {}",
                shape_of(ty, rows, c, valid_rows, valid_cols)
            ));
        }
        out.push(v);
        return out;
    }
    if valid_rows > rows || valid_cols > cols {
        let mut v = Violation::new(
            Rule::ValidWithinPhysical,
            format!(
                "has valid shape {valid_rows}x{valid_cols} outside its physical shape {rows}x{cols}"
            ),
        );
        if let Some(c) = pow2_cols.filter(|&c| c <= MAX_DIM) {
            v = v.hint(format!(
                "use {}",
                shape_of(ty, rows.max(valid_rows), c, valid_rows, valid_cols)
            ));
        }
        out.push(v);
        return out;
    }
    if ty.is_predicate() {
        if SizeCode::for_predicate(rows, cols).is_none() {
            out.push(
                Violation::new(
                    Rule::SizeCode,
                    format!(
                        "is a {rows}x{cols} predicate of {}, which no SizeCode holds",
                        crate::rules::bytes(ptoc_isa::geometry::predicate_bytes(rows, cols))
                    ),
                )
                .hint("a predicate packs one bit per element; at most 64 KiB per tile"),
            );
        }
        return out;
    }
    let bits = ty.dtype.bits();
    if SizeCode::smallest_for(rows, cols, bits).is_none() {
        let total = rows as u64 * cols as u64 * bits as u64 / 8;
        let mut v = Violation::new(
            Rule::SizeCode,
            format!(
                "has physical shape {} of {}, which no SizeCode holds (the largest tile is {} per PE)",
                shape(ty),
                crate::rules::bytes(total),
                crate::rules::bytes(SizeCode::MAX.bytes() as u64)
            ),
        );
        v = match SizeCode::MAX.derived_rows(cols, bits) {
            Some(max_rows) => v.hint(format!(
                "use at most {} per tile",
                shape_of(ty, max_rows, cols, valid_rows.min(max_rows), valid_cols)
            )),
            None => v.hint(format!(
                "one row of {cols} {} elements does not fit; use at most {} columns",
                ty.dtype.name(),
                SizeCode::MAX.bytes() as u64 * 8 / bits as u64
            )),
        };
        out.push(v);
    }
    out
}

/// The matrix ops (docs/isa.md §18.4): A in cube_m16/cube_m32 with M ≤ 16/32, B in cube_n8 of the
/// same numeric class, A's columns = B's rows = K; C (`_acc`) and the result valid M×N of the
/// accumulator type in A's layout; the bias (`_bias`) a row-major 1×N of the accumulator type;
/// TGEMV's M is 1.
fn matmul_violations(func: &Function, op: &Op) -> Vec<Diagnostic> {
    let info = op.info;
    let mut errors = Vec::new();
    let at = |role: OperandRole| roles(op).find(|(_, r, _)| *r == role);
    let (Some(left), Some(right)) = (at(OperandRole::Left), at(OperandRole::Right)) else {
        return errors;
    };
    let mut report = |operand: Option<(usize, OperandRole, ValueId)>, v: Violation| {
        errors.push(match operand {
            Some((i, role, id)) => defined_here(
                func,
                id,
                v.at(op.loc.clone(), &operand_subject(func, op, i, role, id)),
            ),
            None => v.at(op.loc.clone(), &format!("{} result", op_prefix(op))),
        });
    };
    let (a, b) = (*func.ty(left.2), *func.ty(right.2));
    let res = *func.ty(op.result);
    if !matches!(a.layout, Layout::CubeM16 | Layout::CubeM32) {
        let v = Violation::new(Rule::Layout, format!("is a {} tile", a.layout))
            .hint("load the left matrix with layout=cube_m16 (M ≤ 16) or layout=cube_m32");
        report(Some(left), v);
        return errors;
    }
    if b.layout != Layout::CubeN8 {
        let v = Violation::new(Rule::Layout, format!("is a {} tile", b.layout))
            .hint("load the right matrix with layout=cube_n8");
        report(Some(right), v);
        return errors;
    }
    if !info.accepts(a.dtype) {
        let names: Vec<&str> = info.legal_types.iter().map(|t| t.name()).collect();
        let v = Violation::new(Rule::DataType, format!("has DataType {}", a.dtype.name()))
            .hint(format!("legal: {}", names.join(", ")));
        report(Some(left), v);
        return errors;
    }
    if !info.accepts(b.dtype) || !a.dtype.same_matrix_class(b.dtype) {
        let v = Violation::new(
            Rule::DataType,
            format!(
                "has DataType {}, not a matrix type of the left matrix's class ({})",
                b.dtype.name(),
                a.dtype.name()
            ),
        )
        .hint("multiply floats by floats, signed by signed, unsigned by unsigned integers");
        report(Some(right), v);
        return errors;
    }
    let acc = a.dtype.matrix_accumulator();
    let (Some((_, _, m, k)), Some((_, _, k2, n))) = (a.dims(), b.dims()) else {
        return errors; // CUBE types always have known shapes
    };
    if k != k2 {
        let v = Violation::new(
            Rule::MatrixShape,
            format!("has {k2} valid rows, but the left matrix has K = {k} columns"),
        );
        report(Some(right), v);
    }
    if matches!(info.kind, OpKind::Matmul { gemv: true, .. }) && m != 1 {
        let v = Violation::new(Rule::MatrixShape, format!("has {m} valid rows")).hint(format!(
            "{} multiplies a 1xK row; use pto.tmatmul",
            info.mnemonic
        ));
        report(Some(left), v);
    }
    // The result, then C: valid M×N of the accumulator type in A's layout.
    let wanted = |ty: &TileType| {
        ty.layout == a.layout && ty.dtype == acc && ty.dims().is_some_and(|d| (d.2, d.3) == (m, n))
    };
    let want_text = format!("valid {m}x{n} of {} in {}", acc.name(), a.layout);
    if !wanted(&res) || res.pad != ptoc_isa::PadValue::Null {
        let why = if wanted(&res) {
            "a product writes no pad".to_string()
        } else {
            format!("a product of {} is {want_text}", a.dtype.name())
        };
        let v = Violation::new(Rule::MatrixShape, format!("is {res}; {why}")).hint(format!(
            "make it {}",
            TileType::cube(m, n, acc, a.layout).map_or(want_text.clone(), |t| t.to_string())
        ));
        report(None, v);
    }
    if let Some(c) = at(OperandRole::Accumulator) {
        let ty = *func.ty(c.2);
        if !wanted(&ty) {
            report(
                Some(c),
                Violation::new(
                    Rule::MatrixShape,
                    format!("is {ty}; it must be {want_text}"),
                ),
            );
        }
    }
    if let Some(bias) = at(OperandRole::Bias) {
        let ty = *func.ty(bias.2);
        let ok = ty.layout == Layout::Norm
            && ty.dtype == acc
            && (ty.valid_rows, ty.valid_cols) == (1.into(), n.into());
        if !ok {
            let v = Violation::new(Rule::MatrixShape, format!("is {ty}")).hint(format!(
                "the bias is a row-major valid 1x{n} tile of {}",
                acc.name()
            ));
            report(Some(bias), v);
        }
    }
    errors
}

/// The operands of `op` with their roles, from the catalogue's source list.
fn roles(op: &Op) -> impl Iterator<Item = (usize, OperandRole, ValueId)> + '_ {
    op.info
        .sources
        .iter()
        .zip(&op.operands)
        .enumerate()
        .map(|(i, (&role, &v))| (i, role, v))
}

/// `broadcast operand #1 %m`.
fn operand_subject(
    func: &Function,
    op: &Op,
    index: usize,
    role: OperandRole,
    v: ValueId,
) -> String {
    format!(
        "{} {} operand #{index} {}",
        op_prefix(op),
        role.name(),
        value_name(func, v)
    )
}

/// The op-level rules: operand count, types, and the geometry each `OpKind` relates.
pub fn op_violations(func: &Function, op: &Op, stage: Stage) -> Vec<Diagnostic> {
    let info = op.info;
    if info.engine == Engine::Cube {
        return matmul_violations(func, op);
    }
    if let Some((i, role, v)) = roles(op).find(|(_, _, v)| func.ty(*v).layout.is_cube()) {
        let ty = func.ty(v);
        let viol = Violation::new(
            Rule::Layout,
            format!(
                "is a {} tile; {} reads row-major tiles only",
                ty.layout, info.mnemonic
            ),
        )
        .hint("store the matrix result to memory and load it without a layout");
        let subject = operand_subject(func, op, i, role, v);
        return vec![defined_here(func, v, viol.at(op.loc.clone(), &subject))];
    }
    // Every tile-element op writes a NORM (row-major) destination: its B.DATR Layout is never
    // set (docs/isa.md §9 decision 18, §19 decision 57).
    let res_layout = func.ty(op.result).layout;
    if res_layout.is_cube() {
        let viol = Violation::new(
            Rule::Layout,
            format!(
                "is a {res_layout} tile; {} writes row-major tiles only",
                info.mnemonic
            ),
        )
        .hint(
            "drop the layout from the result type; only the matrix ops and pto.tload make CUBE \
             tiles",
        );
        return vec![viol.at(op.loc.clone(), &format!("{} result", op_prefix(op)))];
    }
    if op.operands.len() != info.sources.len() {
        let names: Vec<&str> = info.sources.iter().map(|r| r.name()).collect();
        let v = Violation::new(
            Rule::OperandCount,
            format!(
                "takes {} source(s) ({}), got {}",
                info.sources.len(),
                names.join(", "),
                op.operands.len()
            ),
        );
        return vec![v.at(op.loc.clone(), &op_prefix(op))];
    }
    let mut errors = Vec::new();
    let mut report = |operand: Option<(usize, OperandRole, ValueId)>, v: Violation| {
        let diag = match operand {
            Some((i, role, id)) => defined_here(
                func,
                id,
                v.at(op.loc.clone(), &operand_subject(func, op, i, role, id)),
            ),
            None => v.at(op.loc.clone(), &format!("{} result", op_prefix(op))),
        };
        errors.push(diag);
    };

    // Storage (docs/isa.md §3.6): predicates only where the role wants one.
    for (i, role, v) in roles(op) {
        let ty = func.ty(v);
        if ty.storage != role.storage() {
            report(Some((i, role, v)), storage_violation(ty, role.storage()));
        }
    }
    let res_ty = *func.ty(op.result);
    if res_ty.storage != info.result_storage() {
        report(None, storage_violation(&res_ty, info.result_storage()));
    }
    if let Some(v) = cmode_violation(op) {
        report(None, v);
    }

    // Types (docs/isa.md §1.3–1.6, §1.9): the typed sources share BSTART's DataType.
    let first_idx = info.typed_source();
    let (Some(&first_role), Some(&first)) =
        (info.sources.get(first_idx), op.operands.get(first_idx))
    else {
        return errors; // an op without sources has nothing to relate
    };
    let src_ty = *func.ty(first);
    if !info.accepts(src_ty.dtype) {
        let legal: Vec<&str> = info.legal_types.iter().map(|t| t.name()).collect();
        report(
            Some((first_idx, first_role, first)),
            Violation::new(
                Rule::DataType,
                format!(
                    "has DataType {}, which {} does not accept",
                    src_ty.dtype.name(),
                    info.mnemonic
                ),
            )
            .hint(format!("legal: {}", legal.join(", "))),
        );
    }
    for (i, role, v) in roles(op).filter(|&(i, r, _)| i != first_idx && r.carries_type()) {
        let t = func.ty(v).dtype;
        if t != src_ty.dtype {
            report(
                Some((i, role, v)),
                Violation::new(
                    Rule::SameType,
                    format!(
                        "has DataType {}, but the {} has {}",
                        t.name(),
                        first_role.name(),
                        src_ty.dtype.name()
                    ),
                )
                .hint(format!(
                    "all sources of {} share one DataType",
                    info.mnemonic
                )),
            );
        }
    }
    let legal_results: Vec<DataType> = info.result.legal_results(src_ty.dtype).collect();
    if !legal_results.contains(&res_ty.dtype) {
        let names: Vec<&str> = legal_results.iter().map(|t| t.name()).collect();
        let violation = match info.result {
            ResultKind::SameAsSource
            | ResultKind::Reduced
            | ResultKind::Broadcast
            | ResultKind::Transposed
            | ResultKind::Matrix => Violation::new(
                Rule::SameType,
                format!(
                    "has DataType {}, but the {} has {}",
                    res_ty.dtype.name(),
                    first_role.name(),
                    src_ty.dtype.name()
                ),
            )
            .hint(format!("make the result {}", src_ty.dtype.name())),
            ResultKind::Index => Violation::new(
                Rule::ArgResultType,
                format!(
                    "has DataType {}, but {} produces indices",
                    res_ty.dtype.name(),
                    info.mnemonic
                ),
            )
            .hint("type the result ui32 (the encoded op writes U32 indices)"),
            ResultKind::Converted => Violation::new(
                Rule::DataType,
                format!(
                    "has DataType {}, which {} cannot produce",
                    res_ty.dtype.name(),
                    info.mnemonic
                ),
            )
            .hint(format!("legal: {}", names.join(", "))),
            ResultKind::ExpDif => {
                let hint = if names.is_empty() {
                    let pairs: Vec<String> = EXPDIF_PAIRS
                        .iter()
                        .map(|(s, d)| format!("({},{})", s.name(), d.name()))
                        .collect();
                    format!("legal (source, result) pairs: {}", pairs.join(", "))
                } else {
                    format!(
                        "with a {} source the result may be {}",
                        src_ty.dtype.name(),
                        names.join(" or ")
                    )
                };
                Violation::new(
                    Rule::ExpDifPair,
                    format!(
                        "has DataType {} for a {} source, not one of the EXPDIF pairs",
                        res_ty.dtype.name(),
                        src_ty.dtype.name()
                    ),
                )
                .hint(hint)
            }
            ResultKind::Predicate => storage_violation(&res_ty, info.result_storage()),
        };
        report(None, violation);
    }

    // Geometry (docs/isa.md §1.3, §1.5, §1.6).
    match info.kind {
        OpKind::Reduce(axis, _) => {
            if let Some(v) = reduction_result(&src_ty, &res_ty, axis) {
                report(None, v);
            }
        }
        OpKind::Expand(axis, combine) => {
            let (bi, brole, bcast) = roles(op)
                .find(|(_, r, _)| *r == OperandRole::Bcast)
                .unwrap_or((first_idx, first_role, first));
            if combine.is_some() {
                if let Some(v) = full_shape(&src_ty, &res_ty, res_ty.dtype, first_role) {
                    report(None, v);
                }
            }
            if let Some(v) = broadcast_shape(func.ty(bcast), &res_ty, axis) {
                report(Some((bi, brole, bcast)), v);
            }
        }
        OpKind::Binary(_) => {
            // A numpy-style broadcast is inference's to rewrite; only at the final stage is it an
            // error. The full operand is the left one unless the left is a broadcast of the right.
            let swapped = op.operands.len() == 2
                && broadcast_axis(func.ty(op.operands[1]), &src_ty).is_some();
            let full_idx = usize::from(swapped);
            let full_role = info.sources[full_idx];
            let full_ty = *func.ty(op.operands[full_idx]);
            for (i, role, v) in roles(op).filter(|&(i, _, _)| i != full_idx) {
                let ty = func.ty(v);
                let implicit = broadcast_axis(&full_ty, ty).is_some();
                if stage == Stage::Source && implicit {
                    continue;
                }
                if let Some(viol) = full_shape(&full_ty, ty, ty.dtype, full_role) {
                    let viol = if implicit {
                        viol.hint("an implicit broadcast: run pto-infer-shapes or write pto.trowexpand/pto.tcolexpand")
                    } else {
                        viol
                    };
                    report(Some((i, role, v)), viol);
                }
            }
            if let Some(v) = full_shape(&full_ty, &res_ty, res_ty.dtype, full_role) {
                report(None, v);
            }
        }
        // TCVT: the source's physical and valid geometry in the result's type (docs/isa.md §1.10);
        // TMOV: the source's (docs/isa.md §13.5); a tile-scalar op's result the source's (§14).
        OpKind::Unary(_) | OpKind::Convert | OpKind::Move | OpKind::TileScalar(_) => {
            if let Some(v) = full_shape(&src_ty, &res_ty, res_ty.dtype, first_role) {
                report(None, v);
            }
        }
        // TTRANS (docs/isa.md §19): the result's valid shape is the source's swapped; its
        // physical columns are its own (any power of two holding them, `tile_violations`),
        // and its padding is Null.
        OpKind::Transpose => {
            if let Some(v) = transposed_result(&src_ty, &res_ty) {
                report(None, v);
            }
        }
        // Every operand and the result have the typed source's physical and valid shape
        // (`TileShapeAndTypeMatch`/`TileLogicalShapeMatch`, docs/isa.md §1.9).
        // TEXPANDS has no tile source (returned above); its result type gives its shape.
        OpKind::FillScalar | OpKind::Matmul { .. } => {}
        OpKind::Compare | OpKind::Select => {
            for (i, role, v) in roles(op).filter(|&(i, _, _)| i != first_idx) {
                let ty = func.ty(v);
                if let Some(viol) = full_shape(&src_ty, ty, ty.dtype, first_role) {
                    report(Some((i, role, v)), viol);
                }
            }
            if let Some(v) = full_shape(&src_ty, &res_ty, res_ty.dtype, first_role) {
                report(None, v);
            }
        }
    }
    // Numeric control: only an op that reads B.DATR RMode/Sat may carry it (docs/isa.md §2.3).
    let reads = info.kind.datr_fields();
    let unread: Vec<&str> = [
        (
            control_attrs::RMODE,
            op.control.rmode.is_some() && !reads.rmode,
        ),
        (control_attrs::SAT, op.control.sat && !reads.sat),
    ]
    .into_iter()
    .filter_map(|(name, bad)| bad.then_some(name))
    .collect();
    if !unread.is_empty() {
        // The copies (TMOV, TTRANS) compute nothing to round.
        let does = match info.kind {
            OpKind::Move | OpKind::Transpose => "copies bits",
            _ => "rounds RNE and never saturates",
        };
        errors.push(
            Violation::new(
                Rule::NumericControl,
                format!(
                    "has {}, but {} {does} (its B.DATR RMode and Sat must be 0)",
                    unread.join(" and "),
                    info.mnemonic
                ),
            )
            .hint("only pto.tcvt takes pto.rmode and pto.sat")
            .at(op.loc.clone(), &op_prefix(op)),
        );
    }
    errors
}

/// A tile whose storage is not what its role needs.
fn storage_violation(ty: &TileType, want: Storage) -> Violation {
    let mut fixed = *ty;
    fixed.storage = want;
    let (is, should) = match want {
        Storage::Predicate => ("a numeric tile", "a predicate tile"),
        Storage::Numeric => ("a predicate tile", "a numeric tile"),
    };
    if want == Storage::Predicate {
        fixed.dtype = ptoc_isa::dtype::PREDICATE_DTYPE;
    }
    let v = Violation::new(
        Rule::Storage,
        format!("has type {}, {is}, where the op needs {should}", shape(ty)),
    );
    match want {
        Storage::Predicate => v.hint(format!("use {fixed}")),
        Storage::Numeric => v.hint("a predicate only feeds TSEL's first operand"),
    }
}

/// `pto.cmode`: required, with one of the six relations, on the op that reads B.DATR CMode (TCMP,
/// `OpKind::datr_fields`; docs/isa.md §1.9), absent elsewhere.
fn cmode_violation(op: &Op) -> Option<Violation> {
    let names: Vec<&str> = CmpMode::ALL.iter().map(|m| m.mlir_name()).collect();
    let hint = format!("{CMODE_ATTR} = \"{}\"", names.join("\" | \""));
    let attr = op.attrs.get(CMODE_ATTR);
    let problem = match (op.info.kind.datr_fields().cmode, attr) {
        (true, Some(Attr::Str(name))) if CmpMode::from_mlir_name(name).is_some() => return None,
        (true, Some(Attr::Str(name))) => {
            format!("has {CMODE_ATTR} \"{name}\", which is not a comparison")
        }
        (true, Some(Attr::Int(n))) => {
            format!("has {CMODE_ATTR} {n}; the relation is written by name")
        }
        (true, None) => format!("has no {CMODE_ATTR} attribute naming its relation"),
        (false, None) => return None,
        (false, Some(_)) => {
            return Some(
                Violation::new(
                    Rule::CMode,
                    format!("has {CMODE_ATTR}, which only pto.tcmp takes"),
                )
                .hint(format!("remove {CMODE_ATTR}")),
            )
        }
    };
    Some(Violation::new(Rule::CMode, problem).hint(format!("write {hint}")))
}

/// `TileShapeAndTypeMatch`'s geometry half: `ty` must have `reference`'s physical and valid shape.
/// `dtype` is the element type `ty` is meant to have, for the suggested spelling.
fn full_shape(
    reference: &TileType,
    ty: &TileType,
    dtype: DataType,
    reference_role: OperandRole,
) -> Option<Violation> {
    let matches =
        reference.rows.agrees(ty.rows) && reference.geometry().matches(ty.geometry(), Dim::agrees);
    if matches {
        return None;
    }
    let mut want = *reference;
    want.dtype = dtype;
    want.pad = ty.pad;
    want.storage = ty.storage;
    Some(
        Violation::new(
            Rule::FullShape,
            format!(
                "has shape {}, but the full-shape {} has {}; full-shape sources and the destination need identical physical and valid shapes",
                shape(ty),
                reference_role.name(),
                shape(reference)
            ),
        )
        .hint(format!("use {}", shape(&want))),
    )
}

/// A TTRANS result against its source: the source's valid shape swapped, no pad
/// (`TileOperandsLegal_TTRANS`, `TTRANS`; docs/isa.md §19).
fn transposed_result(src: &TileType, res: &TileType) -> Option<Violation> {
    let (want_rows, want_cols) = src.geometry().transposed_valid();
    let swapped = want_rows.agrees(res.valid_rows) && want_cols.agrees(res.valid_cols);
    if swapped && res.pad == ptoc_isa::PadValue::Null {
        return None;
    }
    let mut want = *res;
    want.pad = ptoc_isa::PadValue::Null;
    if let (Some(vr), Some(vc)) = (want_rows.known(), want_cols.known()) {
        if let Some(g) = src.known_geometry().and_then(Geometry::transposed) {
            want.rows = Dim::Known(vr);
            want.cols = Dim::Known(g.cols);
            want.valid_rows = Dim::Known(vr);
            want.valid_cols = Dim::Known(vc);
        }
    }
    let problem = if swapped {
        format!(
            "has shape {}, but TTRANS leaves its padding undefined (a pad would need a B.DATR \
             PadValue, which TTRANS refuses)",
            shape(res)
        )
    } else {
        format!(
            "has shape {}, but the transpose of the source {} has valid shape {}x{}",
            shape(res),
            shape(src),
            want_rows,
            want_cols
        )
    };
    Some(Violation::new(Rule::TransposedShape, problem).hint(format!("use {}", shape(&want))))
}

/// The broadcast source of an expand against the full shape `full`: the axis's vector of it
/// (`Axis::vector`, docs/isa.md §1.3).
fn broadcast_shape(bcast: &TileType, full: &TileType, axis: Axis) -> Option<Violation> {
    let want = axis.vector(full.geometry());
    if bcast.geometry().matches(want, Dim::agrees) {
        return None;
    }
    let (rule, what) = match axis {
        Axis::Row => (Rule::RowBroadcast, "a row broadcast has valid shape"),
        Axis::Col => (Rule::ColBroadcast, "a column broadcast has valid shape"),
    };
    let v = Violation::new(
        rule,
        format!(
            "has shape {}, but for the full shape {} {what} {}x{} and {} physical column{}",
            shape(bcast),
            shape(full),
            want.valid_rows,
            want.valid_cols,
            want.cols,
            if want.cols == Dim::Known(1) { "" } else { "s" }
        ),
    );
    // A broadcast source keeps its rows when they hold the valid rows.
    let rows = |vr: u32| bcast.rows.known().unwrap_or(vr).max(vr);
    Some(with_vector_hint(v, bcast, want, rows))
}

/// A reduction's result against its source: the axis's vector of it (`Axis::vector`,
/// docs/isa.md §1.5).
fn reduction_result(src: &TileType, res: &TileType, axis: Axis) -> Option<Violation> {
    let want = axis.vector(src.geometry());
    if res.geometry().matches(want, Dim::agrees) {
        return None;
    }
    let what = match axis {
        Axis::Row => "a row reduction gives one value per valid source row in 1 physical column",
        Axis::Col => "a column reduction gives one value per valid source column over the source's physical columns",
    };
    let v = Violation::new(
        Rule::ReductionResult,
        format!(
            "has shape {}, but for the source {} {what}",
            shape(res),
            shape(src)
        ),
    );
    // A result gets the rows shape inference gives it: its valid rows.
    Some(with_vector_hint(v, res, want, |vr| vr))
}

/// "use RxC, valid=VRxVC" for a vector tile `ty` that should have geometry `want`, with `rows(VR)`
/// physical rows; nothing while `want` has unknown dimensions.
fn with_vector_hint(
    v: Violation,
    ty: &TileType,
    want: Geometry<Dim>,
    rows: impl Fn(u32) -> u32,
) -> Violation {
    let (Some(cols), Some(vr), Some(vc)) = (
        want.cols.known(),
        want.valid_rows.known(),
        want.valid_cols.known(),
    ) else {
        return v;
    };
    v.hint(format!("use {}", shape_of(ty, rows(vr), cols, vr, vc)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{ty, Builder};

    fn errors(func: &Function) -> Vec<String> {
        verify_function(func, Stage::Source)
            .into_iter()
            .map(|d| d.message)
            .collect()
    }

    /// Exactly one error, naming the rule, the subject and the fault class.
    fn one_error(func: &Function, rule: Rule, subject: &str) -> String {
        let errs = errors(func);
        assert_eq!(errs.len(), 1, "{errs:#?}");
        let e = &errs[0];
        assert!(
            e.contains(&format!("[{}, {}]", rule.name(), rule.fault())),
            "{e}"
        );
        assert!(e.contains(subject), "{e}");
        e.clone()
    }

    #[test]
    fn softmax_is_legal() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let m = b.op("m", "TROWMAX", &[x], "16x1xf32");
        let e = b.op("e", "TROWEXPANDEXPDIF", &[x, m], "16x64xf32");
        let s = b.op("s", "TROWSUM", &[e], "16x1xf32");
        let r = b.op("r", "TROWEXPANDDIV", &[e, s], "16x64xf32");
        let c = b.op("c", "TCOLMAX", &[r], "1x64xf32");
        let i = b.op("i", "TCOLARGMAX", &[r], "1x64xui32");
        let f = b.ret(&[c, i]);
        assert_eq!(errors(&f), Vec::<String>::new());
    }

    #[test]
    fn operand_count() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        b.op("r", "TROWEXPANDMAX", &[x], "16x64xf32");
        let e = one_error(&b.ret(&[]), Rule::OperandCount, "'pto.trowexpandmax' op");
        assert!(
            e.contains("Fault_BundleControl") && e.contains("got 1"),
            "{e}"
        );
    }

    #[test]
    fn data_type_in_the_legal_set() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xsi32");
        b.op("r", "TEXP", &[x], "16x64xsi32");
        let e = one_error(&b.ret(&[]), Rule::DataType, "source operand #0 %x");
        assert!(e.contains("S32") && e.contains("legal: FP64, FP32"), "{e}");
        // ARG sources are restricted to A9.
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf64");
        b.op("r", "TROWARGMAX", &[x], "16x1xui32");
        one_error(&b.ret(&[]), Rule::DataType, "source operand #0 %x");
    }

    #[test]
    fn same_type() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let y = b.arg("y", "16x64xf16");
        b.op("r", "TADD", &[x, y], "16x64xf32");
        let e = one_error(&b.ret(&[]), Rule::SameType, "right source operand #1 %y");
        assert!(e.contains("Fault_TileLegality"), "{e}");
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        b.op("r", "TROWSUM", &[x], "16x1xf16");
        let e = one_error(&b.ret(&[]), Rule::SameType, "'pto.trowsum' op result");
        assert!(e.contains("make the result FP32"), "{e}");
    }

    #[test]
    fn expdif_pairs() {
        for (src, dst, legal) in [
            ("f16", "f32", true),
            ("bf16", "f32", true),
            ("f32", "f32", true),
            ("f16", "bf16", false),
            ("f32", "f16", false),
        ] {
            let mut b = Builder::new();
            let x = b.arg("x", &format!("16x64x{src}"));
            let m = b.arg("m", &format!("16x1x{src}"));
            b.op("r", "TROWEXPANDEXPDIF", &[x, m], &format!("16x64x{dst}"));
            let f = b.ret(&[]);
            if legal {
                assert_eq!(errors(&f), Vec::<String>::new(), "{src}->{dst}");
            } else {
                let e = one_error(&f, Rule::ExpDifPair, "'pto.trowexpandexpdif' op result");
                assert!(e.contains("may be"), "{e}");
            }
        }
    }

    #[test]
    fn arg_results_are_u32_or_s32() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        b.op("r", "TROWARGMIN", &[x], "16x1xf32");
        let e = one_error(
            &b.ret(&[]),
            Rule::ArgResultType,
            "'pto.trowargmin' op result",
        );
        assert!(e.contains("ui32"), "{e}");
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        b.op("r", "TCOLARGMIN", &[x], "1x64xsi32");
        assert_eq!(errors(&b.ret(&[])), Vec::<String>::new());
    }

    #[test]
    fn dims_in_range() {
        let mut b = Builder::new();
        let mut t = ty("16x64xf32");
        t.valid_rows = Dim::Known(0);
        b.func.add_arg(Some("x".into()), t);
        let e = one_error(&b.ret(&[]), Rule::DimRange, "argument #0 %x");
        assert!(e.contains("valid rows 0"), "{e}");
        let v = tile_violations(&TileType::new(70000, 1, DataType::U8), Stage::Source);
        assert_eq!(v[0].rule, Rule::DimRange);
    }

    #[test]
    fn cols_power_of_two() {
        let mut b = Builder::new();
        b.arg("x", "16x48xf32");
        let e = one_error(&b.ret(&[]), Rule::ColsPowerOfTwo, "argument #0 %x");
        assert!(e.contains("Fault_TileAllocation"), "{e}");
        assert!(e.contains("use 16x64xf32, valid=16x48"), "{e}");
    }

    #[test]
    fn valid_within_physical() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        b.op("r", "TROWSUM", &[x], "8x1xf32, valid=16x1");
        let e = one_error(
            &b.ret(&[]),
            Rule::ValidWithinPhysical,
            "'pto.trowsum' op result",
        );
        assert!(e.contains("use 16x1xf32"), "{e}");
    }

    #[test]
    fn a_size_code_holds_the_shape() {
        let mut b = Builder::new();
        b.arg("x", "1024x64xf32");
        let e = one_error(&b.ret(&[]), Rule::SizeCode, "argument #0 %x");
        assert!(
            e.contains("256 KiB") && e.contains("use at most 256x64xf32"),
            "{e}"
        );
        let mut b = Builder::new();
        b.arg("x", "1x32768xf64");
        let e = one_error(&b.ret(&[]), Rule::SizeCode, "argument #0 %x");
        assert!(e.contains("use at most 8192 columns"), "{e}");
    }

    #[test]
    fn full_shape_source_and_result() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let m = b.arg("m", "16x1xf32");
        b.op("r", "TROWEXPANDADD", &[x, m], "16x64xf32, valid=16x60");
        let e = one_error(
            &b.ret(&[]),
            Rule::FullShape,
            "'pto.trowexpandadd' op result",
        );
        assert!(e.contains("use 16x64xf32 ["), "{e}");
        // Binary ops: physical rows differ, valid equal.
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let y = b.arg("y", "32x64xf32, valid=16x64");
        b.op("r", "TMAX", &[x, y], "16x64xf32");
        one_error(&b.ret(&[]), Rule::FullShape, "right source operand #1 %y");
    }

    #[test]
    fn row_broadcast_shape() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let m = b.op("m", "TROWMAX", &[x], "16x1xf32");
        let n = b.op("n", "TCOLMAX", &[x], "1x64xf32");
        let _ = m;
        b.op("r", "TROWEXPANDMAX", &[x, n], "16x64xf32");
        let f = b.ret(&[]);
        let e = one_error(&f, Rule::RowBroadcast, "broadcast operand #1 %n");
        assert!(e.contains("use 16x1xf32"), "{e}");
        // The note points at where %n was defined.
        let d = &verify_function(&f, Stage::Source)[0];
        assert_eq!(d.notes[0].0.line, 3);
        assert!(d.notes[0].1.contains("%n defined here"));
    }

    #[test]
    fn col_broadcast_shape() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let v = b.arg("v", "1x32xf32");
        b.op("r", "TCOLEXPANDSUB", &[x, v], "16x64xf32");
        let e = one_error(&b.ret(&[]), Rule::ColBroadcast, "broadcast operand #1 %v");
        assert!(e.contains("use 1x64xf32"), "{e}");
        // The copy form checks the broadcast against its result.
        let mut b = Builder::new();
        let v = b.arg("v", "2x64xf32");
        b.op("r", "TCOLEXPAND", &[v], "16x64xf32");
        one_error(&b.ret(&[]), Rule::ColBroadcast, "broadcast operand #0 %v");
    }

    #[test]
    fn reduction_result_geometry() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32, valid=10x64");
        b.op("r", "TROWSUM", &[x], "16x1xf32");
        let e = one_error(
            &b.ret(&[]),
            Rule::ReductionResult,
            "'pto.trowsum' op result",
        );
        assert!(e.contains("use 10x1xf32 ["), "{e}");
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        b.op("r", "TCOLPROD", &[x], "16x1xf32");
        let e = one_error(
            &b.ret(&[]),
            Rule::ReductionResult,
            "'pto.tcolprod' op result",
        );
        assert!(e.contains("use 1x64xf32 ["), "{e}");
    }

    /// TTRANS: the result's valid shape is the source's swapped, in any power-of-two columns
    /// holding it, with no pad; same type; row-major source and result.
    #[test]
    fn ttrans_rules() {
        let check = |src: &str, res: &str| {
            let mut b = Builder::new();
            let x = b.arg("x", src);
            b.op("t", "TTRANS", &[x], res);
            errors(&b.ret(&[]))
        };
        assert_eq!(check("16x64xf32", "64x16xf32"), Vec::<String>::new());
        assert_eq!(
            check("2x4xui16, valid=2x3", "3x8xui16, valid=3x2"),
            Vec::<String>::new()
        );
        let shape = |src: &str, res: &str| {
            let mut b = Builder::new();
            let x = b.arg("x", src);
            b.op("t", "TTRANS", &[x], res);
            one_error(&b.ret(&[]), Rule::TransposedShape, "'pto.ttrans' op result")
        };
        let e = shape("16x64xf32", "16x64xf32");
        assert!(
            e.contains("the transpose of the source 16x64xf32 has valid shape 64x16")
                && e.contains("use 64x16xf32"),
            "{e}"
        );
        let e = shape("2x4xui16, valid=2x3", "3x2xui16, pad=zero");
        assert!(
            e.contains("leaves its padding undefined") && e.contains("use 3x2xui16"),
            "{e}"
        );
        // Types: the result's must be the source's.
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        b.op("t", "TTRANS", &[x], "64x16xf16");
        let e = one_error(&b.ret(&[]), Rule::SameType, "'pto.ttrans' op result");
        assert!(e.contains("make the result FP32"), "{e}");
        // CUBE tiles: neither source nor result.
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf16, layout=cube_m16");
        b.op("t", "TTRANS", &[x], "64x16xf16");
        one_error(&b.ret(&[]), Rule::Layout, "source operand #0 %x");
        let mut b = Builder::new();
        let x = b.arg("x", "64x16xf16");
        b.op("t", "TTRANS", &[x], "16x64xf16, layout=cube_m16");
        let e = one_error(&b.ret(&[]), Rule::Layout, "'pto.ttrans' op result");
        assert!(e.contains("writes row-major tiles only"), "{e}");
        // Numeric control is TCVT's only.
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        b.op("t", "TTRANS", &[x], "64x16xf32");
        b.func.ops[0].control.sat = true;
        one_error(&b.ret(&[]), Rule::NumericControl, "'pto.ttrans' op");
    }

    #[test]
    fn stages_differ_on_unknowns_and_implicit_broadcasts() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let m = b.op("m", "TROWMAX", &[x], "?x?xf32");
        let v = b.arg("v", "16x1xf32");
        b.op("r", "TSUB", &[v, x], "?x?xf32");
        let _ = m;
        let f = b.ret(&[]);
        assert_eq!(errors(&f), Vec::<String>::new());
        let fin: Vec<String> = verify_function(&f, Stage::Final)
            .into_iter()
            .map(|d| d.message)
            .collect();
        assert_eq!(fin.len(), 3, "{fin:#?}");
        assert!(fin[0].contains("'pto.trowmax' op result type ?x?xf32 still has '?' rows, columns"));
        assert!(fin[0].contains("[inferred-shape, Fault_TileLegality]"));
        assert!(fin[1].contains("'pto.tsub' op result type ?x?xf32"));
        assert!(
            fin[2].contains("left source operand #0 %v") && fin[2].contains("implicit broadcast"),
            "{fin:#?}"
        );
    }
}
