//! The unary elementwise ops other than EXP: TABS, TNEG, TRELU, TSQRT, TRECIP, TRSQRT, TLOG
//! (docs/isa.md §1.6).
//!
//! - TABS and TNEG touch only the sign bit of a float (a signalling NaN stays signalling and
//!   raises nothing); on integers they are `|x|` and `0 - x` modulo the width.
//! - TRELU maps negatives and both zeros to +0 and every NaN to the canonical NaN (NV if
//!   signalling); on signed integers negatives become 0.
//! - TSQRT, TRECIP and TRSQRT are correctly rounded (RNE, one rounding): the exact square root,
//!   quotient or reciprocal square root is formed in integers with a sticky bit and handed to the
//!   one rounder. TRSQRT is never `1/sqrt(x)` rounded twice.
//! - TLOG is computed like EXP: binary64 `ln`, rounded once to the type; FP64 uses libm `ln`.
//!
//! Special values follow the contracts: `sqrt(-0) = -0`, `1/±0 = ±inf` with DZ, `rsqrt(±0) = ±inf`
//! with DZ, `rsqrt(+inf) = +0`, `log(±0) = -inf` with DZ, `log(1) = +0` exactly; negative
//! nonzero inputs of SQRT, RSQRT and LOG give the canonical NaN with NV. E4M3 has no infinity:
//! where an infinity would be produced it gives its canonical NaN.

use super::float_arith::{div, nan_operand};
use super::format::{Class, Format, Unpacked, FP64};
use super::integer;
use super::round::{round_exact, round_f64, to_f64};
use super::{Flags, DZ, NV, NX};
use num_bigint::BigUint;
use ptoc_isa::profile::{ExpAccuracy, PROFILE};

/// TABS on a float: clear the sign bit.
pub fn float_abs(fmt: &Format, a: u64) -> (u64, Flags) {
    (a & !fmt.sign_bit(), 0)
}

/// TNEG on a float: flip the sign bit.
pub fn float_neg(fmt: &Format, a: u64) -> (u64, Flags) {
    (a ^ fmt.sign_bit(), 0)
}

/// TRELU on a float.
pub fn float_relu(fmt: &Format, a: u64) -> (u64, Flags) {
    let u = fmt.unpack(a);
    match u.class {
        Class::Nan { signaling } => nan_operand(fmt, signaling),
        Class::Zero => (fmt.zero(false), 0),
        Class::Inf | Class::Finite { .. } if u.negative => (fmt.zero(false), 0),
        Class::Inf | Class::Finite { .. } => (a, 0),
    }
}

/// TRECIP: `1 / a`, exactly TDIV of the typed one by `a` (one rounding, the same specials).
pub fn recip(fmt: &Format, a: u64) -> (u64, Flags) {
    div(fmt, fmt.one(), a)
}

/// The special values SQRT, RSQRT and LOG share: a NaN gives the canonical NaN (NV if
/// signalling); a negative nonzero input the canonical NaN with NV. `None` for zeros and
/// non-negative numbers, which each op handles.
fn nan_or_negative(fmt: &Format, u: &Unpacked) -> Option<(u64, Flags)> {
    match u.class {
        Class::Nan { signaling } => Some(nan_operand(fmt, signaling)),
        Class::Zero => None,
        Class::Inf | Class::Finite { .. } if u.negative => Some((fmt.canonical_nan, NV)),
        Class::Inf | Class::Finite { .. } => None,
    }
}

/// `mant · 2^exp` with an even exponent and at least `bits` significant bits in `mant`.
fn widened(mant: u64, exp: i32, bits: u32) -> (BigUint, i32) {
    let len = 64 - mant.leading_zeros();
    let mut shift = bits.saturating_sub(len) as i32;
    if (exp - shift) % 2 != 0 {
        shift += 1;
    }
    (BigUint::from(mant) << shift as usize, exp - shift)
}

/// `value · 2^exp`, truncated (`inexact` says the true value lies strictly above it), as the
/// mantissa and exponent `round_exact` takes: at most 121 bits, with a sticky bit below them that
/// stands for everything dropped. The truncated value has more bits than any format keeps, so a
/// value strictly inside `(value, value + 1)` rounds as the sticky form does.
fn to_rounder(value: BigUint, exp: i32, inexact: bool) -> (u128, i32) {
    let excess = value.bits().saturating_sub(120) as usize;
    let kept = &value >> excess;
    let dropped = kept.clone() << excess != value;
    let digits = kept.to_u64_digits();
    let mant = digits.first().copied().unwrap_or(0) as u128
        | (digits.get(1).copied().unwrap_or(0) as u128) << 64;
    let sticky = inexact || dropped;
    ((mant << 1) | sticky as u128, exp + excess as i32 - 1)
}

