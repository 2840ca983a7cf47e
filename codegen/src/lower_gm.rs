//! Lowering of an allocated GM kernel (README, Kernels over global memory) to scalar blocks and tile bundles.
//!
//! Input contract (from `pto-allocate`, `passes/src/gm_allocate.rs`): every op that writes a tile
//! carries `pto.dst`, `pto.tsize`, `pto.rows`; every op that reads tiles carries `pto.srcs` (the
//! code of each tile operand when it is read); the kernel carries `pto.profile` and
//! `pto.pe_mask`. Tile bundles come from the builder straight-line kernels use
//! ([`crate::lower::tile_bundle`]).
//!
//! Scalar code lives only in the bodies of `BSTART.STD` blocks (docs/isa.md §17 decision 41):
//! consecutive scalar work is one `BSTART.STD FALL` block. GPRs (the ABI is in
//! `codegen/METADATA.md`): memref bases and scalar arguments arrive, in argument order, in a0–a7,
//! s0–s8, x0; x1–x3 are this lowering's temporaries; every other scalar value gets one of the
//! GPRs the arguments leave, by linear scan over its live range (a value read inside a loop it
//! was defined outside of lives to the loop's back edge). sp and ra are never used (§17
//! decision 40).
//!
//! `scf.for` is the loop of docs/isa.md §12.8: a guard block `BSTART.STD COND, EXIT` that sets
//! the induction variable and the carried scalars and skips the loop when `lb >= ub` (so a loop
//! that runs zero times runs zero times), the body, and a latch `BSTART.STD COND, BODY` that
//! copies the yielded scalars, steps the induction variable and branches back while `iv < ub`
//! (signed, as `scf.for` compares `index`).

use crate::lower::{tile_bundle, tile_meta};
use crate::metadata::{MemRefMeta, ScalarMeta, TileMeta};
use crate::{Bundle, Kernel, KernelMeta, Origin};
use ptoc_ir::alloc_attrs::{PE_MASK, PROFILE, SRCS};
use ptoc_ir::check_bounds;
use ptoc_ir::{
    ArithOp, Attr, Block, Diagnostic, GmDef, GmKernel, GmOp, GmOpKind, Location, ScalarType, Type,
    ValueId,
};
use ptoc_isa::encoding::{Datr, Dim, Ior, Iot, IotSources, StdStart, TlsuOp, TlsuStart, Transfer};
use ptoc_isa::geometry::MAX_DIM;
use ptoc_isa::profile::NamingModel;
use ptoc_isa::scalar::{by_mnemonic, Modifier, ScalarInst};
use ptoc_isa::{DataType, Instruction, PadValue, PeMask, TileReg};
use std::collections::HashMap;

/// The GPRs arguments arrive in, in argument order (a0–a7, s0–s8, x0), and the pool scalar values
/// are allocated from.
pub const ARGUMENT_GPRS: [u8; 18] = [
    2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
];
/// The lowering's temporaries (x1, x2, x3): addresses, strides, sign-extended operands.
const T1: u8 = 21;
const T2: u8 = 22;
const T3: u8 = 23;
const ZERO: u8 = 0;

/// Lower an allocated GM kernel, or report every problem at its location.
pub fn lower_gm_kernel(kernel: &GmKernel) -> Result<Kernel, Vec<Diagnostic>> {
    lower(kernel, true)
}

/// [`lower_gm_kernel`]; when `may_remake` and the scalars alive at once need more registers
/// than there are, once more with the constants remade at their uses.
fn lower(kernel: &GmKernel, may_remake: bool) -> Result<Kernel, Vec<Diagnostic>> {
    let err = |m: String| vec![Diagnostic::error(kernel.loc.clone(), m)];
    let pe_mask = match kernel.attrs.get(PE_MASK) {
        Some(Attr::Str(s)) => PeMask::parse(s),
        _ => None,
    }
    .ok_or_else(|| {
        err(format!(
            "kernel @{} has no valid {PE_MASK} (run pto-allocate first)",
            kernel.name
        ))
    })?;
    let profile = match kernel.attrs.get(PROFILE) {
        Some(Attr::Str(s)) => NamingModel::from_name(s),
        _ => None,
    }
    .ok_or_else(|| {
        err(format!(
            "kernel @{} has no valid {PROFILE} (run pto-allocate first)",
            kernel.name
        ))
    })?;

    // The ABI: memrefs and scalars in argument order.
    let mut gprs: HashMap<ValueId, u8> = HashMap::new();
    let mut memrefs = Vec::new();
    let mut scalars = Vec::new();
    let stored = kernel.stored_memrefs();
    let mut next = ARGUMENT_GPRS.iter();
    for (position, &a) in kernel.args.iter().enumerate() {
        let name = kernel
            .value(a)
            .name
            .clone()
            .filter(|n| !n.is_empty())
            .unwrap_or(format!("arg{position}"));
        let gpr = match kernel.ty(a) {
            Type::Tile(_) => {
                return Err(err(format!(
                    "argument #{position} is a tile; a GM kernel takes memrefs and scalars"
                )))
            }
            _ => *next.next().ok_or_else(|| {
                err(format!(
                    "more than {} memref and scalar arguments; the ABI passes them in GPRs",
                    ARGUMENT_GPRS.len()
                ))
            })?,
        };
        gprs.insert(a, gpr);
        match kernel.ty(a) {
            Type::MemRef(m) => memrefs.push(MemRefMeta {
                name,
                position,
                gpr,
                dtype: m.dtype,
                rows: m.rows,
                cols: m.cols,
                stored: stored.contains(&a),
                workspace: kernel.workspaces.contains(&a),
            }),
            Type::Scalar(ty) => scalars.push(ScalarMeta {
                name,
                position,
                gpr,
                ty: *ty,
            }),
            Type::Tile(_) => {}
        }
    }
    // The bound and step rules, also for a kernel that did not go through pto-verify (an
    // explicit `--pass-pipeline=pto-allocate`).
    let bounds = check_bounds(kernel);
    if !bounds.is_empty() {
        return Err(bounds);
    }
    let pool: Vec<u8> = next.copied().collect();
    let mut constants = HashMap::new();
    constants_of(&kernel.body, &mut constants);
    if let Err(d) = allocate_gprs(kernel, &constants, &pool, &mut gprs) {
        // Too many scalars alive at once: remake the constants and the arithmetic on them at
        // each use rather than hold them in registers across loops, and try again.
        return match rematerialize_scalars(kernel).filter(|_| may_remake) {
            Some(remade) => lower(&remade, false),
            None => Err(vec![d]),
        };
    }

    let mut e = Emitter {
        kernel,
        constants,
        gprs,
        metas: HashMap::new(),
        mask: pe_mask,
        bundles: Vec::new(),
        pending: Vec::new(),
        pending_origin: None,
        labels: Vec::new(),
        fixups: Vec::new(),
        errors: Vec::new(),
    };
    e.block(&kernel.body);
    e.flush();
    e.patch();
    if !e.errors.is_empty() {
        return Err(e.errors);
    }
    Ok(Kernel {
        name: kernel.name.clone(),
        bundles: e.bundles,
        meta: KernelMeta {
            pe_mask,
            profile,
            memrefs,
            scalars,
            ..KernelMeta::default()
        },
    })
}

