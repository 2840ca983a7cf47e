//! The reference evaluator of linalg-on-tensors programs ([`ptoc_ir::linalg`]): the meaning
//! `ptoc verify` compares a compiled linalg program against, computed by linalg's own definition
//! and independently of `convert-linalg-to-pto`.
//!
//! - `linalg.generic`: each loop dimension's extent comes from an operand dimension its map indexes
//!   by it (two operands that disagree are an error); the outputs start as copies of the `outs`
//!   tensors; the domain is visited in row-major order (d0 outermost), linalg's sequential order,
//!   which fixes every reduction's fold order; per point the block arguments are the inputs'
//!   elements at their maps and the outputs' current elements, the body runs, and each yielded
//!   value is written to its output at its map.
//! - Scalar ops have MLIR's meaning with the project's choices (docs/isa.md §5.2): float
//!   arithmetic, `sqrt` and `rsqrt` are correctly rounded (RNE) and NaN results are the type's
//!   canonical NaN; `maxnumf`/`minnumf` are the ISA's MAX/MIN (docs/isa.md §1.8: the number when
//!   one operand is NaN, −0 < +0, which MLIR leaves open); `maximumf`/`minimumf` give the canonical
//!   NaN when either operand is NaN and otherwise the same pick; `negf`/`absf` change the sign bit
//!   only; `extf`/`truncf` are TCVT under RNE (docs/isa.md §1.10); integer ops are
//!   [`ptoc_ir::ArithOp::apply`], MLIR's own integer semantics; `sitofp`/`uitofp` round the
//!   integer's value to nearest even, `fptosi`/`fptoui` truncate toward zero and are poison out of
//!   the integer's range (NaN and infinities included), `extsi`/`extui`/`trunci` extend or cut the
//!   bits.
//! - `math.exp` and `math.log` are "binary64, rounded once to the type" with TEXP's and TLOG's
//!   special values (docs/isa.md §1.6, §1.8, §9 decision 6): the one numeric definition shared with
//!   the ISA on purpose, since MLIR fixes no accuracy for them.
//! - Undefined behaviour (integer division by zero, `INT_MIN / -1`) is an error naming the op's
//!   location and the iteration point. Poison is tracked per value: a `fastmath<nnan>` op whose
//!   operand or result is a NaN gives poison, as does reading a `tensor.empty` element; poison
//!   flows through every op (a `select` takes it only from the condition or the chosen operand)
//!   and a poisoned result element may hold any value ([`LinalgTensor::poison`]).
//! - Under [`LinalgOptions::fold_piece`] (what `--allow-reassociation` compiles, the kernel's
//!   `pto.fold_piece`), a float sum or product folds each output element's contributions, in
//!   visiting order, in pieces of that many: a piece runs the body from the ISA's start (+0 or
//!   one) in place of the output, and joins the output through the combining op when full or
//!   when the domain ends.

use crate::numerics::compare::compare;
use crate::numerics::convert::convert;
use crate::numerics::float_arith;
use crate::numerics::format::Format;
use crate::numerics::integer::{sign_extend, width_mask};
use crate::numerics::minmax::{float_pick, Pick};
use crate::numerics::round::to_f64;
use crate::numerics::UnaryElement;
use crate::reference::EvalError;
use crate::reference_gm::{op_error, OP_LIMIT};
use ptoc_ir::linalg::{
    BodyOp, BodyValue, CmpFPredicate, CmpIPredicate, Elem, Generic, IteratorKind, LOp, LOpKind,
    LType, MapExpr, Program, ScalarOp, TensorType,
};
use ptoc_ir::{ArithOp, Location, ValueId};
use ptoc_isa::{CmpMode, DataType, NumericControl, RoundingMode, TypeClass, UnaryOp};
use std::num::NonZeroU32;

/// A tensor value: its shape and element type, and its elements in row-major order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinalgTensor {
    /// The extents, outermost first (empty for a rank-0 tensor, which has one element).
    pub shape: Vec<u32>,
    /// The element type.
    pub elem: Elem,
    /// Each element's bit pattern in the low `elem.bits()` bits (upper bits zero); an `index`
    /// as its two's complement value.
    pub bits: Vec<u64>,
    /// One flag per element: the program gives this element no defined value (MLIR's poison,
    /// or an unwritten `tensor.empty` element), so any value there is a correct result.
    pub poison: Vec<bool>,
}

impl LinalgTensor {
    /// A tensor whose elements are all defined.
    pub fn new(shape: Vec<u32>, elem: Elem, bits: Vec<u64>) -> LinalgTensor {
        let poison = vec![false; bits.len()];
        LinalgTensor {
            shape,
            elem,
            bits,
            poison,
        }
    }

    /// Number of elements the shape holds.
    pub fn len(&self) -> usize {
        self.shape.iter().map(|&d| d as usize).product()
    }

    /// Whether the shape holds no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The tensor's type.
    pub fn ty(&self) -> TensorType {
        TensorType {
            shape: self.shape.clone(),
            elem: self.elem,
        }
    }

    fn filled(ty: &TensorType, value: Scalar) -> LinalgTensor {
        LinalgTensor {
            shape: ty.shape.clone(),
            elem: ty.elem,
            bits: vec![value.bits; ty.len()],
            poison: vec![value.poison; ty.len()],
        }
    }
}

/// An argument of a linalg program, in the program's argument order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinalgArg {
    /// A tensor argument (its shape and element type must be the parameter's).
    Tensor(LinalgTensor),
    /// A scalar argument's bit pattern (bits above the type's width are dropped).
    Scalar(u64),
}

/// How [`evaluate_linalg_with`] reads a program: the meaning-changing options `ptoc` compiles
/// with, so that `verify` compares against what the options allow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinalgOptions {
    /// `--assume-no-nans`: every op is read as `fastmath<nnan>`, so a NaN operand or result
    /// gives poison.
    pub assume_no_nans: bool,
    /// `None`: every reduction folds sequentially from its init (linalg's meaning). `Some(P)`:
    /// what a kernel converted under `--allow-reassociation` computes (its `pto.fold_piece`):
    /// each float sum or product folds each line in pieces of `P` consecutive elements, each
    /// piece from the ISA's start (+0 for a sum, one for a product, docs/isa.md §1.5), and the
    /// line's result starts at the init and takes each piece in order through the combining
    /// op. Other reductions are exact in any grouping and keep the sequential fold.
    pub fold_piece: Option<NonZeroU32>,
}

