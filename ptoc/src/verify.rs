//! Checking compiled kernels against their source.
//!
//! [`verify_kernel`] runs a compiled kernel and the reference evaluator (on the unoptimised
//! source) on the same random inputs, trials cycling through the [`InputProfile`]s (edge values,
//! moderate numbers, sparse edges), and compares every result element,
//! definedness bit and status flag. The first disagreement is a [`Mismatch`]: the op and
//! location that defines the result, the element, both values and the inputs at that element.

use crate::exec::{element_type, execute, format_element, hex, ExecError, Run};
use crate::tensor::ElementType;
use ptoc_codegen::Kernel;
use ptoc_ir::linalg::{Elem, LType, Program};
use ptoc_ir::{Function, GmKernel, Location, ScalarType, Type as GmType};
use ptoc_isa::{DataType, FaultClass, PadValue, Storage, TypeClass};
use ptoc_runtime::numerics::Flags;
use ptoc_runtime::{
    evaluate_gm, evaluate_linalg_with, evaluate_with_flags, EvalError, Fault, GmArg, LinalgArg,
    LinalgOptions, LinalgTensor, Tile,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::fmt;

/// The first disagreement between a compiled kernel and its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The trial (0-based) whose inputs showed it.
    pub trial: u32,
    /// The result that differs: its position and name; `None` for flags, faults and failures
    /// that concern the whole kernel.
    pub result: Option<(usize, String)>,
    /// The source op that defines that result (`pto.trowexpandmax`); `None` when the result
    /// is an argument returned as it is, or no result is concerned.
    pub op: Option<String>,
    /// Where that op (or, for an argument, its function) is in the source.
    pub location: Option<Location>,
    /// The differing element `(row, col)`, for an element mismatch.
    pub element: Option<(usize, usize)>,
    /// What differs, with both sides.
    pub discrepancy: Discrepancy,
    /// Every argument's input at the element (clamped to its valid region), or at `[0, 0]`.
    pub inputs: Vec<InputElement>,
}

/// What a [`Mismatch`] found different, with the compiled and the reference side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Discrepancy {
    /// One element differs: bit patterns of `element`, `None` for an undefined element.
    Element {
        /// The result's element type.
        element: ElementType,
        /// The compiled kernel's element.
        compiled: Option<u64>,
        /// The reference evaluator's element.
        reference: Option<u64>,
    },
    /// The result's valid region differs, `(rows, cols)`.
    ValidShape {
        /// The compiled kernel's valid shape.
        compiled: (u32, u32),
        /// The source's valid shape.
        reference: (u32, u32),
    },
    /// The sticky status flags differ.
    Flags {
        /// The compiled kernel's flags.
        compiled: Flags,
        /// The reference evaluator's flags.
        reference: Flags,
    },
    /// The compiled kernel faults where the source evaluates.
    CompiledFaults {
        /// The fault class.
        class: FaultClass,
        /// The faulting bundle.
        bundle: usize,
        /// Why.
        reason: String,
    },
    /// The source fails where the compiled kernel runs.
    SourceFails {
        /// The reference evaluator's error.
        reason: String,
    },
}

impl Discrepancy {
    /// Both sides as text, `(compiled, reference)`: `0x3f800000 (1)`, `undefined`, flags,
    /// shapes, or what failed.
    pub fn values(&self) -> (String, String) {
        let element = |element: ElementType, bits: Option<u64>| match bits {
            Some(b) => format!(
                "{} ({})",
                hex(element.dtype, b),
                format_element(element.dtype, b)
            ),
            None => "undefined".to_string(),
        };
        match self {
            Discrepancy::Element {
                element: e,
                compiled,
                reference,
            } => (element(*e, *compiled), element(*e, *reference)),
            Discrepancy::ValidShape {
                compiled,
                reference,
            } => (
                format!("{}x{}", compiled.0, compiled.1),
                format!("{}x{}", reference.0, reference.1),
            ),
            Discrepancy::Flags {
                compiled,
                reference,
            } => (format!("0x{compiled:02x}"), format!("0x{reference:02x}")),
            Discrepancy::CompiledFaults {
                class,
                bundle,
                reason,
            } => (
                format!("{} in bundle {bundle}: {reason}", class.name()),
                "evaluates".to_string(),
            ),
            Discrepancy::SourceFails { reason } => ("runs".to_string(), reason.clone()),
        }
    }
}

/// One argument's input element, as a [`Mismatch`] reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputElement {
    /// The argument's name (`x` for `%x`).
    pub argument: String,
    /// The element's row and column in the argument's valid region.
    pub row: usize,
    /// See `row`.
    pub col: usize,
    /// The argument's element type.
    pub element: ElementType,
    /// The element's bit pattern.
    pub bits: u64,
}

impl fmt::Display for InputElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "%{}[{},{}] = {} ({})",
            self.argument,
            self.row,
            self.col,
            hex(self.element.dtype, self.bits),
            format_element(self.element.dtype, self.bits)
        )
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inputs: Vec<String> = self.inputs.iter().map(ToString::to_string).collect();
        let inputs = inputs.join(", ");
        let origin = match (&self.op, &self.location) {
            (Some(op), Some(loc)) => format!(" = {op} at {loc}"),
            (None, Some(loc)) => format!(" = argument at {loc}"),
            _ => String::new(),
        };
        let result = match &self.result {
            Some((i, name)) => format!("result #{i} ({name}){origin}"),
            None => String::new(),
        };
        let (compiled, reference) = self.discrepancy.values();
        match &self.discrepancy {
            Discrepancy::Element { .. } => {
                let (r, c) = self.element.unwrap_or_default();
                write!(
                    f,
                    "{result}, element [{r},{c}]: compiled {compiled}, reference {reference}; inputs: {inputs}"
                )
            }
            Discrepancy::ValidShape { .. } => write!(
                f,
                "{result}: valid shape {compiled} compiled, {reference} in the source; inputs: {inputs}"
            ),
            Discrepancy::Flags { .. } => write!(
                f,
                "status flags: compiled {compiled}, reference {reference}; inputs: {inputs}"
            ),
            Discrepancy::CompiledFaults { .. } => write!(
                f,
                "the compiled kernel faults ({compiled}) where the source evaluates; inputs at [0,0]: {inputs}"
            ),
            Discrepancy::SourceFails { .. } => write!(
                f,
                "the source fails ({reference}) where the compiled kernel runs; inputs at [0,0]: {inputs}"
            ),
        }
    }
}

