//! TCMP and TSEL through real words, against the spec's test vectors
//! (`tests/asl/tile/elementwise-tile-tile/logical/{TCMP,TSEL}/*.asl`, docs/isa.md §1.9, §3.6):
//! packed bit positions, predicate geometry and capacity, padding, the two-binding TSEL bundle
//! and the faults the bundle state machine must raise.

mod common;

use common::*;
use ptoc_isa::encoding::Datr;
use ptoc_isa::{CmpMode, DataType, FaultClass, Hand, Instruction, PadValue, SizeCode, Storage};
use ptoc_runtime::{Machine, Tile};
use DataType::*;

/// B.DATR with CMode and pad (DataType field 0, ignored: docs/isa.md §9 decision 4).
fn cmode_datr(mode: CmpMode, pad: PadValue) -> u32 {
    Instruction::BDatr(Datr {
        cmode: mode.code(),
        ..Datr::with(Some(FP64), pad)
    })
    .encode()
}

/// A defined predicate of `rows`×`cols` with the valid region's bits.
fn predicate(rows: u32, cols: u32, valid: (u32, u32), bits: &[u64]) -> Tile {
    Tile::predicate(rows, cols, valid.0, valid.1)
        .unwrap()
        .with_valid_values(bits)
        .unwrap()
}

/// A TCMP bundle on T#1, T#2 (registers 0 and 1) with LB0/LB1/LB2 and a SizeCode.
fn tcmp(dtype: DataType, datr: Option<u32>, lbs: [u32; 3], size: u32) -> Vec<u32> {
    bundle("TCMP", dtype, datr, lbs, &[0, 1], size)
}

/// TSEL's two bindings: predicate and true source, then the false source with the destination.
fn tsel(dtype: DataType, datr: Option<u32>, lbs: [u32; 3], regs: [u32; 3], size: u32) -> Vec<u32> {
    let mut w = vec![bstart("TSEL", dtype)];
    w.extend(datr);
    for (lb, v) in lbs.iter().enumerate() {
        if *v != 0 {
            w.push(dim(lb as u8, *v));
        }
    }
    w.push(iot(&regs[..2], false, "1111", None));
    w.push(iot(&regs[2..], true, "1111", Some((Hand::T, size))));
    w.push(BSTOP);
    w
}

#[test]
fn tcmp_bundle_publishes_a_renamed_predicate_with_source_geometry() {
    // tile-exec-tcmp-bundle-001: U64, 128 B, Col 2 (8 rows), valid 1x2; [7,9] EQ [7,8].
    let mut m = Machine::new();
    m.load(reg(1), tile(U64, 1, 2, (1, 2), &[7, 9])).unwrap();
    m.load(reg(2), tile(U64, 1, 2, (1, 2), &[7, 8])).unwrap();
    let words = bundle("TCMP", U64, None, [2, 0, 0], &[1, 2], 1);
    assert_eq!(words[0], 0xC0D1_9181);
    m.run(&words).unwrap();
    // Renamed to the lowest free register of hand T: register 0.
    let p = m.tile(reg(0)).unwrap();
    assert_eq!(p.storage, Storage::Predicate);
    assert_eq!((p.rows, p.cols, p.valid_rows, p.valid_cols), (8, 2, 1, 2));
    assert_eq!(p.packed_predicate().unwrap()[0], 0b0000_0001);
    assert_eq!(m.tile(reg(1)).unwrap().get(0, 1), Some(9));
    assert_eq!(m.tile(reg(2)).unwrap().get(0, 1), Some(8));
}

#[test]
fn tcmp_packs_low_indices_into_low_bits() {
    // tile-exec-tcmp-packed-001: U8, 128 B, Col 16, valid 1x10; a[c] = c, b[c] = c or 0.
    let a: Vec<u64> = (0..10).collect();
    let b: Vec<u64> = (0..10).map(|c| if c % 2 == 0 { c } else { 0 }).collect();
    let mut m = Machine::new();
    m.load(reg(0), tile(U8, 1, 16, (1, 10), &a)).unwrap();
    m.load(reg(1), tile(U8, 1, 16, (1, 10), &b)).unwrap();
    m.run(&tcmp(U8, None, [10, 0, 16], 1)).unwrap();
    let p = m.tile(reg(2)).unwrap();
    let bytes = p.packed_predicate().unwrap();
    assert_eq!((bytes[0], bytes[1]), (0b0101_0101, 0b0000_0001));
    assert_eq!(bytes.len(), 16, "8 rows x 16 columns = 128 bits");
    assert!(
        p.is_defined(9) && !p.is_defined(10),
        "Null padding is undefined"
    );
}

