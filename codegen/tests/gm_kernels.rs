//! GM kernels end to end without MLIR: built with `ptoc_ir::gm_build`, allocated by
//! `pto-allocate`'s GM path, lowered by `lower_gm_kernel`, executed by the interpreter, and
//! compared with values computed here by plain loops over f32 (add, max and min are exact per
//! element, so the comparison is bit for bit). Random kernels go through the whole default
//! pipeline and are compared with the project's reference evaluator (translation validation).

use ptoc_codegen::{lower_gm_kernel, Kernel};
use ptoc_ir::gm_build::GmBuilder;
use ptoc_ir::{ArithOp, Diagnostic, GmKernel, Module, ScalarType, Type, ValueId};
use ptoc_isa::ops::{Axis, OpInfo, OpKind, Reduction, CATALOGUE};
use ptoc_isa::profile::NamingModel;
use ptoc_isa::{DataType, FaultClass, PeMask};
use ptoc_passes::allocate_gm;
use ptoc_passes::{Options, PassContext, PassManager};
use ptoc_runtime::{evaluate_gm, Fault, GmArg, Machine};

fn compile(mut k: GmKernel, naming: NamingModel) -> Result<Kernel, Vec<String>> {
    allocate_gm(&mut k, PeMask::ALL_PES, naming).map_err(|e| {
        e.iter()
            .map(|d| format!("{}: {}", d.loc, d.message))
            .collect::<Vec<_>>()
    })?;
    lower_gm_kernel(&k).map_err(|e| e.iter().map(|d| d.message.clone()).collect())
}

/// A memref argument's contents, or a scalar argument's value.
enum Arg {
    F32(Vec<f32>),
    Scalar(u64),
}

/// Run `kernel` with `args` in position order; the stored memrefs' contents, or the fault.
/// `tamper` may change a GPR after the loader set it (to misplace a base).
fn run_with(
    kernel: &Kernel,
    args: &[Arg],
    tamper: impl FnOnce(&mut Machine),
) -> Result<Vec<Vec<f32>>, Fault> {
    let stored = run_bits_with(kernel, &gm_args(args), tamper)?;
    Ok(stored
        .into_iter()
        .map(|(_, bits)| bits.into_iter().map(|b| f32::from_bits(b as u32)).collect())
        .collect())
}

fn run(kernel: &Kernel, args: &[Arg]) -> Result<Vec<Vec<f32>>, Fault> {
    run_with(kernel, args, |_| {})
}

/// Small integers and halves: exact in f32, so sums and maxima are exact.
fn data(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let h = (i as u32)
                .wrapping_mul(2_654_435_761)
                .wrapping_add(seed * 40_503)
                >> 20;
            (h % 200) as f32 / 2.0 - 50.0
        })
        .collect()
}

/// `for i in 0..n: out[i, :] = max(x[i, :], y[i, :]) + x[i, :]` over 16 columns.
fn rows_kernel(rows: u32) -> GmKernel {
    let mut b = GmBuilder::new("rows");
    let ty = format!("memref<{rows}x16xf32>");
    let x = b.memref("x", &ty);
    let y = b.memref("y", &ty);
    let out = b.memref("out", &ty);
    let n = b.scalar("n", ScalarType::Index);
    let (c0, c1) = (b.index(0), b.index(1));
    b.for_loop(c0, n, c1, &[], |b, i, _| {
        let tx = b.load(x, i, c0, "1x16xf32");
        let ty = b.load(y, i, c0, "1x16xf32");
        let m = b.tile("TMAX", &[tx, ty], "1x16xf32");
        let s = b.tile("TADD", &[m, tx], "1x16xf32");
        b.store(s, out, i, c0);
        vec![]
    });
    b.finish()
}

fn rows_reference(x: &[f32], y: &[f32], n: usize, rows: usize) -> Vec<f32> {
    let mut out = vec![0.0; rows * 16];
    for i in 0..n.min(rows) {
        for c in 0..16 {
            let k = i * 16 + c;
            out[k] = x[k].max(y[k]) + x[k];
        }
    }
    out
}

#[test]
fn a_256_iteration_loop_runs_thousands_of_tiles() {
    let k = compile(rows_kernel(256), NamingModel::Queue).unwrap();
    let (x, y) = (data(256 * 16, 1), data(256 * 16, 2));
    for n in [256usize, 255, 1] {
        let got = run(
            &k,
            &[
                Arg::F32(x.clone()),
                Arg::F32(y.clone()),
                Arg::F32(vec![0.0; 256 * 16]),
                Arg::Scalar(n as u64),
            ],
        )
        .unwrap();
        assert_eq!(got, vec![rows_reference(&x, &y, n, 256)], "n = {n}");
    }
}

#[test]
fn a_zero_trip_loop_runs_zero_times() {
    let k = compile(rows_kernel(4), NamingModel::Queue).unwrap();
    let (x, y) = (data(64, 3), data(64, 4));
    let sentinel = vec![7.5; 64];
    for n in [0u64, (-3i64) as u64] {
        let got = run(
            &k,
            &[
                Arg::F32(x.clone()),
                Arg::F32(y.clone()),
                Arg::F32(sentinel.clone()),
                Arg::Scalar(n),
            ],
        )
        .unwrap();
        assert_eq!(got, vec![sentinel.clone()], "n = {}", n as i64);
    }
}

#[test]
fn a_loop_past_the_memref_faults_precisely_with_the_address() {
    let k = compile(rows_kernel(4), NamingModel::Queue).unwrap();
    let args = [
        Arg::F32(data(64, 5)),
        Arg::F32(data(64, 6)),
        Arg::F32(vec![0.0; 64]),
        Arg::Scalar(5),
    ];
    let f = run(&k, &args).unwrap_err();
    assert_eq!(f.class, FaultClass::DataPage, "{f}");
    let x_base = {
        let mut m = Machine::new();
        m.map_gm(vec![0; 256])
    };
    // Row 4 of x: 4 rows of 64 bytes past its base.
    assert_eq!(f.address, Some(x_base + 4 * 64), "{f}");
}

