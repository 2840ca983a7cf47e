//! Interpreter throughput for TROWEXPANDMAX and TCOLEXPANDMIN at the largest tile a bundle can
//! allocate (64 KiB per PE, one PE), for FP32, FP16 and S8, next to a plain memcpy of the same
//! bytes. Each iteration runs one whole bundle (decode, checks, destination allocation, execution,
//! publication) on the loaded machine, then unloads and drops the result, which frees its register
//! for the next run: the same work as the numpy baseline, which allocates each result and frees
//! the previous one, with no machine copied per iteration.
//! Run: `cargo bench -p ptoc-runtime --bench interp`; compare with `benches/numpy_baseline.py`.
//! On a shared (virtual) machine, timings differ by up to half between processes: pin it
//! (`taskset -c 1 cargo bench …`), run it a few times and compare each op with the memcpy of the
//! same process.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ptoc_isa::encoding::{Dim, Iot, IotSources};
use ptoc_isa::{ops, DataType, Hand, Instruction, PeMask, SizeCode, TileReg};
use ptoc_runtime::{Machine, Tile};
use std::hint::black_box;

const TILE_BYTES: u32 = 64 * 1024;

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

const PAGE: usize = 4096;

/// The memcpy's source and destination, `len` bytes each (a whole number of pages), both
/// page-aligned in `buffer` (which holds `2 * len + PAGE` bytes). Two separate allocations would leave their distance to the
/// allocator, and a distance a few bytes past a page multiple sends glibc's `rep movsb` into a
/// 4K-aliasing slow path on some cores (measured 20x slower on an AMD EPYC with FSRM): the
/// baseline would then measure the allocator's placement instead of the memory.
fn page_apart(buffer: &mut [u8], len: usize) -> (&[u8], &mut [u8]) {
    assert_eq!(len % PAGE, 0, "whole pages");
    let start = buffer.as_ptr().align_offset(PAGE);
    let (src, rest) = buffer[start..].split_at_mut(len);
    (src, &mut rest[..len])
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

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("interp");
    for (dtype, name) in [
        (DataType::FP32, "fp32"),
        (DataType::FP16, "fp16"),
        (DataType::S8, "s8"),
    ] {
        let bytes = dtype.bits() / 8;
        // 64 KiB with 128 (FP32) or 256 (FP16, S8) columns.
        let cols = if bytes == 4 { 128 } else { 256 };
        let rows = TILE_BYTES / (cols * bytes);
        let elements = (rows * cols) as u64;
        group.throughput(Throughput::Elements(elements));
        for (mnemonic, axis_row) in [("TROWEXPANDMAX", true), ("TCOLEXPANDMIN", false)] {
            let mut m = Machine::new();
            let one_pe = PeMask::parse("1000").expect("mask");
            let full = tile(dtype, SizeCode::MAX, cols, (rows, cols), 1);
            let bcast = if axis_row {
                tile(
                    dtype,
                    SizeCode::smallest_for(rows, 1, dtype.bits()).expect("fits"),
                    1,
                    (rows, 1),
                    2,
                )
            } else {
                tile(
                    dtype,
                    SizeCode::smallest_for(1, cols, dtype.bits()).expect("fits"),
                    cols,
                    (1, cols),
                    2,
                )
            };
            m.load_with_mask(TileReg::new(0).expect("reg"), full, one_pe)
                .expect("load");
            m.load_with_mask(TileReg::new(1).expect("reg"), bcast, one_pe)
                .expect("load");
            let program = words(mnemonic, dtype, rows, cols);
            // The destination: the lowest free T register after the two sources.
            let dst = TileReg::new(2).expect("reg");
            group.bench_function(format!("{mnemonic}/{name}"), |b| {
                b.iter(|| {
                    m.run(black_box(&program)).expect("bundle runs");
                    m.unload(dst).expect("result")
                })
            });
        }
        let len = (elements * bytes as u64) as usize;
        let mut buffer = vec![0x5Au8; 2 * len + PAGE];
        let (src, dst) = page_apart(&mut buffer, len);
        group.bench_function(format!("memcpy/{name}"), |b| {
            b.iter(|| {
                dst.copy_from_slice(black_box(src));
                black_box(&dst);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
