//! Synthetic kernels of any size, for the `pto-fuse` benchmark and scale tests.
//!
//! A kernel is a chain of blocks, each a row softmax, a column scale, a broadcast max/min clamp
//! whose broadcast has two consumers, a sum of two broadcasts, and an integer max-of-broadcast, so
//! every rule of the pass has work at every size.

use ptoc_ir::{Function, Location, TileType, ValueId};
use ptoc_isa::{ops, DataType, OpKind};
use ptoc_isa::{Axis, ElementOp, Reduction};

const ROWS: u32 = 16;
const COLS: u32 = 64;

/// A kernel of exactly `ops` ops over arguments `x: 16x64xf32, v: 16x1xf32, w: 1x64xf32,
/// vi: 16x1xsi32`, returning the last full tile and the integer accumulator.
pub fn kernel(ops: usize) -> Function {
    let file = "synth.mlir";
    let mut f = Function::new(format!("synth_{ops}"), Location::new(file, 1, 1));
    let full = TileType::new(ROWS, COLS, DataType::FP32);
    let row = TileType::new(ROWS, 1, DataType::FP32);
    let col = TileType::new(1, COLS, DataType::FP32);
    let int_row = TileType::new(ROWS, 1, DataType::S32);
    let int_full = TileType::new(ROWS, COLS, DataType::S32);
    let mut x = f.add_arg(Some("x".into()), full);
    let v = f.add_arg(Some("v".into()), row);
    let w = f.add_arg(Some("w".into()), col);
    let vi = f.add_arg(Some("vi".into()), int_row);
    let mut acc = vi;

    let mut emitted = 0usize;
    let mut emit = |f: &mut Function, kind: OpKind, operands: Vec<ValueId>, ty: TileType| {
        let info = ops::by_kind(kind)?;
        if emitted >= ops {
            return None;
        }
        emitted += 1;
        let loc = Location::new(file, emitted as u32 + 1, 3);
        Some(f.push_op(info, operands, ty, Some(format!("t{emitted}")), loc))
    };
    use Axis::{Col, Row};
    use ElementOp as E;
    use OpKind::{Binary, Expand, Reduce, Unary};
    'blocks: loop {
        macro_rules! op {
            ($kind:expr, [$($o:expr),*], $ty:expr) => {
                match emit(&mut f, $kind, vec![$($o),*], $ty) {
                    Some(v) => v,
                    None => break 'blocks,
                }
            };
        }
        let m = op!(Reduce(Row, Reduction::Max), [x], row);
        let em = op!(Expand(Row, None), [m], full);
        let d = op!(Binary(E::Sub), [x, em], full);
        let e = op!(Unary(ptoc_isa::UnaryOp::Exp), [d], full);
        let s = op!(Reduce(Row, Reduction::Sum), [e], row);
        let es = op!(Expand(Row, None), [s], full);
        let r = op!(Binary(E::Div), [e, es], full);
        let ew = op!(Expand(Col, None), [w], full);
        let y = op!(Binary(E::Mul), [ew, r], full);
        let ev = op!(Expand(Row, None), [v], full);
        let z = op!(Binary(E::Max), [y, ev], full);
        let z2 = op!(Binary(E::Min), [ev, z], full);
        let u = op!(Binary(E::Add), [em, ev], full);
        x = op!(Binary(E::Add), [z2, u], full);
        let evi = op!(Expand(Row, None), [vi], int_full);
        let ri = op!(Reduce(Row, Reduction::Max), [evi], int_row);
        acc = op!(Binary(E::Add), [acc, ri], int_row);
    }
    f.results = vec![x, acc];
    f
}
