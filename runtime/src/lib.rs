//! ptoc's runtime: exact element numerics, the interpreter of encoded tile-bundle words, the
//! reference evaluator of unoptimised tile IR (README, Running kernels) and that of
//! linalg-on-tensors programs ([`evaluate_linalg`]).
//!
//! The interpreter ([`Machine`]) and the reference evaluator ([`evaluate`], [`evaluate_gm`]) share
//! the numeric kernels ([`numerics`] and the crate's tile kernels) and nothing else, so a compiled kernel can be checked bit for
//! bit against the meaning of its source.
//!
//! Runtime choices where docs/isa.md is silent (the ISA decisions themselves live in
//! `ptoc_isa::profile::PROFILE`):
//! - Carriers hold exactly the element's bits (upper bits zero); the loader drops bits above the
//!   width. Signed results are not sign-extended (S8 −1 is `0xFF`).
//! - An E4M3 result that overflows (docs/isa.md §9 decision 7) raises OF|NX; an E4M3 division of a nonzero by
//!   zero gives 0x7F with DZ. EXP of a finite nonzero input always raises NX (UF when tiny).
//! - A fault outside any block (a stray header command or BSTOP) reports the index the next
//!   block would get; a program that ends inside a block faults with Fault_BundleControl.
//! - The scalar core runs the scalar instructions as they are reached; the loader
//!   sets GPRs with [`Machine::set_gpr`] and maps GM buffers with [`Machine::map_gm`].
//! - A kernel that does not end stops after [`DEFAULT_STEP_LIMIT`] instructions (or
//!   [`Machine::set_step_limit`]) with a `StepLimit` fault, which is not an ISA fault.
//! - A selector the decoder accepts but the catalogue lacks (e.g. TSEL) faults at commit with
//!   Fault_IllegalInstruction (docs/isa.md §3.5 step 2).

#![warn(missing_docs)]

mod bundle;
mod cube;
mod elements;
mod gm;
mod kernels;
mod lines;
mod machine;
pub mod numerics;
mod program;
mod reference;
mod reference_gm;
mod reference_linalg;
mod scalar;
mod tile;
mod tlsu;

pub use elements::{Definedness, Elements};
pub use lines::LineVec;
pub use machine::{Fault, LoadError, Machine, DEFAULT_STEP_LIMIT};
pub use reference::{evaluate, evaluate_with_flags, evaluate_with_scalar, EvalError, Evaluation};
pub use reference_gm::{evaluate_gm, GmArg, GmEvaluation};
pub use reference_linalg::{
    evaluate_linalg, evaluate_linalg_with, LinalgArg, LinalgOptions, LinalgTensor,
};
pub use tile::{ShapeError, Tile};
