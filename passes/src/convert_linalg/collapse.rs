//! Batch dimensions: a program over tensors of rank 3 or more (torch-mlir's `[batch, seq,
//! hidden]`) becomes the 2-D program the converter tiles, by merging every loop but the last
//! into the row dimension. Row-major order makes that a reinterpretation, not a copy: element
//! `(b, s, h)` of a `B×S×H` tensor is element `(b·S + s, h)` of a `(B·S)×H` one, so the kernel's
//! memrefs hold the same bytes as the tensors, and every fold over the last dimension runs over
//! the same elements in the same order.
//!
//! It applies when every op of rank `r` (the largest) keeps its leading `r - 1` loops parallel
//! and reads each operand through the leading loops in order, optionally followed by the last
//! loop or a unit `0` (`(d0, d1, d2) -> (d0, d1, d2)`, `-> (d0, d1)`, `-> (d0, d1, 0)`), through
//! the last loop alone (`-> (d2)`, a per-column vector) or not at all (a scalar); ops of rank
//! `r - 1` must be elementwise over the leading dimensions. Anything else (a reduction over a
//! batch dimension, a map that skips or reorders leading loops) is a located error.

use super::error;
use ptoc_ir::linalg::{Generic, IteratorKind, LOpKind, LType, MapExpr, Program, TensorType};
use ptoc_ir::{Diagnostic, ValueId};
use std::borrow::Cow;

/// `program` with its leading dimensions merged, or itself when it has no tensor or op of rank
/// above 2.
pub(super) fn collapse_batch_dims(program: &Program) -> Result<Cow<'_, Program>, Diagnostic> {
    // The values the program uses: a stage of a larger program shares its value table.
    let used: std::collections::HashSet<ValueId> = (program.args.iter())
        .chain(&program.results)
        .chain(
            program
                .ops
                .iter()
                .flat_map(|op| op.operands.iter().chain(&op.results)),
        )
        .copied()
        .collect();
    let used_values = || {
        let values = program.values.iter().enumerate();
        values.filter(|(i, _)| used.contains(&ValueId(*i as u32)))
    };
    let rank = program
        .ops
        .iter()
        .filter_map(|op| match &op.kind {
            LOpKind::Generic(g) => Some(g.iterators.len()),
            _ => None,
        })
        .chain(used_values().map(|(_, v)| match &v.ty {
            LType::Tensor(t) => t.shape.len(),
            LType::Scalar(_) => 0,
        }))
        .max()
        .unwrap_or(0);
    if rank <= 2 {
        return Ok(Cow::Borrowed(program));
    }
    let lead = leading_extents(program, rank)?;
    let rows = lead.iter().try_fold(1u32, |n, &d| n.checked_mul(d));
    let Some(rows) = rows else {
        return Err(error(
            &program.loc,
            format!(
                "the batch dimensions {lead:?} hold more than {} rows together",
                u32::MAX
            ),
        ));
    };
    let mut out = program.clone();
    for (i, value) in out.values.iter_mut().enumerate() {
        let LType::Tensor(t) = &mut value.ty else {
            continue;
        };
        if !used.contains(&ValueId(i as u32)) {
            continue;
        }
        if t.shape.len() == rank && t.shape[..rank - 1] == lead[..] {
            t.shape = vec![rows, t.shape[rank - 1]];
        } else if t.shape.len() == rank - 1 && t.shape == lead {
            t.shape = vec![rows];
        } else if t.shape.len() > 2 {
            let loc = program
                .defining_op(ValueId(i as u32))
                .map_or(&program.loc, |op| &op.loc);
            return Err(error(
                loc,
                format!(
                    "{} has batch dimensions other than the program's {lead:?}; ptoc merges the \
                     leading dimensions of tensors that share them",
                    describe(program, ValueId(i as u32), t)
                ),
            ));
        }
    }
    for op in &mut out.ops {
        if let LOpKind::Generic(g) = &mut op.kind {
            collapse_generic(g, rank).map_err(|why| error(&op.loc, why))?;
        }
    }
    Ok(Cow::Owned(out))
}

