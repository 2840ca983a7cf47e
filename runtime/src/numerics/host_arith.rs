//! Exact fast paths for FP32 and FP64 ADD/SUB/MUL/DIV, and for rounding a binary64 value to
//! them or widening them to one, on the host's IEEE 754 arithmetic.
//!
//! Rust's `f32`/`f64` `+ - * /` are IEEE 754 operations rounded to nearest, ties to even (on
//! x86-64 they are SSE2 instructions under the default MXCSR: RNE, no flush-to-zero, no
//! denormals-are-zero; Rust never changes it). That is the rounding the tile ops use
//! (docs/isa.md §5.3), so on the inputs accepted here the host result is bit for bit what
//! [`super::round::round_exact`] produces. The status flags follow from the accepted domain:
//!
//! - both operands are normal (`is_normal`: no NaN, infinity, zero or subnormal), so there is
//!   no NV, no DZ and no NaN result;
//! - the result is finite and strictly above the smallest normal in magnitude: an RNE result is
//!   infinite exactly when the software rounder reports OF, so a finite one means no OF; and
//!   rounding is monotonic, so `|r| > 2^emin` means the exact value exceeds `2^emin` and is not
//!   tiny (no UF, docs/isa.md §5.1 tininess after rounding). A result of exactly `2^emin` is left
//!   to the software path: the exact value may be tiny and round up to it;
//! - NX is decided exactly by each op's own test, documented on it.
//!
//! Anything outside this domain returns `None` and the caller runs the software path
//! (`float_arith`), which stays the reference; the tests below compare the two
//! (about 10 million random and crafted operand pairs per run).

use super::format::{Format, FP32, FP64};
use super::{Flags, NX};
use std::ops::{Add, Div, Mul, Sub};

/// The host float types with a fast path.
trait Host:
    Copy
    + PartialEq
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
{
    /// Significand bits, hidden bit included (24 or 53).
    const PRECISION: u32;
    const ZERO: Self;
    const MIN_POSITIVE: Self;
    fn from_carrier(bits: u64) -> Self;
    fn to_carrier(self) -> u64;
    fn is_normal(self) -> bool;
    fn is_finite(self) -> bool;
    fn abs(self) -> Self;
    /// The integer significand of a normal value (hidden bit set).
    fn significand(self) -> u64;
}

macro_rules! host {
    ($t:ty, $bits:ty, $precision:expr) => {
        impl Host for $t {
            const PRECISION: u32 = $precision;
            const ZERO: Self = 0.0;
            const MIN_POSITIVE: Self = <$t>::MIN_POSITIVE;
            #[inline(always)]
            fn from_carrier(bits: u64) -> Self {
                <$t>::from_bits(bits as $bits)
            }
            #[inline(always)]
            fn to_carrier(self) -> u64 {
                self.to_bits() as u64
            }
            #[inline(always)]
            fn is_normal(self) -> bool {
                <$t>::is_normal(self)
            }
            #[inline(always)]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn significand(self) -> u64 {
                let frac_mask: $bits = (1 << ($precision - 1)) - 1;
                ((self.to_bits() & frac_mask) | (frac_mask + 1)) as u64
            }
        }
    };
}
host!(f32, u32, 24);
host!(f64, u64, 53);

/// Whether a host result is one the fast path may return: finite and `|r| > 2^emin` (no OF, no
/// UF; a NaN fails the comparison).
#[inline(always)]
fn in_range<F: Host>(r: F) -> bool {
    r.abs() > F::MIN_POSITIVE && r.is_finite()
}

#[inline(always)]
fn inexact(nx: bool) -> Flags {
    if nx {
        NX
    } else {
        0
    }
}

/// `a + b`. NX by Knuth's TwoSum: with `s = RN(a + b)`, `err = (a - (s - bb)) + (b - bb)` where
/// `bb = s - a` is exactly `(a + b) - s` whenever `s` does not overflow (every step is then an
/// exact operation under RNE; Boldo, Graillat and Muller, "On the robustness of the 2Sum and
/// Fast2Sum algorithms", 2017), so the sum was rounded iff `err != 0`.
#[inline(always)]
fn add<F: Host>(a: F, b: F) -> Option<(F, Flags)> {
    if !(a.is_normal() && b.is_normal()) {
        return None;
    }
    let s = a + b;
    if !in_range(s) {
        return None;
    }
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    Some((s, inexact(err != F::ZERO)))
}

