//! Compile time of a GM kernel with a 256-iteration loop (README, Kernels over global memory): pto-allocate's GM path
//! and the lowering to scalar blocks and bundles, through the driver. The kernel is built in
//! Rust (`ptoc_ir::gm_build`), so the timing excludes MLIR parsing.

use criterion::{criterion_group, criterion_main, Criterion};
use ptoc::ir::gm_build::GmBuilder;
use ptoc::ir::{Module, ScalarType};
use ptoc::{Driver, Options};

/// `acc = x[0]; for i in 0..256: { t = max(x[i], y[i]) + x[i]; out[i] = t; acc = max(acc, t) };
/// out[0] = acc` over 64-column f32 rows: three loads or ops, a store and a carried tile per
/// iteration.
fn kernel() -> Module {
    let mut b = GmBuilder::new("gm_loop");
    let x = b.memref("x", "memref<256x64xf32>");
    let y = b.memref("y", "memref<256x64xf32>");
    let out = b.memref("out", "memref<256x64xf32>");
    let n = b.scalar("n", ScalarType::Index);
    let (c0, c1) = (b.index(0), b.index(1));
    let first = b.load(x, c0, c0, "1x64xf32");
    let acc = b.for_loop(c0, n, c1, &[first], |b, i, acc| {
        let tx = b.load(x, i, c0, "1x64xf32");
        let ty = b.load(y, i, c0, "1x64xf32");
        let m = b.tile("TMAX", &[tx, ty], "1x64xf32");
        let t = b.tile("TADD", &[m, tx], "1x64xf32");
        b.store(t, out, i, c0);
        vec![b.tile("TMAX", &[acc[0], t], "1x64xf32")]
    });
    b.store(acc[0], out, c0, c0);
    Module {
        gm_kernels: vec![b.finish()],
        ..Module::default()
    }
}

fn bench(c: &mut Criterion) {
    let module = kernel();
    let driver = Driver::new(Options {
        pipeline: Some("pto-allocate".into()),
        ..Options::default()
    })
    .expect("options");
    c.bench_function("gm_compile_256_iteration_loop", |b| {
        b.iter(|| driver.compile_kernels(&module).expect("compiles"))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
