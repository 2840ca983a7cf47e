//! The scalar instructions GM kernels use, one table row per 32-bit form (docs/isa.md §11–§12).
//!
//! Rows come from each mnemonic's header under `asl/scalar/alu/` and `asl/scalar/bru/` (mask, match,
//! field positions; cross-checked against `spec/catalog/scalar-forms.json`). Operand codes are the
//! 5-bit Reg5 codes of docs/isa.md §11.1–§11.2: 0–23 absolute GPRs, 24–27 the T queue entries
//! T#1–T#4, 28–31 the U queue entries U#1–U#4 as sources; as a destination 30 pushes on U, 31 on T,
//! and 0 and 24–29 drop the result. ptoc emits only absolute GPRs; the queue codes decode so that
//! hand-written words execute.

use std::fmt;

/// A condition of CMP and SETC; its code is the forms' funct3 (docs/isa.md §11.6, §12.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cond {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// `(SrcL & x) != 0`.
    And,
    /// `(SrcL | x) != 0`.
    Or,
    /// Signed `<`.
    Lt,
    /// Signed `>=`.
    Ge,
    /// Unsigned `<`.
    Ltu,
    /// Unsigned `>=`.
    Geu,
}

impl Cond {
    /// Every condition, in funct3 code order.
    pub const ALL: [Cond; 8] = [
        Cond::Eq,
        Cond::Ne,
        Cond::And,
        Cond::Or,
        Cond::Lt,
        Cond::Ge,
        Cond::Ltu,
        Cond::Geu,
    ];

    /// The funct3 code of the condition.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The assembly suffix (`eq`, `ltu`, …).
    pub fn name(self) -> &'static str {
        match self {
            Cond::Eq => "eq",
            Cond::Ne => "ne",
            Cond::And => "and",
            Cond::Or => "or",
            Cond::Lt => "lt",
            Cond::Ge => "ge",
            Cond::Ltu => "ltu",
            Cond::Geu => "geu",
        }
    }

    /// Whether `left ? right` holds, on full 64-bit values (`ConditionHolds`,
    /// `asl/scalar/model/bru/semantics.asl`).
    pub fn holds(self, left: u64, right: u64) -> bool {
        match self {
            Cond::Eq => left == right,
            Cond::Ne => left != right,
            Cond::And => left & right != 0,
            Cond::Or => left | right != 0,
            Cond::Lt => (left as i64) < right as i64,
            Cond::Ge => left as i64 >= right as i64,
            Cond::Ltu => left < right,
            Cond::Geu => left >= right,
        }
    }
}

/// What a scalar instruction computes. Its semantics live in the runtime's scalar core.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarOp {
    /// `SrcL op (modifier(SrcR) << shamt)`; `word` forms work on bits 31:0 and sign-extend.
    Alu {
        /// The operation.
        op: AluOp,
        /// The W form (`ADDW`, …).
        word: bool,
    },
    /// `SrcL op SrcR` with no modifier (shifts by `SrcR[5:0]`, MUL, DIV, REM, MAX, MIN).
    Plain(PlainOp),
    /// `SrcL op imm12`.
    Imm(ImmOp),
    /// `SignExtend64(imm20) << 12`.
    Lui,
    /// `RegDst = (SrcL cond x) ? 1 : 0`, x a register or an immediate.
    Cmp {
        /// The relation.
        cond: Cond,
        /// Whether `x` is an immediate.
        imm: bool,
    },
    /// The block's branch condition: `TAKEN = SrcL cond x` (docs/isa.md §12.4).
    SetC {
        /// The relation.
        cond: Cond,
        /// Whether `x` is an immediate.
        imm: bool,
    },
    /// `RegDst = SrcP != 0 ? SrcL : sel(SrcR)`.
    Csel,
}

/// The register forms with a right-operand modifier and shift (docs/isa.md §11.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AluOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
}

/// The register forms without a modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlainOp {
    /// Shift left by `SrcR[5:0]`.
    Sll,
    /// Logical shift right by `SrcR[5:0]`.
    Srl,
    /// Arithmetic shift right by `SrcR[5:0]`.
    Sra,
    /// Low 64 bits of the product.
    Mul,
    /// Low 32 bits of the product, sign-extended.
    MulW,
    /// Signed quotient; x/0 = 0, MIN/−1 = MIN.
    Div,
    /// Unsigned quotient; x/0 = 0.
    DivU,
    /// Signed remainder; x rem 0 = x.
    Rem,
    /// Unsigned remainder; x rem 0 = x.
    RemU,
    /// Signed maximum.
    Max,
    /// Signed minimum.
    Min,
    /// Unsigned maximum.
    MaxU,
    /// Unsigned minimum.
    MinU,
}