#[test]
fn a_misaligned_base_faults_at_its_first_element() {
    let k = compile(rows_kernel(4), NamingModel::Queue).unwrap();
    let gpr = k.meta.memrefs[0].gpr as usize;
    let args = [
        Arg::F32(data(64, 5)),
        Arg::F32(data(64, 6)),
        Arg::F32(vec![0.0; 64]),
        Arg::Scalar(2),
    ];
    let mut base = 0;
    let f = run_with(&k, &args, |m| {
        base = m.gpr(gpr) + 2;
        m.set_gpr(gpr, base);
    })
    .unwrap_err();
    assert_eq!(f.class, FaultClass::DataAlignment, "{f}");
    assert_eq!(f.address, Some(base), "{f}");
}

/// `acc = x[0]; for i in 1..n: acc = max(acc, x[i]); out[0] = acc` over 8-column rows.
fn running_max(rows: u32) -> GmKernel {
    let mut b = GmBuilder::new("running_max");
    let x = b.memref("x", &format!("memref<{rows}x8xf32>"));
    let out = b.memref("out", "memref<1x8xf32>");
    let n = b.scalar("n", ScalarType::Index);
    let (c0, c1) = (b.index(0), b.index(1));
    let first = b.load(x, c0, c0, "1x8xf32");
    let r = b.for_loop(c1, n, c1, &[first], |b, i, acc| {
        let t = b.load(x, i, c0, "1x8xf32");
        vec![b.tile("TMAX", &[acc[0], t], "1x8xf32")]
    });
    b.store(r[0], out, c0, c0);
    b.finish()
}

#[test]
fn a_loop_carried_tile_keeps_a_running_max() {
    let rows = 40;
    let k = compile(running_max(rows), NamingModel::Queue).unwrap();
    let x = data(rows as usize * 8, 9);
    for n in [40usize, 17, 2, 1, 0] {
        let mut want = x[..8].to_vec();
        for i in 1..n {
            for c in 0..8 {
                want[c] = want[c].max(x[i * 8 + c]);
            }
        }
        let got = run(
            &k,
            &[
                Arg::F32(x.clone()),
                Arg::F32(vec![0.0; 8]),
                Arg::Scalar(n as u64),
            ],
        )
        .unwrap();
        assert_eq!(got, vec![want], "n = {n}");
    }
}

/// Nested loops with an outer tile read in the inner body and a scalar carried by the outer loop:
/// `for i in 0..R: { b = x[i, 0:8]; col = 0; for j in 0..C/8: { out[i, col:col+8] = y[i, col..] + b;
/// col += 8 } }`.
#[test]
fn nested_loops_read_outer_tiles_and_carry_scalars() {
    let (rows, cols) = (6u32, 32u32);
    let mut b = GmBuilder::new("nested");
    let ty = format!("memref<{rows}x{cols}xf32>");
    let x = b.memref("x", &ty);
    let y = b.memref("y", &ty);
    let out = b.memref("out", &ty);
    let (c0, c1, c8) = (b.index(0), b.index(1), b.index(8));
    let nr = b.index(rows as i64);
    let nc = b.index((cols / 8) as i64);
    b.for_loop(c0, nr, c1, &[], |b, i, _| {
        let bias = b.load(x, i, c0, "1x8xf32");
        b.for_loop(c0, nc, c1, &[c0], |b, _j, carried| {
            let col = carried[0];
            let t = b.load(y, i, col, "1x8xf32");
            let s = b.tile("TADD", &[t, bias], "1x8xf32");
            b.store(s, out, i, col);
            vec![b.arith(ArithOp::AddI, col, c8)]
        });
        vec![]
    });
    let k = compile(b.finish(), NamingModel::Queue).unwrap();
    let n = (rows * cols) as usize;
    let (xv, yv) = (data(n, 11), data(n, 12));
    let mut want = vec![0.0; n];
    for i in 0..rows as usize {
        for c in 0..cols as usize {
            let k = i * cols as usize + c;
            want[k] = yv[k] + xv[i * cols as usize + c % 8];
        }
    }
    let got = run(&k, &[Arg::F32(xv), Arg::F32(yv), Arg::F32(vec![0.0; n])]).unwrap();
    assert_eq!(got, vec![want]);
}

/// Under absolute naming a loop may store tiles defined before it but not produce new ones.
#[test]
fn absolute_naming_allows_loops_that_produce_no_tile() {
    let mut b = GmBuilder::new("broadcast_row");
    let x = b.memref("x", "memref<1x16xf32>");
    let out = b.memref("out", "memref<8x16xf32>");
    let n = b.scalar("n", ScalarType::Index);
    let (c0, c1) = (b.index(0), b.index(1));
    let t = b.load(x, c0, c0, "1x16xf32");
    let d = b.tile("TADD", &[t, t], "1x16xf32");
    b.for_loop(c0, n, c1, &[], |b, i, _| {
        b.store(d, out, i, c0);
        vec![]
    });
    let kernel = b.finish();
    let xv = data(16, 13);
    let row: Vec<f32> = xv.iter().map(|v| v + v).collect();
    for naming in [NamingModel::AbsoluteNoFree, NamingModel::Queue] {
        let k = compile(kernel.clone(), naming).unwrap();
        assert_eq!(k.meta.profile, naming);
        let got = run(
            &k,
            &[
                Arg::F32(xv.clone()),
                Arg::F32(vec![0.0; 128]),
                Arg::Scalar(5),
            ],
        )
        .unwrap();
        let mut want = row.repeat(5);
        want.resize(128, 0.0);
        assert_eq!(got, vec![want], "{naming:?}");
    }
    // A loop that loads is refused under absolute naming, at the load.
    let err = compile(rows_kernel(4), NamingModel::AbsoluteNoFree).unwrap_err();
    assert!(
        err[0].starts_with("rows.mlir:5:3: this op writes a tile inside a loop"),
        "{err:?}"
    );
}

