//! The command line's own helpers, kept out of the library: `.npy` files, atomic output files,
//! `--split-input-file`, `--verify-diagnostics` and how `ptoc run` prints its results.

pub mod diagnostics;
pub mod npy;
pub mod output;
pub mod report;
pub mod split;