/// The immediate forms (docs/isa.md §11.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImmOp {
    /// Zero-extended uimm12.
    AddI,
    /// Zero-extended uimm12.
    SubI,
    /// Sign-extended simm12.
    AndI,
    /// Sign-extended simm12.
    OrI,
    /// Sign-extended simm12.
    XorI,
    /// Shift amount 0..63.
    SllI,
    /// Shift amount 0..63.
    SrlI,
    /// Shift amount 0..63.
    SraI,
}

/// How a row's operand fields are laid out in the word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// RegDst 11:7, SrcL 19:15, SrcR 24:20, SrcRType 26:25, shamt 31:27.
    RegModified,
    /// RegDst, SrcL, SrcR; bits 31:25 zero.
    Reg,
    /// RegDst, SrcL, uimm12 31:20.
    ImmUnsigned,
    /// RegDst, SrcL, simm12 31:20.
    ImmSigned,
    /// RegDst, SrcL, shamt 25:20; bits 31:26 zero.
    Shift,
    /// RegDst, imm20 31:12.
    Upper,
    /// RegDst, SrcL, SrcR, SrcRType 26:25; bits 31:27 zero.
    Compare,
    /// SrcL, SrcR, SrcRType; bits 31:27 and 11:7 zero.
    SetC,
    /// SrcL, imm12 31:20 (signed or not), shamt 11:7.
    SetCImm {
        /// Whether imm12 is sign-extended.
        signed: bool,
    },
    /// RegDst, SrcL, SrcR, SrcRType 26:25, SrcP 31:27.
    Select,
}

impl Format {
    /// The bits this format's fields occupy, beyond the row's own fixed bits.
    fn field_mask(self) -> u32 {
        const DST: u32 = 31 << 7;
        const SRCL: u32 = 31 << 15;
        const SRCR: u32 = 31 << 20;
        const RTYPE: u32 = 3 << 25;
        match self {
            Format::RegModified => DST | SRCL | SRCR | RTYPE | (31 << 27),
            Format::Reg => DST | SRCL | SRCR,
            Format::ImmUnsigned | Format::ImmSigned => DST | SRCL | (0xFFF << 20),
            Format::Shift => DST | SRCL | (63 << 20),
            Format::Upper => DST | (0xF_FFFF << 12),
            Format::Compare => DST | SRCL | SRCR | RTYPE,
            Format::SetC => SRCL | SRCR | RTYPE,
            Format::SetCImm { .. } => SRCL | (0xFFF << 20) | DST,
            Format::Select => DST | SRCL | SRCR | RTYPE | (31 << 27),
        }
    }
}

/// One row of the scalar table.
#[derive(Debug)]
pub struct ScalarInfo {
    /// Spec mnemonic, upper case (`ADDI`, `SETC.LT`).
    pub mnemonic: &'static str,
    /// The fixed bits: `word & !format.field_mask() == matches` for every word of the form.
    pub matches: u32,
    /// How the operand fields are laid out.
    pub format: Format,
    /// What it computes.
    pub op: ScalarOp,
}

impl ScalarInfo {
    /// The bits the spec fixes for the form (its catalogue mask).
    pub fn mask(&self) -> u32 {
        !self.format.field_mask()
    }
}

macro_rules! scalar_table {
    ($( $mn:literal: $match:literal, $format:expr, $op:expr; )*) => {
        /// Every scalar form ptoc encodes and decodes (docs/isa.md §11.4–§11.6, §12.4).
        static SCALAR_TABLE: &[ScalarInfo] = &[ $( ScalarInfo {
            mnemonic: $mn, matches: $match, format: $format, op: $op,
        }, )* ];
    };
}

use AluOp as A;
use Format as F;
use ImmOp as I;
use PlainOp as P;

