//! Tile-level loops for every [`OpKind`], shared by the interpreter and the reference evaluator.
//!
//! The DataType is resolved once per op (through [`with_lane`]); each (op, type) pair then runs a
//! monomorphised loop over row slices of the type's native carriers ([`Carrier`]), with no
//! per-element dispatch. Element functions on `u64` bits (soft-float arithmetic, EXP) are adapted
//! per element; MIN/MAX, memory-bound, use the lane's branch-free pick and are compiled for the
//! widest vector ISA the CPU has. Callers check legality (types, geometry, definedness); the loops
//! only index through checked row slices and report a [`KernelError`] instead of panicking if a
//! view is too small or stored at another width.

use crate::elements::{Carrier, Elements};
use crate::numerics::format::format_of;
use crate::numerics::lane::{lane_fn, with_lane, Lane, LaneVisitor};
use crate::numerics::minmax::Pick;
use crate::numerics::reduce::fold;
use crate::numerics::{exp, Flags};
use ptoc_isa::{Axis, DataType, ElementOp, OpKind, Reduction};

/// A read-only row-major view of a tile's elements, at whatever width they are stored.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    pub elements: &'a Elements,
    /// Row stride (the physical column count).
    pub cols: usize,
}

impl<'a> View<'a> {
    pub fn new(elements: &'a Elements, cols: usize) -> View<'a> {
        View { elements, cols }
    }

    /// The same view on carriers of type `C` (an error if the elements are stored otherwise).
    fn rows<C: Carrier>(&self) -> Result<Rows<'a, C>, KernelError> {
        let elements = C::slice(self.elements).ok_or(KernelError::Width)?;
        Ok(Rows {
            elements,
            cols: self.cols,
        })
    }
}

/// A [`View`] at a known carrier width: checked row slices for the element loops.
#[derive(Clone, Copy)]
struct Rows<'a, C> {
    elements: &'a [C],
    cols: usize,
}

impl<'a, C: Carrier> Rows<'a, C> {
    fn row(&self, r: usize, len: usize) -> Result<&'a [C], KernelError> {
        let start = r * self.cols;
        self.elements
            .get(start..start + len)
            .filter(|_| len <= self.cols)
            .ok_or(KernelError::Geometry)
    }

    fn at(&self, r: usize, c: usize) -> Result<C, KernelError> {
        self.row(r, c + 1).map(|row| row[c])
    }

    /// `each` of the leading `rows × len` rectangle's rows, combined with `join`; one call on
    /// the whole rectangle when its rows are whole (one reduction instead of one per row).
    #[inline(always)]
    fn fold_rect<T>(
        &self,
        (rows, len): (usize, usize),
        each: impl Fn(&[C]) -> T,
        join: impl Fn(T, T) -> T,
    ) -> Result<Option<T>, KernelError> {
        if len == self.cols && rows > 0 {
            self.row(rows - 1, len)?;
            return Ok(Some(each(&self.elements[..rows * len])));
        }
        let mut acc = None;
        for r in 0..rows {
            let x = each(self.row(r, len)?);
            acc = Some(match acc {
                Some(a) => join(a, x),
                None => x,
            });
        }
        Ok(acc)
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
    #[error("an operand is not stored at its type's width")]
    Width,
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
    pub out: &'o mut Elements,
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
    let (vr, vc) = job.domain;
    let (rows, cols) = match op {
        None => (vr, vc),
        Some(Axis::Row) => (vr, 1),
        Some(Axis::Col) => (1, vc),
    };
    let search = ZeroSearch {
        divisor,
        rows,
        cols,
    };
    with_lane(job.src_type, search).unwrap_or(Ok(None))
}

/// The zero-divisor scan at the divisor type's carrier width.
struct ZeroSearch<'a> {
    divisor: View<'a>,
    rows: usize,
    cols: usize,
}

impl LaneVisitor for ZeroSearch<'_> {
    type Output = Result<Option<(usize, usize)>, KernelError>;
    fn visit<L: Lane>(self) -> Self::Output {
        let divisor = self.divisor.rows::<L::Carrier>()?;
        for r in 0..self.rows {
            let row = divisor.row(r, self.cols)?;
            if let Some(c) = row.iter().position(|&d| L::is_int_zero(d.bits())) {
                return Ok(Some((r, c)));
            }
        }
        Ok(None)
    }
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
    with_lane(job.src_type, LaneJob(job)).unwrap_or(Err(unsupported))
}

/// A job at its source type's lane: every op runs on native carriers. Element functions on
/// `u64` bits ([`Lane::add`], [`exp::exp`], …) are adapted with [`on_bits`]; MAX/MIN use the
/// lane's branch-free native [`Lane::pick`], so those loops vectorise.
struct LaneJob<'a, 'o>(Job<'a, 'o>);

