//! Contractions: a program whose result is one `linalg.matmul` (as normalisation generalises it:
//! loops `[parallel, parallel, reduction]`, maps `(d0, d2)`, `(d2, d1)`, `(d0, d1)`) becomes a GM
//! kernel of CUBE tiles (docs/isa.md §18): for each block of D's rows and columns, A's and B's
//! blocks are loaded into `cube_m16`/`cube_m32` and `cube_n8`, the first K block is multiplied
//! with `pto.tmatmul` (from +0, linalg's zero fill) or `pto.tmatmul_acc` onto the init loaded
//! from memory, the other K blocks accumulate in a loop that carries D, and D is stored.
//!
//! What follows the matmul (an epilogue) is the grid converter's: a program of its own that reads
//! the product as its first argument, appended to the kernel and run in place on the product's
//! memory ([`epilogue`]). An epilogue that cannot run in place, and ops before the matmul, are
//! stages of their own (`stages`), which is also how this converter sees only what it can take.
//!
//! A `linalg.batch_matmul` whose B broadcasts one rank-2 tensor over the batch (torch-mlir's
//! MatMul of a 3-D by a 2-D tensor, `torch.nn.Linear` on a batch of sequences) is one matmul of
//! A's stacked rows by that tensor ([`shared_weight`]): every row of the product reads the same
//! B, so the kernel computes the same sums without the broadcast copy.
//!
//! **Exactness.** The body must be the matmul's: each input widened exactly to the accumulator
//! type (`arith.extf`, `arith.extsi`; none for f32), multiplied, and added onto the output's
//! element (`arith.addf %out, %prod`, `arith.addi`). That is the matrix unit's accumulation
//! (docs/isa.md §9 decision 51): for each element, k in order from the init, the product and the
//! sum each rounded once, so the kernel computes linalg's result bit for bit. A body that
//! accumulates in another type (an f16 output), or in another order, is refused at the op.

use super::{error, first_that_fits, stretches, walk, Converted, Stretch};
use crate::Options;
use ptoc_ir::gm_build::GmBuilder;
use ptoc_ir::linalg::{
    BodyValue, Elem, Generic, IteratorKind, LOp, LOpKind, LType, MapExpr, Program,
};
use ptoc_ir::{
    ArithOp, Attr, Diagnostic, GmKernel, GmOpKind, Location, MemRefType, TileType, ValueId,
};
use ptoc_isa::dtype::MATRIX_INPUTS;
use ptoc_isa::ops::by_mnemonic;
use ptoc_isa::{DataType, Layout, TypeClass};

use super::LINALG_PE_MASK;

/// The rows a left-matrix block can have: `cube_m32`'s (docs/isa.md §18.2).
const MAX_BLOCK_ROWS: u32 = 32;

/// Where D starts before the first product is added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Init {
    /// A fill of +0: the matrix unit's own start (TMATMUL).
    Zero,
    /// A tensor argument of the program, loaded and accumulated onto (TMATMUL_ACC).
    Tensor(ValueId),
}

/// A recognised matmul: `D[m][n] = init[m][n] + Σ_k A[m][k]·B[k][n]`.
struct Matmul {
    a: ValueId,
    b: ValueId,
    init: Init,
    /// How many products (linalg.batch_matmul's first loop; 1 for linalg.matmul). Each operand's
    /// batches are stacked row-major in its memref: A is (batch·M)×K, B (batch·K)×N.
    batch: u32,
    /// M, N, K of each product.
    shape: (u32, u32, u32),
    /// A's and B's element type, and the accumulator's.
    input: DataType,
    acc: DataType,
    loc: Location,
}

/// The kernel for `program` when its result is a contraction; `None` when it has none (the grid
/// converter takes it).
pub(super) fn convert(program: &Program, options: &Options) -> Option<Converted> {
    let index = program.ops.iter().position(|op| match &op.kind {
        LOpKind::Generic(g) => is_contraction(g),
        _ => false,
    })?;
    let one = |d: Diagnostic| vec![d];
    Some(recognise(program, index).map_err(one).and_then(|mm| {
        let tail = epilogue(program, index, &mm, options)?;
        let kernel = emit_fitting(program, &mm, tail.as_ref().map(|t| &t.0), options);
        Ok((kernel.map_err(one)?, tail.map(|t| t.1).unwrap_or_default()))
    }))
}

