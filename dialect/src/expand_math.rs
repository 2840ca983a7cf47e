//! f32 `math.tanh` and `math.erf`, which the ISA has no instruction for, as sequences of the
//! body ops it has (docs/isa.md §20 decisions 64 and 65).
//!
//! The importer writes the sequence into the generic's body in place of the math op, so
//! `convert-linalg-to-pto` and `ptoc verify`'s reference evaluator both read the expanded
//! body: the kernel is checked bit for bit against the formula, and the formula's distance
//! from the exact function is a documented, tested bound, not a claim of exactness.
//!
//! Both are odd functions, evaluated as a polynomial near 0 and through `exp` elsewhere, the
//! branch chosen by a select on `|x| < T`:
//!
//! - `tanh`: for `|x| < 0.75`, `x + (x·s)·Q(s)` with `s = x·x` and `Q` of degree 5 (Horner);
//!   otherwise `±(1 − 2/(e^(2|x|) + 1))`, the sign chosen by `x < 0`. A zero input is
//!   returned as it is (the polynomial would make −0 into +0). Measured: at most 1.01 ulp from
//!   the exact value.
//! - `erf`: for `|x| < 1`, `x + x·P(s)` with `P` of degree 7; otherwise
//!   `±(1 − e^(−s)·R(t))` with `t = 1/(1 + |x|/2)` and `R` of degree 9. Measured: at most
//!   1.39 ulp.
//!
//! The coefficients are least-squares fits in relative error, rounded to f32, by
//! `test/frontends/fit_approximations.py`, which also measures the bounds above;
//! `python/tests/test_frontends.py` checks them against numpy and onnxruntime.

use ptoc_ir::linalg::{BodyValue, CmpFPredicate, ScalarOp};

/// `Q` of tanh's polynomial branch, constant term first.
const TANH_Q: [f32; 6] = [
    -0.33333316,
    0.13332722,
    -0.05389472,
    0.021458553,
    -0.007667101,
    0.0017425441,
];
/// Where tanh switches from the polynomial to the exponential branch.
const TANH_SWITCH: f32 = 0.75;

/// `P` of erf's polynomial branch, constant term first (`erf(x)/x − 1` near 0).
const ERF_P: [f32; 8] = [
    0.12837917,
    -0.37612638,
    0.112837836,
    -0.026865475,
    0.0052211387,
    -0.00084854383,
    0.00011274735,
    -9.689734e-06,
];
/// `R` of erf's exponential branch (`erfc(x)·e^(x²)` in `t`), constant term first.
const ERF_R: [f32; 10] = [
    1.1151593e-05,
    0.28181374,
    0.28526488,
    0.22578555,
    0.2671384,
    -0.18084684,
    0.515385,
    -0.71399945,
    0.40700012,
    -0.08758507,
];
/// Where erf switches from the polynomial to the exponential branch.
const ERF_SWITCH: f32 = 1.0;

/// The math ops [`expand`] writes out, with their measured bounds in ulp, for messages and docs.
pub(crate) const EXPANDED: [(&str, f64); 2] = [("math.tanh", 1.01), ("math.erf", 1.39)];

/// Writes body ops, each of the element type f32, and names their results.
pub(crate) trait Emit {
    /// Appends `op` on `operands`; its result.
    fn emit(&mut self, op: ScalarOp, operands: Vec<BodyValue>) -> BodyValue;
}

struct Writer<'e> {
    out: &'e mut dyn Emit,
}

