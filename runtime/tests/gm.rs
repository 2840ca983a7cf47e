//! Kernels over global memory through real words: TLOAD, TSTORE and TMOV with the spec's vectors
//! (docs/isa.md §13.9) moved into GM buffers, their faults, and the scalar loop of docs/isa.md
//! §12.8.

mod common;

use common::*;
use ptoc_isa::{DataType, FaultClass};
use ptoc_runtime::Machine;
use DataType::*;

const BSTOP: u32 = 0x0000_0001;
/// `BSTART.TLOAD U32`, `BSTART.TSTORE U32` (docs/isa.md §13.1).
const TLOAD_U32: u32 = 0xC801_1181;
const TSTORE_U32: u32 = 0xC811_1181;
/// `B.IOT mask=1111, last, ->T<1>`.
const IOT_TO_T1: u32 = 0x0008_EE13;
/// `B.IOR a0, a1, zero, ->zero`.
const IOR_A0_A1: u32 = 0x0031_0013;
/// `B.IOT T#1, mask=1111, last` (source only).
const IOT_FROM_T1: u32 = 0x0008_5E13;

fn u32_bytes(values: &[(usize, u32)], len: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; len];
    for &(at, v) in values {
        bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    bytes
}

/// `block-exec-bstart-tload-stride-001.asl` case 1: U32, LB0 = LB1 = LB2 = 2, stride 12 bytes.
#[test]
fn tload_with_a_row_stride() {
    let mut m = Machine::new();
    let base = m.map_gm(u32_bytes(&[(0, 1), (4, 2), (12, 3), (16, 4)], 32));
    m.set_gpr(2, base);
    m.set_gpr(3, 12);
    let words = [
        TLOAD_U32,
        dim(0, 2),
        dim(1, 2),
        dim(2, 2),
        IOT_TO_T1,
        IOR_A0_A1,
        BSTOP,
    ];
    m.run(&words).unwrap();
    let t = m.tile(reg(0)).expect("the destination is T register 0");
    assert_eq!(t.dtype, U32);
    assert_eq!((t.rows, t.cols, t.valid_rows, t.valid_cols), (16, 2, 2, 2));
    assert_eq!(t.valid_values(), vec![Some(1), Some(2), Some(3), Some(4)]);
    // An ordinary TLOAD writes no padding: it stays undefined.
    assert!(!t.is_defined(t.index(2, 0)));
}

/// Case 3 of the same test: a B.IOR naming `zero` for the stride reads row 0 again.
#[test]
fn tload_with_stride_zero() {
    let mut m = Machine::new();
    let base = m.map_gm(u32_bytes(&[(0, 9), (4, 10)], 8));
    m.set_gpr(2, base);
    let ior_a0_zero = 0x0001_0013;
    let words = [
        TLOAD_U32,
        dim(0, 2),
        dim(1, 2),
        dim(2, 4),
        IOT_TO_T1,
        ior_a0_zero,
        BSTOP,
    ];
    m.run(&words).unwrap();
    let t = m.tile(reg(0)).unwrap();
    assert_eq!(t.valid_values(), vec![Some(9), Some(10), Some(9), Some(10)]);
}

/// `block-fault-bstart-tload-preflight-001.asl`: the second element leaves memory. Nothing is
/// allocated and the fault names that element's address.
#[test]
fn tload_preflight_faults_precisely() {
    let mut m = Machine::new();
    let base = m.map_gm(vec![0xAA; 4096]);
    m.set_gpr(2, base + 4092);
    m.set_gpr(3, 2);
    let words = [TLOAD_U32, dim(0, 2), dim(2, 2), IOT_TO_T1, IOR_A0_A1, BSTOP];
    let f = m.run(&words).unwrap_err();
    assert_eq!(f.class, FaultClass::DataPage, "{f}");
    assert_eq!(f.address, Some(base + 4096));
    assert_eq!((f.bundle, f.pc), (0, 0));
    assert!(m.tile(reg(0)).is_none());
    assert_eq!(m.allocated_bytes(), 0);
    // A misaligned base faults at element (0, 0) with the alignment class.
    let mut m = Machine::new();
    let base = m.map_gm(vec![0; 64]);
    m.set_gpr(2, base + 2);
    let f = m.run(&words).unwrap_err();
    assert_eq!(
        (f.class, f.address),
        (FaultClass::DataAlignment, Some(base + 2))
    );
}

/// `block-exec-bstart-tload-zero-mask-001.asl`: a mask-0 binding makes the bundle a no-op, with
/// no GPR read and no memory access (the base here points nowhere).
#[test]
fn zero_mask_tload_does_nothing() {
    let mut m = Machine::new();
    let words = [0xC001_1181, 0x0008_E013, BSTOP];
    m.run(&words).unwrap();
    assert_eq!(m.allocated_bytes(), 0);
}

