//! Executing compiled kernels: the loader and the interpreter behind the kernel ABI.
//!
//! [`run`] and [`run_named`] take typed [`Tensor`]s (the valid region of each argument), place
//! them in the registers the kernel's metadata names, execute the words and read each result
//! back as a `Tensor`. [`execute`] is the same run on raw bit carriers, keeping the whole result
//! tiles and a fault as data (what `ptoc run --format json` reports); [`execute_observed`] is
//! that run watched every N bundles (a progress display). [`assemble`] turns hand-written PTO
//! assembly into an object these run, for kernels no MLIR source lowers to yet.

use crate::tensor::{ElementType, Tensor};
use crate::CompileError;
use ptoc_codegen::metadata::{gpr_name, ArgRef, MemRefMeta, ScalarType};
use ptoc_codegen::{read_elf, Kernel, TileMeta};
use ptoc_ir::{Diagnostic, Location, Source};
use ptoc_isa::{DataType, FaultClass, Storage, TypeClass};
use ptoc_runtime::numerics::Flags;
use ptoc_runtime::{Fault, Machine, ShapeError, Tile};
use std::borrow::Cow;

/// What a run produced: the fault (if any), the sticky status flags, each result tile and the
/// final contents of each GM argument the kernel stores to.
#[derive(Debug)]
pub struct Run {
    /// The fault the program raised; no result is read then.
    pub fault: Option<Fault>,
    /// The sticky status flags (`ptoc::runtime::numerics::{NV, DZ, OF, UF, NX}`).
    pub flags: Flags,
    /// Every result tile, whole (physical shape, padding and definedness), in metadata order.
    pub results: Vec<Tile>,
    /// Each output memref ([`MemRefMeta::is_output`]), in metadata order: its elements row-major.
    pub memrefs: Vec<Vec<u64>>,
}