/// Every constant `block` (and its nested bodies) defines, with its bits.
fn constants_of(block: &Block, out: &mut HashMap<ValueId, u64>) {
    for op in &block.ops {
        match &op.kind {
            GmOpKind::Constant(bits) => {
                out.insert(op.results[0], *bits);
            }
            GmOpKind::For(body) => constants_of(body, out),
            _ => {}
        }
    }
}

/// The bound and step of loop `op` that its test and latch take as immediates rather than
/// registers: a constant upper bound that fits SETC.GEI/LTI's simm12, a constant step that fits
/// ADDI's uimm12 (docs/isa.md §11.5). Such a value needs no register through the loop.
fn loop_immediates(op: &GmOp, constants: &HashMap<ValueId, u64>) -> (Option<i64>, Option<i64>) {
    let ub = constants
        .get(&op.operands[1])
        .map(|&b| b as i64)
        .filter(|b| (-2048..2048).contains(b));
    let step = constants
        .get(&op.operands[2])
        .map(|&b| b as i64)
        .filter(|b| (0..4096).contains(b));
    (ub, step)
}

/// The most ops [`rematerialize_scalars`] remakes for one use.
const REMAKE_LIMIT: usize = 6;

/// `kernel` with every use of a remakable scalar reading a copy made just before it, so the
/// value holds a register only from there to its use (a loop's bounds and step: through the
/// loop); `None` when no op reads one. A scalar is remakable when it is a constant, or integer
/// arithmetic on remakable scalars and kernel arguments (which keep their registers throughout),
/// in at most [`REMAKE_LIMIT`] ops. The originals stay where they are, so a computation that
/// faults still faults there first; the copies compute the same bits.
fn rematerialize_scalars(kernel: &GmKernel) -> Option<GmKernel> {
    /// Each remakable value's defining op and how many ops remaking it takes.
    fn recipes(kernel: &GmKernel, block: &Block, out: &mut HashMap<ValueId, (GmOp, usize)>) {
        for op in &block.ops {
            match &op.kind {
                GmOpKind::Constant(_) => {
                    out.insert(op.results[0], (op.clone(), 1));
                }
                GmOpKind::Arith(_) => {
                    let cost = op.operands.iter().try_fold(1, |n, v| match out.get(v) {
                        Some((_, c)) => Some(n + c),
                        None => kernel.args.contains(v).then_some(n),
                    });
                    if let Some(cost) = cost.filter(|&c| c <= REMAKE_LIMIT) {
                        out.insert(op.results[0], (op.clone(), cost));
                    }
                }
                GmOpKind::For(body) => recipes(kernel, body, out),
                _ => {}
            }
        }
    }
    /// A copy of `v` made by ops appended to `ops`.
    fn copy_of(
        kernel: &mut GmKernel,
        v: ValueId,
        known: &HashMap<ValueId, (GmOp, usize)>,
        loc: &ptoc_ir::Location,
        ops: &mut Vec<GmOp>,
    ) -> ValueId {
        let (recipe, _) = &known[&v];
        let operands = (recipe.operands.iter())
            .map(|&o| match known.contains_key(&o) {
                true => copy_of(kernel, o, known, loc, ops),
                false => o,
            })
            .collect();
        let value = kernel.value(v).clone();
        let copy = kernel.add_value(value.name, value.ty, GmDef::Result(0));
        ops.push(GmOp {
            kind: recipe.kind.clone(),
            operands,
            results: vec![copy],
            loc: loc.clone(),
            attrs: Default::default(),
        });
        copy
    }
    fn remake(
        kernel: &mut GmKernel,
        block: &mut Block,
        known: &HashMap<ValueId, (GmOp, usize)>,
    ) -> bool {
        let mut changed = false;
        let mut ops = Vec::with_capacity(block.ops.len());
        for mut op in std::mem::take(&mut block.ops) {
            let mut copies: HashMap<ValueId, ValueId> = HashMap::new();
            for i in 0..op.operands.len() {
                let v = op.operands[i];
                if !known.contains_key(&v) {
                    continue;
                }
                let copy = match copies.get(&v) {
                    Some(&c) => c,
                    None => {
                        let c = copy_of(kernel, v, known, &op.loc, &mut ops);
                        copies.insert(v, c);
                        c
                    }
                };
                op.operands[i] = copy;
                changed = true;
            }
            if let GmOpKind::For(body) = &mut op.kind {
                changed |= remake(kernel, body, known);
            }
            ops.push(op);
        }
        block.ops = ops;
        changed
    }
    let mut remade = kernel.clone();
    let mut known = HashMap::new();
    recipes(&remade, &remade.body, &mut known);
    let mut body = std::mem::take(&mut remade.body);
    let changed = remake(&mut remade, &mut body, &known);
    remade.body = body;
    changed.then_some(remade)
}

