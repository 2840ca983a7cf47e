//! `convert-linalg-to-pto`: a linalg-on-tensors program (README, linalg-on-tensors input) becomes a GM kernel of
//! `pto.tload` → tile ops → `pto.tstore` loops that computes exactly what the program means.
//!
//! **Roles.** Every tensor of a program is one of: the full `M×N` grid (the iteration domain of
//! its 2-D generics), a per-row vector (`M` elements, read through a map like `(d0, d1) -> (d0)`),
//! a per-column vector (`N` elements, `(d0, d1) -> (d1)`), or a single element. A program
//! without 2-D generics is a `1×L` grid; one of higher rank is made 2-D first (`collapse`).
//! Roles follow from the indexing maps, and a rank-1 tensor that no map pins down takes the axis
//! its length matches.
//!
//! **Tiling.** The loops walk blocks of the grid: a block spans every column when some generic
//! reduces over columns (so each row's fold stays in one tile, in linalg's order), every row
//! when some generic reduces over rows, and otherwise as much of both as the tile budget allows.
//! The cost is bundles (one per op per block) and GM traffic (broadcast vectors are reloaded per
//! block), both falling as blocks grow, so the block is the largest that keeps a full tile within
//! a byte budget and lets the kernel allocate, preferring one that divides the grid unless a
//! block with a shorter tail is more than twice as large ([`block_extent`]): the budget starts at the largest
//! tile and halves until the allocator accepts the kernel (the queue naming profile keeps up to 17
//! tiles of a hand allocated, docs/isa.md §3.4, so the body's tile count decides). When whole
//! lines of a reduced axis no longer fit the budget, the lines are folded in chunks ([`Stages`]):
//! exact for max/min and integer folds, a reassociation of float sums and products that needs
//! `--allow-reassociation` ([`reassociated_folds`]).
//!
//! **Exactness.** Each region body is evaluated symbolically over tiles, one tile op per scalar
//! op, after making every broadcast explicit (`TROWEXPAND`/`TCOLEXPAND`/`TEXPANDS`, which `pto-fuse`
//! folds into the consumer where that is bit-exact). Where an op's meaning differs from the ISA's
//! the lowering says how it is kept exact, at the op; see [`Lower::nan_propagating`] and
//! [`Lower::reduce`].

mod collapse;
mod contraction;
mod stages;
mod transpose;

use crate::{Options, Pass, PassContext};
use ptoc_ir::gm_build::GmBuilder;
use ptoc_ir::linalg::{
    BodyOp, BodyValue, CmpFPredicate, CmpIPredicate, Elem, Generic, IteratorKind, LOp, LOpKind,
    LType, MapExpr, Program, ScalarOp,
};
use ptoc_ir::Attr;
use ptoc_ir::{
    Diagnostic, Function, GmKernel, Location, MemRefType, ScalarType, TileType, ValueId,
};
use ptoc_isa::float::format_of;
use ptoc_isa::ops::{by_mnemonic, CmpMode, CMODE_ATTR};
use ptoc_isa::{DataType, NumericControl, TypeClass};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The PE mask of every kernel converted from a linalg program.
pub const LINALG_PE_MASK: &str = "0001";

/// On a kernel converted under `--allow-reassociation`: how many consecutive elements of a
/// reduced line each float sum or product folds (from the ISA's start, +0 or 1) before the piece
/// joins the running result (the init, then each earlier piece) through the combining op. A
/// line no longer than this is one piece. `verify` reads the program with this meaning.
pub const FOLD_PIECE_ATTR: &str = "pto.fold_piece";

/// The largest tile the ISA allocates (docs/isa.md §3.3: 128 B to 64 KiB).
pub const MAX_TILE_BYTES: u64 = 64 << 10;

/// The `convert-linalg-to-pto` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConvertLinalg;

impl Pass for ConvertLinalg {
    fn name(&self) -> &'static str {
        "convert-linalg-to-pto"
    }

    fn description(&self) -> &'static str {
        "Tile linalg-on-tensors programs into GM kernels of pto tile ops"
    }

    fn run(&self, _func: &mut Function, _ctx: &mut PassContext) -> Result<(), Vec<Diagnostic>> {
        Ok(())
    }

    fn run_gm(
        &self,
        _kernel: &mut GmKernel,
        _ctx: &mut PassContext,
    ) -> Result<(), Vec<Diagnostic>> {
        Ok(())
    }

    fn convert_linalg(
        &self,
        program: &Program,
        ctx: &mut PassContext,
    ) -> Option<Result<GmKernel, Vec<Diagnostic>>> {
        ctx.record(self.name(), "programs-converted", 1);
        Some(convert(program, &ctx.options).map(|(kernel, remarks)| {
            ctx.remarks.extend(remarks);
            kernel
        }))
    }

    fn skips(&self, module: &ptoc_ir::Module) -> bool {
        module.linalg.is_empty()
    }

    fn statistics(&self) -> &'static [(&'static str, &'static str)] {
        &[("programs-converted", "Number of linalg programs converted")]
    }
}

/// Which elements of the grid a tensor holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Role {
    Full,
    /// One element per row (`M`), broadcast along the row.
    Row,
    /// One element per column (`N`), broadcast down the column.
    Col,
    /// One element for the whole grid.
    One,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Full => "the full grid",
            Role::Row => "a per-row vector",
            Role::Col => "a per-column vector",
            Role::One => "a single element",
        }
    }

    /// The role a tile of this role's values has: a single element is broadcast into a
    /// per-row tile (any layout would hold it; a column of the block's rows is the smallest).
    fn in_tiles(self) -> Role {
        match self {
            Role::One => Role::Row,
            other => other,
        }
    }

    /// The smallest role holding both.
    fn join(self, other: Role) -> Role {
        match (self, other) {
            (a, b) if a == b => a,
            (Role::One, x) | (x, Role::One) => x,
            _ => Role::Full,
        }
    }

    fn from_axes(row: bool, col: bool) -> Role {
        match (row, col) {
            (true, true) => Role::Full,
            (true, false) => Role::Row,
            (false, true) => Role::Col,
            (false, false) => Role::One,
        }
    }
}

/// A loop dimension's grid axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Axis {
    Rows,
    Cols,
}

fn error(loc: &Location, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(loc.clone(), message)
}

/// The program's analysis: grid, roles, each generic's loop axes, and what is live.
struct Analysis {
    rows: u32,
    cols: u32,
    roles: HashMap<ValueId, Role>,
    /// Per op index: the grid axis of each loop dimension (generics only).
    axes: HashMap<usize, Vec<Axis>>,
    live: HashSet<ValueId>,
}

impl Analysis {
    /// The grid axes generic `index` (`g`) reduces over.
    fn reduced(&self, index: usize, g: &Generic) -> Vec<Axis> {
        let axes = self.axes.get(&index).map_or(&[][..], |x| &x[..]);
        g.iterators
            .iter()
            .zip(axes)
            .filter(|(it, _)| **it == IteratorKind::Reduction)
            .map(|(_, &a)| a)
            .collect()
    }
}

/// A converted kernel with its remarks, or why not.
type Converted = Result<(GmKernel, Vec<Diagnostic>), Vec<Diagnostic>>;

/// Convert one program: its kernel, and a remark at each op an option let the lowering change.
pub fn convert(program: &Program, options: &Options) -> Converted {
    let program = transpose::split_transposed_operands(program);
    let program = program.as_ref();
    if let Some(kernel) = stages::convert(program, options) {
        return kernel;
    }
    if let Some(kernel) = transpose::convert(program, options) {
        return kernel;
    }
    if let Some(kernel) = contraction::convert(program, options) {
        return kernel;
    }
    let program = collapse::collapse_batch_dims(program).map_err(|d| vec![d])?;
    let program = program.as_ref();
    let analysis = analyse(program).map_err(|d| vec![d])?;
    let mut last: Option<(Plan, Vec<Diagnostic>)> = None;
    // Budgets from the largest tile down to the smallest (128 B, docs/isa.md §3.3), each plan
    // tried once; the smallest one's refusal stands.
    let budgets = std::iter::successors(Some(MAX_TILE_BYTES), |b| (*b > 128).then_some(b / 2));
    for budget in budgets {
        let plan = plan_blocks(program, &analysis, budget, options).map_err(|refusal| {
            // Whole lines were tried and did not allocate: say why, under the refusal.
            let why = last.iter().flat_map(|(_, e)| e);
            let refusal = why.fold(refusal, |d, e| {
                d.with_note(e.loc.clone(), format!("with whole lines: {}", e.message))
            });
            vec![refusal]
        })?;
        if last.as_ref().is_some_and(|(p, _)| *p == plan) {
            continue;
        }
        let (kernel, remarks) = emit(program, &analysis, &plan, options).map_err(|d| vec![d])?;
        match fits(&kernel, options) {
            Ok(()) => return Ok((kernel, remarks)),
            Err(e) => last = Some((plan, e)),
        }
    }
    Err(last.map(|(_, e)| e).unwrap_or_default())
}

/// Whether `kernel` gets through the tile passes and the allocator (the capacity and naming
/// limits), on a copy: the block choice's one question the plan cannot answer alone. It must
/// fit in the order it is emitted in: a block that fits only with retiring pushes costs them
/// every iteration, and a smaller one that fits as it is leaves the stages after it room.
fn fits(kernel: &GmKernel, options: &Options) -> Result<(), Vec<Diagnostic>> {
    let mut trial = kernel.clone();
    let mut ctx = PassContext::new(options.clone());
    crate::Verify.run_gm(&mut trial, &mut ctx)?;
    crate::InferShapes.run_gm(&mut trial, &mut ctx)?;
    if options.opt_level > 0 {
        crate::fuse::Fuse.run_gm(&mut trial, &mut ctx)?;
    }
    let mask = crate::allocate::gm_kernel_mask(&trial, &ctx);
    let order = crate::gm_allocate::Order::AsWritten;
    crate::gm_allocate::allocate_gm_in(&mut trial, mask, options.target_profile, order)?;
    Ok(())
}

/// The first of `kernels` (best first; `None` where a candidate cannot be built) that [`fits`],
/// or the last refusal's message as `": why"` (empty when none was built).
fn first_that_fits(
    kernels: impl Iterator<Item = Option<GmKernel>>,
    options: &Options,
) -> Result<GmKernel, String> {
    let mut last = None;
    for kernel in kernels.flatten() {
        match fits(&kernel, options) {
            Ok(()) => return Ok(kernel),
            Err(e) => last = e.into_iter().next(),
        }
    }
    Err(last.map_or(String::new(), |e| format!(": {}", e.message)))
}

/// The extent of each loop dimension of `g`, from its tensor operands' shapes.
fn domain(program: &Program, g: &Generic, loc: &Location) -> Result<Vec<u32>, Diagnostic> {
    let mut extents: Vec<Option<u32>> = vec![None; g.iterators.len()];
    let operands = g.inputs.iter().chain(&g.outputs);
    for (&v, map) in operands.zip(&g.maps) {
        let LType::Tensor(t) = program.ty(v) else {
            continue;
        };
        for (pos, e) in map.iter().enumerate() {
            let (MapExpr::Dim(d), Some(&size)) = (e, t.shape.get(pos)) else {
                continue;
            };
            let slot = extents.get_mut(*d as usize).ok_or_else(|| {
                error(
                    loc,
                    format!(
                        "indexing map names d{d}, but the op has {} loops",
                        g.iterators.len()
                    ),
                )
            })?;
            match slot {
                Some(known) if *known != size => {
                    return Err(error(
                        loc,
                        format!(
                            "loop d{d} has extent {known} by one operand and {size} by another"
                        ),
                    ))
                }
                _ => *slot = Some(size),
            }
        }
    }
    extents
        .into_iter()
        .enumerate()
        .map(|(d, e)| {
            e.ok_or_else(|| error(loc, format!("no operand fixes the extent of loop d{d}")))
        })
        .collect()
}

