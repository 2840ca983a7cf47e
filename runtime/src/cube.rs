//! The matrix ops TMATMUL, TGEMV and their `_ACC`/`_BIAS` forms at commit (docs/isa.md §18).
//!
//! The order of checks is `ExecuteBundleTMATMULOperation` (`asl/block/model/dispatch/
//! cube-tmatmul.asl`): B.FPATR present (Fault_BundleControl), the function assigned, then types,
//! binding stream, B.DATR fields and dimensions (Fault_TileLegality), every Local source against
//! the dimensions in stream order (C, A, B, bias), the accumulator/destination selector rule, the
//! destination's capacity and shape (Fault_TileAllocation). Only then are sources read; the
//! result publishes as one group. What ptoc's profile leaves out (Shared operands, B.FPATR
//! post-processing, a rounding mode other than RNE, saturation, the MX forms) is
//! Fault_IllegalInstruction, as for any op the interpreter has no semantics for (§9 decision 27).

use crate::bundle::Block;
use crate::machine::{legality, Checked, CommitFault, Destination, Machine};
use crate::numerics::matmul::{MatrixArith, ProductShape};
use crate::tile::Tile;
use ptoc_isa::encoding::CubeStart;
use ptoc_isa::ops::{by_cube_function, OperandRole};
use ptoc_isa::{
    DataType, FaultClass, Hand, Layout, MatmulForm, OpKind, PadValue, PeMask, RegisterFile,
    SizeCode, TileReg,
};

fn unmodelled<T>(message: String) -> Checked<T> {
    Err((FaultClass::IllegalInstruction, message))
}

impl Machine {
    pub(crate) fn commit_cube(
        &mut self,
        block: &Block,
        start: CubeStart,
    ) -> Result<(), CommitFault> {
        self.try_commit_cube(block, start).map_err(Into::into)
    }

