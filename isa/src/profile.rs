//! The project's decisions where the spec is silent or contradicts itself (facts §9).
//!
//! Each decision is one named field, so a later spec release can flip it in one place.

/// How B.IOT source codes name registers (facts §8 questions 1–2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamingModel {
    /// The 6-bit code is an absolute Local register index; a destination is renamed to the lowest
    /// free register of its hand; nothing is freed inside a program.
    AbsoluteNoFree,
}

/// How a float EXP is computed (facts §8 question 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpAccuracy {
    /// ≤32-bit types: exp in binary64, rounded once (RNE) to the type; FP64: libm `exp`.
    Binary64ThenRound,
}

/// The target profile: every decision of facts §9.
#[derive(Debug)]
pub struct Profile {
    pub naming: NamingModel,
    /// DataType sets are the executable ones (16 arithmetic, 8 float for TEXP) — decision 3.
    pub executable_type_sets: bool,
    /// A B.DATR on an op whose contract does not list DataType has that field ignored, so a pad can
    /// be requested with DataType field 0 — decision 4.
    pub datr_datatype_ignored_when_not_applicable: bool,
    /// EXPDIF rounds SUB, then EXP — decision 5.
    pub expdif_two_rounded_stages: bool,
    pub exp_accuracy: ExpAccuracy,
    /// E4M3 arithmetic overflow gives the canonical NaN 0x7F; E5M2 overflows to ±inf — decision 7.
    pub e4m3_overflow_is_nan: bool,
    /// S*_MIN / −1 wraps to S*_MIN at the element width — decision 9.
    pub signed_div_overflow_wraps: bool,
    /// At most this many effective Local B.IOT bindings per bundle — decision 11.
    pub max_bindings: usize,
    /// Core aggregate: Σ popcount(mask) × capacity ≤ this many bytes — decision 12.
    pub core_capacity_bytes: u32,
    /// Only 32-bit instruction forms are accepted — decision 14.
    pub only_32_bit_words: bool,
}

/// The profile ptoc compiles for and its interpreter executes.
pub const PROFILE: Profile = Profile {
    naming: NamingModel::AbsoluteNoFree,
    executable_type_sets: true,
    datr_datatype_ignored_when_not_applicable: true,
    expdif_two_rounded_stages: true,
    exp_accuracy: ExpAccuracy::Binary64ThenRound,
    e4m3_overflow_is_nan: true,
    signed_div_overflow_wraps: true,
    max_bindings: 4,
    core_capacity_bytes: 256 * 1024,
    only_32_bit_words: true,
};
