//! Transposes: a program whose one computing op is a `linalg.transpose` (as normalisation
//! generalises it: loops `[parallel, parallel]`, maps `(d1, d0)` -> `(d0, d1)`, the body yielding
//! its input; a leading batch loop may come first) becomes a GM kernel that loads each block of
//! the source, transposes it with `pto.ttrans` (TTRANS, docs/isa.md §19) and stores it at the
//! mirrored place. The elements are moved, not computed, so the kernel is exact for every type.
//!
//! A matmul that reads B transposed (`linalg.matmul_transpose_b`, or the generic with B's map
//! `(d1, d2)`) is split in two before staging ([`split_transposed_operands`]): a transpose of B
//! into a workspace, then the ordinary matmul, since the CUBE loads take B as K×N rows.

use super::contraction::{dims, unreshaped};
use super::{error, first_that_fits, physical_cols, stretches, walk, Converted, LINALG_PE_MASK};
use crate::Options;
use ptoc_ir::gm_build::GmBuilder;
use ptoc_ir::linalg::{
    Body, BodyValue, Generic, IteratorKind, LOp, LOpKind, LType, MapExpr, Program, TensorType,
};
use ptoc_ir::{ArithOp, Attr, Diagnostic, GmKernel, Location, MemRefType, TileType, ValueId};
use ptoc_isa::ops::by_mnemonic;
use std::borrow::Cow;

/// Whether `g` is a transpose of its one input's last two dimensions, with one batch loop or
/// none, that yields the element unchanged.
pub(super) fn is_transpose(g: &Generic) -> bool {
    let parallel = g.iterators.iter().all(|&k| k == IteratorKind::Parallel);
    let maps: Vec<Option<Vec<u8>>> = g.maps.iter().map(|m| dims(m)).collect();
    let swapped = match g.iterators.len() {
        2 => maps == [Some(vec![1, 0]), Some(vec![0, 1])],
        3 => maps == [Some(vec![0, 2, 1]), Some(vec![0, 1, 2])],
        _ => false,
    };
    let copies = g.body.ops.is_empty() && g.body.yields == [BodyValue::Arg(0)];
    parallel && swapped && copies && g.inputs.len() == 1 && g.outputs.len() == 1
}

/// The kernel for `program` when its one computing op is a transpose; `None` otherwise.
pub(super) fn convert(program: &Program, options: &Options) -> Option<Converted> {
    let computing: Vec<&LOp> = program
        .ops
        .iter()
        .filter(|op| matches!(&op.kind, LOpKind::Generic(_)))
        .collect();
    let [op] = computing[..] else { return None };
    let LOpKind::Generic(g) = &op.kind else {
        return None;
    };
    if !is_transpose(g) {
        return None;
    }
    let one = |d: Diagnostic| vec![d];
    Some(
        emit_fitting(program, op, g, options)
            .map(|k| (k, Vec::new()))
            .map_err(one),
    )
}

/// (batches, rows, columns) of the transpose's source, and its element type.
fn source_shape(program: &Program, v: ValueId) -> Option<(u32, u32, u32, ptoc_ir::linalg::Elem)> {
    match program.ty(v) {
        LType::Tensor(t) if t.shape.len() >= 2 => {
            let s = &t.shape[t.shape.len() - 2..];
            let batches = t.shape[..t.shape.len() - 2].iter().product();
            Some((batches, s[0], s[1], t.elem))
        }
        _ => None,
    }
}

/// Square blocks to try, 32x32 first: a block's source and its transpose are one tile each, and
/// under queue naming a stage's last tiles stay allocated until newer ones retire them, so
/// 64x64 blocks (16 KiB of f32 a tile) would crowd the stage that follows.
const BLOCKS: [u32; 7] = [32, 16, 64, 8, 4, 2, 1];

