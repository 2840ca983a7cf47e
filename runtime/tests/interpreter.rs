//! The interpreter on real words: the worked example, the AVS execution vectors of docs/isa.md §6 and §10
//! (expand table, decoded EXPDIF, decoded TROWMAX U16, reductions), padding and definedness.

mod common;

use common::*;
use ptoc_isa::{DataType, Hand, PadValue};
use ptoc_runtime::numerics::{self, NX};
use ptoc_runtime::Machine;
use DataType::*;

#[test]
fn worked_example_trowexpandmax_fp32_words() {
    let mut m = Machine::new();
    let src: Vec<u64> = (0..128)
        .map(|i| ((i as f32 - 60.0) * 0.75).to_bits() as u64)
        .collect();
    let bc: Vec<u64> = (0..8)
        .map(|r| (r as f32 * 3.0 - 9.0).to_bits() as u64)
        .collect();
    m.load_with_mask(
        reg(0),
        tile(FP32, 3, 16, (8, 16), &src),
        "1000".parse_mask(),
    )
    .unwrap();
    m.load_with_mask(reg(1), tile(FP32, 1, 1, (8, 1), &bc), "1000".parse_mask())
        .unwrap();
    // The words of docs/isa.md §2.10 (the worked example uses mask 1111).
    let words = [
        0x0C91_9181,
        0x0100_0043,
        0x0080_1043,
        0x0409_CE13,
        0x0000_0001,
    ];
    m.run(&words).unwrap();
    let dst = m
        .tile(reg(2))
        .expect("renamed to the lowest free T register");
    assert_eq!(
        (dst.rows, dst.cols, dst.valid_rows, dst.valid_cols),
        (8, 16, 8, 16)
    );
    for r in 0..8 {
        for c in 0..16 {
            let want = f32::from_bits(src[r * 16 + c] as u32).max(f32::from_bits(bc[r] as u32));
            assert_eq!(dst.get(r, c), Some(want.to_bits() as u64), "[{r},{c}]");
        }
    }
    assert_eq!(m.flags(), 0);
    // Unloading a result frees its register: the same bundle renames to it again.
    let taken = m.unload(reg(2)).expect("the result");
    assert!(m.tile(reg(2)).is_none());
    m.run(&words).unwrap();
    assert_eq!(m.unload(reg(2)), Some(taken));
    assert_eq!(m.unload(reg(2)), None);
}

/// A machine runs the words it is given: a program after another of the same length, differing
/// in one word, runs its own op (the machine keeps the last program decoded between runs).
#[test]
fn each_run_executes_its_own_words() {
    let mut m = Machine::new();
    let src: Vec<u64> = [1.5f32, -2.0, 7.0, 0.25]
        .iter()
        .map(|x| x.to_bits() as u64)
        .collect();
    let bc: Vec<u64> = [1.0f32].iter().map(|x| x.to_bits() as u64).collect();
    m.load(reg(0), tile(FP32, 1, 4, (1, 4), &src)).unwrap();
    m.load(reg(1), tile(FP32, 1, 1, (1, 1), &bc)).unwrap();
    let program = |op| bundle(op, FP32, None, [4, 1, 0], &[0, 1], 1);
    let result = |m: &mut Machine| -> Vec<f32> {
        let t = m.unload(reg(2)).expect("the result");
        (0..4)
            .map(|c| f32::from_bits(t.get(0, c).unwrap() as u32))
            .collect()
    };
    for _ in 0..2 {
        m.run(&program("TROWEXPANDMAX")).unwrap();
        assert_eq!(result(&mut m), [1.5, 1.0, 7.0, 1.0]);
        m.run(&program("TROWEXPANDMIN")).unwrap();
        assert_eq!(result(&mut m), [1.0, -2.0, 1.0, 0.25]);
    }
    // An illegal word in place of the BSTART faults, and the valid program runs again after.
    let mut illegal = program("TROWEXPANDMAX");
    illegal[0] = 0x0000_0002;
    let fault = m.run(&illegal).unwrap_err();
    assert_eq!(fault.class, ptoc_isa::FaultClass::IllegalInstruction);
    m.run(&program("TROWEXPANDMAX")).unwrap();
    assert_eq!(result(&mut m), [1.5, 1.0, 7.0, 1.0]);
}