impl LaneVisitor for LaneJob<'_, '_> {
    type Output = Result<Flags, KernelError>;
    fn visit<L: Lane>(self) -> Self::Output {
        let job = self.0;
        let unsupported = KernelError::Unsupported {
            op: job.kind,
            dtype: job.src_type,
        };
        let (src, dst) = (job.src_type, job.dst_type);
        match job.kind {
            OpKind::Exp => {
                let fmt = format_of(src).ok_or(unsupported)?;
                map_unary(job, |a: L::Carrier| {
                    let (v, flags) = exp::exp(fmt, a.bits());
                    (Carrier::from_bits(v), flags)
                })
            }
            OpKind::Binary(ElementOp::ExpDif) | OpKind::Expand(_, Some(ElementOp::ExpDif)) => {
                if !ptoc_isa::dtype::EXPDIF_PAIRS.contains(&(src, dst)) {
                    return Err(unsupported);
                }
                match format_of(src) {
                    Some(fmt) if src == dst => map_binary::<L::Carrier, L::Carrier>(
                        job,
                        on_bits(|a, b| exp::expdif_same(fmt, a, b)),
                    ),
                    // Every widening pair produces FP32.
                    _ => map_binary::<L::Carrier, u32>(
                        job,
                        on_bits(move |a, b| exp::expdif_widening(src, a, b)),
                    ),
                }
            }
            OpKind::Expand(axis, None) => copy_broadcast::<L::Carrier>(job, axis),
            OpKind::Binary(ElementOp::Max) | OpKind::Expand(_, Some(ElementOp::Max)) => {
                map_pick::<L, true>(job)
            }
            OpKind::Binary(ElementOp::Min) | OpKind::Expand(_, Some(ElementOp::Min)) => {
                map_pick::<L, false>(job)
            }
            OpKind::Binary(op) | OpKind::Expand(_, Some(op)) => {
                let f = lane_fn::<L>(op).ok_or(unsupported)?;
                map_binary::<L::Carrier, L::Carrier>(job, on_bits(f))
            }
            // ARG results are U32 or S32 carriers; the other reductions keep the source type.
            OpKind::Reduce(axis, red) if matches!(red, Reduction::ArgMax | Reduction::ArgMin) => {
                reduce::<L, u32>(job, axis, red)
            }
            OpKind::Reduce(axis, red) => reduce::<L, L::Carrier>(job, axis, red),
        }
    }
}

/// MAX (`MAX`) or MIN over a binary or expand job with the lane's branch-free pick, run by the
/// widest compiled loop the CPU supports (see [`pick_loops`]).
fn map_pick<L: Lane, const MAX: bool>(job: Job) -> Result<Flags, KernelError> {
    let best = pick_loops::<L, MAX>().into_iter().flatten().next();
    best.unwrap_or(pick_loop::<L, MAX>)(job)
}

type PickLoop = fn(Job) -> Result<Flags, KernelError>;

/// The same generic MIN/MAX loop ([`map_binary`] is inlined into each) compiled for AVX-512,
/// AVX2 and the build's baseline (SSE2 on x86-64), widest first; `None` where the CPU lacks the
/// features. The branch-free loop is otherwise limited by the vector width.
fn pick_loops<L: Lane, const MAX: bool>() -> [Option<PickLoop>; 3] {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx512bw")]
        fn avx512<L: Lane, const MAX: bool>(job: Job) -> Result<Flags, KernelError> {
            pick_loop::<L, MAX>(job)
        }
        #[target_feature(enable = "avx2")]
        fn avx2<L: Lane, const MAX: bool>(job: Job) -> Result<Flags, KernelError> {
            pick_loop::<L, MAX>(job)
        }
        let avx512_ok = is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw");
        [
            // SAFETY: each twin is only returned when the CPU has its features.
            avx512_ok.then_some(|job| unsafe { avx512::<L, MAX>(job) }),
            is_x86_feature_detected!("avx2").then_some(|job| unsafe { avx2::<L, MAX>(job) }),
            Some(pick_loop::<L, MAX>),
        ]
    }
    #[cfg(not(target_arch = "x86_64"))]
    [None, None, Some(pick_loop::<L, MAX>)]
}