/// Evaluate `program` on `args`: the value of each `func.return` operand, in order. A returned
/// scalar comes back as a rank-0 tensor (the kernel ABI's `memref<1x1xT>`).
pub fn evaluate_linalg(
    program: &Program,
    args: &[LinalgArg],
) -> Result<Vec<LinalgTensor>, EvalError> {
    evaluate_linalg_with(program, args, LinalgOptions::default())
}

/// [`evaluate_linalg`] under `options`.
pub fn evaluate_linalg_with(
    program: &Program,
    args: &[LinalgArg],
    options: LinalgOptions,
) -> Result<Vec<LinalgTensor>, EvalError> {
    if args.len() != program.args.len() {
        return Err(EvalError::ArgCount {
            function: program.name.clone(),
            expected: program.args.len(),
            given: args.len(),
        });
    }
    let mut eval = Eval {
        program,
        values: vec![None; program.values.len()],
        executed: 0,
        options,
    };
    for (index, (&id, arg)) in program.args.iter().zip(args).enumerate() {
        let ty = eval.ltype(id, &program.loc, "func.func")?.clone();
        let arg_err = |message: String| EvalError::Arg {
            index,
            ty: ty.to_string(),
            message,
        };
        let val = match (&ty, arg) {
            (LType::Tensor(t), LinalgArg::Tensor(given)) => {
                if given.ty() != *t {
                    return Err(arg_err(format!("a {} given", given.ty())));
                }
                if given.bits.len() != t.len() || given.poison.len() != t.len() {
                    return Err(arg_err(format!(
                        "{} elements and {} poison flags given, the tensor has {}",
                        given.bits.len(),
                        given.poison.len(),
                        t.len()
                    )));
                }
                let mask = width_mask(t.elem.bits());
                let mut tensor = given.clone();
                tensor.bits.iter_mut().for_each(|b| *b &= mask);
                Val::Tensor(tensor)
            }
            (LType::Scalar(e), LinalgArg::Scalar(bits)) => Val::Scalar(Scalar {
                bits: bits & width_mask(e.bits()),
                poison: false,
            }),
            (LType::Tensor(_), LinalgArg::Scalar(_)) => {
                return Err(arg_err("a scalar given".into()))
            }
            (LType::Scalar(_), LinalgArg::Tensor(t)) => {
                return Err(arg_err(format!("a {} given", t.ty())))
            }
        };
        eval.set(id, val, &program.loc)?;
    }
    for op in &program.ops {
        eval.op(op)?;
    }
    program
        .results
        .iter()
        .map(|&id| {
            Ok(match eval.get(id, &program.loc, "func.return")? {
                Val::Tensor(t) => t.clone(),
                Val::Scalar(s) => {
                    let elem = match eval.ltype(id, &program.loc, "func.return")? {
                        LType::Scalar(e) => *e,
                        LType::Tensor(t) => t.elem,
                    };
                    LinalgTensor {
                        shape: Vec::new(),
                        elem,
                        bits: vec![s.bits],
                        poison: vec![s.poison],
                    }
                }
            })
        })
        .collect()
}

/// A scalar: its bits and whether it is poison.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Scalar {
    bits: u64,
    poison: bool,
}

impl Scalar {
    fn defined(bits: u64) -> Scalar {
        Scalar {
            bits,
            poison: false,
        }
    }
}

#[derive(Clone, Debug)]
enum Val {
    Scalar(Scalar),
    Tensor(LinalgTensor),
}

struct Eval<'p> {
    program: &'p Program,
    values: Vec<Option<Val>>,
    /// Body ops executed so far (points × ops per generic), bounded by [`OP_LIMIT`].
    executed: u64,
    options: LinalgOptions,
}

fn body_error(op: &BodyOp, message: impl Into<String>) -> EvalError {
    op_error(&op.loc, op.op.mlir_name(), message)
}

/// The mnemonic of a function-level op, for errors.
fn lop_name(kind: &LOpKind) -> &'static str {
    match kind {
        LOpKind::Constant(_) => "arith.constant",
        LOpKind::Empty => "tensor.empty",
        LOpKind::Reshape => "tensor.expand_shape/collapse_shape",
        LOpKind::Generic(_) => "linalg.generic",
    }
}

impl<'p> Eval<'p> {
    fn get(&self, id: ValueId, loc: &Location, what: &str) -> Result<&Val, EvalError> {
        self.values
            .get(id.0 as usize)
            .and_then(Option::as_ref)
            .ok_or_else(|| op_error(loc, what, "an operand is used before it is defined"))
    }

    fn set(&mut self, id: ValueId, val: Val, loc: &Location) -> Result<(), EvalError> {
        match self.values.get_mut(id.0 as usize) {
            Some(slot) => {
                *slot = Some(val);
                Ok(())
            }
            None => Err(op_error(loc, "func.func", "a value outside the program")),
        }
    }