/// Whether a value lives in a GPR (scalars; memrefs are arguments).
fn is_scalar(kernel: &GmKernel, v: ValueId) -> bool {
    matches!(kernel.ty(v), Type::Scalar(_))
}

/// Linear-scan allocation of every non-argument scalar value over `pool`.
fn allocate_gprs(
    kernel: &GmKernel,
    constants: &HashMap<ValueId, u64>,
    pool: &[u8],
    gprs: &mut HashMap<ValueId, u8>,
) -> Result<(), Diagnostic> {
    // Positions in program order; a loop spans [start, end] with its latch at `end`.
    struct Walk<'a> {
        kernel: &'a GmKernel,
        constants: &'a HashMap<ValueId, u64>,
        pos: usize,
        def: HashMap<ValueId, (usize, Location)>,
        end: HashMap<ValueId, usize>,
        /// Loops enclosing the current op: (start, end placeholder index).
        loops: Vec<usize>,
        /// Every use: (value, position, enclosing loop starts).
        uses: Vec<(ValueId, usize, Vec<usize>)>,
        loop_end: HashMap<usize, usize>,
        /// Carried scalars: block arg and result share one register.
        tied: Vec<(ValueId, ValueId)>,
    }
    impl Walk<'_> {
        fn block(&mut self, block: &Block) {
            for op in &block.ops {
                self.pos += 1;
                let here = self.pos;
                for &v in &op.operands {
                    self.uses.push((v, here, self.loops.clone()));
                }
                match &op.kind {
                    GmOpKind::For(body) => {
                        for &a in &body.args {
                            self.def.insert(a, (here, op.loc.clone()));
                        }
                        self.loops.push(here);
                        self.block(body);
                        self.loops.pop();
                        self.pos += 1;
                        let end = self.pos;
                        self.loop_end.insert(here, end);
                        // The latch reads the iv, the yielded values, and ub and step unless
                        // they are immediates.
                        let (ub, step) = loop_immediates(op, self.constants);
                        let bounds = [(op.operands[1], ub), (op.operands[2], step)];
                        let registers = bounds.iter().filter(|b| b.1.is_none()).map(|b| b.0);
                        for v in registers.chain(body.args[..1].iter().copied()) {
                            self.uses.push((v, end, self.loops.clone()));
                        }
                        for c in op.carried() {
                            self.uses.push((c.arg, end, self.loops.clone()));
                            if is_scalar(self.kernel, c.arg) {
                                self.tied.push((c.arg, c.result));
                            }
                        }
                        for &r in &op.results {
                            self.def.insert(r, (end, op.loc.clone()));
                        }
                    }
                    _ => {
                        for &r in &op.results {
                            self.def.insert(r, (here, op.loc.clone()));
                        }
                    }
                }
            }
        }
    }
    let mut w = Walk {
        kernel,
        constants,
        pos: 0,
        def: HashMap::new(),
        end: HashMap::new(),
        loops: Vec::new(),
        uses: Vec::new(),
        loop_end: HashMap::new(),
        tied: Vec::new(),
    };
    w.block(&kernel.body);
    let uses = std::mem::take(&mut w.uses);
    for (v, at, loops) in uses {
        let d = w.def.get(&v).map_or(0, |d| d.0);
        let mut end = at;
        // Read inside a loop it was defined outside of: alive until that loop's latch.
        for start in loops {
            if start > d {
                end = end.max(w.loop_end[&start]);
            }
        }
        let e = w.end.entry(v).or_insert(0);
        *e = (*e).max(end);
    }
    // Intervals; a carried scalar's block argument and loop result form one.
    let mut merged: HashMap<ValueId, ValueId> = HashMap::new();
    for &(a, r) in &w.tied {
        merged.insert(r, a);
    }
    let mut intervals: HashMap<ValueId, (usize, usize, Location)> = HashMap::new();
    for (&v, (d, loc)) in &w.def {
        if !is_scalar(kernel, v) || gprs.contains_key(&v) {
            continue;
        }
        let key = merged.get(&v).copied().unwrap_or(v);
        let end = w.end.get(&v).copied().unwrap_or(*d);
        let entry = intervals.entry(key).or_insert((*d, *d, loc.clone()));
        entry.0 = entry.0.min(*d);
        entry.1 = entry.1.max(end).max(*d);
    }
    let mut order: Vec<(usize, usize, ValueId, Location)> = intervals
        .into_iter()
        .map(|(v, (s, e, loc))| (s, e, v, loc))
        .collect();
    order.sort_by_key(|x| (x.0, x.2));
    let mut active: Vec<(usize, u8)> = Vec::new();
    let mut free: Vec<u8> = pool.iter().rev().copied().collect();
    for (start, end, v, loc) in order {
        active.retain(|&(e, r)| {
            if e < start {
                free.push(r);
                false
            } else {
                true
            }
        });
        free.sort_unstable_by(|a, b| b.cmp(a));
        let r = free.pop().ok_or_else(|| {
            Diagnostic::error(
                loc.clone(),
                format!(
                    "needs more than the {} general-purpose registers the arguments leave for \
                     scalar values alive at once",
                    pool.len()
                ),
            )
        })?;
        active.push((end, r));
        gprs.insert(v, r);
    }
    for (a, r) in w.tied {
        if let Some(&g) = gprs.get(&a) {
            gprs.insert(r, g);
        }
    }
    Ok(())
}