/// The MIN/MAX loop. Its only status, NV, comes from each operand alone ([`Lane::pick_flag`]), so
/// the flags are a scan of the operands and the element loop carries none: reducing a flag
/// accumulator after every row cost as much as a 128-column row's element work. Operands without
/// NaNs (the usual case) raise nothing and take the [`Lane::pick_ordered`] half of the rule,
/// about half the vector instructions.
#[inline(always)]
fn pick_loop<L: Lane, const MAX: bool>(job: Job) -> Result<Flags, KernelError> {
    let pick = if MAX { Pick::Max } else { Pick::Min };
    match nan_operand_flags::<L>(&job)? {
        Some(flags) => {
            map_binary(job, move |a, b| (L::pick(pick, a, b).0, 0))?;
            Ok(flags)
        }
        None => {
            map_binary(job, move |a, b| (L::pick_ordered(pick, a, b), 0))?;
            Ok(0)
        }
    }
}

/// `None` when no operand element a binary or expand job reads is a NaN, else the OR of
/// [`Lane::pick_flag`] over them. The NaN test is one max-reduction of [`Lane::nan_rank`] (two
/// vector instructions an element); only operands with a NaN are scanned for the flags.
#[inline(always)]
fn nan_operand_flags<L: Lane>(job: &Job) -> Result<Option<Flags>, KernelError> {
    expect_sources(job, 2)?;
    let (vr, vc) = job.domain;
    if vr == 0 || vc == 0 {
        return Ok(None);
    }
    let (a, b) = (job.sources[0].rows::<L::Carrier>()?, job.sources[1].rows()?);
    let b_domain = match job.kind {
        OpKind::Expand(Axis::Row, _) => (vr, 1),
        OpKind::Expand(Axis::Col, _) => (1, vc),
        _ => (vr, vc),
    };
    let rank = |xs: &[L::Carrier]| {
        xs.iter().fold(Default::default(), |m: L::Carrier, &x| {
            m.max(L::nan_rank(x))
        })
    };
    let top = [
        a.fold_rect((vr, vc), rank, Ord::max)?,
        b.fold_rect(b_domain, rank, Ord::max)?,
    ];
    if !top.into_iter().flatten().any(L::is_nan) {
        return Ok(None);
    }
    let flag = |xs: &[L::Carrier]| {
        xs.iter()
            .fold(0, |acc, &x| acc | u32::from(L::pick_flag(x)))
    };
    let or = |x: u32, y: u32| x | y;
    let flags = [
        a.fold_rect((vr, vc), flag, or)?,
        b.fold_rect(b_domain, flag, or)?,
    ];
    Ok(Some(flags.into_iter().flatten().fold(0, or) as Flags))
}

/// An element function on zero-extended `u64` bits as one on carriers (`S` in, `D` out; the
/// result is cut to `D`'s width, which holds it).
#[inline(always)]
fn on_bits<S: Carrier, D: Carrier>(
    f: impl Fn(u64, u64) -> (u64, Flags),
) -> impl Fn(S, S) -> (D, Flags) {
    move |a, b| {
        let (v, flags) = f(a.bits(), b.bits());
        (D::from_bits(v), flags)
    }
}

fn expect_sources(job: &Job, count: usize) -> Result<(), KernelError> {
    if job.sources.len() == count {
        Ok(())
    } else {
        Err(KernelError::Arity(job.kind))
    }
}

/// Output rows of the destination, at carrier width `D`, written in place when the storage
/// already holds them (a zeroed tile) and otherwise appended to it: the interpreter's destination
/// starts empty with room for the tile, so it is not zeroed before the kernel overwrites it.
struct OutRows<'o, D> {
    elements: &'o mut Vec<D>,
    cols: usize,
}

