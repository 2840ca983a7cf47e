//! The interpreter: 64 Local tile registers, sticky status flags, the scalar core, GM buffers, the
//! block loop (docs/isa.md §12) and the commit of each bundle in the spec's order (docs/isa.md §3.5).
//!
//! Execution follows the program counter: a BSTART commits the open block and opens the next; a
//! standard block's commit picks the next address (its target when DIRECT, or COND and its SETC
//! held; docs/isa.md §12.2, §17 decision 38); a kernel ends when the counter reaches the end of its
//! words with no block open (§17 decision 39). Scalar instructions run as they are reached.
//!
//! A bundle executes when it commits (at BSTOP or the next BSTART). Commit checks, in order: empty
//! (mask-0) stream, op decode, binding completeness, B.IOR/B.IOS, B.DATR applicability, the closed
//! schema (types, B.DIM geometry, EXPDIF pair, integer divisors), destination resolution (effective
//! type, renaming to the lowest free register of the hand, core capacity, derived shape), then
//! operand legality (definedness, types, encodings, shapes), execution and atomic publication.
//! Any fault publishes nothing: every tile and flag stays as it was before the bundle.

use crate::bundle::{Block, Start};
use crate::elements::{Definedness, Elements};
use crate::gm::Gm;
use crate::kernels::{self, first_zero_divisor, Job, View};
use crate::lines::LineVec;
use crate::numerics::Flags;
use crate::program::Decoded;
use crate::scalar::{Effect, ScalarCore};
use crate::tile::Tile;
use ptoc_isa::encoding::{Datr, StdStart, Transfer};
use ptoc_isa::geometry::LOCAL_REGISTERS;
use ptoc_isa::ops::{by_selector, OperandRole};
use ptoc_isa::profile::{NamingModel, PROFILE};
use ptoc_isa::regfile::Placement;
use ptoc_isa::scalar::{ScalarInst, ScalarOp};
use ptoc_isa::{
    Axis, CmpMode, DataType, ElementOp, FaultClass, Geometry, Hand, Instruction, NumericControl,
    OpInfo, OpKind, PadValue, PeMask, RegisterFile, ResultKind, SizeCode, Storage, TileReg,
};
use std::fmt;

