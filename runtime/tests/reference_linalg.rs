//! The linalg reference evaluator on hand-built programs, checked against values computed by hand
//! or with numpy in the program's own operation order (the commands are in the comments).

mod linalg;

use linalg::*;
use ptoc_ir::linalg::{
    BodyValue, CmpFPredicate, CmpIPredicate, Elem, LType, MapExpr, Program, ScalarOp,
};
use ptoc_ir::ValueId;
use ptoc_isa::DataType;
use ptoc_runtime::{evaluate_linalg, evaluate_linalg_with, LinalgArg, LinalgOptions, LinalgTensor};
use std::num::NonZeroU32;

/// [`pairwise`] run on `xs` and `ys`: each op's results.
fn run_pairwise(
    elem: Elem,
    ops: &[ScalarOp],
    result: Elem,
    xs: &[u64],
    ys: &[u64],
) -> Vec<Vec<u64>> {
    let n = xs.len() as u32;
    let p = pairwise(elem, n, ops, result);
    let out = run(&p, &[arg(&[n], elem, xs), arg(&[n], elem, ys)]);
    out.into_iter().map(|t| t.bits).collect()
}

/// [`reduce_program`] run on `data`: its one result.
fn reduce(
    op: ScalarOp,
    iterators: &str,
    shape: &[u32],
    out_map: Vec<MapExpr>,
    init: u64,
    data: &[u64],
) -> LinalgTensor {
    let p = reduce_program(op, iterators, shape, out_map, init);
    let mut out = run(&p, &[arg(shape, F32, data)]);
    out.remove(0)
}

fn arg(shape: &[u32], elem: Elem, bits: &[u64]) -> LinalgArg {
    LinalgArg::Tensor(LinalgTensor::new(shape.to_vec(), elem, bits.to_vec()))
}

fn run(p: &Program, args: &[LinalgArg]) -> Vec<LinalgTensor> {
    evaluate_linalg(p, args).unwrap_or_else(|e| panic!("evaluation failed: {e}"))
}

/// The error's text (`file:line:col: op: message` for op errors).
fn error(p: &Program, args: &[LinalgArg]) -> String {
    match evaluate_linalg(p, args) {
        Ok(r) => panic!("expected an error, got {r:?}"),
        Err(e) => e.to_string(),
    }
}

/// torch-mlir's row softmax of a 2x3 f32 tensor: max (init -inf, maximumf), exp(x - max),
/// sum (init 0, addf), divide.
///
/// numpy, in the same operation order (exp in binary64, rounded once, as the project defines
/// `math.exp`; numpy's own float32 exp differs by one ulp on e[0,1] and e[1,0]):
/// ```text
/// x = np.array([[1, 2, 3], [-1, 0.5, 4]], dtype=np.float32)
/// m = np.full(2, -np.inf, np.float32)
/// for j in range(3): m = np.maximum(m, x[:, j])
/// e = np.exp((x - m[:, None]).astype(np.float32).astype(np.float64)).astype(np.float32)
/// s = np.zeros(2, np.float32)
/// for j in range(3): s = (s + e[:, j]).astype(np.float32)
/// y = (e / s[:, None]).astype(np.float32)
/// [hex(v) for v in y.view(np.uint32).ravel()]
/// ```
#[test]
fn row_softmax_matches_numpy_in_the_same_order() {
    let p = softmax_program(F32, 2, 3);
    let out = run(
        &p,
        &[arg(&[2, 3], F32, &f32s(&[1.0, 2.0, 3.0, -1.0, 0.5, 4.0]))],
    );
    assert_eq!(out.len(), 4);
    assert_eq!(out[0].shape, vec![2, 3]);
    assert_eq!(
        out[0].bits,
        vec![0x3db861f3, 0x3e7a9a1a, 0x3f2a4d3b, 0x3bd4ecb3, 0x3cee90c3, 0x3f76e1a1]
    );
    assert_eq!(out[1].bits, vec![0x40400000, 0x40800000]);
    assert_eq!(
        out[2].bits,
        vec![0x3e0a9555, 0x3ebc5ab2, 0x3f800000, 0x3bdcc9ff, 0x3cf76081, 0x3f800000]
    );
    assert_eq!(out[3].bits, vec![0x3fc06957, 0x3f84ba4c]);
    assert!(out.iter().all(|t| t.poison.iter().all(|&p| !p)));
}

/// A sum reduction folds sequentially from its init in loop order: [1e8, 1, -1e8, 1] gives
/// ((((0 + 1e8) + 1) - 1e8) + 1) = 1 in f32 (1e8 + 1 rounds back to 1e8), where a pairwise sum
/// (1e8 + 1) + (-1e8 + 1) gives 0. The init is folded first: init 1 over [1e8, -1e8] gives 0,
/// not 1.
#[test]
fn sum_reduction_folds_sequentially_from_the_init() {
    let data = f32s(&[1e8, 1.0, -1e8, 1.0, -1e8, 1e8, 0.5, 0.25]);
    // Rows: reduce d1 of a 2x4 tensor.
    let rows = reduce(ScalarOp::AddF, "pr", &[2, 4], vec![d(0)], 0, &data);
    assert_eq!(rows.bits, f32s(&[1.0, 0.75]));
    // Columns: the same sums over d0 of the transposed 4x2 tensor ("reduction", "parallel").
    let mut transposed = vec![0; 8];
    for (i, &v) in data.iter().enumerate() {
        transposed[(i % 4) * 2 + i / 4] = v;
    }
    let cols = reduce(ScalarOp::AddF, "rp", &[4, 2], vec![d(1)], 0, &transposed);
    assert_eq!(cols.bits, f32s(&[1.0, 0.75]));
    // The init comes first: 1 + 1e8 = 1e8, then - 1e8 = 0.
    let one = 1f32.to_bits() as u64;
    let total = reduce(ScalarOp::AddF, "r", &[2], vec![], one, &f32s(&[1e8, -1e8]));
    assert_eq!((total.shape, total.bits), (vec![], vec![0]));
}

/// A reduction over two loops visits the domain row-major (d0 outermost): summing
/// [[1e8, 1], [-1e8, 1]] into a scalar is ((1e8 + 1) - 1e8) + 1 = 1, where column-major order
/// would give ((1e8 - 1e8) + 1) + 1 = 2.
#[test]
fn a_two_loop_reduction_visits_the_domain_row_major() {
    let data = f32s(&[1e8, 1.0, -1e8, 1.0]);
    let total = reduce(ScalarOp::AddF, "rr", &[2, 2], vec![], 0, &data);
    assert_eq!(total.bits, f32s(&[1.0]));
}

/// maximumf/minimumf propagate NaN (the canonical one); maxnumf/minnumf return the number when
/// exactly one operand is NaN (a signalling one too) and the canonical NaN when both are; all
/// four order -0 below +0. One four-result elementwise generic.
#[test]
fn maximumf_propagates_nan_and_maxnumf_ignores_it() {
    let a: [u64; 7] = [
        0x7FC0_1234, // qNaN with a payload
        0x3F80_0000,
        0x8000_0000,
        0x0000_0000,
        0x7FC0_0001,
        0xC000_0000,
        0x7F80_0001, // sNaN
    ];
    let b_: [u64; 7] = [
        0x3F80_0000,
        0x7FC0_1234,
        0x0000_0000,
        0x8000_0000,
        0xFFC0_0001,
        0xBF80_0000,
        0x4000_0000,
    ];
    let ops = [
        ScalarOp::MaximumF,
        ScalarOp::MaxNumF,
        ScalarOp::MinimumF,
        ScalarOp::MinNumF,
    ];
    let out = run_pairwise(F32, &ops, F32, &a, &b_);
    let (nan, pz, nz, one, two) = (NAN32, 0, 0x8000_0000, 0x3F80_0000, 0x4000_0000);
    assert_eq!(
        out[0],
        [nan, nan, pz, pz, nan, 0xBF80_0000, nan],
        "maximumf"
    );
    assert_eq!(out[1], [one, one, pz, pz, nan, 0xBF80_0000, two], "maxnumf");
    assert_eq!(
        out[2],
        [nan, nan, nz, nz, nan, 0xC000_0000, nan],
        "minimumf"
    );
    assert_eq!(out[3], [one, one, nz, nz, nan, 0xC000_0000, two], "minnumf");

    // As reductions from -inf over [1, NaN, 3]: amax is NaN with maximumf, 3 with maxnumf.
    let data = [0x3F80_0000, 0x7FC0_4321, 0x4040_0000];
    for (op, want) in [
        (ScalarOp::MaximumF, NAN32),
        (ScalarOp::MaxNumF, 0x4040_0000),
    ] {
        let amax = reduce(op, "r", &[3], vec![], NEG_INF32, &data);
        assert_eq!(amax.bits, vec![want], "{op:?}");
    }
}