    fn ltype(&self, id: ValueId, loc: &Location, what: &str) -> Result<&'p LType, EvalError> {
        self.program
            .values
            .get(id.0 as usize)
            .map(|v| &v.ty)
            .ok_or_else(|| op_error(loc, what, "a value outside the program"))
    }

    fn tensor_type(
        &self,
        id: ValueId,
        loc: &Location,
        what: &str,
    ) -> Result<&'p TensorType, EvalError> {
        match self.ltype(id, loc, what)? {
            LType::Tensor(t) => Ok(t),
            LType::Scalar(e) => Err(op_error(loc, what, format!("expects a tensor, not {e}"))),
        }
    }

    fn op(&mut self, op: &'p LOp) -> Result<(), EvalError> {
        let what = lop_name(&op.kind);
        let single = |n: usize| -> Result<ValueId, EvalError> {
            match op.results.as_slice() {
                [r] if op.operands.len() == n => Ok(*r),
                _ => Err(op_error(
                    &op.loc,
                    what,
                    format!(
                        "takes {n} operand(s) and gives one result, not {} and {}",
                        op.operands.len(),
                        op.results.len()
                    ),
                )),
            }
        };
        match &op.kind {
            LOpKind::Constant(bits) => {
                let r = single(0)?;
                let val = match self.ltype(r, &op.loc, what)? {
                    LType::Scalar(e) => Val::Scalar(Scalar::defined(bits & width_mask(e.bits()))),
                    LType::Tensor(t) => Val::Tensor(LinalgTensor::filled(
                        t,
                        Scalar::defined(bits & width_mask(t.elem.bits())),
                    )),
                };
                self.set(r, val, &op.loc)
            }
            LOpKind::Empty => {
                let r = single(0)?;
                let t = self.tensor_type(r, &op.loc, what)?;
                let empty = LinalgTensor::filled(
                    t,
                    Scalar {
                        bits: 0,
                        poison: true,
                    },
                );
                self.set(r, Val::Tensor(empty), &op.loc)
            }
            LOpKind::Reshape => {
                let r = single(1)?;
                let to = self.tensor_type(r, &op.loc, what)?;
                let from = self.tensor_type(op.operands[0], &op.loc, what)?;
                if from.elem != to.elem || from.len() != to.len() {
                    return Err(op_error(
                        &op.loc,
                        what,
                        format!("cannot reshape {from} to {to}"),
                    ));
                }
                let Val::Tensor(source) = self.get(op.operands[0], &op.loc, what)? else {
                    return Err(op_error(&op.loc, what, "the operand is not a tensor"));
                };
                let mut reshaped = source.clone();
                reshaped.shape = to.shape.clone();
                self.set(r, Val::Tensor(reshaped), &op.loc)
            }
            LOpKind::Generic(g) => {
                let results = self.generic(op, g)?;
                if results.len() != op.results.len() {
                    return Err(op_error(
                        &op.loc,
                        what,
                        format!(
                            "has {} outputs but {} results",
                            results.len(),
                            op.results.len()
                        ),
                    ));
                }
                for (&id, t) in op.results.iter().zip(results) {
                    let declared = self.tensor_type(id, &op.loc, what)?;
                    if *declared != t.ty() {
                        return Err(op_error(
                            &op.loc,
                            what,
                            format!(
                                "a result of type {declared} from an output of type {}",
                                t.ty()
                            ),
                        ));
                    }
                    self.set(id, Val::Tensor(t), &op.loc)?;
                }
                Ok(())
            }
        }
    }

    /// The iteration domain of a generic and where each operand's element sits in it.
    fn domain(&self, op: &LOp, g: &'p Generic) -> Result<Domain, EvalError> {
        let err = |message: String| op_error(&op.loc, "linalg.generic", message);
        let loops = g.iterators.len();
        let operands: Vec<ValueId> = g.inputs.iter().chain(&g.outputs).copied().collect();
        if g.maps.len() != operands.len() {
            return Err(err(format!(
                "{} indexing maps for {} operands",
                g.maps.len(),
                operands.len()
            )));
        }
        // Each operand's shape and element type (a scalar input has shape []).
        let mut shapes: Vec<&[u32]> = Vec::with_capacity(operands.len());
        let mut elems = Vec::with_capacity(operands.len());
        for (k, &id) in operands.iter().enumerate() {
            match self.ltype(id, &op.loc, "linalg.generic")? {
                LType::Tensor(t) => {
                    shapes.push(&t.shape);
                    elems.push(t.elem);
                }
                LType::Scalar(e) if k < g.inputs.len() => {
                    shapes.push(&[]);
                    elems.push(*e);
                }
                LType::Scalar(e) => {
                    let output = k - g.inputs.len();
                    return Err(err(format!("output {output} is a scalar ({e})")));
                }
            }
        }
        // Each loop's extent, and the operand that fixed it.
        let mut fixed: Vec<Option<(u32, usize)>> = vec![None; loops];
        for (k, (map, shape)) in g.maps.iter().zip(&shapes).enumerate() {
            if map.len() != shape.len() {
                return Err(err(format!(
                    "operand {k} has rank {} but its indexing map has {} result(s)",
                    shape.len(),
                    map.len()
                )));
            }
            for (&expr, &extent) in map.iter().zip(shape.iter()) {
                let MapExpr::Dim(d) = expr else {
                    continue;
                };
                let slot = fixed.get_mut(d as usize).ok_or_else(|| {
                    err(format!(
                        "operand {k}'s map uses d{d} but there are {loops} loops"
                    ))
                })?;
                match *slot {
                    Some((e, by)) if e != extent => {
                        let why = format!(
                            "loop d{d} has extent {e} from operand {by} and {extent} from operand {k}"
                        );
                        return Err(err(why));
                    }
                    _ => *slot = Some((extent, k)),
                }
            }
        }
        let extents = fixed
            .iter()
            .enumerate()
            .map(|(d, e)| {
                e.map(|(extent, _)| extent)
                    .ok_or_else(|| err(format!("no operand fixes loop d{d}'s extent")))
            })
            .collect::<Result<Vec<u32>, _>>()?;
        let points = extents
            .iter()
            .try_fold(1u64, |n, &e| n.checked_mul(e as u64))
            .unwrap_or(u64::MAX);
        // Each operand's element offset is a sum of loop indices times row-major strides; a
        // constant-0 index adds nothing but needs a nonempty dimension to read.
        let mut strides = Vec::with_capacity(operands.len());
        for (k, (map, shape)) in g.maps.iter().zip(&shapes).enumerate() {
            let mut terms = Vec::new();
            let mut stride = 1u64;
            for (&expr, &extent) in map.iter().zip(shape.iter()).rev() {
                match expr {
                    MapExpr::Dim(d) => terms.push((d as usize, stride)),
                    MapExpr::Zero if extent == 0 && points > 0 => {
                        return Err(err(format!(
                            "operand {k} is read at index 0 of a dimension of extent 0"
                        )))
                    }
                    MapExpr::Zero => {}
                }
                stride *= extent as u64;
            }
            strides.push(terms);
        }
        Ok(Domain {
            extents,
            points,
            strides,
            elems,
        })
    }

    /// One `linalg.generic`: its output tensors after the whole iteration domain.
    fn generic(&mut self, op: &LOp, g: &'p Generic) -> Result<Vec<LinalgTensor>, EvalError> {
        const WHAT: &str = "linalg.generic";
        let err = |message: String| op_error(&op.loc, WHAT, message);
        let Domain {
            extents,
            points,
            strides,
            elems,
        } = self.domain(op, g)?;
        let loops = extents.len();
        let body = self.resolve_body(op, g, &elems)?;
        let per_point = body.steps.len() as u64 + 1;
        self.executed = points
            .checked_mul(per_point)
            .and_then(|n| n.checked_add(self.executed))
            .filter(|&n| n <= OP_LIMIT)
            .ok_or_else(|| {
                err(format!(
                    "the evaluation would execute more than {OP_LIMIT} body ops"
                ))
            })?;

        // Inputs are read in place; outputs start as copies of the `outs` tensors.
        let mut inputs: Vec<Input> = Vec::with_capacity(g.inputs.len());
        for &id in &g.inputs {
            inputs.push(match self.get(id, &op.loc, WHAT)? {
                Val::Scalar(s) => Input::Scalar(*s),
                Val::Tensor(t) => Input::Tensor(t),
            });
        }
        let mut outputs: Vec<LinalgTensor> = Vec::with_capacity(g.outputs.len());
        for &id in &g.outputs {
            match self.get(id, &op.loc, WHAT)? {
                Val::Tensor(t) => outputs.push(t.clone()),
                Val::Scalar(_) => return Err(err("an output is not a tensor".into())),
            }
        }
        if points == 0 {
            return Ok(outputs);
        }
        let n_in = inputs.len();
        let mut folds = match self.options.fold_piece {
            Some(piece) => piece_folds(g, &body, &outputs, piece),
            None => Vec::new(),
        };
        let mut fold_of = vec![None; outputs.len()];
        for (f, fold) in folds.iter().enumerate() {
            fold_of[fold.output] = Some(f);
        }
        let mut index = vec![0u64; loops];
        let mut offsets = vec![0usize; strides.len()];
        let mut args = vec![Scalar::default(); strides.len()];
        let mut results = vec![Scalar::default(); body.steps.len()];
        loop {
            for (offset, terms) in offsets.iter_mut().zip(&strides) {
                *offset = terms.iter().map(|&(d, s)| index[d] * s).sum::<u64>() as usize;
            }
            for (k, input) in inputs.iter().enumerate() {
                args[k] = match input {
                    Input::Scalar(s) => *s,
                    Input::Tensor(t) => Scalar {
                        bits: t.bits[offsets[k]],
                        poison: t.poison[offsets[k]],
                    },
                };
            }
            for (j, out) in outputs.iter().enumerate() {
                let at = offsets[n_in + j];
                args[n_in + j] = match fold_of[j] {
                    // A piece's combining op reads the piece so far instead of the output.
                    Some(f) => folds[f].piece_so_far(at),
                    None => Scalar {
                        bits: out.bits[at],
                        poison: out.poison[at],
                    },
                };
            }
            for (i, step) in body.steps.iter().enumerate() {
                results[i] = step
                    .run(&args, &results, &index)
                    .map_err(|fail| step.error(fail, &index))?;
            }
            for (j, src) in body.yields.iter().enumerate() {
                let value = src.read(&args, &results);
                let at = offsets[n_in + j];
                match fold_of[j] {
                    Some(f) => {
                        let fold = &mut folds[f];
                        fold.piece[at] = value;
                        fold.count[at] += 1;
                        if fold.count[at].is_multiple_of(fold.len) {
                            fold.join(&body.steps[fold.step], &mut outputs[j], at, &index)?;
                        }
                    }
                    None => {
                        outputs[j].bits[at] = value.bits;
                        outputs[j].poison[at] = value.poison;
                    }
                }
            }
            // Row-major: the innermost loop (the last dimension) moves fastest.
            let mut d = loops;
            let done = loop {
                if d == 0 {
                    break true;
                }
                d -= 1;
                index[d] += 1;
                if index[d] < extents[d] as u64 {
                    break false;
                }
                index[d] = 0;
            };
            if done {
                break;
            }
        }
        // Each line's last piece, when shorter than the others, joins at the end.
        for fold in &folds {
            let step = &body.steps[fold.step];
            for at in 0..fold.count.len() {
                if !fold.count[at].is_multiple_of(fold.len) {
                    fold.join(step, &mut outputs[fold.output], at, &index)?;
                }
            }
        }
        Ok(outputs)
    }

    /// Check the region against the operands and resolve each body op to what it computes.
    fn resolve_body(
        &self,
        op: &LOp,
        g: &'p Generic,
        elems: &[Elem],
    ) -> Result<Body<'p>, EvalError> {
        let err = |message: String| op_error(&op.loc, "linalg.generic", message);
        let body = &g.body;
        if body.args != elems {
            return Err(err(format!(
                "the region's arguments are ({}) but the operands' elements are ({})",
                list(&body.args),
                list(elems)
            )));
        }
        let mut steps: Vec<Step<'p>> = Vec::with_capacity(body.ops.len());
        for (i, bop) in body.ops.iter().enumerate() {
            let mut srcs = Vec::with_capacity(bop.operands.len());
            let mut types = Vec::with_capacity(bop.operands.len());
            for &v in &bop.operands {
                let (src, ty) = self
                    .source(v, i, body, elems)
                    .map_err(|m| body_error(bop, m))?;
                srcs.push(src);
                types.push(ty);
            }
            let kind = resolve(bop, &types, g.iterators.len())?;
            let no_nans = bop.no_nans || self.options.assume_no_nans;
            let nan_check = no_nans.then(|| NanCheck {
                operands: types.iter().map(|&t| float_format(t)).collect(),
                result: float_format(bop.ty),
            });
            steps.push(Step {
                op: bop,
                kind,
                srcs,
                nan_check,
            });
        }
        if body.yields.len() != g.outputs.len() {
            return Err(err(format!(
                "the region yields {} value(s) for {} output(s)",
                body.yields.len(),
                g.outputs.len()
            )));
        }
        let mut yields = Vec::with_capacity(body.yields.len());
        for (j, &v) in body.yields.iter().enumerate() {
            let want = elems[g.inputs.len() + j];
            let (src, ty) = self
                .source(v, body.ops.len(), body, elems)
                .map_err(|m| op_error(&op.loc, "linalg.yield", m))?;
            if ty != want {
                return Err(op_error(
                    &op.loc,
                    "linalg.yield",
                    format!("yields a {ty} for output {j}, whose elements are {want}"),
                ));
            }
            yields.push(src);
        }
        Ok(Body { steps, yields })
    }

    /// Where a region value read by the `at`-th body op (or, at `body.ops.len()`, the yield)
    /// comes from, and its type; why not, if the region does not define it there.
    fn source(
        &self,
        v: BodyValue,
        at: usize,
        body: &ptoc_ir::linalg::Body,
        elems: &[Elem],
    ) -> Result<(Src, Elem), String> {
        match v {
            BodyValue::Arg(i) if i < elems.len() => Ok((Src::Arg(i), elems[i])),
            BodyValue::Arg(i) => Err(format!(
                "reads block argument {i}, but the region has {}",
                elems.len()
            )),
            BodyValue::Op(j) if j < at => Ok((Src::Op(j), body.ops[j].ty)),
            BodyValue::Op(j) => Err(format!(
                "reads the result of body op {j}, which does not come before it"
            )),
            BodyValue::Outer(id) => {
                let ty = self.program.values.get(id.0 as usize).map(|v| &v.ty);
                let val = self.values.get(id.0 as usize).and_then(Option::as_ref);
                match (ty, val) {
                    (Some(LType::Scalar(e)), Some(Val::Scalar(s))) => Ok((Src::Outer(*s), *e)),
                    (Some(LType::Scalar(_)), None) => Err(format!(
                        "captures '{}' before it is defined",
                        self.program.display_name(id)
                    )),
                    (Some(_), _) => Err(format!(
                        "captures '{}', which is not a scalar",
                        self.program.display_name(id)
                    )),
                    (None, _) => Err("captures a value outside the program".into()),
                }
            }
        }
    }
}

