//! Arbitrary bytes into the interpreter: it must never panic or hang, must stay within the core
//! capacity, and a faulting run must leave the bundle it faulted in without effect.
//!
//! Each 5-byte chunk is one word: a selector byte either passes the next four bytes through raw
//! or shapes them into a BSTART/B.DATR/B.DIM/B.IOT/BSTOP with random fields (small dimensions and
//! source registers that name the preloaded tiles), so most programs get past the decoder. A
//! quarter of the shaped BSTARTs open a TCVT and a quarter a TCMP or TSEL (docs/isa.md §1.9,
//! §1.10); a B.DATR sets a pad and maybe a type and nothing else, or also TCVT's RMode and Sat, or
//! any field (any CMode, reserved 6 and 7 included); a B.IOT may be TSEL's first binding (two
//! sources, no destination, not last), and three of the preloaded tiles are predicates matching
//! numeric ones.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptoc_isa::{DataType, SizeCode, TileReg};
use ptoc_runtime::{Machine, Tile};

/// Registers of the preloaded tiles: numeric ones, then predicates.
const REGS: [u32; 8] = [0, 1, 2, 3, 16, 4, 5, 17];

fn preload(m: &mut Machine) {
    let tiles: [(u32, DataType, u32, u32, (u32, u32)); 5] = [
        (0, DataType::FP32, 1, 4, (2, 3)),
        (1, DataType::FP32, 1, 1, (2, 1)),
        (2, DataType::U8, 1, 4, (2, 3)),
        (3, DataType::FP16, 1, 4, (1, 3)),
        (16, DataType::S16, 2, 2, (4, 2)),
    ];
    for (i, (reg, dtype, size, cols, valid)) in tiles.into_iter().enumerate() {
        let n = (valid.0 * valid.1) as usize;
        let values: Vec<u64> = (0..n as u64).map(|k| (k * 0x3C01 + i as u64 * 0x5A5A_3F80) & dtype.carrier_mask()).collect();
        let tile = Tile::allocated(dtype, SizeCode::new(size).unwrap(), cols, valid.0, valid.1)
            .unwrap()
            .with_valid_values(&values)
            .unwrap();
        m.load(TileReg::new(reg).unwrap(), tile).unwrap();
    }
    // Predicates with the geometry of T#1 (FP32, 8x4), T#3 (U8, 32x4) and U#1 (S16, 64x2), so a
    // TSEL over those tiles can pass its shape checks; bits alternate from the register's parity.
    let predicates: [(u32, u32, (u32, u32), (u32, u32)); 3] =
        [(4, 1, (8, 4), (2, 3)), (5, 1, (32, 4), (2, 3)), (17, 1, (64, 2), (4, 2))];
    for (reg, size, shape, valid) in predicates {
        let n = (valid.0 * valid.1) as u64;
        let bits: Vec<u64> = (0..n).map(|k| (k + reg as u64) & 1).collect();
        let tile = Tile::allocated_predicate(SizeCode::new(size).unwrap(), shape, valid)
            .unwrap()
            .with_valid_values(&bits)
            .unwrap();
        m.load(TileReg::new(reg).unwrap(), tile).unwrap();
    }
}

fn shape(selector: u8, w: u32) -> u32 {
    match selector % 8 {
        0 | 1 => w,
        // BSTART.TEPL with any DataType: one in four a TCVT (Mode 0, Function 27), one in four a
        // TCMP (0/13) or TSEL (0/26), the others Mode 0 or 2 with any Function.
        2 if selector & 0x60 == 0x60 => (w & 0xF800_0000) | (27 << 20) | 0x0001_9181,
        2 if selector & 0x60 == 0x40 => {
            let function = if w & (1 << 20) != 0 { 26 } else { 13 };
            (w & 0xF800_0000) | (function << 20) | 0x0001_9181
        }
        2 => (w & 0xF9F0_0000) | ((selector as u32 >> 3 & 1) << 26) | 0x0001_9181,
        // B.DATR with a pad and maybe a type; other fields usually zero, sometimes only TCVT's
        // RMode and Sat, sometimes any.
        3 => {
            let extra = match selector >> 6 {
                2 | 3 => w & 0xE60F_8F80,
                1 => w & 0x0403_8000,
                _ => 0,
            };
            (w & 0x19F0_0000) | extra | 0x1023
        }
        // B.DIM LBn = 1..8 from the zero register.
        4 => ((1 + (w >> 20) % 8) << 20) | ((w % 3) << 12) | 0x43,
        // B.IOT: sources among the preloaded registers, PEMode, L, SizeCode 1..4, any form (the
        // two-source form without a destination is TSEL's first binding).
        5 | 6 => {
            let s0 = REGS[(w & 7) as usize];
            let s1 = REGS[((w >> 3) & 7) as usize];
            let form = 4 + (w >> 6) % 3;
            let size = if form == 6 || w & 0x100 != 0 { 1 + (w >> 9) % 4 } else { 0 };
            let (srcs, size) = match form {
                4 => ((s1 << 26) | (s0 << 20), size),
                5 => (s0 << 20, size),
                _ => (0, size.max(1)),
            };
            srcs | ((w >> 12 & 1) << 19) | (size << 15) | (form << 12) | ((w >> 13 & 7) << 9) | ((w >> 16 & 3) << 7) | 0x13
        }
        _ => 0x0000_0001,
    }
}

fuzz_target!(|data: &[u8]| {
    let words: Vec<u32> = data
        .chunks_exact(5)
        .map(|c| shape(c[0], u32::from_le_bytes([c[1], c[2], c[3], c[4]])))
        .collect();
    let mut m = Machine::new();
    preload(&mut m);
    // Run bundle by bundle up to the fault so the faulting bundle's effect can be checked.
    let result = m.clone().run(&words);
    let _ = m.run(&words);
    assert!(m.allocated_bytes() <= 256 * 1024);
    if let Err(fault) = result {
        // The same program, cut just before the faulting bundle's BSTART, must reach the same state.
        let starts: Vec<usize> = words
            .iter()
            .enumerate()
            .filter(|(_, w)| matches!(ptoc_isa::Instruction::decode(**w), Ok(ptoc_isa::Instruction::BStart(_))))
            .map(|(i, _)| i)
            .collect();
        if let Some(&cut) = starts.get(fault.bundle) {
            // An open bundle before the cut was committed by the next BSTART: a BSTOP does the same.
            let mut closed = words[..cut].to_vec();
            closed.push(0x0000_0001);
            let reach = |program: &[u32]| {
                let mut prefix = Machine::new();
                preload(&mut prefix);
                prefix.run(program).is_ok().then_some(prefix)
            };
            if let Some(prefix) = reach(&words[..cut]).or_else(|| reach(&closed)) {
                for r in 0..64 {
                    let reg = TileReg::new(r).unwrap();
                    assert_eq!(prefix.tile(reg), m.tile(reg), "fault {fault} changed {reg}");
                }
                assert_eq!(prefix.flags(), m.flags(), "fault {fault} changed the flags");
            }
        }
    }
});
