//! IEEE 754 ADD/SUB/MUL/DIV on raw bit patterns, computed exactly and rounded once (RNE).
//!
//! The exact sum, product or quotient (with a sticky bit for the division remainder) is formed in
//! 128-bit integers and handed to [`round_exact`], so no format is ever double-rounded. Special
//! values follow IEEE 754-2019 with canonical NaN outputs (docs/isa.md §5.2); E4M3 results that would be
//! infinite become its canonical NaN (docs/isa.md §9 decision 7).

use super::format::{Class, Format, Unpacked};
use super::host_arith;
use super::round::round_exact;
use super::{Flags, DZ, NV};

/// A NaN operand gives the canonical NaN; NV if any operand is signalling.
#[inline]
fn nan_result(fmt: &Format, a: &Unpacked, b: &Unpacked) -> Option<(u64, Flags)> {
    (a.is_nan() || b.is_nan()).then(|| nan_operand(fmt, a.is_signaling() || b.is_signaling()))
}

/// The result of an op on one NaN operand: the canonical NaN, NV if the operand signals.
pub(super) fn nan_operand(fmt: &Format, signaling: bool) -> (u64, Flags) {
    (fmt.canonical_nan, if signaling { NV } else { 0 })
}

fn invalid(fmt: &Format) -> (u64, Flags) {
    (fmt.canonical_nan, NV)
}

/// `(-1)^neg_a · a + (-1)^neg_b · b` for finite or zero operands.
fn add_finite(fmt: &Format, a: (bool, u64, i32), b: (bool, u64, i32)) -> (u64, Flags) {
    let (hi, lo) = if a.2 >= b.2 { (a, b) } else { (b, a) };
    if lo.1 == 0 || hi.1 == 0 {
        let (other, zero) = if hi.1 == 0 { (lo, hi) } else { (hi, lo) };
        if other.1 == 0 {
            // ±0 + ±0: -0 only when both are -0 (RNE).
            return (fmt.zero(other.0 && zero.0), 0);
        }
        return round_exact(fmt, other.0, other.1 as u128, other.2, false);
    }
    // Put `hi` 64 bits above its lsb; `lo` aligns exactly or, when far below, becomes a sticky bit.
    const GUARD: i32 = 64;
    let wide_hi = (hi.1 as i128) << GUARD;
    let diff = hi.2 - lo.2;
    let wide_lo = if diff <= GUARD {
        (lo.1 as i128) << (GUARD - diff)
    } else {
        let shift = diff - GUARD;
        let kept = if shift >= 64 { 0 } else { lo.1 >> shift };
        let lost = shift >= 64 || kept << shift != lo.1;
        (kept | lost as u64) as i128
    };
    let signed = |neg: bool, v: i128| if neg { -v } else { v };
    let sum = signed(hi.0, wide_hi) + signed(lo.0, wide_lo);
    if sum == 0 {
        return (fmt.zero(false), 0);
    }
    round_exact(fmt, sum < 0, sum.unsigned_abs(), hi.2 - GUARD, false)
}

/// Sign, mantissa and lsb exponent of a zero or finite value.
fn parts(u: &Unpacked) -> (bool, u64, i32) {
    match u.class {
        Class::Finite { mant, exp } => (u.negative, mant, exp),
        _ => (u.negative, 0, 0),
    }
}

#[inline]
fn add_unpacked(fmt: &Format, a: Unpacked, b: Unpacked) -> (u64, Flags) {
    if let Some(r) = nan_result(fmt, &a, &b) {
        return r;
    }
    match (a.class, b.class) {
        (Class::Inf, Class::Inf) if a.negative != b.negative => invalid(fmt),
        (Class::Inf, _) => (fmt.inf_or_nan(a.negative), 0),
        (_, Class::Inf) => (fmt.inf_or_nan(b.negative), 0),
        _ => add_finite(fmt, parts(&a), parts(&b)),
    }
}