scalar_table! {
    "ADD": 0x0000_0005, F::RegModified, ScalarOp::Alu { op: A::Add, word: false };
    "SUB": 0x0000_1005, F::RegModified, ScalarOp::Alu { op: A::Sub, word: false };
    "AND": 0x0000_2005, F::RegModified, ScalarOp::Alu { op: A::And, word: false };
    "OR": 0x0000_3005, F::RegModified, ScalarOp::Alu { op: A::Or, word: false };
    "XOR": 0x0000_4005, F::RegModified, ScalarOp::Alu { op: A::Xor, word: false };
    "ADDW": 0x0000_0025, F::RegModified, ScalarOp::Alu { op: A::Add, word: true };
    "SUBW": 0x0000_1025, F::RegModified, ScalarOp::Alu { op: A::Sub, word: true };
    "ANDW": 0x0000_2025, F::RegModified, ScalarOp::Alu { op: A::And, word: true };
    "ORW": 0x0000_3025, F::RegModified, ScalarOp::Alu { op: A::Or, word: true };
    "XORW": 0x0000_4025, F::RegModified, ScalarOp::Alu { op: A::Xor, word: true };
    "SLL": 0x0000_7005, F::Reg, ScalarOp::Plain(P::Sll);
    "SRL": 0x0000_5005, F::Reg, ScalarOp::Plain(P::Srl);
    "SRA": 0x0000_6005, F::Reg, ScalarOp::Plain(P::Sra);
    "MUL": 0x0000_0047, F::Reg, ScalarOp::Plain(P::Mul);
    "MULW": 0x0000_2047, F::Reg, ScalarOp::Plain(P::MulW);
    "DIV": 0x0000_0057, F::Reg, ScalarOp::Plain(P::Div);
    "DIVU": 0x0000_1057, F::Reg, ScalarOp::Plain(P::DivU);
    "REM": 0x0000_4057, F::Reg, ScalarOp::Plain(P::Rem);
    "REMU": 0x0000_5057, F::Reg, ScalarOp::Plain(P::RemU);
    "MAX": 0x0000_405B, F::Reg, ScalarOp::Plain(P::Max);
    "MIN": 0x0000_505B, F::Reg, ScalarOp::Plain(P::Min);
    "MAXU": 0x0800_405B, F::Reg, ScalarOp::Plain(P::MaxU);
    "MINU": 0x0800_505B, F::Reg, ScalarOp::Plain(P::MinU);
    "ADDI": 0x0000_0015, F::ImmUnsigned, ScalarOp::Imm(I::AddI);
    "SUBI": 0x0000_1015, F::ImmUnsigned, ScalarOp::Imm(I::SubI);
    "ANDI": 0x0000_2015, F::ImmSigned, ScalarOp::Imm(I::AndI);
    "ORI": 0x0000_3015, F::ImmSigned, ScalarOp::Imm(I::OrI);
    "XORI": 0x0000_4015, F::ImmSigned, ScalarOp::Imm(I::XorI);
    "SLLI": 0x0000_7015, F::Shift, ScalarOp::Imm(I::SllI);
    "SRLI": 0x0000_5015, F::Shift, ScalarOp::Imm(I::SrlI);
    "SRAI": 0x0000_6015, F::Shift, ScalarOp::Imm(I::SraI);
    "LUI": 0x0000_0017, F::Upper, ScalarOp::Lui;
    "CMP.EQ": 0x0000_0045, F::Compare, ScalarOp::Cmp { cond: Cond::Eq, imm: false };
    "CMP.NE": 0x0000_1045, F::Compare, ScalarOp::Cmp { cond: Cond::Ne, imm: false };
    "CMP.AND": 0x0000_2045, F::Compare, ScalarOp::Cmp { cond: Cond::And, imm: false };
    "CMP.OR": 0x0000_3045, F::Compare, ScalarOp::Cmp { cond: Cond::Or, imm: false };
    "CMP.LT": 0x0000_4045, F::Compare, ScalarOp::Cmp { cond: Cond::Lt, imm: false };
    "CMP.GE": 0x0000_5045, F::Compare, ScalarOp::Cmp { cond: Cond::Ge, imm: false };
    "CMP.LTU": 0x0000_6045, F::Compare, ScalarOp::Cmp { cond: Cond::Ltu, imm: false };
    "CMP.GEU": 0x0000_7045, F::Compare, ScalarOp::Cmp { cond: Cond::Geu, imm: false };
    "CMP.EQI": 0x0000_0055, F::ImmSigned, ScalarOp::Cmp { cond: Cond::Eq, imm: true };
    "CMP.NEI": 0x0000_1055, F::ImmSigned, ScalarOp::Cmp { cond: Cond::Ne, imm: true };
    "CMP.LTI": 0x0000_4055, F::ImmSigned, ScalarOp::Cmp { cond: Cond::Lt, imm: true };
    "CMP.GEI": 0x0000_5055, F::ImmSigned, ScalarOp::Cmp { cond: Cond::Ge, imm: true };
    "CMP.LTUI": 0x0000_6055, F::ImmUnsigned, ScalarOp::Cmp { cond: Cond::Ltu, imm: true };
    "CMP.GEUI": 0x0000_7055, F::ImmUnsigned, ScalarOp::Cmp { cond: Cond::Geu, imm: true };
    "SETC.EQ": 0x0000_0065, F::SetC, ScalarOp::SetC { cond: Cond::Eq, imm: false };
    "SETC.NE": 0x0000_1065, F::SetC, ScalarOp::SetC { cond: Cond::Ne, imm: false };
    "SETC.AND": 0x0000_2065, F::SetC, ScalarOp::SetC { cond: Cond::And, imm: false };
    "SETC.OR": 0x0000_3065, F::SetC, ScalarOp::SetC { cond: Cond::Or, imm: false };
    "SETC.LT": 0x0000_4065, F::SetC, ScalarOp::SetC { cond: Cond::Lt, imm: false };
    "SETC.GE": 0x0000_5065, F::SetC, ScalarOp::SetC { cond: Cond::Ge, imm: false };
    "SETC.LTU": 0x0000_6065, F::SetC, ScalarOp::SetC { cond: Cond::Ltu, imm: false };
    "SETC.GEU": 0x0000_7065, F::SetC, ScalarOp::SetC { cond: Cond::Geu, imm: false };
    "SETC.EQI": 0x0000_0075, F::SetCImm { signed: true }, ScalarOp::SetC { cond: Cond::Eq, imm: true };
    "SETC.NEI": 0x0000_1075, F::SetCImm { signed: true }, ScalarOp::SetC { cond: Cond::Ne, imm: true };
    "SETC.ANDI": 0x0000_2075, F::SetCImm { signed: true }, ScalarOp::SetC { cond: Cond::And, imm: true };
    "SETC.ORI": 0x0000_3075, F::SetCImm { signed: true }, ScalarOp::SetC { cond: Cond::Or, imm: true };
    "SETC.LTI": 0x0000_4075, F::SetCImm { signed: true }, ScalarOp::SetC { cond: Cond::Lt, imm: true };
    "SETC.GEI": 0x0000_5075, F::SetCImm { signed: true }, ScalarOp::SetC { cond: Cond::Ge, imm: true };
    "SETC.LTUI": 0x0000_6075, F::SetCImm { signed: false }, ScalarOp::SetC { cond: Cond::Ltu, imm: true };
    "SETC.GEUI": 0x0000_7075, F::SetCImm { signed: false }, ScalarOp::SetC { cond: Cond::Geu, imm: true };
    "CSEL": 0x0000_0077, F::Select, ScalarOp::Csel;
}

