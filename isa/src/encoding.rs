//! 32-bit word formats of the tile-bundle commands, with encoders and checked decoders.
//!
//! BSTART.TEPL (`asl/block/execution/BSTART.TEPL.asl`), B.DATR (`asl/block/attributes/B.DATR.asl`),
//! B.DIM (`asl/block/attributes/B.DIM.asl`), B.IOT (`asl/block/operands/B.IOT.asl`, ADR-0096),
//! B.IOR/B.IOS (`asl/block/operands/`), BSTOP (`asl/block/lifecycle/BSTOP.asl`). Decoding rejects
//! every reserved code with a typed error: the interpreter turns each into Fault_IllegalInstruction.

use crate::dtype::{DataType, PadValue, DTYPE_NONE};
use crate::geometry::{Hand, PeMask, SizeCode, TileReg};
use crate::ops::tepl_function_accepted;
use crate::profile::{InstructionForms, PROFILE};
use crate::scalar::ScalarInst;

/// Fixed low 20 bits of every BSTART.TEPL word (major opcode, typed-start class, FALL, TEPL).
pub const BSTART_TEPL_MATCH: u32 = 0x0001_9181;
/// Fixed low 20 bits of the TLSU starts BSTART.TLOAD/TSTORE/TMOV (docs/isa.md §13.1).
pub const BSTART_TLSU_MATCH: u32 = 0x0001_1181;
/// Fixed low 20 bits of the CUBE starts BSTART.TMATMUL/TGEMV and their forms (docs/isa.md §18.1).
pub const BSTART_CUBE_MATCH: u32 = 0x0003_1181;
/// B.FPATR's fixed bits: opcode 0x23, funct3 010, ElementWiseEn and Reserved zero (docs/isa.md
/// §18.1).
const FPATR_MASK: u32 = 0x0000_7E7F;
const FPATR_MATCH: u32 = 0x0000_2023;
/// The PreQuantMode codes B.FPATR decodes (`asl/block/attributes/B.FPATR.asl` constraints).
pub const PRE_QUANT_CODES: &[u8] = &[
    0, 1, 2, 3, 4, 5, 12, 13, 16, 17, 18, 19, 20, 23, 24, 25, 26, 27, 28, 32, 33, 34, 35, 36, 37,
    38, 39,
];
/// BSTART.STD with BrType in bits 14:12 (docs/isa.md §12.1).
const BSTART_STD_MATCH: u32 = 0x0000_0001;
/// BSTOP (docs/isa.md §2.7).
const BSTOP_WORD: u32 = 0x0000_0001;
const OPCODE_BLOCK: u32 = 0x01;
const OPCODE_DATR: u32 = 0x23;
const OPCODE_DIM: u32 = 0x43;
const OPCODE_IO: u32 = 0x13;
/// GPR selectors 0..23 are architectural; 24..31 are illegal in B.DIM/B.IOR.
pub const GPR_COUNT: u32 = 24;
/// B.DATR Layout codes with a meaning (`asl/block/model/state/control-state.asl`); others reserved.
pub const LAYOUT_CODES: &[u32] = &[
    0, 1, 3, 4, 6, 8, 9, 17, 18, 20, 21, 22, 23, 24, 25, 26, 27, 28, 30,
];

/// Why a word is not a legal instruction (all are Fault_IllegalInstruction).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A 16-, 48- or 64-bit form; ptoc accepts only 32-bit words (docs/isa.md §9 decision 14).
    #[error("word {word:#010x} is a {bits}-bit instruction form; ptoc accepts only 32-bit words")]
    NotThirtyTwoBit {
        /// The word as read.
        word: u32,
        /// The length its low bits announce (docs/isa.md §2.1).
        bits: u32,
    },
    /// A field holds a code the spec reserves.
    #[error("word {word:#010x}: reserved {field} {value} in {form}")]
    Reserved {
        /// The word as read.
        word: u32,
        /// The instruction form (`B.DATR`, …).
        form: &'static str,
        /// The field's name.
        field: &'static str,
        /// The reserved code.
        value: u32,
    },
    /// Bits the form fixes at zero are set.
    #[error("word {word:#010x}: {form} must have bits {bits} zero")]
    NonzeroFixedBits {
        /// The word as read.
        word: u32,
        /// The instruction form.
        form: &'static str,
        /// The bit range, as `31:26`.
        bits: &'static str,
    },
    /// A legal instruction ptoc does not implement.
    #[error("word {word:#010x} is {what}, which ptoc does not support")]
    Unsupported {
        /// The word as read.
        word: u32,
        /// What the word is.
        what: &'static str,
    },
    /// No instruction form matches.
    #[error("word {word:#010x} matches no tile-bundle instruction")]
    Unknown {
        /// The word as read.
        word: u32,
    },
}

/// BSTART.TEPL (written `BSTART.SFU`/`BSTART.VEC` by engine): opens a block for one tile op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BStart {
    /// The Mode field (bits 26:25, docs/isa.md §2.2).
    pub mode: u8,
    /// The Function field (bits 24:20); with `mode` it selects the op (docs/isa.md §1.1).
    pub function: u8,
    /// The block's DataType (bits 31:27).
    pub dtype: DataType,
}

