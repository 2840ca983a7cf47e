//! ptoc's tile IR, shared by every stage after the MLIR front end.
//!
//! It lives apart from the `dialect` crate (which owns the MLIR bridge) so that the passes, the
//! code generator, the runtime and the fuzz targets build and test without linking MLIR.
//!
//! A [`Module`] holds straight-line tile kernels ([`Function`]), GM kernels with loops
//! ([`GmKernel`]) and linalg-on-tensors programs ([`linalg::Program`]);
//! [`Diagnostic`]s at [`Location`]s report everything wrong with them.

#![warn(missing_docs)]

mod diag;
mod func;
mod gm;
pub mod gm_build;
pub mod linalg;
mod tile_type;

pub use diag::{Diagnostic, Location, Severity, Source, SourceMap};
pub use func::{
    alloc_attrs, control_attrs, Attr, Function, Module, Op, OpId, Value, ValueDef, ValueId,
};
pub use gm::{
    check_bounds, ArithOp, Block, Carried, GmDef, GmKernel, GmOp, GmOpKind, GmValue, MemRefType,
    ScalarType, Type, WORKSPACE_ATTR,
};
pub use tile_type::{element_name, parse_element, Dim, TileType, TileTypeError};
