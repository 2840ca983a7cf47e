//! Compiled linalg programs against the reference evaluator: each program goes through ptoc's
//! default pipeline (`convert-linalg-to-pto`, tiling, fusion, allocation, encoding), runs on the
//! interpreter, and every result element must equal `ptoc_runtime::evaluate_linalg`'s bit for bit,
//! NaN payloads included (MLIR fixes none; both sides give the canonical NaN wherever an op makes
//! one); elements the program leaves poison are skipped.

#[path = "../../runtime/tests/linalg/mod.rs"]
mod linalg;

use linalg::*;
use ptoc::exec::argument_input;
use ptoc::ir::linalg::{BodyValue, CmpFPredicate, Elem, LType, MapExpr, Program, ScalarOp};
use ptoc::ir::Module;
use ptoc::runtime::{evaluate_linalg_with, LinalgArg, LinalgOptions, LinalgTensor};
use ptoc::{Driver, Options, Tensor};

/// Edge values of each float type mixed into the random inputs.
fn edges(elem: Elem) -> Vec<u64> {
    match elem {
        F32 => vec![
            0,
            0x8000_0000,
            0x7F80_0000,
            0xFF80_0000,
            0x7FC0_0000,
            1,
            0x7F7F_FFFF,
            0x3F80_0000,
        ],
        F16 => vec![0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 1, 0x7BFF, 0x3C00],
        _ => vec![0],
    }
}

