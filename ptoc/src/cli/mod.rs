//! The command line's own helpers, kept out of the library: `.npy` files, atomic output files,
//! `--split-input-file`, `--verify-diagnostics`, how `ptoc run` prints its results and its
//! progress line.

pub mod diagnostics;
pub mod npy;
pub mod output;
pub mod progress;
pub mod report;
pub mod split;