/// A precise fault: its class, the 0-based bundle it happened in (counting every block started,
/// in execution order), the byte address of that block's BSTART (or of the faulting instruction
/// outside a block), the GM element address of a GM fault, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The fault class (docs/isa.md §3.5).
    pub class: FaultClass,
    /// The 0-based bundle, counting every block started.
    pub bundle: usize,
    /// Byte address of the bundle's BSTART, or of the faulting instruction outside a block.
    pub pc: u64,
    /// The GM element address of a GM fault (docs/isa.md §15).
    pub address: Option<u64>,
    /// Why, in words.
    pub message: String,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} in bundle {}", self.class, self.bundle)?;
        if let Some(a) = self.address {
            write!(f, " at GM address {a:#x}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Watches a run bundle by bundle ([`Machine::run_observed`]).
trait Observer {
    /// `bundles` bundles have started.
    fn started(&mut self, bundles: usize);
}

/// No observer: nothing to do, nothing left in the loop.
impl Observer for () {
    #[inline(always)]
    fn started(&mut self, _: usize) {}
}

/// Calls `observer` once every `every` bundles.
struct Every<F> {
    every: usize,
    /// The bundle count of the next call.
    next: usize,
    observer: F,
}

impl<F: FnMut(usize)> Observer for Every<F> {
    #[inline(always)]
    fn started(&mut self, bundles: usize) {
        if bundles >= self.next {
            self.next = bundles + self.every;
            (self.observer)(bundles);
        }
    }
}

/// How many instructions [`Machine::run`] executes before it stops a kernel that does not end.
pub const DEFAULT_STEP_LIMIT: u64 = 1 << 32;

impl std::error::Error for Fault {}

/// Why the loader could not place an argument tile.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot load {reg}: {reason}")]
pub struct LoadError {
    /// The register the tile was meant for.
    pub reg: TileReg,
    /// Why it cannot go there.
    pub reason: String,
}

/// The interpreter: one core's tile registers, scalar core, GM and status flags, running encoded
/// words ([`Machine::run`]).
#[derive(Clone, Debug)]
pub struct Machine {
    /// The tile each allocated Local register holds.
    pub(crate) regs: Vec<Option<Tile>>,
    /// Which registers are allocated and the capacity they take: the renaming and capacity
    /// rules, shared with the allocator.
    pub(crate) file: RegisterFile,
    pub(crate) flags: Flags,
    scalar: ScalarCore,
    pub(crate) gm: Gm,
    /// BSTARTs executed so far (the index the next bundle gets).
    bundles: usize,
    step_limit: u64,
    /// The last program run, decoded and its static tile blocks prepared, kept between runs: a
    /// loop body's words run many times, and an embedder runs one kernel over input after input.
    /// `None` only while a run holds it, or before the first run.
    program: Option<Decoded>,
}

impl Default for Machine {
    fn default() -> Self {
        Machine::new()
    }
}

pub(crate) type Checked<T> = Result<T, (FaultClass, String)>;

pub(crate) fn legality<T>(msg: impl Into<String>) -> Checked<T> {
    Err((FaultClass::TileLegality, msg.into()))
}

fn allocation<T>(msg: impl Into<String>) -> Checked<T> {
    Err((FaultClass::TileAllocation, msg.into()))
}

/// The full-shape geometry a bundle's B.DIM describes (docs/isa.md §1.3).
pub(crate) type Dims = Geometry<u32>;

/// What commit resolved about the destination before allocating it.
pub(crate) struct Destination {
    /// The hand the destination is pushed onto (renamed within) at publication.
    pub hand: Hand,
    /// Where the push puts it, as previewed before any effect.
    pub placement: Placement,
    /// The capacity the tile takes under its bundle's PE mask.
    pub footprint: u64,
    pub tile: Tile,
    pub pad: PadValue,
}

impl Machine {
    /// A machine at reset under the spec's executable model, absolute naming (what hand-written
    /// words usually assume). A compiled kernel runs under the profile its metadata names
    /// ([`Machine::with_naming`]); the compiler's default is `PROFILE.naming`.
    pub fn new() -> Machine {
        Machine::with_naming(NamingModel::AbsoluteNoFree)
    }

    /// A machine at reset under `naming` (the object's target profile, docs/isa.md §9 decisions
    /// 1–2).
    pub fn with_naming(naming: NamingModel) -> Machine {
        Machine {
            regs: vec![None; LOCAL_REGISTERS as usize],
            file: RegisterFile::with_naming(naming),
            flags: 0,
            scalar: ScalarCore::default(),
            gm: Gm::default(),
            bundles: 0,
            step_limit: DEFAULT_STEP_LIMIT,
            program: None,
        }
    }

    /// The kernel ABI: place a defined argument tile in a named register, allocated under all four
    /// PEs (docs/isa.md §9 decision 10 default mask 1111). Under queue naming the tile is pushed
    /// onto `reg`'s hand, so arguments must be loaded in argument order; the number in `reg` is
    /// the code the tile has once every argument is loaded.
    pub fn load(&mut self, reg: TileReg, tile: Tile) -> Result<(), LoadError> {
        self.load_with_mask(reg, tile, PeMask::ALL_PES)
    }

    /// Place a tile allocated under `mask`. Its physical rows must be those its SizeCode derives
    /// (a tile without one gets the SizeCode that gives its rows), and the core capacity must hold.
    pub fn load_with_mask(
        &mut self,
        reg: TileReg,
        mut tile: Tile,
        mask: PeMask,
    ) -> Result<(), LoadError> {
        let err = |reason: String| Err(LoadError { reg, reason });
        let absolute = self.file.naming() == NamingModel::AbsoluteNoFree;
        if absolute && self.file.is_allocated(reg) {
            return err("the register is already allocated".into());
        }
        if mask.is_noop() {
            return err("mask 0000 allocates nothing".into());
        }
        if !ptoc_isa::dtype::ARITHMETIC.contains(&tile.dtype) {
            return err(format!("{} is not an arithmetic type", tile.dtype));
        }
        if let Err(e) = tile.check_consistent() {
            return err(e.0);
        }
        if tile.layout.is_cube() {
            return self.load_cube(reg, tile, mask);
        }
        let size = match (tile.size_code, tile.storage) {
            (Some(s), _) => s,
            (None, Storage::Numeric) => {
                { SizeCode::giving_rows(tile.rows, tile.cols, tile.dtype.bits()) }
                    .ok_or_else(|| {
                        format!(
                            "no SizeCode gives {} physical rows of {} columns",
                            tile.rows, tile.cols
                        )
                    })
                    .map_err(|reason| LoadError { reg, reason })?
            }
            (None, Storage::Predicate) => SizeCode::for_predicate(tile.rows, tile.cols)
                .ok_or_else(|| format!("no SizeCode holds a {}x{} predicate", tile.rows, tile.cols))
                .map_err(|reason| LoadError { reg, reason })?,
        };
        let fits = match tile.storage {
            Storage::Numeric => size.derived_rows(tile.cols, tile.dtype.bits()) == Some(tile.rows),
            Storage::Predicate => {
                ptoc_isa::geometry::predicate_bytes(tile.rows, tile.cols) <= size.bytes() as u64
            }
        };
        if !fits {
            return err(format!(
                "SizeCode {size} does not hold {} rows of {} columns",
                tile.rows, tile.cols
            ));
        }
        tile.size_code = Some(size);
        // Only the element width is significant (docs/isa.md §1.7): drop anything above it.
        tile.drop_bits_above_width();
        self.place_loaded(reg, tile, size, mask)
    }

    /// Allocate a checked argument tile under `mask` and store it.
    fn place_loaded(
        &mut self,
        reg: TileReg,
        tile: Tile,
        size: SizeCode,
        mask: PeMask,
    ) -> Result<(), LoadError> {
        let err = |reason: String| Err(LoadError { reg, reason });
        let footprint = RegisterFile::footprint(size, mask);
        if let Err(e) = self.file.check_room(footprint) {
            return err(e.to_string());
        }
        let slot = match self.file.naming() {
            NamingModel::AbsoluteNoFree => {
                if self.file.allocate(reg, footprint).is_err() {
                    return err("the register is already allocated".into());
                }
                reg
            }
            NamingModel::Queue => match self.file.place(reg.hand(), footprint) {
                Ok(p) if p.retired.is_none() => p.reg,
                Ok(_) => return err("the hand already holds 16 tiles".into()),
                Err(e) => return err(e.to_string()),
            },
        };
        self.regs[slot.index() as usize] = Some(tile);
        Ok(())
    }

    /// [`Machine::load_with_mask`] for a CUBE-layout tile: its storage must be the layout's
    /// for its valid shape, in its SizeCode or the smallest one holding its cells.
    fn load_cube(&mut self, reg: TileReg, mut tile: Tile, mask: PeMask) -> Result<(), LoadError> {
        let err = |reason: String| Err(LoadError { reg, reason });
        let (layout, dtype) = (tile.layout, tile.dtype);
        let shape = (tile.valid_rows, tile.valid_cols);
        let (Some(storage), Some(need)) = (
            layout.storage(dtype, shape.0, shape.1),
            layout.required_bytes(dtype, shape.0, shape.1),
        ) else {
            return err(format!("no {layout} tile holds {tile}"));
        };
        if storage != (tile.rows, tile.cols) {
            return err(format!(
                "a {layout} tile of valid {}x{} is stored as {}x{}, not {}x{}",
                shape.0, shape.1, storage.0, storage.1, tile.rows, tile.cols
            ));
        }
        let size = match tile.size_code.or_else(|| SizeCode::holding(need)) {
            Some(s) if s.bytes() >= need => s,
            _ => return err(format!("no SizeCode holds the {need} bytes of {tile}")),
        };
        tile.size_code = Some(size);
        tile.drop_bits_above_width();
        self.place_loaded(reg, tile, size, mask)
    }

    /// The tile a source code names, if any (docs/isa.md §9 decisions 1–2).
    pub fn tile(&self, reg: TileReg) -> Option<&Tile> {
        // Under absolute naming the code is the register, and a register holds a tile exactly
        // when it is allocated: no lookup in the register file.
        let slot = match self.file.naming() {
            NamingModel::AbsoluteNoFree => reg,
            NamingModel::Queue => self.file.resolve(reg)?,
        };
        self.regs[slot.index() as usize].as_ref()
    }

    /// The kernel ABI's other end: take a result tile out of its register, which becomes free
    /// (the host's doing; no instruction frees a register, docs/isa.md §3.4).
    pub fn unload(&mut self, reg: TileReg) -> Option<Tile> {
        let slot = self.file.resolve(reg)?;
        self.file.free(slot);
        self.regs[slot.index() as usize].take()
    }

    /// Every allocated register with its tile, in register order.
    pub fn allocated(&self) -> impl Iterator<Item = (TileReg, &Tile)> + '_ {
        self.regs
            .iter()
            .enumerate()
            .filter_map(|(i, t)| Some((TileReg::new(i as u32)?, t.as_ref()?)))
    }

    /// The sticky status flags (NV=0x01 DZ=0x02 OF=0x04 UF=0x08 NX=0x10).
    pub fn flags(&self) -> Flags {
        self.flags
    }

    /// The kernel ABI: set an absolute GPR before the run (selector 0 stays zero).
    pub fn set_gpr(&mut self, selector: usize, value: u64) {
        self.scalar.set_gpr(selector, value);
    }

    /// The value of an absolute GPR (0 for selectors outside 0..23).
    pub fn gpr(&self, selector: usize) -> u64 {
        self.scalar.gprs().get(selector).copied().unwrap_or(0)
    }

    /// The kernel ABI: map a GM buffer (a memref argument's bytes) and return its base address.
    pub fn map_gm(&mut self, bytes: Vec<u8>) -> u64 {
        self.gm.map(bytes)
    }

    /// The bytes of the GM buffer mapped at `base`.
    pub fn gm_buffer(&self, base: u64) -> Option<&[u8]> {
        self.gm.buffer(base)
    }

    /// Stop a kernel after this many executed instructions (a StepLimit fault).
    pub fn set_step_limit(&mut self, steps: u64) {
        self.step_limit = steps;
    }

    /// Σ popcount(mask) × capacity over allocated Local tiles (docs/isa.md §9 decision 12).
    pub fn allocated_bytes(&self) -> u64 {
        self.file.allocated_bytes()
    }

    /// Execute a kernel's 32-bit words from address 0 until the program counter reaches the end
    /// of the words with no block open. Effects before a fault stay; the faulting bundle or
    /// instruction changes nothing.
    pub fn run(&mut self, words: &[u32]) -> Result<(), Fault> {
        self.run_with(words, ())
    }

    /// [`Machine::run`], calling `observer` with the number of bundles started so far each time
    /// another `every` bundles have started (a progress display). The observer only watches:
    /// the run is the same as without it.
    pub fn run_observed(
        &mut self,
        words: &[u32],
        every: usize,
        observer: impl FnMut(usize),
    ) -> Result<(), Fault> {
        let every = every.max(1);
        self.run_with(
            words,
            Every {
                every,
                next: self.bundles + every,
                observer,
            },
        )
    }

    /// The block loop, generic over the observer so that [`Machine::run`] (the `()` observer)
    /// compiles to the loop without any per-bundle check.
    fn run_with(&mut self, words: &[u32], observer: impl Observer) -> Result<(), Fault> {
        let mut program = self.program.take().unwrap_or_default();
        program.set(words);
        let result = self.run_decoded(&program, observer);
        self.program = Some(program);
        result
    }

    /// [`Machine::run_with`] over the program's words and their decoding.
    fn run_decoded(&mut self, program: &Decoded, mut observer: impl Observer) -> Result<(), Fault> {
        let (words, decoded) = (&program.words, &program.instructions);
        let end = words.len() as u64 * 4;
        let mut pc = 0u64;
        let mut block: Option<Block> = None;
        let mut steps = 0u64;
        while pc != end {
            let fault = |class, message: String, block: &Option<Block>| Fault {
                class,
                bundle: block.as_ref().map_or(self.bundles, |b| b.index),
                pc: block.as_ref().map_or(pc, |b| b.pc),
                address: None,
                message,
            };
            steps += 1;
            if steps > self.step_limit {
                let message = format!(
                    "the kernel did not end within {} instructions",
                    self.step_limit
                );
                return Err(fault(FaultClass::StepLimit, message, &block));
            }
            let word = words[(pc / 4) as usize];
            let inst = match &decoded[(pc / 4) as usize] {
                Ok(inst) => inst,
                Err(e) => {
                    return Err(fault(FaultClass::IllegalInstruction, e.to_string(), &block));
                }
            };
            let start = match inst {
                Instruction::BStart(b) => Some(Start::Tile(*b)),
                Instruction::BStartTlsu(t) => Some(Start::Tlsu(*t)),
                Instruction::BStartCube(c) => Some(Start::Cube(*c)),
                Instruction::BStartStd(s) => {
                    check_std_start(*s, pc, end)
                        .map_err(|(class, message)| fault(class, message, &block))?;
                    Some(Start::Std(*s))
                }
                _ => None,
            };
            if let Some(start) = start {
                // A BSTART commits the open block first; a taken branch continues at its target
                // instead of here (docs/isa.md §17 decision 38).
                if let Some(prev) = block.take() {
                    if let Some(target) = self.commit(&prev)? {
                        pc = target;
                        continue;
                    }
                }
                let index = self.bundles;
                self.bundles += 1;
                observer.started(self.bundles);
                // A static tile block commits as prepared, its words counted as steps one each;
                // one the step limit stops inside runs word by word, to fault where it falls.
                if let Some(ready) = program.static_block((pc / 4) as usize) {
                    let rest = (ready.stop - (pc / 4) as usize) as u64;
                    if steps + rest <= self.step_limit {
                        steps += rest;
                        self.commit_prepared(&ready.block, &ready.prepared)
                            .map_err(|e| located(e.into(), index, pc))?;
                        pc = (ready.stop as u64 + 1) * 4;
                        continue;
                    }
                }
                block = Some(Block::open(index, pc, start));
                pc += 4;
                continue;
            }
            match inst {
                Instruction::BStop => match block.take() {
                    Some(b) => pc = self.commit(&b)?.unwrap_or(pc + 4),
                    None => {
                        let message = "BSTOP outside a block".into();
                        return Err(fault(FaultClass::BundleControl, message, &block));
                    }
                },
                Instruction::Scalar(i) => {
                    let effect = execute_scalar(&mut self.scalar, i, block.as_mut())
                        .map_err(|(class, message)| fault(class, message, &block))?;
                    if let (Effect::Condition(c), Some(b)) = (effect, block.as_mut()) {
                        b.taken = Some(c);
                    }
                    pc += 4;
                }
                Instruction::BIot(iot) if iot.mask.is_noop() && block.is_none() => pc += 4,
                header => {
                    match block.as_mut() {
                        Some(b) => b.header(header, self.scalar.gprs()),
                        None => Err((
                            FaultClass::BundleControl,
                            format!("header command {word:#010x} outside a block"),
                        )),
                    }
                    .map_err(|(class, message)| fault(class, message, &block))?;
                    pc += 4;
                }
            }
        }
        match block {
            Some(b) => Err(Fault {
                class: FaultClass::BundleControl,
                bundle: b.index,
                pc: b.pc,
                address: None,
                message: "the program ends inside a block (no BSTOP)".into(),
            }),
            None => Ok(()),
        }
    }

    /// Commit a block: run its tile op, or pick a standard block's continuation. Returns the
    /// branch target when the block transfers control.
    fn commit(&mut self, block: &Block) -> Result<Option<u64>, Fault> {
        let result = match block.start {
            Start::Tile(_) => self.try_commit(block).map(|()| None),
            Start::Tlsu(t) => self.commit_tlsu(block, t).map(|()| None),
            Start::Cube(c) => self.commit_cube(block, c).map(|()| None),
            Start::Std(s) => Ok(branch_target(block, s)),
        };
        result.map_err(|e| located(e, block.index, block.pc))
    }

    fn try_commit(&mut self, block: &Block) -> Result<(), CommitFault> {
        self.try_commit_tile(block).map_err(CommitFault::from)
    }

    fn try_commit_tile(&mut self, block: &Block) -> Checked<()> {
        match prepare_tile(block)? {
            Some(prepared) => self.commit_prepared(block, &prepared),
            None => Ok(()),
        }
    }

    /// Steps 8–10 of a tile commit, after [`prepare_tile`]: everything that reads the tiles, the
    /// register file or the GPRs.
    pub(crate) fn commit_prepared(&mut self, block: &Block, prepared: &Prepared) -> Checked<()> {
        let Prepared {
            op,
            src_type,
            sources,
            source_count,
            dest,
            scalar_gpr,
            pad,
            control,
            dims,
        } = *prepared;
        let sources = self.source_tiles(&sources[..source_count]);
        let dims = match dims {
            Some(dims) => dims,
            None => destination_dims(block, sources.get(0)?.1)?,
        };
        if op.kind == OpKind::Transpose {
            check_row_major_destination(op, block.datr)?;
        }
        let dst_type = destination_type(op, src_type, block.datr)?;
        if op.kind == OpKind::Convert {
            check_tcvt_representation(block.datr)?;
        }
        let scalar = scalar_gpr.map(|r| self.gpr(r));
        self.check_schema(op, src_type, dims, &sources, scalar)?;
        // 9. Destination resolution and allocation checks.
        let mask = block.mask().unwrap_or_default();
        let dst = self.resolve_destination(op, dst_type, dims, &sources, dest, mask, pad)?;
        // 10. Operand legality, execution, publication.
        check_operands(op, src_type, &dst.tile, &sources)?;
        // The relation of an op that reads B.DATR CMode (TCMP); an omitted B.DATR means EQ. A
        // reserved CMode never gets here: the decoder already refused its B.DATR as an illegal
        // instruction (docs/isa.md §1.9). The check stands for the closed TCMP schema's own.
        let cmode = if op.kind.datr_fields().cmode {
            Some(block.datr.map_or(Ok(CmpMode::Eq), |d| {
                CmpMode::from_code(d.cmode).ok_or((
                    FaultClass::TileLegality,
                    format!("CMode {} is reserved", d.cmode),
                ))
            })?)
        } else {
            None
        };
        let (dst, flags) = execute(op, src_type, control, cmode, dims, (&sources, scalar), dst)?;
        self.publish(dst);
        self.flags |= flags;
        Ok(())
    }

    /// Closed schema checks that need the source tiles or the scalar (docs/isa.md §1.3, §1.5,
    /// §1.6, §14).
    fn check_schema(
        &self,
        op: &OpInfo,
        src_type: DataType,
        dims: Dims,
        sources: &SourceTiles,
        scalar: Option<u64>,
    ) -> Checked<()> {
        let full_shape = |i: usize| -> Checked<()> {
            let (reg, t) = sources.get(i)?;
            if t.geometry() != dims {
                return legality(format!(
                    "source {reg} is {} but B.DIM describes valid {}x{} with {} columns",
                    t, dims.valid_rows, dims.valid_cols, dims.cols
                ));
            }
            Ok(())
        };
        match op.kind {
            OpKind::Reduce(..) => full_shape(0)?,
            OpKind::Expand(axis, elem) => {
                let bcast = op
                    .sources
                    .iter()
                    .position(|r| *r == OperandRole::Bcast)
                    .unwrap_or(0);
                if elem.is_some() {
                    full_shape(0)?;
                }
                check_broadcast(axis, sources.get(bcast)?, dims)?;
                if elem == Some(ElementOp::Div) && src_type.is_integer() {
                    check_divisors(op, src_type, dims, sources)?;
                }
            }
            OpKind::Binary(ElementOp::Div) if src_type.is_integer() => {
                check_divisors(op, src_type, dims, sources)?;
            }
            OpKind::Binary(_) | OpKind::Unary(_) | OpKind::Convert | OpKind::Move => {}
            // No closed schema: everything is `TileOperandsLegal_TTRANS`'s, after allocation.
            OpKind::Transpose => {}
            // The matrix ops commit on the CUBE path (`crate::cube`).
            OpKind::Matmul { .. } => {
                return legality(format!("{} is not a tile-element op", op.mnemonic))
            }
            // `SelectedBundleClosedTileScalarBinarySchemaLegal`: the source as B.DIM describes
            // it, then the scalar's encoding and an integer divisor (docs/isa.md §14).
            OpKind::TileScalar(_) => {
                check_sources(op, src_type, sources)?;
                full_shape(0)?;
                if let Some(why) = op.kind.scalar_violation(src_type, scalar.unwrap_or(0)) {
                    return legality(why);
                }
            }
            // `SelectedBundleClosedTEXPANDSSchemaLegal`: type and layout only; the scalar is
            // copied unchecked (§17 decision 48).
            OpKind::FillScalar => {}
            // Their closed schemas check every source before any allocation
            // (`SelectedBundleClosedTCMPSchemaLegal`/`…TSELSchemaLegal`); B.DIM describes the
            // typed source (docs/isa.md §1.9).
            OpKind::Compare | OpKind::Select => {
                check_sources(op, src_type, sources)?;
                full_shape(op.typed_source())?;
                let (_, typed) = sources.get(op.typed_source())?;
                for (source, role) in sources.iter().zip(op.sources) {
                    let (reg, t) = source?;
                    if (t.rows, t.cols, t.valid_rows, t.valid_cols)
                        != (typed.rows, typed.cols, typed.valid_rows, typed.valid_cols)
                    {
                        return legality(format!(
                            "{} {reg} is {t}; the {} is {typed}",
                            role.name(),
                            op.sources[op.typed_source()].name()
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    pub(crate) fn source(&self, reg: TileReg) -> Checked<&Tile> {
        self.tile(reg).ok_or_else(|| not_allocated(reg))
    }

    /// A tile op's sources, each looked up once for all its checks and its kernel.
    fn source_tiles(&self, regs: &[TileReg]) -> SourceTiles<'_> {
        let mut tiles = SourceTiles {
            regs: [TileReg::default(); 3],
            tiles: [None; 3],
            count: regs.len().min(3),
        };
        for (i, &reg) in regs.iter().take(3).enumerate() {
            tiles.regs[i] = reg;
            tiles.tiles[i] = self.tile(reg);
        }
        tiles
    }

    #[allow(clippy::too_many_arguments)]
    fn resolve_destination(
        &self,
        op: &OpInfo,
        dst_type: DataType,
        dims: Dims,
        sources: &SourceTiles,
        (hand, size): (Hand, SizeCode),
        mask: PeMask,
        pad: PadValue,
    ) -> Checked<Destination> {
        if op.result == ResultKind::Predicate {
            let (_, source) = sources.get(op.typed_source())?;
            return self.resolve_predicate(source, (hand, size), mask, pad);
        }
        let out = match op.kind {
            OpKind::Reduce(axis, _) => axis.vector(dims),
            OpKind::Expand(..)
            | OpKind::Binary(_)
            | OpKind::TileScalar(_)
            | OpKind::FillScalar
            | OpKind::Unary(_)
            | OpKind::Convert
            | OpKind::Move
            | OpKind::Transpose
            | OpKind::Compare
            | OpKind::Select
            | OpKind::Matmul { .. } => dims,
        };
        self.new_destination(dst_type, out, hand, size, mask, pad)
    }

    /// Rename, capacity and shape checks for a new destination of geometry `out` (docs/isa.md
    /// §3.3–§3.4); nothing is allocated yet.
    pub(crate) fn new_destination(
        &self,
        dst_type: DataType,
        out: Dims,
        hand: Hand,
        size: SizeCode,
        mask: PeMask,
        pad: PadValue,
    ) -> Checked<Destination> {
        let (cols, valid_rows, valid_cols) = (out.cols, out.valid_rows, out.valid_cols);
        let Some(rows) = size.derived_rows(cols, dst_type.bits()) else {
            return allocation(format!(
                "SizeCode {size} ({} B) derives no rows for {cols} {dst_type} columns",
                size.bytes()
            ));
        };
        let footprint = RegisterFile::footprint(size, mask);
        let placement = self
            .file
            .preview(hand, footprint)
            .or_else(|e| allocation(e.to_string()))?;
        // Derived rows fill the capacity exactly, so a valid region within them fits it.
        if valid_rows > rows || valid_cols > cols {
            return allocation(format!(
                "destination valid {valid_rows}x{valid_cols} does not fit SizeCode {size} ({rows}x{cols} {dst_type})"
            ));
        }
        let tile =
            Tile::allocated_unwritten(dst_type, size, (rows, cols), (valid_rows, valid_cols))
                .or_else(|e| allocation(e.0))?;
        Ok(Destination {
            hand,
            placement,
            footprint,
            tile,
            pad,
        })
    }

    /// Publish a destination: push it onto its hand (retiring what the push retires) and store
    /// its tile; the checks of [`Machine::new_destination`] ran before any effect, and nothing was
    /// placed since.
    pub(crate) fn publish(&mut self, dst: Destination) {
        let Destination {
            hand,
            placement,
            footprint,
            tile,
            ..
        } = dst;
        self.file.apply(hand, placement, footprint);
        if let Some(old) = placement.retired {
            self.regs[old.index() as usize] = None;
        }
        self.regs[placement.reg.index() as usize] = Some(tile);
    }

    /// `ResolveBundlePredicateDestination`: a predicate with the physical and valid shape of
    /// `src`, in a SizeCode holding `ceil(rows·cols/8)` bytes (docs/isa.md §3.6).
    fn resolve_predicate(
        &self,
        src: &Tile,
        (hand, size): (Hand, SizeCode),
        mask: PeMask,
        pad: PadValue,
    ) -> Checked<Destination> {
        let tile =
            Tile::allocated_predicate(size, (src.rows, src.cols), (src.valid_rows, src.valid_cols))
                .or_else(|e| allocation(e.0))?;
        let footprint = RegisterFile::footprint(size, mask);
        let placement = self
            .file
            .preview(hand, footprint)
            .or_else(|e| allocation(e.to_string()))?;
        Ok(Destination {
            hand,
            placement,
            footprint,
            tile,
            pad,
        })
    }
}

/// A tile op's sources in binding order, each looked up once for all its checks and its
/// kernel. A source that names no tile faults where a check first reads it, as a lookup there
/// would.
#[derive(Clone, Copy)]
struct SourceTiles<'m> {
    regs: [TileReg; 3],
    tiles: [Option<&'m Tile>; 3],
    count: usize,
}

impl<'m> SourceTiles<'m> {
    /// Source `i`: its register and its tile.
    fn get(&self, i: usize) -> Checked<(TileReg, &'m Tile)> {
        let reg = self.regs[i];
        self.tiles[i]
            .map(|t| (reg, t))
            .ok_or_else(|| not_allocated(reg))
    }

    /// Each source in binding order.
    fn iter(&self) -> impl Iterator<Item = Checked<(TileReg, &'m Tile)>> + '_ {
        (0..self.count).map(|i| self.get(i))
    }
}

/// The fault of reading a source register that holds no tile.
fn not_allocated(reg: TileReg) -> (FaultClass, String) {
    (
        FaultClass::TileLegality,
        format!("source {reg} is not allocated"),
    )
}

fn check_broadcast(axis: Axis, (reg, t): (TileReg, &Tile), dims: Dims) -> Checked<()> {
    let want = axis.vector(dims);
    if t.geometry() == want {
        return Ok(());
    }
    let columns = if want.cols == 1 { "column" } else { "columns" };
    legality(format!(
        "broadcast source {reg} is {t}; it must be valid {}x{} with {} {columns}",
        want.valid_rows, want.valid_cols, want.cols
    ))
}

/// Integer DIV: every valid divisor used must be nonzero (before any effect).
fn check_divisors(
    op: &OpInfo,
    src_type: DataType,
    dims: Dims,
    sources: &SourceTiles,
) -> Checked<()> {
    let tiles: Vec<(TileReg, &Tile)> = sources.iter().collect::<Checked<_>>()?;
    let (divisor_reg, divisor) = tiles[1];
    let domain = match op.kind {
        // TDIV: the denominator's own valid rectangle.
        OpKind::Binary(_) => (divisor.valid_rows as usize, divisor.valid_cols as usize),
        OpKind::Expand(..)
        | OpKind::TileScalar(_)
        | OpKind::FillScalar
        | OpKind::Reduce(..)
        | OpKind::Unary(_)
        | OpKind::Convert
        | OpKind::Move
        | OpKind::Transpose
        | OpKind::Compare
        | OpKind::Select
        | OpKind::Matmul { .. } => (dims.valid_rows as usize, dims.valid_cols as usize),
    };
    let views: Vec<View> = tiles.iter().map(|(_, t)| t.view()).collect();
    let job = Job {
        kind: op.kind,
        src_type,
        dst_type: src_type,
        control: NumericControl::default(),
        sources: &views,
        out: &mut Elements::B8(LineVec::with_capacity(0)),
        out_cols: 0,
        domain,
        cmode: None,
    };
    match first_zero_divisor(&job) {
        Ok(None) => Ok(()),
        Ok(Some((r, c))) => legality(format!(
            "integer division by zero: {divisor_reg} element [{r}, {c}] is 0"
        )),
        Err(e) => legality(e.to_string()),
    }
}

/// Each source's storage, definedness, type and encodings against its role.
fn check_sources(op: &OpInfo, src_type: DataType, sources: &SourceTiles) -> Checked<()> {
    for (source, role) in sources.iter().zip(op.sources) {
        let (reg, t) = source?;
        // `TileGenericIndexingPermitted`: CUBE tiles feed only the matrix ops and the CUBE
        // stores (docs/isa.md §18.2).
        if t.layout.is_cube() {
            return legality(format!(
                "{} {reg} is {t}; {} reads row-major tiles only",
                role.name(),
                op.mnemonic
            ));
        }
        if t.storage != role.storage() {
            let what = match role.storage() {
                Storage::Numeric => "a numeric tile",
                Storage::Predicate => "a predicate tile (an ordinary numeric tile is no mask)",
            };
            return legality(format!("{} {reg} is {t}; it must be {what}", role.name()));
        }
        if !t.valid_region_defined() {
            return legality(format!(
                "{} {reg} has undefined elements in its valid region",
                role.name()
            ));
        }
        if role.carries_type() && t.dtype != src_type {
            return legality(format!(
                "{} {reg} is {}, the bundle's type is {src_type}",
                role.name(),
                t.dtype
            ));
        }
        // Copies (expand copies, TSEL) move bits and never look at encodings; TTRANS
        // checks them only for types wider than 32 bits, which all encodings of ptoc's
        // types are valid for (`TileCarrierOnlyDataTypeSupported`, docs/isa.md §19).
        let copy = matches!(
            op.kind,
            OpKind::Expand(_, None) | OpKind::Select | OpKind::Transpose
        );
        if !copy && role.carries_type() {
            if let Some(bits) = t.first_invalid_encoding() {
                return legality(format!(
                    "{} {reg} holds an invalid {} encoding {bits:#x}",
                    role.name(),
                    t.dtype
                ));
            }
        }
    }
    Ok(())
}

/// `TileOperandsLegal_*`: allocated, defined, typed, valid encodings, shapes (docs/isa.md §1.3, §1.6).
fn check_operands(
    op: &OpInfo,
    src_type: DataType,
    dst: &Tile,
    sources: &SourceTiles,
) -> Checked<()> {
    check_sources(op, src_type, sources)?;
    for (source, role) in sources.iter().zip(op.sources) {
        let (reg, t) = source?;
        let full_shape = match role {
            OperandRole::SrcLeft
            | OperandRole::SrcRight
            | OperandRole::Numerator
            | OperandRole::Denominator
            | OperandRole::Pred
            | OperandRole::SrcTrue
            | OperandRole::SrcFalse => true,
            OperandRole::Src => !matches!(op.kind, OpKind::Reduce(..) | OpKind::Transpose),
            OperandRole::Bcast
            | OperandRole::Left
            | OperandRole::Right
            | OperandRole::Accumulator
            | OperandRole::Bias => false,
        };
        if full_shape
            && (t.rows, t.cols, t.valid_rows, t.valid_cols)
                != (dst.rows, dst.cols, dst.valid_rows, dst.valid_cols)
        {
            return legality(format!(
                "{} {reg} is {t}; the destination is {dst}",
                role.name()
            ));
        }
        // `TileOperandsLegal_TTRANS`: the destination's valid shape is the source's
        // swapped (its physical shape is free).
        if op.kind == OpKind::Transpose
            && (dst.valid_rows, dst.valid_cols) != t.geometry().transposed_valid()
        {
            return legality(format!(
                "{} {reg} is {t}; its transpose is valid {}x{}, the destination {dst}",
                role.name(),
                t.valid_cols,
                t.valid_rows
            ));
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
/// Run the kernel into the destination's tile and publish its padding; the caller publishes
/// the destination.
fn execute(
    op: &OpInfo,
    src_type: DataType,
    control: NumericControl,
    cmode: Option<CmpMode>,
    dims: Dims,
    (sources, scalar): (&SourceTiles, Option<u64>),
    dst: Destination,
) -> Checked<(Destination, Flags)> {
    let Destination { mut tile, pad, .. } = dst;
    // Zero to three sources (step 4) and the scalar, last, viewed on the stack: unused slots
    // repeat the first and are cut off.
    let scalar = scalar.map(|raw| kernels::scalar_elements(src_type, raw));
    let scalar = scalar.as_ref().map(|e| View::new(e, 1));
    let mut operands = sources
        .iter()
        .map(|source| source.map(|(_, t)| t.view()))
        .chain(scalar.map(Ok));
    let Some(first) = operands.next().transpose()? else {
        return legality(format!("{} takes no operand", op.mnemonic));
    };
    let mut views = [first; 4];
    let mut count = 1;
    for (slot, v) in views.iter_mut().skip(1).zip(operands) {
        *slot = v?;
        count += 1;
    }
    let job = Job {
        kind: op.kind,
        src_type,
        dst_type: tile.dtype,
        control,
        sources: &views[..count],
        out_cols: tile.cols as usize,
        out: &mut tile.elements,
        domain: (dims.valid_rows as usize, dims.valid_cols as usize),
        cmode,
    };
    let flags = kernels::execute(job).or_else(|e| legality(e.to_string()))?;
    publish_padding(&mut tile, pad);
    Ok((Destination { tile, ..dst }, flags))
}

/// What a tile block's words alone decide at commit (steps 1–7, and B.DIM's shape under a
/// closed schema), before anything reads a tile, the register file or a GPR. A block whose
/// header reads no GPR is prepared once, when its program is decoded (`crate::program`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prepared {
    op: &'static OpInfo,
    src_type: DataType,
    /// The sources in binding order; the first `source_count` are the op's.
    sources: [TileReg; 3],
    source_count: usize,
    dest: (Hand, SizeCode),
    /// The GPR a tile-scalar op computes with: B.IOR RegSrc0, or GPR 0 (always 0, the value an
    /// op without a B.IOR computes with, docs/isa.md §14); `None` for an op without a scalar.
    scalar_gpr: Option<usize>,
    pad: PadValue,
    control: NumericControl,
    /// B.DIM's full shape; `None` without a closed schema (TTRANS), whose destination shape
    /// takes what B.DIM omits from its source.
    dims: Option<Dims>,
}

/// Steps 1–7 of a tile commit: `Ok(None)` for a block of mask-0 bindings only (success without
/// effect), else what the rest of the commit ([`Machine::commit_prepared`]) needs.
pub(crate) fn prepare_tile(block: &Block) -> Checked<Option<Prepared>> {
    // 1. Only mask-0 bindings: success without effect.
    if block.bindings.is_empty() && block.saw_noop_binding {
        return Ok(None);
    }
    // 2. The op.
    let Start::Tile(start) = block.start else {
        return Err((FaultClass::BundleControl, "not a tile-element block".into()));
    };
    let Some(op) = by_selector(start.mode as u32, start.function as u32) else {
        return Err((
            FaultClass::IllegalInstruction,
            format!(
                "TEPL selector {:#05x} is not an op this interpreter executes",
                start.mode as u32 * 32 + start.function as u32
            ),
        ));
    };
    // 4. Binding completeness. No op takes more than three sources, so they are counted and
    // the first three kept on the stack instead of collected.
    let mut source_regs = block.bindings.iter().flat_map(|b| b.source_regs());
    let first = [source_regs.next(), source_regs.next(), source_regs.next()];
    let source_count = first.iter().flatten().count() + source_regs.count();
    let mut dests = block.bindings.iter().filter_map(|b| b.dst);
    let dest = dests.next();
    let dest_count = usize::from(dest.is_some()) + dests.count();
    if block.bindings.is_empty() || !block.bindings.last().is_some_and(|b| b.last) {
        return Err((
            FaultClass::BundleControl,
            "the B.IOT stream is not terminated by a last binding".into(),
        ));
    }
    let complete = source_count == op.sources.len() && dest_count == 1;
    let (true, Some(dest)) = (complete && source_count <= first.len(), dest) else {
        return Err((
            FaultClass::BundleControl,
            format!(
                "{} takes {} source(s) and one destination; the bindings give {} and {}",
                op.mnemonic,
                op.sources.len(),
                source_count,
                dest_count
            ),
        ));
    };
    // 5. Scalar and Shared bindings.
    let scalar_gpr = scalar_gpr(op, block)?;
    if !block.ios.is_empty() {
        return legality(format!("{} takes no B.IOS", op.mnemonic));
    }
    // 6. B.DATR applicability.
    let (pad, control) = check_datr(op, block.datr)?;
    // 7. Closed schema. TTRANS has none (docs/isa.md §19): its bindings may come in any
    // layout, and B.DIM describes its destination with the source filling in what is absent.
    if op.kind.closed_schema() {
        check_binding_layout(op, block)?;
    }
    let src_type = start.dtype;
    if !op.accepts(src_type) {
        return legality(format!("{} does not accept {src_type}", op.mnemonic));
    }
    let dims = if op.kind.closed_schema() {
        Some(bundle_dims(block)?)
    } else {
        None
    };
    Ok(Some(Prepared {
        op,
        src_type,
        sources: first.map(Option::unwrap_or_default),
        source_count,
        dest,
        scalar_gpr,
        pad,
        control,
        dims,
    }))
}

/// The GPR a tile-scalar op reads at commit ([`Prepared::scalar_gpr`]). A B.IOR field the op
/// does not read must be zero (`BundleOperationScalarBindingSchemaLegal`, step 4:
/// Fault_BundleControl); an op without a scalar then refuses even an all-zero B.IOR in its
/// closed schema (§1.3: Fault_TileLegality).
fn scalar_gpr(op: &OpInfo, block: &Block) -> Checked<Option<usize>> {
    let Some(ior) = block.ior else {
        return Ok(op.takes_scalar().then_some(0));
    };
    let inputs = usize::from(op.takes_scalar());
    if ior.dst != 0 || ior.src[inputs..].iter().any(|&r| r != 0) {
        return Err((
            FaultClass::BundleControl,
            format!(
                "{} reads {inputs} B.IOR source(s); its other fields must be zero",
                op.mnemonic
            ),
        ));
    }
    // Without a closed schema (TTRANS) an all-zero B.IOR binds nothing and is accepted,
    // as for TMOV (docs/isa.md §13.2, §19).
    if !op.takes_scalar() && !op.kind.closed_schema() {
        return Ok(None);
    }
    if !op.takes_scalar() {
        return legality(format!("{} takes no B.IOR", op.mnemonic));
    }
    Ok(Some(ior.src[0] as usize))
}

/// Mark the valid rectangle defined and fill the padding per the pad value (docs/isa.md §4), writing
/// each padding element once: the elements may stop after the last valid row (a kernel's output
/// rows append to unwritten storage), and growing them to the whole tile writes the pad into the
/// rows appended; the rest is the tail of each valid row and any written row below the valid
/// ones. Definedness is uniform, or the valid rectangle in closed form when a Null pad leaves the
/// padding undefined.
pub fn publish_padding(tile: &mut Tile, pad: PadValue) {
    let whole = tile.rows as usize * tile.cols as usize;
    // A valid region that is the whole tile, all written, has no padding: every pad agrees.
    if tile.elements.len() == whole && (tile.valid_rows, tile.valid_cols) == (tile.rows, tile.cols)
    {
        tile.defined = Definedness::uniform(whole, true);
        return;
    }
    let pad_bits = match tile.storage {
        Storage::Numeric => tile.dtype.pad_bits(pad),
        Storage::Predicate => pad.predicate_bit(),
    };
    let written = tile.elements.len();
    tile.elements.resize(whole, pad_bits.unwrap_or(0));
    let (vr, vc) = (tile.valid_rows as usize, tile.valid_cols as usize);
    let cols = tile.cols as usize;
    let tail_rows = if vc < cols { 0..vr } else { 0..0 };
    let tails = tail_rows.map(|r| r * cols + vc..(r + 1) * cols);
    let below = vr * cols..written.min(whole);
    let padding = tails.chain([below]).filter(|range| !range.is_empty());
    tile.defined = match pad_bits {
        Some(_) => Definedness::uniform(tile.len(), true),
        None => Definedness::rect(tile.len(), cols, vr, vc),
    };
    for range in padding {
        tile.elements.fill(range, pad_bits.unwrap_or(0));
    }
}

/// B.DATR field applicability (`OpKind::datr_fields`; docs/isa.md §2.3, §9 decision 4): CMode,
/// Sat, Canonicalize, RMode, Layout and DataType only on the ops that list them (CMode: TCMP;
/// the others: TCVT, DataType also EXPDIF); the DataType field of other ops is ignored. Returns
/// the pad (omitted B.DATR → Null) and the numeric control (omitted → the op's default).
fn check_datr(op: &OpInfo, datr: Option<Datr>) -> Checked<(PadValue, NumericControl)> {
    let Some(d) = datr else {
        return Ok((PadValue::Null, NumericControl::default()));
    };
    let reads = op.kind.datr_fields();
    let mut extra = Vec::new();
    for (name, nonzero, read) in [
        ("CMode", d.cmode != 0, reads.cmode),
        ("Sat", d.sat, reads.sat),
        ("Canonicalize", d.canonicalize, reads.canonicalize),
        ("RMode", d.rmode != 0, reads.rmode),
        ("Layout", d.layout != 0, reads.layout),
    ] {
        if nonzero && !read {
            extra.push(name);
        }
    }
    if !reads.data_type && !PROFILE.datr_datatype_ignored_when_not_applicable && d.dtype.is_some() {
        extra.push("DataType");
    }
    // An op that ignores the pad (TTRANS, whose padding is always Null) needs the field 00
    // (`pad_union: must-zero`).
    if reads.pad_must_be_zero && d.pad != PadValue::Zero {
        extra.push("PadValueOrByteId");
    }
    let pad = if reads.pad_must_be_zero {
        PadValue::Null
    } else {
        d.pad
    };
    if extra.is_empty() {
        Ok((pad, NumericControl::from_fields(d.rmode, d.sat)))
    } else {
        legality(format!(
            "B.DATR field(s) {} must be zero for {}",
            extra.join(", "),
            op.mnemonic
        ))
    }
}

/// The closed schema's binding layout (docs/isa.md §1.9): as many B.IOTs as the op's row lists,
/// each with its number of sources, the destination on the last one only.
fn check_binding_layout(op: &OpInfo, block: &Block) -> Checked<()> {
    let layout_ok = block.bindings.len() == op.bindings.len()
        && block
            .bindings
            .iter()
            .zip(op.bindings)
            .enumerate()
            .all(|(i, (b, &n))| {
                b.source_regs().count() == n && b.dst.is_some() == (i + 1 == op.bindings.len())
            });
    if layout_ok {
        return Ok(());
    }
    let want = match op.bindings {
        [n] => format!("exactly one B.IOT carrying its {n} source(s) and the destination"),
        _ => format!(
            "{} B.IOTs carrying {:?} sources, the destination on the last",
            op.bindings.len(),
            op.bindings
        ),
    };
    legality(format!("{} needs {want}", op.mnemonic))
}

/// TTRANS's destination layout is B.DATR Layout's (`CurrentBundleTileLayout`); ptoc models
/// row-major tiles only, so a Layout other than NORM faults (docs/isa.md §19 decision 57).
fn check_row_major_destination(op: &OpInfo, datr: Option<Datr>) -> Checked<()> {
    match datr {
        Some(d) if d.layout != 0 => legality(format!(
            "{} with B.DATR Layout {}: the interpreter models only NORM destinations",
            op.mnemonic, d.layout
        )),
        _ => Ok(()),
    }
}

/// TCVT's representation fields (`SelectedBundleClosedTCVTSchemaLegal`, docs/isa.md §1.10):
/// Canonicalize=1 needs a private CUBE source, which no ptoc tile is; a Layout other than NORM
/// transforms to or from a layout ptoc does not model (§9 decision 34).
fn check_tcvt_representation(datr: Option<Datr>) -> Checked<()> {
    let Some(d) = datr else {
        return Ok(());
    };
    if d.canonicalize {
        return legality(
            "TCVT with Canonicalize=1 needs a private CUBE (Matrix) source; this source is an \
             ordinary tile, which requires Canonicalize=0",
        );
    }
    if d.layout != 0 {
        return legality(format!(
            "TCVT with B.DATR Layout {}: ptoc models row-major (NORM) tiles only",
            d.layout
        ));
    }
    Ok(())
}

/// LB0 (required) → valid cols, LB1 → valid rows (1), LB2 → physical cols (LB0); present zeros fault.
fn bundle_dims(block: &Block) -> Checked<Dims> {
    if let Some(lb) = (0..3).find(|&i| block.dims[i] == Some(0)) {
        return legality(format!("B.DIM LB{lb} is 0"));
    }
    let Some(valid_cols) = block.dims[0] else {
        return legality("B.DIM LB0 (valid columns) is missing");
    };
    Ok(Dims {
        valid_cols,
        valid_rows: block.dims[1].unwrap_or(1),
        cols: block.dims[2].unwrap_or(valid_cols),
    })
}

/// The destination geometry of an op without a closed schema (TTRANS): each LBn that is
/// present, else the shape source's (its first source): LB0 its valid columns, LB1 its valid
/// rows, LB2 its physical columns (`BundleDestinationValidColumns`, `…ValidRows`,
/// `…PhysicalColumns`, `asl/block/model/dispatch/destination-shape.asl`). An LBn written as 0
/// is illegal (§17 decision 44).
fn destination_dims(block: &Block, source: &Tile) -> Checked<Dims> {
    if let Some(lb) = (0..3).find(|&i| block.dims[i] == Some(0)) {
        return legality(format!("B.DIM LB{lb} is 0"));
    }
    Ok(Dims {
        valid_cols: block.dims[0].unwrap_or(source.valid_cols),
        valid_rows: block.dims[1].unwrap_or(source.valid_rows),
        cols: block.dims[2].unwrap_or(source.cols),
    })
}

/// The destination type the encoded op writes (`ResultKind::encoded`: the source's, U32 for ARG,
/// the B.DATR type for EXPDIF), which its legality rule must admit (docs/isa.md §1.4–1.5).
fn destination_type(op: &OpInfo, src_type: DataType, datr: Option<Datr>) -> Checked<DataType> {
    let requested = datr.and_then(|d| d.dtype).unwrap_or(src_type);
    let dst = op.result.encoded(src_type, requested);
    if op.result.admits(src_type, dst) {
        Ok(dst)
    } else {
        legality(format!(
            "{} cannot produce {dst} from {src_type}",
            op.mnemonic
        ))
    }
}

/// Run one scalar instruction in the open block, if any. SETC belongs in the body of a COND
/// standard block, once (docs/isa.md §12.4); any scalar instruction starts the body (§17
/// decision 37). A fault changes nothing. Inlined into both instantiations of the block loop,
/// as it was into the one loop before observers (callgrind: 42 instructions a bundle otherwise).
#[inline(always)]
fn execute_scalar(
    core: &mut ScalarCore,
    inst: &ScalarInst,
    block: Option<&mut Block>,
) -> Checked<Effect> {
    if let ScalarOp::SetC { .. } = inst.info.op {
        let in_cond = block
            .as_deref()
            .is_some_and(|b| matches!(b.start, Start::Std(s) if s.transfer == Transfer::Cond));
        if !in_cond {
            return Err((
                FaultClass::BundleControl,
                format!("{inst} outside the body of a BSTART.STD COND block"),
            ));
        }
        if block.as_deref().is_some_and(|b| b.taken.is_some()) {
            return Err((
                FaultClass::BundleControl,
                format!("{inst}: a second SETC in one block"),
            ));
        }
    }
    let effect = core
        .execute(inst)
        .map_err(|m| (FaultClass::IllegalInstruction, format!("{inst}: {m}")))?;
    if let Some(b) = block {
        b.body = true;
    }
    Ok(effect)
}

/// A commit's fault before the block's index and address are attached.
#[derive(Debug)]
pub(crate) struct CommitFault {
    pub class: FaultClass,
    pub address: Option<u64>,
    pub message: String,
}

/// A commit's fault in the bundle `index` whose BSTART is at `pc`.
fn located(fault: CommitFault, index: usize, pc: u64) -> Fault {
    Fault {
        class: fault.class,
        bundle: index,
        pc,
        address: fault.address,
        message: fault.message,
    }
}

impl From<(FaultClass, String)> for CommitFault {
    fn from((class, message): (FaultClass, String)) -> CommitFault {
        CommitFault {
            class,
            address: None,
            message,
        }
    }
}

/// A BSTART.STD's target must be a 32-bit word of the kernel, or its end (docs/isa.md §12.1,
/// §17 decision 39). IND and RET need a return or indirect address ptoc's leaf kernels never have.
#[inline(always)]
fn check_std_start(s: StdStart, pc: u64, end: u64) -> Checked<()> {
    match s.transfer {
        Transfer::Fall => Ok(()),
        Transfer::Ind | Transfer::Ret => Err((
            FaultClass::IllegalInstruction,
            format!(
                "BSTART.STD {}: the interpreter runs leaf kernels, with no indirect or return address",
                s.transfer.name()
            ),
        )),
        Transfer::Direct | Transfer::Cond => {
            let target = pc as i64 + s.offset as i64;
            if target < 0 || target as u64 > end {
                Err((
                    FaultClass::InstructionPage,
                    format!(
                        "branch target {target:#x} is outside the kernel's code (0..={end:#x})"
                    ),
                ))
            } else if !(target as u64).is_multiple_of(4) {
                Err((
                    FaultClass::IllegalInstruction,
                    format!("branch target {target:#x} is not on a 32-bit word"),
                ))
            } else {
                Ok(())
            }
        }
    }
}

/// Where a committed standard block continues, when not at the next instruction.
fn branch_target(block: &Block, s: StdStart) -> Option<u64> {
    let taken = match s.transfer {
        Transfer::Direct => true,
        Transfer::Cond => block.taken == Some(true),
        Transfer::Fall | Transfer::Ind | Transfer::Ret => false,
    };
    taken.then(|| (block.pc as i64 + s.offset as i64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4x8 FP32 tile (SizeCode 1: 128 bytes) with valid 2x3, whose storage holds `written`
    /// elements of 0xEE (a kernel's output, padding included, before publication) except the
    /// valid ones, which are 1..=6.
    fn written_tile(written: usize) -> Tile {
        let mut tile = Tile::allocated(DataType::FP32, SizeCode::MIN, 8, 2, 3).expect("tile");
        let values: Vec<u32> = (0..written)
            .map(|i| match (i / 8, i % 8) {
                (r @ 0..2, c @ 0..3) => (r * 3 + c + 1) as u32,
                _ => 0xEE,
            })
            .collect();
        tile.elements = Elements::B32(LineVec::from(&values[..]));
        tile
    }

    /// The element a published `written_tile` holds at (r, c): its valid value, else zero.
    fn valid_or_zero(r: usize, c: usize) -> u64 {
        if r < 2 && c < 3 {
            (r * 3 + c + 1) as u64
        } else {
            0
        }
    }

    #[test]
    fn padding_covers_row_tails_appended_rows_and_written_rows_below() {
        // The valid rows only (an elementwise kernel), and the whole tile (a CUBE load).
        for written in [16, 32] {
            let mut tile = written_tile(written);
            publish_padding(&mut tile, PadValue::Zero);
            let got: Vec<u64> = tile.elements.iter().collect();
            let want: Vec<u64> = (0..32).map(|i| valid_or_zero(i / 8, i % 8)).collect();
            assert_eq!(got, want, "{written} elements written");
            assert!((0..32).all(|i| tile.defined.get(i)));
        }
    }

    #[test]
    fn a_null_pad_zeroes_the_padding_and_leaves_it_undefined() {
        let mut tile = written_tile(32);
        publish_padding(&mut tile, PadValue::Null);
        for i in 0..32 {
            let (r, c) = (i / 8, i % 8);
            assert_eq!(tile.elements.get(i), valid_or_zero(r, c), "element {i}");
            assert_eq!(tile.defined.get(i), r < 2 && c < 3, "element {i}");
        }
    }
}
