//! DataType codes, element widths, MLIR spellings, typed constants and pad encodings.
//!
//! Codes: `asl/arch/data-types/tile-data-types.asl`; widths: `TileElementBits` in
//! `asl/tile/model/state/descriptors.asl`; pads: `TilePadValueForDataType` in
//! `asl/tile/model/definedness/elements.asl`; formats: `asl/arch/data-types/formats/*.asl`.

use crate::float::{format_of, Format};
use std::fmt;

/// What kind of number an element is, which decides every arithmetic rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeClass {
    /// IEEE-style binary floats (docs/isa.md §5.1).
    Float,
    /// Two's-complement integers.
    Signed,
    /// Unsigned integers.
    Unsigned,
    /// Packed, block-scaled or otherwise non-arithmetic formats ptoc carries but never computes on.
    Other,
}

macro_rules! data_types {
    ($( $variant:ident = $code:literal, $name:literal, $bits:literal, $class:ident, $mlir:expr; )*) => {
        /// A 5-bit DataType code (docs/isa.md §2.9). Code 0 is FP64, never "absent".
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum DataType {
            $(
                #[doc = concat!("`", $name, "`: code ", stringify!($code), ", ", stringify!($bits), " bits.")]
                $variant = $code,
            )*
        }

        impl DataType {
            /// Every defined DataType, in code order.
            pub const ALL: &'static [DataType] = &[ $( DataType::$variant, )* ];

            /// The DataType with this 5-bit code; `None` for reserved codes and DTYPE_NONE (31).
            pub fn from_code(code: u32) -> Option<DataType> {
                match code { $( $code => Some(DataType::$variant), )* _ => None }
            }
            /// The spec's assembly name (`FP32`, `S8`, …).
            pub fn name(self) -> &'static str {
                match self { $( DataType::$variant => $name, )* }
            }
            /// Element width in bits.
            pub fn bits(self) -> u32 {
                match self { $( DataType::$variant => $bits, )* }
            }
            /// The element's [`TypeClass`].
            pub fn class(self) -> TypeClass {
                match self { $( DataType::$variant => TypeClass::$class, )* }
            }
            /// The element type's spelling inside `!pto.tile<…>` (MLIR's where it has one).
            pub fn mlir_name(self) -> Option<&'static str> {
                match self { $( DataType::$variant => $mlir, )* }
            }
        }
    };
}

data_types! {
    FP64 = 0, "FP64", 64, Float, Some("f64");
    FP32 = 1, "FP32", 32, Float, Some("f32");
    TF32 = 2, "TF32", 32, Float, Some("tf32");
    HF32 = 3, "HF32", 32, Float, Some("hf32");
    FP16 = 4, "FP16", 16, Float, Some("f16");
    BF16 = 5, "BF16", 16, Float, Some("bf16");
    HiF8 = 6, "HiF8", 8, Other, None;
    E4M3 = 7, "E4M3", 8, Float, Some("f8E4M3FN");
    E5M2 = 8, "E5M2", 8, Float, Some("f8E5M2");
    E3M2 = 9, "E3M2", 8, Other, None;
    E2M3 = 10, "E2M3", 8, Other, None;
    E2M1X2 = 11, "E2M1X2", 4, Other, None;
    E1M2X2 = 12, "E1M2X2", 4, Other, None;
    E8M0 = 13, "E8M0", 8, Other, None;
    HiF4X2 = 14, "HiF4X2", 4, Other, None;
    S64 = 16, "S64", 64, Signed, Some("si64");
    S32 = 17, "S32", 32, Signed, Some("si32");
    S16 = 18, "S16", 16, Signed, Some("si16");
    S8 = 19, "S8", 8, Signed, Some("si8");
    S4X2 = 20, "S4X2", 4, Other, None;
    U64 = 24, "U64", 64, Unsigned, Some("ui64");
    U32 = 25, "U32", 32, Unsigned, Some("ui32");
    U16 = 26, "U16", 16, Unsigned, Some("ui16");
    U8 = 27, "U8", 8, Unsigned, Some("ui8");
    U4X2 = 28, "U4X2", 4, Other, None;
}

/// The B.DATR DataType code that means "no type" (B.DATR only; reserved in BSTART).
pub const DTYPE_NONE: u32 = 31;

