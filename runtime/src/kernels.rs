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
use crate::lines::LineVec;
use crate::numerics::compare::CompareElement;
use crate::numerics::convert::Conversion;
use crate::numerics::format::format_of;
use crate::numerics::lane::{lane_fn, with_lane, Lane, LaneVisitor};
use crate::numerics::minmax::Pick;
use crate::numerics::reduce::fold;
use crate::numerics::UnaryElement;
use crate::numerics::{exp, Flags};
use ptoc_isa::{Axis, CmpMode, DataType, ElementOp, NumericControl, OpKind, Reduction};
use std::mem::MaybeUninit;

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

    /// The first `len` elements of row `r`, for each of the rows `0..rows`; an error unless
    /// the storage holds them all. A function of the row, not an iterator: the row loops
    /// ([`OutRows::write_rows`]) index their operands, where zipped row iterators left an
    /// out-of-line `Zip::next` call per row (about a ninth of a 16×16 bundle, callgrind).
    #[inline(always)]
    fn whole(
        &self,
        (rows, len): (usize, usize),
    ) -> Result<impl Fn(usize) -> &'a [C] + Copy + use<'a, C>, KernelError> {
        if rows > 0 {
            self.row(rows - 1, len)?;
        }
        let (elements, cols) = (self.elements, self.cols);
        // Every row up to the last one checked above is in the storage.
        Ok(
            #[inline(always)]
            move |r: usize| &elements[r * cols..r * cols + len],
        )
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
    #[error("TCMP without a comparison mode")]
    NoCmpMode,
}

/// One op's work: sources in B.IOT order, an output buffer with its row stride, and the domain.
/// A tile-scalar op's scalar is its last source, a 1×1 view ([`scalar_elements`]).
///
/// `domain` is (valid rows, valid cols) of the full-shape operand: the destination for binary,
/// unary and expand ops and TTRANS, the source for reductions. Reductions write `out[r][0]`
/// (row) or `out[0][c]` (column); everything else writes `out[r][c]` over the domain.
pub struct Job<'a, 'o> {
    pub kind: OpKind,
    /// The BSTART DataType (the source type).
    pub src_type: DataType,
    /// The destination type (differs from `src_type` only for mixed EXPDIF, ARG reductions and
    /// TCVT).
    pub dst_type: DataType,
    /// B.DATR RMode and Sat (read by TCVT only).
    pub control: NumericControl,
    /// TCMP's relation (B.DATR CMode); `None` for every other op.
    pub cmode: Option<CmpMode>,
    pub sources: &'a [View<'a>],
    pub out: &'o mut Elements,
    pub out_cols: usize,
    pub domain: (usize, usize),
}

/// A tile-scalar op's scalar operand: the low element-width bits of the GPR value `raw` as one
/// `dtype` element (`TileRawElementValue`, docs/isa.md §14), to pass as the job's last source
/// (`View::new(&elements, 1)`).
pub fn scalar_elements(dtype: DataType, raw: u64) -> Elements {
    let mut e = Elements::zeroed(dtype.bits(), 1);
    e.set(0, OpKind::scalar_element(dtype, raw));
    e
}