/// The control transfer a standard block performs at its commit (BrType, docs/isa.md §12.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transfer {
    /// Continue with the next instruction.
    Fall,
    /// Always continue at the target.
    Direct,
    /// Continue at the target when the block's SETC held.
    Cond,
    /// Continue at the retiring block's BPCN.
    Ind,
    /// Continue at the return address.
    Ret,
}

impl Transfer {
    /// The BrType code (bits 14:12).
    pub fn code(self) -> u32 {
        match self {
            Transfer::Fall => 1,
            Transfer::Direct => 2,
            Transfer::Cond => 3,
            Transfer::Ind => 5,
            Transfer::Ret => 7,
        }
    }

    /// The assembly spelling (`FALL`, `COND`, …).
    pub fn name(self) -> &'static str {
        match self {
            Transfer::Fall => "FALL",
            Transfer::Direct => "DIRECT",
            Transfer::Cond => "COND",
            Transfer::Ind => "IND",
            Transfer::Ret => "RET",
        }
    }

    /// Whether the form carries a target offset (simm17).
    pub fn has_target(self) -> bool {
        matches!(self, Transfer::Direct | Transfer::Cond)
    }
}

/// BSTART.STD: opens a standard block for scalar code (docs/isa.md §12.1–§12.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StdStart {
    /// What the block does at its commit.
    pub transfer: Transfer,
    /// Target − address of this BSTART, in bytes: an even number within ±128 KiB (simm17 << 1).
    /// Zero for FALL, IND and RET.
    pub offset: i32,
}

impl StdStart {
    /// The largest |offset| the 17-bit halfword field reaches.
    pub const REACH: i32 = 1 << 17;
}

/// The tile memory operation a TLSU start opens (docs/isa.md §13.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TlsuOp {
    /// GM → a new Local tile.
    Load,
    /// A Local tile → GM.
    Store,
    /// A Local tile → a new Local tile (a copy).
    Mov,
}

impl TlsuOp {
    /// The function code in bits 26:20 of the start word (docs/isa.md §13.1).
    pub fn function(self) -> u32 {
        match self {
            TlsuOp::Load => 0,
            TlsuOp::Store => 1,
            TlsuOp::Mov => 2,
        }
    }

    /// The spec mnemonic (`TLOAD`, `TSTORE`, `TMOV`).
    pub fn mnemonic(self) -> &'static str {
        match self {
            TlsuOp::Load => "TLOAD",
            TlsuOp::Store => "TSTORE",
            TlsuOp::Mov => "TMOV",
        }
    }
}

/// BSTART.TLOAD / TSTORE / TMOV with its DataType (`None` is DTYPE_NONE, TMOV only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TlsuStart {
    /// Which transfer the block performs.
    pub op: TlsuOp,
    /// The element type; `None` is DTYPE_NONE.
    pub dtype: Option<DataType>,
}

/// A CUBE block start (BSTART.TMATMUL, .ACC, .BIAS, BSTART.TGEMV, …): the CUBE Function in
/// bits 24:20 selects the matrix op, the DataType is the left operand's (AType; docs/isa.md §18.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubeStart {
    /// The CUBE Function (0 TMATMUL, 1 _BIAS, 2 _ACC, 16 TGEMV, 17 _BIAS, 18 _ACC; 4–6 and 20–22
    /// are the MX forms).
    pub function: u8,
    /// AType.
    pub dtype: DataType,
}

/// The CUBE Functions a start may carry and their block-start mnemonics (`BSTART.<name>`,
/// `asl/block/execution/BSTART.TMATMUL*.asl`, `BSTART.TGEMV*.asl`).
pub const CUBE_STARTS: &[(u8, &str)] = &[
    (0, "TMATMUL"),
    (1, "TMATMUL.BIAS"),
    (2, "TMATMUL.ACC"),
    (4, "TMATMULMX"),
    (5, "TMATMULMX.BIAS"),
    (6, "TMATMULMX.ACC"),
    (16, "TGEMV"),
    (17, "TGEMV.BIAS"),
    (18, "TGEMV.ACC"),
    (20, "TGEMVMX"),
    (21, "TGEMVMX.BIAS"),
    (22, "TGEMVMX.ACC"),
];

impl CubeStart {
    /// The start's mnemonic after `BSTART.` (`TMATMUL.ACC`).
    pub fn mnemonic(&self) -> &'static str {
        CUBE_STARTS
            .iter()
            .find(|(f, _)| *f == self.function)
            .map_or("CUBE", |(_, name)| name)
    }

    /// The CUBE Function of a start mnemonic (`TGEMV.BIAS` → 17).
    pub fn function_of(mnemonic: &str) -> Option<u8> {
        CUBE_STARTS
            .iter()
            .find(|(_, name)| name.eq_ignore_ascii_case(mnemonic))
            .map(|(f, _)| *f)
    }
}