/// A kernel whose live tiles cannot fit is a located error, not a fault at run time.
#[test]
fn capacity_is_proved_or_refused_at_the_op() {
    // Five 64 KiB-per-PE tiles alive at once: 5 × 64 KiB × 4 PEs.
    let mut b = GmBuilder::new("big");
    let x = b.memref("x", "memref<128x128xf32>");
    let out = b.memref("out", "memref<128x128xf32>");
    let c0 = b.index(0);
    let t = b.load(x, c0, c0, "128x128xf32");
    let u = b.tile("TADD", &[t, t], "128x128xf32");
    b.store(u, out, c0, c0);
    let err = compile(b.finish(), NamingModel::Queue).unwrap_err();
    assert!(
        err[0].starts_with("big.mlir:4:3: the tiles that may still be allocated here need"),
        "{err:?}"
    );
    assert!(
        err[0].contains("[core-capacity, Fault_TileAllocation]"),
        "{err:?}"
    );
}

/// The same arguments for the reference evaluator (f32 elements as bit patterns).
fn gm_args(args: &[Arg]) -> Vec<GmArg> {
    args.iter()
        .map(|a| match a {
            Arg::F32(v) => GmArg::MemRef(v.iter().map(|x| u64::from(x.to_bits())).collect()),
            Arg::Scalar(s) => GmArg::Scalar(*s),
        })
        .collect()
}

/// What the project's reference evaluator (`runtime/src/reference_gm.rs`) says `k` stores, per
/// stored memref in argument order.
fn reference(k: &GmKernel, args: &[Arg]) -> Vec<Vec<f32>> {
    let eval = evaluate_gm(k, &gm_args(args)).unwrap();
    let stored = k.stored_memrefs();
    k.args
        .iter()
        .zip(eval.memrefs)
        .filter(|(a, _)| stored.contains(a))
        .map(|(_, m)| {
            m.unwrap()
                .into_iter()
                .map(|b| f32::from_bits(b as u32))
                .collect()
        })
        .collect()
}

/// Run `kernel` (f32 memrefs) on the interpreter with `args` as bit patterns: each stored
/// memref's argument position and final elements, or the fault.
fn run_bits(kernel: &Kernel, args: &[GmArg]) -> Result<Vec<(usize, Vec<u64>)>, Fault> {
    run_bits_with(kernel, args, |_| {})
}

/// [`run_bits`], with `tamper` changing the machine after the loader set the GPRs.
fn run_bits_with(
    kernel: &Kernel,
    args: &[GmArg],
    tamper: impl FnOnce(&mut Machine),
) -> Result<Vec<(usize, Vec<u64>)>, Fault> {
    let mut m = Machine::with_naming(kernel.meta.profile);
    let mut bases = Vec::new();
    for mr in &kernel.meta.memrefs {
        let GmArg::MemRef(values) = &args[mr.position] else {
            panic!("memref {} needs values", mr.name)
        };
        assert_eq!(values.len(), (mr.rows * mr.cols) as usize);
        let bytes = values
            .iter()
            .flat_map(|&v| (v as u32).to_le_bytes())
            .collect();
        let base = m.map_gm(bytes);
        m.set_gpr(mr.gpr as usize, base);
        bases.push(base);
    }
    for s in &kernel.meta.scalars {
        let GmArg::Scalar(v) = &args[s.position] else {
            panic!("scalar {} needs a value", s.name)
        };
        m.set_gpr(s.gpr as usize, *v);
    }
    tamper(&mut m);
    m.run(&kernel.words())?;
    Ok(kernel
        .meta
        .memrefs
        .iter()
        .zip(&bases)
        .filter(|(mr, _)| mr.stored)
        .map(|(mr, &b)| {
            let elements = m.gm_buffer(b).unwrap().chunks_exact(4);
            let bits = elements.map(|c| u64::from(u32::from_le_bytes(c.try_into().unwrap())));
            (mr.position, bits.collect())
        })
        .collect())
}

/// `kernel` through the default pipeline (pto-verify, pto-infer-shapes, pto-fuse, pto-allocate)
/// under `naming`, then lowered: what `ptoc` compiles, without MLIR.
fn compile_pipeline(kernel: &GmKernel, naming: NamingModel) -> Result<Kernel, Vec<Diagnostic>> {
    let options = Options {
        target_profile: naming,
        ..Options::default()
    };
    let mut module = Module {
        functions: Vec::new(),
        gm_kernels: vec![kernel.clone()],
        ..Default::default()
    };
    let pm = PassManager::default_pipeline(&options);
    pm.run(
        &mut module,
        &mut PassContext::new(options),
        &mut |_, _, _| {},
    )?;
    lower_gm_kernel(&module.gm_kernels[0])
}

/// The kernel `ptoc verify` checks against: verified and with shapes inferred, not optimised.
fn reference_kernel(kernel: &GmKernel) -> GmKernel {
    let mut module = Module {
        functions: Vec::new(),
        gm_kernels: vec![kernel.clone()],
        ..Default::default()
    };
    let pm = PassManager::parse("pto-verify,pto-infer-shapes").unwrap();
    let mut ctx = PassContext::new(Options::default());
    if let Err(e) = pm.run(&mut module, &mut ctx, &mut |_, _, _| {}) {
        panic!("pto-verify refuses a generated kernel: {e:?}");
    }
    module.gm_kernels.remove(0)
}