fn list(elems: &[Elem]) -> String {
    elems
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A float sum or product folded in pieces ([`LinalgOptions::fold_piece`]): output `output`
/// yields body op `step`, `combine(e, acc)` with `acc` (operand `acc_operand`) that output's
/// block argument, read by nothing else.
struct PieceFold {
    output: usize,
    step: usize,
    acc_operand: usize,
    /// Elements per piece.
    len: u64,
    /// Where each piece starts: the ISA's +0 for a sum, its typed one for a product.
    start: u64,
    /// Per output element: the open piece, and how many elements of its line have been folded.
    piece: Vec<Scalar>,
    count: Vec<u64>,
}

impl PieceFold {
    /// What the combining op reads as its accumulator at output element `at`: the open piece,
    /// or the start where a piece begins.
    #[inline]
    fn piece_so_far(&self, at: usize) -> Scalar {
        if self.count[at].is_multiple_of(self.len) {
            Scalar::defined(self.start)
        } else {
            self.piece[at]
        }
    }

    /// Join element `at`'s piece to the line's result, `out[at] = combine(piece, out[at])`.
    fn join(
        &self,
        step: &Step,
        out: &mut LinalgTensor,
        at: usize,
        index: &[u64],
    ) -> Result<(), EvalError> {
        let mut operands = [self.piece[at]; 3];
        operands[self.acc_operand] = Scalar {
            bits: out.bits[at],
            poison: out.poison[at],
        };
        let joined = step
            .apply(operands, index)
            .map_err(|fail| step.error(fail, index))?;
        out.bits[at] = joined.bits;
        out.poison[at] = joined.poison;
        Ok(())
    }
}

/// The outputs of `g` that [`LinalgOptions::fold_piece`] folds in pieces of `len`: in a generic
/// with a reduction loop, each output whose yielded value is an `addf` or `mulf` of the output's
/// block argument (the accumulator) and another value, where neither the accumulator nor the
/// combined value is read anywhere else in the body (any other shape has no piecewise reading
/// and keeps linalg's sequential one).
fn piece_folds(
    g: &Generic,
    body: &Body,
    outputs: &[LinalgTensor],
    len: NonZeroU32,
) -> Vec<PieceFold> {
    if !g.iterators.contains(&IteratorKind::Reduction) {
        return Vec::new();
    }
    let ops = &g.body.ops;
    let uses = |v: BodyValue| {
        let in_ops = ops.iter().flat_map(|op| &op.operands);
        in_ops.chain(&g.body.yields).filter(|&&u| u == v).count()
    };
    let mut folds = Vec::new();
    for (j, out) in outputs.iter().enumerate() {
        let acc = BodyValue::Arg(g.inputs.len() + j);
        let Some(&BodyValue::Op(step)) = g.body.yields.get(j) else {
            continue;
        };
        let (Some(op), Some(Step { kind, .. })) = (ops.get(step), body.steps.get(step)) else {
            continue;
        };
        let start = match (op.op, kind) {
            (ScalarOp::AddF, Kind::Float(_, fmt)) => fmt.zero(false),
            (ScalarOp::MulF, Kind::Float(_, fmt)) => fmt.one(),
            _ => continue,
        };
        let Some(acc_operand) = op.operands.iter().position(|&v| v == acc) else {
            continue;
        };
        if uses(acc) != 1 || uses(BodyValue::Op(step)) != 1 {
            continue;
        }
        folds.push(PieceFold {
            output: j,
            step,
            acc_operand,
            len: u64::from(len.get()),
            start,
            piece: vec![Scalar::default(); out.bits.len()],
            count: vec![0; out.bits.len()],
        });
    }
    folds
}

/// A generic's iteration domain: each loop's extent, their product, each operand's offset as
/// `(loop, stride)` terms, and each operand's element type (inputs, then outputs).
struct Domain {
    extents: Vec<u32>,
    points: u64,
    strides: Vec<Vec<(usize, u64)>>,
    elems: Vec<Elem>,
}

/// A generic's input: read in place.
enum Input<'a> {
    Scalar(Scalar),
    Tensor(&'a LinalgTensor),
}

/// A region, resolved.
struct Body<'p> {
    steps: Vec<Step<'p>>,
    yields: Vec<Src>,
}