fn emit_fitting(
    program: &Program,
    op: &LOp,
    g: &Generic,
    options: &Options,
) -> Result<GmKernel, Diagnostic> {
    let Some((batches, rows, cols, elem)) = source_shape(program, g.inputs[0]) else {
        return Err(error(&op.loc, "a transpose reads a tensor of rank 2 or 3"));
    };
    let dtype = elem.data().ok_or_else(|| {
        error(
            &op.loc,
            format!("ptoc moves elements of the ISA's types; this transpose moves {elem}"),
        )
    })?;
    let source = unreshaped(program, g.inputs[0]);
    if !program.args.contains(&source) || program.results.len() != 1 {
        return Err(error(
            &op.loc,
            "a transpose stage reads one argument and returns its transpose",
        ));
    }
    let kernels = BLOCKS
        .into_iter()
        .map(|block| emit(program, &op.loc, (batches, rows, cols), dtype, block));
    first_that_fits(kernels, options).map_err(|why| {
        error(
            &op.loc,
            format!("no block of this {rows}x{cols} transpose fits the tile file{why}"),
        )
    })
}

/// The kernel moving blocks of at most `block`×`block` elements; `None` when batches are
/// stacked and `block` does not divide a batch's rows. The batches' rows are walked as one
/// stretch (a batch is `row / rows`), so the loops stay two deep and their bounds and the
/// offsets fit the registers the arguments leave.
fn emit(
    program: &Program,
    loc: &Location,
    (batches, rows, cols): (u32, u32, u32),
    dtype: ptoc_isa::DataType,
    block: u32,
) -> Option<GmKernel> {
    let batched = batches > 1;
    if batched && !rows.is_multiple_of(block) {
        return None;
    }
    let mut b = GmBuilder::at_source(&program.name, program.loc.clone());
    let arg = program.args[0];
    let name = program
        .value(arg)
        .name
        .clone()
        .unwrap_or_else(|| program.display_name(arg));
    let x = b.memref_of(
        &name,
        MemRefType {
            rows: batches * rows,
            cols,
            dtype,
        },
    );
    let out = b.memref_of(
        "r0",
        MemRefType {
            rows: batches * cols,
            cols: rows,
            dtype,
        },
    );
    // The moves come from the transpose; the closing return from the program.
    b.at(loc.clone());
    let ttrans = by_mnemonic("TTRANS").expect("a catalogue row");
    let c0 = b.index(0);
    let tile = |r: u32, c: u32| TileType::new(r, physical_cols(c) as u32, dtype).with_valid(r, c);
    let (row_count, col_count) = (b.index(i64::from(rows)), b.index(i64::from(cols)));
    let mut blocks = Vec::new();
    for r in stretches(batches * rows, block) {
        for c in stretches(cols, block) {
            let bounds = (super::bounds(&mut b, r, c0), super::bounds(&mut b, c, c0));
            blocks.push((bounds, r.extent, c.extent));
        }
    }
    for &((row_bounds, col_bounds), r, c) in &blocks {
        walk(&mut b, row_bounds, &[], |b, row, _| {
            walk(b, col_bounds, &[], |b, j, _| {
                let t = b.load_as(x, row, j, tile(r, c));
                let info = ttrans;
                let moved = b.tile_op(
                    info,
                    &[t],
                    tile(c, r),
                    Default::default(),
                    Default::default(),
                );
                // Source row `batch·rows + i` goes to column i of the transpose's rows from
                // `batch·cols + j`.
                let (out_row, out_col) = match batched {
                    false => (j, row),
                    true => {
                        let batch = b.arith(ArithOp::DivUI, row, row_count);
                        let first = b.arith(ArithOp::MulI, batch, row_count);
                        let i = b.arith(ArithOp::SubI, row, first);
                        let base = b.arith(ArithOp::MulI, batch, col_count);
                        (b.arith(ArithOp::AddI, base, j), i)
                    }
                };
                b.store(moved, out, out_row, out_col);
                vec![]
            })
        });
    }
    b.at(program.loc.clone());
    let mut kernel = b.finish();
    kernel.attrs.insert(
        ptoc_ir::alloc_attrs::PE_MASK.to_string(),
        Attr::Str(LINALG_PE_MASK.to_string()),
    );
    Some(kernel)
}