/// How the right operand of a register form is modified before use (the SrcRType field).
///
/// The field's codes mean different things per group (docs/isa.md §11.4, §11.6): for ADD/SUB/AND/
/// OR/XOR 00 is `.sw`, 01 `.uw`, 10 `.neg`/`.not`, **11 none**; for compares and SETC 00 and 11
/// are none (11 is `.not` for the AND/OR conditions), 01 `.sw`, 10 `.uw`; for CSEL 11 is `.neg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Modifier {
    /// No modifier.
    None,
    /// Sign-extend bits 31:0.
    Sw,
    /// Zero-extend bits 31:0.
    Uw,
    /// `0 - x`.
    Neg,
    /// `!x`.
    Not,
}

impl Modifier {
    /// `x` with the modifier applied.
    pub fn apply(self, x: u64) -> u64 {
        match self {
            Modifier::None => x,
            Modifier::Sw => x as u32 as i32 as i64 as u64,
            Modifier::Uw => x as u32 as u64,
            Modifier::Neg => x.wrapping_neg(),
            Modifier::Not => !x,
        }
    }

    /// The assembly suffix (`.sw`, …; empty for none).
    pub fn suffix(self) -> &'static str {
        match self {
            Modifier::None => "",
            Modifier::Sw => ".sw",
            Modifier::Uw => ".uw",
            Modifier::Neg => ".neg",
            Modifier::Not => ".not",
        }
    }
}

/// One decoded scalar instruction. Fields a form lacks are zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScalarInst {
    /// The table row of the form.
    pub info: &'static ScalarInfo,
    /// RegDst (Reg5 code).
    pub dst: u8,
    /// SrcL.
    pub left: u8,
    /// SrcR.
    pub right: u8,
    /// CSEL's SrcP.
    pub pred: u8,
    /// The raw SrcRType field (see [`ScalarInst::modifier`]).
    pub rtype: u8,
    /// Left shift of the modified right operand (RegModified) or of the immediate (SETC imm).
    pub shamt: u8,
    /// The immediate, extended as the form says (LUI: imm20 unshifted; shifts: the amount).
    pub imm: i64,
}