/// torch-mlir's max+argmax: one generic with two results over (d0, d1) -> (d0), whose body takes
/// the maximumf and selects the index where `in > out` (cmpf ogt), so the first maximum wins and a
/// NaN never wins the comparison (though it does make the max NaN).
#[test]
fn argmax_of_the_torch_pattern() {
    let mut b = Builder::new("argmax");
    let x = b.arg("x", LType::Tensor(tensor(&[3, 4], F32)));
    let res = max_argmax(&mut b, x, 3);
    let p = b.finish(&res);
    let data = f32s(&[
        3.0,
        7.0,
        7.0,
        1.0,
        -2.0,
        -1.0,
        -5.0,
        -1.0,
        1.0,
        f32::NAN,
        2.0,
        0.0,
    ]);
    let out = run(&p, &[arg(&[3, 4], F32, &data)]);
    assert_eq!(out[0].bits, vec![0x40E0_0000, 0xBF80_0000, NAN32]);
    assert_eq!(out[0].elem, F32);
    assert_eq!(out[1].bits, vec![1, 1, 0]);
    assert_eq!(out[1].elem, I64);
}

/// f16 addf rounds once, to nearest even. numpy:
/// ```text
/// a = np.array([1, 1, 1, 65504, 0.1, -2.5, 6.1e-5, 1000], dtype=np.float16)
/// b = np.array([2**-11, 3*2**-11, 2**-10+2**-20, 16, 0.2, 2.5, 6.0e-8, 0.3], dtype=np.float16)
/// [hex(v) for v in (a + b).view(np.uint16)]
/// ```
/// (ties to even both ways, an overflow at the midpoint 65520, a subnormal carry into the
/// normals, +1 + -1 = +0).
#[test]
fn f16_add_rounds_like_numpy() {
    let a = [
        0x3c00, 0x3c00, 0x3c00, 0x7bff, 0x2e66, 0xc100, 0x03ff, 0x63d0,
    ];
    let b_ = [
        0x1000, 0x1600, 0x1401, 0x4c00, 0x3266, 0x4100, 0x0001, 0x34cd,
    ];
    let out = run_pairwise(F16, &[ScalarOp::AddF], F16, &a, &b_);
    assert_eq!(
        out[0],
        [0x3c00, 0x3c02, 0x3c01, 0x7c00, 0x34cc, 0x0000, 0x0400, 0x63d1]
    );
}

/// truncf rounds to nearest even (numpy `t.astype(np.float16)` on
/// `np.array([1+2**-11, 1+3*2**-11, 70000, 1e-8, -65519, 65520, 3.0e-8, 0.1], np.float32)`),
/// a NaN becomes the canonical one; extf is exact (hand-computed: f16 0x2e66 is 2^-4 · 1.1001100110b,
/// f32 0x3dccc000; the f16 subnormal 0x0001 is 2^-24 = 0x33800000; f32 0.1 in f64 is
/// numpy's `np.float32(0.1).astype(np.float64)` = 0x3fb99999a0000000); f32 0.1 to bf16 rounds
/// 0x3dcc|cccd up to 0x3dcd.
#[test]
fn truncf_rounds_to_nearest_even_and_extf_is_exact() {
    let t32 = [
        0x3f801000u64,
        0x3f803000,
        0x4788b800,
        0x322bcc77,
        0xc77fef00,
        0x477ff000,
        0x3300d959,
        0x3dcccccd,
        0x7fc01234,
    ];
    let ty32 = tensor(&[9], F32);
    let mut b = Builder::new("convert");
    let x = b.arg("x", LType::Tensor(ty32.clone()));
    let h = b.empty(&tensor(&[9], F16));
    let back = b.empty(&ty32);
    let wide = b.empty(&tensor(&[9], F64));
    let brain = b.empty(&tensor(&[9], BF16));
    let mut r = Region::new(&[F32, F16, F32, F64, BF16]);
    let narrow = r.op(ScalarOp::TruncF, &[BodyValue::Arg(0)], F16);
    let widened = r.op(ScalarOp::ExtF, &[narrow], F32);
    let to64 = r.op(ScalarOp::ExtF, &[BodyValue::Arg(0)], F64);
    let to_bf16 = r.op(ScalarOp::TruncF, &[BodyValue::Arg(0)], BF16);
    let res = elementwise(
        &mut b,
        &[x],
        &[h, back, wide, brain],
        r.yields(&[narrow, widened, to64, to_bf16]),
    );
    let p = b.finish(&res);
    let out = run(&p, &[arg(&[9], F32, &t32)]);
    assert_eq!(
        out[0].bits,
        vec![0x3c00, 0x3c02, 0x7c00, 0x0000, 0xfbff, 0x7c00, 0x0001, 0x2e66, 0x7e00]
    );
    assert_eq!(
        out[1].bits,
        vec![
            0x3f800000, 0x3f804000, 0x7f800000, 0x00000000, 0xc77fe000, 0x7f800000, 0x33800000,
            0x3dccc000, 0x7fc00000
        ]
    );
    assert_eq!(out[2].bits[7], 0x3fb9_9999_a000_0000);
    assert_eq!(out[2].bits[0], (1.0f64 + 2f64.powi(-11)).to_bits());
    assert_eq!(out[2].bits[8], 0x7ff8_0000_0000_0000);
    assert_eq!(out[3].bits[7], 0x3dcd);
    assert_eq!(out[3].bits[0], 0x3f80, "1 + 2^-11 rounds down to 1 in bf16");
}

/// An integer division whose divisor is zero, or `INT_MIN / -1`, is undefined behaviour: an error
/// naming the body op's location and the iteration point. Defined divisions truncate (divsi) or
/// floor (divui).
#[test]
fn integer_division_by_zero_is_a_located_error() {
    let neg = |v: i32| v as u32 as u64;
    let (xs, ys) = ([neg(-7), 7, neg(-8)], [2, neg(-2), 3]);
    let out = run_pairwise(I32, &[ScalarOp::DivSI, ScalarOp::DivUI], I32, &xs, &ys);
    assert_eq!(out[0], [neg(-3), neg(-3), neg(-2)], "divsi truncates");
    assert_eq!(
        out[1],
        [0xFFFF_FFF9 / 2, 0, 0xFFFF_FFF8 / 3],
        "divui reads unsigned"
    );

    let divsi = pairwise(I32, 3, &[ScalarOp::DivSI], I32);
    let divui = pairwise(I32, 3, &[ScalarOp::DivUI], I32);
    let e = error(
        &divsi,
        &[arg(&[3], I32, &[1, 2, 3]), arg(&[3], I32, &[1, 0, 1])],
    );
    assert_eq!(
        e,
        "test.mlir:100:5: arith.divsi: divides by zero at iteration (1), which is undefined behaviour"
    );
    let e = error(
        &divui,
        &[arg(&[3], I32, &[1, 2, 3]), arg(&[3], I32, &[0, 1, 1])],
    );
    assert!(
        e.starts_with("test.mlir:100:5: arith.divui: divides by zero at iteration (0)"),
        "{e}"
    );
    let e = error(
        &divsi,
        &[
            arg(&[3], I32, &[1, 2, 0x8000_0000]),
            arg(&[3], I32, &[1, 1, neg(-1)]),
        ],
    );
    let want = "test.mlir:100:5: arith.divsi: overflows (-2147483648 / -1) at iteration (2)";
    assert!(e.starts_with(want), "{e}");
}