/// The first zero divisor an integer DIV would use, as (row, col) in the divisor tile (the
/// scalar of TDIVS: (0, 0)).
pub fn first_zero_divisor(job: &Job) -> Result<Option<(usize, usize)>, KernelError> {
    let (vr, vc) = job.domain;
    let (rows, cols) = match job.kind {
        OpKind::Binary(ElementOp::Div) => (vr, vc),
        OpKind::Expand(Axis::Row, Some(ElementOp::Div)) => (vr, 1),
        OpKind::Expand(Axis::Col, Some(ElementOp::Div)) => (1, vc),
        OpKind::TileScalar(ElementOp::Div) => (1, 1),
        OpKind::Binary(_)
        | OpKind::Expand(..)
        | OpKind::TileScalar(_)
        | OpKind::FillScalar
        | OpKind::Reduce(..)
        | OpKind::Unary(_)
        | OpKind::Convert
        | OpKind::Move
        | OpKind::Transpose
        | OpKind::Compare
        | OpKind::Select
        | OpKind::Matmul { .. } => return Ok(None),
    };
    if !job.src_type.is_integer() {
        return Ok(None);
    }
    let divisor = *job.sources.get(1).ok_or(KernelError::Arity(job.kind))?;
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
            OpKind::Unary(op) => {
                let element = UnaryElement::of(op, src).ok_or(unsupported)?;
                map_unary(job, |a: L::Carrier| {
                    let (v, flags) = element.apply(a.bits());
                    (L::Carrier::from_bits(v), flags)
                })
            }
            // TMOV copies bits; the interpreter runs it as a TLSU op, this serves other callers.
            OpKind::Move => map_unary(job, |a: L::Carrier| (a, 0)),
            OpKind::Transpose => transpose::<L::Carrier>(job),
            OpKind::Convert => {
                let conversion = Conversion::of(src, dst, job.control).ok_or(unsupported)?;
                // The destination's carrier width (every arithmetic type is 8 to 64 bits wide).
                match dst.bits() {
                    8 => map_convert::<L::Carrier, u8>(job, conversion),
                    16 => map_convert::<L::Carrier, u16>(job, conversion),
                    32 => map_convert::<L::Carrier, u32>(job, conversion),
                    _ => map_convert::<L::Carrier, u64>(job, conversion),
                }
            }
            OpKind::Binary(ElementOp::ExpDif)
            | OpKind::Expand(_, Some(ElementOp::ExpDif))
            | OpKind::TileScalar(ElementOp::ExpDif) => {
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
            OpKind::FillScalar => fill_scalar::<L::Carrier>(job),
            OpKind::Binary(ElementOp::Max)
            | OpKind::Expand(_, Some(ElementOp::Max))
            | OpKind::TileScalar(ElementOp::Max) => map_pick::<L, true>(job),
            OpKind::Binary(ElementOp::Min)
            | OpKind::Expand(_, Some(ElementOp::Min))
            | OpKind::TileScalar(ElementOp::Min) => map_pick::<L, false>(job),
            OpKind::Binary(op) | OpKind::Expand(_, Some(op)) | OpKind::TileScalar(op) => {
                let f = lane_fn::<L>(op).ok_or(unsupported)?;
                map_binary::<L::Carrier, L::Carrier>(job, on_bits(f))
            }
            // ARG results are U32 or S32 carriers; the other reductions keep the source type.
            OpKind::Reduce(axis, red) if matches!(red, Reduction::ArgMax | Reduction::ArgMin) => {
                reduce::<L, u32>(job, axis, red)
            }
            OpKind::Reduce(axis, red) => reduce::<L, L::Carrier>(job, axis, red),
            // One predicate bit per element, stored 0/1 on U8 carriers (crate::tile).
            OpKind::Compare => {
                let mode = job.cmode.ok_or(KernelError::NoCmpMode)?;
                let element = CompareElement::of(mode, src).ok_or(unsupported)?;
                map_binary::<L::Carrier, u8>(job, |a: L::Carrier, b: L::Carrier| {
                    let (bit, flags) = element.apply(a.bits(), b.bits());
                    (u8::from(bit), flags)
                })
            }
            OpKind::Select => select::<L::Carrier>(job),
            // The matrix ops run on the CUBE path (`crate::cube`), not as element kernels.
            OpKind::Matmul { .. } => Err(unsupported),
        }
    }
}

/// TEXPANDS: the scalar (a 1×1 view, already cut to the element width) in every element of the
/// domain; a bit copy with no status (docs/isa.md §14).
fn fill_scalar<C: Carrier>(mut job: Job) -> Result<Flags, KernelError> {
    expect_sources(&job, 1)?;
    let (vr, vc) = job.domain;
    let x = job.sources[0].rows::<C>()?.row(0, 1)?[0];
    OutRows::of(&mut job)?.write_rows(
        (vr, vc),
        #[inline(always)]
        |_| std::iter::repeat_n((x, NoStatus), vc),
    )?;
    Ok(0)
}

/// TTRANS: `out[r][c]` is the source's `[c][r]`, bits unchanged and no status
/// (docs/isa.md §19). The domain is the destination's valid shape, so the source is read over
/// `domain.1` rows of `domain.0` elements.
fn transpose<C: Carrier>(mut job: Job) -> Result<Flags, KernelError> {
    expect_sources(&job, 1)?;
    let (vr, vc) = job.domain;
    let src = job.sources[0].rows::<C>()?.whole((vc, vr))?;
    OutRows::of(&mut job)?.write_rows(
        (vr, vc),
        #[inline(always)]
        |r| (0..vc).map(move |c| (src(c)[r], NoStatus)),
    )?;
    Ok(0)
}