#[test]
fn tcmp_padding_follows_the_pad_value() {
    // tile-state-tcmp-padding-001: Max pads with ones (defined), Zero/Min with zeros, Null
    // leaves the padding undefined. Valid 1x2 of a 128 B, Col 8 U16 tile (8 rows).
    for (pad, bit) in [
        (PadValue::Max, Some(1)),
        (PadValue::Zero, Some(0)),
        (PadValue::Min, Some(0)),
        (PadValue::Null, None),
    ] {
        let mut m = Machine::new();
        m.load(reg(0), tile(U16, 1, 8, (1, 2), &[1, 5])).unwrap();
        m.load(reg(1), tile(U16, 1, 8, (1, 2), &[2, 5])).unwrap();
        m.run(&tcmp(U16, Some(cmode_datr(CmpMode::Le, pad)), [2, 0, 8], 1))
            .unwrap();
        let p = m.tile(reg(2)).unwrap();
        assert_eq!(p.get(0, 0), Some(1), "1 <= 2");
        assert_eq!(p.get(0, 1), Some(1), "5 <= 5");
        assert_eq!(p.get(0, 2), bit, "{pad:?}");
        assert_eq!(p.get(7, 7), bit, "{pad:?}");
    }
}

#[test]
fn tcmp_capacity_is_packed_and_checked_before_allocation() {
    // tile-fault-tcmp-capacity-001: a 64x128 U8 source (8 KiB) needs 1024 predicate bytes;
    // SizeCode 1 (128 B) faults Fault_TileAllocation and allocates nothing.
    let mut m = Machine::new();
    m.load(reg(1), filled(U8, 7, 128, (64, 128), 3)).unwrap();
    m.load(reg(2), filled(U8, 7, 128, (64, 128), 3)).unwrap();
    let words = bundle("TCMP", U8, None, [128, 64, 128], &[1, 2], 1);
    assert_eq!(words[0], 0xD8D1_9181);
    let before = state(&m);
    let f = m.run(&words).unwrap_err();
    assert_eq!(f.class, FaultClass::TileAllocation, "{f}");
    assert_eq!(state(&m), before);
    // SizeCode 4 (1 KiB) holds exactly the 1024 bytes.
    m.run(&bundle("TCMP", U8, None, [128, 64, 128], &[1, 2], 4))
        .unwrap();
    assert_eq!(m.tile(reg(0)).unwrap().size_code, SizeCode::new(4));
}

#[test]
fn tcmp_signalling_nan_is_false_with_nv() {
    // tile-exec-tcmp-order-001: sNaN EQ 1.0 is false and raises NV; -0 EQ +0 is true.
    let mut m = Machine::new();
    m.load(
        reg(0),
        tile(FP32, 1, 2, (1, 2), &[0x7F80_0001, 0x8000_0000]),
    )
    .unwrap();
    m.load(reg(1), tile(FP32, 1, 2, (1, 2), &[0x3F80_0000, 0]))
        .unwrap();
    m.run(&tcmp(FP32, None, [2, 0, 0], 1)).unwrap();
    let p = m.tile(reg(2)).unwrap();
    assert_eq!((p.get(0, 0), p.get(0, 1)), (Some(0), Some(1)));
    assert_eq!(m.flags(), 0x01);
}

#[test]
fn tcmp_rejects_a_predicate_source_and_mismatched_types() {
    let mut m = Machine::new();
    m.load(reg(0), tile(S16, 1, 2, (1, 2), &[1, 2])).unwrap();
    m.load(reg(1), tile(U16, 1, 2, (1, 2), &[1, 2])).unwrap();
    let before = state(&m);
    let f = m.run(&tcmp(S16, None, [2, 0, 0], 1)).unwrap_err();
    assert_eq!(f.class, FaultClass::TileLegality, "{f}");
    assert!(f.message.contains("U16"), "{f}");
    assert_eq!(state(&m), before);
}

#[test]
fn tsel_two_bindings_select_exact_encodings() {
    // tile-exec-tsel-bundle-001: predicate [1,0], true FP32 [10,11], false [20,21] → [10,21];
    // the predicate has the data tiles' 16 rows (128 B, Col 2 of FP32).
    let mut m = Machine::new();
    m.load(reg(1), predicate(16, 2, (1, 2), &[1, 0])).unwrap();
    m.load(reg(2), tile(FP32, 1, 2, (1, 2), &[10, 11])).unwrap();
    m.load(reg(3), tile(FP32, 1, 2, (1, 2), &[20, 21])).unwrap();
    let words = tsel(FP32, None, [2, 0, 0], [1, 2, 3], 1);
    assert_eq!(words[0], 0x09A1_9181);
    m.run(&words).unwrap();
    let d = m.tile(reg(0)).unwrap();
    assert_eq!(d.storage, Storage::Numeric);
    assert_eq!((d.get(0, 0), d.get(0, 1)), (Some(10), Some(21)));
    assert_eq!(m.tile(reg(1)).unwrap().get(0, 0), Some(1));
}

