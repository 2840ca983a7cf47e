//! Property tests: words → asm → words, and ELF → disassembly → asm → ELF byte for byte, over
//! random instruction words (decodable or not) and random kernel metadata.

use proptest::prelude::*;
use ptoc_codegen::{
    assemble, disassemble, group_bundles, print_asm, read_elf, write_elf, Kernel, KernelMeta,
    TileMeta,
};
use ptoc_isa::dtype::ARITHMETIC;
use ptoc_isa::{Instruction, PadValue, PeMask, SizeCode, Storage, TileReg};

/// A word of one of the tile-bundle formats with random fields, or any word at all.
fn word() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>().prop_map(|w| (w & 0xFFF0_0000) | 0x0001_9181),
        any::<u32>().prop_map(|w| (w & 0xFFF3_8F80) | 0x0000_1023),
        (any::<u32>(), 0u32..3).prop_map(|(w, lb)| (w & 0xFFFF_8F80) | (lb << 12) | 0x43),
        (any::<u32>(), 4u32..7).prop_map(|(w, f)| (w & 0xFFFF_8F80) | (f << 12) | 0x13),
        any::<u32>().prop_map(|w| (w & 0xF9FF_8F80) | 0x13),
        any::<u32>().prop_map(|w| (w & 0x0FF7_8E00) | 0x1013),
        Just(0x0000_0001u32),
        any::<u32>(),
    ]
}

/// A name, sometimes one that needs quoting (spaces, quotes, backslashes, controls, unicode).
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_][a-z0-9_]{0,8}",
        "[ -~]{1,10}",
        "[\u{1}-\u{7f}é→]{1,6}"
    ]
}

/// A tile name: an identifier (the characters of an MLIR SSA name), as metadata requires.
fn tile_name() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_$.-]{1,12}"
}

fn tile() -> impl Strategy<Value = TileMeta> {
    (
        tile_name(),
        0u32..64,
        prop::sample::select(ARITHMETIC),
        0u32..7,
        1u32..=10,
        any::<(u16, u16)>(),
        0u32..4,
        any::<(bool, u16)>(),
    )
        .prop_filter_map(
            "shape fits",
            |(name, reg, dtype, log_cols, size, (vr, vc), pad, (pred, pred_rows))| {
                let cols = 1 << log_cols;
                let size_code = SizeCode::new(size)?;
                // A predicate's rows are any its SizeCode holds the bits of (docs/isa.md §3.6).
                let (storage, dtype, rows) = if pred {
                    let max_rows = (size_code.bytes() * 8 / cols).min(65535);
                    let rows = 1 + pred_rows as u32 % max_rows;
                    (Storage::Predicate, ptoc_isa::dtype::PREDICATE_DTYPE, rows)
                } else {
                    let rows = size_code.derived_rows(cols, dtype.bits())?;
                    (Storage::Numeric, dtype, rows)
                };
                Some(TileMeta {
                    name,
                    register: TileReg::new(reg)?,
                    dtype,
                    storage,
                    rows,
                    cols,
                    valid_rows: 1 + vr as u32 % rows,
                    valid_cols: 1 + vc as u32 % cols,
                    size_code,
                    pad: PadValue::from_code(pad),
                    layout: ptoc_isa::Layout::Norm,
                })
            },
        )
}

/// Up to three tiles of distinct names (one list's names name its `--out-dir` files).
fn tiles() -> impl Strategy<Value = Vec<TileMeta>> {
    prop::collection::vec(tile(), 0..3).prop_map(|mut tiles| {
        let mut seen = std::collections::HashSet::new();
        tiles.retain(|t| seen.insert(t.name.clone()));
        tiles
    })
}

fn kernel() -> impl Strategy<Value = Kernel> {
    (
        name(),
        prop::collection::vec(word(), 0..24),
        0u32..8,
        tiles(),
        tiles(),
    )
        .prop_map(|(name, words, mask, args, results)| Kernel {
            name,
            bundles: group_bundles(&words),
            meta: KernelMeta {
                pe_mask: PeMask::from_mode(mask),
                args,
                results,
                ..KernelMeta::default()
            },
        })
}

fn kernels() -> impl Strategy<Value = Vec<Kernel>> {
    prop::collection::vec(kernel(), 0..4).prop_map(|mut ks| {
        let mut seen = std::collections::HashSet::new();
        ks.retain(|k| seen.insert(k.name.clone()));
        ks
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn asm_words_asm(ks in kernels()) {
        let text = print_asm(&ks);
        let back = assemble(&text, "t.s").map_err(|d| TestCaseError::fail(format!("{d:?}\n{text}")))?;
        prop_assert_eq!(&back, &ks, "{}", text);
        prop_assert_eq!(print_asm(&back), text);
    }

    #[test]
    fn elf_disasm_asm_elf(ks in kernels()) {
        let bytes = write_elf(&ks).unwrap();
        let read = read_elf(&bytes).unwrap();
        prop_assert_eq!(&read, &ks);
        let text = disassemble(&read);
        let again = assemble(&text, "d.s").map_err(|d| TestCaseError::fail(format!("{d:?}\n{text}")))?;
        prop_assert_eq!(write_elf(&again).unwrap(), bytes);
    }

    /// Every canonical word's text assembles to that word alone.
    #[test]
    fn single_words(w in word()) {
        let text = ptoc_codegen::format_word(w);
        let ks = assemble(&text, "w.s").map_err(|d| TestCaseError::fail(format!("{d:?}\n{text}")))?;
        prop_assert_eq!(ks[0].words(), vec![w]);
        if let Ok(inst) = Instruction::decode(w) {
            // A scalar form whose SrcRType or destination code has a twin spelling prints as
            // `.word` (docs/isa.md §11.4, §11.6); every other decodable word prints as itself.
            let canonical = match inst {
                Instruction::Scalar(s) => s.is_canonical(),
                _ => true,
            };
            if inst.encode() == w && canonical {
                prop_assert!(!text.starts_with(".word"), "{}", text);
            }
        }
    }
}
