//! The canonical assembly printer (`--emit=asm`, `ptoc disasm`) and the words listing
//! (`--emit=words`).
//!
//! Each kernel starts with directives the assembler reads back (`.kernel`, `.pe_mask`, `.spec`,
//! `.arg`, `.result`; see `codegen/METADATA.md`), then its bundles, one instruction per line, each
//! bundle after a blank line and, when known, a comment naming its source op. A word that does not
//! decode, or does not re-encode to itself, prints as `.word 0x…` so every object disassembles to
//! text that assembles back to the same bytes.

use crate::metadata::{self, TileMeta};
use crate::syntax::{gpr_name, layout_name, quote_name, DTYPE_NONE_NAME, RMODE_NAMES};
use crate::{Bundle, Kernel};
use ptoc_isa::encoding::{BStart, Datr, Ios, IotSources};
use ptoc_isa::{ops, CmpMode, DataType, Instruction};
use std::fmt::Write as _;

/// The canonical text of one instruction.
pub fn format_instruction(inst: &Instruction) -> String {
    match inst {
        Instruction::BStart(b) => format_bstart(b),
        Instruction::BStartStd(s) if s.transfer.has_target() => {
            format!("BSTART.STD {}, .{:+}", s.transfer.name(), s.offset)
        }
        Instruction::BStartStd(s) => format!("BSTART.STD {}", s.transfer.name()),
        Instruction::BStartTlsu(t) => {
            format!("BSTART.{} {}", t.op.mnemonic(), datr_dtype_name(t.dtype))
        }
        Instruction::BStartCube(c) => format!("BSTART.{} {}", c.mnemonic(), c.dtype),
        Instruction::Scalar(i) => i.to_string(),
        Instruction::BDatr(d) => format_datr(d),
        Instruction::BFpatr(f) => format!(
            "B.FPATR {}, {}, {}, {}, {}, {}, {}, {}, {}",
            f.pre_quant,
            f.relu,
            f.group_n,
            f.row_max as u8,
            f.group_max as u8,
            f.row_max_init as u8,
            f.max_abs as u8,
            f.trans_a as u8,
            f.trans_b as u8
        ),
        Instruction::BDim(d) if d.reg == 0 => format!("B.DIM LB{}={}", d.lb, d.imm),
        Instruction::BDim(d) => format!("B.DIM {}, {}, ->LB{}", gpr_name(d.reg), d.imm, d.lb),
        Instruction::BIot(iot) => {
            let mut parts: Vec<String> = match iot.sources {
                IotSources::Two(a, b) => vec![a.to_string(), b.to_string()],
                IotSources::One(a) => vec![a.to_string()],
                IotSources::None => vec![],
            };
            parts.push(format!("mask={}", iot.mask));
            if iot.last {
                parts.push("last".into());
            }
            if let Some((hand, size)) = iot.dst {
                parts.push(format!("->{}<{}>", hand.letter(), size));
            }
            format!("B.IOT {}", parts.join(", "))
        }
        Instruction::BIor(r) => format!(
            "B.IOR {}, {}, {}, ->{}",
            gpr_name(r.src[0]),
            gpr_name(r.src[1]),
            gpr_name(r.src[2]),
            gpr_name(r.dst)
        ),
        Instruction::BIos(s) => format_ios(s),
        Instruction::BStop => "BSTOP".into(),
    }
}

fn format_bstart(b: &BStart) -> String {
    match ops::by_selector(b.mode as u32, b.function as u32) {
        Some(op) => format!("BSTART.{} {}, {}", op.engine.alias(), op.mnemonic, b.dtype),
        None => format!("BSTART.TEPL {}, {}, {}", b.mode, b.function, b.dtype),
    }
}

fn datr_dtype_name(dtype: Option<DataType>) -> &'static str {
    dtype.map_or(DTYPE_NONE_NAME, DataType::name)
}