/// A xorshift stream: the random kernel and its inputs are a function of the seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len() as u64) as usize]
    }
    /// In `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    /// An f32 bit pattern: mostly small exact values, else random bits or an edge value (±0,
    /// ±inf, NaNs, subnormals, the extremes).
    fn f32_bits(&mut self) -> u64 {
        const EDGES: [u32; 10] = [
            0x0000_0000,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_1234,
            0x0000_0001,
            0x807f_ffff,
            0x7f7f_ffff,
            0xff7f_ffff,
        ];
        let bits = match self.below(8) {
            0 => self.pick(&EDGES),
            1 => self.below(1 << 32) as u32,
            _ => (self.below(200) as f32 / 2.0 - 50.0).to_bits(),
        };
        u64::from(bits)
    }
}

/// The values in scope while generating a block: tiles by shape, `index` values with the range
/// they take over every execution (`lo..=hi`), and f32 scalars.
#[derive(Clone, Default)]
struct Scope {
    full: Vec<ValueId>,
    row_vecs: Vec<ValueId>,
    col_vecs: Vec<ValueId>,
    /// Transposes of full tiles (a TTRANS of one gives a full tile back).
    trans: Vec<ValueId>,
    index: Vec<(ValueId, i64, i64)>,
    floats: Vec<ValueId>,
}

/// What every block of a random kernel shares.
struct Shapes {
    /// The full tile type, its per-row and per-column vectors.
    full: String,
    row_vec: String,
    col_vec: String,
    /// A full tile's transpose: valid `vc×vr` in the fewest columns holding `vr`.
    trans: String,
    /// The memref's rows and columns, and the tile's valid rows and columns.
    dims: (i64, i64, i64, i64),
    /// `x`, `y` (read), `out` (written), `n` (an index argument, value `n_value`).
    mems: [ValueId; 3],
    n: ValueId,
    n_value: i64,
}

/// The ops a random kernel draws from: every catalogue op that takes f32 and whose shapes the
/// generator knows.
fn tile_ops() -> Vec<&'static OpInfo> {
    CATALOGUE
        .iter()
        .filter(|op| op.accepts(DataType::FP32))
        .filter(|op| match op.kind {
            OpKind::Reduce(_, r) => !matches!(r, Reduction::ArgMax | Reduction::ArgMin),
            OpKind::Expand(..)
            | OpKind::Binary(_)
            | OpKind::Unary(_)
            | OpKind::Move
            | OpKind::Transpose
            | OpKind::TileScalar(_)
            | OpKind::FillScalar => true,
            // Predicates and other element types: the function kernels' random tests.
            OpKind::Compare | OpKind::Select | OpKind::Convert => false,
            // Matrix ops need CUBE-layout operands.
            OpKind::Matmul { .. } => false,
        })
        .collect()
}

/// An `index` arithmetic op on values in scope whose range the generator can follow (operands
/// non-negative, divisors positive constants, shifts by small constants); its result joins the
/// scope.
fn index_arith(b: &mut GmBuilder, g: &mut Rng, scope: &mut Scope) {
    let nonneg: Vec<_> = scope.index.iter().copied().filter(|v| v.1 >= 0).collect();
    if nonneg.is_empty() {
        return;
    }
    let (a, alo, ahi) = g.pick(&nonneg);
    let (c, clo, chi) = g.pick(&nonneg);
    let k = g.range(1, 4);
    let kv = index_const(b, scope, k);
    let (op, other, lo, hi) = match g.below(12) {
        0 => (ArithOp::AddI, c, alo + clo, ahi + chi),
        1 => (ArithOp::SubI, c, alo - chi, ahi - clo),
        2 => (ArithOp::MulI, c, alo * clo, ahi * chi),
        3 => (ArithOp::DivUI, kv, alo / k, ahi / k),
        4 => (ArithOp::DivSI, kv, alo / k, ahi / k),
        5 => (ArithOp::RemUI, kv, 0, ahi.min(k - 1)),
        6 => (ArithOp::RemSI, kv, 0, ahi.min(k - 1)),
        7 => (ArithOp::MinSI, c, alo.min(clo), ahi.min(chi)),
        8 => (ArithOp::MaxUI, c, alo.max(clo), ahi.max(chi)),
        9 => (ArithOp::AndI, c, 0, ahi.min(chi)),
        10 => (ArithOp::ShLI, kv, alo << k, ahi << k),
        _ => (ArithOp::ShRUI, kv, alo >> k, ahi >> k),
    };
    scope.index.push((b.arith(op, a, other), lo, hi));
}

/// The `index` value `c`: one in scope that is exactly `c` on every execution, else a new
/// constant (few new values keep the scalars alive at once within the GPRs).
fn index_const(b: &mut GmBuilder, scope: &mut Scope, c: i64) -> ValueId {
    if let Some(v) = scope.index.iter().find(|v| (v.1, v.2) == (c, c)) {
        return v.0;
    }
    let v = b.index(c);
    scope.index.push((v, c, c));
    v
}

/// An `index` offset in `0..=max` on every execution: a value in scope that fits (often made by
/// a fresh arith op), else a constant.
fn offset(b: &mut GmBuilder, g: &mut Rng, scope: &mut Scope, max: i64) -> ValueId {
    if g.one_in(3) {
        index_arith(b, g, scope);
    }
    let fits: Vec<_> = scope
        .index
        .iter()
        .filter(|v| v.1 >= 0 && v.2 <= max)
        .map(|v| v.0)
        .collect();
    if fits.is_empty() || g.one_in(4) {
        let c = g.range(0, max);
        return index_const(b, scope, c);
    }
    g.pick(&fits)
}

