//! `pto-allocate` on GM kernels (README, Kernels over global memory): SizeCodes, hands and source codes for every tile of
//! a kernel with loops, under either target profile (docs/isa.md §9 decisions 1–2, §17).
//!
//! The same words run every iteration, so a B.IOT source code must name the same value at every
//! back edge. Under `queue` naming the pass makes that true by construction:
//! 1. every tile that lives across a loop boundary (read in the body, or defined before the loop
//!    and read after it) becomes a loop-carried value, so tiles cross loops only as carried
//!    values;
//! 2. at loop entry the carried tiles are re-pushed (TMOV), 16 to a hand, in a canonical order,
//!    and at the end of the body the yielded tiles are re-pushed in the same order onto the same
//!    hands: every iteration starts, and the loop exits (after any trip count, zero included),
//!    with the carried values at the same ages;
//! 3. each straight-line stretch is planned by the rule of `queue_plan`: a push goes to a hand
//!    whose oldest entry is dead, else the hand with the fewest live oldest tiles is rotated by
//!    TMOV re-pushes.
//!
//! 4. when that plan could exceed the core's capacity, the kernel is planned again in the order
//!    of `gm_schedule` (a tile's readers close behind it), following the footprint states as it
//!    goes: where a push would not fit, dead tiles are first retired by TMOVs of the smallest
//!    tile the queue names ([`Alloc::retire`]), looking one iteration ahead at a loop's back edge
//!    and entry (docs/isa.md §17, decision 66).
//!
//! Ages are tracked assuming every hand may be full (a tile is reachable while at most 15 newer
//! ones were pushed on its hand), which holds whatever the trip counts. Capacity is proved by an
//! abstract interpretation over the footprint states paths can reach (per hand, each tile's bytes
//! by age; loops to a fixed point, exact while the states are few, merged to per-slot maxima
//! beyond); a kernel that could exceed the core's capacity is a located
//! error.
//!
//! Under `absolute` naming no register is ever freed, so a loop body may produce no tile at all
//! (it may load scalars, store tiles defined before the loop, and carry tiles unchanged).
//!
//! Results, as attributes: on every op that writes a tile `pto.dst` (the code naming it right
//! after its push: `H#1` under queue, its register under absolute), `pto.tsize`, `pto.rows`; on
//! every op that reads tiles `pto.srcs` (the code of each tile operand when it is read,
//! comma-separated); on the kernel `pto.profile` and `pto.pe_mask`.

use crate::allocate::accumulator_of;
use crate::gm_schedule::schedule_block;
use ptoc_ir::alloc_attrs::{DST, PE_MASK, PROFILE, ROWS, SRCS, TSIZE};
#[cfg(test)]
use ptoc_ir::Type;
use ptoc_ir::{Attr, Block, Diagnostic, GmDef, GmKernel, GmOp, GmOpKind, Location, ValueId};
use ptoc_isa::cube::accumulator_clashes;
use ptoc_isa::geometry::LOCAL_REGISTERS;
use ptoc_isa::ops::by_kind;
use ptoc_isa::profile::NamingModel;
use ptoc_isa::{
    Hand, NumericControl, OpKind, PeMask, RegisterFile, ResultKind, SizeCode, Storage, TileReg,
};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// How many tiles of a hand a source code can reach (`T#1`…`T#16`).
const DEPTH: usize = 16;

/// What the allocation of one kernel used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GmStats {
    /// Tile-writing ops (TMOV re-pushes included).
    pub pushes: u64,
    /// TMOV re-pushes the allocator inserted.
    pub moves: u64,
    /// The most capacity any path can have allocated, in bytes.
    pub peak_bytes: u64,
}

/// Allocate `kernel` under `mask` and `naming`, recording the results as attributes. A kernel
/// whose source order does not fit the core is planned again in a scheduled order, retiring
/// dead tiles with cheap pushes (module doc, step 4).
pub fn allocate_gm(
    kernel: &mut GmKernel,
    mask: PeMask,
    naming: NamingModel,
) -> Result<GmStats, Vec<Diagnostic>> {
    allocate_gm_in(kernel, mask, naming, Order::Fitted)
}

/// The op orders [`allocate_gm_in`] may plan a kernel in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// The source's, only.
    AsWritten,
    /// The source's, else a scheduled one with retiring pushes.
    Fitted,
}

/// [`allocate_gm`], in the orders `order` allows.
pub(crate) fn allocate_gm_in(
    kernel: &mut GmKernel,
    mask: PeMask,
    naming: NamingModel,
    order: Order,
) -> Result<GmStats, Vec<Diagnostic>> {
    check_signature(kernel)?;
    let mut body = std::mem::take(&mut kernel.body);
    if naming == NamingModel::Queue {
        carry_live_tiles(kernel, &mut body);
    }
    let mut geometry = HashMap::new();
    let result = geometry_of(kernel, &body, &mut geometry).and_then(|()| {
        let mut pinned = HashSet::new();
        carried_cube_tiles(kernel, &body, &mut pinned);
        let mut alloc = Alloc {
            kernel,
            geometry,
            mask,
            stats: GmStats::default(),
            pinned,
            fit: false,
            plans_left: PLAN_BUDGET,
        };
        match naming {
            NamingModel::Queue => {
                let original = body.clone();
                let values = alloc.kernel.values.len();
                match alloc.plan_queue(&mut body) {
                    Err(Refusal::Capacity(first)) if order == Order::Fitted => {
                        // The source order does not fit: plan again, scheduled, keeping the
                        // capacity in view. Its refusal is the one to report when it is about
                        // capacity too (it says the lower bound); otherwise the first is.
                        body = original;
                        alloc.kernel.values.truncate(values);
                        alloc.stats = GmStats::default();
                        alloc.fit = true;
                        let geometry = &alloc.geometry;
                        let mask = alloc.mask;
                        let footprint = |v: ValueId| {
                            geometry
                                .get(&v)
                                .map_or(0, |g| RegisterFile::footprint(g.0, mask))
                        };
                        schedule_block(&mut body, &footprint);
                        match alloc.plan_queue(&mut body) {
                            Ok(()) => {}
                            Err(Refusal::Capacity(d)) => return Err(d),
                            Err(Refusal::Other(_)) => return Err(first),
                        }
                    }
                    Err(Refusal::Capacity(d) | Refusal::Other(d)) => return Err(d),
                    Ok(()) => {}
                }
            }
            NamingModel::AbsoluteNoFree => {
                let mut file = RegisterFile::with_naming(NamingModel::AbsoluteNoFree);
                let mut regs = HashMap::new();
                alloc.absolute_block(&mut body, &mut file, &mut regs, false)?;
            }
        }
        Ok(alloc.stats)
    });
    kernel.body = body;
    let stats = result.map_err(|d| vec![d])?;
    kernel
        .attrs
        .insert(PROFILE.to_string(), Attr::Str(naming.name().to_string()));
    kernel
        .attrs
        .insert(PE_MASK.to_string(), Attr::Str(mask.to_string()));
    Ok(stats)
}

