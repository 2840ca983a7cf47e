//! Translation validation in miniature: for random ops, types, shapes, pads and values, the
//! interpreter (real words, registers, SizeCodes) and the reference evaluator (tile IR as written)
//! must produce the same tile bit for bit, the same definedness and the same status flags.

mod common;

use common::*;
use proptest::prelude::*;
use ptoc_ir::{Function, Location, TileType};
use ptoc_isa::encoding::Datr;
use ptoc_isa::ops::{OperandRole, CATALOGUE, CMODE_ATTR};

/// The ops whose bundles follow the TEPL template built here; TMOV (a TLSU op) has its own tests
/// in `gm.rs`.
fn tepl_ops() -> Vec<&'static OpInfo> {
    CATALOGUE
        .iter()
        .filter(|o| o.selector().is_some())
        .collect()
}
use ptoc_isa::{
    Axis, DataType, ElementOp, Instruction, NumericControl, OpInfo, OpKind, PadValue, ResultKind,
    SizeCode, Storage,
};
use ptoc_runtime::{evaluate_with_flags, evaluate_with_scalar, Machine, Tile};

/// Interesting bit patterns mixed into random ones.
const EDGES: &[u64] = &[
    0,
    1,
    0x7F,
    0x80,
    0xFF,
    0x3C00,
    0x7C00,
    0x7E00,
    0x8000,
    0x3F80_0000,
    0x7F80_0001,
    0xFF80_0000,
    0x7FC0_0000,
    u64::MAX,
];

fn value(dtype: DataType, raw: u64, edge: Option<usize>) -> u64 {
    let v = edge.map_or(raw, |i| EDGES[i % EDGES.len()]) & dtype.carrier_mask();
    v & !((1u64 << dtype.required_zero_low_bits()) - 1)
}

#[derive(Debug)]
struct Case {
    op: &'static OpInfo,
    src: DataType,
    dst: DataType,
    vr: u32,
    vc: u32,
    cols: u32,
    pad: PadValue,
    /// B.DATR RMode and Sat (TCVT only).
    control: NumericControl,
}

fn make_tile(
    dtype: DataType,
    cols: u32,
    valid: (u32, u32),
    seed: &[(u64, Option<usize>)],
    nonzero: bool,
) -> Tile {
    make_tile_rows(dtype, cols, valid, valid.0, seed, nonzero)
}

/// A tile of at least `rows` physical rows.
fn make_tile_rows(
    dtype: DataType,
    cols: u32,
    valid: (u32, u32),
    rows: u32,
    seed: &[(u64, Option<usize>)],
    nonzero: bool,
) -> Tile {
    let size = SizeCode::smallest_for(rows.max(valid.0), cols, dtype.bits()).unwrap();
    let n = (valid.0 * valid.1) as usize;
    let values: Vec<u64> = (0..n)
        .map(|i| {
            let (raw, edge) = seed[i % seed.len()];
            let v = value(dtype, raw.rotate_left(i as u32 * 7), edge);
            if nonzero && v == 0 {
                1
            } else {
                v
            }
        })
        .collect();
    Tile::allocated(dtype, size, cols, valid.0, valid.1)
        .unwrap()
        .with_valid_values(&values)
        .unwrap()
}