impl<'o, D: Carrier> OutRows<'o, D> {
    fn of(job: &'o mut Job) -> Result<OutRows<'o, D>, KernelError> {
        let elements = D::vec_mut(job.out).ok_or(KernelError::Width)?;
        Ok(OutRows {
            elements,
            cols: job.out_cols,
        })
    }

    /// Write the first `len` elements of row `r` from `values`; returns the OR of their flags
    /// (accumulated at 32 bits, which vectorises without narrowing each lane's flags to a byte).
    /// Appending fills any elements before the row with zeros (padding, which publication
    /// rewrites) and leaves the storage ending at the row.
    #[inline(always)]
    fn write(
        &mut self,
        r: usize,
        len: usize,
        values: impl Iterator<Item = (D, Flags)>,
    ) -> Result<Flags, KernelError> {
        if len > self.cols {
            return Err(KernelError::Geometry);
        }
        let start = r * self.cols;
        let end = start.checked_add(len).ok_or(KernelError::Geometry)?;
        let v = &mut *self.elements;
        let mut flags = 0u32;
        if let Some(row) = v.get_mut(start..end) {
            for (d, (x, f)) in row.iter_mut().zip(values) {
                *d = x;
                flags |= u32::from(f);
            }
            return Ok(flags as Flags);
        }
        if v.len() != start {
            v.resize(start, D::default());
        }
        v.reserve(len);
        let mut written = 0;
        for (slot, (x, f)) in v.spare_capacity_mut()[..len].iter_mut().zip(values) {
            slot.write(x);
            flags |= u32::from(f);
            written += 1;
        }
        // SAFETY: the `written` slots after the old length were initialised just above.
        unsafe { v.set_len(start + written) };
        Ok(flags as Flags)
    }
}

/// `out[r][c] = f(src[r][c])` over the domain.
fn map_unary<C: Carrier>(mut job: Job, f: impl Fn(C) -> (C, Flags)) -> Result<Flags, KernelError> {
    expect_sources(&job, 1)?;
    let (vr, vc) = job.domain;
    let src = job.sources[0].rows::<C>()?;
    let mut out = OutRows::of(&mut job)?;
    let mut flags = 0;
    for r in 0..vr {
        let s = src.row(r, vc)?;
        flags |= out.write(r, vc, s.iter().map(|&x| f(x)))?;
    }
    Ok(flags)
}

/// Binary and expand ops: `out[r][c] = f(a[r][c], b)` with `b` the second source at `[r][c]`
/// (binary), `[r][0]` (row expand) or `[0][c]` (column expand).
#[inline(always)]
fn map_binary<S: Carrier, D: Carrier>(
    mut job: Job,
    f: impl Fn(S, S) -> (D, Flags),
) -> Result<Flags, KernelError> {
    expect_sources(&job, 2)?;
    let (vr, vc) = job.domain;
    let (a, b) = (job.sources[0].rows::<S>()?, job.sources[1].rows::<S>()?);
    let kind = job.kind;
    let mut out = OutRows::of(&mut job)?;
    let mut flags = 0;
    let col_bcast = match kind {
        OpKind::Expand(Axis::Col, _) => Some(b.row(0, vc)?),
        _ => None,
    };
    for r in 0..vr {
        let s = a.row(r, vc)?;
        flags |= match (kind, col_bcast) {
            (OpKind::Expand(Axis::Row, _), _) => {
                let x = b.at(r, 0)?;
                out.write(r, vc, s.iter().map(|&y| f(y, x)))?
            }
            (_, Some(brow)) => out.write(r, vc, s.iter().zip(brow).map(|(&y, &x)| f(y, x)))?,
            _ => out.write(r, vc, s.iter().zip(b.row(r, vc)?).map(|(&y, &x)| f(y, x)))?,
        };
    }
    Ok(flags)
}

/// TROWEXPAND/TCOLEXPAND: bit copies of the broadcast source, no status.
fn copy_broadcast<C: Carrier>(mut job: Job, axis: Axis) -> Result<Flags, KernelError> {
    expect_sources(&job, 1)?;
    let (vr, vc) = job.domain;
    let b = job.sources[0].rows::<C>()?;
    let mut out = OutRows::of(&mut job)?;
    for r in 0..vr {
        match axis {
            Axis::Row => out.write(r, vc, std::iter::repeat((b.at(r, 0)?, 0)))?,
            Axis::Col => out.write(r, vc, b.row(0, vc)?.iter().map(|&x| (x, 0)))?,
        };
    }
    Ok(0)
}

/// Reductions fold zero-extended bits (the ordered folds of [`fold`]) and store the result at
/// the destination's carrier width `D`.
fn reduce<L: Lane, D: Carrier>(
    mut job: Job,
    axis: Axis,
    red: Reduction,
) -> Result<Flags, KernelError> {
    expect_sources(&job, 1)?;
    let (vr, vc) = job.domain;
    let src = job.sources[0].rows::<L::Carrier>()?;
    let mut out = OutRows::<D>::of(&mut job)?;
    let mut flags = 0;
    match axis {
        Axis::Row => {
            for r in 0..vr {
                let (v, fl) = fold::<L>(red, src.row(r, vc)?.iter().map(|x| x.bits()));
                flags |= out.write(r, 1, std::iter::once((D::from_bits(v), fl)))?;
            }
        }
        Axis::Col => {
            // Every row must hold the domain's columns before the strided walk.
            if vr > 0 {
                src.row(vr - 1, vc)?;
            }
            let column = |c: usize| (0..vr).map(move |r| src.elements[r * src.cols + c].bits());
            let folds = (0..vc).map(|c| {
                let (v, fl) = fold::<L>(red, column(c));
                (D::from_bits(v), fl)
            });
            flags |= out.write(0, vc, folds)?;
        }
    }
    Ok(flags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numerics::lane::{Fp16, Fp32, S8};

    /// Every compiled twin of the MIN/MAX loop gives the same bits and flags, on specials and an
    /// odd row length (vector remainders), for binary, row and column expand; the bits are those
    /// of the element ops pair by pair. Without NaNs in `specials`, the operands hold none (the
    /// loop's NaN-free path).
    fn twins_agree<L: Lane>(specials: &[u64]) {
        let nan_free = specials.iter().all(|&x| !L::is_nan(Carrier::from_bits(x)));
        let (rows, cols) = (5, 37);
        let n = rows * cols;
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |i: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let random = seed >> 17;
            if i.is_multiple_of(3) || (nan_free && L::is_nan(Carrier::from_bits(random))) {
                specials[(seed >> 40) as usize % specials.len()]
            } else {
                random
            }
        };
        let fill = |len: usize, next: &mut dyn FnMut(usize) -> u64| {
            let mut e = Elements::zeroed(L::DTYPE.bits(), len);
            (0..len).for_each(|i| e.set(i, next(i)));
            e
        };
        let (a, full_b) = (fill(n, &mut next), fill(n, &mut next));
        for kind in [
            OpKind::Binary(ElementOp::Max),
            OpKind::Expand(Axis::Row, Some(ElementOp::Max)),
            OpKind::Expand(Axis::Col, Some(ElementOp::Max)),
        ] {
            let b_cols = if kind == OpKind::Expand(Axis::Row, Some(ElementOp::Max)) {
                1
            } else {
                cols
            };
            let sources = [View::new(&a, cols), View::new(&full_b, b_cols)];
            // The flags are those of the element ops, pair by pair (MIN raises what MAX does).
            let b_at = |r: usize, c: usize| match kind {
                OpKind::Expand(Axis::Row, _) => full_b.get(r),
                OpKind::Expand(Axis::Col, _) => full_b.get(c),
                _ => full_b.get(r * cols + c),
            };
            let pairs = (0..rows).flat_map(|r| (0..cols).map(move |c| (r, c)));
            let pair_flags = pairs
                .map(|(r, c)| {
                    let (x, y) = (a.get(r * cols + c), b_at(r, c));
                    L::pick(Pick::Max, Carrier::from_bits(x), Carrier::from_bits(y)).1
                })
                .fold(0, |acc, f| acc | f);
            for (max, loops) in [
                (true, pick_loops::<L, true>()),
                (false, pick_loops::<L, false>()),
            ] {
                let twins: Vec<_> = loops
                    .into_iter()
                    .flatten()
                    .map(|run| {
                        let mut out = Elements::zeroed(L::DTYPE.bits(), n);
                        let job = Job {
                            kind,
                            src_type: L::DTYPE,
                            dst_type: L::DTYPE,
                            sources: &sources,
                            out: &mut out,
                            out_cols: cols,
                            domain: (rows, cols),
                        };
                        (run(job), out)
                    })
                    .collect();
                let context = format!("{:?} {kind:?}", L::DTYPE);
                assert!(twins.iter().all(|t| *t == twins[0]), "{context}");
                assert_eq!(twins[0].0, Ok(pair_flags), "{context}");
                let pick = if max { Pick::Max } else { Pick::Min };
                let pairs = (0..rows).flat_map(|r| (0..cols).map(move |c| (r, c)));
                for (r, c) in pairs {
                    let (x, y) = (a.get(r * cols + c), b_at(r, c));
                    let v = L::pick(pick, Carrier::from_bits(x), Carrier::from_bits(y)).0;
                    assert_eq!(
                        twins[0].1.get(r * cols + c),
                        v.bits(),
                        "{context} [{r}, {c}]"
                    );
                }
            }
        }
    }

    #[test]
    fn min_max_twins_agree() {
        twins_agree::<Fp32>(&[
            0x7FC0_0000,
            0x7F80_0001,
            0xFFC0_0001,
            0x8000_0000,
            0,
            0x7F80_0000,
        ]);
        twins_agree::<Fp16>(&[0x7E00, 0x7C01, 0xFE01, 0x8000, 0, 0xFC00]);
        twins_agree::<S8>(&[0x80, 0x7F, 0xFF, 0]);
    }

    #[test]
    fn min_max_twins_agree_without_nans() {
        twins_agree::<Fp32>(&[0x8000_0000, 0, 0x7F80_0000, 0xFF80_0000, 1, 0x8000_0001]);
        twins_agree::<Fp16>(&[0x8000, 0, 0x7C00, 0xFC00, 1]);
    }
}
