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

/// Fixed low 20 bits of every BSTART.TEPL word (major opcode, typed-start class, FALL, TEPL).
pub const BSTART_TEPL_MATCH: u32 = 0x0001_9181;
pub const BSTOP_WORD: u32 = 0x0000_0001;
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
    #[error("word {word:#010x} is a {bits}-bit instruction form; ptoc accepts only 32-bit words")]
    NotThirtyTwoBit { word: u32, bits: u32 },
    #[error("word {word:#010x}: reserved {field} {value} in {form}")]
    Reserved {
        word: u32,
        form: &'static str,
        field: &'static str,
        value: u32,
    },
    #[error("word {word:#010x}: {form} must have bits {bits} zero")]
    NonzeroFixedBits {
        word: u32,
        form: &'static str,
        bits: &'static str,
    },
    #[error("word {word:#010x} is {what}, which ptoc does not support")]
    Unsupported { word: u32, what: &'static str },
    #[error("word {word:#010x} matches no tile-bundle instruction")]
    Unknown { word: u32 },
}

/// BSTART.TEPL (written `BSTART.SFU`/`BSTART.VEC` by engine): opens a block for one tile op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BStart {
    pub mode: u8,
    pub function: u8,
    pub dtype: DataType,
}

/// B.DATR: data attributes of the block. Omitted ≠ all-zero (docs/isa.md §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Datr {
    pub cmode: u8,
    pub pad: PadValue,
    pub sat: bool,
    pub canonicalize: bool,
    /// `None` is DTYPE_NONE (31).
    pub dtype: Option<DataType>,
    pub rmode: u8,
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
    pub reg: u8,
    /// 17-bit unsigned immediate.
    pub imm: u32,
}

/// The sources of a B.IOT binding (which of the five forms it uses, with `dst`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IotSources {
    Two(TileReg, TileReg),
    One(TileReg),
    None,
}

/// B.IOT: one Local tile binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iot {
    pub sources: IotSources,
    /// The L bit: closes the binding sequence.
    pub last: bool,
    pub mask: PeMask,
    /// Destination hand and SizeCode; `None` is the source-only form.
    pub dst: Option<(Hand, SizeCode)>,
}

impl Iot {
    pub fn source_regs(&self) -> impl Iterator<Item = TileReg> {
        let (first, second) = match self.sources {
            IotSources::Two(a, b) => (Some(a), Some(b)),
            IotSources::One(a) => (Some(a), None),
            IotSources::None => (None, None),
        };
        first.into_iter().chain(second)
    }
}

/// B.IOR: scalar GPR bindings (illegal in every op ptoc compiles; decoded to fault precisely).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ior {
    pub dst: u8,
    pub src: [u8; 3],
}

/// B.IOS: a Shared tile binding (illegal in every op ptoc compiles).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ios {
    pub shared: u8,
    pub size_code: u8,
    pub mask: PeMask,
}

/// One decoded 32-bit tile-bundle instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Instruction {
    BStart(BStart),
    BDatr(Datr),
    BDim(Dim),
    BIot(Iot),
    BIor(Ior),
    BIos(Ios),
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
            OPCODE_BLOCK => Err(DecodeError::Unsupported {
                word,
                what: "a non-TEPL block start",
            }),
            OPCODE_DATR if funct3 == 1 => decode_datr(word),
            OPCODE_DIM => decode_dim(word),
            OPCODE_IO => match funct3 {
                0b100..=0b110 => decode_iot(word),
                0b000 => decode_ior(word),
                0b001 => decode_ios(word),
                _ => Err(DecodeError::Unknown { word }),
            },
            _ => Err(DecodeError::Unknown { word }),
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
        let op = by_mnemonic(mn).unwrap();
        Instruction::BStart(BStart {
            mode: op.mode,
            function: op.function,
            dtype: t,
        })
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
