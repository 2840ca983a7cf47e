//! Random functions through verify, inference and allocation: no pass panics, and whatever
//! allocation accepts obeys the renaming rule and the capacity bound.

use crate::allocate::allocate_function;
use crate::verify::{verify_function, Stage};
use crate::{InferShapes, Pass, PassContext};
use proptest::prelude::*;
use ptoc_ir::{Dim, Function, Location, TileType, ValueId};
use ptoc_isa::dtype::ARITHMETIC;
use ptoc_isa::ops::CATALOGUE;
use ptoc_isa::profile::PROFILE;
use ptoc_isa::{Axis, DataType, OpKind, PadValue, PeMask, ResultKind, SizeCode, Storage};

/// Argument types, and per op its catalogue row, operand picks and result type.
type Program = (Vec<TileType>, Vec<(usize, Vec<usize>, TileType)>);

fn dim() -> impl Strategy<Value = Dim> {
    prop_oneof![
        8 => prop::sample::select(vec![1u32, 2, 4, 5, 16, 64]).prop_map(Dim::Known),
        1 => prop::sample::select(vec![0u32, 3, 48, 1024, 70000]).prop_map(Dim::Known),
        1 => Just(Dim::Unknown),
    ]
}

fn tile() -> impl Strategy<Value = TileType> {
    // One index past the arithmetic types picks a predicate tile.
    (dim(), dim(), dim(), dim(), 0..=ARITHMETIC.len()).prop_map(|(r, c, vr, vc, t)| {
        let (dtype, storage) = match ARITHMETIC.get(t) {
            Some(&dtype) => (dtype, Storage::Numeric),
            None => (ptoc_isa::dtype::PREDICATE_DTYPE, Storage::Predicate),
        };
        TileType {
            rows: r,
            cols: c,
            valid_rows: vr,
            valid_cols: vc,
            dtype,
            pad: PadValue::Null,
            storage,
            layout: ptoc_isa::Layout::Norm,
        }
    })
}

/// (catalogue row, operand picks, result type) per op.
fn program() -> impl Strategy<Value = Program> {
    (
        prop::collection::vec(tile(), 1..4),
        prop::collection::vec(
            (
                0..CATALOGUE.len(),
                prop::collection::vec(any::<usize>(), 0..3),
                tile(),
            ),
            0..8,
        ),
    )
}

fn build(args: &[TileType], ops: &[(usize, Vec<usize>, TileType)]) -> Function {
    let mut f = Function::new("p", Location::new("p.mlir", 1, 1));
    let mut values: Vec<ValueId> = args
        .iter()
        .enumerate()
        .map(|(i, t)| f.add_arg(Some(format!("a{i}")), *t))
        .collect();
    for (i, (row, picks, ty)) in ops.iter().enumerate() {
        let operands = picks.iter().map(|p| values[p % values.len()]).collect();
        let loc = Location::new("p.mlir", i as u32 + 2, 3);
        values.push(f.push_op(&CATALOGUE[*row], operands, *ty, None, loc));
    }
    f
}

/// Programs over one full shape and its row/column vectors with `?` results, which inference
/// completes, so that many of them are legal and reach allocation.
fn coherent() -> impl Strategy<Value = Program> {
    let shapes = prop::sample::select(vec![(16u32, 64u32), (16, 1), (1, 64)]);
    let dtype = prop::sample::select(vec![DataType::FP32, DataType::FP32, DataType::FP16]);
    (
        prop::collection::vec(
            shapes.prop_map(|(r, c)| TileType::new(r, c, DataType::FP32)),
            1..4,
        ),
        prop::collection::vec(
            (
                0..CATALOGUE.len(),
                prop::collection::vec(any::<usize>(), 1..3),
                dtype,
            ),
            1..24,
        ),
    )
        .prop_map(|(args, ops)| {
            let ops = ops
                .into_iter()
                .map(|(row, picks, t)| {
                    let t = match CATALOGUE[row].result {
                        ResultKind::Index => DataType::U32,
                        ResultKind::ExpDif => t,
                        _ => DataType::FP32,
                    };
                    let mut ty = TileType::new(1, 1, t);
                    ty.rows = Dim::Unknown;
                    ty.valid_rows = Dim::Unknown;
                    ty.valid_cols = Dim::Unknown;
                    if !matches!(CATALOGUE[row].kind, OpKind::Expand(Axis::Row, None)) {
                        ty.cols = Dim::Unknown;
                    } else {
                        ty.cols = Dim::Known(64);
                    }
                    let picks = picks
                        .into_iter()
                        .take(CATALOGUE[row].sources.len())
                        .collect();
                    (row, picks, ty)
                })
                .collect();
            (args, ops)
        })
}