/// TSEL: `out[r][c]` is the true source's bits where the predicate element is 1, else the false
/// source's; a bit copy with no status (docs/isa.md §1.9).
fn select<C: Carrier>(mut job: Job) -> Result<Flags, KernelError> {
    expect_sources(&job, 3)?;
    let domain = job.domain;
    let pred = job.sources[0].rows::<u8>()?.whole(domain)?;
    let on = job.sources[1].rows::<C>()?.whole(domain)?;
    let off = job.sources[2].rows::<C>()?.whole(domain)?;
    OutRows::of(&mut job)?.write_rows(
        domain,
        #[inline(always)]
        |r| {
            pred(r)
                .iter()
                .zip(on(r))
                .zip(off(r))
                .map(|((&bit, &t), &f)| (if bit & 1 == 1 { t } else { f }, NoStatus))
        },
    )?;
    Ok(0)
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

/// The MIN/MAX loop. Operands without NaNs (the usual case) raise nothing and take the
/// [`Lane::pick_ordered`] half of the rule, about half the vector instructions. The loop runs
/// that half while it notes whether any operand is a NaN (a compare and a mask OR per vector,
/// cheaper than a separate pass over the operands), and only then runs again with the whole
/// rule. NV, the only status, comes from each operand alone ([`Lane::pick_flag`]), so it is
/// then a scan of the operands.
#[inline(always)]
fn pick_loop<L: Lane, const MAX: bool>(mut job: Job) -> Result<Flags, KernelError> {
    let pick = if MAX { Pick::Max } else { Pick::Min };
    let operands = BinaryOperands::<L::Carrier>::of(&job)?;
    let mut out = OutRows::of(&mut job)?;
    // An expand's second operand is a row or column, a tile-scalar op's the scalar, checked
    // apart; a binary op's is a tile.
    let nan = if matches!(operands.kind, OpKind::Expand(..) | OpKind::TileScalar(_)) {
        let b_nan = operands
            .b
            .fold_rect(operands.b_domain(), any_nan::<L>, AnyNan::join)?;
        let a_nan = operands.map(&mut out, |a, b| {
            (L::pick_ordered(pick, a, b), AnyNan(L::is_nan(a)))
        })?;
        a_nan.join(b_nan.unwrap_or(AnyNan::NONE))
    } else {
        operands.map(&mut out, |a, b| {
            (
                L::pick_ordered(pick, a, b),
                AnyNan(L::is_nan(a) | L::is_nan(b)),
            )
        })?
    };
    if !nan.0 {
        return Ok(0);
    }
    operands.map(&mut out, |a, b| (L::pick(pick, a, b).0, NoStatus))?;
    operands.pick_flags::<L>()
}

/// Whether any of `xs` is a NaN.
#[inline(always)]
fn any_nan<L: Lane>(xs: &[L::Carrier]) -> AnyNan {
    AnyNan(xs.iter().fold(false, |any, &x| any | L::is_nan(x)))
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

/// Bytes of operand per block of the whole-rows loop ([`OutRows::write_blocks`]): four 512-bit
/// vectors, so that a block's fixed set-up weighs little.
const BLOCK_BYTES: usize = 256;

/// Output rows of the destination at carrier width `D`. The kernel starts from empty storage
/// (kept allocated) and writes its rows in one go, so the interpreter's destination, which starts
/// with room for the tile, is never zeroed before the kernel overwrites it.
struct OutRows<'o, D> {
    elements: &'o mut LineVec<D>,
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

    /// Room for `whole` elements, after emptying the storage (kept allocated); the caller
    /// initialises what it then marks as the length.
    #[inline(always)]
    fn room(&mut self, whole: usize) -> &mut [MaybeUninit<D>] {
        self.elements.clear();
        self.elements.reserve_total(whole);
        &mut self.elements.spare_capacity_mut()[..whole]
    }

    /// Rows `0..rows`: row `r` starts with the `len` values of `values(r)` and ends with zeros
    /// (padding, which publication rewrites). Returns what the values gathered; replaces
    /// whatever the storage held. The rows are cut from one block of room, so a row costs little
    /// more than its values (a 128-column row is only a few vector iterations). Callers mark
    /// `values` `#[inline(always)]`: left to the optimiser, it was sometimes called out of line,
    /// and its row loop then lost vectorisation (callgrind, 16×16 MAX: 1.4k → 5.9k instructions).
    #[inline(always)]
    fn write_rows<G: Gather, I: Iterator<Item = (D, G)>>(
        &mut self,
        (rows, len): (usize, usize),
        values: impl Fn(usize) -> I,
    ) -> Result<G, KernelError> {
        let cols = self.cols;
        let whole = rows.checked_mul(cols).ok_or(KernelError::Geometry)?;
        if len > cols || (cols == 0 && rows > 0) {
            return Err(KernelError::Geometry);
        }
        let room = self.room(whole);
        let mut gathered = G::NONE;
        // `rows` rows of `cols` slots (none if `rows` is 0).
        for (r, row) in room.chunks_exact_mut(cols.max(1)).enumerate() {
            gathered = gathered.join(fill_row(row, len, values(r)));
        }
        // SAFETY: every slot of the `whole` elements was initialised just above.
        unsafe { self.elements.set_len(whole) };
        Ok(gathered)
    }

    /// Rows `0..rows`, each whole (values in every column), written as one run of `N`-element
    /// blocks: element `i` of block `k` is `f` of the operands `operands` gives it. Returns what
    /// the values gathered; replaces whatever the storage held. Fixed-size blocks in one flat
    /// loop cost no per-row loop set-up, which for a few vectors per row weighs as much as the
    /// vectors.
    #[inline(always)]
    fn write_blocks<S, B: BlockOperands<S, N>, G: Gather, const N: usize>(
        &mut self,
        rows: usize,
        operands: B,
        f: &impl Fn(S, S) -> (D, G),
    ) -> Result<G, KernelError> {
        let whole = rows.checked_mul(self.cols).ok_or(KernelError::Geometry)?;
        if !whole.is_multiple_of(N) || whole / N > operands.blocks() {
            return Err(KernelError::Geometry);
        }
        let (room, _) = self.room(whole).as_chunks_mut::<N>();
        let mut gathered = G::NONE;
        for (k, slots) in room.iter_mut().enumerate() {
            let block = operands.block(k);
            gathered = gathered.join(fill_block(slots, |i| {
                let (x, y) = B::at(block, i);
                f(x, y)
            }));
        }
        // SAFETY: every slot of the `whole` elements was initialised just above.
        unsafe { self.elements.set_len(whole) };
        Ok(gathered)
    }
}

/// Where the blocks of a whole-rows loop ([`OutRows::write_blocks`]) read their two operands.
trait BlockOperands<S, const N: usize>: Copy {
    /// What one block reads.
    type Block: Copy;
    /// How many blocks the operands hold.
    fn blocks(self) -> usize;
    /// Block `k`'s operands (`k` below [`BlockOperands::blocks`]).
    fn block(self, k: usize) -> Self::Block;
    /// The operands of element `i` of a block.
    fn at(block: Self::Block, i: usize) -> (S, S);
}

/// A binary op's: the same block of both tiles.
#[derive(Clone, Copy)]
struct TileBlocks<'a, S, const N: usize> {
    a: &'a [[S; N]],
    b: &'a [[S; N]],
}

