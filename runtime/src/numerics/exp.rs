//! EXP and EXPDIF (docs/isa.md §1.4, §1.8; §9 decisions 5 and 6).
//!
//! EXP: ±0 → typed one, +inf → +inf, −inf → +0, NaN → canonical NaN (NV if signalling). Finite
//! inputs of ≤32-bit types: exp in binary64, then one RNE rounding to the type; FP64: the
//! platform libm `exp`. A finite nonzero input always raises NX (e^x is irrational there).
//! EXPDIF: same-type pairs round SUB then EXP; mixed pairs widen exactly to FP32 first.

use super::float_arith::{nan_operand, sub};
use super::format::{Class, Format, FP16, FP32, FP64};
use super::round::{round_exact, round_f64, to_f64};
use super::{Flags, NX, OF, UF};
use ptoc_isa::profile::{ExpAccuracy, ExpDifRounding, PROFILE};
use ptoc_isa::DataType;

pub fn exp(fmt: &Format, a: u64) -> (u64, Flags) {
    let u = fmt.unpack(a);
    match u.class {
        Class::Nan { signaling } => nan_operand(fmt, signaling),
        Class::Zero => (fmt.one(), 0),
        Class::Inf if u.negative => (fmt.zero(false), 0),
        Class::Inf => (fmt.inf_or_nan(false), 0),
        Class::Finite { .. } => match PROFILE.exp_accuracy {
            ExpAccuracy::Binary64ThenRound => {
                let y = to_f64(fmt, a).exp();
                if *fmt == FP64 {
                    fp64_exp_flags(y)
                } else if y.is_infinite() {
                    (fmt.inf_or_nan(false), OF | NX)
                } else {
                    round_f64(fmt, y, true)
                }
            }
        },
    }
}

/// Flags of a libm binary64 exp result of a finite nonzero input.
fn fp64_exp_flags(y: f64) -> (u64, Flags) {
    let flags = if y.is_infinite() {
        OF | NX
    } else if y < f64::MIN_POSITIVE {
        UF | NX
    } else {
        NX
    };
    (y.to_bits(), flags)
}

/// Exact widening to FP32 for mixed EXPDIF (`ExactWidenBF16ToFP32`, `ExactWidenFP16ToFP32`):
/// BF16 shifts into the top half (payload kept); FP16 keeps its value, any NaN → 0x7FC00000.
pub fn widen_to_fp32(src: DataType, bits: u64) -> u64 {
    match src {
        DataType::BF16 => (bits & 0xFFFF) << 16,
        DataType::FP16 => {
            let u = FP16.unpack(bits);
            match u.class {
                Class::Nan { .. } => FP32.canonical_nan,
                Class::Zero => FP32.zero(u.negative),
                Class::Inf => FP32.inf_or_nan(u.negative),
                Class::Finite { mant, exp } => {
                    round_exact(&FP32, u.negative, mant as u128, exp, false).0
                }
            }
        }
        _ => bits & 0xFFFF_FFFF,
    }
}

/// Same-type EXPDIF: `exp(a - b)`, two rounded stages, flags OR'ed.
#[inline]
pub fn expdif_same(fmt: &Format, a: u64, b: u64) -> (u64, Flags) {
    match PROFILE.expdif {
        ExpDifRounding::TwoStages => {
            let (d, f1) = sub(fmt, a, b);
            let (r, f2) = exp(fmt, d);
            (r, f1 | f2)
        }
    }
}

/// Mixed EXPDIF (FP16/BF16 → FP32): widen both exactly, then FP32 SUB and FP32 EXP.
#[inline]
pub fn expdif_widening(src: DataType, a: u64, b: u64) -> (u64, Flags) {
    expdif_same(&FP32, widen_to_fp32(src, a), widen_to_fp32(src, b))
}

#[cfg(test)]
mod tests {
    use super::super::format::*;
    use super::super::NV;
    use super::*;

    #[test]
    fn special_values() {
        for (fmt, one) in [
            (&FP64, 0x3FF0_0000_0000_0000),
            (&FP32, 0x3F80_0000),
            (&TF32, 0x3F80_0000),
            (&HF32, 0x3F80_0000),
            (&FP16, 0x3C00),
            (&BF16, 0x3F80),
            (&E4M3, 0x38),
            (&E5M2, 0x3C),
        ] {
            assert_eq!(exp(fmt, 0), (one, 0));
            assert_eq!(exp(fmt, fmt.sign_bit()), (one, 0));
            assert_eq!(exp(fmt, fmt.canonical_nan), (fmt.canonical_nan, 0));
            if fmt.has_inf {
                assert_eq!(exp(fmt, fmt.inf_or_nan(false)), (fmt.inf_or_nan(false), 0));
                assert_eq!(exp(fmt, fmt.inf_or_nan(true)), (0, 0));
            }
        }
        assert_eq!(exp(&FP32, 0x7F80_0001), (0x7FC0_0000, NV));
        assert_eq!(exp(&E5M2, 0x7D), (0x7E, NV));
    }

    #[test]
    fn finite_results() {
        assert_eq!(exp(&FP32, 0x3F80_0000), (0x402D_F854, NX));
        assert_eq!(
            exp(&FP64, 1f64.to_bits()),
            (std::f64::consts::E.to_bits(), NX)
        );
        // FP16 exp(12) = 162754.8 overflows; E4M3 exp(8) = 2981 overflows to NaN.
        assert_eq!(exp(&FP16, 0x4A00), (0x7C00, OF | NX));
        assert_eq!(exp(&E4M3, 0x50), (0x7F, OF | NX));
        // FP32 exp(-104) ≈ 6.8e-46 is below half the smallest subnormal: +0 with UF.
        assert_eq!(exp(&FP32, (-104f32).to_bits() as u64), (0, UF | NX));
        // A tiny input rounds to exactly one, still inexact; 2^-24 lands just above the tie.
        assert_eq!(exp(&FP32, 0x3280_0000), (0x3F80_0000, NX));
        assert_eq!(exp(&FP32, 0x3380_0000), (0x3F80_0001, NX));
    }

    #[test]
    fn expdif_discriminator_vectors_of_facts_1_4() {
        assert_eq!(widen_to_fp32(DataType::FP16, 0x0001), 0x3380_0000);
        assert_eq!(
            expdif_widening(DataType::FP16, 0x2000, 0x0001).0,
            0x3F81_0100
        );
        assert_eq!(
            expdif_widening(DataType::BF16, 0x3F80, 0x3B00).0,
            0x402D_A16E
        );
        // The source-precision alternatives differ, so the vectors discriminate.
        let sub16 = sub(&FP16, 0x2000, 0x0001).0;
        assert_eq!(
            exp(&FP32, widen_to_fp32(DataType::FP16, sub16)).0,
            0x3F81_0101
        );
        // FP32 same-type: exp(2 - 1) = e (docs/isa.md §6 compose test, IEEE value).
        assert_eq!(expdif_same(&FP32, 0x4000_0000, 0x3F80_0000).0, 0x402D_F854);
        assert_eq!(widen_to_fp32(DataType::FP16, 0x7D00), 0x7FC0_0000);
        assert_eq!(widen_to_fp32(DataType::BF16, 0x7F81), 0x7F81_0000);
    }
}
