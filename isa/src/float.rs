//! Float format descriptors and the unpack/pack of raw bit patterns.
//!
//! One [`Format`] per float DataType (docs/isa.md §5.1): exponent and fraction widths, the carrier's
//! required-zero low bits (TF32/HF32), whether the format has infinities (E4M3 has none; its only
//! NaNs are S.1111.111). Every other numeric module works on [`Unpacked`] values built here.

use crate::dtype::DataType;

/// The layout of one float format inside its carrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// Exponent field width.
    pub exp_bits: u32,
    /// Stored fraction width (no hidden bit).
    pub frac_bits: u32,
    /// Carrier bits below the fraction that must be zero (TF32: 13, HF32: 12).
    pub low_zero_bits: u32,
    /// E4M3 has no infinity: its all-ones exponent holds normal numbers except the NaN pattern.
    pub has_inf: bool,
    /// The bits of the NaN an invalid operation produces (docs/isa.md §5.2).
    pub canonical_nan: u64,
}

/// IEEE binary64.
pub const FP64: Format = Format::ieee(11, 52, 0, 0x7FF8_0000_0000_0000);
/// IEEE binary32.
pub const FP32: Format = Format::ieee(8, 23, 0, 0x7FC0_0000);
/// TF32: FP32's exponent, a 10-bit fraction, in a 32-bit carrier.
pub const TF32: Format = Format::ieee(8, 10, 13, 0x7FC0_0000);
/// HF32: FP32's exponent, an 11-bit fraction, in a 32-bit carrier.
pub const HF32: Format = Format::ieee(8, 11, 12, 0x7FC0_0000);
/// IEEE binary16.
pub const FP16: Format = Format::ieee(5, 10, 0, 0x7E00);
/// bfloat16.
pub const BF16: Format = Format::ieee(8, 7, 0, 0x7FC0);
/// OCP FP8 E5M2 (IEEE-style, with infinities).
pub const E5M2: Format = Format::ieee(5, 2, 0, 0x7E);
/// OCP FP8 E4M3: no infinities, NaN only S.1111.111.
pub const E4M3: Format = Format {
    exp_bits: 4,
    frac_bits: 3,
    low_zero_bits: 0,
    has_inf: false,
    canonical_nan: 0x7F,
};

/// The format of a float DataType; `None` for integer and non-arithmetic types.
pub const fn format_of(dtype: DataType) -> Option<&'static Format> {
    Some(match dtype {
        DataType::FP64 => &FP64,
        DataType::FP32 => &FP32,
        DataType::TF32 => &TF32,
        DataType::HF32 => &HF32,
        DataType::FP16 => &FP16,
        DataType::BF16 => &BF16,
        DataType::E4M3 => &E4M3,
        DataType::E5M2 => &E5M2,
        _ => return None,
    })
}

