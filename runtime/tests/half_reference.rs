//! FP16 and BF16 against the `half` crate, an independent implementation of both formats: every
//! sum and product of two FP16/BF16 values, rounded once from its exact value by ptoc's rounder,
//! must equal `half`'s own RNE conversion of the host f64 result (which is exact for these).

use proptest::prelude::*;
use ptoc_isa::{DataType, ElementOp};
use ptoc_runtime::numerics;

fn is_nan16(dtype: DataType, bits: u16) -> bool {
    match dtype {
        DataType::FP16 => half::f16::from_bits(bits).is_nan(),
        _ => half::bf16::from_bits(bits).is_nan(),
    }
}

fn widen(dtype: DataType, bits: u16) -> f64 {
    match dtype {
        DataType::FP16 => half::f16::from_bits(bits).to_f64(),
        _ => half::bf16::from_bits(bits).to_f64(),
    }
}

fn narrow(dtype: DataType, value: f64) -> u16 {
    match dtype {
        DataType::FP16 => half::f16::from_f64(value).to_bits(),
        _ => half::bf16::from_f64(value).to_bits(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

    #[test]
    fn products_and_sums_match_half(a in any::<u16>(), b in any::<u16>(), bf in any::<bool>(), add in any::<bool>()) {
        let dtype = if bf { DataType::BF16 } else { DataType::FP16 };
        let (x, y) = (widen(dtype, a), widen(dtype, b));
        // f64 holds every sum and product of two 16-bit floats exactly, so `half` rounding the
        // f64 result once is the correctly rounded answer.
        let (op, exact) = if add { (ElementOp::Add, x + y) } else { (ElementOp::Mul, x * y) };
        let (got, _) = numerics::binary(op, dtype, a as u64, b as u64).unwrap();
        if is_nan16(dtype, a) || is_nan16(dtype, b) || exact.is_nan() {
            prop_assert_eq!(got, dtype.canonical_nan().unwrap());
        } else {
            prop_assert_eq!(got, narrow(dtype, exact) as u64, "{:?} {:#06x} {:#06x}", op, a, b);
        }
    }
}
