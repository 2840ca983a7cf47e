//! The spec's TCVT tests (`tests/asl/tile/elementwise-tile-tile/format-conversion/TCVT/`) on the
//! decoded path: words in, tiles, faults and flags out (docs/isa.md §1.10).

mod common;

use common::*;
use ptoc_isa::encoding::Datr;
use ptoc_isa::{DataType, FaultClass, Instruction, PadValue};
use ptoc_runtime::Machine;
use DataType::*;

/// A B.DATR word with every field given.
fn datr_word(f: impl FnOnce(&mut Datr)) -> u32 {
    let mut d = Datr::with(None, PadValue::Zero);
    f(&mut d);
    Instruction::BDatr(d).encode()
}

/// `tile-exec-tcvt-bundle-001.asl` with Layout NORM: BSTART 0xD9B19181 (U8 TCVT), B.DATR
/// DataType U16 Null pad, LB0 = 2, LB2 = 8, one binding from register 1 with SizeCode 2: a U16
/// destination with the source's 16 rows and 8 columns holding 7 and 9; the source persists.
/// (The spec test asks for Layout ND2DN, a column-major destination ptoc does not model; that
/// word is refused below.)
#[test]
fn bundle_u8_to_u16() {
    let mut m = Machine::new();
    let src = tile(U8, 1, 8, (1, 2), &[7, 9]);
    assert_eq!(src.rows, 16);
    m.load(reg(1), src.clone()).unwrap();
    assert_eq!(bstart("TCVT", U8), 0xD9B1_9181);
    let norm = datr_word(|d| {
        d.dtype = Some(U16);
        d.pad = PadValue::Null;
    });
    let words = vec![
        0xD9B1_9181,
        norm,
        dim(0, 2),
        dim(2, 8),
        iot(&[1], true, "1111", Some((ptoc_isa::Hand::T, 2))),
        BSTOP,
    ];
    m.run(&words).unwrap();
    let dst = m.tile(reg(0)).unwrap();
    assert_eq!((dst.dtype, dst.rows, dst.cols), (U16, 16, 8));
    assert_eq!((dst.elements.get(0), dst.elements.get(1)), (7, 9));
    assert_eq!(m.tile(reg(1)), Some(&src));
    assert_eq!(m.flags(), 0);

    // The spec's own word, Layout 1 (ND2DN): refused by ptoc (docs/isa.md §9 decision 34).
    let mut m = Machine::new();
    m.load(reg(1), src.clone()).unwrap();
    let nd2dn = datr_word(|d| {
        d.dtype = Some(U16);
        d.pad = PadValue::Null;
        d.layout = 1;
    });
    let mut words = words.clone();
    words[1] = nd2dn;
    let before = state(&m);
    let fault = m.run(&words).unwrap_err();
    assert_eq!(fault.class, FaultClass::TileLegality);
    assert!(fault.message.contains("row-major"), "{fault}");
    assert_eq!(state(&m), before);
}

/// `tile-fault-tcvt-schema-001.asl`: the canonical schema passes; a B.IOR, a second source, a
/// source whose type is not the BSTART type and a missing LB0 reject before allocation.
#[test]
fn schema() {
    let u8_source = || tile(U8, 1, 2, (1, 2), &[3, 4]);
    let run = |words: &[u32], source_type: DataType| {
        let mut m = Machine::new();
        let mut t = u8_source();
        if source_type != U8 {
            t = tile(source_type, 1, 2, (1, 2), &[3, 4]);
        }
        m.load(reg(1), t).unwrap();
        m.load(reg(2), u8_source()).unwrap();
        let before = state(&m);
        let result = m.run(words);
        if result.is_err() {
            assert_eq!(state(&m), before);
        }
        result
    };
    let good = vec![
        0xD9B1_9181,
        dim(0, 2),
        iot(&[1], true, "1111", Some((ptoc_isa::Hand::T, 1))),
        BSTOP,
    ];
    run(&good, U8).unwrap();
    // B.IOR zero, zero, zero, ->zero.
    let mut ior = good.clone();
    ior.insert(2, 0x0000_0013);
    assert_eq!(run(&ior, U8).unwrap_err().class, FaultClass::TileLegality);
    // A second source.
    let mut two = good.clone();
    two[2] = iot(&[1, 2], true, "1111", Some((ptoc_isa::Hand::T, 1)));
    assert_eq!(run(&two, U8).unwrap_err().class, FaultClass::BundleControl);
    // The source is U16, the BSTART type U8.
    assert_eq!(run(&good, U16).unwrap_err().class, FaultClass::TileLegality);
    // No LB0.
    let no_lb0: Vec<u32> = good.iter().copied().filter(|&w| w != dim(0, 2)).collect();
    assert_eq!(
        run(&no_lb0, U8).unwrap_err().class,
        FaultClass::TileLegality
    );
}