impl<'a, S: Copy, const N: usize> BlockOperands<S, N> for TileBlocks<'a, S, N> {
    type Block = (&'a [S; N], &'a [S; N]);
    #[inline(always)]
    fn blocks(self) -> usize {
        self.a.len().min(self.b.len())
    }
    #[inline(always)]
    fn block(self, k: usize) -> Self::Block {
        (&self.a[k], &self.b[k])
    }
    #[inline(always)]
    fn at((x, y): Self::Block, i: usize) -> (S, S) {
        (x[i], y[i])
    }
}

/// A row expand's: the tile's block and the column's element for its row.
#[derive(Clone, Copy)]
struct RowBlocks<'a, S, const N: usize> {
    a: &'a [[S; N]],
    column: &'a [S],
    /// log2 of the blocks per row.
    shift: u32,
}

impl<'a, S: Copy, const N: usize> BlockOperands<S, N> for RowBlocks<'a, S, N> {
    type Block = (&'a [S; N], S);
    #[inline(always)]
    fn blocks(self) -> usize {
        self.a.len().min(self.column.len() << self.shift)
    }
    #[inline(always)]
    fn block(self, k: usize) -> Self::Block {
        (&self.a[k], self.column[k >> self.shift])
    }
    #[inline(always)]
    fn at((x, y): Self::Block, i: usize) -> (S, S) {
        (x[i], y)
    }
}

/// A column expand's: the tile's block and the row's block in the same columns.
#[derive(Clone, Copy)]
struct ColBlocks<'a, S, const N: usize> {
    a: &'a [[S; N]],
    /// The row's blocks (a power of two of them).
    row: &'a [[S; N]],
}

