//! MAX/MIN: the exact rules of docs/isa.md §1.8 for floats, and signed/unsigned order for integers.
//!
//! Floats: one NaN returns the other operand's raw bits, two NaNs give the positive canonical NaN
//! (docs/isa.md §10), NV iff an operand is a signalling NaN (also for elementwise TMAX/TMIN, §10), ±0 rules,
//! otherwise a sign-magnitude order key. Results are never rounded.

use super::format::Format;
use super::{Flags, NV};
use crate::elements::Carrier;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    Max,
    Min,
}

/// The magnitude bits of a float on its carrier: below the sign, above the required-zero bits.
#[inline(always)]
fn body<C: Carrier>(fmt: &Format) -> C {
    let low = (1u64 << fmt.low_zero_bits) - 1;
    C::from_bits((fmt.sign_bit() - 1) & !low)
}

/// Whether `x` is a NaN (compared in place, required-zero low bits ignored).
#[inline(always)]
pub fn is_nan_in<C: Carrier>(fmt: &Format, x: C) -> bool {
    let inf = C::from_bits(fmt.inf_or_nan(false));
    if fmt.has_inf {
        x & body(fmt) > inf
    } else {
        x & body(fmt) == inf & body(fmt)
    }
}

/// The status MAX/MIN raises for one float operand: NV when it is a signalling NaN. An
/// operation's flags are the OR over its two operands, so a tile loop may collect them from the
/// operands alone.
#[inline(always)]
pub fn float_pick_flag_in<C: Carrier>(fmt: &Format, x: C) -> Flags {
    let quiet = C::from_bits(1 << (fmt.frac_bits - 1 + fmt.low_zero_bits));
    let signalling = fmt.has_inf & is_nan_in(fmt, x) & (x & quiet == C::default());
    if signalling {
        NV
    } else {
        0
    }
}

/// MAX/MIN of one float format on any carrier wide enough for it, branch-free so that element
/// loops over native carriers vectorise: the NaN cases as selects around
/// [`float_pick_ordered_in`].
#[inline(always)]
pub fn float_pick_in<C: Carrier>(fmt: &Format, pick: Pick, a: C, b: C) -> (C, Flags) {
    let mask = C::from_bits(fmt.carrier_mask());
    let (a, b) = (a & mask, b & mask);
    let ordered = float_pick_ordered_in(fmt, pick, a, b);
    let (a_nan, b_nan) = (is_nan_in(fmt, a), is_nan_in(fmt, b));
    let result = if a_nan && b_nan {
        C::from_bits(fmt.canonical_nan)
    } else if a_nan {
        b
    } else if b_nan {
        a
    } else {
        ordered
    };
    (
        result,
        float_pick_flag_in(fmt, a) | float_pick_flag_in(fmt, b),
    )
}

/// [`float_pick_in`] of two operands that are not NaNs (no status then): about half the vector
/// instructions of the whole rule. With the sign bit flipped, sign-magnitude bits order as
/// unsigned numbers unless both are negative; so while `b` is not negative the pick is the larger
/// or the smaller of the flipped pair (a signed max or min when the sign is the carrier's top
/// bit). A negative `b` is above every non-negative value as raw unsigned bits, and among
/// negatives the larger raw bits are the more negative, so the pick is then the smaller or the
/// larger raw pair. Keyed on `b`'s sign alone, that is a max, a min and a blend on `b`'s sign bit.
/// ±0 already order as −0 < +0.
#[inline(always)]
pub fn float_pick_ordered_in<C: Carrier>(fmt: &Format, pick: Pick, a: C, b: C) -> C {
    let c = |bits: u64| C::from_bits(bits);
    let (mask, sign) = (c(fmt.carrier_mask()), c(fmt.sign_bit()));
    let (a, b) = (a & mask, b & mask);
    let zero = C::default();
    let (above, below) = if a ^ sign >= b ^ sign { (a, b) } else { (b, a) };
    let (raw_above, raw_below) = if a >= b { (a, b) } else { (b, a) };
    let b_negative = b & sign != zero;
    let ordered = match (pick, b_negative) {
        (Pick::Max, false) => above,
        (Pick::Min, false) => below,
        (Pick::Max, true) => raw_below,
        (Pick::Min, true) => raw_above,
    };
    // Only TF32/HF32 zeros with low bits set need the zero rule.
    let both_zero = fmt.low_zero_bits != 0 && (a | b) & body(fmt) == zero;
    let signed_zero = match pick {
        Pick::Max => a & b & sign,
        Pick::Min => (a | b) & sign,
    };
    if both_zero {
        signed_zero
    } else {
        ordered
    }
}

