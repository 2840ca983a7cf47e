//! GM kernels (README, Kernels over global memory) in the tile passes: each block's tile ops as a [`Function`] DAG, so
//! `pto-verify`, `pto-infer-shapes` and `pto-fuse` apply their per-function code unchanged, and
//! the bounds analysis of `pto.tload`/`pto.tstore` rectangles.
//!
//! A block's DAG ([`block_dag`]) has the block's catalogue tile ops as its ops; every tile value
//! they read that the block's tile ops do not define (kernel arguments, loaded tiles, loop-carried
//! values, values of enclosing blocks) is an argument, and every tile value the rest of the kernel
//! reads (stored, yielded, used by a nested block) is a result, so no pass drops it. The DAG uses
//! the kernel's value numbering, and [`splice`] puts a rewritten DAG back into its block. Nothing
//! crosses a block boundary.

use ptoc_ir::{
    Block, Diagnostic, Function, GmDef, GmKernel, GmOp, GmOpKind, Op, TileType, Type, Value,
    ValueDef, ValueId,
};
use ptoc_isa::DataType;
use std::collections::{HashMap, HashSet};

/// The bounds analysis lives beside the IR so the lowering applies the same rules.
pub use ptoc_ir::check_bounds;

/// How a block's tile-scalar ops (docs/isa.md §14) enter its DAG. A [`Function`] has no scalar
/// values, so in a DAG such an op reads only its tile source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarOps {
    /// In the DAG, without their scalar (verification and shape inference, which judge each op
    /// on its own).
    Included,
    /// Left out, like loads: their tile sources are results, their results arguments (fusion,
    /// which would otherwise merge two ops that differ only in their scalar).
    Opaque,
}

/// Whether `op` is one of the DAG's ops under `mode`.
fn in_dag(op: &GmOp, mode: ScalarOps) -> bool {
    match &op.kind {
        GmOpKind::Tile { info, .. } => mode == ScalarOps::Included || !info.takes_scalar(),
        _ => false,
    }
}

/// One block's tile ops as a function over the kernel's value table, with the kernel values its
/// arguments and results stand for.
pub struct BlockDag {
    pub func: Function,
    /// `func.args[i]` is the kernel value `leaves[i]` (the same id).
    pub leaves: Vec<ValueId>,
    mode: ScalarOps,
    /// The scalar operand of each tile-scalar op in the DAG, by its result.
    scalars: HashMap<ValueId, ValueId>,
}

/// The type a non-tile value gets in a DAG (never read: no tile op uses such a value).
fn placeholder() -> TileType {
    TileType::new(1, 1, DataType::FP32)
}

/// Every value an op of `block` or of a block nested in it reads.
fn nested_uses(block: &Block, out: &mut HashSet<ValueId>) {
    for op in &block.ops {
        out.extend(op.operands.iter().copied());
        if let GmOpKind::For(body) = &op.kind {
            nested_uses(body, out);
        }
    }
}

/// The tile ops of `block` as a [`BlockDag`].
pub fn block_dag(kernel: &GmKernel, block: &Block, mode: ScalarOps) -> BlockDag {
    let mut func = Function::new(kernel.name.clone(), kernel.loc.clone());
    func.attrs = kernel.attrs.clone();
    func.values = kernel
        .values
        .iter()
        .map(|v| Value {
            name: v.name.clone(),
            ty: v.ty.tile().copied().unwrap_or_else(placeholder),
            def: ValueDef::Arg(usize::MAX),
        })
        .collect();
    let mut defined = HashSet::new();
    let mut leaves = Vec::new();
    let mut outside_uses = HashSet::new();
    let mut scalars = HashMap::new();
    for op in &block.ops {
        match &op.kind {
            GmOpKind::Tile { info, control } if in_dag(op, mode) => {
                let result = op.results[0];
                let tiles = &op.operands[..info.sources.len().min(op.operands.len())];
                if info.takes_scalar() {
                    if let Some(&s) = op.operands.get(info.sources.len()) {
                        scalars.insert(result, s);
                    }
                }
                for &v in tiles {
                    if !defined.contains(&v) && !leaves.contains(&v) {
                        leaves.push(v);
                    }
                }
                func.values[result.0 as usize].def =
                    ValueDef::Op(ptoc_ir::OpId(func.ops.len() as u32));
                func.ops.push(Op {
                    info,
                    operands: tiles.to_vec(),
                    result,
                    loc: op.loc.clone(),
                    control: *control,
                    attrs: op.attrs.clone(),
                });
                defined.insert(result);
            }
            GmOpKind::For(body) => {
                outside_uses.extend(op.operands.iter().copied());
                nested_uses(body, &mut outside_uses);
            }
            GmOpKind::Tile { .. }
            | GmOpKind::Load
            | GmOpKind::Store
            | GmOpKind::Constant(_)
            | GmOpKind::Arith(_)
            | GmOpKind::Yield
            | GmOpKind::Return => outside_uses.extend(op.operands.iter().copied()),
        }
    }
    for (i, &leaf) in leaves.iter().enumerate() {
        func.values[leaf.0 as usize].def = ValueDef::Arg(i);
        func.args.push(leaf);
        func.arg_attrs.push(Default::default());
    }
    let mut results: Vec<ValueId> = defined
        .iter()
        .copied()
        .filter(|v| outside_uses.contains(v))
        .collect();
    results.sort();
    func.results = results;
    BlockDag {
        func,
        leaves,
        mode,
        scalars,
    }
}

