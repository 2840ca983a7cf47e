//! Executing compiled kernels and checking them against their source.
//!
//! [`execute`] is the loader + interpreter: argument tiles go into the registers the kernel's
//! metadata names (the kernel ABI), the words run, results are read from their registers.
//! [`verify_kernel`] runs a compiled kernel and the reference evaluator (on the unoptimised
//! source) on the same random inputs, edge values included, and compares every result bit for bit.

use ptoc_codegen::{quote_name, Kernel, TileMeta};
use ptoc_ir::{Function, Location};
use ptoc_isa::{DataType, PadValue, Storage, TypeClass};
use ptoc_runtime::numerics::Flags;
use ptoc_runtime::tile::ShapeError;
use ptoc_runtime::{evaluate_with_flags, Fault, Machine, Tile};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// What a run produced: the fault (if any), the sticky flags and each result tile.
#[derive(Debug)]
pub struct Run {
    pub fault: Option<Fault>,
    pub flags: Flags,
    pub results: Vec<Tile>,
}

/// The index of the argument `name` names: its position (`0`) or its source name (`x`).
pub fn argument_index(kernel: &Kernel, name: &str) -> Option<usize> {
    let args = &kernel.meta.args;
    args.iter()
        .position(|a| a.name == name)
        .or_else(|| name.parse().ok().filter(|&i: &usize| i < args.len()))
}

/// Load `inputs` (the valid-region carriers of each argument, in order) and run the kernel.
pub fn execute(kernel: &Kernel, inputs: &[Vec<u64>]) -> Result<Run, String> {
    if inputs.len() != kernel.meta.args.len() {
        return Err(format!(
            "kernel '{}' takes {} arguments, {} given",
            kernel.name,
            kernel.meta.args.len(),
            inputs.len()
        ));
    }
    let mut machine = Machine::with_naming(kernel.meta.profile);
    for (meta, values) in kernel.meta.args.iter().zip(inputs) {
        let valid = (meta.valid_rows, meta.valid_cols);
        let tile = match meta.storage {
            Storage::Numeric => {
                Tile::allocated(meta.dtype, meta.size_code, meta.cols, valid.0, valid.1)
            }
            // A predicate argument is given unpacked, one 0 or 1 per valid element.
            Storage::Predicate => match values.iter().find(|&&v| v > 1) {
                Some(v) => Err(ShapeError(format!(
                    "a predicate element is 0 or 1, not {v}"
                ))),
                None => Tile::allocated_predicate(meta.size_code, (meta.rows, meta.cols), valid),
            },
        }
        .and_then(|t| t.with_valid_values(values))
        .map_err(|e| format!("argument '{}': {e}", meta.name))?;
        machine
            .load_with_mask(meta.register, tile, kernel.meta.pe_mask)
            .map_err(|e| format!("argument '{}': {e}", meta.name))?;
    }
    let fault = machine.run(&kernel.words()).err();
    let results = kernel
        .meta
        .results
        .iter()
        .map(|meta| {
            machine.tile(meta.register).cloned().ok_or_else(|| {
                format!(
                    "result '{}' was never written to {}",
                    meta.name, meta.register
                )
            })
        })
        .collect::<Result<Vec<_>, _>>();
    match (fault, results) {
        (Some(fault), _) => Ok(Run {
            fault: Some(fault),
            flags: machine.flags(),
            results: Vec::new(),
        }),
        (None, results) => Ok(Run {
            fault: None,
            flags: machine.flags(),
            results: results?,
        }),
    }
}

fn hex(dtype: DataType, bits: u64) -> String {
    format!(
        "0x{:0width$x}",
        bits,
        width = (dtype.bits() as usize).div_ceil(4)
    )
}

/// The JSON report of a run (README, Running kernels); fields serialise in this order.
#[derive(Debug, serde::Serialize)]
pub struct RunReport {
    pub kernel: String,
    pub status: &'static str,
    pub flags: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<FaultReport>,
    pub results: Vec<ResultReport>,
}

#[derive(Debug, serde::Serialize)]
pub struct FaultReport {
    pub class: &'static str,
    pub bundle: usize,
    pub message: String,
}

/// One result tile: the whole physical tile row-major, `null` where undefined.
#[derive(Debug, serde::Serialize)]
pub struct ResultReport {
    pub name: String,
    pub register: String,
    pub dtype: &'static str,
    pub rows: u32,
    pub cols: u32,
    pub valid_rows: u32,
    pub valid_cols: u32,
    pub size_code: u32,
    pub elements: Vec<Option<String>>,
}