/// Values worth testing for a type: zeros, ones, extremes, infinities, NaNs, subnormals.
fn edge_values(dtype: DataType) -> Vec<u64> {
    let bits = dtype.bits();
    let sign = 1u64 << (bits - 1);
    let mut v = vec![0, dtype.carrier_mask()];
    for pad in [PadValue::Max, PadValue::Min] {
        v.extend(dtype.pad_bits(pad));
    }
    match dtype.float_layout() {
        Some((exp_bits, frac_bits)) => {
            let shift = dtype.required_zero_low_bits();
            let unit = 1u64 << shift;
            let exp_mask = ((1u64 << exp_bits) - 1) << (frac_bits + shift);
            let max_sub = ((1u64 << frac_bits) - 1) << shift;
            let min_normal = 1u64 << (frac_bits + shift);
            // Negative zero (positive zero is the first edge), so comparisons meet ±0 pairs.
            v.push(sign);
            for x in [
                dtype.one(),
                exp_mask,
                exp_mask | unit,
                unit,
                max_sub,
                min_normal,
            ] {
                v.push(x);
                v.push(x | sign);
            }
            v.extend(dtype.canonical_nan());
        }
        None => v.extend([1, sign, sign - 1, 2]),
    }
    v
}

/// How one trial draws its random inputs; trial `t` uses [`InputProfile::of_trial`]. Edge values
/// find the special cases, but with one element in four an edge, a line of a few hundred
/// elements nearly always holds a NaN or an infinity and every sum or maximum over it is one: the
/// arithmetic of reductions shows only on finite values, and a NaN's effect only on a line
/// that holds one among numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputProfile {
    /// One element in four an edge value (±0, ±inf, quiet and signalling NaNs, subnormals,
    /// extremes, ±1), the others random bits.
    Edges,
    /// Moderate finite values, no edge values: a float has a random sign and mantissa and an
    /// exponent from -3 to 3 (magnitudes in [1/8, 16)); a signed integer a magnitude below
    /// 2^(w/2), an unsigned one a value below it (w the width).
    Moderate,
    /// [`InputProfile::Moderate`] values with an edge value one time in 4096 (about one per line
    /// of 4096 elements).
    SparseEdges,
}

impl InputProfile {
    /// Every profile, in the order trials cycle through them.
    pub const ALL: [InputProfile; 3] = [
        InputProfile::Edges,
        InputProfile::Moderate,
        InputProfile::SparseEdges,
    ];

    /// The profile of trial `trial` (0-based): trial 0 edges, 1 moderate, 2 sparse edges, 3
    /// edges again, and so on.
    pub fn of_trial(trial: u32) -> InputProfile {
        InputProfile::ALL[trial as usize % InputProfile::ALL.len()]
    }

    /// How messages name it: `edge`, `moderate`, `sparse-edge`.
    pub fn name(self) -> &'static str {
        match self {
            InputProfile::Edges => "edge",
            InputProfile::Moderate => "moderate",
            InputProfile::SparseEdges => "sparse-edge",
        }
    }
}

/// A random valid-region carrier of `dtype` under `profile` (valid TF32/HF32 encodings, so the
/// interesting cases are not all encoding faults). Types without arithmetic (`TypeClass::Other`)
/// are random bits outside their edges in every profile.
fn random_element(rng: &mut StdRng, dtype: DataType, edges: &[u64], profile: InputProfile) -> u64 {
    let edge_one_in = match profile {
        InputProfile::Edges => 4,
        InputProfile::Moderate => 0,
        InputProfile::SparseEdges => 4096,
    };
    if edge_one_in > 0 && rng.gen_ratio(1, edge_one_in) {
        return edges[rng.gen_range(0..edges.len())];
    }
    let low = dtype.required_zero_low_bits();
    let random_bits = |rng: &mut StdRng| (rng.gen::<u64>() & dtype.carrier_mask()) >> low << low;
    if profile == InputProfile::Edges {
        return random_bits(rng);
    }
    let half = dtype.bits() / 2;
    match (dtype.class(), dtype.float_format()) {
        (TypeClass::Float, Some(f)) => {
            let biased = (f.bias() + rng.gen_range(-3..=3)) as u64;
            let frac = rng.gen::<u64>() & ((1u64 << f.frac_bits) - 1);
            f.pack(rng.gen(), biased, frac)
        }
        (TypeClass::Signed, _) => {
            let magnitude = 1i64 << half;
            (rng.gen_range(1 - magnitude..magnitude) as u64) & dtype.carrier_mask()
        }
        (TypeClass::Unsigned, _) => rng.gen_range(0..1u64 << half),
        (TypeClass::Float | TypeClass::Other, _) => random_bits(rng),
    }
}

/// Random inputs for every argument of `kernel`.
fn random_inputs(kernel: &Kernel, rng: &mut StdRng, profile: InputProfile) -> Vec<Vec<u64>> {
    kernel
        .meta
        .args
        .iter()
        .map(|a| {
            let edges = edge_values(a.dtype);
            let n = a.valid_rows * a.valid_cols;
            match a.storage {
                Storage::Numeric => (0..n)
                    .map(|_| random_element(rng, a.dtype, &edges, profile))
                    .collect(),
                Storage::Predicate => (0..n).map(|_| rng.gen_range(0..2u64)).collect(),
            }
        })
        .collect()
}

/// Run `kernel` and the reference evaluator of `source` (the unoptimised function it was compiled
/// from, see [`crate::Driver::reference_module`]) on `trials` random inputs (trial `t` drawn
/// under [`InputProfile::of_trial`]); the first disagreement, if any.
pub fn verify_kernel(
    kernel: &Kernel,
    source: &Function,
    trials: u32,
    seed: u64,
) -> Result<Option<Mismatch>, ExecError> {
    let mut rng = StdRng::seed_from_u64(seed);
    for trial in 0..trials {
        let inputs = random_inputs(kernel, &mut rng, InputProfile::of_trial(trial));
        let compiled = execute(kernel, &inputs)?;
        let args: Vec<Tile> = source
            .args
            .iter()
            .zip(&inputs)
            .zip(&kernel.meta.args)
            .map(|((&id, values), meta)| {
                let ty = source.ty(id);
                let refused = |reason: String| ExecError::Load {
                    argument: crate::exec::describe_tile(meta),
                    reason,
                };
                let (rows, cols, vr, vc) = ty
                    .dims()
                    .ok_or_else(|| refused("the source argument has a '?' dimension".into()))?;
                match ty.storage {
                    Storage::Numeric if ty.layout.is_cube() => {
                        Tile::cube(ty.dtype, ty.layout, None, (vr, vc))
                    }
                    Storage::Numeric => Tile::new(ty.dtype, rows, cols, vr, vc),
                    Storage::Predicate => Tile::predicate(rows, cols, vr, vc),
                }
                .and_then(|t| t.with_valid_values(values))
                .map_err(|e| refused(e.to_string()))
            })
            .collect::<Result<_, _>>()?;
        let reference = evaluate_with_flags(source, &args);
        let inputs_at = |r: usize, c: usize| -> Vec<InputElement> {
            kernel
                .meta
                .args
                .iter()
                .zip(&inputs)
                .map(|(a, values)| {
                    let (row, col) = (
                        r.min(a.valid_rows as usize - 1),
                        c.min(a.valid_cols as usize - 1),
                    );
                    InputElement {
                        argument: a.name.clone(),
                        row,
                        col,
                        element: element_type(a),
                        bits: values[row * a.valid_cols as usize + col],
                    }
                })
                .collect()
        };
        let whole_kernel = |discrepancy| Mismatch {
            trial,
            result: None,
            op: None,
            location: None,
            element: None,
            discrepancy,
            inputs: inputs_at(0, 0),
        };
        let mismatch = match (&compiled.fault, reference) {
            (Some(_), Err(_)) => None,
            (Some(fault), Ok(_)) => Some(whole_kernel(Discrepancy::CompiledFaults {
                class: fault.class,
                bundle: fault.bundle,
                reason: fault.message.clone(),
            })),
            (None, Err(e)) => Some(whole_kernel(Discrepancy::SourceFails {
                reason: e.to_string(),
            })),
            (None, Ok(eval)) => {
                compare(kernel, source, &compiled, &eval.results, eval.flags).map(|found| {
                    let (r, c) = found.element.unwrap_or_default();
                    Mismatch {
                        inputs: inputs_at(r, c),
                        ..found.into_mismatch(trial)
                    }
                })
            }
        };
        if mismatch.is_some() {
            return Ok(mismatch);
        }
    }
    Ok(None)
}