/// Wrong arity, shapes and kinds of arguments, and operands whose shapes give a loop two extents,
/// are errors.
#[test]
fn mismatched_shapes_and_arguments_are_errors() {
    let ty = tensor(&[2, 3], F32);
    let mut b = Builder::new("f");
    let x = b.arg("x", LType::Tensor(ty.clone()));
    let n = b.arg("n", LType::Scalar(F32));
    let init = b.empty(&ty);
    let mut r = Region::new(&[F32, F32]);
    let q = r.op(
        ScalarOp::DivF,
        &[BodyValue::Arg(0), BodyValue::Outer(n)],
        F32,
    );
    let res = elementwise(&mut b, &[x], &[init], r.yields(&[q]));
    let p = b.finish(&res);
    let good = arg(&[2, 3], F32, &f32s(&[1.0, 2.0, -7.0, 0.1, 0.0, -0.0]));
    let three = LinalgArg::Scalar(3f32.to_bits() as u64);
    // x / 3 in numpy float32: 0x3eaaaaab 0x3f2aaaab 0xc0155555 0x3d088889, then +0 and -0.
    let out = run(&p, &[good.clone(), three.clone()]);
    assert_eq!(
        out[0].bits,
        vec![
            0x3eaaaaab,
            0x3f2aaaab,
            0xc0155555,
            0x3d088889,
            0,
            0x8000_0000
        ]
    );

    assert_eq!(
        error(&p, std::slice::from_ref(&good)),
        "@f takes 2 argument(s), 1 given"
    );
    assert_eq!(
        error(&p, &[arg(&[3, 2], F32, &[0; 6]), three.clone()]),
        "argument 0 (tensor<2x3xf32>): a tensor<3x2xf32> given"
    );
    assert_eq!(
        error(&p, &[arg(&[2, 3], F16, &[0; 6]), three.clone()]),
        "argument 0 (tensor<2x3xf32>): a tensor<2x3xf16> given"
    );
    assert_eq!(
        error(&p, &[arg(&[2, 3], F32, &[0; 5]), three.clone()]),
        "argument 0 (tensor<2x3xf32>): 5 elements and 5 poison flags given, the tensor has 6"
    );
    assert_eq!(
        error(&p, &[three.clone(), three.clone()]),
        "argument 0 (tensor<2x3xf32>): a scalar given"
    );
    assert_eq!(
        error(&p, &[good.clone(), good.clone()]),
        "argument 1 (f32): a tensor<2x3xf32> given"
    );

    // An input whose shape disagrees with the output's on d1.
    let mut b = Builder::new("g");
    let x = b.arg("x", LType::Tensor(tensor(&[2, 3], F32)));
    let init = b.empty(&tensor(&[2, 4], F32));
    let mut r = Region::new(&[F32, F32]);
    let e = r.op(ScalarOp::Exp, &[BodyValue::Arg(0)], F32);
    let res = elementwise(&mut b, &[x], &[init], r.yields(&[e]));
    let p = b.finish(&res);
    assert_eq!(
        error(&p, &[arg(&[2, 3], F32, &[0; 6])]),
        "test.mlir:3:5: linalg.generic: loop d1 has extent 3 from operand 0 and 4 from operand 1"
    );
}

/// Every cmpf predicate on ordered, equal, unordered and signed-zero pairs (by hand: IEEE
/// relations, NaN unordered, -0 == +0).
#[test]
fn cmpf_has_all_sixteen_predicates() {
    use CmpFPredicate::*;
    let pairs: [(f32, f32); 5] = [
        (1.0, 2.0),
        (2.0, 2.0),
        (f32::NAN, 1.0),
        (0.0, -0.0),
        (3.0, -1.0),
    ];
    let table: [(CmpFPredicate, [u64; 5]); 16] = [
        (False, [0, 0, 0, 0, 0]),
        (Oeq, [0, 1, 0, 1, 0]),
        (Ogt, [0, 0, 0, 0, 1]),
        (Oge, [0, 1, 0, 1, 1]),
        (Olt, [1, 0, 0, 0, 0]),
        (Ole, [1, 1, 0, 1, 0]),
        (One, [1, 0, 0, 0, 1]),
        (Ord, [1, 1, 0, 1, 1]),
        (Ueq, [0, 1, 1, 1, 0]),
        (Ugt, [0, 0, 1, 0, 1]),
        (Uge, [0, 1, 1, 1, 1]),
        (Ult, [1, 0, 1, 0, 0]),
        (Ule, [1, 1, 1, 1, 0]),
        (Une, [1, 0, 1, 0, 1]),
        (Uno, [0, 0, 1, 0, 0]),
        (True, [1, 1, 1, 1, 1]),
    ];
    let ops: Vec<ScalarOp> = table.iter().map(|&(p, _)| ScalarOp::CmpF(p)).collect();
    let xs: Vec<f32> = pairs.iter().map(|p| p.0).collect();
    let ys: Vec<f32> = pairs.iter().map(|p| p.1).collect();
    let out = run_pairwise(F32, &ops, Elem::I1, &f32s(&xs), &f32s(&ys));
    for (bits, (pred, want)) in out.iter().zip(table) {
        assert_eq!(bits, &want, "{pred:?}");
    }
}

/// Every cmpi predicate on i8 pairs (-1, 1), (1, 1), (-128, 127): signed predicates read the
/// bits as two's complement, unsigned ones as 255, 1, 128, 127.
#[test]
fn cmpi_has_all_ten_predicates() {
    use CmpIPredicate::*;
    let table: [(CmpIPredicate, [u64; 3]); 10] = [
        (Eq, [0, 1, 0]),
        (Ne, [1, 0, 1]),
        (Slt, [1, 0, 1]),
        (Sle, [1, 1, 1]),
        (Sgt, [0, 0, 0]),
        (Sge, [0, 1, 0]),
        (Ult, [0, 0, 0]),
        (Ule, [0, 1, 0]),
        (Ugt, [1, 0, 1]),
        (Uge, [1, 1, 1]),
    ];
    let ops: Vec<ScalarOp> = table.iter().map(|&(p, _)| ScalarOp::CmpI(p)).collect();
    let out = run_pairwise(I8, &ops, Elem::I1, &[0xFF, 1, 0x80], &[1, 1, 0x7F]);
    for (bits, (pred, want)) in out.iter().zip(table) {
        assert_eq!(bits, &want, "{pred:?}");
    }
}