/// `a · b`. With `a = ma·2^i` and `b = mb·2^j` (integer significands), the exact product is
/// `oa·ob·2^k` where `oa`, `ob` are the odd parts of `ma`, `mb`; a normal result holds it exactly
/// iff `oa·ob < 2^precision` (both below 2^53, so the product fits a u128 exactly).
#[inline(always)]
fn mul<F: Host>(a: F, b: F) -> Option<(F, Flags)> {
    if !(a.is_normal() && b.is_normal()) {
        return None;
    }
    let p = a * b;
    if !in_range(p) {
        return None;
    }
    let odd = |m: u64| (m >> m.trailing_zeros()) as u128;
    let exact = (odd(a.significand()) * odd(b.significand())) >> F::PRECISION == 0;
    Some((p, inexact(!exact)))
}

/// `a / b`. The exact quotient is `ma / mb · 2^k`; with `mb = ob·2^t`, `ob` odd, it has a finite
/// binary expansion iff `ob` divides `ma`, and then its odd part divides `ma < 2^precision`, so
/// a normal result holds it exactly. Hence NX iff `ma mod ob != 0`.
#[inline(always)]
fn div<F: Host>(a: F, b: F) -> Option<(F, Flags)> {
    if !(a.is_normal() && b.is_normal()) {
        return None;
    }
    let q = a / b;
    if !in_range(q) {
        return None;
    }
    let mb = b.significand();
    let exact = a.significand().is_multiple_of(mb >> mb.trailing_zeros());
    Some((q, inexact(!exact)))
}

/// `op` on FP32 or FP64 carriers through the host, `None` for every other format or when the
/// inputs or the result leave the fast domain.
#[inline(always)]
fn on_format(
    fmt: &Format,
    a: u64,
    b: u64,
    op32: fn(f32, f32) -> Option<(f32, Flags)>,
    op64: fn(f64, f64) -> Option<(f64, Flags)>,
) -> Option<(u64, Flags)> {
    fn run<F: Host>(a: u64, b: u64, op: fn(F, F) -> Option<(F, Flags)>) -> Option<(u64, Flags)> {
        op(F::from_carrier(a), F::from_carrier(b)).map(|(r, f)| (r.to_carrier(), f))
    }
    if *fmt == FP32 {
        run(a, b, op32)
    } else if *fmt == FP64 {
        run(a, b, op64)
    } else {
        None
    }
}

/// ADD through the host (see the module notes); `None`: use the software path.
#[inline(always)]
pub(super) fn try_add(fmt: &Format, a: u64, b: u64) -> Option<(u64, Flags)> {
    on_format(fmt, a, b, add, add)
}

/// SUB as `a + (-b)`: negation is exact and IEEE subtraction is defined that way.
#[inline(always)]
pub(super) fn try_sub(fmt: &Format, a: u64, b: u64) -> Option<(u64, Flags)> {
    on_format(fmt, a, b, |a, b| add(a, -b), |a, b| add(a, -b))
}

/// MUL through the host; `None`: use the software path.
#[inline(always)]
pub(super) fn try_mul(fmt: &Format, a: u64, b: u64) -> Option<(u64, Flags)> {
    on_format(fmt, a, b, mul, mul)
}

/// DIV through the host; `None`: use the software path.
#[inline(always)]
pub(super) fn try_div(fmt: &Format, a: u64, b: u64) -> Option<(u64, Flags)> {
    on_format(fmt, a, b, div, div)
}

/// A binary64 value rounded to FP32 or FP64 ([`super::round::round_f64`]): Rust's `f64 as f32`
/// rounds to nearest, ties to even (an SSE2 `cvtsd2ss` on x86-64), and FP64 keeps the value.
/// With the result finite and above `2^emin` (module notes), NX iff `known_inexact` or the
/// narrowed value differs from `value` (an f32 widens to f64 exactly).
#[inline(always)]
pub(super) fn try_narrow(fmt: &Format, value: f64, known_inexact: bool) -> Option<(u64, Flags)> {
    if *fmt == FP32 {
        let r = value as f32;
        in_range(r).then(|| (r.to_carrier(), inexact(known_inexact || r as f64 != value)))
    } else if *fmt == FP64 {
        in_range(value).then(|| (value.to_carrier(), inexact(known_inexact)))
    } else {
        None
    }
}