/// A difference [`compare`] found, before the trial and inputs are attached.
struct Found {
    result: Option<(usize, String)>,
    origin: (Option<String>, Option<Location>),
    element: Option<(usize, usize)>,
    discrepancy: Discrepancy,
}

impl Found {
    fn into_mismatch(self, trial: u32) -> Mismatch {
        Mismatch {
            trial,
            result: self.result,
            op: self.origin.0,
            location: self.origin.1,
            element: self.element,
            discrepancy: self.discrepancy,
            inputs: Vec::new(),
        }
    }
}

/// The first differing element (valid region, then padding the reference defines) or flags.
fn compare(
    kernel: &Kernel,
    source: &Function,
    compiled: &Run,
    reference: &[Tile],
    ref_flags: Flags,
) -> Option<Found> {
    for (i, ((meta, got), want)) in kernel
        .meta
        .results
        .iter()
        .zip(&compiled.results)
        .zip(reference)
        .enumerate()
    {
        let origin = source
            .results
            .get(i)
            .map(|&v| origin(source, v))
            .unwrap_or_default();
        let result = Some((i, meta.name.clone()));
        if (got.valid_rows, got.valid_cols) != (want.valid_rows, want.valid_cols) {
            return Some(Found {
                result,
                origin,
                element: None,
                discrepancy: Discrepancy::ValidShape {
                    compiled: (got.valid_rows, got.valid_cols),
                    reference: (want.valid_rows, want.valid_cols),
                },
            });
        }
        for r in 0..want.rows.min(got.rows) as usize {
            for c in 0..want.cols.min(got.cols) as usize {
                let (g, w) = (got.index(r, c), want.index(r, c));
                let value = |t: &Tile, k: usize| t.is_defined(k).then(|| t.bits(k));
                let (compiled, reference) = (value(got, g), value(want, w));
                if compiled != reference {
                    return Some(Found {
                        result,
                        origin,
                        element: Some((r, c)),
                        discrepancy: Discrepancy::Element {
                            element: ElementType {
                                storage: got.storage,
                                dtype: got.dtype,
                            },
                            compiled,
                            reference,
                        },
                    });
                }
            }
        }
    }
    (compiled.flags != ref_flags).then_some(Found {
        result: None,
        origin: (None, None),
        element: None,
        discrepancy: Discrepancy::Flags {
            compiled: compiled.flags,
            reference: ref_flags,
        },
    })
}

/// The op that defines `value` in the source and where it is (the function's location for an
/// argument).
fn origin(func: &Function, value: ptoc_ir::ValueId) -> (Option<String>, Option<Location>) {
    match func.def_op(value) {
        Some(op) => (Some(op.info.mlir_name()), Some(op.loc.clone())),
        None => (None, Some(func.loc.clone())),
    }
}

/// What a compiled GM kernel produced on one set of inputs: the final elements of each memref
/// argument in argument order (`None` for other arguments; a memref the kernel only reads may
/// be `None` too), or the fault that stopped it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GmRun {
    /// Per argument, the memref's final elements (row-major bit patterns).
    pub memrefs: Vec<Option<Vec<u64>>>,
    /// The fault that stopped the kernel.
    pub fault: Option<Fault>,
}

/// The first disagreement between a compiled GM kernel and the reference evaluator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GmMismatch {
    /// The trial (0-based) whose inputs showed it.
    pub trial: u32,
    /// What differs.
    pub discrepancy: GmDiscrepancy,
}

/// What a [`GmMismatch`] found different.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GmDiscrepancy {
    /// One element of a stored memref differs (bit patterns).
    Element {
        /// The memref's source name (`y` for `%y`).
        memref: String,
        /// `(row, col)` of the element.
        element: (usize, usize),
        /// The compiled kernel's element.
        compiled: u64,
        /// The reference evaluator's element.
        reference: u64,
    },
    /// The compiled kernel faulted where the reference evaluator ran to the end.
    CompiledFaults {
        /// The fault.
        fault: Fault,
    },
    /// The reference evaluator refused inputs the compiled kernel ran on.
    SourceFails {
        /// The evaluation error.
        reason: String,
    },
    /// The compiled side returned a different set of memrefs.
    Shape {
        /// What differs.
        reason: String,
    },
}

impl fmt::Display for GmMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trial {}: ", self.trial)?;
        match &self.discrepancy {
            GmDiscrepancy::Element {
                memref,
                element: (r, c),
                compiled,
                reference,
            } => write!(
                f,
                "memref %{memref} element [{r}, {c}]: compiled {compiled:#x}, reference {reference:#x}"
            ),
            GmDiscrepancy::CompiledFaults { fault } => {
                write!(f, "the compiled kernel faults ({fault}); the source runs")
            }
            GmDiscrepancy::SourceFails { reason } => {
                write!(f, "the source fails ({reason}); the compiled kernel runs")
            }
            GmDiscrepancy::Shape { reason } => f.write_str(reason),
        }
    }
}