impl PartialEq for ScalarInfo {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}
impl Eq for ScalarInfo {}

impl ScalarInst {
    /// An instruction of the row `mnemonic` with every field zero.
    pub fn of(mnemonic: &str) -> Option<ScalarInst> {
        let info = by_mnemonic(mnemonic)?;
        Some(ScalarInst {
            info,
            dst: 0,
            left: 0,
            right: 0,
            pred: 0,
            rtype: 0,
            shamt: 0,
            imm: 0,
        })
    }

    /// The modifier the SrcRType field selects for this form.
    pub fn modifier(&self) -> Modifier {
        match (self.info.op, self.rtype) {
            (ScalarOp::Alu { .. }, 0) => Modifier::Sw,
            (ScalarOp::Alu { .. }, 1) => Modifier::Uw,
            (
                ScalarOp::Alu {
                    op: A::Add | A::Sub,
                    ..
                },
                2,
            ) => Modifier::Neg,
            (ScalarOp::Alu { .. }, 2) => Modifier::Not,
            (ScalarOp::Cmp { cond, .. } | ScalarOp::SetC { cond, .. }, code) => match code {
                1 => Modifier::Sw,
                2 => Modifier::Uw,
                3 if matches!(cond, Cond::And | Cond::Or) => Modifier::Not,
                _ => Modifier::None,
            },
            (ScalarOp::Csel, 3) => Modifier::Neg,
            _ => Modifier::None,
        }
    }

    /// The SrcRType code that selects `modifier` for this form, if the form can express it.
    pub fn rtype_for(info: &ScalarInfo, modifier: Modifier) -> Option<u8> {
        (0..4u8).find(|&code| {
            ScalarInst {
                rtype: code,
                ..ScalarInst::of(info.mnemonic).expect("row of the table")
            }
            .modifier()
                == modifier
        })
    }

    /// Whether the printed form names exactly this word: the SrcRType code is the one the
    /// printed modifier assembles to, and a dropped result is written with code 0 (`zero`).
    pub fn is_canonical(&self) -> bool {
        let has_rtype = matches!(
            self.info.format,
            Format::RegModified | Format::Compare | Format::SetC | Format::Select
        );
        let rtype_ok =
            !has_rtype || ScalarInst::rtype_for(self.info, self.modifier()) == Some(self.rtype);
        let dst_ok = !self.writes_dst() || !(24..=29).contains(&self.dst);
        rtype_ok && dst_ok
    }

    /// Whether the form writes RegDst.
    fn writes_dst(&self) -> bool {
        !matches!(self.info.op, ScalarOp::SetC { .. })
    }

    /// The 32-bit word.
    pub fn encode(&self) -> u32 {
        let reg = |r: u8, at: u32| (r as u32 & 31) << at;
        let imm12 = (self.imm as u32 & 0xFFF) << 20;
        let fields = match self.info.format {
            Format::RegModified => {
                reg(self.dst, 7)
                    | reg(self.left, 15)
                    | reg(self.right, 20)
                    | ((self.rtype as u32 & 3) << 25)
                    | ((self.shamt as u32 & 31) << 27)
            }
            Format::Reg => reg(self.dst, 7) | reg(self.left, 15) | reg(self.right, 20),
            Format::ImmUnsigned | Format::ImmSigned => {
                reg(self.dst, 7) | reg(self.left, 15) | imm12
            }
            Format::Shift => reg(self.dst, 7) | reg(self.left, 15) | ((self.imm as u32 & 63) << 20),
            Format::Upper => reg(self.dst, 7) | ((self.imm as u32 & 0xF_FFFF) << 12),
            Format::Compare => {
                reg(self.dst, 7)
                    | reg(self.left, 15)
                    | reg(self.right, 20)
                    | ((self.rtype as u32 & 3) << 25)
            }
            Format::SetC => {
                reg(self.left, 15) | reg(self.right, 20) | ((self.rtype as u32 & 3) << 25)
            }
            Format::SetCImm { .. } => reg(self.left, 15) | imm12 | reg(self.shamt, 7),
            Format::Select => {
                reg(self.dst, 7)
                    | reg(self.left, 15)
                    | reg(self.right, 20)
                    | ((self.rtype as u32 & 3) << 25)
                    | reg(self.pred, 27)
            }
        };
        self.info.matches | fields
    }

