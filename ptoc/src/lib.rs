//! ptoc as a library: the compiler, interpreter and checker an ML compiler embeds.
//!
//! A [`Driver`] owns one MLIR context and a configured pass pipeline. It compiles MLIR text
//! ([`Driver::compile`]), a tile-IR module ([`Driver::compile_module`]) or a melior module the
//! caller already holds ([`Driver::compile_mlir`]) to an ELF object, assembly, words or MLIR;
//! errors are [`CompileError`]s whose diagnostics carry file, line, column, severity, message and,
//! where a legality rule is broken, the rule and the fault class it stands for. [`run`] and
//! [`run_named`] execute a kernel on the interpreter with typed [`Tensor`]s in and out;
//! [`Driver::verify`] checks compiled code against its source bit for bit and reports a
//! [`verify::Mismatch`].
//!
//! ```
//! use ptoc::{ir::Source, Driver, Options, Tensor};
//!
//! let text = r#"
//! func.func @scale(%x: !pto.tile<2x4xf32>, %v: !pto.tile<2x1xf32>) -> !pto.tile<2x4xf32> {
//!   %r = "pto.trowexpandmul"(%x, %v) : (!pto.tile<2x4xf32>, !pto.tile<2x1xf32>) -> !pto.tile<2x4xf32>
//!   return %r : !pto.tile<2x4xf32>
//! }"#;
//! let source = Source::new(text, "scale.mlir");
//! let driver = Driver::new(Options::default())?; // the default pipeline, ELF object out
//! let object: Vec<u8> = driver.compile(&source)?;
//!
//! // Run it: arguments by source name (or position), results by the names `ptoc run` uses.
//! let kernels = ptoc::load_object(&object)?;
//! let x = Tensor::new(2, 4, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])?;
//! let v = Tensor::from_array(&[[10.0f32], [0.5]]);
//! let out = ptoc::run_named(&kernels[0], &[("x", &x), ("v", &v)])?;
//! let r = out.get("r0").unwrap().to_vec::<f32>()?;
//! assert_eq!(r, [10.0, 20.0, 30.0, 40.0, 2.5, 3.0, 3.5, 4.0]);
//!
//! // A wrong shape is an error that says what the argument takes.
//! let wrong = ptoc::run(&kernels[0], &[x.clone(), x.clone()]).unwrap_err();
//! assert!(matches!(wrong, ptoc::ExecError::Shape { expected: (2, 1), given: (2, 4), .. }));
//!
//! // Compiled code against the unoptimised source, on 50 random input sets.
//! driver.verify(&source, 50, 0)?;
//!
//! // Diagnostics are data: location, severity, message, and the rule and fault class.
//! let bad = text.replace("%v: !pto.tile<2x1xf32>", "%v: !pto.tile<2x1xf16>")
//!     .replace("(!pto.tile<2x4xf32>, !pto.tile<2x1xf32>)", "(!pto.tile<2x4xf32>, !pto.tile<2x1xf16>)");
//! let error = driver.compile(&Source::new(&bad, "bad.mlir")).unwrap_err();
//! let d = &error.diagnostics[0];
//! assert_eq!((d.loc.line, d.loc.col), (3, 8));
//! assert_eq!(d.rule, Some("same-type"));
//! assert_eq!(d.fault, Some(ptoc::isa::FaultClass::TileLegality));
//!
//! // A module built or parsed with melior in the caller's own context compiles as it is.
//! let context = ptoc::melior::Context::new();
//! ptoc::melior::dialect::DialectHandle::func().register_dialect(&context);
//! context.set_allow_unregistered_dialects(true);
//! let module = ptoc::melior::ir::Module::parse(&context, text).expect("MLIR parses it");
//! let again = driver.compile_mlir(&module)?;
//! assert_eq!(ptoc::load_object(&again)?[0].words(), kernels[0].words());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A `Driver` is `Send` but not `Sync`: give each thread its own (drivers share nothing and
//! compile concurrently). Nothing in the library writes to the file system; outputs, IR dumps
//! and statistics are returned. The command line (`ptoc`, with its clap parser, `.npy` files
//! and atomic output files) is the `cli` feature, on by default; depend with
//! `default-features = false` for the library alone.

#![warn(missing_docs)]

mod driver;
pub mod exec;
pub mod tensor;
pub mod verify;

pub use driver::{
    check_kernels, index_scalar_names, source_text, Compilation, CompileError, Driver, Emit, Error,
    Options, OptionsError, Outcome, VerifyError,
};
pub use exec::{assemble, load_object, run, run_named, select_kernel, ExecError, Outputs};
pub use tensor::{Element, ElementType, Tensor, TensorError};

/// `f16` and `bf16`, the host types of FP16 and BF16 [`Tensor`] elements.
pub use half;
/// The melior (MLIR 22 bindings) version ptoc is built with; a module given to
/// [`Driver::compile_mlir`] must come from this one.
pub use melior;
/// Code generation: [`codegen::Kernel`] (a compiled kernel, its words and metadata), object
/// writing and reading, assembly.
pub use ptoc_codegen as codegen;
/// The tile IR: [`ir::Source`], [`ir::Module`], [`ir::Diagnostic`], locations.
pub use ptoc_ir as ir;
/// The ISA table: [`isa::DataType`], [`isa::FaultClass`], PE masks.
pub use ptoc_isa as isa;
/// The pass pipeline: the pass options ([`passes::Options`]) and IR printing requests.
pub use ptoc_passes as passes;
/// The interpreter and reference evaluator: `Tile`, `Machine`, `evaluate`, status flags.
pub use ptoc_runtime as runtime;

/// The README's Rust example, run as a doctest so it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