/// Random inputs: finite values of moderate size (so softmax rows are not all NaN), with every
/// fifth element an edge value, or (`wild`) raw random bit patterns.
fn input(rng: &mut Rng, elem: Elem, n: usize, wild: bool) -> Vec<u64> {
    let bits = elem.bits();
    if wild {
        return patterns(rng, n, bits, &edges(elem));
    }
    let e = edges(elem);
    (0..n)
        .map(|i| {
            let r = rng.next();
            let v = ((r >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 20.0;
            if i % 5 == 0 {
                e[(r % e.len() as u64) as usize]
            } else if elem == F16 {
                ptoc::half::f16::from_f64(v).to_bits() as u64
            } else {
                (v as f32).to_bits() as u64
            }
        })
        .collect()
}

/// Compile `program`, run it on `args` and compare every result with the evaluator's.
fn agree(program: &Program, args: &[LinalgTensor]) {
    agree_with_scalars(program, args, &[]);
}

/// [`agree`] for a program whose tensor arguments come first, then `scalars`.
fn agree_with_scalars(program: &Program, args: &[LinalgTensor], scalars: &[u64]) {
    check(program, args, scalars, false);
}

/// [`agree_with_scalars`], compiled and evaluated under `--assume-no-nans` when `no_nans`.
fn check(program: &Program, args: &[LinalgTensor], scalars: &[u64], no_nans: bool) {
    let module = Module {
        linalg: vec![program.clone()],
        ..Module::default()
    };
    let mut options = Options::default();
    options.pass_options.assume_no_nans = no_nans;
    let driver = Driver::new(options).expect("options");
    let kernels = driver.compile_kernels(&module).unwrap_or_else(|d| {
        let text: Vec<String> = d
            .iter()
            .map(|d| format!("{}: {}", d.loc, d.message))
            .collect();
        panic!("@{} does not compile:\n{}", program.name, text.join("\n"))
    });
    let kernel = &kernels[0];
    let want = evaluate_linalg_with(
        program,
        &args
            .iter()
            .map(|t| LinalgArg::Tensor(t.clone()))
            .chain(scalars.iter().map(|&s| LinalgArg::Scalar(s)))
            .collect::<Vec<_>>(),
        LinalgOptions {
            assume_no_nans: no_nans,
            ..LinalgOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("@{}: {e}", program.name));
    // Arguments, then one zeroed memref per result (the kernel ABI).
    let inputs: Vec<Tensor> = kernel
        .meta
        .argument_order()
        .into_iter()
        .enumerate()
        .map(|(i, arg)| {
            let ((rows, cols), ty) = argument_input(kernel, arg);
            let bits = match (args.get(i), scalars.get(i.wrapping_sub(args.len()))) {
                (Some(t), _) => t.bits.clone(),
                (None, Some(&s)) => vec![s],
                (None, None) => vec![0; (rows * cols) as usize],
            };
            Tensor::from_bits(ty, rows, cols, bits).expect("input shape")
        })
        .collect();
    assert!(!want.is_empty(), "@{} returns nothing", program.name);
    let out = ptoc::run(kernel, &inputs).unwrap_or_else(|e| panic!("@{}: {e}", program.name));
    for (k, want) in want.iter().enumerate() {
        let name = format!("r{k}");
        let got = out
            .get(&name)
            .unwrap_or_else(|| panic!("@{}: no result {name}", program.name));
        assert_eq!(
            got.bits().len(),
            want.bits.len(),
            "@{} {name}",
            program.name
        );
        let pairs = got.bits().iter().zip(&want.bits).zip(&want.poison);
        for (i, ((&g, &w), &poison)) in pairs.enumerate() {
            // Bit for bit, NaNs included: MLIR fixes no payload, and both sides give the
            // canonical NaN wherever an op makes one.
            assert!(
                poison || g == w,
                "@{} {name}[{i}]: compiled {g:#x}, reference {w:#x}",
                program.name
            );
        }
    }
}

fn tensor_arg(rng: &mut Rng, shape: &[u32], elem: Elem, wild: bool) -> LinalgTensor {
    let n = shape.iter().product::<u32>() as usize;
    LinalgTensor::new(shape.to_vec(), elem, input(rng, elem, n, wild))
}

#[test]
fn softmax_agrees() {
    let mut rng = Rng(1);
    for (elem, rows, cols) in [(F32, 16, 64), (F16, 8, 32), (F32, 3, 5)] {
        let p = softmax_program(elem, rows, cols);
        for _ in 0..2 {
            agree(&p, &[tensor_arg(&mut rng, &[rows, cols], elem, false)]);
        }
    }
}

#[test]
fn reductions_agree() {
    let mut rng = Rng(2);
    let ops = [
        (ScalarOp::AddF, 0),
        (ScalarOp::MaximumF, NEG_INF32),
        (ScalarOp::MaxNumF, NEG_INF32),
        (ScalarOp::MinimumF, 0x7F80_0000),
        (ScalarOp::MulF, 0x3F80_0000),
    ];
    for (op, init) in ops {
        for (iterators, shape, out) in [("pr", [16, 48], 0), ("rp", [48, 16], 1)] {
            let p = reduce_program(op, iterators, &shape, vec![d(out)], init);
            for wild in [false, true] {
                agree(&p, &[tensor_arg(&mut rng, &shape, F32, wild)]);
            }
        }
    }
}

#[test]
fn elementwise_ops_agree() {
    let mut rng = Rng(3);
    use ScalarOp::*;
    let f32_ops = [AddF, SubF, MulF, DivF, MaximumF, MinimumF, MaxNumF, MinNumF];
    for (elem, ops) in [
        (F32, &f32_ops[..]),
        (F16, &[AddF, MulF, DivF, MaximumF][..]),
    ] {
        let p = pairwise(elem, 64, ops, elem);
        for wild in [false, true] {
            let x = tensor_arg(&mut rng, &[64], elem, wild);
            let y = tensor_arg(&mut rng, &[64], elem, wild);
            agree(&p, &[x, y]);
        }
    }
}

#[test]
fn layer_norm_and_clamp_agree() {
    let mut rng = Rng(4);
    let p = layer_norm_program(8, 32);
    agree(&p, &[tensor_arg(&mut rng, &[8, 32], F32, false)]);

    // relu by compare and select: select(x > 0, x, 0).
    let ty = tensor(&[8, 16], F32);
    let mut b = Builder::new("relu");
    let x = b.arg("x", LType::Tensor(ty.clone()));
    let init = b.empty(&ty);
    let mut r = Region::new(&[F32, F32]);
    let zero = r.op(ScalarOp::Constant(0), &[], F32);
    let gt = r.op(
        ScalarOp::CmpF(CmpFPredicate::Ogt),
        &[BodyValue::Arg(0), zero],
        Elem::I1,
    );
    let v = r.op(ScalarOp::Select, &[gt, BodyValue::Arg(0), zero], F32);
    let res = elementwise(&mut b, &[x], &[init], r.yields(&[v]));
    let p = b.finish(&res);
    for wild in [false, true] {
        agree(&p, &[tensor_arg(&mut rng, &[8, 16], F32, wild)]);
    }
}

/// torch-mlir's max+argmax (linalg.index, index_cast, cmpf ogt, select; the argmax dead), a
/// broadcast of an expanded row through `(d0, 0)`, a scalar argument captured by the region, and
/// f16 bias + clamp with extf/truncf.
#[test]
fn more_program_shapes_agree() {
    let mut rng = Rng(5);
    // max + argmax.
    let mut b = Builder::new("argmax");
    let x = b.arg("x", LType::Tensor(tensor(&[8, 16], F32)));
    let res = max_argmax(&mut b, x, 8);
    // Only the max is returned: the converter lowers multi-result reductions whose extra
    // results are dead (issue 13), and refuses a live argmax with a located error.
    let argmax = b.finish(&res[..1]);
    agree(&argmax, &[tensor_arg(&mut rng, &[8, 16], F32, false)]);

    // x - expand_shape(m) read through (d0, 0), divided by a scalar argument.
    let mut b = Builder::new("bcast");
    let x = b.arg("x", LType::Tensor(tensor(&[8, 16], F32)));
    let m = b.arg("m", LType::Tensor(tensor(&[8], F32)));
    let s = b.arg("s", LType::Scalar(F32));
    let m2 = b.reshape(m, &tensor(&[8, 1], F32));
    let init = b.empty(&tensor(&[8, 16], F32));
    let mut r = Region::new(&[F32, F32, F32]);
    let diff = r.op(ScalarOp::SubF, &[BodyValue::Arg(0), BodyValue::Arg(1)], F32);
    let q = r.op(ScalarOp::DivF, &[diff, BodyValue::Outer(s)], F32);
    let maps = vec![
        vec![d(0), d(1)],
        vec![d(0), MapExpr::Zero],
        vec![d(0), d(1)],
    ];
    let res = b.generic("pp", &[x, m2], &[init], maps, r.yields(&[q]));
    let bcast = b.finish(&res);
    let x = tensor_arg(&mut rng, &[8, 16], F32, false);
    let m = tensor_arg(&mut rng, &[8], F32, false);
    agree_with_scalars(&bcast, &[x, m], &[3f32.to_bits() as u64]);

    // f16 bias + clamp to [0, 6]: y = truncf(min(max(extf(x) + extf(bias), 0), 6)).
    let mut b = Builder::new("bias_clamp");
    let x = b.arg("x", LType::Tensor(tensor(&[16, 32], F16)));
    let bias = b.arg("bias", LType::Tensor(tensor(&[32], F16)));
    let init = b.empty(&tensor(&[16, 32], F16));
    let mut r = Region::new(&[F16, F16, F16]);
    let (xw, bw) = (
        r.op(ScalarOp::ExtF, &[BodyValue::Arg(0)], F32),
        r.op(ScalarOp::ExtF, &[BodyValue::Arg(1)], F32),
    );
    let sum = r.op(ScalarOp::AddF, &[xw, bw], F32);
    let zero = r.op(ScalarOp::Constant(0), &[], F32);
    let six = r.op(ScalarOp::Constant(6f32.to_bits() as u64), &[], F32);
    let lo = r.op(ScalarOp::MaximumF, &[sum, zero], F32);
    let hi = r.op(ScalarOp::MinimumF, &[lo, six], F32);
    let y = r.op(ScalarOp::TruncF, &[hi], F16);
    let maps = vec![vec![d(0), d(1)], vec![d(1)], vec![d(0), d(1)]];
    let res = b.generic("pp", &[x, bias], &[init], maps, r.yields(&[y]));
    let clamp = b.finish(&res);
    for wild in [false, true] {
        let x = tensor_arg(&mut rng, &[16, 32], F16, wild);
        let bias = tensor_arg(&mut rng, &[32], F16, wild);
        agree(&clamp, &[x, bias]);
    }
}

/// Under `--assume-no-nans` the compiler may use the ISA's MAX/MIN for maximumf/minimumf; every
/// element whose computation meets no NaN still agrees exactly (the others are poison).
#[test]
fn assume_no_nans_agrees_where_no_nan_is_met() {
    let mut rng = Rng(6);
    use ScalarOp::*;
    let picks = pairwise(F32, 64, &[MaximumF, MinimumF], F32);
    let max_rows = reduce_program(MaximumF, "pr", &[16, 48], vec![d(0)], NEG_INF32);
    for wild in [false, true] {
        let (x, y) = (
            tensor_arg(&mut rng, &[64], F32, wild),
            tensor_arg(&mut rng, &[64], F32, wild),
        );
        check(&picks, &[x, y], &[], true);
        check(
            &max_rows,
            &[tensor_arg(&mut rng, &[16, 48], F32, wild)],
            &[],
            true,
        );
    }
    let p = softmax_program(F32, 16, 64);
    check(
        &p,
        &[tensor_arg(&mut rng, &[16, 64], F32, false)],
        &[],
        true,
    );
}

/// Programs larger than one tile, so the kernel loops over blocks: a 128x512 softmax (each row
/// reduced within one tile), a column sum of a 1024x32 tensor, and a 256x256 elementwise
/// subtraction of a broadcast column vector.
#[test]
fn tiled_programs_agree() {
    let mut rng = Rng(7);
    let p = softmax_program(F32, 128, 512);
    agree(&p, &[tensor_arg(&mut rng, &[128, 512], F32, false)]);
    let p = reduce_program(ScalarOp::AddF, "rp", &[1024, 32], vec![d(1)], 0);
    agree(&p, &[tensor_arg(&mut rng, &[1024, 32], F32, true)]);
    let mut b = Builder::new("sub_cols");
    let x = b.arg("x", LType::Tensor(tensor(&[256, 256], F32)));
    let c = b.arg("c", LType::Tensor(tensor(&[256], F32)));
    let init = b.empty(&tensor(&[256, 256], F32));
    let mut r = Region::new(&[F32, F32, F32]);
    let v = r.op(ScalarOp::SubF, &[BodyValue::Arg(0), BodyValue::Arg(1)], F32);
    let maps = vec![vec![d(0), d(1)], vec![d(1)], vec![d(0), d(1)]];
    let res = b.generic("pp", &[x, c], &[init], maps, r.yields(&[v]));
    let p = b.finish(&res);
    let x = tensor_arg(&mut rng, &[256, 256], F32, true);
    let c = tensor_arg(&mut rng, &[256], F32, true);
    agree(&p, &[x, c]);
}

/// Random f32 or f16 programs: an elementwise generic of 1 to 6 body ops over a grid and a second operand
/// that is a grid, a row vector or a column vector, then optionally a row or column reduction
/// of its result; each compiled program agrees with the reference on random inputs. A program
/// the converter refuses must be refused with a located error.
#[test]
fn random_programs_agree() {
    use ScalarOp::*;
    let mut rng = Rng(8);
    let binary = [AddF, SubF, MulF, DivF, MaximumF, MinimumF, MaxNumF, MinNumF];
    let unary = [NegF, AbsF, Exp, Sqrt, Log];
    let predicates = [
        CmpFPredicate::Ogt,
        CmpFPredicate::Olt,
        CmpFPredicate::Oge,
        CmpFPredicate::Ueq,
        CmpFPredicate::One,
        CmpFPredicate::Ord,
        CmpFPredicate::Uno,
        CmpFPredicate::Ule,
    ];
    let (mut compiled, mut refused) = (0, 0);
    for case in 0..150 {
        let pick = |rng: &mut Rng, n: usize| (rng.next() % n as u64) as usize;
        let (rows, cols) = (
            [4u32, 8, 16][pick(&mut rng, 3)],
            [8u32, 32, 64][pick(&mut rng, 3)],
        );
        let (y_shape, y_map) = match pick(&mut rng, 3) {
            0 => (vec![rows, cols], vec![d(0), d(1)]),
            1 => (vec![rows], vec![d(0)]),
            _ => (vec![cols], vec![d(1)]),
        };
        let elem = [F32, F16][pick(&mut rng, 2)];
        let mut b = Builder::new("random");
        let grid = tensor(&[rows, cols], elem);
        let x = b.arg("x", LType::Tensor(grid.clone()));
        let y = b.arg("y", LType::Tensor(tensor(&y_shape, elem)));
        let init = b.empty(&grid);
        let mut r = Region::new(&[elem, elem, elem]);
        let mut pool = vec![BodyValue::Arg(0), BodyValue::Arg(1)];
        for _ in 0..1 + pick(&mut rng, 6) {
            let a = pool[pick(&mut rng, pool.len())];
            let c = pool[pick(&mut rng, pool.len())];
            let v = match pick(&mut rng, 4) {
                0 => r.op(unary[pick(&mut rng, unary.len())], &[a], elem),
                1 => {
                    let p = predicates[pick(&mut rng, predicates.len())];
                    let cond = r.op(CmpF(p), &[a, c], Elem::I1);
                    r.op(Select, &[cond, a, c], elem)
                }
                _ => r.op(binary[pick(&mut rng, binary.len())], &[a, c], elem),
            };
            pool.push(v);
        }
        let last = *pool.last().unwrap_or(&BodyValue::Arg(0));
        let maps = vec![vec![d(0), d(1)], y_map, vec![d(0), d(1)]];
        let z = b.generic("pp", &[x, y], &[init], maps, r.yields(&[last]))[0];
        let result = match pick(&mut rng, 3) {
            0 => z,
            k => {
                let neg_inf = edges(elem)[3];
                let (op, acc) =
                    [(AddF, 0), (MaximumF, neg_inf), (MaxNumF, neg_inf)][pick(&mut rng, 3)];
                let (iterators, keep, len) = if k == 1 {
                    ("pr", 0, rows)
                } else {
                    ("rp", 1, cols)
                };
                let acc = b.fill_constant(acc, &tensor(&[len], elem));
                let mut r = Region::new(&[elem, elem]);
                let v = r.op(op, &[BodyValue::Arg(0), BodyValue::Arg(1)], elem);
                let maps = vec![vec![d(0), d(1)], vec![d(keep)]];
                b.generic(iterators, &[z], &[acc], maps, r.yields(&[v]))[0]
            }
        };
        let p = b.finish(&[result]);
        let module = Module {
            linalg: vec![p.clone()],
            ..Module::default()
        };
        let driver = Driver::new(Options::default()).expect("options");
        if let Err(diags) = driver.compile_kernels(&module) {
            assert!(
                diags.iter().all(|d| d.loc.is_known()),
                "case {case}: an unlocated refusal"
            );
            refused += 1;
            continue;
        }
        compiled += 1;
        let wild = case % 2 == 1;
        let x = tensor_arg(&mut rng, &[rows, cols], elem, wild);
        let y = tensor_arg(&mut rng, &y_shape, elem, wild);
        agree(&p, &[x, y]);
    }
    // Every body compiles; a refusal is left only for grids whose kernel cannot allocate.
    assert!(compiled >= 145, "{compiled} compiled, {refused} refused");
}

/// Lines too wide (or too tall) for one tile fold chunk by chunk: random elementwise bodies feed
/// a max or min (either NaN flavour) over the long axis, a fold whose pieces combine exactly, so
/// the compiled program must agree with linalg's sequential fold bit for bit (a prime length ends
/// in a shorter chunk). Two cases in three have no NaN inputs, so that a NaN-propagating fold does
/// not always give NaN.
#[test]
fn chunked_folds_agree() {
    use ScalarOp::*;
    let mut rng = Rng(31);
    let binary = [AddF, SubF, MulF, MaximumF, MinNumF];
    let folds = [MaximumF, MinimumF, MaxNumF, MinNumF];
    for case in 0..12 {
        let pick = |rng: &mut Rng, n: usize| (rng.next() % n as u64) as usize;
        let long = [20000u32, 32768, 20011][pick(&mut rng, 3)];
        let short = [1u32, 2, 3, 7][pick(&mut rng, 4)];
        let over_cols = case % 2 == 0;
        let (rows, cols) = if over_cols {
            (short, long)
        } else {
            (long, short)
        };
        let mut b = Builder::new("chunked");
        let grid = tensor(&[rows, cols], F32);
        let x = b.arg("x", LType::Tensor(grid.clone()));
        let y = b.arg("y", LType::Tensor(grid.clone()));
        let init = b.empty(&grid);
        let mut r = Region::new(&[F32, F32, F32]);
        let mut pool = vec![BodyValue::Arg(0), BodyValue::Arg(1)];
        for _ in 0..1 + pick(&mut rng, 3) {
            let a = pool[pick(&mut rng, pool.len())];
            let c = pool[pick(&mut rng, pool.len())];
            pool.push(r.op(binary[pick(&mut rng, binary.len())], &[a, c], F32));
        }
        let last = *pool.last().unwrap_or(&BodyValue::Arg(0));
        let maps = vec![vec![d(0), d(1)]; 3];
        let z = b.generic("pp", &[x, y], &[init], maps, r.yields(&[last]))[0];
        let fold = folds[pick(&mut rng, folds.len())];
        let start = edges(F32)[pick(&mut rng, 8)];
        let (iterators, keep, len) = if over_cols {
            ("pr", 0, rows)
        } else {
            ("rp", 1, cols)
        };
        let acc = b.fill_constant(start, &tensor(&[len], F32));
        let mut r = Region::new(&[F32, F32]);
        let v = r.op(fold, &[BodyValue::Arg(0), BodyValue::Arg(1)], F32);
        let maps = vec![vec![d(0), d(1)], vec![d(keep)]];
        let m = b.generic(iterators, &[z], &[acc], maps, r.yields(&[v]))[0];
        let p = b.finish(&[m]);
        let mut x = tensor_arg(&mut rng, &[rows, cols], F32, case % 4 == 1);
        let mut y = tensor_arg(&mut rng, &[rows, cols], F32, false);
        if case % 3 != 0 {
            for bits in x.bits.iter_mut().chain(y.bits.iter_mut()) {
                if f32::from_bits(*bits as u32).is_nan() {
                    *bits = 0x3F80_0000;
                }
            }
        }
        agree(&p, &[x, y]);
    }
}