    /// Decode a word of one of the table's forms; `None` when no row matches.
    pub fn decode(word: u32) -> Option<ScalarInst> {
        let info = SCALAR_TABLE
            .iter()
            .find(|row| word & row.mask() == row.matches)?;
        let field = |at: u32, width: u32| ((word >> at) & ((1 << width) - 1)) as u8;
        let uimm12 = (word >> 20) as i64;
        let simm12 = (word as i32 >> 20) as i64;
        let mut inst = ScalarInst::of(info.mnemonic).expect("row of the table");
        match info.format {
            Format::RegModified | Format::Reg | Format::Compare | Format::Select => {
                inst.dst = field(7, 5);
                inst.left = field(15, 5);
                inst.right = field(20, 5);
                if info.format != Format::Reg {
                    inst.rtype = field(25, 2);
                }
                match info.format {
                    Format::RegModified => inst.shamt = field(27, 5),
                    Format::Select => inst.pred = field(27, 5),
                    _ => {}
                }
            }
            Format::ImmUnsigned | Format::ImmSigned => {
                inst.dst = field(7, 5);
                inst.left = field(15, 5);
                inst.imm = if info.format == Format::ImmSigned {
                    simm12
                } else {
                    uimm12
                };
            }
            Format::Shift => {
                inst.dst = field(7, 5);
                inst.left = field(15, 5);
                inst.imm = field(20, 6) as i64;
            }
            Format::Upper => {
                inst.dst = field(7, 5);
                inst.imm = (word >> 12) as i64;
            }
            Format::SetC => {
                inst.left = field(15, 5);
                inst.right = field(20, 5);
                inst.rtype = field(25, 2);
            }
            Format::SetCImm { signed } => {
                inst.left = field(15, 5);
                inst.shamt = field(7, 5);
                inst.imm = if signed { simm12 } else { uimm12 };
            }
        }
        Some(inst)
    }
}

/// The scalar row with this (case-insensitive) mnemonic.
pub fn by_mnemonic(mnemonic: &str) -> Option<&'static ScalarInfo> {
    SCALAR_TABLE
        .iter()
        .find(|row| row.mnemonic.eq_ignore_ascii_case(mnemonic))
}

/// Canonical names of the 24 absolute GPRs (docs/isa.md §11.1).
pub const GPR_NAMES: [&str; 24] = [
    "zero", "sp", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "ra", "s0", "s1", "s2", "s3",
    "s4", "s5", "s6", "s7", "s8", "x0", "x1", "x2", "x3",
];

/// The assembly name of a Reg5 source code: a GPR name, or `t#k` / `u#k` for a queue entry.
pub fn source_name(code: u8) -> String {
    match code {
        0..=23 => GPR_NAMES[code as usize].to_string(),
        24..=27 => format!("t#{}", code - 23),
        _ => format!("u#{}", (code & 31) - 27),
    }
}

/// The assembly name of a Reg5 destination code: a GPR name, `t`/`u` for a push, `zero` for a
/// dropped result.
fn destination_name(code: u8) -> String {
    match code {
        1..=23 => GPR_NAMES[code as usize].to_string(),
        30 => "u".to_string(),
        31 => "t".to_string(),
        _ => "zero".to_string(),
    }
}

/// The Reg5 source code of an assembly register name (`a0`, `x3`, `r7`, `t#1`, `u#4`).
pub fn parse_source(name: &str) -> Option<u8> {
    let lower = name.to_ascii_lowercase();
    if let Some(i) = GPR_NAMES.iter().position(|&n| n == lower) {
        return Some(i as u8);
    }
    let number = |s: &str| s.parse::<u8>().ok();
    if let Some(n) = lower.strip_prefix('r').and_then(number) {
        return (n < 24).then_some(n);
    }
    if let Some(k) = lower.strip_prefix("t#").and_then(number) {
        return (1..=4).contains(&k).then_some(23 + k);
    }
    if let Some(k) = lower.strip_prefix("u#").and_then(number) {
        return (1..=4).contains(&k).then_some(27 + k);
    }
    None
}

/// The Reg5 destination code of an assembly name (`a0`, `t`, `u`, `zero`).
pub fn parse_destination(name: &str) -> Option<u8> {
    match name.to_ascii_lowercase().as_str() {
        "t" => Some(31),
        "u" => Some(30),
        other => parse_source(other).filter(|&c| c < 24),
    }
}

