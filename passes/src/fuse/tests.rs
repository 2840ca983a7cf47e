//! Unit tests of `pto-fuse`: each rule fires when it should and not when it must not, the
//! extractor's sharing decisions, determinism, `-O0`, statistics and scale.

use super::*;
use crate::{Options, Pass, PassContext};
use lang::{spelling, OpControl};
use ptoc_ir::{Attr, Function, Location, Op, TileType, ValueDef, ValueId};
use ptoc_isa::ops::CMODE_ATTR;
use ptoc_isa::{ops, CmpMode, DataType, PadValue};

/// Builds a function by hand; op `k` sits on line `k + 2`.
struct Builder {
    f: Function,
}

impl Builder {
    fn new() -> Builder {
        Builder {
            f: Function::new("k", Location::new("t.mlir", 1, 1)),
        }
    }

    fn arg(&mut self, name: &str, ty: TileType) -> ValueId {
        self.f.add_arg(Some(name.into()), ty)
    }

    fn op(&mut self, mnemonic: &str, operands: &[ValueId], ty: TileType, name: &str) -> ValueId {
        let info = ops::by_mnemonic(mnemonic).expect("catalogue op");
        let line = self.f.ops.len() as u32 + 2;
        self.f.push_op(
            info,
            operands.to_vec(),
            ty,
            Some(name.into()),
            Location::new("t.mlir", line, 3),
        )
    }

    /// A `pto.tcmp` with relation `mode` (its `pto.cmode` attribute) of `a` and `b`.
    fn cmp(&mut self, mode: CmpMode, a: ValueId, b: ValueId, ty: TileType, name: &str) -> ValueId {
        let v = self.op("tcmp", &[a, b], ty, name);
        if let Some(op) = self.f.ops.last_mut() {
            op.attrs
                .insert(CMODE_ATTR.into(), Attr::Str(mode.mlir_name().into()));
        }
        v
    }

    fn ret(mut self, results: &[ValueId]) -> Function {
        self.f.results = results.to_vec();
        self.f
    }
}

fn full() -> TileType {
    TileType::new(16, 64, DataType::FP32)
}
fn row() -> TileType {
    TileType::new(16, 1, DataType::FP32)
}
fn col() -> TileType {
    TileType::new(1, 64, DataType::FP32)
}

fn run_with(f: &mut Function, opt_level: u8) -> PassContext {
    let mut ctx = PassContext::new(Options {
        opt_level,
        ..Options::default()
    });
    Fuse.run(f, &mut ctx).expect("pto-fuse never fails");
    well_formed(f);
    ctx
}

fn run(f: &mut Function) -> PassContext {
    run_with(f, 2)
}

fn mnemonics(f: &Function) -> Vec<String> {
    f.ops
        .iter()
        .map(|op| op.info.mnemonic.to_ascii_lowercase())
        .collect()
}

/// Every operand is defined before use, and values point back at their definitions.
fn well_formed(f: &Function) {
    let mut defined = vec![false; f.values.len()];
    for (i, &a) in f.args.iter().enumerate() {
        assert_eq!(f.value(a).def, ValueDef::Arg(i));
        defined[a.0 as usize] = true;
    }
    for (i, op) in f.ops.iter().enumerate() {
        for v in &op.operands {
            assert!(
                defined[v.0 as usize],
                "operand of op {i} used before definition"
            );
        }
        assert_eq!(
            f.value(op.result).def,
            ValueDef::Op(ptoc_ir::OpId(i as u32))
        );
        defined[op.result.0 as usize] = true;
    }
    for r in &f.results {
        assert!(defined[r.0 as usize]);
    }
}

/// A textual dump for byte-for-byte comparisons.
fn dump(f: &Function) -> String {
    let mut s = String::new();
    for op in &f.ops {
        let v = f.value(op.result);
        s += &format!(
            "{:?} {:?} = {} {:?} : {} @ {} {:?}\n",
            op.result, v.name, op.info.mnemonic, op.operands, v.ty, op.loc, op.attrs
        );
    }
    s += &format!("return {:?}\n", f.results);
    s
}

fn stat(ctx: &PassContext, name: &str) -> Option<u64> {
    ctx.statistics
        .iter()
        .find(|(p, s, _)| *p == "pto-fuse" && *s == name)
        .map(|row| row.2)
}

#[test]
fn every_binary_op_takes_a_row_broadcast_on_the_right() {
    for (binary, fused) in [
        ("tadd", "trowexpandadd"),
        ("tsub", "trowexpandsub"),
        ("tmul", "trowexpandmul"),
        ("tdiv", "trowexpanddiv"),
        ("tmax", "trowexpandmax"),
        ("tmin", "trowexpandmin"),
    ] {
        let mut b = Builder::new();
        let a = b.arg("a", full());
        let v = b.arg("v", row());
        let e = b.op("trowexpand", &[v], full(), "e");
        let result_ty = full().with_pad(PadValue::Zero);
        let r = b.op(binary, &[a, e], result_ty, "r");
        let mut f = b.ret(&[r]);
        run(&mut f);
        assert_eq!(mnemonics(&f), [fused], "{binary}");
        let op = &f.ops[0];
        assert_eq!(op.operands, [f.args[0], f.args[1]]);
        // The fused op keeps the consumer's result type (its pad), name and location.
        assert_eq!(f.value(op.result).ty, result_ty);
        assert_eq!(f.value(op.result).name.as_deref(), Some("r"));
        assert_eq!(op.loc, Location::new("t.mlir", 3, 3));
        assert_eq!(f.results, [op.result]);
    }
}

#[test]
fn only_commutative_ops_take_a_broadcast_on_the_left() {
    for (binary, fused) in [
        ("tadd", Some("trowexpandadd")),
        ("tmul", Some("trowexpandmul")),
        ("tmax", Some("trowexpandmax")),
        ("tmin", Some("trowexpandmin")),
        ("tsub", None),
        ("tdiv", None),
    ] {
        let mut b = Builder::new();
        let a = b.arg("a", full());
        let v = b.arg("v", row());
        let e = b.op("trowexpand", &[v], full(), "e");
        let r = b.op(binary, &[e, a], full(), "r");
        let mut f = b.ret(&[r]);
        run(&mut f);
        match fused {
            Some(fused) => {
                assert_eq!(mnemonics(&f), [fused], "{binary}");
                // The full-shape source goes first, the broadcast second.
                assert_eq!(f.ops[0].operands, [f.args[0], f.args[1]]);
            }
            None => assert_eq!(mnemonics(&f), ["trowexpand", binary]),
        }
    }
}

#[test]
fn column_broadcasts_fuse_too() {
    let mut b = Builder::new();
    let a = b.arg("a", full());
    let w = b.arg("w", col());
    let e = b.op("tcolexpand", &[w], full(), "e");
    let r = b.op("tmul", &[e, a], full(), "r");
    let q = b.op("tdiv", &[r, e], full(), "q");
    let mut f = b.ret(&[q]);
    run(&mut f);
    assert_eq!(mnemonics(&f), ["tcolexpandmul", "tcolexpanddiv"]);
}

#[test]
fn integer_division_by_a_broadcast_fuses() {
    let ty = TileType::new(8, 32, DataType::S32);
    let mut b = Builder::new();
    let a = b.arg("a", ty);
    let v = b.arg("v", TileType::new(8, 1, DataType::S32));
    let e = b.op("trowexpand", &[v], ty, "e");
    let r = b.op("tdiv", &[a, e], ty, "r");
    let mut f = b.ret(&[r]);
    run(&mut f);
    assert_eq!(mnemonics(&f), ["trowexpanddiv"]);
}

