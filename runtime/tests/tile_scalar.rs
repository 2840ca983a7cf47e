//! The tile-scalar ops (docs/isa.md §14) on real words: the spec's vectors under
//! `tests/asl/tile/tile-scalar-and-immediate/`, IEEE facts (NaN, −0, overflow, DZ), integer wrap
//! and truncation, the scalar's low element-width bits, the B.IOR and schema faults, and the
//! reference evaluator's entry for them.

mod common;

use common::*;
use ptoc_ir::TileType;
use ptoc_isa::encoding::Ior;
use ptoc_isa::ops::by_mnemonic;
use ptoc_isa::profile::NamingModel;
use ptoc_isa::{DataType, FaultClass, Instruction, NumericControl, PadValue};
use ptoc_runtime::numerics::{DZ, NV, NX, OF};
use ptoc_runtime::{evaluate_with_scalar, Machine, Tile};
use DataType::*;

/// B.IOR naming `src0` as RegSrc0 and the other fields as given.
fn ior(src: [u8; 3], dst: u8) -> u32 {
    Instruction::BIor(Ior { dst, src }).encode()
}

const A0: u8 = 2;

/// One tile-scalar bundle on a 1×N (or given) source loaded as T#1, with a0 = `scalar` and a
/// `B.IOR a0` before BSTOP unless `scalar` is `None`. Returns the machine and the run's result.
fn run(
    mnemonic: &str,
    dtype: DataType,
    src: Option<Tile>,
    lbs: [u32; 3],
    scalar: Option<u64>,
    datr_word: Option<u32>,
) -> (Machine, Result<(), ptoc_runtime::Fault>) {
    let mut m = Machine::new();
    let sources: &[u32] = match src {
        Some(t) => {
            m.load(reg(0), t).unwrap();
            &[0]
        }
        None => &[],
    };
    let mut words = bundle(mnemonic, dtype, datr_word, lbs, sources, 1);
    if let Some(s) = scalar {
        m.set_gpr(A0 as usize, s);
        words.insert(words.len() - 1, ior([A0, 0, 0], 0));
    }
    let r = m.run(&words);
    (m, r)
}

/// The valid row of the result of a bundle run on a 1×N source of `values`.
fn row(mnemonic: &str, dtype: DataType, values: &[u64], scalar: u64) -> (Vec<u64>, u8) {
    let n = values.len() as u32;
    let src = tile(dtype, 1, n.next_power_of_two(), (1, n), values);
    let lb2 = if n.is_power_of_two() {
        0
    } else {
        n.next_power_of_two()
    };
    let (m, r) = run(
        mnemonic,
        dtype,
        Some(src.clone()),
        [n, 0, lb2],
        Some(scalar),
        None,
    );
    r.unwrap_or_else(|f| panic!("{mnemonic} {dtype}: {f}"));
    assert_eq!(
        m.tile(reg(0)),
        Some(&src),
        "{mnemonic}: the source persists"
    );
    let dst = m.tile(reg(1)).expect("the destination");
    let got = (0..n).map(|c| dst.get(0, c as usize).unwrap()).collect();
    (got, m.flags())
}

fn f32s(xs: &[f32]) -> Vec<u64> {
    xs.iter().map(|x| x.to_bits() as u64).collect()
}

/// `tile-exec-tadds-bundle-001.asl` (decoded): the spec's words, source register 1 = [7, 9],
/// a0 = 5 → register 0 = [12, 14], the source unchanged.
#[test]
fn spec_decoded_tadds_bundle() {
    let mut m = Machine::with_naming(NamingModel::AbsoluteNoFree);
    let src = tile(U64, 1, 2, (1, 2), &[7, 9]);
    m.load(reg(1), src.clone()).unwrap();
    m.set_gpr(2, 5);
    let words = [0xC201_9181, 0x0020_0043, 0x0018_DE13, 0x0001_0013, BSTOP];
    m.run(&words).unwrap();
    let dst = m.tile(reg(0)).unwrap();
    assert_eq!((dst.get(0, 0), dst.get(0, 1)), (Some(12), Some(14)));
    assert_eq!(m.tile(reg(1)), Some(&src));
    assert_eq!(m.flags(), 0);
}