fn scalar(mnemonic: &str) -> ScalarInst {
    ScalarInst::of(mnemonic).expect("a row of the scalar table")
}

/// `op left, right, ->dst` in a register form with no modifier.
fn reg_op(mnemonic: &str, dst: u8, left: u8, right: u8) -> Instruction {
    let info = by_mnemonic(mnemonic).expect("a row of the scalar table");
    let rtype = ScalarInst::rtype_for(info, Modifier::None).unwrap_or(0);
    Instruction::Scalar(ScalarInst {
        dst,
        left,
        right,
        rtype,
        ..scalar(mnemonic)
    })
}

/// `dst = left + (right << shift)`.
fn add_shifted(dst: u8, left: u8, right: u8, shift: u8) -> Instruction {
    match reg_op("ADD", dst, left, right) {
        Instruction::Scalar(i) => Instruction::Scalar(ScalarInst { shamt: shift, ..i }),
        other => other,
    }
}

fn imm_op(mnemonic: &str, dst: u8, left: u8, imm: i64) -> Instruction {
    Instruction::Scalar(ScalarInst {
        dst,
        left,
        imm,
        ..scalar(mnemonic)
    })
}

/// `dst = value`, exactly, for any 64-bit value (docs/isa.md §11.5): a signed 32-bit value with
/// ADDI/SUBI or LUI (+ ADDI); wider ones from their top bits, then 12 bits at a time with
/// SLLI 12 + ADDI (ADDI's immediate is zero-extended, so no carry crosses the chunks).
pub fn materialize(dst: u8, value: u64) -> Vec<Instruction> {
    let v = value as i64;
    let mut shift = 0;
    while (v >> shift) != ((v >> shift) as i32) as i64 {
        shift += 12;
    }
    let top = (v >> shift) as i32;
    let mut out = Vec::new();
    if (0..4096).contains(&top) {
        out.push(imm_op("ADDI", dst, ZERO, top as i64));
    } else if (-4095..0).contains(&top) {
        out.push(imm_op("SUBI", dst, ZERO, -(top as i64)));
    } else {
        let lo = top & 0xFFF;
        let hi = (top - lo) >> 12;
        out.push(Instruction::Scalar(ScalarInst {
            dst,
            imm: (hi as i64) & 0xF_FFFF,
            ..scalar("LUI")
        }));
        if lo != 0 {
            out.push(imm_op("ADDI", dst, dst, lo as i64));
        }
    }
    while shift > 0 {
        shift -= 12;
        out.push(imm_op("SLLI", dst, dst, 12));
        let chunk = (v >> shift) & 0xFFF;
        if chunk != 0 {
            out.push(imm_op("ADDI", dst, dst, chunk));
        }
    }
    out
}

/// Copy `src` to `dst`.
fn mov(dst: u8, src: u8) -> Instruction {
    imm_op("ADDI", dst, src, 0)
}

/// `(dst, src)` copies done as if at once, using `T1` to break a cycle.
fn parallel_copy(mut moves: Vec<(u8, u8)>) -> Vec<Instruction> {
    moves.retain(|(d, s)| d != s);
    let mut out = Vec::new();
    while !moves.is_empty() {
        if let Some(i) = moves
            .iter()
            .position(|&(d, _)| !moves.iter().any(|&(_, s)| s == d))
        {
            let (d, s) = moves.remove(i);
            out.push(mov(d, s));
        } else {
            let (_, s) = moves[0];
            out.push(mov(T1, s));
            for m in &mut moves {
                if m.1 == s {
                    m.1 = T1;
                }
            }
        }
    }
    out
}

/// Bits of an integer scalar type (`index` is 64); `None` for a float.
fn int_width(ty: ScalarType) -> Option<u32> {
    match ty {
        ScalarType::Index => Some(64),
        ScalarType::Element(t) if t.is_integer() => Some(t.bits()),
        ScalarType::Element(_) => None,
    }
}

/// The scalar instructions of an `arith` op at width `w` on values held zero-extended.
fn arith(op: ArithOp, w: u32, dst: u8, a: u8, b: u8) -> Vec<Instruction> {
    let narrow = w < 64;
    let pad = (64 - w) as i64;
    let zext = |r: u8| vec![imm_op("SLLI", r, r, pad), imm_op("SRLI", r, r, pad)];
    let sext = |t: u8, r: u8| vec![imm_op("SLLI", t, r, pad), imm_op("SRAI", t, t, pad)];
    // (mnemonic, operands signed, result needs re-zero-extending)
    let (mnemonic, signed, rezero) = match op {
        ArithOp::AddI => ("ADD", false, true),
        ArithOp::SubI => ("SUB", false, true),
        ArithOp::MulI => ("MUL", false, true),
        ArithOp::ShLI => ("SLL", false, true),
        ArithOp::AndI => ("AND", false, false),
        ArithOp::OrI => ("OR", false, false),
        ArithOp::XOrI => ("XOR", false, false),
        ArithOp::DivUI => ("DIVU", false, false),
        ArithOp::RemUI => ("REMU", false, false),
        ArithOp::MinUI => ("MINU", false, false),
        ArithOp::MaxUI => ("MAXU", false, false),
        ArithOp::ShRUI => ("SRL", false, false),
        ArithOp::DivSI => ("DIV", true, true),
        ArithOp::RemSI => ("REM", true, true),
        ArithOp::MinSI => ("MIN", true, true),
        ArithOp::MaxSI => ("MAX", true, true),
        ArithOp::ShRSI => ("SRA", true, true),
    };
    let mut out = Vec::new();
    let (l, r) = if narrow && signed {
        out.extend(sext(T2, a));
        // A shift amount is read unsigned.
        if op == ArithOp::ShRSI {
            (T2, b)
        } else {
            out.extend(sext(T3, b));
            (T2, T3)
        }
    } else {
        (a, b)
    };
    out.push(reg_op(mnemonic, dst, l, r));
    if narrow && rezero {
        out.extend(zext(dst));
    }
    out
}