    fn try_commit_cube(&mut self, block: &Block, start: CubeStart) -> Checked<()> {
        // Zero-mask bindings only: a strict no-op.
        if block.bindings.is_empty() && block.saw_noop_binding {
            return Ok(());
        }
        let Some(fpatr) = block.fpatr else {
            return Err((
                FaultClass::BundleControl,
                "a CUBE matrix block needs exactly one B.FPATR".into(),
            ));
        };
        let Some(op) = by_cube_function(start.function) else {
            return unmodelled(format!(
                "CUBE Function {} (an MX form) is not an op this interpreter executes",
                start.function
            ));
        };
        let OpKind::Matmul { form, gemv } = op.kind else {
            unreachable!("CUBE rows are matrix ops");
        };
        let name = op.mnemonic;
        if !fpatr.is_plain() {
            return unmodelled(format!(
                "{name} with B.FPATR post-processing: ptoc's profile defines none (docs/isa.md §18.3)"
            ));
        }
        if !block.ios.is_empty() {
            return unmodelled(format!(
                "{name} with Shared operands (B.IOS): the interpreter models Local operands only"
            ));
        }
        // Types: AType from BSTART, BType from B.DATR (DTYPE_NONE keeps AType).
        let left_type = start.dtype;
        let right_type = block.datr.and_then(|d| d.dtype).unwrap_or(left_type);
        let Some(arith) = MatrixArith::of(left_type, right_type) else {
            return legality(format!(
                "{name} multiplies matrix input types of one class (docs/isa.md §18.4); \
                 AType {left_type} and BType {right_type} are not such a pair"
            ));
        };
        let acc_type = arith.accumulator();
        // The binding stream: the op's Local sources, one destination, terminated; no B.IOR
        // without post-processing.
        let sources: Vec<TileReg> = block
            .bindings
            .iter()
            .flat_map(|b| b.source_regs())
            .collect();
        let dests: Vec<_> = block.bindings.iter().filter_map(|b| b.dst).collect();
        let terminated = block.bindings.last().is_some_and(|b| b.last);
        if !terminated || sources.len() != op.sources.len() || dests.len() != 1 {
            return legality(format!(
                "{name} takes {} Local source(s) and one destination in a terminated B.IOT \
                 stream; the bindings give {} and {}",
                op.sources.len(),
                sources.len(),
                dests.len()
            ));
        }
        if block.ior.is_some() {
            return legality(format!("{name} without post-processing takes no B.IOR"));
        }
        // B.DATR: only BType, RMode and Sat (`BundleTMATMULDataAttributesLegal`).
        if let Some(d) = block.datr {
            if d.layout != 0 || d.pad != PadValue::Zero || d.cmode != 0 || d.canonicalize {
                return legality(format!(
                    "{name} reads only BType, RMode and Sat of B.DATR; Layout, PadValue, CMode \
                     and Canonicalize must be zero"
                ));
            }
            if d.rmode > 1 || d.sat {
                return unmodelled(format!(
                    "{name} with RMode {} and Sat {}: ptoc's profile accumulates with RNE and \
                     no saturation only (docs/isa.md §18.3)",
                    d.rmode, d.sat as u8
                ));
            }
        }
        let [m, n, k] = block.dims.map(|d| d.unwrap_or(1));
        if m == 0 || n == 0 || k == 0 {
            return legality(format!("{name} needs nonzero M, N and K (LB0, LB1, LB2)"));
        }
        if gemv && m != 1 {
            return legality(format!("{name} has M = 1; LB0 is {m}"));
        }
        // Local sources in stream order (`BundleMatrixLocalMathematicalSourcesLegal`).
        let (hand, size) = dests[0];
        let role_reg = |role| {
            op.sources
                .iter()
                .position(|r| *r == role)
                .map(|i| sources[i])
        };
        let left_reg = role_reg(OperandRole::Left).expect("every row has A");
        let right_reg = role_reg(OperandRole::Right).expect("every row has B");
        let left = self.matrix_source(name, "left matrix", left_reg, (m, k), left_type)?;
        let m_layout = left.layout;
        let accumulator = match role_reg(OperandRole::Accumulator) {
            Some(reg) => {
                let c = self.matrix_source(name, "accumulator", reg, (m, n), acc_type)?;
                if c.layout != m_layout || c.size_code != Some(size) {
                    return legality(format!(
                        "{name} accumulator {reg} is {c}; it must be in the left matrix's \
                         {m_layout} layout with the destination's SizeCode {size}"
                    ));
                }
                // `BundleMatrixAccumulatorDestinationIndicesDistinct`: C's encoded selector
                // differs from the zero-extended DstTile field.
                if ptoc_isa::cube::accumulator_clashes(reg, hand) {
                    return legality(format!(
                        "{name} accumulator code {} equals the destination's DstTile field {}",
                        reg.index(),
                        hand.code()
                    ));
                }
                Some(c)
            }
            None => None,
        };
        if !m_layout.holds_m(m) {
            return legality(format!(
                "{name} left matrix {left_reg} is {left}; it must be cube_m16 (M ≤ 16) or \
                 cube_m32 (M ≤ 32)"
            ));
        }
        let right = self.matrix_source(name, "right matrix", right_reg, (k, n), right_type)?;
        if right.layout != Layout::CubeN8 {
            return legality(format!(
                "{name} right matrix {right_reg} is {right}; it must be cube_n8"
            ));
        }
        let bias = match role_reg(OperandRole::Bias) {
            Some(reg) => {
                let b = self.matrix_source(name, "bias", reg, (1, n), acc_type)?;
                if b.layout != Layout::Norm {
                    return legality(format!("{name} bias {reg} is {b}; it must be row-major"));
                }
                Some(b)
            }
            None => None,
        };
        // The destination: A's layout, M×N of the accumulator type, whole cells in its SizeCode.
        let mask = block.mask().unwrap_or_default();
        let mut dst = self.new_cube_destination(acc_type, m_layout, (m, n), hand, size, mask)?;
        let shape = ProductShape {
            m: m as usize,
            n: n as usize,
            k: k as usize,
        };
        let init = accumulator.map(Tile::valid_bits);
        let bias = bias.map(Tile::valid_bits);
        let (values, flags) = arith.product(
            shape,
            &left.valid_bits(),
            &right.valid_bits(),
            init.as_deref(),
            bias.as_deref(),
        );
        debug_assert!(form != MatmulForm::Acc || init.is_some());
        dst.tile = dst
            .tile
            .with_valid_values(&values)
            .or_else(|e| legality(e.0))?;
        self.publish(dst);
        self.flags |= flags;
        Ok(())
    }

    /// A matrix source: allocated, valid region defined, of `shape` (rows, columns) and `dtype`.
    fn matrix_source(
        &self,
        op: &str,
        role: &str,
        reg: TileReg,
        (rows, cols): (u32, u32),
        dtype: DataType,
    ) -> Checked<&Tile> {
        let t = self.source(reg)?;
        if !t.valid_region_defined() {
            return legality(format!(
                "{op} {role} {reg} has undefined elements in its valid region"
            ));
        }
        if (t.valid_rows, t.valid_cols, t.dtype) != (rows, cols, dtype) {
            return legality(format!(
                "{op} {role} {reg} is {t}; M, N, K make it valid {rows}x{cols} of {dtype}"
            ));
        }
        Ok(t)
    }

    /// A new CUBE-layout destination (`ConfigureCubeTileForMask`): renamed and capacity-checked
    /// like any other, its storage the layout's whole cells.
    pub(crate) fn new_cube_destination(
        &self,
        dtype: DataType,
        layout: Layout,
        (valid_rows, valid_cols): (u32, u32),
        hand: Hand,
        size: SizeCode,
        mask: PeMask,
    ) -> Checked<Destination> {
        let tile = Tile::cube(dtype, layout, Some(size), (valid_rows, valid_cols))
            .map_err(|e| (FaultClass::TileAllocation, e.0))?;
        let footprint = RegisterFile::footprint(size, mask);
        let placement = self
            .file
            .preview(hand, footprint)
            .map_err(|e| (FaultClass::TileAllocation, e.to_string()))?;
        Ok(Destination {
            hand,
            placement,
            footprint,
            tile,
            pad: PadValue::Null,
        })
    }
}
