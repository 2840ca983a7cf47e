//! Property tests of the word formats: encode∘decode is the identity on every legal field
//! combination, and every reserved code is rejected.

use proptest::prelude::*;
use ptoc_isa::dtype::{DataType, PadValue};
use ptoc_isa::encoding::{BStart, Datr, Dim, Iot, IotSources, LAYOUT_CODES};
use ptoc_isa::ops::tepl_function_accepted;
use ptoc_isa::{DecodeError, Hand, Instruction, PeMask, SizeCode, TileReg};

fn data_type() -> impl Strategy<Value = DataType> {
    prop::sample::select(DataType::ALL.to_vec())
}

fn reg() -> impl Strategy<Value = TileReg> {
    (0u32..64).prop_map(|i| TileReg::new(i).unwrap())
}

fn bstart() -> impl Strategy<Value = Instruction> {
    (data_type(), 0u8..4, 0u8..32)
        .prop_filter("accepted selector", |&(_, m, f)| {
            tepl_function_accepted(m as u32, f as u32)
        })
        .prop_map(|(dtype, mode, function)| {
            Instruction::BStart(BStart {
                mode,
                function,
                dtype,
            })
        })
}

fn datr() -> impl Strategy<Value = Instruction> {
    (
        0u8..6,
        0u32..4,
        any::<bool>(),
        any::<bool>(),
        prop::option::of(data_type()),
        0u8..8,
        prop::sample::select(LAYOUT_CODES.to_vec()),
    )
        .prop_map(|(cmode, pad, sat, canonicalize, dtype, rmode, layout)| {
            Instruction::BDatr(Datr {
                cmode,
                pad: PadValue::from_code(pad),
                sat,
                canonicalize,
                dtype,
                rmode,
                layout: layout as u8,
            })
        })
}

fn dim() -> impl Strategy<Value = Instruction> {
    (0u8..3, 0u8..24, 0u32..(1 << 17))
        .prop_map(|(lb, reg, imm)| Instruction::BDim(Dim { lb, reg, imm }))
}

fn iot() -> impl Strategy<Value = Instruction> {
    let dst = prop::option::of((0u32..4, 1u32..=10))
        .prop_map(|d| d.map(|(h, s)| (Hand::from_code(h), SizeCode::new(s).unwrap())));
    (0u8..3, reg(), reg(), any::<bool>(), 0u32..8, dst)
        .prop_filter("a no-source binding needs a destination", |t| {
            t.0 != 2 || t.5.is_some()
        })
        .prop_map(|(form, a, b, last, mode, dst)| {
            let sources = match form {
                0 => IotSources::Two(a, b),
                1 => IotSources::One(a),
                _ => IotSources::None,
            };
            Instruction::BIot(Iot {
                sources,
                last,
                mask: PeMask::from_mode(mode),
                dst,
            })
        })
}

proptest! {
    #[test]
    fn encode_then_decode_is_identity(
        inst in prop_oneof![bstart(), datr(), dim(), iot(), Just(Instruction::BStop)]
    ) {
        prop_assert_eq!(Instruction::decode(inst.encode()), Ok(inst));
    }

    #[test]
    fn decoding_any_word_never_panics_and_round_trips(word in any::<u32>()) {
        // Whatever decodes re-encodes to a word that decodes to the same instruction.
        if let Ok(inst) = Instruction::decode(word) {
            prop_assert_eq!(Instruction::decode(inst.encode()), Ok(inst));
        }
    }
}

fn is_reserved(word: u32) -> bool {
    matches!(
        Instruction::decode(word),
        Err(DecodeError::Reserved { .. } | DecodeError::NonzeroFixedBits { .. })
    )
}

#[test]
fn every_reserved_code_is_rejected() {
    let reserved_types = [15u32, 21, 22, 23, 29, 30, 31];
    // BSTART: reserved DataTypes (31 is DTYPE_NONE, B.DATR only) and every selector hole.
    for code in reserved_types {
        assert!(is_reserved((code << 27) | (2 << 25) | (9 << 20) | 0x19181));
    }
    for mode in 0..4u32 {
        for function in 0..32u32 {
            let word = (1 << 27) | (mode << 25) | (function << 20) | 0x19181;
            assert_eq!(
                is_reserved(word),
                !tepl_function_accepted(mode, function),
                "mode {mode} function {function}"
            );
        }
    }
    // B.DATR: reserved DataTypes (31 = DTYPE_NONE is legal here), CMode 6-7, layouts, bits 19:18.
    for code in [15u32, 21, 22, 23, 29, 30] {
        assert!(is_reserved((code << 20) | 0x1023));
    }
    assert!(!is_reserved((31 << 20) | 0x1023));
    for cmode in [6u32, 7] {
        assert!(is_reserved((cmode << 29) | 0x1023));
    }
    for layout in (0..32u32).filter(|l| !LAYOUT_CODES.contains(l)) {
        assert!(is_reserved((layout << 7) | 0x1023));
    }
    assert!(is_reserved((1 << 18) | 0x1023));
    // B.DIM: LB select 3..7 and GPR selectors 24..31.
    for lb in 3..8u32 {
        assert!(is_reserved((lb << 12) | 0x43));
    }
    for gpr in 24..32u32 {
        assert!(is_reserved((gpr << 15) | 0x43));
    }
    // B.IOT: SizeCode 11..15 in every form, one-source form with bits 31:26 set, no-source form
    // with bits 31:20 set or without a destination.
    for size in 11..16u32 {
        for funct3 in [0b100u32, 0b101, 0b110] {
            assert!(is_reserved((size << 15) | (funct3 << 12) | 0x13));
        }
    }
    assert!(is_reserved((1 << 26) | (0b101 << 12) | (1 << 15) | 0x13));
    assert!(is_reserved((1 << 20) | (0b110 << 12) | (1 << 15) | 0x13));
    assert!(is_reserved((0b110 << 12) | 0x13));
    // B.IOR with GPR selectors 24..31; B.IOS with SizeCode 13..15.
    assert!(is_reserved((24 << 7) | 0x13));
    for size in 13..16u32 {
        assert!(is_reserved((size << 15) | (1 << 12) | 0x13));
    }
}

#[test]
fn non_32_bit_forms_are_rejected() {
    for (word, bits) in [(0x0000_003Cu32, 16), (0x0000_000E, 48), (0x0000_000F, 64)] {
        assert_eq!(
            Instruction::decode(word),
            Err(DecodeError::NotThirtyTwoBit { word, bits })
        );
    }
}
