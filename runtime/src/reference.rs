//! The reference evaluator: runs a tile-IR [`Function`] directly, on the tile types as written,
//! before any pass — the meaning `ptoc verify` compares compiled code against (README, Running kernels).
//!
//! It shares the element kernels with the interpreter ([`crate::kernels`]) and nothing else: no
//! decoder, allocator, SizeCodes or registers. Each result has the physical shape of its IR type,
//! the valid region computed by the op and padding per the type's `pad`.

use crate::kernels::{self, Job, View};
use crate::machine::publish_padding;
use crate::numerics::matmul::{MatrixArith, ProductShape};
use crate::numerics::Flags;
use crate::tile::Tile;
use ptoc_ir::{Attr, Function, Location, Op, TileType};
use ptoc_isa::ops::{OperandRole, CMODE_ATTR};
use ptoc_isa::{CmpMode, Geometry, Layout, NumericControl, OpInfo, OpKind, PadValue, Storage};
use std::collections::BTreeMap;

/// Why the reference evaluator cannot evaluate a function on its arguments.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    #[error("@{function} takes {expected} argument(s), {given} given")]
    /// The wrong number of arguments.
    ArgCount {
        /// The function's name.
        function: String,
        /// How many arguments it takes.
        expected: usize,
        /// How many were given.
        given: usize,
    },
    #[error("argument {index} ({ty}): {message}")]
    /// An argument that does not fit its parameter's type.
    Arg {
        /// 0-based argument index.
        index: usize,
        /// The parameter's type, as written.
        ty: String,
        /// What does not fit.
        message: String,
    },
    #[error("{loc}: {mnemonic}: {message}")]
    /// An op the evaluator rejects on its operands.
    Op {
        /// Where the op is in the source.
        loc: Location,
        /// The op's mnemonic.
        mnemonic: String,
        /// Why.
        message: String,
    },
}

/// The results of a function, one tile per returned value, and the OR of all status flags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluation {
    /// One tile per returned value.
    pub results: Vec<Tile>,
    /// The OR of every op's status flags.
    pub flags: Flags,
}

/// Evaluate `func` on `args` (valid regions defined; physical shape may differ from the type's).
pub fn evaluate(func: &Function, args: &[Tile]) -> Result<Vec<Tile>, EvalError> {
    evaluate_with_flags(func, args).map(|e| e.results)
}

/// [`evaluate`], also returning the status flags.
pub fn evaluate_with_flags(func: &Function, args: &[Tile]) -> Result<Evaluation, EvalError> {
    if args.len() != func.args.len() {
        return Err(EvalError::ArgCount {
            function: func.name.clone(),
            expected: func.args.len(),
            given: args.len(),
        });
    }
    let mut values: Vec<Option<Tile>> = vec![None; func.values.len()];
    for (index, (&id, tile)) in func.args.iter().zip(args).enumerate() {
        let ty = func.ty(id);
        let arg_err = |message: String| EvalError::Arg {
            index,
            ty: ty.to_string(),
            message,
        };
        let (_, _, vr, vc) = ty
            .dims()
            .ok_or_else(|| arg_err("the type has '?' dimensions".into()))?;
        if tile.dtype != ty.dtype || (tile.valid_rows, tile.valid_cols) != (vr, vc) {
            return Err(arg_err(format!("the tile given is {tile}")));
        }
        tile.check_consistent().map_err(|e| arg_err(e.0))?;
        let mut tile = tile.clone();
        tile.drop_bits_above_width();
        values[id.0 as usize] = Some(tile);
    }
    let mut flags = 0;
    for op in &func.ops {
        let op_err = |message: String| EvalError::Op {
            loc: op.loc.clone(),
            mnemonic: op.info.mnemonic.to_string(),
            message,
        };
        let operands: Vec<&Tile> = op
            .operands
            .iter()
            .map(|v| values.get(v.0 as usize).and_then(Option::as_ref))
            .collect::<Option<_>>()
            .ok_or_else(|| op_err("an operand is used before it is defined".into()))?;
        let (tile, f) = evaluate_op(op, &operands, func.ty(op.result)).map_err(op_err)?;
        flags |= f;
        values[op.result.0 as usize] = Some(tile);
    }
    let results = func
        .results
        .iter()
        .map(|v| values.get(v.0 as usize).cloned().flatten())
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| EvalError::Op {
            loc: func.loc.clone(),
            mnemonic: "return".into(),
            message: "a returned value is never defined".into(),
        })?;
    Ok(Evaluation { results, flags })
}