impl<'a, S: Copy, const N: usize> BlockOperands<S, N> for ColBlocks<'a, S, N> {
    type Block = (&'a [S; N], &'a [S; N]);
    #[inline(always)]
    fn blocks(self) -> usize {
        if self.row.is_empty() {
            0
        } else {
            self.a.len()
        }
    }
    #[inline(always)]
    fn block(self, k: usize) -> Self::Block {
        (&self.a[k], &self.row[k & (self.row.len() - 1)])
    }
    #[inline(always)]
    fn at((x, y): Self::Block, i: usize) -> (S, S) {
        (x[i], y[i])
    }
}

/// A tile-scalar op's: the tile's block and the scalar.
#[derive(Clone, Copy)]
struct ScalarBlocks<'a, S, const N: usize> {
    a: &'a [[S; N]],
    x: S,
}

impl<'a, S: Copy, const N: usize> BlockOperands<S, N> for ScalarBlocks<'a, S, N> {
    type Block = (&'a [S; N], S);
    #[inline(always)]
    fn blocks(self) -> usize {
        self.a.len()
    }
    #[inline(always)]
    fn block(self, k: usize) -> Self::Block {
        (&self.a[k], self.x)
    }
    #[inline(always)]
    fn at((x, y): Self::Block, i: usize) -> (S, S) {
        (x[i], y)
    }
}

/// Write every slot of `slots` with its value (so all of them may be marked initialised);
/// returns what the values gathered.
#[inline(always)]
fn fill_block<D: Carrier, G: Gather, const N: usize>(
    slots: &mut [MaybeUninit<D>; N],
    value: impl Fn(usize) -> (D, G),
) -> G {
    let mut gathered = G::NONE;
    for (i, slot) in slots.iter_mut().enumerate() {
        let (x, g) = value(i);
        slot.write(x);
        gathered = gathered.join(g);
    }
    gathered
}

/// Write the first `len` slots of `row` from `values` and zeros after them (all of them if
/// `values` ends early); returns what the values gathered. A function of its own so that the
/// row's exclusive borrow reaches the optimiser as "aliases nothing", which spares the vector
/// loop a run-time overlap check against the operands.
#[inline(always)]
fn fill_row<D: Carrier, G: Gather>(
    row: &mut [MaybeUninit<D>],
    len: usize,
    values: impl Iterator<Item = (D, G)>,
) -> G {
    let mut gathered = G::NONE;
    let (mut written, len) = (0, len.min(row.len()));
    for (slot, (x, g)) in row[..len].iter_mut().zip(values) {
        slot.write(x);
        gathered = gathered.join(g);
        written += 1;
    }
    for slot in &mut row[written..] {
        slot.write(D::ZERO);
    }
    gathered
}

/// TCVT: each element converted from carrier `S` to carrier `D`.
fn map_convert<S: Carrier, D: Carrier>(
    job: Job,
    conversion: Conversion,
) -> Result<Flags, KernelError> {
    map_unary(job, |a: S| {
        let (v, flags) = conversion.apply(a.bits());
        (D::from_bits(v), flags)
    })
}

/// `out[r][c] = f(src[r][c])` over the domain (carrier `S` in, `D` out).
fn map_unary<S: Carrier, D: Carrier>(
    mut job: Job,
    f: impl Fn(S) -> (D, Flags),
) -> Result<Flags, KernelError> {
    expect_sources(&job, 1)?;
    let (vr, vc) = job.domain;
    let src = job.sources[0].rows::<S>()?.whole((vr, vc))?;
    let status = OutRows::<D>::of(&mut job)?.write_rows(
        (vr, vc),
        #[inline(always)]
        |r| {
            src(r).iter().map(|&x| {
                let (v, flags) = f(x);
                (v, Status::from(flags))
            })
        },
    )?;
    Ok(status.flags())
}

/// Binary and expand ops: `out[r][c] = f(a[r][c], b)` over the domain.
#[inline(always)]
fn map_binary<S: Carrier, D: Carrier>(
    mut job: Job,
    f: impl Fn(S, S) -> (D, Flags),
) -> Result<Flags, KernelError> {
    let operands = BinaryOperands::of(&job)?;
    let mut out = OutRows::of(&mut job)?;
    let status = operands.map(&mut out, |a, b| {
        let (v, flags) = f(a, b);
        (v, Status::from(flags))
    })?;
    Ok(status.flags())
}

/// The operands of a binary, expand or tile-scalar op at carrier width `S`, over a `rows × len`
/// domain; the second one is read at `[r][c]` (binary), `[r][0]` (row expand), `[0][c]` (column
/// expand) or `[0][0]` (the scalar).
struct BinaryOperands<'a, S> {
    kind: OpKind,
    a: Rows<'a, S>,
    b: Rows<'a, S>,
    rows: usize,
    len: usize,
}

