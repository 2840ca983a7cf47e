//! TCMP on one element pair (`TileCompareElement` in `asl/tile/model/execution/comparison.asl`,
//! docs/isa.md §1.9).
//!
//! Floats: a NaN operand makes the pair unordered, so EQ, LT, GT, LE and GE are false and NE is
//! true, with NV when either operand is a signalling NaN; two zeros are equal whatever their
//! signs; otherwise the pair is ordered by the sign-magnitude key (`TileFloatingOrderKey`).
//! Integers compare at the element width, signed types as signed. No other status is raised.

use super::format::{Class, Format};
use super::integer::{sign_extend, width_mask};
use super::{Flags, NV};
use ptoc_isa::{CmpMode, DataType, TypeClass};

/// A comparison resolved for one element type, so a kernel looks the type up once per tile.
#[derive(Clone, Copy, Debug)]
pub(crate) enum CompareElement {
    Float(CmpMode, &'static Format),
    Integer {
        mode: CmpMode,
        signed: bool,
        bits: u32,
    },
}

impl CompareElement {
    /// `mode` on `dtype`; `None` for a type that is neither a float format nor an integer.
    pub fn of(mode: CmpMode, dtype: DataType) -> Option<CompareElement> {
        if let Some(fmt) = super::format::format_of(dtype) {
            return Some(CompareElement::Float(mode, fmt));
        }
        let signed = match dtype.class() {
            TypeClass::Signed => true,
            TypeClass::Unsigned => false,
            TypeClass::Float | TypeClass::Other => return None,
        };
        Some(CompareElement::Integer {
            mode,
            signed,
            bits: dtype.bits(),
        })
    }

    /// The predicate bit for `left REL right`, and the status it raises.
    #[inline]
    pub fn apply(self, left: u64, right: u64) -> (bool, Flags) {
        match self {
            CompareElement::Float(mode, fmt) => float_compare(fmt, mode, left, right),
            CompareElement::Integer { mode, signed, bits } => {
                let (a, b) = (left & width_mask(bits), right & width_mask(bits));
                let less = if signed {
                    sign_extend(bits, a) < sign_extend(bits, b)
                } else {
                    a < b
                };
                (mode.holds(less, a == b), 0)
            }
        }
    }
}

/// `TileFloatingOrderKey`: negative values map to their complement, positive ones get the sign
/// bit set, so keys order as the values do (−0 below +0; zeros are handled before).
fn order_key(fmt: &Format, bits: u64) -> u64 {
    let mask = fmt.carrier_mask();
    let bits = bits & mask;
    if bits & fmt.sign_bit() != 0 {
        !bits & mask
    } else {
        bits | fmt.sign_bit()
    }
}

fn float_compare(fmt: &Format, mode: CmpMode, left: u64, right: u64) -> (bool, Flags) {
    let (a, b) = (fmt.unpack(left), fmt.unpack(right));
    if a.is_nan() || b.is_nan() {
        let nv = if a.is_signaling() || b.is_signaling() {
            NV
        } else {
            0
        };
        return (mode == CmpMode::Ne, nv);
    }
    if a.class == Class::Zero && b.class == Class::Zero {
        return (mode.holds(false, true), 0);
    }
    let (ka, kb) = (order_key(fmt, left), order_key(fmt, right));
    (mode.holds(ka < kb, ka == kb), 0)
}

/// TCMP on one element; `None` for a type TCMP is not defined on.
pub fn compare(mode: CmpMode, dtype: DataType, left: u64, right: u64) -> Option<(bool, Flags)> {
    CompareElement::of(mode, dtype).map(|c| c.apply(left, right))
}

#[cfg(test)]
mod tests {
    use super::*;
    use CmpMode::*;
    use DataType::*;

    #[test]
    fn spec_vectors() {
        // tests/asl/tile/elementwise-tile-tile/logical/TCMP/tile-exec-tcmp-order-001.asl.
        assert_eq!(compare(Lt, S8, 0xFF, 1), Some((true, 0)));
        assert_eq!(compare(Lt, U8, 0xFF, 1), Some((false, 0)));
        assert_eq!(compare(Eq, FP32, 0x8000_0000, 0), Some((true, 0)));
        assert_eq!(
            compare(Eq, FP32, 0x7F80_0001, 0x3F80_0000),
            Some((false, NV))
        );
        // The contract: NaN makes EQ LT GT LE GE false and NE true.
        for mode in CmpMode::ALL {
            let (bit, flags) = compare(mode, FP32, 0x7FC0_0000, 0x3F80_0000).unwrap();
            assert_eq!((bit, flags), (mode == Ne, 0), "{mode:?}");
        }
        // E4M3 has only quiet NaNs: 0x7F against itself is NE, never NV.
        assert_eq!(compare(Ne, E4M3, 0x7F, 0x7F), Some((true, 0)));
        assert_eq!(compare(Eq, E4M3, 0x7F, 0x7F), Some((false, 0)));
        // E5M2's signalling NaN 0x7D raises NV.
        assert_eq!(compare(Ge, E5M2, 0x3C, 0x7D), Some((false, NV)));
        assert_eq!(compare(Eq, HiF8, 1, 1), None);
    }
}
