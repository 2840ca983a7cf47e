//! MAX/MIN: the exact rules of facts §1.8 for floats, and signed/unsigned order for integers.
//!
//! Floats: one NaN returns the other operand's raw bits, two NaNs give the positive canonical NaN
//! (§10), NV iff an operand is a signalling NaN (also for elementwise TMAX/TMIN, §10), ±0 rules,
//! otherwise a sign-magnitude order key. Results are never rounded.

use super::format::Format;
use super::{Flags, NV};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    Max,
    Min,
}

/// Total order key of a non-NaN float: negative values bit-inverted, positive with the sign set
/// (branch-free: XOR with the whole carrier mask when negative, with the sign bit otherwise).
#[inline(always)]
fn order_key(fmt: &Format, bits: u64) -> u64 {
    let bits = bits & fmt.carrier_mask();
    let negative = 0u64.wrapping_sub((bits & fmt.sign_bit() != 0) as u64);
    bits ^ (fmt.sign_bit() | (negative & fmt.carrier_mask()))
}

#[inline(always)]
pub fn float_pick(fmt: &Format, pick: Pick, a: u64, b: u64) -> (u64, Flags) {
    let ((a_nan, a_snan), (b_nan, b_snan)) = (fmt.nan_kind(a), fmt.nan_kind(b));
    let flags = if a_snan || b_snan { NV } else { 0 };
    let mask = fmt.carrier_mask();
    let result = match (a_nan, b_nan) {
        (true, true) => fmt.canonical_nan,
        (true, false) => b & mask,
        (false, true) => a & mask,
        _ if fmt.is_zero(a) && fmt.is_zero(b) => {
            let (na, nb) = (a & fmt.sign_bit() != 0, b & fmt.sign_bit() != 0);
            let negative = match pick {
                Pick::Max => na && nb,
                Pick::Min => na || nb,
            };
            fmt.zero(negative)
        }
        _ => {
            let (ka, kb) = (order_key(fmt, a), order_key(fmt, b));
            let left = match pick {
                Pick::Max => ka >= kb,
                Pick::Min => ka <= kb,
            };
            if left {
                a & mask
            } else {
                b & mask
            }
        }
    };
    (result, flags)
}

/// Integer MAX/MIN at `bits` width; on ties the left operand (equal anyway).
#[inline(always)]
pub fn int_pick(signed: bool, bits: u32, pick: Pick, a: u64, b: u64) -> u64 {
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let (a, b) = (a & mask, b & mask);
    // Flipping the sign bit turns two's complement order into unsigned order.
    let bias = if signed { 1u64 << (bits - 1) } else { 0 };
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

#[cfg(test)]
mod tests {
    use super::super::format::*;
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

    #[test]
    fn integer_vectors_of_facts_1_8() {
        assert_eq!(int_pick(true, 8, Max, 0xFF, 1), 1);
        assert_eq!(int_pick(false, 8, Max, 0xFF, 1), 0xFF);
        assert_eq!(int_pick(true, 8, Min, 0xFF, 1), 0xFF);
        assert_eq!(int_pick(false, 8, Min, 0xFF, 1), 1);
        assert_eq!(int_pick(false, 64, Max, 1 << 63, 1), 1 << 63);
        assert_eq!(int_pick(true, 64, Max, 1 << 63, 1), 1);
    }
}
