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
