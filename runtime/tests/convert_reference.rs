//! TCVT against references that share no code with ptoc's rounder (docs/isa.md §1.10):
//!
//! - every float destination of 32 bits or fewer but FP32 is enumerated here from its own field
//!   widths (an independent decoder: sign, exponent, fraction, bias), so a conversion is checked
//!   by finding the two representable neighbours of the exact source value by search and picking
//!   one by the mode's rule (RNE: the even encoding, RNA: the larger magnitude, RHB: the greater
//!   value, RTO: the odd encoding, the directed modes by direction); this is a brute-force
//!   nearest value for RNE, not `half::f16::from_f64`, which double-rounds through f32;
//! - FP32 and FP64 destinations use the host's IEEE conversions (`as f32`, `as f64` round to
//!   nearest even) for the first neighbour and the next encoding for the other;
//! - integers are exact (`i128`), floats exactly `f64`; every comparison with a midpoint is exact;
//! - float to integer with Sat and the default RTZ is checked against Rust's `as`, which
//!   saturates and sends NaN to 0 exactly as Sat does; without Sat against the spec's indefinite
//!   values;
//! - the flags: NX when the result differs from the exact value, OF when the value rounded with
//!   an unbounded exponent exceeds the largest finite one, UF when inexact and that value is below
//!   the smallest normal (tininess after rounding), NV for a signalling NaN and for invalid float to
//!   integer conversions.
//!
//! 8- and 16-bit sources are exhaustive; 32- and 64-bit sources random (with values placed on
//! and around the destination's midpoints).

use proptest::prelude::*;
use ptoc_isa::dtype::ARITHMETIC;
use ptoc_isa::{DataType, NumericControl, RoundingMode};
use ptoc_runtime::numerics::convert::convert;
use std::cmp::Ordering;
use std::sync::OnceLock;

const NV: u8 = 0x01;
const OF: u8 = 0x04;
const UF: u8 = 0x08;
const NX: u8 = 0x10;

/// A float format, spelled independently of `ptoc_isa::float`.
#[derive(Clone, Copy, Debug)]
struct Spec {
    exp_bits: u32,
    frac_bits: u32,
    low_zero: u32,
    /// E4M3: no infinity, only S.1111.111 is NaN.
    fn_style: bool,
    canonical_nan: u64,
}

fn spec(t: DataType) -> Option<Spec> {
    let s = |exp_bits, frac_bits, low_zero, canonical_nan| Spec {
        exp_bits,
        frac_bits,
        low_zero,
        fn_style: false,
        canonical_nan,
    };
    Some(match t {
        DataType::FP64 => s(11, 52, 0, 0x7FF8_0000_0000_0000),
        DataType::FP32 => s(8, 23, 0, 0x7FC0_0000),
        DataType::TF32 => s(8, 10, 13, 0x7FC0_0000),
        DataType::HF32 => s(8, 11, 12, 0x7FC0_0000),
        DataType::FP16 => s(5, 10, 0, 0x7E00),
        DataType::BF16 => s(8, 7, 0, 0x7FC0),
        DataType::E5M2 => s(5, 2, 0, 0x7E),
        DataType::E4M3 => Spec {
            fn_style: true,
            ..s(4, 3, 0, 0x7F)
        },
        _ => return None,
    })
}

impl Spec {
    fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }
    fn sign_shift(self) -> u32 {
        self.exp_bits + self.frac_bits + self.low_zero
    }
    fn emin(self) -> i32 {
        1 - self.bias()
    }
}

/// What a source element means.
#[derive(Clone, Copy, Debug)]
enum X {
    /// A finite float or infinity, exactly.
    F(f64),
    I(i128),
    Nan {
        signaling: bool,
    },
}

