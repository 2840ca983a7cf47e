//! The tile memory ops TLOAD, TSTORE and TMOV at commit (docs/isa.md §13).
//!
//! Checks run in the spec's order (docs/isa.md §13.8): binding counts and B.IOR fields
//! (Fault_BundleControl), B.DATR fields (Fault_TileLegality), the destination (type, register,
//! capacity, shape), the source (allocated, valid region defined), then the GM preflight of the
//! whole rectangle (Fault_DataAlignment, Fault_DataPage). Only then does anything move.
//!
//! Where the model is looser than the contract, the interpreter follows docs/isa.md §17: a zero LB
//! is illegal (decision 44); a TSTORE's B.DIM, when present, must describe its source (42); its
//! BSTART DataType must be the source's (43). It models only the NORM layout and the 16
//! arithmetic DataTypes a tile can hold in ptoc, plus the CUBE transports of B.DATR Layout 21–26
//! (docs/isa.md §18.2).

use crate::bundle::Block;
use crate::gm::Rect;
use crate::machine::{legality, CommitFault, Destination, Dims, Machine};
use crate::tile::Tile;
use ptoc_isa::encoding::{Ior, TlsuOp, TlsuStart};
use ptoc_isa::{DataType, FaultClass, Hand, Layout, PadValue, SizeCode, TileReg};

fn datr_name(dtype: Option<DataType>) -> &'static str {
    dtype.map_or("DTYPE_NONE", DataType::name)
}

type Checked<T> = Result<T, CommitFault>;

fn control<T>(message: String) -> Checked<T> {
    Err(CommitFault {
        class: FaultClass::BundleControl,
        address: None,
        message,
    })
}

fn illegal<T>(message: String) -> Checked<T> {
    legality(message).map_err(CommitFault::from)
}

/// The operands a TLSU bundle's single binding carries.
struct Operands {
    source: Option<TileReg>,
    dest: Option<(Hand, SizeCode)>,
}

