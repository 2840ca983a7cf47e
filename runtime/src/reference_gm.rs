//! The reference evaluator of GM kernels (README, Kernels over global memory): runs a verified [`GmKernel`] on GM
//! buffers and scalars, loops included, on the tile types as written — the meaning `ptoc verify`
//! compares compiled GM kernels against.
//!
//! - `pto.tload` publishes the tile's valid region from the memref rectangle at its offsets,
//!   defined, and leaves the padding undefined (docs/isa.md §13.5–§13.7); `pto.tstore` needs the
//!   valid region defined and writes exactly it (§13.7). The bits move unchanged (§13.6).
//! - Tile ops evaluate through [`crate::reference::evaluate_kernel_op`], as in a function; a
//!   tile-scalar op's scalar operand (its last, docs/isa.md §14) passes its bits.
//! - `arith` ops have MLIR's integer semantics ([`ptoc_ir::ArithOp::apply`]): results wrap at the
//!   width; a zero divisor, a signed division overflow or an oversized shift is an evaluation
//!   error, as is a rectangle that leaves its memref (where the interpreter faults).
//! - `scf.for` compares its `index` bounds signed, as MLIR does.

use crate::numerics::Flags;
use crate::reference::{evaluate_kernel_op, EvalError};
use crate::tile::Tile;
use ptoc_ir::{Block, GmKernel, GmOp, GmOpKind, Location, ScalarType, Type, ValueId};

/// An argument of a GM kernel, in the kernel's argument order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GmArg {
    /// A memref's elements, row-major, each as its bit pattern (`rows × cols` of them).
    MemRef(Vec<u64>),
    /// A scalar's bit pattern (an `index` as its two's complement value).
    Scalar(u64),
    /// A tile argument (valid region defined).
    Tile(Tile),
}

/// What a GM kernel computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GmEvaluation {
    /// The final elements of each memref argument, in argument order (`None` for the other
    /// arguments).
    pub memrefs: Vec<Option<Vec<u64>>>,
    /// The tiles `func.return` returns.
    pub results: Vec<Tile>,
    /// The OR of the status flags every tile op raised.
    pub flags: Flags,
}

/// How many ops an evaluation may execute before it is stopped (a loop whose bounds come from
/// a huge scalar would otherwise run for hours).
pub const OP_LIMIT: u64 = 200_000_000;

#[derive(Clone, Debug)]
enum Val {
    Tile(Tile),
    Scalar(u64),
    /// The index of the memref argument's buffer.
    MemRef(usize),
}

struct Eval<'k> {
    kernel: &'k GmKernel,
    values: Vec<Option<Val>>,
    memory: Vec<Vec<u64>>,
    flags: Flags,
    executed: u64,
}