/// Decode a float encoding from its fields (f64 holds every format's values exactly).
fn decode(s: Spec, bits: u64) -> X {
    let negative = (bits >> s.sign_shift()) & 1 == 1;
    let body = bits >> s.low_zero;
    let frac = body & ((1 << s.frac_bits) - 1);
    let e = (body >> s.frac_bits) & ((1 << s.exp_bits) - 1);
    let all_ones = (1 << s.exp_bits) - 1;
    let sign = if negative { -1.0 } else { 1.0 };
    if s.fn_style && e == all_ones && frac == (1 << s.frac_bits) - 1 {
        return X::Nan { signaling: false };
    }
    if !s.fn_style && e == all_ones {
        return if frac == 0 {
            X::F(sign * f64::INFINITY)
        } else {
            X::Nan {
                signaling: frac >> (s.frac_bits - 1) == 0,
            }
        };
    }
    let frac_f = frac as f64 / 2f64.powi(s.frac_bits as i32);
    let magnitude = if e == 0 {
        frac_f * 2f64.powi(s.emin())
    } else {
        (1.0 + frac_f) * 2f64.powi(e as i32 - s.bias())
    };
    X::F(sign * magnitude)
}

fn source(t: DataType, bits: u64) -> X {
    match spec(t) {
        Some(s) => decode(s, bits),
        None => {
            let w = t.bits();
            let raw = bits & t.carrier_mask();
            let signed = matches!(
                t,
                DataType::S8 | DataType::S16 | DataType::S32 | DataType::S64
            );
            if signed && raw >> (w - 1) == 1 {
                X::I(raw as i128 - (1i128 << w))
            } else {
                X::I(raw as i128)
            }
        }
    }
}

/// `x` (non-negative magnitude) compared exactly with a finite `d`.
fn cmp(x: X, d: f64) -> Ordering {
    match x {
        X::F(v) => v.partial_cmp(&d).expect("no NaN here"),
        X::I(v) => {
            if d.abs() >= 2f64.powi(120) {
                return if d > 0.0 {
                    Ordering::Less
                } else {
                    Ordering::Greater
                };
            }
            let fl = d.floor();
            match v.cmp(&(fl as i128)) {
                Ordering::Equal if d == fl => Ordering::Equal,
                Ordering::Equal => Ordering::Less,
                other => other,
            }
        }
        X::Nan { .. } => unreachable!(),
    }
}

fn magnitude(x: X) -> (bool, X) {
    match x {
        X::F(v) => (v.is_sign_negative(), X::F(v.abs())),
        X::I(v) => (v < 0, X::I(v.abs())),
        X::Nan { .. } => unreachable!(),
    }
}

/// Which of two neighbours `lo < x < hi` (magnitudes) a mode picks; `lo_odd` is the parity of
/// lo's encoding; `mid` is x compared with their midpoint.
fn pick_hi(mode: RoundingMode, negative: bool, mid: Ordering, lo_odd: bool) -> bool {
    use RoundingMode::*;
    match mode {
        Rne => mid == Ordering::Greater || (mid == Ordering::Equal && lo_odd),
        Rna => mid != Ordering::Less,
        Rhb => mid == Ordering::Greater || (mid == Ordering::Equal && !negative),
        Rtz => false,
        Rup => !negative,
        Rdn => negative,
        Rto => !lo_odd,
    }
}

/// The non-negative finite values of a format, ascending, with their encodings.
struct Table {
    values: Vec<(f64, u64)>,
}

fn table(t: DataType) -> &'static Table {
    static TABLES: OnceLock<Vec<(DataType, Table)>> = OnceLock::new();
    let all = TABLES.get_or_init(|| {
        [
            DataType::TF32,
            DataType::HF32,
            DataType::FP16,
            DataType::BF16,
            DataType::E4M3,
            DataType::E5M2,
        ]
        .into_iter()
        .map(|t| {
            let s = spec(t).unwrap();
            let n = 1u64 << (s.exp_bits + s.frac_bits);
            let mut values: Vec<(f64, u64)> = (0..n)
                .filter_map(|body| match decode(s, body << s.low_zero) {
                    X::F(v) if v.is_finite() => Some((v, body << s.low_zero)),
                    _ => None,
                })
                .collect();
            values.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
            (t, Table { values })
        })
        .collect()
    });
    &all.iter()
        .find(|(d, _)| *d == t)
        .expect("enumerated type")
        .1
}