/// What a bit pattern means, apart from its sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// ±0.
    Zero,
    /// `mant · 2^exp` exactly, `mant > 0` (subnormals unnormalised).
    Finite {
        /// The integer significand.
        mant: u64,
        /// The power of two it is scaled by.
        exp: i32,
    },
    /// ±∞.
    Inf,
    /// A NaN.
    Nan {
        /// Quiet bit clear.
        signaling: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// A float bit pattern taken apart: its sign and what it means.
pub struct Unpacked {
    /// The sign bit.
    pub negative: bool,
    /// Magnitude class and value.
    pub class: Class,
}

impl Unpacked {
    /// Whether the value is a NaN.
    pub fn is_nan(&self) -> bool {
        matches!(self.class, Class::Nan { .. })
    }
    /// Whether the value is a signalling NaN.
    pub fn is_signaling(&self) -> bool {
        matches!(self.class, Class::Nan { signaling: true })
    }
}

impl Format {
    const fn ieee(exp_bits: u32, frac_bits: u32, low_zero_bits: u32, canonical_nan: u64) -> Format {
        Format {
            exp_bits,
            frac_bits,
            low_zero_bits,
            has_inf: true,
            canonical_nan,
        }
    }

    /// The exponent bias, `2^(exp_bits-1) - 1`.
    pub const fn bias(&self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }
    /// Smallest normal exponent.
    pub const fn emin(&self) -> i32 {
        1 - self.bias()
    }
    const fn exp_field_max(&self) -> u64 {
        (1 << self.exp_bits) - 1
    }
    const fn frac_mask(&self) -> u64 {
        (1 << self.frac_bits) - 1
    }
    const fn sign_shift(&self) -> u32 {
        self.exp_bits + self.frac_bits + self.low_zero_bits
    }
    /// Mask of the carrier bits (the element width).
    pub const fn carrier_mask(&self) -> u64 {
        let width = self.sign_shift() + 1;
        if width >= 64 {
            u64::MAX
        } else {
            (1 << width) - 1
        }
    }
    /// The sign bit's mask in the carrier.
    pub const fn sign_bit(&self) -> u64 {
        1 << self.sign_shift()
    }

    /// True when the required-zero low carrier bits are zero (TF32/HF32 validity, docs/isa.md §1.8).
    pub const fn is_valid_encoding(&self, bits: u64) -> bool {
        bits & ((1u64 << self.low_zero_bits) - 1) == 0
    }

    /// The bits of `(-1)^negative · 1.frac · 2^(biased-bias)` (or a subnormal when `biased` is 0).
    pub const fn pack(&self, negative: bool, biased: u64, frac: u64) -> u64 {
        let body = (biased << self.frac_bits) | frac;
        ((negative as u64) << self.sign_shift()) | (body << self.low_zero_bits)
    }

    /// The typed one (`TileFloatingUnaryOneEncoding`): `1.0` with the format's bias.
    pub const fn one(&self) -> u64 {
        self.pack(false, self.bias() as u64, 0)
    }

    /// The bits of ±0.
    pub const fn zero(&self, negative: bool) -> u64 {
        self.pack(negative, 0, 0)
    }

    /// ±infinity, or the canonical NaN for E4M3, which has no infinity (docs/isa.md §1.8, §9 decision 7).
    pub const fn inf_or_nan(&self, negative: bool) -> u64 {
        if self.has_inf {
            self.pack(negative, self.exp_field_max(), 0)
        } else {
            self.canonical_nan
        }
    }

    /// Largest finite biased exponent and the largest fraction allowed with it.
    const fn max_finite(&self) -> (u64, u64) {
        if self.has_inf {
            (self.exp_field_max() - 1, self.frac_mask())
        } else {
            (self.exp_field_max(), self.frac_mask() - 1)
        }
    }

    /// The largest finite magnitude with the given sign (the Max and Min pads of a float type).
    pub const fn max_finite_bits(&self, negative: bool) -> u64 {
        let (biased, frac) = self.max_finite();
        self.pack(negative, biased, frac)
    }

    /// True when `(biased, frac)` is beyond the largest finite value.
    pub const fn exceeds_max_finite(&self, biased: u64, frac: u64) -> bool {
        let (max_e, max_f) = self.max_finite();
        biased > max_e || (biased == max_e && frac > max_f)
    }

    /// Classify a bit pattern. Upper carrier bits and required-zero low bits are ignored (validity
    /// is checked separately, before any op runs).
    #[inline]
    pub const fn unpack(&self, bits: u64) -> Unpacked {
        let negative = (bits >> self.sign_shift()) & 1 == 1;
        let body = bits >> self.low_zero_bits;
        let frac = body & self.frac_mask();
        let biased = (body >> self.frac_bits) & self.exp_field_max();
        let class = if biased == self.exp_field_max() && (self.has_inf || frac == self.frac_mask())
        {
            if !self.has_inf {
                Class::Nan { signaling: false }
            } else if frac == 0 {
                Class::Inf
            } else {
                Class::Nan {
                    signaling: frac >> (self.frac_bits - 1) == 0,
                }
            }
        } else if biased == 0 {
            if frac == 0 {
                Class::Zero
            } else {
                Class::Finite {
                    mant: frac,
                    exp: self.emin() - self.frac_bits as i32,
                }
            }
        } else {
            Class::Finite {
                mant: frac | (1 << self.frac_bits),
                exp: biased as i32 - self.bias() - self.frac_bits as i32,
            }
        };
        Unpacked { negative, class }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_the_special_encodings_of_facts_5_1() {
        assert_eq!(FP32.unpack(0x7F80_0000).class, Class::Inf);
        assert!(FP32.unpack(0x7F80_0001).is_signaling());
        assert!(!FP32.unpack(0x7FC0_0000).is_signaling() && FP32.unpack(0x7FC0_0000).is_nan());
        assert!(TF32.unpack(0x7F80_2000).is_signaling());
        assert!(E5M2.unpack(0x7D).is_signaling());
        assert!(!E5M2.unpack(0x7E).is_signaling());
        assert_eq!(E5M2.unpack(0xFC).class, Class::Inf);
        assert!(E4M3.unpack(0xFF).is_nan() && E4M3.unpack(0x7F).is_nan());
        // 0x7E is 448, a normal number with the all-ones exponent.
        assert_eq!(E4M3.unpack(0x7E).class, Class::Finite { mant: 0xE, exp: 5 });
        assert_eq!(E4M3.unpack(0x01).class, Class::Finite { mant: 1, exp: -9 });
        assert_eq!(
            FP16.unpack(0x8000),
            Unpacked {
                negative: true,
                class: Class::Zero
            }
        );
        assert!(!TF32.is_valid_encoding(0x3F80_0001) && HF32.is_valid_encoding(0x3F80_1000));
        assert!(!TF32.is_valid_encoding(0x3F80_1000));
    }

    #[test]
    fn max_finite_matches_the_pad_max_encodings() {
        for dt in crate::dtype::FLOATS {
            let f = format_of(*dt).unwrap();
            let (e, m) = f.max_finite();
            assert_eq!(
                Some(f.pack(false, e, m)),
                dt.pad_bits(crate::PadValue::Max),
                "{dt}"
            );
            assert_eq!(Some(f.canonical_nan), dt.canonical_nan(), "{dt}");
        }
    }
}