impl<'a, S: Carrier> BinaryOperands<'a, S> {
    fn of(job: &Job<'a, '_>) -> Result<BinaryOperands<'a, S>, KernelError> {
        expect_sources(job, 2)?;
        let (rows, len) = job.domain;
        Ok(BinaryOperands {
            kind: job.kind,
            a: job.sources[0].rows()?,
            b: job.sources[1].rows()?,
            rows,
            len,
        })
    }

    /// `out[r][c] = f(a[r][c], b)` over the domain, gathering what `f` reports.
    #[inline(always)]
    fn map<D: Carrier, G: Gather>(
        &self,
        out: &mut OutRows<D>,
        f: impl Fn(S, S) -> (D, G),
    ) -> Result<G, KernelError> {
        let f = &f;
        if let Some(gathered) = self.map_blocks(out, f) {
            return gathered;
        }
        let domain = (self.rows, self.len);
        let a = self.a.whole(domain)?;
        match self.kind {
            OpKind::Expand(Axis::Row, _) => {
                let b = self.b.whole((self.rows, 1))?;
                out.write_rows(
                    domain,
                    #[inline(always)]
                    |r| {
                        let x = b(r)[0];
                        a(r).iter().map(move |&y| f(y, x))
                    },
                )
            }
            OpKind::Expand(Axis::Col, _) => {
                let brow = self.b.row(0, self.len)?;
                out.write_rows(
                    domain,
                    #[inline(always)]
                    |r| a(r).iter().zip(brow).map(|(&y, &x)| f(y, x)),
                )
            }
            OpKind::TileScalar(_) => {
                let x = self.b.row(0, 1)?[0];
                out.write_rows(
                    domain,
                    #[inline(always)]
                    |r| a(r).iter().map(move |&y| f(y, x)),
                )
            }
            OpKind::Binary(_)
            | OpKind::FillScalar
            | OpKind::Reduce(..)
            | OpKind::Unary(_)
            | OpKind::Convert
            | OpKind::Move
            | OpKind::Transpose
            | OpKind::Compare
            | OpKind::Select
            | OpKind::Matmul { .. } => {
                let b = self.b.whole(domain)?;
                out.write_rows(
                    domain,
                    #[inline(always)]
                    |r| a(r).iter().zip(b(r)).map(|(&y, &x)| f(y, x)),
                )
            }
        }
    }

    /// [`Self::map`] as one loop over blocks of [`BLOCK_BYTES`] of operand when the domain is
    /// whole rows of a power-of-two number of blocks (the usual large tile: physical columns are
    /// a power of two) and each operand holds what the domain reads; `None` otherwise. Block `k`
    /// of a row expand reads the column at row `k / blocks per row`, of a column expand the row's
    /// block `k mod blocks per row`.
    #[inline(always)]
    fn map_blocks<D: Carrier, G: Gather>(
        &self,
        out: &mut OutRows<D>,
        f: &impl Fn(S, S) -> (D, G),
    ) -> Option<Result<G, KernelError>> {
        // Carriers are 1, 2, 4 or 8 bytes wide.
        match size_of::<S>() {
            1 => self.map_blocks_of::<D, G, BLOCK_BYTES>(out, f),
            2 => self.map_blocks_of::<D, G, { BLOCK_BYTES / 2 }>(out, f),
            4 => self.map_blocks_of::<D, G, { BLOCK_BYTES / 4 }>(out, f),
            _ => self.map_blocks_of::<D, G, { BLOCK_BYTES / 8 }>(out, f),
        }
    }

    /// [`Self::map_blocks`] with blocks of `N` elements.
    #[inline(always)]
    fn map_blocks_of<D: Carrier, G: Gather, const N: usize>(
        &self,
        out: &mut OutRows<D>,
        f: &impl Fn(S, S) -> (D, G),
    ) -> Option<Result<G, KernelError>> {
        let (rows, cols) = (self.rows, self.len);
        let per_row = cols / N;
        let whole_rows = self.a.cols == cols && out.cols == cols;
        if !whole_rows || !cols.is_multiple_of(N) || !per_row.is_power_of_two() {
            return None;
        }
        let whole = rows.checked_mul(cols)?;
        let (a, _) = self.a.elements.get(..whole)?.as_chunks::<N>();
        Some(match self.kind {
            OpKind::Expand(Axis::Row, _) => {
                let column = self.b.elements.get(..rows).filter(|_| self.b.cols == 1)?;
                let shift = per_row.trailing_zeros();
                out.write_blocks(rows, RowBlocks { a, column, shift }, f)
            }
            OpKind::Expand(Axis::Col, _) => {
                let (row, _) = self.b.elements.get(..cols)?.as_chunks::<N>();
                out.write_blocks(rows, ColBlocks { a, row }, f)
            }
            OpKind::TileScalar(_) => {
                let x = *self.b.elements.first()?;
                out.write_blocks(rows, ScalarBlocks { a, x }, f)
            }
            OpKind::Binary(_)
            | OpKind::FillScalar
            | OpKind::Reduce(..)
            | OpKind::Unary(_)
            | OpKind::Convert
            | OpKind::Move
            | OpKind::Transpose
            | OpKind::Compare
            | OpKind::Select
            | OpKind::Matmul { .. } => {
                let b = self
                    .b
                    .elements
                    .get(..whole)
                    .filter(|_| self.b.cols == cols)?;
                let (b, _) = b.as_chunks::<N>();
                out.write_blocks(rows, TileBlocks { a, b }, f)
            }
        })
    }

    /// The rectangle of the second operand that the domain reads.
    fn b_domain(&self) -> (usize, usize) {
        match self.kind {
            OpKind::Expand(Axis::Row, _) => (self.rows, 1),
            OpKind::Expand(Axis::Col, _) => (self.rows.min(1), self.len),
            OpKind::TileScalar(_) => (self.rows.min(1), self.len.min(1)),
            OpKind::Binary(_)
            | OpKind::FillScalar
            | OpKind::Reduce(..)
            | OpKind::Unary(_)
            | OpKind::Convert
            | OpKind::Move
            | OpKind::Transpose
            | OpKind::Compare
            | OpKind::Select
            | OpKind::Matmul { .. } => (self.rows, self.len),
        }
    }

    /// The OR of [`Lane::pick_flag`] over every operand element the domain reads.
    fn pick_flags<L: Lane<Carrier = S>>(&self) -> Result<Flags, KernelError> {
        let (rows, len) = (self.rows, self.len);
        let b_domain = self.b_domain();
        let flags = |xs: &[S]| {
            xs.iter()
                .fold(Status::NONE, |acc, &x| acc.join(L::pick_flag(x).into()))
        };
        let a = self.a.fold_rect((rows, len), flags, Status::join)?;
        let b = self.b.fold_rect(b_domain, flags, Status::join)?;
        let both = [a, b]
            .into_iter()
            .flatten()
            .fold(Status::NONE, Status::join);
        Ok(both.flags())
    }
}

