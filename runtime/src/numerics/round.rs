//! The one rounding routine: an exact value `±mant · 2^exp` to a float format or to an integer,
//! under a rounding mode, with flags.
//!
//! Every float result in the runtime is produced here, so rounding, gradual underflow (tininess
//! detected after rounding), overflow (±inf, the largest finite value for the modes that round
//! toward it, or the canonical NaN for E4M3, §9 decision 7), signed zeros and the NX/UF/OF flags
//! are decided in one place (docs/isa.md §5.1–5.4). Arithmetic rounds RNE (`round_exact`); TCVT
//! rounds under its B.DATR RMode (`round_exact_in`, `round_to_integer`, docs/isa.md §1.10).

use super::format::{Class, Format, FP64};
use super::{Flags, NX, OF, UF};
use ptoc_isa::RoundingMode;

/// Whether a dropped remainder makes a quotient one larger in magnitude under `mode`. `rem`
/// compares the remainder with half a unit of the last place; `odd` is the quotient's last bit.
fn rounds_up(
    mode: RoundingMode,
    negative: bool,
    rem: std::cmp::Ordering,
    odd: bool,
    inexact: bool,
) -> bool {
    use std::cmp::Ordering::*;
    match mode {
        RoundingMode::Rne => rem == Greater || (rem == Equal && odd),
        RoundingMode::Rna => rem != Less,
        // Ties to the numerically greater candidate: away from zero when positive.
        RoundingMode::Rhb => rem == Greater || (rem == Equal && !negative),
        RoundingMode::Rtz => false,
        RoundingMode::Rdn => inexact && negative,
        RoundingMode::Rup => inexact && !negative,
        // Round to odd: a dropped bit makes the last kept bit 1.
        RoundingMode::Rto => inexact && !odd,
    }
}

/// The magnitude `mant >> shift` rounded under `mode` for a value of sign `negative`, and whether
/// any bit was dropped.
fn shift_round(mant: u128, shift: i32, negative: bool, mode: RoundingMode) -> (u128, bool) {
    if shift <= 0 {
        return (mant << (-shift) as u32, false);
    }
    let (q, rem, half) = if shift > 128 {
        // Below half a unit: the remainder is the whole value, less than 2^128 ≤ half.
        (0, mant, None)
    } else if shift == 128 {
        (0, mant, Some(1u128 << 127))
    } else {
        (
            mant >> shift,
            mant & ((1u128 << shift) - 1),
            Some(1u128 << (shift - 1)),
        )
    };
    let inexact = rem != 0;
    let against_half = half.map_or(std::cmp::Ordering::Less, |h| rem.cmp(&h));
    let up = inexact && rounds_up(mode, negative, against_half, q & 1 == 1, inexact);
    (q + up as u128, inexact)
}

/// Round the exact value `(-1)^negative · mant · 2^exp` to `fmt`, ties to even.
///
/// `known_inexact` says the value itself is already an approximation (EXP), so NX (and UF when the
/// result is tiny) are raised even if this last rounding is exact.
pub(crate) fn round_exact(
    fmt: &Format,
    negative: bool,
    mant: u128,
    exp: i32,
    known_inexact: bool,
) -> (u64, Flags) {
    round_exact_in(fmt, negative, mant, exp, known_inexact, RoundingMode::Rne)
}