/// Short `key=value` form when only DataType, PadValue, RMode and Sat are set (DataType code 0
/// is left out unless RMode or Sat is set: then the op reads DataType, TCVT), or only CMode and
/// PadValue (TCMP: `B.DATR CMode=LT, PadValue=Null`), else the spec's 7-field
/// `{Layout, DataType, Pad, CMode, RMode, Sat, Canonicalize}` form.
fn format_datr(d: &Datr) -> String {
    let plain = !d.canonicalize && d.layout == 0;
    let cmode = CmpMode::from_code(d.cmode);
    let only_cmode = plain && d.rmode == 0 && !d.sat && d.cmode != 0;
    if let (true, Some(DataType::FP64), Some(m)) = (only_cmode, d.dtype, cmode) {
        return format!("B.DATR CMode={}, PadValue={}", m.name(), d.pad.name());
    }
    let short = d.cmode == 0 && plain;
    if short {
        let controls = d.rmode != 0 || d.sat;
        let mut text = match d.dtype {
            Some(DataType::FP64) if !controls => format!("B.DATR PadValue={}", d.pad.name()),
            other => format!(
                "B.DATR DataType={}, PadValue={}",
                datr_dtype_name(other),
                d.pad.name()
            ),
        };
        if d.rmode != 0 {
            let _ = write!(text, ", RMode={}", RMODE_NAMES[d.rmode as usize & 7]);
        }
        if d.sat {
            text.push_str(", Sat=1");
        }
        return text;
    }
    format!(
        "B.DATR {{{}, {}, {}, {}, {}, {}, {}}}",
        layout_name(d.layout).unwrap_or("NORM"),
        datr_dtype_name(d.dtype),
        d.pad.name(),
        cmode.map_or("EQ", CmpMode::name),
        RMODE_NAMES[d.rmode as usize & 7],
        d.sat as u8,
        d.canonicalize as u8
    )
}

fn format_ios(s: &Ios) -> String {
    let mut text = format!("B.IOS S{}, mask={}", s.shared, s.mask);
    if s.size_code != 0 {
        let _ = write!(text, ", ->S<{}>", s.size_code);
    }
    text
}

/// The text of one word: its instruction, or `.word 0x…` with the reason when the word does not
/// decode to an instruction that encodes back to it.
pub fn format_word(word: u32) -> String {
    match Instruction::decode(word) {
        Ok(inst) if inst.encode() == word && is_canonical(&inst) => format_instruction(&inst),
        Ok(inst) => format!(
            ".word {word:#010X}  ; non-canonical encoding of {}",
            format_instruction(&inst)
        ),
        Err(e) => format!(".word {word:#010X}  ; {e}"),
    }
}

/// Whether the printed text assembles back to this exact instruction (scalar forms have
/// several codes for one meaning; docs/isa.md §11.4, §11.6).
fn is_canonical(inst: &Instruction) -> bool {
    match inst {
        Instruction::Scalar(i) => i.is_canonical(),
        _ => true,
    }
}

fn format_tile(keyword: &str, t: &TileMeta) -> String {
    format!(
        ".{keyword} {}, {}, {}, {}x{}, valid={}x{}, size={}, pad={}",
        quote_name(&t.name),
        t.register,
        t.type_name(),
        t.rows,
        t.cols,
        t.valid_rows,
        t.valid_cols,
        t.size_code,
        t.pad.name()
    )
}

fn print_header(out: &mut String, k: &Kernel) {
    let _ = writeln!(out, ".kernel {}", quote_name(&k.name));
    let _ = writeln!(out, ".pe_mask {}", k.meta.pe_mask);
    let _ = writeln!(out, ".spec {}", k.meta.spec_version);
    let _ = writeln!(out, ".profile {}", k.meta.profile.name());
    for t in &k.meta.args {
        let _ = writeln!(out, "{}", format_tile("arg", t));
    }
    for m in &k.meta.memrefs {
        let _ = writeln!(
            out,
            ".memref {}, {}, {}, {}x{}, pos={}{}{}",
            quote_name(&m.name),
            metadata::gpr_name(m.gpr),
            m.dtype,
            m.rows,
            m.cols,
            m.position,
            if m.stored { ", stored" } else { "" },
            if m.workspace { ", workspace" } else { "" }
        );
    }
    for v in &k.meta.scalars {
        let _ = writeln!(
            out,
            ".scalar {}, {}, {}, pos={}",
            quote_name(&v.name),
            metadata::gpr_name(v.gpr),
            v.ty.spec_name(),
            v.position
        );
    }
    for t in &k.meta.results {
        let _ = writeln!(out, "{}", format_tile("result", t));
    }
}

fn print_bundle(out: &mut String, b: &Bundle) {
    out.push('\n');
    if let Some(o) = &b.origin {
        // An op without a result (a store, a loop) is named by itself.
        let mut comment = match o.value.is_empty() {
            true => format!("; {}", o.op),
            false => format!("; %{} = {}", o.value, o.op),
        };
        if o.loc.is_known() {
            let _ = write!(comment, "  ({})", o.loc);
        }
        // A control character (a newline in a file name) must not end the comment early.
        let comment: String = comment
            .chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect();
        let _ = writeln!(out, "{comment}");
    }
    for &w in &b.words {
        let _ = writeln!(out, "{}", format_word(w));
    }
}

/// Canonical assembly of `kernels`, which [`crate::assemble`] turns back into the same kernels
/// (words and metadata).
pub fn print_asm(kernels: &[Kernel]) -> String {
    let mut out = String::new();
    for (i, k) in kernels.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        print_header(&mut out, k);
        for b in &k.bundles {
            print_bundle(&mut out, b);
        }
    }
    out
}

