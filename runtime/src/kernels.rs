//! Tile-level loops for every [`OpKind`], shared by the interpreter and the reference evaluator.
//!
//! The DataType is resolved once per op (through [`with_lane`]); each (op, type) pair then runs a
//! monomorphised loop over row slices, with no per-element dispatch. Callers check legality
//! (types, geometry, definedness); the loops only index through checked row slices and report a
//! [`KernelError`] instead of panicking if a view is too small.

use crate::numerics::format::format_of;
use crate::numerics::lane::{with_lane, Lane, LaneVisitor};
use crate::numerics::reduce::fold;
use crate::numerics::{exp, Flags};
use ptoc_isa::{Axis, DataType, ElementOp, OpKind};

/// A read-only row-major view of a tile's carriers.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    pub elements: &'a [u64],
    /// Row stride (the physical column count).
    pub cols: usize,
}

impl<'a> View<'a> {
    pub fn new(elements: &'a [u64], cols: usize) -> View<'a> {
        View { elements, cols }
    }

    fn row(&self, r: usize, len: usize) -> Result<&'a [u64], KernelError> {
        let start = r * self.cols;
        self.elements
            .get(start..start + len)
            .filter(|_| len <= self.cols)
            .ok_or(KernelError::Geometry)
    }

    fn at(&self, r: usize, c: usize) -> Result<u64, KernelError> {
        self.row(r, c + 1).map(|row| row[c])
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    #[error("integer division by zero (divisor at row {row}, column {col})")]
    IntegerDivideByZero { row: usize, col: usize },
    #[error("{op:?} is not defined on {dtype}")]
    Unsupported { op: OpKind, dtype: DataType },
    #[error("an operand is smaller than the iteration domain")]
    Geometry,
    #[error("wrong number of sources for {0:?}")]
    Arity(OpKind),
}

/// One op's work: sources in B.IOT order, an output buffer with its row stride, and the domain.
///
/// `domain` is (valid rows, valid cols) of the full-shape operand: the destination for binary,
/// unary and expand ops, the source for reductions. Reductions write `out[r][0]` (row) or
/// `out[0][c]` (column); everything else writes `out[r][c]` over the domain.
pub struct Job<'a, 'o> {
    pub kind: OpKind,
    /// The BSTART DataType (the source type).
    pub src_type: DataType,
    /// The destination type (differs from `src_type` only for mixed EXPDIF and ARG reductions).
    pub dst_type: DataType,
    pub sources: &'a [View<'a>],
    pub out: &'o mut [u64],
    pub out_cols: usize,
    pub domain: (usize, usize),
}

/// The first zero divisor an integer DIV would use, as (row, col) in the divisor tile.
pub fn first_zero_divisor(job: &Job) -> Result<Option<(usize, usize)>, KernelError> {
    let op = match job.kind {
        OpKind::Binary(ElementOp::Div) => None,
        OpKind::Expand(axis, Some(ElementOp::Div)) => Some(axis),
        _ => return Ok(None),
    };
    if !job.src_type.is_integer() {
        return Ok(None);
    }
    let divisor = *job.sources.get(1).ok_or(KernelError::Arity(job.kind))?;
    let mask = job.src_type.carrier_mask();
    let (vr, vc) = job.domain;
    let (rows, cols) = match op {
        None => (vr, vc),
        Some(Axis::Row) => (vr, 1),
        Some(Axis::Col) => (1, vc),
    };
    for r in 0..rows {
        if let Some(c) = divisor.row(r, cols)?.iter().position(|&d| d & mask == 0) {
            return Ok(Some((r, c)));
        }
    }
    Ok(None)
}

/// Run the job; returns the OR of every element's status flags.
pub fn execute(job: Job) -> Result<Flags, KernelError> {
    if let Some((row, col)) = first_zero_divisor(&job)? {
        return Err(KernelError::IntegerDivideByZero { row, col });
    }
    let unsupported = KernelError::Unsupported {
        op: job.kind,
        dtype: job.src_type,
    };
    match job.kind {
        OpKind::Exp => {
            let fmt = format_of(job.src_type).ok_or(unsupported)?;
            map_unary(job, |a| exp::exp(fmt, a))
        }
        OpKind::Binary(ElementOp::ExpDif) | OpKind::Expand(_, Some(ElementOp::ExpDif)) => {
            let (src, dst) = (job.src_type, job.dst_type);
            if !ptoc_isa::dtype::EXPDIF_PAIRS.contains(&(src, dst)) {
                return Err(unsupported);
            }
            match format_of(src) {
                Some(fmt) if src == dst => map_binary(job, |a, b| exp::expdif_same(fmt, a, b)),
                _ => map_binary(job, move |a, b| exp::expdif_widening(src, a, b)),
            }
        }
        OpKind::Expand(axis, None) => copy_broadcast(job, axis),
        _ => with_lane(job.src_type, LaneJob(job)).unwrap_or(Err(unsupported)),
    }
}

struct LaneJob<'a, 'o>(Job<'a, 'o>);

