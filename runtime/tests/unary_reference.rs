//! TSQRT, TRECIP, TRSQRT and TLOG against references that share no code with ptoc:
//! - the host's IEEE `sqrt` and division (correctly rounded by IEEE 754), and the `half` crate's
//!   software RNE conversions from f64, which round the binary64 square root of a 16-bit float
//!   correctly (53 ≥ 2p+2);
//! - for TRSQRT, which no host computes correctly rounded, the defining property checked in exact
//!   integer arithmetic: the result `y` is the representable value nearest `1/sqrt(x)`, i.e.
//!   `x·lo² ≤ 1 ≤ x·hi²` for the midpoints `lo`, `hi` between `y` and its neighbours;
//! - for TLOG, the host's binary64 `ln` rounded by Rust's own `as f32` / `half` conversions.

use num_bigint::BigUint;
use proptest::prelude::*;
use ptoc_isa::{DataType, UnaryOp};
use ptoc_runtime::numerics::{self, NV};

fn unary(op: UnaryOp, dtype: DataType, bits: u64) -> (u64, u8) {
    numerics::unary(op, dtype, bits).expect("defined on floats")
}

/// The host's f32 result as ptoc bits, with NaNs canonical (ptoc's NaN rule).
fn canonical32(v: f32) -> u64 {
    if v.is_nan() {
        0x7FC0_0000
    } else {
        v.to_bits() as u64
    }
}

/// A finite positive float `mant · 2^exp` of a format as (mant, exp), from f64 (exact for every
/// format of 32 bits or fewer, and for FP64 itself).
fn parts(v: f64) -> (u128, i32) {
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7FF) as i32;
    let frac = (bits & ((1 << 52) - 1)) as u128;
    if biased == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, biased - 1075)
    }
}

/// `x · m²` compared with 1, exactly, for finite positive `x` and `m` (each `mant · 2^exp`).
fn compare_x_m2_with_one(x: (u128, i32), m: (u128, i32)) -> std::cmp::Ordering {
    let product = BigUint::from(x.0) * BigUint::from(m.0) * BigUint::from(m.0);
    let exp = x.1 + 2 * m.1;
    let one = BigUint::from(1u8);
    if exp >= 0 {
        (product << exp as usize).cmp(&one)
    } else {
        product.cmp(&(one << (-exp) as usize))
    }
}

/// The FP32 neighbours of a finite positive `y`, as f64 (the successor of the largest finite
/// FP32 is the value one ulp past it, where rounding would overflow).
fn fp32_neighbours(y: f32) -> (f64, f64) {
    let below = f32::from_bits(y.to_bits() - 1) as f64;
    let above = if y == f32::MAX {
        y as f64 + (y as f64 - below)
    } else {
        f32::from_bits(y.to_bits() + 1) as f64
    };
    (below, above)
}

/// `y` is the FP32 value nearest `1/sqrt(x)`, ties to even: `x·lo² ≤ 1 ≤ x·hi²` for the midpoints
/// between `y` and its neighbours, with equality only on the even side.
fn is_correctly_rounded_rsqrt(x: f32, y: f32) -> bool {
    use std::cmp::Ordering::*;
    let (below, above) = fp32_neighbours(y);
    let y = y as f64;
    // Midpoints of two FP32 values are exact in f64.
    let (lo, hi) = ((below + y) / 2.0, (y + above) / 2.0);
    let xs = parts(x as f64);
    let even = (y as f32).to_bits() & 1 == 0;
    // 1/sqrt(x) ≥ lo ⟺ x·lo² ≤ 1;  1/sqrt(x) ≤ hi ⟺ x·hi² ≥ 1.
    let low_ok = match compare_x_m2_with_one(xs, parts(lo)) {
        Less => true,
        Equal => even,
        Greater => false,
    };
    let high_ok = match compare_x_m2_with_one(xs, parts(hi)) {
        Greater => true,
        Equal => even,
        Less => false,
    };
    low_ok && high_ok
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

    #[test]
    fn fp32_sqrt_and_recip_match_the_host(bits in any::<u32>()) {
        let x = f32::from_bits(bits);
        let (sqrt, sqrt_flags) = unary(UnaryOp::Sqrt, DataType::FP32, bits as u64);
        prop_assert_eq!(sqrt, canonical32(x.sqrt()), "sqrt {:e}", x);
        if x < 0.0 || (x.is_nan() && bits & 0x0040_0000 == 0) {
            prop_assert!(sqrt_flags & NV != 0);
        }
        let (recip, _) = unary(UnaryOp::Recip, DataType::FP32, bits as u64);
        prop_assert_eq!(recip, canonical32(1.0 / x), "1/{:e}", x);
    }

    #[test]
    fn fp64_sqrt_and_recip_match_the_host(bits in any::<u64>()) {
        let x = f64::from_bits(bits);
        // NaN-ness read off the bits: Rust leaves a NaN result's payload unspecified, and an
        // optimised build folded `if v.is_nan() { NaN } else { v }` to `v`, keeping the host's
        // payload-preserving quiet NaN (seen for sNaN 0x7FF0_0000_0000_0001 in release builds).
        let canonical = |v: f64| {
            let bits = v.to_bits();
            let nan = bits & 0x7FF0_0000_0000_0000 == 0x7FF0_0000_0000_0000
                && bits & 0x000F_FFFF_FFFF_FFFF != 0;
            if nan { 0x7FF8_0000_0000_0000 } else { bits }
        };
        prop_assert_eq!(unary(UnaryOp::Sqrt, DataType::FP64, bits).0, canonical(x.sqrt()));
        prop_assert_eq!(unary(UnaryOp::Recip, DataType::FP64, bits).0, canonical(1.0 / x));
    }

    #[test]
    fn fp32_rsqrt_is_the_nearest_value(bits in 1u32..0x7F80_0000) {
        let x = f32::from_bits(bits);
        let (y, _) = unary(UnaryOp::Rsqrt, DataType::FP32, bits as u64);
        let y = f32::from_bits(y as u32);
        prop_assert!(is_correctly_rounded_rsqrt(x, y), "rsqrt({:e}) gave {:e}", x, y);
    }

    #[test]
    fn fp32_log_is_binary64_ln_rounded_once(bits in 1u32..0x7F80_0000) {
        let x = f32::from_bits(bits);
        let (y, _) = unary(UnaryOp::Log, DataType::FP32, bits as u64);
        prop_assert_eq!(y, ((x as f64).ln() as f32).to_bits() as u64, "ln {:e}", x);
    }
}

