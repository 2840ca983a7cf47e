//! The project's decisions where the spec is silent or contradicts itself (docs/isa.md §9).
//!
//! Each decision that code implements is one named field, read exactly where the decision
//! applies, through an exhaustive `match`: a second choice is a second variant, and the compiler
//! then points at every place that must implement it. Decisions that are data live with their
//! data instead: the executable DataType sets (decision 3) are the op table's `legal_types`, and
//! E4M3's overflow to NaN (decision 7) is its float format's `has_inf = false`.

/// How B.IOT source codes name registers (docs/isa.md §8 questions 1–2, §9 decisions 1–2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NamingModel {
    /// The 6-bit code is an absolute Local register index; a destination is renamed to the lowest
    /// free register of its hand; nothing is freed inside a program (the executable model).
    AbsoluteNoFree,
    /// Each hand is a queue of at most 16 live tiles, newest first; `T#k` names the k-th newest
    /// tile of hand T; a push onto a full hand retires its oldest tile in the same commit.
    Queue,
}

impl NamingModel {
    /// The target-profile name (`--target-profile=`, object metadata).
    pub fn name(self) -> &'static str {
        match self {
            NamingModel::AbsoluteNoFree => "absolute",
            NamingModel::Queue => "queue",
        }
    }

    /// The naming model for a target-profile name.
    pub fn from_name(name: &str) -> Option<NamingModel> {
        [NamingModel::Queue, NamingModel::AbsoluteNoFree]
            .into_iter()
            .find(|n| n.name() == name)
    }
}

/// How a float EXP is computed (docs/isa.md §8 question 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpAccuracy {
    /// ≤32-bit types: exp in binary64, rounded once (RNE) to the type; FP64: libm `exp`.
    Binary64ThenRound,
}

/// How a same-type EXPDIF rounds (decision 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpDifRounding {
    /// `exp(a - b)` as the ASL writes it: SUB rounded to the type, then EXP rounded to the type.
    TwoStages,
}

/// What a signed integer DIV gives for `S*_MIN / -1` (decision 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignedDivOverflow {
    /// The quotient wraps to `S*_MIN` at the element width.
    Wrap,
}

/// How a matrix op sums its products (`TileProfileMatrixAccumulate` and `TileProfileMatrixBias`,
/// decision 51).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixAccumulate {
    /// Each input widened exactly to the accumulator type; for k = 0, 1, … in order, the product
    /// rounded once to the accumulator type, then the running sum rounded once (RNE): two
    /// roundings a step, as `arith.mulf` then `arith.addf`. The sum starts at +0, or at C for the
    /// `_ACC` forms; a `_BIAS` form adds its bias with one more rounded add after the last step.
    /// Integer products and sums wrap modulo 2^32.
    ProductThenSum,
}

/// Which instruction lengths the decoder accepts (decision 14).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InstructionForms {
    /// 32-bit words only; 16-, 48- and 64-bit forms are rejected with their length.
    Only32Bit,
}

/// The target profile: every decision of docs/isa.md §9 that code implements.
#[derive(Debug)]
pub struct Profile {
    /// How B.IOT codes name registers (decisions 1–2).
    pub naming: NamingModel,
    /// A B.DATR on an op whose contract does not list DataType has that field ignored, so a pad can
    /// be requested with DataType field 0 — decision 4.
    pub datr_datatype_ignored_when_not_applicable: bool,
    /// Decision 5.
    pub expdif: ExpDifRounding,
    /// Decision 6.
    pub exp_accuracy: ExpAccuracy,
    /// Decision 9.
    pub signed_div_overflow: SignedDivOverflow,
    /// At most this many effective Local B.IOT bindings per bundle — decision 11.
    pub max_bindings: usize,
    /// Core aggregate: Σ popcount(mask) × capacity ≤ this many bytes — decision 12.
    pub core_capacity_bytes: u32,
    /// Decision 51.
    pub matrix_accumulate: MatrixAccumulate,
    pub(crate) instruction_forms: InstructionForms,
}

/// The profile ptoc compiles for and its interpreter executes.
pub const PROFILE: Profile = Profile {
    naming: NamingModel::Queue,
    datr_datatype_ignored_when_not_applicable: true,
    expdif: ExpDifRounding::TwoStages,
    exp_accuracy: ExpAccuracy::Binary64ThenRound,
    signed_div_overflow: SignedDivOverflow::Wrap,
    max_bindings: 4,
    core_capacity_bytes: 256 * 1024,
    matrix_accumulate: MatrixAccumulate::ProductThenSum,
    instruction_forms: InstructionForms::Only32Bit,
};
