//! `pto-fuse` on synthetic kernels of 100 to 100 000 ops: saturation, DAG-aware extraction and
//! the rebuild of the function (`cargo bench -p ptoc-passes --bench fuse`).
//!
//! Two groups: `pto-fuse` measures wall time, as criterion always does; `pto-fuse-cpu` measures
//! the benchmark thread's own on-CPU time (Linux `/proc/thread-self/schedstat`, wall time
//! elsewhere), which stays meaningful on a loaded machine. The pass is single-threaded.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ptoc_ir::Function;
use ptoc_passes::fuse::{fuse_function, synth};
use std::hint::black_box;
use std::time::{Duration, Instant};

const SIZES: [usize; 4] = [100, 1_000, 10_000, 100_000];

/// This thread's on-CPU time so far, where the OS reports it.
fn thread_cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Benchmark `measure` (a `Bencher` routine over a kernel) on every size, as group `name`.
fn over_sizes(
    c: &mut Criterion,
    name: &str,
    measure: impl Fn(&mut criterion::Bencher<'_>, &Function),
) {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    for ops in SIZES {
        let kernel = synth::kernel(ops);
        group.throughput(Throughput::Elements(ops as u64));
        group.bench_with_input(BenchmarkId::from_parameter(ops), &kernel, &measure);
    }
    group.finish();
}

/// One run of the pass's work on `kernel`.
fn fuse_once(kernel: &Function) -> Option<usize> {
    fuse_function(black_box(kernel)).map(|(f, _)| f.ops.len())
}

fn fuse_wall(c: &mut Criterion) {
    over_sizes(c, "pto-fuse", |b, kernel| b.iter(|| fuse_once(kernel)));
}

fn fuse_cpu(c: &mut Criterion) {
    over_sizes(c, "pto-fuse-cpu", |b, kernel| {
        b.iter_custom(|iters| {
            let (cpu, wall) = (thread_cpu_time(), Instant::now());
            for _ in 0..iters {
                black_box(fuse_once(kernel));
            }
            match (cpu, thread_cpu_time()) {
                (Some(start), Some(end)) => end.saturating_sub(start),
                _ => wall.elapsed(),
            }
        })
    });
}

criterion_group!(benches, fuse_wall, fuse_cpu);
criterion_main!(benches);