/// The disassembly of kernels read from an object: the canonical assembly.
pub fn disassemble(kernels: &[Kernel]) -> String {
    print_asm(kernels)
}

/// One line per word: `0x0C919181  BSTART.SFU TROWEXPANDMAX, FP32`, after a `; kernel NAME` line
/// per kernel.
pub fn print_words(kernels: &[Kernel]) -> String {
    let mut out = String::new();
    for k in kernels {
        let _ = writeln!(out, "; kernel {}", quote_name(&k.name));
        for w in k.words() {
            let _ = writeln!(out, "{w:#010X}  {}", format_word(w));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_example_words_print_canonically() {
        let expect = [
            (0x0C91_9181, "BSTART.SFU TROWEXPANDMAX, FP32"),
            (0x0100_0043, "B.DIM LB0=16"),
            (0x0080_1043, "B.DIM LB1=8"),
            (0x0409_CE13, "B.IOT T#1, T#2, mask=1111, last, ->T<3>"),
            (0x0000_0001, "BSTOP"),
            (0x0010_1023, "B.DATR DataType=FP32, PadValue=Zero"),
            (0x09F0_1023, "B.DATR DataType=DTYPE_NONE, PadValue=Max"),
            (0x0800_1023, "B.DATR PadValue=Max"),
            (0x0028_D293, "B.IOT T#3, mask=1000, last, ->U<1>"),
            (0xC1A1_9181, "BSTART.VEC TSEL, U64"),
            // TCMP/U64 (tile-exec-tcmp-bundle-001.asl) and its CMode.
            (0xC0D1_9181, "BSTART.VEC TCMP, U64"),
            (0x7800_1023, "B.DATR CMode=GT, PadValue=Null"),
            (0x0831_9181, "BSTART.SFU TDIV, FP32"),
            (0x0801_9181, "BSTART.VEC TADD, FP32"),
        ];
        for (word, text) in expect {
            assert_eq!(format_word(word), text, "{word:#010x}");
        }
    }

    #[test]
    fn words_listing_has_one_word_per_line() {
        let kernel = Kernel {
            name: "two words".into(),
            bundles: crate::group_bundles(&[0x0C91_9181, 0x0000_0001, 0x0000_0000]),
            meta: crate::KernelMeta::default(),
        };
        assert_eq!(
            print_words(&[kernel]),
            "; kernel \"two words\"\n0x0C919181  BSTART.SFU TROWEXPANDMAX, FP32\n\
             0x00000001  BSTOP\n0x00000000  .word 0x00000000  ; word 0x00000000 is a 16-bit \
             instruction form; ptoc accepts only 32-bit words\n"
        );
    }

    #[test]
    fn origin_comments_stay_on_one_line() {
        let kernel = Kernel {
            name: "k".into(),
            bundles: vec![Bundle {
                origin: Some(crate::Origin {
                    value: "v\nBSTOP".into(),
                    op: "pto.texp".into(),
                    loc: ptoc_ir::Location::new("a\rb.mlir", 2, 3),
                }),
                words: vec![1],
            }],
            meta: crate::KernelMeta::default(),
        };
        let text = print_asm(&[kernel]);
        assert!(
            text.ends_with("\n; %v?BSTOP = pto.texp  (a?b.mlir:2:3)\nBSTOP\n"),
            "{text}"
        );
    }

    #[test]
    fn unusual_words_print_in_long_forms() {
        // B.DIM with a0 as base register.
        assert_eq!(format_word(0x0101_0043), "B.DIM a0, 16, ->LB0");
        // B.DATR with RMode RNE and Sat set (TCVT's fields): DataType is written even as FP64.
        assert_eq!(
            format_word(0x0400_9023),
            "B.DATR DataType=FP64, PadValue=Zero, RMode=RNE, Sat=1"
        );
        // With CMode set, the 7-field form.
        assert_eq!(
            format_word(0x2400_9023),
            "B.DATR {NORM, FP64, Zero, NE, RNE, 1, 0}"
        );
        assert_eq!(format_word(0x0000_0013), "B.IOR zero, zero, zero, ->zero");
        assert_eq!(format_word(0x0823_1181), "BSTART.TMATMUL.ACC FP32");
        assert_eq!(
            format_word(0x0000_2023),
            "B.FPATR 0, 0, 0, 0, 0, 0, 0, 0, 0"
        );
        // Reserved BSTART DataType 15.
        assert!(format_word(0x7801_9181).starts_with(".word 0x78019181  ; "));
        // Source-only B.IOT with DstTile bits set: decodes, but not canonically.
        assert!(format_word(0x0000_5F93).starts_with(".word 0x00005F93  ; non-canonical"));
    }
}