/// `tile-exec-texpands-bundle-001.asl` (decoded): U8, LB0 = 2, a0 = 0x1FF → [0xFF, 0xFF]: only
/// the low eight bits count.
#[test]
fn spec_decoded_texpands_bundle() {
    let mut m = Machine::with_naming(NamingModel::AbsoluteNoFree);
    m.set_gpr(2, 0x1FF);
    let words = [0xDBB1_9181, 0x0020_0043, 0x0008_EE13, 0x0001_0013, BSTOP];
    m.run(&words).unwrap();
    let dst = m.tile(reg(0)).unwrap();
    assert_eq!((dst.dtype, dst.valid_rows, dst.valid_cols), (U8, 1, 2));
    assert_eq!((dst.get(0, 0), dst.get(0, 1)), (Some(0xFF), Some(0xFF)));
}

/// The U8 execution vectors of §14: order (tile − scalar, tile / scalar), width (wrap) and
/// unsigned MIN/MAX.
#[test]
fn spec_u8_vectors() {
    let cases: [(&str, [u64; 2], u64, [u64; 2]); 6] = [
        ("TSUBS", [3, 9], 5, [254, 4]),
        ("TMULS", [7, 86], 3, [21, 2]),
        ("TDIVS", [9, 255], 2, [4, 127]),
        ("TMAXS", [2, 250], 9, [9, 250]),
        ("TMINS", [2, 250], 9, [2, 9]),
        ("TADDS", [250, 9], 7, [1, 16]),
    ];
    for (mn, src, s, want) in cases {
        assert_eq!(row(mn, U8, &src, s), (want.to_vec(), 0), "{mn}");
    }
}

/// `tile-state-tadds-padding-001.asl` and `tile-state-texpands-padding-001.asl`: U64 1×1 in two
/// columns; B.DATR Pad Zero defines [0, 1] = 0, no B.DATR leaves it undefined.
#[test]
fn spec_padding_vectors() {
    for mn in ["TADDS", "TEXPANDS"] {
        for (datr_word, want) in [(Some(datr(None, PadValue::Zero)), Some(0)), (None, None)] {
            let src = (mn == "TADDS").then(|| tile(U64, 1, 2, (1, 1), &[7]));
            let scalar = if mn == "TADDS" { 5 } else { 7 };
            let (m, r) = run(mn, U64, src, [1, 0, 2], Some(scalar), datr_word);
            r.unwrap();
            let dst = m.tile(reg(u32::from(mn == "TADDS"))).unwrap();
            let value = if mn == "TADDS" { 12 } else { 7 };
            assert_eq!((dst.get(0, 0), dst.get(0, 1)), (Some(value), want), "{mn}");
        }
    }
}

/// `tile-bound-tdivs-zero-001.asl`: a U32 zero divisor is illegal (before any effect); FP32 +0
/// and −0 are legal and give ±inf with DZ.
#[test]
fn division_by_a_zero_scalar() {
    let src = tile(U32, 1, 2, (1, 2), &[1, 2]);
    let (m, r) = run("TDIVS", U32, Some(src.clone()), [2, 0, 0], Some(0), None);
    let f = r.unwrap_err();
    assert_eq!(f.class, FaultClass::TileLegality, "{f}");
    assert!(f.message.contains("division by zero"), "{f}");
    assert_eq!(m.tile(reg(1)), None);
    assert_eq!(m.tile(reg(0)), Some(&src));
    // Zero at the element width: bits above it do not make the divisor nonzero.
    let src8 = tile(U8, 1, 2, (1, 2), &[1, 2]);
    let (_, r) = run("TDIVS", U8, Some(src8), [2, 0, 0], Some(0x100), None);
    assert_eq!(r.unwrap_err().class, FaultClass::TileLegality);
    let inf = f32::INFINITY.to_bits() as u64;
    let neg_inf = f32::NEG_INFINITY.to_bits() as u64;
    assert_eq!(
        row("TDIVS", FP32, &f32s(&[1.0, 2.0]), 0),
        (vec![inf, inf], DZ)
    );
    assert_eq!(
        row("TDIVS", FP32, &f32s(&[1.0, 2.0]), 0x8000_0000),
        (vec![neg_inf, neg_inf], DZ)
    );
    // 0 / 0 is invalid: the canonical NaN and NV.
    assert_eq!(
        row("TDIVS", FP32, &f32s(&[0.0]), 0),
        (vec![0x7FC0_0000], NV)
    );
}