/// TABS on an integer: `|x|` modulo the width (`S*_MIN` keeps its bits); unsigned unchanged.
pub fn int_abs(signed: bool, bits: u32, a: u64) -> u64 {
    if signed && (a >> (bits - 1)) & 1 == 1 {
        int_neg(bits, a)
    } else {
        a
    }
}

/// TNEG on an integer: `0 - x` modulo the width, signed and unsigned alike.
pub fn int_neg(bits: u32, a: u64) -> u64 {
    integer::sub(bits, 0, a)
}

/// TRELU on an integer: negative signed values become 0; unsigned unchanged.
pub fn int_relu(signed: bool, bits: u32, a: u64) -> u64 {
    if signed && (a >> (bits - 1)) & 1 == 1 {
        0
    } else {
        a
    }
}

/// TSQRT: the exact square root, rounded once.
pub fn sqrt(fmt: &Format, a: u64) -> (u64, Flags) {
    let u = fmt.unpack(a);
    if let Some(special) = nan_or_negative(fmt, &u) {
        return special;
    }
    match u.class {
        // sqrt(±0) = ±0 and sqrt(+inf) = +inf: the input itself.
        Class::Zero | Class::Inf | Class::Nan { .. } => (a, 0),
        Class::Finite { mant, exp } => {
            // sqrt(m · 2^e) = sqrt(m') · 2^(e'/2) with e' even and m' wide enough that the
            // integer root has the format's precision and more.
            let (wide, even_exp) = widened(mant, exp, 2 * (fmt.frac_bits + 8));
            let root = wide.sqrt();
            let inexact = &root * &root != wide;
            let (m, e) = to_rounder(root, even_exp / 2, inexact);
            round_exact(fmt, false, m, e, false)
        }
    }
}

/// TRSQRT: the exact `1 / sqrt(a)`, rounded once.
pub fn rsqrt(fmt: &Format, a: u64) -> (u64, Flags) {
    let u = fmt.unpack(a);
    if let Some(special) = nan_or_negative(fmt, &u) {
        return special;
    }
    match u.class {
        Class::Zero => (fmt.inf_or_nan(u.negative), DZ),
        Class::Inf | Class::Nan { .. } => (fmt.zero(false), 0),
        Class::Finite { mant, exp } => {
            // 1/sqrt(m · 2^e) with e even = 2^(-e/2) / sqrt(m) = 2^(-e/2 - t) · sqrt(2^2t / m),
            // and floor(sqrt(floor(2^2t / m))) = floor(sqrt(2^2t / m)).
            let (m, e) = if exp % 2 == 0 {
                (mant, exp)
            } else {
                (mant << 1, exp - 1)
            };
            let len = 64 - m.leading_zeros();
            let t = fmt.frac_bits + 8 + len.div_ceil(2);
            let scaled = BigUint::from(1u8) << (2 * t as usize);
            let divisor = BigUint::from(m);
            let (q, r) = (&scaled / &divisor, &scaled % &divisor);
            let root = q.sqrt();
            let inexact = r != BigUint::from(0u8) || &root * &root != q;
            let (mm, ee) = to_rounder(root, -e / 2 - t as i32, inexact);
            round_exact(fmt, false, mm, ee, false)
        }
    }
}