/// Random statements into the open block: loads and stores at in-bounds offsets, catalogue tile
/// ops, tile-scalar ops, index arithmetic, f32 constants, and loops (to depth 3; constant or
/// `n` bounds, zero-trip ones included) carrying tiles of every shape and scalars.
fn statements(b: &mut GmBuilder, g: &mut Rng, scope: &mut Scope, shapes: &Shapes, depth: u32) {
    let (rows, cols, vr, vc) = shapes.dims;
    let [x, y, out] = shapes.mems;
    let ops = tile_ops();
    for _ in 0..g.range(if depth == 0 { 4 } else { 1 }, 12) {
        match g.below(if depth < 3 { 9 } else { 8 }) {
            0 | 1 => {
                let r = offset(b, g, scope, rows - vr);
                let c = offset(b, g, scope, cols - vc);
                let t = b.load(g.pick(&[x, y]), r, c, &shapes.full);
                scope.full.push(t);
            }
            2 | 3 => {
                let op = g.pick(&ops);
                let m = op.mnemonic;
                let float = |g: &mut Rng, scope: &Scope| g.pick(&scope.floats);
                let (srcs, ty, into) = match op.kind {
                    OpKind::Reduce(axis, _) if !scope.full.is_empty() => {
                        let src = vec![g.pick(&scope.full)];
                        match axis {
                            Axis::Row => (src, &shapes.row_vec, &mut scope.row_vecs),
                            Axis::Col => (src, &shapes.col_vec, &mut scope.col_vecs),
                        }
                    }
                    OpKind::Expand(axis, with) => {
                        let vecs = match axis {
                            Axis::Row => &scope.row_vecs,
                            Axis::Col => &scope.col_vecs,
                        };
                        if vecs.is_empty() || (with.is_some() && scope.full.is_empty()) {
                            continue;
                        }
                        let v = g.pick(vecs);
                        let srcs = match with {
                            None => vec![v],
                            Some(_) => vec![g.pick(&scope.full), v],
                        };
                        (srcs, &shapes.full, &mut scope.full)
                    }
                    OpKind::Binary(_) if !scope.full.is_empty() => {
                        let srcs = vec![g.pick(&scope.full), g.pick(&scope.full)];
                        (srcs, &shapes.full, &mut scope.full)
                    }
                    OpKind::Unary(_) | OpKind::Move if !scope.full.is_empty() => {
                        (vec![g.pick(&scope.full)], &shapes.full, &mut scope.full)
                    }
                    OpKind::TileScalar(_) if !scope.full.is_empty() => {
                        let srcs = vec![g.pick(&scope.full), float(g, scope)];
                        (srcs, &shapes.full, &mut scope.full)
                    }
                    OpKind::FillScalar => (vec![float(g, scope)], &shapes.full, &mut scope.full),
                    // A full tile's transpose, or a transpose's: a full tile again.
                    OpKind::Transpose if !scope.trans.is_empty() && g.one_in(2) => {
                        (vec![g.pick(&scope.trans)], &shapes.full, &mut scope.full)
                    }
                    OpKind::Transpose if !scope.full.is_empty() => {
                        (vec![g.pick(&scope.full)], &shapes.trans, &mut scope.trans)
                    }
                    OpKind::Reduce(..)
                    | OpKind::Binary(_)
                    | OpKind::Unary(_)
                    | OpKind::Move
                    | OpKind::Transpose
                    | OpKind::TileScalar(_)
                    | OpKind::Compare
                    | OpKind::Select
                    | OpKind::Convert
                    | OpKind::Matmul { .. } => continue,
                };
                into.push(b.tile(m, &srcs, ty));
            }
            4 if !scope.full.is_empty() => {
                // Mostly full tiles; vectors too (a column of `vr` rows, a row of `vc` columns).
                let (t, h, w) = match g.below(4) {
                    0 if !scope.row_vecs.is_empty() => (g.pick(&scope.row_vecs), vr, 1),
                    1 if !scope.col_vecs.is_empty() => (g.pick(&scope.col_vecs), 1, vc),
                    _ => (g.pick(&scope.full), vr, vc),
                };
                let r = offset(b, g, scope, rows - h);
                let c = offset(b, g, scope, cols - w);
                b.store(t, out, r, c);
            }
            5 => index_arith(b, g, scope),
            6 => {
                let bits = g.f32_bits();
                let v = b.constant(ScalarType::Element(DataType::FP32), bits);
                scope.floats.push(v);
            }
            7 => {} // an empty statement keeps some blocks short
            8 => loop_statement(b, g, scope, shapes, depth),
            _ => {}
        }
    }
}