impl fmt::Display for ScalarInst {
    /// Canonical assembly: lower-case mnemonic, operands, destination last (`add a0, s0<<6, ->x0`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mn = self.info.mnemonic.to_ascii_lowercase();
        let l = source_name(self.left);
        let r = source_name(self.right);
        let d = destination_name(self.dst);
        let modified = |f: &mut fmt::Formatter<'_>| {
            write!(f, "{r}{}", self.modifier().suffix())?;
            if self.shamt != 0 && self.info.format == Format::RegModified {
                write!(f, "<<{}", self.shamt)?;
            }
            Ok(())
        };
        match self.info.format {
            Format::RegModified | Format::Compare => {
                write!(f, "{mn} {l}, ")?;
                modified(f)?;
                write!(f, ", ->{d}")
            }
            Format::Reg => write!(f, "{mn} {l}, {r}, ->{d}"),
            Format::ImmUnsigned | Format::ImmSigned | Format::Shift => {
                write!(f, "{mn} {l}, {}, ->{d}", self.imm)
            }
            Format::Upper => write!(f, "{mn} {:#x}, ->{d}", self.imm),
            Format::SetC => {
                write!(f, "{mn} {l}, ")?;
                modified(f)
            }
            Format::SetCImm { .. } => {
                write!(f, "{mn} {l}, {}", self.imm)?;
                if self.shamt != 0 {
                    write!(f, "<<{}", self.shamt)?;
                }
                Ok(())
            }
            Format::Select => {
                write!(f, "{mn} {}, {l}, ", source_name(self.pred))?;
                modified(f)?;
                write!(f, ", ->{d}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Masks and matches as the spec's catalogue lists them (`spec/catalog/scalar-forms.json`).
    #[test]
    fn masks_match_the_catalogue() {
        let expect = [
            ("ADD", 0x0000_707F, 0x0000_0005),
            ("XORW", 0x0000_707F, 0x0000_4025),
            ("SLL", 0xFE00_707F, 0x0000_7005),
            ("MAXU", 0xFE00_707F, 0x0800_405B),
            ("ADDI", 0x0000_707F, 0x0000_0015),
            ("SLLI", 0xFC00_707F, 0x0000_7015),
            ("LUI", 0x0000_007F, 0x0000_0017),
            ("CMP.LT", 0xF800_707F, 0x0000_4045),
            ("CMP.GEUI", 0x0000_707F, 0x0000_7055),
            ("SETC.LT", 0xF800_7FFF, 0x0000_4065),
            ("SETC.GEUI", 0x0000_707F, 0x0000_7075),
            ("CSEL", 0x0000_707F, 0x0000_0077),
        ];
        for (mn, mask, matches) in expect {
            let row = by_mnemonic(mn).unwrap();
            assert_eq!((row.mask(), row.matches), (mask, matches), "{mn}");
        }
    }

    #[test]
    fn rows_do_not_overlap() {
        for a in SCALAR_TABLE {
            for b in SCALAR_TABLE {
                if !std::ptr::eq(a, b) {
                    let common = a.mask() & b.mask();
                    assert_ne!(
                        a.matches & common,
                        b.matches & common,
                        "{} {}",
                        a.mnemonic,
                        b.mnemonic
                    );
                }
            }
        }
    }

    proptest::proptest! {
        /// Every word of every form decodes to that form with its fields, and encodes back to
        /// the same word: no field bit is dropped or moved (the table's masks are the spec's
        /// catalogue masks, checked above).
        #[test]
        fn every_word_of_a_form_round_trips(row in 0..SCALAR_TABLE.len(), bits in proptest::prelude::any::<u32>()) {
            let info = &SCALAR_TABLE[row];
            let word = info.matches | (bits & info.format.field_mask());
            let inst = ScalarInst::decode(word);
            proptest::prop_assert_eq!(inst.map(|i| i.info.mnemonic), Some(info.mnemonic));
            proptest::prop_assert_eq!(inst.map(|i| i.encode()), Some(word));
        }

        /// Decoding any word never panics, and what decodes re-encodes to itself.
        #[test]
        fn any_word_decodes_or_is_refused(word in proptest::prelude::any::<u32>()) {
            if let Some(inst) = ScalarInst::decode(word) {
                proptest::prop_assert_eq!(inst.encode(), word);
            }
        }
    }

    fn inst(mn: &str, f: impl FnOnce(&mut ScalarInst)) -> ScalarInst {
        let mut i = ScalarInst::of(mn).unwrap();
        f(&mut i);
        i
    }

    fn check(i: ScalarInst, word: u32, text: &str) {
        assert_eq!(i.encode(), word, "{text}");
        assert_eq!(ScalarInst::decode(word), Some(i), "{word:#010x}");
        assert_eq!(i.to_string(), text);
    }

    /// Words the spec's tests execute (docs/isa.md §11.8) and the §12.8 loop.
    #[test]
    fn spec_vectors() {
        check(
            inst("ADDI", |i| {
                i.dst = 1;
                i.left = 1;
                i.imm = 1
            }),
            0x0010_8095,
            "addi sp, 1, ->sp",
        );
        check(
            inst("ADDI", |i| {
                i.dst = 30;
                i.left = 24;
                i.imm = 4095
            }),
            0xFFFC_0F15,
            "addi t#1, 4095, ->u",
        );
        check(
            inst("SUBI", |i| {
                i.dst = 1;
                i.left = 1;
                i.imm = 1
            }),
            0x0010_9095,
            "subi sp, 1, ->sp",
        );
        check(
            inst("ADD", |i| {
                i.dst = 1;
                i.left = 1;
                i.right = 2;
                i.rtype = 2;
                i.shamt = 1
            }),
            0x0C20_8085,
            "add sp, a0.neg<<1, ->sp",
        );
        check(
            inst("ADD", |i| {
                i.dst = 30;
                i.left = 24;
                i.right = 28;
                i.rtype = 3;
                i.shamt = 31
            }),
            0xFFCC_0F05,
            "add t#1, u#1<<31, ->u",
        );
        check(
            inst("LUI", |i| {
                i.dst = 2;
                i.imm = 0x80000
            }),
            0x8000_0117,
            "lui 0x80000, ->a0",
        );
        check(
            inst("MUL", |i| {
                i.dst = 3;
                i.left = 1;
                i.right = 2
            }),
            0x0020_81C7,
            "mul sp, a0, ->a1",
        );
        check(
            inst("SLLI", |i| {
                i.dst = 1;
                i.left = 1;
                i.imm = 63
            }),
            0x03F0_F095,
            "slli sp, 63, ->sp",
        );
        check(
            inst("CSEL", |i| {
                i.dst = 4;
                i.pred = 1;
                i.left = 2;
                i.right = 3;
                i.rtype = 3
            }),
            0x0E31_0277,
            "csel sp, a0, a1.neg, ->a2",
        );
        // The loop of docs/isa.md §12.8.
        check(
            inst("ADDI", |i| {
                i.dst = 11;
                i.imm = 0
            }),
            0x0000_0595,
            "addi zero, 0, ->s0",
        );
        check(
            inst("SETC.GE", |i| {
                i.left = 11;
                i.right = 3
            }),
            0x0035_D065,
            "setc.ge s0, a1",
        );
        check(
            inst("ADD", |i| {
                i.dst = 20;
                i.left = 2;
                i.right = 11;
                i.rtype = 3;
                i.shamt = 6
            }),
            0x36B1_0A05,
            "add a0, s0<<6, ->x0",
        );
    }

    #[test]
    fn signed_and_unsigned_immediates() {
        let andi = ScalarInst::decode(0xFFF0_2015).unwrap();
        assert_eq!((andi.info.mnemonic, andi.imm), ("ANDI", -1));
        let addi = ScalarInst::decode(0xFFF0_0015).unwrap();
        assert_eq!((addi.info.mnemonic, addi.imm), ("ADDI", 4095));
        let lui = ScalarInst::decode(0xFFFF_F017).unwrap();
        assert_eq!(lui.imm, 0xF_FFFF);
    }

    #[test]
    fn fixed_bits_reject() {
        // SLL with bit 25 set is no SLL (mask 0xFE00707F) and matches nothing else.
        assert_eq!(ScalarInst::decode(0x0200_7005), None);
        // SETC.LT with RegDst bits set.
        assert_eq!(ScalarInst::decode(0x0000_40E5), None);
    }

    #[test]
    fn modifiers_per_group() {
        let add = by_mnemonic("ADD").unwrap();
        assert_eq!(ScalarInst::rtype_for(add, Modifier::None), Some(3));
        assert_eq!(ScalarInst::rtype_for(add, Modifier::Sw), Some(0));
        let cmp = by_mnemonic("CMP.LT").unwrap();
        assert_eq!(ScalarInst::rtype_for(cmp, Modifier::None), Some(0));
        assert_eq!(ScalarInst::rtype_for(cmp, Modifier::Not), None);
        let and = by_mnemonic("SETC.AND").unwrap();
        assert_eq!(ScalarInst::rtype_for(and, Modifier::Not), Some(3));
    }

    #[test]
    fn register_names_round_trip() {
        for code in 0..32u8 {
            assert_eq!(parse_source(&source_name(code)), Some(code));
        }
        for code in [1u8, 2, 23, 30, 31] {
            assert_eq!(parse_destination(&destination_name(code)), Some(code));
        }
        assert_eq!(parse_source("r24"), None);
        assert_eq!(parse_source("t#5"), None);
    }
}