/// Float arithmetic: one RNE rounding, exact cancellation to +0, −0 kept by MUL, overflow to
/// infinity with OF and NX, and the scalar read from bits 31:0 (FP32) or 15:0 (FP16) only.
#[test]
fn float_facts() {
    // 1.5 + 2.25 = 3.75 exactly; the GPR's upper half is ignored.
    let s = 0xDEAD_BEEF_0000_0000 | 2.25f32.to_bits() as u64;
    assert_eq!(row("TADDS", FP32, &f32s(&[1.5]), s), (f32s(&[3.75]), 0));
    // 1 + 2^-24 is a tie between 1 and 1 + 2^-23: RNE picks 1 (even), inexact.
    let tiny = 2f32.powi(-24).to_bits() as u64;
    assert_eq!(row("TADDS", FP32, &f32s(&[1.0]), tiny), (f32s(&[1.0]), NX));
    // 1 − 1 = +0; −0 + −0 = −0; −0 · 5 = −0.
    let one = 1f32.to_bits() as u64;
    assert_eq!(row("TSUBS", FP32, &f32s(&[1.0]), one), (vec![0], 0));
    let neg_zero = 0x8000_0000;
    assert_eq!(
        row("TADDS", FP32, &[neg_zero], neg_zero),
        (vec![neg_zero], 0)
    );
    assert_eq!(row("TADDS", FP32, &[neg_zero], 0), (vec![0], 0));
    let five = 5f32.to_bits() as u64;
    assert_eq!(row("TMULS", FP32, &[neg_zero], five), (vec![neg_zero], 0));
    // 3e38 · 10 overflows to +inf; FP16 60000 · 2 too (0x7C00).
    let ten = 10f32.to_bits() as u64;
    assert_eq!(
        row("TMULS", FP32, &f32s(&[3e38, -3e38]), ten),
        (
            vec![
                f32::INFINITY.to_bits() as u64,
                f32::NEG_INFINITY.to_bits() as u64
            ],
            OF | NX
        )
    );
    // FP16 60000 = 0x7B53, 2.0 = 0x4000 (in the low half of the GPR).
    assert_eq!(
        row("TMULS", FP16, &[0x7B53], 0xFFFF_0000 | 0x4000),
        (vec![0x7C00], OF | NX)
    );
    // Tile − scalar, not the reverse: 1 − 3 = −2.
    let three = 3f32.to_bits() as u64;
    assert_eq!(row("TSUBS", FP32, &[one], three), (f32s(&[-2.0]), 0));
    // 1 / 3 in FP32 rounds to 0x3EAAAAAB.
    assert_eq!(row("TDIVS", FP32, &[one], three), (vec![0x3EAA_AAAB], NX));
}