/// A tile block whose header reads no GPR is prepared once, when its program is decoded; one whose
/// B.DIM reads a GPR is recorded word by word as it runs. Both commit alike: the same results, the
/// same fault at the same bundle and address, and the step limit counting every word.
#[test]
fn prepared_and_word_by_word_blocks_commit_alike() {
    use ptoc_isa::encoding::Dim;
    use ptoc_isa::{FaultClass, Instruction};
    let src: Vec<u64> = [1.5f32, -2.0, 7.0, 0.25]
        .iter()
        .map(|x| x.to_bits() as u64)
        .collect();
    let one = [1.0f32.to_bits() as u64];
    // BSTART, LB0 = 4, LB1 = 1, B.IOT, BSTOP. The word-by-word form writes LB0 as GPR 5 + 1.
    let expand = |op, sources: &[u32], gpr_dim: bool| {
        let mut words = bundle(op, FP32, None, [4, 1, 0], sources, 1);
        if gpr_dim {
            words[1] = Instruction::BDim(Dim {
                lb: 0,
                reg: 5,
                imm: 1,
            })
            .encode();
        }
        words
    };
    // r0 the source, r1 an FP32 and r2 an FP16 broadcast of 1.0; results go to r3, then r4.
    let machine = || {
        let mut m = Machine::new();
        m.set_gpr(5, 3);
        m.load(reg(0), tile(FP32, 1, 4, (1, 4), &src)).unwrap();
        m.load(reg(1), tile(FP32, 1, 1, (1, 1), &one)).unwrap();
        m.load(reg(2), tile(FP16, 1, 1, (1, 1), &[0x3C00])).unwrap();
        m
    };
    let row = |m: &Machine, r| -> Vec<f32> {
        let t = m.tile(reg(r)).expect("a result");
        (0..4)
            .map(|c| f32::from_bits(t.get(0, c).unwrap() as u32))
            .collect()
    };
    for gpr_dim in [false, true] {
        // Two bundles, the second reading the first's result (r3): max then min with 1.0.
        let mut words = expand("TROWEXPANDMAX", &[0, 1], gpr_dim);
        words.extend(expand("TROWEXPANDMIN", &[3, 1], gpr_dim));
        let mut m = machine();
        m.run(&words).unwrap();
        assert_eq!(row(&m, 3), [1.5, 1.0, 7.0, 1.0], "gpr_dim {gpr_dim}");
        assert_eq!(row(&m, 4), [1.0, 1.0, 1.0, 1.0], "gpr_dim {gpr_dim}");
        // The second bundle refuses the FP16 broadcast: TileLegality at bundle 1, BSTART at byte 20.
        let mut words = expand("TROWEXPANDMAX", &[0, 1], gpr_dim);
        words.extend(expand("TROWEXPANDMAX", &[0, 2], gpr_dim));
        let fault = machine().run(&words).unwrap_err();
        assert_eq!(
            (fault.class, fault.bundle, fault.pc),
            (FaultClass::TileLegality, 1, 20),
            "gpr_dim {gpr_dim}: {fault}"
        );
        // Five words are five steps: a limit of five runs the bundle, four stops inside it.
        let words = expand("TROWEXPANDMAX", &[0, 1], gpr_dim);
        let mut m = machine();
        m.set_step_limit(5);
        m.run(&words).unwrap();
        let mut m = machine();
        m.set_step_limit(4);
        let fault = m.run(&words).unwrap_err();
        assert_eq!(
            (fault.class, fault.bundle, fault.pc),
            (FaultClass::StepLimit, 0, 0)
        );
        assert!(
            m.tile(reg(3)).is_none(),
            "the stopped bundle changed nothing"
        );
    }
}