/// [`round_exact`] under any rounding mode. On overflow the result is ±infinity when the mode
/// rounds away from zero for this sign (RNE, RNA and RHB always; RUP for positive, RDN for
/// negative values) and the largest finite value otherwise (RTZ, RTO, and the other directed
/// mode), as IEEE 754 specifies for the directed modes; E4M3, which has no infinity, gives its
/// NaN where an infinity would be (docs/isa.md §9 decision 7). Either way OF|NX.
pub(crate) fn round_exact_in(
    fmt: &Format,
    negative: bool,
    mant: u128,
    exp: i32,
    known_inexact: bool,
    mode: RoundingMode,
) -> (u64, Flags) {
    if mant == 0 {
        let flags = if known_inexact { UF | NX } else { 0 };
        return (fmt.zero(negative), flags);
    }
    let precision = fmt.frac_bits as i32 + 1;
    let msb = 127 - mant.leading_zeros() as i32;
    let top = msb + exp;
    let emin = fmt.emin();
    // Tininess after rounding: the result rounded to full precision with an unbounded exponent
    // is still below 2^emin.
    let tiny = top < emin && {
        let (q, _) = shift_round(mant, msb + 1 - precision, negative, mode);
        let carried = q >> precision != 0;
        top + (carried as i32) < emin
    };
    let lsb = (top + 1 - precision).max(emin - fmt.frac_bits as i32);
    let (mut q, dropped) = shift_round(mant, lsb - exp, negative, mode);
    let mut lsb = lsb;
    if q >> precision != 0 {
        q >>= 1;
        lsb += 1;
    }
    let inexact = dropped || known_inexact;
    let mut flags = if inexact { NX } else { 0 };
    if tiny && inexact {
        flags |= UF;
    }
    if q == 0 {
        return (fmt.zero(negative), flags);
    }
    let frac_mask = (1u128 << fmt.frac_bits) - 1;
    let normal = q >> fmt.frac_bits != 0;
    let biased = if normal {
        (lsb + fmt.frac_bits as i32 + fmt.bias()) as i64
    } else {
        0
    };
    let frac = (q & frac_mask) as u64;
    if fmt.exceeds_max_finite(biased as u64, frac) {
        let to_infinity = match mode {
            RoundingMode::Rne | RoundingMode::Rna | RoundingMode::Rhb => true,
            RoundingMode::Rup => !negative,
            RoundingMode::Rdn => negative,
            RoundingMode::Rtz | RoundingMode::Rto => false,
        };
        let bits = if to_infinity {
            fmt.inf_or_nan(negative)
        } else {
            fmt.max_finite_bits(negative)
        };
        return (bits, OF | NX);
    }
    (fmt.pack(negative, biased as u64, frac), flags)
}

/// The magnitude of the exact value `(-1)^negative · mant · 2^exp` rounded to an integer under
/// `mode`, and whether it was inexact; `None` when the magnitude is 2^128 or more.
pub(crate) fn round_to_integer(
    negative: bool,
    mant: u128,
    exp: i32,
    mode: RoundingMode,
) -> Option<(u128, bool)> {
    if mant != 0 && exp > 0 && (mant.leading_zeros() as i32) < exp {
        return None;
    }
    Some(shift_round(mant, -exp, negative, mode))
}

/// Round a binary64 value to `fmt` (one RNE rounding of the f64 value itself). FP32 and FP64
/// first try the host's exact narrowing ([`super::host_arith::try_narrow`]).
pub fn round_f64(fmt: &Format, value: f64, known_inexact: bool) -> (u64, Flags) {
    super::host_arith::try_narrow(fmt, value, known_inexact)
        .unwrap_or_else(|| round_f64_exact(fmt, value, known_inexact))
}

/// [`round_f64`] in software (every format and value).
pub(super) fn round_f64_exact(fmt: &Format, value: f64, known_inexact: bool) -> (u64, Flags) {
    let u = FP64.unpack(value.to_bits());
    match u.class {
        Class::Finite { mant, exp } => {
            round_exact(fmt, u.negative, mant as u128, exp, known_inexact)
        }
        Class::Zero => round_exact(fmt, u.negative, 0, 0, known_inexact),
        Class::Inf => (fmt.inf_or_nan(u.negative), 0),
        Class::Nan { .. } => (fmt.canonical_nan, 0),
    }
}

/// The exact binary64 value of a finite or infinite element (every supported format widens
/// exactly into binary64); NaNs give a quiet NaN. FP32 and FP64 widen on the host
/// ([`super::host_arith::try_widen`]).
pub fn to_f64(fmt: &Format, bits: u64) -> f64 {
    super::host_arith::try_widen(fmt, bits).unwrap_or_else(|| to_f64_exact(fmt, bits))
}