fn run_case(c: &Case, seed: &[(u64, Option<usize>)]) -> Result<(), TestCaseError> {
    let int_div = c.src.is_integer()
        && matches!(
            c.op.kind,
            OpKind::Binary(ElementOp::Div)
                | OpKind::Expand(_, Some(ElementOp::Div))
                | OpKind::TileScalar(ElementOp::Div)
        );
    // A TCVT source needs as many rows as the smallest destination of its width has.
    let rows = match c.op.result {
        ResultKind::Converted => SizeCode::smallest_for(1, c.cols, c.dst.bits())
            .and_then(|s| s.derived_rows(c.cols, c.dst.bits()))
            .unwrap_or(1),
        _ => 1,
    };
    let full = make_tile_rows(c.src, c.cols, (c.vr, c.vc), rows, seed, false);
    let right = make_tile(c.src, c.cols, (c.vr, c.vc), &seed[1..], int_div);
    let axis = match c.op.kind {
        OpKind::Expand(a, _) | OpKind::Reduce(a, _) => a,
        _ => Axis::Row,
    };
    let bcast = match axis {
        Axis::Row => make_tile(c.src, 1, (c.vr, 1), &seed[2..], int_div),
        Axis::Col => make_tile(c.src, c.cols, (1, c.vc), &seed[2..], int_div),
    };
    let regs: Vec<u32> =
        c.op.sources
            .iter()
            .map(|r| match r {
                OperandRole::Src
                | OperandRole::SrcLeft
                | OperandRole::Numerator
                | OperandRole::SrcTrue => 0,
                OperandRole::Bcast => 1,
                OperandRole::SrcRight | OperandRole::Denominator | OperandRole::SrcFalse => 2,
                OperandRole::Pred => 3,
                OperandRole::Left
                | OperandRole::Right
                | OperandRole::Accumulator
                | OperandRole::Bias => unreachable!("only TEPL ops are generated"),
            })
            .collect();
    // A predicate of the full tile's physical and valid shape, bits from the seed.
    let bits: Vec<u64> = (0..c.vr * c.vc)
        .map(|i| (seed[i as usize % seed.len()].0 >> (i % 61)) & 1)
        .collect();
    let pred = Tile::predicate(full.rows, c.cols, c.vr, c.vc)
        .unwrap()
        .with_valid_values(&bits)
        .unwrap();
    let tiles = [full, bcast, right, pred];
    let cmode = ptoc_isa::CmpMode::ALL[(seed[0].0 % 6) as usize];
    // Destination geometry; a transpose's is the valid shape swapped in the fewest columns.
    let transpose = c.op.kind == OpKind::Transpose;
    let (dcols, dvr, dvc) = match (c.op.result, axis) {
        (ResultKind::Reduced | ResultKind::Index, Axis::Row) => (1, c.vr, 1),
        (ResultKind::Reduced | ResultKind::Index, Axis::Col) => (c.cols, 1, c.vc),
        (ResultKind::Transposed, _) => (c.vr.next_power_of_two(), c.vc, c.vr),
        _ => (c.cols, c.vr, c.vc),
    };
    let size = match c.op.result {
        ResultKind::SameAsSource | ResultKind::ExpDif | ResultKind::Converted => {
            SizeCode::giving_rows(tiles[0].rows, c.cols, c.dst.bits())
        }
        ResultKind::Predicate => SizeCode::for_predicate(tiles[0].rows, c.cols),
        ResultKind::Reduced
        | ResultKind::Index
        | ResultKind::Broadcast
        | ResultKind::Transposed => SizeCode::smallest_for(dvr, dcols, c.dst.bits()),
        ResultKind::Matrix => unreachable!("only TEPL ops are generated"),
    };
    let Some(size) = size else { return Ok(()) };
    // A tile-scalar op's scalar in a0 (GPR 2), with seed bits above the element width, which
    // the op must ignore (docs/isa.md §14).
    let (raw, edge) = seed[3 % seed.len()];
    let mut scalar = value(c.src, raw, edge);
    if int_div && scalar == 0 {
        scalar = 1;
    }
    let scalar_raw = scalar | (raw.rotate_left(17) & !c.src.carrier_mask());
    // Interpreter.
    let mut m = Machine::new();
    m.set_gpr(2, scalar_raw);
    for (i, t) in tiles.iter().enumerate() {
        m.load_with_mask(
            reg(i as u32),
            t.clone(),
            ptoc_isa::PeMask::parse("1000").unwrap(),
        )
        .unwrap();
    }
    let retyped = matches!(c.op.result, ResultKind::ExpDif | ResultKind::Converted);
    let datr_dtype = if retyped {
        Some(c.dst)
    } else {
        Some(DataType::FP64)
    };
    let compare = c.op.kind == OpKind::Compare;
    // TTRANS: a B.DATR (when the case has a pad) must carry pad field 00, and the padding is
    // Null either way (docs/isa.md §19).
    let datr_pad = if transpose { PadValue::Zero } else { c.pad };
    let datr_word = (c.pad != PadValue::Null || retyped || compare).then(|| {
        Instruction::BDatr(Datr {
            cmode: if compare { cmode.code() } else { 0 },
            rmode: c.control.rmode_code(),
            sat: c.control.sat,
            ..Datr::with(datr_dtype, datr_pad)
        })
        .encode()
    });
    let lb2 = if c.cols != c.vc { c.cols } else { 0 };
    let mut words = vec![bstart(c.op.mnemonic, c.src)];
    words.extend(datr_word);
    if transpose {
        // B.DIM describes the destination, all three LBs.
        words.extend([dim(0, dvc), dim(1, dvr), dim(2, dcols)]);
    } else {
        words.extend([dim(0, c.vc), dim(1, c.vr)]);
        if lb2 != 0 {
            words.push(dim(2, lb2));
        }
    }
    // One B.IOT per binding of the op's row; the destination on the last.
    let mut rest = &regs[..];
    for (i, &n) in c.op.bindings.iter().enumerate() {
        let last = i + 1 == c.op.bindings.len();
        let dst = last.then_some((ptoc_isa::Hand::N, size.code()));
        words.push(iot(&rest[..n], last, "1000", dst));
        rest = &rest[n..];
    }
    if c.op.takes_scalar() {
        let ior = ptoc_isa::encoding::Ior {
            dst: 0,
            src: [2, 0, 0],
        };
        words.push(Instruction::BIor(ior).encode());
    }
    words.push(BSTOP);
    let run = m.run(&words);
    prop_assert!(run.is_ok(), "{} {}: {:?}", c.op.mnemonic, c.src, run);
    let got = m.tile(reg(48)).unwrap();
    // Reference evaluator on the same tiles, types written with the machine's physical rows.
    let mut f = Function::new("k", Location::unknown());
    let ty = |t: &Tile| {
        let ty = match t.storage {
            Storage::Numeric => TileType::new(t.rows, t.cols, t.dtype),
            Storage::Predicate => TileType::predicate(t.rows, t.cols),
        };
        ty.with_valid(t.valid_rows, t.valid_cols)
    };
    let args: Vec<_> = tiles.iter().map(|t| f.add_arg(None, ty(t))).collect();
    let result_pad = if transpose { PadValue::Null } else { c.pad };
    let result_ty = ty(got).with_valid(dvr, dvc).with_pad(result_pad);
    let operands = regs.iter().map(|&r| args[r as usize]).collect();
    let r = f.push_op(c.op, operands, result_ty, None, Location::unknown());
    if compare {
        let attr = ptoc_ir::Attr::Str(cmode.mlir_name().into());
        f.ops[0].attrs.insert(CMODE_ATTR.into(), attr);
    }
    f.ops[0].control = c.control;
    f.results.push(r);
    let (want, want_flags) = if c.op.takes_scalar() {
        let operands: Vec<&Tile> = regs.iter().map(|&r| &tiles[r as usize]).collect();
        evaluate_with_scalar(c.op, c.control, &operands, scalar_raw, &result_ty)
            .map_err(TestCaseError::fail)?
    } else {
        let eval =
            evaluate_with_flags(&f, &tiles).map_err(|e| TestCaseError::fail(e.to_string()))?;
        (eval.results[0].clone(), eval.flags)
    };
    let want = &want;
    prop_assert_eq!(
        (
            got.rows,
            got.cols,
            got.valid_rows,
            got.valid_cols,
            got.dtype
        ),
        (
            want.rows,
            want.cols,
            want.valid_rows,
            want.valid_cols,
            want.dtype
        )
    );
    prop_assert_eq!(
        &got.elements,
        &want.elements,
        "{} {}->{}",
        c.op.mnemonic,
        c.src,
        c.dst
    );
    prop_assert_eq!(&got.defined, &want.defined);
    prop_assert_eq!(m.flags(), want_flags);
    Ok(())
}

