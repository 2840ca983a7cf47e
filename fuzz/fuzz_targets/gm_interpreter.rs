//! Scalar blocks, branches and tile memory ops into the interpreter: it must never panic, never
//! touch memory outside a GM buffer (buffers keep their size), stop within its step budget, stay
//! within the core capacity, and report an element address exactly for GM faults.
//!
//! Each 5-byte chunk is one word: a selector byte passes the next four through raw or shapes them
//! into a scalar instruction on a few GPRs, a BSTART.STD with a short branch, a TLSU start, a
//! B.IOR naming the GPRs that hold GM addresses, a B.DIM, a B.IOT or a BSTOP. Half the runs use
//! queue naming.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptoc_isa::profile::NamingModel;
use ptoc_isa::{DataType, FaultClass, SizeCode, TileReg};
use ptoc_runtime::{Machine, Tile};

const BUFFER_BYTES: [usize; 2] = [256, 4096];

fn machine(naming: NamingModel) -> (Machine, Vec<u64>) {
    let mut m = Machine::with_naming(naming);
    m.set_step_limit(20_000);
    let bases: Vec<u64> = BUFFER_BYTES
        .iter()
        .enumerate()
        .map(|(i, &n)| m.map_gm((0..n).map(|b| (b * 7 + i) as u8).collect()))
        .collect();
    // a0/a1: the buffers' bases; a2: a row stride; a3: a small count.
    for (gpr, value) in [(2, bases[0]), (3, bases[1]), (4, 16), (5, 3)] {
        m.set_gpr(gpr, value);
    }
    let tile = Tile::allocated(DataType::U32, SizeCode::new(1).unwrap(), 4, 2, 4)
        .unwrap()
        .with_valid_values(&[1, 2, 3, 4, 5, 6, 7, 8])
        .unwrap();
    m.load(TileReg::new(0).unwrap(), tile).unwrap();
    (m, bases)
}

fn shape(selector: u8, w: u32) -> u32 {
    let reg = |x: u32| [2u32, 3, 4, 5, 11, 12][(x % 6) as usize];
    match selector % 10 {
        0 => w,
        // ADDI/SUBI/ANDI/SLLI on the loop registers.
        1 => {
            let op = [0x0000_0015u32, 0x1015, 0x2015, 0x7015][(w & 3) as usize];
            let imm = if op == 0x7015 { (w >> 2) & 7 } else { (w >> 2) & 0x3F };
            (imm << 20) | (reg(w >> 8) << 15) | (reg(w >> 11) << 7) | op
        }
        // ADD with a shifted right operand (SrcRType 11).
        2 => ((w >> 27) << 27) | (3 << 25) | (reg(w) << 20) | (reg(w >> 3) << 15) | (reg(w >> 6) << 7) | 0x05,
        // SETC.LT / SETC.GE / SETC.NE on two registers.
        3 => {
            let funct = [4u32, 5, 1][(w % 3) as usize];
            (reg(w >> 2) << 20) | (reg(w >> 5) << 15) | (funct << 12) | 0x65
        }
        // BSTART.STD FALL, DIRECT or COND with a target a few words away.
        4 => {
            let transfer = [1u32, 2, 3][(w % 3) as usize];
            let offset = if transfer == 1 { 0 } else { ((w >> 2) % 16) as i32 * 4 - 32 };
            (((offset >> 1) as u32 & 0x1_FFFF) << 15) | (transfer << 12) | 0x01
        }
        // BSTART.TLOAD / TSTORE / TMOV, U32 or FP16.
        5 => {
            let dtype = if w & 1 == 0 { 25 } else { 4 };
            (dtype << 27) | (((w >> 1) % 3) << 20) | 0x0001_1181
        }
        // B.IOR base, stride from the GM registers.
        6 => (reg(w) << 20) | (reg(w >> 3) << 15) | 0x13,
        // B.DIM LBn = 1..4.
        7 => ((1 + (w >> 20) % 4) << 20) | ((w % 3) << 12) | 0x43,
        // B.IOT: no source or T#1, a destination SizeCode 1..2, L set.
        8 => {
            let form = if w & 1 == 0 { 0b110 } else { 0b101 };
            let size = (w >> 1) % 3;
            let size = if form == 0b110 { size.max(1) } else { size };
            (1 << 19) | (size << 15) | (form << 12) | (7 << 9) | 0x13
        }
        _ => 0x0000_0001,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let naming = if first & 1 == 0 {
        NamingModel::AbsoluteNoFree
    } else {
        NamingModel::Queue
    };
    let words: Vec<u32> = rest
        .chunks_exact(5)
        .map(|c| shape(c[0], u32::from_le_bytes([c[1], c[2], c[3], c[4]])))
        .collect();
    let (mut m, bases) = machine(naming);
    let result = m.run(&words);
    assert!(m.allocated_bytes() <= 256 * 1024);
    for (&b, &n) in bases.iter().zip(&BUFFER_BYTES) {
        assert_eq!(m.gm_buffer(b).unwrap().len(), n, "a buffer never changes size");
    }
    if let Err(f) = result {
        // Exactly the GM faults name an element address.
        let gm = matches!(f.class, FaultClass::DataAlignment | FaultClass::DataPage);
        assert_eq!(f.address.is_some(), gm, "{f}");
    }
});