/// Integer ops wrap at the width; max/min read signed or unsigned; index_cast sign-extends into
/// index and truncates out of it.
#[test]
fn integer_ops_wrap_at_the_width() {
    use ScalarOp::*;
    let ops = [AddI, SubI, MulI, MaxSI, MinSI, MaxUI, MinUI];
    // (127, 1), (-128, 1), (16, -16)
    let out = run_pairwise(I8, &ops, I8, &[0x7F, 0x80, 0x10], &[1, 1, 0xF0]);
    assert_eq!(out[0], [0x80, 0x81, 0x00], "addi");
    assert_eq!(out[1], [0x7E, 0x7F, 0x20], "subi");
    assert_eq!(out[2], [0x7F, 0x80, 0x00], "muli: -256 wraps to 0");
    assert_eq!(out[3], [0x7F, 0x01, 0x10], "maxsi");
    assert_eq!(out[4], [0x01, 0x80, 0xF0], "minsi");
    assert_eq!(out[5], [0x7F, 0x80, 0xF0], "maxui");
    assert_eq!(out[6], [0x01, 0x01, 0x10], "minui");

    // index_cast i8 -> index sign-extends, index -> i8 keeps the low bits (300 -> 44).
    let mut b = Builder::new("casts");
    let x = b.arg("x", LType::Tensor(tensor(&[3], I8)));
    let wide = b.empty(&tensor(&[3], Elem::Index));
    let narrow = b.empty(&tensor(&[3], I8));
    let mut r = Region::new(&[I8, Elem::Index, I8]);
    let w = r.op(IndexCast, &[BodyValue::Arg(0)], Elem::Index);
    let c300 = r.op(Constant(300), &[], Elem::Index);
    let t = r.op(IndexCast, &[c300], I8);
    let res = elementwise(&mut b, &[x], &[wide, narrow], r.yields(&[w, t]));
    let out = run(&b.finish(&res), &[arg(&[3], I8, &[0x7F, 0x80, 0x10])]);
    assert_eq!(out[0].bits, [0x7F, (-128i64) as u64, 0x10]);
    assert_eq!(out[1].bits, [44, 44, 44]);
}

/// Layer-norm style pieces: a scalar captured from outside the region, an f64 detour through
/// extf, a captured f64 constant, rsqrt, truncf back, a splat tensor constant and a collapse to
/// rank 1. rsqrt(4x) of 4, 16, 1/4, 1 is 1/4, 1/8, 1, 1/2 exactly; + splat 2.0.
#[test]
fn captured_scalars_f64_detour_constants_and_reshape() {
    let ty = tensor(&[2, 2], F32);
    let mut b = Builder::new("norm");
    let x = b.arg("x", LType::Tensor(ty.clone()));
    let four = b.constant(LType::Scalar(F64), 4f64.to_bits());
    let twos = b.constant(LType::Tensor(ty.clone()), 2f32.to_bits() as u64);
    let init = b.empty(&ty);
    let mut r = Region::new(&[F32, F32, F32]);
    let w = r.op(ScalarOp::ExtF, &[BodyValue::Arg(0)], F64);
    let m = r.op(ScalarOp::MulF, &[w, BodyValue::Outer(four)], F64);
    let s = r.op(ScalarOp::Rsqrt, &[m], F64);
    let n = r.op(ScalarOp::TruncF, &[s], F32);
    let plus = r.op(ScalarOp::AddF, &[n, BodyValue::Arg(1)], F32);
    let y = elementwise(&mut b, &[x, twos], &[init], r.yields(&[plus]))[0];
    let flat = b.reshape(y, &tensor(&[4], F32));
    let p = b.finish(&[flat, y]);
    let out = run(&p, &[arg(&[2, 2], F32, &f32s(&[4.0, 16.0, 0.25, 1.0]))]);
    assert_eq!(out[0].shape, vec![4]);
    assert_eq!(out[0].bits, f32s(&[2.25, 2.125, 3.0, 2.5]));
    assert_eq!(out[1].shape, vec![2, 2]);
    assert_eq!(out[1].bits, out[0].bits);

    // A reshape to a different element count is refused.
    let mut b = Builder::new("bad");
    let x = b.arg("x", LType::Tensor(ty.clone()));
    let flat = b.reshape(x, &tensor(&[3], F32));
    let p = b.finish(&[flat]);
    assert_eq!(
        error(&p, &[arg(&[2, 2], F32, &[0; 4])]),
        "test.mlir:2:5: tensor.expand_shape/collapse_shape: cannot reshape tensor<2x2xf32> to tensor<3xf32>"
    );
}

/// Poison: a `fastmath<nnan>` maximumf on a NaN gives poison (any value is correct there, so the
/// compiled plain MAX is too); poison reaches a select's result only through its condition or the
/// chosen operand; reading an unwritten `tensor.empty` element gives poison.
#[test]
fn nnan_and_empty_reads_give_poison() {
    let ty = tensor(&[3], F32);
    let mut b = Builder::new("fast");
    let x = b.arg("x", LType::Tensor(ty.clone()));
    let outs: Vec<ValueId> = (0..3).map(|_| b.empty(&ty)).collect();
    let mut r = Region::new(&[F32; 4]);
    let zero = r.op(ScalarOp::Constant(0), &[], F32);
    let m = r.op_nnan(ScalarOp::MaximumF, &[BodyValue::Arg(0), zero], F32);
    // select(x >= 0 (ordered), m, 0): a NaN x picks 0, so the poison m is not chosen.
    let ge = r.op(
        ScalarOp::CmpF(CmpFPredicate::Oge),
        &[BodyValue::Arg(0), zero],
        Elem::I1,
    );
    let s = r.op(ScalarOp::Select, &[ge, m, zero], F32);
    // Adds the output's own (unwritten, tensor.empty) element.
    let stale = r.op(ScalarOp::AddF, &[BodyValue::Arg(3), BodyValue::Arg(0)], F32);
    let res = elementwise(&mut b, &[x], &outs, r.yields(&[m, s, stale]));
    let p = b.finish(&res);
    let out = run(&p, &[arg(&[3], F32, &f32s(&[-1.0, f32::NAN, 2.0]))]);
    assert_eq!(out[0].poison, vec![false, true, false]);
    assert_eq!((out[0].bits[0], out[0].bits[2]), (0, 0x4000_0000));
    assert_eq!(out[1].poison, vec![false, false, false]);
    assert_eq!(out[1].bits, vec![0, 0, 0x4000_0000]);
    assert_eq!(out[2].poison, vec![true, true, true]);
}

/// Body ops whose operand types do not fit the op are located errors.
#[test]
fn ill_typed_bodies_are_located_errors() {
    let ty = tensor(&[2], F32);
    let build = |op: ScalarOp, ty_out: Elem| {
        let mut b = Builder::new("bad");
        let x = b.arg("x", LType::Tensor(ty.clone()));
        let init = b.empty(&tensor(&[2], ty_out));
        let mut r = Region::new(&[F32, ty_out]);
        let v = r.op(op, &[BodyValue::Arg(0)], ty_out);
        let res = elementwise(&mut b, &[x], &[init], r.yields(&[v]));
        b.finish(&res)
    };
    let x = arg(&[2], F32, &[0; 2]);
    assert_eq!(
        error(&build(ScalarOp::ExtF, F16), std::slice::from_ref(&x)),
        "test.mlir:100:5: arith.extf: cannot convert f32 to f16: not a widening"
    );
    assert_eq!(
        error(&build(ScalarOp::TruncF, F64), std::slice::from_ref(&x)),
        "test.mlir:100:5: arith.truncf: cannot convert f32 to f64: not a narrowing"
    );
    assert_eq!(
        error(&build(ScalarOp::NegF, I32), std::slice::from_ref(&x)),
        "test.mlir:100:5: arith.negf: a f32 operand for a i32 result"
    );
    assert_eq!(
        error(&build(ScalarOp::AddI, I32), std::slice::from_ref(&x)),
        "test.mlir:100:5: arith.addi: takes 2 operand(s), 1 given"
    );
}

