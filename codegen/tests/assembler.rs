//! The assembler: the spec's syntax variants, canonical text round trips, and located errors.

mod common;

use ptoc_codegen::{assemble, lower_function, print_asm};
use ptoc_ir::SourceMap;

const WORKED: [u32; 5] = [
    0x0C91_9181,
    0x0100_0043,
    0x0080_1043,
    0x0409_CE13,
    0x0000_0001,
];

fn words(text: &str) -> Vec<u32> {
    let kernels = assemble(text, "t.s").unwrap_or_else(|d| panic!("{d:?}"));
    kernels.iter().flat_map(|k| k.words()).collect()
}

#[test]
fn template_and_canonical_spellings_give_the_worked_example() {
    let template = "\
BSTART.SFU TROWEXPANDMAX, FP32
B.DIM zero, 16, ->LB0
B.DIM zero, 8, ->LB1
B.IOT T#1, T#2, mask=1111, <last>, ->T<3>
BSTOP
";
    assert_eq!(words(template), WORKED);
    let one_line = "  BSTART.TEPL 2, 9, FP32; B.DIM LB0, 16;B.DIM LB1=8 ; \
                    B.IOT T#1, T#2, mask=1111, last, ->T<3> ; BSTOP ; done // trailing";
    assert_eq!(words(one_line), WORKED);
    let with_comments = "; a comment line\n// another\n\nbstart.sfu trowexpandmax, fp32 // lower case\n\
                         B.DIM LB0=0x10\nB.DIM LB1=8\nB.IOT T#1, T#2, mask=1111, last, ->t<3>\nBSTOP";
    assert_eq!(words(with_comments), WORKED);
}

#[test]
fn semicolons_separate_statements_or_start_comments() {
    assert_eq!(words("BSTOP; BSTOP ;bstop"), [1, 1, 1]);
    assert_eq!(words("BSTOP ; ... BSTOP here is prose"), [1]);
    assert_eq!(
        words("; BSTOP at the start of a line is a comment"),
        Vec::<u32>::new()
    );
    assert_eq!(words("BSTOP ; .word-like prose"), [1]);
}

#[test]
fn every_instruction_form() {
    let cases = [
        ("B.DATR {NORM, FP32, Zero, None, RNE, 0, 0}", 0x0010_9023),
        (
            "B.DATR {ND2M16, DTYPE_NONE, Null, None, Default, 0, 0}",
            0x19F0_1B23,
        ),
        ("B.DATR FP32, Zero", 0x0010_1023),
        ("B.DATR DataType=FP32, PadValue=Null", 0x1810_1023),
        ("B.DATR DataType=DTYPE_NONE, PadValue=Max", 0x09F0_1023),
        ("B.DATR PadValue=Min", 0x1000_1023),
        ("B.DATR S8, RNE, Sat=1", 0x0530_9023),
        ("B.DATR U32, ByteId=2", 0x1190_1023),
        ("B.DATR", 0x0000_1023),
        ("B.DIM a0, 16, ->LB0", 0x0101_0043),
        ("B.DIM LB2, 131071", 0xFFF0_2FC3),
        ("B.IOT T#3, mask=1000, last, ->U<1>", 0x0028_D293),
        ("B.IOT T#1, T#2, mask=1111", 0x0400_4E13),
        ("B.IOT mask=0000, ->N<10>", 0x0005_6193),
        ("B.IOR a0, a1, zero, ->zero", 0x0031_0013),
        ("B.IOR", 0x0000_0013),
        ("B.IOS S5, mask=1111, ->S<12>", 0x0056_1E13),
        ("B.IOS S255, mask=0001", 0x0FF0_1813),
        (".word 0xDEADBEEF", 0xDEAD_BEEF),
        ("BSTART.TEPL 0, 26, U64", 0xC1A1_9181),
        // The CUBE starts and B.FPATR (docs/isa.md §18.1).
        ("BSTART.TMATMUL FP32", 0x0803_1181),
        ("BSTART.TMATMUL.ACC FP16", 0x2023_1181),
        ("bstart.tgemv.bias S8", 0x9913_1181),
        ("B.FPATR 0, 0, 0, 0, 0, 0, 0, 0, 0", 0x0000_2023),
        ("B.FPATR None, None, 0, 0, 0, 0, 0, 0, 0", 0x0000_2023),
        ("B.FPATR 0, 1, 0, 0, 0, 0, 0, 1, 0", 0x0080_20A3),
    ];
    for (text, word) in cases {
        assert_eq!(words(text), [word], "{text}");
    }
}

