//! ptoc code generation: allocated tile IR → bundles → canonical assembly, words and ELF objects,
//! and back (assembler, ELF reader, disassembler).
//!
//! A [`Kernel`] is the unit every format carries: a name, its bundles (32-bit words grouped from
//! `BSTART` to `BSTOP`) and its [`KernelMeta`] (the registers and shapes of its arguments and
//! results, which the loader needs). [`lower_function`] makes one from an allocated
//! [`ptoc_ir::Function`]; [`print_asm`]/[`assemble`] and [`write_elf`]/[`read_elf`] convert it
//! losslessly to text and to an object file.

#![warn(missing_docs)]

mod asm_parse;
mod asm_print;
mod elf;
mod lower;
mod lower_gm;
pub mod metadata;
mod syntax;

pub use asm_parse::assemble;
pub use asm_print::{disassemble, format_word, print_asm, print_words};
pub use elf::{read_elf, write_elf, ElfError, E_MACHINE_PTO};
pub use lower::lower_function;
pub use lower_gm::lower_gm_kernel;
pub use metadata::{
    is_tile_name, KernelMeta, MetaError, TileMeta, METADATA_SECTION, METADATA_VERSION,
};
pub use syntax::quote_name;

use ptoc_isa::encoding::{BSTART_TEPL_MATCH, BSTART_TLSU_MATCH};
use ptoc_isa::Instruction;

/// Where a bundle came from in the source, for the comment line above it
/// (`; %0 = pto.trowexpandmax  (kernel.mlir:3:8)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The SSA name of the op's result, without `%`.
    pub value: String,
    /// The source op name (`pto.trowexpandmax`).
    pub op: String,
    /// Where the op is in the source.
    pub loc: ptoc_ir::Location,
}

/// One bundle: the words from a `BSTART` to its `BSTOP`. Words that do not belong to a bundle
/// (read back from a hand-written object) form bundles of their own.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Bundle {
    /// The source op it was lowered from, if known.
    pub origin: Option<Origin>,
    /// Its words, in order.
    pub words: Vec<u32>,
}

/// A compiled kernel: what one ELF `STT_FUNC` symbol and one metadata record describe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The symbol name.
    pub name: String,
    /// The code, bundle by bundle.
    pub bundles: Vec<Bundle>,
    /// How to call it: argument and result registers and shapes.
    pub meta: KernelMeta,
}

impl Kernel {
    /// All words of the kernel in order.
    pub fn words(&self) -> Vec<u32> {
        self.bundles
            .iter()
            .flat_map(|b| b.words.iter().copied())
            .collect()
    }
}

/// True for a word that opens a block: any BSTART.TEPL (decodable or not), or a decodable
/// BSTART.STD or TLSU start.
fn opens_bundle(word: u32) -> bool {
    // BSTART.STD: major opcode 1, block class 0, a BrType that names a transfer (docs/isa.md
    // §12.1); matched on its fixed bits rather than decoded, since every word is asked.
    let std = word & 0xFFF == 0x001 && matches!((word >> 12) & 7, 1 | 2 | 3 | 5 | 7);
    word & 0x000F_FFFF == BSTART_TEPL_MATCH || word & 0x000F_FFFF == BSTART_TLSU_MATCH || std
}

/// Group a word stream into bundles: a bundle starts at each BSTART and ends after each BSTOP.
pub fn group_bundles(words: &[u32]) -> Vec<Bundle> {
    let bstop = Instruction::BStop.encode();
    let mut starts = Vec::new();
    let mut open = false;
    for (i, &word) in words.iter().enumerate() {
        if !open || opens_bundle(word) {
            starts.push(i);
        }
        open = word != bstop;
    }
    let ends = starts.iter().skip(1).copied().chain([words.len()]);
    starts
        .iter()
        .zip(ends)
        .map(|(&start, end)| Bundle {
            origin: None,
            words: words[start..end].to_vec(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouping_splits_at_bstart_and_after_bstop() {
        let words = [0x0C91_9181, 0x0100_0043, 0x1, 0x0100_0043, 0x0801_9181, 0x1];
        let groups: Vec<Vec<u32>> = group_bundles(&words).into_iter().map(|b| b.words).collect();
        assert_eq!(
            groups,
            vec![
                vec![0x0C91_9181, 0x0100_0043, 0x1],
                vec![0x0100_0043],
                vec![0x0801_9181, 0x1]
            ]
        );
    }
}