/// B.FPATR: the matrix post-processing controls, required exactly once in a CUBE block
/// (`asl/block/attributes/B.FPATR.asl`). All-zero selects no conversion, activation or reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Fpatr {
    /// PreQuantMode (bits 31:26), one of [`PRE_QUANT_CODES`]; 0 keeps the accumulator type.
    pub pre_quant: u8,
    /// ReluMode (bits 25:23): 0 none, 1–3 the activations.
    pub relu: u8,
    /// GroupNCode (bits 22:19), 0..=9.
    pub group_n: u8,
    /// RowMaxEn (bit 18).
    pub row_max: bool,
    /// GroupMaxEn (bit 17).
    pub group_max: bool,
    /// RowMaxInit (bit 16).
    pub row_max_init: bool,
    /// MaxAbsEn (bit 15).
    pub max_abs: bool,
    /// TransA (bit 7): Shared left operands only.
    pub trans_a: bool,
    /// TransB (bit 8): Shared right operands only.
    pub trans_b: bool,
}

impl Fpatr {
    /// Whether every control is off: the plain product, in the accumulator type.
    pub fn is_plain(&self) -> bool {
        *self == Fpatr::default()
    }
}

/// B.DATR: data attributes of the block. Omitted ≠ all-zero (docs/isa.md §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Datr {
    /// CMode (bits 31:29): TCMP's relation (docs/isa.md §2.3).
    pub cmode: u8,
    /// PadValueOrByteId (bits 28:27): what a new destination's padding holds.
    pub pad: PadValue,
    /// Sat (bit 26): saturate on overflow.
    pub sat: bool,
    /// Canonicalize (bit 25): TCVT only.
    pub canonicalize: bool,
    /// `None` is DTYPE_NONE (31).
    pub dtype: Option<DataType>,
    /// RMode (bits 17:15): 0 is the op's default (docs/isa.md §5.3).
    pub rmode: u8,
    /// Layout (bits 11:7), one of [`LAYOUT_CODES`].
    pub layout: u8,
}

impl Datr {
    /// The all-fields-zero B.DATR but for the given DataType field and pad.
    pub fn with(dtype: Option<DataType>, pad: PadValue) -> Datr {
        Datr {
            cmode: 0,
            pad,
            sat: false,
            canonicalize: false,
            dtype,
            rmode: 0,
            layout: 0,
        }
    }
}

/// B.DIM: `LB[lb] = (GPR[reg] + imm)[15:0]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim {
    /// 0, 1 or 2 for LB0/LB1/LB2.
    pub lb: u8,
    /// RegSrc: the GPR added to `imm` (0..23, docs/isa.md §2.4).
    pub reg: u8,
    /// 17-bit unsigned immediate.
    pub imm: u32,
}

/// The sources of a B.IOT binding (which of the five forms it uses, with `dst`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IotSources {
    /// Two sources, `SrcTile0` then `SrcTile1`.
    Two(TileReg, TileReg),
    /// One source, `SrcTile0`.
    One(TileReg),
    /// No sources (a destination-only binding).
    None,
}

/// B.IOT: one Local tile binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iot {
    /// The source registers the binding names.
    pub sources: IotSources,
    /// The L bit: closes the binding sequence.
    pub last: bool,
    /// The PE mask (PEMode, bits 11:9); every binding of a bundle has the same one.
    pub mask: PeMask,
    /// Destination hand and SizeCode; `None` is the source-only form.
    pub dst: Option<(Hand, SizeCode)>,
}

impl Iot {
    /// The source registers, in field order.
    pub fn source_regs(&self) -> impl Iterator<Item = TileReg> {
        let (first, second) = match self.sources {
            IotSources::Two(a, b) => (Some(a), Some(b)),
            IotSources::One(a) => (Some(a), None),
            IotSources::None => (None, None),
        };
        first.into_iter().chain(second)
    }
}

/// B.IOR: scalar GPR bindings: TLOAD/TSTORE base and row stride, the tile-scalar ops' scalar
/// (docs/isa.md §13.2, §14); every other op takes none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ior {
    /// RegDst (bits 11:7, docs/isa.md §2.6).
    pub dst: u8,
    /// RegSrc0, RegSrc1, RegSrc2 (bits 19:15, 24:20, 31:27).
    pub src: [u8; 3],
}

/// B.IOS: a Shared tile binding (illegal in every op ptoc compiles).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ios {
    /// SharedTID (bits 27:20): the Shared tile S0..S255.
    pub shared: u8,
    /// SizeCode (bits 18:15): 0 for a source, 1..12 a destination.
    pub size_code: u8,
    /// The PE mask (PEMode, bits 11:9).
    pub mask: PeMask,
}

/// One decoded 32-bit tile-bundle instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Instruction {
    /// BSTART.TEPL: a tile op's block start.
    BStart(BStart),
    /// BSTART.STD: a standard block for scalar code.
    BStartStd(StdStart),
    /// BSTART.TLOAD/TSTORE/TMOV.
    BStartTlsu(TlsuStart),
    /// BSTART.TMATMUL/TGEMV and their forms.
    BStartCube(CubeStart),
    /// A scalar ALU, compare or SETC instruction (docs/isa.md §11).
    Scalar(ScalarInst),
    /// B.DATR: the block's data attributes.
    BDatr(Datr),
    /// B.FPATR: a CUBE block's post-processing controls.
    BFpatr(Fpatr),
    /// B.DIM: one loop bound.
    BDim(Dim),
    /// B.IOT: a Local tile binding.
    BIot(Iot),
    /// B.IOR: scalar register bindings.
    BIor(Ior),
    /// B.IOS: a Shared tile binding.
    BIos(Ios),
    /// BSTOP: commits the open block (docs/isa.md §2.7).
    BStop,
}