/// `program` with each contraction that reads B transposed (maps `(d0, d2)`, `(d1, d2)` ->
/// `(d0, d1)`, or the batched `(d0, d1, d3)`, `(d0, d2, d3)` -> `(d0, d1, d2)`) preceded by a
/// transpose of B into a new tensor, which the contraction then reads as K×N.
pub(super) fn split_transposed_operands(program: &Program) -> Cow<'_, Program> {
    let transposed_b = |g: &Generic| {
        let maps: Vec<Option<Vec<u8>>> = g.maps.iter().map(|m| dims(m)).collect();
        let plain = [Some(vec![0, 2]), Some(vec![1, 2]), Some(vec![0, 1])];
        let batched = [
            Some(vec![0, 1, 3]),
            Some(vec![0, 2, 3]),
            Some(vec![0, 1, 2]),
        ];
        g.inputs.len() == 2 && (maps == plain || maps == batched)
    };
    let needs = program.ops.iter().any(|op| match &op.kind {
        LOpKind::Generic(g) => super::contraction::is_contraction(g) && transposed_b(g),
        _ => false,
    });
    if !needs {
        return Cow::Borrowed(program);
    }
    let mut out = program.clone();
    out.ops.clear();
    for op in &program.ops {
        let LOpKind::Generic(g) = &op.kind else {
            out.ops.push(op.clone());
            continue;
        };
        if !(super::contraction::is_contraction(g) && transposed_b(g)) {
            out.ops.push(op.clone());
            continue;
        }
        let b = g.inputs[1];
        let LType::Tensor(t) = program.ty(b).clone() else {
            out.ops.push(op.clone());
            continue;
        };
        let rank = t.shape.len();
        if rank < 2 {
            out.ops.push(op.clone());
            continue;
        }
        let mut shape = t.shape.clone();
        shape.swap(rank - 1, rank - 2);
        let ty = LType::Tensor(TensorType {
            shape,
            elem: t.elem,
        });
        let empty = out.add_value(None, ty.clone());
        let bt = out.add_value(Some(format!("{}_t", program.display_name(b))), ty);
        let (in_map, out_map): (Vec<u8>, Vec<u8>) = match rank {
            2 => (vec![1, 0], vec![0, 1]),
            _ => (vec![0, 2, 1], vec![0, 1, 2]),
        };
        let map = |d: Vec<u8>| d.into_iter().map(MapExpr::Dim).collect::<Vec<_>>();
        out.ops.push(LOp {
            kind: LOpKind::Empty,
            operands: Vec::new(),
            results: vec![empty],
            loc: op.loc.clone(),
        });
        out.ops.push(LOp {
            kind: LOpKind::Generic(Generic {
                iterators: vec![IteratorKind::Parallel; rank],
                inputs: vec![b],
                outputs: vec![empty],
                maps: vec![map(in_map), map(out_map)],
                body: Body {
                    args: vec![t.elem, t.elem],
                    ops: Vec::new(),
                    yields: vec![BodyValue::Arg(0)],
                },
            }),
            operands: vec![b, empty],
            results: vec![bt],
            loc: op.loc.clone(),
        });
        let mut matmul = g.clone();
        matmul.inputs[1] = bt;
        // B now reads (k, n): the maps of linalg.matmul / batch_matmul.
        matmul.maps[1] = match rank {
            2 => map(vec![2, 1]),
            _ => map(vec![0, 3, 2]),
        };
        // A generic's operands are its inputs, then its outputs.
        let mut operands = op.operands.clone();
        operands[1] = bt;
        out.ops.push(LOp {
            kind: LOpKind::Generic(matmul),
            operands,
            ..op.clone()
        });
    }
    Cow::Owned(out)
}