fn analyse(program: &Program) -> Result<Analysis, Diagnostic> {
    for (i, value) in program.values.iter().enumerate() {
        if let LType::Tensor(t) = &value.ty {
            if t.is_empty() {
                let id = ValueId(i as u32);
                let loc = program.defining_op(id).map_or(&program.loc, |op| &op.loc);
                return Err(error(
                    loc,
                    format!(
                        "%{} ({t}) has no elements; ptoc compiles tensors of at least one element",
                        program.display_name(id)
                    ),
                ));
            }
        }
    }
    // The grid: the domain every 2-D generic shares (or 1×L for 1-D programs).
    let mut grid: Option<(u32, u32, &Location)> = None;
    let mut one_d: Option<u32> = None;
    for op in &program.ops {
        let LOpKind::Generic(g) = &op.kind else {
            continue;
        };
        let dom = domain(program, g, &op.loc)?;
        match dom.len() {
            2 => match grid {
                Some((m, n, first)) if (m, n) != (dom[0], dom[1]) => {
                    return Err(error(
                        &op.loc,
                        format!(
                            "this op iterates over {}x{}, but the op at {first} over {m}x{n}; \
                             ptoc compiles programs whose 2-D ops share one iteration domain",
                            dom[0], dom[1]
                        ),
                    ))
                }
                Some(_) => {}
                None => grid = Some((dom[0], dom[1], &op.loc)),
            },
            1 => one_d = one_d.or(Some(dom[0])),
            0 => {}
            n => {
                return Err(error(
                    &op.loc,
                    format!(
                        "a linalg op with {n} loops after merging batch dimensions; ptoc compiles \
                         1-D and 2-D programs"
                    ),
                ))
            }
        }
    }
    // Without loops (a program that only reshapes or returns its arguments) the tensors' own
    // shape is the grid: the first of rank 2, else of rank 1.
    let tensor_shape = |rank: usize| {
        program.values.iter().find_map(|v| match &v.ty {
            LType::Tensor(t) if t.shape.len() == rank => Some(t.shape.clone()),
            _ => None,
        })
    };
    let (rows, cols) = match (grid, one_d, tensor_shape(2), tensor_shape(1)) {
        (Some((m, n, _)), ..) => (m, n),
        (None, Some(l), ..) => (1, l),
        (None, None, Some(s), _) => (s[0], s[1]),
        (None, None, None, Some(s)) => (1, s[0]),
        (None, None, None, None) => (1, 1),
    };
    let mut a = Analysis {
        rows,
        cols,
        roles: HashMap::new(),
        axes: HashMap::new(),
        live: live_values(program),
    };
    // Roles and 1-D generics' axes, to a fixed point; then the leftovers by their length.
    for pass in 0..2 {
        loop {
            let mut changed = false;
            for (i, op) in program.ops.iter().enumerate() {
                changed |= propagate(program, &mut a, i, op, pass == 1)?;
            }
            if !changed {
                break;
            }
        }
    }
    // In a grid of one row a single element is that row's per-row value: a rank-0 result (the
    // sum of a vector) is the 1x1 per-row memref.
    if a.rows == 1 {
        for role in a.roles.values_mut() {
            if *role == Role::One {
                *role = Role::Row;
            }
        }
    }
    Ok(a)
}

/// One step of role inference for `op`; `guess` lets a 1-D generic no map pins down take the
/// axis its length matches (rows first).
fn propagate(
    program: &Program,
    a: &mut Analysis,
    index: usize,
    op: &ptoc_ir::linalg::LOp,
    guess: bool,
) -> Result<bool, Diagnostic> {
    let mut changed = false;
    match &op.kind {
        // A fill's loops do not matter: its value is the same everywhere.
        LOpKind::Generic(_) if op.results.iter().all(|&r| is_splat(program, r)) => {}
        LOpKind::Generic(g) => {
            if !a.axes.contains_key(&index) {
                let axes = match g.iterators.len() {
                    2 => Some(vec![Axis::Rows, Axis::Cols]),
                    0 => Some(vec![]),
                    _ if a.rows == 1 => Some(vec![Axis::Cols]),
                    _ => one_d_axis(program, a, g, &op.results, &op.loc, guess)?.map(|x| vec![x]),
                };
                if let Some(axes) = axes {
                    a.axes.insert(index, axes);
                    changed = true;
                }
            }
            let Some(axes) = a.axes.get(&index).cloned() else {
                return Ok(changed);
            };
            let operands = g.inputs.iter().chain(&g.outputs);
            let n_in = g.inputs.len();
            for (k, (&v, map)) in operands.zip(&g.maps).enumerate() {
                if !matches!(program.ty(v), LType::Tensor(_)) {
                    continue;
                }
                let role = map_role(map, &axes, k, &op.loc)?;
                changed |= set_role(program, a, v, role, &op.loc)?;
                if k >= n_in {
                    if let Some(&r) = op.results.get(k - n_in) {
                        changed |= set_role(program, a, r, role, &op.loc)?;
                    }
                }
            }
        }
        LOpKind::Reshape => {
            let (Some(&src), Some(&dst)) = (op.operands.first(), op.results.first()) else {
                return Ok(false);
            };
            if let Some(&r) = a.roles.get(&src) {
                changed |= set_role(program, a, dst, r, &op.loc)?;
            }
            if let Some(&r) = a.roles.get(&dst) {
                changed |= set_role(program, a, src, r, &op.loc)?;
            }
        }
        LOpKind::Constant(_) | LOpKind::Empty => {}
    }
    Ok(changed)
}

/// The axis of a 1-D generic's loop: from a role its operands already have, or (when `guess`)
/// from its length.
fn one_d_axis(
    program: &Program,
    a: &Analysis,
    g: &Generic,
    results: &[ValueId],
    loc: &Location,
    guess: bool,
) -> Result<Option<Axis>, Diagnostic> {
    let operands = g.inputs.iter().chain(&g.outputs).zip(&g.maps);
    let outs = g.outputs.iter().zip(results).map(|(_, r)| r);
    let from_maps = operands.filter_map(|(v, map)| {
        let varies = map.iter().any(|e| matches!(e, MapExpr::Dim(0)));
        let role = a.roles.get(v)?;
        varies.then_some(*role)
    });
    let from_results = outs.filter_map(|r| a.roles.get(r).copied());
    for role in from_maps.chain(from_results) {
        match role {
            Role::Row => return Ok(Some(Axis::Rows)),
            Role::Col => return Ok(Some(Axis::Cols)),
            Role::Full | Role::One => {}
        }
    }
    if !guess {
        return Ok(None);
    }
    let dom = domain(program, g, loc)?;
    match dom[0] {
        l if l == a.rows => Ok(Some(Axis::Rows)),
        l if l == a.cols => Ok(Some(Axis::Cols)),
        l => Err(error(
            loc,
            format!(
                "this 1-D op runs over {l} elements, which is neither the {} rows nor the {} \
                 columns of the program's grid",
                a.rows, a.cols
            ),
        )),
    }
}

/// The role of an operand read through `map` by a generic whose loops run along `axes`. A
/// rank-2 operand must be read in its own row-major order: its first index along the grid's
/// rows and its second along the columns (or a unit `0`); a transposing or diagonal map has no
/// tile op and is refused, naming the operand.
fn map_role(
    map: &[MapExpr],
    axes: &[Axis],
    operand: usize,
    loc: &Location,
) -> Result<Role, Diagnostic> {
    let axis_of = |e: &MapExpr| match e {
        MapExpr::Dim(d) => axes.get(*d as usize).copied(),
        MapExpr::Zero => None,
    };
    if let [first, second] = map {
        let (a, b) = (axis_of(first), axis_of(second));
        if a == Some(Axis::Cols) || b == Some(Axis::Rows) {
            return Err(error(
                loc,
                format!(
                    "operand #{operand} is read through a map that transposes it (or reads a diagonal); ptoc reads each tensor in its own row-major order and transposes only in a generic that does nothing else (linalg.transpose): transpose first, then compute"
                ),
            ));
        }
    }
    let along = |axis| map.iter().any(|e| axis_of(e) == Some(axis));
    Ok(Role::from_axes(along(Axis::Rows), along(Axis::Cols)))
}

fn set_role(
    program: &Program,
    a: &mut Analysis,
    v: ValueId,
    role: Role,
    loc: &Location,
) -> Result<bool, Diagnostic> {
    if is_splat(program, v) {
        return Ok(false);
    }
    match a.roles.get(&v) {
        Some(&r) if r == role => Ok(false),
        Some(&r) => Err(error(
            loc,
            format!(
                "%{} is used here as {} but elsewhere as {}; ptoc gives each tensor one layout",
                program.display_name(v),
                role.name(),
                r.name()
            ),
        )),
        None => {
            let want = match role {
                Role::Full => a.rows as usize * a.cols as usize,
                Role::Row => a.rows as usize,
                Role::Col => a.cols as usize,
                Role::One => 1,
            };
            if let LType::Tensor(t) = program.ty(v) {
                if t.len() != want {
                    return Err(error(
                        loc,
                        format!(
                            "%{} ({t}) is used as {} of the {}x{} grid, which has {want} elements",
                            program.display_name(v),
                            role.name(),
                            a.rows,
                            a.cols
                        ),
                    ));
                }
            }
            a.roles.insert(v, role);
            Ok(true)
        }
    }
}

/// Whether `v` holds one value everywhere (a splat constant, a `linalg.fill`, a
/// `tensor.empty`), so it fits any role and is never loaded.
fn is_splat(program: &Program, v: ValueId) -> bool {
    let Some(op) = program.defining_op(v) else {
        return false;
    };
    match &op.kind {
        LOpKind::Constant(_) | LOpKind::Empty => true,
        LOpKind::Reshape => op.operands.first().is_some_and(|&s| is_splat(program, s)),
        LOpKind::Generic(g) => {
            let k = op.results.iter().position(|&r| r == v).unwrap_or(0);
            match g.body.yields.get(k) {
                Some(BodyValue::Outer(_)) => true,
                Some(BodyValue::Arg(i)) => g.inputs.get(*i).is_some_and(|&input| {
                    matches!(program.ty(input), LType::Scalar(_)) || is_splat(program, input)
                }),
                Some(BodyValue::Op(i)) => matches!(
                    g.body.ops.get(*i).map(|o| o.op),
                    Some(ScalarOp::Constant(_))
                ),
                None => false,
            }
        }
    }
}

/// The values the returned ones depend on (through live results of generics only).
fn live_values(program: &Program) -> HashSet<ValueId> {
    let mut live: HashSet<ValueId> = program.results.iter().copied().collect();
    for op in program.ops.iter().rev() {
        let live_results: Vec<usize> = (0..op.results.len())
            .filter(|&k| live.contains(&op.results[k]))
            .collect();
        if live_results.is_empty() {
            continue;
        }
        match &op.kind {
            LOpKind::Generic(g) => {
                let needed = needed_args(g, &live_results);
                let operands = g.inputs.iter().chain(&g.outputs);
                for (k, &v) in operands.enumerate() {
                    if needed.contains(&k) {
                        live.insert(v);
                    }
                }
                live.extend(outer_captures(g, &live_results));
            }
            _ => live.extend(op.operands.iter().copied()),
        }
    }
    live
}

/// The body ops the yields of `outputs` depend on.
fn needed_ops(g: &Generic, outputs: &[usize]) -> HashSet<usize> {
    let mut needed = HashSet::new();
    let mut stack: Vec<BodyValue> = outputs
        .iter()
        .filter_map(|&k| g.body.yields.get(k).copied())
        .collect();
    while let Some(v) = stack.pop() {
        if let BodyValue::Op(i) = v {
            if needed.insert(i) {
                if let Some(op) = g.body.ops.get(i) {
                    stack.extend(op.operands.iter().copied());
                }
            }
        }
    }
    needed
}

/// The block arguments the yields of `outputs` read.
fn needed_args(g: &Generic, outputs: &[usize]) -> HashSet<usize> {
    let ops = needed_ops(g, outputs);
    let direct = outputs.iter().filter_map(|&k| g.body.yields.get(k));
    let from_ops = ops.iter().flat_map(|&i| g.body.ops[i].operands.iter());
    direct
        .chain(from_ops)
        .filter_map(|v| match v {
            BodyValue::Arg(k) => Some(*k),
            _ => None,
        })
        .collect()
}

/// The function-level scalars the yields of `outputs` capture.
fn outer_captures(g: &Generic, outputs: &[usize]) -> Vec<ValueId> {
    let ops = needed_ops(g, outputs);
    let direct = outputs.iter().filter_map(|&k| g.body.yields.get(k));
    let from_ops = ops.iter().flat_map(|&i| g.body.ops[i].operands.iter());
    direct
        .chain(from_ops)
        .filter_map(|v| match v {
            BodyValue::Outer(id) => Some(*id),
            _ => None,
        })
        .collect()
}

/// The blocks the loops walk: `block_rows × block_cols` elements of the grid.
#[derive(Debug, PartialEq, Eq)]
struct Plan {
    block_rows: u32,
    block_cols: u32,
    /// The reduced axis when its lines are folded in pieces: a block then spans `block_rows`
    /// (`block_cols`) whole lines, walked in chunks of `block_cols` columns (`block_rows` rows)
    /// by one loop per [`Stages`] pass.
    chunked: Option<Axis>,
}