/// NaNs: arithmetic gives the canonical NaN (NV for a signalling one); MIN/MAX return the
/// non-NaN operand, both NaN the canonical NaN, NV for a signalling NaN in the tile or the
/// scalar (docs/isa.md §1.8, §14).
#[test]
fn nan_facts() {
    let one = 1f32.to_bits() as u64;
    let (qnan, snan, canonical) = (0x7FC0_0001, 0x7F80_0001, 0x7FC0_0000);
    assert_eq!(row("TADDS", FP32, &[one], snan), (vec![canonical], NV));
    assert_eq!(row("TMULS", FP32, &[qnan], one), (vec![canonical], 0));
    assert_eq!(row("TMAXS", FP32, &[qnan, one], one), (vec![one, one], 0));
    assert_eq!(row("TMAXS", FP32, &[one], snan), (vec![one], NV));
    assert_eq!(row("TMINS", FP32, &[snan], one), (vec![one], NV));
    assert_eq!(row("TMINS", FP32, &[qnan], qnan), (vec![canonical], 0));
    // Zeros: MAX(−0, +0) = +0, MIN(+0, −0) = −0, MAX(−0, −0) = −0.
    let neg_zero = 0x8000_0000;
    assert_eq!(row("TMAXS", FP32, &[neg_zero], 0), (vec![0], 0));
    assert_eq!(row("TMINS", FP32, &[0], neg_zero), (vec![neg_zero], 0));
    assert_eq!(
        row("TMAXS", FP32, &[neg_zero], neg_zero),
        (vec![neg_zero], 0)
    );
    // −2 vs −1: MAX −1, MIN −2 (the TMAX/TMIN vectors of §1.8 with the scalar on the right).
    let (m2, m1) = (0xC000_0000, 0xBF80_0000);
    assert_eq!(row("TMAXS", FP32, &[m2], m1), (vec![m1], 0));
    assert_eq!(row("TMINS", FP32, &[m2], m1), (vec![m2], 0));
}

/// Integers: wrap at the width, signed division truncates toward zero, signed MIN/MAX, and the
/// scalar's low element-width bits only.
#[test]
fn integer_facts() {
    assert_eq!(row("TADDS", S32, &[0x7FFF_FFFF], 1), (vec![0x8000_0000], 0));
    // S8 −128 − 1 = 127; the scalar 0x101 is 1 at eight bits.
    assert_eq!(row("TSUBS", S8, &[0x80], 0x101), (vec![0x7F], 0));
    // −7 / 2 = −3, 7 / −2 = −3 (S32).
    assert_eq!(
        row("TDIVS", S32, &[(-7i32) as u32 as u64], 2),
        (vec![(-3i32) as u32 as u64], 0)
    );
    assert_eq!(
        row("TDIVS", S32, &[7], (-2i64) as u64),
        (vec![(-3i32) as u32 as u64], 0)
    );
    // S8: max(−1, 1) = 1, min(−1, 1) = −1; U8: max(0xFF, 1) = 0xFF.
    assert_eq!(row("TMAXS", S8, &[0xFF], 1), (vec![1], 0));
    assert_eq!(row("TMINS", S8, &[0xFF], 1), (vec![0xFF], 0));
    assert_eq!(row("TMAXS", U8, &[0xFF], 1), (vec![0xFF], 0));
    // U16 300 · 300 = 90000 = 0x15F90 → 0x5F90.
    assert_eq!(row("TMULS", U16, &[300], 300), (vec![0x5F90], 0));
    // U64 uses all 64 bits.
    assert_eq!(
        row("TADDS", U64, &[u64::MAX - 1], 0x1_0000_0001),
        (vec![0xFFFF_FFFF], 0)
    );
}