/// [`float_pick_in`] on `u64` carriers (bits above the format's width are ignored).
#[inline(always)]
pub fn float_pick(fmt: &Format, pick: Pick, a: u64, b: u64) -> (u64, Flags) {
    float_pick_in(fmt, pick, a, b)
}

/// Integer MAX/MIN at `bits` width on any carrier at least that wide; on ties the left operand
/// (equal anyway).
#[inline(always)]
pub fn int_pick_in<C: Carrier>(signed: bool, bits: u32, pick: Pick, a: C, b: C) -> C {
    let mask = C::from_bits(if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    });
    let (a, b) = (a & mask, b & mask);
    // Flipping the sign bit turns two's complement order into unsigned order.
    let bias = C::from_bits(if signed { 1u64 << (bits - 1) } else { 0 });
    let left = match pick {
        Pick::Max => (a ^ bias) >= (b ^ bias),
        Pick::Min => (a ^ bias) <= (b ^ bias),
    };
    if left {
        a
    } else {
        b
    }
}

/// [`int_pick_in`] on `u64` carriers.
#[inline(always)]
pub fn int_pick(signed: bool, bits: u32, pick: Pick, a: u64, b: u64) -> u64 {
    int_pick_in(signed, bits, pick, a, b)
}

#[cfg(test)]
mod tests {
    use super::super::format::*;
    use super::super::format::{Class, Unpacked};
    use super::*;
    use Pick::*;

    #[test]
    fn avs_float_vectors_of_facts_1_8() {
        assert_eq!(
            float_pick(&FP32, Max, 0xC000_0000, 0xBF80_0000),
            (0xBF80_0000, 0)
        );
        assert_eq!(
            float_pick(&FP32, Min, 0xC000_0000, 0xBF80_0000),
            (0xC000_0000, 0)
        );
        assert_eq!(
            float_pick(&FP32, Max, 0x7FC0_0001, 0x3F80_0000),
            (0x3F80_0000, 0)
        );
        assert_eq!(
            float_pick(&FP32, Max, 0x7FC0_0000, 0x7FC0_0000),
            (0x7FC0_0000, 0)
        );
        assert_eq!(
            float_pick(&FP32, Max, 0x7F80_0001, 0x3F80_0000),
            (0x3F80_0000, NV)
        );
        for (a, b, max, min) in [
            (0x8000_0000, 0, 0, 0x8000_0000),
            (0, 0x8000_0000, 0, 0x8000_0000),
            (0x8000_0000, 0x8000_0000, 0x8000_0000, 0x8000_0000),
            (0, 0, 0, 0),
        ] {
            assert_eq!(float_pick(&FP32, Max, a, b), (max, 0));
            assert_eq!(float_pick(&FP32, Min, a, b), (min, 0));
        }
    }

    #[test]
    fn two_nans_give_the_positive_canonical_nan() {
        assert_eq!(float_pick(&E4M3, Max, 0xFF, 0xFF), (0x7F, 0));
        assert_eq!(float_pick(&FP16, Min, 0xFE01, 0xFC01), (0x7E00, NV));
        // One NaN returns the other operand unchanged, even a negative zero.
        assert_eq!(float_pick(&BF16, Min, 0xFFC0, 0x8000), (0x8000, 0));
    }

    /// The in-place NaN test ([`is_nan_in`]) against the format's full unpack (and `half`'s), on
    /// every 8- and 16-bit pattern and on 32- and 64-bit patterns around each class boundary.
    #[test]
    fn nan_test_in_place_agrees_with_the_unpack() {
        let agrees = |fmt: &Format, x: u64| {
            assert_eq!(is_nan_in(fmt, x), fmt.unpack(x).is_nan(), "{x:#x}");
        };
        for x in 0..=0xFF {
            [&E4M3, &E5M2].into_iter().for_each(|fmt| agrees(fmt, x));
        }
        for x in 0..=0xFFFFu16 {
            [&FP16, &BF16]
                .into_iter()
                .for_each(|fmt| agrees(fmt, x.into()));
            assert_eq!(is_nan_in(&FP16, x), half::f16::from_bits(x).is_nan());
            assert_eq!(is_nan_in(&BF16, x), half::bf16::from_bits(x).is_nan());
        }
        for fmt in [&FP32, &TF32, &HF32, &FP64] {
            let inf = fmt.inf_or_nan(false);
            let step = 1 << fmt.low_zero_bits;
            for m in [
                0,
                step,
                inf - step,
                inf,
                inf + step,
                fmt.canonical_nan,
                fmt.sign_bit() - step,
            ] {
                for x in [m, m | fmt.sign_bit()] {
                    agrees(fmt, x);
                }
            }
        }
    }