trait ParseMask {
    fn parse_mask(&self) -> ptoc_isa::PeMask;
}
impl ParseMask for str {
    fn parse_mask(&self) -> ptoc_isa::PeMask {
        ptoc_isa::PeMask::parse(self).unwrap()
    }
}

/// The expand execution table of docs/isa.md §6: src0 valid 2×3 (128 B, Col 4), broadcast 128 B.
#[test]
fn avs_expand_vectors_row_and_column() {
    let cases: &[(&str, DataType, u64, u64, u64)] = &[
        ("ADD", U8, 250, 10, 4),
        ("SUB", S8, 2, 253, 5),
        ("MUL", U16, 400, 200, 14464),
        ("DIV", S8, 248, 2, 0xFC),
        ("MAX", U64, 0x8000_0000_0000_0000, 1, 0x8000_0000_0000_0000),
        ("MIN", S8, 255, 1, 0xFF),
    ];
    for &(op, dt, a, b, want) in cases {
        for axis in ["ROW", "COL"] {
            let mut m = Machine::new();
            m.load(reg(0), filled(dt, 1, 4, (2, 3), a)).unwrap();
            let bcast = if axis == "ROW" {
                filled(dt, 1, 1, (2, 1), b)
            } else {
                filled(dt, 1, 4, (1, 3), b)
            };
            m.load(reg(1), bcast.clone()).unwrap();
            let words = bundle(
                &format!("T{axis}EXPAND{op}"),
                dt,
                None,
                [3, 2, 4],
                &[0, 1],
                1,
            );
            m.run(&words).unwrap();
            let dst = m.tile(reg(2)).unwrap();
            assert_eq!(dst.get(1, 2), Some(want), "T{axis}EXPAND{op} {dt}");
            assert_eq!(dst.get(0, 0), Some(want));
            assert_eq!(m.tile(reg(1)), Some(&bcast), "broadcast source unchanged");
        }
    }
}

#[test]
fn avs_expand_copies() {
    let mut m = Machine::new();
    m.load(reg(0), filled(U8, 1, 1, (2, 1), 7)).unwrap();
    m.load(reg(1), filled(U8, 1, 4, (1, 3), 7)).unwrap();
    m.run(&bundle("TROWEXPAND", U8, None, [3, 2, 4], &[0], 1))
        .unwrap();
    m.run(&bundle("TCOLEXPAND", U8, None, [3, 2, 4], &[1], 1))
        .unwrap();
    for r in [2, 3] {
        let dst = m.tile(reg(r)).unwrap();
        assert_eq!(
            (dst.get(1, 2), dst.rows, dst.valid_rows, dst.valid_cols),
            (Some(7), 32, 2, 3)
        );
        // Null pad: padding undefined.
        assert_eq!(dst.get(1, 3), None);
    }
}

#[test]
fn copy_expands_do_not_check_encodings_but_max_does() {
    // docs/isa.md §10: an invalid TF32 pattern is copied unchanged; TROWEXPANDMAX rejects it.
    let mut m = Machine::new();
    m.load(reg(0), filled(TF32, 1, 1, (2, 1), 0x3F80_1000))
        .unwrap();
    m.load(reg(1), filled(TF32, 1, 4, (2, 3), 0x3F80_0000))
        .unwrap();
    m.run(&bundle("TROWEXPAND", TF32, None, [3, 2, 4], &[0], 1))
        .unwrap();
    assert_eq!(m.tile(reg(2)).unwrap().get(0, 0), Some(0x3F80_1000));
    let f = m
        .run(&bundle("TROWEXPANDMAX", TF32, None, [3, 2, 4], &[1, 0], 1))
        .unwrap_err();
    assert_eq!(f.class, ptoc_isa::FaultClass::TileLegality, "{f}");
}