/// The extents of the leading `rank - 1` loops, which every op of `rank` loops shares.
fn leading_extents(program: &Program, rank: usize) -> Result<Vec<u32>, Diagnostic> {
    let mut lead: Option<(Vec<u32>, &ptoc_ir::Location)> = None;
    for op in &program.ops {
        let LOpKind::Generic(g) = &op.kind else {
            continue;
        };
        if g.iterators.len() != rank {
            continue;
        }
        let dom = super::domain(program, g, &op.loc)?;
        match &lead {
            Some((known, first)) if known[..] != dom[..rank - 1] => {
                return Err(error(
                    &op.loc,
                    format!(
                        "this op's batch dimensions are {:?}, but those of the op at {first} are \
                         {known:?}",
                        &dom[..rank - 1]
                    ),
                ))
            }
            Some(_) => {}
            None => lead = Some((dom[..rank - 1].to_vec(), &op.loc)),
        }
    }
    if let Some((lead, _)) = lead {
        return Ok(lead);
    }
    // No op of that rank: the first tensor of that rank (an argument returned as it is) decides.
    let first = program.values.iter().find_map(|v| match &v.ty {
        LType::Tensor(t) if t.shape.len() == rank => Some(t.shape[..rank - 1].to_vec()),
        _ => None,
    });
    first.ok_or_else(|| {
        error(
            &program.loc,
            format!(
                "ops of {rank} loops over tensors of lower rank; ptoc merges the leading \
                     dimensions of tensors"
            ),
        )
    })
}

/// One generic's loops and maps with the leading dimensions merged; why not, if they cannot be.
fn collapse_generic(g: &mut Generic, rank: usize) -> Result<(), String> {
    let loops = g.iterators.len();
    let dim = |d: usize| MapExpr::Dim(d as u8);
    let leading: Vec<MapExpr> = (0..rank - 1).map(dim).collect();
    let last = dim(rank - 1);
    let contraction = g.maps.iter().any(|m| {
        let lead_read = m.iter().filter(|e| leading.contains(e)).count();
        m.contains(&last) && lead_read > 0 && lead_read < rank - 1
    });
    if loops == rank && contraction && g.iterators[rank - 1] == IteratorKind::Reduction {
        return Err(format!(
            "a contraction other than a matmul (an operand reads the reduced loop d{} with only \
             some of the others); ptoc maps linalg.matmul and linalg.batch_matmul, two inputs \
             and one output, onto the matrix unit, and otherwise lowers elementwise ops and \
             folds along one dimension",
            rank - 1
        ));
    }
    if loops == rank {
        if g.iterators[..rank - 1]
            .iter()
            .any(|&it| it != IteratorKind::Parallel)
        {
            return Err(format!(
                "a rank-{rank} op that reduces over a leading dimension; ptoc merges the leading \
                 dimensions into rows, so a rank-{rank} op may fold only its last dimension"
            ));
        }
        g.iterators = vec![IteratorKind::Parallel, g.iterators[rank - 1]];
        for (k, map) in g.maps.iter_mut().enumerate() {
            let last = &map[map.len().min(rank - 1)..];
            *map = match map.as_slice() {
                [] => vec![],
                [MapExpr::Zero] => vec![MapExpr::Zero],
                [MapExpr::Dim(d)] if *d as usize == rank - 1 => vec![dim(1)],
                m if m.starts_with(&leading) => match last {
                    [] => vec![dim(0)],
                    [MapExpr::Dim(d)] if *d as usize == rank - 1 => vec![dim(0), dim(1)],
                    [MapExpr::Zero] => vec![dim(0), MapExpr::Zero],
                    _ => return Err(unmergeable(k, rank)),
                },
                _ => return Err(unmergeable(k, rank)),
            };
        }
    } else if loops == rank - 1 {
        if g.iterators.iter().any(|&it| it != IteratorKind::Parallel) {
            return Err(format!(
                "a rank-{} op that reduces over batch dimensions; ptoc merges them into rows",
                rank - 1
            ));
        }
        g.iterators = vec![IteratorKind::Parallel];
        for (k, map) in g.maps.iter_mut().enumerate() {
            *map = match map.as_slice() {
                [] => vec![],
                m if m == leading.as_slice() => vec![dim(0)],
                _ => return Err(unmergeable(k, rank)),
            };
        }
    } else if loops > 1 {
        return Err(format!(
            "an op of {loops} loops in a program of rank {rank}; ptoc merges the leading \
             dimensions of rank-{rank} ops, so the other ops must be elementwise over them or \
             1-D"
        ));
    }
    Ok(())
}

fn unmergeable(operand: usize, rank: usize) -> String {
    format!(
        "operand {operand}'s indexing map does not read the leading dimensions d0..d{} in order \
         (then optionally d{} or 0), d{} alone, or nothing; ptoc merges the leading dimensions \
         into rows, which such a map would not follow",
        rank - 2,
        rank - 1,
        rank - 1
    )
}

fn describe(program: &Program, v: ValueId, t: &TensorType) -> String {
    format!("%{} ({t})", program.display_name(v))
}
