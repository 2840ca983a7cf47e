//! Checking compiled kernels against their source.
//!
//! [`verify_kernel`] runs a compiled kernel and the reference evaluator (on the unoptimised
//! source) on the same random inputs, edge values included, and compares every result element,
//! definedness bit and status flag. The first disagreement is a [`Mismatch`]: the op and
//! location that defines the result, the element, both values and the inputs at that element.

use crate::exec::{element_type, execute, format_element, hex, ExecError, Run};
use crate::tensor::ElementType;
use ptoc_codegen::Kernel;
use ptoc_ir::{Function, Location};
use ptoc_isa::{DataType, FaultClass, PadValue, Storage};
use ptoc_runtime::numerics::Flags;
use ptoc_runtime::{evaluate_with_flags, Tile};
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

/// A random valid-region carrier of `dtype`: an edge value one time in four, else random bits
/// (valid TF32/HF32 encodings, so the interesting cases are not all encoding faults).
fn random_element(rng: &mut StdRng, dtype: DataType, edges: &[u64]) -> u64 {
    if rng.gen_ratio(1, 4) {
        edges[rng.gen_range(0..edges.len())]
    } else {
        let low = dtype.required_zero_low_bits();
        (rng.gen::<u64>() & dtype.carrier_mask()) >> low << low
    }
}

/// Random inputs for every argument of `kernel`.
fn random_inputs(kernel: &Kernel, rng: &mut StdRng) -> Vec<Vec<u64>> {
    kernel
        .meta
        .args
        .iter()
        .map(|a| {
            let edges = edge_values(a.dtype);
            let n = a.valid_rows * a.valid_cols;
            match a.storage {
                Storage::Numeric => (0..n)
                    .map(|_| random_element(rng, a.dtype, &edges))
                    .collect(),
                Storage::Predicate => (0..n).map(|_| rng.gen_range(0..2u64)).collect(),
            }
        })
        .collect()
}

/// Run `kernel` and the reference evaluator of `source` (the unoptimised function it was compiled
/// from, see [`crate::Driver::reference_module`]) on `trials` random inputs; the first
/// disagreement, if any.
pub fn verify_kernel(
    kernel: &Kernel,
    source: &Function,
    trials: u32,
    seed: u64,
) -> Result<Option<Mismatch>, ExecError> {
    let mut rng = StdRng::seed_from_u64(seed);
    for trial in 0..trials {
        let inputs = random_inputs(kernel, &mut rng);
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