/// A TCMP's relation from its `pto.cmode` attribute.
fn cmode_of(attrs: &BTreeMap<String, Attr>) -> Result<CmpMode, String> {
    match attrs.get(CMODE_ATTR) {
        Some(Attr::Str(name)) => {
            CmpMode::from_mlir_name(name).ok_or(format!("unknown {CMODE_ATTR} '{name}'"))
        }
        _ => Err(format!("has no string {CMODE_ATTR} attribute")),
    }
}

/// One op of a straight-line function on its operand tiles, producing a tile of `result_ty`.
/// Such functions have no scalar values, so the tile-scalar ops cannot run here.
fn evaluate_op(op: &Op, operands: &[&Tile], result_ty: &TileType) -> Result<(Tile, Flags), String> {
    if op.info.takes_scalar() {
        return Err("needs a scalar; use it inside a GM kernel".into());
    }
    let cmode = if op.info.kind.datr_fields().cmode {
        Some(cmode_of(&op.attrs)?)
    } else {
        None
    };
    evaluate_tile_op(op.info, op.control, cmode, operands, None, result_ty)
}

/// A catalogue op of a GM kernel (README, Kernels over global memory) on its tile sources and, for a tile-scalar op,
/// its scalar's raw bits; its attributes give TCMP's relation. The GM reference evaluator
/// ([`crate::reference_gm`]) calls this for every tile op.
pub fn evaluate_kernel_op(
    info: &OpInfo,
    control: NumericControl,
    attrs: &BTreeMap<String, Attr>,
    tiles: &[&Tile],
    scalar_bits: Option<u64>,
    result_ty: &TileType,
) -> Result<(Tile, Flags), String> {
    if info.takes_scalar() != scalar_bits.is_some() {
        return Err(format!(
            "{} takes {} scalar",
            info.mnemonic,
            if info.takes_scalar() { "a" } else { "no" }
        ));
    }
    let cmode = if info.kind.datr_fields().cmode {
        Some(cmode_of(attrs)?)
    } else {
        None
    };
    evaluate_tile_op(info, control, cmode, tiles, scalar_bits, result_ty)
}

/// A tile-scalar op (docs/isa.md §14) on its tile sources (none for TEXPANDS) and the raw bits
/// of its scalar (the GPR value: only the low element-width bits count), producing a tile of
/// `result_ty` and the status flags it raises. The GM reference evaluator calls this for
/// `pto.tadds` … `pto.texpands`.
pub fn evaluate_with_scalar(
    info: &OpInfo,
    control: NumericControl,
    tiles: &[&Tile],
    scalar_bits: u64,
    result_ty: &TileType,
) -> Result<(Tile, Flags), String> {
    if !info.takes_scalar() {
        return Err(format!("{} takes no scalar", info.mnemonic));
    }
    evaluate_tile_op(info, control, None, tiles, Some(scalar_bits), result_ty)
}