impl LaneVisitor for LaneJob<'_, '_> {
    type Output = Result<Flags, KernelError>;
    fn visit<L: Lane>(self) -> Self::Output {
        let job = self.0;
        macro_rules! with_op {
            ($op:expr, |$f:ident| $body:expr) => {
                match $op {
                    ElementOp::Add => {
                        let $f = L::add;
                        $body
                    }
                    ElementOp::Sub => {
                        let $f = L::sub;
                        $body
                    }
                    ElementOp::Mul => {
                        let $f = L::mul;
                        $body
                    }
                    ElementOp::Div => {
                        let $f = L::div;
                        $body
                    }
                    ElementOp::Max => {
                        let $f = L::max;
                        $body
                    }
                    ElementOp::Min => {
                        let $f = L::min;
                        $body
                    }
                    ElementOp::ExpDif => Err(KernelError::Unsupported {
                        op: job.kind,
                        dtype: job.src_type,
                    }),
                }
            };
        }
        match job.kind {
            OpKind::Binary(op) | OpKind::Expand(_, Some(op)) => {
                with_op!(op, |f| map_binary(job, f))
            }
            OpKind::Reduce(axis, red) => reduce::<L>(job, axis, red),
            OpKind::Expand(_, None) | OpKind::Exp => Err(KernelError::Unsupported {
                op: job.kind,
                dtype: job.src_type,
            }),
        }
    }
}

fn expect_sources(job: &Job, count: usize) -> Result<(), KernelError> {
    if job.sources.len() == count {
        Ok(())
    } else {
        Err(KernelError::Arity(job.kind))
    }
}

/// `out[r][c] = f(src[r][c])` over the domain.
fn map_unary(job: Job, f: impl Fn(u64) -> (u64, Flags)) -> Result<Flags, KernelError> {
    expect_sources(&job, 1)?;
    let (vr, vc) = job.domain;
    let src = job.sources[0];
    let mut flags = 0;
    for r in 0..vr {
        let s = src.row(r, vc)?;
        let o = out_row(job.out, job.out_cols, r, vc)?;
        for (d, &x) in o.iter_mut().zip(s) {
            let (v, fl) = f(x);
            *d = v;
            flags |= fl;
        }
    }
    Ok(flags)
}

fn out_row(out: &mut [u64], cols: usize, r: usize, len: usize) -> Result<&mut [u64], KernelError> {
    let start = r * cols;
    if len > cols {
        return Err(KernelError::Geometry);
    }
    out.get_mut(start..start + len).ok_or(KernelError::Geometry)
}

/// Binary and expand ops: `out[r][c] = f(a[r][c], b)` with `b` the second source at `[r][c]`
/// (binary), `[r][0]` (row expand) or `[0][c]` (column expand).
fn map_binary(job: Job, f: impl Fn(u64, u64) -> (u64, Flags)) -> Result<Flags, KernelError> {
    expect_sources(&job, 2)?;
    let (vr, vc) = job.domain;
    let (a, b) = (job.sources[0], job.sources[1]);
    let mut flags = 0;
    let col_bcast = match job.kind {
        OpKind::Expand(Axis::Col, _) => Some(b.row(0, vc)?),
        _ => None,
    };
    for r in 0..vr {
        let s = a.row(r, vc)?;
        let o = out_row(job.out, job.out_cols, r, vc)?;
        match (job.kind, col_bcast) {
            (OpKind::Expand(Axis::Row, _), _) => {
                let x = b.at(r, 0)?;
                for (d, &y) in o.iter_mut().zip(s) {
                    let (v, fl) = f(y, x);
                    *d = v;
                    flags |= fl;
                }
            }
            (_, Some(brow)) => {
                for ((d, &y), &x) in o.iter_mut().zip(s).zip(brow) {
                    let (v, fl) = f(y, x);
                    *d = v;
                    flags |= fl;
                }
            }
            _ => {
                for ((d, &y), &x) in o.iter_mut().zip(s).zip(b.row(r, vc)?) {
                    let (v, fl) = f(y, x);
                    *d = v;
                    flags |= fl;
                }
            }
        }
    }
    Ok(flags)
}

/// TROWEXPAND/TCOLEXPAND: bit copies of the broadcast source, no status.
fn copy_broadcast(job: Job, axis: Axis) -> Result<Flags, KernelError> {
    expect_sources(&job, 1)?;
    let (vr, vc) = job.domain;
    let b = job.sources[0];
    for r in 0..vr {
        let o = out_row(job.out, job.out_cols, r, vc)?;
        match axis {
            Axis::Row => o.fill(b.at(r, 0)?),
            Axis::Col => o.copy_from_slice(b.row(0, vc)?),
        }
    }
    Ok(0)
}

fn reduce<L: Lane>(job: Job, axis: Axis, red: ptoc_isa::Reduction) -> Result<Flags, KernelError> {
    expect_sources(&job, 1)?;
    let (vr, vc) = job.domain;
    let src = job.sources[0];
    let mut flags = 0;
    match axis {
        Axis::Row => {
            for r in 0..vr {
                let (v, fl) = fold::<L>(red, src.row(r, vc)?.iter().copied());
                out_row(job.out, job.out_cols, r, 1)?[0] = v;
                flags |= fl;
            }
        }
        Axis::Col => {
            // Every row must hold the domain's columns before the strided walk.
            if vr > 0 {
                src.row(vr - 1, vc)?;
            }
            let o = out_row(job.out, job.out_cols, 0, vc)?;
            for (c, d) in o.iter_mut().enumerate() {
                let column = (0..vr).map(|r| src.elements[r * src.cols + c]);
                let (v, fl) = fold::<L>(red, column);
                *d = v;
                flags |= fl;
            }
        }
    }
    Ok(flags)
}
