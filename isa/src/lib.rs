//! The one source of PTO ISA truth for ptoc.
//!
//! Everything else in the compiler derives from the tables here: the op catalogue
//! ([`ops::CATALOGUE`]), the DataType codes ([`dtype::DataType`]), the tile geometry rules
//! ([`geometry`]), the word formats ([`encoding`]) and the project's decisions where the spec is
//! silent ([`profile::PROFILE`]). Facts come from `PTO-ISA/pto-spec` 0.58.3 (docs/isa.md); each item names the spec path it encodes.

#![warn(missing_docs)]

pub mod cube;
pub mod dtype;
pub mod encoding;
pub mod float;
pub mod geometry;
pub mod ops;
pub mod profile;
pub mod regfile;
mod rounding;
pub mod rules;
pub mod scalar;

pub use cube::Layout;
pub use dtype::{DataType, PadValue, TypeClass};
pub use encoding::{DecodeError, Instruction};
pub use geometry::{Hand, PeMask, SizeCode, TileReg};
pub use ops::{
    Axis, CmpMode, ElementOp, Engine, MatmulForm, OpInfo, OpKind, Reduction, ResultKind, Storage,
    UnaryOp,
};
pub use regfile::RegisterFile;
pub use rounding::{NumericControl, RoundingMode};
pub use rules::{DatrFields, Geometry};

/// The spec release ptoc targets (`spec/evidence/pto-isa-0583-encoding-totality.json`).
pub const SPEC_VERSION: &str = "pto-isa-0.58.3-mode-function-v1";

/// The fault classes of `asl/arch/data-types/fault.asl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultClass {
    /// An encoding the decoder rejects: reserved codes, unknown selectors (docs/isa.md §3.5).
    IllegalInstruction,
    /// Malformed block structure: commands out of order, incomplete bindings (docs/isa.md §3.5).
    BundleControl,
    /// Schema, type, shape or definedness rules of the op broken (docs/isa.md §3.5).
    TileLegality,
    /// A destination that cannot be named or fit: no register, capacity, shape against TSize (docs/isa.md §3.5).
    TileAllocation,
    /// A GM element address that is not a multiple of its size (docs/isa.md §15).
    DataAlignment,
    /// A GM element outside the buffer its base points into (docs/isa.md §15, §9 decision 19).
    DataPage,
    /// A branch to a target outside the kernel's code (docs/isa.md §17 decision 39).
    InstructionPage,
    /// Not an ISA fault: the interpreter's step budget ran out (a kernel that does not end).
    StepLimit,
}

impl FaultClass {
    /// The spec's name of the fault (`Fault_TileLegality`), as diagnostics print it.
    pub fn name(self) -> &'static str {
        match self {
            FaultClass::IllegalInstruction => "Fault_IllegalInstruction",
            FaultClass::BundleControl => "Fault_BundleControl",
            FaultClass::TileLegality => "Fault_TileLegality",
            FaultClass::TileAllocation => "Fault_TileAllocation",
            FaultClass::DataAlignment => "Fault_DataAlignment",
            FaultClass::DataPage => "Fault_DataPage",
            FaultClass::InstructionPage => "Fault_InstructionPage",
            FaultClass::StepLimit => "StepLimit",
        }
    }
}

impl std::fmt::Display for FaultClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