/// The value of a 16-bit float's bits (decoded by `half`).
fn value16(dtype: DataType, bits: u16) -> f64 {
    match dtype {
        DataType::FP16 => half::f16::from_bits(bits).to_f64(),
        _ => half::bf16::from_bits(bits).to_f64(),
    }
}

/// The 16-bit float nearest the finite `y`, ties to even, found by brute force: positive floats
/// are ordered as their bit patterns, so a binary search over the bits brackets `|y|`, and the
/// nearer bracket wins (the differences are exact in f64: both values are within a factor of
/// two). Independent of every rounder (`half`'s conversions from f64 round some values twice).
fn nearest16(dtype: DataType, y: f64) -> u16 {
    let max_finite: u16 = if dtype == DataType::FP16 {
        0x7BFF
    } else {
        0x7F7F
    };
    let sign = if y.is_sign_negative() { 0x8000 } else { 0 };
    let m = y.abs();
    let (mut lo, mut hi) = (0u16, max_finite);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if value16(dtype, mid) <= m {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    assert!(lo < max_finite, "no overflow in these tests");
    let (below, above) = (m - value16(dtype, lo), value16(dtype, lo + 1) - m);
    let pick = if below < above || (below == above && lo & 1 == 0) {
        lo
    } else {
        lo + 1
    };
    sign | pick
}

/// Every FP16 and BF16 input: sqrt and log against the nearest 16-bit float to the binary64
/// results (the binary64 square root is correctly rounded, and nearest of it is the correctly
/// rounded 16-bit root; for ln, the profile's "binary64, rounded once").
#[test]
fn sixteen_bit_sqrt_and_log_match_the_nearest_value_exhaustively() {
    for bits in 0..=u16::MAX {
        for dtype in [DataType::FP16, DataType::BF16] {
            let x = value16(dtype, bits);
            let narrow = |v: f64| nearest16(dtype, v);
            if !x.is_finite() || x < 0.0 {
                continue; // specials are checked against the contracts' bit rules elsewhere
            }
            let (sqrt, _) = unary(UnaryOp::Sqrt, dtype, bits as u64);
            assert_eq!(sqrt, narrow(x.sqrt()) as u64, "{dtype} sqrt {x:e}");
            if x > 0.0 {
                let (log, _) = unary(UnaryOp::Log, dtype, bits as u64);
                assert_eq!(log, narrow(x.ln()) as u64, "{dtype} ln {x:e}");
            }
        }
    }
}

/// Every positive finite FP16 input: rsqrt is the nearest FP16 value (exact comparison in
/// integers, as for FP32).
#[test]
fn fp16_rsqrt_is_the_nearest_value_exhaustively() {
    use std::cmp::Ordering::*;
    for bits in 1u16..0x7C00 {
        let x = half::f16::from_bits(bits).to_f64();
        let (y, _) = unary(UnaryOp::Rsqrt, DataType::FP16, bits as u64);
        let neighbour = |b: u16| half::f16::from_bits(b).to_f64();
        let yv = neighbour(y as u16);
        let below = neighbour(y as u16 - 1);
        let above = if y as u16 == 0x7BFF {
            yv + (yv - below)
        } else {
            neighbour(y as u16 + 1)
        };
        let (lo, hi) = ((below + yv) / 2.0, (yv + above) / 2.0);
        let even = y & 1 == 0;
        let xs = parts(x);
        let low_ok = matches!(compare_x_m2_with_one(xs, parts(lo)), Less)
            || (even && compare_x_m2_with_one(xs, parts(lo)) == Equal);
        let high_ok = matches!(compare_x_m2_with_one(xs, parts(hi)), Greater)
            || (even && compare_x_m2_with_one(xs, parts(hi)) == Equal);
        assert!(low_ok && high_ok, "rsqrt({x:e}) gave {yv:e}");
    }
}