/// Where a body op's operand comes from.
#[derive(Clone, Copy, Debug)]
enum Src {
    Arg(usize),
    Op(usize),
    /// A captured function-level scalar, fixed for the whole generic.
    Outer(Scalar),
}

impl Src {
    #[inline]
    fn read(self, args: &[Scalar], results: &[Scalar]) -> Scalar {
        match self {
            Src::Arg(i) => args[i],
            Src::Op(j) => results[j],
            Src::Outer(s) => s,
        }
    }
}

/// What a `fastmath<nnan>` op checks: its float operands and result (their formats).
struct NanCheck {
    operands: Vec<Option<&'static Format>>,
    result: Option<&'static Format>,
}

/// One body op, resolved.
struct Step<'p> {
    op: &'p BodyOp,
    kind: Kind,
    srcs: Vec<Src>,
    nan_check: Option<NanCheck>,
}

/// What a body op computes, its types resolved.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Constant(u64),
    Float(FloatBinary, &'static Format),
    /// A float unary op: sign-bit NEG/ABS, or the numerics' EXP, LOG, SQRT, RSQRT.
    FloatUnary(UnaryElement),
    /// `extf`/`truncf`: TCVT between two float types under RNE.
    Convert(DataType, DataType),
    CmpF(CmpFPredicate, DataType, &'static Format),
    Select,
    Int(ArithOp, u32),
    CmpI(CmpIPredicate, u32),
    /// `index_cast`: sign-extend from the source width, keep the result's width.
    IndexCast(u32, u32),
    /// `sitofp` (`true`) / `uitofp` from an integer of the width: the value rounded to nearest
    /// even in the float type.
    IntToFloat(bool, u32, DataType),
    /// `fptosi` (`true`) / `fptoui` to an integer of the width: the value truncated toward zero,
    /// poison when that is out of the integer's range.
    FloatToInt(bool, &'static Format, u32),
    /// `extsi` (`true`) / `extui` from the first width, or `trunci` (both widths the result's
    /// mask): the value's bits extended or cut to the second width.
    Resize(bool, u32, u32),
    Index(usize),
}

#[derive(Clone, Copy, Debug)]
enum FloatBinary {
    Add,
    Sub,
    Mul,
    Div,
    Maximum,
    Minimum,
    MaxNum,
    MinNum,
}

fn float_format(e: Elem) -> Option<&'static Format> {
    e.data().and_then(DataType::float_format)
}

/// The width of an integer-like type (`i1`, `index`, signless or unsigned integers).
fn int_width(e: Elem) -> Option<u32> {
    match e {
        Elem::I1 => Some(1),
        Elem::Index => Some(64),
        Elem::Data(t) => match t.class() {
            TypeClass::Signed | TypeClass::Unsigned => Some(t.bits()),
            TypeClass::Float | TypeClass::Other => None,
        },
    }
}

/// Whether every value of `from` is a value of `to` (so `extf` is exact).
fn widens(from: &Format, to: &Format) -> bool {
    from != to && to.exp_bits >= from.exp_bits && to.frac_bits >= from.frac_bits
}

/// Type-check one body op (MLIR's verifier rules for its op) and resolve what it computes.
fn resolve(op: &BodyOp, types: &[Elem], loops: usize) -> Result<Kind, EvalError> {
    let ty = op.ty;
    let arity = |n: usize| -> Result<(), EvalError> {
        if types.len() == n {
            Ok(())
        } else {
            Err(body_error(
                op,
                format!("takes {n} operand(s), {} given", types.len()),
            ))
        }
    };
    let same = |n: usize| -> Result<(), EvalError> {
        arity(n)?;
        match types.iter().find(|&&t| t != ty) {
            Some(t) => Err(body_error(op, format!("a {t} operand for a {ty} result"))),
            None => Ok(()),
        }
    };
    let float = |e: Elem| -> Result<(DataType, &'static Format), EvalError> {
        e.data()
            .and_then(|d| Some((d, d.float_format()?)))
            .ok_or_else(|| body_error(op, format!("expects a float type, not {e}")))
    };
    let int = |e: Elem| {
        int_width(e).ok_or_else(|| body_error(op, format!("expects an integer type, not {e}")))
    };
    let float_binary = |f: FloatBinary| -> Result<Kind, EvalError> {
        same(2)?;
        Ok(Kind::Float(f, float(ty)?.1))
    };
    let float_unary = |u: UnaryOp| -> Result<Kind, EvalError> {
        same(1)?;
        UnaryElement::of(u, float(ty)?.0)
            .map(Kind::FloatUnary)
            .ok_or_else(|| body_error(op, format!("is not defined on {ty}")))
    };
    let int_binary = |a: ArithOp| -> Result<Kind, EvalError> {
        same(2)?;
        Ok(Kind::Int(a, int(ty)?))
    };
    let convert_to = |exact: bool| -> Result<Kind, EvalError> {
        arity(1)?;
        let ((src, from), (dst, to)) = (float(types[0])?, float(ty)?);
        if widens(from, to) != exact || from == to {
            return Err(body_error(
                op,
                format!(
                    "cannot convert {} to {ty}: {}",
                    types[0],
                    if exact {
                        "not a widening"
                    } else {
                        "not a narrowing"
                    }
                ),
            ));
        }
        Ok(Kind::Convert(src, dst))
    };
    // cmpf/cmpi: two operands of one type, an i1 result; the operands' type.
    let compared = || -> Result<Elem, EvalError> {
        arity(2)?;
        if ty != Elem::I1 {
            return Err(body_error(op, format!("gives i1, not {ty}")));
        }
        if types[0] != types[1] {
            return Err(body_error(
                op,
                format!("compares {} with {}", types[0], types[1]),
            ));
        }
        Ok(types[0])
    };
    Ok(match op.op {
        ScalarOp::Constant(bits) => {
            arity(0)?;
            Kind::Constant(bits & width_mask(ty.bits()))
        }
        ScalarOp::AddF => float_binary(FloatBinary::Add)?,
        ScalarOp::SubF => float_binary(FloatBinary::Sub)?,
        ScalarOp::MulF => float_binary(FloatBinary::Mul)?,
        ScalarOp::DivF => float_binary(FloatBinary::Div)?,
        ScalarOp::MaximumF => float_binary(FloatBinary::Maximum)?,
        ScalarOp::MinimumF => float_binary(FloatBinary::Minimum)?,
        ScalarOp::MaxNumF => float_binary(FloatBinary::MaxNum)?,
        ScalarOp::MinNumF => float_binary(FloatBinary::MinNum)?,
        ScalarOp::NegF => float_unary(UnaryOp::Neg)?,
        ScalarOp::AbsF => float_unary(UnaryOp::Abs)?,
        ScalarOp::Exp => float_unary(UnaryOp::Exp)?,
        ScalarOp::Log => float_unary(UnaryOp::Log)?,
        ScalarOp::Sqrt => float_unary(UnaryOp::Sqrt)?,
        ScalarOp::Rsqrt => float_unary(UnaryOp::Rsqrt)?,
        ScalarOp::ExtF => convert_to(true)?,
        ScalarOp::TruncF => convert_to(false)?,
        ScalarOp::CmpF(p) => {
            let (dtype, fmt) = float(compared()?)?;
            Kind::CmpF(p, dtype, fmt)
        }
        ScalarOp::Select => {
            arity(3)?;
            if types[0] != Elem::I1 || types[1] != ty || types[2] != ty {
                return Err(body_error(
                    op,
                    format!(
                        "selects with ({}, {}, {}) for a {ty} result",
                        types[0], types[1], types[2]
                    ),
                ));
            }
            Kind::Select
        }
        ScalarOp::AddI => int_binary(ArithOp::AddI)?,
        ScalarOp::SubI => int_binary(ArithOp::SubI)?,
        ScalarOp::MulI => int_binary(ArithOp::MulI)?,
        ScalarOp::DivSI => int_binary(ArithOp::DivSI)?,
        ScalarOp::DivUI => int_binary(ArithOp::DivUI)?,
        ScalarOp::MaxSI => int_binary(ArithOp::MaxSI)?,
        ScalarOp::MinSI => int_binary(ArithOp::MinSI)?,
        ScalarOp::MaxUI => int_binary(ArithOp::MaxUI)?,
        ScalarOp::MinUI => int_binary(ArithOp::MinUI)?,
        ScalarOp::CmpI(p) => Kind::CmpI(p, int(compared()?)?),
        ScalarOp::IndexCast => {
            arity(1)?;
            let (from, to) = (int(types[0])?, int(ty)?);
            if (types[0] == Elem::Index) == (ty == Elem::Index) {
                return Err(body_error(
                    op,
                    format!("casts {} to {ty}: exactly one side must be index", types[0]),
                ));
            }
            Kind::IndexCast(from, to)
        }
        ScalarOp::SIToFP | ScalarOp::UIToFP => {
            arity(1)?;
            let signed = op.op == ScalarOp::SIToFP;
            Kind::IntToFloat(signed, int(types[0])?, float(ty)?.0)
        }
        ScalarOp::FPToSI | ScalarOp::FPToUI => {
            arity(1)?;
            let signed = op.op == ScalarOp::FPToSI;
            Kind::FloatToInt(signed, float(types[0])?.1, int(ty)?)
        }
        ScalarOp::ExtSI | ScalarOp::ExtUI | ScalarOp::TruncI => {
            arity(1)?;
            let (from, to) = (int(types[0])?, int(ty)?);
            let index = types[0] == Elem::Index || ty == Elem::Index;
            let widening = op.op != ScalarOp::TruncI;
            if index || (to > from) != widening || to == from {
                return Err(body_error(
                    op,
                    format!(
                        "cannot {} {} to {ty}",
                        if widening { "extend" } else { "truncate" },
                        types[0]
                    ),
                ));
            }
            Kind::Resize(op.op == ScalarOp::ExtSI, from, to)
        }
        ScalarOp::Index(d) => {
            arity(0)?;
            if ty != Elem::Index {
                return Err(body_error(op, format!("gives index, not {ty}")));
            }
            if d as usize >= loops {
                return Err(body_error(
                    op,
                    format!("reads loop d{d} but there are {loops} loops"),
                ));
            }
            Kind::Index(d as usize)
        }
    })
}

impl Step<'_> {
    /// The op at one iteration point; `Err` (small, so the hot path returns cheaply) only for
    /// undefined behaviour or a conversion the numerics refuse.
    #[inline]
    fn run(&self, args: &[Scalar], results: &[Scalar], index: &[u64]) -> Result<Scalar, Fail> {
        let mut operands = [Scalar::default(); 3];
        for (i, src) in self.srcs.iter().enumerate() {
            operands[i] = src.read(args, results);
        }
        self.apply(operands, index)
    }

    /// The op on `operands` (the first `srcs.len()` of them) at one iteration point.
    #[inline]
    fn apply(&self, operands: [Scalar; 3], index: &[u64]) -> Result<Scalar, Fail> {
        let poisoned = operands[..self.srcs.len()].iter().any(|s| s.poison);
        let (a, b) = (operands[0].bits, operands[1].bits);
        let bits = match self.kind {
            Kind::Constant(bits) => bits,
            Kind::Float(f, fmt) => float_binary(f, fmt, a, b),
            Kind::FloatUnary(u) => u.apply(a).0,
            Kind::Convert(from, to) => {
                let rne = NumericControl {
                    rmode: Some(RoundingMode::Rne),
                    sat: false,
                };
                convert(from, to, rne, a).ok_or(Fail::Convert)?.0
            }
            Kind::CmpF(p, dtype, fmt) => cmpf(p, dtype, fmt, a, b) as u64,
            Kind::Select => {
                // Poison comes from the condition and the chosen operand only.
                let chosen = if a & 1 == 1 { operands[1] } else { operands[2] };
                return Ok(Scalar {
                    bits: chosen.bits,
                    poison: operands[0].poison || chosen.poison,
                });
            }
            Kind::Int(arith, width) => {
                let division = matches!(arith, ArithOp::DivSI | ArithOp::DivUI);
                if division && operands[1].poison {
                    return Err(Fail::PoisonDivisor);
                }
                match arith.apply(a, b, width) {
                    Some(bits) => bits,
                    None if b & width_mask(width) == 0 => return Err(Fail::DivideByZero),
                    None => return Err(Fail::Overflow(sign_extend(width, a))),
                }
            }
            Kind::CmpI(p, width) => cmpi(p, width, a, b) as u64,
            Kind::IndexCast(from, to) => sign_extend(from, a) as u64 & width_mask(to),
            Kind::IntToFloat(signed, width, to) => {
                // The integer's value, exactly, as a 64-bit integer of its signedness.
                let (value, from) = if signed {
                    (sign_extend(width, a) as u64, DataType::S64)
                } else {
                    (a & width_mask(width), DataType::U64)
                };
                let rne = NumericControl {
                    rmode: Some(RoundingMode::Rne),
                    sat: false,
                };
                convert(from, to, rne, value).ok_or(Fail::Convert)?.0
            }
            Kind::FloatToInt(signed, fmt, width) => {
                // Every float format ptoc has is exact in binary64, and so are the bounds.
                let t = to_f64(fmt, a).trunc();
                let (low, high) = if signed {
                    (-(2f64.powi(width as i32 - 1)), 2f64.powi(width as i32 - 1))
                } else {
                    (0.0, 2f64.powi(width as i32))
                };
                if !(low..high).contains(&t) {
                    return Ok(Scalar {
                        bits: 0,
                        poison: true,
                    });
                }
                let bits = if signed { t as i64 as u64 } else { t as u64 };
                bits & width_mask(width)
            }
            Kind::Resize(true, from, to) => sign_extend(from, a) as u64 & width_mask(to),
            Kind::Resize(false, from, to) => a & width_mask(from) & width_mask(to),
            Kind::Index(d) => index[d],
        };
        let nan = self.nan_check.as_ref().is_some_and(|check| {
            let nan_of = |fmt: Option<&Format>, bits: u64| fmt.is_some_and(|f| is_nan(f, bits));
            check
                .operands
                .iter()
                .zip(operands)
                .any(|(&f, s)| nan_of(f, s.bits))
                || nan_of(check.result, bits)
        });
        Ok(Scalar {
            bits,
            poison: poisoned || nan,
        })
    }

    /// Why the op failed at one iteration point, as an error at its location.
    fn error(&self, fail: Fail, index: &[u64]) -> EvalError {
        let point = index
            .iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let why = match fail {
            Fail::DivideByZero => "divides by zero".to_string(),
            Fail::PoisonDivisor => "divides by poison".to_string(),
            Fail::Overflow(a) => format!("overflows ({a} / -1)"),
            Fail::Convert => return body_error(self.op, "cannot convert"),
        };
        body_error(
            self.op,
            format!("{why} at iteration ({point}), which is undefined behaviour"),
        )
    }
}

