//! Exact element numerics on raw bit patterns (docs/isa.md §1.3–1.8, §5, §9 decisions 5–9).
//!
//! Every element is a `u64` carrier whose low `bits` bits are significant; results always have the
//! upper bits zero. (Tiles store elements at their native width, [`crate::Elements`]; MIN/MAX also
//! run on those carriers directly, `minmax::float_pick_in`.) Each operation returns `(result bits, status flags)`. Files: [`format`](mod@format) (float
//! layouts), [`round`] (the single rounder, RNE or a TCVT mode), [`convert`] (TCVT), [`compare`] (TCMP), `float_arith`, `minmax`, `integer`,
//! `exp`, [`lane`] (per-type static dispatch for the hot loops) and [`reduce`] (ordered folds).

pub mod compare;
pub mod convert;
pub(crate) mod exp;
pub(crate) mod float_arith;
/// Exact FP32/FP64 fast paths of `float_arith` on the host's IEEE arithmetic.
pub(crate) mod host_arith;
/// The float formats are ISA facts; the numerics work on their unpacked values.
pub use ptoc_isa::float as format;
pub(crate) mod integer;
pub mod lane;
pub mod matmul;
pub(crate) mod minmax;
pub mod reduce;
pub mod round;
pub(crate) mod unary;

use ptoc_isa::{DataType, ElementOp, TypeClass, UnaryOp};

/// Sticky numeric status flags, `CORE_STATE[36:32]` (docs/isa.md §5.4).
pub type Flags = u8;
/// Invalid operation (bit 0, docs/isa.md §5.4).
pub const NV: Flags = 0x01;
/// Division by zero (bit 1).
pub const DZ: Flags = 0x02;
/// Overflow (bit 2).
pub const OF: Flags = 0x04;
/// Underflow (bit 3).
pub const UF: Flags = 0x08;
/// Inexact (bit 4).
pub const NX: Flags = 0x10;

/// Spell flags as `NV|NX` (empty string for none).
pub fn flag_names(flags: Flags) -> String {
    let names = [(NV, "NV"), (DZ, "DZ"), (OF, "OF"), (UF, "UF"), (NX, "NX")];
    names
        .iter()
        .filter(|(f, _)| flags & f != 0)
        .map(|(_, n)| *n)
        .collect::<Vec<_>>()
        .join("|")
}

/// One same-type element operation; `None` when the op is not defined on the type (EXPDIF on
/// a non-float type, or a non-arithmetic type). EXPDIF here is the same-type pair.
pub fn binary(op: ElementOp, dtype: DataType, a: u64, b: u64) -> Option<(u64, Flags)> {
    if op == ElementOp::ExpDif {
        return expdif(dtype, dtype, a, b);
    }
    lane::with_lane(dtype, lane::ScalarBinary { op, a, b }).flatten()
}

/// EXPDIF for a (source, destination) pair; `None` for pairs outside docs/isa.md §1.4.
pub fn expdif(src: DataType, dst: DataType, a: u64, b: u64) -> Option<(u64, Flags)> {
    if !ptoc_isa::dtype::EXPDIF_PAIRS.contains(&(src, dst)) {
        return None;
    }
    Some(if src == dst {
        exp::expdif_same(format::format_of(src)?, a, b)
    } else {
        exp::expdif_widening(src, a, b)
    })
}

/// TEXP on one element; `None` for non-float types.
pub fn exp(dtype: DataType, a: u64) -> Option<(u64, Flags)> {
    Some(exp::exp(format::format_of(dtype)?, a))
}

/// One unary element operation; `None` when the op is not defined on the type (the float-only
/// ops on an integer, any op on a non-arithmetic type).
pub fn unary(op: UnaryOp, dtype: DataType, a: u64) -> Option<(u64, Flags)> {
    UnaryElement::of(op, dtype).map(|f| f.apply(a))
}

/// A unary op resolved for one element type, so a kernel looks the type up once per tile.
#[derive(Clone, Copy, Debug)]
pub(crate) enum UnaryElement {
    Float(UnaryOp, &'static format::Format),
    Integer {
        op: IntegerUnary,
        signed: bool,
        bits: u32,
    },
}

/// The unary ops defined on integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntegerUnary {
    Abs,
    Neg,
    Relu,
}

impl UnaryElement {
    /// `op` on `dtype`; `None` when the op is not defined on the type.
    pub fn of(op: UnaryOp, dtype: DataType) -> Option<UnaryElement> {
        if let Some(fmt) = format::format_of(dtype) {
            return Some(UnaryElement::Float(op, fmt));
        }
        let signed = match dtype.class() {
            TypeClass::Signed => true,
            TypeClass::Unsigned => false,
            TypeClass::Float | TypeClass::Other => return None,
        };
        let op = match op {
            UnaryOp::Abs => IntegerUnary::Abs,
            UnaryOp::Neg => IntegerUnary::Neg,
            UnaryOp::Relu => IntegerUnary::Relu,
            UnaryOp::Exp | UnaryOp::Sqrt | UnaryOp::Recip | UnaryOp::Rsqrt | UnaryOp::Log => {
                return None
            }
        };
        Some(UnaryElement::Integer {
            op,
            signed,
            bits: dtype.bits(),
        })
    }

    /// The op on one element's bits.
    #[inline]
    pub fn apply(self, a: u64) -> (u64, Flags) {
        match self {
            UnaryElement::Float(op, fmt) => match op {
                UnaryOp::Exp => exp::exp(fmt, a),
                UnaryOp::Abs => unary::float_abs(fmt, a),
                UnaryOp::Neg => unary::float_neg(fmt, a),
                UnaryOp::Relu => unary::float_relu(fmt, a),
                UnaryOp::Sqrt => unary::sqrt(fmt, a),
                UnaryOp::Recip => unary::recip(fmt, a),
                UnaryOp::Rsqrt => unary::rsqrt(fmt, a),
                UnaryOp::Log => unary::log(fmt, a),
            },
            UnaryElement::Integer { op, signed, bits } => match op {
                IntegerUnary::Abs => (unary::int_abs(signed, bits, a), 0),
                IntegerUnary::Neg => (unary::int_neg(bits, a), 0),
                IntegerUnary::Relu => (unary::int_relu(signed, bits, a), 0),
            },
        }
    }
}

/// Whether an element is a valid encoding of its type (TF32/HF32 low bits zero, docs/isa.md §1.8).
pub fn is_valid_encoding(dtype: DataType, bits: u64) -> bool {
    format::format_of(dtype).is_none_or(|f| f.is_valid_encoding(bits))
}
