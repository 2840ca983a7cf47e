//! TCVT element conversion between any two of the 16 arithmetic types, under B.DATR RMode and Sat
//! (docs/isa.md §1.10, §9 decisions 31–34).
//!
//! - Integer to integer: the source is read at its width and signedness; without Sat the
//!   destination keeps the low bits (modulo narrowing, sign or zero extension when widening),
//!   with Sat it is clamped to the destination's range. No flags (`TileConvertIntegerValue`,
//!   `asl/tile/model/numeric/formats.asl`).
//! - Anything to a float: the exact source value is rounded once by `round::round_exact_in` under the
//!   mode (64-bit integers to FP32/FP16 round); a NaN gives the canonical NaN (NV if signalling);
//!   an infinity stays one, except that Sat clamps it and E4M3 has none (decision 32); with Sat an
//!   overflow gives the largest finite value of its sign.
//! - A float to an integer: rounded under the mode (default RTZ), then range-checked
//!   ("round before saturation"). NaN, ±inf and out-of-range values raise NV and give the
//!   destination's indefinite value without Sat (signed minimum, unsigned maximum) and, with
//!   Sat, 0 for a NaN and the nearer range end otherwise. An in-range inexact result raises NX.

use super::format::{Class, Format};
use super::round::{round_exact_in, round_to_integer};
use super::{Flags, NV, NX, OF};
use ptoc_isa::{DataType, NumericControl, RoundingMode, TypeClass};

/// One side of a conversion: a float format or an integer width and signedness.
#[derive(Clone, Copy, Debug)]
enum Side {
    Float(&'static Format),
    Int { signed: bool, bits: u32 },
}

impl Side {
    fn of(dtype: DataType) -> Option<Side> {
        if let Some(fmt) = dtype.float_format() {
            return Some(Side::Float(fmt));
        }
        let signed = match dtype.class() {
            TypeClass::Signed => true,
            TypeClass::Unsigned => false,
            TypeClass::Float | TypeClass::Other => return None,
        };
        Some(Side::Int {
            signed,
            bits: dtype.bits(),
        })
    }
}

/// What a source element is: a float's class and sign, or an exact integer.
enum Value {
    Float { negative: bool, class: Class },
    Int(i128),
}

/// A TCVT resolved for one (source, destination) pair and control, so a kernel looks the types
/// up once per tile.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Conversion {
    src: Side,
    dst: Side,
    mode: RoundingMode,
    sat: bool,
}

impl Conversion {
    /// The conversion from `src` to `dst` under `control`; `None` unless both are arithmetic
    /// types.
    pub fn of(src: DataType, dst: DataType, control: NumericControl) -> Option<Conversion> {
        Some(Conversion {
            src: Side::of(src)?,
            dst: Side::of(dst)?,
            mode: control.resolve(src, dst),
            sat: control.sat,
        })
    }

    /// The converted bits of one element, and its flags.
    #[inline]
    pub fn apply(self, a: u64) -> (u64, Flags) {
        let value = match self.src {
            Side::Float(fmt) => {
                let u = fmt.unpack(a);
                Value::Float {
                    negative: u.negative,
                    class: u.class,
                }
            }
            Side::Int { signed, bits } => Value::Int(int_value(signed, bits, a)),
        };
        match self.dst {
            Side::Float(fmt) => self.to_float(fmt, value),
            Side::Int { signed, bits } => self.to_int(signed, bits, value),
        }
    }

    fn to_float(self, fmt: &Format, value: Value) -> (u64, Flags) {
        let (negative, mant, exp) = match value {
            Value::Int(0) => return (fmt.zero(false), 0),
            Value::Int(v) => (v < 0, v.unsigned_abs(), 0),
            Value::Float { negative, class } => match class {
                Class::Nan { signaling } => {
                    return (fmt.canonical_nan, if signaling { NV } else { 0 })
                }
                Class::Zero => return (fmt.zero(negative), 0),
                // An infinity converts exactly where it can; Sat clamps it, and E4M3 has
                // no infinity: both are an overflow of an infinite value (decision 32).
                Class::Inf if fmt.has_inf && !self.sat => {
                    return (fmt.inf_or_nan(negative), 0);
                }
                Class::Inf if self.sat => return (fmt.max_finite_bits(negative), OF | NX),
                Class::Inf => return (fmt.inf_or_nan(negative), OF | NX),
                Class::Finite { mant, exp } => (negative, mant as u128, exp),
            },
        };
        let (bits, flags) = round_exact_in(fmt, negative, mant, exp, false, self.mode);
        if self.sat && flags & OF != 0 {
            return (fmt.max_finite_bits(negative), flags);
        }
        (bits, flags)
    }

