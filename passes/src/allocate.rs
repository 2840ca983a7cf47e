//! `pto-allocate`: SizeCodes, derived physical rows and Local tile registers for every tile.
//!
//! The hardware gives a new destination the lowest unallocated register of the hand its B.IOT
//! names and never frees one inside a program (docs/isa.md §3.4, §9 decisions 1–2, `PROFILE.naming`),
//! so the registers are not a choice the compiler makes but a fact it must predict: this pass
//! simulates that rule over the arguments (placed by the loader, in order) and then every
//! destination in program order. It picks the SizeCode of each tile (the smallest that holds a
//! fresh tile, docs/isa.md §3.3; for full-shape destinations the one that derives exactly the source's
//! physical rows, docs/isa.md §1.3, which doubles the capacity for a mixed EXPDIF), checks the
//! kernel fits 4×16 registers and the core's tile capacity, and records the results as the
//! attributes the code generator reads: `pto.dst`, `pto.tsize` and `pto.rows` on each argument and
//! op, `pto.pe_mask` on the function. Everything is re-verified strictly first, so nothing
//! illegal reaches code generation even when earlier passes were skipped.

use crate::queue_plan::{self, Action, PlanError, Program, Step};
use crate::rules::{
    bytes, defined_here, full_source, op_prefix, shape, value_name, Rule, Violation,
};
use crate::verify::{verify_function, Stage};
use crate::{Pass, PassContext};
use ptoc_ir::{Attr, Diagnostic, Function, GmKernel, Location, OpId, ValueDef, ValueId};
use ptoc_isa::geometry::{LOCAL_REGISTERS, REGISTERS_PER_HAND};
use ptoc_isa::ops::by_kind;
use ptoc_isa::profile::NamingModel;
use ptoc_isa::{
    Hand, OpInfo, OpKind, PeMask, RegisterFile, ResultKind, SizeCode, Storage, TileReg,
};

pub use ptoc_ir::alloc_attrs::{
    DST as ATTR_DST, PE_MASK as ATTR_PE_MASK, PROFILE as ATTR_PROFILE, ROWS as ATTR_ROWS,
    TSIZE as ATTR_TSIZE,
};

/// The `pto-allocate` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Allocate;

/// Where one tile lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub value: ValueId,
    pub size: SizeCode,
    /// Physical rows the SizeCode derives (≥ the rows the type was written with).
    pub rows: u32,
    pub reg: TileReg,
}

/// The allocation of one function: arguments first, then op results in program order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    pub args: Vec<Placement>,
    pub ops: Vec<Placement>,
    pub mask: PeMask,
    /// Σ popcount(mask) × capacity, in bytes.
    pub capacity_bytes: u64,
}

impl Pass for Allocate {
    fn name(&self) -> &'static str {
        "pto-allocate"
    }
    fn description(&self) -> &'static str {
        "Assign SizeCodes and Local tile registers by simulating the hardware renaming rule"
    }
    fn statistics(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("tiles-allocated", "Number of Local tile registers assigned"),
            (
                "capacity-bytes",
                "Tile capacity used on the core, in bytes (all PEs of the mask)",
            ),
        ]
    }
    fn run(&self, func: &mut Function, ctx: &mut PassContext) -> Result<(), Vec<Diagnostic>> {
        let mask = ctx.options.pe_mask;
        let naming = ctx.options.target_profile;
        let alloc = match naming {
            NamingModel::AbsoluteNoFree => allocate_function(func, mask)?,
            NamingModel::Queue => allocate_queue(func, mask)?,
        };
        func.attrs.insert(
            ATTR_PROFILE.to_string(),
            Attr::Str(naming.name().to_string()),
        );
        ctx.record(
            self.name(),
            "tiles-allocated",
            (alloc.args.len() + alloc.ops.len()) as u64,
        );
        ctx.record(self.name(), "capacity-bytes", alloc.capacity_bytes);
        apply(func, &alloc);
        Ok(())
    }
    fn run_gm(&self, kernel: &mut GmKernel, ctx: &mut PassContext) -> Result<(), Vec<Diagnostic>> {
        let mask = gm_kernel_mask(kernel, ctx);
        let stats = crate::gm_allocate::allocate_gm(kernel, mask, ctx.options.target_profile)?;
        ctx.record(self.name(), "tiles-allocated", stats.pushes);
        ctx.record(self.name(), "capacity-bytes", stats.peak_bytes);
        Ok(())
    }
}

/// The PE mask a GM kernel is allocated under: the one it carries, if it was made for one
/// (convert-linalg-to-pto's one PE), else the option's.
pub(crate) fn gm_kernel_mask(kernel: &GmKernel, ctx: &PassContext) -> PeMask {
    match kernel.attrs.get(ptoc_ir::alloc_attrs::PE_MASK) {
        Some(Attr::Str(text)) => PeMask::parse(text).unwrap_or(ctx.options.pe_mask),
        _ => ctx.options.pe_mask,
    }
}