/// A 3×5 source in 8 columns: every valid element gets the scalar, padding follows B.DATR, and
/// TEXPANDS fills B.DIM's shape.
#[test]
fn whole_tiles() {
    let values: Vec<u64> = (0..15).map(|i| i * 10).collect();
    let src = tile(S16, 1, 8, (3, 5), &values);
    let pad = datr(None, PadValue::Max);
    let (m, r) = run("TSUBS", S16, Some(src), [5, 3, 8], Some(7), Some(pad));
    r.unwrap();
    let dst = m.tile(reg(1)).unwrap();
    for (i, v) in values.iter().enumerate() {
        assert_eq!(dst.get(i / 5, i % 5), Some((v.wrapping_sub(7)) & 0xFFFF));
    }
    assert_eq!(dst.get(0, 7), Some(0x7FFF), "S16 Max padding");
    let (m, r) = run("TEXPANDS", BF16, None, [5, 3, 8], Some(0x3F80), None);
    r.unwrap();
    let dst = m.tile(reg(0)).unwrap();
    assert_eq!((dst.valid_rows, dst.valid_cols, dst.cols), (3, 5, 8));
    assert!((0..3).all(|r| (0..5).all(|c| dst.get(r, c) == Some(0x3F80))));
    assert_eq!(dst.get(2, 5), None, "Null padding is undefined");
}

/// Without B.IOR the scalar is 0 (+0.0 for floats); an explicit `B.IOR zero` is the same value.
#[test]
fn omitted_scalar_is_zero() {
    let src = tile(FP32, 1, 2, (1, 2), &f32s(&[1.5, -0.0]));
    let (m, r) = run("TADDS", FP32, Some(src), [2, 0, 0], None, None);
    r.unwrap();
    let dst = m.tile(reg(1)).unwrap();
    // 1.5 + 0 = 1.5; −0 + +0 = +0.
    assert_eq!(
        (dst.get(0, 0), dst.get(0, 1)),
        (Some(1.5f32.to_bits() as u64), Some(0))
    );
    let (m, r) = run("TEXPANDS", U32, None, [2, 0, 0], None, None);
    r.unwrap();
    assert_eq!(m.tile(reg(0)).unwrap().get(0, 1), Some(0));
    let mut m = Machine::new();
    m.set_gpr(A0 as usize, 9);
    let mut words = bundle("TEXPANDS", U32, None, [2, 0, 0], &[], 1);
    words.insert(words.len() - 1, ior([0, 0, 0], 0));
    m.run(&words).unwrap();
    assert_eq!(m.tile(reg(0)).unwrap().get(0, 0), Some(0));
}

/// The faults, each leaving every tile and flag as it was: surplus B.IOR fields
/// (Fault_BundleControl), a B.IOR on an op without a scalar, an invalid TF32 scalar, a source
/// that B.DIM does not describe, a type outside the set and a TEXPANDS with a tile source
/// (Fault_TileLegality or Fault_BundleControl as §3.5 orders them).
#[test]
fn faults_change_nothing() {
    let src = || tile(FP32, 1, 2, (1, 2), &f32s(&[1.0, 2.0]));
    let check = |words: Vec<u32>, gprs: &[(usize, u64)], class: FaultClass, what: &str| {
        let mut m = Machine::new();
        m.load(reg(0), src()).unwrap();
        for &(g, v) in gprs {
            m.set_gpr(g, v);
        }
        let before = state(&m);
        let f = m.run(&words).unwrap_err();
        assert_eq!(f.class, class, "{what}: {f}");
        assert_eq!(state(&m), before, "{what}");
    };
    let with_ior = |mn: &str, dtype, sources: &[u32], lbs, ior_word| {
        let mut w = bundle(mn, dtype, None, lbs, sources, 1);
        w.insert(w.len() - 1, ior_word);
        w
    };
    for (fields, dst) in [([A0, A0, 0], 0), ([A0, 0, 3], 0), ([A0, 0, 0], 4)] {
        check(
            with_ior("TADDS", FP32, &[0], [2, 0, 0], ior(fields, dst)),
            &[],
            FaultClass::BundleControl,
            "surplus B.IOR field",
        );
    }
    // An op without a scalar: a nonzero B.IOR field is surplus (step 4); an all-zero B.IOR
    // fails its closed schema.
    check(
        with_ior("TNEG", FP32, &[0], [2, 0, 0], ior([A0, 0, 0], 0)),
        &[],
        FaultClass::BundleControl,
        "B.IOR a0 on TNEG",
    );
    check(
        with_ior("TNEG", FP32, &[0], [2, 0, 0], ior([0, 0, 0], 0)),
        &[],
        FaultClass::TileLegality,
        "B.IOR zero on TNEG",
    );
    // TF32 keeps bits 12:0 zero; the source is reread as TF32 in a TF32 bundle, so use its own.
    let mut m = Machine::new();
    m.load(reg(0), tile(TF32, 1, 2, (1, 2), &[0x3F80_0000, 0]))
        .unwrap();
    m.set_gpr(A0 as usize, 0x3F80_0001);
    let before = state(&m);
    let f = m
        .run(&with_ior(
            "TADDS",
            TF32,
            &[0],
            [2, 0, 0],
            ior([A0, 0, 0], 0),
        ))
        .unwrap_err();
    assert_eq!(f.class, FaultClass::TileLegality, "{f}");
    assert!(f.message.contains("encoding"), "{f}");
    assert_eq!(state(&m), before);
    check(
        with_ior("TADDS", FP32, &[0], [1, 0, 2], ior([A0, 0, 0], 0)),
        &[(A0 as usize, 1)],
        FaultClass::TileLegality,
        "B.DIM describes valid 1x1, the source is 1x2",
    );
    check(
        with_ior("TADDS", S16, &[0], [2, 0, 0], ior([A0, 0, 0], 0)),
        &[],
        FaultClass::TileLegality,
        "an FP32 source in an S16 bundle",
    );
    check(
        with_ior("TEXPANDS", FP32, &[0], [2, 0, 0], ior([A0, 0, 0], 0)),
        &[],
        FaultClass::BundleControl,
        "TEXPANDS with a tile source",
    );
    check(
        with_ior("TMULS", FP32, &[], [2, 0, 0], ior([A0, 0, 0], 0)),
        &[],
        FaultClass::BundleControl,
        "TMULS without its tile source",
    );
}