pub fn add(fmt: &Format, a: u64, b: u64) -> (u64, Flags) {
    host_arith::try_add(fmt, a, b).unwrap_or_else(|| add_exact(fmt, a, b))
}

pub fn sub(fmt: &Format, a: u64, b: u64) -> (u64, Flags) {
    host_arith::try_sub(fmt, a, b).unwrap_or_else(|| sub_exact(fmt, a, b))
}

pub fn mul(fmt: &Format, a: u64, b: u64) -> (u64, Flags) {
    host_arith::try_mul(fmt, a, b).unwrap_or_else(|| mul_exact(fmt, a, b))
}

pub fn div(fmt: &Format, a: u64, b: u64) -> (u64, Flags) {
    host_arith::try_div(fmt, a, b).unwrap_or_else(|| div_exact(fmt, a, b))
}

/// ADD in software (every format and operand).
pub(super) fn add_exact(fmt: &Format, a: u64, b: u64) -> (u64, Flags) {
    add_unpacked(fmt, fmt.unpack(a), fmt.unpack(b))
}

/// SUB in software.
pub(super) fn sub_exact(fmt: &Format, a: u64, b: u64) -> (u64, Flags) {
    let mut nb = fmt.unpack(b);
    nb.negative = !nb.negative;
    add_unpacked(fmt, fmt.unpack(a), nb)
}

/// MUL in software.
pub(super) fn mul_exact(fmt: &Format, a: u64, b: u64) -> (u64, Flags) {
    let (ua, ub) = (fmt.unpack(a), fmt.unpack(b));
    if let Some(r) = nan_result(fmt, &ua, &ub) {
        return r;
    }
    let negative = ua.negative != ub.negative;
    match (ua.class, ub.class) {
        (Class::Inf, Class::Zero) | (Class::Zero, Class::Inf) => invalid(fmt),
        (Class::Inf, _) | (_, Class::Inf) => (fmt.inf_or_nan(negative), 0),
        (Class::Zero, _) | (_, Class::Zero) => (fmt.zero(negative), 0),
        (Class::Finite { mant: ma, exp: ea }, Class::Finite { mant: mb, exp: eb }) => {
            round_exact(fmt, negative, ma as u128 * mb as u128, ea + eb, false)
        }
        _ => unreachable_nan(fmt),
    }
}

/// DIV in software.
pub(super) fn div_exact(fmt: &Format, a: u64, b: u64) -> (u64, Flags) {
    let (ua, ub) = (fmt.unpack(a), fmt.unpack(b));
    if let Some(r) = nan_result(fmt, &ua, &ub) {
        return r;
    }
    let negative = ua.negative != ub.negative;
    match (ua.class, ub.class) {
        (Class::Inf, Class::Inf) | (Class::Zero, Class::Zero) => invalid(fmt),
        (Class::Inf, _) => (fmt.inf_or_nan(negative), 0),
        (_, Class::Inf) | (Class::Zero, _) => (fmt.zero(negative), 0),
        (_, Class::Zero) => (fmt.inf_or_nan(negative), DZ),
        (Class::Finite { mant: ma, exp: ea }, Class::Finite { mant: mb, exp: eb }) => {
            // Normalise both mantissas to bit 63, then a 64-bit quotient of a 128-bit dividend has
            // 64 or 65 significant bits; the remainder becomes a sticky bit below them.
            let (sa, sb) = (ma.leading_zeros(), mb.leading_zeros());
            let num = ((ma << sa) as u128) << 64;
            let den = (mb << sb) as u128;
            let (q, r) = (num / den, num % den);
            let mant = (q << 1) | (r != 0) as u128;
            let exp = (ea - sa as i32) - (eb - sb as i32) - 65;
            round_exact(fmt, negative, mant, exp, false)
        }
        _ => unreachable_nan(fmt),
    }
}