/// The neighbours `lo ≤ |x| ≤ hi` of a magnitude in a float format, as (value, encoding); `hi`
/// is `None` past the largest finite value, where the next value of an unbounded exponent
/// (`lo + ulp`) stands in for it.
struct Around {
    lo: (f64, u64),
    hi: (f64, Option<u64>),
}

fn neighbours(t: DataType, a: X) -> Around {
    match t {
        DataType::FP32 => host_neighbours32(a),
        DataType::FP64 => host_neighbours64(a),
        _ => {
            let v = &table(t).values;
            // First value > a.
            let i = v.partition_point(|&(d, _)| cmp(a, d) != Ordering::Less);
            let lo = v[i - 1];
            match v.get(i) {
                Some(&(d, bits)) => Around {
                    lo,
                    hi: (d, Some(bits)),
                },
                None => {
                    let ulp = lo.0 - v[v.len() - 2].0;
                    Around {
                        lo,
                        hi: (lo.0 + ulp, None),
                    }
                }
            }
        }
    }
}

fn host_neighbours32(a: X) -> Around {
    let approx = match a {
        X::F(v) => v as f32,
        X::I(v) => v as f32, // RNE from the exact integer
        X::Nan { .. } => unreachable!(),
    };
    if approx.is_infinite() {
        let max = f32::MAX as f64;
        return Around {
            lo: (max, f32::MAX.to_bits() as u64),
            hi: (2f64.powi(128), None),
        };
    }
    let r = approx.to_bits();
    let at = |bits: u32| (f32::from_bits(bits) as f64, bits as u64);
    match cmp(a, f32::from_bits(r) as f64) {
        Ordering::Less => Around {
            lo: at(r - 1),
            hi: (at(r).0, Some(r as u64)),
        },
        _ if r == f32::MAX.to_bits() && cmp(a, f32::MAX as f64) == Ordering::Greater => Around {
            lo: at(r),
            hi: (2f64.powi(128), None),
        },
        _ => {
            let up = at(r + 1);
            Around {
                lo: at(r),
                hi: (up.0, Some(up.1)),
            }
        }
    }
}

/// FP64 neighbours: only integers need them (every float source is exact in FP64).
fn host_neighbours64(a: X) -> Around {
    let X::I(v) = a else {
        let X::F(f) = a else { unreachable!() };
        return Around {
            lo: (f, f.to_bits()),
            hi: (f, Some(f.to_bits())),
        };
    };
    let r = (v as f64).to_bits();
    let at = |bits: u64| (f64::from_bits(bits), bits);
    if cmp(a, f64::from_bits(r)) == Ordering::Less {
        Around {
            lo: at(r - 1),
            hi: (at(r).0, Some(r)),
        }
    } else {
        let up = at(r + 1);
        Around {
            lo: at(r),
            hi: (up.0, Some(up.1)),
        }
    }
}

/// `x` compared with `(lo + hi) / 2`, exactly.
fn cmp_mid(a: X, lo: f64, hi: f64) -> Ordering {
    // Neighbours of at most 24 bits of precision: their halves and the halves' sum are exact.
    let mid = lo / 2.0 + hi / 2.0;
    match a {
        // FP64 neighbours of an integer (only needed above 2^53, where both are integers).
        X::I(v) if hi >= 2f64.powi(53) => {
            let m2 = lo as i128 + hi as i128;
            (2 * v).cmp(&m2)
        }
        _ => cmp(a, mid),
    }
}

fn sign_bits(s: Spec, negative: bool, bits: u64) -> u64 {
    bits | ((negative as u64) << s.sign_shift())
}