    fn to_int(self, signed: bool, bits: u32, value: Value) -> (u64, Flags) {
        let (min, max) = int_range(signed, bits);
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let clamp = |v: i128| v.clamp(min, max) as u64 & mask;
        // Invalid float sources: the indefinite value without Sat (signed minimum, unsigned
        // maximum), with NV either way.
        let indefinite = (if signed { min } else { max }) as u64 & mask;
        match value {
            // Integer to integer: modulo the destination width, or clamped with Sat; no flags.
            Value::Int(v) if self.sat => (clamp(v), 0),
            Value::Int(v) => (v as u64 & mask, 0),
            Value::Float { negative, class } => {
                let rounded = match class {
                    Class::Nan { .. } => return (if self.sat { 0 } else { indefinite }, NV),
                    Class::Zero => return (0, 0),
                    Class::Inf => None,
                    Class::Finite { mant, exp } => {
                        round_to_integer(negative, mant as u128, exp, self.mode)
                    }
                };
                let in_range = rounded.and_then(|(magnitude, inexact)| {
                    let v = i128::try_from(magnitude).ok()?;
                    let v = if negative { -v } else { v };
                    (min..=max).contains(&v).then_some((v, inexact))
                });
                match in_range {
                    Some((v, inexact)) => (v as u64 & mask, if inexact { NX } else { 0 }),
                    None if self.sat => (clamp(if negative { min } else { max }), NV),
                    None => (indefinite, NV),
                }
            }
        }
    }
}

/// The value of an integer element read at its width and signedness.
fn int_value(signed: bool, bits: u32, a: u64) -> i128 {
    let shift = 64 - bits;
    if signed {
        ((a << shift) as i64 >> shift) as i128
    } else {
        ((a << shift) >> shift) as i128
    }
}

