//! TTRANS on the decoded path and in the reference evaluator (docs/isa.md §19): words in, tiles,
//! faults and flags out. Expected tiles are written out by hand; the spec's own test is
//! `tests/asl/tile/layout-and-rearrangement/layout/TTRANS/tile-exec-ttrans-rect-001.asl`.

mod common;

use common::*;
use ptoc_ir::{Function, Location, TileType};
use ptoc_isa::encoding::{Datr, Ior};
use ptoc_isa::{ops, DataType, FaultClass, Hand, Instruction, Layout, PadValue, SizeCode};
use ptoc_runtime::{evaluate, Machine, Tile};
use DataType::*;

/// `BSTART.SFU TTRANS, dtype` · LB0/LB1/LB2 (0 = omitted) · `B.IOT T#(src+1), mask=1111, last,
/// ->T<size>` · BSTOP, with an optional B.DATR word.
fn ttrans(dtype: DataType, datr: Option<u32>, lbs: [u32; 3], src: u32, size: u32) -> Vec<u32> {
    bundle("TTRANS", dtype, datr, lbs, &[src], size)
}

/// A B.DATR word: all fields zero (pad Zero, DataType field 0) but what `f` sets.
fn datr_word(f: impl FnOnce(&mut Datr)) -> u32 {
    let mut d = Datr::with(Some(FP64), PadValue::Zero);
    f(&mut d);
    Instruction::BDatr(d).encode()
}

/// Runs `words` on a machine holding `source` in register 1 (T#2); on a fault, checks that
/// nothing changed.
fn run_on(source: &Tile, words: &[u32]) -> Result<Machine, ptoc_runtime::Fault> {
    let mut m = Machine::new();
    m.load(reg(1), source.clone()).unwrap();
    let before = state(&m);
    match m.run(words) {
        Ok(()) => Ok(m),
        Err(f) => {
            assert_eq!(state(&m), before, "a fault publishes nothing");
            Err(f)
        }
    }
}

/// The valid region of a tile, row by row.
fn rows_of(t: &Tile) -> Vec<Vec<u64>> {
    (0..t.valid_rows as usize)
        .map(|r| {
            (0..t.valid_cols as usize)
                .map(|c| t.get(r, c).unwrap())
                .collect()
        })
        .collect()
}

/// `[[1,2,3],[4,5,6]]` as a U16 tile of 4 columns (128 B, 16 rows).
fn u16_2x3() -> Tile {
    tile(U16, 1, 4, (2, 3), &[1, 2, 3, 4, 5, 6])
}

/// The brief's example, by hand: `[[1,2,3],[4,5,6]]` transposes to `[[1,4],[2,5],[3,6]]` in a
/// destination of valid 3x2 with 2 columns (SizeCode 1: 128·8 / (2·16) = 32 rows); the padding
/// is undefined (Null), no flag is raised and the source persists.
#[test]
fn u16_two_by_three() {
    let src = u16_2x3();
    let m = run_on(&src, &ttrans(U16, None, [2, 3, 2], 1, 1)).unwrap();
    let d = m.tile(reg(0)).unwrap();
    assert_eq!(
        (d.dtype, d.rows, d.cols, d.valid_rows, d.valid_cols),
        (U16, 32, 2, 3, 2)
    );
    assert_eq!(rows_of(d), [[1, 4], [2, 5], [3, 6]]);
    assert_eq!(d.size_code, SizeCode::new(1));
    // Valid elements defined, every padding element (rows 3..32) undefined.
    for i in 0..d.len() {
        assert_eq!(d.is_defined(i), i < 6, "element {i}");
    }
    assert_eq!(m.flags(), 0);
    assert_eq!(m.tile(reg(1)), Some(&src));
}

/// `tile-exec-ttrans-rect-001.asl`: U8, source 128 B with 4 columns and valid 2x3 holding
/// `row·3 + column + 1`; destination 128 B with 2 columns (64 rows) and valid 3x2. The test
/// asserts destination [0][1] = 4 and [2][0] = 3; the whole result is `[[1,4],[2,5],[3,6]]`.
#[test]
fn spec_rect_test() {
    let src = tile(U8, 1, 4, (2, 3), &[1, 2, 3, 4, 5, 6]);
    assert_eq!(src.rows, 32);
    let m = run_on(&src, &ttrans(U8, None, [2, 3, 2], 1, 1)).unwrap();
    let d = m.tile(reg(0)).unwrap();
    assert_eq!((d.rows, d.cols), (64, 2));
    assert_eq!((d.get(0, 1), d.get(2, 0)), (Some(4), Some(3)));
    assert_eq!(rows_of(d), [[1, 4], [2, 5], [3, 6]]);
}

