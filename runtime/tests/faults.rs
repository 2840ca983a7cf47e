//! Every fault class of docs/isa.md §3.5, raised through real words; each must leave every tile and
//! flag unchanged and name the bundle it happened in.

mod common;

use common::*;
use ptoc_isa::{DataType, FaultClass, Hand, PadValue};
use ptoc_runtime::{Fault, Machine};
use DataType::*;
use FaultClass::*;

/// A machine with FP32 sources: T#1 = 2×3 (128 B, Col 4), T#2 = row broadcast 2×1, and one
/// committed bundle (so the faulting bundle is index 1).
fn machine() -> Machine {
    let mut m = Machine::new();
    m.load(reg(0), filled(FP32, 1, 4, (2, 3), 0x3F80_0000))
        .unwrap();
    m.load(reg(1), filled(FP32, 1, 1, (2, 1), 0x4000_0000))
        .unwrap();
    m.run(&bundle("TADD", FP32, None, [3, 2, 4], &[0, 0], 1))
        .unwrap();
    m
}

fn expect_fault(words: &[u32], class: FaultClass, bundle: usize, fragment: &str) -> Fault {
    let mut m = machine();
    let before = state(&m);
    let f = m.run(words).expect_err("the program must fault");
    assert_eq!((f.class, f.bundle), (class, bundle), "{f}");
    assert!(
        f.message.contains(fragment),
        "message {:?} lacks {fragment:?}",
        f.message
    );
    assert_eq!(state(&m), before, "a fault must change nothing: {f}");
    f
}

fn max_bundle(datr_word: Option<u32>, lbs: [u32; 3], size: u32) -> Vec<u32> {
    bundle("TROWEXPANDMAX", FP32, datr_word, lbs, &[0, 1], size)
}

#[test]
fn illegal_instruction() {
    // Reserved BSTART DataType 15; a 16-bit form; a reserved B.IOT SizeCode (11).
    expect_fault(
        &[0x7801_9181 | (0b10 << 25)],
        IllegalInstruction,
        1,
        "reserved DataType",
    );
    expect_fault(&[0x0000_0002], IllegalInstruction, 1, "16-bit");
    let bad_size = iot(&[0, 1], true, "1111", Some((Hand::T, 1))) & !(0xF << 15) | (11 << 15);
    expect_fault(
        &[bstart("TADD", FP32), bad_size],
        IllegalInstruction,
        1,
        "SizeCode",
    );
    // TFMA/U64 decodes (an accepted selector) but is no op ptoc executes: faults at commit.
    expect_fault(
        &[
            0xC1C1_9181,
            dim(0, 1),
            iot(&[0, 0], true, "1111", Some((Hand::T, 1))),
            BSTOP,
        ],
        IllegalInstruction,
        1,
        "selector",
    );
}

#[test]
fn bundle_control() {
    expect_fault(&[BSTOP], BundleControl, 1, "outside a block");
    expect_fault(&[dim(0, 3)], BundleControl, 1, "outside a block");
    let d = datr(None, PadValue::Zero);
    expect_fault(
        &[bstart("TADD", FP32), d, d],
        BundleControl,
        1,
        "second B.DATR",
    );
    expect_fault(
        &[bstart("TADD", FP32), dim(0, 3), dim(0, 3)],
        BundleControl,
        1,
        "LB0 written twice",
    );
    let last = iot(&[0, 0], true, "1111", Some((Hand::T, 1)));
    expect_fault(
        &[bstart("TADD", FP32), last, last],
        BundleControl,
        1,
        "after the binding marked last",
    );
    let open = iot(&[0, 0], false, "1111", Some((Hand::T, 1)));
    expect_fault(
        &[bstart("TADD", FP32), dim(0, 3), open, BSTOP],
        BundleControl,
        1,
        "not terminated",
    );
    expect_fault(
        &[
            bstart("TADD", FP32),
            dim(0, 3),
            iot(&[0], true, "1111", Some((Hand::T, 1))),
            BSTOP,
        ],
        BundleControl,
        1,
        "source(s)",
    );
    expect_fault(
        &[bstart("TADD", FP32), dim(0, 3)],
        BundleControl,
        1,
        "ends inside a block",
    );
    // The second bundle of this program faults: the first one (index 1) is committed and kept.
    let mut m = machine();
    let mut words = bundle("TADD", FP32, None, [3, 2, 4], &[0, 0], 1);
    words.push(BSTOP);
    let f = m.run(&words).unwrap_err();
    assert_eq!((f.class, f.bundle), (BundleControl, 2));
    assert!(m.tile(reg(3)).is_some());
}

