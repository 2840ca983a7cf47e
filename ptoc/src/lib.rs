//! ptoc as a library: the façade an ML compiler embeds.
//!
//! [`Driver`] owns one MLIR context; [`Driver::process`] runs one input buffer (or one
//! `// -----` chunk of it) through parse → import → passes → output, returning the text to print
//! or the located diagnostics. The `ptoc` binary is a thin command line around it.

pub mod diagnostics;
pub mod driver;
pub mod output;
pub mod split;

pub use driver::{Driver, Emit, Options, OptionsError};
pub use ptoc_codegen as codegen;
pub use ptoc_dialect as dialect;
pub use ptoc_ir as ir;
pub use ptoc_isa as isa;
pub use ptoc_passes as passes;
pub mod exec;
pub mod npy;
