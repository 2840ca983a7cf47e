//! Building linalg programs by hand in tests: [`Builder`] for function-level ops, [`Region`] for
//! generic bodies, and the programs several tests share (softmax, layer norm, reductions). Shared
//! by the runtime's evaluator tests and ptoc's agreement tests (`#[path]`).
#![allow(dead_code)]

use ptoc_ir::linalg::{
    Body, BodyOp, BodyValue, CmpFPredicate, Elem, Generic, IteratorKind, LOp, LOpKind, LType,
    MapExpr, Program, ScalarOp, TensorType,
};
use ptoc_ir::{Location, ValueId};
use ptoc_isa::DataType;

pub const F16: Elem = Elem::Data(DataType::FP16);
pub const BF16: Elem = Elem::Data(DataType::BF16);
pub const F32: Elem = Elem::Data(DataType::FP32);
pub const F64: Elem = Elem::Data(DataType::FP64);
pub const I8: Elem = Elem::Data(DataType::S8);
pub const I32: Elem = Elem::Data(DataType::S32);
pub const I64: Elem = Elem::Data(DataType::S64);
pub const NEG_INF32: u64 = 0xFF80_0000;
pub const NAN32: u64 = 0x7FC0_0000;

pub fn at(line: u32) -> Location {
    Location::new("test.mlir", line, 5)
}

pub fn tensor(shape: &[u32], elem: Elem) -> TensorType {
    TensorType {
        shape: shape.to_vec(),
        elem,
    }
}

pub fn d(n: u8) -> MapExpr {
    MapExpr::Dim(n)
}

/// Iterator kinds spelled `p` (parallel) and `r` (reduction), d0 first.
pub fn iters(kinds: &str) -> Vec<IteratorKind> {
    kinds
        .chars()
        .map(|c| match c {
            'p' => IteratorKind::Parallel,
            _ => IteratorKind::Reduction,
        })
        .collect()
}

/// Builds a program op by op; each function-level op gets the next source line.
pub struct Builder {
    p: Program,
    line: u32,
}

impl Builder {
    pub fn new(name: &str) -> Builder {
        Builder {
            p: Program::new(name, at(1)),
            line: 1,
        }
    }

    pub fn arg(&mut self, name: &str, ty: LType) -> ValueId {
        self.p.add_arg(Some(name.into()), ty)
    }

    pub fn op(
        &mut self,
        kind: LOpKind,
        operands: Vec<ValueId>,
        results: Vec<LType>,
    ) -> Vec<ValueId> {
        self.line += 1;
        let results: Vec<ValueId> = results
            .into_iter()
            .map(|ty| self.p.add_value(None, ty))
            .collect();
        self.p.ops.push(LOp {
            kind,
            operands,
            results: results.clone(),
            loc: at(self.line),
        });
        results
    }

    pub fn constant(&mut self, ty: LType, bits: u64) -> ValueId {
        self.op(LOpKind::Constant(bits), vec![], vec![ty])[0]
    }

    pub fn empty(&mut self, ty: &TensorType) -> ValueId {
        self.op(LOpKind::Empty, vec![], vec![LType::Tensor(ty.clone())])[0]
    }

    pub fn reshape(&mut self, v: ValueId, ty: &TensorType) -> ValueId {
        self.op(LOpKind::Reshape, vec![v], vec![LType::Tensor(ty.clone())])[0]
    }

    pub fn generic(
        &mut self,
        iterators: &str,
        inputs: &[ValueId],
        outputs: &[ValueId],
        maps: Vec<Vec<MapExpr>>,
        body: Body,
    ) -> Vec<ValueId> {
        let results = outputs.iter().map(|&o| self.p.ty(o).clone()).collect();
        let g = Generic {
            iterators: iters(iterators),
            inputs: inputs.to_vec(),
            outputs: outputs.to_vec(),
            maps,
            body,
        };
        let operands = inputs.iter().chain(outputs).copied().collect();
        self.op(LOpKind::Generic(g), operands, results)
    }

    /// `linalg.fill` after generalisation: a scalar read through an empty map.
    pub fn fill(&mut self, value: ValueId, ty: &TensorType) -> ValueId {
        let LType::Scalar(elem) = *self.p.ty(value) else {
            panic!("fill takes a scalar")
        };
        let init = self.empty(ty);
        let rank = ty.shape.len() as u8;
        let body = Region::new(&[elem, ty.elem]).yields(&[BodyValue::Arg(0)]);
        let identity = (0..rank).map(d).collect();
        self.generic(
            &"p".repeat(rank as usize),
            &[value],
            &[init],
            vec![vec![], identity],
            body,
        )[0]
    }