/// The reference conversion to a float type.
fn to_float(t: DataType, x: X, mode: RoundingMode, sat: bool) -> (u64, u8) {
    let s = spec(t).unwrap();
    let max_bits = table_max(t);
    let inf = |neg: bool| {
        if s.fn_style {
            s.canonical_nan
        } else {
            sign_bits(
                s,
                neg,
                ((1u64 << s.exp_bits) - 1) << (s.frac_bits + s.low_zero),
            )
        }
    };
    match x {
        X::Nan { signaling } => return (s.canonical_nan, if signaling { NV } else { 0 }),
        X::F(v) if v.is_infinite() => {
            let neg = v < 0.0;
            return if sat {
                (sign_bits(s, neg, max_bits), OF | NX)
            } else if s.fn_style {
                (s.canonical_nan, OF | NX)
            } else {
                (inf(neg), 0)
            };
        }
        X::F(v) if v == 0.0 => return (sign_bits(s, v.is_sign_negative(), 0), 0),
        X::I(0) => return (0, 0),
        _ => {}
    }
    let (neg, a) = magnitude(x);
    let n = neighbours(t, a);
    let (lo, hi) = (n.lo, n.hi);
    let exact_lo = cmp(a, lo.0) == Ordering::Equal;
    let picked_hi = if exact_lo {
        false
    } else if cmp(a, hi.0) != Ordering::Less {
        true // at or past the unbounded next value: overflow in every mode
    } else {
        pick_hi(
            mode,
            neg,
            cmp_mid(a, lo.0, hi.0),
            lo.1 & (1 << s.low_zero) != 0,
        )
    };
    // `neighbours` gives lo ≤ |x| < hi for a representable hi, so only lo can be exact.
    let inexact = !exact_lo;
    let flags = if inexact { NX } else { 0 };
    let result = if picked_hi { hi.1 } else { Some(lo.1) };
    let Some(bits) = result else {
        // Overflow.
        use RoundingMode::*;
        let to_inf = match mode {
            Rne | Rna | Rhb => true,
            Rup => !neg,
            Rdn => neg,
            Rtz | Rto => false,
        };
        let bits = if sat || !to_inf {
            sign_bits(s, neg, max_bits)
        } else {
            inf(neg)
        };
        return (bits, OF | NX);
    };
    // Tininess after rounding: rounded to the format's precision with an unbounded exponent,
    // is the magnitude below 2^emin? Between 2^emin − 2^(emin−p) (odd) and 2^emin the mode decides.
    let min_normal = 2f64.powi(s.emin());
    let below = min_normal - 2f64.powi(s.emin() - s.frac_bits as i32 - 1);
    let tiny = match (cmp(a, below), cmp(a, min_normal)) {
        // At or below the largest p-bit value under 2^emin (which is exact at precision p).
        (Ordering::Less | Ordering::Equal, _) => true,
        (_, Ordering::Less) => !pick_hi(mode, neg, cmp_mid(a, below, min_normal), true),
        _ => false,
    };
    let uf = if inexact && tiny { UF } else { 0 };
    (sign_bits(s, neg, bits), flags | uf)
}

/// The largest finite encoding of a format (positive).
fn table_max(t: DataType) -> u64 {
    match t {
        DataType::FP32 => f32::MAX.to_bits() as u64,
        DataType::FP64 => f64::MAX.to_bits(),
        _ => table(t).values.last().unwrap().1,
    }
}