#[test]
fn lowered_kernels_survive_print_and_assemble() {
    let k = lower_function(&common::worked_example()).unwrap();
    let text = print_asm(std::slice::from_ref(&k));
    let back = assemble(&text, "k.s").unwrap();
    assert_eq!(back.len(), 1);
    assert_eq!(
        (&back[0].name, back[0].words(), &back[0].meta),
        (&k.name, k.words(), &k.meta)
    );
    // Without directives the kernel is named after the file.
    let bare = assemble("BSTOP", "dir/my_kernel.s").unwrap();
    assert_eq!(bare[0].name, "my_kernel");
}

/// Assemble `text` and return the first error as `line:col: message`.
fn error(text: &str) -> String {
    let diags = assemble(text, "bad.s").expect_err(text);
    let d = &diags[0];
    format!("{}:{}: {}", d.loc.line, d.loc.col, d.message)
}

#[test]
fn errors_point_at_the_offending_token() {
    let cases = [
        (
            "BSTART.VEC TDIV, FP32",
            "1:12: TDIV runs on the SFU engine: write BSTART.SFU TDIV",
        ),
        (
            "BSTART.SFU TADD, FP32",
            "1:12: TADD runs on the VEC engine: write BSTART.VEC TADD",
        ),
        (
            "B.IOT T#1, mask=0011, last",
            "1:17: PE mask '0011' cannot be encoded",
        ),
        (
            "BSTOP\n  B.DIM LB0=131072",
            "2:13: dimension must be a number in 0..=131071",
        ),
        ("B.FOO x", "1:1: unknown mnemonic or directive 'B.FOO'"),
        ("BSTART.SFU TFOO, FP32", "1:12: unknown tile op 'TFOO'"),
        ("BSTART.SFU TROWMAX, FP15", "1:21: unknown DataType 'FP15'"),
        (
            "BSTART.SFU TROWMAX, DTYPE_NONE",
            "1:21: DTYPE_NONE is reserved in BSTART",
        ),
        (
            "BSTART.TEPL 0, 5, FP32",
            "1:16: Mode 0 Function 5 is not an accepted TEPL selector",
        ),
        (
            "BSTART.TEPL 4, 5, FP32",
            "1:13: Mode must be a number in 0..=3",
        ),
        (
            "BSTART.SYS FALL",
            "1:1: 'BSTART.SYS' is not a block start ptoc knows",
        ),
        (
            "BSTART.STD x",
            "1:12: unknown transfer 'x' (FALL, DIRECT, COND, IND, RET)",
        ),
        (
            "BSTART.STD COND, .+3",
            "1:18: target '.+3' must be '.+N' or '.-N' with N an even byte offset",
        ),
        (
            "BSTART.TLOAD DTYPE_NONE",
            "1:14: DTYPE_NONE is reserved in BSTART.TLOAD",
        ),
        (
            "addi a0, 4096, ->a1",
            "1:10: immediate must be a number in 0..=4095, found '4096'",
        ),
        (
            "andi a0, -2049, ->a1",
            "1:10: immediate must be a number in -2048..=2047",
        ),
        ("add a0, a1.bogus, ->a2", "1:9: unknown modifier '.bogus'"),
        (
            "cmp.lt a0, a1.not, ->a2",
            "1:12: cmp.lt has no '.not' modifier",
        ),
        (
            "add a0, a1, ->t#1",
            "1:15: unknown scalar destination register 't#1'",
        ),
        (
            "setc.lt a0, r24",
            "1:13: unknown scalar source register 'r24'",
        ),
        (
            "B.IOT T0, mask=1111",
            "1:7: write sources as absolute register names like T#1",
        ),
        (
            "B.IOT T#1, mask=1111, ->T0<1>",
            "1:25: destination register numbers cannot be encoded",
        ),
        (
            "B.IOT T#1, mask=1111, last, ->T<11>",
            "1:33: SizeCode must be a number in 0..=10",
        ),
        (
            "B.IOT T#1, mask=1111, last, ->T<0>",
            "1:33: SizeCode must be in 1..=10",
        ),
        (
            "B.IOT T#1, T#2, T#3, mask=1111",
            "1:17: expected 'mask=' after two sources",
        ),
        (
            "B.IOT mask=1111, last",
            "1:1: a B.IOT without sources needs a destination",
        ),
        (
            "B.IOT T#1, mask=1111, last, last",
            "1:29: expected 'last' or '->' once",
        ),
        (
            "B.IOT T#17, mask=1111",
            "1:7: expected a source register (T#1…N#16)",
        ),
        ("B.DATR FP32, FP16", "1:14: B.DATR DataType given twice"),
        ("B.DATR Bogus=1", "1:8: unknown B.DATR field 'Bogus'"),
        (
            "B.DATR {NORM, FP32, Zero, None, RNE, 2, 0}",
            "1:38: Sat must be a number in 0..=1",
        ),
        (
            "B.DATR {NORM, FP32, Zero, None, RNE, 0}",
            "1:39: expected ','",
        ),
        ("B.DIM LB3=1", "1:7: expected LB0/LB1/LB2 or a GPR"),
        ("B.DIM x9, 1, ->LB0", "1:7: expected LB0/LB1/LB2 or a GPR"),
        (
            "B.DIM a0, 1, ->LB4",
            "1:16: unknown loop bound (LB0, LB1, LB2) 'LB4'",
        ),
        (
            "B.IOR a0, a1, a2, a3",
            "1:19: B.IOR takes at most three sources",
        ),
        (
            "C.B.DIMI 3, ->LB0",
            "1:1: C.B.DIMI is not a 32-bit instruction",
        ),
        ("BSTOP extra", "1:7: unexpected 'extra'"),
        ("BSTOP @", "1:7: unexpected character '@'"),
        (
            "BSTART.SFU TROWMAX FP32",
            "1:20: expected ',', found 'FP32'",
        ),
        (
            "BSTART.SFU TROWMAX,",
            "1:20: expected a DataType, found end of statement",
        ),
        (".word 0x1FFFFFFFF", "1:7: a 32-bit word must be a number"),
        (".kernel \"unterminated", "1:9: unterminated string"),
        (".kernel a\n.kernel a", "2:1: kernel 'a' is defined twice"),
        (".pe_mask 0101", "1:10: PE mask '0101' cannot be encoded"),
        (
            ".pe_mask 1111\n.pe_mask 1000",
            "2:1: the kernel's PE mask is already set",
        ),
        (
            ".spec pto-isa-0.57",
            "1:7: spec version 'pto-isa-0.57' is not the supported",
        ),
        (
            ".arg x, T#1, FP32, 8x16, valid=8x16, size=2, pad=Null",
            "1:6: x: SizeCode 2 with 16 columns of FP32 gives 4 rows, not 8",
        ),
        (
            ".arg x, T#1, FP32, 8x16, valid=9x16, size=3, pad=Null",
            "1:6: x: valid shape 9x16",
        ),
        (
            ".arg x, T#1, FP32, 8x16, valid=8x16, size=3, pad=Huge",
            "1:50: unknown PadValue 'Huge'",
        ),
        (
            ".result x, T#1, FP32, 8by16",
            "1:23: expected a physical shape like 8x16",
        ),
    ];
    for (text, expect) in cases {
        let got = error(text);
        assert!(
            got.starts_with(expect),
            "{text:?}\n  got:  {got}\n  want: {expect}"
        );
    }
}