/// The attributes of one placement.
fn attrs_of(p: &Placement) -> [(&'static str, Attr); 3] {
    [
        (ATTR_DST, Attr::Str(p.reg.to_string())),
        (ATTR_TSIZE, Attr::Int(p.size.code() as i64)),
        (ATTR_ROWS, Attr::Int(p.rows as i64)),
    ]
}

/// Record `alloc` on `func` as attributes.
pub fn apply(func: &mut Function, alloc: &Allocation) {
    func.arg_attrs
        .resize_with(func.args.len(), Default::default);
    for (attrs, p) in func.arg_attrs.iter_mut().zip(&alloc.args) {
        attrs.extend(attrs_of(p).map(|(k, v)| (k.to_string(), v)));
    }
    for (op, p) in func.ops.iter_mut().zip(&alloc.ops) {
        op.attrs
            .extend(attrs_of(p).map(|(k, v)| (k.to_string(), v)));
    }
    func.attrs
        .insert(ATTR_PE_MASK.to_string(), Attr::Str(alloc.mask.to_string()));
}

/// Allocate `func` under `mask` with absolute naming, or every reason it cannot be.
pub fn allocate_function(func: &Function, mask: PeMask) -> Result<Allocation, Vec<Diagnostic>> {
    let geometry = geometry_of(func)?;
    absolute_registers(func, mask, geometry)
}

/// Every tile's SizeCode and derived rows (after re-verifying `func` strictly).
fn geometry_of(func: &Function) -> Result<Vec<Option<(SizeCode, u32)>>, Vec<Diagnostic>> {
    let errors = verify_function(func, Stage::Final);
    if !errors.is_empty() {
        return Err(errors);
    }
    // Fresh tiles (arguments, reductions, copies) may get more rows than written so that the two
    // sources of an elementwise op derive the same rows (`TileShapeAndTypeMatch` compares derived
    // rows): raise the fresh tile the smaller side's rows come from and recompute until nothing
    // changes. Rows only grow and are bounded, so this ends.
    let mut min_rows = vec![0u32; func.values.len()];
    let geometry = loop {
        let (geometry, mut errors) = sizes(func, &min_rows);
        let mut raised = false;
        // Binary ops, TCMP and TSEL relate same-shape operands: all derive the same rows.
        for op in func.ops.iter().filter(|op| {
            matches!(
                op.info.kind,
                OpKind::Binary(_) | OpKind::Compare | OpKind::Select
            )
        }) {
            let rows_of = |v: ValueId| geometry[v.0 as usize].map(|g| g.1);
            let Some(rows) = op
                .operands
                .iter()
                .map(|&v| rows_of(v))
                .collect::<Option<Vec<u32>>>()
            else {
                continue;
            };
            let Some(&big) = rows.iter().max() else {
                continue;
            };
            let Some(big_at) = rows.iter().position(|&r| r == big) else {
                continue;
            };
            for (i, (&small, &r)) in op.operands.iter().zip(&rows).enumerate() {
                if r == big {
                    continue;
                }
                let pending = fresh_root(func, small).map(|root| {
                    let want = &mut min_rows[root.0 as usize];
                    if *want < big {
                        *want = big;
                        return true;
                    }
                    // Another op raised it earlier in this sweep (a predicate argument read by
                    // two TSELs): its rows are recomputed in the next one.
                    rows_of(root).is_some_and(|now| now < *want)
                });
                if pending == Some(true) {
                    raised = true;
                } else {
                    let other = op.operands[big_at];
                    let v = Violation::new(
                        Rule::FullShape,
                        format!(
                            "has {r} physical rows after allocation, but the {} {} has {big}",
                            op.info.sources[big_at].name(),
                            value_name(func, other)
                        ),
                    )
                    .hint("give every source the same SizeCode, e.g. by writing the larger row count on all");
                    let subject = format!(
                        "{} {} operand #{i} {}",
                        op_prefix(op),
                        op.info.sources[i].name(),
                        value_name(func, small)
                    );
                    errors.push(defined_here(func, small, v.at(op.loc.clone(), &subject)));
                }
            }
        }
        // A TCVT destination has its source's physical rows at its own width (docs/isa.md
        // §1.10): a narrower type needs more rows to fill its smallest SizeCode (an FP64
        // 16x1 tile has 16 rows, a U8 one at least 128), so raise the source's fresh tile.
        for op in func
            .ops
            .iter()
            .filter(|op| op.info.result == ResultKind::Converted)
        {
            let Some(src) = full_source(op) else { continue };
            let Some((_, src_rows)) = geometry[src.0 as usize] else {
                continue;
            };
            let ty = func.ty(op.result);
            let (Some(cols), bits) = (ty.cols.known(), ty.dtype.bits()) else {
                continue;
            };
            let fewest =
                SizeCode::smallest_for(1, cols, bits).and_then(|s| s.derived_rows(cols, bits));
            let Some(need) = fewest.filter(|&need| src_rows < need) else {
                continue;
            };
            if let Some(root) = fresh_root(func, src).filter(|r| min_rows[r.0 as usize] < need) {
                min_rows[root.0 as usize] = need;
                raised = true;
            }
        }
        if raised {
            continue;
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        break geometry;
    };
    Ok(geometry)
}

/// Registers by the absolute renaming rule, and the core capacity of a program that never frees
/// a register.
fn absolute_registers(
    func: &Function,
    mask: PeMask,
    geometry: Vec<Option<(SizeCode, u32)>>,
) -> Result<Allocation, Vec<Diagnostic>> {
    let mut errors = Vec::new();

    // Registers, by the renaming rule, and core capacity (docs/isa.md §3.4, §9 decisions 1–2, 12).
    let order: Vec<ValueId> = func
        .args
        .iter()
        .copied()
        .chain(func.ops.iter().map(|op| op.result))
        .collect();
    // Each new tile asks for the first hand with a free register, so a program uses T, then U, M
    // and N, and fits whenever it needs at most 64 tiles.
    let mut file = RegisterFile::with_naming(NamingModel::AbsoluteNoFree);
    let mut placements = Vec::with_capacity(order.len());
    let mut capacity_bytes = 0u64;
    for &v in &order {
        let Some((size, rows)) = geometry[v.0 as usize] else {
            continue;
        };
        let footprint = RegisterFile::footprint(size, mask);
        capacity_bytes += footprint;
        let Some(reg) = file.rename_in_first_free_hand() else {
            continue;
        };
        if file.allocate(reg, footprint).is_ok() {
            placements.push(Placement {
                value: v,
                size,
                rows,
                reg,
            });
        }
    }
    if order.len() > LOCAL_REGISTERS as usize {
        errors.push(register_shortfall(func, &order));
    }
    if capacity_bytes > RegisterFile::CAPACITY_BYTES {
        errors.push(capacity_shortfall(func, mask, capacity_bytes, &geometry));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let ops = placements.split_off(func.args.len());
    Ok(Allocation {
        args: placements,
        ops,
        mask,
        capacity_bytes,
    })
}

/// Whether a tile's SizeCode is the allocator's to choose (arguments, reduction results,
/// expand copies and transposes), rather than forced by a full-shape source.
fn is_fresh(func: &Function, v: ValueId) -> bool {
    match func.value(v).def {
        ValueDef::Arg(_) => true,
        ValueDef::Op(id) => matches!(
            func.ops[id.0 as usize].info.result,
            ResultKind::Reduced
                | ResultKind::Index
                | ResultKind::Broadcast
                | ResultKind::Transposed
        ),
        // (SameAsSource, ExpDif and Converted results are forced by their source; a TTRANS
        // result's rows and columns are its own, docs/isa.md §19.)
    }
}

/// The fresh tile whose rows `v`'s rows are forced from (following full-shape sources back),
/// which is `v` itself when it is fresh.
fn fresh_root(func: &Function, mut v: ValueId) -> Option<ValueId> {
    for _ in 0..=func.ops.len() {
        if is_fresh(func, v) {
            return Some(v);
        }
        let op = func.def_op(v)?;
        v = full_source(op)?;
    }
    None
}

/// Per value, its SizeCode and derived rows: fresh tiles the smallest holding
/// `max(written rows, min_rows)`, full-shape results their source's rows (docs/isa.md §1.3, §3.3).
fn sizes(func: &Function, min_rows: &[u32]) -> (Vec<Option<(SizeCode, u32)>>, Vec<Diagnostic>) {
    let mut errors = Vec::new();
    let mut geometry: Vec<Option<(SizeCode, u32)>> = vec![None; func.values.len()];
    let smallest = |id: ValueId| -> Result<(SizeCode, u32), Violation> {
        let ty = func.ty(id);
        let rows = ty.rows.known().unwrap_or(0).max(min_rows[id.0 as usize]);
        ty.smallest_size(rows).ok_or_else(|| {
            Violation::new(
                Rule::SizeCode,
                format!(
                    "has physical shape {} and needs {rows} rows, which no SizeCode holds",
                    shape(ty)
                ),
            )
        })
    };
    for (i, &arg) in func.args.iter().enumerate() {
        match smallest(arg) {
            Ok(g) => geometry[arg.0 as usize] = Some(g),
            Err(v) => errors.push(v.at(
                func.loc.clone(),
                &format!("argument #{i} {}", value_name(func, arg)),
            )),
        }
    }
    for op in &func.ops {
        // A full-shape result takes its full source's SizeCode; vectors and copies are fresh.
        let full = match op.info.result {
            ResultKind::SameAsSource
            | ResultKind::ExpDif
            | ResultKind::Converted
            | ResultKind::Predicate => full_source(op),
            ResultKind::Reduced
            | ResultKind::Index
            | ResultKind::Broadcast
            | ResultKind::Transposed
            | ResultKind::Matrix => None,
        };
        let result = match full {
            Some(src) => {
                let Some((src_size, src_rows)) = geometry[src.0 as usize] else {
                    continue; // its own error is already reported
                };
                forced(func, op.result, src, src_size, src_rows)
            }
            None => smallest(op.result),
        };
        match result {
            Ok(g) => geometry[op.result.0 as usize] = Some(g),
            Err(v) => errors.push(v.at(op.loc.clone(), &format!("{} result", op_prefix(op)))),
        }
    }
    (geometry, errors)
}

/// The SizeCode a full-shape destination must take: the one deriving exactly its source's
/// physical rows at its own element width (twice the capacity for a mixed EXPDIF).
fn forced(
    func: &Function,
    result: ValueId,
    src: ValueId,
    src_size: SizeCode,
    src_rows: u32,
) -> Result<(SizeCode, u32), Violation> {
    let ty = func.ty(result);
    let cols = ty.cols.known().unwrap_or(0);
    let bits = ty.dtype.bits();
    // A predicate takes its source's rows and the capacity their packed bits need
    // (`ResolveBundlePredicateDestination`, docs/isa.md §3.6).
    let size = match ty.storage {
        Storage::Numeric => SizeCode::giving_rows(src_rows, cols, bits),
        Storage::Predicate => SizeCode::for_predicate(src_rows, cols),
    };
    if let Some(size) = size {
        return Ok((size, src_rows));
    }
    let need = src_rows as u64 * cols as u64 * bits as u64 / 8;
    let mut v = Violation::new(
        Rule::ForcedSizeCode,
        format!(
            "must have the {src_rows} physical rows of its source {} (SizeCode {src_size}, {}), which as {} is {} per PE: no SizeCode gives that",
            value_name(func, src),
            bytes(src_size.bytes() as u64),
            shape(ty),
            bytes(need)
        ),
    );
    if let Some(max_rows) = SizeCode::MAX.derived_rows(cols, bits) {
        v = v.hint(format!("keep the source at most {max_rows} physical rows"));
    }
    Err(v)
}

/// The accumulator among the `operands` of a `_ACC` matrix op, whose code constrains the
/// destination's hand (docs/isa.md §18.4).
pub(crate) fn accumulator_of(info: &OpInfo, operands: &[ValueId]) -> Option<ValueId> {
    let at = info.position_of(ptoc_isa::ops::OperandRole::Accumulator)?;
    operands.get(at).copied()
}

/// "kernel needs 70 tile registers; the core has 64", at the first tile that does not fit.
/// Queue naming (docs/isa.md §9 decisions 1–2): plan hands and re-pushes with
/// [`queue_plan`], insert a TMOV for each re-push (later reads then name the copy), and record
/// the physical register each push takes. The lowering replays the same register file to name
/// every source by its age.
pub fn allocate_queue(func: &mut Function, mask: PeMask) -> Result<Allocation, Vec<Diagnostic>> {
    let mut geometry = geometry_of(func)?;
    let footprint =
        |g: &Option<(SizeCode, u32)>| g.map_or(0, |(s, _)| RegisterFile::footprint(s, mask));
    let program = Program {
        footprints: geometry.iter().map(footprint).collect(),
        args: func.args.iter().map(|v| v.0 as usize).collect(),
        steps: func
            .ops
            .iter()
            .map(|op| Step {
                sources: op.operands.iter().map(|v| v.0 as usize).collect(),
                dest: Some(op.result.0 as usize),
                accumulator: accumulator_of(op.info, &op.operands).map(|v| v.0 as usize),
            })
            .collect(),
        results: func.results.iter().map(|v| v.0 as usize).collect(),
        immovable: func.values.iter().map(|v| v.ty.layout.is_cube()).collect(),
    };
    let plan = queue_plan::plan(&program).map_err(|e| vec![plan_error(func, mask, e)])?;
    let tmov = by_kind(OpKind::Move).expect("TMOV is a catalogue row");
    // Rebuild the op list: each re-push becomes a TMOV whose result replaces the value in every
    // later read.
    let mut latest: Vec<ValueId> = (0..func.values.len() as u32).map(ValueId).collect();
    let old_ops = std::mem::take(&mut func.ops);
    let old_results = std::mem::take(&mut func.results);
    let mut hands = Vec::new();
    for action in &plan.actions {
        match action {
            Action::Move { value, hand, .. } => {
                let v = latest[*value];
                let ty = *func.ty(v);
                let loc = func.def_loc(v).clone();
                let copy = func.push_op(tmov, vec![v], ty, None, loc);
                geometry.push(geometry[v.0 as usize]);
                latest[*value] = copy;
                hands.push(*hand);
            }
            Action::Step { step, hand, .. } => {
                let mut op = old_ops[*step].clone();
                for v in &mut op.operands {
                    *v = latest[v.0 as usize];
                }
                func.values[op.result.0 as usize].def = ValueDef::Op(OpId(func.ops.len() as u32));
                func.ops.push(op);
                hands.push(hand.unwrap_or(Hand::T));
            }
        }
    }
    func.results = old_results.iter().map(|v| latest[v.0 as usize]).collect();
    // Replay the pushes to learn each tile's physical register.
    let mut file = RegisterFile::with_naming(NamingModel::Queue);
    let mut place = |v: ValueId, hand: Hand| -> Option<Placement> {
        let (size, rows) = geometry[v.0 as usize]?;
        let reg = file
            .place(hand, RegisterFile::footprint(size, mask))
            .ok()?
            .reg;
        Some(Placement {
            value: v,
            size,
            rows,
            reg,
        })
    };
    let args = func
        .args
        .iter()
        .zip(&plan.arg_hands)
        .filter_map(|(&v, &h)| place(v, h))
        .collect::<Vec<_>>();
    let ops = func
        .ops
        .iter()
        .zip(&hands)
        .filter_map(|(op, &h)| place(op.result, h))
        .collect::<Vec<_>>();
    if args.len() != func.args.len() || ops.len() != func.ops.len() {
        return Err(vec![Diagnostic::error(
            func.loc.clone(),
            "internal error: the queue plan does not replay".to_string(),
        )]);
    }
    Ok(Allocation {
        args,
        ops,
        mask,
        capacity_bytes: plan.peak_bytes,
    })
}

/// A plan failure as a located diagnostic.
fn plan_error(func: &Function, mask: PeMask, e: PlanError) -> Diagnostic {
    let (step, v) = match e {
        PlanError::TooManyLive { step } => (
            step,
            Violation::new(
                Rule::RegisterCount,
                "needs more than 64 tiles alive at once; queue naming names 4 hands of 16",
            )
            .hint("split the kernel"),
        ),
        PlanError::Capacity { step, need } => (
            step,
            Violation::new(
                Rule::CoreCapacity,
                format!(
                    "needs {} of tile capacity with mask {mask} here (tiles stay until 16 newer \
                     ones retire them); the core has {}",
                    bytes(need),
                    bytes(RegisterFile::CAPACITY_BYTES)
                ),
            ),
        ),
    };
    match step.and_then(|i| func.ops.get(i)) {
        Some(op) => v.at(op.loc.clone(), &op_prefix(op)),
        None => v.at(func.loc.clone(), &format!("kernel @{}", func.name)),
    }
}

fn register_shortfall(func: &Function, order: &[ValueId]) -> Diagnostic {
    let first_spill = order[LOCAL_REGISTERS as usize];
    let loc: Location = func.def_loc(first_spill).clone();
    let v = Violation::new(
        Rule::RegisterCount,
        format!(
            "needs {} tile registers; the core has {LOCAL_REGISTERS} (4 hands of {REGISTERS_PER_HAND}) and no register is ever freed",
            order.len()
        ),
    )
    .hint(format!(
        "{} is the first tile without a register; split the kernel",
        value_name(func, first_spill)
    ));
    v.at(loc, &format!("kernel @{}", func.name))
}

/// "kernel needs 300 KiB of tile capacity with mask 1111; the core has 256 KiB (short by 44 KiB)".
fn capacity_shortfall(
    func: &Function,
    mask: PeMask,
    needed: u64,
    geometry: &[Option<(SizeCode, u32)>],
) -> Diagnostic {
    let core = RegisterFile::CAPACITY_BYTES;
    let per_pe: u64 = geometry.iter().flatten().map(|g| g.0.bytes() as u64).sum();
    let mut v = Violation::new(
        Rule::CoreCapacity,
        format!(
            "needs {} of tile capacity with mask {mask}; the core has {} (short by {})",
            bytes(needed),
            bytes(core),
            bytes(needed - core)
        ),
    );
    let smaller = (1..mask.pe_count())
        .rev()
        .filter(|n| per_pe * *n as u64 <= core)
        .find_map(|n| (0..8).map(PeMask::from_mode).find(|m| m.pe_count() == n));
    v = match smaller {
        Some(m) => v.hint(format!(
            "with --pe-mask={m} it needs {}",
            bytes(per_pe * m.pe_count() as u64)
        )),
        None => v.hint("use smaller tiles or split the kernel"),
    };
    v.at(func.loc.clone(), &format!("kernel @{}", func.name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Builder;
    use crate::Options;

    fn allocate(func: &Function) -> Result<Allocation, Vec<String>> {
        allocate_function(func, PeMask::ALL_PES)
            .map_err(|e| e.into_iter().map(|d| d.message).collect())
    }

    fn regs(ps: &[Placement]) -> Vec<String> {
        ps.iter().map(|p| p.reg.to_string()).collect()
    }

    fn size_rows(p: &Placement) -> (u32, u32) {
        (p.size.code(), p.rows)
    }

    #[test]
    fn arguments_get_the_smallest_size_code() {
        let mut b = Builder::new();
        b.arg("a", "16x64xf32"); // 4 KiB
        b.arg("b", "5x64xf32"); // 1280 B -> 2 KiB, 8 rows
        b.arg("c", "16x1xf32"); // 64 B -> 128 B, 32 rows
        b.arg("d", "1x64xui8"); // 64 B -> 128 B, 2 rows
        let a = allocate(&b.ret(&[])).unwrap();
        let got: Vec<_> = a.args.iter().map(size_rows).collect();
        assert_eq!(got, [(6, 16), (5, 8), (1, 32), (1, 2)]);
        assert_eq!(regs(&a.args), ["T#1", "T#2", "T#3", "T#4"]);
        assert_eq!(a.capacity_bytes, 4 * (4096 + 2048 + 128 + 128));
    }

    #[test]
    fn full_shape_results_take_the_source_rows() {
        let mut b = Builder::new();
        let x = b.arg("x", "5x64xf32");
        let m = b.op("m", "TROWMAX", &[x], "5x1xf32");
        let r = b.op("r", "TROWEXPANDSUB", &[x, m], "5x64xf32");
        let e = b.op("e", "TEXP", &[r], "5x64xf32");
        let c = b.op("c", "TROWEXPAND", &[m], "5x64xf32");
        let a = allocate(&b.ret(&[e, c])).unwrap();
        let got: Vec<_> = a.ops.iter().map(size_rows).collect();
        // reduction: smallest (5x1xf32 = 20 B -> 128 B, 32 rows); forced: the source's 8 rows.
        assert_eq!(got, [(1, 32), (5, 8), (5, 8), (5, 8)]);
    }

    /// A transpose is a fresh tile: its SizeCode is the smallest holding its own rows and
    /// columns, not its source's. 16x64xf32 (4 KiB) → 64x16xf32 (4 KiB, 64 rows); a 2x3 of 4
    /// columns (U16, 16 B → 128 B) → 3x2 in 2 columns, which 128 B gives 32 rows; 5x64xf32
    /// (2 KiB, 8 rows) → valid 64x5 in 8 columns: 2 KiB, 64 rows.
    #[test]
    fn transposes_get_their_own_smallest_size_code() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let y = b.arg("y", "2x4xui16, valid=2x3");
        let z = b.arg("z", "5x64xf32");
        let t = b.op("t", "TTRANS", &[x], "64x16xf32");
        let u = b.op("u", "TTRANS", &[y], "3x2xui16");
        let w = b.op("w", "TTRANS", &[z], "64x8xf32, valid=64x5");
        let a = allocate(&b.ret(&[t, u, w])).unwrap();
        let got: Vec<_> = a.ops.iter().map(size_rows).collect();
        assert_eq!(got, [(6, 64), (1, 32), (5, 64)]);
    }

    #[test]
    fn mixed_expdif_doubles_the_capacity() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf16");
        let m = b.arg("m", "16x1xf16");
        b.op("e", "TROWEXPANDEXPDIF", &[x, m], "16x64xf32");
        b.op("s", "TROWEXPANDEXPDIF", &[x, m], "16x64xf16");
        let a = allocate(&b.ret(&[])).unwrap();
        assert_eq!(size_rows(&a.args[0]), (5, 16)); // 2 KiB
        assert_eq!(size_rows(&a.ops[0]), (6, 16)); // 4 KiB: twice the source
        assert_eq!(size_rows(&a.ops[1]), (5, 16));
        // The FP16 source 2 cols x 32 rows example of docs/isa.md §1.4: 128 B -> 256 B.
        let mut b = Builder::new();
        let x = b.arg("x", "32x2xf16");
        let m = b.arg("m", "32x1xf16");
        b.op("e", "TCOLEXPANDEXPDIF", &[x, m], "32x2xf32");
        let f = b.ret(&[]);
        // (column broadcast of 32x1 is illegal; use a 1x2 vector)
        assert!(allocate(&f).is_err());
        let mut b = Builder::new();
        let x = b.arg("x", "32x2xf16");
        let v = b.arg("v", "1x2xf16");
        b.op("e", "TCOLEXPANDEXPDIF", &[x, v], "32x2xf32");
        let a = allocate(&b.ret(&[])).unwrap();
        assert_eq!(a.args[0].size.bytes(), 128);
        assert_eq!((a.ops[0].size.bytes(), a.ops[0].rows), (256, 32));
    }

    #[test]
    fn forced_size_code_beyond_64k_is_reported() {
        // Verified programs never get here (a source's derived rows are the smallest power of two
        // holding its written rows); the guard still names the shortfall.
        let mut b = Builder::new();
        let x = b.arg("x", "32x512xf16");
        let m = b.arg("m", "32x1xf16");
        let e = b.op("e", "TROWEXPANDEXPDIF", &[x, m], "32x512xf32");
        let f = b.ret(&[]);
        let v = forced(&f, e, x, SizeCode::MAX, 64).unwrap_err();
        let msg = v.message("r");
        assert!(
            msg.contains("must have the 64 physical rows of its source %x (SizeCode 10, 64 KiB)"),
            "{msg}"
        );
        assert!(
            msg.contains("128 KiB per PE") && msg.contains("at most 32 physical rows"),
            "{msg}"
        );
        assert!(
            msg.ends_with("[forced-size-code, Fault_TileAllocation]"),
            "{msg}"
        );
        assert_eq!(
            forced(&f, e, x, SizeCode::MAX, 32).unwrap().0,
            SizeCode::MAX
        );
    }

    #[test]
    fn fresh_sources_grow_to_match_an_elementwise_partner() {
        let mut b = Builder::new();
        let x = b.arg("x", "5x4xf16"); // 128 B holds 16 rows
        let v = b.arg("v", "5x1xf16");
        let y = b.arg("y", "5x4xf32"); // 128 B would hold 8 rows
        let e = b.op("e", "TROWEXPANDEXPDIF", &[x, v], "5x4xf32"); // forced: 16 rows, 256 B
        b.op("r", "TADD", &[e, y], "5x4xf32");
        let a = allocate(&b.ret(&[])).unwrap();
        assert_eq!(
            size_rows(&a.args[2]),
            (2, 16),
            "y takes 256 B to derive 16 rows"
        );
        assert_eq!(size_rows(&a.ops[1]), (2, 16));
    }

    #[test]
    fn a_predicate_argument_read_twice_grows_once() {
        // 5x2 hf32 data lives in 128 B, 16 rows; the predicate argument keeps its written rows
        // until a TSEL needs 16. Two TSELs ask in the same sweep: the second one must not
        // mistake the pending growth for a tile that cannot grow (a random kernel found this).
        let mut b = Builder::new();
        let p = b.arg("p", "5x2xi1");
        let x = b.arg("x", "5x2xhf32");
        let y = b.arg("y", "5x2xhf32");
        let s = b.op("s", "TSEL", &[p, x, x], "5x2xhf32");
        b.op("t", "TSEL", &[p, s, y], "5x2xhf32");
        let a = allocate(&b.ret(&[])).unwrap();
        // 16 rows x 2 bits = 4 bytes: SizeCode 1.
        assert_eq!(size_rows(&a.args[0]), (1, 16));
        let rows: Vec<u32> = a.args.iter().chain(&a.ops).map(|p| p.rows).collect();
        assert_eq!(rows, [16, 16, 16, 16, 16]);
    }

    #[test]
    fn forced_chains_grow_from_their_fresh_root() {
        let mut b = Builder::new();
        let x = b.arg("x", "5x4xf16");
        let v = b.arg("v", "5x1xf16");
        let y = b.arg("y", "5x4xf32");
        let e = b.op("e", "TROWEXPANDEXPDIF", &[x, v], "5x4xf32"); // 16 rows
        let z = b.op("z", "TEXP", &[y], "5x4xf32"); // forced by %y: 8 rows unless %y grows
        b.op("r", "TADD", &[e, z], "5x4xf32");
        let a = allocate(&b.ret(&[])).unwrap();
        let rows: Vec<u32> = a.args.iter().chain(&a.ops).map(|p| p.rows).collect();
        assert_eq!(rows, [16, 64, 16, 16, 16, 16]);
    }

    #[test]
    fn registers_follow_the_renaming_rule_and_spill_to_the_next_hand() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let y = b.arg("y", "16x64xf32");
        let mut last = b.op("t0", "TADD", &[x, y], "16x64xf32");
        for i in 1..20 {
            last = b.op(&format!("t{i}"), "TMAX", &[last, x], "16x64xf32");
        }
        let f = b.ret(&[last]);
        // 22 tiles x 4 KiB x 4 PEs = 352 KiB: too much with all PEs, fine with one.
        let a = allocate_function(&f, PeMask::parse("1000").unwrap()).unwrap();
        assert_eq!(regs(&a.args), ["T#1", "T#2"]);
        let ops = regs(&a.ops);
        assert_eq!(ops[..3], ["T#3", "T#4", "T#5"]);
        assert_eq!(ops[13], "T#16");
        assert_eq!(ops[14..17], ["U#1", "U#2", "U#3"]);
        assert_eq!(ops[19], "U#6");
        let err = allocate(&f).unwrap_err();
        assert_eq!(err.len(), 1);
        assert_eq!(
            err[0],
            "kernel @k needs 352 KiB of tile capacity with mask 1111; the core has 256 KiB (short by 96 KiB); \
             with --pe-mask=1100 it needs 176 KiB [core-capacity, Fault_TileAllocation]"
        );
    }

    #[test]
    fn more_than_64_tiles_do_not_fit() {
        let mut b = Builder::new();
        let x = b.arg("x", "1x32xf32");
        let mut last = x;
        for i in 0..69 {
            last = b.op(&format!("t{i}"), "TEXP", &[last], "1x32xf32");
        }
        let f = b.ret(&[last]);
        let err = allocate(&f).unwrap_err();
        assert_eq!(err.len(), 1, "{err:?}");
        assert!(
            err[0].starts_with("kernel @k needs 70 tile registers; the core has 64"),
            "{err:?}"
        );
        assert!(
            err[0].contains("%t63 is the first tile without a register"),
            "{err:?}"
        );
        assert!(err[0].ends_with("[register-count, Fault_TileAllocation]"));
    }

    #[test]
    fn exact_capacity_shortfall() {
        // 64 + 8 + 2 + 1 KiB per PE = 75 KiB, x4 = 300 KiB.
        let mut b = Builder::new();
        for (name, rows) in [("a", 256), ("b", 32), ("c", 8), ("d", 4)] {
            b.arg(name, &format!("{rows}x64xf32"));
        }
        let err = allocate(&b.ret(&[])).unwrap_err();
        assert!(err[0].starts_with(
            "kernel @k needs 300 KiB of tile capacity with mask 1111; the core has 256 KiB (short by 44 KiB); with --pe-mask=1110 it needs 225 KiB"
        ), "{err:?}");
    }

    #[test]
    fn pass_writes_the_attribute_contract() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let m = b.op("m", "TROWMAX", &[x], "16x1xf32");
        let r = b.op("r", "TROWEXPANDSUB", &[x, m], "16x64xf32");
        let mut f = b.ret(&[r]);
        let mut ctx = PassContext::new(Options {
            opt_level: 2,
            pe_mask: PeMask::parse("1100").unwrap(),
            target_profile: NamingModel::AbsoluteNoFree,
            ..Options::default()
        });
        Allocate.run(&mut f, &mut ctx).unwrap();
        let attrs = |m: &std::collections::BTreeMap<String, Attr>| {
            (
                m[ATTR_DST].clone(),
                m[ATTR_TSIZE].clone(),
                m[ATTR_ROWS].clone(),
            )
        };
        assert_eq!(
            attrs(&f.arg_attrs[0]),
            (Attr::Str("T#1".into()), Attr::Int(6), Attr::Int(16))
        );
        assert_eq!(
            attrs(&f.ops[0].attrs),
            (Attr::Str("T#2".into()), Attr::Int(1), Attr::Int(32))
        );
        assert_eq!(
            attrs(&f.ops[1].attrs),
            (Attr::Str("T#3".into()), Attr::Int(6), Attr::Int(16))
        );
        assert_eq!(f.attrs[ATTR_PE_MASK], Attr::Str("1100".into()));
        assert_eq!(
            *f.ty(m),
            crate::testutil::ty("16x1xf32"),
            "types keep what was written"
        );
        assert!(ctx
            .statistics
            .contains(&("pto-allocate", "tiles-allocated", 3)));
        assert!(ctx
            .statistics
            .contains(&("pto-allocate", "capacity-bytes", 2 * (4096 * 2 + 128))));
    }

    #[test]
    fn illegal_programs_are_rejected_before_allocation() {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let v = b.arg("v", "16x1xf32");
        b.op("r", "TADD", &[x, v], "16x64xf32");
        let err = allocate(&b.ret(&[])).unwrap_err();
        assert!(
            err[0].contains("implicit broadcast") && err[0].contains("[full-shape"),
            "{err:?}"
        );
    }
}