/// Random arguments for a GM kernel: every memref element and element-typed scalar random
/// under `profile`, as for tiles; an `index` scalar is `index_values[i]` for argument `i` when
/// given, else 0 (a random loop bound would make trials run for hours or leave every memref).
pub fn random_gm_args(
    kernel: &GmKernel,
    rng: &mut StdRng,
    index_values: &[(usize, u64)],
    profile: InputProfile,
) -> Vec<GmArg> {
    kernel
        .args
        .iter()
        .enumerate()
        .map(|(i, &id)| match kernel.ty(id) {
            // A workspace starts as the loader leaves it: zeros.
            GmType::MemRef(m) if kernel.workspaces.contains(&id) => {
                GmArg::MemRef(vec![0; m.rows as usize * m.cols as usize])
            }
            GmType::MemRef(m) => {
                let edges = edge_values(m.dtype);
                let n = m.rows as usize * m.cols as usize;
                GmArg::MemRef(
                    (0..n)
                        .map(|_| random_element(rng, m.dtype, &edges, profile))
                        .collect(),
                )
            }
            GmType::Scalar(ScalarType::Element(t)) => {
                GmArg::Scalar(random_element(rng, *t, &edge_values(*t), profile))
            }
            GmType::Scalar(ScalarType::Index) => GmArg::Scalar(
                index_values
                    .iter()
                    .find(|(arg, _)| *arg == i)
                    .map_or(0, |&(_, v)| v),
            ),
            GmType::Tile(t) => {
                let (rows, cols, vr, vc) = t.dims().unwrap_or((1, 1, 1, 1));
                let edges = edge_values(t.dtype);
                let values: Vec<u64> = (0..vr * vc)
                    .map(|_| random_element(rng, t.dtype, &edges, profile))
                    .collect();
                let tile = Tile::new(t.dtype, rows, cols, vr, vc)
                    .and_then(|tile| tile.with_valid_values(&values));
                match tile {
                    Ok(tile) => GmArg::Tile(tile),
                    Err(_) => GmArg::Scalar(0),
                }
            }
        })
        .collect()
}

/// Run a compiled GM kernel (`run_compiled`, on the same arguments) and the reference evaluator
/// of `source` (the unoptimised kernel, [`crate::Driver::reference_module`]) on `trials` random
/// argument sets ([`random_gm_args`], trial `t` under [`InputProfile::of_trial`]) and compare every element of every memref bit for bit;
/// the first disagreement, if any. Both failing on the same inputs is agreement (the source
/// accesses memory outside a memref or divides by zero, where the compiled kernel faults).
pub fn verify_gm_kernel(
    source: &GmKernel,
    trials: u32,
    seed: u64,
    index_values: &[(usize, u64)],
    mut run_compiled: impl FnMut(&[GmArg]) -> GmRun,
) -> Option<GmMismatch> {
    let mut rng = StdRng::seed_from_u64(seed);
    for trial in 0..trials {
        let profile = InputProfile::of_trial(trial);
        let args = random_gm_args(source, &mut rng, index_values, profile);
        let compiled = run_compiled(&args);
        let reference = evaluate_gm(source, &args);
        let discrepancy = match (compiled.fault, reference) {
            (Some(_), Err(_)) => None,
            (Some(fault), Ok(_)) => Some(GmDiscrepancy::CompiledFaults { fault }),
            (None, Err(e)) => Some(GmDiscrepancy::SourceFails {
                reason: e.to_string(),
            }),
            (None, Ok(eval)) => compare_memrefs(source, &compiled.memrefs, &eval.memrefs),
        };
        if let Some(discrepancy) = discrepancy {
            return Some(GmMismatch { trial, discrepancy });
        }
    }
    None
}

/// [`verify_gm_kernel`] with `kernel`, the compiled form of `source`, run on the interpreter;
/// a disagreement as a [`Mismatch`] (the memref as its result, the kernel's location).
pub fn verify_compiled_gm_kernel(
    kernel: &Kernel,
    source: &GmKernel,
    trials: u32,
    seed: u64,
    index_values: &[(usize, u64)],
) -> Result<Option<Mismatch>, ExecError> {
    crate::exec::check_gm_size(kernel)?;
    let mut exec_error = None;
    let found = verify_gm_kernel(source, trials, seed, index_values, |args| {
        // The loader maps the workspaces itself; they are not arguments.
        let arguments = args.iter().zip(&source.args);
        let inputs: Vec<Vec<u64>> = arguments
            .filter(|(_, id)| !source.workspaces.contains(id))
            .map(|(a, _)| match a {
                GmArg::MemRef(v) => v.clone(),
                GmArg::Scalar(bits) => vec![*bits],
                GmArg::Tile(t) => t
                    .valid_values()
                    .into_iter()
                    .map(|v| v.unwrap_or(0))
                    .collect(),
            })
            .collect();
        let mut memrefs = vec![None; source.args.len()];
        match execute(kernel, &inputs) {
            Ok(run) => {
                let stored = kernel.meta.memrefs.iter().filter(|m| m.is_output());
                for (meta, elements) in stored.zip(run.memrefs) {
                    if let Some(slot) = memrefs.get_mut(meta.position) {
                        *slot = Some(elements);
                    }
                }
                GmRun {
                    memrefs,
                    fault: run.fault,
                }
            }
            Err(e) => {
                exec_error.get_or_insert(e);
                GmRun {
                    memrefs,
                    fault: None,
                }
            }
        }
    });
    if let Some(e) = exec_error {
        return Err(e);
    }
    Ok(found.map(|m| {
        let (result, element, discrepancy) = match m.discrepancy {
            GmDiscrepancy::Element {
                memref,
                element,
                compiled,
                reference,
            } => {
                let position = source
                    .args
                    .iter()
                    .position(|&a| source.display_name(a) == memref)
                    .unwrap_or_default();
                let dtype = source
                    .args
                    .get(position)
                    .and_then(|&a| source.ty(a).memref())
                    .map_or(DataType::FP32, |t| t.dtype);
                let discrepancy = Discrepancy::Element {
                    element: ElementType {
                        storage: Storage::Numeric,
                        dtype,
                    },
                    compiled: Some(compiled),
                    reference: Some(reference),
                };
                (Some((position, memref)), Some(element), discrepancy)
            }
            GmDiscrepancy::CompiledFaults { fault } => {
                let discrepancy = Discrepancy::CompiledFaults {
                    class: fault.class,
                    bundle: fault.bundle,
                    reason: fault.message,
                };
                (None, None, discrepancy)
            }
            GmDiscrepancy::SourceFails { reason } | GmDiscrepancy::Shape { reason } => {
                (None, None, Discrepancy::SourceFails { reason })
            }
        };
        Mismatch {
            trial: m.trial,
            result,
            op: None,
            location: Some(source.loc.clone()),
            element,
            discrepancy,
            inputs: Vec::new(),
        }
    }))
}