/// `tile-exec-trowexpandexpdif-stage3-decoded-001`: every positive pair, row and column.
#[test]
fn decoded_expdif_all_pairs() {
    let cases: &[(DataType, Option<u32>, DataType, u64, u64)] = &[
        (FP16, None, FP16, 0x2000, 0x0001),
        (BF16, Some(0x09F0_1023), BF16, 0x3F80, 0x3B00), // DTYPE_NONE, Pad=Max
        (FP32, None, FP32, 0x4000_0000, 0x3F80_0000),
        (
            FP16,
            Some(datr(Some(FP32), PadValue::Null)),
            FP32,
            0x2000,
            0x0001,
        ),
        (
            BF16,
            Some(datr(Some(FP32), PadValue::Null)),
            FP32,
            0x3F80,
            0x3B00,
        ),
    ];
    for &(src, datr_word, dst_type, a, b) in cases {
        for (mn, function) in [
            ("TROWEXPANDEXPDIF", 0b01011u32),
            ("TCOLEXPANDEXPDIF", 0b11011),
        ] {
            let mut m = Machine::new();
            let src_cap = if dst_type == FP32 && src != FP32 {
                1
            } else {
                2
            };
            m.load(reg(1), filled(src, src_cap, 2, (2, 2), a)).unwrap();
            let bcast = if mn.starts_with("TROW") {
                filled(src, 1, 1, (2, 1), b)
            } else {
                filled(src, 1, 2, (1, 2), b)
            };
            m.load(reg(2), bcast).unwrap();
            let bstart_word = 0x0001_9181 | (0b10 << 25) | (function << 20) | (src.code() << 27);
            let mut words = vec![bstart_word];
            words.extend(datr_word);
            words.extend([
                dim(0, 2),
                dim(1, 2),
                dim(2, 2),
                iot(&[1, 2], true, "1111", Some((Hand::T, 2))),
                BSTOP,
            ]);
            m.run(&words)
                .unwrap_or_else(|f| panic!("{mn} {src}->{dst_type}: {f}"));
            let dst = m.tile(reg(0)).expect("destination renamed to register 0");
            let regs: Vec<u32> = m.allocated().map(|(r, _)| r.index()).collect();
            assert_eq!(regs, [0, 1, 2]);
            assert_eq!((dst.dtype, dst.size_code.unwrap().bytes()), (dst_type, 256));
            let want = numerics::expdif(src, dst_type, a, b).unwrap().0;
            assert_eq!(dst.get(1, 1), Some(want));
            if src != dst_type {
                let mixed = if src == FP16 {
                    0x3F81_0100
                } else {
                    0x402D_A16E
                };
                assert_eq!(want, mixed);
            }
            if datr_word == Some(0x09F0_1023) {
                // Pad=Max fills padding with BF16 max, defined.
                assert_eq!(dst.get(2, 0), Some(0x7F7F));
            }
            assert_eq!(m.flags() & NX, NX);
        }
    }
}

#[test]
fn decoded_expdif_rejected_pairs_allocate_nothing() {
    let cases: &[(DataType, DataType)] = &[(FP16, FP64), (FP16, BF16), (BF16, FP16), (FP32, FP16)];
    for &(src, dst) in cases {
        let mut m = Machine::new();
        m.load(reg(1), filled(src, 2, 2, (2, 2), 0x1000)).unwrap();
        m.load(reg(2), filled(src, 1, 1, (2, 1), 0x1000)).unwrap();
        let before = state(&m);
        let words = bundle(
            "TROWEXPANDEXPDIF",
            src,
            Some(datr(Some(dst), PadValue::Null)),
            [2, 2, 2],
            &[1, 2],
            2,
        );
        let f = m.run(&words).unwrap_err();
        assert_eq!(
            (f.class, f.bundle),
            (ptoc_isa::FaultClass::TileLegality, 0),
            "{src}->{dst}: {f}"
        );
        assert!(m.tile(reg(0)).is_none());
        assert_eq!(state(&m), before);
    }
}