/// `tile-exec-tcvt-alias-001.asl`: U8 → U8 with B.DATR DataType 27 and pad Zero keeps the values
/// and defines the padding as zero.
#[test]
fn same_type_with_zero_padding() {
    let mut m = Machine::new();
    m.load(reg(1), tile(U8, 1, 8, (1, 2), &[7, 9])).unwrap();
    let words = bundle(
        "TCVT",
        U8,
        Some(datr(Some(U8), PadValue::Zero)),
        [2, 0, 8],
        &[1],
        1,
    );
    m.run(&words).unwrap();
    let t = m.tile(reg(0)).unwrap();
    assert_eq!(
        (t.elements.get(0), t.elements.get(1), t.elements.get(2)),
        (7, 9, 0)
    );
    assert!(t.defined.get(2) && t.defined.get(15 * 8 + 7));
}

/// `tile-bound-tcvt-datr-001.asl` and `tile-bound-tcvt-canonical-001.asl`: CMode is not a TCVT
/// field; Canonicalize=1 needs a private CUBE source (no ptoc tile is one).
#[test]
fn datr_fields() {
    for (what, word) in [
        (
            "CMode",
            datr_word(|d| {
                d.dtype = Some(FP16);
                d.cmode = 1;
            }),
        ),
        (
            "Canonicalize",
            datr_word(|d| {
                d.dtype = Some(FP16);
                d.canonicalize = true;
            }),
        ),
    ] {
        let mut m = Machine::new();
        m.load(reg(1), tile(FP32, 1, 2, (2, 2), &[0; 4])).unwrap();
        let before = state(&m);
        let fault = m
            .run(&bundle("TCVT", FP32, Some(word), [2, 2, 0], &[1], 1))
            .unwrap_err();
        assert_eq!(fault.class, FaultClass::TileLegality, "{what}");
        assert!(fault.message.contains(what), "{what}: {fault}");
        assert_eq!(state(&m), before);
    }
    // Every other field is one TCVT reads: DataType, pad, RMode, Sat.
    let mut m = Machine::new();
    m.load(reg(1), tile(FP32, 1, 2, (2, 2), &[0x3FC0_0000; 4]))
        .unwrap();
    let all = datr_word(|d| {
        d.dtype = Some(S32);
        d.pad = PadValue::Max;
        d.rmode = 5;
        d.sat = true;
    });
    m.run(&bundle("TCVT", FP32, Some(all), [2, 2, 0], &[1], 1))
        .unwrap();
    // 1.5 rounds away from zero under RNA: 2, inexact.
    assert_eq!(m.tile(reg(0)).unwrap().elements.get(0), 2);
    assert_eq!(m.flags(), 0x10);
}

/// `tile-fault-tcvt-e8m0-pairs-005.asl`: FP64 to E8M0 (B.DATR DataType 13), BSTART 0x01B19181,
/// rejects with Fault_TileLegality before allocation. ptoc converts between its 16 arithmetic
/// types only, so every E8M0 destination is refused.
#[test]
fn e8m0_destination_rejects() {
    for src in [FP64, FP32] {
        let mut m = Machine::new();
        let t = tile(
            src,
            4,
            8,
            (1, 1),
            &[0x3FF0_0000_0000_0000 & src.carrier_mask()],
        );
        m.load(reg(0), t).unwrap();
        let e8m0 = datr_word(|d| {
            d.dtype = Some(E8M0);
            d.pad = PadValue::Null;
        });
        let capacity = m.allocated_bytes();
        let words = vec![
            bstart("TCVT", src),
            e8m0,
            dim(0, 1),
            dim(1, 1),
            dim(2, 8),
            iot(&[0], true, "0001", Some((ptoc_isa::Hand::T, 1))),
            BSTOP,
        ];
        if src == FP64 {
            assert_eq!(words[0], 0x01B1_9181);
        }
        let fault = m.run(&words).unwrap_err();
        assert_eq!(fault.class, FaultClass::TileLegality);
        assert!(fault.message.contains("E8M0"), "{fault}");
        assert_eq!(m.allocated_bytes(), capacity);
    }
}

/// The source and destination must have the same physical rows: a destination SizeCode that
/// derives other rows is rolled back (`TileOperandsLegal_TCVT`).
#[test]
fn destination_rows_must_match() {
    let mut m = Machine::new();
    m.load(reg(1), tile(FP32, 1, 8, (2, 8), &[0; 16])).unwrap(); // 4 rows
    let before = state(&m);
    // FP16 with 128 B derives 8 rows, not 4.
    let words = bundle(
        "TCVT",
        FP32,
        Some(datr(Some(FP16), PadValue::Null)),
        [8, 2, 0],
        &[1],
        1,
    );
    let fault = m.run(&words).unwrap_err();
    assert_eq!(fault.class, FaultClass::TileLegality);
    assert_eq!(state(&m), before);
}