/// Put `func`, a rewrite of `block`'s DAG `dag`, back into `block`: its ops replace the block's
/// tile ops, each where the op it replaces was (by location) or, if an operand is not available
/// there yet, as soon after as it is; the other ops keep their order. `same_ids` says `func` kept the DAG's value numbering (values past the kernel's table
/// are new); otherwise its arguments and results correspond to the DAG's by position and every
/// other op result is a new value. A result the rewrite merged with another value is replaced
/// by it in every later use.
pub fn splice(
    kernel: &mut GmKernel,
    block: &mut Block,
    dag: &BlockDag,
    func: &Function,
    same_ids: bool,
) -> Result<(), Diagnostic> {
    let kernel_loc = kernel.loc.clone();
    let internal = |what: &str| {
        Diagnostic::error(
            kernel_loc.clone(),
            format!("internal error: a rewritten block {what}"),
        )
    };
    let base = kernel.values.len();
    let mut map: HashMap<ValueId, ValueId> = HashMap::new();
    let mut subst: HashMap<ValueId, ValueId> = HashMap::new();
    if same_ids {
        for op in &func.ops {
            if (op.result.0 as usize) < base {
                map.insert(op.result, op.result);
            }
        }
        for &a in &func.args {
            map.insert(a, a);
        }
    } else {
        if func.args.len() != dag.leaves.len() || func.results.len() != dag.func.results.len() {
            return Err(internal("changed its arguments or results"));
        }
        for (&a, &leaf) in func.args.iter().zip(&dag.leaves) {
            map.insert(a, leaf);
        }
        for (&new, &old) in func.results.iter().zip(&dag.func.results) {
            match map.get(&new) {
                Some(&first) if first != old => {
                    subst.insert(old, first);
                }
                Some(_) => {}
                None => {
                    map.insert(new, old);
                }
            }
        }
    }
    let mut tile_ops = Vec::with_capacity(func.ops.len());
    for op in &func.ops {
        let result = match map.get(&op.result) {
            Some(&r) => {
                kernel.values[r.0 as usize].ty = Type::Tile(*func.ty(op.result));
                r
            }
            None => {
                let v = func.value(op.result);
                let r = kernel.add_value(v.name.clone(), Type::Tile(v.ty), GmDef::Result(0));
                map.insert(op.result, r);
                r
            }
        };
        let mut operands = op
            .operands
            .iter()
            .map(|v| map.get(v).copied())
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| internal("reads a value it does not define"))?;
        if op.info.takes_scalar() {
            let scalar = dag
                .scalars
                .get(&result)
                .ok_or_else(|| internal("has a tile-scalar op without its scalar"))?;
            operands.push(*scalar);
        }
        tile_ops.push(GmOp {
            kind: GmOpKind::Tile {
                info: op.info,
                control: op.control,
            },
            operands,
            results: vec![result],
            loc: op.loc.clone(),
            attrs: op.attrs.clone(),
        });
    }
    // Where the block had each DAG op: after how many of its other ops. A rewritten op keeps
    // the location of the op it replaces (an inserted or fused op its consumer's), so it goes
    // back to the same place, or later when an operand is not yet available.
    let mut anchors: HashMap<ptoc_ir::Location, usize> = HashMap::new();
    let mut seen_others = 0;
    for op in &block.ops {
        if in_dag(op, dag.mode) {
            anchors.entry(op.loc.clone()).or_insert(seen_others);
        } else {
            seen_others += 1;
        }
    }
    // Values that become available only once their op is placed.
    let mut later: HashSet<ValueId> = tile_ops.iter().map(|op| op.results[0]).collect();
    let others: Vec<GmOp> = std::mem::take(&mut block.ops)
        .into_iter()
        .filter(|op| !in_dag(op, dag.mode))
        .collect();
    for op in &others {
        later.extend(op.results.iter().copied());
    }
    let resolve = |v: &ValueId| *subst.get(v).unwrap_or(v);
    let mut pending: Vec<GmOp> = tile_ops;
    let mut out = Vec::new();
    let mut placed_others = 0;
    let place_ready = |pending: &mut Vec<GmOp>,
                       later: &mut HashSet<ValueId>,
                       out: &mut Vec<GmOp>,
                       placed_others: usize| {
        let mut rest = Vec::new();
        for op in pending.drain(..) {
            let anchor = anchors.get(&op.loc).copied().unwrap_or(0);
            if anchor <= placed_others && op.operands.iter().all(|v| !later.contains(v)) {
                later.remove(&op.results[0]);
                out.push(op);
            } else {
                rest.push(op);
            }
        }
        *pending = rest;
    };
    place_ready(&mut pending, &mut later, &mut out, placed_others);
    for mut op in others {
        op.operands = op.operands.iter().map(resolve).collect();
        if op.operands.iter().any(|v| later.contains(v)) {
            return Err(internal("uses a tile before its op can be placed"));
        }
        for r in &op.results {
            later.remove(r);
        }
        let terminator = matches!(op.kind, GmOpKind::Yield | GmOpKind::Return);
        if terminator {
            place_ready(&mut pending, &mut later, &mut out, usize::MAX);
        }
        out.push(op);
        placed_others += 1;
        place_ready(&mut pending, &mut later, &mut out, placed_others);
    }
    place_ready(&mut pending, &mut later, &mut out, usize::MAX);
    if !pending.is_empty() {
        return Err(internal("leaves a tile op that cannot be placed"));
    }
    block.ops = out;
    if !subst.is_empty() {
        substitute(block, &subst);
    }
    Ok(())
}

