//! `ptoc._ptoc`, the native half of the Python package: compile, run and verify on buffers.
//!
//! `ptoc/__init__.py` turns numpy arrays into (name, dtype, shape, bytes) tuples and back (Python
//! numbers for scalar arguments pass as they are), and defines the exception classes this module
//! raises. Every function copies its arguments into
//! Rust values, then releases the GIL for the whole compile or run (`Python::detach`), so calls
//! from many threads run in parallel; each call builds its own driver, sharing nothing.

#![warn(missing_docs)]

use ptoc::codegen::metadata::ArgRef;
use ptoc::codegen::Kernel;
use ptoc::exec::Number;
use ptoc::ir::Source;
use ptoc::isa::profile::NamingModel;
use ptoc::tensor::ElementType;
use ptoc::{CompileError, Driver, Error, ExecError, Options, Tensor, VerifyError};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

/// The Python exception for a library error, built from the classes in `ptoc._errors`.
fn to_py(py: Python<'_>, error: Error) -> PyErr {
    match raise(py, error) {
        Ok(err) | Err(err) => err,
    }
}

fn raise(py: Python<'_>, error: Error) -> PyResult<PyErr> {
    let errors = py.import("ptoc._errors")?;
    let message = error.to_string();
    let instance = match error {
        Error::Compile(CompileError { diagnostics }) => {
            let class = errors.getattr("Diagnostic")?;
            let list = PyList::empty(py);
            for d in &diagnostics {
                let entries =
                    std::iter::once((&d.loc, d.severity.name(), &d.message, d.rule, d.fault))
                        .chain(
                            d.notes
                                .iter()
                                .map(|(loc, note)| (loc, "note", note, None, None)),
                        );
                for (loc, severity, text, rule, fault) in entries {
                    let kw = PyDict::new(py);
                    kw.set_item("file", loc.file.as_deref().unwrap_or(""))?;
                    kw.set_item("line", loc.line)?;
                    kw.set_item("col", loc.col)?;
                    kw.set_item("severity", severity)?;
                    kw.set_item("message", text)?;
                    kw.set_item("rule", rule)?;
                    kw.set_item("fault", fault.map(|f| f.name()))?;
                    list.append(class.call((), Some(&kw))?)?;
                }
            }
            errors.getattr("CompileError")?.call1((message, list))?
        }
        Error::Verify(VerifyError::Mismatch { kernel, mismatch }) => {
            let (compiled, reference) = mismatch.discrepancy.values();
            let loc = mismatch.location.clone().unwrap_or_default();
            let inputs = PyList::empty(py);
            for e in &mismatch.inputs {
                let kw = PyDict::new(py);
                kw.set_item("argument", &e.argument)?;
                kw.set_item("row", e.row)?;
                kw.set_item("col", e.col)?;
                kw.set_item("dtype", e.element.mlir_name())?;
                kw.set_item("bits", e.bits)?;
                inputs.append(kw)?;
            }
            let kw = PyDict::new(py);
            kw.set_item("kernel", kernel)?;
            kw.set_item("trial", mismatch.trial)?;
            kw.set_item("result", mismatch.result.as_ref().map(|(_, n)| n.as_str()))?;
            kw.set_item("op", mismatch.op.as_deref())?;
            kw.set_item("file", loc.file.as_deref())?;
            kw.set_item("line", mismatch.location.as_ref().map(|l| l.line))?;
            kw.set_item("col", mismatch.location.as_ref().map(|l| l.col))?;
            kw.set_item("element", mismatch.element)?;
            kw.set_item("compiled", compiled)?;
            kw.set_item("reference", reference)?;
            kw.set_item("inputs", inputs)?;
            errors.getattr("VerifyError")?.call((message,), Some(&kw))?
        }
        Error::Verify(VerifyError::Compile(e)) => return raise(py, Error::Compile(e)),
        Error::Verify(VerifyError::Exec(e)) | Error::Exec(e) => match e {
            ExecError::Fault {
                class,
                bundle,
                address,
                reason,
                flags,
            } => errors.getattr("FaultError")?.call1((
                message,
                class.name(),
                bundle,
                reason,
                flags,
                address,
            ))?,
            _ => errors.getattr("RunError")?.call1((message,))?,
        },
        Error::Options(_) | Error::Tensor(_) => return Ok(PyValueError::new_err(message)),
    };
    Ok(PyErr::from_value(instance))
}