#[test]
fn every_bad_line_is_reported_and_rendered_with_a_caret() {
    let text = "BSTART.VEC TDIV, FP32\nBSTOP\nB.IOT T#1, mask=0011\n";
    let diags = assemble(text, "bad.s").unwrap_err();
    assert_eq!(diags.len(), 2);
    let mut sources = SourceMap::default();
    sources.add("bad.s", text);
    assert_eq!(
        sources.render(&diags[0]),
        "bad.s:1:12: error: TDIV runs on the SFU engine: write BSTART.SFU TDIV\n\
         BSTART.VEC TDIV, FP32\n           ^\n"
    );
    assert!(sources
        .render(&diags[1])
        .starts_with("bad.s:3:17: error: PE mask '0011'"));
}

/// The scalar loop of docs/isa.md §12.8, in the spec's scalar syntax: its words, and the
/// disassembly of those words assembles back to them.
#[test]
fn scalar_blocks_and_tile_memory_ops() {
    let text = "\
BSTART.STD COND, .+60
addi zero, 0, ->s0
addi zero, 64, ->s1
addi a0, 0, ->x0
setc.ge s0, a1
BSTOP
BSTART.TSTORE FP32
B.IOR x0, s1, zero, ->zero
B.IOT T#1, mask=1111, last
BSTOP
BSTART.STD COND, .-16
addi s0, 1, ->s0
add a0, s0<<6, ->x0
setc.lt s0, a1
BSTOP
";
    let want = [
        0x000F_3001,
        0x0000_0595,
        0x0400_0615,
        0x0001_0A15,
        0x0035_D065,
        0x0000_0001,
        0x0811_1181,
        0x00CA_0013,
        0x0008_5E13,
        0x0000_0001,
        0xFFFC_3001,
        0x0015_8595,
        0x36B1_0A05,
        0x0035_C065,
        0x0000_0001,
    ];
    assert_eq!(words(text), want);
    let printed: Vec<String> = want.iter().map(|&w| ptoc_codegen::format_word(w)).collect();
    assert_eq!(printed.join("\n") + "\n", text);
    // Forms with several encodings of one meaning print as `.word` so that the round trip
    // stays exact: ADD with SrcRType 00 is `.sw`, but a CMP with SrcRType 11 is "no modifier"
    // like 00; a result dropped through code 24 instead of `zero`.
    let cmp_rtype_11 = 0x0620_C1C5; // cmp.lt sp, a0, ->a1 with SrcRType 11
    assert!(ptoc_codegen::format_word(cmp_rtype_11).starts_with(".word"));
    let every_form = "\
BSTART.TLOAD BF16
BSTART.TMOV DTYPE_NONE
BSTART.STD FALL
BSTART.STD DIRECT, .-131072
sub a0, a1.sw<<3, ->u
xorw t#1, u#4.not, ->t
sra a0, a1, ->a2
mulw a0, a1, ->a2
andi a0, -1, ->a1
srai a0, 63, ->a1
lui 0xfffff, ->x3
cmp.geu a0, a1.uw, ->a2
cmp.eqi a0, -2048, ->a2
cmp.ltui a0, 4095, ->a2
setc.and a0, a1.not
setc.lti a0, -5<<3
csel a0, a1, a2, ->a3
";
    let ws = words(every_form);
    let printed: Vec<String> = ws.iter().map(|&w| ptoc_codegen::format_word(w)).collect();
    assert_eq!(printed.join("\n") + "\n", every_form);
}