/// Tiles enter and leave a GM kernel through memory: tile arguments and results are refused.
fn check_signature(kernel: &GmKernel) -> Result<(), Vec<Diagnostic>> {
    let mut errors = Vec::new();
    for (i, &a) in kernel.args.iter().enumerate() {
        if kernel.ty(a).tile().is_some() {
            errors.push(Diagnostic::error(
                kernel.loc.clone(),
                format!(
                    "argument #{i} %{} of a kernel over global memory is a tile; pass a memref \
                     and load it with pto.tload",
                    kernel.display_name(a)
                ),
            ));
        }
    }
    kernel.walk(|op| {
        if matches!(op.kind, GmOpKind::Return)
            && op.operands.iter().any(|&v| kernel.ty(v).tile().is_some())
        {
            errors.push(Diagnostic::error(
                op.loc.clone(),
                "a kernel over global memory returns no tile; store it with pto.tstore",
            ));
        }
    });
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Every value an op of `block` (or of a nested body) reads.
fn reads(block: &Block, out: &mut BTreeSet<ValueId>) {
    for op in &block.ops {
        out.extend(&op.operands);
        if let GmOpKind::For(body) = &op.kind {
            reads(body, out);
        }
    }
}

/// Every value `block` defines (its arguments, op results, nested bodies).
fn defines(block: &Block, out: &mut BTreeSet<ValueId>) {
    out.extend(&block.args);
    for op in &block.ops {
        out.extend(&op.results);
        if let GmOpKind::For(body) = &op.kind {
            defines(body, out);
        }
    }
}

/// Replace every read of `from` in `ops` (nested bodies included) with `to`.
fn replace_uses(ops: &mut [GmOp], from: ValueId, to: ValueId) {
    for op in ops {
        for v in &mut op.operands {
            if *v == from {
                *v = to;
            }
        }
        if let GmOpKind::For(body) = &mut op.kind {
            replace_uses(&mut body.ops, from, to);
        }
    }
}

/// Step 1 of the module doc: make every tile that crosses a loop boundary a carried value,
/// outermost loops first.
fn carry_live_tiles(kernel: &mut GmKernel, block: &mut Block) {
    for i in 0..block.ops.len() {
        let (op, after) = block.ops[i..].split_first_mut().expect("i < len");
        let GmOpKind::For(body) = &mut op.kind else {
            continue;
        };
        let mut inside = BTreeSet::new();
        reads(body, &mut inside);
        let mut defined = BTreeSet::new();
        defines(body, &mut defined);
        let later = Block {
            args: Vec::new(),
            ops: after.to_vec(),
        };
        let mut used_after = BTreeSet::new();
        reads(&later, &mut used_after);
        let mut defined_after = BTreeSet::new();
        defines(&later, &mut defined_after);
        defined_after.extend(&op.results);
        let crossing: Vec<ValueId> = inside
            .difference(&defined)
            .chain(used_after.difference(&defined_after))
            .copied()
            .filter(|&v| kernel.ty(v).tile().is_some())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        for v in crossing {
            let ty = kernel.ty(v).clone();
            let name = kernel.value(v).name.clone();
            let arg = kernel.add_value(name.clone(), ty.clone(), GmDef::BlockArg(body.args.len()));
            body.args.push(arg);
            replace_uses(&mut body.ops, v, arg);
            if let Some(y) = body
                .ops
                .last_mut()
                .filter(|y| matches!(y.kind, GmOpKind::Yield))
            {
                y.operands.push(arg);
            }
            op.operands.push(v);
            let result = kernel.add_value(name, ty, GmDef::Result(op.results.len()));
            op.results.push(result);
            replace_uses(after, v, result);
        }
        carry_live_tiles(kernel, body);
    }
}

/// SizeCode and derived rows of every tile value.
type Geometry = HashMap<ValueId, (SizeCode, u32)>;

fn geometry_of(kernel: &GmKernel, block: &Block, g: &mut Geometry) -> Result<(), Diagnostic> {
    for op in &block.ops {
        let err = |m: String| Diagnostic::error(op.loc.clone(), m);
        let fresh = |v: ValueId| -> Result<(SizeCode, u32), Diagnostic> {
            let ty = kernel
                .ty(v)
                .tile()
                .ok_or_else(|| err("the result is not a tile".into()))?;
            if !ty.is_static() {
                return Err(err(format!("tile type {ty} is not static")));
            }
            ty.smallest_size(0)
                .ok_or_else(|| err(format!("tile type {ty} fits no SizeCode")))
        };
        match &op.kind {
            GmOpKind::Load => {
                let r = op.results[0];
                g.insert(r, fresh(r)?);
            }
            GmOpKind::Tile { info, .. } => {
                let r = op.results[0];
                let full = match info.result {
                    ResultKind::SameAsSource
                    | ResultKind::ExpDif
                    | ResultKind::Converted
                    | ResultKind::Predicate => info
                        .sources
                        .iter()
                        .zip(&op.operands)
                        .find(|(role, _)| {
                            **role != ptoc_isa::ops::OperandRole::Bcast && role.carries_type()
                        })
                        .map(|(_, &v)| v),
                    ResultKind::Reduced
                    | ResultKind::Index
                    | ResultKind::Broadcast
                    | ResultKind::Transposed
                    | ResultKind::Matrix => None,
                };
                let tile_operands: Vec<ValueId> = op
                    .operands
                    .iter()
                    .copied()
                    .filter(|&v| kernel.ty(v).tile().is_some())
                    .collect();
                let rows: Vec<u32> = tile_operands
                    .iter()
                    .filter_map(|v| g.get(v).map(|x| x.1))
                    .collect();
                if matches!(
                    info.kind,
                    OpKind::Binary(_) | OpKind::Compare | OpKind::Select
                ) && rows.windows(2).any(|w| w[0] != w[1])
                {
                    return Err(err(format!(
                        "'{}' op: its sources derive {rows:?} physical rows; a binary op \
                         needs the same on both (give the tiles the same shape)",
                        info.mlir_name()
                    )));
                }
                let geom = match full {
                    Some(src) => {
                        let &(_, src_rows) = g.get(&src).ok_or_else(|| {
                            err("the full-shape operand is not an allocated tile".into())
                        })?;
                        let ty = kernel
                            .ty(r)
                            .tile()
                            .ok_or_else(|| err("no tile result".into()))?;
                        let cols = ty.cols.known().unwrap_or(0);
                        let size = match ty.storage {
                            Storage::Numeric => {
                                SizeCode::giving_rows(src_rows, cols, ty.dtype.bits())
                            }
                            Storage::Predicate => SizeCode::for_predicate(src_rows, cols),
                        };
                        let size = size.ok_or_else(|| {
                            err(format!(
                                "the result must have its source's {src_rows} physical rows, \
                                 which no SizeCode gives for {ty}"
                            ))
                        })?;
                        (size, src_rows)
                    }
                    None => fresh(r)?,
                };
                g.insert(r, geom);
            }
            GmOpKind::For(body) => {
                for c in op.carried() {
                    if let Some(&geom) = g.get(&c.init) {
                        g.insert(c.arg, geom);
                        g.insert(c.result, geom);
                    }
                }
                geometry_of(kernel, body, g)?;
                // A carried tile keeps its SizeCode: the yielded value must have the init's.
                for c in op.carried() {
                    let yielded = c.yielded.and_then(|y| g.get(&y));
                    if let (Some(a), Some(b)) = (g.get(&c.arg), yielded) {
                        if a != b {
                            let loc = body.ops.last().map_or(&op.loc, |y| &y.loc);
                            return Err(Diagnostic::error(
                                loc.clone(),
                                format!(
                                    "a carried tile enters the loop with SizeCode {} ({} \
                                     rows) but is yielded with SizeCode {} ({} rows)",
                                    a.0, a.1, b.0, b.1
                                ),
                            ));
                        }
                    }
                }
            }
            GmOpKind::Store
            | GmOpKind::Constant(_)
            | GmOpKind::Arith(_)
            | GmOpKind::Yield
            | GmOpKind::Return => {}
        }
    }
    Ok(())
}

/// Queue naming, as ages: per hand the values reachable by `H#1`…`H#16`, newest first; `None`
/// for a slot whose tile is unknown (or absent).
#[derive(Clone, Debug, Default)]
struct Queue {
    hands: [Vec<Option<ValueId>>; 4],
}

impl Queue {
    fn code(&self, v: ValueId) -> Option<TileReg> {
        Hand::ALL.into_iter().find_map(|h| {
            let k = self.hands[h as usize].iter().position(|&x| x == Some(v))?;
            TileReg::of(h, k as u8 + 1)
        })
    }

    fn push(&mut self, hand: Hand, v: ValueId) {
        let q = &mut self.hands[hand as usize];
        q.insert(0, Some(v));
        q.truncate(DEPTH);
    }

    /// Push a copy of `v` onto `hand`; the old copy stays allocated but is never read again.
    fn repush(&mut self, hand: Hand, v: ValueId) {
        for slot in self.hands.iter_mut().flatten() {
            if *slot == Some(v) {
                *slot = None;
            }
        }
        self.push(hand, v);
    }

    /// The value the next push onto `hand` retires.
    fn oldest(&self, hand: Hand) -> Option<ValueId> {
        self.hands[hand as usize].get(DEPTH - 1).copied().flatten()
    }
}

/// The footprint of each tile a hand holds, youngest first, on one path.
type Footprints = [Vec<u64>; 4];

/// How many distinct states [`Abstract`] keeps before it merges them.
const MAX_STATES: usize = 64;

/// The footprint states the paths reaching a point can leave: exactly, while there are at most
/// [`MAX_STATES`] (a straight-line loop body reaches a periodic state within 16 iterations, so a
/// loop's states stay few); beyond that, one state holding per hand and age the largest footprint
/// any path leaves there, which over-approximates every path's total.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Abstract {
    states: BTreeSet<Footprints>,
}