/// Why a kernel could not be run, or what stopped it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExecError {
    /// The bytes are not an object ptoc can load.
    #[error("cannot load the object: {0}")]
    Object(String),
    /// The object (or source) holds no kernel of that name, or several and none was named.
    #[error("{0}")]
    NoSuchKernel(String),
    /// The number of inputs is not the number of arguments.
    #[error("kernel '{kernel}' takes {expected} arguments, {given} given")]
    ArgumentCount {
        /// The kernel's name.
        kernel: String,
        /// Its arguments.
        expected: usize,
        /// Inputs given.
        given: usize,
    },
    /// An input names no argument of the kernel.
    #[error("kernel '{kernel}' has no argument '{name}'; its arguments: {}", .known.join(", "))]
    UnknownArgument {
        /// The kernel's name.
        kernel: String,
        /// The name given.
        name: String,
        /// Its arguments, described.
        known: Vec<String>,
    },
    /// Two inputs name the same argument.
    #[error("argument {argument} is given twice")]
    DuplicateArgument {
        /// The argument, described.
        argument: String,
    },
    /// No input names an argument.
    #[error("no input for {}", .arguments.join(", "))]
    MissingArgument {
        /// The arguments without input, described.
        arguments: Vec<String>,
    },
    /// An input's shape is not its argument's valid region.
    #[error("argument {argument} takes a {}x{} valid region, the input is {}x{}", .expected.0, .expected.1, .given.0, .given.1)]
    Shape {
        /// The argument, described.
        argument: String,
        /// `(valid_rows, valid_cols)` of the argument.
        expected: (u32, u32),
        /// The input's `(rows, cols)`.
        given: (u32, u32),
    },
    /// An input's elements are neither of the argument's type nor its raw bits.
    #[error("argument {argument} holds {expected} elements; the input holds {given} (give {expected} values or raw bits as the unsigned integer of its width)")]
    DType {
        /// The argument, described.
        argument: String,
        /// The argument's element type.
        expected: ElementType,
        /// The input's element type.
        given: ElementType,
    },
    /// The loader refused an input (an invalid encoding, a register or capacity conflict).
    #[error("argument {argument}: {reason}")]
    Load {
        /// The argument, described.
        argument: String,
        /// What the loader said.
        reason: String,
    },
    /// The kernel's memrefs together need more global memory than the interpreter holds.
    #[error("kernel '{kernel}' needs {needed} bytes of global memory for its memrefs; the interpreter holds at most {limit} (exec::GM_LIMIT_BYTES)")]
    GmTooLarge {
        /// The kernel's name.
        kernel: String,
        /// The bytes its memrefs need together.
        needed: u128,
        /// [`GM_LIMIT_BYTES`].
        limit: u64,
    },
    /// The program faulted; no tile changed in the faulting bundle and no result is returned.
    #[error("{} in bundle {bundle}{}: {reason}", .class.name(), .address.map(|a| format!(" at GM address {a:#x}")).unwrap_or_default())]
    Fault {
        /// The fault class (`Fault_TileLegality`, `Fault_DataPage`, …).
        class: FaultClass,
        /// The index of the faulting bundle.
        bundle: usize,
        /// The GM byte address of the faulting element, for a GM fault (docs/isa.md §16).
        address: Option<u64>,
        /// Why.
        reason: String,
        /// The sticky status flags when it faulted.
        flags: Flags,
    },
    /// A result register was never written, or its valid region is not defined.
    #[error("result '{result}' {reason}")]
    Result {
        /// The result's name.
        result: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// The kernels of an ELF object written by ptoc (`Driver` with `Emit::Obj`, or `ptoc -o`).
pub fn load_object(bytes: &[u8]) -> Result<Vec<Kernel>, ExecError> {
    read_elf(bytes).map_err(|e| ExecError::Object(e.to_string()))
}

/// The ELF object of PTO assembly text (what `ptoc asm` writes): canonical syntax or the
/// spec's variants, with `.kernel`, `.profile`, `.memref`, `.scalar` … metadata directives
/// (codegen's METADATA.md). Errors are located in `source`.
pub fn assemble(source: &Source) -> Result<Vec<u8>, CompileError> {
    let kernels = ptoc_codegen::assemble(source.text, source.file)?;
    ptoc_codegen::write_elf(&kernels).map_err(|e| {
        let at = Location::new(source.file, source.first_line, 1);
        CompileError::from(vec![Diagnostic::error(at, e.to_string())])
    })
}

/// The kernel called `name`, or the only one when `name` is `None`.
pub fn select_kernel<'k>(
    kernels: &'k [Kernel],
    name: Option<&str>,
) -> Result<&'k Kernel, ExecError> {
    let names = || {
        let names: Vec<String> = kernels.iter().map(|k| quote(&k.name)).collect();
        names.join(", ")
    };
    match name {
        Some(name) => kernels.iter().find(|k| k.name == name).ok_or_else(|| {
            ExecError::NoSuchKernel(format!("no kernel {}; there are: {}", quote(name), names()))
        }),
        None if kernels.len() == 1 => Ok(&kernels[0]),
        None => Err(ExecError::NoSuchKernel(format!(
            "{} kernels ({}); name the one to run",
            kernels.len(),
            names()
        ))),
    }
}

/// `@name`, with control characters escaped (as `ptoc disasm` prints names).
fn quote(name: &str) -> String {
    ptoc_codegen::quote_name(name)
}

/// The position of the argument `name` names: its position (`0`) or its source name (`x`).
pub fn argument_index(kernel: &Kernel, name: &str) -> Option<usize> {
    let order = kernel.meta.argument_order();
    order
        .iter()
        .position(|&a| argument_name(kernel, a) == name)
        .or_else(|| name.parse().ok().filter(|&i: &usize| i < order.len()))
}

/// The argument `name` names (by source name or position) and its position, or
/// [`ExecError::UnknownArgument`] listing the kernel's arguments.
pub fn named_argument(kernel: &Kernel, name: &str) -> Result<(usize, ArgRef), ExecError> {
    let order = kernel.meta.argument_order();
    match argument_index(kernel, name) {
        Some(index) => Ok((index, order[index])),
        None => Err(ExecError::UnknownArgument {
            kernel: kernel.name.clone(),
            name: name.to_string(),
            known: order
                .iter()
                .map(|&a| describe_argument(kernel, a))
                .collect(),
        }),
    }
}