fn case() -> impl Strategy<Value = Case> {
    (
        0..tepl_ops().len(),
        any::<prop::sample::Index>(),
        1u32..5,
        1u32..6,
        0usize..4,
        any::<prop::sample::Index>(),
        (0u8..8, any::<bool>()),
    )
        .prop_map(|(i, t, vr, vc, pad, d, (rmode, sat))| {
            let op = tepl_ops()[i];
            let src = *t.get(op.legal_types);
            let (dst, control) = match op.result {
                ResultKind::Index => (DataType::U32, NumericControl::default()),
                ResultKind::Predicate => {
                    (ptoc_isa::dtype::PREDICATE_DTYPE, NumericControl::default())
                }
                ResultKind::ExpDif if src != DataType::FP32 && t.index(2) == 1 => {
                    (DataType::FP32, NumericControl::default())
                }
                ResultKind::Converted => (
                    *d.get(ptoc_isa::dtype::ARITHMETIC),
                    NumericControl::from_fields(rmode, sat),
                ),
                _ => (src, NumericControl::default()),
            };
            Case {
                op,
                src,
                dst,
                vr,
                vc,
                cols: vc.next_power_of_two(),
                pad: PadValue::ALL[pad],
                control,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn interpreter_agrees_with_the_reference(c in case(), seed in prop::collection::vec((any::<u64>(), prop::option::of(0usize..64)), 4..12)) {
        run_case(&c, &seed)?;
    }
}

#[test]
fn every_op_and_type_agrees_on_fixed_values() {
    let seed: Vec<(u64, Option<usize>)> = (0..24)
        .map(|i| {
            (
                0x9E37_79B9_7F4A_7C15u64.wrapping_mul(i + 1),
                (i % 3 == 0).then_some(i as usize),
            )
        })
        .collect();
    for op in tepl_ops() {
        for &src in op.legal_types {
            // TCVT: every destination, with a directed mode and saturation on half of them.
            let dsts: Vec<(DataType, NumericControl)> = match op.result {
                ResultKind::Converted => op
                    .legal_types
                    .iter()
                    .enumerate()
                    .map(|(i, &d)| (d, NumericControl::from_fields(i as u8 % 8, i % 2 == 1)))
                    .collect(),
                _ => vec![(op.result.encoded(src, src), NumericControl::default())],
            };
            for (dst, control) in dsts {
                let c = Case {
                    op,
                    src,
                    dst,
                    vr: 3,
                    vc: 5,
                    cols: 8,
                    pad: PadValue::Max,
                    control,
                };
                run_case(&c, &seed).unwrap();
            }
        }
    }
}