/// A matrix op (docs/isa.md §18.3): the operands' roles, layouts, types and M/N/K, then the
/// product under the profile's accumulation.
fn evaluate_matmul(
    info: &OpInfo,
    gemv: bool,
    operands: &[&Tile],
    result_ty: &TileType,
) -> Result<(Tile, Flags), String> {
    let role = |r: OperandRole| {
        info.sources
            .iter()
            .position(|x| *x == r)
            .map(|i| operands[i])
    };
    let (Some(a), Some(b)) = (role(OperandRole::Left), role(OperandRole::Right)) else {
        return Err("a matrix op needs its left and right matrices".into());
    };
    let arith = MatrixArith::of(a.dtype, b.dtype)
        .ok_or_else(|| format!("cannot multiply {} by {}", a.dtype, b.dtype))?;
    let acc = arith.accumulator();
    let (m, k, n) = (a.valid_rows, a.valid_cols, b.valid_cols);
    if !a.layout.holds_m(m) || b.layout != Layout::CubeN8 || b.valid_rows != k || (gemv && m != 1) {
        return Err(format!("left {a} and right {b} do not form a product"));
    }
    for t in operands {
        if !t.valid_region_defined() {
            return Err(format!(
                "operand {t} has undefined elements in its valid region"
            ));
        }
    }
    let init = match role(OperandRole::Accumulator) {
        Some(c) if (c.layout, c.dtype, c.valid_rows, c.valid_cols) == (a.layout, acc, m, n) => {
            Some(c.valid_bits())
        }
        Some(c) => {
            return Err(format!(
                "accumulator {c} is not valid {m}x{n} of {acc} in {}",
                a.layout
            ))
        }
        None => None,
    };
    let bias = match role(OperandRole::Bias) {
        Some(t) if (t.layout, t.dtype, t.valid_rows, t.valid_cols) == (Layout::Norm, acc, 1, n) => {
            Some(t.valid_bits())
        }
        Some(t) => return Err(format!("bias {t} is not a row-major valid 1x{n} of {acc}")),
        None => None,
    };
    let shape = ProductShape {
        m: m as usize,
        n: n as usize,
        k: k as usize,
    };
    let (values, flags) = arith.product(
        shape,
        &a.valid_bits(),
        &b.valid_bits(),
        init.as_deref(),
        bias.as_deref(),
    );
    let want = (
        result_ty.layout,
        result_ty.dtype,
        result_ty.dims().map(|d| (d.2, d.3)),
    );
    if want != (a.layout, acc, Some((m, n))) {
        return Err(format!(
            "result type {result_ty} is not valid {m}x{n} of {acc} in {}",
            a.layout
        ));
    }
    // A product defines only its valid region (`MarkLocalTileValidRegionDefined`).
    if result_ty.pad != PadValue::Null {
        return Err(format!(
            "result type {result_ty} asks for a pad; a product writes none"
        ));
    }
    let out = Tile::cube(acc, a.layout, None, (m, n))
        .and_then(|t| t.with_valid_values(&values))
        .map_err(|e| e.0)?;
    Ok((out, flags))
}