/// [`to_f64`] in software (every format).
pub(super) fn to_f64_exact(fmt: &Format, bits: u64) -> f64 {
    let u = fmt.unpack(bits);
    let magnitude = match u.class {
        Class::Zero => 0.0,
        Class::Inf => f64::INFINITY,
        Class::Nan { .. } => f64::NAN,
        Class::Finite { mant, exp } => {
            let (r, _) = round_exact(&FP64, false, mant as u128, exp, false);
            f64::from_bits(r)
        }
    };
    if u.negative {
        -magnitude
    } else {
        magnitude
    }
}

#[cfg(test)]
mod tests {
    use super::super::format::*;
    use super::*;

    #[test]
    fn ties_go_to_even_and_overflow_follows_the_format() {
        // 1 + 2^-11 is a tie between 1 and 1+2^-10 in FP16: even is 1.
        assert_eq!(
            round_exact(&FP16, false, (1 << 11) + 1, -11, false),
            (0x3C00, NX)
        );
        // 1 + 3·2^-11 ties up to 1 + 2^-9.
        assert_eq!(
            round_exact(&FP16, false, (1 << 11) + 3, -11, false),
            (0x3C02, NX)
        );
        // 65520 = midpoint of 65504 and 65536 rounds to even (65536) -> overflow to inf.
        assert_eq!(
            round_exact(&FP16, false, 65520, 0, false),
            (0x7C00, OF | NX)
        );
        assert_eq!(round_exact(&FP16, true, 65519, 0, false), (0xFBFF, NX));
        // E4M3: 464 ties to 448 (even), 465 overflows to NaN.
        assert_eq!(round_exact(&E4M3, false, 464, 0, false), (0x7E, NX));
        assert_eq!(round_exact(&E4M3, false, 465, 0, false), (0x7F, OF | NX));
        assert_eq!(round_exact(&E5M2, true, 1 << 20, 0, false), (0xFC, OF | NX));
    }

    #[test]
    fn subnormals_and_tininess_after_rounding() {
        // FP32 min subnormal 2^-149, exact: no flags.
        assert_eq!(round_exact(&FP32, false, 1, -149, false), (1, 0));
        // 2^-150 ties to even -> +0 with UF|NX.
        assert_eq!(round_exact(&FP32, false, 1, -150, false), (0, UF | NX));
        // 3·2^-151 rounds to 2^-149 (subnormal) with UF.
        assert_eq!(
            round_exact(&FP32, true, 3, -151, false),
            (0x8000_0001, UF | NX)
        );
        // (2^25-1)·2^-151 rounds to 2^-126 even with an unbounded exponent: not tiny, NX only.
        assert_eq!(
            round_exact(&FP32, false, (1 << 25) - 1, -151, false),
            (0x0080_0000, NX)
        );
        // (2^24-1)·2^-150 is exact at full precision (so tiny after rounding) but rounds up to
        // 2^-126 in the subnormal range: UF|NX.
        assert_eq!(
            round_exact(&FP32, false, (1 << 24) - 1, -150, false),
            (0x0080_0000, UF | NX)
        );
        // TF32 keeps 10 fraction bits, low 13 carrier bits zero.
        assert_eq!(
            round_exact(&TF32, false, (1 << 23) + (1 << 12) + 1, -23, false),
            (0x3F80_2000, NX)
        );
        assert_eq!(
            round_exact(&HF32, false, (1 << 23) + (1 << 12), -23, false),
            (0x3F80_1000, 0)
        );
    }