    #[test]
    fn integer_vectors_of_facts_1_8() {
        assert_eq!(int_pick(true, 8, Max, 0xFF, 1), 1);
        assert_eq!(int_pick(false, 8, Max, 0xFF, 1), 0xFF);
        assert_eq!(int_pick(true, 8, Min, 0xFF, 1), 0xFF);
        assert_eq!(int_pick(false, 8, Min, 0xFF, 1), 1);
        assert_eq!(int_pick(false, 64, Max, 1 << 63, 1), 1 << 63);
        assert_eq!(int_pick(true, 64, Max, 1 << 63, 1), 1);
    }

    /// The rules of docs/isa.md §1.8 written with a full unpack, as a check on the branch-free pick.
    fn by_the_rules(fmt: &Format, pick: Pick, a: u64, b: u64) -> (u64, Flags) {
        let (ua, ub) = (fmt.unpack(a), fmt.unpack(b));
        let flags = if ua.is_signaling() || ub.is_signaling() {
            NV
        } else {
            0
        };
        let value = |u: Unpacked| match u.class {
            Class::Zero => 0.0,
            Class::Inf => f64::INFINITY,
            Class::Finite { mant, exp } => mant as f64 * 2f64.powi(exp),
            Class::Nan { .. } => f64::NAN,
        } * if u.negative { -1.0 } else { 1.0 };
        let result = match (ua.is_nan(), ub.is_nan()) {
            (true, true) => fmt.canonical_nan,
            (true, false) => b,
            (false, true) => a,
            _ if ua.class == Class::Zero && ub.class == Class::Zero => {
                let negative = match pick {
                    Max => ua.negative && ub.negative,
                    Min => ua.negative || ub.negative,
                };
                fmt.zero(negative)
            }
            _ => {
                let (va, vb) = (value(ua), value(ub));
                let left = match pick {
                    Max => va >= vb,
                    Min => va <= vb,
                };
                if left {
                    a
                } else {
                    b
                }
            }
        };
        (result, flags)
    }

    #[test]
    fn branch_free_pick_follows_the_rules_on_native_carriers() {
        for fmt in [&E4M3, &E5M2] {
            for (a, b) in (0..=0xFFu8).flat_map(|a| (0..=0xFFu8).map(move |b| (a, b))) {
                for pick in [Max, Min] {
                    let (v, f) = float_pick_in(fmt, pick, a, b);
                    assert_eq!((v as u64, f), by_the_rules(fmt, pick, a as u64, b as u64));
                }
            }
        }
        // 16-bit formats: every pattern against a spread of partners (specials included).
        let partners = [
            0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x7F80, 0x7FC0, 0x7F81, 0x3C00,
        ];
        for fmt in [&FP16, &BF16] {
            for a in 0..=0xFFFFu16 {
                for (b, pick) in partners.iter().flat_map(|&b| [(b, Max), (b, Min)]) {
                    for (x, y) in [(a, b), (b, a)] {
                        let (v, f) = float_pick_in(fmt, pick, x, y);
                        assert_eq!((v as u64, f), by_the_rules(fmt, pick, x as u64, y as u64));
                    }
                }
            }
        }
        // 32-bit formats on u32 carriers: each pair of a spread of patterns (both signs, zeros,
        // subnormals, infinities, quiet and signalling NaNs) that are valid encodings of the
        // format (TF32/HF32 tiles with low bits set are refused before any op runs).
        let magnitudes = [
            0,
            1,
            0x1FFF,
            0x2000,
            0x7F_FFFF,
            0x80_0000,
            0x3F80_0000,
            0x3F80_2000,
            0x3FC0_0000,
            0x4000_0000,
            0x7F7F_E000,
            0x7F80_0000,
            0x7F80_0001,
            0x7F80_2000,
            0x7FC0_0000,
        ];
        let patterns: Vec<u32> = magnitudes
            .iter()
            .flat_map(|&m| [m, m | 0x8000_0000])
            .collect();
        for fmt in [&FP32, &TF32, &HF32] {
            let valid: Vec<u32> = patterns
                .iter()
                .copied()
                .filter(|&p| fmt.is_valid_encoding(p as u64))
                .collect();
            for (&a, &b) in valid.iter().flat_map(|a| valid.iter().map(move |b| (a, b))) {
                for pick in [Max, Min] {
                    let (v, f) = float_pick_in(fmt, pick, a, b);
                    assert_eq!((v as u64, f), by_the_rules(fmt, pick, a as u64, b as u64));
                }
            }
        }
    }
}