/// `TileVecArithmeticDataTypeSupported` (`asl/tile/model/legality/dtype-layout.asl`): the 16 types
/// every expand, binary and reduction op accepts (docs/isa.md §9 decision 3).
pub const ARITHMETIC: &[DataType] = &[
    DataType::FP64,
    DataType::FP32,
    DataType::TF32,
    DataType::HF32,
    DataType::FP16,
    DataType::BF16,
    DataType::E4M3,
    DataType::E5M2,
    DataType::S64,
    DataType::S32,
    DataType::S16,
    DataType::S8,
    DataType::U64,
    DataType::U32,
    DataType::U16,
    DataType::U8,
];

/// The matrix input types ptoc computes with: `TileOrdinaryMatrixInputTypeSupported`
/// (`asl/tile/model/legality/matrix-shape.asl`) less the formats ptoc has no numerics for (HiF8,
/// E3M2, E2M3 and the packed 4-bit ones; docs/isa.md §18.4).
pub const MATRIX_INPUTS: &[DataType] = &[
    DataType::FP32,
    DataType::TF32,
    DataType::HF32,
    DataType::FP16,
    DataType::BF16,
    DataType::E4M3,
    DataType::E5M2,
    DataType::S16,
    DataType::S8,
    DataType::U16,
    DataType::U8,
];

/// The eight float types TEXP accepts (AVS `tile-bound-texp-types-001`).
pub(crate) const FLOATS: &[DataType] = &[
    DataType::FP64,
    DataType::FP32,
    DataType::TF32,
    DataType::HF32,
    DataType::FP16,
    DataType::BF16,
    DataType::E4M3,
    DataType::E5M2,
];

/// A9 (`TileA9DataTypeSupported`): the source types ARGMAX/ARGMIN accept.
pub const A9: &[DataType] = &[
    DataType::S32,
    DataType::U32,
    DataType::FP32,
    DataType::S16,
    DataType::U16,
    DataType::FP16,
    DataType::BF16,
    DataType::S8,
    DataType::U8,
];

/// Source types of TROWEXPANDEXPDIF/TCOLEXPANDEXPDIF (the sources of the five legal pairs).
pub const EXPDIF_SOURCES: &[DataType] = &[DataType::FP32, DataType::FP16, DataType::BF16];

/// The (source, destination) pairs EXPDIF accepts
/// (`SelectedBundleExpansionExponentialDifferenceTypes`, docs/isa.md §1.4).
pub const EXPDIF_PAIRS: &[(DataType, DataType)] = &[
    (DataType::FP16, DataType::FP16),
    (DataType::BF16, DataType::BF16),
    (DataType::FP32, DataType::FP32),
    (DataType::FP16, DataType::FP32),
    (DataType::BF16, DataType::FP32),
];

/// Destination types of ARGMAX/ARGMIN (the decoded path always gives U32).
pub(crate) const ARG_RESULTS: &[DataType] = &[DataType::U32, DataType::S32];

/// The DataType a predicate tile's descriptor records (`ConfigurePredicateTileForMask` in
/// `asl/tile/model/state/allocation.asl` sets U8); its payload is packed bits, never U8 values.
pub const PREDICATE_DTYPE: DataType = DataType::U8;

impl DataType {
    /// The type for an element spelling in `!pto.tile<…>`; `i8`…`i64` mean signed.
    pub fn from_mlir_name(name: &str) -> Option<DataType> {
        match name {
            "i8" => return Some(DataType::S8),
            "i16" => return Some(DataType::S16),
            "i32" => return Some(DataType::S32),
            "i64" => return Some(DataType::S64),
            _ => {}
        }
        DataType::ALL
            .iter()
            .copied()
            .find(|t| t.mlir_name() == Some(name))
    }

    /// The type for a spec assembly name (`FP32`, `U8`, …), case-insensitive.
    pub fn from_name(name: &str) -> Option<DataType> {
        DataType::ALL
            .iter()
            .copied()
            .find(|t| t.name().eq_ignore_ascii_case(name))
    }

    /// The 5-bit DataType code (docs/isa.md §2.9).
    pub fn code(self) -> u32 {
        self as u32
    }

    /// Whether the type is a float ([`TypeClass::Float`]).
    pub fn is_float(self) -> bool {
        self.class() == TypeClass::Float
    }

    /// The integer type of `bits` bits (8, 16, 32 or 64) and the given signedness.
    pub fn integer(bits: u32, signed: bool) -> Option<DataType> {
        DataType::ALL.iter().copied().find(|t| {
            let class = if signed {
                TypeClass::Signed
            } else {
                TypeClass::Unsigned
            };
            t.bits() == bits && t.class() == class
        })
    }