/// The first element (row-major, memrefs in argument order) where `compiled` and `reference`
/// differ.
fn compare_memrefs(
    source: &GmKernel,
    compiled: &[Option<Vec<u64>>],
    reference: &[Option<Vec<u64>>],
) -> Option<GmDiscrepancy> {
    if compiled.len() != reference.len() {
        return Some(GmDiscrepancy::Shape {
            reason: format!(
                "the compiled kernel returned {} arguments' memory, the source has {}",
                compiled.len(),
                reference.len()
            ),
        });
    }
    let stored = source.stored_memrefs();
    for ((&id, got), want) in source.args.iter().zip(compiled).zip(reference) {
        // A workspace is the kernel's own scratch memory: what it holds at the end is no result.
        if source.workspaces.contains(&id) {
            continue;
        }
        // A memref the kernel only reads may be left out by the compiled side.
        let want = want
            .as_ref()
            .filter(|_| got.is_some() || stored.contains(&id));
        let (Some(got), Some(want), Some(m)) = (got, want, source.ty(id).memref()) else {
            if got.is_some() != want.is_some() {
                return Some(GmDiscrepancy::Shape {
                    reason: format!("memref %{} is missing on one side", source.display_name(id)),
                });
            }
            continue;
        };
        if got.len() != want.len() {
            return Some(GmDiscrepancy::Shape {
                reason: format!(
                    "memref %{} has {} elements compiled, {} in the source",
                    source.display_name(id),
                    got.len(),
                    want.len()
                ),
            });
        }
        if let Some(k) = (0..want.len()).find(|&k| got[k] != want[k]) {
            let cols = m.cols as usize;
            return Some(GmDiscrepancy::Element {
                memref: source.display_name(id),
                element: (k / cols, k % cols),
                compiled: got[k],
                reference: want[k],
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Driver, Options};

    const KERNELS: &str = r#"
func.func @k(%x: !pto.tile<4x8xsi16>, %v: !pto.tile<4x1xsi16>) -> !pto.tile<4x8xsi16> {
  %r = "pto.trowexpandmax"(%x, %v) : (!pto.tile<4x8xsi16>, !pto.tile<4x1xsi16>) -> !pto.tile<4x8xsi16>
  return %r : !pto.tile<4x8xsi16>
}
func.func @k_min(%x: !pto.tile<4x8xsi16>, %v: !pto.tile<4x1xsi16>) -> !pto.tile<4x8xsi16> {
  %r = "pto.trowexpandmin"(%x, %v) : (!pto.tile<4x8xsi16>, !pto.tile<4x1xsi16>) -> !pto.tile<4x8xsi16>
  return %r : !pto.tile<4x8xsi16>
}
"#;

    #[test]
    fn verify_reports_a_kernel_that_does_not_match_its_source() {
        let driver = Driver::new(Options::default()).unwrap();
        let module = driver
            .import(&ptoc_ir::Source::new(KERNELS, "k.mlir"))
            .unwrap();
        let kernels = driver.compile_kernels(&module).unwrap();
        let reference = driver.reference_module(&module).unwrap();
        // Each kernel matches its own source...
        for (kernel, source) in kernels.iter().zip(&reference.functions) {
            assert!(verify_kernel(kernel, source, 20, 1).unwrap().is_none());
        }
        // ...and the MAX kernel checked against the MIN source is caught, with the op, its
        // location, the element, both values and the inputs at that element.
        let m = verify_kernel(&kernels[0], &reference.functions[1], 20, 1)
            .unwrap()
            .expect("max is not min");
        assert_eq!(m.trial, 0);
        assert_eq!(m.result, Some((0, "r0".to_string())));
        assert_eq!(m.op.as_deref(), Some("pto.trowexpandmin"));
        assert_eq!(m.location, Some(Location::new("k.mlir", 7, 8)));
        let (r, c) = m.element.expect("an element");
        let Discrepancy::Element {
            element:
                ElementType {
                    storage: Storage::Numeric,
                    dtype: DataType::S16,
                },
            compiled: Some(got),
            reference: Some(want),
        } = m.discrepancy
        else {
            panic!("{:?}", m.discrepancy)
        };
        // The compiled side is max(x, v), the reference min(x, v), at that element.
        let input = |name: &str| {
            let e = m.inputs.iter().find(|e| e.argument == name).unwrap();
            e.bits as u16 as i16
        };
        assert_eq!((m.inputs[0].row, m.inputs[0].col), (r, c));
        assert_eq!((m.inputs[1].row, m.inputs[1].col), (r, 0));
        let (x, v) = (input("x"), input("v"));
        assert_eq!(got as u16 as i16, x.max(v));
        assert_eq!(want as u16 as i16, x.min(v));
        let text = m.to_string();
        assert!(
            text.starts_with("result #0 (r0) = pto.trowexpandmin at k.mlir:7:8, element [")
                && text.contains("compiled 0x")
                && text.contains("reference 0x")
                && text.contains("inputs: %x["),
            "{text}"
        );
    }
}

/// What each [`InputProfile`] draws, and that the profiles exercise a reduction's arithmetic.
#[cfg(test)]
mod profile_tests {
    use super::*;
    use crate::{Driver, Options};
    use ptoc_runtime::evaluate_linalg;

    fn draw(dtype: DataType, profile: InputProfile, n: usize) -> (Vec<u64>, usize) {
        let mut rng = StdRng::seed_from_u64(11);
        let edges = edge_values(dtype);
        let values: Vec<u64> = (0..n)
            .map(|_| random_element(&mut rng, dtype, &edges, profile))
            .collect();
        let on_edge = values.iter().filter(|v| edges.contains(v)).count();
        (values, on_edge)
    }

    /// Moderate floats have magnitudes in [1/8, 16) (read by the host's f64, f32 and `half`
    /// conversions: no zero, subnormal, infinity or NaN) and both signs; moderate integers stay below 2^(w/2) in
    /// magnitude. Edges come one element in four, or one in 4096, as documented.
    #[test]
    fn moderate_values_are_finite_and_moderate() {
        let n = 4000;
        let moderate = |x: f64| x.is_finite() && (0.125..16.0).contains(&x.abs());
        type Host = fn(u64) -> f64;
        let host: [(DataType, Host); 5] = [
            (DataType::FP64, f64::from_bits),
            (DataType::FP32, |b| f32::from_bits(b as u32).into()),
            (DataType::TF32, |b| f32::from_bits(b as u32).into()),
            (DataType::FP16, |b| half::f16::from_bits(b as u16).into()),
            (DataType::BF16, |b| half::bf16::from_bits(b as u16).into()),
        ];
        for (dtype, value) in host {
            let (values, _) = draw(dtype, InputProfile::Moderate, n);
            assert!(values.iter().all(|&b| moderate(value(b))), "{dtype:?}");
            assert!(values.iter().any(|&b| value(b) < 0.0), "{dtype:?}");
            assert!(values.iter().any(|&b| value(b) > 0.0), "{dtype:?}");
            let low = (1u64 << dtype.required_zero_low_bits()) - 1;
            assert!(values.iter().all(|&b| b & low == 0), "{dtype:?}");
        }
        // 8-bit floats: E4M3 (bias 7) and E5M2 (bias 15) exponent fields within 3 of the bias.
        for (dtype, shift, bias) in [(DataType::E4M3, 3, 7), (DataType::E5M2, 2, 15)] {
            let (values, _) = draw(dtype, InputProfile::Moderate, n);
            assert!(values
                .iter()
                .all(|&b| ((b & 0x7F) >> shift).abs_diff(bias) <= 3));
        }
        let (values, _) = draw(DataType::S8, InputProfile::Moderate, n);
        assert!(values.iter().all(|&b| (b as u8 as i8).unsigned_abs() < 16));
        let (values, _) = draw(DataType::S32, InputProfile::Moderate, n);
        assert!(values
            .iter()
            .all(|&b| (b as u32 as i32).unsigned_abs() < 1 << 16));
        assert!(values.iter().any(|&b| (b as u32 as i32) < 0));
        let (values, _) = draw(DataType::U16, InputProfile::Moderate, n);
        assert!(values.iter().all(|&b| b < 256));
        // Edge rates: one in four, and one in 4096 (about 10 of 40960).
        let (_, on_edge) = draw(DataType::FP32, InputProfile::Edges, n);
        assert!((800..1200).contains(&on_edge), "{on_edge}");
        let (_, on_edge) = draw(DataType::FP32, InputProfile::SparseEdges, 40960);
        assert!((2..30).contains(&on_edge), "{on_edge}");
        assert_eq!(
            (0..6).map(InputProfile::of_trial).collect::<Vec<_>>(),
            [InputProfile::ALL, InputProfile::ALL].concat()
        );
    }

    /// A NaN-propagating row maximum over 64 lines of 4096: under edge inputs every line holds a
    /// NaN, so every result is NaN and the fold's arithmetic goes unchecked; moderate inputs give
    /// numbers on every line, sparse edges give NaN on some lines and numbers on others.
    #[test]
    fn trials_exercise_the_arithmetic_of_a_reduction() {
        const AMAX: &str = r#"
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @amax(%x: tensor<64x4096xf32>) -> tensor<64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x4096xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %m : tensor<64xf32>
}
"#;
        let driver = Driver::new(Options::default()).unwrap();
        let module = driver
            .import(&ptoc_ir::Source::new(AMAX, "amax.mlir"))
            .unwrap();
        let program = &module.linalg[0];
        let mut rng = StdRng::seed_from_u64(0);
        let nans = InputProfile::ALL.map(|profile| {
            let args = random_linalg_args(program, &mut rng, profile);
            let out = evaluate_linalg(program, &args).unwrap();
            let value = |b: u64| f32::from_bits(b as u32);
            let numbers = out[0].bits.iter().filter(|&&b| !value(b).is_nan());
            if profile == InputProfile::Moderate {
                // The maximum of moderate values is a moderate, positive value.
                assert!(numbers.clone().all(|&b| (0.125..16.0).contains(&value(b))));
            }
            64 - numbers.count()
        });
        assert_eq!(nans[0], 64);
        assert_eq!(nans[1], 0);
        assert!(nans[2] > 0 && nans[2] < 64, "{nans:?}");
    }
}

/// GM kernels: the reference evaluator against numpy, and [`verify_gm_kernel`]'s comparison.
#[cfg(test)]
mod gm_tests {
    use super::*;
    use crate::{Driver, Options};
    use ptoc_ir::{Module, Source};
    use ptoc_passes::{PassContext, PassManager};
    use std::path::PathBuf;

    fn test_dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../test/runtime")
    }

    /// The data of a little-endian `<f4` C-order `.npy` (version 1 or 2 header), as bits.
    fn read_f32_npy(name: &str) -> Vec<u64> {
        let path = test_dir().join("Inputs/gm").join(name);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(&bytes[..6], b"\x93NUMPY");
        let (header_len, start) = match bytes[6] {
            1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
            _ => (
                u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize,
                12,
            ),
        };
        let header = std::str::from_utf8(&bytes[start..start + header_len]).unwrap();
        assert!(
            header.contains("'<f4'") && header.contains("False"),
            "{header}"
        );
        bytes[start + header_len..]
            .chunks_exact(4)
            .map(|c| u64::from(u32::from_le_bytes(c.try_into().unwrap())))
            .collect()
    }

    fn import(text: &str, file: &str) -> (Driver, Module) {
        let driver = Driver::new(Options::default()).unwrap();
        let module = driver.import(&Source::new(text, file)).unwrap();
        (driver, module)
    }

    /// The unoptimised GM kernel of `text` (verified, shapes inferred).
    fn reference_of(text: &str, file: &str) -> GmKernel {
        let (driver, module) = import(text, file);
        let reference = driver.reference_module(&module).unwrap();
        reference.gm_kernels.into_iter().next().unwrap()
    }

    /// The unoptimised GM kernel of a test file.
    fn reference_kernel(file: &str) -> GmKernel {
        let path = test_dir().join("gm").join(file);
        reference_of(&std::fs::read_to_string(&path).unwrap(), file)
    }

    /// `kernel` after the front-end pipeline, fusion included.
    fn fused(kernel: &GmKernel) -> GmKernel {
        let mut module = Module {
            gm_kernels: vec![kernel.clone()],
            ..Module::default()
        };
        let pm = PassManager::parse("pto-verify,pto-infer-shapes,pto-fuse").unwrap();
        let mut ctx = PassContext::default();
        pm.run(&mut module, &mut ctx, &mut |_, _, _| {}).unwrap();
        module.gm_kernels.remove(0)
    }

    /// Each GM kernel of test/runtime/gm gives numpy's bits (Inputs/gm/gen.py), and so does
    /// its fused form.
    #[test]
    fn reference_matches_numpy() {
        let cases: [(&str, &[&str], usize); 5] = [
            ("softmax-rows", &["x"], 1),
            ("row-max", &["x"], 1),
            ("affine-256", &["x", "w"], 2),
            ("column-normalise", &["x"], 1),
            ("scale-shift", &["x"], 1),
        ];
        for (name, inputs, out) in cases {
            let kernel = reference_kernel(&format!("{name}.mlir"));
            let mut args: Vec<GmArg> = inputs
                .iter()
                .map(|i| GmArg::MemRef(read_f32_npy(&format!("{name}.{i}.npy"))))
                .collect();
            let m = kernel.ty(kernel.args[out]).memref().unwrap();
            args.push(GmArg::MemRef(vec![0; (m.rows * m.cols) as usize]));
            // Scalar arguments follow the memrefs (NAME.scalars.npy).
            if kernel.args.len() > args.len() {
                let scalars = read_f32_npy(&format!("{name}.scalars.npy"));
                args.extend(scalars.into_iter().map(GmArg::Scalar));
            }
            let expected = read_f32_npy(&format!("{name}.expected.npy"));
            for k in [kernel.clone(), fused(&kernel)] {
                let eval = evaluate_gm(&k, &args).unwrap();
                let got = eval.memrefs[out].as_ref().unwrap();
                let first = (0..expected.len()).find(|&i| got[i] != expected[i]);
                assert_eq!(first, None, "{name}: element {first:?}");
                // Inputs are left as they were.
                assert_eq!(
                    eval.memrefs[0].as_ref(),
                    Some(match &args[0] {
                        GmArg::MemRef(v) => v,
                        _ => unreachable!(),
                    })
                );
            }
        }
    }

    const DYNAMIC: &str = r#"
func.func @k(%x: memref<4x8xi32>, %y: memref<4x8xi32>, %r: index, %d: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %q = arith.divsi %d, %d : i32
  %t = "pto.tload"(%x, %r, %c0) : (memref<4x8xi32>, index, index) -> !pto.tile<2x8xi32>
  scf.for %i = %c4 to %c0 step %c1 {
    "pto.tstore"(%t, %y, %c4, %c4) : (!pto.tile<2x8xi32>, memref<4x8xi32>, index, index) -> ()
  }
  "pto.tstore"(%t, %y, %r, %c0) : (!pto.tile<2x8xi32>, memref<4x8xi32>, index, index) -> ()
  return
}
"#;

    /// Offsets the compiler cannot bound are checked when the kernel runs; a zero divisor is an
    /// evaluation error; a loop that never runs touches nothing.
    #[test]
    fn evaluation_errors_and_empty_loops() {
        let kernel = reference_of(DYNAMIC, "dyn.mlir");
        let x: Vec<u64> = (0..32).collect();
        let args = |r: u64, d: u64| {
            vec![
                GmArg::MemRef(x.clone()),
                GmArg::MemRef(vec![0; 32]),
                GmArg::Scalar(r),
                GmArg::Scalar(d),
            ]
        };
        let eval = evaluate_gm(&kernel, &args(2, 7)).unwrap();
        let y = eval.memrefs[1].as_ref().unwrap();
        let mut want = vec![0; 32];
        want[16..].copy_from_slice(&x[16..]);
        assert_eq!(y, &want);
        let err = evaluate_gm(&kernel, &args(3, 7)).unwrap_err().to_string();
        assert!(
            err.contains("dyn.mlir:7:8")
                && err.contains("the 2x8 rectangle at row 3, column 0 leaves %x"),
            "{err}"
        );
        let err = evaluate_gm(&kernel, &args(u64::MAX, 7))
            .unwrap_err()
            .to_string();
        assert!(err.contains("at row -1"), "{err}");
        let err = evaluate_gm(&kernel, &args(0, 0)).unwrap_err().to_string();
        assert!(
            err.contains("dyn.mlir:6:8") && err.contains("arith.divsi"),
            "{err}"
        );
    }

    const PARTIAL: &str = r#"
func.func @k(%x: memref<4x8xi32>, %y: memref<4x8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t = "pto.tload"(%x, %c1, %c2) : (memref<4x8xi32>, index, index) -> !pto.tile<2x8xi32, valid=2x3>
  %r = scf.for %i = %c2 to %c1 step %c1 iter_args(%a = %t) -> (!pto.tile<2x8xi32, valid=2x3>) {
    %n = "pto.tadd"(%a, %a) : (!pto.tile<2x8xi32, valid=2x3>, !pto.tile<2x8xi32, valid=2x3>) -> !pto.tile<2x8xi32, valid=2x3>
    scf.yield %n : !pto.tile<2x8xi32, valid=2x3>
  }
  %s = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %r) -> (!pto.tile<2x8xi32, valid=2x3>) {
    %n = "pto.tadd"(%a, %a) : (!pto.tile<2x8xi32, valid=2x3>, !pto.tile<2x8xi32, valid=2x3>) -> !pto.tile<2x8xi32, valid=2x3>
    scf.yield %n : !pto.tile<2x8xi32, valid=2x3>
  }
  "pto.tstore"(%s, %y, %c2, %c0) : (!pto.tile<2x8xi32, valid=2x3>, memref<4x8xi32>, index, index) -> ()
  return
}
"#;

    /// A load publishes only the valid region (docs/isa.md §13.7: padding undefined), a store
    /// writes only it; a loop that never runs yields its initial values, one that runs twice
    /// carries them through both iterations.
    #[test]
    fn partial_tiles_and_carried_values() {
        let kernel = reference_of(PARTIAL, "partial.mlir");
        let x: Vec<u64> = (0..32).collect();
        let y: Vec<u64> = (100..132).collect();
        let eval = evaluate_gm(&kernel, &[GmArg::MemRef(x), GmArg::MemRef(y.clone())]).unwrap();
        let mut want = y;
        // x rows 1..3, columns 2..5, times 4, at y rows 2..4, columns 0..3 (hand-computed).
        for (r, c) in [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)] {
            want[(2 + r) * 8 + c] = 4 * ((1 + r) * 8 + 2 + c) as u64;
        }
        assert_eq!(eval.memrefs[1].as_ref(), Some(&want));
        // The loaded tile's padding is undefined.
        let mut load_only = kernel.clone();
        load_only.body.ops.truncate(4);
        let t = load_only.body.ops[3].results[0];
        load_only.body.ops.push(ptoc_ir::GmOp {
            kind: ptoc_ir::GmOpKind::Return,
            operands: vec![t],
            results: Vec::new(),
            loc: Location::unknown(),
            attrs: Default::default(),
        });
        let x: Vec<u64> = (0..32).collect();
        let eval =
            evaluate_gm(&load_only, &[GmArg::MemRef(x), GmArg::MemRef(vec![0; 32])]).unwrap();
        let tile = &eval.results[0];
        assert_eq!(tile.valid_values(), [10, 11, 12, 18, 19, 20].map(Some));
        assert!(!tile.is_defined(tile.index(0, 3)) && !tile.is_defined(tile.index(1, 7)));
    }

    /// A compiled GM kernel agrees with its source on the interpreter, and disagrees with a
    /// different source, reported at the stored memref's element.
    #[test]
    fn compiled_gm_kernels_are_verified() {
        let path = test_dir().join("gm/column-normalise.mlir");
        let text = std::fs::read_to_string(path).unwrap();
        let (driver, module) = import(&text, "column-normalise.mlir");
        let kernels = driver.compile_kernels(&module).unwrap();
        let source = reference_of(&text, "column-normalise.mlir");
        assert_eq!(
            verify_compiled_gm_kernel(&kernels[0], &source, 2, 5, &[]),
            Ok(None)
        );
        let other = reference_of(
            &text.replace("\"pto.tdiv\"", "\"pto.tsub\""),
            "column-normalise.mlir",
        );
        let mismatch = verify_compiled_gm_kernel(&kernels[0], &other, 2, 5, &[])
            .unwrap()
            .expect("TDIV is not TSUB");
        assert_eq!(mismatch.result, Some((1, "y".to_string())));
        assert!(mismatch.element.is_some());
        assert!(matches!(mismatch.discrepancy, Discrepancy::Element { .. }));
    }

    /// The comparison finds nothing between a kernel and its fused form, and reports a
    /// deliberately wrong element by memref name and position.
    #[test]
    fn verify_compares_memrefs_bit_for_bit() {
        let kernel = reference_kernel("column-normalise.mlir");
        let compiled = fused(&kernel);
        let run = |k: &GmKernel, args: &[GmArg]| match evaluate_gm(k, args) {
            Ok(eval) => GmRun {
                memrefs: eval.memrefs,
                fault: None,
            },
            Err(e) => panic!("{e}"),
        };
        assert_eq!(
            verify_gm_kernel(&kernel, 4, 7, &[], |args| run(&compiled, args)),
            None
        );
        let mismatch = verify_gm_kernel(&kernel, 4, 7, &[], |args| {
            let mut out = run(&compiled, args);
            if let Some(Some(y)) = out.memrefs.get_mut(1) {
                y[3 * 16 + 5] ^= 1;
            }
            out
        })
        .expect("a flipped bit is a mismatch");
        let GmDiscrepancy::Element {
            memref,
            element,
            compiled: got,
            reference,
            ..
        } = &mismatch.discrepancy
        else {
            panic!("{mismatch}");
        };
        assert_eq!((memref.as_str(), *element), ("y", (3, 5)));
        assert_eq!(got ^ reference, 1);
        assert!(mismatch
            .to_string()
            .starts_with("trial 0: memref %y element [3, 5]"));
        // The compiled side may leave out the memref the kernel only reads, not the stored one.
        let compiled = &compiled;
        let drop = |i: usize| {
            move |args: &[GmArg]| {
                let mut out = run(compiled, args);
                out.memrefs[i] = None;
                out
            }
        };
        assert_eq!(verify_gm_kernel(&kernel, 2, 7, &[], drop(0)), None);
        let missing = verify_gm_kernel(&kernel, 2, 7, &[], drop(1)).map(|m| m.to_string());
        assert_eq!(
            missing.as_deref(),
            Some("trial 0: memref %y is missing on one side")
        );
        // A compiled kernel that faults where the source runs.
        let faults = verify_gm_kernel(&kernel, 1, 7, &[], |_| GmRun {
            memrefs: Vec::new(),
            fault: Some(Fault {
                class: FaultClass::DataPage,
                bundle: 3,
                pc: 0,
                address: Some(0x1000),
                message: "unmapped".into(),
            }),
        });
        assert!(matches!(
            faults.map(|m| m.discrepancy),
            Some(GmDiscrepancy::CompiledFaults { .. })
        ));
    }
}