/// The reference evaluator's entry (`evaluate_with_scalar`): the same values as the interpreter
/// for hand-computed cases, and refusals for what the schema refuses.
#[test]
fn reference_entry() {
    let t = Tile::new(FP32, 1, 4, 1, 3)
        .unwrap()
        .with_valid_values(&f32s(&[1.0, -2.5, 0.25]))
        .unwrap();
    let ty = TileType::new(1, 4, FP32).with_valid(1, 3);
    let tmuls = by_mnemonic("TMULS").unwrap();
    let control = NumericControl::default();
    let four = 4f32.to_bits() as u64;
    let (r, flags) = evaluate_with_scalar(tmuls, control, &[&t], four, &ty).unwrap();
    let got: Vec<_> = (0..3).map(|c| r.get(0, c).unwrap()).collect();
    assert_eq!((got, flags), (f32s(&[4.0, -10.0, 1.0]), 0));
    assert_eq!(r.get(0, 3), None, "Null padding");
    let texpands = by_mnemonic("TEXPANDS").unwrap();
    let u8ty = TileType::new(2, 2, U8).with_pad(PadValue::Zero);
    let (r, _) = evaluate_with_scalar(texpands, control, &[], 0x1FF, &u8ty).unwrap();
    assert!((0..2).all(|i| r.get(i / 2, i % 2) == Some(0xFF)));
    let divs = by_mnemonic("TDIVS").unwrap();
    let u = Tile::new(U32, 1, 1, 1, 1)
        .unwrap()
        .with_valid_values(&[4])
        .unwrap();
    let uty = TileType::new(1, 1, U32);
    assert!(evaluate_with_scalar(divs, control, &[&u], 1 << 32, &uty)
        .unwrap_err()
        .contains("division by zero"));
    let (r, _) = evaluate_with_scalar(divs, control, &[&u], 2, &uty).unwrap();
    assert_eq!(r.get(0, 0), Some(2));
    let tadd = by_mnemonic("TADD").unwrap();
    assert!(evaluate_with_scalar(tadd, control, &[&t, &t], 0, &ty).is_err());
}
