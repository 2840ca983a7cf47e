//! The matrix ops through real words (docs/isa.md §18): TLOAD into the CUBE layouts, TMATMUL and
//! its forms, TSTORE back to row-major GM; every expected value is computed by hand.

mod common;

use common::*;
use ptoc_isa::encoding::{Datr, Fpatr};
use ptoc_isa::{DataType, FaultClass, Hand, Instruction, Layout, PadValue};
use ptoc_runtime::{Machine, Tile};
use DataType::*;

/// `BSTART.TMATMUL FP32` and its siblings: `(AType << 27) | (Function << 20) | 0x31181`
/// (`asl/block/execution/BSTART.TMATMUL.asl` and siblings).
const TMATMUL_FP32: u32 = 0x0803_1181;
const FPATR_PLAIN: u32 = 0x0000_2023;

#[test]
fn cube_start_and_fpatr_words_match_the_spec() {
    // Matches of the BSTART headers: TMATMUL 0x00031181, .BIAS 0x00131181, .ACC 0x00231181,
    // TGEMV 0x01031181, .BIAS 0x01131181, .ACC 0x01231181; DataType in bits 31:27.
    for (mn, matched) in [
        ("TMATMUL", 0x0003_1181),
        ("TMATMUL_BIAS", 0x0013_1181),
        ("TMATMUL_ACC", 0x0023_1181),
        ("TGEMV", 0x0103_1181),
        ("TGEMV_BIAS", 0x0113_1181),
        ("TGEMV_ACC", 0x0123_1181),
    ] {
        for t in [FP32, FP16, S8] {
            let word = bstart(mn, t);
            assert_eq!(word, matched | (t.code() << 27), "{mn} {t}");
            assert_eq!(Instruction::decode(word).unwrap().encode(), word);
        }
    }
    assert_eq!(bstart("TMATMUL", FP32), TMATMUL_FP32);
    // The MX functions decode (they are assigned) but 3 and 7 are holes.
    assert!(Instruction::decode(0x0043_1181 | (1 << 27)).is_ok());
    assert!(Instruction::decode(0x0033_1181 | (1 << 27)).is_err());
    // B.FPATR: mask 0x00007E7F, match 0x00002023; an all-zero one is the plain product.
    let plain = Instruction::decode(FPATR_PLAIN).unwrap();
    assert_eq!(plain, Instruction::BFpatr(Fpatr::default()));
    let relu = Fpatr {
        relu: 1,
        trans_a: true,
        ..Fpatr::default()
    };
    assert_eq!(Instruction::BFpatr(relu).encode(), 0x0080_20A3);
    assert!(
        Instruction::decode(0x0000_2823).is_err(),
        "ElementWiseEn is fixed 0"
    );
    assert!(
        Instruction::decode(0x0200_2023).is_err(),
        "ReluMode 4 is reserved"
    );
    assert!(
        Instruction::decode(0x1800_2023).is_err(),
        "PreQuantMode 6 is reserved"
    );
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn f32_values(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// B.DATR selecting a CUBE transport (DTYPE_NONE, Pad as given, Layout `code`).
fn transport(code: u8, pad: PadValue) -> u32 {
    Instruction::BDatr(Datr {
        layout: code,
        ..Datr::with(None, pad)
    })
    .encode()
}

/// `B.IOR a0, a1`: base in GPR 2, row stride in GPR 3.
const IOR_A0_A1: u32 = 0x0031_0013;

/// TLOAD of a row-major `rows×cols` matrix at GPR a0 (stride in a1) into `layout` on hand T.
fn load_words(dtype: DataType, layout: Layout, rows: u32, cols: u32, size: u32) -> Vec<u32> {
    vec![
        ptoc_isa::Instruction::BStartTlsu(ptoc_isa::encoding::TlsuStart {
            op: ptoc_isa::encoding::TlsuOp::Load,
            dtype: Some(dtype),
        })
        .encode(),
        transport(layout.load_code().unwrap(), PadValue::Zero),
        dim(0, cols),
        dim(1, rows),
        iot(&[], true, "1111", Some((Hand::T, size))),
        IOR_A0_A1,
        BSTOP,
    ]
}

/// Load A (2×3) and B (3×2) from GM into CUBE_M16 and CUBE_N8, multiply into hand U, and store
/// D with M162ND: [[1,2,3],[4,5,6]]·[[7,8],[9,10],[11,12]] = [[58,64],[139,154]].
#[test]
fn tmatmul_fp32_round_trip_through_gm() {
    let mut m = Machine::new();
    let a = m.map_gm(f32_bytes(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    let b = m.map_gm(f32_bytes(&[7.0, 8.0, 9.0, 10.0, 11.0, 12.0]));
    let d = m.map_gm(vec![0; 16]);
    m.set_gpr(2, a);
    m.set_gpr(3, 12);
    m.run(&load_words(FP32, Layout::CubeM16, 2, 3, 2)).unwrap();
    let ta = m.tile(reg(0)).unwrap();
    // CUBE_M16 FP32: 16 storage rows, columns rounded to the 2-column cell; padding zero.
    assert_eq!((ta.layout, ta.rows, ta.cols), (Layout::CubeM16, 16, 4));
    assert_eq!(ta.get(15, 3), Some(0));
    m.set_gpr(2, b);
    m.set_gpr(3, 8);
    m.run(&load_words(FP32, Layout::CubeN8, 3, 2, 1)).unwrap();
    let tb = m.tile(reg(1)).unwrap();
    assert_eq!((tb.layout, tb.rows, tb.cols), (Layout::CubeN8, 4, 8));
    let words = [
        TMATMUL_FP32,
        FPATR_PLAIN,
        dim(0, 2),
        dim(1, 2),
        dim(2, 3),
        iot(&[0, 1], true, "1111", Some((Hand::U, 2))),
        BSTOP,
    ];
    m.run(&words).unwrap();
    let td = m.tile(reg(16)).expect("D is U register 0");
    assert_eq!(
        (td.layout, td.dtype, td.valid_rows, td.valid_cols),
        (Layout::CubeM16, FP32, 2, 2)
    );
    // TSTORE M162ND of U#1 to the dense 2×2 rows of `d`.
    m.set_gpr(2, d);
    m.set_gpr(3, 8);
    let store = [
        0x0811_1181, // BSTART.TSTORE FP32
        transport(Layout::CubeM16.store_code().unwrap(), PadValue::Zero),
        dim(0, 2),
        dim(1, 2),
        iot(&[16], true, "1111", None),
        IOR_A0_A1,
        BSTOP,
    ];
    m.run(&store).unwrap();
    assert_eq!(
        f32_values(m.gm_buffer(d).unwrap()),
        [58.0, 64.0, 139.0, 154.0]
    );
}

fn cube(dtype: DataType, layout: Layout, (rows, cols): (u32, u32), values: &[u64]) -> Tile {
    Tile::cube(dtype, layout, None, (rows, cols))
        .unwrap()
        .with_valid_values(values)
        .unwrap()
}

fn bits(values: &[f32]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits() as u64).collect()
}

/// A machine holding A at T register 0 and B at T register 1.
fn with_operands(a: Tile, b: Tile) -> Machine {
    let mut m = Machine::new();
    m.load(reg(0), a).unwrap();
    m.load(reg(1), b).unwrap();
    m
}

fn fp32_operands() -> Machine {
    let a = cube(FP32, Layout::CubeM16, (2, 2), &bits(&[1.0, 2.0, 3.0, 4.0]));
    let b = cube(FP32, Layout::CubeN8, (2, 2), &bits(&[5.0, 6.0, 7.0, 8.0]));
    with_operands(a, b)
}

fn mnk(mn: &str, dtype: DataType, (m, n, k): (u32, u32, u32)) -> Vec<u32> {
    vec![
        bstart(mn, dtype),
        FPATR_PLAIN,
        dim(0, m),
        dim(1, n),
        dim(2, k),
    ]
}

fn run(m: &mut Machine, mut words: Vec<u32>, tail: &[u32]) -> Result<(), ptoc_runtime::Fault> {
    words.extend_from_slice(tail);
    words.push(BSTOP);
    m.run(&words)
}

#[test]
fn acc_and_bias_forms() {
    // [[1,2],[3,4]]·[[5,6],[7,8]] = [[19,22],[43,50]].
    let mut m = fp32_operands();
    let c = cube(
        FP32,
        Layout::CubeM16,
        (2, 2),
        &bits(&[0.5, -1.0, 100.0, 0.25]),
    );
    m.load(reg(2), c).unwrap();
    let size = m.tile(reg(2)).unwrap().size_code.unwrap().code();
    // _ACC: B.IOT C, A; B.IOT B, last, ->U (C is code 2, the DstTile field 1: distinct).
    let tail = [
        iot(&[2, 0], false, "1111", None),
        iot(&[1], true, "1111", Some((Hand::U, size))),
    ];
    run(&mut m, mnk("TMATMUL_ACC", FP32, (2, 2, 2)), &tail).unwrap();
    let d = m.tile(reg(16)).unwrap();
    assert_eq!(
        d.valid_values(),
        bits(&[19.5, 21.0, 143.0, 50.25])
            .into_iter()
            .map(Some)
            .collect::<Vec<_>>()
    );
    // _BIAS: B.IOT A, B; B.IOT bias (a 1×2 row-major FP32 tile), last, ->N.
    let mut m = fp32_operands();
    m.load(reg(3), tile(FP32, 1, 32, (1, 2), &bits(&[1.0, -2.0])))
        .unwrap();
    let tail = [
        iot(&[0, 1], false, "1111", None),
        iot(&[3], true, "1111", Some((Hand::N, 1))),
    ];
    run(&mut m, mnk("TMATMUL_BIAS", FP32, (2, 2, 2)), &tail).unwrap();
    let d = m.tile(reg(48)).unwrap();
    assert_eq!(
        d.valid_values(),
        bits(&[20.0, 20.0, 44.0, 48.0])
            .into_iter()
            .map(Some)
            .collect::<Vec<_>>()
    );
}

#[test]
fn narrow_and_integer_inputs_accumulate_wide() {
    // FP16 [[1.5, -2]]·[[2],[0.25]] = 3 - 0.5 = 2.5 in FP32 (TGEMV: M = 1).
    let a = cube(FP16, Layout::CubeM16, (1, 2), &[0x3E00, 0xC000]);
    let b = cube(FP16, Layout::CubeN8, (2, 1), &[0x4000, 0x3400]);
    let mut m = with_operands(a, b);
    let tail = [iot(&[0, 1], true, "1111", Some((Hand::U, 1)))];
    run(&mut m, mnk("TGEMV", FP16, (1, 1, 2)), &tail).unwrap();
    let d = m.tile(reg(16)).unwrap();
    assert_eq!(
        (d.dtype, d.get(0, 0)),
        (FP32, Some(2.5f32.to_bits() as u64))
    );
    // S8: [-128, 127]·[-128, 2] = 16384 + 254 in S32.
    let a = cube(S8, Layout::CubeM32, (1, 2), &[0x80, 0x7F]);
    let b = cube(S8, Layout::CubeN8, (2, 1), &[0x80, 0x02]);
    let mut m = with_operands(a, b);
    run(&mut m, mnk("TMATMUL", S8, (1, 1, 2)), &tail).unwrap();
    let d = m.tile(reg(16)).unwrap();
    assert_eq!(
        (d.dtype, d.layout, d.get(0, 0)),
        (S32, Layout::CubeM32, Some(16638))
    );
}

fn fault(m: &mut Machine, words: Vec<u32>, tail: &[u32]) -> ptoc_runtime::Fault {
    let f = run(m, words, tail).unwrap_err();
    assert!(m.tile(reg(16)).is_none(), "a fault publishes nothing: {f}");
    f
}

#[test]
fn illegal_matrix_bundles_fault_before_any_effect() {
    let to_u = [iot(&[0, 1], true, "1111", Some((Hand::U, 1)))];
    // No B.FPATR: Fault_BundleControl.
    let mut m = fp32_operands();
    let mut words = mnk("TMATMUL", FP32, (2, 2, 2));
    words.remove(1);
    assert_eq!(fault(&mut m, words, &to_u).class, FaultClass::BundleControl);
    // A second B.FPATR, and a B.FPATR in a vector block: Fault_BundleControl as they arrive.
    let mut words = mnk("TMATMUL", FP32, (2, 2, 2));
    words.insert(1, FPATR_PLAIN);
    assert_eq!(fault(&mut m, words, &to_u).class, FaultClass::BundleControl);
    let words = vec![bstart("TADD", FP32), FPATR_PLAIN];
    assert_eq!(fault(&mut m, words, &to_u).class, FaultClass::BundleControl);
    // K disagrees with the operands, GEMV with M = 2, mixed classes: Fault_TileLegality.
    let f = fault(&mut m, mnk("TMATMUL", FP32, (2, 2, 3)), &to_u);
    assert_eq!(f.class, FaultClass::TileLegality, "{f}");
    let f = fault(&mut m, mnk("TGEMV", FP32, (2, 2, 2)), &to_u);
    assert_eq!(f.class, FaultClass::TileLegality, "{f}");
    let mut words = mnk("TMATMUL", FP32, (2, 2, 2));
    words.insert(1, datr(Some(S8), PadValue::Zero));
    assert_eq!(fault(&mut m, words, &to_u).class, FaultClass::TileLegality);
    // Operands swapped: A is not in an M layout.
    let swapped = [iot(&[1, 0], true, "1111", Some((Hand::U, 1)))];
    let f = fault(&mut m, mnk("TMATMUL", FP32, (2, 2, 2)), &swapped);
    assert_eq!(f.class, FaultClass::TileLegality, "{f}");
    // A 16×64 FP32 D takes 32 cells of 16×2, 4 KiB: SizeCode 1 (128 B) is Fault_TileAllocation.
    let a = cube(FP32, Layout::CubeM16, (16, 1), &bits(&[1.0; 16]));
    let b = cube(FP32, Layout::CubeN8, (1, 64), &bits(&[1.0; 64]));
    let mut m = with_operands(a, b);
    let f = fault(&mut m, mnk("TMATMUL", FP32, (16, 64, 1)), &to_u);
    assert_eq!(f.class, FaultClass::TileAllocation, "{f}");
    // Post-processing is not in ptoc's profile: Fault_IllegalInstruction.
    let mut m = fp32_operands();
    let mut words = mnk("TMATMUL", FP32, (2, 2, 2));
    words[1] = 0x0080_2023; // ReluMode 1
    assert_eq!(
        fault(&mut m, words, &to_u).class,
        FaultClass::IllegalInstruction
    );
}

#[test]
fn cube_tiles_feed_only_matrix_ops_and_cube_stores() {
    let mut m = fp32_operands();
    // TADD of A with itself, and an ordinary TSTORE of A, are Fault_TileLegality.
    let words = vec![bstart("TADD", FP32), dim(0, 2), dim(1, 2)];
    let f = run(
        &mut m,
        words,
        &[iot(&[0, 0], true, "1111", Some((Hand::U, 1)))],
    )
    .unwrap_err();
    assert_eq!(f.class, FaultClass::TileLegality, "{f}");
    let out = m.map_gm(vec![0; 64]);
    m.set_gpr(2, out);
    m.set_gpr(3, 8);
    let words = vec![0x0811_1181, iot(&[0], true, "1111", None), IOR_A0_A1];
    let f = run(&mut m, words, &[]).unwrap_err();
    assert_eq!(f.class, FaultClass::TileLegality, "{f}");
    // A CUBE store whose layout is not the tile's: Fault_TileLegality.
    let words = vec![
        0x0811_1181,
        transport(Layout::CubeN8.store_code().unwrap(), PadValue::Zero),
        dim(0, 2),
        dim(1, 2),
        iot(&[0], true, "1111", None),
        IOR_A0_A1,
    ];
    let f = run(&mut m, words, &[]).unwrap_err();
    assert_eq!(f.class, FaultClass::TileLegality, "{f}");
    // A CUBE load with LB2: Fault_TileLegality.
    let mut words = load_words(FP32, Layout::CubeM16, 2, 2, 1);
    words.insert(4, dim(2, 2));
    words.pop();
    let f = run(&mut m, words, &[]).unwrap_err();
    assert_eq!(f.class, FaultClass::TileLegality, "{f}");
    assert_eq!(f32_values(m.gm_buffer(out).unwrap()), [0.0; 16]);
}