#[test]
fn tsel_copies_a_signalling_nan_without_status_and_pads() {
    // tile-exec-tsel-exact-001 and tile-state-tsel-padding-001: the selected sNaN keeps its
    // payload, flags stay as they were; Min pads with FP32's most negative finite value.
    let mut m = Machine::new();
    m.load(reg(0), predicate(32, 1, (1, 1), &[1])).unwrap();
    m.load(reg(1), tile(FP32, 1, 1, (1, 1), &[0x7F80_0123]))
        .unwrap();
    m.load(reg(2), tile(FP32, 1, 1, (1, 1), &[0x3F80_0000]))
        .unwrap();
    let pad = Some(datr(Some(FP64), PadValue::Min));
    m.run(&tsel(FP32, pad, [1, 0, 0], [0, 1, 2], 1)).unwrap();
    let d = m.tile(reg(3)).unwrap();
    assert_eq!(d.get(0, 0), Some(0x7F80_0123));
    assert_eq!(d.get(1, 0), Some(0xFF7F_FFFF));
    assert_eq!(m.flags(), 0);
}

#[test]
fn tsel_alternating_bits() {
    // tile-exec-tsel-packed-001: U8, 128 B, Col 8 (16 rows), valid 1x4, bits 1,0,1,0.
    let mut m = Machine::new();
    m.load(reg(0), predicate(16, 8, (1, 4), &[1, 0, 1, 0]))
        .unwrap();
    m.load(reg(1), tile(U8, 1, 8, (1, 4), &[10, 11, 12, 13]))
        .unwrap();
    m.load(reg(2), tile(U8, 1, 8, (1, 4), &[20, 21, 22, 23]))
        .unwrap();
    m.run(&tsel(U8, None, [4, 0, 8], [0, 1, 2], 1)).unwrap();
    let d = m.tile(reg(3)).unwrap();
    let got: Vec<_> = (0..4).map(|c| d.get(0, c)).collect();
    assert_eq!(got, [Some(10), Some(21), Some(12), Some(23)]);
}

/// Three loaded sources for the TSEL fault cases: predicate (or `mask`), true, false.
fn tsel_machine(mask: Tile) -> Machine {
    let mut m = Machine::new();
    m.load(reg(0), mask).unwrap();
    m.load(reg(1), tile(U8, 1, 8, (1, 2), &[1, 2])).unwrap();
    m.load(reg(2), tile(U8, 1, 8, (1, 2), &[3, 4])).unwrap();
    m
}

fn expect_fault(mut m: Machine, words: &[u32], class: FaultClass, fragment: &str) {
    let before = state(&m);
    let f = m.run(words).unwrap_err();
    assert_eq!(f.class, class, "{f}");
    assert!(f.message.contains(fragment), "{f}");
    assert_eq!(state(&m), before, "{f}");
}