/// The binary64 value of an FP32 or FP64 element ([`super::round::to_f64`]): `f32 as f64` is
/// exact for every non-NaN value (zeros, subnormals and infinities included); NaNs are left to
/// the software path, which gives its own quiet NaN.
#[inline(always)]
pub(super) fn try_widen(fmt: &Format, bits: u64) -> Option<f64> {
    let value = if *fmt == FP32 {
        f32::from_carrier(bits) as f64
    } else if *fmt == FP64 {
        f64::from_carrier(bits)
    } else {
        return None;
    };
    (!value.is_nan()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::super::float_arith::{add_exact, div_exact, mul_exact, sub_exact};
    use super::super::format::{HF32, TF32};
    use super::super::round::{round_f64_exact, to_f64_exact};
    use super::super::{DZ, NV, OF, UF};
    use super::*;
    use proptest::prelude::*;

    type Try = fn(&Format, u64, u64) -> Option<(u64, Flags)>;
    type Exact = fn(&Format, u64, u64) -> (u64, Flags);
    const OPS: [(&str, Try, Exact); 4] = [
        ("add", try_add, add_exact),
        ("sub", try_sub, sub_exact),
        ("mul", try_mul, mul_exact),
        ("div", try_div, div_exact),
    ];

    /// Field layout of FP32 / FP64: (format, exponent bits, fraction bits).
    const LAYOUTS: [(&Format, u32, u32); 2] = [(&FP32, 8, 23), (&FP64, 11, 52)];

    /// How often each op took the fast path, with and without NX.
    #[derive(Default)]
    struct Hits([[usize; 2]; 4]);

    /// Every op on `(a, b)`: a fast result must equal the software one, bits and flags.
    fn check(fmt: &Format, a: u64, b: u64, hits: &mut Hits) {
        for (i, (name, fast, exact)) in OPS.iter().enumerate() {
            if let Some(got) = fast(fmt, a, b) {
                let want = exact(fmt, a, b);
                assert_eq!(got, want, "{name} {a:#x} {b:#x}");
                assert_eq!(got.1 & (NV | DZ | OF | UF), 0);
                hits.0[i][(got.1 != 0) as usize] += 1;
            }
        }
    }

    /// SplitMix64: a cheap deterministic stream from one proptest seed.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A fraction field that is random, has many low zeros (exact results, ties), is all ones
    /// (carries), zero (powers of two) or one bit.
    fn fraction(rng: &mut Rng, frac_bits: u32) -> u64 {
        let mask = (1u64 << frac_bits) - 1;
        match rng.below(6) {
            0 | 1 => rng.next() & mask,
            2 => (rng.next() & mask) >> rng.below(frac_bits as u64 + 1),
            3 => (rng.next() & mask) & !((1u64 << rng.below(frac_bits as u64 + 1)) - 1),
            4 => mask ^ (rng.below(2) * (1 << rng.below(frac_bits as u64))),
            _ => {
                if rng.below(2) == 0 {
                    0
                } else {
                    1 << rng.below(frac_bits as u64)
                }
            }
        }
    }

    /// An operand pair aimed at the fast path's edges: exponents equal or close (cancellation,
    /// halfway sums), products and quotients landing next to the underflow and overflow
    /// thresholds, subnormals, zeros, infinities, NaNs, and plain random bits.
    fn crafted(rng: &mut Rng, exp_bits: u32, frac_bits: u32) -> (u64, u64) {
        let max_e = (1i64 << exp_bits) - 1;
        let bias = max_e / 2;
        let pack = |rng: &mut Rng, e: i64, f: u64| {
            let sign = rng.below(2) << (exp_bits + frac_bits);
            sign | ((e.clamp(0, max_e) as u64) << frac_bits) | f
        };
        let ea = match rng.below(4) {
            0 => rng.below(max_e as u64 + 1) as i64,
            1 => [0, 1, 2, max_e - 2, max_e - 1, max_e][rng.below(6) as usize],
            _ => 1 + rng.below(max_e as u64 - 1) as i64,
        };
        let jitter = rng.below(7) as i64 - 3;
        let eb = match rng.below(7) {
            // ADD/SUB: the same or nearby binade, or far enough for a half-ulp addend.
            0 => ea + jitter,
            1 => ea - frac_bits as i64 - 1 + jitter,
            // MUL: ea + eb - bias next to 1 (the underflow edge) or max_e - 1 (overflow).
            2 => 1 + bias - ea + jitter,
            3 => max_e - 1 + bias - ea + jitter,
            // DIV: ea - eb + bias next to 1 or max_e - 1.
            4 => ea + bias - 1 + jitter,
            5 => ea + bias - (max_e - 1) + jitter,
            _ => rng.below(max_e as u64 + 1) as i64,
        };
        let (fa, fb) = (fraction(rng, frac_bits), fraction(rng, frac_bits));
        let a = pack(rng, ea, fa);
        let b = pack(rng, eb, fb);
        // Sometimes b is a's neighbour (cancellation) or a itself.
        match rng.below(8) {
            0 => (a, a ^ (rng.below(2) << (exp_bits + frac_bits))),
            1 => (a, a.wrapping_add(rng.below(3)).wrapping_sub(1)),
            _ => (a, b),
        }
    }

    /// The four ops over `n` crafted and `n` uniformly random pairs per format from `seed`.
    fn sweep(seed: u64, n: usize) -> [Hits; 2] {
        let mut rng = Rng(seed);
        LAYOUTS.map(|(fmt, exp_bits, frac_bits)| {
            let mut hits = Hits::default();
            let carrier = 1 + exp_bits + frac_bits;
            let mask = if carrier == 64 {
                u64::MAX
            } else {
                (1 << carrier) - 1
            };
            for _ in 0..n {
                let (a, b) = crafted(&mut rng, exp_bits, frac_bits);
                check(fmt, a, b, &mut hits);
                check(fmt, rng.next() & mask, rng.next() & mask, &mut hits);
            }
            hits
        })
    }

    /// Narrowing `value` both ways, with and without a known-inexact value.
    fn check_narrow(value: f64, hits: &mut [usize; 2]) {
        for fmt in [&FP32, &FP64] {
            for known in [false, true] {
                if let Some(got) = try_narrow(fmt, value, known) {
                    assert_eq!(got, round_f64_exact(fmt, value, known), "{value:e} {known}");
                    hits[(got.1 != 0) as usize] += 1;
                }
            }
        }
    }

    /// Values around FP32 values (exact, ties, one f64 ulp either side, the FP32 overflow and
    /// underflow thresholds) and random f64 bits.
    fn sweep_narrow(seed: u64, n: usize) -> [usize; 2] {
        let mut rng = Rng(seed);
        let mut hits = [0; 2];
        for _ in 0..n {
            let (e, _) = crafted(&mut rng, 8, 23);
            let single = f32::from_bits(e as u32) as f64;
            // Half an FP32 ulp of `single` (normal range) is 2^29 f64 ulps.
            let nudge = [0i64, 1 << 29, -(1 << 29), 1, -1][rng.below(5) as usize];
            let tie = (single.to_bits() as i64).wrapping_add(nudge) as u64;
            let near = tie.wrapping_add(rng.below(3)).wrapping_sub(1);
            check_narrow(f64::from_bits(near), &mut hits);
            check_narrow(f64::from_bits(rng.next()), &mut hits);
        }
        hits
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn widening_matches_software(seed in any::<u64>()) {
            let mut rng = Rng(seed);
            for _ in 0..4096 {
                let (a, b) = crafted(&mut rng, 8, 23);
                let (c, _) = crafted(&mut rng, 11, 52);
                for (fmt, bits) in [(&FP32, a), (&FP32, b), (&FP64, c), (&FP64, rng.next())] {
                    if let Some(v) = try_widen(fmt, bits) {
                        prop_assert_eq!(v.to_bits(), to_f64_exact(fmt, bits).to_bits());
                    }
                }
            }
        }

        #[test]
        fn narrowing_matches_software(seed in any::<u64>()) {
            sweep_narrow(seed, 4096);
        }

        /// 256 seeds × 2048 × 2 pairs × 2 formats × 4 ops: about 8 million comparisons.
        #[test]
        fn fast_path_matches_software(seed in any::<u64>()) {
            sweep(seed, 2048);
        }
    }

    #[test]
    fn the_fast_path_is_taken_with_and_without_nx_for_every_op() {
        for (hits, (fmt, ..)) in sweep(7, 20_000).iter().zip(LAYOUTS) {
            for (counts, (name, ..)) in hits.0.iter().zip(OPS) {
                assert!(
                    counts[0] > 100 && counts[1] > 100,
                    "{fmt:?} {name} {counts:?}"
                );
            }
        }
    }

    #[test]
    fn narrowing_is_taken_exactly_and_inexactly() {
        let hits = sweep_narrow(11, 50_000);
        assert!(hits[0] > 1000 && hits[1] > 1000, "{hits:?}");
        // 1 + 2^-24 ties to 1 in FP32; 1 + 2^-23 is exact; FLT_MIN·(1 - 2^-30) falls back.
        assert_eq!(
            try_narrow(&FP32, 1.0 + 2f64.powi(-24), false),
            Some((0x3F80_0000, NX))
        );
        assert_eq!(
            try_narrow(&FP32, 1.0 + 2f64.powi(-23), false),
            Some((0x3F80_0001, 0))
        );
        assert_eq!(
            try_narrow(
                &FP32,
                f32::MIN_POSITIVE as f64 * (1.0 - 2f64.powi(-30)),
                true
            ),
            None
        );
        assert_eq!(try_narrow(&FP32, 3.5e38, false), None);
        assert_eq!(try_narrow(&TF32, 1.0, false), None);
        // Widening: FP32 subnormal, -0 and infinity exactly; NaNs and other formats fall back.
        assert_eq!(try_widen(&FP32, 1), Some(2f64.powi(-149)));
        assert_eq!(
            try_widen(&FP32, 0x8000_0000).map(f64::to_bits),
            Some(1 << 63)
        );
        assert_eq!(try_widen(&FP32, 0xFF80_0000), Some(f64::NEG_INFINITY));
        assert_eq!(try_widen(&FP32, 0x7FC0_0000), None);
        assert_eq!(try_widen(&TF32, 0x3F80_0000), None);
    }

    #[test]
    fn boundary_results_fall_back() {
        let (min, two, half) = (0x0080_0000, 0x4000_0000, 0x3F00_0000);
        // Exactly the smallest normal may be a tiny value rounded up: software decides.
        assert_eq!(try_mul(&FP32, min, 0x3F80_0000), None);
        assert_eq!(try_mul(&FP32, 0x0100_0000, half), None);
        // Just above it is fast.
        assert_eq!(try_mul(&FP32, 0x0100_0002, half), Some((0x0080_0002, 0)));
        // Overflow, subnormal, zero, infinite and NaN operands, zero results.
        assert_eq!(try_mul(&FP32, 0x7F7F_FFFF, two), None);
        assert_eq!(try_add(&FP32, 0x7F7F_FFFF, 0x7F7F_FFFF), None);
        assert_eq!(try_add(&FP32, 0x0000_0001, two), None);
        assert_eq!(try_add(&FP32, 0, two), None);
        assert_eq!(try_div(&FP32, two, 0), None);
        assert_eq!(try_div(&FP32, two, 0x7F80_0000), None);
        assert_eq!(try_add(&FP32, 0x7FC0_0000, two), None);
        assert_eq!(try_sub(&FP32, two, two), None);
        // Other formats never take it.
        assert_eq!(try_add(&TF32, two, two), None);
        assert_eq!(try_add(&HF32, two, two), None);
    }

    #[test]
    fn hand_computed_results() {
        let one = 1f64.to_bits();
        // 1 + 2^-53 is the tie between 1 and 1 + 2^-52: even, inexact.
        assert_eq!(
            try_add(&FP64, one, 2f64.powi(-53).to_bits()),
            Some((one, NX))
        );
        // 1 + 3·2^-54 rounds up to 1 + 2^-52.
        let up = (1.0 + 2f64.powi(-52)).to_bits();
        assert_eq!(
            try_add(&FP64, one, (3.0 * 2f64.powi(-54)).to_bits()),
            Some((up, NX))
        );
        // FP32 3 · (1/3 rounded) = 1 exactly? 0x3EAAAAAB · 3 = 1.00000002 → rounds to 1, inexact.
        assert_eq!(
            try_mul(&FP32, 0x3EAA_AAAB, 0x4040_0000),
            Some((0x3F80_0000, NX))
        );
        // 1.5 · 1.5 = 2.25 exactly; 10 / 4 = 2.5 exactly; 1 / 3 inexact (0x3EAAAAAB).
        assert_eq!(
            try_mul(&FP32, 0x3FC0_0000, 0x3FC0_0000),
            Some((0x4010_0000, 0))
        );
        assert_eq!(
            try_div(&FP32, 0x4120_0000, 0x4080_0000),
            Some((0x4020_0000, 0))
        );
        assert_eq!(
            try_div(&FP32, 0x3F80_0000, 0x4040_0000),
            Some((0x3EAA_AAAB, NX))
        );
        // 2^24 + 1 is not an FP32: 16777216 + 1 ties to even (16777216), inexact.
        assert_eq!(
            try_add(&FP32, 0x4B80_0000, 0x3F80_0000),
            Some((0x4B80_0000, NX))
        );
        // 3 - 1 = 2 exactly.
        assert_eq!(
            try_sub(&FP32, 0x4040_0000, 0x3F80_0000),
            Some((0x4000_0000, 0))
        );
    }
}
