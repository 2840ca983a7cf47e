//! The reference evaluator on tile IR as written: the README's softmax kernel, pads on
//! non-SizeCode shapes, and its errors.

use ptoc_ir::{Function, Location, TileType, ValueId};
use ptoc_isa::ops::by_mnemonic;
use ptoc_isa::{DataType, ElementOp, PadValue};
use ptoc_runtime::numerics::{self, lane::Fp32, reduce::fold};
use ptoc_runtime::{evaluate, EvalError, Tile};

fn push(f: &mut Function, mnemonic: &str, operands: Vec<ValueId>, ty: TileType) -> ValueId {
    f.push_op(
        by_mnemonic(mnemonic).unwrap(),
        operands,
        ty,
        None,
        Location::new("k.mlir", 3, 8),
    )
}

fn defined(ty: &TileType, values: &[u64]) -> Tile {
    let (r, c, vr, vc) = ty.dims().unwrap();
    Tile::new(ty.dtype, r, c, vr, vc)
        .unwrap()
        .with_valid_values(values)
        .unwrap()
}

#[test]
fn softmax_rows_matches_the_composed_element_ops() {
    let full = TileType::new(4, 8, DataType::FP32);
    let col = TileType::new(4, 1, DataType::FP32);
    let mut f = Function::new("softmax_rows", Location::unknown());
    let x = f.add_arg(Some("x".into()), full);
    let m = push(&mut f, "TROWMAX", vec![x], col);
    let e = push(&mut f, "TROWEXPANDEXPDIF", vec![x, m], full);
    let s = push(&mut f, "TROWSUM", vec![e], col);
    let r = push(&mut f, "TROWEXPANDDIV", vec![e, s], full);
    f.results.push(r);
    let xs: Vec<u64> = (0..32)
        .map(|i| ((i as f32 * 0.37).sin() * 5.0).to_bits() as u64)
        .collect();
    let out = evaluate(&f, &[defined(&full, &xs)]).unwrap();
    let bin = |op, a, b| numerics::binary(op, DataType::FP32, a, b).unwrap().0;
    for row in 0..4 {
        let xr = &xs[row * 8..row * 8 + 8];
        let max = fold::<Fp32>(ptoc_isa::Reduction::Max, xr.iter().copied()).0;
        let exps: Vec<u64> = xr.iter().map(|&v| bin(ElementOp::ExpDif, v, max)).collect();
        let sum = fold::<Fp32>(ptoc_isa::Reduction::Sum, exps.iter().copied()).0;
        let mut total = 0.0f64;
        for (c, &exp) in exps.iter().enumerate() {
            let want = bin(ElementOp::Div, exp, sum);
            assert_eq!(out[0].get(row, c), Some(want));
            total += f32::from_bits(want as u32) as f64;
        }
        assert!((total - 1.0).abs() < 1e-6, "row {row} sums to {total}");
    }
}

#[test]
fn results_take_the_written_shape_and_pad() {
    // 3x4 valid 3x3 source, padded result of a 3x1 broadcast: shapes no SizeCode derives.
    let src = TileType::new(3, 4, DataType::S16).with_valid(3, 3);
    let b = TileType::new(3, 1, DataType::S16);
    let res = src.with_pad(PadValue::Min);
    let mut f = Function::new("k", Location::unknown());
    let a0 = f.add_arg(None, src);
    let a1 = f.add_arg(None, b);
    let r = push(&mut f, "TROWEXPANDSUB", vec![a0, a1], res);
    f.results.push(r);
    let out = evaluate(&f, &[defined(&src, &[5; 9]), defined(&b, &[1, 2, 0xFFFF])]).unwrap();
    let t = &out[0];
    assert_eq!((t.rows, t.cols), (3, 4));
    assert_eq!(
        (t.get(0, 0), t.get(1, 2), t.get(2, 1)),
        (Some(4), Some(3), Some(6))
    );
    assert_eq!(t.get(0, 3), Some(0x8000), "S16 Min pad");
}

#[test]
fn errors_name_the_problem() {
    let ty = TileType::new(2, 2, DataType::U8);
    let mut f = Function::new("k", Location::unknown());
    let a = f.add_arg(None, ty);
    let r = push(&mut f, "TDIV", vec![a, a], ty);
    f.results.push(r);
    assert!(matches!(
        evaluate(&f, &[]),
        Err(EvalError::ArgCount {
            expected: 1,
            given: 0,
            ..
        })
    ));
    let wrong = Tile::new(DataType::S8, 2, 2, 2, 2).unwrap();
    assert!(matches!(
        evaluate(&f, &[wrong]),
        Err(EvalError::Arg { index: 0, .. })
    ));
    let undefined = Tile::new(DataType::U8, 2, 2, 2, 2).unwrap();
    let e = evaluate(&f, &[undefined]).unwrap_err();
    assert!(e.to_string().contains("undefined"), "{e}");
    let zero = defined(&ty, &[1, 2, 0, 4]);
    let e = evaluate(&f, &[zero]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("k.mlir:3:8: TDIV: integer division by zero"),
        "{e}"
    );
    assert_eq!(
        evaluate(&f, &[defined(&ty, &[9, 8, 7, 6])]).unwrap()[0].valid_values(),
        vec![Some(1); 4]
    );
}