#[test]
fn mismatched_types_and_geometry_are_not_fused() {
    // (full-shape source type, broadcast vector type, expand result type)
    let cases = [
        // Valid shape of the source differs from the expand result.
        (full().with_valid(16, 48), row(), full()),
        // Element types differ.
        (TileType::new(16, 64, DataType::FP16), row(), full()),
        // The vector has two columns: not a row broadcast operand.
        (full(), TileType::new(16, 2, DataType::FP32), full()),
        // The vector covers fewer rows than the result.
        (full(), row().with_valid(8, 1), full()),
    ];
    for (i, (a_ty, v_ty, e_ty)) in cases.into_iter().enumerate() {
        let mut b = Builder::new();
        let a = b.arg("a", a_ty);
        let v = b.arg("v", v_ty);
        let e = b.op("trowexpand", &[v], e_ty, "e");
        let r = b.op("tadd", &[a, e], a_ty, "r");
        let mut f = b.ret(&[r]);
        run(&mut f);
        assert_eq!(mnemonics(&f), ["trowexpand", "tadd"], "case {i}");
    }
}

/// Softmax along `axis` ("row" or "col"): max, subtract its broadcast, exp, sum, divide by its
/// broadcast; `vector` is the reduced type.
fn softmax(axis: &str, vector: TileType) -> Function {
    let mut b = Builder::new();
    let x = b.arg("x", full());
    let m = b.op(&format!("t{axis}max"), &[x], vector, "m");
    let em = b.op(&format!("t{axis}expand"), &[m], full(), "em");
    let d = b.op("tsub", &[x, em], full(), "d");
    let e = b.op("texp", &[d], full(), "e");
    let s = b.op(&format!("t{axis}sum"), &[e], vector, "s");
    let es = b.op(&format!("t{axis}expand"), &[s], full(), "es");
    let r = b.op("tdiv", &[e, es], full(), "r");
    b.ret(&[r])
}

#[test]
fn row_softmax_becomes_the_design_note_kernel() {
    let mut f = softmax("row", row());
    let ctx = run(&mut f);
    assert_eq!(
        mnemonics(&f),
        ["trowmax", "trowexpandexpdif", "trowsum", "trowexpanddiv"]
    );
    // The EXPDIF takes the exp's name and location.
    let expdif = &f.ops[1];
    assert_eq!(f.value(expdif.result).name.as_deref(), Some("e"));
    assert_eq!(expdif.loc, Location::new("t.mlir", 5, 3));
    assert_eq!(expdif.operands, [f.args[0], f.ops[0].result]);
    assert_eq!(stat(&ctx, "ops-before"), Some(7));
    assert_eq!(stat(&ctx, "ops-after"), Some(4));
}

#[test]
fn exp_of_a_broadcast_sub_needs_an_expdif_type() {
    // FP64 is not one of EXPDIF's same-type pairs: the sub fuses, the exp stays.
    let f64_full = TileType::new(16, 64, DataType::FP64);
    let mut b = Builder::new();
    let x = b.arg("x", f64_full);
    let v = b.arg("v", TileType::new(16, 1, DataType::FP64));
    let e = b.op("trowexpand", &[v], f64_full, "e");
    let d = b.op("tsub", &[x, e], f64_full, "d");
    let r = b.op("texp", &[d], f64_full, "r");
    let mut f = b.ret(&[r]);
    run(&mut f);
    assert_eq!(mnemonics(&f), ["trowexpandsub", "texp"]);
}

#[test]
fn exp_of_an_expand_sub_is_an_expdif() {
    let mut b = Builder::new();
    let x = b.arg("x", TileType::new(8, 32, DataType::BF16));
    let v = b.arg("v", TileType::new(8, 1, DataType::BF16));
    let d = b.op(
        "trowexpandsub",
        &[x, v],
        TileType::new(8, 32, DataType::BF16),
        "d",
    );
    let e = b.op("texp", &[d], TileType::new(8, 32, DataType::BF16), "e");
    let mut f = b.ret(&[e]);
    run(&mut f);
    assert_eq!(mnemonics(&f), ["trowexpandexpdif"]);
    assert_eq!(f.value(f.ops[0].result).name.as_deref(), Some("e"));
}

#[test]
fn column_normalise_uses_column_forms() {
    let mut f = softmax("col", col());
    run(&mut f);
    assert_eq!(
        mnemonics(&f),
        ["tcolmax", "tcolexpandexpdif", "tcolsum", "tcolexpanddiv"]
    );
}

/// `binary(trowexpand(v), trowexpand(u))` with `u` of type `u_ty`, returning the expands too
/// when `return_expands`.
fn two_broadcasts(
    binary: &str,
    u_ty: TileType,
    result_ty: TileType,
    return_expands: bool,
) -> Function {
    let mut b = Builder::new();
    let v = b.arg("v", row());
    let u = b.arg("u", u_ty);
    let ev = b.op("trowexpand", &[v], full(), "ev");
    let eu = b.op("trowexpand", &[u], full(), "eu");
    let r = b.op(binary, &[ev, eu], result_ty, "r");
    let results = if return_expands {
        vec![r, ev, eu]
    } else {
        vec![r]
    };
    b.ret(&results)
}

#[test]
fn two_broadcasts_combine_once_on_the_small_vectors() {
    let result_ty = full().with_pad(PadValue::Min);
    let mut f = two_broadcasts("tmax", row().with_pad(PadValue::Max), result_ty, false);
    run(&mut f);
    assert_eq!(mnemonics(&f), ["tmax", "trowexpand"]);
    let small = &f.ops[0];
    assert_eq!(small.operands, [f.args[0], f.args[1]]);
    // The new intermediate is the vector type with Null pad; the expand keeps the result type.
    assert_eq!(f.value(small.result).ty, row());
    assert_eq!(f.value(small.result).name, None);
    assert_eq!(small.loc, Location::new("t.mlir", 4, 3));
    assert_eq!(f.value(f.ops[1].result).ty, result_ty);
    assert_eq!(f.value(f.ops[1].result).name.as_deref(), Some("r"));
}

#[test]
fn broadcasts_of_different_vector_types_do_not_combine() {
    // `u` has more physical rows than `v`: a small TADD of the two would be illegal. One
    // broadcast still folds into the add.
    let u_ty = TileType::new(32, 1, DataType::FP32).with_valid(16, 1);
    let mut f = two_broadcasts("tadd", u_ty, full(), false);
    run(&mut f);
    assert_eq!(mnemonics(&f), ["trowexpand", "trowexpandadd"]);
}

#[test]
fn shared_broadcasts_are_not_recombined() {
    // Both expands are results, so they exist anyway; the single TADD is cheapest.
    let mut f = two_broadcasts("tadd", row(), full(), true);
    run(&mut f);
    assert_eq!(mnemonics(&f), ["trowexpand", "trowexpand", "tadd"]);
}

#[test]
fn integer_max_and_min_of_a_broadcast_are_the_vector() {
    let int_row = TileType::new(16, 1, DataType::S16);
    let int_full = TileType::new(16, 64, DataType::S16);
    let int_col = TileType::new(1, 64, DataType::U8);
    let int_full_u8 = TileType::new(16, 64, DataType::U8);
    let mut b = Builder::new();
    let v = b.arg("v", int_row);
    let w = b.arg("w", int_col);
    let ev = b.op("trowexpand", &[v], int_full, "ev");
    let m = b.op("trowmax", &[ev], int_row, "m");
    let ew = b.op("tcolexpand", &[w], int_full_u8, "ew");
    let n = b.op("tcolmin", &[ew], int_col, "n");
    let mut f = b.ret(&[m, n]);
    run(&mut f);
    assert!(f.ops.is_empty(), "{}", dump(&f));
    assert_eq!(f.results, [f.args[0], f.args[1]]);
}