#[test]
fn tile_legality_schema() {
    // B.DATR with a nonzero RMode; missing LB0; explicit zero LB1.
    let rmode = ptoc_isa::Instruction::BDatr(ptoc_isa::encoding::Datr {
        rmode: 1,
        ..ptoc_isa::encoding::Datr::with(None, PadValue::Null)
    })
    .encode();
    expect_fault(
        &max_bundle(Some(rmode), [3, 2, 4], 1),
        TileLegality,
        1,
        "RMode",
    );
    let mut no_lb0 = max_bundle(None, [3, 2, 4], 1);
    no_lb0.remove(1);
    expect_fault(&no_lb0, TileLegality, 1, "LB0");
    let mut zero_lb1 = max_bundle(None, [3, 2, 4], 1);
    zero_lb1[2] = dim(1, 0);
    expect_fault(&zero_lb1, TileLegality, 1, "LB1 is 0");
    // B.DIM geometry that does not describe source0; a broadcast of the wrong shape.
    expect_fault(
        &max_bundle(None, [2, 2, 4], 1),
        TileLegality,
        1,
        "B.DIM describes",
    );
    expect_fault(
        &bundle("TCOLEXPANDMAX", FP32, None, [3, 2, 4], &[0, 1], 1),
        TileLegality,
        1,
        "broadcast source",
    );
    // A type the op does not take (ARG on FP64); an unallocated source.
    expect_fault(
        &bundle("TROWARGMAX", FP64, None, [3, 2, 4], &[0], 1),
        TileLegality,
        1,
        "does not accept",
    );
    expect_fault(
        &bundle("TROWEXPANDMAX", FP32, None, [3, 2, 4], &[0, 9], 1),
        TileLegality,
        1,
        "not allocated",
    );
    // B.IOR in an expand bundle.
    let ior = ptoc_isa::Instruction::BIor(ptoc_isa::encoding::Ior {
        dst: 0,
        src: [0; 3],
    })
    .encode();
    let mut with_ior = max_bundle(None, [3, 2, 4], 1);
    with_ior.insert(4, ior);
    expect_fault(&with_ior, TileLegality, 1, "B.IOR");
}

#[test]
fn tile_legality_bindings() {
    let b = |mask| iot(&[0, 0], false, mask, None);
    expect_fault(
        &[bstart("TADD", FP32), b("1111"), b("1000")],
        TileLegality,
        1,
        "mask",
    );
    let five: Vec<u32> = std::iter::once(bstart("TADD", FP32))
        .chain(std::iter::repeat_n(b("1111"), 5))
        .collect();
    expect_fault(&five, TileLegality, 1, "more than 4");
    // Two bindings that together carry the operands: complete, but not the one-binding schema.
    let split = [
        bstart("TADD", FP32),
        dim(0, 3),
        dim(1, 2),
        dim(2, 4),
        iot(&[0, 0], false, "1111", None),
        iot(&[], true, "1111", Some((Hand::T, 1))),
        BSTOP,
    ];
    expect_fault(&split, TileLegality, 1, "exactly one B.IOT");
}

