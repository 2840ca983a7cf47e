//! Static per-type dispatch: one zero-sized [`Lane`] type per arithmetic DataType, so element loops
//! are monomorphised per (op, type) and the hot path never branches on the DataType per element.
//!
//! `with_lane` is the single `match` from a runtime DataType to its lane.

use super::format::{self, Format};
use super::minmax::{
    float_pick, float_pick_flag_in, float_pick_in, float_pick_ordered_in, int_pick, int_pick_in,
    is_nan_in, Pick,
};
use super::{float_arith, integer, Flags};
use crate::elements::Carrier;
use ptoc_isa::{DataType, ElementOp};

/// The six same-type element operations of one DataType, plus its encoding checks.
pub trait Lane {
    /// The DataType this lane computes on.
    const DTYPE: DataType;
    /// How a tile stores this type's elements.
    type Carrier: Carrier;
    /// MAX/MIN on the native carrier, branch-free (what [`Lane::max`]/[`Lane::min`] run).
    fn pick(pick: Pick, a: Self::Carrier, b: Self::Carrier) -> (Self::Carrier, Flags);
    /// The flags [`Lane::pick`] raises for one operand; its flags are the OR over both.
    fn pick_flag(x: Self::Carrier) -> Flags;
    /// [`Lane::pick`] of two operands that are not NaNs ([`Lane::is_nan`]); it raises nothing.
    fn pick_ordered(pick: Pick, a: Self::Carrier, b: Self::Carrier) -> Self::Carrier;
    /// Whether `x` is a NaN (never, for integers).
    fn is_nan(x: Self::Carrier) -> bool;
    /// ADD on two elements.
    fn add(a: u64, b: u64) -> (u64, Flags);
    /// SUB on two elements.
    fn sub(a: u64, b: u64) -> (u64, Flags);
    /// MUL on two elements.
    fn mul(a: u64, b: u64) -> (u64, Flags);
    /// DIV on two elements (docs/isa.md §1.7, §1.8).
    fn div(a: u64, b: u64) -> (u64, Flags);
    /// MAX on two elements (docs/isa.md §1.8).
    fn max(a: u64, b: u64) -> (u64, Flags);
    /// MIN on two elements (docs/isa.md §1.8).
    fn min(a: u64, b: u64) -> (u64, Flags);
    /// Valid encoding (TF32/HF32 low bits zero; always true for the others).
    fn valid(bits: u64) -> bool;
    /// An integer zero (the divisors integer DIV rejects); false for every float.
    fn is_int_zero(bits: u64) -> bool;
}

macro_rules! float_lane {
    ($name:ident, $fmt:path, $dt:ident, $carrier:ty) => {
        float_lane!($name, $fmt, $dt, $carrier, |x: $carrier| is_nan_in(
            &$fmt,
            x & <$carrier>::from_bits($fmt.carrier_mask())
        ));
    };
    // `$is_nan`: the NaN test on the carrier (a native float compare where the type is one).
    ($name:ident, $fmt:path, $dt:ident, $carrier:ty, $is_nan:expr) => {
        #[doc = concat!("The ", stringify!($dt), " lane.")]
        pub struct $name;
        impl $name {
            const FMT: &'static Format = &$fmt;
        }
        impl Lane for $name {
            const DTYPE: DataType = DataType::$dt;
            type Carrier = $carrier;
            #[inline]
            fn add(a: u64, b: u64) -> (u64, Flags) {
                float_arith::add(Self::FMT, a, b)
            }
            #[inline]
            fn sub(a: u64, b: u64) -> (u64, Flags) {
                float_arith::sub(Self::FMT, a, b)
            }
            #[inline]
            fn mul(a: u64, b: u64) -> (u64, Flags) {
                float_arith::mul(Self::FMT, a, b)
            }
            #[inline]
            fn div(a: u64, b: u64) -> (u64, Flags) {
                float_arith::div(Self::FMT, a, b)
            }
            #[inline]
            fn max(a: u64, b: u64) -> (u64, Flags) {
                float_pick(Self::FMT, Pick::Max, a, b)
            }
            #[inline]
            fn min(a: u64, b: u64) -> (u64, Flags) {
                float_pick(Self::FMT, Pick::Min, a, b)
            }
            #[inline(always)]
            fn pick(pick: Pick, a: $carrier, b: $carrier) -> ($carrier, Flags) {
                float_pick_in(Self::FMT, pick, a, b)
            }
            #[inline(always)]
            fn pick_flag(x: $carrier) -> Flags {
                float_pick_flag_in(Self::FMT, x)
            }
            #[inline(always)]
            fn pick_ordered(pick: Pick, a: $carrier, b: $carrier) -> $carrier {
                float_pick_ordered_in(Self::FMT, pick, a, b)
            }
            #[inline(always)]
            fn is_nan(x: $carrier) -> bool {
                $is_nan(x)
            }
            #[inline]
            fn valid(bits: u64) -> bool {
                Self::FMT.is_valid_encoding(bits)
            }
            #[inline]
            fn is_int_zero(_: u64) -> bool {
                false
            }
        }
    };
}