/// Bytes of an element of `elem` (predicates and indices never reach a tile of their own).
fn elem_bytes(elem: Elem) -> u64 {
    u64::from(elem.bits()).div_ceil(8)
}

/// The physical columns of a tile whose valid columns are `cols` (a power of two, docs/isa.md §3.3).
fn physical_cols(cols: u32) -> u64 {
    u64::from(cols).next_power_of_two()
}

/// The largest divisor of `n` for which `fits` holds (1 when none does). Divisors come in pairs
/// around `sqrt(n)`, so a grid of 2^32 columns costs 2^16 steps, not 2^32.
fn largest_divisor(n: u32, fits: impl Fn(u32) -> bool) -> u32 {
    let small = (1..=n).take_while(|&d| u64::from(d) * u64::from(d) <= u64::from(n));
    let divisors = small
        .filter(|&d| n.is_multiple_of(d))
        .flat_map(|d| [d, n / d]);
    divisors.filter(|&d| fits(d)).max().unwrap_or(1)
}

/// The extent of a block along an axis of `n` elements: the largest divisor of `n` that `fits`,
/// unless a block that leaves a shorter last one (a tail, [`Stretch`]) can be more than twice as
/// long: a prime extent would otherwise be walked an element at a time. `fits` must hold for
/// every extent up to some cap (a tile's bytes grow with its extent).
fn block_extent(n: u32, fits: impl Fn(u32) -> bool) -> u32 {
    if !fits(1) {
        return 1;
    }
    let (mut cap, mut over) = (1u32, n.saturating_add(1));
    while over - cap > 1 {
        let mid = cap + (over - cap) / 2;
        if fits(mid) {
            cap = mid;
        } else {
            over = mid;
        }
    }
    let divisor = largest_divisor(n, |d| d <= cap);
    if u64::from(cap) > 2 * u64::from(divisor) {
        cap
    } else {
        divisor
    }
}

/// One run of blocks along an axis: `count` blocks of `extent` elements from element `start`;
/// an axis whose length the block does not divide ends with a one-block tail.
#[derive(Clone, Copy, Debug)]
struct Stretch {
    start: u32,
    count: u32,
    extent: u32,
}

/// The stretches that walk `n` elements in blocks of `block`.
fn stretches(n: u32, block: u32) -> Vec<Stretch> {
    let (full, tail) = (n / block, n % block);
    let mut out = Vec::new();
    if full > 0 {
        out.push(Stretch {
            start: 0,
            count: full,
            extent: block,
        });
    }
    if tail > 0 {
        out.push(Stretch {
            start: full * block,
            count: 1,
            extent: tail,
        });
    }
    out
}

/// Where the walk of a stretch starts, and its loop's end and step (none for a single block).
type Bounds = (ValueId, Option<(ValueId, ValueId)>);

/// The bounds of `stretch`, made where they are needed: before the loops that walk it, so that an
/// inner stretch's bounds are not remade on every outer iteration. `zero` is the kernel's `index` 0.
fn bounds(b: &mut GmBuilder, stretch: Stretch, zero: ValueId) -> Bounds {
    let mut at = |i: u32| match i {
        0 => zero,
        i => b.index(i64::from(i)),
    };
    let lb = at(stretch.start);
    let end = stretch.start + stretch.count * stretch.extent;
    (
        lb,
        (stretch.count > 1).then(|| (at(end), at(stretch.extent))),
    )
}

/// Walks a stretch from `bounds` with `body` at each block's first element, carrying `carried`
/// from block to block: inline for one block, else a loop. The carried values after the last.
fn walk(
    b: &mut GmBuilder,
    (lb, stepping): Bounds,
    carried: &[ValueId],
    mut body: impl FnMut(&mut GmBuilder, ValueId, &[ValueId]) -> Vec<ValueId>,
) -> Vec<ValueId> {
    match stepping {
        None => body(b, lb, carried),
        Some((ub, step)) => b.for_loop(lb, ub, step, carried, |b, i, c| body(b, i, c)),
    }
}

/// A plan for blocks of at most `budget` bytes a tile. A reduced line that fits the budget stays
/// whole; one that does not is folded in chunks, where that is exact or `--allow-reassociation`
/// accepts it ([`reassociated_folds`]).
fn plan_blocks(
    program: &Program,
    a: &Analysis,
    budget: u64,
    options: &Options,
) -> Result<Plan, Diagnostic> {
    let mut bytes = 1;
    for (&v, role) in &a.roles {
        if let (true, LType::Tensor(t)) = (a.live.contains(&v), program.ty(v)) {
            if *role != Role::One {
                bytes = bytes.max(elem_bytes(t.elem));
            }
        }
    }
    let first_fold = |axis| folds(program, a, axis).next().map(|(op, _)| &op.loc);
    let (m, n) = (a.rows, a.cols);
    let tile = |r: u32, c: u32| u64::from(r) * physical_cols(c) * bytes;
    // The block of the most elements within the budget, widest first (a row of a tile is
    // contiguous in GM and in the tile).
    let widest = |budget: u64| {
        let block_cols = block_extent(n, |c| tile(1, c) <= budget);
        Plan {
            block_rows: block_extent(m, |r| tile(r, block_cols) <= budget),
            block_cols,
            chunked: None,
        }
    };
    // A line of the reduced axis too wide for the budget: refused where chunking reassociates.
    let chunkable = |axis: Axis, line: u64| -> Result<(), Diagnostic> {
        let refused = reassociated_folds(program, a, axis).next();
        let Some((op, combine)) = refused.filter(|_| !options.allow_reassociation) else {
            return Ok(());
        };
        let what = if axis == Axis::Cols { "row" } else { "column" };
        let why = if line > MAX_TILE_BYTES {
            format!("needs a {line}-byte tile, and the largest tile is {MAX_TILE_BYTES} bytes")
        } else {
            format!(
                "needs a {line}-byte tile, and the kernel's tiles do not all fit beside tiles of \
                 whole {what}s"
            )
        };
        Err(error(
            &op.loc,
            format!(
                "this {} folds each {what} of the {m}x{n} grid, which {why}; folding a {what} in \
                 pieces reassociates the {}: pass --allow-reassociation to accept that",
                fold_name(combine.op),
                fold_name(combine.op),
            ),
        ))
    };
    let plan = match (first_fold(Axis::Cols), first_fold(Axis::Rows)) {
        (Some(_), Some(loc)) => {
            if tile(m, n) > MAX_TILE_BYTES {
                return Err(error(
                    loc,
                    format!(
                        "this program reduces over both rows and columns, so the whole {m}x{n} \
                         grid must fit one tile: {} bytes, more than {MAX_TILE_BYTES}",
                        tile(m, n)
                    ),
                ));
            }
            Plan {
                block_rows: m,
                block_cols: n,
                chunked: None,
            }
        }
        (Some(_), None) if tile(1, n) <= budget => Plan {
            block_rows: block_extent(m, |r| tile(r, n) <= budget),
            block_cols: n,
            chunked: None,
        },
        (None, Some(_)) if tile(m, 1) <= budget => Plan {
            block_rows: m,
            block_cols: block_extent(n, |c| tile(m, c) <= budget),
            chunked: None,
        },
        (Some(_), None) => {
            chunkable(Axis::Cols, tile(1, n))?;
            Plan {
                chunked: Some(Axis::Cols),
                ..widest(budget)
            }
        }
        (None, Some(_)) => {
            chunkable(Axis::Rows, tile(m, 1))?;
            Plan {
                chunked: Some(Axis::Rows),
                ..widest(budget)
            }
        }
        (None, None) => widest(budget),
    };
    Ok(plan)
}

/// The live generics that reduce over `axis`.
fn folds<'p>(
    program: &'p Program,
    a: &'p Analysis,
    axis: Axis,
) -> impl Iterator<Item = (&'p LOp, &'p Generic)> + 'p {
    program.ops.iter().enumerate().filter_map(move |(i, op)| {
        let LOpKind::Generic(g) = &op.kind else {
            return None;
        };
        let live = op.results.iter().any(|r| a.live.contains(r));
        (live && a.reduced(i, g).contains(&axis)).then_some((op, g))
    })
}

/// The reductions over `axis` whose pieces would not combine exactly: float sums and products.
/// Max and min pick an element of the set (NaN rules included, any grouping picks the same), and
/// integer sums and products wrap, so folding their lines in pieces and combining the pieces'
/// results with the same op gives linalg's sequential fold bit for bit.
fn reassociated_folds<'p>(
    program: &'p Program,
    a: &'p Analysis,
    axis: Axis,
) -> impl Iterator<Item = (&'p LOp, &'p BodyOp)> + 'p {
    folds(program, a, axis).flat_map(move |(op, g)| {
        (0..op.results.len())
            .filter(|&k| a.live.contains(&op.results[k]))
            .filter_map(|k| combiner(g, k).map(|(c, _)| c))
            .filter(|c| matches!(c.op, ScalarOp::AddF | ScalarOp::MulF))
            .map(move |c| (op, c))
    })
}

/// What a reduction's combining op computes, for messages.
fn fold_name(op: ScalarOp) -> &'static str {
    match op {
        ScalarOp::AddF | ScalarOp::AddI => "sum",
        ScalarOp::MulF | ScalarOp::MulI => "product",
        ScalarOp::MaximumF | ScalarOp::MaxNumF | ScalarOp::MaxSI | ScalarOp::MaxUI => "maximum",
        _ => "minimum",
    }
}

/// Result `k`'s combining op `combine(value, accumulator)` and the value it folds in, when the
/// body has that shape.
fn combiner(g: &Generic, k: usize) -> Option<(&BodyOp, BodyValue)> {
    let acc = BodyValue::Arg(g.inputs.len() + k);
    let BodyValue::Op(ci) = *g.body.yields.get(k)? else {
        return None;
    };
    let combine = g.body.ops.get(ci)?;
    let e = match combine.operands.as_slice() {
        [e, a] if *a == acc => *e,
        [a, e] if *a == acc => *e,
        _ => return None,
    };
    Some((combine, e))
}

/// A scalar the kernel holds: a constant's bits or a kernel value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum ScalarSrc {
    Const(u64),
    Value(ValueId),
}

/// What a program value or body value is inside one block.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Sym {
    /// A tile holding the block's part of a tensor of `layout` (never `One`).
    Tile {
        id: ValueId,
        layout: Role,
        dt: DataType,
    },
    /// A predicate tile, or with `or` the disjunction of two (`one` is `lt` or `gt`); `inverted`
    /// means they hold the negation of the comparison (an unordered predicate lowered as its
    /// ordered complement), undone by swapping a select's arms.
    Pred {
        id: ValueId,
        or: Option<ValueId>,
        layout: Role,
        inverted: bool,
    },
    /// One value for every element.
    Scalar { src: ScalarSrc, dt: DataType },
    /// A `tensor.empty` (never read by a correct program).
    Undef,
}

/// The binary tile ops: (tile-tile, tile-scalar, commutative).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
}

impl Bin {
    fn mnemonics(self) -> (&'static str, &'static str) {
        match self {
            Bin::Add => ("TADD", "TADDS"),
            Bin::Sub => ("TSUB", "TSUBS"),
            Bin::Mul => ("TMUL", "TMULS"),
            Bin::Div => ("TDIV", "TDIVS"),
            Bin::Max => ("TMAX", "TMAXS"),
            Bin::Min => ("TMIN", "TMINS"),
        }
    }

    /// Whether `a op b` and `b op a` give the same bits under the ISA's rules (docs/isa.md §1.6,
    /// §1.8: sums and products are IEEE-commutative, and MAX/MIN treat their operands alike,
    /// both-NaN giving the canonical NaN).
    fn commutes(self) -> bool {
        matches!(self, Bin::Add | Bin::Mul | Bin::Max | Bin::Min)
    }
}

/// Everything the lowering of one program needs.
struct Lower<'p> {
    program: &'p Program,
    a: &'p Analysis,
    plan: &'p Plan,
    options: &'p Options,
    /// The passes of a chunked plan.
    stages: Option<Stages>,
    /// The rows and columns of the block being lowered: the plan's, or shorter in a tail.
    shape: std::cell::Cell<(u32, u32)>,
    /// Program argument → kernel argument (memref or scalar).
    kernel_args: HashMap<ValueId, ValueId>,
    /// Remarks (one per op and message, though a block is lowered more than once).
    remarks: std::cell::RefCell<Vec<Diagnostic>>,
}