/// GM and scalar arguments and the target profile as directives: printed in canonical order and
/// assembled back to the same kernel; bad argument lists are located errors.
#[test]
fn gm_argument_directives_round_trip() {
    let text = "\
.kernel rows
.pe_mask 1111
.spec pto-isa-0.58.3-mode-function-v1
.profile queue
.memref out, a0, FP32, 6x16, pos=0, stored
.memref ws0, a3, FP32, 6x16, pos=3, stored, workspace
.scalar n, a1, index, pos=1
.scalar alpha, a2, FP32, pos=2

BSTART.STD FALL
BSTOP
";
    let kernels = assemble(text, "t.s").unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(print_asm(&kernels), text);
    let m = &kernels[0].meta;
    assert_eq!((m.memrefs.len(), m.scalars.len()), (2, 2));
    assert!(m.memrefs[1].workspace && !m.memrefs[0].workspace);
    let error = |text: &str| {
        let d = assemble(text, "t.s").unwrap_err();
        format!("{}:{}: {}", d[0].loc.line, d[0].loc.col, d[0].message)
    };
    assert_eq!(
        error(".kernel k\n.memref x, a0, FP32, 2x2, pos=0\n.scalar n, a0, index, pos=1\n"),
        "1:1: kernel 'k': n: GPR 2 is not a free absolute GPR"
    );
    assert_eq!(
        error(".kernel k\n.memref x, a0, FP32, 2x2, pos=1\n"),
        "1:1: kernel 'k': x: position 1 is taken or past 1"
    );
    assert!(error(".memref x, zero, FP32, 2x2, pos=0").starts_with("1:12: unknown writable GPR"));
    assert_eq!(
        error(".memref w, a0, FP32, 2x2, pos=0, workspace, stored"),
        "1:45: expected the end of the line, found 'stored'"
    );
    assert_eq!(
        error(".kernel k\n.memref w, a0, FP32, 2x2, pos=0, workspace\n.scalar n, a1, index, pos=1\n"),
        "1:1: kernel 'k': workspace w at position 0 comes before an argument; workspaces follow all 1 arguments"
    );
    assert!(error(".scalar n, a1, E8M0, pos=0").starts_with("1:16: unknown scalar type"));
    assert!(error(".profile fifo").starts_with("1:10: unknown target profile"));
}