#[test]
fn tile_legality_operands() {
    let mut m = Machine::new();
    // Undefined source element, wrong source type, invalid TF32 encoding, integer DIV by zero.
    let mut partly = filled(FP32, 1, 4, (2, 3), 0x3F80_0000);
    partly.defined.set(5, false);
    m.load(reg(0), partly).unwrap();
    m.load(reg(1), filled(FP16, 1, 4, (2, 3), 0x3C00)).unwrap();
    m.load(reg(2), filled(TF32, 1, 4, (2, 3), 0x3F80_0001))
        .unwrap();
    m.load(reg(3), tile(S32, 1, 4, (2, 3), &[1, 2, 3, 4, 0, 6]))
        .unwrap();
    m.load(reg(4), filled(S32, 1, 1, (2, 1), 0)).unwrap();
    m.load(reg(5), filled(FP32, 2, 4, (2, 3), 0x3F80_0000))
        .unwrap();
    let before = state(&m);
    for (words, fragment) in [
        (bundle("TEXP", FP32, None, [3, 2, 4], &[0], 1), "undefined"),
        (bundle("TADD", FP32, None, [3, 2, 4], &[1, 1], 1), "FP16"),
        (
            bundle("TEXP", TF32, None, [3, 2, 4], &[2], 1),
            "invalid TF32",
        ),
        (
            bundle("TDIV", S32, None, [3, 2, 4], &[3, 3], 1),
            "division by zero",
        ),
        (
            bundle("TROWEXPANDDIV", S32, None, [3, 2, 4], &[3, 4], 1),
            "division by zero",
        ),
        // A destination SizeCode larger than the source's gives other physical rows.
        (
            bundle("TADD", FP32, None, [3, 2, 4], &[5, 5], 1),
            "destination",
        ),
    ] {
        let f = m.run(&words).unwrap_err();
        assert_eq!(f.class, TileLegality, "{f}");
        assert!(f.message.contains(fragment), "{f}");
        assert_eq!(state(&m), before);
    }
    // Float division by zero is not a fault.
    m.load(reg(6), filled(FP32, 1, 4, (2, 3), 0)).unwrap();
    m.run(&bundle("TDIV", FP32, None, [3, 2, 4], &[6, 6], 1))
        .unwrap();
}

#[test]
fn tile_allocation() {
    // SizeCode too small for the destination's valid rows.
    let mut m = Machine::new();
    m.load(reg(0), filled(FP32, 2, 4, (16, 4), 0)).unwrap();
    let before = state(&m);
    let f = m
        .run(&bundle("TEXP", FP32, None, [4, 16, 4], &[0], 1))
        .unwrap_err();
    assert_eq!(f.class, TileAllocation, "{f}");
    assert_eq!(state(&m), before);
    // Columns that are not a power of two derive no rows.
    let f = m
        .run(&bundle("TEXP", FP32, None, [3, 1, 3], &[0], 1))
        .unwrap_err();
    assert_eq!(f.class, TileAllocation, "{f}");
    // Core capacity: a 64 KiB all-PE tile fills the core.
    let mut m = Machine::new();
    m.load(reg(0), filled(FP32, 10, 128, (128, 128), 0))
        .unwrap();
    let f = m
        .run(&bundle("TEXP", FP32, None, [128, 128, 128], &[0], 10))
        .unwrap_err();
    assert_eq!(f.class, TileAllocation);
    assert!(f.message.contains("capacity"), "{f}");
    // No free register in the hand: fill all 16 T registers.
    let mut m = Machine::new();
    for i in 0..16 {
        m.load(reg(i), filled(U8, 1, 4, (1, 1), 1)).unwrap();
    }
    let f = m
        .run(&bundle("TADD", U8, None, [1, 1, 4], &[0, 0], 1))
        .unwrap_err();
    assert_eq!((f.class, f.bundle), (TileAllocation, 0));
    assert!(f.message.contains("no free register"), "{f}");
}

#[test]
fn loader_rejects_what_cannot_be_allocated() {
    let mut m = Machine::new();
    m.load(reg(0), filled(FP32, 1, 4, (2, 3), 0)).unwrap();
    assert!(m.load(reg(0), filled(FP32, 1, 4, (2, 3), 0)).is_err());
    let odd = ptoc_runtime::Tile::new(FP32, 3, 4, 3, 4).unwrap();
    assert!(
        m.load(reg(1), odd).is_err(),
        "3 rows of 4 FP32 match no SizeCode"
    );
    let e4 = ptoc_runtime::Tile::new(E2M1X2, 32, 4, 1, 1).unwrap();
    assert!(m.load(reg(2), e4).is_err());
}