/// Why a body op has no value at one point.
#[derive(Clone, Copy, Debug)]
enum Fail {
    DivideByZero,
    PoisonDivisor,
    /// A signed division of this minimum by -1.
    Overflow(i64),
    Convert,
}

fn is_nan(fmt: &Format, bits: u64) -> bool {
    fmt.unpack(bits).is_nan()
}

/// A float binary op: the numerics' exact ADD/SUB/MUL/DIV (RNE, canonical NaN) and MAX/MIN
/// picks (docs/isa.md §1.8), with `maximumf`/`minimumf` propagating NaN.
fn float_binary(f: FloatBinary, fmt: &Format, a: u64, b: u64) -> u64 {
    let propagating = |pick: Pick| {
        if is_nan(fmt, a) || is_nan(fmt, b) {
            fmt.canonical_nan
        } else {
            float_pick(fmt, pick, a, b).0
        }
    };
    match f {
        FloatBinary::Add => float_arith::add(fmt, a, b).0,
        FloatBinary::Sub => float_arith::sub(fmt, a, b).0,
        FloatBinary::Mul => float_arith::mul(fmt, a, b).0,
        FloatBinary::Div => float_arith::div(fmt, a, b).0,
        FloatBinary::Maximum => propagating(Pick::Max),
        FloatBinary::Minimum => propagating(Pick::Min),
        FloatBinary::MaxNum => float_pick(fmt, Pick::Max, a, b).0,
        FloatBinary::MinNum => float_pick(fmt, Pick::Min, a, b).0,
    }
}

