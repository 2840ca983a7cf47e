//! Bundle emission from hand-built allocated functions: the worked example, every op kind,
//! B.DATR/B.DIM rules and the allocation-contract diagnostics.

mod common;

use common::{tile, worked_example, Builder};
use ptoc_codegen::{lower_function, print_asm};
use ptoc_ir::{Attr, Dim};
use ptoc_isa::encoding::{Fpatr, IotSources};
use ptoc_isa::ops::{self, CATALOGUE, CMODE_ATTR};
use ptoc_isa::{Axis, DataType, Instruction, Layout, MatmulForm, OpKind, PadValue, ResultKind};
use DataType::*;

fn bundle_text(f: &ptoc_ir::Function) -> String {
    let k = lower_function(f).unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(k.bundles.len(), f.ops.len());
    let asm = print_asm(&[k]);
    // The instructions of the kernel, without the header directives and comments.
    asm.lines()
        .filter(|l| !l.starts_with('.') && !l.starts_with(';') && !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn worked_example_words_and_text() {
    let k = lower_function(&worked_example()).unwrap();
    assert_eq!(
        k.words(),
        vec![
            0x0C91_9181,
            0x0100_0043,
            0x0080_1043,
            0x0409_CE13,
            0x0000_0001
        ]
    );
    assert_eq!(
        print_asm(&[k]),
        "\
.kernel k
.pe_mask 1111
.spec pto-isa-0.58.3-mode-function-v1
.profile absolute
.arg x, T#1, FP32, 8x16, valid=8x16, size=3, pad=Null
.arg m, T#2, FP32, 32x1, valid=8x1, size=1, pad=Null
.result r0, T#3, FP32, 8x16, valid=8x16, size=3, pad=Null

; %0 = pto.trowexpandmax  (kernel.mlir:3:8)
BSTART.SFU TROWEXPANDMAX, FP32
B.DIM LB0=16
B.DIM LB1=8
B.IOT T#1, T#2, mask=1111, last, ->T<3>
BSTOP
"
    );
}

#[test]
fn unnamed_values_are_known_by_position() {
    let mut f = worked_example();
    let (x, r) = (f.args[0], f.ops[0].result);
    f.value_mut(x).name = None;
    f.value_mut(r).name = None;
    let text = print_asm(&[lower_function(&f).unwrap()]);
    assert!(text.contains(".arg arg0, T#1, FP32"), "{text}");
    assert!(
        text.contains("\n; %0 = pto.trowexpandmax  (kernel.mlir:3:8)\n"),
        "{text}"
    );
}

#[test]
fn design_note_example_with_min_pad() {
    let mut b = Builder::new("k");
    let x = b.arg("x", tile(8, 16, FP32));
    let m = b.arg("m", tile(8, 1, FP32));
    let r = b.op(
        "TROWEXPANDMAX",
        &[x, m],
        tile(8, 16, FP32).with_pad(PadValue::Min),
        3,
    );
    let f = b.ret(&[r]);
    assert_eq!(
        bundle_text(&f),
        "BSTART.SFU TROWEXPANDMAX, FP32\nB.DATR PadValue=Min\nB.DIM LB0=16\nB.DIM LB1=8\n\
         B.IOT T#1, T#2, mask=1111, last, ->T<3>\nBSTOP"
    );
    // Decision 4: DataType field 0 with the pad.
    assert_eq!(lower_function(&f).unwrap().words()[1], 0x1000_1023);
}

#[test]
fn copy_expands_take_geometry_from_the_destination() {
    let mut b = Builder::new("k");
    let v = b.arg("v", tile(2, 1, U8));
    let r = b.op("TROWEXPAND", &[v], tile(2, 4, U8).with_valid(2, 3), 2);
    let c = b.arg("c", tile(1, 4, U8).with_valid(1, 3));
    let s = b.op("TCOLEXPAND", &[c], tile(2, 4, U8).with_valid(2, 3), 3);
    let f = b.ret(&[r, s]);
    assert_eq!(
        bundle_text(&f),
        "BSTART.SFU TROWEXPAND, U8\nB.DIM LB0=3\nB.DIM LB1=2\nB.DIM LB2=4\n\
         B.IOT T#1, mask=1111, last, ->T<1>\nBSTOP\n\
         BSTART.SFU TCOLEXPAND, U8\nB.DIM LB0=3\nB.DIM LB1=2\nB.DIM LB2=4\n\
         B.IOT T#3, mask=1111, last, ->T<1>\nBSTOP"
    );
}

#[test]
fn reductions_describe_the_source() {
    let mut b = Builder::new("k");
    let x = b.arg("x", tile(16, 64, FP32).with_valid(16, 60));
    let s = b.op("TROWSUM", &[x], tile(16, 1, FP32), 2);
    let m = b.op("TCOLMAX", &[x], tile(1, 64, FP32).with_valid(1, 60), 3);
    let a = b.op("TROWARGMAX", &[x], tile(16, 1, U32), 4);
    let f = b.ret(&[s, m, a]);
    assert_eq!(
        bundle_text(&f),
        "BSTART.SFU TROWSUM, FP32\nB.DIM LB0=60\nB.DIM LB1=16\nB.DIM LB2=64\n\
         B.IOT T#1, mask=1111, last, ->T<1>\nBSTOP\n\
         BSTART.SFU TCOLMAX, FP32\nB.DIM LB0=60\nB.DIM LB1=16\nB.DIM LB2=64\n\
         B.IOT T#1, mask=1111, last, ->T<2>\nBSTOP\n\
         BSTART.SFU TROWARGMAX, FP32\nB.DIM LB0=60\nB.DIM LB1=16\nB.DIM LB2=64\n\
         B.IOT T#1, mask=1111, last, ->T<1>\nBSTOP"
    );
}

#[test]
fn binary_and_unary_ops_use_their_engine_alias() {
    let mut b = Builder::new("k");
    let x = b.arg("x", tile(4, 32, FP16));
    let y = b.arg("y", tile(4, 32, FP16));
    let s = b.op("TADD", &[x, y], tile(4, 32, FP16), 2);
    let q = b.op("TDIV", &[s, y], tile(4, 32, FP16), 3);
    let e = b.op("TEXP", &[q], tile(4, 32, FP16), 4);
    let f = b.ret(&[e]);
    assert_eq!(
        bundle_text(&f),
        "BSTART.VEC TADD, FP16\nB.DIM LB0=32\nB.DIM LB1=4\n\
         B.IOT T#1, T#2, mask=1111, last, ->T<2>\nBSTOP\n\
         BSTART.SFU TDIV, FP16\nB.DIM LB0=32\nB.DIM LB1=4\n\
         B.IOT T#3, T#2, mask=1111, last, ->T<2>\nBSTOP\n\
         BSTART.SFU TEXP, FP16\nB.DIM LB0=32\nB.DIM LB1=4\n\
         B.IOT T#4, mask=1111, last, ->T<2>\nBSTOP"
    );
}

#[test]
fn expdif_mixed_and_same_type() {
    let mut b = Builder::new("k");
    let x = b.arg("x", tile(32, 2, FP16));
    let m = b.arg("m", tile(32, 1, FP16));
    let wide = b.op("TROWEXPANDEXPDIF", &[x, m], tile(32, 2, FP32), 2);
    let same = b.op("TROWEXPANDEXPDIF", &[x, m], tile(32, 2, FP16), 3);
    let y = b.arg("y", tile(1, 16, BF16));
    let c = b.arg("c", tile(1, 16, BF16));
    let padded = b.op(
        "TCOLEXPANDEXPDIF",
        &[y, c],
        tile(1, 16, BF16).with_pad(PadValue::Max),
        4,
    );
    let f = b.ret(&[wide, same, padded]);
    let k = lower_function(&f).unwrap();
    let text = bundle_text(&f);
    assert!(
        text.starts_with(
            "BSTART.SFU TROWEXPANDEXPDIF, FP16\nB.DATR DataType=FP32, PadValue=Null\n\
             B.DIM LB0=2\nB.DIM LB1=32\nB.IOT T#1, T#2, mask=1111, last, ->T<2>\nBSTOP\n\
             BSTART.SFU TROWEXPANDEXPDIF, FP16\nB.DIM LB0=2\nB.DIM LB1=32\n"
        ),
        "{text}"
    );
    // BF16 same-type with a pad: B.DATR DTYPE_NONE + Max, and no LB1 for one valid row.
    assert!(
        text.ends_with(
            "BSTART.SFU TCOLEXPANDEXPDIF, BF16\nB.DATR DataType=DTYPE_NONE, PadValue=Max\n\
             B.DIM LB0=16\nB.IOT T#5, T#6, mask=1111, last, ->T<1>\nBSTOP"
        ),
        "{text}"
    );
    assert_eq!(k.bundles[2].words[1], 0x09F0_1023);
    assert_eq!(k.bundles[0].words[0], 0x24B1_9181);
}

/// A well-formed allocated function exercising `op`, with a 4×8 (valid 4×6) full shape.
fn function_for(op: &'static ops::OpInfo) -> ptoc_ir::Function {
    let src_t = op.legal_types[0];
    let full = tile(4, 8, src_t).with_valid(4, 6);
    let vector = |axis| match axis {
        Axis::Row => tile(4, 1, src_t),
        Axis::Col => tile(1, 8, src_t).with_valid(1, 6),
    };
    let mut b = Builder::new(&op.mnemonic.to_ascii_lowercase());
    let (operands, result) = match (op.kind, op.result) {
        (OpKind::Expand(axis, None), _) => (vec![b.arg("v", vector(axis))], full),
        (OpKind::Expand(axis, Some(_)), _) => {
            let x = b.arg("x", full);
            (vec![x, b.arg("v", vector(axis))], full)
        }
        (OpKind::Reduce(axis, _), kind) => {
            let t = if kind == ResultKind::Index {
                U32
            } else {
                src_t
            };
            let mut r = vector(axis);
            r.dtype = t;
            (vec![b.arg("x", full)], r)
        }
        (OpKind::Binary(_), _) => {
            let x = b.arg("x", full);
            (vec![x, b.arg("y", full)], full)
        }
        (OpKind::Unary(_), _) => (vec![b.arg("x", full)], full),
        (OpKind::Compare, _) => {
            let x = b.arg("x", full);
            (vec![x, b.arg("y", full)], predicate_of(&full))
        }
        (OpKind::Select, _) => {
            let p = b.arg("p", predicate_of(&full));
            let x = b.arg("x", full);
            (vec![p, x, b.arg("y", full)], full)
        }
        (OpKind::Convert, _) | (OpKind::Move, _) | (OpKind::TileScalar(_), _) => {
            (vec![b.arg("x", full)], full)
        }
        (OpKind::FillScalar, _) => (vec![], full),
        // Valid 4x6 transposes to valid 6x4, in 4 columns (the fewest holding 4).
        (OpKind::Transpose, _) => (vec![b.arg("x", full)], tile(6, 4, src_t)),
        (OpKind::Matmul { form, gemv }, _) => {
            // M×K = 4×6 (1×6 for a GEMV) by K×N = 6×5, in the layouts §18.4 asks for.
            let (m, n, k) = (if gemv { 1 } else { 4 }, 5, 6);
            let cube = |r, c, t, layout| ptoc_ir::TileType::cube(r, c, t, layout).unwrap();
            let acc = src_t.matrix_accumulator();
            let d = cube(m, n, acc, Layout::CubeM16);
            let a = b.arg("a", cube(m, k, src_t, Layout::CubeM16));
            let bt = b.arg("b", cube(k, n, src_t, Layout::CubeN8));
            let operands = match form {
                MatmulForm::Plain => vec![a, bt],
                MatmulForm::Acc => vec![b.arg("c", d), a, bt],
                MatmulForm::Bias => vec![a, bt, b.arg("bias", tile(1, 8, acc).with_valid(1, n))],
            };
            (operands, d)
        }
    };
    let r = b.op(op.mnemonic, &operands, result, 2);
    if op.kind == OpKind::Compare {
        let attr = Attr::Str("lt".into());
        b.f.ops[0].attrs.insert(CMODE_ATTR.into(), attr);
    }
    b.ret(&[r])
}

/// The predicate of a full-shape tile: same physical and valid shape, i1.
fn predicate_of(full: &ptoc_ir::TileType) -> ptoc_ir::TileType {
    let (rows, cols, vr, vc) = full.dims().unwrap();
    ptoc_ir::TileType::predicate(rows, cols).with_valid(vr, vc)
}

#[test]
fn every_catalogue_op_lowers_to_one_well_formed_bundle() {
    for op in CATALOGUE {
        let f = function_for(op);
        // A straight-line function has no scalar for B.IOR (docs/isa.md §14).
        if op.takes_scalar() {
            let (message, line) = first_error(&f);
            assert_eq!(line, 2, "{}", op.mnemonic);
            assert_eq!(
                message,
                format!(
                    "{} needs a scalar; use it inside a GM kernel",
                    op.mlir_name()
                )
            );
            continue;
        }
        let k = lower_function(&f).unwrap_or_else(|d| panic!("{}: {d:?}", op.mnemonic));
        let insts: Vec<Instruction> = k
            .words()
            .iter()
            .map(|&w| Instruction::decode(w).unwrap())
            .collect();
        assert_eq!(insts[0], op.bstart(op.legal_types[0]), "{}", op.mnemonic);
        assert_eq!(insts.last(), Some(&Instruction::BStop));
        let iots: Vec<_> = insts
            .iter()
            .filter_map(|i| match i {
                Instruction::BIot(t) => Some(*t),
                _ => None,
            })
            .collect();
        // One B.IOT per binding of the row (TSEL: predicate and true source, then the false
        // source with the destination); only the last one is `last` and has a destination.
        assert_eq!(iots.len(), op.bindings.len(), "{}", op.mnemonic);
        for (i, (iot, &count)) in iots.iter().zip(op.bindings).enumerate() {
            let n = match iot.sources {
                IotSources::Two(..) => 2,
                IotSources::One(_) => 1,
                IotSources::None => 0,
            };
            assert_eq!(n, count, "{}", op.mnemonic);
            let last = i + 1 == iots.len();
            assert_eq!(
                (iot.last, iot.dst.is_some()),
                (last, last),
                "{}",
                op.mnemonic
            );
        }
        // A matrix op: B.FPATR with no post-processing right after the start, and LB0..LB2 =
        // M, N, K, each omitted when 1 (a GEMV's M).
        let dims = dims_of(&insts);
        if let OpKind::Matmul { gemv, .. } = op.kind {
            assert_eq!(
                insts[1],
                Instruction::BFpatr(Fpatr::default()),
                "{}",
                op.mnemonic
            );
            let want = if gemv {
                vec![(1, 5), (2, 6)]
            } else {
                vec![(0, 4), (1, 5), (2, 6)]
            };
            assert_eq!(dims, want, "{}", op.mnemonic);
            continue;
        }
        // LB0 = 6 valid columns, LB1 = valid rows unless 1, LB2 = 8 physical columns; a TLSU op
        // (TMOV) takes its geometry from its source and has none.
        if op.selector().is_none() {
            assert!(dims.is_empty(), "{}", op.mnemonic);
            continue;
        }
        // TTRANS: all three describe the 6x4 destination (valid 6x4, 4 columns).
        if op.kind == OpKind::Transpose {
            assert_eq!(dims, [(0, 4), (1, 6), (2, 4)]);
            assert!(!insts.iter().any(|i| matches!(i, Instruction::BDatr(_))));
            continue;
        }
        assert_eq!(dims[0], (0, 6), "{}", op.mnemonic);
        assert_eq!(dims.last(), Some(&(2, 8)), "{}", op.mnemonic);
    }
}

/// The (LBn, value) pairs of a bundle's B.DIMs.
fn dims_of(insts: &[Instruction]) -> Vec<(u8, u32)> {
    insts
        .iter()
        .filter_map(|i| match i {
            Instruction::BDim(d) => Some((d.lb, d.imm)),
            _ => None,
        })
        .collect()
}

fn first_error(f: &ptoc_ir::Function) -> (String, u32) {
    let diags = lower_function(f).expect_err("must be rejected");
    (diags[0].message.clone(), diags[0].loc.line)
}

/// A change that breaks the allocation contract.
type Mutation = Box<dyn Fn(&mut ptoc_ir::Function)>;

#[test]
fn contract_violations_are_diagnosed_at_the_op() {
    let cases: Vec<(&str, Mutation, &str, u32)> = vec![
        (
            "missing dst",
            Box::new(|f| {
                f.ops[0].attrs.remove("pto.dst");
            }),
            "missing pto.dst",
            3,
        ),
        (
            "bad dst",
            Box::new(|f| {
                f.ops[0]
                    .attrs
                    .insert("pto.dst".into(), Attr::Str("T3".into()));
            }),
            "not a register",
            3,
        ),
        (
            "dst kind",
            Box::new(|f| {
                f.ops[0].attrs.insert("pto.dst".into(), Attr::Int(3));
            }),
            "must be a string",
            3,
        ),
        (
            "bad tsize",
            Box::new(|f| {
                f.ops[0].attrs.insert("pto.tsize".into(), Attr::Int(11));
            }),
            "not a SizeCode",
            3,
        ),
        (
            "rows mismatch",
            Box::new(|f| {
                f.ops[0].attrs.insert("pto.rows".into(), Attr::Int(16));
            }),
            "gives 8 rows, not 16",
            3,
        ),
        (
            "wrong rename",
            Box::new(|f| {
                f.ops[0]
                    .attrs
                    .insert("pto.dst".into(), Attr::Str("T#5".into()));
            }),
            "puts this destination in T#3",
            3,
        ),
        (
            "dynamic",
            Box::new(|f| {
                let r = f.ops[0].result;
                f.value_mut(r).ty.valid_cols = Dim::Unknown;
            }),
            "not static",
            3,
        ),
        (
            "no mask",
            Box::new(|f| {
                f.attrs.clear();
            }),
            "no pto.pe_mask",
            1,
        ),
        (
            "bad mask",
            Box::new(|f| {
                f.attrs
                    .insert("pto.pe_mask".into(), Attr::Str("0011".into()));
            }),
            "not an encodable PE mask",
            1,
        ),
        (
            "arg",
            Box::new(|f| {
                f.arg_attrs[1].remove("pto.tsize");
            }),
            "argument #1: missing pto.tsize",
            1,
        ),
        (
            "result type",
            Box::new(|f| {
                let r = f.ops[0].result;
                f.value_mut(r).ty.dtype = DataType::S32;
            }),
            "result type S32 cannot be produced",
            3,
        ),
    ];
    for (what, mutate, message, line) in cases {
        let mut f = worked_example();
        mutate(&mut f);
        let (got, got_line) = first_error(&f);
        assert!(got.contains(message), "{what}: {got}");
        assert_eq!(got_line, line, "{what}");
    }
}

mod random_ops {
    use super::common::{tile, Builder};
    use proptest::prelude::*;
    use ptoc_codegen::{assemble, lower_function, print_asm};
    use ptoc_ir::Attr;
    use ptoc_isa::dtype::EXPDIF_PAIRS;
    use ptoc_isa::ops::{CATALOGUE, CMODE_ATTR};
    use ptoc_isa::{Axis, DataType, Instruction, NumericControl, OpKind, PadValue, ResultKind};

    /// The ops of the TEPL template (every row but the TLSU ones, tested on their own).
    fn tepl_ops() -> Vec<&'static ptoc_isa::ops::OpInfo> {
        CATALOGUE
            .iter()
            .filter(|o| o.selector().is_some() && !o.takes_scalar())
            .collect()
    }

    /// One TEPL op of the catalogue on random shapes, types and pads, as an allocated function.
    fn case() -> impl Strategy<Value = ptoc_ir::Function> {
        (
            0..tepl_ops().len(),
            any::<prop::sample::Index>(),
            any::<prop::sample::Index>(),
            0u32..7,
            any::<(u8, u8)>(),
            0u32..4,
        )
            .prop_map(|(i, t, d, log_cols, (vr, vc), pad)| {
                let op = tepl_ops()[i];
                let src = *t.get(op.legal_types);
                let cols = 1 << log_cols;
                let (vr, vc) = (1 + vr as u32 % 8, 1 + vc as u32 % cols);
                let full = |dtype| tile(vr, cols, dtype).with_valid(vr, vc);
                let vector = |axis| match axis {
                    Axis::Row => tile(vr, 1, src),
                    Axis::Col => tile(1, cols, src).with_valid(1, vc),
                };
                let pad = PadValue::from_code(pad);
                let mut b = Builder::new("k");
                let (operands, mut result) = match op.kind {
                    OpKind::Expand(axis, None) => (vec![b.arg("v", vector(axis))], full(src)),
                    OpKind::Expand(axis, Some(_)) => {
                        let x = b.arg("x", full(src));
                        let dst = match op.result {
                            ResultKind::ExpDif => {
                                let pairs: Vec<_> =
                                    EXPDIF_PAIRS.iter().filter(|p| p.0 == src).collect();
                                d.get(&pairs).1
                            }
                            _ => src,
                        };
                        (vec![x, b.arg("v", vector(axis))], full(dst))
                    }
                    OpKind::Reduce(axis, _) => {
                        let mut r = vector(axis);
                        if op.result == ResultKind::Index {
                            r.dtype = DataType::U32;
                        }
                        (vec![b.arg("x", full(src))], r)
                    }
                    OpKind::Binary(_) => {
                        let x = b.arg("x", full(src));
                        (vec![x, b.arg("y", full(src))], full(src))
                    }
                    OpKind::Unary(_) => (vec![b.arg("x", full(src))], full(src)),
                    OpKind::Compare => {
                        let x = b.arg("x", full(src));
                        let p = ptoc_ir::TileType::predicate(vr, cols).with_valid(vr, vc);
                        (vec![x, b.arg("y", full(src))], p)
                    }
                    OpKind::Select => {
                        let p = ptoc_ir::TileType::predicate(vr, cols).with_valid(vr, vc);
                        let p = b.arg("p", p);
                        let x = b.arg("x", full(src));
                        (vec![p, x, b.arg("y", full(src))], full(src))
                    }
                    OpKind::Convert => {
                        let dst = *d.get(ptoc_isa::dtype::ARITHMETIC);
                        (vec![b.arg("x", full(src))], full(dst))
                    }
                    // The destination: the valid shape swapped, in the fewest columns.
                    OpKind::Transpose => {
                        let t = vr.next_power_of_two();
                        (
                            vec![b.arg("x", full(src))],
                            tile(vc, t, src).with_valid(vc, vr),
                        )
                    }
                    OpKind::Move | OpKind::Matmul { .. } => {
                        unreachable!("only TEPL ops are generated")
                    }
                    OpKind::TileScalar(_) | OpKind::FillScalar => {
                        unreachable!("a straight-line function has no scalar")
                    }
                };
                // TTRANS always leaves its padding Null.
                if op.kind != OpKind::Transpose {
                    result.pad = pad;
                }
                let r = b.op(op.mnemonic, &operands, result, 2);
                if op.kind == OpKind::Compare {
                    let mode = ptoc_isa::CmpMode::ALL[d.index(6)];
                    let attr = Attr::Str(mode.mlir_name().into());
                    b.f.ops[0].attrs.insert(CMODE_ATTR.into(), attr);
                }
                if op.kind == OpKind::Convert {
                    b.f.ops[0].control = NumericControl::from_fields(vr as u8 % 8, vc % 2 == 1);
                }
                b.ret(&[r])
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        #[test]
        fn lowered_bundles_follow_the_template_and_reassemble(f in case()) {
            let k = lower_function(&f).map_err(|d| TestCaseError::fail(format!("{d:?}")))?;
            let op = f.ops[0].info;
            let src = f.ty(f.ops[0].operands[op.typed_source()]);
            let dst = f.ty(f.ops[0].result);
            // TTRANS's B.DIM describes its destination, always all three LBs (docs/isa.md §19).
            let transpose = op.kind == OpKind::Transpose;
            let full = if op.result == ResultKind::Broadcast || transpose { dst } else { src };
            let (_, cols, vr, vc) = full.dims().unwrap();
            let insts: Vec<Instruction> =
                k.words().iter().map(|&w| Instruction::decode(w).unwrap()).collect();
            let mut expect = vec![(0, vc)];
            if vr != 1 || transpose {
                expect.push((1, vr));
            }
            if cols != vc || transpose {
                expect.push((2, cols));
            }
            prop_assert_eq!(super::dims_of(&insts), expect);
            let datr = insts.iter().find_map(|i| match i {
                Instruction::BDatr(d) => Some(*d),
                _ => None,
            });
            let retyped = matches!(op.result, ResultKind::ExpDif | ResultKind::Converted)
                && dst.dtype != src.dtype;
            // TCMP's relation is B.DATR CMode; EQ (code 0) is what an omitted B.DATR means.
            let cmode = match f.ops[0].attrs.get(CMODE_ATTR) {
                Some(Attr::Str(m)) => ptoc_isa::CmpMode::from_mlir_name(m).unwrap().code(),
                _ => 0,
            };
            let control = f.ops[0].control;
            prop_assert_eq!(
                datr.is_some(),
                dst.pad != PadValue::Null || retyped || cmode != 0 || !control.is_default()
            );
            if let Some(d) = datr {
                prop_assert_eq!((d.pad, d.cmode), (dst.pad, cmode));
                prop_assert_eq!((d.rmode, d.sat), (control.rmode_code(), control.sat));
                if op.result == ResultKind::Converted {
                    prop_assert_eq!(d.dtype, Some(dst.dtype));
                }
            }
            let Instruction::BStart(start) = insts[0] else { panic!("{insts:?}") };
            prop_assert_eq!(start.dtype, src.dtype);
            let back = assemble(&print_asm(std::slice::from_ref(&k)), "k.s").unwrap();
            prop_assert_eq!(back[0].words(), k.words());
            prop_assert_eq!(&back[0].meta, &k.meta);
        }
    }
}

/// TTRANS of a 2x3 U16 tile (physical 2x4): the destination is valid 3x2 in 2 columns, and
/// B.DIM describes it whole: LB0 = 2 valid columns, LB1 = 3 valid rows, LB2 = 2 columns, with
/// no B.DATR (docs/isa.md §19). Words by hand from docs/isa.md §2.2, §2.4, §2.5: BSTART is
/// `(26 << 27) | (3 << 25) | (14 << 20) | 0x19181` = 0xD6E19181; B.DIM `imm << 20 | lb << 12 |
/// 0x43`; B.IOT with one source T#1 (code 0), L, SizeCode 1 (3x2 U16 needs 12 bytes), PEMode
/// 111 and hand T is `1 << 19 | 1 << 15 | 0b101 << 12 | 0b111 << 9 | 0x13` = 0x0008DE13.
#[test]
fn ttrans_bundle_describes_the_destination() {
    let mut b = Builder::new("k");
    let x = b.arg("x", tile(2, 4, U16).with_valid(2, 3));
    let r = b.op("TTRANS", &[x], tile(3, 2, U16), 2);
    let f = b.ret(&[r]);
    assert_eq!(
        bundle_text(&f),
        "BSTART.SFU TTRANS, U16\nB.DIM LB0=2\nB.DIM LB1=3\nB.DIM LB2=2\n\
         B.IOT T#1, mask=1111, last, ->T<1>\nBSTOP"
    );
    let k = lower_function(&f).unwrap();
    assert_eq!(
        k.words(),
        [
            0xD6E1_9181,
            0x0020_0043,
            0x0030_1043,
            0x0020_2043,
            0x0008_DE13,
            0x0000_0001
        ]
    );
    // A pad on the result cannot be produced: TTRANS leaves its padding Null.
    let mut b = Builder::new("k");
    let x = b.arg("x", tile(2, 4, U16).with_valid(2, 3));
    let r = b.op("TTRANS", &[x], tile(3, 2, U16).with_pad(PadValue::Zero), 2);
    let (message, line) = first_error(&b.ret(&[r]));
    assert!(message.contains("pad=zero cannot be produced"), "{message}");
    assert_eq!(line, 2);
}

/// TMOV: BSTART.TMOV with the source's type, no B.DATR or B.DIM (its geometry is the source's),
/// one binding with the source and a destination of the source's SizeCode (docs/isa.md §13.2).
#[test]
fn tmov_lowers_to_the_tlsu_template() {
    let op = ops::by_mnemonic("TMOV").unwrap();
    let f = function_for(op);
    let k = lower_function(&f).unwrap_or_else(|d| panic!("{d:?}"));
    let words = k.words();
    // BSTART.TMOV FP64 (the first legal type): DataType 0, function 2.
    assert_eq!(words[0], 0x0021_1181);
    let Ok(Instruction::BIot(iot)) = Instruction::decode(words[1]) else {
        panic!("{words:x?}")
    };
    assert!(matches!(iot.sources, IotSources::One(_)) && iot.last);
    let (_, size) = iot.dst.unwrap();
    assert_eq!(
        size, k.meta.args[0].size_code,
        "the copy takes the source's SizeCode"
    );
    assert_eq!(words[2..], [0x0000_0001]);
}