/// The range of an integer type.
fn int_range(signed: bool, bits: u32) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// TCVT of one element from `src` to `dst`; `None` unless both are arithmetic types.
pub fn convert(
    src: DataType,
    dst: DataType,
    control: NumericControl,
    a: u64,
) -> Option<(u64, Flags)> {
    Conversion::of(src, dst, control).map(|c| c.apply(a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numerics::{OF, UF};
    use DataType::*;

    fn cvt(src: DataType, dst: DataType, rmode: u8, sat: bool, a: u64) -> (u64, Flags) {
        convert(src, dst, NumericControl::from_fields(rmode, sat), a).unwrap()
    }

    /// `tile-exec-tcvt-integer-001.asl`: U16 300 → U8 is 44 without Sat and 255 with it; the
    /// S64 all-ones (−1) saturates to 0 in an unsigned destination.
    #[test]
    fn spec_integer_vectors() {
        assert_eq!(cvt(U16, U8, 0, false, 300), (44, 0));
        assert_eq!(cvt(U16, U8, 0, true, 300), (255, 0));
        assert_eq!(cvt(S64, U8, 0, true, u64::MAX), (0, 0));
        assert_eq!(cvt(S64, U16, 0, true, u64::MAX), (0, 0));
        // `tile-exec-tcvt-alias-001.asl`: U8 → U8 keeps the values.
        assert_eq!(cvt(U8, U8, 0, false, 7), (7, 0));
        // ADR-0044: S8 0x80 widens to −128, not +128.
        assert_eq!(cvt(S8, S16, 0, false, 0x80), (0xFF80, 0));
        assert_eq!(cvt(U8, S16, 0, false, 0x80), (0x80, 0));
    }

    /// `saturation`, `invalid_float_to_integer` and `rounding_before_saturation` vectors of
    /// `spec/evidence/pto-isa-0583-hardware-numeric-vectors.json`.
    #[test]
    fn spec_numeric_vectors() {
        let f32b = |x: f32| x.to_bits() as u64;
        let f64b = |x: f64| x.to_bits();
        // saturation: S8 130 → 127, −129 → −128, U8 −1 → 0, FP16 +inf → 0x7BFF, S32 qNaN → 0.
        assert_eq!(cvt(FP32, S8, 0, true, f32b(130.0)).0, 127);
        assert_eq!(cvt(FP32, S8, 0, true, f32b(-129.0)).0, 0x80);
        assert_eq!(cvt(FP32, U8, 0, true, f32b(-1.0)).0, 0);
        assert_eq!(cvt(S32, S8, 0, true, 130), (127, 0));
        assert_eq!(cvt(S32, S8, 0, true, (-129i32) as u32 as u64), (0x80, 0));
        assert_eq!(cvt(S32, U8, 0, true, u32::MAX as u64), (0, 0));
        assert_eq!(cvt(FP32, FP16, 0, true, 0x7F80_0000).0, 0x7BFF);
        assert_eq!(cvt(FP32, S32, 0, true, 0x7FC0_0000), (0, NV));
        // invalid float to integer, Sat off: the indefinite values.
        assert_eq!(cvt(FP64, S64, 0, false, 0x7FF8_0000_0000_0000).0, 1 << 63);
        assert_eq!(cvt(FP32, S32, 0, false, 0x7F80_0000), (0x8000_0000, NV));
        assert_eq!(cvt(FP64, U64, 0, false, 0x7FF8_0000_0000_0000).0, u64::MAX);
        assert_eq!(cvt(FP32, U8, 0, false, 0xFF80_0000), (0xFF, NV));
        // rounding before saturation: 127.5 RNA → 128 → 127; −128.5 RNA → −129 → −128.
        assert_eq!(cvt(FP64, S8, 5, true, f64b(127.5)), (127, NV));
        assert_eq!(cvt(FP64, S8, 5, true, f64b(-128.5)), (0x80, NV));
        // The same values in range without the rounding step that overflows.
        assert_eq!(cvt(FP64, S8, 2, true, f64b(127.5)), (127, NX));
    }

    #[test]
    fn float_to_float_specials_and_flags() {
        // A signalling NaN gives the canonical NaN with NV; a quiet one without.
        assert_eq!(cvt(FP32, FP16, 0, false, 0x7F80_0001), (0x7E00, NV));
        assert_eq!(cvt(FP32, BF16, 0, false, 0xFFC0_1234), (0x7FC0, 0));
        assert_eq!(cvt(FP16, E4M3, 0, false, 0x7C01), (0x7F, NV));
        // Infinity: kept, or E4M3's NaN (decision 32), or clamped with Sat.
        assert_eq!(cvt(FP32, FP16, 0, false, 0xFF80_0000), (0xFC00, 0));
        assert_eq!(cvt(FP32, E4M3, 0, false, 0x7F80_0000), (0x7F, OF | NX));
        assert_eq!(cvt(FP32, E4M3, 0, true, 0xFF80_0000), (0xFE, OF | NX));
        // Signed zeros.
        assert_eq!(cvt(FP32, FP16, 0, false, 0x8000_0000), (0x8000, 0));
        // FP32 1 + 2^-23 to FP16: inexact, RNE down, RUP up.
        assert_eq!(cvt(FP32, FP16, 0, false, 0x3F80_0001), (0x3C00, NX));
        assert_eq!(cvt(FP32, FP16, 4, false, 0x3F80_0001), (0x3C01, NX));
        // Overflow: FP32 65536 to FP16 is +inf under RNE, 65504 under RTZ or with Sat.
        let big = 65536f32.to_bits() as u64;
        assert_eq!(cvt(FP32, FP16, 0, false, big), (0x7C00, OF | NX));
        assert_eq!(cvt(FP32, FP16, 2, false, big), (0x7BFF, OF | NX));
        assert_eq!(cvt(FP32, FP16, 0, true, big), (0x7BFF, OF | NX));
        // E4M3 overflow is its NaN (decision 7), 448 with Sat.
        assert_eq!(
            cvt(FP32, E4M3, 0, false, 500f32.to_bits() as u64),
            (0x7F, OF | NX)
        );
        assert_eq!(
            cvt(FP32, E4M3, 0, true, 500f32.to_bits() as u64),
            (0x7E, OF | NX)
        );
        // Underflow: FP32 2^-25 to FP16 is half the smallest subnormal, a tie to +0.
        assert_eq!(cvt(FP32, FP16, 0, false, 0x3300_0000), (0, UF | NX));
        assert_eq!(cvt(FP32, FP16, 4, false, 0x3300_0000), (1, UF | NX));
        // Widening is exact.
        assert_eq!(cvt(BF16, FP32, 0, false, 0x3FC0), (0x3FC0_0000, 0));
        assert_eq!(
            cvt(FP16, FP64, 0, false, 0x0001).0,
            2f64.powi(-24).to_bits()
        );
        // TF32 keeps 10 fraction bits, low 13 carrier bits zero.
        assert_eq!(cvt(FP32, TF32, 0, false, 0x3F80_1FFF), (0x3F80_2000, NX));
        assert_eq!(cvt(FP32, HF32, 2, false, 0x3F80_1FFF), (0x3F80_1000, NX));
    }

    #[test]
    fn integers_to_floats_round() {
        // u64::MAX to FP32 rounds to 2^64; 2^24 + 1 ties to even.
        assert_eq!(cvt(U64, FP32, 0, false, u64::MAX), (0x5F80_0000, NX));
        assert_eq!(cvt(S32, FP32, 0, false, (1 << 24) + 1), (0x4B80_0000, NX));
        assert_eq!(cvt(S32, FP32, 4, false, (1 << 24) + 1), (0x4B80_0001, NX));
        // S64 minimum is exact in FP32; to FP16 it overflows.
        assert_eq!(cvt(S64, FP32, 0, false, 1 << 63), (0xDF00_0000, 0));
        assert_eq!(cvt(S64, FP16, 0, false, 1 << 63), (0xFC00, OF | NX));
        assert_eq!(cvt(S64, FP16, 0, true, 1 << 63), (0xFBFF, OF | NX));
        // 255 rounds to 256 (0x78); 1000 is beyond 448.
        assert_eq!(cvt(U8, E4M3, 0, false, 255), (0x78, NX));
        assert_eq!(cvt(U16, E4M3, 0, false, 1000), (0x7F, OF | NX));
        // −127 lies between −120 and −128, nearer −128 (0xF0).
        assert_eq!(cvt(S8, E4M3, 0, false, 0x81), (0xF0, NX));
    }

    #[test]
    fn floats_to_integers() {
        let f = |x: f32| x.to_bits() as u64;
        // Default RTZ; −0.5 is 0 in an unsigned type (in range after rounding).
        assert_eq!(
            cvt(FP32, S32, 0, false, f(-1.9)),
            ((-1i32) as u32 as u64, NX)
        );
        assert_eq!(cvt(FP32, U8, 0, false, f(-0.5)), (0, NX));
        assert_eq!(cvt(FP32, U8, 1, false, f(-0.75)), (0xFF, NV));
        assert_eq!(cvt(FP32, U8, 1, true, f(-0.75)), (0, NV));
        assert_eq!(cvt(FP32, S8, 0, false, f(127.9)), (127, NX));
        assert_eq!(cvt(FP32, S8, 0, false, f(128.0)), (0x80, NV));
        assert_eq!(cvt(FP32, U64, 0, false, f(1.8e19)), (1.8e19f32 as u64, 0));
        assert_eq!(cvt(FP32, U64, 0, true, f(3.0e38)), (u64::MAX, NV));
        assert_eq!(
            cvt(FP64, S64, 0, true, (-1e300f64).to_bits()),
            (1 << 63, NV)
        );
    }
}