#[test]
fn integer_max_of_a_broadcast_op_result_is_that_result() {
    let int_row = TileType::new(16, 1, DataType::S32);
    let mut b = Builder::new();
    let p = b.arg("p", int_row);
    let q = b.arg("q", int_row);
    let s = b.op("tadd", &[p, q], int_row, "s");
    let e = b.op("trowexpand", &[s], TileType::new(16, 8, DataType::S32), "e");
    let m = b.op("trowmin", &[e], int_row, "m");
    let r = b.op("tmul", &[m, q], int_row, "r");
    let mut f = b.ret(&[r]);
    run(&mut f);
    assert_eq!(mnemonics(&f), ["tadd", "tmul"]);
    assert_eq!(f.ops[1].operands, [f.ops[0].result, f.args[1]]);
}

#[test]
fn float_max_of_a_broadcast_is_kept() {
    // max(NaN, NaN) is the canonical NaN, not the operand's payload: not exact for floats.
    let mut b = Builder::new();
    let v = b.arg("v", row());
    let ev = b.op("trowexpand", &[v], full(), "ev");
    let m = b.op("trowmax", &[ev], row(), "m");
    let n = b.op("trowmin", &[ev], row(), "n");
    let mut f = b.ret(&[m, n]);
    run(&mut f);
    assert_eq!(mnemonics(&f), ["trowexpand", "trowmax", "trowmin"]);
}

#[test]
fn integer_max_of_a_broadcast_needs_the_same_result_type() {
    let int_row = TileType::new(16, 1, DataType::S32);
    let mut b = Builder::new();
    let v = b.arg("v", int_row);
    let ev = b.op(
        "trowexpand",
        &[v],
        TileType::new(16, 64, DataType::S32),
        "ev",
    );
    // The reduction writes a Zero pad the vector does not have.
    let m = b.op("trowmax", &[ev], int_row.with_pad(PadValue::Zero), "m");
    let mut f = b.ret(&[m]);
    run(&mut f);
    assert_eq!(mnemonics(&f), ["trowexpand", "trowmax"]);
}

/// A broadcast max/min clamp: `tmin(trowexpand(v), tmax(y, trowexpand(v)))`, also returning the
/// broadcast when `return_broadcast`.
fn clamp(return_broadcast: bool) -> Function {
    let mut b = Builder::new();
    let y = b.arg("y", full());
    let v = b.arg("v", row());
    let ev = b.op("trowexpand", &[v], full(), "ev");
    let z = b.op("tmax", &[y, ev], full(), "z");
    let z2 = b.op("tmin", &[ev, z], full(), "z2");
    let results = if return_broadcast {
        vec![z2, ev]
    } else {
        vec![z2]
    };
    b.ret(&results)
}

#[test]
fn a_broadcast_with_two_consumers_fuses_into_both() {
    let mut f = clamp(false);
    run(&mut f);
    assert_eq!(mnemonics(&f), ["trowexpandmax", "trowexpandmin"]);
    assert_eq!(f.ops[1].operands, [f.ops[0].result, f.args[1]]);
}

#[test]
fn a_broadcast_of_a_costly_vector_fuses_into_all_three_consumers() {
    // The vector's only user is the broadcast, so the amortised first guess keeps the broadcast;
    // moving all three users at once removes it.
    let mut b = Builder::new();
    let x = b.arg("x", full());
    let e = b.op("texp", &[x], full(), "e");
    let s = b.op("trowsum", &[e], row(), "s");
    let es = b.op("trowexpand", &[s], full(), "es");
    let r1 = b.op("tadd", &[x, es], full(), "r1");
    let r2 = b.op("tmul", &[r1, es], full(), "r2");
    let r3 = b.op("tmax", &[es, r2], full(), "r3");
    let mut f = b.ret(&[r3]);
    run(&mut f);
    assert_eq!(
        mnemonics(&f),
        [
            "texp",
            "trowsum",
            "trowexpandadd",
            "trowexpandmul",
            "trowexpandmax"
        ]
    );
}

/// Saturate `f` and extract starting from the input program itself.
fn fuse_from_input(f: &Function) -> Function {
    let built = build(f).expect("representable");
    let runner = saturate(built.egraph, Limits::for_size(f.ops.len()));
    let start = extract::Start::Input;
    let x = extract::extract_from(&runner.egraph, &built.roots, &built.origins, start)
        .expect("extractable");
    rebuild(f, &runner.egraph, &built.class_of, &x).expect("rebuilt")
}

#[test]
fn from_the_input_program_all_users_of_a_broadcast_move_together() {
    // Moving either user alone saves nothing (the broadcast stays for the other); only moving
    // both at once removes it.
    assert_eq!(
        mnemonics(&fuse_from_input(&clamp(false))),
        ["trowexpandmax", "trowexpandmin"]
    );
    assert_eq!(
        mnemonics(&fuse_from_input(&clamp(true))),
        ["trowexpand", "tmax", "tmin"]
    );
    // From either start, the same program.
    let mut f = synth::kernel(17 * 10);
    let from_input = dump(&fuse_from_input(&f));
    run(&mut f);
    assert!(dump(&f) == from_input);
}

#[test]
fn a_broadcast_needed_anyway_stays_shared() {
    // The expand is also a result, so fusing its consumers saves nothing: keep the program.
    let mut f = clamp(true);
    run(&mut f);
    assert_eq!(mnemonics(&f), ["trowexpand", "tmax", "tmin"]);

    // Same when one consumer cannot fuse (a broadcast on the left of a SUB).
    let mut b = Builder::new();
    let y = b.arg("y", full());
    let v = b.arg("v", row());
    let ev = b.op("trowexpand", &[v], full(), "ev");
    let s = b.op("tsub", &[ev, y], full(), "s");
    let a = b.op("tadd", &[y, ev], full(), "a");
    let mut f = b.ret(&[s, a]);
    run(&mut f);
    assert_eq!(mnemonics(&f), ["trowexpand", "tsub", "tadd"]);
}

#[test]
fn dead_ops_are_kept() {
    let mut b = Builder::new();
    let y = b.arg("y", full());
    let v = b.arg("v", row());
    let ev = b.op("trowexpand", &[v], full(), "ev");
    let _unused = b.op("tdiv", &[y, ev], full(), "unused");
    let mut f = b.ret(&[y]);
    run(&mut f);
    assert_eq!(mnemonics(&f), ["trowexpanddiv"]);
}

#[test]
fn limits_stop_saturation_with_a_valid_program() {
    // One iteration: the two broadcasts combine on the vectors, but folding the new expand into
    // the multiply needs a second iteration.
    let one_iteration = |_| Limits {
        iterations: 1,
        nodes: usize::MAX,
    };
    let mut b = Builder::new();
    let y = b.arg("y", full());
    let v = b.arg("v", row());
    let u = b.arg("u", row());
    let ev = b.op("trowexpand", &[v], full(), "ev");
    let eu = b.op("trowexpand", &[u], full(), "eu");
    let s = b.op("tadd", &[ev, eu], full(), "s");
    let r = b.op("tmul", &[y, s], full(), "r");
    let original = b.ret(&[r]);
    let (f, report) = fuse_function_with(&original, one_iteration).expect("fusable");
    well_formed(&f);
    assert!(report.hit_limit);
    assert_eq!(report.iterations, 1);
    assert_eq!(mnemonics(&f), ["tadd", "trowexpand", "tmul"]);
    let (f, report) = fuse_function(&original).expect("fusable");
    assert!(!report.hit_limit);
    assert_eq!(mnemonics(&f), ["tadd", "trowexpandmul"]);
    // A node limit reached in the first iteration still leaves a consistent e-graph.
    let tiny = |initial| Limits {
        iterations: 16,
        nodes: initial + 1,
    };
    let original = synth::kernel(17 * 20);
    let (f, report) = fuse_function_with(&original, tiny).expect("fusable");
    well_formed(&f);
    assert!(report.hit_limit);
    assert!(report.cost_after <= report.cost_before);
    assert_eq!(f.results.len(), original.results.len());
}