impl Instruction {
    /// The word for this instruction. Fields are masked to their widths; use `decode` to check.
    pub fn encode(&self) -> u32 {
        match *self {
            Instruction::BStart(b) => {
                (b.dtype.code() << 27)
                    | ((b.mode as u32 & 3) << 25)
                    | ((b.function as u32 & 31) << 20)
                    | BSTART_TEPL_MATCH
            }
            Instruction::BStartStd(s) => {
                let simm17 = (s.offset >> 1) as u32 & 0x1_FFFF;
                (simm17 << 15) | (s.transfer.code() << 12) | BSTART_STD_MATCH
            }
            Instruction::BStartTlsu(t) => {
                (t.dtype.map_or(DTYPE_NONE, DataType::code) << 27)
                    | (t.op.function() << 20)
                    | BSTART_TLSU_MATCH
            }
            Instruction::BStartCube(c) => {
                (c.dtype.code() << 27) | ((c.function as u32 & 31) << 20) | BSTART_CUBE_MATCH
            }
            Instruction::BFpatr(f) => {
                ((f.pre_quant as u32 & 63) << 26)
                    | ((f.relu as u32 & 7) << 23)
                    | ((f.group_n as u32 & 15) << 19)
                    | ((f.row_max as u32) << 18)
                    | ((f.group_max as u32) << 17)
                    | ((f.row_max_init as u32) << 16)
                    | ((f.max_abs as u32) << 15)
                    | ((f.trans_b as u32) << 8)
                    | ((f.trans_a as u32) << 7)
                    | FPATR_MATCH
            }
            Instruction::Scalar(i) => i.encode(),
            Instruction::BDatr(d) => {
                ((d.cmode as u32 & 7) << 29)
                    | (d.pad.code() << 27)
                    | ((d.sat as u32) << 26)
                    | ((d.canonicalize as u32) << 25)
                    | (d.dtype.map_or(DTYPE_NONE, DataType::code) << 20)
                    | ((d.rmode as u32 & 7) << 15)
                    | (1 << 12)
                    | ((d.layout as u32 & 31) << 7)
                    | OPCODE_DATR
            }
            Instruction::BDim(d) => {
                ((d.imm & 0xFFF) << 20)
                    | ((d.reg as u32 & 31) << 15)
                    | ((d.lb as u32 & 7) << 12)
                    | (((d.imm >> 12) & 31) << 7)
                    | OPCODE_DIM
            }
            Instruction::BIot(iot) => {
                let (funct3, srcs) = match iot.sources {
                    IotSources::Two(a, b) => (0b100, (b.index() << 26) | (a.index() << 20)),
                    IotSources::One(a) => (0b101, a.index() << 20),
                    IotSources::None => (0b110, 0),
                };
                let (hand, size) = iot.dst.map_or((0, 0), |(h, s)| (h.code(), s.code()));
                srcs | ((iot.last as u32) << 19)
                    | (size << 15)
                    | (funct3 << 12)
                    | (iot.mask.mode() << 9)
                    | (hand << 7)
                    | OPCODE_IO
            }
            Instruction::BIor(r) => {
                ((r.src[2] as u32 & 31) << 27)
                    | ((r.src[1] as u32 & 31) << 20)
                    | ((r.src[0] as u32 & 31) << 15)
                    | ((r.dst as u32 & 31) << 7)
                    | OPCODE_IO
            }
            Instruction::BIos(s) => {
                ((s.shared as u32) << 20)
                    | ((s.size_code as u32 & 15) << 15)
                    | (1 << 12)
                    | (s.mask.mode() << 9)
                    | OPCODE_IO
            }
            Instruction::BStop => BSTOP_WORD,
        }
    }

    /// Decode one word, rejecting reserved codes, holes and non-32-bit forms.
    pub fn decode(word: u32) -> Result<Instruction, DecodeError> {
        check_length(word)?;
        let funct3 = (word >> 12) & 7;
        match word & 0x7F {
            OPCODE_BLOCK if word == BSTOP_WORD => Ok(Instruction::BStop),
            OPCODE_BLOCK if word & 0x000F_FFFF == BSTART_TEPL_MATCH => decode_bstart(word),
            OPCODE_BLOCK if word & 0x000F_FFFF == BSTART_TLSU_MATCH => decode_tlsu(word),
            OPCODE_BLOCK if word & 0x000F_FFFF == BSTART_CUBE_MATCH => decode_cube(word),
            OPCODE_BLOCK if word & 0xF80 == 0 => decode_std(word),
            OPCODE_BLOCK => Err(DecodeError::Unsupported {
                word,
                what:
                    "a block start other than BSTART.STD, TEPL, TLOAD, TSTORE, TMOV or a CUBE start",
            }),
            OPCODE_DATR if funct3 == 1 => decode_datr(word),
            OPCODE_DATR if funct3 == 2 => decode_fpatr(word),
            OPCODE_DIM => decode_dim(word),
            OPCODE_IO => match funct3 {
                0b100..=0b110 => decode_iot(word),
                0b000 => decode_ior(word),
                0b001 => decode_ios(word),
                _ => Err(DecodeError::Unknown { word }),
            },
            _ => ScalarInst::decode(word)
                .map(Instruction::Scalar)
                .ok_or(DecodeError::Unknown { word }),
        }
    }
}

