//! A small builder of GM kernels for tests and benchmarks: each op gets the next source line of
//! `FILE.mlir`, so diagnostics point somewhere stable without an MLIR front end.
//!
//! ```
//! use ptoc_ir::gm_build::GmBuilder;
//! use ptoc_ir::{ArithOp, ScalarType};
//! let mut b = GmBuilder::new("double_rows");
//! let x = b.memref("x", "memref<4x8xf32>");
//! let out = b.memref("out", "memref<4x8xf32>");
//! let (c0, c1, c4) = (b.index(0), b.index(1), b.index(4));
//! b.for_loop(c0, c4, c1, &[], |b, i, _| {
//!     let t = b.load(x, i, c0, "1x8xf32");
//!     let d = b.tile("TADD", &[t, t], "1x8xf32");
//!     b.store(d, out, i, c0);
//!     vec![]
//! });
//! let k = b.finish();
//! assert_eq!(k.body.ops.len(), 5);
//! # let _ = (ArithOp::AddI, ScalarType::Index);
//! ```

use crate::diag::Location;
use crate::func::ValueId;
use crate::gm::{ArithOp, Block, GmDef, GmKernel, GmOp, GmOpKind, MemRefType, ScalarType, Type};
use crate::tile_type::TileType;
use ptoc_isa::ops::by_mnemonic;
use ptoc_isa::NumericControl;
use std::collections::BTreeMap;

/// Builds one [`GmKernel`]; nested loop bodies are built by closures.
#[derive(Clone)]
pub struct GmBuilder {
    kernel: GmKernel,
    file: String,
    line: u32,
    /// The blocks being built, innermost last.
    blocks: Vec<Block>,
    /// Where the next ops come from, when a converter names their source ([`GmBuilder::at`]).
    source_loc: Option<Location>,
}

/// `16x64xf32` (with the optional `, valid=…` and `, pad=…`) as a tile type; panics on bad text,
/// which in a test is a bug of the test.
pub fn tile_type(text: &str) -> TileType {
    TileType::parse(&format!("!pto.tile<{text}>"))
        .unwrap_or_else(|e| panic!("bad tile type {text}: {e:?}"))
}

impl GmBuilder {
    /// A kernel `@name` in `name.mlir`.
    pub fn new(name: &str) -> GmBuilder {
        let file = format!("{name}.mlir");
        GmBuilder {
            kernel: GmKernel::new(name, Location::new(file.clone(), 1, 1)),
            file,
            line: 1,
            blocks: vec![Block::default()],
            source_loc: None,
        }
    }

    /// A kernel `@name` whose ops carry `loc` until [`GmBuilder::at`] says otherwise, for
    /// converters that build kernels from source ops.
    pub fn at_source(name: &str, loc: Location) -> GmBuilder {
        let mut b = GmBuilder::new(name);
        b.kernel.loc = loc.clone();
        b.source_loc = Some(loc);
        b
    }

    /// The ops built from now on come from `loc`.
    pub fn at(&mut self, loc: Location) {
        self.source_loc = Some(loc);
    }

    /// The kernel built so far (its values' types).
    pub fn kernel(&self) -> &GmKernel {
        &self.kernel
    }

    fn next_loc(&mut self) -> Location {
        if let Some(loc) = &self.source_loc {
            return loc.clone();
        }
        self.line += 1;
        Location::new(self.file.clone(), self.line, 3)
    }

    /// A memref argument (`memref<4x8xf32>`).
    pub fn memref(&mut self, name: &str, ty: &str) -> ValueId {
        let m = MemRefType::parse(ty).unwrap_or_else(|| panic!("bad memref type {ty}"));
        self.memref_of(name, m)
    }

    /// A memref argument of type `m`.
    pub fn memref_of(&mut self, name: &str, m: MemRefType) -> ValueId {
        self.kernel.add_arg(Some(name.to_string()), Type::MemRef(m))
    }

    /// An argument of any type (a memref or a scalar).
    pub fn arg(&mut self, name: &str, ty: Type) -> ValueId {
        self.kernel.add_arg(Some(name.to_string()), ty)
    }

    /// A scalar argument.
    pub fn scalar(&mut self, name: &str, ty: ScalarType) -> ValueId {
        self.kernel
            .add_arg(Some(name.to_string()), Type::Scalar(ty))
    }

    fn push(
        &mut self,
        kind: GmOpKind,
        operands: Vec<ValueId>,
        result_types: Vec<Type>,
        loc: Location,
    ) -> Vec<ValueId> {
        let results = result_types
            .into_iter()
            .enumerate()
            .map(|(i, ty)| self.kernel.add_value(None, ty, GmDef::Result(i)))
            .collect::<Vec<_>>();
        let block = self.blocks.last_mut().expect("a block is open");
        block.ops.push(GmOp {
            kind,
            operands,
            results: results.clone(),
            loc,
            attrs: BTreeMap::new(),
        });
        results
    }

    /// `arith.constant` of a scalar type; `bits` is the value's bit pattern (zero-extended).
    pub fn constant(&mut self, ty: ScalarType, bits: u64) -> ValueId {
        let loc = self.next_loc();
        self.push(
            GmOpKind::Constant(bits),
            vec![],
            vec![Type::Scalar(ty)],
            loc,
        )[0]
    }

    /// An `index` constant.
    pub fn index(&mut self, value: i64) -> ValueId {
        self.constant(ScalarType::Index, value as u64)
    }

