//! Interpreter throughput for TROWEXPANDMAX and TCOLEXPANDMIN at the largest tile a bundle can
//! allocate (64 KiB per PE, one PE), for FP32, FP16 and S8, next to a plain memcpy of the same
//! bytes and a register copy of them, the floor of a kernel computing in vector registers (the
//! bundles and the baselines: `common`). Each iteration runs one whole bundle and
//! unloads and drops its result, with no machine copied per iteration.
//! Run: `cargo bench -p ptoc-runtime --bench interp`; compare with `benches/numpy_baseline.py`.
//! On a shared (virtual) machine, timings differ by up to half between processes: pin it
//! (`taskset -c 1 cargo bench …`), run it a few times and compare each op with the memcpy of the
//! same process, or use `interp_paired`, which alternates the two.

mod common;

use common::{shape, Bundle, Memcpy, RegisterCopy, OPS, TYPES};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("interp");
    for (dtype, name) in TYPES {
        let (rows, cols) = shape(dtype);
        group.throughput(Throughput::Elements(u64::from(rows * cols)));
        for (mnemonic, axis_row) in OPS {
            let mut bundle = Bundle::new(mnemonic, axis_row, dtype);
            group.bench_function(format!("{mnemonic}/{name}"), |b| b.iter(|| bundle.run()));
        }
        let mut copy = Memcpy::new(dtype);
        group.bench_function(format!("memcpy/{name}"), |b| b.iter(|| copy.run()));
        let mut floor = RegisterCopy::new(dtype);
        group.bench_function(format!("register_copy/{name}"), |b| b.iter(|| floor.run()));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