/// A random `scf.for` at `depth`: rows `lb..ub` by `step` with `ub ≤ rows - vr + 1` or `n`, so an
/// induction variable used as a row offset stays in bounds; up to three carried values of any
/// kind (an index carried within `0..=rows - vr`, yielding a value in that range).
fn loop_statement(b: &mut GmBuilder, g: &mut Rng, scope: &mut Scope, shapes: &Shapes, depth: u32) {
    let (rows, _, vr, _) = shapes.dims;
    let max = rows - vr;
    let lb_value = if g.one_in(2) { 0 } else { g.range(0, max + 1) };
    let lb = index_const(b, scope, lb_value);
    let (ub, ub_value) = if g.one_in(3) {
        (shapes.n, shapes.n_value)
    } else {
        let v = g.range(0, max + 1);
        (index_const(b, scope, v), v)
    };
    let step_value = g.range(1, 3);
    let step = index_const(b, scope, step_value);
    let trips = (ub_value - lb_value + step_value - 1).max(0) / step_value;
    let iv_range = (lb_value, lb_value + (trips - 1).max(0) * step_value);
    #[derive(Clone, Copy)]
    enum Kind {
        Full,
        RowVec,
        ColVec,
        Index,
        Float,
    }
    let mut kinds = Vec::new();
    let mut inits = Vec::new();
    for _ in 0..g.below(4) {
        let (kind, from): (Kind, Vec<ValueId>) = match g.below(5) {
            0 => (Kind::Full, scope.full.clone()),
            1 => (Kind::RowVec, scope.row_vecs.clone()),
            2 => (Kind::ColVec, scope.col_vecs.clone()),
            3 => {
                let fits = scope.index.iter().filter(|v| v.1 >= 0 && v.2 <= max);
                (Kind::Index, fits.map(|v| v.0).collect())
            }
            _ => (Kind::Float, scope.floats.clone()),
        };
        if !from.is_empty() {
            kinds.push(kind);
            inits.push(g.pick(&from));
        }
    }
    let results = b.for_loop(lb, ub, step, &inits, |b, iv, carried| {
        let mut inner = scope.clone();
        inner.index.push((iv, iv_range.0, iv_range.1));
        for (&kind, &v) in kinds.iter().zip(carried) {
            match kind {
                Kind::Full => inner.full.push(v),
                Kind::RowVec => inner.row_vecs.push(v),
                Kind::ColVec => inner.col_vecs.push(v),
                Kind::Index => inner.index.push((v, 0, max)),
                Kind::Float => inner.floats.push(v),
            }
        }
        statements(b, g, &mut inner, shapes, depth + 1);
        kinds
            .iter()
            .map(|kind| match kind {
                Kind::Full => g.pick(&inner.full),
                Kind::RowVec => g.pick(&inner.row_vecs),
                Kind::ColVec => g.pick(&inner.col_vecs),
                Kind::Index => {
                    let fits = inner.index.iter().filter(|v| v.1 >= 0 && v.2 <= max);
                    g.pick(&fits.map(|v| v.0).collect::<Vec<_>>())
                }
                Kind::Float => g.pick(&inner.floats),
            })
            .collect()
    });
    for (kind, r) in kinds.into_iter().zip(results) {
        match kind {
            Kind::Full => scope.full.push(r),
            Kind::RowVec => scope.row_vecs.push(r),
            Kind::ColVec => scope.col_vecs.push(r),
            Kind::Index => scope.index.push((r, 0, max)),
            Kind::Float => scope.floats.push(r),
        }
    }
}

/// A random GM kernel `random(x, y, out: memref<R×C×f32>, n: index, alpha: f32)` and its `n`:
/// tiles of one random shape (a partial valid region three times in ten), statements from
/// [`statements`], and a final store of up to two full tiles.
fn random_kernel(g: &mut Rng) -> (GmKernel, i64) {
    let (th, tw) = (g.range(1, 4), g.pick(&[8i64, 16]));
    let rows = g.range(th, 12);
    let cols = *[8i64, 16, 32]
        .iter()
        .filter(|&&c| c >= tw)
        .nth(g.below(2) as usize)
        .unwrap_or(&32);
    let (vr, vc) = if g.one_in(3) {
        (g.range(1, th), g.range(1, tw))
    } else {
        (th, tw)
    };
    let ty = |r: i64, c: i64, v: (i64, i64)| {
        if v == (r, c) {
            format!("{r}x{c}xf32")
        } else {
            format!("{r}x{c}xf32, valid={}x{}", v.0, v.1)
        }
    };
    let mut b = GmBuilder::new("random");
    let mty = format!("memref<{rows}x{cols}xf32>");
    let mems = [
        b.memref("x", &mty),
        b.memref("y", &mty),
        b.memref("out", &mty),
    ];
    let n = b.scalar("n", ScalarType::Index);
    let alpha = b.scalar("alpha", ScalarType::Element(DataType::FP32));
    let n_value = g.range(0, rows - vr + 2);
    let shapes = Shapes {
        full: ty(th, tw, (vr, vc)),
        row_vec: ty(th, 1, (vr, 1)),
        col_vec: ty(1, tw, (1, vc)),
        trans: ty(vc, (vr as u64).next_power_of_two() as i64, (vc, vr)),
        dims: (rows, cols, vr, vc),
        mems,
        n,
        n_value,
    };
    let mut scope = Scope {
        floats: vec![alpha],
        ..Scope::default()
    };
    statements(&mut b, g, &mut scope, &shapes, 0);
    for _ in 0..g.below(3).min(scope.full.len() as u64) {
        let t = g.pick(&scope.full);
        let r = offset(&mut b, g, &mut scope, rows - vr);
        let c = offset(&mut b, g, &mut scope, cols - vc);
        b.store(t, mems[2], r, c);
    }
    (b.finish(), n_value)
}

