//! Word builders for the interpreter tests, on top of the isa crate's encoders.
#![allow(dead_code)]

use ptoc_isa::encoding::{Datr, Dim, Iot, IotSources};
use ptoc_isa::{ops, DataType, Hand, Instruction, PadValue, PeMask, SizeCode, TileReg};
use ptoc_runtime::Tile;

pub fn reg(i: u32) -> TileReg {
    TileReg::new(i).unwrap()
}

pub fn bstart(mnemonic: &str, dtype: DataType) -> u32 {
    ops::by_mnemonic(mnemonic).unwrap().bstart(dtype).encode()
}

pub fn datr(dtype: Option<DataType>, pad: PadValue) -> u32 {
    Instruction::BDatr(Datr::with(dtype, pad)).encode()
}

pub fn dim(lb: u8, value: u32) -> u32 {
    Instruction::BDim(Dim {
        lb,
        reg: 0,
        imm: value,
    })
    .encode()
}

pub fn iot(sources: &[u32], last: bool, mask: &str, dst: Option<(Hand, u32)>) -> u32 {
    let sources = match sources {
        [a, b] => IotSources::Two(reg(*a), reg(*b)),
        [a] => IotSources::One(reg(*a)),
        _ => IotSources::None,
    };
    Instruction::BIot(Iot {
        sources,
        last,
        mask: PeMask::parse(mask).unwrap(),
        dst: dst.map(|(h, s)| (h, SizeCode::new(s).unwrap())),
    })
    .encode()
}

pub const BSTOP: u32 = 0x0000_0001;

/// One whole bundle: BSTART, optional B.DATR, LB0/LB1/LB2, one B.IOT (all PEs, last) to hand T.
pub fn bundle(
    mnemonic: &str,
    dtype: DataType,
    datr_word: Option<u32>,
    lbs: [u32; 3],
    sources: &[u32],
    size: u32,
) -> Vec<u32> {
    let mut w = vec![bstart(mnemonic, dtype)];
    w.extend(datr_word);
    for (lb, v) in lbs.iter().enumerate() {
        if *v != 0 {
            w.push(dim(lb as u8, *v));
        }
    }
    w.push(iot(sources, true, "1111", Some((Hand::T, size))));
    w.push(BSTOP);
    w
}

/// A defined tile of `size_code` capacity with the valid region filled from `values`.
pub fn tile(dtype: DataType, size_code: u32, cols: u32, valid: (u32, u32), values: &[u64]) -> Tile {
    Tile::allocated(
        dtype,
        SizeCode::new(size_code).unwrap(),
        cols,
        valid.0,
        valid.1,
    )
    .unwrap()
    .with_valid_values(values)
    .unwrap()
}

/// A tile whose whole valid region holds `value`.
pub fn filled(dtype: DataType, size_code: u32, cols: u32, valid: (u32, u32), value: u64) -> Tile {
    tile(
        dtype,
        size_code,
        cols,
        valid,
        &vec![value; (valid.0 * valid.1) as usize],
    )
}

/// Everything a fault must leave unchanged: every register's tile and the flags.
pub fn state(m: &ptoc_runtime::Machine) -> (Vec<Option<Tile>>, u8) {
    (
        (0..64).map(|i| m.tile(reg(i)).cloned()).collect(),
        m.flags(),
    )
}