/// The ops after the matmul, compiled by the grid converter as a program of their own that
/// reads the product as its first argument, with their remarks; `None` when the matmul's result
/// is the program's. The epilogue runs in place on the product's memory (the kernel's `r0`), so
/// its one result must have the product's shape and type; each of its blocks reads D's
/// elements before it writes them.
fn epilogue(
    program: &Program,
    index: usize,
    mm: &Matmul,
    options: &Options,
) -> Result<Option<(GmKernel, Vec<Diagnostic>)>, Vec<Diagnostic>> {
    let product = program.ops[index].results[0];
    if program
        .results
        .iter()
        .map(|&r| unreshaped(program, r))
        .eq([product])
    {
        return Ok(None);
    }
    let refuse = |loc: &Location, why: String| Err(vec![error(loc, why)]);
    let [result] = program.results[..] else {
        return refuse(
            &program.loc,
            "a program with a contraction returns one tensor".into(),
        );
    };
    if program.ty(result) != program.ty(product) {
        return refuse(
            &mm.loc,
            format!(
                "the program returns {} computed from this product's {}; what runs in place on \
                 the product's memory must keep the product's shape and element type",
                program.ty(result),
                program.ty(product)
            ),
        );
    }
    let mut tail = program.clone();
    tail.ops.remove(index);
    // A broadcast B the product reads as its weight belongs to the product, not the epilogue.
    tail.ops.retain(|op| !is_weight_broadcast(program, op));
    let mut read = std::collections::HashSet::new();
    for op in &tail.ops {
        read.extend(op.operands.iter().copied());
        if let LOpKind::Generic(g) = &op.kind {
            for body_op in &g.body.ops {
                for v in &body_op.operands {
                    if let BodyValue::Outer(outer) = v {
                        read.insert(*outer);
                    }
                }
            }
        }
    }
    // And so does the empty tensor that broadcast filled: nothing else reads it.
    tail.ops
        .retain(|op| op.kind != LOpKind::Empty || op.results.iter().any(|r| read.contains(r)));
    let operands = [Some(mm.a), Some(mm.b), mm.init_tensor()];
    if let Some(&shared) = program
        .args
        .iter()
        .find(|a| read.contains(a) && operands.contains(&Some(**a)))
    {
        return refuse(
            &mm.loc,
            format!(
                "the ops after this matmul read its operand %{} again; ptoc loads a matmul's \
                 operands into matrix layouts only, so pass that tensor a second time",
                program.display_name(shared)
            ),
        );
    }
    tail.args = std::iter::once(product)
        .chain(program.args.iter().copied().filter(|a| read.contains(a)))
        .collect();
    super::convert(&tail, options).map(Some)
}

/// A generic with more loops than its output has dimensions, that reduces over one of them
/// while reading two tensors through it: a matrix product of some form.
pub(super) fn is_contraction(g: &Generic) -> bool {
    let reduces = g.iterators.contains(&IteratorKind::Reduction);
    let operands = g.inputs.len() == 2 && g.outputs.len() == 1;
    operands && reduces && (g.iterators.len() >= 3 || is_vector_matrix(g))
}

/// A 1×K by K×N matmul after normalisation folded its unit dimension away: loops
/// `[parallel, reduction]`, maps `(d1)`, `(d1, d0)` -> `(d0)`.
fn is_vector_matrix(g: &Generic) -> bool {
    use IteratorKind::{Parallel as P, Reduction as R};
    let maps: Vec<Option<Vec<u8>>> = g.maps.iter().map(|m| dims(m)).collect();
    g.iterators == [P, R] && maps == [Some(vec![1]), Some(vec![1, 0]), Some(vec![0])]
}

/// The loop dimensions an indexing map reads, in order; `None` when it reads a constant.
pub(super) fn dims(map: &[MapExpr]) -> Option<Vec<u8>> {
    map.iter()
        .map(|e| match e {
            MapExpr::Dim(d) => Some(*d),
            _ => None,
        })
        .collect()
}