impl Writer<'_> {
    fn op(&mut self, op: ScalarOp, operands: &[BodyValue]) -> BodyValue {
        self.out.emit(op, operands.to_vec())
    }
    fn constant(&mut self, c: f32) -> BodyValue {
        self.op(ScalarOp::Constant(u64::from(c.to_bits())), &[])
    }
    fn add(&mut self, a: BodyValue, b: BodyValue) -> BodyValue {
        self.op(ScalarOp::AddF, &[a, b])
    }
    fn sub(&mut self, a: BodyValue, b: BodyValue) -> BodyValue {
        self.op(ScalarOp::SubF, &[a, b])
    }
    fn mul(&mut self, a: BodyValue, b: BodyValue) -> BodyValue {
        self.op(ScalarOp::MulF, &[a, b])
    }
    fn div(&mut self, a: BodyValue, b: BodyValue) -> BodyValue {
        self.op(ScalarOp::DivF, &[a, b])
    }
    /// `c[0] + s·(c[1] + s·(…))`, innermost first.
    fn horner(&mut self, s: BodyValue, c: &[f32]) -> BodyValue {
        let (&last, rest) = c.split_last().expect("a polynomial has a coefficient");
        let mut acc = self.constant(last);
        for &k in rest.iter().rev() {
            let scaled = self.mul(acc, s);
            let k = self.constant(k);
            acc = self.add(scaled, k);
        }
        acc
    }
    fn select(&mut self, cond: BodyValue, yes: BodyValue, no: BodyValue) -> BodyValue {
        self.op(ScalarOp::Select, &[cond, yes, no])
    }
    fn less(&mut self, a: BodyValue, b: BodyValue) -> BodyValue {
        self.op(ScalarOp::CmpF(CmpFPredicate::Olt), &[a, b])
    }
    /// `-v` where `x < 0`, else `v`.
    fn with_sign_of(&mut self, x: BodyValue, v: BodyValue) -> BodyValue {
        let zero = self.constant(0.0);
        let negative = self.less(x, zero);
        let minus = self.op(ScalarOp::NegF, &[v]);
        self.select(negative, minus, v)
    }
    /// `near` where `|x| < switch`, else `far`.
    fn branch(
        &mut self,
        abs: BodyValue,
        switch: f32,
        near: BodyValue,
        far: BodyValue,
    ) -> BodyValue {
        let switch = self.constant(switch);
        let small = self.less(abs, switch);
        self.select(small, near, far)
    }
}