/// Translation validation over random GM kernels: each compiled by the default pipeline under
/// both target profiles and run on the interpreter must store, bit for bit, what the project's
/// reference evaluator (`evaluate_gm`, on the verified, unoptimised kernel) stores, on random
/// inputs (edge values included). A kernel the compiler refuses must be refused with located
/// errors; under queue naming only for capacity (every generated access is in bounds), under
/// absolute naming for what that profile cannot name in a loop. Returns whether the kernel
/// compiled under each profile.
fn validate(seed: u64) -> [bool; 2] {
    let mut g = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let (kernel, n) = random_kernel(&mut g);
    let source = reference_kernel(&kernel);
    let inputs: Vec<Vec<GmArg>> = (0..2)
        .map(|_| {
            source
                .args
                .iter()
                .map(|&a| match source.ty(a) {
                    Type::MemRef(m) => {
                        GmArg::MemRef((0..m.rows * m.cols).map(|_| g.f32_bits()).collect())
                    }
                    Type::Scalar(ScalarType::Index) => GmArg::Scalar(n as u64),
                    Type::Scalar(_) => GmArg::Scalar(g.f32_bits()),
                    Type::Tile(_) => unreachable!("the generator takes no tile argument"),
                })
                .collect()
        })
        .collect();
    let mut compiled = [false; 2];
    for (slot, naming) in [NamingModel::Queue, NamingModel::AbsoluteNoFree]
        .into_iter()
        .enumerate()
    {
        let k = match compile_pipeline(&kernel, naming) {
            Ok(k) => k,
            Err(errors) => {
                for e in &errors {
                    assert!(
                        e.loc.file.as_deref() == Some("random.mlir") && e.loc.line > 1,
                        "seed {seed} {naming:?}: unlocated error {e:?}"
                    );
                    // Capacity (tiles, or GPRs for the scalars alive at once) under both.
                    let capacity = [
                        "[core-capacity, Fault_TileAllocation]",
                        "general-purpose registers",
                    ];
                    let allowed: &[&str] = match naming {
                        NamingModel::Queue => &capacity,
                        _ => &[
                            capacity[0],
                            capacity[1],
                            "inside a loop",
                            "yielded unchanged",
                            "tile registers",
                        ],
                    };
                    assert!(
                        allowed.iter().any(|a| e.message.contains(a)),
                        "seed {seed} {naming:?}: {}: {}",
                        e.loc,
                        e.message
                    );
                }
                continue;
            }
        };
        compiled[slot] = true;
        for args in &inputs {
            let want = evaluate_gm(&source, args)
                .unwrap_or_else(|e| panic!("seed {seed}: the reference refuses: {e}"));
            let got = run_bits(&k, args)
                .unwrap_or_else(|f| panic!("seed {seed} {naming:?}: the kernel faults: {f}"));
            let stored = source.stored_memrefs();
            let want_stored: Vec<(usize, Vec<u64>)> = (source.args.iter().enumerate())
                .filter(|(_, a)| stored.contains(a))
                .map(|(i, _)| (i, want.memrefs[i].clone().unwrap()))
                .collect();
            assert_eq!(got.len(), want_stored.len(), "seed {seed} {naming:?}");
            for ((pos, got), (_, want)) in got.iter().zip(&want_stored) {
                if let Some(e) = (0..want.len()).find(|&e| got[e] != want[e]) {
                    panic!(
                        "seed {seed} {naming:?}: memref #{pos} element {e}: compiled {:#x}, \
                         reference {:#x}",
                        got[e], want[e]
                    );
                }
            }
        }
        if naming == NamingModel::Queue {
            // The printed assembly (`--emit=asm`) assembles back to the same words and metadata.
            let text = ptoc_codegen::print_asm(std::slice::from_ref(&k));
            let back = ptoc_codegen::assemble(&text, "k.s").unwrap();
            assert_eq!((back[0].words(), &back[0].meta), (k.words(), &k.meta));
        }
    }
    compiled
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(768))]
    #[test]
    fn random_gm_kernels_match_the_reference_evaluator(seed in proptest::prelude::any::<u64>()) {
        validate(seed);
    }
}

/// The generator's kernels compile: under queue naming at least nine in ten (over seeds 0..400,
/// 395 compile: constant loop bounds and steps are immediates, and scalars are remade at their
/// uses when they outrun the GPRs), under absolute naming the ones whose loops write no tile (so
/// both profiles are really exercised), over fixed seeds.
#[test]
fn random_gm_kernels_mostly_compile_under_both_profiles() {
    let seeds = 0..48u64;
    let total = seeds.clone().count();
    let counts = seeds.map(validate).fold([0usize; 2], |mut c, ok| {
        c[0] += ok[0] as usize;
        c[1] += ok[1] as usize;
        c
    });
    // Queue naming refuses only for capacity: the GPRs of deep loop nests that carry scalars.
    assert!(counts[0] * 10 >= total * 9, "queue: {counts:?} of {total}");
    assert!(counts[1] * 10 >= total, "absolute: {counts:?} of {total}");
}

/// A constant offset past the memref is a located compile error, not a run-time fault.
#[test]
fn constant_offsets_past_a_memref_are_located_errors() {
    for (row, col, want) in [
        (
            3,
            0,
            "'pto.tload' reads rows 3..=4 of %x (memref<4x16xf32>, rows 0..=3): the row offset \
             is 3 and the tile has 2 valid rows",
        ),
        (
            0,
            9,
            "'pto.tload' reads columns 9..=16 of %x (memref<4x16xf32>, columns 0..=15): the \
             column offset is 9 and the tile has 8 valid columns",
        ),
    ] {
        let mut b = GmBuilder::new("oob");
        let x = b.memref("x", "memref<4x16xf32>");
        let out = b.memref("out", "memref<4x16xf32>");
        let (r, c, c0) = (b.index(row), b.index(col), b.index(0));
        let t = b.load(x, r, c, "2x8xf32");
        b.store(t, out, c0, c0);
        let err = compile(b.finish(), NamingModel::Queue).unwrap_err();
        assert_eq!(err, [want]);
    }
}

/// Many carried tiles and a body that keeps more tiles alive than a hand holds: the planner must
/// rotate (TMOV) and rescue values so every read still finds them, every iteration.
#[test]
fn pressure_forces_rotations_and_stays_exact() {
    let (rows, carried, live) = (12u32, 6usize, 40usize);
    let mut b = GmBuilder::new("pressure");
    let x = b.memref("x", &format!("memref<{rows}x64xf32>"));
    let out = b.memref("out", &format!("memref<{rows}x64xf32>"));
    let n = b.scalar("n", ScalarType::Index);
    let (c0, c1) = (b.index(0), b.index(1));
    let cols: Vec<_> = (0..8).map(|c| b.index(c * 8)).collect();
    let inits: Vec<_> = (0..carried)
        .map(|j| b.load(x, c0, cols[j], "1x8xf32"))
        .collect();
    let results = b.for_loop(c0, n, c1, &inits, |b, i, acc| {
        let loads: Vec<_> = (0..live)
            .map(|j| b.load(x, i, cols[j % 8], "1x8xf32"))
            .collect();
        // Read every load again at the end, in reverse, so all of them stay alive together.
        let mut sum = loads[live - 1];
        for &t in loads.iter().rev().skip(1) {
            sum = b.tile("TADD", &[sum, t], "1x8xf32");
        }
        b.store(sum, out, i, c0);
        acc.iter()
            .enumerate()
            .map(|(j, &a)| b.tile("TMAX", &[a, loads[j]], "1x8xf32"))
            .collect()
    });
    for (j, &r) in results.iter().enumerate() {
        b.store(r, out, c0, cols[j + 1]);
    }
    let kernel = b.finish();
    let k = compile(kernel.clone(), NamingModel::Queue).unwrap();
    let xv = data((rows * 64) as usize, 21);
    for n in [0u64, 1, 7, 12] {
        let args = [
            Arg::F32(xv.clone()),
            Arg::F32(vec![0.0; (rows * 64) as usize]),
            Arg::Scalar(n),
        ];
        assert_eq!(
            run(&k, &args).unwrap(),
            reference(&kernel, &args),
            "n = {n}"
        );
    }
}