/// `-O0` only leaves the pass out of the default pipeline; named explicitly, it fuses as at -O2
/// (it used to return silently, so `-O0 --pass-pipeline=...,pto-fuse` did nothing).
#[test]
fn pto_fuse_fuses_whatever_the_opt_level() {
    let original = synth::kernel(200);
    let (mut at_o0, mut at_o2) = (original.clone(), original.clone());
    let ctx = run_with(&mut at_o0, 0);
    run(&mut at_o2);
    assert_ne!(dump(&at_o0), dump(&original), "nothing was fused");
    assert_eq!(dump(&at_o0), dump(&at_o2));
    assert!(!ctx.statistics.is_empty());
}

#[test]
fn output_is_deterministic() {
    let mut a = synth::kernel(3000);
    let mut b = synth::kernel(3000);
    run(&mut a);
    run(&mut b);
    assert!(dump(&a) == dump(&b), "two runs differ");
}

#[test]
fn fusing_twice_changes_nothing() {
    // A whole number of blocks, so the kernel has no dead ops.
    let mut f = synth::kernel(17 * 60);
    run(&mut f);
    let once = dump(&f);
    run(&mut f);
    assert!(dump(&f) == once, "not a fixed point");
}

#[test]
fn statistics_are_recorded() {
    let mut f = synth::kernel(170);
    let ctx = run(&mut f);
    assert_eq!(stat(&ctx, "ops-before"), Some(170));
    assert_eq!(stat(&ctx, "ops-after"), Some(f.ops.len() as u64));
    assert!(stat(&ctx, "egraph-nodes").unwrap() > 170);
    assert!(stat(&ctx, "egraph-classes").unwrap() > 0);
    assert!(stat(&ctx, "rules-applied").unwrap() > 0);
    assert_eq!(stat(&ctx, "stopped-at-limit"), Some(0));
    let iterations = stat(&ctx, "iterations").unwrap();
    assert!((2..=Limits::for_size(0).iterations as u64).contains(&iterations));
}

#[test]
fn synthetic_kernels_shrink_and_keep_their_interface() {
    let original = synth::kernel(17 * 40);
    let (fused, report) = fuse_function(&original).expect("fusable");
    well_formed(&fused);
    assert!(!report.hit_limit);
    assert!(report.cost_after < report.cost_before);
    // Per 17-op block: softmax 7 → 4, the clamp's broadcast folds into both users, the sum of
    // two broadcasts and the integer max-of-broadcast disappear into their users.
    assert!(
        fused.ops.len() < original.ops.len() * 3 / 4,
        "{}",
        fused.ops.len()
    );
    assert_eq!(fused.args.len(), original.args.len());
    for (a, b) in fused.args.iter().zip(&original.args) {
        assert_eq!(fused.value(*a).name, original.value(*b).name);
        assert_eq!(fused.value(*a).ty, original.value(*b).ty);
    }
    for (a, b) in fused.results.iter().zip(&original.results) {
        assert_eq!(fused.value(*a).ty, original.value(*b).ty);
    }
    for rule in [
        "row-expand-into-sub",
        "row-broadcast-sub-into-exp",
        "row-expand-into-div",
        "col-expand-into-mul-from-left",
        "row-expand-into-max",
        "row-expand-into-min-from-left",
        "row-expand-once-add",
        "row-max-of-expand",
    ] {
        assert!(report.applied.get(rule).copied().unwrap_or(0) > 0, "{rule}");
    }
}

#[test]
fn every_rule_is_built() {
    // 2 axes × (6 right + 4 left + 2 expdif + 6 binary and 8 unary expand-once + 2 reductions),
    // and one mirrored comparison per relation.
    assert_eq!(rules::rules().len(), 2 * (6 + 4 + 2 + 6 + 8 + 2) + 6);
}

/// The relation `op`'s `pto.cmode` attribute names, read from the attribute itself.
fn relation(op: &Op) -> Option<CmpMode> {
    match op.attrs.get(CMODE_ATTR) {
        Some(Attr::Str(name)) => CmpMode::from_mlir_name(name),
        _ => None,
    }
}

/// The relation of each TCMP of `f`, in program order.
fn relations(f: &Function) -> Vec<Option<CmpMode>> {
    f.ops
        .iter()
        .filter(|op| op.info.mnemonic == "TCMP")
        .map(relation)
        .collect()
}

#[test]
fn functions_with_compare_and_select_fuse() {
    // r = tsel(tcmp.lt(x - broadcast(v), y), x - broadcast(v), y): the broadcast still folds into
    // the subtraction, and TCMP and TSEL keep their operands, relation and result types.
    let pred = TileType::predicate(16, 64).with_pad(PadValue::Max);
    let mut b = Builder::new();
    let x = b.arg("x", full());
    let v = b.arg("v", row());
    let y = b.arg("y", full());
    let e = b.op("trowexpand", &[v], full(), "e");
    let d = b.op("tsub", &[x, e], full(), "d");
    let p = b.cmp(CmpMode::Lt, d, y, pred, "p");
    let r = b.op("tsel", &[p, d, y], full().with_pad(PadValue::Zero), "r");
    let mut f = b.ret(&[r, p]);
    let ctx = run(&mut f);
    assert_eq!(mnemonics(&f), ["trowexpandsub", "tcmp", "tsel"]);
    let [sub, cmp, sel] = [&f.ops[0], &f.ops[1], &f.ops[2]];
    assert_eq!(sub.operands, [f.args[0], f.args[1]]);
    assert_eq!(cmp.operands, [sub.result, f.args[2]]);
    assert_eq!(relation(cmp), Some(CmpMode::Lt));
    assert_eq!(f.value(cmp.result).ty, pred);
    assert_eq!(sel.operands, [cmp.result, sub.result, f.args[2]]);
    assert_eq!(sel.attrs.get(CMODE_ATTR), None);
    assert_eq!(f.results, [sel.result, cmp.result]);
    assert_eq!(stat(&ctx, "ops-before"), Some(4));
    assert_eq!(stat(&ctx, "ops-after"), Some(3));
}

#[test]
fn compares_with_different_relations_are_never_merged() {
    // Same operands, same result type: only the relation tells them apart.
    let pred = TileType::predicate(16, 64);
    let mut b = Builder::new();
    let x = b.arg("x", full());
    let y = b.arg("y", full());
    let mut results = Vec::new();
    for mode in CmpMode::ALL {
        let p = b.cmp(mode, x, y, pred, mode.mlir_name());
        results.push(b.op("tsel", &[p, x, y], full(), "r"));
    }
    let mut f = b.ret(&results);
    run(&mut f);
    assert_eq!(mnemonics(&f).len(), 12, "{}", dump(&f));
    let kept = relations(&f);
    assert_eq!(kept, CmpMode::ALL.map(Some), "{}", dump(&f));
    for (op, mode) in f
        .ops
        .iter()
        .filter(|o| o.info.mnemonic == "TCMP")
        .zip(CmpMode::ALL)
    {
        assert_eq!(op.operands, [f.args[0], f.args[1]], "{mode:?}");
    }
}