    /// A splat fill of a constant: `linalg.fill ins(%c) outs(tensor.empty())`.
    pub fn fill_constant(&mut self, bits: u64, ty: &TensorType) -> ValueId {
        let c = self.constant(LType::Scalar(ty.elem), bits);
        self.fill(c, ty)
    }

    pub fn finish(mut self, results: &[ValueId]) -> Program {
        self.p.results = results.to_vec();
        self.p
    }
}

/// Builds a region; body op `i` sits at source line `100 + i`.
pub struct Region {
    body: Body,
}

impl Region {
    pub fn new(args: &[Elem]) -> Region {
        Region {
            body: Body {
                args: args.to_vec(),
                ..Body::default()
            },
        }
    }

    pub fn op(&mut self, op: ScalarOp, operands: &[BodyValue], ty: Elem) -> BodyValue {
        self.push(op, operands, ty, false)
    }

    pub fn op_nnan(&mut self, op: ScalarOp, operands: &[BodyValue], ty: Elem) -> BodyValue {
        self.push(op, operands, ty, true)
    }

    pub fn push(
        &mut self,
        op: ScalarOp,
        operands: &[BodyValue],
        ty: Elem,
        no_nans: bool,
    ) -> BodyValue {
        let n = self.body.ops.len();
        self.body.ops.push(BodyOp {
            op,
            operands: operands.to_vec(),
            ty,
            no_nans,
            loc: at(100 + n as u32),
        });
        BodyValue::Op(n)
    }

    pub fn yields(mut self, values: &[BodyValue]) -> Body {
        self.body.yields = values.to_vec();
        self.body
    }
}

/// An elementwise generic over rank-`rank` operands with identity maps.
pub fn elementwise(
    b: &mut Builder,
    inputs: &[ValueId],
    outputs: &[ValueId],
    body: Body,
) -> Vec<ValueId> {
    let rank = match b.p.ty(outputs[0]) {
        LType::Tensor(t) => t.shape.len() as u8,
        LType::Scalar(_) => 0,
    };
    let identity: Vec<MapExpr> = (0..rank).map(d).collect();
    let maps = vec![identity; inputs.len() + outputs.len()];
    b.generic(&"p".repeat(rank as usize), inputs, outputs, maps, body)
}

/// A program `f(x, y: tensor<NxT>)` with one elementwise generic that applies each op to
/// `(x, y)` and returns one `tensor<Nx result>` per op.
pub fn pairwise(elem: Elem, len: u32, ops: &[ScalarOp], result: Elem) -> Program {
    let ty = tensor(&[len], elem);
    let mut b = Builder::new("f");
    let x = b.arg("x", LType::Tensor(ty.clone()));
    let y = b.arg("y", LType::Tensor(ty));
    let outs: Vec<ValueId> = ops
        .iter()
        .map(|_| b.empty(&tensor(&[len], result)))
        .collect();
    let mut args = vec![elem, elem];
    args.extend(ops.iter().map(|_| result));
    let mut r = Region::new(&args);
    let operands = [BodyValue::Arg(0), BodyValue::Arg(1)];
    let vals: Vec<BodyValue> = ops.iter().map(|&op| r.op(op, &operands, result)).collect();
    let res = elementwise(&mut b, &[x, y], &outs, r.yields(&vals));
    b.finish(&res)
}

/// `f(x: tensor<shape x f32>)`: one generic over x's dimensions (identity map, `iterators`)
/// that folds `op` into a fill of `init` whose map is `out_map`.
pub fn reduce_program(
    op: ScalarOp,
    iterators: &str,
    shape: &[u32],
    out_map: Vec<MapExpr>,
    init: u64,
) -> Program {
    let out_shape: Vec<u32> = out_map
        .iter()
        .map(|m| match m {
            MapExpr::Dim(k) => shape[*k as usize],
            MapExpr::Zero => 1,
        })
        .collect();
    let mut b = Builder::new("reduce");
    let x = b.arg("x", LType::Tensor(tensor(shape, F32)));
    let acc = b.fill_constant(init, &tensor(&out_shape, F32));
    let mut r = Region::new(&[F32, F32]);
    let v = r.op(op, &[BodyValue::Arg(0), BodyValue::Arg(1)], F32);
    let identity = (0..shape.len() as u8).map(d).collect();
    let res = b.generic(
        iterators,
        &[x],
        &[acc],
        vec![identity, out_map],
        r.yields(&[v]),
    );
    b.finish(&res)
}