/// One catalogue op on its operand tiles and, for a tile-scalar op, its scalar's raw bits.
fn evaluate_tile_op(
    info: &OpInfo,
    control: NumericControl,
    cmode: Option<CmpMode>,
    operands: &[&Tile],
    scalar: Option<u64>,
    result_ty: &TileType,
) -> Result<(Tile, Flags), String> {
    if operands.len() != info.sources.len() {
        return Err(format!(
            "takes {} operand(s), has {}",
            info.sources.len(),
            operands.len()
        ));
    }
    if let OpKind::Matmul { gemv, .. } = info.kind {
        return evaluate_matmul(info, gemv, operands, result_ty);
    }
    if let Some(t) = operands.iter().find(|t| t.layout.is_cube()) {
        return Err(format!(
            "operand {t} is a CUBE tile; the op reads row-major tiles"
        ));
    }
    let (rows, cols, vr, vc) = result_ty
        .dims()
        .ok_or("the result type has '?' dimensions")?;
    // TEXPANDS has no tile source: its type is the result's (the bundle's DataType).
    let src_type = operands
        .get(info.typed_source())
        .map_or(result_ty.dtype, |t| t.dtype);
    if !info.accepts(src_type) {
        return Err(format!("does not accept {src_type}"));
    }
    for (t, role) in operands.iter().zip(info.sources) {
        if t.storage != role.storage() {
            return Err(format!("{} {t} has the wrong storage", role.name()));
        }
        if role.carries_type() && t.dtype != src_type {
            return Err(format!("operands mix {src_type} and {}", t.dtype));
        }
    }
    if result_ty.storage != info.result_storage() {
        return Err(format!("result type {result_ty} has the wrong storage"));
    }
    if !info.result.admits(src_type, result_ty.dtype) {
        return Err(format!(
            "cannot produce {} from {src_type}",
            result_ty.dtype
        ));
    }
    // The geometry rules of `ptoc_isa::rules`, on physical columns and valid shapes alike.
    let result = Geometry {
        cols,
        valid_rows: vr,
        valid_cols: vc,
    };
    let described = |g: Geometry<u32>| {
        format!(
            "valid {}x{} in {} columns",
            g.valid_rows, g.valid_cols, g.cols
        )
    };
    let domain = match info.kind {
        OpKind::Reduce(axis, _) => {
            let want = axis.vector(operands[0].geometry());
            if result != want {
                return Err(format!(
                    "result is {}; it should be {}",
                    described(result),
                    described(want)
                ));
            }
            (operands[0].valid_rows, operands[0].valid_cols)
        }
        OpKind::Expand(axis, elem) => {
            let bcast = operands[if elem.is_some() { 1 } else { 0 }];
            let want = axis.vector(result);
            if bcast.geometry() != want {
                return Err(format!(
                    "broadcast operand is {bcast}; it must be {}",
                    described(want)
                ));
            }
            if elem.is_some() && operands[0].geometry() != result {
                return Err(format!(
                    "source is {}; the result is {}",
                    operands[0],
                    described(result)
                ));
            }
            (vr, vc)
        }
        // `TileOperandsLegal_TTRANS`: the result's valid shape is the source's swapped; its
        // physical columns are its own. The domain is the result's valid shape.
        OpKind::Transpose => {
            let src = operands[0];
            if (vr, vc) != src.geometry().transposed_valid() {
                return Err(format!(
                    "result is {}; the transpose of {src} is valid {}x{}",
                    described(result),
                    src.valid_cols,
                    src.valid_rows
                ));
            }
            // The padding is always Null (`TTRANS` publishes it so).
            if result_ty.pad != PadValue::Null {
                return Err(format!(
                    "result type {result_ty} asks for a pad; TTRANS leaves its padding Null"
                ));
            }
            (vr, vc)
        }
        OpKind::Binary(_)
        | OpKind::TileScalar(_)
        | OpKind::FillScalar
        | OpKind::Unary(_)
        | OpKind::Convert
        | OpKind::Move
        | OpKind::Compare
        | OpKind::Select
        | OpKind::Matmul { .. } => {
            if let Some(t) = operands.iter().find(|t| t.geometry() != result) {
                return Err(format!(
                    "operand {t} does not match the result, {}",
                    described(result)
                ));
            }
            (vr, vc)
        }
    };
    for t in operands {
        if !t.valid_region_defined() {
            return Err(format!(
                "operand {t} has undefined elements in its valid region"
            ));
        }
        // TTRANS checks encodings only above 32 bits, where every encoding is valid
        // (docs/isa.md §19).
        let copy = matches!(
            info.kind,
            OpKind::Expand(_, None) | OpKind::Select | OpKind::Move | OpKind::Transpose
        );
        if !copy && !t.is_predicate() && t.first_invalid_encoding().is_some() {
            return Err(format!("operand {t} holds an invalid {} encoding", t.dtype));
        }
    }
    if let Some(why) = scalar.and_then(|raw| info.kind.scalar_violation(src_type, raw)) {
        return Err(why);
    }
    // TMOV: the whole tile, padding and definedness included (docs/isa.md §13.7).
    if info.kind == OpKind::Move {
        return Ok((operands[0].clone(), 0));
    }
    let mut out = match result_ty.storage {
        Storage::Numeric => Tile::new(result_ty.dtype, rows, cols, vr, vc),
        Storage::Predicate => Tile::predicate(rows, cols, vr, vc),
    }
    .map_err(|e| e.0)?;
    // The scalar, if any, is the job's last source (`kernels::Job`).
    let scalar = scalar.map(|raw| kernels::scalar_elements(src_type, raw));
    let views: Vec<View> = operands
        .iter()
        .map(|t| t.view())
        .chain(scalar.as_ref().map(|e| View::new(e, 1)))
        .collect();
    let job = Job {
        kind: info.kind,
        src_type,
        dst_type: result_ty.dtype,
        control,
        cmode,
        sources: &views,
        out_cols: cols as usize,
        out: &mut out.elements,
        domain: (domain.0 as usize, domain.1 as usize),
    };
    let flags = kernels::execute(job).map_err(|e| e.to_string())?;
    publish_padding(&mut out, result_ty.pad);
    Ok((out, flags))
}