    /// The spec's `rounding` vectors to S32 (`spec/evidence/pto-isa-0583-hardware-numeric-vectors.json`),
    /// as integer roundings of exact binary values.
    #[test]
    fn integer_rounding_follows_the_spec_vectors() {
        use RoundingMode::*;
        // (value as mant·2^exp, mode, expected signed result)
        let cases: &[(f64, RoundingMode, i64)] = &[
            (2.5, Rne, 2),
            (3.5, Rne, 4),
            (-1.9, Rtz, -1),
            (-1.1, Rdn, -2),
            (1.1, Rup, 2),
            (2.1, Rna, 2),
            (-2.1, Rna, -2),
            (2.5, Rna, 3),
            (-2.5, Rna, -3),
            (2.0, Rto, 2),
            (2.25, Rto, 3),
            (-2.25, Rto, -3),
            (2.5, Rhb, 3),
            (-2.5, Rhb, -2),
        ];
        for &(x, mode, want) in cases {
            let u = FP64.unpack(x.to_bits());
            let Class::Finite { mant, exp } = u.class else {
                panic!("{x}")
            };
            let (mag, inexact) = round_to_integer(u.negative, mant as u128, exp, mode).unwrap();
            let got = if u.negative {
                -(mag as i64)
            } else {
                mag as i64
            };
            assert_eq!(got, want, "{x} {mode:?}");
            assert_eq!(inexact, x.fract() != 0.0, "{x} {mode:?}");
        }
        assert_eq!(round_to_integer(false, 1, 128, Rne), None);
        assert_eq!(
            round_to_integer(false, 1, 127, Rne),
            Some((1 << 127, false))
        );
        // Far below one half: directed modes still see the sticky bit.
        assert_eq!(round_to_integer(false, 1, -300, Rup), Some((1, true)));
        assert_eq!(round_to_integer(true, 1, -300, Rup), Some((0, true)));
    }

    #[test]
    fn overflow_depends_on_the_mode() {
        use RoundingMode::*;
        for (mode, pos, neg) in [
            (Rne, 0x7C00, 0xFC00),
            (Rtz, 0x7BFF, 0xFBFF),
            (Rup, 0x7C00, 0xFBFF),
            (Rdn, 0x7BFF, 0xFC00),
            (Rto, 0x7BFF, 0xFBFF),
            (Rna, 0x7C00, 0xFC00),
            (Rhb, 0x7C00, 0xFC00),
        ] {
            assert_eq!(
                round_exact_in(&FP16, false, 1 << 20, 0, false, mode),
                (pos, OF | NX)
            );
            assert_eq!(
                round_exact_in(&FP16, true, 1 << 20, 0, false, mode),
                (neg, OF | NX)
            );
        }
        // E4M3: where an infinity would be, its NaN; else 448.
        assert_eq!(
            round_exact_in(&E4M3, false, 1000, 0, false, Rne),
            (0x7F, OF | NX)
        );
        assert_eq!(
            round_exact_in(&E4M3, true, 1000, 0, false, Rtz),
            (0xFE, OF | NX)
        );
        // Just above the largest finite value, RTZ keeps it without overflow.
        assert_eq!(round_exact_in(&E4M3, false, 449, 0, false, Rtz), (0x7E, NX));
        // RHB ties toward +inf: -(65504 + 16) ties to -65504, +(65504+16) overflows.
        assert_eq!(
            round_exact_in(&FP16, true, 65520, 0, false, Rhb),
            (0xFBFF, NX)
        );
        assert_eq!(
            round_exact_in(&FP16, false, 65520, 0, false, Rhb),
            (0x7C00, OF | NX)
        );
    }

    #[test]
    fn f64_round_trip() {
        for x in [1.5f64, -0.0, 1e-310, 6.5e4, -3.0e38] {
            let (b, _) = round_f64(&FP64, x, false);
            assert_eq!(b, x.to_bits());
            assert_eq!(to_f64(&FP64, b).to_bits(), x.to_bits());
        }
        assert_eq!(to_f64(&E4M3, 0x7E), 448.0);
        assert_eq!(to_f64(&FP16, 0x0001), 2f64.powi(-24));
    }
}
