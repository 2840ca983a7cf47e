//! The numeric controls a bundle's B.DATR gives an op that reads them (TCVT): the rounding mode
//! (RMode, bits 17:15) and saturation (Sat, bit 26), and the op's default when RMode is 0.
//!
//! Codes and meanings: `asl/block/attributes/B.DATR.asl` (RMode role), `asl/arch/data-types/rounding.asl`
//! (`NumericRoundingMode`), `spec/hardware-conformance-profile.json` (`b_datr.rounding_modes`); the
//! TCVT default: `InstructionContractDefaultRounding_TCVT` in
//! `asl/tile/elementwise-tile-tile/format-conversion/TCVT.asl` (docs/isa.md §1.10).

use crate::dtype::DataType;

/// A rounding mode B.DATR RMode can select (codes 1..=7; code 0 is the op's default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RoundingMode {
    /// Nearest, ties to even.
    Rne = 1,
    /// Toward zero.
    Rtz = 2,
    /// Toward −∞ (RTM).
    Rdn = 3,
    /// Toward +∞ (RTP).
    Rup = 4,
    /// Nearest, ties away from zero.
    Rna = 5,
    /// Round to odd: truncate, then set the last bit when anything was dropped.
    Rto = 6,
    /// Nearest, ties to the numerically greater candidate (toward +∞).
    Rhb = 7,
}

impl RoundingMode {
    /// Every mode, in RMode code order (codes 1..=7).
    pub const ALL: [RoundingMode; 7] = [
        RoundingMode::Rne,
        RoundingMode::Rtz,
        RoundingMode::Rdn,
        RoundingMode::Rup,
        RoundingMode::Rna,
        RoundingMode::Rto,
        RoundingMode::Rhb,
    ];

    /// The B.DATR RMode code (1..=7).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The mode of an RMode code; `None` for 0 (the op's default) and codes above 7.
    pub fn from_code(code: u8) -> Option<RoundingMode> {
        RoundingMode::ALL.into_iter().find(|m| m.code() == code)
    }

    /// The spec's assembly name (`RNE`, `RDN`, …).
    pub fn name(self) -> &'static str {
        match self {
            RoundingMode::Rne => "RNE",
            RoundingMode::Rtz => "RTZ",
            RoundingMode::Rdn => "RDN",
            RoundingMode::Rup => "RUP",
            RoundingMode::Rna => "RNA",
            RoundingMode::Rto => "RTO",
            RoundingMode::Rhb => "RHB",
        }
    }

    /// The `pto.rmode` spelling in MLIR (`"rne"`, `"rdn"`, …).
    pub fn mlir_name(self) -> String {
        self.name().to_ascii_lowercase()
    }

    /// The mode for a `pto.rmode` spelling or an assembly name, case-insensitive; `rtm`/`rtp`
    /// are accepted as the spec's other names of RDN/RUP.
    pub fn from_name(name: &str) -> Option<RoundingMode> {
        match name.to_ascii_lowercase().as_str() {
            "rtm" => return Some(RoundingMode::Rdn),
            "rtp" => return Some(RoundingMode::Rup),
            _ => {}
        }
        RoundingMode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(name))
    }

    /// Every `pto.rmode` spelling, for diagnostics (`"rne", "rtz", …`).
    pub fn mlir_names() -> String {
        RoundingMode::ALL
            .map(|m| format!("\"{}\"", m.mlir_name()))
            .join(", ")
    }
}

/// What an op's B.DATR RMode and Sat fields say. `rmode: None` is RMode 0, the op's default;
/// the default control (`None`, no saturation) is what an omitted B.DATR gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NumericControl {
    /// B.DATR RMode; `None` is RMode 0, the op's default.
    pub rmode: Option<RoundingMode>,
    /// B.DATR Sat: saturate instead of wrapping or overflowing.
    pub sat: bool,
}

impl NumericControl {
    /// The B.DATR RMode code (0 for the default).
    pub fn rmode_code(self) -> u8 {
        self.rmode.map_or(0, RoundingMode::code)
    }

    /// The control of B.DATR fields `rmode` (0..=7) and `sat`.
    pub fn from_fields(rmode: u8, sat: bool) -> NumericControl {
        NumericControl {
            rmode: RoundingMode::from_code(rmode),
            sat,
        }
    }

    /// Whether this is the default control (what an omitted B.DATR gives).
    pub fn is_default(self) -> bool {
        self == NumericControl::default()
    }

    /// The rounding a TCVT from `src` to `dst` uses: the explicit mode, else RTZ for float to
    /// integer and RNE for everything else (`InstructionContractDefaultRounding_TCVT`).
    pub fn resolve(self, src: DataType, dst: DataType) -> RoundingMode {
        self.rmode.unwrap_or(if src.is_float() && dst.is_integer() {
            RoundingMode::Rtz
        } else {
            RoundingMode::Rne
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_follow_b_datr() {
        let names = ["RNE", "RTZ", "RDN", "RUP", "RNA", "RTO", "RHB"];
        for (i, name) in names.iter().enumerate() {
            let m = RoundingMode::from_code(i as u8 + 1).unwrap();
            assert_eq!(m.name(), *name);
            assert_eq!(RoundingMode::from_name(&name.to_ascii_lowercase()), Some(m));
        }
        assert_eq!(RoundingMode::from_code(0), None);
        assert_eq!(RoundingMode::from_name("rtm"), Some(RoundingMode::Rdn));
        assert_eq!(RoundingMode::from_name("rtp"), Some(RoundingMode::Rup));
        assert_eq!(RoundingMode::from_name("nearest"), None);
    }

    /// `tile-bound-tcvt-defaults-001.asl`: FP32→S32 defaults to RTZ, FP32→FP16 and S32→U8 to RNE.
    #[test]
    fn the_tcvt_default_follows_the_spec_test() {
        let d = NumericControl::default();
        assert_eq!(d.resolve(DataType::FP32, DataType::S32), RoundingMode::Rtz);
        assert_eq!(d.resolve(DataType::FP32, DataType::FP16), RoundingMode::Rne);
        assert_eq!(d.resolve(DataType::S32, DataType::U8), RoundingMode::Rne);
        let rna = NumericControl::from_fields(5, true);
        assert_eq!(
            rna.resolve(DataType::FP32, DataType::S32),
            RoundingMode::Rna
        );
        assert_eq!((rna.rmode_code(), rna.sat), (5, true));
    }
}