/// The match arms above cover every non-NaN pair; NaNs returned earlier. Kept total without a panic.
fn unreachable_nan(fmt: &Format) -> (u64, Flags) {
    (fmt.canonical_nan, 0)
}

#[cfg(test)]
mod tests {
    use super::super::format::*;
    use super::super::{NX, OF, UF};
    use super::*;

    #[test]
    fn signed_zero_and_cancellation_vectors_of_facts_5_2() {
        // +1 + -1 = +0; -0 * 2 = -0; -0 + -0 = -0; -0 - +0 = -0; +0 + -0 = +0.
        assert_eq!(add(&FP32, 0x3F80_0000, 0xBF80_0000), (0, 0));
        assert_eq!(mul(&FP32, 0x8000_0000, 0x4000_0000), (0x8000_0000, 0));
        assert_eq!(add(&FP32, 0x8000_0000, 0x8000_0000), (0x8000_0000, 0));
        assert_eq!(sub(&FP32, 0x8000_0000, 0), (0x8000_0000, 0));
        assert_eq!(add(&FP32, 0, 0x8000_0000), (0, 0));
    }

    #[test]
    fn ieee_special_cases() {
        assert_eq!(add(&FP32, 0x7F80_0000, 0xFF80_0000), (0x7FC0_0000, NV));
        assert_eq!(mul(&FP16, 0x7C00, 0x0000), (0x7E00, NV));
        assert_eq!(div(&FP32, 0, 0), (0x7FC0_0000, NV));
        assert_eq!(div(&FP32, 0xBF80_0000, 0), (0xFF80_0000, DZ));
        assert_eq!(div(&E4M3, 0x38, 0), (0x7F, DZ));
        assert_eq!(add(&FP32, 0x7F80_0001, 0x3F80_0000), (0x7FC0_0000, NV));
        assert_eq!(add(&FP32, 0x7FC1_2345, 0x3F80_0000), (0x7FC0_0000, 0));
        assert_eq!(mul(&FP32, 0x7F7F_FFFF, 0x4000_0000), (0x7F80_0000, OF | NX));
        assert_eq!(mul(&E4M3, 0x7E, 0x40), (0x7F, OF | NX));
        assert_eq!(mul(&FP32, 0x0080_0000, 0x3F00_0000), (0x0040_0000, 0));
        assert_eq!(mul(&FP32, 0x0000_0001, 0x3F00_0000), (0, UF | NX));
    }

    #[test]
    fn far_apart_addends_round_correctly() {
        // 1 + 2^-60 and 1 - 2^-200 in FP64 both round to 1, inexactly.
        let one = 1f64.to_bits();
        assert_eq!(add(&FP64, one, 2f64.powi(-60).to_bits()), (one, NX));
        assert_eq!(sub(&FP64, one, 2f64.powi(-200).to_bits()), (one, NX));
        // BF16: 2^127 + 2^-133 -> 2^127, inexact.
        assert_eq!(add(&BF16, 0x7F00, 0x0001), (0x7F00, NX));
        // FP16 1 + (2^-11 + 2^-20): just above the tie between 1 and 1+2^-10, so it rounds up.
        assert_eq!(add(&FP16, 0x3C00, 0x1002), (0x3C01, NX));
        // The exact tie 1 + 2^-11 goes to even (1).
        assert_eq!(add(&FP16, 0x3C00, 0x1000), (0x3C00, NX));
    }

    #[test]
    fn division_is_correctly_rounded() {
        let (q, f) = div(&FP32, 1f32.to_bits() as u64, 3f32.to_bits() as u64);
        assert_eq!((q as u32, f), ((1f32 / 3f32).to_bits(), NX));
        let (q, f) = div(&FP64, 10f64.to_bits(), 4f64.to_bits());
        assert_eq!((f64::from_bits(q), f), (2.5, 0));
        // FP16 1/3 = 0x3555.
        assert_eq!(div(&FP16, 0x3C00, 0x4200), (0x3555, NX));
    }
}