#[test]
fn tsel_faults_as_the_contract_says() {
    let pred = || predicate(16, 8, (1, 2), &[0, 1]);
    // tile-fault-tsel-mask-001: an ordinary numeric tile is no mask.
    let numeric = tile(U8, 1, 8, (1, 2), &[0, 1]);
    let ok = tsel(U8, None, [2, 0, 8], [0, 1, 2], 1);
    expect_fault(
        tsel_machine(numeric),
        &ok,
        FaultClass::TileLegality,
        "predicate",
    );
    // The canonical form passes.
    let mut m = tsel_machine(pred());
    m.run(&ok).unwrap();
    assert_eq!(m.tile(reg(3)).unwrap().get(0, 1), Some(2));
    // tile-fault-tsel-schema-001: the first binding marked last — the second B.IOT then comes
    // after the stream closed (Fault_BundleControl as it arrives).
    let mut early = ok.clone();
    early[3] = iot(&[0, 1], true, "1111", None);
    expect_fault(
        tsel_machine(pred()),
        &early,
        FaultClass::BundleControl,
        "after",
    );
    // One binding carrying only two sources: too few sources (BundleOperationBindingsComplete).
    let mut short = vec![bstart("TSEL", U8), dim(0, 2), dim(2, 8)];
    short.extend([iot(&[0, 1], true, "1111", Some((Hand::T, 1))), BSTOP]);
    expect_fault(
        tsel_machine(pred()),
        &short,
        FaultClass::BundleControl,
        "3 source",
    );
    // The right sources in the wrong grouping (one, then two with the destination).
    let mut regrouped = vec![bstart("TSEL", U8), dim(0, 2), dim(2, 8)];
    regrouped.extend([
        iot(&[0], false, "1111", None),
        iot(&[1, 2], true, "1111", Some((Hand::T, 1))),
        BSTOP,
    ]);
    expect_fault(
        tsel_machine(pred()),
        &regrouped,
        FaultClass::TileLegality,
        "B.IOT",
    );
    // Unequal masks across the two bindings (Fault_TileLegality as the second arrives).
    let mut masks = ok.clone();
    masks[4] = iot(&[2], true, "1000", Some((Hand::T, 1)));
    expect_fault(
        tsel_machine(pred()),
        &masks,
        FaultClass::TileLegality,
        "mask",
    );
    // A false source of another type.
    let mut m = Machine::new();
    m.load(reg(0), pred()).unwrap();
    m.load(reg(1), tile(U8, 1, 8, (1, 2), &[1, 2])).unwrap();
    m.load(reg(2), tile(S8, 1, 8, (1, 2), &[3, 4])).unwrap();
    expect_fault(m, &ok, FaultClass::TileLegality, "S8");
    // A CMode on TSEL is an inapplicable B.DATR field.
    let cm = tsel(
        U8,
        Some(cmode_datr(CmpMode::Lt, PadValue::Null)),
        [2, 0, 8],
        [0, 1, 2],
        1,
    );
    expect_fault(tsel_machine(pred()), &cm, FaultClass::TileLegality, "CMode");
    // A predicate whose rows differ from the data tiles' (8 rows against 16).
    let short_rows = predicate(8, 8, (1, 2), &[0, 1]);
    expect_fault(
        tsel_machine(short_rows),
        &ok,
        FaultClass::TileLegality,
        "predicate",
    );
}

#[test]
fn tsel_mask_zero_is_a_strict_no_op() {
    // tile-exec-tsel-mask-zero-001: both bindings with mask 0000 and no sources loaded.
    let mut m = Machine::new();
    let words = [
        bstart("TSEL", FP32),
        iot(&[0, 1], false, "0000", None),
        iot(&[2], true, "0000", Some((Hand::T, 1))),
        BSTOP,
    ];
    m.run(&words).unwrap();
    assert!(m.tile(reg(0)).is_none());
}

#[test]
fn reserved_cmodes_are_illegal_instructions_where_the_b_datr_decodes() {
    // B.DATR's catalogue record constrains CMode to 0..=5, and the command decoder
    // (`CommandFormOperandsLegal`, run by `ExecuteCommandInstruction` before any handler) rejects
    // a word outside its constraints with Fault_IllegalInstruction before attribute state changes
    // (as `block-exec-b-datr-data-attributes-001` shows for a reserved DataType); the closed TCMP
    // schema's own CMode check at commit is never reached (docs/isa.md §1.9, §3.5).
    for cmode in [6u32, 7] {
        for (mnemonic, sources) in [("TCMP", [0u32, 1]), ("TADD", [0, 1])] {
            let mut m = Machine::new();
            m.load(reg(0), tile(U16, 1, 8, (1, 2), &[1, 5])).unwrap();
            m.load(reg(1), tile(U16, 1, 8, (1, 2), &[2, 5])).unwrap();
            // One good TCMP first: it commits, and the faulting bundle is the second.
            let mut words = tcmp(
                U16,
                Some(cmode_datr(CmpMode::Le, PadValue::Null)),
                [2, 0, 8],
                1,
            );
            let datr = (cmode << 29) | (3 << 27) | 0x1023;
            assert!(Instruction::decode(datr).is_err(), "{datr:#010x}");
            words.extend(bundle(mnemonic, U16, Some(datr), [2, 0, 8], &sources, 1));
            let f = m.run(&words).unwrap_err();
            assert_eq!(f.class, FaultClass::IllegalInstruction, "{f}");
            assert_eq!(f.bundle, 1, "{f}");
            assert!(f.message.contains(&format!("CMode {cmode}")), "{f}");
            // The first TCMP's predicate (register 2) is there; nothing else was written.
            let p = m.tile(reg(2)).unwrap();
            assert_eq!((p.get(0, 0), p.get(0, 1)), (Some(1), Some(1)));
            assert!(m.tile(reg(3)).is_none(), "{mnemonic} CMode {cmode}");
        }
    }
}