/// `block-exec-bstart-tstore-stride-001.asl` case 1, after a TLOAD of the same values: the
/// round trip through GM, with a different stride on the way out.
#[test]
fn tstore_with_a_row_stride() {
    let mut m = Machine::new();
    m.load(reg(0), tile(U32, 1, 2, (2, 2), &[11, 12, 13, 14]))
        .unwrap();
    let out = m.map_gm(vec![0; 24]);
    m.set_gpr(2, out);
    m.set_gpr(3, 12);
    m.run(&[TSTORE_U32, IOT_FROM_T1, IOR_A0_A1, BSTOP]).unwrap();
    let bytes = m.gm_buffer(out).unwrap();
    assert_eq!(
        bytes,
        u32_bytes(&[(0, 11), (4, 12), (12, 13), (16, 14)], 24)
    );
    assert!(m.tile(reg(0)).is_some(), "the source persists");
}

#[test]
fn tstore_faults_change_no_byte() {
    let mut m = Machine::new();
    m.load(reg(0), tile(U32, 1, 2, (2, 2), &[1, 2, 3, 4]))
        .unwrap();
    let out = m.map_gm(vec![7; 12]);
    m.set_gpr(2, out);
    m.set_gpr(3, 8);
    let f = m
        .run(&[TSTORE_U32, IOT_FROM_T1, IOR_A0_A1, BSTOP])
        .unwrap_err();
    assert_eq!((f.class, f.address), (FaultClass::DataPage, Some(out + 12)));
    assert_eq!(m.gm_buffer(out).unwrap(), &[7; 12]);
    // The BSTART DataType must be the source's (docs/isa.md §17 decision 43).
    let f = m
        .run(&[0x0811_1181, IOT_FROM_T1, IOR_A0_A1, BSTOP])
        .unwrap_err();
    assert_eq!(f.class, FaultClass::TileLegality, "{f}");
}

/// TMOV copies payload and definedness into a new register of the source's SizeCode.
#[test]
fn tmov_copies_a_tile() {
    let mut m = Machine::new();
    m.load(reg(0), tile(FP32, 1, 4, (2, 3), &[1, 2, 3, 4, 5, 6]))
        .unwrap();
    // BSTART.TMOV DTYPE_NONE; B.IOT T#1, mask=1111, last, ->T<1>.
    let iot_t1_to_t = 0x0008_DE13;
    m.run(&[0xF821_1181, iot_t1_to_t, BSTOP]).unwrap();
    let (a, b) = (m.tile(reg(0)).unwrap(), m.tile(reg(1)).unwrap());
    assert_eq!(a.valid_values(), b.valid_values());
    assert_eq!((b.dtype, b.rows, b.cols), (FP32, 8, 4));
    // A destination SizeCode that derives other rows does not match the source.
    let iot_t1_to_t2 = 0x0009_5E13;
    let f = m.run(&[0xF821_1181, iot_t1_to_t2, BSTOP]).unwrap_err();
    assert_eq!(f.class, FaultClass::TileLegality, "{f}");
}

/// The loop of docs/isa.md §12.8: store T#1 (one FP32 row of 16) to rows 0..n of `out`.
fn store_rows_loop() -> Vec<u32> {
    vec![
        0x000F_3001, // BSTART.STD COND, .+60 (EXIT)
        0x0000_0595, // addi zero, 0, ->s0
        0x0400_0615, // addi zero, 64, ->s1
        0x0001_0A15, // addi a0, 0, ->x0
        0x0035_D065, // setc.ge s0, a1
        BSTOP,
        0x0811_1181, // BODY: BSTART.TSTORE FP32
        0x00CA_0013, // B.IOR x0, s1, zero, ->zero
        IOT_FROM_T1,
        BSTOP,
        0xFFFC_3001, // BSTART.STD COND, .-16 (BODY)
        0x0015_8595, // addi s0, 1, ->s0
        0x36B1_0A05, // add a0, s0<<6, ->x0
        0x0035_C065, // setc.lt s0, a1
        BSTOP,
    ]
}

#[test]
fn scalar_loop_stores_every_row() {
    let row: Vec<u64> = (0..16).map(|i| 0x3F80_0000 + i).collect();
    for n in [0u64, 1, 5] {
        let mut m = Machine::new();
        m.load(reg(0), tile(FP32, 1, 16, (1, 16), &row)).unwrap();
        let out = m.map_gm(vec![0; 64 * 6]);
        m.set_gpr(2, out);
        m.set_gpr(3, n);
        m.run(&store_rows_loop()).unwrap();
        let bytes = m.gm_buffer(out).unwrap();
        for r in 0..6 {
            let got: Vec<u64> = bytes[r * 64..(r + 1) * 64]
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()) as u64)
                .collect();
            let want = if (r as u64) < n {
                row.clone()
            } else {
                vec![0; 16]
            };
            assert_eq!(got, want, "n = {n}, row {r}");
        }
        assert_eq!(m.gpr(11), n, "s0 counts the iterations");
    }
}