/// FP32 16x64 → 64x16, bit for bit: quiet and signalling NaNs keep their payloads and sign, −0
/// stays −0, and a signalling NaN raises no NV (TTRANS converts nothing). The destination is
/// 64·16·4 = 4 KiB, SizeCode 6, which derives 4096·8 / (16·32) = 64 rows.
#[test]
fn fp32_sixteen_by_sixty_four_keeps_every_bit() {
    // Element [r][c] is 0x4000_0000 + 64r + c (finite, distinct), except for the specials.
    let specials: [((usize, usize), u64); 6] = [
        ((0, 1), 0x7FC0_0001),   // quiet NaN, payload 1
        ((3, 5), 0x8000_0000),   // −0
        ((7, 63), 0xFFC1_2345),  // negative quiet NaN with a payload
        ((15, 63), 0x7F80_0001), // signalling NaN
        ((15, 0), 0xFF80_0001),  // negative signalling NaN
        ((9, 9), 0x0000_0000),   // +0
    ];
    let value = |r: usize, c: usize| {
        specials
            .iter()
            .find(|(at, _)| *at == (r, c))
            .map_or(0x4000_0000 + 64 * r as u64 + c as u64, |s| s.1)
    };
    let values: Vec<u64> = (0..16)
        .flat_map(|r| (0..64).map(move |c| (r, c)))
        .map(|(r, c)| value(r, c))
        .collect();
    let src = tile(FP32, 6, 64, (16, 64), &values);
    let m = run_on(&src, &ttrans(FP32, None, [16, 64, 16], 1, 6)).unwrap();
    let d = m.tile(reg(0)).unwrap();
    assert_eq!(
        (d.rows, d.cols, d.valid_rows, d.valid_cols),
        (64, 16, 64, 16)
    );
    for r in 0..64 {
        for c in 0..16 {
            assert_eq!(d.get(r, c), Some(value(c, r)), "[{r}][{c}]");
        }
    }
    // The specials at their swapped coordinates, written out.
    assert_eq!(d.get(1, 0), Some(0x7FC0_0001));
    assert_eq!(d.get(5, 3), Some(0x8000_0000));
    assert_eq!(d.get(63, 7), Some(0xFFC1_2345));
    assert_eq!(d.get(63, 15), Some(0x7F80_0001));
    assert_eq!(d.get(0, 15), Some(0xFF80_0001));
    assert_eq!(d.get(2, 1), Some(0x4000_0000 + 64 + 2));
    assert_eq!(m.flags(), 0, "no NV from the signalling NaNs");
    // No padding: 64 rows of 16 columns are all valid.
    assert!((0..d.len()).all(|i| d.is_defined(i)));
}

/// TTRANS checks no encoding of a 32-bit type (`TileCarrierOnlyDataTypeSupported`): a TF32
/// element with low bits set is copied, where TABS refuses it.
#[test]
fn tf32_encodings_are_copied_unchecked() {
    let src = tile(TF32, 1, 2, (1, 2), &[0x3F80_1234, 0x4000_0000]);
    let m = run_on(&src, &ttrans(TF32, None, [1, 2, 1], 1, 1)).unwrap();
    assert_eq!(
        rows_of(m.tile(reg(0)).unwrap()),
        [[0x3F80_1234], [0x4000_0000]]
    );
    let tabs = bundle("TABS", TF32, None, [2, 0, 0], &[1], 1);
    assert_eq!(
        run_on(&src, &tabs).unwrap_err().class,
        FaultClass::TileLegality
    );
}