impl Machine {
    pub(crate) fn commit_tlsu(&mut self, block: &Block, start: TlsuStart) -> Checked<()> {
        let op = start.op;
        let name = op.mnemonic();
        // 1. Only mask-0 bindings: no effect, no GPR read, no memory access.
        if block.bindings.is_empty() && block.saw_noop_binding {
            return Ok(());
        }
        // 4. One binding with L=1: TLOAD a destination, TSTORE a source, TMOV both.
        let operands = match &block.bindings[..] {
            [b] if b.last => {
                let mut sources = b.source_regs();
                let source = sources.next();
                if sources.next().is_some() {
                    return control(format!("{name} takes one binding with at most one source"));
                }
                Operands {
                    source,
                    dest: b.dst,
                }
            }
            _ => {
                return control(format!(
                    "{name} takes exactly one B.IOT binding, marked last; the bundle has {}",
                    block.bindings.len()
                ))
            }
        };
        let (wants_source, wants_dest) = match op {
            TlsuOp::Load => (false, true),
            TlsuOp::Store => (true, false),
            TlsuOp::Mov => (true, true),
        };
        if operands.source.is_some() != wants_source || operands.dest.is_some() != wants_dest {
            let what = |b: bool| if b { "one" } else { "no" };
            return control(format!(
                "{name} takes {} source and {} destination",
                what(wants_source),
                what(wants_dest)
            ));
        }
        // 4. B.IOR: TLOAD/TSTORE read RegSrc0 (base) and RegSrc1 (row stride); TMOV none.
        let ior = block.ior.unwrap_or(Ior {
            dst: 0,
            src: [0; 3],
        });
        let unused_nonzero = match op {
            TlsuOp::Load | TlsuOp::Store => ior.dst != 0 || ior.src[2] != 0,
            TlsuOp::Mov => ior.dst != 0 || ior.src != [0; 3],
        };
        if unused_nonzero {
            return control(format!("{name} does not read every field its B.IOR names"));
        }
        if !block.ios.is_empty() {
            return illegal(format!("{name} takes no B.IOS"));
        }
        // 6. B.DATR Layout 21–26 selects a CUBE transport (docs/isa.md §18.2).
        if let Some((layout, load)) = block.datr.and_then(|d| Layout::of_transport_code(d.layout)) {
            return self.cube_transport(block, start, layout, load, operands, ior);
        }
        // 6. B.DATR: only Layout may be nonzero, and ptoc models only NORM. A present B.DATR's
        // DataType field (then necessarily 0, FP64) types a TLOAD or TMOV destination.
        let datr_type = match block.datr {
            None => None,
            Some(d) => {
                let nonzero = d.cmode != 0
                    || d.sat
                    || d.canonicalize
                    || d.rmode != 0
                    || d.pad != PadValue::Zero
                    || d.dtype != Some(DataType::FP64);
                if nonzero {
                    return illegal(format!(
                        "B.DATR fields other than Layout must be zero for {name}"
                    ));
                }
                if d.layout != 0 {
                    return illegal(format!(
                        "{name} with B.DATR Layout {}: the interpreter models only NORM",
                        d.layout
                    ));
                }
                d.dtype
            }
        };
        if let Some(lb) = (0..3).find(|&i| block.dims[i] == Some(0)) {
            return illegal(format!("B.DIM LB{lb} is 0"));
        }
        let mask = block.mask().unwrap_or_default();
        let gpr = |code: u8| self.gpr(code as usize);
        match op {
            TlsuOp::Load => {
                let Some(dtype) = datr_type.or(start.dtype) else {
                    return illegal("TLOAD needs a concrete DataType".into());
                };
                let valid_cols = block.dims[0].unwrap_or(1);
                let dims = Dims {
                    valid_cols,
                    valid_rows: block.dims[1].unwrap_or(1),
                    cols: block.dims[2].unwrap_or(valid_cols),
                };
                let (hand, size) = operands.dest.expect("checked above");
                let dst = self.tlsu_destination(dtype, dims, hand, size, mask)?;
                let rect = self.rect(block, &dst.tile, gpr(ior.src[0]), gpr(ior.src[1]));
                let bits = self.gm.read(&rect).map_err(gm_fault)?;
                let Destination {
                    hand,
                    placement,
                    footprint,
                    tile,
                    pad,
                } = dst;
                let tile = tile
                    .with_valid_values(&bits)
                    .map_err(|e| CommitFault::from((FaultClass::TileLegality, e.0)))?;
                self.publish(Destination {
                    hand,
                    placement,
                    footprint,
                    tile,
                    pad,
                });
                Ok(())
            }
            TlsuOp::Store => {
                let reg = operands.source.expect("checked above");
                let t = self.defined_source(reg, name)?;
                if start.dtype != Some(t.dtype) {
                    return illegal(format!(
                        "TSTORE of a {} tile names DataType {}",
                        t.dtype,
                        start.dtype.map_or("DTYPE_NONE", DataType::name)
                    ));
                }
                let described = [Some(t.valid_cols), Some(t.valid_rows), Some(t.cols)];
                if let Some(lb) =
                    (0..3).find(|&i| block.dims[i].is_some() && block.dims[i] != described[i])
                {
                    return illegal(format!(
                        "B.DIM LB{lb} does not describe the stored tile {t}"
                    ));
                }
                let rect = self.rect(block, t, gpr(ior.src[0]), gpr(ior.src[1]));
                self.gm.write(&rect, &t.valid_bits()).map_err(gm_fault)
            }
            TlsuOp::Mov => {
                let reg = operands.source.expect("checked above");
                let src = self.defined_source(reg, name)?.clone();
                let dtype = datr_type.or(start.dtype).unwrap_or(src.dtype);
                let dims = Dims {
                    valid_cols: block.dims[0].unwrap_or(src.valid_cols),
                    valid_rows: block.dims[1].unwrap_or(src.valid_rows),
                    cols: block.dims[2].unwrap_or(src.cols),
                };
                let (hand, size) = operands.dest.expect("checked above");
                let dst = self.tlsu_destination(dtype, dims, hand, size, mask)?;
                let same = (
                    dst.tile.dtype,
                    dst.tile.rows,
                    dst.tile.cols,
                    dst.tile.valid_rows,
                    dst.tile.valid_cols,
                ) == (
                    src.dtype,
                    src.rows,
                    src.cols,
                    src.valid_rows,
                    src.valid_cols,
                );
                if !same {
                    return illegal(format!(
                        "TMOV destination {} does not match its source {src}",
                        dst.tile
                    ));
                }
                // The whole payload and its definedness, padding included.
                let mut copy = src;
                copy.size_code = dst.tile.size_code;
                self.publish(Destination { tile: copy, ..dst });
                Ok(())
            }
        }
    }

    /// A TLOAD/TMOV destination: renamed, capacity-checked, shaped by its SizeCode.
    fn tlsu_destination(
        &self,
        dtype: DataType,
        dims: Dims,
        hand: Hand,
        size: SizeCode,
        mask: ptoc_isa::PeMask,
    ) -> Checked<Destination> {
        if !ptoc_isa::dtype::ARITHMETIC.contains(&dtype) {
            return illegal(format!("the interpreter models no {dtype} tiles"));
        }
        let mut dst = self
            .new_destination(dtype, dims, hand, size, mask, PadValue::Null)
            .map_err(CommitFault::from)?;
        dst.tile = Tile::allocated(dtype, size, dims.cols, dims.valid_rows, dims.valid_cols)
            .map_err(|e| CommitFault::from((FaultClass::TileAllocation, e.0)))?;
        Ok(dst)
    }