impl Default for Abstract {
    fn default() -> Self {
        Abstract {
            states: BTreeSet::from([Footprints::default()]),
        }
    }
}

impl Abstract {
    /// Push a tile of `bytes` on `hand` on every path; the largest total any path then holds.
    fn push(&mut self, hand: Hand, bytes: u64) -> u64 {
        let pushed = self.states.iter().map(|state| {
            let mut state = state.clone();
            let q = &mut state[hand as usize];
            q.insert(0, bytes);
            q.truncate(DEPTH);
            state
        });
        self.states = pushed.collect();
        self.total()
    }

    fn total(&self) -> u64 {
        let sum = |state: &Footprints| state.iter().flatten().sum::<u64>();
        self.states.iter().map(sum).max().unwrap_or(0)
    }

    /// The states of either; merged into one when there are too many, or when `merge` asks
    /// (so a fixed-point iteration is sure to end).
    fn join(&self, other: &Abstract, merge: bool) -> Abstract {
        let states: BTreeSet<Footprints> = self.states.union(&other.states).cloned().collect();
        if states.len() <= MAX_STATES && !merge {
            return Abstract { states };
        }
        let mut out = Footprints::default();
        for state in &states {
            for h in 0..4 {
                let q = &mut out[h];
                for (i, &bytes) in state[h].iter().enumerate() {
                    if i == q.len() {
                        q.push(bytes);
                    } else {
                        q[i] = q[i].max(bytes);
                    }
                }
            }
        }
        Abstract {
            states: BTreeSet::from([out]),
        }
    }
}

struct Alloc<'k> {
    kernel: &'k mut GmKernel,
    geometry: Geometry,
    mask: PeMask,
    stats: GmStats,
    /// The CUBE tiles a loop carries in (its initial values) or yields. A CUBE tile has no TMOV
    /// (docs/isa.md §18.2), so each is pushed onto [`MATRIX_HAND`] and nothing else is pushed
    /// there between it and its loop boundary: the carried tiles reach it as the hand's newest,
    /// in carried order, which is where the loop's frame has them.
    pinned: HashSet<ValueId>,
    /// Whether the planner keeps the capacity in view (the second attempt, on a scheduled
    /// order): it tracks the footprint states as it plans, and where a push would not fit it
    /// first retires dead tiles with the cheapest pushes it can make ([`Alloc::retire`]).
    fit: bool,
    /// How many more loop-body plans [`Alloc::fit_loop`] may make: past this, each loop is
    /// planned once more and no further (the capacity proof still decides), so nested loops
    /// cannot make the rounds multiply without bound.
    plans_left: usize,
}

/// The loop-body plans one kernel's [`Alloc::fit`] attempt may make.
const PLAN_BUDGET: usize = 4096;

/// Why a queue plan failed: the capacity proof, or anything else.
enum Refusal {
    Capacity(Diagnostic),
    Other(Diagnostic),
}

/// A push of a tile of so many bytes onto a hand.
type Push = (Hand, u64);

/// The largest total any path holds while `pushes` are made from `abs`, in order.
fn peak_after(abs: &Abstract, pushes: &[Push]) -> u64 {
    let mut a = abs.clone();
    pushes
        .iter()
        .map(|&(h, bytes)| a.push(h, bytes))
        .max()
        .unwrap_or_else(|| a.total())
}

/// The most bytes of tiles alive at once (pushed, and read later) anywhere in an op order, and
/// where: what any allocation of that order needs at least.
#[derive(Debug, Default)]
struct LivePeak {
    bytes: u64,
    loc: Option<Location>,
}

impl LivePeak {
    fn raise(&mut self, bytes: u64, loc: &Location) {
        if bytes > self.bytes {
            *self = LivePeak {
                bytes,
                loc: Some(loc.clone()),
            };
        }
    }

    /// The lower bound, for a capacity refusal.
    fn describe(&self) -> String {
        let at = self
            .loc
            .as_ref()
            .map_or(String::new(), |l| format!(" at {l}"));
        if self.bytes > RegisterFile::CAPACITY_BYTES {
            format!(
                "the tiles alive at once{at} alone need {} bytes, so no allocation of this order \
                 fits; a narrower --pe-mask or smaller tiles would",
                self.bytes
            )
        } else {
            format!(
                "the tiles alive at once need at least {} bytes{at}, which would fit, but the \
                 queue plan could not retire enough dead tiles in time",
                self.bytes
            )
        }
    }
}

/// The hand of [`Alloc::pinned`] tiles: T, which the push rule fills first, so a loop body's
/// loads share the hand of the matrix it computes from them and retire with it.
const MATRIX_HAND: Hand = Hand::T;

/// Every CUBE tile a loop of `block` (nested ones included) starts from or yields.
fn carried_cube_tiles(kernel: &GmKernel, block: &Block, out: &mut HashSet<ValueId>) {
    let is_cube = |v: ValueId| kernel.ty(v).tile().is_some_and(|t| t.layout.is_cube());
    for op in &block.ops {
        let GmOpKind::For(body) = &op.kind else {
            continue;
        };
        out.extend(op.operands[3..].iter().copied().filter(|&v| is_cube(v)));
        if let Some(y) = body
            .ops
            .last()
            .filter(|y| matches!(y.kind, GmOpKind::Yield))
        {
            out.extend(y.operands.iter().copied().filter(|&v| is_cube(v)));
        }
        carried_cube_tiles(kernel, body, out);
    }
}

/// Liveness within one block: the last op index reading each value.
fn last_uses(block: &Block) -> HashMap<ValueId, usize> {
    let mut last = HashMap::new();
    for (i, op) in block.ops.iter().enumerate() {
        for &v in &op.operands {
            last.insert(v, i);
        }
    }
    last
}

fn tile_attrs(op: &mut GmOp, dst: TileReg, geom: (SizeCode, u32)) {
    op.attrs.insert(DST.to_string(), Attr::Str(dst.to_string()));
    op.attrs
        .insert(TSIZE.to_string(), Attr::Int(geom.0.code() as i64));
    op.attrs.insert(ROWS.to_string(), Attr::Int(geom.1 as i64));
}

fn srcs_attr(op: &mut GmOp, codes: &[TileReg]) {
    let text = codes
        .iter()
        .map(TileReg::to_string)
        .collect::<Vec<_>>()
        .join(",");
    op.attrs.insert(SRCS.to_string(), Attr::Str(text));
}