fn recognise(program: &Program, index: usize) -> Result<Matmul, Diagnostic> {
    let op = &program.ops[index];
    let loc = &op.loc;
    let LOpKind::Generic(g) = &op.kind else {
        unreachable!("a contraction is a generic")
    };
    use IteratorKind::{Parallel as P, Reduction as R};
    let maps: Vec<Option<Vec<u8>>> = g.maps.iter().map(|m| dims(m)).collect();
    let matmul = [Some(vec![0, 2]), Some(vec![2, 1]), Some(vec![0, 1])];
    let batch_matmul = [
        Some(vec![0, 1, 3]),
        Some(vec![0, 3, 2]),
        Some(vec![0, 1, 2]),
    ];
    let batched = g.iterators == [P, P, P, R] && maps == batch_matmul;
    let vector = is_vector_matrix(g);
    if !batched && !vector && (g.iterators != [P, P, R] || maps != matmul) {
        // B read transposed was split into a transpose and a matmul before (transpose.rs).
        let why = format!(
            "ptoc maps a contraction onto the matrix unit when it is linalg.matmul's (loops \
                 [parallel, parallel, reduction], maps (d0, d2), (d2, d1) -> (d0, d1)) or \
                 linalg.batch_matmul's (a parallel batch loop first); this one has {} loops and \
                 maps {}",
            g.iterators.len(),
            g.maps
                .iter()
                .map(|m| format!("{m:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Err(error(loc, format!("cannot map this contraction: {why}")));
    }
    let rank = if batched { 3 } else { 2 };
    // (batch, rows, columns, element) of an operand; a vector-matrix product's vectors are rows.
    let tensor = |v: ValueId| match program.ty(v) {
        LType::Tensor(t) if vector && t.shape.len() == 1 => Ok((1, 1, t.shape[0], t.elem)),
        LType::Tensor(t) if t.shape.len() == rank => {
            let s = &t.shape[t.shape.len() - 2..];
            Ok((
                t.shape[..rank - 2].iter().product::<u32>(),
                s[0],
                s[1],
                t.elem,
            ))
        }
        other => Err(error(
            loc,
            format!(
                "contraction operand %{} is {other}; this contraction multiplies rank-{rank} \
                 tensors",
                program.display_name(v)
            ),
        )),
    };
    let (a, b, c) = (g.inputs[0], g.inputs[1], g.outputs[0]);
    let ((batch, m, k, ea), (_, _, n, eb), (_, _, _, ec)) = (tensor(a)?, tensor(b)?, tensor(c)?);
    // A B shared by every batch: one product of A's batch·M stacked rows.
    let (batch, m, b) = match shared_weight(program, b).filter(|_| batched) {
        Some(weight) => (1, batch * m, weight),
        None => (batch, m, b),
    };
    let (input, acc) = accumulation(g, (ea, eb, ec), loc)?;
    let init = match splat_bits(program, c) {
        Some(0) => Init::Zero,
        Some(bits) => {
            return Err(error(
                loc,
                format!(
                    "the accumulator starts from the fill 0x{bits:x}; the matrix unit starts a \
                     sum from +0 or from a tensor in memory: fill with +0, or pass the init as \
                     an argument"
                ),
            ))
        }
        None if program.args.contains(&unreshaped(program, c)) => {
            Init::Tensor(unreshaped(program, c))
        }
        None => {
            return Err(error(
                loc,
                format!(
                    "the accumulator %{} is neither a fill of +0 nor an argument of the program",
                    program.display_name(c)
                ),
            ))
        }
    };
    // Before the matmul, only what makes its init: constants, empties and fills. After it,
    // the epilogue ([`epilogue`]).
    for other in &program.ops[..index] {
        let makes_init = match &other.kind {
            LOpKind::Constant(_) | LOpKind::Empty => true,
            LOpKind::Generic(_) => {
                is_weight_broadcast(program, other)
                    || other
                        .results
                        .iter()
                        .all(|&r| splat_bits(program, r).is_some())
            }
            // A reshape of an argument: the same bytes, which the kernel reads as the argument.
            LOpKind::Reshape => other.operands.iter().all(|v| program.args.contains(v)),
        };
        if !makes_init {
            return Err(error(
                &other.loc,
                "ptoc compiles a contraction with what follows it (an epilogue), not with what \
                 comes before: move this op to another function",
            ));
        }
    }
    Ok(Matmul {
        a: unreshaped(program, a),
        b: unreshaped(program, b),
        init,
        batch,
        shape: (m, n, k),
        input,
        acc,
        loc: loc.clone(),
    })
}

/// The input and accumulator types when the body is the matrix unit's accumulation: each input
/// widened exactly (or not at all) to the accumulator type, multiplied, added onto the output.
fn accumulation(
    g: &Generic,
    (ea, eb, ec): (Elem, Elem, Elem),
    loc: &Location,
) -> Result<(DataType, DataType), Diagnostic> {
    use ptoc_ir::linalg::ScalarOp as S;
    let refuse = |why: String| {
        Err(error(
            loc,
            format!("cannot map this contraction onto the matrix unit: {why}"),
        ))
    };
    let (Some(input), Some(input_b), Some(acc)) = (ea.data(), eb.data(), ec.data()) else {
        return refuse(format!("its element types are {ea}, {eb} and {ec}"));
    };
    if input != input_b || !MATRIX_INPUTS.contains(&input) {
        return refuse(format!(
            "A is {ea} and B {eb}; the matrix unit multiplies two tensors of one of {}",
            MATRIX_INPUTS
                .iter()
                .filter_map(|t| t.mlir_name())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let want = input.matrix_accumulator();
    if acc != want {
        return refuse(format!(
            "the output is {ec}; the matrix unit accumulates {ea} products in {} (make the \
             output {} and narrow the result afterwards)",
            want.mlir_name().unwrap_or("its accumulator type"),
            want.mlir_name().unwrap_or("that type")
        ));
    }
    let float = input.class() == TypeClass::Float;
    let (widen, mul, add) = match (float, input.class()) {
        (true, _) => (S::ExtF, S::MulF, S::AddF),
        (false, TypeClass::Signed) => (S::ExtSI, S::MulI, S::AddI),
        (false, _) => (S::ExtUI, S::MulI, S::AddI),
    };
    // Follow the body from its yield: add(out, mul(x, y)), x and y the (widened) inputs.
    let ops = &g.body.ops;
    let op_at = |v: BodyValue| match v {
        BodyValue::Op(i) => ops.get(i),
        _ => None,
    };
    let input_of = |v: BodyValue| -> Option<usize> {
        match v {
            BodyValue::Arg(i) if i < 2 && input == acc => Some(i),
            BodyValue::Op(_) if input != acc => {
                let o = op_at(v)?;
                match (o.op == widen, o.operands.as_slice()) {
                    (true, [BodyValue::Arg(i)]) if *i < 2 => Some(*i),
                    _ => None,
                }
            }
            _ => None,
        }
    };
    let matches = g.body.yields.len() == 1
        && op_at(g.body.yields[0]).is_some_and(|sum| {
            sum.op == add
                && sum.operands.len() == 2
                && sum.operands[0] == BodyValue::Arg(2)
                && op_at(sum.operands[1]).is_some_and(|prod| {
                    prod.op == mul
                        && prod.operands.len() == 2
                        && input_of(prod.operands[0]) == Some(0)
                        && input_of(prod.operands[1]) == Some(1)
                })
        });
    if !matches {
        let widened = if input == acc {
            String::new()
        } else {
            format!("{} of each input to {ec}, ", widen.mlir_name())
        };
        return refuse(format!(
            "its body is not a matmul's ({widened}{} of A's by B's, {} onto the output's \
             element, in that operand order), which the matrix unit computes bit for bit",
            mul.mlir_name(),
            add.mlir_name()
        ));
    }
    Ok((input, acc))
}

impl Matmul {
    fn init_tensor(&self) -> Option<ValueId> {
        match self.init {
            Init::Tensor(c) => Some(c),
            Init::Zero => None,
        }
    }
}

/// Append `tail`'s body to `kernel`'s (before its return), its argument `i` read as `args[i]`
/// and its other values renumbered into `kernel`.
pub(super) fn append(kernel: &mut GmKernel, tail: &GmKernel, args: &[ValueId]) {
    let mut map: Vec<ValueId> = Vec::with_capacity(tail.values.len());
    for (i, value) in tail.values.iter().enumerate() {
        let id = ValueId(i as u32);
        map.push(match tail.args.iter().position(|&a| a == id) {
            Some(at) => args[at],
            None => kernel.add_value(value.name.clone(), value.ty.clone(), value.def),
        });
    }
    fn renumber(block: &mut ptoc_ir::Block, map: &[ValueId]) {
        let at = |v: &mut ValueId| *v = map[v.0 as usize];
        block.args.iter_mut().for_each(at);
        for op in &mut block.ops {
            op.operands.iter_mut().for_each(at);
            op.results.iter_mut().for_each(at);
            if let GmOpKind::For(body) = &mut op.kind {
                renumber(body, map);
            }
        }
    }
    let mut body = tail.body.clone();
    renumber(&mut body, &map);
    if matches!(kernel.body.ops.last(), Some(op) if matches!(op.kind, GmOpKind::Return)) {
        kernel.body.ops.pop();
    }
    kernel.body.ops.extend(body.ops);
    for (key, value) in &tail.attrs {
        kernel
            .attrs
            .entry(key.clone())
            .or_insert_with(|| value.clone());
    }
}

/// The rank-2 tensor that `b` repeats for every batch, when `b` is its broadcast over a leading
/// batch loop: a generic of three parallel loops whose body yields its one input, read through
/// `(d1, d2)` and written through `(d0, d1, d2)`.
fn shared_weight(program: &Program, b: ValueId) -> Option<ValueId> {
    let op = program.defining_op(b)?;
    let LOpKind::Generic(g) = &op.kind else {
        return None;
    };
    let maps: Vec<Option<Vec<u8>>> = g.maps.iter().map(|m| dims(m)).collect();
    let broadcast = g.iterators == [IteratorKind::Parallel; 3]
        && g.inputs.len() == 1
        && maps == [Some(vec![1, 2]), Some(vec![0, 1, 2])]
        && g.body.ops.is_empty()
        && g.body.yields == [BodyValue::Arg(0)];
    if !broadcast {
        return None;
    }
    let weight = g.inputs[0];
    matches!(program.ty(weight), LType::Tensor(t) if t.shape.len() == 2).then_some(weight)
}

/// A weight broadcast over a batch ([`shared_weight`]) that only batch_matmuls (four loops)
/// read, as their B and nothing else: it needs no stage or copy of its own, as the products
/// read the weight itself.
pub(super) fn is_weight_broadcast(program: &Program, op: &LOp) -> bool {
    let [result] = op.results[..] else {
        return false;
    };
    if shared_weight(program, result).is_none() || program.results.contains(&result) {
        return false;
    }
    program.ops.iter().all(|reader| {
        let reads = reader.operands.contains(&result);
        !reads
            || matches!(&reader.kind, LOpKind::Generic(g)
                if is_contraction(g) && g.iterators.len() == 4 && g.inputs.len() == 2
                    && g.inputs[1] == result && g.inputs[0] != result
                    && g.outputs[0] != result)
    })
}

/// The value `v` reshapes (`tensor.collapse_shape`/`expand_shape` keep the bytes in row-major
/// order), through any chain of reshapes; `v` itself otherwise.
pub(super) fn unreshaped(program: &Program, v: ValueId) -> ValueId {
    match program.defining_op(v) {
        Some(op) if op.kind == LOpKind::Reshape => unreshaped(program, op.operands[0]),
        _ => v,
    }
}

/// The bits every element of `v` holds, when `v` is a splat constant or a fill of one.
pub(super) fn splat_bits(program: &Program, v: ValueId) -> Option<u64> {
    let op = program.defining_op(v)?;
    match &op.kind {
        LOpKind::Constant(bits) => Some(*bits),
        LOpKind::Generic(g) => {
            let k = op.results.iter().position(|&r| r == v)?;
            match *g.body.yields.get(k)? {
                BodyValue::Arg(i) => splat_bits(program, *g.inputs.get(i)?),
                BodyValue::Outer(c) => splat_bits(program, c),
                BodyValue::Op(i) => match g.body.ops.get(i)?.op {
                    ptoc_ir::linalg::ScalarOp::Constant(bits) => Some(bits),
                    _ => None,
                },
            }
        }
        LOpKind::Empty | LOpKind::Reshape => None,
    }
}

/// Block sizes to try, best first: D's columns as wide as possible (A is reloaded once per
/// column block), then K's blocks as deep as possible (fewer bundles).
fn candidate_blocks(n: u32, k: u32) -> Vec<(u32, u32)> {
    const SIZES: [u32; 6] = [256, 128, 64, 32, 16, 8];
    let mut out = Vec::new();
    for nb in SIZES {
        for kb in SIZES {
            let pair = (nb.min(n), kb.min(k));
            if !out.contains(&pair) {
                out.push(pair);
            }
        }
    }
    out
}

/// The kernel for the first block sizes whose tiles the allocator fits.
fn emit_fitting(
    program: &Program,
    mm: &Matmul,
    tail: Option<&GmKernel>,
    options: &Options,
) -> Result<GmKernel, Diagnostic> {
    let (m, n, k) = mm.shape;
    let mb = m.min(MAX_BLOCK_ROWS);
    let kernels = candidate_blocks(n, k)
        .into_iter()
        .map(|(nb, kb)| emit(program, mm, tail, (mb, nb, kb)));
    first_that_fits(kernels, options).map_err(|why| {
        error(
            &mm.loc,
            format!("no blocking of this {m}x{k} by {k}x{n} product fits the tile file{why}"),
        )
    })
}

/// The kernel for blocks of `mb` rows, `nb` columns and `kb` of K; `None` when a block's tile
/// is too large for any SizeCode.
fn emit(
    program: &Program,
    mm: &Matmul,
    tail: Option<&GmKernel>,
    (mb, nb, kb): (u32, u32, u32),
) -> Option<GmKernel> {
    let (m, n, k) = mm.shape;
    let mut b = GmBuilder::at_source(&program.name, program.loc.clone());
    // The epilogue's arguments after the product, by the program argument each is.
    let operands = [Some(mm.a), Some(mm.b), mm.init_tensor()];
    let tail_args: Vec<ValueId> = program
        .args
        .iter()
        .copied()
        .filter(|a| !operands.contains(&Some(*a)))
        .collect();
    let mut args = Vec::new();
    for &arg in &program.args {
        let name = program.display_name(arg);
        let kernel_arg = if operands.contains(&Some(arg)) {
            // The operand's view of the argument's bytes: its batches stacked in rows.
            let (rows, cols, dtype) = match arg {
                _ if arg == mm.a => (mm.batch * m, k, mm.input),
                _ if arg == mm.b => (mm.batch * k, n, mm.input),
                _ => (mm.batch * m, n, mm.acc),
            };
            b.memref_of(&name, MemRefType { rows, cols, dtype })
        } else {
            // Read only by the epilogue: the type the grid converter gave it.
            let tail = tail?;
            let at = tail_args.iter().position(|&a| a == arg)?;
            let ty = tail.ty(*tail.args.get(1 + at)?).clone();
            b.arg(&name, ty)
        };
        args.push((arg, kernel_arg));
    }
    let kernel_arg = |v: ValueId| args.iter().find(|(a, _)| *a == v).map(|&(_, k)| k);
    let (a_mem, b_mem) = (kernel_arg(mm.a)?, kernel_arg(mm.b)?);
    let init_mem = match mm.init {
        Init::Zero => None,
        Init::Tensor(c) => Some(kernel_arg(c)?),
    };
    let out = b.memref_of(
        "r0",
        MemRefType {
            rows: mm.batch * m,
            cols: n,
            dtype: mm.acc,
        },
    );
    let layout = |rows: u32| {
        if rows <= 16 {
            Layout::CubeM16
        } else {
            Layout::CubeM32
        }
    };
    // A block's tile type, when some SizeCode holds it (else these block sizes are refused).
    let cube = |rows, cols, dtype, layout| {
        TileType::cube(rows, cols, dtype, layout).filter(|t| t.smallest_size(0).is_some())
    };
    // The product's ops come from the contraction (asm comments and diagnostics point at it);
    // the closing return from the program.
    b.at(mm.loc.clone());
    let matmul = by_mnemonic("TMATMUL").expect("a catalogue row");
    let matmul_acc = by_mnemonic("TMATMUL_ACC").expect("a catalogue row");
    let op = |b: &mut GmBuilder, info, operands: &[ValueId], ty| {
        b.tile_op(info, operands, ty, Default::default(), Default::default())
    };
    let c0 = b.index(0);
    // The K blocks after the first one, whose depth is `k_first`.
    let k_first = kb.min(k);
    let k_rest: Vec<Stretch> = stretches(k - k_first, kb)
        .into_iter()
        .map(|s| Stretch {
            start: s.start + k_first,
            ..s
        })
        .collect();
    // Per stretch of D's rows and columns: its bounds, D's type, the first K block's A and B
    // types, and the later K stretches' bounds and types; all made before the loops.
    let mut blocks = Vec::new();
    for rows in stretches(m, mb) {
        for cols in stretches(n, nb) {
            let (r, c) = (rows.extent, cols.extent);
            let lay = layout(r);
            let a_ty = |kk| cube(r, kk, mm.input, lay);
            let b_ty = |kk| cube(kk, c, mm.input, Layout::CubeN8);
            let mut later = Vec::new();
            for &s in &k_rest {
                later.push((
                    super::bounds(&mut b, s, c0),
                    a_ty(s.extent)?,
                    b_ty(s.extent)?,
                ));
            }
            blocks.push((
                super::bounds(&mut b, rows, c0),
                super::bounds(&mut b, cols, c0),
                cube(r, c, mm.acc, lay)?,
                (a_ty(k_first)?, b_ty(k_first)?),
                later,
            ));
        }
    }
    // A batch's first row in A (and C and D) is batch·M, in B batch·K.
    let batched = mm.batch > 1;
    let (cm, ck) = match batched {
        true => (Some(b.index(i64::from(m))), Some(b.index(i64::from(k)))),
        false => (None, None),
    };
    let batches = Stretch {
        start: 0,
        count: mm.batch,
        extent: 1,
    };
    let batch_bounds = super::bounds(&mut b, batches, c0);
    let offset = |b: &mut GmBuilder, batch: ValueId, rows: Option<ValueId>, x: ValueId| match rows {
        Some(rows) => {
            let base = b.arith(ArithOp::MulI, batch, rows);
            b.arith(ArithOp::AddI, base, x)
        }
        None => x,
    };
    walk(&mut b, batch_bounds, &[], |b, batch, _| {
        for (row_bounds, col_bounds, d_ty, (a_first, b_first), later) in &blocks {
            let d_ty = *d_ty;
            walk(b, *row_bounds, &[], |b, i, _| {
                walk(b, *col_bounds, &[], |b, j, _| {
                    let row = offset(b, batch, cm, i);
                    let a0 = b.load_as(a_mem, row, c0, *a_first);
                    let k0 = offset(b, batch, ck, c0);
                    let b0 = b.load_as(b_mem, k0, j, *b_first);
                    let mut d = match init_mem {
                        None => op(b, matmul, &[a0, b0], d_ty),
                        Some(init) => {
                            let c = b.load_as(init, row, j, d_ty);
                            op(b, matmul_acc, &[c, a0, b0], d_ty)
                        }
                    };
                    for &(bounds, a_t, b_t) in later {
                        d = walk(b, bounds, &[d], |b, kk, carried| {
                            let ak = b.load_as(a_mem, row, kk, a_t);
                            let k_row = offset(b, batch, ck, kk);
                            let bk = b.load_as(b_mem, k_row, j, b_t);
                            vec![op(b, matmul_acc, &[carried[0], ak, bk], d_ty)]
                        })[0];
                    }
                    b.store(d, out, row, j);
                    vec![]
                })
            });
        }
        vec![]
    });
    b.at(program.loc.clone());
    let mut kernel = b.finish();
    if let Some(tail) = tail {
        // The epilogue reads the product from r0, its own arguments from the program's, and
        // writes its result to r0: in place.
        let mut map = vec![out];
        for a in &tail_args {
            map.push(kernel_arg(*a)?);
        }
        map.push(out);
        if tail.args.len() != map.len() || tail.ty(tail.args[0]) != kernel.ty(out) {
            return None;
        }
        append(&mut kernel, tail, &map);
    }

    kernel.attrs.insert(
        ptoc_ir::alloc_attrs::PE_MASK.to_string(),
        Attr::Str(LINALG_PE_MASK.to_string()),
    );
    Some(kernel)
}