/// Random arguments for a linalg program: every tensor element and scalar random under
/// `profile`, as for tiles; elements without a DataType (`index`, `i1`) are 0.
pub fn random_linalg_args(
    program: &Program,
    rng: &mut StdRng,
    profile: InputProfile,
) -> Vec<LinalgArg> {
    let element = |rng: &mut StdRng, elem: Elem| match elem.data() {
        Some(t) => random_element(rng, t, &edge_values(t), profile),
        None => 0,
    };
    program
        .args
        .iter()
        .map(|&id| match program.ty(id) {
            LType::Tensor(t) => {
                let bits = (0..t.len()).map(|_| element(rng, t.elem)).collect();
                LinalgArg::Tensor(LinalgTensor::new(t.shape.clone(), t.elem, bits))
            }
            LType::Scalar(e) => LinalgArg::Scalar(element(rng, *e)),
        })
        .collect()
}

/// Check `kernel`, compiled from the linalg `program` by `convert-linalg-to-pto` (its arguments
/// are the program's, then one memref `rK` per result), against the reference evaluator of the
/// **linalg program** ([`evaluate_linalg_with`] under `options`, the meaning the compile options
/// allow) on `trials` random argument sets (trial `t` under [`InputProfile::of_trial`]): every result element bit for bit, NaN payloads
/// included; elements the program leaves undefined (poison) are not compared. Inputs on which
/// the program divides by zero (undefined behaviour in MLIR) prove nothing and are skipped.
pub fn verify_compiled_linalg_kernel(
    kernel: &Kernel,
    program: &Program,
    trials: u32,
    seed: u64,
    options: LinalgOptions,
) -> Result<Option<Mismatch>, ExecError> {
    crate::exec::check_gm_size(kernel)?;
    let mut rng = StdRng::seed_from_u64(seed);
    let mismatch = |trial, discrepancy, result, element| Mismatch {
        trial,
        result,
        op: None,
        location: Some(program.loc.clone()),
        element,
        discrepancy,
        inputs: Vec::new(),
    };
    for trial in 0..trials {
        let args = random_linalg_args(program, &mut rng, InputProfile::of_trial(trial));
        let reference = match evaluate_linalg_with(program, &args, options) {
            Ok(results) => results,
            Err(EvalError::Op { .. }) => continue,
            Err(e) => {
                let reason = e.to_string();
                return Ok(Some(mismatch(
                    trial,
                    Discrepancy::SourceFails { reason },
                    None,
                    None,
                )));
            }
        };
        let mut inputs: Vec<Vec<u64>> = args
            .iter()
            .map(|a| match a {
                LinalgArg::Tensor(t) => t.bits.clone(),
                LinalgArg::Scalar(bits) => vec![*bits],
            })
            .collect();
        inputs.extend(reference.iter().map(|r| vec![0; r.len()]));
        let run = execute(kernel, &inputs)?;
        if let Some(fault) = run.fault {
            let discrepancy = Discrepancy::CompiledFaults {
                class: fault.class,
                bundle: fault.bundle,
                reason: fault.message,
            };
            return Ok(Some(mismatch(trial, discrepancy, None, None)));
        }
        let stored: Vec<(&str, &Vec<u64>)> = kernel
            .meta
            .memrefs
            .iter()
            .filter(|m| m.is_output())
            .map(|m| m.name.as_str())
            .zip(&run.memrefs)
            .collect();
        for (k, want) in reference.iter().enumerate() {
            let name = format!("r{k}");
            let Some((_, got)) = stored.iter().find(|(n, _)| *n == name) else {
                let reason = format!("the compiled kernel does not store result {name}");
                return Ok(Some(mismatch(
                    trial,
                    Discrepancy::SourceFails { reason },
                    None,
                    None,
                )));
            };
            let cols = want.shape.last().copied().unwrap_or(1).max(1) as usize;
            let differs =
                (0..want.len()).find(|&i| !want.poison[i] && got.get(i) != Some(&want.bits[i]));
            if let Some(i) = differs {
                let dtype = want.elem.data().unwrap_or(DataType::U64);
                let discrepancy = Discrepancy::Element {
                    element: ElementType {
                        storage: Storage::Numeric,
                        dtype,
                    },
                    compiled: got.get(i).copied(),
                    reference: Some(want.bits[i]),
                };
                return Ok(Some(mismatch(
                    trial,
                    discrepancy,
                    Some((k, name)),
                    Some((i / cols, i % cols)),
                )));
            }
        }
    }
    Ok(None)
}