/// addf, subf, mulf, divf, sqrt against the host's IEEE arithmetic on random operands (NaN results
/// compared as the canonical NaN): f32 and f64 directly; f16 and bf16 through f32 and one RNE
/// rounding by `half` (f32's 24 bits make the double rounding innocuous, 24 >= 2p + 2).
#[test]
fn float_ops_match_host_ieee_arithmetic() {
    let ops = [
        ScalarOp::AddF,
        ScalarOp::SubF,
        ScalarOp::MulF,
        ScalarOp::DivF,
        ScalarOp::Sqrt,
    ];
    /// The host's op on two values widened to `W` (sqrt takes the first).
    fn host<W: Copy>(op: ScalarOp, a: W, b: W, f: [fn(W, W) -> W; 5]) -> W {
        let i = match op {
            ScalarOp::AddF => 0,
            ScalarOp::SubF => 1,
            ScalarOp::MulF => 2,
            ScalarOp::DivF => 3,
            _ => 4,
        };
        f[i](a, b)
    }
    let f32_ops: [fn(f32, f32) -> f32; 5] = [
        |a, b| a + b,
        |a, b| a - b,
        |a, b| a * b,
        |a, b| a / b,
        |a, _| a.sqrt(),
    ];
    let f64_ops: [fn(f64, f64) -> f64; 5] = [
        |a, b| a + b,
        |a, b| a - b,
        |a, b| a * b,
        |a, b| a / b,
        |a, _| a.sqrt(),
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let n = 2000;
    // The host's result of each op: (bits, is NaN).
    type Host = Box<dyn Fn(ScalarOp, u64, u64) -> (u64, bool)>;
    // Computed in f32 from the element's value, then rounded to the element by `round`.
    let via_f32 = |value: fn(u64) -> f32, round: fn(f32) -> (u64, bool)| -> Host {
        Box::new(move |op, a, b| round(host(op, value(a), value(b), f32_ops)))
    };
    let f64_host: Host = Box::new(move |op, a, b| {
        let r = host(op, f64::from_bits(a), f64::from_bits(b), f64_ops);
        (r.to_bits(), r.is_nan())
    });
    let f32_host = via_f32(
        |x| f32::from_bits(x as u32),
        |r| (r.to_bits() as u64, r.is_nan()),
    );
    let f16_host = via_f32(
        |x| half::f16::from_bits(x as u16).to_f32(),
        |r| (half::f16::from_f32(r).to_bits() as u64, r.is_nan()),
    );
    let bf16_host = via_f32(
        |x| half::bf16::from_bits(x as u16).to_f32(),
        |r| (half::bf16::from_f32(r).to_bits() as u64, r.is_nan()),
    );
    // (element, width, edge values, the host's op)
    let cases: [(Elem, u32, Vec<u64>, Host); 4] = [
        (
            F32,
            32,
            vec![
                0,
                0x8000_0000,
                0x7F80_0000,
                0xFF80_0000,
                0x7FC0_0001,
                1,
                0x7F7F_FFFF,
                0x3F80_0000,
            ],
            f32_host,
        ),
        (
            F64,
            64,
            vec![
                0,
                1 << 63,
                0x7FF0 << 48,
                0xFFF0 << 48,
                1,
                0x3FF0 << 48,
                0x7FEF_FFFF_FFFF_FFFF,
            ],
            f64_host,
        ),
        (
            F16,
            16,
            vec![0, 0x8000, 0x7C00, 0xFC00, 0x7E01, 1, 0x7BFF, 0x3C00, 0x0400],
            f16_host,
        ),
        (
            BF16,
            16,
            vec![0, 0x8000, 0x7F80, 0xFF80, 0x7FC1, 1, 0x7F7F, 0x3F80, 0x0080],
            bf16_host,
        ),
    ];
    for (elem, bits, edges, host_op) in cases {
        let xs = patterns(&mut rng, n, bits, &edges);
        let ys = patterns(&mut rng, n, bits, &edges);
        let canonical = elem.data().and_then(DataType::canonical_nan).unwrap();
        // sqrt is unary: a separate program reading x alone.
        let binary = run_pairwise(elem, &ops[..4], elem, &xs, &ys);
        let mut b = Builder::new("sqrt");
        let x = b.arg("x", LType::Tensor(tensor(&[n as u32], elem)));
        let init = b.empty(&tensor(&[n as u32], elem));
        let mut r = Region::new(&[elem, elem]);
        let s = r.op(ScalarOp::Sqrt, &[BodyValue::Arg(0)], elem);
        let res = elementwise(&mut b, &[x], &[init], r.yields(&[s]));
        let roots = run(&b.finish(&res), &[arg(&[n as u32], elem, &xs)])
            .remove(0)
            .bits;
        for (op, got) in ops.iter().zip(binary.iter().chain([&roots])) {
            for i in 0..n {
                let (want, nan) = host_op(*op, xs[i], ys[i]);
                let want = if nan { canonical } else { want };
                assert_eq!(got[i], want, "{elem} {op:?} of {:#x}, {:#x}", xs[i], ys[i]);
            }
        }
    }
}

/// exp and log: the project's "binary64, rounded once" (the host's f64 exp/ln rounded by the
/// host's f64 -> f32 cast, which is RNE) with TEXP's/TLOG's special values; negf and absf touch
/// the sign bit only (a NaN keeps its payload); rsqrt is correctly rounded (exact cases).
#[test]
fn math_ops_and_sign_ops() {
    let xs: Vec<u64> = f32s(&[1.0, 0.0, -1.0, 2.5, -0.0, f32::INFINITY, 1e-30, 4.0])
        .into_iter()
        .chain([0x7FC0_1234])
        .collect();
    let n = xs.len() as u32;
    let ty = tensor(&[n], F32);
    let mut b = Builder::new("math");
    let x = b.arg("x", LType::Tensor(ty.clone()));
    let outs: Vec<ValueId> = (0..5).map(|_| b.empty(&ty)).collect();
    let mut r = Region::new(&[F32; 6]);
    let a = BodyValue::Arg(0);
    let vals: Vec<BodyValue> = [
        ScalarOp::Exp,
        ScalarOp::Log,
        ScalarOp::NegF,
        ScalarOp::AbsF,
        ScalarOp::Rsqrt,
    ]
    .iter()
    .map(|&op| r.op(op, &[a], F32))
    .collect();
    let res = elementwise(&mut b, &[x], &outs, r.yields(&vals));
    let out = run(&b.finish(&res), &[arg(&[n], F32, &xs)]);
    let host = |f: fn(f64) -> f64| -> Vec<u64> {
        xs.iter()
            .map(|&v| {
                let r = f(f32::from_bits(v as u32) as f64) as f32;
                if r.is_nan() {
                    NAN32
                } else {
                    r.to_bits() as u64
                }
            })
            .collect()
    };
    assert_eq!(out[0].bits, host(f64::exp), "exp");
    assert_eq!(out[1].bits, host(f64::ln), "log");
    let (inf, ninf) = (0x7F80_0000, NEG_INF32);
    assert_eq!(out[1].bits[1], ninf, "log(+0) = -inf");
    assert_eq!(out[1].bits[2], NAN32, "log(-1) is NaN");
    let sign = 0x8000_0000;
    let flipped: Vec<u64> = xs.iter().map(|&v| v ^ sign).collect();
    let cleared: Vec<u64> = xs.iter().map(|&v| v & !sign).collect();
    assert_eq!(out[2].bits, flipped, "negf");
    assert_eq!(out[2].bits[8], 0xFFC0_1234, "negf keeps the payload");
    assert_eq!(out[3].bits, cleared, "absf");
    assert_eq!(out[3].bits[8], 0x7FC0_1234, "absf keeps the payload");
    // rsqrt(1) = 1, rsqrt(+0) = +inf, rsqrt(-1) = NaN, rsqrt(-0) = -inf, rsqrt(inf) = 0,
    // rsqrt(4) = 0.5.
    let rs = &out[4].bits;
    assert_eq!(
        (rs[0], rs[1], rs[2], rs[4], rs[5], rs[7]),
        (0x3F80_0000, inf, NAN32, ninf, 0, 0x3F00_0000)
    );
}

/// torch-mlir's broadcast of a reduced row: the max is expanded to 2x1 (`tensor.expand_shape`)
/// and read through `(d0, d1) -> (d0, 0)`.
#[test]
fn a_unit_dimension_broadcasts_through_a_constant_zero_index() {
    let mut b = Builder::new("bcast");
    let x = b.arg("x", LType::Tensor(tensor(&[2, 3], F32)));
    let m = b.arg("m", LType::Tensor(tensor(&[2], F32)));
    let m2 = b.reshape(m, &tensor(&[2, 1], F32));
    let init = b.empty(&tensor(&[2, 3], F32));
    let mut r = Region::new(&[F32, F32, F32]);
    let diff = r.op(ScalarOp::SubF, &[BodyValue::Arg(0), BodyValue::Arg(1)], F32);
    let res = b.generic(
        "pp",
        &[x, m2],
        &[init],
        vec![
            vec![d(0), d(1)],
            vec![d(0), MapExpr::Zero],
            vec![d(0), d(1)],
        ],
        r.yields(&[diff]),
    );
    let p = b.finish(&res);
    let out = run(
        &p,
        &[
            arg(&[2, 3], F32, &f32s(&[1.0, 2.0, 3.0, -1.0, 0.5, 4.0])),
            arg(&[2], F32, &f32s(&[3.0, 4.0])),
        ],
    );
    assert_eq!(out[0].bits, f32s(&[-2.0, -1.0, 0.0, -5.0, -3.5, 0.0]));
}

/// The 8-bit floats (hand-computed): f8E5M2 addf ties to even (1 + 1/8 -> 1, 1 + 3/8 -> 1.5);
/// truncf to f8E4M3FN rounds 460 down to its largest finite value 448 and 500 to its NaN (it has
/// no infinity); extf of 448 to f16 is exact (0x5F00).
#[test]
fn eight_bit_floats() {
    let e5m2 = Elem::Data(DataType::E5M2);
    let e4m3 = Elem::Data(DataType::E4M3);
    let sums = run_pairwise(e5m2, &[ScalarOp::AddF], e5m2, &[0x3C, 0x3C], &[0x30, 0x36]);
    assert_eq!(sums[0], [0x3C, 0x3E]);

    let mut b = Builder::new("f8");
    let x = b.arg("x", LType::Tensor(tensor(&[3], F32)));
    let narrow = b.empty(&tensor(&[3], e4m3));
    let wide = b.empty(&tensor(&[3], F16));
    let mut r = Region::new(&[F32, e4m3, F16]);
    let t = r.op(ScalarOp::TruncF, &[BodyValue::Arg(0)], e4m3);
    let w = r.op(ScalarOp::ExtF, &[t], F16);
    let res = elementwise(&mut b, &[x], &[narrow, wide], r.yields(&[t, w]));
    let out = run(
        &b.finish(&res),
        &[arg(&[3], F32, &f32s(&[460.0, 500.0, 1.0]))],
    );
    assert_eq!(out[0].bits, [0x7E, 0x7F, 0x38]);
    assert_eq!(out[1].bits, [0x5F00, 0x7E00, 0x3C00]);
}

/// Tensors are values: a generic whose input and `outs` are the same tensor reads the input's
/// elements while it writes a copy, and the argument itself is returned unchanged.
#[test]
fn outputs_are_copies_of_the_outs_tensors() {
    let ty = tensor(&[3], F32);
    let mut b = Builder::new("acc");
    let x = b.arg("x", LType::Tensor(ty.clone()));
    let mut r = Region::new(&[F32, F32]);
    let s = r.op(ScalarOp::AddF, &[BodyValue::Arg(0), BodyValue::Arg(1)], F32);
    let doubled = elementwise(&mut b, &[x], &[x], r.yields(&[s]))[0];
    let p = b.finish(&[doubled, x]);
    let out = run(&p, &[arg(&[3], F32, &f32s(&[1.0, -2.5, 3.0]))]);
    assert_eq!(out[0].bits, f32s(&[2.0, -5.0, 6.0]));
    assert_eq!(out[1].bits, f32s(&[1.0, -2.5, 3.0]));
}

/// Malformed generics are located errors, and a domain too large to evaluate is refused before
/// it starts (2^20 x 2^20 points from two 2^20-element inputs).
#[test]
fn malformed_and_oversized_generics_are_errors() {
    let add = |maps: Vec<Vec<MapExpr>>, iterators: &str, shapes: [&[u32]; 3]| {
        let mut b = Builder::new("g");
        let x = b.arg("x", LType::Tensor(tensor(shapes[0], F32)));
        let y = b.arg("y", LType::Tensor(tensor(shapes[1], F32)));
        let init = b.fill_constant(0, &tensor(shapes[2], F32));
        let mut r = Region::new(&[F32, F32, F32]);
        let s = r.op(ScalarOp::AddF, &[BodyValue::Arg(0), BodyValue::Arg(1)], F32);
        let res = b.generic(iterators, &[x, y], &[init], maps, r.yields(&[s]));
        b.finish(&res)
    };
    let zeros = |n: u32| arg(&[n], F32, &vec![0; n as usize]);
    let four = [&[4u32][..], &[4], &[4]];
    let p = add(vec![vec![d(0)], vec![d(0)]], "p", four);
    assert_eq!(
        error(&p, &[zeros(4), zeros(4)]),
        "test.mlir:5:5: linalg.generic: 2 indexing maps for 3 operands"
    );
    let p = add(vec![vec![d(0)], vec![d(0), d(0)], vec![d(0)]], "p", four);
    assert_eq!(
        error(&p, &[zeros(4), zeros(4)]),
        "test.mlir:5:5: linalg.generic: operand 1 has rank 1 but its indexing map has 2 result(s)"
    );
    let p = add(vec![vec![d(0)], vec![d(1)], vec![d(0)]], "p", four);
    assert_eq!(
        error(&p, &[zeros(4), zeros(4)]),
        "test.mlir:5:5: linalg.generic: operand 1's map uses d1 but there are 1 loops"
    );
    let p = add(vec![vec![d(0)], vec![d(0)], vec![d(0)]], "pp", four);
    assert_eq!(
        error(&p, &[zeros(4), zeros(4)]),
        "test.mlir:5:5: linalg.generic: no operand fixes loop d1's extent"
    );
    let big = 1 << 20;
    let p = add(
        vec![vec![d(0)], vec![d(1)], vec![]],
        "rr",
        [&[big], &[big], &[]],
    );
    assert_eq!(
        error(&p, &[zeros(big), zeros(big)]),
        "test.mlir:5:5: linalg.generic: the evaluation would execute more than 200000000 body ops"
    );
}

/// The row softmax on 12x40 f32 and f16 tensors with edge values (-inf, +inf, NaN, the largest
/// finite value, a subnormal, all zeros), against numpy in the program's operation order
/// (`tests/data/gen_linalg_softmax.py`); a NaN expected is the type's canonical NaN here.
#[test]
fn row_softmax_matches_numpy_vectors() {
    for (name, elem) in [("f32", F32), ("f16", F16)] {
        let (rows, cols, input, expected) = read_vectors(&format!("linalg_softmax_{name}"));
        let p = softmax_program(elem, rows, cols);
        let out = run(&p, &[arg(&[rows, cols], elem, &input)]);
        let fmt = elem.data().unwrap().float_format().unwrap();
        let mut nans = 0;
        for (i, (&got, &want)) in out[0].bits.iter().zip(&expected).enumerate() {
            let want = if fmt.unpack(want).is_nan() {
                nans += 1;
                fmt.canonical_nan
            } else {
                want
            };
            assert_eq!(got, want, "{name} element {i}: {got:#x} != {want:#x}");
        }
        assert!(nans >= 2 * cols, "{name}: the NaN rows are NaN");
    }
}

/// torch-mlir's layer norm of f32 rows computed in f64 (extf, sequential mean and variance,
/// divisions by the captured constant `cols`, rsqrt(var + eps), truncf), against numpy float64
/// with an exactly rounded rsqrt (`tests/data/gen_linalg_layernorm.py`); rows include a constant
/// row (variance 0), a 1e30 outlier and f32 subnormals.
#[test]
fn layer_norm_in_f64_matches_numpy_vectors() {
    let (rows, cols, input, expected) = read_vectors("linalg_layernorm_f32");
    let p = layer_norm_program(rows, cols);
    let out = run(&p, &[arg(&[rows, cols], F32, &input)]);
    for (i, (got, want)) in out[0].bits.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "element {i}: {got:#x} != {want:#x}");
    }
}