/// torch-mlir's max+argmax over the rows of `x: tensor<rows x N x f32>`: one generic with two
/// results (maximumf, and the index where `in > out` by cmpf ogt, as an i64), from -inf and 0.
pub fn max_argmax(b: &mut Builder, x: ValueId, rows: u32) -> Vec<ValueId> {
    let max_init = b.fill_constant(NEG_INF32, &tensor(&[rows], F32));
    let idx_init = b.fill_constant(0, &tensor(&[rows], I64));
    let mut r = Region::new(&[F32, F32, I64]);
    let (input, out, out_idx) = (BodyValue::Arg(0), BodyValue::Arg(1), BodyValue::Arg(2));
    let i = r.op(ScalarOp::Index(1), &[], Elem::Index);
    let i64_ = r.op(ScalarOp::IndexCast, &[i], I64);
    let m = r.op(ScalarOp::MaximumF, &[input, out], F32);
    let gt = r.op(ScalarOp::CmpF(CmpFPredicate::Ogt), &[input, out], Elem::I1);
    let sel = r.op(ScalarOp::Select, &[gt, i64_, out_idx], I64);
    let maps = vec![vec![d(0), d(1)], vec![d(0)], vec![d(0)]];
    b.generic("pr", &[x], &[max_init, idx_init], maps, r.yields(&[m, sel]))
}

pub fn f32s(values: &[f32]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits() as u64).collect()
}

/// torch-mlir's row softmax of a `rows x cols` tensor of `elem`, returning (y, max, exps, sum):
/// max (init -inf, maximumf), exp(x - max), sum (init +0, addf), divide.
pub fn softmax_program(elem: Elem, rows: u32, cols: u32) -> Program {
    let neg_inf = elem
        .data()
        .unwrap()
        .float_format()
        .unwrap()
        .inf_or_nan(true);
    let x_ty = tensor(&[rows, cols], elem);
    let row = tensor(&[rows], elem);
    let rows_cols = vec![d(0), d(1)];
    let mut b = Builder::new("softmax");
    let x = b.arg("arg0", LType::Tensor(x_ty.clone()));
    let max_init = b.fill_constant(neg_inf, &row);
    let mut r = Region::new(&[elem, elem]);
    let m = r.op(
        ScalarOp::MaximumF,
        &[BodyValue::Arg(0), BodyValue::Arg(1)],
        elem,
    );
    let maps = vec![rows_cols.clone(), vec![d(0)]];
    let max = b.generic("pr", &[x], &[max_init], maps.clone(), r.yields(&[m]))[0];
    let e_init = b.empty(&x_ty);
    let mut r = Region::new(&[elem, elem, elem]);
    let diff = r.op(
        ScalarOp::SubF,
        &[BodyValue::Arg(0), BodyValue::Arg(1)],
        elem,
    );
    let e = r.op(ScalarOp::Exp, &[diff], elem);
    let broadcast = vec![rows_cols.clone(), vec![d(0)], rows_cols];
    let exps = b.generic(
        "pp",
        &[x, max],
        &[e_init],
        broadcast.clone(),
        r.yields(&[e]),
    )[0];
    let sum_init = b.fill_constant(0, &row);
    let mut r = Region::new(&[elem, elem]);
    let s = r.op(
        ScalarOp::AddF,
        &[BodyValue::Arg(0), BodyValue::Arg(1)],
        elem,
    );
    let sum = b.generic("pr", &[exps], &[sum_init], maps, r.yields(&[s]))[0];
    let y_init = b.empty(&x_ty);
    let mut r = Region::new(&[elem, elem, elem]);
    let q = r.op(
        ScalarOp::DivF,
        &[BodyValue::Arg(0), BodyValue::Arg(1)],
        elem,
    );
    let y = b.generic("pp", &[exps, sum], &[y_init], broadcast, r.yields(&[q]))[0];
    b.finish(&[y, max, exps, sum])
}