#[test]
fn a_comparison_written_both_ways_round_is_computed_once() {
    // tcmp.gt(y, x) is tcmp.lt(x, y) and tcmp.ge(y, x) is tcmp.le(x, y); tcmp.le(y, x) is not.
    let pred = TileType::predicate(16, 64);
    let mut b = Builder::new();
    let x = b.arg("x", full());
    let y = b.arg("y", full());
    let lt = b.cmp(CmpMode::Lt, x, y, pred, "lt");
    let gt = b.cmp(CmpMode::Gt, y, x, pred, "gt");
    let le = b.cmp(CmpMode::Le, x, y, pred, "le");
    let ge = b.cmp(CmpMode::Ge, y, x, pred, "ge");
    let le_swapped = b.cmp(CmpMode::Le, y, x, pred, "le_swapped");
    let mut f = b.ret(&[lt, gt, le, ge, le_swapped]);
    let (fused, report) = fuse_function(&f).expect("fusable");
    assert_eq!(relations(&fused).len(), 3, "{}", dump(&fused));
    assert_eq!(fused.results[0], fused.results[1]);
    assert_eq!(fused.results[2], fused.results[3]);
    assert_ne!(fused.results[2], fused.results[4]);
    assert!(
        report
            .applied
            .get("compare-lt-swapped")
            .copied()
            .unwrap_or(0)
            > 0
    );
    // Whichever spelling survives, each result still means what it meant.
    for (&r, (mode, a, b)) in fused.results.iter().zip([
        (CmpMode::Lt, 0, 1),
        (CmpMode::Gt, 1, 0),
        (CmpMode::Le, 0, 1),
        (CmpMode::Ge, 1, 0),
        (CmpMode::Le, 1, 0),
    ]) {
        let ptoc_ir::ValueDef::Op(id) = fused.value(r).def else {
            panic!("a comparison result is an op");
        };
        let op = &fused.ops[id.0 as usize];
        let (m, sources) = (relation(op).expect("relation"), op.operands.clone());
        let same = (m, sources.clone()) == (mode, vec![fused.args[a], fused.args[b]]);
        let mirrored = (m, sources) == (rules_mirror(mode), vec![fused.args[b], fused.args[a]]);
        assert!(same || mirrored, "{mode:?}: {}", dump(&fused));
    }
    run(&mut f);
    assert_eq!(dump(&f), dump(&fused));
}

/// The mirrored relation, written out independently of the rule's own table.
fn rules_mirror(mode: CmpMode) -> CmpMode {
    [
        CmpMode::Eq,
        CmpMode::Ne,
        CmpMode::Gt,
        CmpMode::Lt,
        CmpMode::Ge,
        CmpMode::Le,
    ][mode as usize]
}

#[test]
fn compare_op_spellings_round_trip() {
    use egg::FromOp;
    let tcmp = OpCode::of(ops::by_mnemonic("TCMP").unwrap()).expect("catalogue op");
    let children = [Id::from(0usize), Id::from(1usize), Id::from(2usize)];
    let written = [
        "tcmp.eq", "tcmp.ne", "tcmp.lt", "tcmp.gt", "tcmp.le", "tcmp.ge",
    ];
    for (mode, text) in CmpMode::ALL.into_iter().zip(written) {
        let control = OpControl::relation(mode);
        assert_eq!(spelling(tcmp, control), text);
        let node = TileNode::from_op(text, children.to_vec()).expect(text);
        assert_eq!(
            node,
            TileNode::op_with(tcmp, control, &children[..2], children[2]).unwrap()
        );
        assert_eq!(node.to_string(), text);
    }
    // TCMP needs a relation; no other op takes one, and no other op spells a control.
    let parses = |text: &str| TileNode::from_op(text, children.to_vec()).is_ok();
    assert!(!parses("tcmp"));
    assert!(!parses("tadd.lt"));
    assert!(!parses("tcmp.xx"));
    assert!(!parses("tcmp.LT"));
    assert!(parses("tadd"));
    // A TCMP whose pto.cmode names no relation has no control: the function is left to pto-verify.
    let mut b = Builder::new();
    let x = b.arg("x", full());
    let p = b.op("tcmp", &[x, x], TileType::predicate(16, 64), "p");
    let f = b.ret(&[p]);
    assert_eq!(OpControl::of(&f.ops[0]), None);
    assert!(fuse_function(&f).is_none());
}

/// Random integer kernels over 4x8 tiles, their 4x1 row and 1x8 column vectors.
mod random {
    use super::*;
    use proptest::prelude::*;
    use ptoc_isa::{Axis, ElementOp, OpKind, Reduction};

    const R: u32 = 4;
    const C: u32 = 8;

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Shape {
        Full,
        Row,
        Col,
        /// A TCMP's predicate over two full tiles.
        Pred,
        /// A full tile's transpose (C×R).
        Trans,
    }

    fn ty(shape: Shape, pad: bool) -> TileType {
        let t = match shape {
            Shape::Full => TileType::new(R, C, DataType::S32),
            Shape::Row => TileType::new(R, 1, DataType::S32),
            Shape::Col => TileType::new(1, C, DataType::S32),
            Shape::Pred => TileType::predicate(R, C),
            // A TTRANS result has no pad (docs/isa.md §19).
            Shape::Trans => return TileType::new(C, R, DataType::S32),
        };
        if pad {
            t.with_pad(PadValue::Zero)
        } else {
            t
        }
    }

    const ELEMENT: [ElementOp; 5] = [
        ElementOp::Add,
        ElementOp::Sub,
        ElementOp::Mul,
        ElementOp::Max,
        ElementOp::Min,
    ];

    /// One step: (what, element op, two operand picks, padded result).
    type Step = (u8, usize, usize, usize, bool);

    /// Build a function from steps; every op is legal for its operands' shapes.
    fn kernel(steps: &[Step], results: &[usize]) -> Function {
        let mut b = Builder::new();
        let mut vals: Vec<(ValueId, Shape)> = vec![
            (b.arg("x", ty(Shape::Full, false)), Shape::Full),
            (b.arg("y", ty(Shape::Full, false)), Shape::Full),
            (b.arg("v", ty(Shape::Row, false)), Shape::Row),
            (b.arg("w", ty(Shape::Col, false)), Shape::Col),
        ];
        for (i, &(what, pick, p, q, pad)) in steps.iter().enumerate() {
            let of = |shape: Shape, pick: usize| {
                let all: Vec<ValueId> = vals
                    .iter()
                    .filter(|(_, s)| *s == shape)
                    .map(|(v, _)| *v)
                    .collect();
                all[pick % all.len()]
            };
            let op = ELEMENT[pick % ELEMENT.len()];
            let axis = if what % 2 == 0 { Axis::Row } else { Axis::Col };
            let vector = if axis == Axis::Row {
                Shape::Row
            } else {
                Shape::Col
            };
            let has_pred = vals.iter().any(|(_, s)| *s == Shape::Pred);
            let has_trans = vals.iter().any(|(_, s)| *s == Shape::Trans);
            let (kind, operands, shape) = match what % 16 {
                // A transpose, of a full tile or back; and a binary op on two transposes.
                13 => (OpKind::Transpose, vec![of(Shape::Full, p)], Shape::Trans),
                14 if has_trans => (OpKind::Transpose, vec![of(Shape::Trans, p)], Shape::Full),
                15 if has_trans => (
                    OpKind::Binary(op),
                    vec![of(Shape::Trans, p), of(Shape::Trans, q)],
                    Shape::Trans,
                ),
                10 | 11 => (
                    OpKind::Compare,
                    vec![of(Shape::Full, p), of(Shape::Full, q)],
                    Shape::Pred,
                ),
                12 if has_pred => (
                    OpKind::Select,
                    vec![
                        of(Shape::Pred, pick),
                        of(Shape::Full, p),
                        of(Shape::Full, q),
                    ],
                    Shape::Full,
                ),
                0 | 1 => (
                    OpKind::Binary(op),
                    vec![of(Shape::Full, p), of(Shape::Full, q)],
                    Shape::Full,
                ),
                2 | 3 => (
                    OpKind::Binary(op),
                    vec![of(vector, p), of(vector, q)],
                    vector,
                ),
                4 | 5 => (OpKind::Expand(axis, None), vec![of(vector, p)], Shape::Full),
                6 | 7 => (
                    OpKind::Expand(axis, Some(op)),
                    vec![of(Shape::Full, p), of(vector, q)],
                    Shape::Full,
                ),
                _ => {
                    let red = [Reduction::Max, Reduction::Min, Reduction::Sum][pick % 3];
                    (OpKind::Reduce(axis, red), vec![of(Shape::Full, p)], vector)
                }
            };
            let info = ops::by_kind(kind).expect("catalogue op");
            let name = format!("v{i}");
            let v = match kind {
                OpKind::Compare => {
                    let mode = CmpMode::ALL[(pick + q) % CmpMode::ALL.len()];
                    b.cmp(mode, operands[0], operands[1], ty(shape, pad), &name)
                }
                _ => b.op(info.mnemonic, &operands, ty(shape, pad), &name),
            };
            vals.push((v, shape));
        }
        let last = vals.len() - 1;
        let mut rs: Vec<ValueId> = results.iter().map(|&r| vals[r % vals.len()].0).collect();
        rs.push(vals[last].0);
        b.ret(&rs)
    }

