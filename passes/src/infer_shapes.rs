//! `pto-infer-shapes`: fill `?` result dimensions and make numpy-style broadcasts explicit.
//!
//! A result type may leave dimensions as `?` (README, Input language); each op's `ResultKind` says how its
//! result geometry follows from its sources (docs/isa.md §1.3–1.6), so the pass fills them in program
//! order and reports a written dimension that contradicts the rule. The ISA's elementwise ops
//! (TADD, TSUB, …) need identically shaped sources, so an elementwise op written with a row
//! (`16x64` with `16x1`) or column (`16x64` with `1x64`) broadcast, in either operand order, gets an
//! explicit `pto.trowexpand`/`pto.tcolexpand` of the vector, placed directly before it; fusion
//! later folds the pair into the expand-op form. Shapes no axis explains are errors at the op.

use crate::gm;
use crate::rules::{full_source, op_prefix, shape, value_name, Rule, Violation};
use crate::{Pass, PassContext};
use ptoc_ir::{Diagnostic, Dim, Function, GmKernel, GmOpKind, TileType};
use ptoc_isa::ops::by_kind;
use ptoc_isa::{Axis, OpKind, PadValue};

/// The `pto-infer-shapes` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct InferShapes;

/// If `vector` is a row or column broadcast of `full` (docs/isa.md §1.3 broadcast rules, all dims
/// known), the axis; `None` for equal shapes and for shapes no broadcast explains.
pub fn broadcast_axis(full: &TileType, vector: &TileType) -> Option<Axis> {
    Axis::broadcast_of(full.known_geometry()?, vector.known_geometry()?)
}