/// The run as the JSON report of the README's Running kernels section.
pub fn run_report(kernel: &Kernel, run: &Run) -> RunReport {
    RunReport {
        kernel: kernel.name.clone(),
        status: if run.fault.is_some() { "fault" } else { "ok" },
        flags: format!("0x{:02x}", run.flags),
        fault: run.fault.as_ref().map(|f| FaultReport {
            class: f.class.name(),
            bundle: f.bundle,
            message: f.message.clone(),
        }),
        results: kernel
            .meta
            .results
            .iter()
            .zip(&run.results)
            .map(|(meta, tile)| ResultReport {
                name: meta.name.clone(),
                register: meta.register.to_string(),
                dtype: meta.type_name(),
                rows: tile.rows,
                cols: tile.cols,
                valid_rows: tile.valid_rows,
                valid_cols: tile.valid_cols,
                size_code: meta.size_code.code(),
                elements: (0..tile.len())
                    .map(|i| tile.is_defined(i).then(|| hex(tile.dtype, tile.bits(i))))
                    .collect(),
            })
            .collect(),
    }
}

/// One element as a person reads it: a number (through the float formats' exact value) and, for
/// floats, its bit pattern.
pub fn format_element(dtype: DataType, bits: u64) -> String {
    match dtype.class() {
        TypeClass::Signed => {
            let shift = 64 - dtype.bits();
            (((bits << shift) as i64) >> shift).to_string()
        }
        TypeClass::Unsigned => bits.to_string(),
        // The `half` types print their own shortest decimal; every other float widens exactly
        // to f32 (f64 for FP64) and prints as that.
        TypeClass::Float => match dtype {
            DataType::FP16 => half::f16::from_bits(bits as u16).to_string(),
            DataType::BF16 => half::bf16::from_bits(bits as u16).to_string(),
            _ => match ptoc_runtime::numerics::format::format_of(dtype)
                .map(|f| ptoc_runtime::numerics::round::to_f64(f, bits))
            {
                Some(v) if dtype == DataType::FP64 => v.to_string(),
                Some(v) => (v as f32).to_string(),
                None => hex(dtype, bits),
            },
        },
        TypeClass::Other => hex(dtype, bits),
    }
}

