//! TCMP's element rule against references that share no code with ptoc
//! (docs/isa.md §1.9): the host's IEEE comparisons (`f32`/`f64::partial_cmp`, where a NaN is
//! unordered) for FP32 and FP64, every pair of FP16/BF16 specials and random pairs decoded by the
//! `half` crate, every pair of E4M3/E5M2 decoded to f64 by a brute-force decoder written here,
//! and integer order at the element width from Rust's own `i64`/`u64`. NV is expected exactly
//! when an operand is a signalling NaN.

use proptest::prelude::*;
use ptoc_isa::{CmpMode, DataType};
use ptoc_runtime::numerics::compare::compare;
use std::cmp::Ordering;

/// What IEEE 754 says about `a REL b`: a NaN makes the pair unordered, so only NE holds.
fn ieee(mode: CmpMode, order: Option<Ordering>) -> bool {
    match (mode, order) {
        (CmpMode::Ne, None) => true,
        (_, None) => false,
        (CmpMode::Eq, Some(o)) => o == Ordering::Equal,
        (CmpMode::Ne, Some(o)) => o != Ordering::Equal,
        (CmpMode::Lt, Some(o)) => o == Ordering::Less,
        (CmpMode::Le, Some(o)) => o != Ordering::Greater,
        (CmpMode::Gt, Some(o)) => o == Ordering::Greater,
        (CmpMode::Ge, Some(o)) => o != Ordering::Less,
    }
}

/// Check all six modes of one pair against the reference order and signalling-ness.
fn check(dtype: DataType, a: u64, b: u64, order: Option<Ordering>, signalling: bool) {
    for mode in CmpMode::ALL {
        let got = compare(mode, dtype, a, b).expect("defined");
        let want = (ieee(mode, order), if signalling { 0x01 } else { 0 });
        assert_eq!(got, want, "{dtype} {mode:?} {a:#x} {b:#x}");
    }
}

const F32_SPECIAL: &[u32] = &[
    0,
    0x8000_0000,
    1,
    0x8000_0001,
    0x007F_FFFF,
    0x0080_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x7F7F_FFFF,
    0xFF7F_FFFF,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0xFFC0_0000,
    0x7F80_0001,
    0xFF80_0001,
    0x7FBF_FFFF,
    0x7FC0_0001,
];

fn f32_snan(x: u32) -> bool {
    f32::from_bits(x).is_nan() && x & 0x0040_0000 == 0
}

fn check_f32(a: u32, b: u32) {
    let order = f32::from_bits(a).partial_cmp(&f32::from_bits(b));
    check(
        DataType::FP32,
        a as u64,
        b as u64,
        order,
        f32_snan(a) || f32_snan(b),
    );
}

fn check_f64(a: u64, b: u64) {
    let snan = |x: u64| f64::from_bits(x).is_nan() && x & (1 << 51) == 0;
    let order = f64::from_bits(a).partial_cmp(&f64::from_bits(b));
    check(DataType::FP64, a, b, order, snan(a) || snan(b));
}

#[test]
fn fp32_and_fp64_specials() {
    for &a in F32_SPECIAL {
        for &b in F32_SPECIAL {
            check_f32(a, b);
            check_f64(
                f64::from(f32::from_bits(a)).to_bits(),
                f64::from(f32::from_bits(b)).to_bits(),
            );
        }
    }
    // FP64 signalling NaNs and subnormals of its own.
    let specials64 = [
        0x7FF0_0000_0000_0001,
        0xFFF8_0000_0000_0000,
        1,
        0x8000_0000_0000_0001,
        0,
    ];
    for a in specials64 {
        for b in specials64 {
            check_f64(a, b);
        }
    }
}

/// TF32/HF32 are FP32 with low bits zero: the same host order.
#[test]
fn tf32_and_hf32_order_as_fp32() {
    for &a in F32_SPECIAL {
        for &b in F32_SPECIAL {
            for (dtype, low) in [(DataType::TF32, 0x1FFF), (DataType::HF32, 0xFFF)] {
                let (a, b) = (a & !low, b & !low);
                let order = f32::from_bits(a).partial_cmp(&f32::from_bits(b));
                let snan = |x: u32| f32::from_bits(x).is_nan() && x & 0x0040_0000 == 0;
                check(dtype, a as u64, b as u64, order, snan(a) || snan(b));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20000))]
    #[test]
    fn fp32_random(a in any::<u32>(), b in any::<u32>(), same in any::<bool>()) {
        check_f32(a, if same { a } else { b });
    }

    #[test]
    fn fp64_random(a in any::<u64>(), b in any::<u64>(), near in any::<bool>()) {
        // Nearby pairs exercise equal exponents and signs.
        check_f64(a, if near { a ^ (b & 0xFF) } else { b });
    }

    #[test]
    fn fp16_bf16_random(a in any::<u16>(), b in any::<u16>()) {
        check_16(a, b);
    }
}

