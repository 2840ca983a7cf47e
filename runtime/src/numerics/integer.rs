//! Integer ADD/SUB/MUL/DIV at the element width: wrap modulo 2^width, signed division truncates,
//! unsigned floors, S*_MIN / −1 wraps to S*_MIN (docs/isa.md §9 decision 9). Results are the low `bits` bits.

use super::{Flags, DZ};
use ptoc_isa::profile::{SignedDivOverflow, PROFILE};

#[inline]
pub const fn width_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

#[inline]
pub(crate) fn sign_extend(bits: u32, v: u64) -> i64 {
    let shift = 64 - bits;
    ((v << shift) as i64) >> shift
}

#[inline]
pub fn add(bits: u32, a: u64, b: u64) -> u64 {
    a.wrapping_add(b) & width_mask(bits)
}

#[inline]
pub fn sub(bits: u32, a: u64, b: u64) -> u64 {
    a.wrapping_sub(b) & width_mask(bits)
}

#[inline]
pub fn mul(bits: u32, a: u64, b: u64) -> u64 {
    a.wrapping_mul(b) & width_mask(bits)
}

/// Division; a zero divisor (which the interpreter rejects before running) gives 0 with DZ.
#[inline]
pub fn div(signed: bool, bits: u32, a: u64, b: u64) -> (u64, Flags) {
    let mask = width_mask(bits);
    let (a, b) = (a & mask, b & mask);
    if b == 0 {
        return (0, DZ);
    }
    let q = if signed {
        match PROFILE.signed_div_overflow {
            SignedDivOverflow::Wrap => {
                sign_extend(bits, a).wrapping_div(sign_extend(bits, b)) as u64
            }
        }
    } else {
        a / b
    };
    (q & mask, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_and_division_vectors_of_facts_6_and_10() {
        assert_eq!(add(8, 250, 10), 4);
        assert_eq!(sub(8, 2, 253), 5);
        assert_eq!(mul(16, 400, 200), 14464);
        assert_eq!(div(true, 8, 248, 2), (0xFC, 0));
        assert_eq!(div(true, 8, 0x80, 0xFF), (0x80, 0));
        assert_eq!(div(true, 64, 1 << 63, u64::MAX), (1 << 63, 0));
        assert_eq!(div(false, 8, 0xFF, 2), (0x7F, 0));
        assert_eq!(
            div(true, 32, (-7i32) as u32 as u64, 2),
            ((-3i32) as u32 as u64, 0)
        );
        assert_eq!(div(false, 16, 5, 0), (0, DZ));
    }
}