/// `ptoc.compile`: the output as bytes (`obj`) or text. `semantics` is `(assume_no_nans,
/// allow_reassociation, strip_assertions)`, the linalg meaning options.
#[pyfunction]
#[pyo3(signature = (source, filename, emit, opt_level, pipeline, pe_mask, target_profile, semantics))]
#[allow(clippy::too_many_arguments)]
fn compile(
    py: Python<'_>,
    source: String,
    filename: String,
    emit: String,
    opt_level: u8,
    pipeline: Option<String>,
    pe_mask: String,
    target_profile: Option<String>,
    semantics: (bool, bool, bool),
) -> PyResult<Py<PyAny>> {
    let profile = match target_profile.as_deref() {
        None => None,
        Some(name) => Some(NamingModel::from_name(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "'{name}' is not a target profile; use queue or absolute"
            ))
        })?),
    };
    let compiled = py.detach(|| -> Result<(Vec<u8>, bool), Error> {
        let mut options = Options::from_names(&emit, opt_level, pipeline.as_deref(), &pe_mask)?;
        if let Some(profile) = profile {
            options.pass_options.target_profile = profile;
        }
        with_semantics(&mut options, semantics);
        let text = options.emit.is_text();
        let driver = Driver::new(options)?;
        Ok((driver.compile(&Source::new(&source, &filename))?, text))
    });
    match compiled {
        Ok((bytes, true)) => {
            let text = String::from_utf8(bytes)
                .map_err(|e| PyRuntimeError::new_err(format!("ptoc wrote non-UTF-8 text: {e}")))?;
            Ok(text.into_pyobject(py)?.into_any().unbind())
        }
        Ok((bytes, false)) => Ok(PyBytes::new(py, &bytes).into_any().unbind()),
        Err(e) => Err(to_py(py, e)),
    }
}

/// `ptoc.assemble`: the ELF object of PTO assembly text, as `ptoc asm` writes it.
#[pyfunction]
#[pyo3(signature = (source, filename))]
fn assemble(py: Python<'_>, source: String, filename: String) -> PyResult<Py<PyBytes>> {
    let object = py.detach(|| ptoc::assemble(&Source::new(&source, &filename)));
    match object {
        Ok(bytes) => Ok(PyBytes::new(py, &bytes).unbind()),
        Err(e) => Err(to_py(py, Error::Compile(e))),
    }
}

/// A Python number for a scalar argument: an `int` (`bool` included) or a `float`.
#[derive(FromPyObject)]
enum PyNumber {
    Int(i128),
    Float(f64),
}