    /// `ExecuteBundleCubeTransportOperation` (`asl/block/model/dispatch/tlsu-layout-conversion.asl`):
    /// TLOAD into, or TSTORE out of, a CUBE layout. B.DATR has DTYPE_NONE and only Layout (and,
    /// for the load, PadValue) set; LB0 = ValidCol and LB1 = ValidRow are both given and LB2 is
    /// not; the GM side is row-major with the B.IOR base and stride, or base 0 and the dense
    /// stride of ValidCol elements.
    fn cube_transport(
        &mut self,
        block: &Block,
        start: TlsuStart,
        layout: Layout,
        load: bool,
        operands: Operands,
        ior: Ior,
    ) -> Checked<()> {
        let name = start.op.mnemonic();
        let d = block.datr.expect("a transport code came from the B.DATR");
        let (Some(valid_cols), Some(valid_rows), None) =
            (block.dims[0], block.dims[1], block.dims[2])
        else {
            return illegal(format!(
                "{name} to or from {layout} takes LB0 = ValidCol and LB1 = ValidRow, and no LB2"
            ));
        };
        if valid_cols == 0 || valid_rows == 0 {
            return illegal(format!(
                "{name} to or from {layout} needs nonzero LB0 and LB1"
            ));
        }
        if d.dtype.is_some() || d.cmode != 0 || d.rmode != 0 || d.sat || d.canonicalize {
            return illegal(format!(
                "{name} with a CUBE Layout takes a B.DATR of DTYPE_NONE with CMode, RMode, Sat \
                 and Canonicalize zero"
            ));
        }
        let direction_matches = match start.op {
            TlsuOp::Load => load,
            TlsuOp::Store => !load,
            TlsuOp::Mov => false,
        };
        if !direction_matches {
            return illegal(format!(
                "B.DATR Layout {} is not a layout conversion {name} performs",
                d.layout
            ));
        }
        let Some(dtype) = start.dtype.filter(|t| layout.cell(*t).is_some()) else {
            return illegal(format!("no {layout} tile holds {}", datr_name(start.dtype)));
        };
        if !ptoc_isa::dtype::ARITHMETIC.contains(&dtype) {
            return illegal(format!("the interpreter models no {dtype} tiles"));
        }
        let gpr = |code: u8| self.gpr(code as usize);
        let bytes = dtype.bits() / 8;
        let (base, stride) = match block.ior {
            Some(_) => (gpr(ior.src[0]), gpr(ior.src[1])),
            None => (0, valid_cols as u64 * bytes as u64),
        };
        let rect = Rect {
            base,
            stride,
            rows: valid_rows,
            cols: valid_cols,
            bytes,
        };
        if load {
            let (hand, size) = operands.dest.expect("checked above");
            let mask = block.mask().unwrap_or_default();
            let dst = self
                .new_cube_destination(dtype, layout, (valid_rows, valid_cols), hand, size, mask)
                .map_err(CommitFault::from)?;
            let bits = self.gm.read(&rect).map_err(gm_fault)?;
            let mut tile = dst
                .tile
                .with_valid_values(&bits)
                .map_err(|e| CommitFault::from((FaultClass::TileLegality, e.0)))?;
            // `TileWithPadding(result, CurrentBundlePadValue())`: CUBE loads pad.
            crate::machine::publish_padding(&mut tile, d.pad);
            self.publish(Destination { tile, ..dst });
            return Ok(());
        }
        let reg = operands.source.expect("checked above");
        let t = self.source(reg).map_err(CommitFault::from)?;
        let matches = (t.layout, t.dtype, t.valid_rows, t.valid_cols)
            == (layout, dtype, valid_rows, valid_cols);
        if !matches || !t.valid_region_defined() {
            return illegal(format!(
                "{name} of {layout} {dtype} valid {valid_rows}x{valid_cols} needs a defined \
                 source of that layout, type and shape; {reg} is {t}"
            ));
        }
        self.gm.write(&rect, &t.valid_bits()).map_err(gm_fault)
    }

    /// A source that is allocated, row-major and has its valid region defined.
    fn defined_source(&self, reg: TileReg, name: &str) -> Checked<&Tile> {
        let t = self.source(reg).map_err(CommitFault::from)?;
        if t.layout.is_cube() {
            return illegal(format!(
                "{name} source {reg} is {t}: a CUBE tile leaves only through a TSTORE with its \
                 layout's B.DATR conversion"
            ));
        }
        if !t.valid_region_defined() {
            return illegal(format!(
                "{name} source {reg} has undefined elements in its valid region"
            ));
        }
        Ok(t)
    }

    /// The GM rectangle of a tile's valid region: the B.IOR base and stride, or base 0 and the
    /// dense row stride when the bundle has no B.IOR (docs/isa.md §13.3).
    fn rect(&self, block: &Block, t: &Tile, base: u64, stride: u64) -> Rect {
        let bytes = t.dtype.bits() / 8;
        let (base, stride) = match block.ior {
            Some(_) => (base, stride),
            None => (0, (t.cols as u64 * t.dtype.bits() as u64).div_ceil(8)),
        };
        Rect {
            base,
            stride,
            rows: t.valid_rows,
            cols: t.valid_cols,
            bytes,
        }
    }
}

fn gm_fault(e: crate::gm::GmFault) -> CommitFault {
    CommitFault {
        class: e.class,
        address: Some(e.address),
        message: e.message,
    }
}