/// `arith.cmpf`: the ordered relations are TCMP's (docs/isa.md §1.9: zeros equal, any NaN makes
/// the pair unordered); `u*` predicates also hold on an unordered pair, `o*` ones never do.
fn cmpf(p: CmpFPredicate, dtype: DataType, fmt: &Format, a: u64, b: u64) -> bool {
    let unordered = is_nan(fmt, a) || is_nan(fmt, b);
    let holds = |mode: CmpMode| !unordered && compare(mode, dtype, a, b).is_some_and(|r| r.0);
    match p {
        CmpFPredicate::False => false,
        CmpFPredicate::Oeq => holds(CmpMode::Eq),
        CmpFPredicate::Ogt => holds(CmpMode::Gt),
        CmpFPredicate::Oge => holds(CmpMode::Ge),
        CmpFPredicate::Olt => holds(CmpMode::Lt),
        CmpFPredicate::Ole => holds(CmpMode::Le),
        CmpFPredicate::One => holds(CmpMode::Ne),
        CmpFPredicate::Ord => !unordered,
        CmpFPredicate::Ueq => unordered || holds(CmpMode::Eq),
        CmpFPredicate::Ugt => unordered || holds(CmpMode::Gt),
        CmpFPredicate::Uge => unordered || holds(CmpMode::Ge),
        CmpFPredicate::Ult => unordered || holds(CmpMode::Lt),
        CmpFPredicate::Ule => unordered || holds(CmpMode::Le),
        CmpFPredicate::Une => unordered || holds(CmpMode::Ne),
        CmpFPredicate::Uno => unordered,
        CmpFPredicate::True => true,
    }
}

/// `arith.cmpi` on two `width`-bit values.
fn cmpi(p: CmpIPredicate, width: u32, a: u64, b: u64) -> bool {
    let mask = width_mask(width);
    let (ua, ub) = (a & mask, b & mask);
    let (sa, sb) = (sign_extend(width, ua), sign_extend(width, ub));
    match p {
        CmpIPredicate::Eq => ua == ub,
        CmpIPredicate::Ne => ua != ub,
        CmpIPredicate::Slt => sa < sb,
        CmpIPredicate::Sle => sa <= sb,
        CmpIPredicate::Sgt => sa > sb,
        CmpIPredicate::Sge => sa >= sb,
        CmpIPredicate::Ult => ua < ub,
        CmpIPredicate::Ule => ua <= ub,
        CmpIPredicate::Ugt => ua > ub,
        CmpIPredicate::Uge => ua >= ub,
    }
}