/// What an element loop gathers from the elements it computes besides their values, joined
/// over all of them.
trait Gather: Copy {
    /// What no element contributes.
    const NONE: Self;
    fn join(self, other: Self) -> Self;
}

/// Status flags, gathered 32 bits wide: a loop narrowing every lane's flags to a byte does not
/// vectorise.
#[derive(Clone, Copy)]
struct Status(u32);

impl Status {
    fn flags(self) -> Flags {
        self.0 as Flags
    }
}

impl From<Flags> for Status {
    fn from(flags: Flags) -> Status {
        Status(u32::from(flags))
    }
}

impl Gather for Status {
    const NONE: Status = Status(0);
    #[inline(always)]
    fn join(self, other: Status) -> Status {
        Status(self.0 | other.0)
    }
}

/// Whether any element is a NaN.
#[derive(Clone, Copy)]
struct AnyNan(bool);

impl Gather for AnyNan {
    const NONE: AnyNan = AnyNan(false);
    #[inline(always)]
    fn join(self, other: AnyNan) -> AnyNan {
        AnyNan(self.0 | other.0)
    }
}

/// Nothing gathered.
#[derive(Clone, Copy)]
struct NoStatus;

impl Gather for NoStatus {
    const NONE: NoStatus = NoStatus;
    #[inline(always)]
    fn join(self, _: NoStatus) -> NoStatus {
        NoStatus
    }
}