/// Tile-scalar ops read their scalar through B.IOR from a GPR: f32 arguments as the loader put
/// them, f32 constants materialized (negative ones need all 64 bits built). Per row:
/// `out[i] = min(max(x*alpha + beta, 0), hi)`, `shifted[i] = (x - beta) / alpha`, and
/// `fill[i] = -2.5` everywhere.
#[test]
fn tile_scalar_ops_take_their_scalars_from_gprs() {
    let rows = 5u32;
    let mut b = GmBuilder::new("clamp");
    let ty = format!("memref<{rows}x8xf32>");
    let x = b.memref("x", &ty);
    let out = b.memref("out", &ty);
    let shifted = b.memref("shifted", &ty);
    let fill = b.memref("fill", &ty);
    let alpha = b.scalar("alpha", ScalarType::Element(ptoc_isa::DataType::FP32));
    let beta = b.scalar("beta", ScalarType::Element(ptoc_isa::DataType::FP32));
    let (c0, c1, n) = (b.index(0), b.index(1), b.index(rows as i64));
    let (zero, hi, neg) = (b.f32(0.0), b.f32(4.0), b.f32(-2.5));
    b.for_loop(c0, n, c1, &[], |b, i, _| {
        let t = b.load(x, i, c0, "1x8xf32");
        let m = b.tile_scalar("TMULS", &[t], alpha, "1x8xf32");
        let a = b.tile_scalar("TADDS", &[m], beta, "1x8xf32");
        let lo = b.tile_scalar("TMAXS", &[a], zero, "1x8xf32");
        let c = b.tile_scalar("TMINS", &[lo], hi, "1x8xf32");
        b.store(c, out, i, c0);
        let s = b.tile_scalar("TSUBS", &[t], beta, "1x8xf32");
        let d = b.tile_scalar("TDIVS", &[s], alpha, "1x8xf32");
        b.store(d, shifted, i, c0);
        let f = b.tile_scalar("TEXPANDS", &[], neg, "1x8xf32");
        b.store(f, fill, i, c0);
        vec![]
    });
    let size = (rows * 8) as usize;
    let xv = data(size, 31);
    let (al, be) = (0.75f32, -1.5f32);
    let k = compile(b.finish(), NamingModel::Queue).unwrap();
    let got = run(
        &k,
        &[
            Arg::F32(xv.clone()),
            Arg::F32(vec![0.0; size]),
            Arg::F32(vec![0.0; size]),
            Arg::F32(vec![0.0; size]),
            Arg::Scalar(al.to_bits() as u64),
            Arg::Scalar(be.to_bits() as u64),
        ],
    )
    .unwrap();
    let want_out: Vec<f32> = xv.iter().map(|&v| (v * al + be).clamp(0.0, 4.0)).collect();
    let want_shifted: Vec<f32> = xv.iter().map(|&v| (v - be) / al).collect();
    assert_eq!(got, vec![want_out, want_shifted, vec![-2.5; size]]);
}

#[test]
fn a_constant_step_that_is_not_positive_is_refused() {
    for step in [0i64, -1] {
        let mut b = GmBuilder::new("step");
        let x = b.memref("x", "memref<4x8xf32>");
        let (c0, c4, s) = (b.index(0), b.index(4), b.index(step));
        b.for_loop(c0, c4, s, &[], |b, i, _| {
            let t = b.load(x, i, c0, "1x8xf32");
            b.store(t, x, i, c0);
            vec![]
        });
        let err = compile(b.finish(), NamingModel::Queue).unwrap_err();
        assert_eq!(
            err,
            [format!(
                "'scf.for' has step {step}; a loop's step must be positive"
            )]
        );
    }
}

/// The lowering applies the bounds analysis itself (a kernel may reach it without pto-verify,
/// under `--pass-pipeline=pto-allocate`): an induction variable whose last value puts the
/// rectangle past the memref is refused at the load, not left to fault at run time.
#[test]
fn the_lowering_refuses_a_loop_that_certainly_leaves_its_memref() {
    let mut b = GmBuilder::new("oob_loop");
    let x = b.memref("x", "memref<4x8xf32>");
    let (c0, c1, c5) = (b.index(0), b.index(1), b.index(5)); // lines 2, 3, 4
    b.for_loop(c0, c5, c1, &[], |b, i, _| {
        // line 5 is the loop, line 6 the load
        let t = b.load(x, i, c0, "1x8xf32");
        b.store(t, x, c0, c0);
        vec![]
    });
    let mut k = b.finish();
    allocate_gm(&mut k, PeMask::ALL_PES, NamingModel::Queue).unwrap();
    let err = lower_gm_kernel(&k).unwrap_err();
    let err: Vec<String> = err
        .iter()
        .map(|d| format!("{}: {}", d.loc, d.message))
        .collect();
    assert_eq!(
        err,
        [
            "oob_loop.mlir:6:3: 'pto.tload' reads rows 0..=4 of %x (memref<4x8xf32>, rows 0..=3): \
          the row offset ranges over 0..=4 and the tile has 1 valid rows"
        ]
    );
}
