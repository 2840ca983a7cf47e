//! GM kernels end to end without MLIR: built with `ptoc_ir::gm_build`, allocated by
//! `pto-allocate`'s GM path, lowered by `lower_gm_kernel`, executed by the interpreter, and
//! compared with values computed here by plain loops over f32 (add, max and min are exact per
//! element, so the comparison is bit for bit).

use ptoc_codegen::{lower_gm_kernel, Kernel};
use ptoc_ir::gm_build::GmBuilder;
use ptoc_ir::{ArithOp, GmKernel, ScalarType};
use ptoc_isa::profile::NamingModel;
use ptoc_isa::{FaultClass, PeMask};
use ptoc_passes::gm_allocate::allocate_gm;
use ptoc_runtime::{Fault, Machine};

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
    let mut m = Machine::with_naming(kernel.meta.profile);
    let mut bases = Vec::new();
    for mr in &kernel.meta.memrefs {
        let Arg::F32(values) = &args[mr.position] else {
            panic!("memref {} needs values", mr.name)
        };
        assert_eq!(values.len(), (mr.rows * mr.cols) as usize);
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let base = m.map_gm(bytes);
        m.set_gpr(mr.gpr as usize, base);
        bases.push(base);
    }
    for s in &kernel.meta.scalars {
        let Arg::Scalar(v) = &args[s.position] else {
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
        .map(|(_, &b)| {
            m.gm_buffer(b)
                .unwrap()
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        })
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

/// A value of the independent evaluator below.
#[derive(Clone, Debug)]
enum Val {
    Scalar(u64),
    Tile(Vec<f32>),
    Mem(usize),
}

/// What a GM kernel means, computed straight from the IR with plain f32 loops: the reference the
/// random kernels are checked against (only the ops the generator emits).
fn evaluate(k: &GmKernel, args: &[Arg]) -> Vec<Vec<f32>> {
    use ptoc_ir::{Block, GmOpKind, Type};
    use std::collections::HashMap;
    fn block(
        k: &GmKernel,
        b: &Block,
        env: &mut HashMap<ptoc_ir::ValueId, Val>,
        mems: &mut [Vec<f32>],
    ) -> Vec<Val> {
        let scalar = |env: &HashMap<_, Val>, v| match env[&v] {
            Val::Scalar(s) => s,
            ref other => panic!("{other:?}"),
        };
        for op in &b.ops {
            match &op.kind {
                GmOpKind::Constant(bits) => {
                    env.insert(op.results[0], Val::Scalar(*bits));
                }
                GmOpKind::Arith(ArithOp::AddI) => {
                    let v = scalar(env, op.operands[0]).wrapping_add(scalar(env, op.operands[1]));
                    env.insert(op.results[0], Val::Scalar(v));
                }
                GmOpKind::Load | GmOpKind::Store => {
                    let load = matches!(op.kind, GmOpKind::Load);
                    let (t, m, r, c) = if load {
                        (
                            op.results[0],
                            op.operands[0],
                            op.operands[1],
                            op.operands[2],
                        )
                    } else {
                        (
                            op.operands[0],
                            op.operands[1],
                            op.operands[2],
                            op.operands[3],
                        )
                    };
                    let Val::Mem(m_index) = env[&m] else { panic!() };
                    let cols = k.ty(m).memref().unwrap().cols as usize;
                    let (_, _, vr, vc) = k.ty(t).tile().unwrap().dims().unwrap();
                    let (r, c) = (scalar(env, r) as usize, scalar(env, c) as usize);
                    let mut tile = match env.get(&t) {
                        Some(Val::Tile(v)) => v.clone(),
                        _ => vec![0.0; (vr * vc) as usize],
                    };
                    for i in 0..vr as usize {
                        for j in 0..vc as usize {
                            let at = (r + i) * cols + c + j;
                            if load {
                                tile[i * vc as usize + j] = mems[m_index][at];
                            } else {
                                mems[m_index][at] = tile[i * vc as usize + j];
                            }
                        }
                    }
                    if load {
                        env.insert(t, Val::Tile(tile));
                    }
                }
                GmOpKind::Tile { info, .. } if info.takes_scalar() => {
                    let s = f32::from_bits(scalar(env, *op.operands.last().unwrap()) as u32);
                    let (_, _, vr, vc) = k.ty(op.results[0]).tile().unwrap().dims().unwrap();
                    let src = match op.operands.len() {
                        1 => vec![0.0; (vr * vc) as usize],
                        _ => match &env[&op.operands[0]] {
                            Val::Tile(t) => t.clone(),
                            other => panic!("{other:?}"),
                        },
                    };
                    let r = src
                        .iter()
                        .map(|&x| match info.mnemonic {
                            "TADDS" => x + s,
                            "TMAXS" => x.max(s),
                            "TMINS" => x.min(s),
                            "TEXPANDS" => s,
                            other => panic!("{other}"),
                        })
                        .collect();
                    env.insert(op.results[0], Val::Tile(r));
                }
                GmOpKind::Tile { info, .. } => {
                    let tile = |v| match &env[&v] {
                        Val::Tile(t) => t.clone(),
                        other => panic!("{other:?}"),
                    };
                    let (a, b) = (tile(op.operands[0]), tile(op.operands[1]));
                    let f = match info.mnemonic {
                        "TADD" => |x: f32, y: f32| x + y,
                        "TMAX" => f32::max,
                        "TMIN" => f32::min,
                        other => panic!("{other}"),
                    };
                    let r = a.iter().zip(&b).map(|(&x, &y)| f(x, y)).collect();
                    env.insert(op.results[0], Val::Tile(r));
                }
                GmOpKind::For(body) => {
                    let (lb, ub, step) = (
                        scalar(env, op.operands[0]),
                        scalar(env, op.operands[1]),
                        scalar(env, op.operands[2]),
                    );
                    let mut carried: Vec<Val> =
                        op.operands[3..].iter().map(|v| env[v].clone()).collect();
                    let mut i = lb;
                    while (i as i64) < ub as i64 {
                        env.insert(body.args[0], Val::Scalar(i));
                        for (a, v) in body.args[1..].iter().zip(&carried) {
                            env.insert(*a, v.clone());
                        }
                        carried = block(k, body, env, mems);
                        i = i.wrapping_add(step);
                    }
                    for (r, v) in op.results.iter().zip(carried) {
                        env.insert(*r, v);
                    }
                }
                GmOpKind::Yield => return op.operands.iter().map(|v| env[v].clone()).collect(),
                GmOpKind::Return => {}
                other => panic!("{other:?}"),
            }
        }
        Vec::new()
    }
    let mut env = HashMap::new();
    let mut mems = Vec::new();
    for (&a, arg) in k.args.iter().zip(args) {
        match (k.ty(a), arg) {
            (Type::MemRef(_), Arg::F32(v)) => {
                env.insert(a, Val::Mem(mems.len()));
                mems.push(v.clone());
            }
            (Type::Scalar(_), Arg::Scalar(s)) => {
                env.insert(a, Val::Scalar(*s));
            }
            _ => panic!("argument kinds"),
        }
    }
    block(k, &k.body, &mut env, &mut mems);
    let stored = k.stored_memrefs();
    k.args
        .iter()
        .filter(|a| stored.contains(a))
        .map(|a| match env[a] {
            Val::Mem(i) => mems[i].clone(),
            _ => unreachable!(),
        })
        .collect()
}

/// A random GM kernel over `x`, `y` (inputs) and `out`, `rows × cols` f32, with a scalar `n`:
/// loads at in-bounds offsets, TADD/TMAX/TMIN, stores, and loops (nested to depth 2, constant or
/// `n` bounds, zero-trip ones included) with carried tiles and outer tiles read inside.
fn random_kernel(seed: u64) -> (GmKernel, u32, u32, u64) {
    let mut s = seed | 1;
    let mut next = move |n: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % n.max(1)
    };
    let rows = 1 + next(12) as u32;
    let cols = [8u32, 16, 32][next(3) as usize];
    let th = 1 + next(rows.min(2) as u64) as u32;
    let tw = [8u32, 16][next(if cols >= 16 { 2 } else { 1 }) as usize];
    let tty = format!("{th}x{tw}xf32");
    let mty = format!("memref<{rows}x{cols}xf32>");
    let mut b = GmBuilder::new("random");
    let x = b.memref("x", &mty);
    let y = b.memref("y", &mty);
    let out = b.memref("out", &mty);
    let n = b.scalar("n", ScalarType::Index);
    let max_row = (rows - th) as u64;
    let max_col = (cols - tw) as u64;
    let n_value = next(max_row + 2); // 0..=max_row+1 iterations from row 0
    let zero = b.index(0);
    let one = b.index(1);

    #[allow(clippy::too_many_arguments)]
    fn stmts(
        b: &mut GmBuilder,
        next: &mut dyn FnMut(u64) -> u64,
        env: &mut Vec<ptoc_ir::ValueId>,
        row: Option<ptoc_ir::ValueId>,
        depth: u32,
        ctx: (
            ptoc_ir::ValueId,
            ptoc_ir::ValueId,
            ptoc_ir::ValueId,
            ptoc_ir::ValueId,
        ),
        tty: &str,
        limits: (u64, u64),
        consts: (ptoc_ir::ValueId, ptoc_ir::ValueId),
    ) {
        let (x, y, out, n) = ctx;
        let (max_row, max_col) = limits;
        let (zero, one) = consts;
        let count = 1 + next(if depth == 0 { 8 } else { 24 });
        for _ in 0..count {
            let at_row = |b: &mut GmBuilder, next: &mut dyn FnMut(u64) -> u64| match row {
                Some(r) if next(2) == 0 => r,
                _ => b.index(next(max_row + 1) as i64),
            };
            match next(if depth < 2 { 5 } else { 4 }) {
                0 | 1 => {
                    let r = at_row(b, next);
                    let c = b.index(next(max_col + 1) as i64);
                    let src = if next(2) == 0 { x } else { y };
                    env.push(b.load(src, r, c, tty));
                }
                2 if next(3) == 0 => {
                    let v = b.f32(next(41) as f32 / 2.0 - 10.0);
                    let m = ["TADDS", "TMAXS", "TMINS", "TEXPANDS"][next(4) as usize];
                    let srcs: Vec<ptoc_ir::ValueId> = match (m, env.is_empty()) {
                        ("TEXPANDS", _) => vec![],
                        (_, true) => continue,
                        _ => vec![env[next(env.len() as u64) as usize]],
                    };
                    env.push(b.tile_scalar(m, &srcs, v, tty));
                }
                2 if env.len() >= 2 => {
                    let a = env[next(env.len() as u64) as usize];
                    let c = env[next(env.len() as u64) as usize];
                    let m = ["TADD", "TMAX", "TMIN"][next(3) as usize];
                    env.push(b.tile(m, &[a, c], tty));
                }
                3 if !env.is_empty() => {
                    let t = env[next(env.len() as u64) as usize];
                    let r = at_row(b, next);
                    let c = b.index(next(max_col + 1) as i64);
                    b.store(t, out, r, c);
                }
                4 => {
                    // Rows iv in lb..ub with ub <= max_row + 1 keep every access in bounds.
                    let ub = if next(3) == 0 {
                        n
                    } else {
                        b.index(next(max_row + 2) as i64)
                    };
                    let lb = if next(2) == 0 {
                        zero
                    } else {
                        b.index(next(max_row + 2) as i64)
                    };
                    let step = if next(3) == 0 { b.index(2) } else { one };
                    let carry: Vec<ptoc_ir::ValueId> = (0..next(3).min(env.len() as u64))
                        .map(|_| env[next(env.len() as u64) as usize])
                        .collect();
                    let outer = env.clone();
                    let results = b.for_loop(lb, ub, step, &carry, |b, iv, carried| {
                        let mut inner = outer.clone();
                        inner.extend(carried);
                        stmts(
                            b,
                            next,
                            &mut inner,
                            Some(iv),
                            depth + 1,
                            ctx,
                            tty,
                            limits,
                            consts,
                        );
                        carried
                            .iter()
                            .map(|_| {
                                inner[inner.len() - 1 - next(inner.len().min(3) as u64) as usize]
                            })
                            .collect()
                    });
                    env.extend(results);
                }
                _ => {}
            }
        }
    }
    let mut env = Vec::new();
    stmts(
        &mut b,
        &mut next,
        &mut env,
        None,
        0,
        (x, y, out, n),
        &tty,
        (max_row, max_col),
        (zero, one),
    );
    (b.finish(), rows, cols, n_value)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]
    /// Random GM kernels compile without panicking and compute what the IR means.
    #[test]
    fn random_gm_kernels_match_an_independent_evaluation(seed in proptest::prelude::any::<u64>()) {
        let (kernel, rows, cols, n) = random_kernel(seed);
        let size = (rows * cols) as usize;
        let args = [
            Arg::F32(data(size, (seed % 1000) as u32)),
            Arg::F32(data(size, (seed % 997) as u32 + 1)),
            Arg::F32(vec![0.25; size]),
            Arg::Scalar(n),
        ];
        let want = evaluate(&kernel, &args);
        let k = compile(kernel.clone(), NamingModel::Queue).unwrap();
        let got = run(&k, &args).unwrap();
        proptest::prop_assert_eq!(got, want.clone());
        // The printed assembly (`--emit=asm`) assembles back to the same words and metadata.
        let back = ptoc_codegen::assemble(&ptoc_codegen::print_asm(std::slice::from_ref(&k)), "k.s")
            .map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e:?}")))?;
        proptest::prop_assert_eq!((back[0].words(), &back[0].meta), (k.words(), &k.meta));
        // Absolute naming compiles exactly the kernels whose loops write no tile, and runs them.
        match compile(kernel, NamingModel::AbsoluteNoFree) {
            Ok(k) => proptest::prop_assert_eq!(run(&k, &args).unwrap(), want),
            Err(e) => proptest::prop_assert!(
                e[0].contains("inside a loop") || e[0].contains("yielded unchanged")
                    || e[0].contains("tile registers") || e[0].contains("capacity"),
                "{:?}", e
            ),
        }
    }
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
        assert_eq!(run(&k, &args).unwrap(), evaluate(&kernel, &args), "n = {n}");
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