/// `tile-exec-trowmax-u16-decoded-001`.
#[test]
fn decoded_trowmax_u16() {
    let mut m = Machine::new();
    m.load(reg(0), tile(U16, 1, 2, (1, 2), &[4, 9])).unwrap();
    let words = [
        0xD411_9181,
        dim(0, 2),
        dim(1, 1),
        dim(2, 2),
        iot(&[0], true, "1111", Some((Hand::T, 1))),
        BSTOP,
    ];
    m.run(&words).unwrap();
    let dst = m.tile(reg(1)).unwrap();
    assert_eq!(
        (
            dst.dtype,
            dst.cols,
            dst.valid_rows,
            dst.valid_cols,
            dst.get(0, 0)
        ),
        (U16, 1, 1, 1, Some(9))
    );
}

/// Reduction vectors of docs/isa.md §6.
#[test]
fn avs_reduction_vectors() {
    let row: &[(&str, DataType, &[u64], u64)] = &[
        ("TROWSUM", U8, &[250, 10], 4),
        ("TROWPROD", U8, &[20, 20], 144),
        ("TROWMAX", U16, &[0xFFFF, 1], 0xFFFF),
        ("TROWMIN", S8, &[0xFF, 1], 0xFF),
        ("TROWARGMAX", U8, &[1, 9, 9], 1),
        ("TROWARGMIN", U8, &[4, 2, 2], 1),
    ];
    for &(mn, dt, vals, want) in row {
        let mut m = Machine::new();
        let n = vals.len() as u32;
        m.load(reg(0), tile(dt, 1, 4, (1, n), vals)).unwrap();
        m.run(&bundle(mn, dt, None, [n, 1, 4], &[0], 1)).unwrap();
        let dst = m.tile(reg(1)).unwrap();
        assert_eq!(dst.get(0, 0), Some(want), "{mn}");
        let want_type = if mn.contains("ARG") { U32 } else { dt };
        assert_eq!(dst.dtype, want_type);
    }
    type ColCase = (&'static str, DataType, [u64; 6], u32, [u64; 2]);
    let col: &[ColCase] = &[
        ("TCOLSUM", U8, [1, 2, 3, 4, 0, 0], 2, [4, 6]),
        ("TCOLPROD", U8, [2, 3, 4, 5, 0, 0], 2, [8, 15]),
        (
            "TCOLMAX",
            U16,
            [0xFFFF, 1, 2, 0xFFFF, 0, 0],
            2,
            [0xFFFF, 0xFFFF],
        ),
        ("TCOLMIN", S8, [0xFF, 5, 1, 0xFE, 0, 0], 2, [0xFF, 0xFE]),
        ("TCOLARGMAX", U8, [2, 7, 9, 7, 9, 3], 3, [1, 0]),
        ("TCOLARGMIN", U8, [2, 7, 2, 3, 4, 3], 3, [0, 1]),
    ];
    for &(mn, dt, vals, rows, want) in col {
        let mut m = Machine::new();
        m.load(
            reg(0),
            tile(dt, 1, 2, (rows, 2), &vals[..(rows * 2) as usize]),
        )
        .unwrap();
        m.run(&bundle(mn, dt, None, [2, rows, 2], &[0], 1)).unwrap();
        let dst = m.tile(reg(1)).unwrap();
        assert_eq!([dst.get(0, 0), dst.get(0, 1)], want.map(Some), "{mn}");
    }
}

#[test]
fn padding_follows_the_pad_value_and_decision_4() {
    for (pad, want) in [
        (PadValue::Zero, Some(0)),
        (PadValue::Max, Some(0x7F7F_FFFF)),
        (PadValue::Min, Some(0xFF7F_FFFF)),
        (PadValue::Null, None),
    ] {
        let mut m = Machine::new();
        m.load(reg(0), filled(FP32, 1, 4, (2, 3), 0x3F80_0000))
            .unwrap();
        m.load(reg(1), filled(FP32, 1, 1, (2, 1), 0x4000_0000))
            .unwrap();
        // DataType field 0 (FP64) is ignored on a non-EXPDIF op (docs/isa.md §9 decision 4).
        let words = bundle(
            "TROWEXPANDMAX",
            FP32,
            Some(datr(Some(FP64), pad)),
            [3, 2, 4],
            &[0, 1],
            1,
        );
        m.run(&words).unwrap();
        let dst = m.tile(reg(2)).unwrap();
        assert_eq!(
            (dst.get(0, 3), dst.get(7, 0), dst.get(1, 2)),
            (want, want, Some(0x4000_0000)),
            "{pad:?}"
        );
    }
    // Min for an unsigned type is 0; S8 Max is 0x7F.
    let mut m = Machine::new();
    m.load(reg(0), filled(U8, 1, 4, (2, 3), 1)).unwrap();
    m.load(reg(1), filled(S8, 1, 4, (2, 3), 1)).unwrap();
    // Decision 4: the DataType field (here DTYPE_NONE, then FP64) is not applicable and ignored.
    m.run(&bundle(
        "TADD",
        U8,
        Some(datr(None, PadValue::Min)),
        [3, 2, 4],
        &[0, 0],
        1,
    ))
    .unwrap();
    m.run(&bundle(
        "TADD",
        S8,
        Some(datr(Some(FP64), PadValue::Max)),
        [3, 2, 4],
        &[1, 1],
        1,
    ))
    .unwrap();
    assert_eq!(m.tile(reg(2)).unwrap().get(0, 3), Some(0));
    assert_eq!(m.tile(reg(3)).unwrap().get(0, 3), Some(0x7F));
}

#[test]
fn elementwise_ops_and_sticky_flags() {
    let mut m = Machine::new();
    m.load(reg(0), tile(FP16, 1, 2, (1, 2), &[0x3C00, 0x7C00]))
        .unwrap();
    m.load(reg(1), tile(FP16, 1, 2, (1, 2), &[0x0000, 0x7D00]))
        .unwrap();
    m.run(&bundle("TDIV", FP16, None, [2, 1, 2], &[0, 1], 1))
        .unwrap();
    let d = m.tile(reg(2)).unwrap();
    assert_eq!((d.get(0, 0), d.get(0, 1)), (Some(0x7C00), Some(0x7E00)));
    assert_eq!(m.flags(), numerics::DZ | numerics::NV);
    // TMAX with a signalling NaN raises NV (docs/isa.md §10, the contract); flags stay sticky.
    m.run(&bundle("TMAX", FP16, None, [2, 1, 2], &[0, 0], 1))
        .unwrap();
    m.run(&bundle("TEXP", FP16, None, [2, 1, 2], &[0], 1))
        .unwrap();
    assert_eq!(m.tile(reg(4)).unwrap().get(0, 0), Some(0x4170)); // e in FP16
    assert_eq!(m.flags(), numerics::DZ | numerics::NV | NX);
}

#[test]
fn zero_mask_binding_is_a_strict_no_op() {
    let mut m = Machine::new();
    let words = [
        bstart("TADD", FP32),
        iot(&[5, 6], true, "0000", Some((Hand::T, 1))),
        BSTOP,
    ];
    m.run(&words).unwrap();
    assert_eq!(m.allocated().count(), 0);
    // Outside a bundle too.
    m.run(&[iot(&[], false, "0000", Some((Hand::T, 1)))])
        .unwrap();
}

#[test]
fn bstart_commits_the_previous_bundle() {
    let mut m = Machine::new();
    m.load(reg(0), filled(S32, 1, 4, (2, 4), 5)).unwrap();
    let mut words = bundle("TADD", S32, None, [4, 2, 0], &[0, 0], 1);
    words.pop(); // no BSTOP: the next BSTART commits it
    words.extend(bundle("TMUL", S32, None, [4, 2, 0], &[1, 1], 1));
    m.run(&words).unwrap();
    assert_eq!(m.tile(reg(2)).unwrap().get(1, 3), Some(100));
}