/// `TileOperandsLegal_TTRANS`: a destination whose valid shape is not the source's swapped is
/// Fault_TileLegality after allocation, rolled back.
#[test]
fn destination_must_be_the_swapped_shape() {
    let src = u16_2x3();
    for lbs in [[3, 2, 4], [2, 2, 2], [3, 3, 4]] {
        let fault = run_on(&src, &ttrans(U16, None, lbs, 1, 1)).unwrap_err();
        assert_eq!(fault.class, FaultClass::TileLegality, "{lbs:?}");
        assert!(fault.message.contains("transpose"), "{fault}");
    }
    // Wider physical columns are fine: valid 3x2 in 8 columns.
    let m = run_on(&src, &ttrans(U16, None, [2, 3, 8], 1, 1)).unwrap();
    let d = m.tile(reg(0)).unwrap();
    assert_eq!(
        (d.cols, rows_of(d)),
        (8, vec![vec![1, 4], vec![2, 5], vec![3, 6]])
    );
    // A SizeCode too small for the destination is Fault_TileAllocation: 64 rows of 16 FP32
    // columns need 4 KiB, SizeCode 5 holds 2 KiB (32 rows).
    let big = tile(FP32, 6, 64, (16, 64), &vec![0; 1024]);
    let fault = run_on(&big, &ttrans(FP32, None, [16, 64, 16], 1, 5)).unwrap_err();
    assert_eq!(fault.class, FaultClass::TileAllocation);
}

/// No closed schema: an absent LBn takes the source's value (`BundleDestinationValidRows`,
/// `…ValidColumns`, `…PhysicalColumns`): LB0 its valid columns, LB1 its valid rows, LB2 its
/// columns. A square valid region may omit them all; a 2x3 one cannot omit LB1 (the
/// destination would have 2 valid rows, not 3).
#[test]
fn absent_dims_come_from_the_source() {
    let square = tile(U16, 1, 4, (3, 3), &[1, 2, 3, 4, 5, 6, 7, 8, 9]);
    let m = run_on(&square, &ttrans(U16, None, [0, 0, 0], 1, 1)).unwrap();
    let d = m.tile(reg(0)).unwrap();
    assert_eq!((d.cols, d.valid_rows, d.valid_cols), (4, 3, 3));
    assert_eq!(rows_of(d), [[1, 4, 7], [2, 5, 8], [3, 6, 9]]);
    let fault = run_on(&u16_2x3(), &ttrans(U16, None, [2, 0, 2], 1, 1)).unwrap_err();
    assert_eq!(fault.class, FaultClass::TileLegality);
    // LB1 = 3 and LB0 = 2 given, LB2 from the source: 4 columns.
    let m = run_on(&u16_2x3(), &ttrans(U16, None, [2, 3, 0], 1, 1)).unwrap();
    assert_eq!(m.tile(reg(0)).unwrap().cols, 4);
    // An LB written as 0 is illegal (docs/isa.md §17 decision 44).
    let mut zero = ttrans(U16, None, [2, 3, 0], 1, 1);
    zero.insert(3, dim(2, 0));
    assert_eq!(
        run_on(&u16_2x3(), &zero).unwrap_err().class,
        FaultClass::TileLegality
    );
}

/// B.DATR (`datr_contract`: only Layout may be nonzero, the pad field must be 00): an all-zero
/// B.DATR is accepted and the padding is still Null; a pad of Max, a CMode or RMode is
/// Fault_TileLegality; Layout is allowed by the spec but ptoc models only NORM destinations
/// (docs/isa.md §19 decision 57).
#[test]
fn datr_fields() {
    let src = u16_2x3();
    let zero = datr_word(|_| {});
    let m = run_on(&src, &ttrans(U16, Some(zero), [2, 3, 2], 1, 1)).unwrap();
    let d = m.tile(reg(0)).unwrap();
    assert_eq!(rows_of(d), [[1, 4], [2, 5], [3, 6]]);
    assert!(
        !d.is_defined(6),
        "the padding stays undefined under pad field 00"
    );
    for (what, word) in [
        ("pad Max", datr_word(|d| d.pad = PadValue::Max)),
        ("pad Null", datr_word(|d| d.pad = PadValue::Null)),
        ("CMode", datr_word(|d| d.cmode = 2)),
        ("RMode", datr_word(|d| d.rmode = 1)),
        ("Sat", datr_word(|d| d.sat = true)),
        ("Layout ND2DN", datr_word(|d| d.layout = 1)),
    ] {
        let fault = run_on(&src, &ttrans(U16, Some(word), [2, 3, 2], 1, 1)).unwrap_err();
        assert_eq!(fault.class, FaultClass::TileLegality, "{what}");
    }
}

