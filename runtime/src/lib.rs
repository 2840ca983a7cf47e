//! ptoc's runtime: exact element numerics, the interpreter of encoded tile-bundle words, and the
//! reference evaluator of unoptimised tile IR (design note §5).
//!
//! The interpreter ([`machine`]) and the reference evaluator ([`reference`]) share the numeric
//! kernels ([`numerics`], [`kernels`]) and nothing else, so a compiled kernel can be checked bit for
//! bit against the meaning of its source.

pub mod kernels;
pub mod numerics;
pub mod tile;

pub use tile::Tile;
pub mod bundle;
pub mod machine;

pub use machine::{Fault, LoadError, Machine};
pub mod reference;

pub use reference::{evaluate, evaluate_with_flags, EvalError, Evaluation};
