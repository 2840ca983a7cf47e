//! Programs of several stages: a contraction reads what a grid computation or another
//! contraction made (a whole MLP, attention's second matmul), or what follows a matmul cannot
//! run in place on the product's memory (a reduction, a second result).
//!
//! The program's ops are cut into stages, each one kernel's worth for the converters that
//! exist: what comes before the first contraction (the grid converter's), and each
//! contraction with what follows it up to the next one (the contraction converter's, its
//! epilogue in place), or the contraction alone and then what follows it as a grid stage when
//! the epilogue cannot run in place. Each stage is converted as a program of its own, whose
//! arguments are the tensors it reads from outside and whose results are the tensors it hands
//! on; the kernels are appended in program order into one kernel, each handed-on tensor in
//! memory: a program result in its `rK`, any other in a **workspace** (`ws0`, `ws1`, …), a
//! memref after the arguments that the loader zero-fills and nobody reads back
//! (codegen/METADATA.md). Each stage stores its results before the next one loads them, so the
//! kernel computes what the program means, stage by stage, bit for bit.
//!
//! Constants, empties, fills, reshapes and a weight's broadcast over a batch_matmul's batch
//! (`contraction::is_weight_broadcast`) are not stages: each stage takes a copy of the ones it
//! reads, and a reshape's bytes are its source's, so a tensor crosses stages as the value
//! its reshapes start from ([`unreshaped`]).

use super::contraction::{append, is_contraction, is_weight_broadcast, splat_bits, unreshaped};
use super::transpose::is_transpose;
use super::{error, fits, Converted};
use crate::Options;
use ptoc_ir::linalg::{BodyValue, LOp, LOpKind, LType, Program};
use ptoc_ir::{GmKernel, MemRefType, ScalarType, Type, ValueId};
use std::collections::{BTreeSet, HashMap};

/// The kernel for `program` when it needs more than one stage; `None` when one converter
/// takes it whole.
pub(super) fn convert(program: &Program, options: &Options) -> Option<Converted> {
    let groups = stages(program);
    if groups.len() < 2 {
        return None;
    }
    Some(combine(program, &groups, options))
}

/// What needs no stage of its own: it computes nothing over a tensor's elements.
fn is_free(program: &Program, op: &LOp) -> bool {
    match &op.kind {
        LOpKind::Constant(_) | LOpKind::Empty | LOpKind::Reshape => true,
        LOpKind::Generic(_) => {
            op.results.iter().all(|&r| splat_bits(program, r).is_some())
                || is_weight_broadcast(program, op)
        }
    }
}

/// The values `op` reads: its operands and what its body captures from outside.
fn reads(op: &LOp) -> Vec<ValueId> {
    let mut out = op.operands.clone();
    if let LOpKind::Generic(g) = &op.kind {
        for body_op in &g.body.ops {
            for v in &body_op.operands {
                if let BodyValue::Outer(outer) = v {
                    out.push(*outer);
                }
            }
        }
        for y in &g.body.yields {
            if let BodyValue::Outer(outer) = y {
                out.push(*outer);
            }
        }
    }
    out
}