/// The source name of an argument.
pub fn argument_name(kernel: &Kernel, arg: ArgRef) -> &str {
    match arg {
        ArgRef::Tile(i) => &kernel.meta.args[i].name,
        ArgRef::MemRef(i) => &kernel.meta.memrefs[i].name,
        ArgRef::Scalar(i) => &kernel.meta.scalars[i].name,
    }
}

/// An argument for messages: `'x' (FP32 16x64 valid 16x64 in T#1)`, `'x' (FP32 memref 512x1024
/// in a0)`, `'n' (index in a1)`.
pub fn describe_argument(kernel: &Kernel, arg: ArgRef) -> String {
    match arg {
        ArgRef::Tile(i) => describe_tile(&kernel.meta.args[i]),
        ArgRef::MemRef(i) => describe_memref(&kernel.meta.memrefs[i]),
        ArgRef::Scalar(i) => {
            let s = &kernel.meta.scalars[i];
            format!("'{}' ({} in {})", s.name, s.ty.spec_name(), gpr_name(s.gpr))
        }
    }
}

/// `'x' (FP32 memref 512x1024 in a0)`.
pub fn describe_memref(m: &MemRefMeta) -> String {
    format!(
        "'{}' ({} memref {}x{} in {})",
        m.name,
        m.dtype,
        m.rows,
        m.cols,
        gpr_name(m.gpr)
    )
}

/// A memref's elements as the little-endian bytes of its GM buffer.
fn memref_bytes(m: &MemRefMeta, values: &[u64]) -> Vec<u8> {
    let width = m.dtype.bits() as usize / 8;
    values
        .iter()
        .flat_map(|v| v.to_le_bytes().into_iter().take(width))
        .collect()
}

/// A GM buffer's bytes as a memref's elements.
fn memref_values(m: &MemRefMeta, bytes: &[u8]) -> Vec<u64> {
    let width = m.dtype.bits() as usize / 8;
    bytes
        .chunks_exact(width)
        .map(|c| c.iter().rev().fold(0u64, |v, &b| (v << 8) | b as u64))
        .collect()
}

/// The kernel's arguments in position order, when `given` inputs are one per argument.
fn arguments(kernel: &Kernel, given: usize) -> Result<Vec<ArgRef>, ExecError> {
    let order = kernel.meta.argument_order();
    if given != order.len() {
        return Err(ExecError::ArgumentCount {
            kernel: kernel.name.clone(),
            expected: order.len(),
            given,
        });
    }
    Ok(order)
}

/// The most global memory one run's memrefs may hold together: 1 GiB. The interpreter keeps GM
/// in host memory, and a kernel nobody vetted may declare `memref<100000x100000xf64>`; a run
/// past this is refused before anything is allocated (a real device has its own GM).
pub const GM_LIMIT_BYTES: u64 = 1 << 30;

/// Refuse a kernel whose memrefs together need more than [`GM_LIMIT_BYTES`]; callers check
/// before allocating a memref's elements.
pub fn check_gm_size(kernel: &Kernel) -> Result<(), ExecError> {
    let needed: u128 = kernel
        .meta
        .memrefs
        .iter()
        .map(|m| u128::from(m.rows) * u128::from(m.cols) * u128::from(m.dtype.bits().div_ceil(8)))
        .sum();
    if needed > u128::from(GM_LIMIT_BYTES) {
        return Err(ExecError::GmTooLarge {
            kernel: kernel.name.clone(),
            needed,
            limit: GM_LIMIT_BYTES,
        });
    }
    Ok(())
}

/// Load `inputs` (one carrier vector per argument position: a tile's valid region, a memref's
/// `rows × cols` elements, a scalar's one value) and run the kernel. A fault is part of the
/// [`Run`]; errors are inputs the kernel cannot take.
pub fn execute(kernel: &Kernel, inputs: &[Vec<u64>]) -> Result<Run, ExecError> {
    execute_with(kernel, inputs, |machine, words| machine.run(words))
}

/// [`execute`], calling `observer` with the number of bundles started so far every `every`
/// bundles ([`Machine::run_observed`]); the run is the same.
pub fn execute_observed(
    kernel: &Kernel,
    inputs: &[Vec<u64>],
    every: usize,
    observer: impl FnMut(usize),
) -> Result<Run, ExecError> {
    execute_with(kernel, inputs, |machine, words| {
        machine.run_observed(words, every, observer)
    })
}