/// One pair of a format decoded to f64 by `decode`; a NaN is signalling when its `quiet` bit is
/// clear (`None`: the format has no signalling NaN).
fn check_decoded(dtype: DataType, a: u64, b: u64, decode: impl Fn(u64) -> f64, quiet: Option<u64>) {
    let snan = |x: u64| decode(x).is_nan() && quiet.is_some_and(|q| x & q == 0);
    let order = decode(a).partial_cmp(&decode(b));
    check(dtype, a, b, order, snan(a) || snan(b));
}

fn check_16(a: u16, b: u16) {
    let (a, b) = (a as u64, b as u64);
    let h = |x: u64| f64::from(half::f16::from_bits(x as u16));
    check_decoded(DataType::FP16, a, b, h, Some(0x0200));
    let bf = |x: u64| f64::from(half::bf16::from_bits(x as u16));
    check_decoded(DataType::BF16, a, b, bf, Some(0x0040));
}

#[test]
fn fp16_bf16_specials() {
    let s: [u16; 12] = [
        0, 0x8000, 1, 0x8001, 0x3C00, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x7F80, 0xFF81,
    ];
    for a in s {
        for b in s {
            check_16(a, b);
        }
    }
}

/// An 8-bit float decoded by brute force: sign, `e` exponent bits (bias `2^(e−1)−1`), `m`
/// fraction bits; subnormals at exponent field 0. E4M3 (no infinity) has NaN only at S.1111.111;
/// E5M2 is IEEE-like.
fn decode8(x: u8, e: u32, m: u32, ieee_specials: bool) -> f64 {
    let sign = if x & 0x80 != 0 { -1.0 } else { 1.0 };
    let exp = (x as u32 >> m) & ((1 << e) - 1);
    let frac = x as u32 & ((1 << m) - 1);
    let bias = (1i32 << (e - 1)) - 1;
    let max_exp = (1 << e) - 1;
    if ieee_specials && exp == max_exp {
        return if frac == 0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    if !ieee_specials && exp == max_exp && frac == (1 << m) - 1 {
        return f64::NAN;
    }
    let (mant, pow) = if exp == 0 {
        (frac as f64, 1 - bias - m as i32)
    } else {
        ((frac | (1 << m)) as f64, exp as i32 - bias - m as i32)
    };
    sign * mant * 2f64.powi(pow)
}

#[test]
fn e4m3_and_e5m2_every_pair() {
    for a in 0..=255u64 {
        for b in 0..=255u64 {
            // E4M3 has no signalling NaN.
            let e4 = |x: u64| decode8(x as u8, 4, 3, false);
            check_decoded(DataType::E4M3, a, b, e4, None);
            let e5 = |x: u64| decode8(x as u8, 5, 2, true);
            check_decoded(DataType::E5M2, a, b, e5, Some(0x02));
        }
    }
}

#[test]
fn integers_at_their_width() {
    // Every S8/U8 pair.
    for a in 0..=255u64 {
        for b in 0..=255u64 {
            check(
                DataType::S8,
                a,
                b,
                (a as u8 as i8).partial_cmp(&(b as u8 as i8)),
                false,
            );
            check(DataType::U8, a, b, a.partial_cmp(&b), false);
        }
    }
    let samples = [
        0u64,
        1,
        0x7F,
        0x80,
        0xFF,
        0x7FFF,
        0x8000,
        0xFFFF,
        0x7FFF_FFFF,
        0x8000_0000,
        0xFFFF_FFFF,
        i64::MAX as u64,
        1 << 63,
        u64::MAX,
        0x1234_5678_9ABC_DEF0,
    ];
    for &a in &samples {
        for &b in &samples {
            let cases = [
                (
                    DataType::S16,
                    (a as i16 as i64).cmp(&(b as i16 as i64)),
                    0xFFFF,
                ),
                (DataType::U16, (a as u16).cmp(&(b as u16)), 0xFFFF),
                (DataType::S32, (a as i32).cmp(&(b as i32)), 0xFFFF_FFFF),
                (DataType::U32, (a as u32).cmp(&(b as u32)), 0xFFFF_FFFF),
                (DataType::S64, (a as i64).cmp(&(b as i64)), u64::MAX),
                (DataType::U64, a.cmp(&b), u64::MAX),
            ];
            for (dtype, order, mask) in cases {
                check(dtype, a & mask, b & mask, Some(order), false);
            }
        }
    }
}