/// The f32 sequence for the math op `name` of `x`, written through `out`; `None` (nothing
/// written) when `name` is not one [`expand`] writes out.
pub(crate) fn expand(name: &str, x: BodyValue, out: &mut dyn Emit) -> Option<BodyValue> {
    let w = &mut Writer { out };
    match name {
        "math.tanh" => {
            let abs = w.op(ScalarOp::AbsF, &[x]);
            let s = w.mul(x, x);
            let q = w.horner(s, &TANH_Q);
            let xs = w.mul(x, s);
            let correction = w.mul(xs, q);
            let near = w.add(x, correction);
            let twice = w.add(abs, abs);
            let e = w.op(ScalarOp::Exp, &[twice]);
            let one = w.constant(1.0);
            let two = w.constant(2.0);
            let e1 = w.add(e, one);
            let d = w.div(two, e1);
            let t = w.sub(one, d);
            let far = w.with_sign_of(x, t);
            let value = w.branch(abs, TANH_SWITCH, near, far);
            // ±0 stays itself: x + (x·s)·Q(s) adds +0 to −0.
            let zero = w.constant(0.0);
            let is_zero = w.op(ScalarOp::CmpF(CmpFPredicate::Oeq), &[x, zero]);
            Some(w.select(is_zero, x, value))
        }
        "math.erf" => {
            let abs = w.op(ScalarOp::AbsF, &[x]);
            let s = w.mul(x, x);
            let p = w.horner(s, &ERF_P);
            let xp = w.mul(x, p);
            let near = w.add(x, xp);
            let half = w.constant(0.5);
            let one = w.constant(1.0);
            let h = w.mul(half, abs);
            let h1 = w.add(one, h);
            let t = w.div(one, h1);
            let minus_s = w.op(ScalarOp::NegF, &[s]);
            let e = w.op(ScalarOp::Exp, &[minus_s]);
            let r = w.horner(t, &ERF_R);
            let erfc = w.mul(e, r);
            let value = w.sub(one, erfc);
            let far = w.with_sign_of(x, value);
            Some(w.branch(abs, ERF_SWITCH, near, far))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the ops [`expand`] writes on the host in f32, each op rounded once (exp in binary64
    /// rounded once, as the interpreter's TEXP), recording them as it goes.
    struct Host {
        values: Vec<f32>,
        x: f32,
        ops: Vec<ScalarOp>,
    }

    impl Host {
        fn get(&self, v: BodyValue) -> f32 {
            match v {
                BodyValue::Arg(0) => self.x,
                BodyValue::Op(i) => self.values[i],
                other => panic!("unexpected operand {other:?}"),
            }
        }
    }

    impl Emit for Host {
        fn emit(&mut self, op: ScalarOp, operands: Vec<BodyValue>) -> BodyValue {
            let a: Vec<f32> = operands.iter().map(|&v| self.get(v)).collect();
            let bool_ = |b: bool| if b { 1.0 } else { 0.0 };
            let r = match op {
                ScalarOp::Constant(bits) => f32::from_bits(bits as u32),
                ScalarOp::AddF => a[0] + a[1],
                ScalarOp::SubF => a[0] - a[1],
                ScalarOp::MulF => a[0] * a[1],
                ScalarOp::DivF => a[0] / a[1],
                ScalarOp::NegF => -a[0],
                ScalarOp::AbsF => a[0].abs(),
                ScalarOp::Exp => f64::from(a[0]).exp() as f32,
                ScalarOp::CmpF(CmpFPredicate::Olt) => bool_(a[0] < a[1]),
                ScalarOp::CmpF(CmpFPredicate::Oeq) => bool_(a[0] == a[1]),
                ScalarOp::Select => {
                    if a[0] != 0.0 {
                        a[1]
                    } else {
                        a[2]
                    }
                }
                other => panic!("expand wrote {other:?}, which the host does not run"),
            };
            self.ops.push(op);
            self.values.push(r);
            BodyValue::Op(self.values.len() - 1)
        }
    }

    fn run(name: &str, x: f32) -> f32 {
        let mut host = Host {
            values: Vec::new(),
            x,
            ops: Vec::new(),
        };
        let r = expand(name, BodyValue::Arg(0), &mut host).unwrap();
        assert!(host
            .ops
            .iter()
            .all(|op| !op.mlir_name().ends_with(&name[5..])));
        host.get(r)
    }

    /// Distance in ulp of the f32 nearest `exact`.
    fn ulps(got: f32, exact: f64) -> f64 {
        let near = exact as f32;
        let ulp = f64::from(f32::from_bits(near.abs().to_bits() + 1)) - f64::from(near.abs());
        (f64::from(got) - exact).abs() / ulp
    }

    #[test]
    fn tanh_is_within_its_bound_and_keeps_special_values() {
        let bound = EXPANDED[0].1;
        for i in -4000..=4000 {
            let x = i as f32 / 500.0;
            if x == 0.0 {
                continue;
            }
            let e = ulps(run("math.tanh", x), f64::from(x).tanh());
            assert!(e <= bound, "tanh({x}) is {e} ulp off");
        }
        assert_eq!(run("math.tanh", -0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(run("math.tanh", 0.0).to_bits(), 0);
        assert_eq!(run("math.tanh", f32::INFINITY), 1.0);
        assert_eq!(run("math.tanh", f32::NEG_INFINITY), -1.0);
        assert!(run("math.tanh", f32::NAN).is_nan());
    }

    #[test]
    fn erf_is_within_its_bound_and_keeps_special_values() {
        let bound = EXPANDED[1].1;
        // erf to 17 digits (binary64 values of the exact function).
        for (x, exact) in [
            (0.125f32, 0.140_316_204_801_333_8),
            (0.5, 0.520_499_877_813_046_5),
            (0.999_999_94, 0.842_700_768_207_378_5),
            (1.0, 0.842_700_792_949_714_9),
            (2.0, 0.995_322_265_018_952_7),
            (3.5, 0.999_999_256_901_627_7),
            (-0.75, -0.711_155_633_653_515_1),
        ] {
            let e = ulps(run("math.erf", x), exact);
            assert!(e <= bound, "erf({x}) is {e} ulp off");
        }
        assert_eq!(run("math.erf", -0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(run("math.erf", 10.0), 1.0);
        assert_eq!(run("math.erf", f32::NEG_INFINITY), -1.0);
        assert!(run("math.erf", f32::NAN).is_nan());
        let mut host = Host {
            values: Vec::new(),
            x: 0.0,
            ops: Vec::new(),
        };
        assert!(expand("math.sin", BodyValue::Arg(0), &mut host).is_none());
        assert!(host.ops.is_empty());
    }
}