/// Under `--assume-no-nans` every op is read as `nnan`: a plain maximumf on a NaN gives poison
/// (so the plain ISA MAX the compiler then emits is correct), and a NaN-free element keeps its
/// exact value; without the option the NaN propagates.
#[test]
fn assume_no_nans_reads_every_op_as_nnan() {
    let p = pairwise(F32, 3, &[ScalarOp::MaximumF], F32);
    let args = [
        arg(&[3], F32, &f32s(&[1.0, f32::NAN, -0.0])),
        arg(&[3], F32, &f32s(&[2.0, 3.0, 0.0])),
    ];
    let options = LinalgOptions {
        assume_no_nans: true,
        ..LinalgOptions::default()
    };
    let out = evaluate_linalg_with(&p, &args, options).unwrap();
    assert_eq!(out[0].poison, [false, true, false]);
    assert_eq!((out[0].bits[0], out[0].bits[2]), (0x4000_0000, 0));
    let out = run(&p, &args);
    assert_eq!(out[0].poison, [false, false, false]);
    assert_eq!(out[0].bits, [0x4000_0000, NAN32, 0]);
}

/// [`reduce_program`] run on `data` with float sums and products folded in pieces of `piece`.
fn reduce_in_pieces(
    op: ScalarOp,
    iterators: &str,
    shape: &[u32],
    out_map: Vec<MapExpr>,
    init: u64,
    (data, piece): (&[u64], u32),
) -> LinalgTensor {
    let p = reduce_program(op, iterators, shape, out_map, init);
    let options = LinalgOptions {
        fold_piece: NonZeroU32::new(piece),
        ..LinalgOptions::default()
    };
    let mut out = evaluate_linalg_with(&p, &[arg(shape, F32, data)], options)
        .unwrap_or_else(|e| panic!("evaluation failed: {e}"));
    out.remove(0)
}