/// The program's computing ops cut into stages (indices into `program.ops`, in order).
fn stages(program: &Program) -> Vec<Vec<usize>> {
    // Contractions and transposes start stages of their own.
    let contraction = |i: usize| match &program.ops[i].kind {
        LOpKind::Generic(g) => is_contraction(g),
        _ => false,
    };
    let transpose = |i: usize| match &program.ops[i].kind {
        LOpKind::Generic(g) => is_transpose(g),
        _ => false,
    };
    let computing = (0..program.ops.len()).filter(|&i| !is_free(program, &program.ops[i]));
    let computing: Vec<usize> = computing.collect();
    if !computing.iter().any(|&i| contraction(i) || transpose(i)) {
        return Vec::new();
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in computing {
        match groups.last_mut() {
            Some(group) if !contraction(i) && !transpose(i) && !transpose(group[0]) => {
                group.push(i)
            }
            _ => groups.push(vec![i]),
        }
    }
    // A contraction's group keeps its epilogue only where it can run in place.
    let mut out = Vec::new();
    for group in groups {
        if contraction(group[0]) && group.len() > 1 && !in_place(program, &group) {
            out.push(vec![group[0]]);
            out.push(group[1..].to_vec());
        } else {
            out.push(group);
        }
    }
    out
}

/// Whether a contraction's group (`group[0]`) can run its epilogue (the rest) in place on the
/// product's memory: the epilogue hands on one tensor of the product's type and nothing else,
/// nobody else reads the product, and the epilogue does not read the matmul's operands (which
/// the contraction converter gives the matrix unit's views).
fn in_place(program: &Program, group: &[usize]) -> bool {
    let matmul = &program.ops[group[0]];
    let product = matmul.results[0];
    let own: BTreeSet<usize> = group.iter().copied().collect();
    let read_elsewhere = |v: ValueId| {
        let results = program.results.iter().map(|&r| unreshaped(program, r));
        results.clone().any(|r| r == v)
            || (0..program.ops.len())
                .filter(|i| !own.contains(i))
                .flat_map(|i| reads(&program.ops[i]))
                .any(|r| unreshaped(program, r) == v)
    };
    let handed_on: Vec<ValueId> = group[1..]
        .iter()
        .flat_map(|&i| program.ops[i].results.iter().copied())
        .filter(|&v| read_elsewhere(v))
        .collect();
    let operands: Vec<ValueId> = matmul
        .operands
        .iter()
        .map(|&v| unreshaped(program, v))
        .collect();
    let epilogue_reads_operand = group[1..]
        .iter()
        .flat_map(|&i| reads(&program.ops[i]))
        .any(|v| operands.contains(&unreshaped(program, v)));
    matches!(handed_on[..], [v] if program.ty(v) == program.ty(product))
        && !read_elsewhere(product)
        && !epilogue_reads_operand
}

/// One stage as a program of its own.
struct Stage {
    program: Program,
}
/// The stage of `group`: its ops and the free ops they read, its arguments (what they read
/// from outside, the program's arguments first) and no results yet.
fn stage(program: &Program, group: &[usize]) -> Stage {
    let mut include: BTreeSet<usize> = group.iter().copied().collect();
    let mut needed: BTreeSet<ValueId> =
        group.iter().flat_map(|&i| reads(&program.ops[i])).collect();
    for i in (0..program.ops.len()).rev() {
        let op = &program.ops[i];
        if !include.contains(&i)
            && is_free(program, op)
            && op.results.iter().any(|r| needed.contains(r))
        {
            include.insert(i);
            needed.extend(reads(op));
        }
    }
    let ops: Vec<LOp> = include.iter().map(|&i| program.ops[i].clone()).collect();
    let defined: BTreeSet<ValueId> = ops.iter().flat_map(|op| op.results.clone()).collect();
    let outside = |v: &ValueId| !defined.contains(v);
    let mut args: Vec<ValueId> = program
        .args
        .iter()
        .copied()
        .filter(|a| needed.contains(a))
        .collect();
    args.extend(
        needed
            .iter()
            .copied()
            .filter(|v| outside(v) && !program.args.contains(v)),
    );
    Stage {
        program: Program {
            ops,
            args,
            results: Vec::new(),
            ..program.clone()
        },
    }
}

/// Convert each stage and append the kernels into one, the tensors between them in memory.
fn combine(program: &Program, groups: &[Vec<usize>], options: &Options) -> Converted {
    let mut stages: Vec<Stage> = groups.iter().map(|g| stage(program, g)).collect();
    // What each stage hands on: what a later stage reads, and the program's results.
    let results: Vec<ValueId> = program
        .results
        .iter()
        .map(|&r| unreshaped(program, r))
        .collect();
    for s in 0..stages.len() {
        let own: BTreeSet<ValueId> = groups[s]
            .iter()
            .flat_map(|&i| program.ops[i].results.iter().copied())
            .collect();
        let later: BTreeSet<ValueId> = stages[s + 1..]
            .iter()
            .flat_map(|t| t.program.args.iter().copied())
            .collect();
        let handed_on = own
            .iter()
            .copied()
            .filter(|v| later.contains(v) || results.contains(v));
        stages[s].program.results = handed_on.collect();
    }
    for (k, r) in results.iter().enumerate() {
        let defined = stages.iter().any(|s| s.program.results.contains(r));
        if !defined || results[..k].contains(r) {
            return Err(vec![error(
                &program.loc,
                format!(
                    "result {k} (%{}) is {}; in a program with several stages each result \
                     must be a tensor one of its ops computes, returned once",
                    program.display_name(program.results[k]),
                    if defined {
                        "returned twice"
                    } else {
                        "not computed by any op"
                    }
                ),
            )]);
        }
    }
    let mut kernels = Vec::new();
    let mut remarks = Vec::new();
    for (index, s) in stages.iter().enumerate() {
        if s.program.results.is_empty() {
            continue;
        }
        let (kernel, r) = super::convert(&s.program, options)?;
        remarks.extend(r);
        kernels.push((index, &s.program, kernel));
    }

    // The kernel's memrefs: the program's arguments, its results, then the workspaces.
    let type_in = |v: ValueId| {
        kernels.iter().find_map(|(_, sub, k)| {
            let at = sub.args.iter().chain(&sub.results).position(|&a| a == v)?;
            Some(k.ty(*k.args.get(at)?).clone())
        })
    };
    let mut kernel = GmKernel::new(program.name.clone(), program.loc.clone());
    let mut memory: HashMap<ValueId, ValueId> = HashMap::new();
    let mut names: BTreeSet<String> = BTreeSet::new();
    for &a in &program.args {
        let name = program
            .value(a)
            .name
            .clone()
            .unwrap_or_else(|| program.display_name(a));
        let ty = match type_in(a) {
            Some(ty) => ty,
            None => unread_argument_type(program, a)?,
        };
        names.insert(name.clone());
        memory.insert(a, kernel.add_arg(Some(name), ty));
    }
    for (k, &r) in results.iter().enumerate() {
        let name = format!("r{k}");
        names.insert(name.clone());
        let ty = type_in(r).expect("a stage computes every result");
        memory.insert(r, kernel.add_arg(Some(name), ty));
    }
    let mut next = 0;
    for (_, sub, _) in &kernels {
        for &v in &sub.results {
            if memory.contains_key(&v) {
                continue;
            }
            let name = loop {
                let name = format!("ws{next}");
                next += 1;
                if !names.contains(&name) {
                    break name;
                }
            };
            let ty = type_in(v).expect("its stage has the type");
            let ws = kernel.add_arg(Some(name), ty);
            kernel.workspaces.push(ws);
            memory.insert(v, ws);
        }
    }
    for (index, sub, stage_kernel) in &kernels {
        let values: Vec<ValueId> = sub.args.iter().chain(&sub.results).copied().collect();
        let map: Vec<ValueId> = values.iter().map(|v| memory[v]).collect();
        for ((&v, &mine), &theirs) in values.iter().zip(&map).zip(&stage_kernel.args) {
            if kernel.ty(mine) != stage_kernel.ty(theirs) {
                let op = &program.ops[groups[*index][0]];
                return Err(vec![error(
                    &op.loc,
                    format!(
                        "this stage reads %{} as {}, but the program keeps it as {}; ptoc \
                         passes a tensor between stages in one row-major view",
                        program.display_name(v),
                        stage_kernel.ty(theirs),
                        kernel.ty(mine)
                    ),
                )]);
            }
        }
        append(&mut kernel, stage_kernel, &map);
    }
    fits(&kernel, options)?;
    Ok((kernel, remarks))
}

/// The kernel type of an argument no stage reads: a memref of its rows (every dimension but
/// the last) by its last dimension, or a scalar.
fn unread_argument_type(program: &Program, arg: ValueId) -> Result<Type, Vec<ptoc_ir::Diagnostic>> {
    let dtype = |e: ptoc_ir::linalg::Elem| {
        e.data().ok_or_else(|| {
            vec![error(
                &program.loc,
                format!(
                    "argument %{} has element type {e}, which ptoc does not pass",
                    program.display_name(arg)
                ),
            )]
        })
    };
    Ok(match program.ty(arg) {
        LType::Tensor(t) => {
            let cols = t.shape.last().copied().unwrap_or(1);
            let rows = t.shape.iter().rev().skip(1).product::<u32>();
            Type::MemRef(MemRefType {
                rows,
                cols,
                dtype: dtype(t.elem)?,
            })
        }
        LType::Scalar(e) => Type::Scalar(ScalarType::Element(dtype(*e)?)),
    })
}
