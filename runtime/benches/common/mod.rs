//! The bundles and baselines the interpreter benches measure (`interp`, criterion, and
//! `interp_paired`): TROWEXPANDMAX and TCOLEXPANDMIN at the largest tile a bundle can allocate
//! (64 KiB per PE, one PE) for FP32, FP16 and S8, each on a machine loaded with its sources, and
//! a memcpy of the same bytes.

use ptoc_isa::encoding::{Dim, Iot, IotSources};
use ptoc_isa::{ops, DataType, Hand, Instruction, PeMask, SizeCode, TileReg};
use ptoc_runtime::{Machine, Tile};
use std::hint::black_box;

const TILE_BYTES: u32 = 64 * 1024;
const PAGE: usize = 4096;

/// The element types measured, with the names the benches report them by.
pub const TYPES: [(DataType, &str); 3] = [
    (DataType::FP32, "fp32"),
    (DataType::FP16, "fp16"),
    (DataType::S8, "s8"),
];

/// The expand ops measured, and whether each broadcasts a column along the rows.
pub const OPS: [(&str, bool); 2] = [("TROWEXPANDMAX", true), ("TCOLEXPANDMIN", false)];

/// The 64 KiB tile's shape for `dtype`: 128 (FP32) or 256 (FP16, S8) columns.
pub fn shape(dtype: DataType) -> (u32, u32) {
    let bytes = dtype.bits() / 8;
    let cols = if bytes == 4 { 128 } else { 256 };
    (TILE_BYTES / (cols * bytes), cols)
}

/// One expand bundle, ready to run on its loaded machine.
pub struct Bundle {
    machine: Machine,
    program: Vec<u32>,
    /// The destination: the lowest free T register after the two sources.
    dst: TileReg,
}

impl Bundle {
    /// `mnemonic` over a pseudo-random `dtype` tile and its broadcast row or column.
    pub fn new(mnemonic: &str, axis_row: bool, dtype: DataType) -> Bundle {
        let (rows, cols) = shape(dtype);
        let mut machine = Machine::new();
        let one_pe = PeMask::parse("1000").expect("mask");
        let full = tile(dtype, SizeCode::MAX, cols, (rows, cols), 1);
        let (b_rows, b_cols) = if axis_row { (rows, 1) } else { (1, cols) };
        let size = SizeCode::smallest_for(b_rows, b_cols, dtype.bits()).expect("fits");
        let bcast = tile(dtype, size, b_cols, (b_rows, b_cols), 2);
        let reg = |i| TileReg::new(i).expect("register");
        machine.load_with_mask(reg(0), full, one_pe).expect("load");
        machine.load_with_mask(reg(1), bcast, one_pe).expect("load");
        Bundle {
            machine,
            program: words(mnemonic, dtype, rows, cols),
            dst: reg(2),
        }
    }

    /// Run the whole bundle (decode, checks, destination allocation, execution, publication),
    /// then unload the result, which frees its register for the next run: the same work as the
    /// numpy baseline, which allocates each result and frees the previous one.
    #[inline]
    pub fn run(&mut self) -> Tile {
        self.machine
            .run(black_box(&self.program))
            .expect("bundle runs");
        self.machine.unload(self.dst).expect("result")
    }
}

fn words(mnemonic: &str, dtype: DataType, rows: u32, cols: u32) -> Vec<u32> {
    let op = ops::by_mnemonic(mnemonic).expect("catalogue op");
    let reg = |i| TileReg::new(i).expect("register");
    [
        op.bstart(dtype),
        Instruction::BDim(Dim {
            lb: 0,
            reg: 0,
            imm: cols,
        }),
        Instruction::BDim(Dim {
            lb: 1,
            reg: 0,
            imm: rows,
        }),
        Instruction::BIot(Iot {
            sources: IotSources::Two(reg(0), reg(1)),
            last: true,
            mask: PeMask::parse("1000").expect("mask"),
            dst: Some((Hand::T, SizeCode::MAX)),
        }),
        Instruction::BStop,
    ]
    .iter()
    .map(Instruction::encode)
    .collect()
}