/// Length predecode as observed in the catalogues (docs/isa.md §2.1); which forms pass is the
/// profile's decision.
fn check_length(word: u32) -> Result<(), DecodeError> {
    match PROFILE.instruction_forms {
        InstructionForms::Only32Bit => {}
    }
    let bits = if matches!(word & 0x7F, 0x0F | 0x7F) {
        64
    } else if word & 0xF == 0xE {
        48
    } else if word & 1 == 0 {
        16
    } else {
        return Ok(());
    };
    Err(DecodeError::NotThirtyTwoBit { word, bits })
}

fn reserved(word: u32, form: &'static str, field: &'static str, value: u32) -> DecodeError {
    DecodeError::Reserved {
        word,
        form,
        field,
        value,
    }
}

fn decode_bstart(word: u32) -> Result<Instruction, DecodeError> {
    let code = word >> 27;
    let mode = (word >> 25) & 3;
    let function = (word >> 20) & 31;
    let dtype =
        DataType::from_code(code).ok_or_else(|| reserved(word, "BSTART", "DataType", code))?;
    if !tepl_function_accepted(mode, function) {
        return Err(reserved(
            word,
            "BSTART.TEPL",
            "Mode:Function",
            mode * 32 + function,
        ));
    }
    Ok(Instruction::BStart(BStart {
        mode: mode as u8,
        function: function as u8,
        dtype,
    }))
}

/// BSTART.STD (docs/isa.md §12.1): bits 11:7 (block class) are 0 here.
fn decode_std(word: u32) -> Result<Instruction, DecodeError> {
    let simm17 = (word as i32) >> 15;
    let transfer = match (word >> 12) & 7 {
        1 => Transfer::Fall,
        2 => Transfer::Direct,
        3 => Transfer::Cond,
        5 => Transfer::Ind,
        7 => Transfer::Ret,
        code => return Err(reserved(word, "BSTART.STD", "BrType", code)),
    };
    if !transfer.has_target() && simm17 != 0 {
        return Err(DecodeError::NonzeroFixedBits {
            word,
            form: "BSTART.STD without a target",
            bits: "31:15",
        });
    }
    Ok(Instruction::BStartStd(StdStart {
        transfer,
        offset: simm17 << 1,
    }))
}

/// BSTART.TLOAD/TSTORE/TMOV (docs/isa.md §13.1); other TLSU functions are not supported.
fn decode_tlsu(word: u32) -> Result<Instruction, DecodeError> {
    let op = match (word >> 20) & 0x7F {
        0 => TlsuOp::Load,
        1 => TlsuOp::Store,
        2 => TlsuOp::Mov,
        _ => {
            return Err(DecodeError::Unsupported {
                word,
                what: "a TLSU start other than TLOAD, TSTORE or TMOV",
            })
        }
    };
    let code = word >> 27;
    let dtype = match code {
        DTYPE_NONE if op == TlsuOp::Mov => None,
        _ => Some(
            DataType::from_code(code)
                .ok_or_else(|| reserved(word, op.mnemonic(), "DataType", code))?,
        ),
    };
    Ok(Instruction::BStartTlsu(TlsuStart { op, dtype }))
}

/// A CUBE start (docs/isa.md §18.1): bits 26:25 zero, an assigned Function, a concrete DataType.
fn decode_cube(word: u32) -> Result<Instruction, DecodeError> {
    if word & 0x0600_0000 != 0 {
        return Err(DecodeError::NonzeroFixedBits {
            word,
            form: "a CUBE BSTART",
            bits: "26:25",
        });
    }
    let function = (word >> 20) & 31;
    if !CUBE_STARTS.iter().any(|(f, _)| *f as u32 == function) {
        return Err(reserved(word, "a CUBE BSTART", "Function", function));
    }
    let code = word >> 27;
    let dtype = DataType::from_code(code)
        .ok_or_else(|| reserved(word, "a CUBE BSTART", "DataType", code))?;
    Ok(Instruction::BStartCube(CubeStart {
        function: function as u8,
        dtype,
    }))
}

/// B.FPATR (`asl/block/attributes/B.FPATR.asl`): the decode-reserved field values are illegal.
fn decode_fpatr(word: u32) -> Result<Instruction, DecodeError> {
    if word & FPATR_MASK != FPATR_MATCH {
        return Err(DecodeError::NonzeroFixedBits {
            word,
            form: "B.FPATR",
            bits: "11:9",
        });
    }
    let pre_quant = (word >> 26) as u8;
    if !PRE_QUANT_CODES.contains(&pre_quant) {
        return Err(reserved(word, "B.FPATR", "PreQuantMode", pre_quant as u32));
    }
    let relu = ((word >> 23) & 7) as u8;
    if relu > 3 {
        return Err(reserved(word, "B.FPATR", "ReluMode", relu as u32));
    }
    let group_n = ((word >> 19) & 15) as u8;
    if group_n > 9 {
        return Err(reserved(word, "B.FPATR", "GroupNCode", group_n as u32));
    }
    let bit = |n: u32| (word >> n) & 1 == 1;
    Ok(Instruction::BFpatr(Fpatr {
        pre_quant,
        relu,
        group_n,
        row_max: bit(18),
        group_max: bit(17),
        row_max_init: bit(16),
        max_abs: bit(15),
        trans_a: bit(7),
        trans_b: bit(8),
    }))
}