    /// An `f32` constant.
    pub fn f32(&mut self, value: f32) -> ValueId {
        self.constant(
            ScalarType::Element(ptoc_isa::DataType::FP32),
            value.to_bits() as u64,
        )
    }

    /// Integer arithmetic; the result has `a`'s type.
    pub fn arith(&mut self, op: ArithOp, a: ValueId, b: ValueId) -> ValueId {
        let ty = self.kernel.ty(a).clone();
        let loc = self.next_loc();
        self.push(GmOpKind::Arith(op), vec![a, b], vec![ty], loc)[0]
    }

    /// `pto.tload(mem, row, col) -> !pto.tile<ty>`.
    pub fn load(&mut self, mem: ValueId, row: ValueId, col: ValueId, ty: &str) -> ValueId {
        let loc = self.next_loc();
        let t = Type::Tile(tile_type(ty));
        self.push(GmOpKind::Load, vec![mem, row, col], vec![t], loc)[0]
    }

    /// `pto.tstore(tile, mem, row, col)`.
    pub fn store(&mut self, tile: ValueId, mem: ValueId, row: ValueId, col: ValueId) {
        let loc = self.next_loc();
        self.push(GmOpKind::Store, vec![tile, mem, row, col], vec![], loc);
    }

    /// `pto.tload(mem, row, col)` into a tile of type `ty`.
    pub fn load_as(&mut self, mem: ValueId, row: ValueId, col: ValueId, ty: TileType) -> ValueId {
        let loc = self.next_loc();
        self.push(
            GmOpKind::Load,
            vec![mem, row, col],
            vec![Type::Tile(ty)],
            loc,
        )[0]
    }

    /// A catalogue tile op with its numeric control and attributes (`pto.cmode`); operands as
    /// [`GmOpKind::Tile`] orders them.
    pub fn tile_op(
        &mut self,
        info: &'static ptoc_isa::OpInfo,
        operands: &[ValueId],
        ty: TileType,
        control: NumericControl,
        attrs: BTreeMap<String, crate::func::Attr>,
    ) -> ValueId {
        let loc = self.next_loc();
        let kind = GmOpKind::Tile { info, control };
        let result = self.push(kind, operands.to_vec(), vec![Type::Tile(ty)], loc)[0];
        let block = self.blocks.last_mut().expect("a block is open");
        if let Some(op) = block.ops.last_mut() {
            op.attrs = attrs;
        }
        result
    }

    /// A catalogue tile op by mnemonic (`TADD`), result of type `ty`.
    pub fn tile(&mut self, mnemonic: &str, operands: &[ValueId], ty: &str) -> ValueId {
        let info = by_mnemonic(mnemonic).unwrap_or_else(|| panic!("no op {mnemonic}"));
        let loc = self.next_loc();
        let kind = GmOpKind::Tile {
            info,
            control: NumericControl::default(),
        };
        let t = Type::Tile(tile_type(ty));
        self.push(kind, operands.to_vec(), vec![t], loc)[0]
    }

    /// A tile-scalar op by mnemonic (`TADDS`, `TEXPANDS`): its tile sources, then the scalar.
    pub fn tile_scalar(
        &mut self,
        mnemonic: &str,
        tiles: &[ValueId],
        scalar: ValueId,
        ty: &str,
    ) -> ValueId {
        let mut operands = tiles.to_vec();
        operands.push(scalar);
        self.tile(mnemonic, &operands, ty)
    }

    /// `scf.for %iv = lb to ub step step iter_args(inits)`: `body` gets the builder, the
    /// induction variable and the carried values, and returns the values to yield. Returns the
    /// loop's results.
    pub fn for_loop(
        &mut self,
        lb: ValueId,
        ub: ValueId,
        step: ValueId,
        inits: &[ValueId],
        body: impl FnOnce(&mut GmBuilder, ValueId, &[ValueId]) -> Vec<ValueId>,
    ) -> Vec<ValueId> {
        let loc = self.next_loc();
        let iv = self
            .kernel
            .add_value(None, Type::Scalar(ScalarType::Index), GmDef::BlockArg(0));
        let carried: Vec<ValueId> = inits
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let ty = self.kernel.ty(v).clone();
                self.kernel.add_value(None, ty, GmDef::BlockArg(i + 1))
            })
            .collect();
        let mut args = vec![iv];
        args.extend(&carried);
        self.blocks.push(Block {
            args,
            ops: Vec::new(),
        });
        let yields = body(self, iv, &carried);
        let yield_loc = self.next_loc();
        self.push(GmOpKind::Yield, yields, vec![], yield_loc);
        let block = self.blocks.pop().expect("the body is open");
        let mut operands = vec![lb, ub, step];
        operands.extend(inits);
        let types = inits.iter().map(|&v| self.kernel.ty(v).clone()).collect();
        self.push(GmOpKind::For(block), operands, types, loc)
    }

    /// Close the kernel with a `func.return` of `results` (usually none).
    pub fn finish_with(mut self, results: &[ValueId]) -> GmKernel {
        let loc = self.next_loc();
        self.push(GmOpKind::Return, results.to_vec(), vec![], loc);
        self.kernel.body = self.blocks.pop().expect("the kernel body");
        self.kernel
    }

    /// Close the kernel with an empty `func.return`.
    pub fn finish(self) -> GmKernel {
        self.finish_with(&[])
    }
}