/// A pseudo-random defined tile of the given shape and allocation.
fn tile(dtype: DataType, size: SizeCode, cols: u32, valid: (u32, u32), salt: u64) -> Tile {
    let n = (valid.0 * valid.1) as u64;
    let values: Vec<u64> = (0..n)
        .map(|i| (i ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17)
        .map(|v| match dtype {
            // Finite values of moderate size (exponent field kept away from all-ones).
            DataType::FP32 => 0x3000_0000 | (v & 0x0FFF_FFFF) | ((v & 1) << 31),
            DataType::FP16 => 0x3000 | (v & 0x0FFF) | ((v & 1) << 15),
            _ => v,
        })
        .collect();
    Tile::allocated(dtype, size, cols, valid.0, valid.1)
        .and_then(|t| t.with_valid_values(&values))
        .expect("bench tile")
}

/// The memcpy baseline: one copy of a `dtype` tile's bytes between two page-aligned buffers a
/// whole number of pages apart. Two separate allocations would leave their distance to the
/// allocator, and a distance a few bytes past a page multiple sends glibc's `rep movsb` into a
/// 4K-aliasing slow path on some cores (measured 20x slower on an AMD EPYC with FSRM): the
/// baseline would then measure the allocator's placement instead of the memory.
pub struct Memcpy {
    buffer: Vec<u8>,
    start: usize,
    len: usize,
}

impl Memcpy {
    pub fn new(dtype: DataType) -> Memcpy {
        let (rows, cols) = shape(dtype);
        let len = (rows * cols * dtype.bits() / 8) as usize;
        assert_eq!(len % PAGE, 0, "whole pages");
        let buffer = vec![0x5Au8; 2 * len + PAGE];
        let start = buffer.as_ptr().align_offset(PAGE);
        Memcpy { buffer, start, len }
    }

    #[inline]
    pub fn run(&mut self) {
        let (src, dst) = self.halves();
        dst.copy_from_slice(black_box(src));
        black_box(&dst);
    }

    /// The source and destination, each `len` bytes on page boundaries.
    #[inline]
    fn halves(&mut self) -> (&[u8], &mut [u8]) {
        let (src, dst) = self.buffer[self.start..].split_at_mut(self.len);
        (src, &mut dst[..self.len])
    }
}

/// The floor of a kernel that computes in vector registers: the same copy as [`Memcpy`], but as
/// a loop of the widest vector loads and stores the CPU has (an XOR with a zero the compiler
/// cannot see, so that it does not become a call to memcpy). glibc's memcpy copies 64 KiB with
/// `rep movsb`, which some cores run faster than any loop of register stores; the gap between
/// the two baselines is then a property of the core, not of the interpreter.
pub struct RegisterCopy {
    copy: Memcpy,
    zero: u8,
}

impl RegisterCopy {
    pub fn new(dtype: DataType) -> RegisterCopy {
        RegisterCopy {
            copy: Memcpy::new(dtype),
            zero: black_box(0),
        }
    }

    #[inline]
    pub fn run(&mut self) {
        let zero = self.zero;
        let (src, dst) = self.copy.halves();
        xor_copy(dst, black_box(src), zero);
        black_box(&dst);
    }
}

/// `dst[i] = src[i] ^ zero`, with the widest vectors the CPU has.
fn xor_copy(dst: &mut [u8], src: &[u8], zero: u8) {
    #[inline(always)]
    fn body(dst: &mut [u8], src: &[u8], zero: u8) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = s ^ zero;
        }
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx512bw")]
        fn avx512(dst: &mut [u8], src: &[u8], zero: u8) {
            body(dst, src, zero)
        }
        #[target_feature(enable = "avx2")]
        fn avx2(dst: &mut [u8], src: &[u8], zero: u8) {
            body(dst, src, zero)
        }
        if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU has the features.
            return unsafe { avx512(dst, src, zero) };
        }
        if is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has the feature.
            return unsafe { avx2(dst, src, zero) };
        }
    }
    body(dst, src, zero)
}