/// Legal kernels over a `rows`x64 FP32 tile: each step applies one op to earlier full tiles and
/// row/column vectors (elementwise ones with numpy-style broadcasts), up to 80 ops, so they reach
/// allocation and cross the 16-per-hand, 64-register and capacity limits.
fn legal_chain() -> impl Strategy<Value = Program> {
    let rows = prop::sample::select(vec![1u32, 5, 16, 64]);
    (
        rows,
        prop::collection::vec((0u8..6, any::<usize>(), any::<usize>()), 0..80),
    )
        .prop_map(|(rows, steps)| {
            let full = TileType::new(rows, 64, DataType::FP32);
            let row = TileType::new(rows, 1, DataType::FP32);
            let col = TileType::new(1, 64, DataType::FP32);
            let op = |m: &str| CATALOGUE.iter().position(|o| o.mnemonic == m).unwrap_or(0);
            // Values: 0 = the full argument; (index, shape) of everything produced.
            let mut fulls = vec![0usize];
            let mut rows_v = Vec::new();
            let mut cols_v = Vec::new();
            let mut ops = Vec::new();
            let pick = |v: &Vec<usize>, k: usize| v[k % v.len()];
            for (kind, a, b) in steps {
                let id = ops.len() + 1;
                let f = pick(&fulls, a);
                match kind {
                    0 => ops.push((op("TEXP"), vec![f], full)),
                    1 => {
                        ops.push((op("TROWMAX"), vec![f], row));
                        rows_v.push(id);
                        continue;
                    }
                    2 => {
                        ops.push((op("TCOLSUM"), vec![f], col));
                        cols_v.push(id);
                        continue;
                    }
                    3 if !rows_v.is_empty() => {
                        ops.push((op("TROWEXPANDEXPDIF"), vec![f, pick(&rows_v, b)], full))
                    }
                    4 if !cols_v.is_empty() => {
                        ops.push((op("TDIV"), vec![f, pick(&cols_v, b)], full))
                    }
                    5 if !rows_v.is_empty() => {
                        ops.push((op("TMAX"), vec![pick(&rows_v, b), f], full))
                    }
                    _ => ops.push((op("TMUL"), vec![f, pick(&fulls, b)], full)),
                }
                fulls.push(id);
            }
            (vec![full], ops)
        })
}

proptest! {
    #[test]
    fn passes_never_panic_and_allocation_is_sound(
        (args, ops) in prop_oneof![program(), coherent()],
        mode in 0u32..8,
    ) {
        let mut f = build(&args, &ops);
        let _ = verify_function(&f, Stage::Source);
        let _ = verify_function(&f, Stage::Final);
        let mut ctx = PassContext::default();
        let _ = InferShapes.run(&mut f, &mut ctx);
        let mask = PeMask::from_mode(mode);
        if let Ok(a) = allocate_function(&f, mask) {
            let all: Vec<_> = a.args.iter().chain(&a.ops).collect();
            prop_assert_eq!(all.len(), f.args.len() + f.ops.len());
            // The renaming rule with T, U, M, N in turn: the k-th tile gets register k.
            for (k, p) in all.iter().enumerate() {
                prop_assert_eq!(p.reg.index() as usize, k);
                let ty = f.ty(p.value);
                prop_assert!(p.rows >= ty.rows.known().unwrap_or(0));
                // A predicate keeps the rows written (docs/isa.md §3.6); numeric tiles derive theirs.
                if ty.storage == ptoc_isa::Storage::Numeric {
                    prop_assert_eq!(p.size.derived_rows(ty.cols.known().unwrap_or(0), ty.dtype.bits()), Some(p.rows));
                }
            }
            prop_assert!(a.capacity_bytes <= PROFILE.core_capacity_bytes as u64);
        }
    }
}

proptest! {
    #[test]
    fn legal_kernels_allocate_exactly_when_they_fit((args, ops) in legal_chain(), mode in 1u32..8) {
        let mut f = build(&args, &ops);
        prop_assert!(verify_function(&f, Stage::Source).is_empty());
        InferShapes.run(&mut f, &mut PassContext::default()).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let mask = PeMask::from_mode(mode);
        let tiles = f.args.len() + f.ops.len();
        let capacity: u64 = f
            .values
            .iter()
            .map(|v| {
                let (r, c, _, _) = v.ty.dims().unwrap_or((0, 0, 0, 0));
                SizeCode::smallest_for(r, c, v.ty.dtype.bits()).map_or(0, |s| s.bytes() as u64)
            })
            .sum::<u64>()
            * mask.pe_count() as u64;
        let fits = tiles <= 64 && capacity <= PROFILE.core_capacity_bytes as u64;
        match allocate_function(&f, mask) {
            Ok(a) => {
                prop_assert!(fits);
                prop_assert_eq!(a.capacity_bytes, capacity);
                if let Some(last) = a.ops.last() {
                    prop_assert_eq!(last.reg.index() as usize, f.ops.len());
                }
            }
            Err(e) => {
                prop_assert!(!fits, "{:?}", e);
                let text = format!("{e:?}");
                prop_assert!(text.contains("register-count") || text.contains("core-capacity"), "{}", text);
                if tiles > 64 {
                    let needle = format!("needs {tiles} tile registers");
                    prop_assert!(text.contains(&needle), "{}", text);
                }
            }
        }
    }
}