impl Alloc<'_> {
    fn footprint(&self, v: ValueId) -> u64 {
        self.geometry
            .get(&v)
            .map_or(0, |g| RegisterFile::footprint(g.0, self.mask))
    }

    fn is_cube(&self, v: ValueId) -> bool {
        self.kernel.ty(v).tile().is_some_and(|t| t.layout.is_cube())
    }

    /// The hand for the tile `op` pushes: [`MATRIX_HAND`] for a pinned tile; for any other,
    /// [`Alloc::choose`]'s among the hands it may use (`MATRIX_HAND` only when `shares`). A
    /// `_ACC` op's result avoids the hand its accumulator's code clashes with; a rotation never
    /// makes a new clash (the accumulator only ages).
    fn push_hand(
        &mut self,
        q: &mut Queue,
        latest: &mut HashMap<ValueId, ValueId>,
        live: &dyn Fn(ValueId) -> bool,
        op: &GmOp,
        shares: bool,
        out: &mut Vec<GmOp>,
    ) -> Result<Hand, Diagnostic> {
        let accumulator = match &op.kind {
            GmOpKind::Tile { info, .. } => accumulator_of(info, &op.operands),
            _ => None,
        };
        let mut exclude: Vec<Hand> = match accumulator.and_then(|c| q.code(c)) {
            Some(code) => Hand::ALL
                .into_iter()
                .filter(|&h| accumulator_clashes(code, h))
                .collect(),
            None => Vec::new(),
        };
        let pinned = self.pinned.contains(&op.results[0]);
        if pinned {
            exclude.extend(Hand::ALL.into_iter().filter(|&h| h != MATRIX_HAND));
        } else if !shares {
            exclude.extend(self.matrix_hand_reserved());
        }
        self.choose(q, latest, live, &exclude, &op.loc, out)
            .map_err(|e| {
                if !pinned {
                    return e;
                }
                Diagnostic::error(
                    op.loc.clone(),
                    format!(
                        "cannot push this loop-carried CUBE tile onto hand {}: {} (a CUBE \
                         tile has no TMOV, so it is carried where it is computed)",
                        MATRIX_HAND.letter(),
                        e.message
                    ),
                )
            })
    }

    /// [`MATRIX_HAND`] when the kernel has pinned tiles: a push not planned for a pinned tile's
    /// place avoids it there.
    fn matrix_hand_reserved(&self) -> Option<Hand> {
        (!self.pinned.is_empty()).then_some(MATRIX_HAND)
    }

    /// For each op of `block`, whether a push there that is not pinned may use [`MATRIX_HAND`]:
    /// only when the next event is a pinned push and none came since the last loop boundary, so
    /// that the pinned tiles are the hand's newest when they reach their boundary.
    fn matrix_hand_sharing(&self, block: &Block) -> Vec<bool> {
        let pushes_pinned = |op: &GmOp| {
            matches!(op.kind, GmOpKind::Load | GmOpKind::Tile { .. })
                && self.pinned.contains(&op.results[0])
        };
        let boundary = |op: &GmOp| match &op.kind {
            GmOpKind::For(_) => op.operands[3..].iter().any(|&v| self.is_cube(v)),
            GmOpKind::Yield => op.operands.iter().any(|&v| self.is_cube(v)),
            _ => false,
        };
        // Backwards: whether the next event after each op is a pinned push.
        let mut next_is_push = vec![false; block.ops.len()];
        let mut ahead = false;
        for (i, op) in block.ops.iter().enumerate().rev() {
            next_is_push[i] = ahead;
            if pushes_pinned(op) {
                ahead = true;
            } else if boundary(op) {
                ahead = false;
            }
        }
        // Forwards: whether a pinned push came since the last boundary.
        let mut pushed = false;
        let mut out = Vec::with_capacity(block.ops.len());
        for (op, next) in block.ops.iter().zip(next_is_push) {
            out.push(next && !pushed);
            if pushes_pinned(op) {
                pushed = true;
            } else if boundary(op) {
                pushed = false;
            }
        }
        out
    }

    /// A TMOV copying `src` (read as `code`) onto `hand`; the copy is a new value.
    fn tmov(&mut self, src: ValueId, code: TileReg, hand: Hand, loc: &Location) -> GmOp {
        let info = by_kind(OpKind::Move).expect("TMOV is a catalogue row");
        let ty = self.kernel.ty(src).clone();
        let name = self.kernel.value(src).name.clone();
        let copy = self.kernel.add_value(name, ty, GmDef::Result(0));
        let geom = self.geometry[&src];
        self.geometry.insert(copy, geom);
        let mut op = GmOp {
            kind: GmOpKind::Tile {
                info,
                control: NumericControl::default(),
            },
            operands: vec![src],
            results: vec![copy],
            loc: loc.clone(),
            attrs: BTreeMap::new(),
        };
        srcs_attr(&mut op, &[code]);
        tile_attrs(&mut op, TileReg::of(hand, 1).expect("#1"), geom);
        self.stats.moves += 1;
        self.stats.pushes += 1;
        op
    }

    /// The hand for a push at op `at` (rotating one by TMOVs appended to `out` if every hand's
    /// oldest tile is live). `live` says whether a value is still read after `at`.
    fn choose(
        &mut self,
        q: &mut Queue,
        latest: &mut HashMap<ValueId, ValueId>,
        live: &dyn Fn(ValueId) -> bool,
        exclude: &[Hand],
        loc: &Location,
        out: &mut Vec<GmOp>,
    ) -> Result<Hand, Diagnostic> {
        let hands = Hand::ALL.into_iter().filter(|h| !exclude.contains(h));
        let occupied = |q: &Queue, h: Hand| q.hands[h as usize].iter().flatten().count();
        // Among the hands whose oldest tile is dead, the fullest (the first in T, U, M, N order
        // on a tie): every tile a hand holds, dead or live, counts against the core's capacity
        // until 16 newer ones retire it, so a loop body that cycles its pushes through one hand
        // keeps 16 tiles allocated, where spreading them over four would keep 64.
        if let Some(h) = hands
            .clone()
            .filter(|&h| !q.oldest(h).is_some_and(live))
            .min_by_key(|&h| (std::cmp::Reverse(occupied(q, h)), h as usize))
        {
            return Ok(h);
        }
        // Rotate the hand with the fewest live oldest tiles, none of them a CUBE tile (which
        // has no TMOV): a hand that would need one counts as never freed.
        let rotations = |q: &Queue, h: Hand| {
            let oldest_live: Vec<ValueId> = (0..DEPTH)
                .rev()
                .map_while(|i| {
                    q.hands[h as usize]
                        .get(i)
                        .copied()
                        .flatten()
                        .filter(|&v| live(v))
                })
                .collect();
            if oldest_live.iter().any(|&v| self.is_cube(v)) {
                DEPTH
            } else {
                oldest_live.len()
            }
        };
        let Some((count, hand)) = hands.map(|h| (rotations(q, h), h)).min() else {
            return Err(Diagnostic::error(
                loc.clone(),
                "needs more than 64 tiles alive at once (queue naming reaches 16 per hand)",
            ));
        };
        if count == DEPTH {
            return Err(Diagnostic::error(
                loc.clone(),
                "needs more than 64 tiles alive at once (queue naming reaches 16 per hand)",
            ));
        }
        for _ in 0..count {
            let v = q.oldest(hand).expect("a live oldest tile");
            let code = TileReg::of(hand, DEPTH as u8).expect("#16");
            let src = latest.get(&v).copied().unwrap_or(v);
            let op = self.tmov(src, code, hand, loc);
            latest.insert(v, op.results[0]);
            q.repush(hand, v);
            out.push(op);
        }
        Ok(hand)
    }

    /// Re-push the tile operands of `op` from operand `first` on (a loop's initial carried
    /// values, a yield's next ones), in order, 16 to a hand: onto `fixed` (one hand per tile),
    /// or onto the hands with the fewest live tiles; then point those operands at the copies.
    /// Values the sequence would retire while still needed are first rescued onto a hand it
    /// does not use. Returns the tiles' operand positions and their hands.
    #[allow(clippy::too_many_arguments)]
    fn canonical(
        &mut self,
        q: &mut Queue,
        latest: &mut HashMap<ValueId, ValueId>,
        live: &dyn Fn(ValueId) -> bool,
        op: &mut GmOp,
        first: usize,
        fixed: Option<&[Hand]>,
        out: &mut Vec<GmOp>,
    ) -> Result<(Vec<usize>, Vec<Hand>), Diagnostic> {
        let tile_at: Vec<usize> = (first..op.operands.len())
            .filter(|&j| self.kernel.ty(op.operands[j]).tile().is_some())
            .collect();
        let loc = &op.loc.clone();
        // CUBE tiles stay where they are: check they are already in place on the matrix hand.
        let (cube_at, tile_at): (Vec<usize>, Vec<usize>) = tile_at
            .into_iter()
            .partition(|&j| self.is_cube(op.operands[j]));
        let cubes: Vec<ValueId> = cube_at.iter().map(|&j| op.operands[j]).collect();
        let newest: Vec<Option<ValueId>> = q.hands[MATRIX_HAND as usize]
            .iter()
            .take(cubes.len())
            .rev()
            .copied()
            .collect();
        if let Some((_, &v)) = newest.iter().zip(&cubes).find(|(n, v)| **n != Some(**v)) {
            return Err(Diagnostic::error(
                loc.clone(),
                format!(
                    "cannot carry the CUBE tile %{} across this loop boundary: the loop's CUBE \
                     tiles must be the last ones computed for it, in iter_args order (a CUBE \
                     tile has no TMOV that could put it in place)",
                    self.kernel.display_name(v)
                ),
            ));
        }
        let sources: Vec<ValueId> = tile_at.iter().map(|&j| op.operands[j]).collect();
        let hands: Vec<Hand> = match fixed {
            Some(h) => h[cubes.len()..].to_vec(),
            None => {
                let mut order: Vec<Hand> = Hand::ALL
                    .into_iter()
                    .filter(|&h| self.matrix_hand_reserved() != Some(h))
                    .collect();
                order.sort_by_key(|&h| {
                    q.hands[h as usize]
                        .iter()
                        .filter(|v| v.is_some_and(|v| live(v) || sources.contains(&v)))
                        .count()
                });
                let chunks = sources.len().div_ceil(DEPTH);
                if chunks > order.len() {
                    return Err(Diagnostic::error(
                        loc.clone(),
                        format!(
                            "carries {} tiles across a loop boundary; queue naming reaches {} \
                             (16 per hand)",
                            sources.len(),
                            4 * DEPTH
                        ),
                    ));
                }
                (0..sources.len()).map(|j| order[j / DEPTH]).collect()
            }
        };
        let mut used = hands.clone();
        used.dedup();
        // Rescue what the sequence would retire while still needed.
        for _ in 0..=4 * DEPTH {
            let mut sim = q.clone();
            let mut victim = None;
            for (j, (&s, &hand)) in sources.iter().zip(&hands).enumerate() {
                if sim.code(s).is_none() {
                    return Err(Diagnostic::error(
                        loc.clone(),
                        "internal error: a carried tile is unreachable at the loop boundary",
                    ));
                }
                if let Some(old) = sim.oldest(hand) {
                    if live(old) || sources[j..].contains(&old) {
                        victim = Some(old);
                        break;
                    }
                }
                sim.push(hand, ValueId(u32::MAX - j as u32));
            }
            let Some(v) = victim else { break };
            if self.is_cube(v) {
                return Err(Diagnostic::error(
                    loc.clone(),
                    format!(
                        "the tiles this loop carries would retire the CUBE tile %{}, which is \
                         read later (a CUBE tile has no TMOV to keep it)",
                        self.kernel.display_name(v)
                    ),
                ));
            }
            let keep = |x: ValueId| live(x) || sources.contains(&x);
            let mut avoid = used.clone();
            avoid.extend(self.matrix_hand_reserved());
            let to = self.choose(q, latest, &keep, &avoid, loc, out)?;
            let code = q.code(v).expect("the victim is reachable");
            let src = latest.get(&v).copied().unwrap_or(v);
            let op = self.tmov(src, code, to, loc);
            latest.insert(v, op.results[0]);
            q.repush(to, v);
            out.push(op);
        }
        let mut copies = Vec::new();
        for (&s, &hand) in sources.iter().zip(&hands) {
            let code = q.code(s).ok_or_else(|| {
                Diagnostic::error(loc.clone(), "cannot keep the carried tiles reachable")
            })?;
            let src = latest.get(&s).copied().unwrap_or(s);
            let op = self.tmov(src, code, hand, loc);
            let copy = op.results[0];
            q.push(hand, copy);
            copies.push(copy);
            out.push(op);
        }
        for (&j, &c) in tile_at.iter().zip(&copies) {
            op.operands[j] = c;
        }
        // The carried tiles in frame order: the CUBE ones on the matrix hand first.
        let at = cube_at.into_iter().chain(tile_at).collect();
        let hands = std::iter::repeat_n(MATRIX_HAND, cubes.len())
            .chain(hands)
            .collect();
        Ok((at, hands))
    }

    /// The queue that holds exactly `values`, pushed in order onto `hands`.
    fn frame_queue(values: &[ValueId], hands: &[Hand]) -> Queue {
        let mut q = Queue::default();
        for (&v, &h) in values.iter().zip(hands) {
            q.hands[h as usize].insert(0, Some(v));
        }
        q
    }

    /// The [`LivePeak`] of `block`'s order (nested bodies included).
    fn live_peak(&self, block: &Block) -> LivePeak {
        let mut peak = LivePeak::default();
        self.live_peak_of(block, &mut peak);
        peak
    }

    fn live_peak_of(&self, block: &Block, peak: &mut LivePeak) {
        let last = last_uses(block);
        let is_tile = |v: &ValueId| self.kernel.ty(*v).tile().is_some();
        let mut defined: Vec<ValueId> = block.args.iter().copied().filter(is_tile).collect();
        for (i, op) in block.ops.iter().enumerate() {
            if let GmOpKind::Load | GmOpKind::Tile { .. } = op.kind {
                let alive: u64 = (defined.iter())
                    .filter(|v| last.get(v).is_some_and(|&l| l >= i))
                    .map(|&v| self.footprint(v))
                    .sum();
                peak.raise(alive + self.footprint(op.results[0]), &op.loc);
            }
            if let GmOpKind::For(body) = &op.kind {
                self.live_peak_of(body, peak);
            }
            defined.extend(op.results.iter().copied().filter(is_tile));
        }
    }

    /// Plan the kernel's body under queue naming, then prove its capacity.
    fn plan_queue(&mut self, body: &mut Block) -> Result<(), Refusal> {
        let peak = self.live_peak(body);
        let mut q = Queue::default();
        let mut abs = Abstract::default();
        self.queue_block(body, &mut q, None, &mut abs)
            .map_err(Refusal::Other)?;
        let mut abs = Abstract::default();
        self.capacity_block(body, &mut abs, &peak)
            .map_err(Refusal::Capacity)
    }

    /// The hand a planned push `op` went to.
    fn pushed_hand(op: &GmOp) -> Hand {
        match op.attrs.get(DST) {
            Some(Attr::Str(s)) => s.chars().next().and_then(Hand::from_letter),
            _ => None,
        }
        .unwrap_or(Hand::T)
    }

    /// The pushes of planned ops, outside nested loops, in order.
    fn pushes(&self, ops: &[GmOp]) -> Vec<Push> {
        ops.iter()
            .filter(|op| matches!(op.kind, GmOpKind::Load | GmOpKind::Tile { .. }))
            .map(|op| (Self::pushed_hand(op), self.footprint(op.results[0])))
            .collect()
    }

    /// The cheapest push the planner can make at a point: a TMOV of the smallest tile `q` can
    /// name (live or not; a CUBE tile has no TMOV). Its value, code and footprint.
    fn cheap_source(&self, q: &Queue) -> Option<(ValueId, TileReg, u64)> {
        let known = Hand::ALL.into_iter().flat_map(|h| {
            q.hands[h as usize]
                .iter()
                .enumerate()
                .filter_map(move |(k, v)| Some((h, k, (*v)?)))
        });
        known
            .filter(|&(_, _, v)| {
                let tile = self.kernel.ty(v).tile();
                // A CUBE tile has no TMOV; a predicate's would be a byte tile of another shape.
                tile.is_some_and(|t| !t.layout.is_cube() && !t.is_predicate())
                    && self.geometry.contains_key(&v)
            })
            .min_by_key(|&(h, k, v)| (self.footprint(v), k, h as usize))
            .and_then(|(h, k, v)| Some((v, TileReg::of(h, k as u8 + 1)?, self.footprint(v))))
    }

    /// Retire dead tiles with cheap pushes ([`Alloc::cheap_source`]) while that lowers the peak
    /// of the pushes `then` that follow (the next push, or the next iteration's first ones), until
    /// it fits. A cheap push goes onto a hand only over its dead oldest tiles, and over one more
    /// when it is `then`'s first hand (whose push retires the next). `live` says what is still
    /// read from here on.
    #[allow(clippy::too_many_arguments)]
    fn retire(
        &mut self,
        q: &mut Queue,
        latest: &mut HashMap<ValueId, ValueId>,
        live: &dyn Fn(ValueId) -> bool,
        then: &[Push],
        loc: &Location,
        abs: &mut Abstract,
        out: &mut Vec<GmOp>,
    ) {
        let dead_oldest = |q: &Queue, h: Hand| {
            (0..DEPTH)
                .rev()
                .take_while(|&i| {
                    !q.hands[h as usize]
                        .get(i)
                        .copied()
                        .flatten()
                        .is_some_and(live)
                })
                .count()
        };
        for _ in 0..4 * DEPTH {
            let now = peak_after(abs, then);
            if now <= RegisterFile::CAPACITY_BYTES {
                return;
            }
            let Some((_, _, bytes)) = self.cheap_source(q) else {
                return;
            };
            let reserved = self.matrix_hand_reserved();
            // The fewest pushes that make it fit, else the lowest peak.
            let rank = |peak: u64, k: usize| {
                if peak <= RegisterFile::CAPACITY_BYTES {
                    (0, k as u64)
                } else {
                    (1, peak)
                }
            };
            let mut best: Option<((u8, u64), u64, usize, Hand)> = None;
            for r in Hand::ALL.into_iter().filter(|&r| Some(r) != reserved) {
                let spare = usize::from(then.first().is_some_and(|p| p.0 == r));
                let most = dead_oldest(q, r).saturating_sub(spare);
                let mut a = abs.clone();
                for k in 1..=most {
                    a.push(r, bytes);
                    let peak = peak_after(&a, then);
                    if best.is_none_or(|b| rank(peak, k) < b.0) {
                        best = Some((rank(peak, k), peak, k, r));
                    }
                }
            }
            let Some((_, _, k, r)) = best.filter(|b| b.1 < now) else {
                return;
            };
            for _ in 0..k {
                // The smallest tile is still one of `bytes` (the copies are), wherever it is now.
                let Some((src, code, bytes)) = self.cheap_source(q) else {
                    return;
                };
                let from = latest.get(&src).copied().unwrap_or(src);
                let op = self.tmov(from, code, r, loc);
                q.push(r, op.results[0]);
                abs.push(r, bytes);
                out.push(op);
            }
        }
    }

    /// Plan one block under queue naming; `frame` is the loop body's carried-tile hand. Under
    /// [`Alloc::fit`], `abs` follows the footprint states the planned pushes leave.
    fn queue_block(
        &mut self,
        block: &mut Block,
        q: &mut Queue,
        frame: Option<&[Hand]>,
        abs: &mut Abstract,
    ) -> Result<(), Diagnostic> {
        let last = last_uses(block);
        let shares_matrix_hand = self.matrix_hand_sharing(block);
        let old = std::mem::take(&mut block.ops);
        let mut latest: HashMap<ValueId, ValueId> = HashMap::new();
        let mut out: Vec<GmOp> = Vec::with_capacity(old.len());
        // How many of `out`'s ops `abs` has seen.
        let mut seen = 0;
        let track = |this: &Self, abs: &mut Abstract, out: &[GmOp], seen: &mut usize| {
            if this.fit {
                for (h, bytes) in this.pushes(&out[*seen..]) {
                    abs.push(h, bytes);
                }
            }
            *seen = out.len();
        };
        for (i, mut op) in old.into_iter().enumerate() {
            let live_after = |v: ValueId| last.get(&v).is_some_and(|&l| l > i);
            // What is read from this op on: its operands are read after any push made for it.
            let live_here = |v: ValueId| last.get(&v).is_some_and(|&l| l >= i);
            // Operands stay the block's own values (the queue tracks those) until the op is
            // emitted; then each names its newest copy.
            let rename = |op: &mut GmOp, latest: &HashMap<ValueId, ValueId>| {
                for v in &mut op.operands {
                    if let Some(&c) = latest.get(v) {
                        *v = c;
                    }
                }
            };
            match &mut op.kind {
                GmOpKind::Load | GmOpKind::Tile { .. } => {
                    let shares = shares_matrix_hand[i];
                    let mut hand =
                        self.push_hand(q, &mut latest, &live_after, &op, shares, &mut out)?;
                    if self.fit {
                        track(self, abs, &out, &mut seen);
                        let then = [(hand, self.footprint(op.results[0]))];
                        if peak_after(abs, &then) > RegisterFile::CAPACITY_BYTES {
                            let loc = op.loc.clone();
                            self.retire(q, &mut latest, &live_here, &then, &loc, abs, &mut out);
                            seen = out.len();
                            // The hand may have changed its mind: its oldest is still dead.
                            hand =
                                self.push_hand(q, &mut latest, &live_after, &op, shares, &mut out)?;
                        }
                    }
                    let mut codes = Vec::new();
                    for &l in &op.operands {
                        if self.kernel.ty(l).tile().is_some() {
                            codes.push(q.code(l).ok_or_else(|| {
                                Diagnostic::error(
                                    op.loc.clone(),
                                    "internal error: a tile operand is unreachable",
                                )
                            })?);
                        }
                    }
                    if matches!(op.kind, GmOpKind::Tile { .. }) {
                        srcs_attr(&mut op, &codes);
                    }
                    rename(&mut op, &latest);
                    let r = op.results[0];
                    let geom = self.geometry[&r];
                    tile_attrs(&mut op, TileReg::of(hand, 1).expect("#1"), geom);
                    q.push(hand, r);
                    self.stats.pushes += 1;
                    out.push(op);
                }
                GmOpKind::Store => {
                    let code = q.code(op.operands[0]).ok_or_else(|| {
                        Diagnostic::error(
                            op.loc.clone(),
                            "internal error: the stored tile is unreachable",
                        )
                    })?;
                    srcs_attr(&mut op, &[code]);
                    rename(&mut op, &latest);
                    out.push(op);
                }
                GmOpKind::For(_) if self.fit => {
                    track(self, abs, &out, &mut seen);
                    let before = (q.clone(), latest.clone(), out.len(), op.clone());
                    let (values, stats, entry) =
                        (self.kernel.values.len(), self.stats.clone(), abs.clone());
                    let mut planned =
                        self.fit_loop_op(q, &mut latest, &live_after, &mut op, &mut out, abs)?;
                    // The first iteration starts with what the code before it left: when its
                    // first pushes do not fit over that, retire dead tiles before the entry's
                    // re-pushes (a body that starts cold has no tile to make cheap pushes from).
                    let mut then = self.pushes(&out[before.2..]);
                    if let GmOpKind::For(body) = &op.kind {
                        then.extend(self.first_pushes(&body.ops));
                    }
                    if peak_after(&entry, &then) > RegisterFile::CAPACITY_BYTES {
                        (*q, latest, op) = (before.0, before.1, before.3);
                        out.truncate(before.2);
                        self.kernel.values.truncate(values);
                        (self.stats, *abs) = (stats, entry);
                        let loc = op.loc.clone();
                        self.retire(q, &mut latest, &live_here, &then, &loc, abs, &mut out);
                        planned =
                            self.fit_loop_op(q, &mut latest, &live_after, &mut op, &mut out, abs)?;
                    }
                    let (tile_at, hands) = planned;
                    let results: Vec<ValueId> =
                        tile_at.iter().map(|&j| op.results[j - 3]).collect();
                    *q = Self::frame_queue(&results, &hands);
                    out.push(op);
                    seen = out.len();
                }
                GmOpKind::For(_) => {
                    let (tile_at, hands) =
                        self.canonical(q, &mut latest, &live_after, &mut op, 3, None, &mut out)?;
                    track(self, abs, &out, &mut seen);
                    let GmOpKind::For(body) = &mut op.kind else {
                        unreachable!("matched above")
                    };
                    // Every iteration starts with the carried tiles at these ages, and nothing
                    // else is known.
                    let args: Vec<ValueId> = tile_at.iter().map(|&j| body.args[j - 2]).collect();
                    let mut inner = Self::frame_queue(&args, &hands);
                    self.queue_block(body, &mut inner, Some(&hands), abs)?;
                    let results: Vec<ValueId> =
                        tile_at.iter().map(|&j| op.results[j - 3]).collect();
                    *q = Self::frame_queue(&results, &hands);
                    out.push(op);
                    seen = out.len();
                }
                GmOpKind::Yield => {
                    if let Some(hands) = frame {
                        if self.fit {
                            track(self, abs, &out, &mut seen);
                            let then = self.next_iteration_pushes(&op, hands, &out);
                            let loc = op.loc.clone();
                            self.retire(q, &mut latest, &live_here, &then, &loc, abs, &mut out);
                        }
                        let fixed = Some(hands);
                        self.canonical(q, &mut latest, &live_after, &mut op, 0, fixed, &mut out)?;
                    }
                    out.push(op);
                }
                GmOpKind::Constant(_) | GmOpKind::Arith(_) | GmOpKind::Return => out.push(op),
            }
            track(self, abs, &out, &mut seen);
        }
        block.ops = out;
        Ok(())
    }

    /// What a loop body's back edge is followed by, as pushes: the yield's re-pushes of the
    /// carried tiles onto `hands`, then the body's first pushes (`planned`, outside nested
    /// loops) up to the first that makes a cheap push possible again (one no bigger than the
    /// body's smallest).
    fn next_iteration_pushes(
        &self,
        yield_op: &GmOp,
        hands: &[Hand],
        planned: &[GmOp],
    ) -> Vec<Push> {
        let carried: Vec<ValueId> = yield_op
            .operands
            .iter()
            .copied()
            .filter(|&v| self.kernel.ty(v).tile().is_some() && !self.is_cube(v))
            .collect();
        let cubes = hands.len() - carried.len();
        let mut then: Vec<Push> = carried
            .iter()
            .zip(&hands[cubes..])
            .map(|(&v, &h)| (h, self.footprint(v)))
            .collect();
        then.extend(self.first_pushes(planned));
        then
    }

    /// A planned body's first pushes (outside nested loops) up to the first that makes a cheap
    /// push possible (one no bigger than the body's smallest).
    fn first_pushes(&self, planned: &[GmOp]) -> Vec<Push> {
        let first_loop = planned
            .iter()
            .position(|op| matches!(op.kind, GmOpKind::For(_)))
            .unwrap_or(planned.len());
        let mut body = self.pushes(&planned[..first_loop]);
        let smallest = body.iter().map(|p| p.1).min().unwrap_or(0);
        let until = body
            .iter()
            .position(|p| p.1 <= smallest)
            .map_or(body.len(), |k| k + 1);
        body.truncate(until);
        body
    }

    /// Plan loop `op` under [`Alloc::fit`]: the entry's re-pushes of its carried tiles, then
    /// its body ([`Alloc::fit_loop`]), leaving in `abs` the states at the loop's head. Returns
    /// [`Alloc::canonical`]'s operand positions and hands.
    fn fit_loop_op(
        &mut self,
        q: &mut Queue,
        latest: &mut HashMap<ValueId, ValueId>,
        live: &dyn Fn(ValueId) -> bool,
        op: &mut GmOp,
        out: &mut Vec<GmOp>,
        abs: &mut Abstract,
    ) -> Result<(Vec<usize>, Vec<Hand>), Diagnostic> {
        let start = out.len();
        let (tile_at, hands) = self.canonical(q, latest, live, op, 3, None, out)?;
        for (h, bytes) in self.pushes(&out[start..]) {
            abs.push(h, bytes);
        }
        let GmOpKind::For(body) = &mut op.kind else {
            unreachable!("a loop op")
        };
        let args: Vec<ValueId> = tile_at.iter().map(|&j| body.args[j - 2]).collect();
        *abs = self.fit_loop(body, &args, &hands, abs)?;
        Ok((tile_at, hands))
    }

    /// Plan a loop body under [`Alloc::fit`]: planned again from each iteration's possible
    /// start states until they are a fixed point (as [`Alloc::capacity_block`] iterates, merging
    /// after as many rounds as a queue is deep); returns the states at the loop's head.
    fn fit_loop(
        &mut self,
        body: &mut Block,
        args: &[ValueId],
        hands: &[Hand],
        entry: &Abstract,
    ) -> Result<Abstract, Diagnostic> {
        let original = body.clone();
        let values = self.kernel.values.len();
        let stats = self.stats.clone();
        let mut start = entry.clone();
        for round in 0.. {
            // A round's copies are the kernel's values only if its plan is kept.
            self.kernel.values.truncate(values);
            self.stats = stats.clone();
            *body = original.clone();
            let mut inner = Self::frame_queue(args, hands);
            let mut end = start.clone();
            self.queue_block(body, &mut inner, Some(hands), &mut end)?;
            let next = if round > DEPTH + 2 {
                start.join(&end, true)
            } else {
                entry.join(&end, round > DEPTH)
            };
            self.plans_left = self.plans_left.saturating_sub(1);
            if next == start || round > 2 * DEPTH + 4 || self.plans_left == 0 {
                break;
            }
            start = next;
        }
        Ok(start)
    }

    /// The capacity proof of the module doc, over the planned block.
    fn capacity_block(
        &mut self,
        block: &Block,
        abs: &mut Abstract,
        peak: &LivePeak,
    ) -> Result<(), Diagnostic> {
        for op in &block.ops {
            match &op.kind {
                GmOpKind::Load | GmOpKind::Tile { .. } => {
                    let hand = Self::pushed_hand(op);
                    let total = abs.push(hand, self.footprint(op.results[0]));
                    self.stats.peak_bytes = self.stats.peak_bytes.max(total);
                    if total > RegisterFile::CAPACITY_BYTES {
                        return Err(Diagnostic::error(
                            op.loc.clone(),
                            format!(
                                "the tiles that may still be allocated here need {} bytes of tile \
                                 capacity with mask {} (a tile stays until 16 newer ones on its \
                                 hand retire it); the core has {}; {} [core-capacity, \
                                 Fault_TileAllocation]",
                                total,
                                self.mask,
                                RegisterFile::CAPACITY_BYTES,
                                peak.describe(),
                            ),
                        ));
                    }
                }
                GmOpKind::For(body) => {
                    let entry = abs.clone();
                    let mut start = entry.clone();
                    // Exact states for as many rounds as a queue is deep (and then some), then
                    // merged ones, whose per-slot maxima can only grow, so the loop ends.
                    for round in 0.. {
                        let mut end = start.clone();
                        self.capacity_block(body, &mut end, peak)?;
                        let next = entry.join(&end, round > 2 * DEPTH);
                        if next == start {
                            break;
                        }
                        start = next;
                    }
                    *abs = start;
                }
                GmOpKind::Store
                | GmOpKind::Constant(_)
                | GmOpKind::Arith(_)
                | GmOpKind::Yield
                | GmOpKind::Return => {}
            }
        }
        Ok(())
    }

    /// Absolute naming: every push takes the lowest free register (T, then U, M, N) for good.
    fn absolute_block(
        &mut self,
        block: &mut Block,
        file: &mut RegisterFile,
        regs: &mut HashMap<ValueId, TileReg>,
        in_loop: bool,
    ) -> Result<(), Diagnostic> {
        for op in &mut block.ops {
            let err = |m: String| Diagnostic::error(op.loc.clone(), m);
            let codes: Vec<TileReg> = op
                .operands
                .iter()
                .filter_map(|v| regs.get(v).copied())
                .collect();
            let carried = op.carried();
            let op_loc = op.loc.clone();
            match &mut op.kind {
                GmOpKind::Load | GmOpKind::Tile { .. } => {
                    if in_loop {
                        return Err(err("this op writes a tile inside a loop, but under \
                             --target-profile=absolute no register is ever freed, so each \
                             iteration would need a new one; compile with \
                             --target-profile=queue"
                            .into()));
                    }
                    let r = op.results[0];
                    let geom = self.geometry[&r];
                    let bytes = RegisterFile::footprint(geom.0, self.mask);
                    let reg = file.rename_in_first_free_hand().ok_or_else(|| {
                        err(format!(
                            "needs more than {LOCAL_REGISTERS} tile registers, and under \
                             absolute naming none is ever freed [register-count, \
                             Fault_TileAllocation]"
                        ))
                    })?;
                    file.check_room(bytes)
                        .map_err(|e| err(format!("{e} [core-capacity, Fault_TileAllocation]")))?;
                    file.allocate(reg, bytes)
                        .map_err(|_| err("internal error: register taken".into()))?;
                    self.stats.pushes += 1;
                    self.stats.peak_bytes = file.allocated_bytes();
                    if matches!(op.kind, GmOpKind::Tile { .. }) {
                        srcs_attr(op, &codes);
                    }
                    tile_attrs(op, reg, geom);
                    regs.insert(r, reg);
                }
                GmOpKind::Store => srcs_attr(op, &codes),
                GmOpKind::For(body) => {
                    for c in &carried {
                        if let Some(&reg) = regs.get(&c.init) {
                            regs.insert(c.arg, reg);
                            regs.insert(c.result, reg);
                        }
                        if regs.contains_key(&c.arg) && c.yielded != Some(c.arg) {
                            let loc = body.ops.last().map_or(&op_loc, |y| &y.loc);
                            return Err(Diagnostic::error(
                                loc.clone(),
                                "under --target-profile=absolute a carried tile must be \
                                 yielded unchanged (a new tile would need a new register \
                                 every iteration); compile with --target-profile=queue",
                            ));
                        }
                    }
                    self.absolute_block(body, file, regs, true)?;
                }
                GmOpKind::Constant(_) | GmOpKind::Arith(_) | GmOpKind::Yield | GmOpKind::Return => {
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptoc_ir::gm_build::GmBuilder;
    use ptoc_ir::ScalarType;

    fn attr(op: &GmOp, key: &str) -> String {
        match op.attrs.get(key) {
            Some(Attr::Str(s)) => s.clone(),
            Some(Attr::Int(n)) => n.to_string(),
            None => String::new(),
        }
    }

    /// `acc = x[0]; for i in 1..n: acc = max(acc, x[i])`: the carried tile is re-pushed at
    /// entry and at the end of the body onto the same hand, so the body names it `U#1` every
    /// iteration; the loop's result is `U#1` after the loop whatever the trip count.
    #[test]
    fn a_carried_tile_is_named_the_same_every_iteration() {
        let mut b = GmBuilder::new("k");
        let x = b.memref("x", "memref<8x8xf32>");
        let out = b.memref("out", "memref<1x8xf32>");
        let n = b.scalar("n", ScalarType::Index);
        let (c0, c1) = (b.index(0), b.index(1));
        let first = b.load(x, c0, c0, "1x8xf32");
        let r = b.for_loop(c1, n, c1, &[first], |b, i, acc| {
            let t = b.load(x, i, c0, "1x8xf32");
            vec![b.tile("TMAX", &[acc[0], t], "1x8xf32")]
        });
        b.store(r[0], out, c0, c0);
        let mut k = b.finish();
        let stats = allocate_gm(&mut k, PeMask::ALL_PES, NamingModel::Queue).unwrap();
        assert_eq!((stats.pushes, stats.moves), (5, 2));
        let ops = &k.body.ops;
        // c0, c1, load, TMOV (entry), for, store, return
        assert_eq!(attr(&ops[2], DST), "T#1");
        assert_eq!(
            (attr(&ops[3], SRCS), attr(&ops[3], DST)),
            ("T#1".into(), "U#1".into())
        );
        let GmOpKind::For(body) = &ops[4].kind else {
            panic!()
        };
        let names: Vec<(String, String)> = body
            .ops
            .iter()
            .map(|op| (attr(op, SRCS), attr(op, DST)))
            .collect();
        assert_eq!(
            names,
            [
                ("".into(), "U#1".into()),        // load: U is the fullest hand
                ("U#2,U#1".into(), "U#1".into()), // tmax(acc, t)
                ("U#1".into(), "U#1".into()),     // TMOV: the yield's canonical re-push
                ("".into(), "".into()),           // yield
            ]
        );
        assert_eq!(attr(&ops[5], SRCS), "U#1");
        assert_eq!(k.attrs[PROFILE], Attr::Str("queue".into()));
        // Nothing is freed until 16 newer tiles retire it: after enough iterations U holds 16
        // loads, maxima and copies, and T the first load, each 128 B × 4 PEs.
        assert_eq!(stats.peak_bytes, 17 * 512);
    }

    #[test]
    fn tile_arguments_and_results_are_refused_at_their_location() {
        let mut k = GmKernel::new("k", Location::new("k.mlir", 1, 1));
        k.add_arg(
            Some("t".into()),
            Type::Tile(ptoc_ir::gm_build::tile_type("1x8xf32")),
        );
        let err = allocate_gm(&mut k, PeMask::ALL_PES, NamingModel::Queue).unwrap_err();
        assert_eq!(err[0].loc, Location::new("k.mlir", 1, 1));
        assert!(
            err[0].message.contains("argument #0 %t"),
            "{}",
            err[0].message
        );
    }
}