    /// The type a matrix product of this input type accumulates in: S32 for signed integers,
    /// U32 for unsigned, FP32 for every float (`TileMatrixAccumulatorDataType`).
    pub fn matrix_accumulator(self) -> DataType {
        match self.class() {
            TypeClass::Signed => DataType::S32,
            TypeClass::Unsigned => DataType::U32,
            TypeClass::Float | TypeClass::Other => DataType::FP32,
        }
    }

    /// Whether two matrix input types are of one numeric class, float, signed or unsigned
    /// (`TileOrdinaryMatrixInputTypesSameClass`).
    pub fn same_matrix_class(self, other: DataType) -> bool {
        self.class() == other.class() && self.class() != TypeClass::Other
    }

    /// Whether the type is a signed or unsigned integer.
    pub fn is_integer(self) -> bool {
        matches!(self.class(), TypeClass::Signed | TypeClass::Unsigned)
    }

    /// Mask of the element's carrier bits.
    pub fn carrier_mask(self) -> u64 {
        if self.bits() >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }

    /// The float format of a float type (`crate::float`, the one table of float encodings).
    pub fn float_format(self) -> Option<&'static Format> {
        format_of(self)
    }

    /// Float layout: (exponent bits, fraction bits) of the value, for the float types.
    /// TF32/HF32 keep their fraction in the top bits of a 32-bit carrier.
    pub fn float_layout(self) -> Option<(u32, u32)> {
        self.float_format().map(|f| (f.exp_bits, f.frac_bits))
    }

    /// Carrier bits that must be zero for a valid encoding (TF32 bits 12:0, HF32 bits 11:0).
    pub fn required_zero_low_bits(self) -> u32 {
        self.float_format().map_or(0, |f| f.low_zero_bits)
    }

    /// The canonical NaN every produced NaN takes (docs/isa.md §5.1).
    pub fn canonical_nan(self) -> Option<u64> {
        self.float_format().map(|f| f.canonical_nan)
    }

    /// The typed one (`TileFloatingUnaryOneEncoding`; integers: 1): the start of a PROD fold.
    pub fn one(self) -> u64 {
        self.float_format().map_or(1, Format::one)
    }

    /// The bit pattern a pad value writes into padding cells; `None` for Null (undefined cells).
    /// Floats pad with their largest finite magnitude (±), integers with their extremes, other
    /// types with all ones (Max) and the top bit (Min), cut to the carrier (docs/isa.md §1.7).
    pub fn pad_bits(self, pad: PadValue) -> Option<u64> {
        let mask = self.carrier_mask();
        let half = mask >> 1; // 0x7F…F
        let extreme = |negative: bool| self.float_format().map(|f| f.max_finite_bits(negative));
        Some(match (pad, self.class()) {
            (PadValue::Null, _) => return None,
            (PadValue::Zero, _) => 0,
            (PadValue::Max, TypeClass::Float) => extreme(false)?,
            (PadValue::Max, TypeClass::Unsigned | TypeClass::Other) => mask,
            (PadValue::Max, TypeClass::Signed) => half,
            (PadValue::Min, TypeClass::Float) => extreme(true)?,
            (PadValue::Min, TypeClass::Unsigned) => 0,
            (PadValue::Min, TypeClass::Signed) => half + 1,
            // "any other type": 0x8000000000000000, cut to the carrier.
            (PadValue::Min, TypeClass::Other) => 0x8000_0000_0000_0000 & mask,
        })
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// B.DATR PadValueOrByteId (docs/isa.md §4): what padding cells of a new destination hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PadValue {
    /// Padding holds zero.
    Zero = 0,
    /// Padding holds the type's largest value (+∞ for floats with infinities).
    Max = 1,
    /// Padding holds the type's smallest value (−∞ for floats with infinities).
    Min = 2,
    /// Padding is all-zero and *undefined*; also what an omitted B.DATR means.
    #[default]
    Null = 3,
}

impl PadValue {
    /// The bit a predicate's padding holds (`PredicateTileWithPadding`,
    /// `asl/tile/model/definedness/elements.asl`): Max writes ones, Zero and Min zeros, Null
    /// leaves the padding undefined (docs/isa.md §3.6).
    pub fn predicate_bit(self) -> Option<u64> {
        match self {
            PadValue::Zero | PadValue::Min => Some(0),
            PadValue::Max => Some(1),
            PadValue::Null => None,
        }
    }

    /// Every PadValue, in code order.
    pub const ALL: [PadValue; 4] = [PadValue::Zero, PadValue::Max, PadValue::Min, PadValue::Null];