/// TLOG: `ln(a)`, computed like EXP (the profile's accuracy decision).
pub fn log(fmt: &Format, a: u64) -> (u64, Flags) {
    let u = fmt.unpack(a);
    if let Some(special) = nan_or_negative(fmt, &u) {
        return special;
    }
    match u.class {
        Class::Zero => (fmt.inf_or_nan(true), DZ),
        Class::Inf | Class::Nan { .. } => (a, 0),
        Class::Finite { .. } if a == fmt.one() => (fmt.zero(false), 0),
        // ln is irrational at every other positive rational, so the result is always inexact;
        // |ln x| is never tiny or huge enough to underflow or overflow any format.
        Class::Finite { .. } => match PROFILE.exp_accuracy {
            ExpAccuracy::Binary64ThenRound => {
                let y = to_f64(fmt, a).ln();
                if *fmt == FP64 {
                    (y.to_bits(), NX)
                } else {
                    round_f64(fmt, y, true)
                }
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::super::format::*;
    use super::super::{DZ, NV, NX, OF, UF};
    use super::*;

    /// The contracts' stated special values, bit for bit.
    #[test]
    fn special_values_follow_the_contracts() {
        let snan = 0x7F80_0001;
        assert_eq!(
            float_abs(&FP32, 0xFF80_0001),
            (0x7F80_0001, 0),
            "sNaN stays sNaN"
        );
        assert_eq!(float_neg(&FP32, snan), (0xFF80_0001, 0));
        assert_eq!(float_neg(&FP32, 0), (0x8000_0000, 0));
        assert_eq!(float_relu(&FP32, snan), (0x7FC0_0000, NV));
        assert_eq!(float_relu(&FP32, 0x8000_0000), (0, 0), "-0 -> +0");
        assert_eq!(float_relu(&FP32, 0xFF80_0000), (0, 0), "-inf -> +0");
        assert_eq!(float_relu(&E4M3, 0xFF), (0x7F, 0), "E4M3 NaNs are quiet");
        assert_eq!(sqrt(&FP32, 0x8000_0000), (0x8000_0000, 0), "sqrt(-0) = -0");
        assert_eq!(sqrt(&FP32, 0xBF80_0000), (0x7FC0_0000, NV), "sqrt(-1)");
        assert_eq!(sqrt(&FP32, 0xFF80_0000), (0x7FC0_0000, NV), "sqrt(-inf)");
        assert_eq!(sqrt(&FP32, 0x7F80_0000), (0x7F80_0000, 0));
        assert_eq!(recip(&FP32, 0x8000_0000), (0xFF80_0000, DZ), "1/-0 = -inf");
        assert_eq!(recip(&E4M3, 0x00), (0x7F, DZ), "E4M3 has no infinity");
        assert_eq!(recip(&FP32, 0xFF80_0000), (0x8000_0000, 0));
        assert_eq!(
            rsqrt(&FP32, 0x8000_0000),
            (0xFF80_0000, DZ),
            "rsqrt(-0) = -inf"
        );
        assert_eq!(rsqrt(&FP32, 0x7F80_0000), (0, 0), "rsqrt(+inf) = +0");
        assert_eq!(rsqrt(&FP32, 0xBF80_0000), (0x7FC0_0000, NV));
        assert_eq!(rsqrt(&E4M3, 0x80), (0x7F, DZ));
        assert_eq!(log(&FP32, 0), (0xFF80_0000, DZ), "log(0) = -inf");
        assert_eq!(log(&FP32, 0x8000_0000), (0xFF80_0000, DZ));
        assert_eq!(log(&E4M3, 0x00), (0x7F, DZ));
        assert_eq!(log(&FP32, 0x3F80_0000), (0, 0), "log(1) = +0 exactly");
        assert_eq!(log(&FP32, 0xBF80_0000), (0x7FC0_0000, NV));
        assert_eq!(log(&FP32, 0x7F80_0000), (0x7F80_0000, 0));
    }

    #[test]
    fn exact_results_raise_nothing() {
        // sqrt(4) = 2, rsqrt(4) = 0.5, rsqrt(2^-148) = 2^74 in FP32.
        assert_eq!(sqrt(&FP32, 0x4080_0000), (0x4000_0000, 0));
        assert_eq!(rsqrt(&FP32, 0x4080_0000), (0x3F00_0000, 0));
        assert_eq!(rsqrt(&FP32, 0x0000_0002), (0x6480_0000, 0));
        // sqrt(2) is inexact.
        assert_eq!(sqrt(&FP32, 0x4000_0000), (0x3FB5_04F3, NX));
        assert_eq!(sqrt(&FP64, 2f64.to_bits()), (2f64.sqrt().to_bits(), NX));
        // 1/x of the largest FP32 is subnormal and inexact; FP16 1/2^-24 overflows.
        assert_eq!(recip(&FP32, 0x7F7F_FFFF).1, UF | NX);
        assert_eq!(recip(&FP16, 0x0001), (0x7C00, OF | NX));
    }

    #[test]
    fn integer_rules_wrap_at_the_width() {
        assert_eq!(int_abs(true, 8, 0xFF), 0x01);
        assert_eq!(int_abs(true, 8, 0x80), 0x80, "S8_MIN keeps its bits");
        assert_eq!(int_abs(false, 8, 0xFF), 0xFF);
        assert_eq!(int_neg(8, 0x01), 0xFF, "U8 1 -> 0xFF");
        assert_eq!(int_neg(32, 0x8000_0000), 0x8000_0000);
        assert_eq!(int_neg(64, 0), 0);
        assert_eq!(int_relu(true, 8, 0xFF), 0);
        assert_eq!(int_relu(true, 16, 0x7FFF), 0x7FFF);
        assert_eq!(int_relu(false, 8, 0xFF), 0xFF);
    }
}