    /// The random values for the kernel's four arguments (two grids, a column, a row).
    fn split_inputs(seed: &[i32]) -> Vec<Vec<i32>> {
        let n = (R * C) as usize;
        vec![
            seed[..n].to_vec(),
            seed[n..2 * n].to_vec(),
            seed[2 * n..2 * n + R as usize].to_vec(),
            seed[2 * n + R as usize..].to_vec(),
        ]
    }

    /// Evaluate an S32 function on inputs (row-major, physical = valid shape).
    fn eval(f: &Function, inputs: &[Vec<i32>]) -> Vec<Vec<i32>> {
        let mut vals: Vec<Vec<i32>> = vec![Vec::new(); f.values.len()];
        for (a, input) in f.args.iter().zip(inputs) {
            vals[a.0 as usize] = input.clone();
        }
        let dims = |v: ValueId| {
            let (r, c, _, _) = f.ty(v).dims().expect("static");
            (r as usize, c as usize)
        };
        let apply = |op: ElementOp, a: i32, b: i32| match op {
            ElementOp::Add => a.wrapping_add(b),
            ElementOp::Sub => a.wrapping_sub(b),
            ElementOp::Mul => a.wrapping_mul(b),
            ElementOp::Max => a.max(b),
            ElementOp::Min => a.min(b),
            ElementOp::Div | ElementOp::ExpDif => unreachable!("not generated"),
        };
        for op in &f.ops {
            let (rows, cols) = dims(op.result);
            let src = |k: usize| &vals[op.operands[k].0 as usize];
            let at = |k: usize, axis: Axis, r: usize, c: usize| match axis {
                Axis::Row => src(k)[r],
                Axis::Col => src(k)[c],
            };
            let mut out = vec![0i32; rows * cols];
            match op.info.kind {
                OpKind::Binary(e) => {
                    for (i, o) in out.iter_mut().enumerate() {
                        *o = apply(e, src(0)[i], src(1)[i]);
                    }
                }
                OpKind::Expand(axis, None) => {
                    for r in 0..rows {
                        for c in 0..cols {
                            out[r * cols + c] = at(0, axis, r, c);
                        }
                    }
                }
                OpKind::Expand(axis, Some(e)) => {
                    for r in 0..rows {
                        for c in 0..cols {
                            out[r * cols + c] = apply(e, src(0)[r * cols + c], at(1, axis, r, c));
                        }
                    }
                }
                OpKind::Reduce(axis, red) => {
                    let (sr, sc) = dims(op.operands[0]);
                    let fold = |acc: i32, x: i32| match red {
                        Reduction::Max => acc.max(x),
                        Reduction::Min => acc.min(x),
                        _ => acc.wrapping_add(x),
                    };
                    let s = src(0);
                    match axis {
                        Axis::Row => {
                            for r in 0..sr {
                                out[r] = (1..sc).fold(s[r * sc], |a, c| fold(a, s[r * sc + c]));
                            }
                        }
                        Axis::Col => {
                            for c in 0..sc {
                                out[c] = (1..sr).fold(s[c], |a, r| fold(a, s[r * sc + c]));
                            }
                        }
                    }
                }
                OpKind::Compare => {
                    // Signed order at 32 bits (docs/isa.md §1.9), one 0/1 per element.
                    let mode = relation(op).expect("generated with a relation");
                    for (i, o) in out.iter_mut().enumerate() {
                        let (a, b) = (src(0)[i], src(1)[i]);
                        let holds = match mode {
                            CmpMode::Eq => a == b,
                            CmpMode::Ne => a != b,
                            CmpMode::Lt => a < b,
                            CmpMode::Gt => a > b,
                            CmpMode::Le => a <= b,
                            CmpMode::Ge => a >= b,
                        };
                        *o = holds as i32;
                    }
                }
                OpKind::Select => {
                    for (i, o) in out.iter_mut().enumerate() {
                        *o = if src(0)[i] == 1 { src(1)[i] } else { src(2)[i] };
                    }
                }
                // out[r][c] = src[c][r]; physical = valid shape here.
                OpKind::Transpose => {
                    let (sr, sc) = dims(op.operands[0]);
                    for r in 0..sc {
                        for c in 0..sr {
                            out[r * sr + c] = src(0)[c * sc + r];
                        }
                    }
                }
                OpKind::Unary(_)
                | OpKind::Convert
                | OpKind::Move
                | OpKind::TileScalar(_)
                | OpKind::FillScalar
                | OpKind::Matmul { .. } => unreachable!("not generated"),
            }
            vals[op.result.0 as usize] = out;
        }
        f.results
            .iter()
            .map(|r| vals[r.0 as usize].clone())
            .collect()
    }

