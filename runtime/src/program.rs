//! The program a machine runs, kept decoded between runs, with each tile block whose header is
//! static prepared ahead.
//!
//! Decoding is a function of the word alone, and so is everything a tile block's header and the
//! first commit steps decide when no header word reads a GPR: B.DIM with RegSrc 0 adds GPR 0,
//! which is always 0 (docs/isa.md §2.4, §11). Such a block is recorded and prepared once
//! ([`crate::machine::prepare_tile`]); each time it runs, the interpreter commits the prepared
//! block instead of reading its header word by word. A block whose header reads a GPR, holds
//! scalar code, or is refused by its header or by the prepared steps is run word by word, so its
//! fault comes from the one path that defines it.

use crate::bundle::{Block, Start};
use crate::machine::{prepare_tile, Prepared};
use crate::scalar::GPR_COUNT;
use ptoc_isa::encoding::DecodeError;
use ptoc_isa::Instruction;

/// A program's words with each decoded and its static tile blocks prepared. A run of the same
/// words again (an embedder's kernel over one input after another) reuses both: comparing the
/// words costs a fraction of decoding them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Decoded {
    pub words: Vec<u32>,
    pub instructions: Vec<Result<Instruction, DecodeError>>,
    /// The static tile blocks, in address order.
    blocks: Vec<StaticBlock>,
    /// For each word: the index in `blocks` of the static tile block its BSTART opens, or
    /// [`NOT_STATIC`].
    block_at: Vec<u32>,
}

/// A `block_at` entry for a word that opens no static tile block.
const NOT_STATIC: u32 = u32::MAX;

/// A tile block from its BSTART to its BSTOP whose header reads no GPR, as its header words
/// record it and as [`prepare_tile`] accepts it.
#[derive(Clone, Debug)]
pub(crate) struct StaticBlock {
    /// The header as recorded; its bundle index is the run's to give ([`Block::index`] 0 here).
    pub block: Block,
    pub prepared: Prepared,
    /// The word index of the block's BSTOP.
    pub stop: usize,
}

impl Decoded {
    /// Hold `words`, decoded and prepared, unless it already does.
    pub fn set(&mut self, words: &[u32]) {
        if self.words == words {
            return;
        }
        self.words.clear();
        self.words.extend_from_slice(words);
        self.instructions.clear();
        self.instructions
            .extend(words.iter().map(|&word| Instruction::decode(word)));
        self.blocks.clear();
        self.block_at.clear();
        self.block_at.resize(words.len(), NOT_STATIC);
        for start in 0..words.len() {
            if let Some(block) = static_block(&self.instructions, start) {
                self.block_at[start] = self.blocks.len() as u32;
                self.blocks.push(block);
            }
        }
    }

    /// The static tile block whose BSTART is word `at`, if it opens one.
    #[inline]
    pub fn static_block(&self, at: usize) -> Option<&StaticBlock> {
        self.blocks.get(*self.block_at.get(at)? as usize)
    }
}

/// The static tile block whose BSTART is word `start`, if it is one: only B.DATR, B.DIM with
/// RegSrc 0, B.IOT and B.IOR up to a BSTOP, all accepted by the header rules and prepared
/// without a fault into a block with an effect.
fn static_block(
    instructions: &[Result<Instruction, DecodeError>],
    start: usize,
) -> Option<StaticBlock> {
    let Ok(Instruction::BStart(b)) = instructions[start] else {
        return None;
    };
    let mut block = Block::open(0, start as u64 * 4, Start::Tile(b));
    let gpr_zero = [0; GPR_COUNT];
    for (at, inst) in instructions.iter().enumerate().skip(start + 1) {
        match inst.as_ref().ok()? {
            Instruction::BStop => {
                let prepared = prepare_tile(&block).ok()??;
                return Some(StaticBlock {
                    block,
                    prepared,
                    stop: at,
                });
            }
            header @ (Instruction::BDatr(_) | Instruction::BIot(_) | Instruction::BIor(_)) => {
                block.header(header, &gpr_zero).ok()?
            }
            header @ Instruction::BDim(d) if d.reg == 0 => block.header(header, &gpr_zero).ok()?,
            _ => return None,
        }
    }
    None
}
