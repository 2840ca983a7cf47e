//! The `pto` dialect's MLIR bridge.
//!
//! MLIR 22 (through melior) parses every `.mlir` buffer from memory, with the user's file names
//! and line numbers in its locations;
//! `pto.*` ops are written in generic form and the dialect is unregistered, so ptoc checks every
//! op itself while importing it into the tile IR ([`import_module`]). [`export_module`] turns the
//! tile IR back into an MLIR module that MLIR re-parses and prints.

#![warn(missing_docs)]

mod expand_math;
mod export;
mod import;
mod import_gm;
mod import_linalg;
mod mlir;
mod nesting;

pub use export::{export_module, export_text};
pub use import::{import_module, import_module_with, ImportOptions};
pub use mlir::{Frontend, ParsedModule};