macro_rules! int_lane {
    ($name:ident, $signed:expr, $bits:expr, $dt:ident, $carrier:ty) => {
        #[doc = concat!("The ", stringify!($dt), " lane.")]
        pub struct $name;
        impl Lane for $name {
            const DTYPE: DataType = DataType::$dt;
            type Carrier = $carrier;
            #[inline(always)]
            fn pick(pick: Pick, a: $carrier, b: $carrier) -> ($carrier, Flags) {
                (Self::pick_ordered(pick, a, b), 0)
            }
            #[inline(always)]
            fn pick_ordered(pick: Pick, a: $carrier, b: $carrier) -> $carrier {
                int_pick_in($signed, $bits, pick, a, b)
            }
            #[inline(always)]
            fn is_nan(_: $carrier) -> bool {
                false
            }
            #[inline(always)]
            fn pick_flag(_: $carrier) -> Flags {
                0
            }
            #[inline]
            fn add(a: u64, b: u64) -> (u64, Flags) {
                (integer::add($bits, a, b), 0)
            }
            #[inline]
            fn sub(a: u64, b: u64) -> (u64, Flags) {
                (integer::sub($bits, a, b), 0)
            }
            #[inline]
            fn mul(a: u64, b: u64) -> (u64, Flags) {
                (integer::mul($bits, a, b), 0)
            }
            #[inline]
            fn div(a: u64, b: u64) -> (u64, Flags) {
                integer::div($signed, $bits, a, b)
            }
            #[inline]
            fn max(a: u64, b: u64) -> (u64, Flags) {
                (int_pick($signed, $bits, Pick::Max, a, b), 0)
            }
            #[inline]
            fn min(a: u64, b: u64) -> (u64, Flags) {
                (int_pick($signed, $bits, Pick::Min, a, b), 0)
            }
            #[inline]
            fn valid(_: u64) -> bool {
                true
            }
            #[inline]
            fn is_int_zero(bits: u64) -> bool {
                bits & integer::width_mask($bits) == 0
            }
        }
    };
}

// IEEE binary64 and binary32 are the CPU's own: one unordered compare tests for a NaN.
float_lane!(Fp64, format::FP64, FP64, u64, |x: u64| f64::from_bits(x)
    .is_nan());
float_lane!(Fp32, format::FP32, FP32, u32, |x: u32| f32::from_bits(x)
    .is_nan());
float_lane!(Tf32, format::TF32, TF32, u32);
float_lane!(Hf32, format::HF32, HF32, u32);
float_lane!(Fp16, format::FP16, FP16, u16);
float_lane!(Bf16, format::BF16, BF16, u16);
float_lane!(E4m3, format::E4M3, E4M3, u8);
float_lane!(E5m2, format::E5M2, E5M2, u8);
int_lane!(S64, true, 64, S64, u64);
int_lane!(S32, true, 32, S32, u32);
int_lane!(S16, true, 16, S16, u16);
int_lane!(S8, true, 8, S8, u8);
int_lane!(U64, false, 64, U64, u64);
int_lane!(U32, false, 32, U32, u32);
int_lane!(U16, false, 16, U16, u16);
int_lane!(U8, false, 8, U8, u8);

/// A same-type element function on raw bits.
pub(crate) type ElementFn = fn(u64, u64) -> (u64, Flags);

/// Something generic over a lane, run once a DataType is known.
pub(crate) trait LaneVisitor {
    type Output;
    fn visit<L: Lane>(self) -> Self::Output;
}

/// Run `visitor` with the lane of `dtype`; `None` for non-arithmetic types.
pub(crate) fn with_lane<V: LaneVisitor>(dtype: DataType, visitor: V) -> Option<V::Output> {
    Some(match dtype {
        DataType::FP64 => visitor.visit::<Fp64>(),
        DataType::FP32 => visitor.visit::<Fp32>(),
        DataType::TF32 => visitor.visit::<Tf32>(),
        DataType::HF32 => visitor.visit::<Hf32>(),
        DataType::FP16 => visitor.visit::<Fp16>(),
        DataType::BF16 => visitor.visit::<Bf16>(),
        DataType::E4M3 => visitor.visit::<E4m3>(),
        DataType::E5M2 => visitor.visit::<E5m2>(),
        DataType::S64 => visitor.visit::<S64>(),
        DataType::S32 => visitor.visit::<S32>(),
        DataType::S16 => visitor.visit::<S16>(),
        DataType::S8 => visitor.visit::<S8>(),
        DataType::U64 => visitor.visit::<U64>(),
        DataType::U32 => visitor.visit::<U32>(),
        DataType::U16 => visitor.visit::<U16>(),
        DataType::U8 => visitor.visit::<U8>(),
        _ => return None,
    })
}

/// The lane function of a same-type element op (`None` for EXPDIF, which is not a lane op).
pub(crate) fn lane_fn<L: Lane>(op: ElementOp) -> Option<ElementFn> {
    Some(match op {
        ElementOp::Add => L::add,
        ElementOp::Sub => L::sub,
        ElementOp::Mul => L::mul,
        ElementOp::Div => L::div,
        ElementOp::Max => L::max,
        ElementOp::Min => L::min,
        ElementOp::ExpDif => return None,
    })
}

/// One scalar element op (used by [`super::binary`]; the tile loops use lanes directly).
pub(crate) struct ScalarBinary {
    pub op: ElementOp,
    pub a: u64,
    pub b: u64,
}

impl LaneVisitor for ScalarBinary {
    type Output = Option<(u64, Flags)>;
    fn visit<L: Lane>(self) -> Option<(u64, Flags)> {
        lane_fn::<L>(self.op).map(|f| f(self.a, self.b))
    }
}
