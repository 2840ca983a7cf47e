//! ptoc's tile IR, shared by every stage after the MLIR front end.
//!
//! It lives apart from the `dialect` crate (which owns the MLIR bridge) so that the passes, the
//! code generator, the runtime and the fuzz targets build and test without linking MLIR.

pub mod diag;
pub mod func;
pub mod gm;
pub mod gm_build;
pub mod linalg;
pub mod tile_type;

pub use diag::{Diagnostic, Location, Severity, Source, SourceMap};
pub use func::{
    alloc_attrs, control_attrs, Attr, Function, Module, Op, OpId, Value, ValueDef, ValueId,
};
pub use gm::{
    ArithOp, Block, Carried, GmDef, GmKernel, GmOp, GmOpKind, GmValue, MemRefType, ScalarType, Type,
};
pub use tile_type::{Dim, TileType, TileTypeError};