fn decode_datr(word: u32) -> Result<Instruction, DecodeError> {
    if word & 0x000C_0000 != 0 {
        return Err(DecodeError::NonzeroFixedBits {
            word,
            form: "B.DATR",
            bits: "19:18",
        });
    }
    let cmode = word >> 29;
    if cmode > 5 {
        return Err(reserved(word, "B.DATR", "CMode", cmode));
    }
    let code = (word >> 20) & 31;
    let dtype = match code {
        DTYPE_NONE => None,
        _ => Some(
            DataType::from_code(code).ok_or_else(|| reserved(word, "B.DATR", "DataType", code))?,
        ),
    };
    let layout = (word >> 7) & 31;
    if !LAYOUT_CODES.contains(&layout) {
        return Err(reserved(word, "B.DATR", "Layout", layout));
    }
    Ok(Instruction::BDatr(Datr {
        cmode: cmode as u8,
        pad: PadValue::from_code(word >> 27),
        sat: (word >> 26) & 1 == 1,
        canonicalize: (word >> 25) & 1 == 1,
        dtype,
        rmode: ((word >> 15) & 7) as u8,
        layout: layout as u8,
    }))
}

fn decode_dim(word: u32) -> Result<Instruction, DecodeError> {
    let lb = (word >> 12) & 7;
    if lb > 2 {
        return Err(reserved(word, "B.DIM", "LB select", lb));
    }
    let reg = (word >> 15) & 31;
    if reg >= GPR_COUNT {
        return Err(reserved(word, "B.DIM", "RegSrc", reg));
    }
    Ok(Instruction::BDim(Dim {
        lb: lb as u8,
        reg: reg as u8,
        imm: (word >> 20) | (((word >> 7) & 31) << 12),
    }))
}

fn decode_iot(word: u32) -> Result<Instruction, DecodeError> {
    let reg = |shift: u32| TileReg::new((word >> shift) & 63).expect("6-bit field");
    let size = (word >> 15) & 15;
    let sources = match (word >> 12) & 7 {
        0b100 => IotSources::Two(reg(20), reg(26)),
        0b101 if word >> 26 != 0 => {
            return Err(DecodeError::NonzeroFixedBits {
                word,
                form: "one-source B.IOT",
                bits: "31:26",
            })
        }
        0b101 => IotSources::One(reg(20)),
        _ if word >> 20 != 0 => {
            return Err(DecodeError::NonzeroFixedBits {
                word,
                form: "no-source B.IOT",
                bits: "31:20",
            })
        }
        _ if size == 0 => {
            return Err(DecodeError::Reserved {
                word,
                form: "no-source B.IOT",
                field: "SizeCode",
                value: 0,
            })
        }
        _ => IotSources::None,
    };
    // SizeCode 0 selects the source-only form (its DstTile bits are outside the mask).
    let dst = match size {
        0 => None,
        _ => Some((
            Hand::from_code(word >> 7),
            SizeCode::new(size).ok_or_else(|| reserved(word, "B.IOT", "SizeCode", size))?,
        )),
    };
    Ok(Instruction::BIot(Iot {
        sources,
        last: (word >> 19) & 1 == 1,
        mask: PeMask::from_mode(word >> 9),
        dst,
    }))
}

fn decode_ior(word: u32) -> Result<Instruction, DecodeError> {
    if word & 0x0600_0000 != 0 {
        return Err(DecodeError::NonzeroFixedBits {
            word,
            form: "B.IOR",
            bits: "26:25",
        });
    }
    let fields = [
        (word >> 7) & 31,
        (word >> 15) & 31,
        (word >> 20) & 31,
        word >> 27,
    ];
    if let Some(&bad) = fields.iter().find(|&&r| r >= GPR_COUNT) {
        return Err(reserved(word, "B.IOR", "GPR selector", bad));
    }
    Ok(Instruction::BIor(Ior {
        dst: fields[0] as u8,
        src: [fields[1] as u8, fields[2] as u8, fields[3] as u8],
    }))
}