/// Evaluate `kernel` on `args`.
pub fn evaluate_gm(kernel: &GmKernel, args: &[GmArg]) -> Result<GmEvaluation, EvalError> {
    if args.len() != kernel.args.len() {
        return Err(EvalError::ArgCount {
            function: kernel.name.clone(),
            expected: kernel.args.len(),
            given: args.len(),
        });
    }
    let mut eval = Eval {
        kernel,
        values: vec![None; kernel.values.len()],
        memory: Vec::new(),
        flags: 0,
        executed: 0,
    };
    let mut memref_slot = Vec::with_capacity(args.len());
    for (index, (&id, arg)) in kernel.args.iter().zip(args).enumerate() {
        let ty = kernel.ty(id);
        let arg_err = |message: String| EvalError::Arg {
            index,
            ty: ty.to_string(),
            message,
        };
        let val = match (ty, arg) {
            (Type::MemRef(m), GmArg::MemRef(elements)) => {
                let want = m.rows as usize * m.cols as usize;
                if elements.len() != want {
                    return Err(arg_err(format!(
                        "{} elements given, the memref has {want}",
                        elements.len()
                    )));
                }
                let mask = width_mask(m.dtype.bits());
                eval.memory
                    .push(elements.iter().map(|&e| e & mask).collect());
                memref_slot.push(Some(eval.memory.len() - 1));
                Val::MemRef(eval.memory.len() - 1)
            }
            (Type::Scalar(s), GmArg::Scalar(bits)) => {
                memref_slot.push(None);
                Val::Scalar(bits & width_mask(s.bits()))
            }
            (Type::Tile(t), GmArg::Tile(tile)) => {
                memref_slot.push(None);
                let (_, _, vr, vc) = t
                    .dims()
                    .ok_or_else(|| arg_err("the type has '?' dimensions".into()))?;
                if tile.dtype != t.dtype || (tile.valid_rows, tile.valid_cols) != (vr, vc) {
                    return Err(arg_err(format!("the tile given is {tile}")));
                }
                tile.check_consistent().map_err(|e| arg_err(e.0))?;
                let mut tile = tile.clone();
                tile.drop_bits_above_width();
                Val::Tile(tile)
            }
            _ => return Err(arg_err(format!("{arg:?} given"))),
        };
        eval.values[id.0 as usize] = Some(val);
    }
    let returned = eval.block(&kernel.body)?;
    let results = returned
        .iter()
        .map(|&v| match eval.get(v, &kernel.loc, "return")? {
            Val::Tile(t) => Ok(t.clone()),
            _ => Err(op_error(
                &kernel.loc,
                "return",
                "returns a value that is not a tile",
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let Eval { memory, flags, .. } = eval;
    let memrefs = memref_slot
        .into_iter()
        .map(|slot| slot.map(|i| memory[i].clone()))
        .collect();
    Ok(GmEvaluation {
        memrefs,
        results,
        flags,
    })
}

fn width_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

pub(crate) fn op_error(loc: &Location, what: &str, message: impl Into<String>) -> EvalError {
    EvalError::Op {
        loc: loc.clone(),
        mnemonic: what.to_string(),
        message: message.into(),
    }
}

/// The short name of an op in errors.
fn op_label(op: &GmOp) -> String {
    match &op.kind {
        GmOpKind::Tile { info, .. } => info.mnemonic.to_string(),
        GmOpKind::Load => "pto.tload".into(),
        GmOpKind::Store => "pto.tstore".into(),
        GmOpKind::Constant(_) => "arith.constant".into(),
        GmOpKind::Arith(a) => a.mlir_name().into(),
        GmOpKind::For(_) => "scf.for".into(),
        GmOpKind::Yield => "scf.yield".into(),
        GmOpKind::Return => "func.return".into(),
    }
}

impl Eval<'_> {
    fn get(&self, id: ValueId, loc: &Location, what: &str) -> Result<&Val, EvalError> {
        self.values
            .get(id.0 as usize)
            .and_then(Option::as_ref)
            .ok_or_else(|| op_error(loc, what, "an operand is used before it is defined"))
    }

    fn set(&mut self, id: ValueId, val: Val) {
        self.values[id.0 as usize] = Some(val);
    }

    /// Run a block; the operands of its terminator (yield or return), empty without one.
    fn block(&mut self, block: &Block) -> Result<Vec<ValueId>, EvalError> {
        for op in &block.ops {
            self.executed += 1;
            if self.executed > OP_LIMIT {
                return Err(op_error(
                    &op.loc,
                    &op_label(op),
                    format!("the evaluation stopped after {OP_LIMIT} ops"),
                ));
            }
            match &op.kind {
                GmOpKind::Yield | GmOpKind::Return => return Ok(op.operands.clone()),
                _ => self.op(op)?,
            }
        }
        Ok(Vec::new())
    }

    /// Operand `i` of `op`, defined.
    fn operand(&self, op: &GmOp, i: usize) -> Result<&Val, EvalError> {
        let label = op_label(op);
        let v = *op
            .operands
            .get(i)
            .ok_or_else(|| op_error(&op.loc, &label, format!("has no operand #{i}")))?;
        self.get(v, &op.loc, &label)
    }

    fn scalar(&self, op: &GmOp, i: usize) -> Result<u64, EvalError> {
        match self.operand(op, i)? {
            Val::Scalar(bits) => Ok(*bits),
            _ => Err(op_error(
                &op.loc,
                &op_label(op),
                format!("operand #{i} is not a scalar"),
            )),
        }
    }

    fn tile(&self, op: &GmOp, i: usize) -> Result<&Tile, EvalError> {
        match self.operand(op, i)? {
            Val::Tile(t) => Ok(t),
            _ => Err(op_error(
                &op.loc,
                &op_label(op),
                format!("operand #{i} is not a tile"),
            )),
        }
    }

    fn op(&mut self, op: &GmOp) -> Result<(), EvalError> {
        let label = op_label(op);
        let err = |message: String| op_error(&op.loc, &label, message);
        let kernel = self.kernel;
        match &op.kind {
            GmOpKind::Constant(bits) => {
                let r = *op
                    .results
                    .first()
                    .ok_or_else(|| err("has no result".into()))?;
                self.set(r, Val::Scalar(*bits));
            }
            GmOpKind::Arith(arith) => {
                let r = *op
                    .results
                    .first()
                    .ok_or_else(|| err("has no result".into()))?;
                let bits = kernel.ty(r).scalar().map_or(64, ScalarType::bits);
                let (a, b) = (self.scalar(op, 0)?, self.scalar(op, 1)?);
                let out = arith.apply(a, b, bits).ok_or_else(|| {
                    err(format!(
                        "has no value for operands {a:#x} and {b:#x} (a zero divisor, a signed \
                         division overflow or a shift by {bits} bits or more)"
                    ))
                })?;
                self.set(r, Val::Scalar(out));
            }
            GmOpKind::Tile { info, control } => {
                let r = *op
                    .results
                    .first()
                    .ok_or_else(|| err("has no result".into()))?;
                let ty = kernel
                    .ty(r)
                    .tile()
                    .ok_or_else(|| err("the result is not a tile".into()))?;
                // A tile-scalar op's scalar is its last operand (GmOpKind::Tile).
                let tiles = op
                    .operands
                    .len()
                    .saturating_sub(usize::from(info.takes_scalar()));
                let scalar = match info.takes_scalar() {
                    true => Some(self.scalar(op, tiles)?),
                    false => None,
                };
                let operands = (0..tiles)
                    .map(|i| self.tile(op, i))
                    .collect::<Result<Vec<&Tile>, _>>()?;
                let (tile, flags) =
                    evaluate_kernel_op(info, *control, &op.attrs, &operands, scalar, ty)
                        .map_err(err)?;
                self.flags |= flags;
                self.set(r, Val::Tile(tile));
            }
            GmOpKind::Load => {
                let r = *op
                    .results
                    .first()
                    .ok_or_else(|| err("has no result".into()))?;
                let ty = *kernel
                    .ty(r)
                    .tile()
                    .ok_or_else(|| err("the result is not a tile".into()))?;
                let (rows, cols, vr, vc) = ty
                    .dims()
                    .ok_or_else(|| err("the result type has '?' dimensions".into()))?;
                let (buffer, base) = self.rectangle(op, 0, 1, vr, vc)?;
                let mut values = Vec::with_capacity(vr as usize * vc as usize);
                for row in 0..vr as usize {
                    let start = base + row * self.memref_cols(op, 0)?;
                    values.extend_from_slice(&self.memory[buffer][start..start + vc as usize]);
                }
                let tile = if ty.layout.is_cube() {
                    // A CUBE load pads with the type's pad (docs/isa.md §18.2).
                    Tile::cube(ty.dtype, ty.layout, None, (vr, vc))
                        .and_then(|t| t.with_valid_values(&values))
                        .map(|mut t| {
                            crate::machine::publish_padding(&mut t, ty.pad);
                            t
                        })
                } else {
                    Tile::new(ty.dtype, rows, cols, vr, vc)
                        .and_then(|t| t.with_valid_values(&values))
                }
                .map_err(|e| err(e.0))?;
                self.set(r, Val::Tile(tile));
            }
            GmOpKind::Store => {
                let tile = self.tile(op, 0)?.clone();
                if !tile.valid_region_defined() {
                    return Err(err(format!(
                        "stores {tile}, whose valid region has undefined elements"
                    )));
                }
                let (vr, vc) = (tile.valid_rows, tile.valid_cols);
                let (buffer, base) = self.rectangle(op, 1, 2, vr, vc)?;
                let stride = self.memref_cols(op, 1)?;
                for row in 0..vr as usize {
                    for col in 0..vc as usize {
                        let bits = tile.get(row, col).unwrap_or(0);
                        self.memory[buffer][base + row * stride + col] = bits;
                    }
                }
            }
            GmOpKind::For(body) => self.for_op(op, body)?,
            GmOpKind::Yield | GmOpKind::Return => {}
        }
        Ok(())
    }

    fn memref_cols(&self, op: &GmOp, i: usize) -> Result<usize, EvalError> {
        op.operands
            .get(i)
            .and_then(|&m| self.kernel.ty(m).memref())
            .map(|m| m.cols as usize)
            .ok_or_else(|| {
                op_error(
                    &op.loc,
                    &op_label(op),
                    format!("operand #{i} is not a memref"),
                )
            })
    }

    /// The buffer and first element index of the `vr × vc` rectangle at the offsets that
    /// follow the memref operand `mem`; an error when it leaves the memref.
    fn rectangle(
        &self,
        op: &GmOp,
        mem: usize,
        first_offset: usize,
        vr: u32,
        vc: u32,
    ) -> Result<(usize, usize), EvalError> {
        let label = op_label(op);
        let err = |message: String| op_error(&op.loc, &label, message);
        let mem_id = *op
            .operands
            .get(mem)
            .ok_or_else(|| err("has no memref".into()))?;
        let Val::MemRef(buffer) = self.get(mem_id, &op.loc, &label)? else {
            return Err(err(format!("operand #{mem} is not a memref")));
        };
        let ty = self
            .kernel
            .ty(mem_id)
            .memref()
            .ok_or_else(|| err(format!("operand #{mem} is not a memref")))?;
        let row = self.scalar(op, first_offset)? as i64;
        let col = self.scalar(op, first_offset + 1)? as i64;
        let inside = |offset: i64, extent: u32, memref: u32| {
            offset >= 0 && offset + i64::from(extent) <= i64::from(memref)
        };
        if !inside(row, vr, ty.rows) || !inside(col, vc, ty.cols) {
            return Err(err(format!(
                "the {vr}x{vc} rectangle at row {row}, column {col} leaves %{} ({ty})",
                self.kernel.display_name(mem_id)
            )));
        }
        Ok((*buffer, row as usize * ty.cols as usize + col as usize))
    }

    fn for_op(&mut self, op: &GmOp, body: &Block) -> Result<(), EvalError> {
        let label = op_label(op);
        let err = |message: String| op_error(&op.loc, &label, message);
        let (lb, ub, step) = (
            self.scalar(op, 0)? as i64,
            self.scalar(op, 1)? as i64,
            self.scalar(op, 2)? as i64,
        );
        if step <= 0 {
            return Err(err(format!(
                "has step {step}; a loop's step must be positive"
            )));
        }
        let mut carried: Vec<Val> = op.operands[3..]
            .iter()
            .map(|&v| self.get(v, &op.loc, &label).cloned())
            .collect::<Result<_, _>>()?;
        let (&iv, carried_args) = body
            .args
            .split_first()
            .ok_or_else(|| err("has no induction variable".into()))?;
        if carried_args.len() != carried.len() || op.results.len() != carried.len() {
            return Err(err(
                "carries a different number of values than it yields".into()
            ));
        }
        let mut i = lb;
        while i < ub {
            self.set(iv, Val::Scalar(i as u64));
            for (&arg, val) in carried_args.iter().zip(carried.drain(..)) {
                self.set(arg, val);
            }
            let yielded = self.block(body)?;
            if yielded.len() != carried_args.len() {
                return Err(err("the body yields a different number of values".into()));
            }
            carried = yielded
                .iter()
                .map(|&v| self.get(v, &op.loc, &label).cloned())
                .collect::<Result<_, _>>()?;
            match i.checked_add(step) {
                Some(next) => i = next,
                None => break,
            }
        }
        for (&r, val) in op.results.iter().zip(carried) {
            self.set(r, val);
        }
        Ok(())
    }
}