    fn step() -> impl Strategy<Value = Step> {
        (
            0u8..16,
            0usize..8,
            0usize..64,
            0usize..64,
            prop::bool::weighted(0.2),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn fusion_preserves_meaning_cost_and_interface(
            steps in prop::collection::vec(step(), 1..24),
            results in prop::collection::vec(0usize..64, 0..3),
            seed in prop::collection::vec(any::<i32>(), (2 * R * C + R + C) as usize),
        ) {
            let original = kernel(&steps, &results);
            let (fused, report) = fuse_function(&original).expect("fusable");
            well_formed(&fused);
            prop_assert!(report.cost_after <= report.cost_before);
            prop_assert!(!report.hit_limit);
            prop_assert_eq!(fused.results.len(), original.results.len());
            for (a, b) in fused.results.iter().zip(&original.results) {
                prop_assert_eq!(fused.ty(*a), original.ty(*b));
            }
            let inputs = split_inputs(&seed);
            prop_assert_eq!(eval(&fused, &inputs), eval(&original, &inputs));
            // Deterministic: the same input gives the same output.
            let (again, _) = fuse_function(&original).expect("fusable");
            prop_assert!(dump(&again) == dump(&fused));
        }

        /// Cut into windows of a few ops, wherever the cuts fall, a kernel keeps its meaning,
        /// its interface and never costs more.
        #[test]
        fn windows_preserve_meaning_and_cost(
            steps in prop::collection::vec(step(), 1..40),
            results in prop::collection::vec(0usize..64, 0..3),
            size in 1usize..8,
            radius in 0usize..4,
            seed in prop::collection::vec(any::<i32>(), (2 * R * C + R + C) as usize),
        ) {
            let original = kernel(&steps, &results);
            let window = super::window::Window { size, radius };
            let (fused, report) =
                window::fuse_windowed(&original, Limits::for_size, window).expect("fusable");
            well_formed(&fused);
            prop_assert!(report.cost_after <= report.cost_before);
            prop_assert_eq!(report.ops_after, fused.ops.len());
            prop_assert_eq!(fused.args.len(), original.args.len());
            prop_assert_eq!(fused.results.len(), original.results.len());
            for (a, b) in fused.results.iter().zip(&original.results) {
                prop_assert_eq!(fused.ty(*a), original.ty(*b));
            }
            let inputs = split_inputs(&seed);
            prop_assert_eq!(eval(&fused, &inputs), eval(&original, &inputs));
        }
    }
}

/// Two conversions of one source that differ only in their rounding mode are two values: the
/// e-graph keeps an op's numeric control in its node, and fusion keeps both with their controls.
/// Two identical ones are one value (their results are equal bit for bit, flags a sticky OR).
#[test]
fn conversions_with_different_controls_stay_apart() {
    use ptoc_isa::{NumericControl, RoundingMode};
    let mut b = Builder::new();
    let x = b.arg("x", full());
    let int = TileType::new(16, 64, DataType::S32);
    let a = b.op("TCVT", &[x], int, "a");
    let c = b.op("TCVT", &[x], int, "c");
    let d = b.op("TCVT", &[x], int, "d");
    let r = b.op("TADD", &[a, c], int, "r");
    let s = b.op("TADD", &[r, d], int, "s");
    let mut f = b.ret(&[s]);
    let rna = NumericControl {
        rmode: Some(RoundingMode::Rna),
        sat: true,
    };
    f.ops[0].control = rna;
    f.ops[2].control = rna;
    run_with(&mut f, 2);
    let controls: Vec<NumericControl> = f
        .ops
        .iter()
        .filter(|op| op.info.mnemonic == "TCVT")
        .map(|op| op.control)
        .collect();
    assert_eq!(controls, [rna, NumericControl::default()], "{:#?}", f.ops);
}

/// TCMP's relation is part of its e-node: two comparisons of the same operands by different
/// relations are two values, two by the same relation one (equal bits, flags a sticky OR), and
/// each keeps its `pto.cmode` (docs/isa.md §1.9).
#[test]
fn comparisons_with_different_relations_stay_apart() {
    let mut b = Builder::new();
    let x = b.arg("x", full());
    let y = b.arg("y", full());
    let pred = TileType::predicate(16, 64);
    let lt = b.op("TCMP", &[x, y], pred, "lt");
    let ge = b.op("TCMP", &[x, y], pred, "ge");
    let lt2 = b.op("TCMP", &[x, y], pred, "lt2");
    let mut f = b.ret(&[lt, ge, lt2]);
    for (op, mode) in f.ops.iter_mut().zip(["lt", "ge", "lt"]) {
        op.attrs.insert(CMODE_ATTR.into(), Attr::Str(mode.into()));
    }
    run(&mut f);
    let modes: Vec<Option<&Attr>> = f.ops.iter().map(|op| op.attrs.get(CMODE_ATTR)).collect();
    let (lt, ge) = (Attr::Str("lt".into()), Attr::Str("ge".into()));
    assert_eq!(modes, [Some(&lt), Some(&ge)], "{}", dump(&f));
    let [a, c, d] = f.results[..] else {
        panic!("{}", dump(&f))
    };
    assert_eq!((a == d, a == c), (true, false), "{}", dump(&f));
}

/// A function with TCMP and TSEL is fused like any other: the broadcast feeding both folds into
/// its expand op, and the comparison and the selection keep their operands' values and the
/// comparison its relation.
#[test]
fn a_broadcast_feeding_a_comparison_and_a_selection_is_fused() {
    let mut b = Builder::new();
    let x = b.arg("x", full());
    let v = b.arg("v", row());
    let e = b.op("TROWEXPAND", &[v], full(), "e");
    let s = b.op("TADD", &[x, e], full(), "s");
    let p = b.op("TCMP", &[s, x], TileType::predicate(16, 64), "p");
    let r = b.op("TSEL", &[p, s, x], full(), "r");
    let mut f = b.ret(&[r]);
    let gt = Attr::Str("gt".into());
    f.ops[2].attrs.insert(CMODE_ATTR.into(), gt.clone());
    run(&mut f);
    assert_eq!(
        mnemonics(&f),
        ["trowexpandadd", "tcmp", "tsel"],
        "{}",
        dump(&f)
    );
    let [add, cmp, sel] = &f.ops[..] else {
        unreachable!()
    };
    assert_eq!(add.operands, [f.args[0], f.args[1]]);
    assert_eq!(cmp.operands, [add.result, f.args[0]]);
    assert_eq!(cmp.attrs.get(CMODE_ATTR), Some(&gt));
    assert_eq!(sel.operands, [cmp.result, add.result, f.args[0]]);
    assert_eq!(f.results, [sel.result]);
}

/// Windows of `size` ops searched `radius` ops each way.
fn windows(size: usize, radius: usize) -> window::Window {
    window::Window { size, radius }
}

/// Windowed fusion's program has the single e-graph's size and costs.
fn assert_same_size(report: &Report, expected: &Report) {
    let size = |r: &Report| (r.ops_after, r.cost_before, r.cost_after);
    assert_eq!(size(report), size(expected));
}

/// Window by window, the synthetic kernel fuses to exactly the program one e-graph gives
/// (same ops, names, locations and order; same op count and DAG costs) whenever the search
/// reaches a clean cut, including windows shorter than one 17-op block and a kernel that ends
/// mid-block. In a block, the ends after op 0, 13, 15 and 16 are clean; the first expand is read
/// by op 12 (a broadcast sum), so the ends between are not.
#[test]
fn windows_fuse_the_synthetic_kernel_as_one_egraph_does() {
    let original = synth::kernel(17 * 40 + 5);
    let (whole, expected) = fuse_function_with(&original, Limits::for_size).expect("fusable");
    for (size, radius) in [(10, 8), (40, 8), (100, 20), (17 * 9, 0), (17 * 9 + 14, 4)] {
        let window = windows(size, radius);
        let cuts = window::cuts(&original, window).expect("representable");
        assert!(cuts.len() > 2, "{size}: {cuts:?}");
        let (fused, report) =
            window::fuse_windowed(&original, Limits::for_size, window).expect("fusable");
        well_formed(&fused);
        assert!(dump(&fused) == dump(&whole), "window {size}±{radius}");
        assert_eq!(report.ops_before, expected.ops_before);
        assert_eq!(report.ops_after, expected.ops_after);
        assert_eq!(report.cost_before, expected.cost_before);
        assert_eq!(report.cost_after, expected.cost_after);
        assert!(!report.hit_limit);
        assert_eq!(
            report.applied.keys().collect::<Vec<_>>(),
            expected.applied.keys().collect::<Vec<_>>()
        );
    }
    // The pass's own windows, on the benchmark's 10 000-op kernel (five windows; it ends in the
    // middle of a block).
    let original = synth::kernel(10_000);
    let (whole, expected) = fuse_function_with(&original, Limits::for_size).expect("fusable");
    let (fused, report) = fuse_function(&original).expect("fusable");
    assert_eq!(
        window::cuts(&original, window::Window::DEFAULT).map(|c| c.len()),
        Some(5)
    );
    assert!(dump(&fused) == dump(&whole));
    assert_same_size(&report, &expected);
}

/// One e-graph merges equal ops of different windows; so does the concatenation. Here a dead
/// broadcast at the very end is needed anyway, so its class, shared by every block, stays and
/// every block reads it; windows before the last one fuse their own copy instead. The program
/// differs, its size and cost do not.
#[test]
fn a_shared_broadcast_needed_anyway_costs_the_same_in_windows() {
    let original = synth::kernel(17 * 40 + 10);
    let (whole, expected) = fuse_function_with(&original, Limits::for_size).expect("fusable");
    assert_eq!(
        mnemonics(&whole)
            .iter()
            .filter(|m| *m == "trowexpand")
            .count(),
        1
    );
    let (fused, report) =
        window::fuse_windowed(&original, Limits::for_size, windows(100, 20)).expect("fusable");
    well_formed(&fused);
    assert_eq!(
        mnemonics(&fused)
            .iter()
            .filter(|m| *m == "trowexpand")
            .count(),
        1
    );
    assert_same_size(&report, &expected);
}

/// A function no bigger than a window (plus its search radius) is one window: the same run as
/// the single e-graph, statistics included.
#[test]
fn a_small_function_is_one_window() {
    let window = window::Window::DEFAULT;
    let original = synth::kernel(window.size + window.radius);
    assert_eq!(
        window::cuts(&original, window),
        Some(vec![original.ops.len()])
    );
    let (a, ra) = fuse_function(&original).expect("fusable");
    let (b, rb) = fuse_function_with(&original, Limits::for_size).expect("fusable");
    assert!(dump(&a) == dump(&b));
    assert_eq!(ra, rb);
}

/// A chain whose middle holds a broadcast consumed by the next op: a cut between them would
/// leave the broadcast a result of one window and an argument of the next, where nothing can
/// fold it.
fn split_broadcast() -> Function {
    let mut b = Builder::new();
    let x = b.arg("x", full());
    let y = b.arg("y", full());
    let v = b.arg("v", row());
    let a = b.op("tadd", &[x, y], full(), "a");
    let m = b.op("tmul", &[a, x], full(), "m");
    let c = b.op("tmax", &[m, y], full(), "c");
    let e = b.op("trowexpand", &[v], full(), "e");
    let d = b.op("tadd", &[c, e], full(), "d");
    let g = b.op("tmul", &[d, x], full(), "g");
    let h = b.op("tadd", &[g, y], full(), "h");
    let k = b.op("tmul", &[h, x], full(), "k");
    b.ret(&[k])
}

#[test]
fn a_cut_never_splits_a_pattern() {
    let original = split_broadcast();
    let (whole, _) = fuse_function_with(&original, Limits::for_size).expect("fusable");
    assert_eq!(
        mnemonics(&whole),
        [
            "tadd",
            "tmul",
            "tmax",
            "trowexpandadd",
            "tmul",
            "tadd",
            "tmul"
        ]
    );
    // The target end is 4, right after the broadcast: the nearest clean end is taken instead
    // (3, before it; 5, after its consumer, is as near).
    let window = windows(4, 2);
    assert_eq!(window::cuts(&original, window), Some(vec![3, 8]));
    let (fused, report) = window::fuse_windowed(&original, Limits::for_size, window).unwrap();
    assert!(dump(&fused) == dump(&whole));
    assert_eq!(report.ops_after, 7);
    // With no room to search, the cut falls between them and the broadcast stays unfused: what
    // the search avoids. The program is still the same function.
    let window = windows(4, 0);
    assert_eq!(window::cuts(&original, window), Some(vec![4, 8]));
    let (fused, report) = window::fuse_windowed(&original, Limits::for_size, window).unwrap();
    well_formed(&fused);
    assert_eq!(
        mnemonics(&fused),
        [
            "tadd",
            "tmul",
            "tmax",
            "trowexpand",
            "tadd",
            "tmul",
            "tadd",
            "tmul"
        ]
    );
    assert_eq!(report.cost_after, report.cost_before);
}

/// What a value's class may come to hold decides the cut, not just its op: the sum of two
/// broadcasts becomes a broadcast of a sum (`row-expand-once-add`), which a later op can read
/// through, while an add of a plain value and a broadcast only becomes an expand-add, which no
/// rule reads through.
#[test]
fn cuts_avoid_values_that_may_become_broadcasts() {
    let mut b = Builder::new();
    let x = b.arg("x", full());
    let v = b.arg("v", row());
    let u = b.arg("u", row());
    let ev = b.op("trowexpand", &[v], full(), "ev");
    let eu = b.op("trowexpand", &[u], full(), "eu");
    let s = b.op("tadd", &[ev, eu], full(), "s"); // may become trowexpand(tadd(v, u))
    let t = b.op("tadd", &[x, ev], full(), "t"); // may become trowexpandadd(x, v)
    let p = b.op("tmul", &[x, s], full(), "p");
    let q = b.op("tmul", &[t, p], full(), "q");
    let r = b.op("tmul", &[q, x], full(), "r");
    let original = b.ret(&[r]);
    // Ends 3 (s crossing) and 5 (ev consumed; s is consumed at 4, t crosses) are near the
    // target 3; only 5 and later are clean: t may only hold tadd and trowexpandadd.
    assert_eq!(window::cuts(&original, windows(3, 2)), Some(vec![5, 7]));
    let (whole, _) = fuse_function_with(&original, Limits::for_size).expect("fusable");
    let (fused, _) = window::fuse_windowed(&original, Limits::for_size, windows(3, 2)).unwrap();
    assert!(dump(&fused) == dump(&whole));
}

/// At the benchmark's largest size too, windows give one e-graph's op count and DAG costs (slow
/// unoptimised: `cargo test --release -p ptoc-passes -- --ignored`).
#[test]
#[ignore]
fn windows_match_one_egraph_at_100k_ops() {
    let original = synth::kernel(100_000);
    let (whole, expected) = fuse_function_with(&original, Limits::for_size).expect("fusable");
    let (fused, report) = fuse_function(&original).expect("fusable");
    assert!(window::cuts(&original, window::Window::DEFAULT).is_some_and(|c| c.len() > 40));
    assert_same_size(&report, &expected);
    assert!(dump(&fused) == dump(&whole));
}

/// A window that stops at a limit makes the whole run's report say so, and the program stays
/// valid and no dearer; the statistics add up over the windows.
#[test]
fn window_statistics_add_up() {
    let original = synth::kernel(17 * 20);
    let tiny = |initial| Limits {
        iterations: 16,
        nodes: initial + 1,
    };
    let (f, report) = window::fuse_windowed(&original, tiny, windows(40, 8)).expect("fusable");
    well_formed(&f);
    assert!(report.hit_limit);
    assert!(report.cost_after <= report.cost_before);
    assert_eq!(f.results.len(), original.results.len());

    let (_, whole) = fuse_function_with(&original, Limits::for_size).expect("fusable");
    let (_, parts) =
        window::fuse_windowed(&original, Limits::for_size, windows(40, 8)).expect("fusable");
    assert!(!parts.hit_limit);
    assert_eq!(parts.applied.values().sum::<usize>(), parts.rules_applied);
    assert!(parts.iterations > whole.iterations, "one run per window");
    assert_eq!(parts.ops_before, original.ops.len());
}