fn decode_ios(word: u32) -> Result<Instruction, DecodeError> {
    if word & 0xF008_0180 != 0 {
        return Err(DecodeError::NonzeroFixedBits {
            word,
            form: "B.IOS",
            bits: "31:28, 19 and 8:7",
        });
    }
    let size = (word >> 15) & 15;
    if size > 12 {
        return Err(reserved(word, "B.IOS", "SizeCode", size));
    }
    Ok(Instruction::BIos(Ios {
        shared: ((word >> 20) & 0xFF) as u8,
        size_code: size as u8,
        mask: PeMask::from_mode(word >> 9),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::by_mnemonic;

    fn bstart(mn: &str, t: DataType) -> Instruction {
        by_mnemonic(mn).unwrap().bstart(t)
    }

    fn check(inst: Instruction, word: u32) {
        assert_eq!(inst.encode(), word, "{inst:?}");
        assert_eq!(Instruction::decode(word), Ok(inst), "{word:#010x}");
    }

    #[test]
    fn worked_example_trowexpandmax_fp32() {
        let t = |i| TileReg::new(i).unwrap();
        check(bstart("TROWEXPANDMAX", DataType::FP32), 0x0C91_9181);
        check(
            Instruction::BDim(Dim {
                lb: 0,
                reg: 0,
                imm: 16,
            }),
            0x0100_0043,
        );
        check(
            Instruction::BDim(Dim {
                lb: 1,
                reg: 0,
                imm: 8,
            }),
            0x0080_1043,
        );
        check(
            Instruction::BIot(Iot {
                sources: IotSources::Two(t(0), t(1)),
                last: true,
                mask: PeMask::ALL_PES,
                dst: Some((Hand::T, SizeCode::new(3).unwrap())),
            }),
            0x0409_CE13,
        );
        check(Instruction::BStop, 0x0000_0001);
    }

    #[test]
    fn other_worked_words() {
        use DataType::*;
        for (mn, t, word) in [
            ("TCOLEXPANDMIN", BF16, 0x2DA1_9181),
            ("TMAX", FP16, 0x20B1_9181),
            ("TMIN", S32, 0x88C1_9181),
            ("TROWEXPANDEXPDIF", FP16, 0x24B1_9181),
            ("TADD", FP32, 0x0801_9181),
            ("TDIV", FP32, 0x0831_9181),
            ("TEXP", FP32, 0x0921_9181),
            ("TADD", U64, 0xC001_9181),
            ("TMAX", U64, 0xC0B1_9181),
            ("TMIN", U64, 0xC0C1_9181),
            ("TROWMAX", U16, 0xD411_9181),
        ] {
            check(bstart(mn, t), word);
        }
        check(
            Instruction::BDatr(Datr::with(Some(FP32), PadValue::Zero)),
            0x0010_1023,
        );
        check(
            Instruction::BDatr(Datr::with(None, PadValue::Max)),
            0x09F0_1023,
        );
        check(
            Instruction::BIot(Iot {
                sources: IotSources::One(TileReg::new(2).unwrap()),
                last: true,
                mask: PeMask::parse("1000").unwrap(),
                dst: Some((Hand::U, SizeCode::new(1).unwrap())),
            }),
            0x0028_D293,
        );
    }

    /// TTRANS (docs/isa.md §19): Mode 3, Function 14, worked out by hand from the field layout
    /// of docs/isa.md §2.2, `(DataType << 27) | (Mode << 25) | (Function << 20) | 0x19181`:
    /// Mode 3 is `0b11` in bits 26:25 = 0x0600_0000; Function 14 = `0b01110` in bits 24:20 =
    /// 0x00E0_0000; so every TTRANS word is `(code << 27) | 0x06E1_9181`. FP32 (code 1 = 0b00001)
    /// sets bit 27: 0x0800_0000 | 0x06E1_9181 = 0x0EE1_9181. U16 (code 26 = 0b11010) sets bits
    /// 31, 30 and 28: 0xD000_0000 | 0x06E1_9181 = 0xD6E1_9181. FP64 (code 0) leaves the field
    /// clear: 0x06E1_9181. U64 (code 24 = 0b11000): 0xC000_0000 | 0x06E1_9181 = 0xC6E1_9181.
    #[test]
    fn ttrans_words() {
        use DataType::*;
        for (t, word) in [
            (FP32, 0x0EE1_9181),
            (U16, 0xD6E1_9181),
            (FP64, 0x06E1_9181),
            (U64, 0xC6E1_9181),
        ] {
            check(bstart("TTRANS", t), word);
        }
        // The decoded selector names the catalogue row back.
        let Ok(Instruction::BStart(b)) = Instruction::decode(0x0EE1_9181) else {
            panic!("0x0EE19181 is a BSTART.TEPL");
        };
        assert_eq!((b.mode, b.function, b.dtype), (3, 14, FP32));
        // Mode 3 Function 9 is a hole of the accepted-functions table (docs/isa.md §1.1).
        assert!(Instruction::decode(0x0E91_9181).is_err());
    }

    /// The tile-scalar ops (docs/isa.md §14): BSTART words `(DataType << 27) | (1 << 25) |
    /// (Fn << 20) | 0x19181`, the spec's TADDS U64 and TEXPANDS U8 words, and the header words
    /// the decoded tests bind (`tile-exec-tadds-bundle-001.asl`, `tile-exec-texpands-bundle-001.asl`).
    #[test]
    fn tile_scalar_words() {
        use DataType::*;
        for (mn, words) in [
            ("TADDS", [0x0A01_9181, 0x2201_9181, 0x2A01_9181]),
            ("TSUBS", [0x0A11_9181, 0x2211_9181, 0x2A11_9181]),
            ("TMULS", [0x0A21_9181, 0x2221_9181, 0x2A21_9181]),
            ("TDIVS", [0x0A31_9181, 0x2231_9181, 0x2A31_9181]),
            ("TMAXS", [0x0AB1_9181, 0x22B1_9181, 0x2AB1_9181]),
            ("TMINS", [0x0AC1_9181, 0x22C1_9181, 0x2AC1_9181]),
            ("TEXPANDS", [0x0BB1_9181, 0x23B1_9181, 0x2BB1_9181]),
        ] {
            for (t, word) in [FP32, FP16, BF16].into_iter().zip(words) {
                check(bstart(mn, t), word);
            }
        }
        check(bstart("TADDS", U64), 0xC201_9181);
        check(bstart("TEXPANDS", U8), 0xDBB1_9181);
        check(
            Instruction::BDim(Dim {
                lb: 0,
                reg: 0,
                imm: 2,
            }),
            0x0020_0043,
        );
        let dst = Some((Hand::T, SizeCode::new(1).unwrap()));
        check(
            Instruction::BIot(Iot {
                sources: IotSources::One(TileReg::of(Hand::T, 2).unwrap()),
                last: true,
                mask: PeMask::ALL_PES,
                dst,
            }),
            0x0018_DE13,
        );
        check(
            Instruction::BIot(Iot {
                sources: IotSources::None,
                last: true,
                mask: PeMask::ALL_PES,
                dst,
            }),
            0x0008_EE13,
        );
        // B.IOR a0, zero, zero, ->zero: a0 is GPR 2 in RegSrc0 (bits 19:15).
        check(
            Instruction::BIor(Ior {
                dst: 0,
                src: [2, 0, 0],
            }),
            0x0001_0013,
        );
    }

    #[test]
    fn spec_reject_vectors() {
        // Deleted TPRELU/U64 (a Mode 0 hole) and the pre-0.58 TADD encoding.
        assert!(matches!(
            Instruction::decode(0xC0E1_9181),
            Err(DecodeError::Reserved { .. })
        ));
        assert!(Instruction::decode(0xC200_1181).is_err());
        // TSEL/U64 and TFMA/U64 are accepted selectors (not in ptoc's catalogue).
        assert!(Instruction::decode(0xC1A1_9181).is_ok());
        assert!(Instruction::decode(0xC1C1_9181).is_ok());
    }
}

#[cfg(test)]
mod block_start_tests {
    use super::*;

    fn check(inst: Instruction, word: u32) {
        assert_eq!(inst.encode(), word, "{inst:?}");
        assert_eq!(Instruction::decode(word), Ok(inst), "{word:#010x}");
    }

    fn std(transfer: Transfer, offset: i32) -> Instruction {
        Instruction::BStartStd(StdStart { transfer, offset })
    }

    /// `tests/asl/block/execution/BSTART.STD/block-state-bstart-std-barg-commit-001.asl` and the
    /// loop of docs/isa.md §12.8.
    #[test]
    fn standard_block_starts() {
        check(std(Transfer::Direct, 2), 0x0000_A001);
        check(std(Transfer::Cond, 2), 0x0000_B001);
        check(std(Transfer::Fall, 0), 0x0000_1001);
        check(std(Transfer::Ind, 0), 0x0000_5001);
        check(std(Transfer::Ret, 0), 0x0000_7001);
        check(std(Transfer::Cond, 0x3C), 0x000F_3001);
        check(std(Transfer::Cond, -16), 0xFFFC_3001);
        check(std(Transfer::Direct, -StdStart::REACH), 0x8000_2001);
        for deleted in [0x0000_4001, 0x0000_6001] {
            assert!(matches!(
                Instruction::decode(deleted),
                Err(DecodeError::Reserved {
                    field: "BrType",
                    ..
                })
            ));
        }
        assert!(
            Instruction::decode(0x0000_9001).is_err(),
            "FALL with a target"
        );
        assert!(Instruction::decode(0x0000_1081).is_err(), "BSTART.SYS");
    }

    /// docs/isa.md §13.1 and §13.9.
    #[test]
    fn tlsu_starts() {
        let tlsu = |op, dtype| Instruction::BStartTlsu(TlsuStart { op, dtype });
        check(tlsu(TlsuOp::Load, Some(DataType::U32)), 0xC801_1181);
        check(tlsu(TlsuOp::Load, Some(DataType::U64)), 0xC001_1181);
        check(tlsu(TlsuOp::Load, Some(DataType::FP32)), 0x0801_1181);
        check(tlsu(TlsuOp::Store, Some(DataType::U32)), 0xC811_1181);
        check(tlsu(TlsuOp::Store, Some(DataType::FP32)), 0x0811_1181);
        check(tlsu(TlsuOp::Mov, Some(DataType::FP32)), 0x0821_1181);
        check(tlsu(TlsuOp::Mov, None), 0xF821_1181);
        for code in [15u32, 21, 22, 23, 29, 30, 31] {
            let word = BSTART_TLSU_MATCH | (code << 27);
            assert!(Instruction::decode(word).is_err(), "TLOAD code {code}");
        }
        // GMOV (function 13) is a TLSU start ptoc does not support.
        assert!(matches!(
            Instruction::decode(0x00D1_1181),
            Err(DecodeError::Unsupported { .. })
        ));
    }

    #[test]
    fn scalar_words_decode_as_scalar() {
        assert!(matches!(
            Instruction::decode(0x0010_8095),
            Ok(Instruction::Scalar(i)) if i.info.mnemonic == "ADDI"
        ));
        assert_eq!(
            Instruction::decode(0x0000_007B),
            Err(DecodeError::Unknown { word: 0x7B })
        );
    }
}