/// Under `fold_piece` a float sum folds each line in pieces from +0, joined in order from the
/// init. numpy (float32 steps, RNE), `P` elements a piece:
/// ```text
/// f = np.float32
/// def pieces(line, init, P, start=0):
///     acc = f(init)
///     for k in range(0, len(line), P):
///         p = f(start)
///         for x in line[k:k+P]: p = f(f(x) + p)
///         acc = f(p + acc)
///     return acc
/// ```
/// On [1e8, 3, 3, 3, 3, 3, 3] from 0 the sequential sum stays 1e8 (0x4cbebc20: each 3 rounds
/// away, ulp 8), while pieces of 3 give 1e8, 9, 3 and 1e8 + 9 rounds up to 1e8 + 8
/// (0x4cbebc21); pieces of 1 and of 7 or more are the sequential sum here. The same lines down
/// columns (a 7x2 tensor, lines interleaved in visiting order) fold alike, each on its own.
#[test]
fn fold_piece_sums_in_pieces_joined_from_the_init() {
    let line = f32s(&[1e8, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]);
    let other = f32s(&[1e8, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
    for (piece, want) in [
        (1, 0x4cbe_bc20),
        (3, 0x4cbe_bc21),
        (7, 0x4cbe_bc20),
        (100, 0x4cbe_bc20),
    ] {
        let r = reduce_in_pieces(ScalarOp::AddF, "r", &[7], vec![], 0, (&line, piece));
        assert_eq!(r.bits, [want], "pieces of {piece}");
    }
    assert_eq!(
        reduce(ScalarOp::AddF, "r", &[7], vec![], 0, &line).bits,
        [0x4cbe_bc20]
    );
    // Rows of a 2x7 tensor, and the same lines as the columns of a 7x2 one.
    let rows: Vec<u64> = line.iter().chain(&other).copied().collect();
    let r = reduce_in_pieces(ScalarOp::AddF, "pr", &[2, 7], vec![d(0)], 0, (&rows, 3));
    assert_eq!(r.bits, [0x4cbe_bc21, 0x4cbe_bc20]);
    let cols: Vec<u64> = line
        .iter()
        .zip(&other)
        .flat_map(|(&a, &b)| [a, b])
        .collect();
    let r = reduce_in_pieces(ScalarOp::AddF, "rp", &[7, 2], vec![d(1)], 0, (&cols, 3));
    assert_eq!(r.bits, [0x4cbe_bc21, 0x4cbe_bc20]);
    // A line no longer than a piece is one piece, and the init joins after it: init 1 over
    // [1e8, -1e8] is (1e8 - 1e8) + 1 = 1, where the sequential fold gives (1 + 1e8) - 1e8 = 0.
    let one = 1f32.to_bits() as u64;
    let pair = f32s(&[1e8, -1e8]);
    for piece in [2, 3, 1 << 20] {
        let r = reduce_in_pieces(ScalarOp::AddF, "r", &[2], vec![], one, (&pair, piece));
        assert_eq!(r.bits, [one], "pieces of {piece}");
    }
    assert_eq!(
        reduce(ScalarOp::AddF, "r", &[2], vec![], one, &pair).bits,
        [0]
    );
    // Pieces of 1 differ from the sequential fold only through the start: each -0 becomes
    // +0 + -0 = +0, so a line of -0 from a -0 init sums to +0, not -0.
    let neg_zero = 0x8000_0000;
    let zeros = [neg_zero; 3];
    let r = reduce_in_pieces(ScalarOp::AddF, "r", &[3], vec![], neg_zero, (&zeros, 1));
    assert_eq!(r.bits, [0]);
    let r = reduce(ScalarOp::AddF, "r", &[3], vec![], neg_zero, &zeros);
    assert_eq!(r.bits, [neg_zero]);
}

/// A product folds its pieces from one: numpy's `pieces` above with `*` and start 1, on
/// [0x3f77be47, 0x3f914757, 0x3fdeeb3d, 0x3f8e90f5] from init 1, gives 0x40085b64 for pieces
/// of 2 ((a*b) * (c*d)) and 0x40085b63 sequentially (((a*b)*c)*d).
#[test]
fn fold_piece_products_start_each_piece_from_one() {
    let data = [0x3f77_be47, 0x3f91_4757, 0x3fde_eb3d, 0x3f8e_90f5];
    let one = 1f32.to_bits() as u64;
    let r = reduce_in_pieces(ScalarOp::MulF, "r", &[4], vec![], one, (&data, 2));
    assert_eq!(r.bits, [0x4008_5b64]);
    let r = reduce_in_pieces(ScalarOp::MulF, "r", &[4], vec![], one, (&data, 4));
    assert_eq!(r.bits, [0x4008_5b63]);
    assert_eq!(
        reduce(ScalarOp::MulF, "r", &[4], vec![], one, &data).bits,
        [0x4008_5b63]
    );
}

/// A NaN in a piece makes the piece, and so the line, the canonical NaN (as the ISA's SUM does,
/// docs/isa.md §1.5), whatever its payload; so do infinities of both signs in different pieces.
#[test]
fn fold_piece_nans_are_canonical() {
    let signalling = [
        1f32.to_bits() as u64,
        0xFF80_0001,
        2f32.to_bits() as u64,
        3f32.to_bits() as u64,
    ];
    let r = reduce_in_pieces(ScalarOp::AddF, "r", &[4], vec![], 0, (&signalling, 2));
    assert_eq!(r.bits, [NAN32]);
    let infs = f32s(&[f32::INFINITY, 1.0, f32::NEG_INFINITY, 1.0]);
    let r = reduce_in_pieces(ScalarOp::AddF, "r", &[4], vec![], 0, (&infs, 2));
    assert_eq!(r.bits, [NAN32]);
    let r = reduce_in_pieces(ScalarOp::MulF, "r", &[4], vec![], 0, (&signalling, 3));
    assert_eq!(r.bits, [NAN32]);
}

/// `fold_piece` leaves alone what reassociates exactly (max and min, integer folds) and what is
/// no reduction: an elementwise `out = x + out` adds -0 to a -0 output (-0), where a piece
/// from +0 would give +0.
#[test]
fn fold_piece_changes_only_float_sums_and_products() {
    let data = f32s(&[1.0, f32::NAN, -0.0, 0.0, 5.0, -3.0, 2.0]);
    for op in [
        ScalarOp::MaximumF,
        ScalarOp::MaxNumF,
        ScalarOp::MinimumF,
        ScalarOp::MinNumF,
    ] {
        let sequential = reduce(op, "r", &[7], vec![], NEG_INF32, &data);
        for piece in [1, 2, 3] {
            let r = reduce_in_pieces(op, "r", &[7], vec![], NEG_INF32, (&data, piece));
            assert_eq!(r.bits, sequential.bits, "{op:?} in pieces of {piece}");
        }
    }
    let mut b = Builder::new("acc");
    let ty = tensor(&[2], F32);
    let x = b.arg("x", LType::Tensor(ty.clone()));
    let y = b.arg("y", LType::Tensor(ty));
    let mut r = Region::new(&[F32, F32]);
    let s = r.op(ScalarOp::AddF, &[BodyValue::Arg(0), BodyValue::Arg(1)], F32);
    let res = elementwise(&mut b, &[x], &[y], r.yields(&[s]));
    let p = b.finish(&res);
    let (neg_zero, one) = (0x8000_0000, 1f32.to_bits() as u64);
    let args = [
        arg(&[2], F32, &[neg_zero, one]),
        arg(&[2], F32, &[neg_zero, one]),
    ];
    let options = LinalgOptions {
        fold_piece: NonZeroU32::new(1),
        ..LinalgOptions::default()
    };
    let out = evaluate_linalg_with(&p, &args, options).unwrap();
    assert_eq!(out[0].bits, [neg_zero, 2f32.to_bits() as u64]);
}

/// truncf and extf against the host's conversions on random bit patterns with edge values
/// (f64 -> f32 by `as`, f32 -> f16 and f32 -> bf16 by `half`'s RNE `from_f32`, and the exact
/// widenings back), NaNs compared as the canonical NaN of the result type.
#[test]
fn conversions_match_the_host() {
    let mut rng = Rng(0xC0FF_EE00_D15E_A5E5);
    let n = 3000;
    let f64_edges = [
        0,
        1 << 63,
        0x7FF0 << 48,
        1,
        0x47EF_FFFF_E000_0000,
        0x3690_0000_0000_0000,
    ];
    let f32_edges = [
        0,
        0x8000_0000,
        0x7F80_0000,
        0x7FC0_0001,
        1,
        0x477F_F000,
        0x3380_0000,
    ];
    let canonical = |elem: Elem, nan: bool, bits: u64| {
        if nan {
            elem.data()
                .and_then(DataType::canonical_nan)
                .unwrap_or(bits)
        } else {
            bits
        }
    };
    type Host = fn(u64) -> (u64, bool);
    let cases: [(Elem, Elem, &[u64], ScalarOp, Host); 6] = [
        (F64, F32, &f64_edges, ScalarOp::TruncF, |a| {
            let r = f64::from_bits(a) as f32;
            (r.to_bits() as u64, r.is_nan())
        }),
        (F32, F16, &f32_edges, ScalarOp::TruncF, |a| {
            let r = half::f16::from_f32(f32::from_bits(a as u32));
            (r.to_bits() as u64, r.is_nan())
        }),
        (F32, BF16, &f32_edges, ScalarOp::TruncF, |a| {
            let r = half::bf16::from_f32(f32::from_bits(a as u32));
            (r.to_bits() as u64, r.is_nan())
        }),
        (F32, F64, &f32_edges, ScalarOp::ExtF, |a| {
            let r = f32::from_bits(a as u32) as f64;
            (r.to_bits(), r.is_nan())
        }),
        (
            F16,
            F32,
            &[0, 0x8000, 0x7C00, 0x7E01, 1, 0x03FF],
            ScalarOp::ExtF,
            |a| {
                let r = half::f16::from_bits(a as u16).to_f32();
                (r.to_bits() as u64, r.is_nan())
            },
        ),
        (
            BF16,
            F32,
            &[0, 0x8000, 0x7F80, 0x7FC1, 1],
            ScalarOp::ExtF,
            |a| {
                let r = half::bf16::from_bits(a as u16).to_f32();
                (r.to_bits() as u64, r.is_nan())
            },
        ),
    ];
    for (from, to, edges, op, host) in cases {
        let xs = patterns(&mut rng, n, from.bits(), edges);
        let mut b = Builder::new("convert");
        let x = b.arg("x", LType::Tensor(tensor(&[n as u32], from)));
        let init = b.empty(&tensor(&[n as u32], to));
        let mut r = Region::new(&[from, to]);
        let v = r.op(op, &[BodyValue::Arg(0)], to);
        let res = elementwise(&mut b, &[x], &[init], r.yields(&[v]));
        let got = run(&b.finish(&res), &[arg(&[n as u32], from, &xs)])
            .remove(0)
            .bits;
        for (&a, &g) in xs.iter().zip(&got) {
            let (want, nan) = host(a);
            assert_eq!(
                g,
                canonical(to, nan, want),
                "{op:?} {from} -> {to} of {a:#x}"
            );
        }
    }
}

/// Every cmpf predicate against the host's IEEE comparisons of random f32 pairs (Rust's `<`,
/// `==` and friends are the ordered relations; `!=` is une).
#[test]
fn cmpf_matches_the_host() {
    use CmpFPredicate::*;
    let preds = [
        False, Oeq, Ogt, Oge, Olt, Ole, One, Ord, Ueq, Ugt, Uge, Ult, Ule, Une, Uno, True,
    ];
    let host = |p: CmpFPredicate, a: f32, b: f32| {
        let u = a.is_nan() || b.is_nan();
        match p {
            False => false,
            Oeq => a == b,
            Ogt => a > b,
            Oge => a >= b,
            Olt => a < b,
            Ole => a <= b,
            One => !u && a != b,
            Ord => !u,
            Ueq => u || a == b,
            Ugt => u || a > b,
            Uge => u || a >= b,
            Ult => u || a < b,
            Ule => u || a <= b,
            Une => a != b,
            Uno => u,
            True => true,
        }
    };
    let mut rng = Rng(0x5EED_CAFE);
    let edges = [
        0,
        0x8000_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        1,
        0x3F80_0000,
    ];
    // Few distinct values, so equal pairs are common.
    let small: Vec<u64> = patterns(&mut rng, 2000, 32, &edges)
        .into_iter()
        .map(|v| {
            if v % 3 == 0 {
                v
            } else {
                edges[(v % 7) as usize]
            }
        })
        .collect();
    let (xs, ys) = small.split_at(1000);
    let ops: Vec<ScalarOp> = preds.iter().map(|&p| ScalarOp::CmpF(p)).collect();
    let out = run_pairwise(F32, &ops, Elem::I1, xs, ys);
    for (p, got) in preds.iter().zip(&out) {
        for ((&a, &b), &g) in xs.iter().zip(ys).zip(got) {
            let (fa, fb) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            assert_eq!(g, host(*p, fa, fb) as u64, "{p:?} {a:#x} {b:#x}");
        }
    }
}