    /// The PadValue of a 2-bit B.DATR code (higher bits ignored).
    pub fn from_code(code: u32) -> PadValue {
        PadValue::ALL[(code & 3) as usize]
    }
    /// The 2-bit B.DATR PadValueOrByteId code.
    pub fn code(self) -> u32 {
        self as u32
    }
    /// Assembly spelling (`Zero`, `Max`, `Min`, `Null`).
    pub fn name(self) -> &'static str {
        match self {
            PadValue::Zero => "Zero",
            PadValue::Max => "Max",
            PadValue::Min => "Min",
            PadValue::Null => "Null",
        }
    }
    /// The lower-case spelling used in `!pto.tile<…, pad=…>`.
    pub fn mlir_name(self) -> &'static str {
        match self {
            PadValue::Zero => "zero",
            PadValue::Max => "max",
            PadValue::Min => "min",
            PadValue::Null => "null",
        }
    }
    /// The PadValue for an assembly spelling (`Zero`, …).
    pub fn from_name(name: &str) -> Option<PadValue> {
        PadValue::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_the_spec_table() {
        let expect = [
            (0, "FP64", 64),
            (1, "FP32", 32),
            (2, "TF32", 32),
            (3, "HF32", 32),
            (4, "FP16", 16),
            (5, "BF16", 16),
            (7, "E4M3", 8),
            (8, "E5M2", 8),
            (16, "S64", 64),
            (17, "S32", 32),
            (18, "S16", 16),
            (19, "S8", 8),
            (24, "U64", 64),
            (25, "U32", 32),
            (26, "U16", 16),
            (27, "U8", 8),
        ];
        for (code, name, bits) in expect {
            let t = DataType::from_code(code).unwrap();
            assert_eq!((t.name(), t.bits()), (name, bits));
        }
        for reserved in [15, 21, 22, 23, 29, 30, 31] {
            assert_eq!(DataType::from_code(reserved), None, "code {reserved}");
        }
        assert_eq!(ARITHMETIC.len(), 16);
    }

    /// The typed ones of `TileFloatingUnaryOneEncoding` (`asl/tile/model/execution/unary.asl`),
    /// now derived from the float format table.
    #[test]
    fn typed_ones_are_the_spec_encodings() {
        let ones = [
            (DataType::FP64, 0x3FF0_0000_0000_0000),
            (DataType::FP32, 0x3F80_0000),
            (DataType::TF32, 0x3F80_0000),
            (DataType::HF32, 0x3F80_0000),
            (DataType::FP16, 0x3C00),
            (DataType::BF16, 0x3F80),
            (DataType::E4M3, 0x38),
            (DataType::E5M2, 0x3C),
            (DataType::S8, 1),
            (DataType::U64, 1),
        ];
        for (dtype, one) in ones {
            assert_eq!(dtype.one(), one, "{dtype}");
        }
    }

    #[test]
    fn pad_encodings_follow_the_facts_table() {
        use DataType::*;
        use PadValue::*;
        let table: &[(DataType, u64, u64)] = &[
            (FP64, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF),
            (FP32, 0x7F7FFFFF, 0xFF7FFFFF),
            (TF32, 0x7F7FE000, 0xFF7FE000),
            (HF32, 0x7F7FF000, 0xFF7FF000),
            (FP16, 0x7BFF, 0xFBFF),
            (BF16, 0x7F7F, 0xFF7F),
            (E4M3, 0x7E, 0xFE),
            (E5M2, 0x7B, 0xFB),
            (U8, 0xFF, 0),
            (U16, 0xFFFF, 0),
            (U32, 0xFFFFFFFF, 0),
            (U64, u64::MAX, 0),
            (S8, 0x7F, 0x80),
            (S16, 0x7FFF, 0x8000),
            (S32, 0x7FFFFFFF, 0x80000000),
            (S64, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000),
        ];
        for &(t, max, min) in table {
            assert_eq!(t.pad_bits(Max), Some(max), "{t} max");
            assert_eq!(t.pad_bits(Min), Some(min), "{t} min");
            assert_eq!(t.pad_bits(Zero), Some(0));
            assert_eq!(t.pad_bits(Null), None);
        }
    }

    #[test]
    fn mlir_spellings_round_trip() {
        for &t in ARITHMETIC {
            assert_eq!(DataType::from_mlir_name(t.mlir_name().unwrap()), Some(t));
        }
        assert_eq!(DataType::from_mlir_name("i32"), Some(DataType::S32));
        assert_eq!(DataType::from_mlir_name("f128"), None);
    }
}