/// TROWEXPAND/TCOLEXPAND: bit copies of the broadcast source, no status.
fn copy_broadcast<C: Carrier>(mut job: Job, axis: Axis) -> Result<Flags, KernelError> {
    expect_sources(&job, 1)?;
    let (vr, vc) = job.domain;
    let b = job.sources[0].rows::<C>()?;
    let mut out = OutRows::of(&mut job)?;
    match axis {
        Axis::Row => {
            let column = b.whole((vr, 1))?;
            out.write_rows(
                (vr, vc),
                #[inline(always)]
                |r| std::iter::repeat((column(r)[0], NoStatus)),
            )?
        }
        Axis::Col => {
            let brow = b.row(0, vc)?;
            out.write_rows(
                (vr, vc),
                #[inline(always)]
                |_| brow.iter().map(|&x| (x, NoStatus)),
            )?
        }
    };
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
    let folded = |xs: &mut dyn Iterator<Item = u64>| {
        let (v, flags) = fold::<L>(red, xs);
        (D::from_bits(v), Status::from(flags))
    };
    let status = match axis {
        Axis::Row => {
            let row = src.whole((vr, vc))?;
            out.write_rows(
                (vr, 1),
                #[inline(always)]
                |r| std::iter::once(folded(&mut row(r).iter().map(|x| x.bits()))),
            )?
        }
        Axis::Col => {
            // Every row must hold the domain's columns before the strided walk.
            if vr > 0 {
                src.row(vr - 1, vc)?;
            }
            let column = |c: usize| (0..vr).map(move |r| src.elements[r * src.cols + c].bits());
            out.write_rows(
                (1, vc),
                #[inline(always)]
                |_| (0..vc).map(|c| folded(&mut column(c))),
            )?
        }
    };
    Ok(status.flags())
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
        // An odd row length (the per-row loop) and whole rows of several blocks (the block loop).
        for (rows, cols) in [(5, 37), (3, 512)] {
            twins_agree_on::<L>(specials, nan_free, rows, cols);
        }
    }

    fn twins_agree_on<L: Lane>(specials: &[u64], nan_free: bool, rows: usize, cols: usize) {
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
                OpKind::Binary(_)
                | OpKind::TileScalar(_)
                | OpKind::FillScalar
                | OpKind::Reduce(..)
                | OpKind::Unary(_)
                | OpKind::Convert
                | OpKind::Move
                | OpKind::Transpose
                | OpKind::Compare
                | OpKind::Select
                | OpKind::Matmul { .. } => full_b.get(r * cols + c),
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
                            control: NumericControl::default(),
                            sources: &sources,
                            out: &mut out,
                            out_cols: cols,
                            domain: (rows, cols),
                            cmode: None,
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

    /// A NaN in only one operand, either one, of a binary op or an expand still takes the whole
    /// rule: the other operand's value and NV for a signalling NaN (docs/isa.md §1.8), not the
    /// order-key pick (which would return the NaN).
    #[test]
    fn a_nan_in_one_operand_takes_the_whole_rule() {
        for (rows, cols) in [(3, 20), (2, 128)] {
            a_nan_in_one_operand_on(rows, cols);
        }
    }

    fn a_nan_in_one_operand_on(rows: usize, cols: usize) {
        let one = 1.0f32.to_bits() as u64;
        let signalling = 0x7F80_0001;
        let tile = |len: usize, nan_at: Option<usize>| {
            let mut e = Elements::zeroed(32, len);
            (0..len).for_each(|i| e.set(i, if Some(i) == nan_at { signalling } else { one }));
            e
        };
        // The second operand as each op reads it: a tile, a column, a row.
        for (kind, b_len, b_cols) in [
            (OpKind::Binary(ElementOp::Max), rows * cols, cols),
            (OpKind::Expand(Axis::Row, Some(ElementOp::Max)), rows, 1),
            (OpKind::Expand(Axis::Col, Some(ElementOp::Max)), cols, cols),
        ] {
            for (a_nan, b_nan) in [(Some(rows * cols - 1), None), (None, Some(b_len - 1))] {
                let (a, b) = (tile(rows * cols, a_nan), tile(b_len, b_nan));
                let sources = [View::new(&a, cols), View::new(&b, b_cols)];
                for run in pick_loops::<Fp32, true>().into_iter().flatten() {
                    let mut out = Elements::with_capacity(32, rows * cols);
                    let job = Job {
                        kind,
                        src_type: DataType::FP32,
                        dst_type: DataType::FP32,
                        control: NumericControl::default(),
                        sources: &sources,
                        out: &mut out,
                        out_cols: cols,
                        domain: (rows, cols),
                        cmode: None,
                    };
                    assert_eq!(run(job), Ok(crate::numerics::NV), "{kind:?}");
                    assert!(out.iter().all(|x| x == one), "{kind:?} {a_nan:?} {b_nan:?}");
                }
            }
        }
    }

    #[test]
    fn min_max_twins_agree_without_nans() {
        twins_agree::<Fp32>(&[0x8000_0000, 0, 0x7F80_0000, 0xFF80_0000, 1, 0x8000_0001]);
        twins_agree::<Fp16>(&[0x8000, 0, 0x7C00, 0xFC00, 1]);
    }
}