/// One input as the Python side passes it: argument name, dtype name, shape, bytes.
type Input = (String, String, Vec<u64>, Vec<u8>);
/// One result: name, dtype name, rows, cols, bytes.
type Output = (String, &'static str, u32, u32, Vec<u8>);

/// One result as Python gets it.
type PyOutput = (String, &'static str, u32, u32, Py<PyBytes>);

/// `ptoc.run`: `(flags, [(name, dtype, rows, cols, bytes)], [the same for stored memrefs])`.
/// `numbers` are Python numbers for scalar arguments, by name.
#[pyfunction]
#[pyo3(signature = (kernel, inputs, numbers, function, filename))]
fn run(
    py: Python<'_>,
    kernel: &Bound<'_, PyAny>,
    inputs: Vec<(String, String, Vec<u64>, Bound<'_, PyBytes>)>,
    numbers: Vec<(String, PyNumber)>,
    function: Option<String>,
    filename: String,
) -> PyResult<(u8, Vec<PyOutput>, Vec<PyOutput>)> {
    let kernel: Vec<u8> = match kernel.cast::<PyBytes>() {
        Ok(bytes) => bytes.as_bytes().to_vec(),
        Err(_) => kernel.extract::<String>()?.into_bytes(),
    };
    let inputs: Vec<Input> = inputs
        .into_iter()
        .map(|(name, dtype, shape, data)| (name, dtype, shape, data.as_bytes().to_vec()))
        .collect();
    let numbers: Vec<(String, Number)> = numbers
        .into_iter()
        .map(|(name, n)| {
            let n = match n {
                PyNumber::Int(i) => Number::Int(i),
                PyNumber::Float(f) => Number::Float(f),
            };
            (name, n)
        })
        .collect();
    let ran = py.detach(|| run_inputs(&kernel, &filename, function.as_deref(), &inputs, &numbers));
    let (flags, results, memrefs) = ran.map_err(|e| to_py(py, e))?;
    let to_py_outputs = |outputs: Vec<Output>| -> Vec<PyOutput> {
        outputs
            .into_iter()
            .map(|(name, dtype, rows, cols, data)| {
                (name, dtype, rows, cols, PyBytes::new(py, &data).unbind())
            })
            .collect()
    };
    Ok((flags, to_py_outputs(results), to_py_outputs(memrefs)))
}

fn run_inputs(
    kernel: &[u8],
    filename: &str,
    function: Option<&str>,
    inputs: &[Input],
    numbers: &[(String, Number)],
) -> Result<(u8, Vec<Output>, Vec<Output>), Error> {
    let driver = Driver::new(Options::default())?;
    let kernels = driver.load_kernels(kernel, filename)?;
    let kernel = ptoc::select_kernel(&kernels, function)?;
    let mut tensors = inputs
        .iter()
        .map(|(name, dtype, shape, data)| {
            input_tensor(kernel, name, dtype, shape, data).map(|t| (name.as_str(), t))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    for (name, number) in numbers {
        tensors.push((name, scalar_tensor(kernel, name, *number)?));
    }
    let named: Vec<(&str, &Tensor)> = tensors.iter().map(|(name, t)| (*name, t)).collect();
    let outputs = ptoc::run_named(kernel, &named)?;
    let list = |tensors: Vec<(String, Tensor)>| -> Vec<Output> {
        tensors
            .into_iter()
            .map(|(name, t)| {
                let dtype = t.element_type().mlir_name();
                (name, dtype, t.rows(), t.cols(), t.to_bytes())
            })
            .collect()
    };
    Ok((outputs.flags, list(outputs.results), list(outputs.memrefs)))
}

/// The 1×1 tensor of a Python number given for the scalar argument `name`.
fn scalar_tensor(kernel: &Kernel, name: &str, number: Number) -> Result<Tensor, Error> {
    let refused = |arg: ArgRef, reason: String| {
        Error::Exec(ExecError::Load {
            argument: ptoc::exec::describe_argument(kernel, arg),
            reason,
        })
    };
    let (_, arg) = ptoc::exec::named_argument(kernel, name)?;
    let ty = match arg {
        ArgRef::Scalar(i) => kernel.meta.scalars[i].ty,
        ArgRef::Tile(_) | ArgRef::MemRef(_) => {
            return Err(refused(arg, "takes an array, not a number".into()))
        }
    };
    let bits = ptoc::exec::scalar_bits(ty, number).map_err(|e| refused(arg, e))?;
    let (_, element) = ptoc::exec::argument_input(kernel, arg);
    Ok(Tensor::from_bits(element, 1, 1, vec![bits])?)
}

/// The tensor of one input: a 2-D array is its own shape; a 1-D one takes its argument's shape
/// (a tile's valid region, a memref's) when it has that many elements (as `ptoc run` reads a
/// 1-D `.npy`); so does an array of 3 or more dimensions (a linalg program's batch dimensions
/// merge into rows, README "linalg-on-tensors input", which is its row-major order); a 0-D one
/// (a numpy scalar) is 1×1.
fn input_tensor(
    kernel: &Kernel,
    name: &str,
    dtype: &str,
    shape: &[u64],
    data: &[u8],
) -> Result<Tensor, Error> {
    let bad = |message: String| {
        Error::Exec(ExecError::Load {
            argument: format!("'{name}'"),
            reason: message,
        })
    };
    let element = ElementType::parse(dtype)
        .ok_or_else(|| bad(format!("numpy dtype {dtype} holds no ptoc element type")))?;
    let narrow = |n: u64| u32::try_from(n).map_err(|_| bad(format!("dimension {n} is too large")));
    let argument_shape = |n: u64| {
        ptoc::exec::named_argument(kernel, name)
            .ok()
            .map(|(_, arg)| ptoc::exec::argument_input(kernel, arg).0)
            .filter(|&(r, c)| r as u64 * c as u64 == n)
    };
    let (rows, cols) = match *shape {
        [rows, cols] => (narrow(rows)?, narrow(cols)?),
        [n] => match argument_shape(n) {
            Some(shape) => shape,
            None => (1, narrow(n)?),
        },
        [] => (1, 1),
        _ => {
            let n = shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
            n.and_then(argument_shape).ok_or_else(|| {
                bad(format!(
                    "a {}-D array whose elements are not the argument's; give the valid region \
                     as a 2-D (or 1-D) array, or a linalg tensor in its own shape",
                    shape.len()
                ))
            })?
        }
    };
    Ok(Tensor::from_bytes(element, rows, cols, data)?)
}

/// The linalg meaning options `(assume_no_nans, allow_reassociation, strip_assertions)` set on
/// `options`.
fn with_semantics(
    options: &mut Options,
    (assume_no_nans, allow_reassociation, strip_assertions): (bool, bool, bool),
) {
    options.pass_options.assume_no_nans = assume_no_nans;
    options.pass_options.allow_reassociation = allow_reassociation;
    options.pass_options.strip_assertions = strip_assertions;
}

/// `ptoc.verify`: `None`, or raises `VerifyError` / `CompileError`.
#[pyfunction]
#[pyo3(signature = (source, filename, trials, seed, opt_level, semantics))]
fn verify(
    py: Python<'_>,
    source: String,
    filename: String,
    trials: u32,
    seed: u64,
    opt_level: u8,
    semantics: (bool, bool, bool),
) -> PyResult<()> {
    py.detach(|| -> Result<(), Error> {
        let mut options = Options::from_names("obj", opt_level, None, "1111")?;
        with_semantics(&mut options, semantics);
        let driver = Driver::new(options)?;
        Ok(driver.verify(&Source::new(&source, &filename), trials, seed)?)
    })
    .map_err(|e| to_py(py, e))
}

/// Check the compiled kernel `kernel` against the reference evaluator of another function of
/// the same source, `reference` (a hand-optimised variant against its plain meaning); raises
/// `VerifyError` at the first disagreement. `ptoc.verify` is this with each kernel against
/// itself.
#[pyfunction]
#[pyo3(signature = (source, filename, kernel, reference, trials, seed))]
fn verify_against(
    py: Python<'_>,
    source: String,
    filename: String,
    kernel: String,
    reference: String,
    trials: u32,
    seed: u64,
) -> PyResult<()> {
    py.detach(|| -> Result<(), Error> {
        let driver = Driver::new(Options::default())?;
        let module = driver
            .import(&Source::new(&source, &filename))
            .map_err(CompileError::from)?;
        let kernels = driver
            .compile_kernels(&module)
            .map_err(CompileError::from)?;
        let functions = driver
            .reference_module(&module)
            .map_err(CompileError::from)?;
        let compiled = ptoc::select_kernel(&kernels, Some(&kernel))?;
        let function = functions
            .functions
            .iter()
            .find(|f| f.name == reference)
            .ok_or_else(|| ExecError::NoSuchKernel(format!("no function @{reference}")))?;
        match ptoc::verify::verify_kernel(compiled, function, trials, seed)? {
            None => Ok(()),
            Some(mismatch) => Err(Error::Verify(VerifyError::Mismatch {
                kernel,
                mismatch: Box::new(mismatch),
            })),
        }
    })
    .map_err(|e| to_py(py, e))
}

/// The native module.
#[pymodule]
fn _ptoc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(assemble, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(verify_against, m)?)?;
    Ok(())
}
