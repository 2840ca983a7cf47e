//! Exact element numerics on raw bit patterns (docs/isa.md §1.3–1.8, §5, §9 decisions 5–9).
//!
//! Every element is a `u64` carrier whose low `bits` bits are significant; results always have the
//! upper bits zero. (Tiles store elements at their native width, [`crate::elements`]; MIN/MAX also
//! run on those carriers directly, [`minmax::float_pick_in`].) Each operation returns `(result bits, status flags)`. Files: [`format`] (float
//! layouts), [`round`] (the single RNE rounder), [`float_arith`], [`minmax`], [`integer`],
//! [`exp`], [`lane`] (per-type static dispatch for the hot loops) and [`reduce`] (ordered folds).

pub mod exp;
pub mod float_arith;
/// The float formats are ISA facts; the numerics work on their unpacked values.
pub use ptoc_isa::float as format;
pub mod integer;
pub mod lane;
pub mod minmax;
pub mod reduce;
pub mod round;
pub mod unary;

use ptoc_isa::{DataType, ElementOp, TypeClass, UnaryOp};

/// Sticky numeric status flags, `CORE_STATE[36:32]` (docs/isa.md §5.4).
pub type Flags = u8;
pub const NV: Flags = 0x01;
pub const DZ: Flags = 0x02;
pub const OF: Flags = 0x04;
pub const UF: Flags = 0x08;
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
    if let Some(fmt) = format::format_of(dtype) {
        return Some(match op {
            UnaryOp::Exp => exp::exp(fmt, a),
            UnaryOp::Abs => unary::float_abs(fmt, a),
            UnaryOp::Neg => unary::float_neg(fmt, a),
            UnaryOp::Relu => unary::float_relu(fmt, a),
            UnaryOp::Sqrt => unary::sqrt(fmt, a),
            UnaryOp::Recip => unary::recip(fmt, a),
            UnaryOp::Rsqrt => unary::rsqrt(fmt, a),
            UnaryOp::Log => unary::log(fmt, a),
        });
    }
    let signed = match dtype.class() {
        TypeClass::Signed => true,
        TypeClass::Unsigned => false,
        TypeClass::Float | TypeClass::Other => return None,
    };
    let bits = dtype.bits();
    match op {
        UnaryOp::Abs => Some((unary::int_abs(signed, bits, a), 0)),
        UnaryOp::Neg => Some((unary::int_neg(bits, a), 0)),
        UnaryOp::Relu => Some((unary::int_relu(signed, bits, a), 0)),
        UnaryOp::Exp | UnaryOp::Sqrt | UnaryOp::Recip | UnaryOp::Rsqrt | UnaryOp::Log => None,
    }
}

/// Whether an element is a valid encoding of its type (TF32/HF32 low bits zero, docs/isa.md §1.8).
pub fn is_valid_encoding(dtype: DataType, bits: u64) -> bool {
    format::format_of(dtype).is_none_or(|f| f.is_valid_encoding(bits))
}