/// Kernel scalars holding constants: `(type, bits)` and the value, in order of first use.
type Constants = Vec<((DataType, u64), ValueId)>;

/// The per-block state: what each program value is in this block.
struct BlockState {
    /// The block's first row and column, and the kernel's `index` zero.
    row: ValueId,
    col: ValueId,
    zero: ValueId,
    syms: HashMap<ValueId, Sym>,
    /// The kernel scalars holding constants, in order of first use (made before the loops).
    consts: Constants,
    /// In a chunk loop: the running result of each reduction the loop folds, by result value
    /// (the chunk's fold is combined with it instead of the init).
    accumulators: HashMap<ValueId, Sym>,
}

impl BlockState {
    fn new((row, col, zero): (ValueId, ValueId, ValueId), consts: Constants) -> BlockState {
        BlockState {
            row,
            col,
            zero,
            syms: HashMap::new(),
            consts,
            accumulators: HashMap::new(),
        }
    }
}

/// The order in which a chunked plan ([`Plan::chunked`]) computes a program. Each reduction over
/// the chunked axis (a *fold*) needs every chunk of its lines before its result exists, so the
/// chunks are walked once per *pass*: pass `p` folds the reductions `p - 1` folds deep, and a
/// last pass computes and stores the grid results. Per-line values (of the line role, or one
/// value everywhere) are made once per block, before the first pass that can read them.
struct Stages {
    /// Per op: the pass that folds it (folds only).
    fold_pass: Vec<Option<u32>>,
    /// Per op: whether it is made once per block rather than in a chunk loop.
    per_line: Vec<bool>,
    /// Per op: the folds on its deepest input path (the passes that must run before it).
    depth: Vec<u32>,
    /// The number of fold passes (the store pass comes after them).
    passes: u32,
    /// The op defining each value.
    defined_by: HashMap<ValueId, usize>,
    /// The role of the per-line values.
    line: Role,
}

impl Stages {
    fn new(program: &Program, a: &Analysis, axis: Axis) -> Stages {
        let line = match axis {
            Axis::Cols => Role::Row,
            Axis::Rows => Role::Col,
        };
        let n = program.ops.len();
        let mut stages = Stages {
            fold_pass: vec![None; n],
            per_line: vec![false; n],
            depth: vec![0; n],
            passes: 0,
            defined_by: HashMap::new(),
            line,
        };
        let mut value_depth: HashMap<ValueId, u32> = HashMap::new();
        for (i, op) in program.ops.iter().enumerate() {
            let depth = op
                .operands
                .iter()
                .filter_map(|v| value_depth.get(v))
                .max()
                .copied()
                .unwrap_or(0);
            let folds = match &op.kind {
                LOpKind::Generic(g) => a.reduced(i, g).contains(&axis),
                _ => false,
            };
            let out = if folds { depth + 1 } else { depth };
            if folds {
                stages.fold_pass[i] = Some(out);
                stages.passes = stages.passes.max(out);
            }
            stages.per_line[i] = !folds
                && op.results.iter().all(|&r| {
                    is_splat(program, r)
                        || matches!(a.roles.get(&r), None | Some(&Role::One))
                        || a.roles.get(&r) == Some(&line)
                });
            stages.depth[i] = depth;
            for &r in &op.results {
                value_depth.insert(r, out);
                stages.defined_by.insert(r, i);
            }
        }
        stages
    }

    /// The chunk-level ops (in program order) that `targets` need and `st` does not hold yet;
    /// a fold of `pass` reads its accumulator instead of its init.
    fn chunk_ops(
        &self,
        program: &Program,
        st: &BlockState,
        targets: &[ValueId],
        pass: u32,
    ) -> Vec<usize> {
        let mut needed = vec![false; program.ops.len()];
        let mut stack: Vec<ValueId> = targets.to_vec();
        while let Some(v) = stack.pop() {
            if st.syms.contains_key(&v) {
                continue;
            }
            let Some(&i) = self.defined_by.get(&v) else {
                continue;
            };
            if std::mem::replace(&mut needed[i], true) || self.per_line[i] {
                continue;
            }
            let op = &program.ops[i];
            match &op.kind {
                LOpKind::Generic(g) if self.fold_pass[i] == Some(pass) => stack.extend(&g.inputs),
                _ => stack.extend(&op.operands),
            }
        }
        (0..needed.len())
            .filter(|&i| needed[i] && !self.per_line[i])
            .collect()
    }
}

fn emit(
    program: &Program,
    a: &Analysis,
    plan: &Plan,
    options: &Options,
) -> Result<(GmKernel, Vec<Diagnostic>), Diagnostic> {
    let mut b = GmBuilder::at_source(&program.name, program.loc.clone());
    let mut lower = Lower {
        program,
        a,
        plan,
        options,
        stages: plan.chunked.map(|axis| Stages::new(program, a, axis)),
        shape: std::cell::Cell::new((plan.block_rows, plan.block_cols)),
        kernel_args: HashMap::new(),
        remarks: Default::default(),
    };
    if let Some(axis) = plan.chunked {
        let (what, extent, piece) = match axis {
            Axis::Cols => ("row", a.cols, plan.block_cols),
            Axis::Rows => ("column", a.rows, plan.block_rows),
        };
        let pieces = match extent % piece {
            0 => format!("{} pieces of {piece}", extent / piece),
            last => format!("{} pieces of {piece} and a last of {last}", extent / piece),
        };
        for (_, combine) in reassociated_folds(program, a, axis) {
            lower.remark(Diagnostic::remark(
                combine.loc.clone(),
                format!(
                    "--allow-reassociation: each {what}'s {} of {extent} elements is folded in \
                     {pieces}, and the pieces' results are combined in order; the result may \
                     differ from linalg's sequential fold",
                    fold_name(combine.op),
                ),
            ));
        }
    }
    for &arg in &program.args {
        let name = program
            .value(arg)
            .name
            .clone()
            .unwrap_or_else(|| program.display_name(arg));
        let kernel_arg = match program.ty(arg) {
            LType::Tensor(t) => {
                let role = a.roles.get(&arg).copied().unwrap_or(Role::Full);
                let ty = lower.memref_type(role, t.elem, &program.loc)?;
                b.memref_of(&name, ty)
            }
            LType::Scalar(e) => {
                let dt = e.data().ok_or_else(|| {
                    error(
                        &program.loc,
                        format!("argument %{name} of type {e}: scalar arguments must be numbers"),
                    )
                })?;
                b.scalar(&name, ScalarType::Element(dt))
            }
        };
        lower.kernel_args.insert(arg, kernel_arg);
    }
    let mut outs = Vec::new();
    for (k, &r) in program.results.iter().enumerate() {
        let LType::Tensor(t) = program.ty(r) else {
            return Err(error(
                &program.loc,
                format!("result {k} is a scalar; ptoc returns tensors"),
            ));
        };
        let role = a.roles.get(&r).copied().unwrap_or(Role::Full);
        if role == Role::One {
            return Err(error(
                &program.loc,
                format!("result {k} ({t}) is a single element; ptoc returns vectors and grids"),
            ));
        }
        let ty = lower.memref_type(role, t.elem, &program.loc)?;
        outs.push((b.memref_of(&format!("r{k}"), ty), role));
    }
    let (m, n) = (a.rows, a.cols);
    let (br, bc) = (plan.block_rows, plan.block_cols);
    let c0 = b.index(0);
    // The block's constants are loop-invariant: a dry run on a copy finds them, and they are
    // made once, before the loops.
    let used = lower.block(&mut b.clone(), (c0, c0, c0), &outs, Vec::new())?;
    let consts: Vec<_> = used
        .into_iter()
        .map(|((dt, bits), _)| ((dt, bits), b.constant(ScalarType::Element(dt), bits)))
        .collect();
    let mut failure = None;
    let mut body = |b: &mut GmBuilder, row: ValueId, col: ValueId| {
        if failure.is_none() {
            if let Err(e) = lower.block(b, (row, col, c0), &outs, consts.clone()) {
                failure = Some(e);
            }
        }
    };
    // A chunked axis is walked inside the block, by its passes' loops.
    let whole = |extent| {
        vec![Stretch {
            start: 0,
            count: 1,
            extent,
        }]
    };
    let row_stretches = match plan.chunked {
        Some(Axis::Rows) => whole(br),
        _ => stretches(m, br),
    };
    let col_stretches = match plan.chunked {
        Some(Axis::Cols) => whole(bc),
        _ => stretches(n, bc),
    };
    for &rows in &row_stretches {
        for &cols in &col_stretches {
            lower.shape.set((rows.extent, cols.extent));
            let (row_bounds, col_bounds) = (bounds(&mut b, rows, c0), bounds(&mut b, cols, c0));
            walk(&mut b, row_bounds, &[], |b, row, _| {
                walk(b, col_bounds, &[], |b, col, _| {
                    body(b, row, col);
                    vec![]
                })
            });
        }
    }
    if let Some(e) = failure {
        return Err(e);
    }
    b.at(program.loc.clone());
    let mut kernel = b.finish();
    // One PE: ptoc models one fragment (docs/isa.md §9 decision 10), on which the kernel computes
    // the whole tensor; more PEs would only multiply what each tile costs against the capacity.
    kernel.attrs.insert(
        ptoc_ir::alloc_attrs::PE_MASK.to_string(),
        Attr::Str(LINALG_PE_MASK.to_string()),
    );
    let sums = [Axis::Cols, Axis::Rows]
        .into_iter()
        .any(|axis| reassociated_folds(program, a, axis).next().is_some());
    if options.allow_reassociation && sums {
        let piece = match plan.chunked {
            Some(Axis::Cols) => bc,
            Some(Axis::Rows) => br,
            None => m.max(n),
        };
        kernel
            .attrs
            .insert(FOLD_PIECE_ATTR.to_string(), Attr::Int(i64::from(piece)));
    }
    Ok((kernel, lower.remarks.into_inner()))
}

