//! Property tests against independent implementations: the host's IEEE f32/f64 arithmetic for
//! FP32/FP64 (with flag checks), f64 plus a separate normal-range rounder for TF32/HF32, and Rust's
//! wrapping integer arithmetic for the integer types.

use proptest::prelude::*;
use ptoc_isa::{DataType, ElementOp};
use ptoc_runtime::numerics::{self, Flags, NX, OF, UF};
use std::ops::{Add, Div, Mul, Sub};

const OPS: [ElementOp; 4] = [
    ElementOp::Add,
    ElementOp::Sub,
    ElementOp::Mul,
    ElementOp::Div,
];

/// The host's IEEE result of `a op b` (f32 or f64).
fn host<T>(op: ElementOp, a: T, b: T) -> T
where
    T: Add<Output = T> + Sub<Output = T> + Mul<Output = T> + Div<Output = T>,
{
    match op {
        ElementOp::Add => a + b,
        ElementOp::Sub => a - b,
        ElementOp::Mul => a * b,
        _ => a / b,
    }
}

/// Whether the exact result of `x op y` differs from `want` (finite operands): TwoSum for
/// add/sub, the exact f64 product, the fma remainder for division.
fn inexact32(op: ElementOp, x: f32, y: f32, want: f32) -> bool {
    let (x, y, w) = (x as f64, y as f64, want as f64);
    if want.is_infinite() {
        return true;
    }
    match op {
        ElementOp::Add | ElementOp::Sub => {
            let y = if op == ElementOp::Sub { -y } else { y };
            let s = x + y;
            let bp = s - x;
            let err = (x - (s - bp)) + (y - bp);
            s != w || err != 0.0
        }
        ElementOp::Mul => x * y != w,
        _ => (-w).mul_add(y, x) != 0.0,
    }
}

/// Bit patterns biased towards interesting exponents (tiny, huge, near one).
fn f32_bits() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        (
            any::<u32>(),
            prop::sample::select(vec![0u32, 1, 2, 0x7E, 0x7F, 0x80, 0xFD, 0xFE, 0xFF])
        )
            .prop_map(|(r, e)| (r & 0x807F_FFFF) | (e << 23))
    ]
}

/// Finite f32 patterns with exponents around one, so results stay normal.
fn moderate() -> impl Strategy<Value = u32> {
    (any::<u32>(), 90u32..165).prop_map(|(r, e)| (r & 0x807F_FFFF) | (e << 23))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn fp32_matches_the_host_with_flags(a in f32_bits(), b in f32_bits(), op in 0usize..4) {
        let op = OPS[op];
        let (got, flags) = numerics::binary(op, DataType::FP32, a as u64, b as u64).unwrap();
        let (x, y) = (f32::from_bits(a), f32::from_bits(b));
        let want = host(op, x, y);
        if want.is_nan() {
            prop_assert_eq!(got, 0x7FC0_0000);
        } else {
            prop_assert_eq!(got, want.to_bits() as u64);
            let inexact = inexact32(op, x, y, want);
            if x.is_finite() && y.is_finite() && (op != ElementOp::Div || y != 0.0) {
                prop_assert_eq!(flags & NX != 0, inexact, "NX {:?} {} {}", op, x, y);
                prop_assert_eq!(flags & OF != 0, want.is_infinite(), "OF");
                // At exactly 2^-126 tininess depends on the unbounded-exponent rounding (tested in
                // the rounder's unit tests); elsewhere it is the result's magnitude.
                if want.abs() != f32::MIN_POSITIVE {
                    let tiny = want.abs() < f32::MIN_POSITIVE;
                    prop_assert_eq!(flags & UF != 0, tiny && inexact, "UF");
                }
            }
        }
    }

    #[test]
    fn fp64_matches_the_host(a in any::<u64>(), b in any::<u64>(), op in 0usize..4) {
        let op = OPS[op];
        let (got, _) = numerics::binary(op, DataType::FP64, a, b).unwrap();
        let want = host(op, f64::from_bits(a), f64::from_bits(b));
        prop_assert_eq!(got, if want.is_nan() { 0x7FF8_0000_0000_0000 } else { want.to_bits() });
    }

    #[test]
    fn tf32_and_hf32_round_the_exact_result(a in moderate(), b in moderate(), op in 0usize..4, hf in any::<bool>()) {
        let (dtype, frac) = if hf { (DataType::HF32, 11) } else { (DataType::TF32, 10) };
        let low = 23 - frac;
        let (a, b) = (a & !((1 << low) - 1), b & !((1 << low) - 1));
        let op = OPS[op];
        let (got, _) = numerics::binary(op, dtype, a as u64, b as u64).unwrap();
        let exact = host(op, f32::from_bits(a) as f64, f32::from_bits(b) as f64);
        // Only normal results: round the f64 significand to `frac` bits, ties to even.
        prop_assume!(exact.is_finite() && exact.abs() >= 2f64.powi(-126) && exact.abs() < 2f64.powi(127));
        let bits = exact.to_bits();
        let drop = 52 - frac;
        let (keep, rest) = (bits >> drop, bits & ((1u64 << drop) - 1));
        let half = 1u64 << (drop - 1);
        let rounded = (keep + (rest > half || (rest == half && keep & 1 == 1)) as u64) << drop;
        let want = f64::from_bits(rounded);
        let want32 = if want.abs() >= 2f64.powi(128) { f32::INFINITY.copysign(want as f32) } else { want as f32 };
        prop_assert_eq!(got, want32.to_bits() as u64, "{:?} {:#x} {:#x}", op, a, b);
        prop_assert_eq!(got & ((1 << low) - 1), 0);
    }

    #[test]
    fn integers_match_wrapping_arithmetic(a in any::<u64>(), b in any::<u64>(), op in 0usize..6) {
        let ops = [ElementOp::Add, ElementOp::Sub, ElementOp::Mul, ElementOp::Div, ElementOp::Max, ElementOp::Min];
        let op = ops[op];
        let check = |dtype: DataType, got: Option<(u64, Flags)>, want: Option<u64>| -> Result<(), TestCaseError> {
            if let Some(w) = want {
                prop_assert_eq!(got.unwrap(), (w & dtype.carrier_mask(), 0), "{:?} {}", op, dtype);
            }
            Ok(())
        };
        // What Rust's own wrapping arithmetic says at one width (None for a zero divisor).
        macro_rules! host {
            ($x:expr, $y:expr) => {{
                let (x, y) = ($x, $y);
                match op {
                    ElementOp::Add => Some(x.wrapping_add(y)),
                    ElementOp::Sub => Some(x.wrapping_sub(y)),
                    ElementOp::Mul => Some(x.wrapping_mul(y)),
                    ElementOp::Div => (y != 0).then(|| x.wrapping_div(y)),
                    ElementOp::Max => Some(x.max(y)),
                    _ => Some(x.min(y)),
                }
            }};
        }
        check(DataType::S8, numerics::binary(op, DataType::S8, a, b), host!(a as i8, b as i8).map(|v| v as u8 as u64))?;
        check(DataType::U32, numerics::binary(op, DataType::U32, a, b), host!(a as u32, b as u32).map(u64::from))?;
        check(DataType::S64, numerics::binary(op, DataType::S64, a, b), host!(a as i64, b as i64).map(|v| v as u64))?;
        check(DataType::U16, numerics::binary(op, DataType::U16, a, b), host!(a as u16, b as u16).map(u64::from))?;
    }
}