/// The tile-scalar ops (docs/isa.md §14): the words of the spec's decoded TADDS (U64) and
/// TEXPANDS (U8) tests, the scalar GPR in B.IOR RegSrc0, the canonical text printed back, and
/// TDIVS only under its engine's alias.
#[test]
fn tile_scalar_bundles() {
    let tadds = "\
BSTART.VEC TADDS, U64
B.DIM LB0=2
B.IOT T#2, mask=1111, last, ->T<1>
B.IOR a0, zero, zero, ->zero
BSTOP
";
    let tadds_words = [0xC201_9181, 0x0020_0043, 0x0018_DE13, 0x0001_0013, 1];
    assert_eq!(words(tadds), tadds_words);
    let texpands = "BSTART.TEPL 1, 27, U8; B.DIM zero, 2, ->LB0; B.IOT mask=1111, <last>, ->T<1>; \
                    B.IOR a0; BSTOP";
    let texpands_words = [0xDBB1_9181, 0x0020_0043, 0x0008_EE13, 0x0001_0013, 1];
    assert_eq!(words(texpands), texpands_words);
    let printed: Vec<String> = tadds_words
        .iter()
        .chain(&texpands_words)
        .map(|&w| ptoc_codegen::format_word(w))
        .collect();
    assert_eq!(
        printed.join("\n"),
        "BSTART.VEC TADDS, U64\nB.DIM LB0=2\nB.IOT T#2, mask=1111, last, ->T<1>\n\
         B.IOR a0, zero, zero, ->zero\nBSTOP\nBSTART.VEC TEXPANDS, U8\nB.DIM LB0=2\n\
         B.IOT mask=1111, last, ->T<1>\nB.IOR a0, zero, zero, ->zero\nBSTOP"
    );
    for (mn, word) in [
        ("TSUBS, FP16", 0x2211_9181),
        ("TMULS, BF16", 0x2A21_9181),
        ("TMAXS, FP32", 0x0AB1_9181),
        ("TMINS, FP32", 0x0AC1_9181),
    ] {
        assert_eq!(words(&format!("BSTART.VEC {mn}")), [word], "{mn}");
    }
    assert_eq!(words("BSTART.SFU TDIVS, FP32"), [0x0A31_9181]);
    let d = assemble("BSTART.VEC TDIVS, FP32", "t.s").unwrap_err();
    assert_eq!(
        (d[0].loc.line, d[0].loc.col, d[0].message.as_str()),
        (
            1,
            12,
            "TDIVS runs on the SFU engine: write BSTART.SFU TDIVS"
        )
    );
}
