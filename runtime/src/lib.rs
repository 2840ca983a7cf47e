//! ptoc's runtime: exact element numerics, the interpreter of encoded tile-bundle words, and the
//! reference evaluator of unoptimised tile IR (design note §5).
//!
//! The interpreter ([`machine`]) and the reference evaluator ([`reference`]) share the numeric
//! kernels ([`numerics`], [`kernels`]) and nothing else, so a compiled kernel can be checked bit for
//! bit against the meaning of its source.

pub mod numerics;