/// Sources: defined, numeric, row-major and of the BSTART type; bindings: one source and one
/// destination, in any B.IOT layout; an all-zero B.IOR binds nothing; mask 0000 is a no-op.
#[test]
fn operands_and_bindings() {
    // The source is U16, the BSTART type U8.
    let fault = run_on(&u16_2x3(), &ttrans(U8, None, [2, 3, 2], 1, 1)).unwrap_err();
    assert_eq!(fault.class, FaultClass::TileLegality);
    // An undefined valid region.
    let undefined = Tile::allocated(U16, SizeCode::new(1).unwrap(), 4, 2, 3).unwrap();
    let fault = run_on(&undefined, &ttrans(U16, None, [2, 3, 2], 1, 1)).unwrap_err();
    assert_eq!(fault.class, FaultClass::TileLegality);
    // A CUBE tile is not generically indexable (`TileGenericIndexingPermitted`).
    let cube = Tile::cube(FP16, Layout::CubeM16, SizeCode::new(1), (2, 3))
        .unwrap()
        .with_valid_values(&[1, 2, 3, 4, 5, 6])
        .unwrap();
    let fault = run_on(&cube, &ttrans(FP16, None, [2, 3, 2], 1, 1)).unwrap_err();
    assert_eq!(fault.class, FaultClass::TileLegality);
    assert!(fault.message.contains("row-major"), "{fault}");
    // Two sources: Fault_BundleControl.
    let mut m = Machine::new();
    m.load(reg(1), u16_2x3()).unwrap();
    m.load(reg(2), u16_2x3()).unwrap();
    let two = bundle("TTRANS", U16, None, [2, 3, 2], &[1, 2], 1);
    assert_eq!(m.run(&two).unwrap_err().class, FaultClass::BundleControl);
    // The source and the destination in two B.IOTs: the generic path takes them.
    let split = vec![
        bstart("TTRANS", U16),
        dim(0, 2),
        dim(1, 3),
        dim(2, 2),
        iot(&[1], false, "1111", None),
        iot(&[], true, "1111", Some((Hand::T, 1))),
        BSTOP,
    ];
    let m = run_on(&u16_2x3(), &split).unwrap();
    assert_eq!(rows_of(m.tile(reg(0)).unwrap()), [[1, 4], [2, 5], [3, 6]]);
    // B.IOR zero, zero, zero, ->zero is accepted; one naming a0 is Fault_BundleControl.
    let with_ior = |src0: u8| {
        let mut w = ttrans(U16, None, [2, 3, 2], 1, 1);
        let ior = Instruction::BIor(Ior {
            dst: 0,
            src: [src0, 0, 0],
        });
        w.insert(5, ior.encode());
        w
    };
    assert!(run_on(&u16_2x3(), &with_ior(0)).is_ok());
    assert_eq!(
        run_on(&u16_2x3(), &with_ior(2)).unwrap_err().class,
        FaultClass::BundleControl
    );
    // PE mask 0000: nothing happens.
    let noop = vec![
        bstart("TTRANS", U16),
        dim(0, 2),
        dim(1, 3),
        dim(2, 2),
        iot(&[1], true, "0000", Some((Hand::T, 1))),
        BSTOP,
    ];
    let m = run_on(&u16_2x3(), &noop).unwrap();
    assert!(m.tile(reg(0)).is_none());
}

/// The reference evaluator on the tile IR: the same hand-computed transpose; a result whose
/// valid shape is not swapped, or that asks for a pad, is refused.
#[test]
fn reference_evaluator() {
    let info = ops::by_mnemonic("TTRANS").unwrap();
    let eval = |result: TileType| {
        let mut f = Function::new("k", Location::unknown());
        let x = f.add_arg(Some("x".into()), TileType::new(2, 4, U16).with_valid(2, 3));
        let r = f.push_op(info, vec![x], result, None, Location::unknown());
        f.results.push(r);
        let src = tile(U16, 1, 4, (2, 3), &[1, 2, 3, 4, 5, 6]);
        evaluate(&f, &[src])
    };
    let out = eval(TileType::new(3, 2, U16)).unwrap();
    assert_eq!(rows_of(&out[0]), [[1, 4], [2, 5], [3, 6]]);
    assert_eq!((out[0].rows, out[0].cols), (3, 2));
    assert!(eval(TileType::new(2, 4, U16).with_valid(2, 3)).is_err());
    let padded = eval(TileType::new(3, 2, U16).with_pad(PadValue::Zero)).unwrap_err();
    assert!(padded.to_string().contains("pad"), "{padded}");
}