/// An observer sees the bundle count every N bundles and changes nothing: the loop above with
/// n = 5 starts 1 + 2 × 5 = 11 bundles (the entry test, then a TSTORE and a loop test per row).
#[test]
fn an_observed_run_reports_every_n_bundles_and_matches_a_plain_run() {
    let row: Vec<u64> = (0..16).map(|i| 0x3F80_0000 + i).collect();
    let machine = || {
        let mut m = Machine::new();
        m.load(reg(0), tile(FP32, 1, 16, (1, 16), &row)).unwrap();
        let out = m.map_gm(vec![0; 64 * 6]);
        m.set_gpr(2, out);
        m.set_gpr(3, 5);
        (m, out)
    };
    let (mut plain, out) = machine();
    plain.run(&store_rows_loop()).unwrap();
    for (every, want) in [
        (1, (1..=11).collect::<Vec<usize>>()),
        (3, vec![3, 6, 9]),
        (11, vec![11]),
        (12, vec![]),
    ] {
        let (mut m, _) = machine();
        let mut seen = Vec::new();
        m.run_observed(&store_rows_loop(), every, |n| seen.push(n))
            .unwrap();
        assert_eq!(seen, want, "every {every}");
        assert_eq!(m.gm_buffer(out), plain.gm_buffer(out));
        assert_eq!(m.gpr(11), plain.gpr(11));
    }
}

#[test]
fn a_loop_that_never_ends_hits_the_step_limit() {
    let mut m = Machine::new();
    // BSTART.STD DIRECT, .+0; BSTOP: a block that branches to itself.
    m.set_step_limit(1000);
    let f = m.run(&[0x0000_2001, BSTOP]).unwrap_err();
    assert_eq!(f.class, FaultClass::StepLimit);
}

#[test]
fn block_structure_faults() {
    let run = |words: &[u32]| Machine::new().run(words).unwrap_err();
    // SETC outside a COND block's body.
    assert_eq!(run(&[0x0035_C065]).class, FaultClass::BundleControl);
    assert_eq!(
        run(&[0x0000_1001, 0x0035_C065, BSTOP]).class,
        FaultClass::BundleControl
    );
    // A second SETC in one block.
    let f = run(&[0x0000_3001, 0x0035_C065, 0x0035_C065, BSTOP]);
    assert!(f.message.contains("second SETC"), "{f}");
    // A header command after a scalar instruction started the body.
    let f = run(&[0x0000_1001, 0x0000_0595, dim(0, 2), BSTOP]);
    assert_eq!(f.class, FaultClass::BundleControl);
    // A branch outside the code.
    let f = run(&[0x0004_2001, BSTOP]);
    assert_eq!((f.class, f.pc), (FaultClass::InstructionPage, 0));
    // Reading a scalar queue entry nobody pushed.
    let f = run(&[0x0FB1_0277]);
    assert_eq!(f.class, FaultClass::IllegalInstruction);
}

/// Under queue naming the loader pushes arguments in order: the first of two on one hand ends
/// up as T#2, the second as T#1, and a bundle reading T#2 reads the first (docs/isa.md §9
/// decisions 1–2).
#[test]
fn queue_loader_pushes_arguments_in_order() {
    let mut m = Machine::with_naming(ptoc_isa::profile::NamingModel::Queue);
    m.load(reg(1), tile(U32, 1, 2, (1, 2), &[1, 2])).unwrap();
    m.load(reg(0), tile(U32, 1, 2, (1, 2), &[3, 4])).unwrap();
    assert_eq!(
        m.tile(reg(1)).unwrap().valid_values(),
        vec![Some(1), Some(2)]
    );
    assert_eq!(
        m.tile(reg(0)).unwrap().valid_values(),
        vec![Some(3), Some(4)]
    );
    // TMOV T#2 (the first argument) pushes a copy: it becomes T#1, the arguments T#2 and T#3.
    let iot_t2_to_t = 0x0018_DE13;
    m.run(&[0xF821_1181, iot_t2_to_t, BSTOP]).unwrap();
    assert_eq!(
        m.tile(reg(0)).unwrap().valid_values(),
        vec![Some(1), Some(2)]
    );
    assert_eq!(
        m.tile(reg(2)).unwrap().valid_values(),
        vec![Some(1), Some(2)]
    );
}
