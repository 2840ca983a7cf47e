//! The op order `pto-allocate` plans a GM kernel in when its source order does not fit the core
//! (`gm_allocate`, README "Kernels over global memory"): each straight-line stretch is
//! list-scheduled so that a tile's readers follow it closely, which shortens the lives of big
//! tiles (a kernel that loads four tiles and then reduces each becomes load, reduce, load, …).
//!
//! The order is a topological order of the stretch's dependences: a value's definition before its
//! readers; loads never pass a store and a store passes no load or store (memrefs may alias);
//! loops, yields and returns stay where they are and bound the stretches. Scalar and tile ops are
//! pure, so this is the source's meaning.

use ptoc_ir::{Block, GmOpKind, ValueId};
use std::collections::HashMap;

/// Reorder every straight-line stretch of `block` and of its nested bodies. Among the ops whose
/// dependences are met, the next is the one that adds the fewest bytes to the tiles alive (its
/// result's `footprint` minus those of the tiles it reads last), the earliest in source order on
/// a tie.
pub(crate) fn schedule_block(block: &mut Block, footprint: &dyn Fn(ValueId) -> u64) {
    // Reads still to come, per value, over the whole block (so a stretch's last reader is known).
    let mut remaining: HashMap<ValueId, usize> = HashMap::new();
    for op in &block.ops {
        for &v in &op.operands {
            *remaining.entry(v).or_default() += 1;
        }
    }
    let ops = std::mem::take(&mut block.ops);
    let mut out = Vec::with_capacity(ops.len());
    let mut stretch = Vec::new();
    for mut op in ops {
        let barrier = matches!(
            op.kind,
            GmOpKind::For(_) | GmOpKind::Yield | GmOpKind::Return
        );
        if !barrier {
            stretch.push(op);
            continue;
        }
        schedule_stretch(
            std::mem::take(&mut stretch),
            &mut remaining,
            footprint,
            &mut out,
        );
        for v in &op.operands {
            remaining.entry(*v).and_modify(|n| *n -= 1);
        }
        if let GmOpKind::For(body) = &mut op.kind {
            schedule_block(body, footprint);
        }
        out.push(op);
    }
    schedule_stretch(stretch, &mut remaining, footprint, &mut out);
    block.ops = out;
}

/// Append `stretch` to `out` in the order of [`schedule_block`].
fn schedule_stretch(
    stretch: Vec<ptoc_ir::GmOp>,
    remaining: &mut HashMap<ValueId, usize>,
    footprint: &dyn Fn(ValueId) -> u64,
    out: &mut Vec<ptoc_ir::GmOp>,
) {
    let n = stretch.len();
    let producer: HashMap<ValueId, usize> = stretch
        .iter()
        .enumerate()
        .flat_map(|(i, op)| op.results.iter().map(move |&r| (r, i)))
        .collect();
    let is_store = |i: usize| matches!(stretch[i].kind, GmOpKind::Store);
    let is_memory = |i: usize| matches!(stretch[i].kind, GmOpKind::Load | GmOpKind::Store);
    let deps: Vec<Vec<usize>> = (0..n)
        .map(|i| {
            let mut d: Vec<usize> = stretch[i]
                .operands
                .iter()
                .filter_map(|v| producer.get(v).copied())
                .collect();
            let ordered = |j: usize| {
                if is_store(i) {
                    is_memory(j)
                } else {
                    is_memory(i) && is_store(j)
                }
            };
            d.extend((0..i).filter(|&j| ordered(j)));
            d
        })
        .collect();
    let mut done = vec![false; n];
    let mut slots: Vec<Option<ptoc_ir::GmOp>> = stretch.iter().cloned().map(Some).collect();
    for _ in 0..n {
        let net = |i: usize| -> i64 {
            let op = &stretch[i];
            let pushed = match op.kind {
                GmOpKind::Load | GmOpKind::Tile { .. } => {
                    op.results.iter().map(|&r| footprint(r)).sum()
                }
                _ => 0,
            };
            let mut read: Vec<ValueId> = op.operands.clone();
            read.sort();
            read.dedup();
            let freed: u64 = read
                .iter()
                .filter(|&&v| {
                    let here = op.operands.iter().filter(|&&x| x == v).count();
                    remaining.get(&v).copied().unwrap_or(0) == here
                })
                .map(|&v| footprint(v))
                .sum();
            pushed as i64 - freed as i64
        };
        let next = (0..n)
            .filter(|&i| !done[i] && deps[i].iter().all(|&j| done[j]))
            .min_by_key(|&i| (net(i), i))
            .expect("a stretch's dependences are acyclic");
        done[next] = true;
        for v in &stretch[next].operands {
            remaining.entry(*v).and_modify(|n| *n -= 1);
        }
        out.push(slots[next].take().expect("scheduled once"));
    }
}