/// torch-mlir's layer norm of `rows x cols` f32 rows computed in f64: w = extf(x), mean =
/// (sequential sum of w) / cols, dev = w - mean, inv = rsqrt((sequential sum of dev * dev) / cols
/// + 1e-5), y = truncf(dev * inv); `cols` and the epsilon are captured f64 constants.
pub fn layer_norm_program(rows: u32, cols: u32) -> Program {
    let (x_ty, w_ty, row) = (
        tensor(&[rows, cols], F32),
        tensor(&[rows, cols], F64),
        tensor(&[rows], F64),
    );
    let (a, o) = (BodyValue::Arg(0), BodyValue::Arg(1));
    let full = vec![d(0), d(1)];
    let (reduce_maps, broadcast) = (
        vec![full.clone(), vec![d(0)]],
        vec![full.clone(), vec![d(0)], full.clone()],
    );
    let mut b = Builder::new("layer_norm");
    let x = b.arg("x", LType::Tensor(x_ty.clone()));
    let n = b.constant(LType::Scalar(F64), (cols as f64).to_bits());
    let eps = b.constant(LType::Scalar(F64), 1e-5f64.to_bits());
    // w = extf(x)
    let mut r = Region::new(&[F32, F64]);
    let v = r.op(ScalarOp::ExtF, &[a], F64);
    let w_init = b.empty(&w_ty);
    let w = elementwise(&mut b, &[x], &[w_init], r.yields(&[v]))[0];
    // mean = (sum of w) / n
    let mut r = Region::new(&[F64, F64]);
    let v = r.op(ScalarOp::AddF, &[a, o], F64);
    let zeros = b.fill_constant(0, &row);
    let sum = b.generic("pr", &[w], &[zeros], reduce_maps.clone(), r.yields(&[v]))[0];
    let mut r = Region::new(&[F64, F64]);
    let v = r.op(ScalarOp::DivF, &[a, BodyValue::Outer(n)], F64);
    let mean_init = b.empty(&row);
    let mean = elementwise(&mut b, &[sum], &[mean_init], r.yields(&[v]))[0];
    // dev = w - mean
    let mut r = Region::new(&[F64, F64, F64]);
    let v = r.op(ScalarOp::SubF, &[a, o], F64);
    let dev_init = b.empty(&w_ty);
    let dev = b.generic(
        "pp",
        &[w, mean],
        &[dev_init],
        broadcast.clone(),
        r.yields(&[v]),
    )[0];
    // inv = rsqrt((sum of dev * dev) / n + eps)
    let mut r = Region::new(&[F64, F64]);
    let sq = r.op(ScalarOp::MulF, &[a, a], F64);
    let v = r.op(ScalarOp::AddF, &[o, sq], F64);
    let zeros = b.fill_constant(0, &row);
    let ss = b.generic("pr", &[dev], &[zeros], reduce_maps, r.yields(&[v]))[0];
    let mut r = Region::new(&[F64, F64]);
    let var = r.op(ScalarOp::DivF, &[a, BodyValue::Outer(n)], F64);
    let shifted = r.op(ScalarOp::AddF, &[var, BodyValue::Outer(eps)], F64);
    let v = r.op(ScalarOp::Rsqrt, &[shifted], F64);
    let inv_init = b.empty(&row);
    let inv = elementwise(&mut b, &[ss], &[inv_init], r.yields(&[v]))[0];
    // y = truncf(dev * inv)
    let mut r = Region::new(&[F64, F64, F32]);
    let prod = r.op(ScalarOp::MulF, &[a, o], F64);
    let v = r.op(ScalarOp::TruncF, &[prod], F32);
    let y_init = b.empty(&x_ty);
    let y = b.generic("pp", &[dev, inv], &[y_init], broadcast, r.yields(&[v]))[0];
    b.finish(&[y])
}

/// Reads `tests/data/vectors/<name>.txt`: "rows cols", then the input and the expected output
/// as hex bit patterns.
pub fn read_vectors(name: &str) -> (u32, u32, Vec<u64>, Vec<u64>) {
    let path = format!(
        "{}/tests/data/vectors/{name}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut lines = text.lines();
    let mut header = lines
        .next()
        .unwrap_or("")
        .split(' ')
        .map(|n| n.parse::<u32>());
    let (rows, cols) = match (header.next(), header.next()) {
        (Some(Ok(r)), Some(Ok(c))) => (r, c),
        _ => panic!("{path}: the first line is not 'rows cols'"),
    };
    let mut hex = || -> Vec<u64> {
        let line = lines.next().unwrap_or("");
        line.split(' ')
            .map(|h| u64::from_str_radix(h, 16).unwrap_or_else(|e| panic!("{h}: {e}")))
            .collect()
    };
    let (input, expected) = (hex(), hex());
    assert_eq!(input.len(), (rows * cols) as usize, "{path}");
    assert_eq!(expected.len(), (rows * cols) as usize, "{path}");
    (rows, cols, input, expected)
}

/// A small deterministic generator (xorshift64*), so the random cases are the same every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Random bit patterns of a `bits`-wide float, with every fifth drawn from `edges`.
pub fn patterns(rng: &mut Rng, n: usize, bits: u32, edges: &[u64]) -> Vec<u64> {
    (0..n)
        .map(|i| {
            let r = rng.next();
            if i % 5 == 0 {
                edges[(r % edges.len() as u64) as usize]
            } else {
                r >> (64 - bits)
            }
        })
        .collect()
}