/// Replace every use of a key of `subst` by its value in `block` and its nested blocks.
fn substitute(block: &mut Block, subst: &HashMap<ValueId, ValueId>) {
    for op in &mut block.ops {
        for v in &mut op.operands {
            if let Some(&to) = subst.get(v) {
                *v = to;
            }
        }
        if let GmOpKind::For(body) = &mut op.kind {
            substitute(body, subst);
        }
    }
}

/// Run `f` on every block of `kernel`, outer blocks before the blocks nested in them; `f` may
/// rewrite the block and add values to the kernel.
pub fn for_each_block_mut(
    kernel: &mut GmKernel,
    f: &mut impl FnMut(&mut GmKernel, &mut Block) -> Result<(), Vec<Diagnostic>>,
) -> Result<(), Vec<Diagnostic>> {
    fn visit(
        kernel: &mut GmKernel,
        block: &mut Block,
        f: &mut impl FnMut(&mut GmKernel, &mut Block) -> Result<(), Vec<Diagnostic>>,
    ) -> Result<(), Vec<Diagnostic>> {
        f(kernel, block)?;
        for op in &mut block.ops {
            if let GmOpKind::For(body) = &mut op.kind {
                visit(kernel, body, f)?;
            }
        }
        Ok(())
    }
    let mut body = std::mem::take(&mut kernel.body);
    let result = visit(kernel, &mut body, f);
    kernel.body = body;
    result
}

/// Every block of `kernel`, outer ones first.
pub fn blocks(kernel: &GmKernel) -> Vec<&Block> {
    fn visit<'k>(block: &'k Block, out: &mut Vec<&'k Block>) {
        out.push(block);
        for op in &block.ops {
            if let GmOpKind::For(body) = &op.kind {
                visit(body, out);
            }
        }
    }
    let mut out = Vec::new();
    visit(&kernel.body, &mut out);
    out
}