impl Pass for InferShapes {
    fn name(&self) -> &'static str {
        "pto-infer-shapes"
    }
    fn description(&self) -> &'static str {
        "Fill '?' result dimensions and make elementwise broadcasts explicit expands"
    }
    fn statistics(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("dims-inferred", "Number of '?' dimensions filled in"),
            (
                "expands-inserted",
                "Number of implicit broadcasts made explicit",
            ),
        ]
    }
    /// Each block's tile ops as a DAG ([`crate::gm`]), then the checks that need the filled
    /// shapes: a loop carries the types its body yields, and every load and store rectangle
    /// whose tile shape was still `?` at `pto-verify` lies inside its memref.
    fn run_gm(&self, kernel: &mut GmKernel, ctx: &mut PassContext) -> Result<(), Vec<Diagnostic>> {
        let mut errors = Vec::new();
        gm::for_each_block_mut(kernel, &mut |kernel, block| {
            let dag = gm::block_dag(kernel, block, crate::gm::ScalarOps::Included);
            let mut func = dag.func.clone();
            match self.run(&mut func, ctx) {
                Ok(()) => gm::splice(kernel, block, &dag, &func, true).map_err(|e| vec![e]),
                Err(e) => {
                    errors.extend(e);
                    Ok(())
                }
            }
        })?;
        if !errors.is_empty() {
            return Err(errors);
        }
        kernel.walk(|op| {
            let GmOpKind::For(body) = &op.kind else {
                return;
            };
            let Some(yield_op) = body.ops.last() else {
                return;
            };
            for (k, (&y, &r)) in yield_op.operands.iter().zip(&op.results).enumerate() {
                if kernel.ty(y) != kernel.ty(r) {
                    errors.push(Diagnostic::error(
                        yield_op.loc.clone(),
                        format!(
                            "'scf.yield' operand #{k} has type {} after shape inference, but the \
                             loop carries {}; write the carried type as {}",
                            kernel.ty(y),
                            kernel.ty(r),
                            kernel.ty(y)
                        ),
                    ));
                }
            }
        });
        errors.extend(gm::check_bounds(kernel));
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
    fn run(&self, func: &mut Function, ctx: &mut PassContext) -> Result<(), Vec<Diagnostic>> {
        let mut errors = Vec::new();
        for (i, &arg) in func.args.iter().enumerate() {
            if !func.ty(arg).is_static() {
                let v = Violation::new(
                    Rule::InferredShape,
                    format!(
                        "has type {}; argument shapes cannot be inferred",
                        shape(func.ty(arg))
                    ),
                )
                .hint("write every argument dimension");
                let subject = format!("argument #{i} {}", value_name(func, arg));
                errors.push(v.at(func.loc.clone(), &subject));
            }
        }
        let (mut inserted, mut filled) = (0u64, 0u64);
        let mut at = 0;
        while at < func.ops.len() {
            match make_broadcast_explicit(func, at) {
                Ok(true) => {
                    inserted += 1;
                    at += 1;
                }
                Ok(false) => {}
                Err(e) => errors.push(e),
            }
            match infer_result(func, at) {
                Ok(n) => filled += n,
                Err(e) => errors.extend(e),
            }
            at += 1;
        }
        ctx.record(self.name(), "dims-inferred", filled);
        ctx.record(self.name(), "expands-inserted", inserted);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

/// If the op at `at` is an elementwise op with one operand a row/column broadcast of the other,
/// insert the expand before it and rewire it; `Ok(true)` when an op was inserted.
fn make_broadcast_explicit(func: &mut Function, at: usize) -> Result<bool, Diagnostic> {
    let op = &func.ops[at];
    if !matches!(op.info.kind, OpKind::Binary(_)) || op.operands.len() != 2 {
        return Ok(false);
    }
    let (a, b) = (op.operands[0], op.operands[1]);
    let (ta, tb) = (*func.ty(a), *func.ty(b));
    let (Some(da), Some(db)) = (ta.dims(), tb.dims()) else {
        return Ok(false);
    };
    if da == db {
        return Ok(false);
    }
    let (vector_pos, axis) = match (broadcast_axis(&ta, &tb), broadcast_axis(&tb, &ta)) {
        (Some(axis), _) => (1, axis),
        (None, Some(axis)) => (0, axis),
        (None, None) => {
            let v = Violation::new(
                Rule::BroadcastShape,
                format!(
                    "has sources {} ({}) and {} ({}), which are neither equal nor a row (Rx1) or column (1xC) broadcast of each other",
                    value_name(func, a),
                    shape(&ta),
                    value_name(func, b),
                    shape(&tb)
                ),
            )
            .hint("broadcast along one axis only, with the vector's valid length matching the full operand's");
            return Err(v.at(op.loc.clone(), &op_prefix(op)));
        }
    };
    let kind = OpKind::Expand(axis, None);
    let Some(info) = by_kind(kind) else {
        let v = Violation::new(
            Rule::BroadcastShape,
            "needs an expand op the catalogue lacks",
        );
        return Err(v.at(op.loc.clone(), &op_prefix(op)));
    };
    let full = op.operands[1 - vector_pos];
    let vector = op.operands[vector_pos];
    let loc = op.loc.clone();
    let mut ty = *func.ty(full);
    ty.dtype = func.ty(vector).dtype;
    ty.pad = PadValue::Null;
    let expanded = func.insert_op(at, info, vec![vector], ty, None, loc);
    func.ops[at + 1].operands[vector_pos] = expanded;
    Ok(true)
}

/// How one result dimension follows from the sources.
#[derive(Clone, Copy)]
enum Rule4 {
    /// Fixed by the op's rule (a written value must agree).
    Is(Dim),
    /// Free (≥ what the rule needs): filled with this default when `?`.
    Default(Dim),
    /// The valid extent defaults to the result's own physical extent.
    Physical,
}

/// Fill the `?` dims of the result of the op at `at`; the number filled.
fn infer_result(func: &mut Function, at: usize) -> Result<u64, Vec<Diagnostic>> {
    let op = &func.ops[at];
    // The copy expands follow their only source, the broadcast vector.
    let Some(src) = full_source(op).or(op.operands.first().copied()) else {
        return Ok(0); // operand count is verify's to report
    };
    let s = *func.ty(src);
    // (rows, cols, valid rows, valid cols)
    let rules = match op.info.kind {
        // TCVT keeps the source's geometry in the result's own type (docs/isa.md §1.10), TCMP
        // in a predicate (§1.9).
        OpKind::Binary(_)
        | OpKind::Unary(_)
        | OpKind::Convert
        | OpKind::Move
        | OpKind::TileScalar(_)
        | OpKind::Expand(_, Some(_))
        | OpKind::Compare
        | OpKind::Select => [
            Rule4::Is(s.rows),
            Rule4::Is(s.cols),
            Rule4::Is(s.valid_rows),
            Rule4::Is(s.valid_cols),
        ],
        // The axis's vector of the source, in as many rows as it has valid rows.
        OpKind::Reduce(axis, _) => {
            let v = axis.vector(s.geometry());
            [
                Rule4::Default(v.valid_rows),
                Rule4::Is(v.cols),
                Rule4::Is(v.valid_rows),
                Rule4::Is(v.valid_cols),
            ]
        }
        // TTRANS (docs/isa.md §19): the valid shape swapped, as many rows as valid rows and the
        // fewest power-of-two columns holding the valid columns (written ones may be more).
        OpKind::Transpose => {
            let (vr, vc) = s.geometry().transposed_valid();
            let cols = match s.known_geometry().and_then(|g| g.transposed()) {
                Some(g) => Dim::Known(g.cols),
                None => Dim::Unknown,
            };
            [
                Rule4::Default(vr),
                Rule4::Default(cols),
                Rule4::Is(vr),
                Rule4::Is(vc),
            ]
        }
        // The copy expands: `s` is the broadcast vector; the other axis comes from the result type.
        // TEXPANDS has no tile source (returned above): its result type gives its shape.
        OpKind::FillScalar => return Ok(0),
        // Verify refuses the matrix ops before inference reaches them.
        OpKind::Matmul { .. } => return Ok(0),
        OpKind::Expand(Axis::Row, None) => [
            Rule4::Default(s.valid_rows),
            Rule4::Default(Dim::Unknown),
            Rule4::Is(s.valid_rows),
            Rule4::Physical,
        ],
        OpKind::Expand(Axis::Col, None) => [
            Rule4::Default(Dim::Unknown),
            Rule4::Is(s.cols),
            Rule4::Physical,
            Rule4::Is(s.valid_cols),
        ],
    };
    let written = *func.ty(op.result);
    let mut ty = written;
    let mut errors = Vec::new();
    let mut filled = 0;
    let names = ["rows", "columns", "valid rows", "valid columns"];
    for slot in 0..4 {
        let current = dim(&ty, slot);
        let want = match rules[slot] {
            Rule4::Is(d) | Rule4::Default(d) => d,
            Rule4::Physical => dim(&ty, slot - 2),
        };
        match (current, want) {
            (Dim::Unknown, Dim::Known(_)) => {
                set_dim(&mut ty, slot, want);
                filled += 1;
            }
            (Dim::Unknown, Dim::Unknown) => {
                let v = Violation::new(
                    Rule::InferredShape,
                    format!(
                        "has type {}, and its {} cannot be inferred from {} ({})",
                        shape(&written),
                        names[slot],
                        value_name(func, src),
                        shape(&s)
                    ),
                )
                .hint(format!("write the {}", names[slot]));
                errors.push(v.at(op.loc.clone(), &format!("{} result", op_prefix(op))));
                break;
            }
            // A fully written type is verify's to judge, with the rule's own name.
            (Dim::Known(w), Dim::Known(x))
                if w != x && matches!(rules[slot], Rule4::Is(_)) && !written.is_static() =>
            {
                let v = Violation::new(
                    Rule::InferredShape,
                    format!(
                        "has {} {w}, but {} ({}) gives {x}",
                        names[slot],
                        value_name(func, src),
                        shape(&s)
                    ),
                );
                errors.push(v.at(op.loc.clone(), &format!("{} result", op_prefix(op))));
                break;
            }
            _ => {}
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    func.value_mut(func.ops[at].result).ty = ty;
    Ok(filled)
}

fn dim(ty: &TileType, slot: usize) -> Dim {
    [ty.rows, ty.cols, ty.valid_rows, ty.valid_cols][slot]
}

fn set_dim(ty: &mut TileType, slot: usize, d: Dim) {
    match slot {
        0 => ty.rows = d,
        1 => ty.cols = d,
        2 => ty.valid_rows = d,
        _ => ty.valid_cols = d,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{assert_consistent, ty, Builder};
    use crate::verify::{verify_function, Stage};
    use crate::Options;

    fn run(func: &mut Function) -> Result<(u64, u64), Vec<String>> {
        let mut ctx = PassContext::new(Options::default());
        InferShapes
            .run(func, &mut ctx)
            .map_err(|e| e.into_iter().map(|d| d.message).collect::<Vec<_>>())?;
        let stat = |n| ctx.statistics.iter().find(|s| s.1 == n).map_or(0, |s| s.2);
        Ok((stat("expands-inserted"), stat("dims-inferred")))
    }

    fn mnemonics(func: &Function) -> Vec<&'static str> {
        func.ops.iter().map(|op| op.info.mnemonic).collect()
    }

    #[test]
    fn row_broadcast_becomes_trowexpand() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let m = b.op("m", "TROWMAX", &[x], "16x1xf32");
        let r = b.op("r", "TSUB", &[x, m], "?x?xf32");
        let mut f = b.ret(&[r]);
        assert_eq!(run(&mut f), Ok((1, 4)));
        assert_eq!(mnemonics(&f), ["TROWMAX", "TROWEXPAND", "TSUB"]);
        assert_consistent(&f);
        let expand = &f.ops[1];
        assert_eq!(expand.operands, [m]);
        assert_eq!(*f.ty(expand.result), ty("16x64xf32"));
        assert_eq!(expand.loc, f.ops[2].loc);
        assert_eq!(f.ops[2].operands, [x, expand.result]);
        assert_eq!(*f.ty(r), ty("16x64xf32"));
        assert_eq!(f.results, [r]);
        assert_eq!(verify_function(&f, Stage::Final), vec![]);
    }

    #[test]
    fn column_broadcast_becomes_tcolexpand() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf16, valid=10x60");
        let s = b.op("s", "TCOLSUM", &[x], "?x?xf16");
        let r = b.op("r", "TDIV", &[x, s], "16x64xf16, valid=10x60");
        let mut f = b.ret(&[r]);
        assert_eq!(run(&mut f), Ok((1, 4)));
        assert_eq!(*f.ty(s), ty("1x64xf16, valid=1x60"));
        assert_eq!(mnemonics(&f), ["TCOLSUM", "TCOLEXPAND", "TDIV"]);
        assert_eq!(*f.ty(f.ops[1].result), ty("16x64xf16, valid=10x60"));
        assert_consistent(&f);
        assert_eq!(verify_function(&f, Stage::Final), vec![]);
    }

    #[test]
    fn swapped_operands_keep_their_order() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let v = b.arg("v", "16x1xf32");
        let r = b.op("r", "TMAX", &[v, x], "?x64xf32");
        let mut f = b.ret(&[r]);
        assert_eq!(run(&mut f), Ok((1, 2)));
        assert_eq!(mnemonics(&f), ["TROWEXPAND", "TMAX"]);
        assert_eq!(f.ops[1].operands, [f.ops[0].result, x]);
        assert_eq!(*f.ty(r), ty("16x64xf32"));
        assert_consistent(&f);
    }

    #[test]
    fn two_broadcasts_in_sequence_keep_ids_consistent() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let hi = b.arg("hi", "16x1xf32");
        let lo = b.arg("lo", "1x64xf32");
        let a = b.op("a", "TMIN", &[x, hi], "16x64xf32");
        let c = b.op("c", "TMAX", &[a, lo], "16x64xf32");
        let mut f = b.ret(&[c]);
        assert_eq!(run(&mut f), Ok((2, 0)));
        assert_eq!(mnemonics(&f), ["TROWEXPAND", "TMIN", "TCOLEXPAND", "TMAX"]);
        assert_consistent(&f);
        assert_eq!(f.ops[3].operands[0], a);
        assert_eq!(verify_function(&f, Stage::Final), vec![]);
    }

    #[test]
    fn fills_results_by_result_kind() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf16, valid=12x64");
        let m = b.op("m", "TROWMAX", &[x], "?x?xf16");
        let e = b.op("e", "TROWEXPANDEXPDIF", &[x, m], "?x?xf32");
        let i = b.op("i", "TCOLARGMAX", &[x], "?x?xui32");
        let c = b.op("c", "TROWEXPAND", &[m], "?x32xf16");
        let mut f = b.ret(&[e, i, c]);
        assert!(run(&mut f).is_ok());
        assert_eq!(*f.ty(m), ty("12x1xf16"));
        assert_eq!(*f.ty(e), ty("16x64xf32, valid=12x64"));
        assert_eq!(*f.ty(i), ty("1x64xui32"));
        assert_eq!(*f.ty(c), ty("12x32xf16"));
        assert_eq!(verify_function(&f, Stage::Final), vec![]);
    }

    /// TTRANS: valid shape swapped, as many rows as valid rows, the fewest power-of-two
    /// columns: 16x64 → 64x16; valid 2x3 → 3x2 in 2 columns; valid 5x1 → 1x5 in 8 columns. A
    /// written wider column count stays; a contradicting valid shape is an error.
    #[test]
    fn transposes_swap_the_valid_shape() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let y = b.arg("y", "2x4xui16, valid=2x3");
        let z = b.arg("z", "8x1xsi8, valid=5x1");
        let t = b.op("t", "TTRANS", &[x], "?x?xf32");
        let u = b.op("u", "TTRANS", &[y], "?x?xui16");
        let w = b.op("w", "TTRANS", &[z], "?x?xsi8");
        let v = b.op("v", "TTRANS", &[y], "?x16xui16, valid=3x2");
        let mut f = b.ret(&[t, u, w, v]);
        assert_eq!(run(&mut f), Ok((0, 13)));
        assert_eq!(*f.ty(t), ty("64x16xf32"));
        assert_eq!(*f.ty(u), ty("3x2xui16"));
        assert_eq!(*f.ty(w), ty("1x8xsi8, valid=1x5"));
        assert_eq!(*f.ty(v), ty("3x16xui16, valid=3x2"));
        assert_eq!(verify_function(&f, Stage::Final), vec![]);
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        b.op("t", "TTRANS", &[x], "?x?xf32, valid=16x64");
        let e = run(&mut b.ret(&[])).unwrap_err();
        assert!(
            e[0].contains("'pto.ttrans' op result has valid rows 16, but %x (16x64xf32) gives 64"),
            "{e:?}"
        );
    }

    #[test]
    fn contradiction_is_an_error_at_the_op() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        b.op("m", "TROWMAX", &[x], "?x4xf32");
        let mut f = b.ret(&[]);
        let e = run(&mut f).unwrap_err();
        assert_eq!(e.len(), 1);
        assert!(e[0].contains("'pto.trowmax' op result has columns 4, but %x (16x64xf32) gives 1"));
        assert!(e[0].contains("[inferred-shape, Fault_TileLegality]"));
    }

    #[test]
    fn copy_expand_needs_its_full_axis_written() {
        let mut b = Builder::new();
        let v = b.arg("v", "16x1xf32");
        b.op("c", "TROWEXPAND", &[v], "?x?xf32");
        let mut f = b.ret(&[]);
        let e = run(&mut f).unwrap_err();
        assert!(e[0].contains("columns cannot be inferred"), "{e:?}");
    }

    #[test]
    fn unexplainable_shapes_are_errors() {
        for (a, c) in [
            ("16x1xf32", "1x64xf32"),
            ("16x64xf32", "8x64xf32"),
            ("16x64xf32", "16x2xf32"),
        ] {
            let mut b = Builder::new();
            let x = b.arg("a", a);
            let y = b.arg("b", c);
            b.op("r", "TADD", &[x, y], "?x?xf32");
            let mut f = b.ret(&[]);
            let e = run(&mut f).unwrap_err();
            assert!(e[0].starts_with("'pto.tadd' op has sources %a"), "{e:?}");
            assert!(
                e[0].contains("[broadcast-shape, Fault_TileLegality]"),
                "{e:?}"
            );
            assert_eq!(f.ops.len(), 1);
        }
    }

    #[test]
    fn arguments_must_be_static() {
        let mut b = Builder::new();
        b.arg("x", "?x64xf32");
        let mut f = b.ret(&[]);
        let e = run(&mut f).unwrap_err();
        assert!(e[0].contains("argument #0 %x"), "{e:?}");
    }
}