fn execute_with(
    kernel: &Kernel,
    inputs: &[Vec<u64>],
    run: impl FnOnce(&mut Machine, &[u32]) -> Result<(), Fault>,
) -> Result<Run, ExecError> {
    let order = arguments(kernel, inputs.len())?;
    check_gm_size(kernel)?;
    let mut machine = Machine::with_naming(kernel.meta.profile);
    let mut bases = vec![0u64; kernel.meta.memrefs.len()];
    let mut tiles = Vec::new();
    for (&arg, values) in order.iter().zip(inputs) {
        let refused = |reason: String| ExecError::Load {
            argument: describe_argument(kernel, arg),
            reason,
        };
        match arg {
            ArgRef::Tile(i) => tiles.push((&kernel.meta.args[i], values)),
            ArgRef::MemRef(i) => {
                let m = &kernel.meta.memrefs[i];
                let want = m.rows as usize * m.cols as usize;
                if values.len() != want {
                    return Err(refused(format!(
                        "{} elements given, {want} needed",
                        values.len()
                    )));
                }
                let base = machine.map_gm(memref_bytes(m, values));
                machine.set_gpr(m.gpr as usize, base);
                bases[i] = base;
            }
            ArgRef::Scalar(i) => {
                let s = &kernel.meta.scalars[i];
                let [value] = values[..] else {
                    return Err(refused(format!("{} values given, 1 needed", values.len())));
                };
                machine.set_gpr(s.gpr as usize, value);
            }
        }
    }
    // Workspaces follow the arguments, zero-filled (codegen/METADATA.md).
    for (i, m) in kernel.meta.memrefs.iter().enumerate() {
        if m.workspace {
            let zeros = vec![0; m.rows as usize * m.cols as usize];
            let base = machine.map_gm(memref_bytes(m, &zeros));
            machine.set_gpr(m.gpr as usize, base);
            bases[i] = base;
        }
    }
    // Tiles are loaded in argument order (queue naming pushes them in that order).
    for (meta, values) in tiles {
        let refused = |reason: String| ExecError::Load {
            argument: describe_tile(meta),
            reason,
        };
        let valid = (meta.valid_rows, meta.valid_cols);
        let tile = match meta.storage {
            Storage::Numeric if meta.layout.is_cube() => {
                Tile::cube(meta.dtype, meta.layout, Some(meta.size_code), valid)
            }
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
        .map_err(|e| refused(e.to_string()))?;
        machine
            .load_with_mask(meta.register, tile, kernel.meta.pe_mask)
            .map_err(|e| refused(e.to_string()))?;
    }
    let stored = |machine: &Machine| -> Vec<Vec<u64>> {
        let memrefs = kernel.meta.memrefs.iter().zip(&bases);
        memrefs
            .filter(|(m, _)| m.is_output())
            .map(|(m, &base)| memref_values(m, machine.gm_buffer(base).unwrap_or_default()))
            .collect()
    };
    if let Err(fault) = run(&mut machine, &kernel.words()) {
        return Ok(Run {
            fault: Some(fault),
            flags: machine.flags(),
            results: Vec::new(),
            memrefs: stored(&machine),
        });
    }
    let results = kernel
        .meta
        .results
        .iter()
        .map(|meta| {
            machine
                .tile(meta.register)
                .cloned()
                .ok_or_else(|| ExecError::Result {
                    result: meta.name.clone(),
                    reason: format!("was never written to {}", meta.register),
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Run {
        fault: None,
        flags: machine.flags(),
        results,
        memrefs: stored(&machine),
    })
}

/// The results of a typed run: each result's valid region by name, and the status flags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outputs {
    /// The sticky status flags (`ptoc::runtime::numerics::{NV, DZ, OF, UF, NX}`).
    pub flags: Flags,
    /// Each result as `(name, valid region)`, in the kernel's result order; the names are those
    /// `ptoc run` uses (`r0`, `r1`, … unless the source named them).
    pub results: Vec<(String, Tensor)>,
    /// Each GM argument the kernel stores to, whole, by its source name.
    pub memrefs: Vec<(String, Tensor)>,
}

impl Outputs {
    /// The result called `name`.
    pub fn get(&self, name: &str) -> Option<&Tensor> {
        let all = self.results.iter().chain(&self.memrefs);
        all.clone().find(|(n, _)| n == name).map(|(_, t)| t)
    }
}

/// Run `kernel` on one tensor per argument, in order; a fault is an [`ExecError::Fault`].
///
/// Each input must be the argument's valid region (`valid_rows × valid_cols`) of its
/// element type, or raw bits as the unsigned integer type of the element's width: a predicate
/// argument takes a predicate tensor (`bool`) or `u8` 0s and 1s, and a predicate result comes
/// back as a predicate tensor (read it as `bool` or `u8`).
pub fn run(kernel: &Kernel, inputs: &[Tensor]) -> Result<Outputs, ExecError> {
    let order = arguments(kernel, inputs.len())?;
    let carriers = order
        .iter()
        .zip(inputs)
        .map(|(&arg, t)| check_argument(kernel, arg, t).map(|()| t.bits().to_vec()))
        .collect::<Result<Vec<_>, _>>()?;
    let run = execute(kernel, &carriers)?;
    if let Some(fault) = run.fault {
        return Err(ExecError::Fault {
            class: fault.class,
            bundle: fault.bundle,
            address: fault.address,
            reason: fault.message,
            flags: run.flags,
        });
    }
    let results = kernel
        .meta
        .results
        .iter()
        .zip(&run.results)
        .map(|(meta, tile)| valid_region(meta, tile).map(|t| (meta.name.clone(), t)))
        .collect::<Result<_, _>>()?;
    let stored = kernel.meta.memrefs.iter().filter(|m| m.is_output());
    let memrefs = stored
        .zip(run.memrefs)
        .map(|(m, values)| {
            let t = Tensor::from_bits(m.dtype, m.rows, m.cols, values).map_err(|e| {
                ExecError::Result {
                    result: m.name.clone(),
                    reason: e.to_string(),
                }
            })?;
            Ok((m.name.clone(), t))
        })
        .collect::<Result<_, ExecError>>()?;
    Ok(Outputs {
        flags: run.flags,
        results,
        memrefs,
    })
}

/// Run `kernel` on inputs named as on the command line: by position (`"0"`) or source name
/// (`"x"`); every argument at most once. A memref not named starts as zeros (an output, such as
/// the `r0` of a kernel converted from linalg), as `ptoc run` has it; tiles and scalars are
/// required.
pub fn run_named(kernel: &Kernel, inputs: &[(&str, &Tensor)]) -> Result<Outputs, ExecError> {
    let order = kernel.meta.argument_order();
    let describe = |i: usize| describe_argument(kernel, order[i]);
    let mut ordered: Vec<Option<Cow<Tensor>>> = vec![None; order.len()];
    for &(name, tensor) in inputs {
        let (index, _) = named_argument(kernel, name)?;
        if ordered[index].replace(Cow::Borrowed(tensor)).is_some() {
            return Err(ExecError::DuplicateArgument {
                argument: describe(index),
            });
        }
    }
    check_gm_size(kernel)?;
    for (slot, &arg) in ordered.iter_mut().zip(&order) {
        if let (None, ArgRef::MemRef(i)) = (&slot, arg) {
            let m = &kernel.meta.memrefs[i];
            let zeros = vec![0; m.rows as usize * m.cols as usize];
            *slot = Tensor::from_bits(m.dtype, m.rows, m.cols, zeros)
                .ok()
                .map(Cow::Owned);
        }
    }
    let missing: Vec<String> = (0..order.len())
        .filter(|&i| ordered[i].is_none())
        .map(describe)
        .collect();
    if !missing.is_empty() {
        return Err(ExecError::MissingArgument { arguments: missing });
    }
    let ordered: Vec<Tensor> = ordered.into_iter().flatten().map(Cow::into_owned).collect();
    run(kernel, &ordered)
}

/// The shape and element type of an argument's input: a tile's valid region, a memref's whole
/// shape, a scalar's 1×1 (an `index` scalar is an `si64`).
pub fn argument_input(kernel: &Kernel, arg: ArgRef) -> ((u32, u32), ElementType) {
    match arg {
        ArgRef::Tile(i) => {
            let meta = &kernel.meta.args[i];
            ((meta.valid_rows, meta.valid_cols), element_type(meta))
        }
        ArgRef::MemRef(i) => {
            let m = &kernel.meta.memrefs[i];
            ((m.rows, m.cols), ElementType::numeric(m.dtype))
        }
        ArgRef::Scalar(i) => match kernel.meta.scalars[i].ty {
            ScalarType::Index => ((1, 1), ElementType::numeric(DataType::S64)),
            ScalarType::Element(t) => ((1, 1), ElementType::numeric(t)),
        },
    }
}

/// A number given for a scalar argument by a host language (Python's `int` and `float`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    /// An integer.
    Int(i128),
    /// A binary64 value.
    Float(f64),
}

/// The bits of a scalar argument of type `ty` given as a number. An integer must fit an
/// integer type (`index`: `si64`) and converts to a float type only when binary64 holds it
/// exactly; a float goes to a float type with one round-to-nearest-even from its binary64 value
/// (a NaN becomes the type's canonical NaN, docs/isa.md §1.6) and never to an integer type.
pub fn scalar_bits(ty: ScalarType, number: Number) -> Result<u64, String> {
    let dtype = match ty {
        ScalarType::Index => DataType::S64,
        ScalarType::Element(t) => t,
    };
    let bits = dtype.bits();
    let value = match (dtype.class(), number) {
        (TypeClass::Float, Number::Float(v)) => v,
        (TypeClass::Float, Number::Int(i)) => {
            let v = i as f64;
            if v as i128 != i || v.abs() == 2f64.powi(127) {
                return Err(format!(
                    "{i} has no exact binary64 value; give a {dtype} scalar as a float"
                ));
            }
            v
        }
        (TypeClass::Signed, Number::Int(i)) => {
            let range = -(1i128 << (bits - 1))..(1i128 << (bits - 1));
            return if range.contains(&i) {
                Ok(i as u64 & u64::MAX >> (64 - bits))
            } else {
                Err(format!(
                    "{i} is not a {dtype} (it needs more than {bits} bits)"
                ))
            };
        }
        (TypeClass::Unsigned | TypeClass::Other, Number::Int(i)) => {
            return if (0..1i128 << bits).contains(&i) {
                Ok(i as u64)
            } else {
                Err(format!(
                    "{i} is not a {dtype} (it needs more than {bits} bits)"
                ))
            };
        }
        (TypeClass::Signed | TypeClass::Unsigned | TypeClass::Other, Number::Float(v)) => {
            return Err(format!("{v:?} is not an integer"))
        }
    };
    let format = ptoc_runtime::numerics::format::format_of(dtype)
        .ok_or_else(|| format!("{dtype} has no number format"))?;
    Ok(ptoc_runtime::numerics::round::round_f64(format, value, false).0)
}

/// An input fits its argument ([`argument_input`]): of the element type or its raw bits
/// (`index` scalars: `i64`/`u64`).
fn check_argument(kernel: &Kernel, arg: ArgRef, tensor: &Tensor) -> Result<(), ExecError> {
    let (shape, expected) = match arg {
        ArgRef::Tile(i) => return check_input(&kernel.meta.args[i], tensor),
        ArgRef::MemRef(_) | ArgRef::Scalar(_) => argument_input(kernel, arg),
    };
    if tensor.shape() != shape {
        return Err(ExecError::Shape {
            argument: describe_argument(kernel, arg),
            expected: shape,
            given: tensor.shape(),
        });
    }
    if !tensor.element_type().holds(expected) {
        return Err(ExecError::DType {
            argument: describe_argument(kernel, arg),
            expected,
            given: tensor.element_type(),
        });
    }
    Ok(())
}

/// An input fits its argument: the valid region's shape, and the element type or its raw bits.
fn check_input(meta: &TileMeta, tensor: &Tensor) -> Result<(), ExecError> {
    if tensor.shape() != (meta.valid_rows, meta.valid_cols) {
        return Err(ExecError::Shape {
            argument: describe_tile(meta),
            expected: (meta.valid_rows, meta.valid_cols),
            given: tensor.shape(),
        });
    }
    let expected = element_type(meta);
    if !tensor.element_type().holds(expected) {
        return Err(ExecError::DType {
            argument: describe_tile(meta),
            expected,
            given: tensor.element_type(),
        });
    }
    Ok(())
}

/// A result's valid region; an undefined element there is an error, not a value.
fn valid_region(meta: &TileMeta, tile: &Tile) -> Result<Tensor, ExecError> {
    let values = tile.valid_values();
    if let Some(i) = values.iter().position(Option::is_none) {
        let vc = tile.valid_cols as usize;
        return Err(ExecError::Result {
            result: meta.name.clone(),
            reason: format!("has an undefined element at [{}, {}]", i / vc, i % vc),
        });
    }
    Tensor::from_bits(
        element_type(meta),
        tile.valid_rows,
        tile.valid_cols,
        values.into_iter().flatten().collect(),
    )
    .map_err(|e| ExecError::Result {
        result: meta.name.clone(),
        reason: e.to_string(),
    })
}

/// The element type of an argument or result.
pub fn element_type(meta: &TileMeta) -> ElementType {
    ElementType {
        storage: meta.storage,
        dtype: meta.dtype,
    }
}

/// The metadata record of an argument or result, for messages:
/// `'x' (FP32 16x64 valid 16x64 in T#1)`.
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

/// One element as a bit pattern of the element's width: `0x3f800000`.
pub fn hex(dtype: DataType, bits: u64) -> String {
    format!(
        "0x{:0width$x}",
        bits,
        width = (dtype.bits() as usize).div_ceil(4)
    )
}

/// One element as a person reads it: a number (through the float formats' exact value), or its
/// bit pattern for types that have no number.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Driver, Options};

    /// TCMP -> TSEL through the typed API: a predicate result (`a < b`), the minimum it
    /// selects, and a predicate argument picking between the same sources.
    const MINSEL: &str = r#"
func.func @minsel(%a: !pto.tile<2x4xf32>, %b: !pto.tile<2x4xf32>, %p: !pto.tile<2x4xi1>) -> (!pto.tile<2x4xi1>, !pto.tile<2x4xf32>, !pto.tile<2x4xf32>) {
  %lt = "pto.tcmp"(%a, %b) {pto.cmode = "lt"} : (!pto.tile<2x4xf32>, !pto.tile<2x4xf32>) -> !pto.tile<2x4xi1>
  %m = "pto.tsel"(%lt, %a, %b) : (!pto.tile<2x4xi1>, !pto.tile<2x4xf32>, !pto.tile<2x4xf32>) -> !pto.tile<2x4xf32>
  %s = "pto.tsel"(%p, %a, %b) : (!pto.tile<2x4xi1>, !pto.tile<2x4xf32>, !pto.tile<2x4xf32>) -> !pto.tile<2x4xf32>
  return %lt, %m, %s : !pto.tile<2x4xi1>, !pto.tile<2x4xf32>, !pto.tile<2x4xf32>
}
"#;

    #[test]
    fn predicates_flow_through_typed_tensors() {
        let driver = Driver::new(Options::default()).unwrap();
        let object = driver
            .compile(&ptoc_ir::Source::new(MINSEL, "minsel.mlir"))
            .unwrap();
        let kernels = load_object(&object).unwrap();
        let (nan, inf) = (f32::NAN, f32::INFINITY);
        let a = [1.0f32, -2.0, 3.0, nan, 0.0, 5.0, -0.0, 7.0];
        let b = [2.0f32, -3.0, 3.0, 1.0, -0.0, 6.0, 0.0, inf];
        let p = [true, false, true, false, false, false, true, true];
        let (ta, tb) = (
            Tensor::new(2, 4, &a).unwrap(),
            Tensor::new(2, 4, &b).unwrap(),
        );
        let tp = Tensor::new(2, 4, &p).unwrap();
        let out = run_named(&kernels[0], &[("a", &ta), ("b", &tb), ("p", &tp)]).unwrap();
        // The relation is the host's IEEE `<` (NaN compares false, -0 == +0); TSEL copies the
        // chosen element's bits, so the signs of the zeros show which source was taken.
        let lt: Vec<bool> = a.iter().zip(&b).map(|(x, y)| x < y).collect();
        assert_eq!(lt, [true, false, false, false, false, true, false, true]);
        let r0 = out.get("r0").unwrap();
        assert_eq!(r0.element_type(), ElementType::PREDICATE);
        assert_eq!(r0.to_vec::<bool>().unwrap(), lt);
        assert_eq!(r0.to_vec::<u8>().unwrap(), [1, 0, 0, 0, 0, 1, 0, 1]);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let pick = |mask: &[bool]| {
            let chosen: Vec<f32> = mask
                .iter()
                .enumerate()
                .map(|(i, &m)| if m { a[i] } else { b[i] })
                .collect();
            bits(&chosen)
        };
        let r1 = out.get("r1").unwrap().to_vec::<f32>().unwrap();
        assert_eq!(bits(&r1), pick(&lt));
        assert_eq!(bits(&r1), bits(&[1.0, -3.0, 3.0, 1.0, -0.0, 5.0, 0.0, 7.0]));
        let r2 = out.get("r2").unwrap().to_vec::<f32>().unwrap();
        assert_eq!(
            bits(&r2),
            bits(&[1.0, -3.0, 3.0, 1.0, -0.0, 6.0, -0.0, 7.0])
        );
        assert_eq!(out.flags, 0);

        // u8 0s and 1s are a predicate's raw bits; a 2 is refused by the loader.
        let raw = Tensor::new(2, 4, &p.map(u8::from)).unwrap();
        let again = run(&kernels[0], &[ta.clone(), tb.clone(), raw]).unwrap();
        assert_eq!(again, out);
        let two = Tensor::new(2, 4, &[0u8, 1, 2, 0, 0, 0, 0, 0]).unwrap();
        let e = run(&kernels[0], &[ta.clone(), tb.clone(), two]).unwrap_err();
        assert!(
            matches!(&e, ExecError::Load { reason, .. } if reason == "a predicate element is 0 or 1, not 2"),
            "{e}"
        );
        // A predicate is not f32 values, nor f32 values a predicate.
        let e = run(&kernels[0], &[tp.clone(), tb.clone(), tp.clone()]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "argument 'a' (FP32 8x4 valid 2x4 in T#1) holds FP32 elements; the input holds PRED \
             (give FP32 values or raw bits as the unsigned integer of its width)"
        );
        let e = run(&kernels[0], &[ta.clone(), tb.clone(), ta]).unwrap_err();
        assert!(
            matches!(
                e,
                ExecError::DType {
                    expected: ElementType::PREDICATE,
                    ..
                }
            ),
            "{e}"
        );
    }

    /// Numbers for scalars, against values worked out by hand.
    #[test]
    fn numbers_become_scalar_bits_of_the_type() {
        use Number::{Float, Int};
        let of = |t| ScalarType::Element(t);
        assert_eq!(scalar_bits(ScalarType::Index, Int(-1)), Ok(u64::MAX));
        assert_eq!(
            scalar_bits(ScalarType::Index, Int(1 << 63)).unwrap_err(),
            "9223372036854775808 is not a S64 (it needs more than 64 bits)"
        );
        assert_eq!(scalar_bits(of(DataType::S8), Int(-128)), Ok(0x80));
        assert!(scalar_bits(of(DataType::S8), Int(128)).is_err());
        assert_eq!(scalar_bits(of(DataType::U16), Int(65535)), Ok(0xFFFF));
        assert!(scalar_bits(of(DataType::U16), Int(-1)).is_err());
        assert!(scalar_bits(of(DataType::S32), Float(1.0)).is_err());
        // 0.1 rounds once from its binary64 value: 0x3dcccccd in FP32, 0x2e66 in FP16.
        assert_eq!(scalar_bits(of(DataType::FP32), Float(0.1)), Ok(0x3DCC_CCCD));
        assert_eq!(scalar_bits(of(DataType::FP16), Float(0.1)), Ok(0x2E66));
        assert_eq!(scalar_bits(of(DataType::BF16), Float(-2.0)), Ok(0xC000));
        assert_eq!(
            scalar_bits(of(DataType::FP64), Float(0.1)),
            Ok(0.1f64.to_bits())
        );
        assert_eq!(scalar_bits(of(DataType::FP32), Int(3)), Ok(0x4040_0000));
        assert!(scalar_bits(of(DataType::FP32), Int((1 << 53) + 1)).is_err());
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