fn int_range(t: DataType) -> (i128, i128) {
    let w = t.bits();
    match t {
        DataType::S8 | DataType::S16 | DataType::S32 | DataType::S64 => {
            (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
        }
        _ => (0, (1i128 << w) - 1),
    }
}

/// The reference conversion to an integer type.
fn to_int(t: DataType, x: X, mode: RoundingMode, sat: bool) -> (u64, u8) {
    let (min, max) = int_range(t);
    let mask = t.carrier_mask();
    let indefinite = if min < 0 { min } else { max };
    let bits = |v: i128| (v as u64) & mask;
    match x {
        X::I(v) if sat => (bits(v.clamp(min, max)), 0),
        X::I(v) => (bits(v), 0),
        X::Nan { .. } => (if sat { 0 } else { bits(indefinite) }, NV),
        X::F(v) if v.is_infinite() => {
            let end = if v > 0.0 { max } else { min };
            (bits(if sat { end } else { indefinite }), NV)
        }
        X::F(v) => {
            let (fl, ce) = (v.floor(), v.ceil());
            let (r, inexact) = if fl == ce {
                (fl, false)
            } else {
                let neg = v < 0.0;
                // Magnitude neighbours: toward zero and away from it.
                let (toward, away) = if neg { (ce, fl) } else { (fl, ce) };
                let frac = (v - fl).abs(); // exact
                let mid = if neg {
                    0.5f64.partial_cmp(&frac).unwrap() // |v| − |toward| = 1 − frac
                } else {
                    frac.partial_cmp(&0.5).unwrap()
                };
                let toward_odd = (toward.abs() % 2.0) == 1.0;
                let up = pick_hi(mode, neg, mid, toward_odd);
                (if up { away } else { toward }, true)
            };
            if r.abs() < 2f64.powi(100) && (min..=max).contains(&(r as i128)) {
                (bits(r as i128), if inexact { NX } else { 0 })
            } else {
                let end = if r > 0.0 { max } else { min };
                (bits(if sat { end } else { indefinite }), NV)
            }
        }
    }
}

fn reference(src: DataType, dst: DataType, control: NumericControl, bits: u64) -> (u64, u8) {
    let x = source(src, bits);
    let mode = control.resolve(src, dst);
    if dst.is_float() {
        to_float(dst, x, mode, control.sat)
    } else {
        to_int(dst, x, mode, control.sat)
    }
}

/// Every control: the default and the seven modes, each with and without Sat.
fn controls() -> Vec<NumericControl> {
    (0..8u8)
        .flat_map(|r| [false, true].map(|sat| NumericControl::from_fields(r, sat)))
        .collect()
}

fn check(src: DataType, dst: DataType, control: NumericControl, bits: u64) {
    let got = convert(src, dst, control, bits).expect("arithmetic types");
    let want = reference(src, dst, control, bits);
    assert_eq!(
        got, want,
        "{src} {bits:#x} -> {dst} under {control:?}: got {:#x} flags {:#x}, want {:#x} flags {:#x}",
        got.0, got.1, want.0, want.1
    );
}

/// Every 8-bit source, every destination, every control.
#[test]
fn eight_bit_sources_exhaustive() {
    for src in [DataType::E4M3, DataType::E5M2, DataType::S8, DataType::U8] {
        for &dst in ARITHMETIC {
            for control in controls() {
                for bits in 0..=0xFF {
                    check(src, dst, control, bits);
                }
            }
        }
    }
}

/// Every 16-bit source into every destination under every control (one test per source type,
/// so the harness runs them side by side).
fn sixteen_bit_source_exhaustive(src: DataType) {
    for &dst in ARITHMETIC {
        for control in controls() {
            for bits in 0..=0xFFFF {
                check(src, dst, control, bits);
            }
        }
    }
}

#[test]
fn fp16_sources_exhaustive() {
    sixteen_bit_source_exhaustive(DataType::FP16);
}

#[test]
fn bf16_sources_exhaustive() {
    sixteen_bit_source_exhaustive(DataType::BF16);
}

#[test]
fn s16_sources_exhaustive() {
    sixteen_bit_source_exhaustive(DataType::S16);
}

#[test]
fn u16_sources_exhaustive() {
    sixteen_bit_source_exhaustive(DataType::U16);
}

/// 32- and 64-bit sources: random bits, values just beside the midpoints of FP16 (for float
/// sources) and integers around powers of two and FP32's midpoints.
fn wide_bits(src: DataType) -> BoxedStrategy<u64> {
    let mask = src.carrier_mask();
    let low = src.required_zero_low_bits();
    let random = any::<u64>().prop_map(move |b| (b & mask) >> low << low);
    if src.is_integer() {
        let near = (0u32..64, -3i64..=3, any::<bool>()).prop_map(move |(e, n, mid)| {
            let base = 1u64 << e;
            let half_ulp = if mid { base >> 24 } else { 0 };
            (base | half_ulp).wrapping_add(n as u64) & mask
        });
        return prop_oneof![random, near].boxed();
    }
    let near = (any::<u16>(), -2i64..=2).prop_map(move |(h, nudge)| {
        let v = match source(DataType::FP16, h as u64) {
            X::F(v) if v.is_finite() && v != 0.0 => v,
            _ => 1.0,
        };
        let ulp = 2f64.powi(v.abs().log2().floor().max(-14.0) as i32 - 10);
        let x = v + ulp / 2.0;
        let bits = match src {
            DataType::FP64 => x.to_bits().wrapping_add(nudge as u64),
            _ => ((x as f32).to_bits() as u64).wrapping_add((nudge << low) as u64),
        };
        (bits & mask) >> low << low
    });
    prop_oneof![random, near].boxed()
}

const WIDE: [DataType; 8] = [
    DataType::FP64,
    DataType::FP32,
    DataType::TF32,
    DataType::HF32,
    DataType::S64,
    DataType::S32,
    DataType::U64,
    DataType::U32,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn wide_sources_random(
        (s, bits) in (0usize..8).prop_flat_map(|s| (Just(s), wide_bits(WIDE[s]))),
        d in 0usize..16,
        c in 0usize..16,
    ) {
        check(WIDE[s], ARITHMETIC[d], controls()[c], bits);
    }
}

/// Float to integer with Sat under the default RTZ is Rust's `as`: truncation, saturation at
/// the range ends, NaN to 0.
#[test]
fn saturating_float_to_int_is_rusts_as() {
    let sat = NumericControl::from_fields(0, true);
    let mut xs: Vec<f64> = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        127.9,
        128.0,
        -128.9,
        -129.0,
        255.5,
        256.0,
        65535.9,
        2147483647.5,
        -2147483648.9,
        4294967296.0,
        9.3e18,
        -9.3e18,
        1.9e19,
        1e300,
        -1e300,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
    ];
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for _ in 0..20_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        xs.push(f64::from_bits(seed));
        xs.push((seed as i64 as f64) / 2f64.powi((seed % 64) as i32));
    }
    for &x in &xs {
        let b64 = x.to_bits();
        let got = |dst| convert(DataType::FP64, dst, sat, b64).unwrap().0;
        assert_eq!(got(DataType::S8), x as i8 as u8 as u64, "{x}");
        assert_eq!(got(DataType::S16), x as i16 as u16 as u64, "{x}");
        assert_eq!(got(DataType::S32), x as i32 as u32 as u64, "{x}");
        assert_eq!(got(DataType::S64), x as i64 as u64, "{x}");
        assert_eq!(got(DataType::U8), x as u8 as u64, "{x}");
        assert_eq!(got(DataType::U16), x as u16 as u64, "{x}");
        assert_eq!(got(DataType::U32), x as u32 as u64, "{x}");
        assert_eq!(got(DataType::U64), x as u64, "{x}");
        let f = x as f32;
        let b32 = f.to_bits() as u64;
        assert_eq!(
            convert(DataType::FP32, DataType::S32, sat, b32).unwrap().0,
            f as i32 as u32 as u64,
            "{f}"
        );
        // And RNE to FP32 is the host's `as f32`, NaN canonical.
        let want = if f.is_nan() { 0x7FC0_0000 } else { b32 };
        let rne = NumericControl::default();
        assert_eq!(
            convert(DataType::FP64, DataType::FP32, rne, b64).unwrap().0,
            want,
            "{x}"
        );
    }
}

/// Integers to FP32 and FP64 under RNE are the host's `as` (which rounds to nearest even).
#[test]
fn integers_to_floats_are_rusts_as() {
    let rne = NumericControl::default();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for i in 0..50_000u64 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let v = seed >> (i % 64);
        let s = v as i64;
        assert_eq!(
            convert(DataType::U64, DataType::FP32, rne, v).unwrap().0,
            (v as f32).to_bits() as u64
        );
        assert_eq!(
            convert(DataType::U64, DataType::FP64, rne, v).unwrap().0,
            (v as f64).to_bits()
        );
        assert_eq!(
            convert(DataType::S64, DataType::FP32, rne, v).unwrap().0,
            (s as f32).to_bits() as u64
        );
        assert_eq!(
            convert(DataType::S64, DataType::FP64, rne, v).unwrap().0,
            (s as f64).to_bits()
        );
        let w = v as u32 as u64;
        assert_eq!(
            convert(DataType::S32, DataType::FP32, rne, w).unwrap().0,
            (w as u32 as i32 as f32).to_bits() as u64
        );
    }
}