struct Emitter<'k> {
    kernel: &'k GmKernel,
    /// The kernel's constants, for [`loop_immediates`].
    constants: HashMap<ValueId, u64>,
    gprs: HashMap<ValueId, u8>,
    metas: HashMap<ValueId, TileMeta>,
    mask: PeMask,
    bundles: Vec<Bundle>,
    /// Scalar instructions waiting for their standard block.
    pending: Vec<Instruction>,
    pending_origin: Option<Origin>,
    /// Each label's bundle index (`None` until placed).
    labels: Vec<Option<usize>>,
    /// (bundle index of a BSTART.STD COND, label it branches to).
    fixups: Vec<(usize, usize)>,
    errors: Vec<Diagnostic>,
}

fn origin(kernel: &GmKernel, op: &GmOp, name: &str) -> Origin {
    let value = op
        .results
        .first()
        .map(|&r| kernel.display_name(r))
        .unwrap_or_default();
    Origin {
        value,
        op: name.to_string(),
        loc: op.loc.clone(),
    }
}

impl Emitter<'_> {
    fn gpr(&mut self, v: ValueId, loc: &Location) -> u8 {
        match self.gprs.get(&v) {
            Some(&g) => g,
            None => {
                self.errors.push(Diagnostic::error(
                    loc.clone(),
                    format!("%{} has no register", self.kernel.display_name(v)),
                ));
                ZERO
            }
        }
    }

    fn scalar_code(&mut self, insts: Vec<Instruction>, o: Origin) {
        if self.pending_origin.is_none() {
            self.pending_origin = Some(o);
        }
        self.pending.extend(insts);
    }

    /// Close the pending scalar instructions into a `BSTART.STD FALL` block.
    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut insts = vec![Instruction::BStartStd(StdStart {
            transfer: Transfer::Fall,
            offset: 0,
        })];
        insts.append(&mut self.pending);
        insts.push(Instruction::BStop);
        self.bundles.push(Bundle {
            origin: self.pending_origin.take(),
            words: insts.iter().map(Instruction::encode).collect(),
        });
    }

    fn push_bundle(&mut self, insts: &[Instruction], o: Option<Origin>) {
        self.flush();
        self.bundles.push(Bundle {
            origin: o,
            words: insts.iter().map(Instruction::encode).collect(),
        });
    }

    fn new_label(&mut self) -> usize {
        self.labels.push(None);
        self.labels.len() - 1
    }

    fn place(&mut self, label: usize) {
        self.flush();
        self.labels[label] = Some(self.bundles.len());
    }

    /// A `BSTART.STD COND` block to `label` with `body` (ending in its SETC).
    fn cond_block(&mut self, label: usize, body: Vec<Instruction>, o: Origin) {
        self.flush();
        let mut insts = vec![Instruction::BStartStd(StdStart {
            transfer: Transfer::Cond,
            offset: 0,
        })];
        insts.extend(body);
        insts.push(Instruction::BStop);
        self.fixups.push((self.bundles.len(), label));
        self.push_bundle(&insts, Some(o));
    }

    /// Resolve branch offsets once every bundle's address is known.
    fn patch(&mut self) {
        let mut addr = Vec::with_capacity(self.bundles.len() + 1);
        let mut at = 0i64;
        for b in &self.bundles {
            addr.push(at);
            at += 4 * b.words.len() as i64;
        }
        addr.push(at);
        for &(bundle, label) in &self.fixups {
            let Some(target) = self.labels[label] else {
                continue;
            };
            let offset = addr[target] - addr[bundle];
            if offset.abs() >= StdStart::REACH as i64 {
                self.errors.push(Diagnostic::error(
                    self.kernel.loc.clone(),
                    format!("a loop spans {offset} bytes; BSTART.STD reaches ±128 KiB"),
                ));
                continue;
            }
            self.bundles[bundle].words[0] = Instruction::BStartStd(StdStart {
                transfer: Transfer::Cond,
                offset: offset as i32,
            })
            .encode();
        }
    }

    /// The codes `pto.srcs` gives for an op's tile operands.
    fn srcs(&mut self, op: &GmOp) -> Vec<TileReg> {
        let parsed = match op.attrs.get(SRCS) {
            Some(Attr::Str(s)) if !s.is_empty() => s
                .split(',')
                .map(crate::metadata::parse_register)
                .collect::<Option<Vec<_>>>(),
            Some(Attr::Str(_)) => Some(Vec::new()),
            _ => None,
        };
        parsed.unwrap_or_else(|| {
            self.errors.push(Diagnostic::error(
                op.loc.clone(),
                format!("missing or malformed {SRCS} (run pto-allocate first)"),
            ));
            Vec::new()
        })
    }

    /// The tile the op at `op` writes, from its allocation attributes.
    fn dest(&mut self, op: &GmOp) -> Option<TileMeta> {
        let r = *op.results.first()?;
        let Type::Tile(ty) = self.kernel.ty(r) else {
            return None;
        };
        let name = format!("t{}", r.0);
        match tile_meta(name, ty, &op.attrs) {
            Ok(t) => {
                self.metas.insert(r, t.clone());
                Some(t)
            }
            Err(m) => {
                self.errors.push(Diagnostic::error(op.loc.clone(), m));
                None
            }
        }
    }

    /// The tile operands of `op`, each named by its `pto.srcs` code.
    fn sources(&mut self, op: &GmOp) -> Option<Vec<TileMeta>> {
        let codes = self.srcs(op);
        let tiles: Vec<ValueId> = op
            .operands
            .iter()
            .copied()
            .filter(|&v| self.kernel.ty(v).tile().is_some())
            .collect();
        if codes.len() != tiles.len() {
            self.errors.push(Diagnostic::error(
                op.loc.clone(),
                format!(
                    "{SRCS} names {} tiles; the op reads {}",
                    codes.len(),
                    tiles.len()
                ),
            ));
            return None;
        }
        let mut out = Vec::new();
        for (v, code) in tiles.into_iter().zip(codes) {
            match self.metas.get(&v) {
                Some(t) => out.push(TileMeta {
                    register: code,
                    ..t.clone()
                }),
                None => {
                    self.errors.push(Diagnostic::error(
                        op.loc.clone(),
                        format!("tile %{} has no allocation", self.kernel.display_name(v)),
                    ));
                    return None;
                }
            }
        }
        Some(out)
    }

    /// Scalar code putting `mem[row, col]`'s address in T1 and the row stride in T2 (the
    /// bounds were checked up front by [`check_bounds`]).
    fn address(
        &mut self,
        op: &GmOp,
        mem: ValueId,
        (row, col): (ValueId, ValueId),
    ) -> Option<DataType> {
        let Type::MemRef(m) = self.kernel.ty(mem).clone() else {
            self.errors.push(Diagnostic::error(
                op.loc.clone(),
                "the memory operand is not a memref",
            ));
            return None;
        };
        let base = self.gpr(mem, &op.loc);
        let row = self.gpr(row, &op.loc);
        let col = self.gpr(col, &op.loc);
        let stride = m.row_stride_bytes();
        let elem = u64::from(m.dtype.bits()).div_ceil(8);
        let mut insts = materialize(T2, stride);
        if stride.is_power_of_two() && stride.trailing_zeros() < 32 {
            insts.push(add_shifted(T1, base, row, stride.trailing_zeros() as u8));
        } else {
            insts.push(reg_op("MUL", T1, row, T2));
            insts.push(add_shifted(T1, base, T1, 0));
        }
        insts.push(add_shifted(T1, T1, col, elem.trailing_zeros() as u8));
        let name = match op.kind {
            GmOpKind::Load => "pto.tload",
            _ => "pto.tstore",
        };
        self.scalar_code(insts, origin(self.kernel, op, name));
        Some(m.dtype)
    }

    fn block(&mut self, block: &Block) {
        for op in &block.ops {
            self.op(op);
        }
    }

    fn op(&mut self, op: &GmOp) {
        let err = |m: String| Diagnostic::error(op.loc.clone(), m);
        match &op.kind {
            GmOpKind::Constant(bits) => {
                let dst = self.gpr(op.results[0], &op.loc);
                let o = origin(self.kernel, op, "arith.constant");
                self.scalar_code(materialize(dst, *bits), o);
            }
            GmOpKind::Arith(a) => {
                let ty = self.kernel.ty(op.results[0]).scalar();
                let Some(w) = ty.and_then(int_width) else {
                    self.errors.push(err(format!(
                        "{} needs integer or index operands",
                        a.mlir_name()
                    )));
                    return;
                };
                let dst = self.gpr(op.results[0], &op.loc);
                let l = self.gpr(op.operands[0], &op.loc);
                let r = self.gpr(op.operands[1], &op.loc);
                let o = origin(self.kernel, op, a.mlir_name());
                self.scalar_code(arith(*a, w, dst, l, r), o);
            }
            GmOpKind::Load => {
                let Some(dst) = self.dest(op) else { return };
                let at = (op.operands[1], op.operands[2]);
                let Some(dtype) = self.address(op, op.operands[0], at) else {
                    return;
                };
                if dtype != dst.dtype {
                    self.errors.push(err(format!(
                        "loads a {} tile from a memref of {dtype}",
                        dst.dtype
                    )));
                    return;
                }
                let mut insts = vec![Instruction::BStartTlsu(TlsuStart {
                    op: TlsuOp::Load,
                    dtype: Some(dtype),
                })];
                // Into a CUBE layout: the transport B.DATR with the type's pad, and both LB0
                // and LB1 but no LB2 (docs/isa.md §18.2).
                let cube = dst.layout.load_code();
                if let Some(code) = cube {
                    insts.push(Instruction::BDatr(Datr {
                        layout: code,
                        ..Datr::with(None, dst.pad)
                    }));
                }
                for (lb, value, needed) in [
                    (0, dst.valid_cols, true),
                    (1, dst.valid_rows, dst.valid_rows != 1 || cube.is_some()),
                    (2, dst.cols, dst.cols != dst.valid_cols && cube.is_none()),
                ] {
                    if !(1..=MAX_DIM).contains(&value) {
                        self.errors
                            .push(err(format!("LB{lb} = {value} is outside 1..={MAX_DIM}")));
                        return;
                    }
                    if needed {
                        insts.push(Instruction::BDim(Dim {
                            lb,
                            reg: 0,
                            imm: value,
                        }));
                    }
                }
                insts.push(Instruction::BIot(Iot {
                    sources: IotSources::None,
                    last: true,
                    mask: self.mask,
                    dst: Some((dst.register.hand(), dst.size_code)),
                }));
                insts.push(Instruction::BIor(Ior {
                    dst: 0,
                    src: [T1, T2, 0],
                }));
                insts.push(Instruction::BStop);
                let o = origin(self.kernel, op, "pto.tload");
                self.push_bundle(&insts, Some(o));
            }
            GmOpKind::Store => {
                let Some(src) = self.sources(op) else { return };
                let Some(src) = src.first() else { return };
                let at = (op.operands[2], op.operands[3]);
                let Some(dtype) = self.address(op, op.operands[1], at) else {
                    return;
                };
                if dtype != src.dtype {
                    self.errors.push(err(format!(
                        "stores a {} tile to a memref of {dtype}",
                        src.dtype
                    )));
                    return;
                }
                let mut insts = vec![Instruction::BStartTlsu(TlsuStart {
                    op: TlsuOp::Store,
                    dtype: Some(dtype),
                })];
                // Out of a CUBE layout: its store conversion and the valid shape in LB0/LB1.
                if let Some(code) = src.layout.store_code() {
                    insts.push(Instruction::BDatr(Datr {
                        layout: code,
                        ..Datr::with(None, PadValue::Zero)
                    }));
                    for (lb, imm) in [(0, src.valid_cols), (1, src.valid_rows)] {
                        insts.push(Instruction::BDim(Dim { lb, reg: 0, imm }));
                    }
                }
                insts.extend([
                    Instruction::BIot(Iot {
                        sources: IotSources::One(src.register),
                        last: true,
                        mask: self.mask,
                        dst: None,
                    }),
                    Instruction::BIor(Ior {
                        dst: 0,
                        src: [T1, T2, 0],
                    }),
                    Instruction::BStop,
                ]);
                let o = origin(self.kernel, op, "pto.tstore");
                self.push_bundle(&insts, Some(o));
            }
            GmOpKind::Tile { info, control } => {
                let Some(sources) = self.sources(op) else {
                    return;
                };
                let Some(dst) = self.dest(op) else { return };
                let refs: Vec<&TileMeta> = sources.iter().collect();
                // A tile-scalar op's scalar is its last operand, read through B.IOR from its GPR.
                let scalar = match info.takes_scalar() {
                    true => match op.operands.last() {
                        Some(&v) if is_scalar(self.kernel, v) => Some(self.gpr(v, &op.loc)),
                        _ => {
                            self.errors.push(err(format!(
                                "{} needs a scalar as its last operand",
                                info.mlir_name()
                            )));
                            return;
                        }
                    },
                    false => None,
                };
                let bundle = tile_bundle(
                    info, *control, &op.attrs, &op.loc, &refs, &dst, scalar, self.mask,
                );
                match bundle {
                    Ok(insts) => {
                        let o = origin(self.kernel, op, &info.mlir_name());
                        self.push_bundle(&insts, Some(o));
                    }
                    Err(d) => self.errors.push(d),
                }
            }
            GmOpKind::For(body) => self.for_loop(op, body),
            GmOpKind::Yield | GmOpKind::Return => {}
        }
    }

    fn for_loop(&mut self, op: &GmOp, body: &Block) {
        let o = origin(self.kernel, op, "scf.for");
        let lb = self.gpr(op.operands[0], &op.loc);
        let (ub_imm, step_imm) = loop_immediates(op, &self.constants);
        // `iv >= ub` (the guard) or `iv < ub` (the latch), against a register or immediate.
        let test = |this: &mut Self, iv: u8, cond: &str| match ub_imm {
            Some(imm) => Instruction::Scalar(ScalarInst {
                left: iv,
                imm,
                ..scalar(&format!("SETC.{cond}I"))
            }),
            None => Instruction::Scalar(ScalarInst {
                left: iv,
                right: this.gpr(op.operands[1], &op.loc),
                ..scalar(&format!("SETC.{cond}"))
            }),
        };
        let iv = self.gpr(body.args[0], &op.loc);
        // Carried tiles start where their inits are; carried scalars are copied in.
        let carried = op.carried();
        let mut copies = Vec::new();
        for c in &carried {
            match self.kernel.ty(c.arg) {
                Type::Tile(_) => {
                    if let Some(t) = self.metas.get(&c.init).cloned() {
                        self.metas.insert(c.arg, t.clone());
                        self.metas.insert(c.result, t);
                    }
                }
                _ => {
                    let (a, i) = (self.gpr(c.arg, &op.loc), self.gpr(c.init, &op.loc));
                    copies.push((a, i));
                }
            }
        }
        let exit = self.new_label();
        let top = self.new_label();
        let mut guard = parallel_copy(copies);
        guard.push(mov(iv, lb));
        guard.push(test(self, iv, "GE"));
        self.cond_block(exit, guard, o.clone());
        self.place(top);
        self.block(body);
        let mut moves = Vec::new();
        for c in carried.iter().filter(|c| is_scalar(self.kernel, c.arg)) {
            let Some(y) = c.yielded else {
                self.errors.push(Diagnostic::error(
                    op.loc.clone(),
                    "the loop body yields fewer values than the loop carries",
                ));
                return;
            };
            moves.push((self.gpr(c.arg, &op.loc), self.gpr(y, &op.loc)));
        }
        let mut latch = parallel_copy(moves);
        latch.push(match step_imm {
            Some(imm) => imm_op("ADDI", iv, iv, imm),
            None => add_shifted(iv, iv, self.gpr(op.operands[2], &op.loc), 0),
        });
        latch.push(test(self, iv, "LT"));
        self.cond_block(top, latch, o);
        self.place(exit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run `insts` on a reference: the scalar semantics as docs/isa.md §11.4–§11.5 state them.
    fn eval(insts: &[Instruction], regs: &mut [u64; 32]) {
        for i in insts {
            let Instruction::Scalar(s) = i else {
                panic!("{i:?}")
            };
            let l = regs[s.left as usize];
            let v = match s.info.mnemonic {
                "ADDI" => l.wrapping_add(s.imm as u64),
                "SUBI" => l.wrapping_sub(s.imm as u64),
                "SLLI" => l << s.imm,
                "LUI" => ((s.imm << 44) >> 32) as u64,
                other => panic!("{other}"),
            };
            if s.dst != 0 {
                regs[s.dst as usize] = v;
            }
        }
    }

    #[test]
    fn constants_materialize_exactly() {
        let cases = [
            0u64,
            1,
            4095,
            4096,
            0x1234_5678,
            (-1i64) as u64,
            (-4095i64) as u64,
            (-4096i64) as u64,
            (-5000i64) as u64,
            0x3F80_0000,
            0xBF80_0000,
            0x8000_0000,
            0xFFFF_FFFF,
            0x1_0000_0000,
            i64::MIN as u64,
            i64::MAX as u64,
            0x0123_4567_89AB_CDEF,
            0xFEDC_BA98_7654_3210,
        ];
        for v in cases {
            let insts = materialize(5, v);
            let mut regs = [0u64; 32];
            eval(&insts, &mut regs);
            assert_eq!(regs[5], v, "{v:#x}: {insts:?}");
            assert!(insts.len() <= 11, "{v:#x} takes {}", insts.len());
        }
        // The §11.5 examples: 0x12345678 is LUI 0x12345 + ADDI 0x678.
        assert_eq!(materialize(5, 0x1234_5678).len(), 2);
        assert_eq!(materialize(5, 42).len(), 1);
    }

    #[test]
    fn parallel_copies_break_cycles() {
        let insts = parallel_copy(vec![(2, 3), (3, 2), (4, 4)]);
        let mut regs = [0u64; 32];
        regs[2] = 20;
        regs[3] = 30;
        regs[4] = 40;
        eval(&insts, &mut regs);
        assert_eq!((regs[2], regs[3], regs[4]), (30, 20, 40));
    }

    /// MLIR's `arith` result at width `w` on zero-extended operands; `None` where MLIR leaves
    /// it undefined (division by zero, signed overflow of a division, shifts by `w` or more).
    fn reference(op: ArithOp, w: u32, a: u64, b: u64) -> Option<u64> {
        let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        let (a, b) = (a & mask, b & mask);
        let sx = |x: u64| ((x << (64 - w)) as i64) >> (64 - w);
        let (sa, sb) = (sx(a), sx(b));
        let min = sx(1u64 << (w - 1));
        let v = match op {
            ArithOp::AddI => a.wrapping_add(b),
            ArithOp::SubI => a.wrapping_sub(b),
            ArithOp::MulI => a.wrapping_mul(b),
            ArithOp::DivSI | ArithOp::RemSI if b == 0 || (sa == min && sb == -1) => return None,
            ArithOp::DivSI => (sa / sb) as u64,
            ArithOp::RemSI => (sa % sb) as u64,
            ArithOp::DivUI | ArithOp::RemUI if b == 0 => return None,
            ArithOp::DivUI => a / b,
            ArithOp::RemUI => a % b,
            ArithOp::MinSI => sa.min(sb) as u64,
            ArithOp::MaxSI => sa.max(sb) as u64,
            ArithOp::MinUI => a.min(b),
            ArithOp::MaxUI => a.max(b),
            ArithOp::AndI => a & b,
            ArithOp::OrI => a | b,
            ArithOp::XOrI => a ^ b,
            ArithOp::ShLI | ArithOp::ShRSI | ArithOp::ShRUI if b >= w as u64 => return None,
            ArithOp::ShLI => a << b,
            ArithOp::ShRSI => (sa >> b) as u64,
            ArithOp::ShRUI => a >> b,
        };
        Some(v & mask)
    }

    #[test]
    fn arith_ops_compute_mlir_semantics_on_the_interpreter() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut checked = 0;
        for w in [64u32, 32, 16, 8] {
            let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let edges = [0, 1, 2, 3, mask, mask - 1, mask >> 1, (mask >> 1) + 1, 7, 5];
            let mut pairs: Vec<(u64, u64)> = edges
                .iter()
                .flat_map(|&a| edges.iter().map(move |&b| (a, b)))
                .collect();
            for _ in 0..40 {
                let (a, b) = (next() & mask, next() & mask);
                pairs.push((a, b));
                pairs.push((a, b % w as u64));
            }
            for op in ArithOp::ALL {
                let expect = pairs
                    .iter()
                    .filter_map(|&(a, b)| Some((a, b, reference(op, w, a, b)?)));
                for (a, b, want) in expect {
                    let mut insts = vec![Instruction::BStartStd(StdStart {
                        transfer: Transfer::Fall,
                        offset: 0,
                    })];
                    insts.extend(materialize(5, a));
                    insts.extend(materialize(6, b));
                    insts.extend(arith(op, w, 7, 5, 6));
                    insts.push(Instruction::BStop);
                    let words: Vec<u32> = insts.iter().map(Instruction::encode).collect();
                    let mut m = ptoc_runtime::Machine::new();
                    m.run(&words).unwrap();
                    assert_eq!(
                        m.gpr(7),
                        want,
                        "{} at width {w}: {a:#x}, {b:#x}",
                        op.mlir_name()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 4000, "{checked}");
    }
}