impl Lower<'_> {
    /// Reports `remark` once, though a block is lowered more than once.
    fn remark(&self, remark: Diagnostic) {
        let mut remarks = self.remarks.borrow_mut();
        if !remarks.contains(&remark) {
            remarks.push(remark);
        }
    }

    /// The memref a tensor of `role` lives in: the grid, a column (`M×1`) or a row (`1×N`).
    fn memref_type(
        &self,
        role: Role,
        elem: Elem,
        loc: &Location,
    ) -> Result<MemRefType, Diagnostic> {
        let dtype = tile_dtype(elem, loc)?;
        let (rows, cols) = match role {
            Role::Full => (self.a.rows, self.a.cols),
            Role::Row => (self.a.rows, 1),
            Role::Col => (1, self.a.cols),
            Role::One => (1, 1),
        };
        Ok(MemRefType { rows, cols, dtype })
    }

    /// The tile type of one block's part of a tensor of `layout`.
    fn tile_type(&self, layout: Role, dt: DataType) -> TileType {
        let (r, c) = self.shape.get();
        let pc = physical_cols(c) as u32;
        match layout {
            Role::Full => TileType::new(r, pc, dt).with_valid(r, c),
            Role::Row | Role::One => TileType::new(r, 1, dt),
            Role::Col => TileType::new(1, pc, dt).with_valid(1, c),
        }
    }

    fn predicate_type(&self, layout: Role) -> TileType {
        let t = self.tile_type(layout, DataType::FP32);
        let (rows, cols) = (t.rows.known().unwrap_or(1), t.cols.known().unwrap_or(1));
        let (vr, vc) = (
            t.valid_rows.known().unwrap_or(rows),
            t.valid_cols.known().unwrap_or(cols),
        );
        TileType::predicate(rows, cols).with_valid(vr, vc)
    }

    /// One block: every live op in program order, then the stores of the results.
    /// Returns the constants the block uses (those in `consts` and any it had to make).
    fn block(
        &self,
        b: &mut GmBuilder,
        at: (ValueId, ValueId, ValueId),
        outs: &[(ValueId, Role)],
        consts: Constants,
    ) -> Result<Constants, Diagnostic> {
        if let Some(stages) = &self.stages {
            return self.chunked_block(b, stages, at, outs, consts);
        }
        let mut st = BlockState::new(at, consts);
        for i in 0..self.program.ops.len() {
            self.lower_op(b, &mut st, i)?;
        }
        let results = self
            .program
            .results
            .iter()
            .copied()
            .zip(outs.iter().copied());
        self.store(b, &mut st, results)?;
        Ok(st.consts)
    }

    /// Op `i`, if it is live.
    fn lower_op(&self, b: &mut GmBuilder, st: &mut BlockState, i: usize) -> Result<(), Diagnostic> {
        let op = &self.program.ops[i];
        if !op.results.iter().any(|r| self.a.live.contains(r)) {
            return Ok(());
        }
        b.at(op.loc.clone());
        match &op.kind {
            LOpKind::Constant(bits) => {
                let r = op.results[0];
                let dt = self.elem_dtype(r, &op.loc)?;
                st.syms.insert(
                    r,
                    Sym::Scalar {
                        src: ScalarSrc::Const(*bits),
                        dt,
                    },
                );
            }
            LOpKind::Empty => {
                st.syms.insert(op.results[0], Sym::Undef);
            }
            LOpKind::Reshape => {
                let s = self.value(b, st, op.operands[0], &op.loc)?;
                st.syms.insert(op.results[0], s);
            }
            LOpKind::Generic(g) => self.generic(b, st, i, g, &op.results, &op.loc)?,
        }
        Ok(())
    }

    /// Stores each `(result, (memref, role))` at the block's offsets.
    fn store(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        results: impl Iterator<Item = (ValueId, (ValueId, Role))>,
    ) -> Result<(), Diagnostic> {
        b.at(self.program.loc.clone());
        for (r, (mem, role)) in results {
            let s = self.value(b, st, r, &self.program.loc)?;
            let tile = self.materialize(b, st, s, role, &self.program.loc)?;
            let (row, col) = self.offsets(st, role);
            b.store(tile, mem, row, col);
        }
        Ok(())
    }

    /// One block of whole lines whose reductions fold chunk by chunk, pass by pass ([`Stages`]).
    /// Each fold pass is a loop over the chunks carrying one accumulator per fold; the last
    /// pass stores the grid results chunk by chunk, and the per-line results are stored after it.
    fn chunked_block(
        &self,
        b: &mut GmBuilder,
        stages: &Stages,
        at: (ValueId, ValueId, ValueId),
        outs: &[(ValueId, Role)],
        consts: Constants,
    ) -> Result<Constants, Diagnostic> {
        let axis = self.plan.chunked.unwrap_or(Axis::Cols);
        let mut st = BlockState::new(at, consts);
        let results = || {
            self.program
                .results
                .iter()
                .copied()
                .zip(outs.iter().copied())
        };
        let mut made = vec![false; self.program.ops.len()];
        for pass in 1..=stages.passes + 1 {
            for (i, made) in made.iter_mut().enumerate() {
                if stages.per_line[i] && stages.depth[i] < pass && !*made {
                    *made = true;
                    self.lower_op(b, &mut st, i)?;
                }
            }
            // The folds of this pass (their live results), or the grid results to store.
            let mut folds = Vec::new();
            for (i, op) in self.program.ops.iter().enumerate() {
                let LOpKind::Generic(g) = &op.kind else {
                    continue;
                };
                if stages.fold_pass[i] != Some(pass) {
                    continue;
                }
                for (k, &r) in op.results.iter().enumerate() {
                    if self.a.live.contains(&r) {
                        b.at(op.loc.clone());
                        let init = self.value(b, &mut st, g.outputs[k], &op.loc)?;
                        let dt = self.elem_dtype(r, &op.loc)?;
                        let start = self.materialize(b, &mut st, init, stages.line, &op.loc)?;
                        folds.push((r, start, dt));
                    }
                }
            }
            let stores: Vec<_> = if pass > stages.passes {
                results()
                    .filter(|(_, (_, role))| *role != stages.line)
                    .collect()
            } else {
                Vec::new()
            };
            if folds.is_empty() && stores.is_empty() {
                continue;
            }
            let targets: Vec<ValueId> = folds
                .iter()
                .map(|f| f.0)
                .chain(stores.iter().map(|s| s.0))
                .collect();
            let ops = stages.chunk_ops(self.program, &st, &targets, pass);
            // One chunk at `at`: its ops and stores, and each fold joined to its accumulator.
            let chunk = |b: &mut GmBuilder, at: ValueId, accs: &[ValueId], consts: Constants| {
                let (row, col) = match axis {
                    Axis::Cols => (st.row, at),
                    Axis::Rows => (at, st.col),
                };
                let mut cs = BlockState::new((row, col, st.zero), consts);
                cs.syms = st.syms.clone();
                for (f, &acc) in folds.iter().zip(accs) {
                    let (id, layout, dt) = (acc, stages.line, f.2);
                    cs.accumulators.insert(f.0, Sym::Tile { id, layout, dt });
                }
                for &i in &ops {
                    self.lower_op(b, &mut cs, i)?;
                }
                self.store(b, &mut cs, stores.iter().copied())?;
                let yields = folds
                    .iter()
                    .map(|f| match cs.syms.get(&f.0) {
                        Some(Sym::Tile { id, .. }) => Ok(*id),
                        _ => Err(error(&self.program.loc, "a fold did not give a tile")),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Ok::<_, Diagnostic>((yields, cs.consts))
            };
            let (extent, piece) = match axis {
                Axis::Cols => (self.a.cols, self.plan.block_cols),
                Axis::Rows => (self.a.rows, self.plan.block_rows),
            };
            let block_shape = self.shape.get();
            let mut carried: Vec<ValueId> = folds.iter().map(|f| f.1).collect();
            for stretch in stretches(extent, piece) {
                self.shape.set(match axis {
                    Axis::Cols => (block_shape.0, stretch.extent),
                    Axis::Rows => (stretch.extent, block_shape.1),
                });
                let at = bounds(b, stretch, st.zero);
                let mut outcome = Ok(Vec::new());
                carried = walk(b, at, &carried, |b, at, accs| {
                    match chunk(b, at, accs, st.consts.clone()) {
                        Ok((yields, consts)) => {
                            outcome = Ok(consts);
                            yields
                        }
                        // A failed chunk still yields one value per accumulator.
                        Err(e) => {
                            outcome = Err(e);
                            accs.to_vec()
                        }
                    }
                });
                st.consts = outcome?;
            }
            self.shape.set(block_shape);
            for (f, &id) in folds.iter().zip(&carried) {
                let (layout, dt) = (stages.line, f.2);
                st.syms.insert(f.0, Sym::Tile { id, layout, dt });
            }
        }
        let per_line = results().filter(|(_, (_, role))| *role == stages.line);
        self.store(b, &mut st, per_line)?;
        Ok(st.consts)
    }

    /// The tile type of a tensor value's elements.
    fn elem_dtype(&self, v: ValueId, loc: &Location) -> Result<DataType, Diagnostic> {
        match self.program.ty(v) {
            LType::Tensor(t) => tile_dtype(t.elem, loc),
            LType::Scalar(e) => tile_dtype(*e, loc),
        }
    }

    fn offsets(&self, st: &BlockState, role: Role) -> (ValueId, ValueId) {
        match role {
            Role::Full => (st.row, st.col),
            Role::Row => (st.row, st.zero),
            Role::Col => (st.zero, st.col),
            Role::One => (st.zero, st.zero),
        }
    }

    /// A program value in this block: arguments are loaded (or read as scalars) on first use.
    fn value(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        v: ValueId,
        loc: &Location,
    ) -> Result<Sym, Diagnostic> {
        if let Some(&s) = st.syms.get(&v) {
            return Ok(s);
        }
        let Some(&arg) = self.kernel_args.get(&v) else {
            return Err(error(
                loc,
                format!(
                    "%{} is used before it is defined",
                    self.program.display_name(v)
                ),
            ));
        };
        let sym = match self.program.ty(v) {
            LType::Scalar(e) => Sym::Scalar {
                src: ScalarSrc::Value(arg),
                dt: tile_dtype(*e, loc)?,
            },
            LType::Tensor(t) => {
                let role = self.a.roles.get(&v).copied().unwrap_or(Role::Full);
                if role == Role::One {
                    return Err(error(
                        loc,
                        format!(
                            "%{} ({t}) is a single-element tensor argument; pass it as a scalar",
                            self.program.display_name(v)
                        ),
                    ));
                }
                let dt = tile_dtype(t.elem, loc)?;
                let (row, col) = self.offsets(st, role);
                let id = b.load_as(arg, row, col, self.tile_type(role, dt));
                Sym::Tile {
                    id,
                    layout: role,
                    dt,
                }
            }
        };
        st.syms.insert(v, sym);
        Ok(sym)
    }

    /// A kernel scalar for `src` (constants made once per block, next to their first use).
    fn scalar(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        src: ScalarSrc,
        dt: DataType,
    ) -> ValueId {
        match src {
            ScalarSrc::Value(v) => v,
            ScalarSrc::Const(bits) => match st.consts.iter().find(|(k, _)| *k == (dt, bits)) {
                Some(&(_, v)) => v,
                None => {
                    let v = b.constant(ScalarType::Element(dt), bits);
                    st.consts.push(((dt, bits), v));
                    v
                }
            },
        }
    }

    fn op(
        &self,
        b: &mut GmBuilder,
        mnemonic: &str,
        operands: &[ValueId],
        ty: TileType,
        attrs: BTreeMap<String, Attr>,
    ) -> ValueId {
        let info = by_mnemonic(mnemonic).expect("the converter names catalogue ops only");
        b.tile_op(info, operands, ty, NumericControl::default(), attrs)
    }

    /// `s` as a tile of `layout` (broadcasts made explicit).
    fn materialize(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        s: Sym,
        layout: Role,
        loc: &Location,
    ) -> Result<ValueId, Diagnostic> {
        let layout = layout.in_tiles();
        match s {
            Sym::Tile {
                id, layout: have, ..
            } if have == layout => Ok(id),
            Sym::Tile {
                id,
                layout: Role::Row,
                dt,
            } if layout == Role::Full => Ok(self.op(
                b,
                "TROWEXPAND",
                &[id],
                self.tile_type(Role::Full, dt),
                BTreeMap::new(),
            )),
            Sym::Tile {
                id,
                layout: Role::Col,
                dt,
            } if layout == Role::Full => Ok(self.op(
                b,
                "TCOLEXPAND",
                &[id],
                self.tile_type(Role::Full, dt),
                BTreeMap::new(),
            )),
            Sym::Tile { layout: have, .. } => Err(error(
                loc,
                format!(
                    "cannot use {} where {} is needed",
                    have.name(),
                    layout.name()
                ),
            )),
            Sym::Scalar { src, dt } => {
                let v = self.scalar(b, st, src, dt);
                Ok(self.op(
                    b,
                    "TEXPANDS",
                    &[v],
                    self.tile_type(layout, dt),
                    BTreeMap::new(),
                ))
            }
            Sym::Pred { layout: have, .. } => Err(error(
                loc,
                format!(
                    "a comparison's result over {} is used as a value over {}",
                    have.name(),
                    layout.name()
                ),
            )),
            Sym::Undef => Err(error(
                loc,
                "reads the elements of a tensor.empty, which are undefined",
            )),
        }
    }

    /// The layout a tile op over `syms` works in: the smallest holding them all, a scalar's
    /// broadcast living in a per-row tile.
    fn joined(syms: &[Sym]) -> Role {
        syms.iter()
            .fold(Role::One, |l, &s| l.join(Self::layout(s)))
            .in_tiles()
    }

    /// A tile op without attributes whose result is a `dt` tile of `layout`.
    fn tile(
        &self,
        b: &mut GmBuilder,
        mnemonic: &str,
        operands: &[ValueId],
        layout: Role,
        dt: DataType,
    ) -> Sym {
        let ty = self.tile_type(layout, dt);
        let id = self.op(b, mnemonic, operands, ty, BTreeMap::new());
        Sym::Tile { id, layout, dt }
    }

    fn layout(s: Sym) -> Role {
        match s {
            Sym::Tile { layout, .. } | Sym::Pred { layout, .. } => layout,
            Sym::Scalar { .. } | Sym::Undef => Role::One,
        }
    }

    /// One live generic: its live results, by kind.
    fn generic(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        index: usize,
        g: &Generic,
        results: &[ValueId],
        loc: &Location,
    ) -> Result<(), Diagnostic> {
        let reduced = self.a.reduced(index, g);
        // Block arguments: inputs then outputs, each the operand's value in this block.
        let mut args = Vec::new();
        for &v in g.inputs.iter().chain(&g.outputs) {
            args.push(v);
        }
        let live: Vec<usize> = (0..results.len())
            .filter(|&k| self.a.live.contains(&results[k]))
            .collect();
        let mut eval = BodyEval {
            memo: vec![None; g.body.ops.len()],
            reduced: !reduced.is_empty(),
            n_in: g.inputs.len(),
        };
        for k in live {
            let sym = match reduced.as_slice() {
                [] => {
                    let y = g.body.yields[k];
                    self.body_value(b, st, g, &args, &mut eval, y, loc)?
                }
                [axis] => {
                    let result = (k, results[k]);
                    self.reduce(b, st, g, &args, &mut eval, result, *axis, loc)?
                }
                _ => {
                    return Err(error(
                        loc,
                        "a reduction over more than one loop; ptoc folds rows or columns, one at a time",
                    ))
                }
            };
            st.syms.insert(results[k], sym);
        }
        Ok(())
    }

    /// A body value's symbol.
    #[allow(clippy::too_many_arguments)]
    fn body_value(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        g: &Generic,
        args: &[ValueId],
        eval: &mut BodyEval,
        v: BodyValue,
        loc: &Location,
    ) -> Result<Sym, Diagnostic> {
        match v {
            BodyValue::Arg(k) => {
                if eval.reduced && k >= eval.n_in {
                    return Err(error(
                        loc,
                        "a reduction's accumulator is read other than by its combining op",
                    ));
                }
                let value = *args
                    .get(k)
                    .ok_or_else(|| error(loc, format!("block argument {k} out of range")))?;
                self.value(b, st, value, loc)
            }
            BodyValue::Outer(id) => self.value(b, st, id, loc),
            BodyValue::Op(i) => {
                if let Some(s) = eval.memo[i] {
                    return Ok(s);
                }
                let op = &g.body.ops[i];
                let mut operands = Vec::new();
                for &o in &op.operands {
                    operands.push(self.body_value(b, st, g, args, eval, o, &op.loc)?);
                }
                b.at(op.loc.clone());
                let s = self.scalar_op(b, st, op, &operands)?;
                eval.memo[i] = Some(s);
                Ok(s)
            }
        }
    }

    /// One body op over symbols.
    fn scalar_op(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        op: &ptoc_ir::linalg::BodyOp,
        x: &[Sym],
    ) -> Result<Sym, Diagnostic> {
        let loc = &op.loc;
        let dt = || tile_dtype(op.ty, loc);
        let no_nans = op.no_nans || self.options.assume_no_nans;
        let s = match op.op {
            ScalarOp::Constant(bits) => Sym::Scalar {
                src: ScalarSrc::Const(bits),
                dt: dt()?,
            },
            ScalarOp::AddF | ScalarOp::AddI => self.binary(b, st, Bin::Add, x[0], x[1], loc)?,
            ScalarOp::SubF | ScalarOp::SubI => self.binary(b, st, Bin::Sub, x[0], x[1], loc)?,
            ScalarOp::MulF | ScalarOp::MulI => self.binary(b, st, Bin::Mul, x[0], x[1], loc)?,
            ScalarOp::DivF | ScalarOp::DivSI => self.binary(b, st, Bin::Div, x[0], x[1], loc)?,
            ScalarOp::MaxNumF | ScalarOp::MaxSI => self.binary(b, st, Bin::Max, x[0], x[1], loc)?,
            ScalarOp::MinNumF | ScalarOp::MinSI => self.binary(b, st, Bin::Min, x[0], x[1], loc)?,
            ScalarOp::MaximumF => {
                self.nan_propagating(b, st, Bin::Max, x[0], x[1], no_nans, loc)?
            }
            ScalarOp::MinimumF => {
                self.nan_propagating(b, st, Bin::Min, x[0], x[1], no_nans, loc)?
            }
            ScalarOp::NegF => self.unary(b, st, "TNEG", x[0], None, loc)?,
            ScalarOp::AbsF => self.unary(b, st, "TABS", x[0], None, loc)?,
            ScalarOp::Exp => self.unary(b, st, "TEXP", x[0], None, loc)?,
            ScalarOp::Log => self.unary(b, st, "TLOG", x[0], None, loc)?,
            ScalarOp::Sqrt => self.unary(b, st, "TSQRT", x[0], None, loc)?,
            ScalarOp::Rsqrt => self.unary(b, st, "TRSQRT", x[0], None, loc)?,
            // Float conversions round once, to nearest even: TCVT's default between floats.
            ScalarOp::ExtF | ScalarOp::TruncF => {
                self.unary(b, st, "TCVT", x[0], Some(dt()?), loc)?
            }
            ScalarOp::CmpF(p) => self.cmpf(b, st, p, x[0], x[1], op, loc)?,
            ScalarOp::CmpI(p) => {
                let (mode, unsigned) = match p {
                    CmpIPredicate::Eq => (CmpMode::Eq, false),
                    CmpIPredicate::Ne => (CmpMode::Ne, false),
                    CmpIPredicate::Slt => (CmpMode::Lt, false),
                    CmpIPredicate::Sle => (CmpMode::Le, false),
                    CmpIPredicate::Sgt => (CmpMode::Gt, false),
                    CmpIPredicate::Sge => (CmpMode::Ge, false),
                    CmpIPredicate::Ult => (CmpMode::Lt, true),
                    CmpIPredicate::Ule => (CmpMode::Le, true),
                    CmpIPredicate::Ugt => (CmpMode::Gt, true),
                    CmpIPredicate::Uge => (CmpMode::Ge, true),
                };
                let (l, r) = if unsigned {
                    (
                        self.biased(b, st, x[0], loc)?,
                        self.biased(b, st, x[1], loc)?,
                    )
                } else {
                    (x[0], x[1])
                };
                self.compare(b, st, mode, false, l, r, loc)?
            }
            ScalarOp::Select => self.select(b, st, x[0], x[1], x[2], loc)?,
            ScalarOp::MaxUI | ScalarOp::MinUI => {
                let kind = if op.op == ScalarOp::MaxUI {
                    Bin::Max
                } else {
                    Bin::Min
                };
                let (l, r) = (
                    self.biased(b, st, x[0], loc)?,
                    self.biased(b, st, x[1], loc)?,
                );
                let picked = self.binary(b, st, kind, l, r, loc)?;
                self.biased(b, st, picked, loc)?
            }
            ScalarOp::DivUI => return Err(unsigned(op.op, loc)),
            ScalarOp::SIToFP
            | ScalarOp::UIToFP
            | ScalarOp::FPToSI
            | ScalarOp::FPToUI
            | ScalarOp::ExtSI
            | ScalarOp::ExtUI
            | ScalarOp::TruncI => self.convert_int(b, st, op, x[0])?,
            ScalarOp::Index(_) | ScalarOp::IndexCast => {
                return Err(error(
                    loc,
                    format!(
                        "{} is not supported where its value is used: the ISA's tile ops have no \
                         element index (an unused argmax result, as torch-mlir emits, is fine)",
                        op.op.mlir_name()
                    ),
                ))
            }
        };
        Ok(s)
    }

    /// `a op b` with broadcasts made explicit; a scalar operand uses the tile-scalar form.
    fn binary(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        kind: Bin,
        x: Sym,
        y: Sym,
        loc: &Location,
    ) -> Result<Sym, Diagnostic> {
        let (tt, ts) = kind.mnemonics();
        let dt = sym_dtype(x)
            .or(sym_dtype(y))
            .ok_or_else(|| error(loc, "operands have no element type"))?;
        match (x, y) {
            (Sym::Tile { id, layout, .. }, Sym::Scalar { src, .. })
            | (Sym::Scalar { src, .. }, Sym::Tile { id, layout, .. })
                if matches!(x, Sym::Tile { .. }) || kind.commutes() =>
            {
                let s = self.scalar(b, st, src, dt);
                Ok(self.tile(b, ts, &[id, s], layout, dt))
            }
            _ => {
                let layout = Self::joined(&[x, y]);
                let l = self.materialize(b, st, x, layout, loc)?;
                let r = self.materialize(b, st, y, layout, loc)?;
                Ok(self.tile(b, tt, &[l, r], layout, dt))
            }
        }
    }

    /// `x + 2^(w-1)` modulo `2^w` on a signed integer tile: it maps the unsigned order of the
    /// bits onto the signed order (ISA integer ADD wraps, docs/isa.md §1.7), so an unsigned
    /// compare or pick is the signed one of the biased operands, and biasing again undoes it.
    fn biased(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        x: Sym,
        loc: &Location,
    ) -> Result<Sym, Diagnostic> {
        let dt = sym_dtype(x).ok_or_else(|| error(loc, "operand has no element type"))?;
        let sign = 1u64 << (dt.bits() - 1);
        match x {
            Sym::Scalar {
                src: ScalarSrc::Const(bits),
                dt,
            } => Ok(Sym::Scalar {
                src: ScalarSrc::Const(bits ^ sign),
                dt,
            }),
            _ => self.binary(
                b,
                st,
                Bin::Add,
                x,
                Sym::Scalar {
                    src: ScalarSrc::Const(sign),
                    dt,
                },
                loc,
            ),
        }
    }

    /// `arith.maximumf`/`minimumf`: NaN if either operand is NaN, where the ISA's MAX/MIN return
    /// the number (docs/isa.md §1.8). The ISA op gives the right value whenever neither operand
    /// is NaN (its zero rule is IEEE's `-0 < +0`), so each operand that may be NaN is selected
    /// back in where it is one: `r = x == x ? r : x` (TCMP EQ is false exactly on NaN, §1.9).
    /// With `no_nans` (fastmath `nnan`, `--assume-no-nans`) the ISA op alone.
    #[allow(clippy::too_many_arguments)]
    fn nan_propagating(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        kind: Bin,
        x: Sym,
        y: Sym,
        no_nans: bool,
        loc: &Location,
    ) -> Result<Sym, Diagnostic> {
        let mut r = self.binary(b, st, kind, x, y, loc)?;
        if no_nans {
            return Ok(r);
        }
        for operand in [x, y] {
            if let Sym::Scalar {
                src: ScalarSrc::Const(bits),
                dt,
            } = operand
            {
                if !is_nan(dt, bits) {
                    continue;
                }
            }
            // The canonical NaN, as every ISA op that makes a NaN gives (docs/isa.md §5.2):
            // selecting the operand itself would pass a payload, or a signalling NaN, through.
            let dt = sym_dtype(r).ok_or_else(|| error(loc, "no element type"))?;
            let nan = Sym::Scalar {
                src: ScalarSrc::Const(format_of(dt).map_or(0, |f| f.canonical_nan)),
                dt,
            };
            r = self.keep_nan(b, st, r, operand, nan, loc)?;
        }
        Ok(r)
    }

    /// `v == v ? r : nan`: `r` where `v` is a number, `nan` where it is a NaN.
    fn keep_nan(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        r: Sym,
        v: Sym,
        nan: Sym,
        loc: &Location,
    ) -> Result<Sym, Diagnostic> {
        let layout = Self::joined(&[r, v]);
        let dt = sym_dtype(r).ok_or_else(|| error(loc, "no element type"))?;
        let vt = self.materialize(b, st, v, layout, loc)?;
        let rt = self.materialize(b, st, r, layout, loc)?;
        let nt = self.materialize(b, st, nan, layout, loc)?;
        let p = self.op(
            b,
            "TCMP",
            &[vt, vt],
            self.predicate_type(layout),
            cmode(CmpMode::Eq),
        );
        Ok(self.tile(b, "TSEL", &[p, rt, nt], layout, dt))
    }

    /// A one-source op (`dst` for TCVT's result type).
    fn unary(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        mnemonic: &str,
        x: Sym,
        dst: Option<DataType>,
        loc: &Location,
    ) -> Result<Sym, Diagnostic> {
        let src_dt = sym_dtype(x).ok_or_else(|| error(loc, "operand has no element type"))?;
        let dt = dst.unwrap_or(src_dt);
        let layout = Self::joined(&[x]);
        let t = self.materialize(b, st, x, layout, loc)?;
        Ok(self.tile(b, mnemonic, &[t], layout, dt))
    }

    /// The conversions to, from and between integers, as TCVTs (docs/isa.md §1.10): integer to
    /// float rounds to nearest even and float to integer truncates toward zero (TCVT's defaults
    /// for those pairs; MLIR makes an out-of-range result poison, so TCVT's indefinite value will
    /// do), integer to integer keeps the low bits (no Sat). Signless integers live in signed tiles,
    /// so an unsigned reading or result goes through the unsigned type of the same width, a TCVT
    /// that keeps the bits. An `i1` (a comparison, a predicate tile) selects the two values it
    /// stands for: 0, and 1 unsigned or -1 signed.
    fn convert_int(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        op: &BodyOp,
        x: Sym,
    ) -> Result<Sym, Diagnostic> {
        let loc = &op.loc;
        let dt = tile_dtype(op.ty, loc)?;
        let signed = matches!(
            op.op,
            ScalarOp::SIToFP | ScalarOp::FPToSI | ScalarOp::ExtSI | ScalarOp::TruncI
        );
        if let Sym::Pred { .. } = x {
            let sign = 1u64 << (dt.bits() - 1);
            let truth = match (dt.is_float(), signed) {
                (true, true) => dt.one() | sign,
                (false, true) => dt.carrier_mask(),
                (_, false) => dt.one(),
            };
            let value = |bits| Sym::Scalar {
                src: ScalarSrc::Const(bits),
                dt,
            };
            return self.select(b, st, x, value(truth), value(0), loc);
        }
        let src = sym_dtype(x).ok_or_else(|| error(loc, "operand has no element type"))?;
        let unsigned_of = |t: DataType| {
            DataType::integer(t.bits(), false)
                .ok_or_else(|| error(loc, format!("{} has no unsigned twin", t.name())))
        };
        let tcvt = |b: &mut GmBuilder, st: &mut BlockState, x: Sym, to: DataType| {
            self.unary(b, st, "TCVT", x, Some(to), loc)
        };
        match op.op {
            ScalarOp::UIToFP | ScalarOp::ExtUI => {
                let bits = tcvt(b, st, x, unsigned_of(src)?)?;
                tcvt(b, st, bits, dt)
            }
            ScalarOp::FPToUI => {
                let value = tcvt(b, st, x, unsigned_of(dt)?)?;
                tcvt(b, st, value, dt)
            }
            _ => tcvt(b, st, x, dt),
        }
    }

    /// `arith.cmpf`. The ISA's relations are false on NaN except NE (docs/isa.md §1.9), which
    /// are exactly `oeq ogt oge olt ole une`. An unordered `ugt uge ult ule` is the negation of
    /// an ordered one (`ugt = !ole`), kept as an inverted predicate that a select undoes by
    /// swapping its arms; `ord`/`uno` of a value with itself are `EQ`/`NE`.
    #[allow(clippy::too_many_arguments)]
    fn cmpf(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        p: CmpFPredicate,
        x: Sym,
        y: Sym,
        op: &ptoc_ir::linalg::BodyOp,
        loc: &Location,
    ) -> Result<Sym, Diagnostic> {
        let same = op.operands.first() == op.operands.get(1);
        let (mode, inverted) = match p {
            CmpFPredicate::Oeq => (CmpMode::Eq, false),
            CmpFPredicate::Ogt => (CmpMode::Gt, false),
            CmpFPredicate::Oge => (CmpMode::Ge, false),
            CmpFPredicate::Olt => (CmpMode::Lt, false),
            CmpFPredicate::Ole => (CmpMode::Le, false),
            CmpFPredicate::Une => (CmpMode::Ne, false),
            CmpFPredicate::Ugt => (CmpMode::Le, true),
            CmpFPredicate::Uge => (CmpMode::Lt, true),
            CmpFPredicate::Ult => (CmpMode::Ge, true),
            CmpFPredicate::Ule => (CmpMode::Gt, true),
            CmpFPredicate::Ord if same => (CmpMode::Eq, false),
            CmpFPredicate::Uno if same => (CmpMode::Ne, false),
            // Two relations: `one` is `lt` or `gt` (`ueq` its negation); `uno` is x or y unequal
            // to itself, i.e. NaN (`ord` its negation).
            CmpFPredicate::One | CmpFPredicate::Ueq | CmpFPredicate::Uno | CmpFPredicate::Ord => {
                let [first, second] = match p {
                    CmpFPredicate::One | CmpFPredicate::Ueq => {
                        [(CmpMode::Lt, x, y), (CmpMode::Gt, x, y)]
                    }
                    _ => [(CmpMode::Ne, x, x), (CmpMode::Ne, y, y)],
                };
                let layout = Self::joined(&[x, y]);
                let (id, _) = self.tcmp(b, st, first.0, first.1, first.2, layout, loc)?;
                let (or, _) = self.tcmp(b, st, second.0, second.1, second.2, layout, loc)?;
                return Ok(Sym::Pred {
                    id,
                    or: Some(or),
                    layout,
                    inverted: matches!(p, CmpFPredicate::Ueq | CmpFPredicate::Ord),
                });
            }
            other => {
                return Err(error(
                    loc,
                    format!(
                        "arith.cmpf {} is a constant; ptoc lowers comparisons that read their \
                         operands (every predicate but false and true)",
                        cmpf_name(other)
                    ),
                ))
            }
        };
        self.compare(b, st, mode, inverted, x, y, loc)
    }

    #[allow(clippy::too_many_arguments)]
    fn compare(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        mode: CmpMode,
        inverted: bool,
        x: Sym,
        y: Sym,
        loc: &Location,
    ) -> Result<Sym, Diagnostic> {
        let (id, layout) = self.tcmp(b, st, mode, x, y, Self::joined(&[x, y]), loc)?;
        Ok(Sym::Pred {
            id,
            or: None,
            layout,
            inverted,
        })
    }

    /// One TCMP of `x` and `y` in `layout`: the predicate tile and its layout.
    #[allow(clippy::too_many_arguments)]
    fn tcmp(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        mode: CmpMode,
        x: Sym,
        y: Sym,
        layout: Role,
        loc: &Location,
    ) -> Result<(ValueId, Role), Diagnostic> {
        let l = self.materialize(b, st, x, layout, loc)?;
        let r = self.materialize(b, st, y, layout, loc)?;
        let id = self.op(b, "TCMP", &[l, r], self.predicate_type(layout), cmode(mode));
        Ok((id, layout))
    }

    fn select(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        c: Sym,
        x: Sym,
        y: Sym,
        loc: &Location,
    ) -> Result<Sym, Diagnostic> {
        let Sym::Pred {
            id: p,
            or,
            layout,
            inverted,
        } = c
        else {
            return Err(error(
                loc,
                "arith.select on a condition that is not a comparison inside the region",
            ));
        };
        let want = layout.join(Self::layout(x)).join(Self::layout(y));
        if want != layout {
            return Err(error(
                loc,
                format!(
                    "the condition is computed over {} but the selected values over {}; compare \
                     full-grid values instead",
                    layout.name(),
                    want.name()
                ),
            ));
        }
        let dt = sym_dtype(x)
            .or(sym_dtype(y))
            .ok_or_else(|| error(loc, "no element type"))?;
        let (t, f) = if inverted { (y, x) } else { (x, y) };
        let t = self.materialize(b, st, t, layout, loc)?;
        let mut f = self.materialize(b, st, f, layout, loc)?;
        // p or q: t where q holds, then t where p holds.
        if let Some(q) = or {
            f = self.op(
                b,
                "TSEL",
                &[q, t, f],
                self.tile_type(layout, dt),
                BTreeMap::new(),
            );
        }
        Ok(self.tile(b, "TSEL", &[p, t, f], layout, dt))
    }

    /// A reduction's `k`-th result. linalg folds `out = combine(e, out)` over the reduced loop
    /// in increasing order from the init; the ISA's TROW*/TCOL* ops fold in the same order from
    /// their own start (SUM from +0, PROD from one, MAX/MIN from the first element, docs/isa.md
    /// §1.5). So the init is folded in afterwards only where that is bit-exact: never needed for
    /// a +0.0 sum or a 1.0 product (the ISA starts there), exact for integer sums and products
    /// (modular arithmetic reassociates) and for MAX/MIN (a lattice: order does not matter);
    /// a float sum or product from another init needs `--allow-reassociation`.
    ///
    /// In a chunk loop the chunk's fold joins the reduction's accumulator (`st.accumulators`,
    /// by `result`) through the combining op itself instead of the init ([`Plan::chunked`]).
    #[allow(clippy::too_many_arguments)]
    fn reduce(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        g: &Generic,
        args: &[ValueId],
        eval: &mut BodyEval,
        (k, result): (usize, ValueId),
        axis: Axis,
        loc: &Location,
    ) -> Result<Sym, Diagnostic> {
        let shape_err = || {
            error(
                loc,
                format!(
                    "reduction result {k} is not `combine(value, accumulator)` with combine one \
                     of arith.addf mulf maximumf minimumf maxnumf minnumf addi muli maxsi minsi \
                     maxui minui"
                ),
            )
        };
        let (combine, e) = combiner(g, k).ok_or_else(shape_err)?;
        let name = match combine.op {
            ScalarOp::AddF | ScalarOp::AddI => "SUM",
            ScalarOp::MulF | ScalarOp::MulI => "PROD",
            ScalarOp::MaximumF | ScalarOp::MaxNumF | ScalarOp::MaxSI | ScalarOp::MaxUI => "MAX",
            ScalarOp::MinimumF | ScalarOp::MinNumF | ScalarOp::MinSI | ScalarOp::MinUI => "MIN",
            _ => return Err(shape_err()),
        };
        // Unsigned picks fold the biased values signed, and unbias the result (`biased`).
        let unsigned = matches!(combine.op, ScalarOp::MaxUI | ScalarOp::MinUI);
        let mut value = self.body_value(b, st, g, args, eval, e, &combine.loc)?;
        b.at(combine.loc.clone());
        if unsigned {
            value = self.biased(b, st, value, &combine.loc)?;
        }
        let dt = tile_dtype(combine.ty, &combine.loc)?;
        let x = self.materialize(b, st, value, Role::Full, &combine.loc)?;
        let (prefix, layout) = match axis {
            Axis::Cols => ("TROW", Role::Row),
            Axis::Rows => ("TCOL", Role::Col),
        };
        let mut r = self.tile(b, &format!("{prefix}{name}"), &[x], layout, dt);
        let propagates = matches!(combine.op, ScalarOp::MaximumF | ScalarOp::MinimumF);
        let no_nans = combine.no_nans || self.options.assume_no_nans;
        if propagates && !no_nans {
            // Any NaN in the line makes the result NaN: sum the line with every number replaced
            // by +0 (a sum of zeros is +0, and any NaN makes it NaN), then select that sum back
            // where it is NaN.
            let zero = self.materialize(
                b,
                st,
                Sym::Scalar {
                    src: ScalarSrc::Const(0),
                    dt,
                },
                Role::Full,
                loc,
            )?;
            let numbers = self.op(
                b,
                "TCMP",
                &[x, x],
                self.predicate_type(Role::Full),
                cmode(CmpMode::Eq),
            );
            let nan_only = self.op(
                b,
                "TSEL",
                &[numbers, zero, x],
                self.tile_type(Role::Full, dt),
                BTreeMap::new(),
            );
            let nan_sum = self.tile(b, &format!("{prefix}SUM"), &[nan_only], layout, dt);
            // The sum is +0 or the canonical NaN (docs/isa.md §1.5), so it is its own NaN.
            r = self.keep_nan(b, st, r, nan_sum, nan_sum, loc)?;
        }
        if let Some(&acc) = st.accumulators.get(&result) {
            if unsigned {
                r = self.biased(b, st, r, loc)?;
            }
            let acc_first = combine.operands[0] == BodyValue::Arg(g.inputs.len() + k);
            let operands = if acc_first { [acc, r] } else { [r, acc] };
            return self.scalar_op(b, st, combine, &operands);
        }
        let mut init = self.value(b, st, args[g.inputs.len() + k], loc)?;
        if unsigned {
            init = self.biased(b, st, init, loc)?;
        }
        let r = self.fold_init(b, st, combine, r, init, dt, no_nans, loc)?;
        if unsigned {
            return self.biased(b, st, r, loc);
        }
        Ok(r)
    }

    /// A folded line `r` joined with its reduction's init, where that is exact (see
    /// [`Lower::reduce`]); `init` is biased like `r` for an unsigned pick.
    #[allow(clippy::too_many_arguments)]
    fn fold_init(
        &self,
        b: &mut GmBuilder,
        st: &mut BlockState,
        combine: &ptoc_ir::linalg::BodyOp,
        r: Sym,
        init: Sym,
        dt: DataType,
        no_nans: bool,
        loc: &Location,
    ) -> Result<Sym, Diagnostic> {
        let propagates = matches!(combine.op, ScalarOp::MaximumF | ScalarOp::MinimumF);
        let float = dt.class() == TypeClass::Float;
        let init_const = match init {
            Sym::Scalar {
                src: ScalarSrc::Const(bits),
                ..
            } => Some(bits),
            _ => None,
        };
        let fmt = format_of(dt);
        let is = |bits: Option<u64>| init_const.is_some() && init_const == bits;
        let identity = match combine.op {
            ScalarOp::AddF => is(Some(0)),
            ScalarOp::MulF => is(fmt.map(|f| f.one())),
            ScalarOp::AddI => is(Some(0)),
            ScalarOp::MulI => is(Some(1)),
            // maxnum ignores a NaN init; maximum's identity is -inf (+inf for minimum).
            ScalarOp::MaxNumF | ScalarOp::MinNumF => {
                init_const.is_some_and(|bits| is_nan(dt, bits))
            }
            ScalarOp::MaximumF => is(fmt.map(|f| f.inf_or_nan(true))),
            ScalarOp::MinimumF => is(fmt.map(|f| f.inf_or_nan(false))),
            // The smallest (largest) biased value: the bias of 0 (of all ones).
            ScalarOp::MaxUI => is(Some(1 << (dt.bits() - 1))),
            ScalarOp::MinUI => is(Some((1 << (dt.bits() - 1)) - 1)),
            _ => false,
        };
        if identity {
            return Ok(r);
        }
        let (bin, needs_reassociation) = match combine.op {
            ScalarOp::AddF => (Bin::Add, true),
            ScalarOp::MulF => (Bin::Mul, true),
            ScalarOp::AddI => (Bin::Add, false),
            ScalarOp::MulI => (Bin::Mul, false),
            ScalarOp::MaxNumF | ScalarOp::MaximumF | ScalarOp::MaxSI | ScalarOp::MaxUI => {
                (Bin::Max, false)
            }
            _ => (Bin::Min, false),
        };
        if needs_reassociation && float && !self.options.allow_reassociation {
            return Err(error(
                &combine.loc,
                format!(
                    "this {} starts from an init other than {}, which the ISA's fold cannot start \
                     from: adding it afterwards reassociates the fold; pass \
                     --allow-reassociation to accept that",
                    if bin == Bin::Add { "sum" } else { "product" },
                    if bin == Bin::Add { "+0.0" } else { "1.0" },
                ),
            ));
        }
        if needs_reassociation && float {
            let (what, start) = if bin == Bin::Add {
                ("sum", "+0")
            } else {
                ("product", "1")
            };
            self.remark(Diagnostic::remark(
                combine.loc.clone(),
                format!(
                    "--allow-reassociation: the init joins this {what} after the ISA's fold from \
                     {start}, which reassociates it; the result may differ from linalg's \
                     sequential fold"
                ),
            ));
        }
        if propagates {
            self.nan_propagating(b, st, bin, r, init, no_nans, loc)
        } else {
            self.binary(b, st, bin, r, init, loc)
        }
    }
}

/// Symbolic evaluation state of one generic's body.
struct BodyEval {
    memo: Vec<Option<Sym>>,
    reduced: bool,
    n_in: usize,
}

fn cmode(mode: CmpMode) -> BTreeMap<String, Attr> {
    BTreeMap::from([(
        CMODE_ATTR.to_string(),
        Attr::Str(mode.mlir_name().to_string()),
    )])
}

fn sym_dtype(s: Sym) -> Option<DataType> {
    match s {
        Sym::Tile { dt, .. } | Sym::Scalar { dt, .. } => Some(dt),
        Sym::Pred { .. } | Sym::Undef => None,
    }
}

fn is_nan(dt: DataType, bits: u64) -> bool {
    format_of(dt).is_some_and(|f| f.unpack(bits).is_nan())
}

/// The tile DataType of an element: numbers only.
fn tile_dtype(elem: Elem, loc: &Location) -> Result<DataType, Diagnostic> {
    match elem {
        Elem::Data(t) if t.class() != TypeClass::Other => Ok(t),
        other => Err(error(
            loc,
            format!("elements of type {other} cannot live in a tile"),
        )),
    }
}

fn unsigned(op: ScalarOp, loc: &Location) -> Diagnostic {
    error(
        loc,
        format!(
            "{} has no exact lowering: ptoc keeps MLIR's signless integers in signed tiles \
             (S8..S64), and unsigned division, unlike unsigned comparisons and max/min, has no \
             signed form",
            op.mlir_name()
        ),
    )
}

fn cmpf_name(p: CmpFPredicate) -> &'static str {
    match p {
        CmpFPredicate::False => "false",
        CmpFPredicate::Oeq => "oeq",
        CmpFPredicate::Ogt => "ogt",
        CmpFPredicate::Oge => "oge",
        CmpFPredicate::Olt => "olt",
        CmpFPredicate::Ole => "ole",
        CmpFPredicate::One => "one",
        CmpFPredicate::Ord => "ord",
        CmpFPredicate::Ueq => "ueq",
        CmpFPredicate::Ugt => "ugt",
        CmpFPredicate::Uge => "uge",
        CmpFPredicate::Ult => "ult",
        CmpFPredicate::Ule => "ule",
        CmpFPredicate::Une => "une",
        CmpFPredicate::Uno => "uno",
        CmpFPredicate::True => "true",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manager::PassManager;
    use ptoc_ir::linalg::{Body, BodyOp, LOp, TensorType};
    use ptoc_ir::{GmOpKind, Module};

    /// A hand-built program, op by op, each at its own line of `p.mlir`.
    struct P {
        p: Program,
        line: u32,
    }

    fn f32t(shape: &[u32]) -> LType {
        LType::Tensor(TensorType {
            shape: shape.to_vec(),
            elem: Elem::Data(DataType::FP32),
        })
    }

    const F32: Elem = Elem::Data(DataType::FP32);

    impl P {
        fn new() -> P {
            P {
                p: Program::new("main", Location::new("p.mlir", 1, 1)),
                line: 1,
            }
        }
        fn loc(&mut self) -> Location {
            self.line += 1;
            Location::new("p.mlir", self.line, 5)
        }
        fn push(&mut self, kind: LOpKind, operands: Vec<ValueId>, tys: Vec<LType>) -> Vec<ValueId> {
            let results: Vec<ValueId> =
                tys.into_iter().map(|t| self.p.add_value(None, t)).collect();
            let loc = self.loc();
            self.p.ops.push(LOp {
                kind,
                operands,
                results: results.clone(),
                loc,
            });
            results
        }
        fn constant(&mut self, bits: u64) -> ValueId {
            self.push(LOpKind::Constant(bits), vec![], vec![LType::Scalar(F32)])[0]
        }
        fn empty(&mut self, shape: &[u32]) -> ValueId {
            self.push(LOpKind::Empty, vec![], vec![f32t(shape)])[0]
        }
        fn generic(
            &mut self,
            iterators: &[IteratorKind],
            ins: &[ValueId],
            outs: &[ValueId],
            maps: &[&[MapExpr]],
            ops: Vec<(ScalarOp, Vec<BodyValue>)>,
            yields: Vec<BodyValue>,
        ) -> Vec<ValueId> {
            let loc = self.loc();
            let body = Body {
                args: vec![F32; ins.len() + outs.len()],
                ops: ops
                    .into_iter()
                    .map(|(op, operands)| BodyOp {
                        op,
                        operands,
                        ty: F32,
                        no_nans: false,
                        loc: loc.clone(),
                    })
                    .collect(),
                yields,
            };
            let g = Generic {
                iterators: iterators.to_vec(),
                inputs: ins.to_vec(),
                outputs: outs.to_vec(),
                maps: maps.iter().map(|m| m.to_vec()).collect(),
                body,
            };
            let tys = outs.iter().map(|&o| self.p.ty(o).clone()).collect();
            let mut operands = ins.to_vec();
            operands.extend(outs);
            self.push(LOpKind::Generic(g), operands, tys)
        }
    }

    use BodyValue::{Arg, Op};
    use IteratorKind::{Parallel as Par, Reduction as Red};
    use MapExpr::Dim;

    /// torch-mlir's row softmax after normalisation (maps as `mlir-opt` prints them).
    fn softmax(m: u32, n: u32) -> Program {
        let mut p = P::new();
        let x = p.p.add_arg(Some("x".into()), f32t(&[m, n]));
        let zero = p.constant(0);
        let ninf = p.constant(0xFF80_0000);
        let e1 = p.empty(&[m]);
        let fill_max = p.generic(
            &[Par],
            &[ninf],
            &[e1],
            &[&[], &[Dim(0)]],
            vec![],
            vec![Arg(0)],
        )[0];
        let max = p.generic(
            &[Par, Red],
            &[x],
            &[fill_max],
            &[&[Dim(0), Dim(1)], &[Dim(0)]],
            vec![(ScalarOp::MaximumF, vec![Arg(0), Arg(1)])],
            vec![Op(0)],
        )[0];
        let e2 = p.empty(&[m, n]);
        let full: &[MapExpr] = &[Dim(0), Dim(1)];
        let sub = p.generic(
            &[Par, Par],
            &[x, max],
            &[e2],
            &[full, &[Dim(0)], full],
            vec![(ScalarOp::SubF, vec![Arg(0), Arg(1)])],
            vec![Op(0)],
        )[0];
        let exp = p.generic(
            &[Par, Par],
            &[sub],
            &[e2],
            &[full, full],
            vec![(ScalarOp::Exp, vec![Arg(0)])],
            vec![Op(0)],
        )[0];
        let fill_sum = p.generic(
            &[Par],
            &[zero],
            &[e1],
            &[&[], &[Dim(0)]],
            vec![],
            vec![Arg(0)],
        )[0];
        let sum = p.generic(
            &[Par, Red],
            &[exp],
            &[fill_sum],
            &[full, &[Dim(0)]],
            vec![(ScalarOp::AddF, vec![Arg(0), Arg(1)])],
            vec![Op(0)],
        )[0];
        let div = p.generic(
            &[Par, Par],
            &[exp, sum],
            &[e2],
            &[full, &[Dim(0)], full],
            vec![(ScalarOp::DivF, vec![Arg(0), Arg(1)])],
            vec![Op(0)],
        )[0];
        p.p.results.push(div);
        p.p
    }

    #[test]
    fn block_extent_prefers_divisors_unless_a_tail_doubles_the_block() {
        assert_eq!(block_extent(512, |e| e <= 100), 64); // 100 < 2 * 64
        assert_eq!(block_extent(1009, |e| e <= 16), 16); // prime: 63 blocks of 16, a tail of 1
        assert_eq!(block_extent(1000, |e| e <= 300), 250);
        assert_eq!(block_extent(1000, |e| e <= 600), 500); // 600 is not twice 500
        assert_eq!(block_extent(1022, |e| e <= 500), 500); // 1022 = 2 * 7 * 73: 146 < 250
        assert_eq!(block_extent(97, |_| true), 97);
        assert_eq!(block_extent(97, |_| false), 1);
    }

    #[test]
    fn largest_divisor_takes_the_largest_that_fits() {
        assert_eq!(largest_divisor(512, |d| d <= 100), 64);
        assert_eq!(largest_divisor(97, |d| d <= 50), 1);
        assert_eq!(largest_divisor(100, |_| true), 100);
        assert_eq!(largest_divisor(36, |d| d != 36 && d != 18), 12);
        assert_eq!(largest_divisor(u32::MAX, |d| d < 1000), 771); // 3 * 257
    }

    fn tile_ops(k: &GmKernel) -> Vec<String> {
        let mut names = Vec::new();
        k.walk(|op| {
            if let GmOpKind::Tile { info, .. } = &op.kind {
                names.push(info.mnemonic.to_string());
            }
        });
        names
    }

    #[test]
    fn softmax_tiles_rows_and_compiles_through_the_default_pipeline() {
        let program = softmax(512, 1024);
        let (k, remarks) = convert(&program, &Options::default()).unwrap();
        assert!(remarks.is_empty());
        let ops = tile_ops(&k);
        // Four 4 KiB rows per block: the largest block whose tiles fit the 256 KiB on one PE
        // (a hand keeps 16 tiles allocated, docs/isa.md §3.4), found by trial allocation.
        let mut loads = Vec::new();
        k.walk(|op| {
            if matches!(op.kind, GmOpKind::Load) {
                loads.push(k.ty(op.results[0]).to_string());
            }
        });
        assert_eq!(loads, ["!pto.tile<4x1024xf32>"]);
        assert_eq!(ops[0], "TROWMAX", "{ops:?}");
        let mut module = Module {
            linalg: vec![program],
            ..Module::default()
        };
        let pm = PassManager::default_pipeline(&Options::default());
        let mut ctx = PassContext::new(Options::default());
        pm.run(&mut module, &mut ctx, &mut |_, _, _| {})
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert!(module.linalg.is_empty());
        let fused = tile_ops(&module.gm_kernels[0]);
        assert!(fused.contains(&"TROWEXPANDEXPDIF".to_string()), "{fused:?}");
    }
}