/// The valid region of each result as text, one row per line.
pub fn run_text(kernel: &Kernel, run: &Run) -> String {
    let mut out = String::new();
    if let Some(fault) = &run.fault {
        out.push_str(&format!(
            "kernel {}: fault: {fault}\n",
            quote_name(&kernel.name)
        ));
        return out;
    }
    let names = match run.flags {
        0 => String::new(),
        f => format!(" ({})", ptoc_runtime::numerics::flag_names(f)),
    };
    out.push_str(&format!(
        "kernel {}: ok, flags 0x{:02x}{names}\n",
        quote_name(&kernel.name),
        run.flags
    ));
    for (meta, tile) in kernel.meta.results.iter().zip(&run.results) {
        out.push_str(&format!(
            "{} = {} {} {}x{} (valid {}x{})\n",
            meta.name,
            meta.register,
            tile.dtype,
            tile.rows,
            tile.cols,
            tile.valid_rows,
            tile.valid_cols
        ));
        for r in 0..tile.valid_rows as usize {
            let row: Vec<String> = (0..tile.valid_cols as usize)
                .map(|c| format_element(tile.dtype, tile.bits(tile.index(r, c))))
                .collect();
            out.push_str(&format!("  [{}]\n", row.join(", ")));
        }
    }
    out
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
pub fn random_inputs(kernel: &Kernel, rng: &mut StdRng) -> Vec<Vec<u64>> {
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

/// The first disagreement between a compiled kernel and its source.
#[derive(Debug)]
pub struct Mismatch {
    pub trial: u32,
    pub message: String,
}

/// Run `kernel` and the reference evaluator of `source` (the unoptimised function it was compiled
/// from) on `trials` random inputs; the first disagreement, if any.
pub fn verify_kernel(
    kernel: &Kernel,
    source: &Function,
    trials: u32,
    seed: u64,
) -> Result<Option<Mismatch>, String> {
    let mut rng = StdRng::seed_from_u64(seed);
    for trial in 0..trials {
        let inputs = random_inputs(kernel, &mut rng);
        let compiled = execute(kernel, &inputs)?;
        let args: Vec<Tile> = source
            .args
            .iter()
            .zip(&inputs)
            .map(|(&id, values)| {
                let ty = source.ty(id);
                let (rows, cols, vr, vc) = ty.dims().ok_or("argument with a '?' dimension")?;
                match ty.storage {
                    Storage::Numeric => Tile::new(ty.dtype, rows, cols, vr, vc),
                    Storage::Predicate => Tile::predicate(rows, cols, vr, vc),
                }
                .and_then(|t| t.with_valid_values(values))
                .map_err(|e| e.to_string())
            })
            .collect::<Result<_, String>>()?;
        let reference = evaluate_with_flags(source, &args);
        let describe_inputs = |r: usize, c: usize| -> String {
            kernel
                .meta
                .args
                .iter()
                .zip(&inputs)
                .map(|(a, values)| {
                    let (rr, cc) = (
                        r.min(a.valid_rows as usize - 1),
                        c.min(a.valid_cols as usize - 1),
                    );
                    let bits = values[rr * a.valid_cols as usize + cc];
                    format!(
                        "%{}[{rr},{cc}] = {} ({})",
                        a.name,
                        hex(a.dtype, bits),
                        format_element(a.dtype, bits)
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let message = match (&compiled.fault, reference) {
            (Some(_), Err(_)) => None,
            (Some(fault), Ok(_)) => Some(format!(
                "the compiled kernel faults ({fault}) where the source evaluates; inputs at [0,0]: {}",
                describe_inputs(0, 0)
            )),
            (None, Err(e)) => Some(format!(
                "the source fails ({e}) where the compiled kernel runs; inputs at [0,0]: {}",
                describe_inputs(0, 0)
            )),
            (None, Ok(eval)) => compare(kernel, source, &compiled, &eval.results, eval.flags)
                .map(|(msg, r, c)| format!("{msg}; inputs: {}", describe_inputs(r, c))),
        };
        if let Some(message) = message {
            return Ok(Some(Mismatch { trial, message }));
        }
    }
    Ok(None)
}

/// The first differing element (valid region, then padding the reference defines) or flags.
fn compare(
    kernel: &Kernel,
    source: &Function,
    compiled: &Run,
    reference: &[Tile],
    ref_flags: Flags,
) -> Option<(String, usize, usize)> {
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
            .map(|&v| describe_value(source, v))
            .unwrap_or_default();
        if (got.valid_rows, got.valid_cols) != (want.valid_rows, want.valid_cols) {
            return Some((
                format!(
                    "result #{i} ({}){origin}: valid shape {}x{} compiled, {}x{} in the source",
                    meta.name, got.valid_rows, got.valid_cols, want.valid_rows, want.valid_cols
                ),
                0,
                0,
            ));
        }
        for r in 0..want.rows.min(got.rows) as usize {
            for c in 0..want.cols.min(got.cols) as usize {
                let (g, w) = (got.index(r, c), want.index(r, c));
                let same = match (got.is_defined(g), want.is_defined(w)) {
                    (true, true) => got.bits(g) == want.bits(w),
                    (d1, d2) => d1 == d2,
                };
                if !same {
                    let show = |t: &Tile, k: usize| {
                        if t.is_defined(k) {
                            format!(
                                "{} ({})",
                                hex(t.dtype, t.bits(k)),
                                format_element(t.dtype, t.bits(k))
                            )
                        } else {
                            "undefined".to_string()
                        }
                    };
                    return Some((
                        format!(
                            "result #{i} ({}){origin}, element [{r},{c}]: compiled {}, reference {}",
                            meta.name,
                            show(got, g),
                            show(want, w)
                        ),
                        r,
                        c,
                    ));
                }
            }
        }
    }
    (compiled.flags != ref_flags).then(|| {
        (
            format!(
                "status flags: compiled 0x{:02x}, reference 0x{:02x}",
                compiled.flags, ref_flags
            ),
            0,
            0,
        )
    })
}

/// ` = pto.op at file:line:col` for the op that defines `value` in the source.
fn describe_value(func: &Function, value: ptoc_ir::ValueId) -> String {
    match func.def_op(value) {
        Some(op) => format!(" = {} at {}", op.info.mlir_name(), op.loc),
        None => format!(" = argument at {}", Location::clone(&func.loc)),
    }
}

/// The metadata record of an argument or result, for error messages.
pub fn describe_tile(meta: &TileMeta) -> String {
    format!(
        "'{}' ({} {}x{} valid {}x{} in {})",
        meta.name,
        meta.type_name(),
        meta.rows,
        meta.cols,
        meta.valid_rows,
        meta.valid_cols,
        meta.register
    )
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
        // ...and the MAX kernel checked against the MIN source is caught, with the element, both
        // values and the inputs at that element.
        let mismatch = verify_kernel(&kernels[0], &reference.functions[1], 20, 1)
            .unwrap()
            .expect("max is not min");
        assert_eq!(mismatch.trial, 0);
        assert!(
            mismatch
                .message
                .contains("= pto.trowexpandmin at k.mlir:7:8, element [")
                && mismatch.message.contains("compiled 0x")
                && mismatch.message.contains("reference 0x")
                && mismatch.message.contains("inputs: %x["),
            "{}",
            mismatch.message
        );
    }

    #[test]
    fn element_formatting_uses_the_type() {
        assert_eq!(format_element(DataType::S8, 0xFF), "-1");
        assert_eq!(format_element(DataType::U8, 0xFF), "255");
        assert_eq!(format_element(DataType::FP32, 0x3FC0_0000), "1.5");
        assert_eq!(format_element(DataType::BF16, 0xC040), "-3");
        // 0x3555 is exactly 0.333251953125; half prints the shortest f32 decimal of it.
        assert_eq!(format_element(DataType::FP16, 0x3555), "0.33325195");
        assert_eq!(format_element(DataType::FP16, 0x7E00), "NaN");
        assert_eq!(format_element(DataType::E4M3, 0x7E), "448");
        assert_eq!(hex(DataType::FP16, 0x3C00), "0x3c00");
    }
}
