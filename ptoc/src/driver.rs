//! The compile driver: one input buffer (or `// -----` chunk) through parse → import → passes →
//! output, with the located diagnostics of whichever stage failed.

use crate::verify::{
    verify_compiled_gm_kernel, verify_compiled_linalg_kernel, verify_kernel, Mismatch,
};
use crate::ExecError;
use ptoc_codegen::{lower_function, lower_gm_kernel, print_asm, print_words, write_elf, Kernel};
use ptoc_dialect::{export_module, import_module_with, Frontend, ImportOptions};
use ptoc_ir::{Attr, Diagnostic, GmKernel, Location, Module, Source};
use ptoc_passes::{
    known_passes, IrPrinting, PassContext, PassManager, PipelineError, When, FOLD_PIECE_ATTR,
};
use ptoc_runtime::LinalgOptions;
use std::fmt;
use std::num::NonZeroU32;

/// What to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// The module as MLIR (after the pipeline), printed by MLIR.
    Mlir,
    /// Canonical PTO bundle assembly.
    Asm,
    /// One hex word per line with its assembly.
    Words,
    /// An ELF64 object (`out.bin`).
    Obj,
}

impl Emit {
    /// Every kind of output, as `--emit=` names them.
    pub const ALL: [Emit; 4] = [Emit::Mlir, Emit::Asm, Emit::Words, Emit::Obj];

    /// The `--emit=` name: `mlir`, `asm`, `words`, `obj`.
    pub fn name(self) -> &'static str {
        match self {
            Emit::Mlir => "mlir",
            Emit::Asm => "asm",
            Emit::Words => "words",
            Emit::Obj => "obj",
        }
    }

    /// The kind of output `name` names (`asm`).
    pub fn from_name(name: &str) -> Option<Emit> {
        Emit::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Is the output text (everything but an object)?
    pub fn is_text(self) -> bool {
        self != Emit::Obj
    }
}

/// Everything the command line can set for a compile.
#[derive(Clone, Debug)]
pub struct Options {
    /// What [`Driver::process`] and [`Driver::compile`] produce.
    pub emit: Emit,
    /// Print locations (`loc(...)`) in MLIR output.
    pub debug_info: bool,
    /// `--pass-pipeline=`; `None` runs the default pipeline.
    pub pipeline: Option<String>,
    /// What the passes may read (`-O0`, `--pe-mask`).
    pub pass_options: ptoc_passes::Options,
    /// `--mlir-print-ir-*` requests; dumps go to standard error.
    pub ir_printing: IrPrinting,
    /// Print the `--pass-statistics` report to standard error.
    pub pass_statistics: bool,
}

impl Options {
    /// Options from the names the C and Python APIs take: `emit` (`obj`, `asm`, `words`,
    /// `mlir`), the optimisation level, a `--pass-pipeline` (`None` for the default one) and
    /// the PE mask as four binary digits (`1111`).
    pub fn from_names(
        emit: &str,
        opt_level: u8,
        pipeline: Option<&str>,
        pe_mask: &str,
    ) -> Result<Options, OptionsError> {
        let emit = Emit::from_name(emit).ok_or_else(|| OptionsError::Emit(emit.to_string()))?;
        let pe_mask = ptoc_isa::PeMask::parse(pe_mask)
            .ok_or_else(|| OptionsError::PeMask(pe_mask.to_string()))?;
        Ok(Options {
            emit,
            pipeline: pipeline.map(str::to_string),
            pass_options: ptoc_passes::Options {
                opt_level,
                pe_mask,
                ..ptoc_passes::Options::default()
            },
            ..Options::default()
        })
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            emit: Emit::Obj,
            debug_info: false,
            pipeline: None,
            pass_options: ptoc_passes::Options::default(),
            ir_printing: IrPrinting::default(),
            pass_statistics: false,
        }
    }
}

/// A module compiled to kernels ([`Driver::compile_module_kernels`]).
#[derive(Debug)]
pub struct Compilation {
    /// The module after the pipeline.
    pub module: Module,
    /// Its functions and GM kernels, lowered (functions first, each in source order).
    pub kernels: Vec<Kernel>,
    /// What an option let a pass do (such as `--allow-reassociation`), for the user.
    pub remarks: Vec<Diagnostic>,
}

/// The result of one buffer: output bytes on success, diagnostics either way, and what the
/// pipeline wrote for the user on the side (IR dumps, statistics).
#[derive(Debug, Default)]
pub struct Outcome {
    /// The output (text for every `Emit` but `Obj`), when the compile succeeded.
    pub output: Option<Vec<u8>>,
    /// Every diagnostic, errors first-found first.
    pub diagnostics: Vec<Diagnostic>,
    /// IR dumps and `--pass-statistics` reports the options asked for.
    pub side_output: String,
}

/// A compile that failed: its located diagnostics (at least one is an error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// Every diagnostic of the failed compile, each with file, line, column, severity, message
    /// and, where the error breaks a named rule, the rule and the fault it stands for.
    pub diagnostics: Vec<Diagnostic>,
}

impl fmt::Display for CompileError {
    /// `file:line:col: error: message`, one line per diagnostic and note.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}: {}: {}", d.loc, d.severity.name(), d.message)?;
            for (loc, note) in &d.notes {
                write!(f, "\n{loc}: note: {note}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for CompileError {}

impl From<Vec<Diagnostic>> for CompileError {
    fn from(diagnostics: Vec<Diagnostic>) -> CompileError {
        CompileError { diagnostics }
    }
}

/// Any failure of the library, for embedders that handle them in one place.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Options that cannot run.
    #[error("{0}")]
    Options(#[from] OptionsError),
    /// A compile that failed, with its diagnostics.
    #[error("{0}")]
    Compile(#[from] CompileError),
    /// A kernel that could not be loaded or run, or that faulted.
    #[error("{0}")]
    Exec(#[from] ExecError),
    /// A tensor that is malformed.
    #[error("{0}")]
    Tensor(#[from] crate::TensorError),
    /// A compiled kernel that disagrees with its source.
    #[error("{0}")]
    Verify(#[from] VerifyError),
}

/// Why [`Driver::verify`] did not confirm a source.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The source does not compile.
    #[error("{0}")]
    Compile(CompileError),
    /// A compiled kernel disagrees with its source.
    #[error("@{kernel}: mismatch in trial {}: {mismatch}", .mismatch.trial)]
    Mismatch {
        /// The kernel's name.
        kernel: String,
        /// The first disagreement.
        mismatch: Box<Mismatch>,
    },
    /// A kernel could not be run at all.
    #[error("{0}")]
    Exec(ExecError),
}

/// Options that cannot run, found by [`Driver::new`] before any input is read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// `--pass-pipeline` does not parse; `error.offset` is the byte where the problem starts.
    #[error("invalid --pass-pipeline at character {}: {}\n  {pipeline}\n  {}^", .error.offset + 1, .error.message, " ".repeat(.error.offset))]
    Pipeline {
        /// The pipeline as given.
        pipeline: String,
        /// What is wrong and the byte offset where it starts.
        error: PipelineError,
    },
    /// An `--mlir-print-ir-before/after=PASS` request that would never print.
    #[error("--mlir-print-ir-{when}={pass}: {reason}")]
    IrPrinting {
        /// `before` or `after`.
        when: &'static str,
        /// The pass named.
        pass: String,
        /// Why nothing would be printed.
        reason: String,
    },
    /// An output kind that is not `mlir`, `asm`, `words` or `obj`.
    #[error("'{0}' is not an output kind; use one of mlir, asm, words, obj")]
    Emit(String),
    /// A PE mask that is not one of the eight encodable ones.
    #[error(
        "'{0}' is not an encodable PE mask; use one of 1111, 1110, 1100, 1000, 0100, 0010, 0001"
    )]
    PeMask(String),
    /// A PE mask with no PE: every bundle would be a no-op and no result would ever be written.
    #[error("PE mask 0000 makes every bundle a no-op, so no result would ever be written; use a mask with at least one PE")]
    NoopPeMask,
}

/// One MLIR context and the options of a run; reuse it for many buffers.
///
/// A `Driver` is `Send` but not `Sync`: give each thread its own (they share nothing, and
/// compile concurrently), or move one between threads. It writes nothing anywhere: outputs,
/// IR dumps and statistics are returned to the caller.
pub struct Driver {
    frontend: Frontend,
    options: Options,
    /// The configured pipeline, built once from the options.
    pipeline: PassManager,
}

impl Driver {
    /// A driver for `options`; options that cannot run (a malformed pipeline, an IR dump of a
    /// pass that is not run, a PE mask with no PE) are reported here, once.
    pub fn new(options: Options) -> Result<Driver, OptionsError> {
        let pipeline = match &options.pipeline {
            Some(text) => PassManager::parse(text).map_err(|error| OptionsError::Pipeline {
                pipeline: text.clone(),
                error,
            })?,
            None => PassManager::default_pipeline(&options.pass_options),
        };
        if options.pass_options.pe_mask.is_noop() {
            return Err(OptionsError::NoopPeMask);
        }
        check_ir_printing(&options.ir_printing, &pipeline)?;
        Ok(Driver {
            frontend: Frontend::new(),
            options,
            pipeline,
        })
    }

    /// How `verify` reads linalg programs: with the meaning the compile options allow. What a
    /// conversion decided per program (its fold piece) is in the compiled module:
    /// [`Driver::linalg_verify_options`].
    pub fn linalg_options(&self) -> LinalgOptions {
        LinalgOptions {
            assume_no_nans: self.options.pass_options.assume_no_nans,
            fold_piece: None,
        }
    }

    /// How `verify` reads each linalg program of `reference` (in order; the module after
    /// [`Driver::reference_module`]), given `compiled`, the module after the pipeline
    /// ([`Driver::compile_module_kernels`]): [`Driver::linalg_options`], plus the fold piece
    /// its converted kernel records ([`ptoc_passes::FOLD_PIECE_ATTR`], under
    /// `--allow-reassociation`). A converted kernel missing from `compiled`, or a malformed
    /// attribute, is an error at the program or kernel.
    pub fn linalg_verify_options(
        &self,
        reference: &Module,
        compiled: &Module,
    ) -> Result<Vec<LinalgOptions>, Vec<Diagnostic>> {
        // The conversion appends each program's kernel after the module's own GM kernels.
        let converted = compiled
            .gm_kernels
            .get(reference.gm_kernels.len()..)
            .unwrap_or_default();
        let mut options = Vec::with_capacity(reference.linalg.len());
        let mut errors = Vec::new();
        for (i, program) in reference.linalg.iter().enumerate() {
            let Some(kernel) = converted.get(i).filter(|k| k.name == program.name) else {
                errors.push(Diagnostic::error(
                    program.loc.clone(),
                    format!(
                        "@{} has no converted kernel in the compiled module to verify",
                        program.name
                    ),
                ));
                continue;
            };
            match fold_piece(kernel) {
                Ok(fold_piece) => options.push(LinalgOptions {
                    fold_piece,
                    ..self.linalg_options()
                }),
                Err(e) => errors.push(e),
            }
        }
        if errors.is_empty() {
            Ok(options)
        } else {
            Err(errors)
        }
    }

    /// The options the driver was made with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Parse and import `source` into the tile IR.
    pub fn import(&self, source: &Source) -> Result<Module, Vec<Diagnostic>> {
        let module = self.frontend.parse(source)?;
        import_module_with(&self.frontend, &module, source, &self.import_options())
    }

    /// Compile `source` to the output the options ask for (ELF object bytes, or the text of
    /// assembly, words or MLIR).
    pub fn compile(&self, source: &Source) -> Result<Vec<u8>, CompileError> {
        let module = self.import(source)?;
        self.compile_module(&module, source)
    }

    /// Compile a module already in the tile IR (from [`Driver::import`], or built by hand):
    /// the pipeline on a copy of it, then the output the options ask for. `source` only names
    /// where an error about the whole input points (an input without a kernel).
    pub fn compile_module(
        &self,
        module: &Module,
        source: &Source,
    ) -> Result<Vec<u8>, CompileError> {
        let mut module = module.clone();
        let mut side_output = String::new();
        self.run_pipeline(&mut module, &mut side_output)?;
        Ok(self.emit(&module, source)?)
    }

    /// Import a melior MLIR module the caller built or parsed in its own context (which must
    /// allow unregistered dialects, for the generic-form `pto.*` ops). No source text is needed:
    /// locations come from the module, and SSA names, which MLIR does not keep, become
    /// positions (`arg0`, `#3`).
    pub fn import_mlir(&self, module: &melior::ir::Module) -> Result<Module, CompileError> {
        let source = Source::new("", "");
        Ok(import_module_with(
            &self.frontend,
            module,
            &source,
            &self.import_options(),
        )?)
    }

    /// What the import of linalg programs may do, from the options.
    fn import_options(&self) -> ImportOptions {
        ImportOptions {
            strip_assertions: self.options.pass_options.strip_assertions,
        }
    }

    /// Compile a melior MLIR module the caller holds (see [`Driver::import_mlir`]).
    pub fn compile_mlir(&self, module: &melior::ir::Module) -> Result<Vec<u8>, CompileError> {
        let imported = self.import_mlir(module)?;
        self.compile_module(&imported, &Source::new("", "<module>"))
    }

    /// The kernels of an ELF object written by ptoc, or of MLIR source text (compiled with
    /// this driver's pipeline); `file` names the source in diagnostics.
    pub fn load_kernels(&self, object_or_source: &[u8], file: &str) -> Result<Vec<Kernel>, Error> {
        if object_or_source.starts_with(b"\x7fELF") {
            return Ok(crate::load_object(object_or_source)?);
        }
        let text = source_text(object_or_source, file, "MLIR source text or an ELF object")
            .map_err(|d| CompileError::from(vec![d]))?;
        Ok(self.kernels(&Source::new(text, file))?)
    }

    /// Compile `source` to kernels (ready for [`crate::run`]) without encoding an object.
    pub fn kernels(&self, source: &Source) -> Result<Vec<Kernel>, CompileError> {
        let module = self.import(source)?;
        Ok(self.compile_kernels(&module)?)
    }

    /// Compile every kernel of `source` and check each, bit for bit, against the reference
    /// evaluator of its unoptimised source on `trials` random input sets (edge values
    /// included, [`crate::verify::InputProfile`]) drawn from `seed`; a linalg program is read
    /// with the meaning the options allow ([`Driver::linalg_verify_options`]). `Ok` means
    /// every kernel matched on every trial.
    pub fn verify(&self, source: &Source, trials: u32, seed: u64) -> Result<(), VerifyError> {
        let compile_error = |d: Vec<Diagnostic>| VerifyError::Compile(d.into());
        let module = self.import(source).map_err(compile_error)?;
        let Compilation {
            module: compiled,
            kernels,
            ..
        } = self
            .compile_module_kernels(&module, &mut String::new())
            .map_err(compile_error)?;
        let reference = self.reference_module(&module).map_err(compile_error)?;
        let linalg = self
            .linalg_verify_options(&reference, &compiled)
            .map_err(compile_error)?;
        let checked = check_kernels(&kernels, &reference, trials, seed, &[], &linalg);
        for (kernel, outcome) in checked {
            match outcome {
                Ok(None) => {}
                Ok(Some(mismatch)) => {
                    return Err(VerifyError::Mismatch {
                        kernel: kernel.name.clone(),
                        mismatch: Box::new(mismatch),
                    })
                }
                Err(e) => return Err(VerifyError::Exec(e)),
            }
        }
        Ok(())
    }

    /// Run one buffer (a whole file or one `// -----` chunk) through the whole compile,
    /// keeping the diagnostics of a success (warnings) and the IR dumps the options ask for.
    pub fn process(&self, source: &Source) -> Outcome {
        let mut side_output = String::new();
        let result = self
            .import(source)
            .and_then(|mut module| {
                let remarks = self.run_pipeline(&mut module, &mut side_output)?;
                Ok((module, remarks))
            })
            .and_then(|(module, remarks)| Ok((self.emit(&module, source)?, remarks)));
        match result {
            Ok((output, remarks)) => Outcome {
                output: Some(output),
                diagnostics: remarks,
                side_output,
            },
            Err(diagnostics) => Outcome {
                output: None,
                diagnostics,
                side_output,
            },
        }
    }

    /// Run the configured pipeline, writing IR dumps and statistics to `side_output`; the
    /// remarks of a success (what an option such as `--allow-reassociation` let a pass do).
    pub fn run_pipeline(
        &self,
        module: &mut Module,
        side_output: &mut String,
    ) -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
        let pm = &self.pipeline;
        let mut ctx = PassContext::new(self.options.pass_options.clone());
        let printing = &self.options.ir_printing;
        let mut observer = |when: When, pass: &str, module: &Module| {
            if printing.wants(when, pass) {
                side_output.push_str(&IrPrinting::header(when, pass));
                side_output.push('\n');
                match self.print_mlir(module) {
                    Ok(text) => side_output.push_str(&text),
                    Err(_) => side_output.push_str("<module could not be printed>\n"),
                }
            }
        };
        let result = pm.run(module, &mut ctx, &mut observer);
        if self.options.pass_statistics {
            side_output.push_str(&pm.statistics_report(&ctx));
        }
        result?;
        // A linalg program the pipeline did not convert would otherwise vanish from the output.
        let unconverted: Vec<Diagnostic> = module
            .linalg
            .iter()
            .map(|p| {
                Diagnostic::error(
                    p.loc.clone(),
                    format!(
                        "@{} is a linalg program, and the pipeline has no \
                         convert-linalg-to-pto to turn it into a kernel",
                        p.name
                    ),
                )
            })
            .collect();
        if unconverted.is_empty() {
            Ok(ctx.remarks)
        } else {
            Err(unconverted)
        }
    }

    /// The unoptimised meaning of a module, for `verify`: checked and with shapes inferred (so
    /// numpy-style broadcasts are explicit), but not fused or allocated.
    pub fn reference_module(&self, module: &Module) -> Result<Module, Vec<Diagnostic>> {
        let mut reference = module.clone();
        let pm = PassManager::parse("pto-verify,pto-infer-shapes").unwrap_or_default();
        let mut ctx = PassContext::new(self.options.pass_options.clone());
        pm.run(&mut reference, &mut ctx, &mut |_, _, _| {})?;
        Ok(reference)
    }

    /// Run the pipeline on a copy of `module` and lower it to kernels.
    pub fn compile_kernels(&self, module: &Module) -> Result<Vec<Kernel>, Vec<Diagnostic>> {
        Ok(self
            .compile_module_kernels(module, &mut String::new())?
            .kernels)
    }

    /// [`Driver::compile_kernels`], also returning the module after the pipeline (whose GM
    /// kernels keep what the passes recorded on them, such as the fold piece
    /// [`Driver::linalg_verify_options`] reads) and the pipeline's remarks; IR dumps and
    /// statistics go to `side_output`, as in [`Driver::run_pipeline`].
    pub fn compile_module_kernels(
        &self,
        module: &Module,
        side_output: &mut String,
    ) -> Result<Compilation, Vec<Diagnostic>> {
        let mut compiled = module.clone();
        let remarks = self.run_pipeline(&mut compiled, side_output)?;
        let kernels = self.lower(&compiled)?;
        Ok(Compilation {
            module: compiled,
            kernels,
            remarks,
        })
    }

    /// Lower every function and GM kernel of an allocated module to a kernel (functions first,
    /// then GM kernels, each in source order).
    pub fn lower(&self, module: &Module) -> Result<Vec<Kernel>, Vec<Diagnostic>> {
        let mut kernels = Vec::new();
        let mut errors = Vec::new();
        let lowered = (module.functions.iter().map(lower_function))
            .chain(module.gm_kernels.iter().map(lower_gm_kernel));
        for result in lowered {
            match result {
                Ok(k) => kernels.push(k),
                Err(e) => errors.extend(e),
            }
        }
        if errors.is_empty() {
            Ok(kernels)
        } else {
            Err(errors)
        }
    }

    fn emit(&self, module: &Module, source: &Source) -> Result<Vec<u8>, Vec<Diagnostic>> {
        let kernels = || {
            let kernels = self.lower(module)?;
            if kernels.is_empty() {
                return Err(vec![Diagnostic::error(
                    Location::new(source.file, source.first_line, 1),
                    "the input defines no kernel (no func.func) to compile; write one, or use \
                     --emit=mlir to print the module",
                )]);
            }
            Ok(kernels)
        };
        match self.options.emit {
            Emit::Mlir => self.print_mlir(module).map(String::into_bytes),
            Emit::Asm => Ok(print_asm(&kernels()?).into_bytes()),
            Emit::Words => Ok(print_words(&kernels()?).into_bytes()),
            Emit::Obj => write_elf(&kernels()?).map_err(|e| {
                vec![Diagnostic::error(
                    Location::unknown(),
                    format!("cannot write the ELF object: {e}"),
                )]
            }),
        }
    }

    /// The tile IR printed as MLIR (exported, re-parsed and printed by MLIR).
    pub fn print_mlir(&self, module: &Module) -> Result<String, Vec<Diagnostic>> {
        let exported = export_module(&self.frontend, module)?;
        Ok(self.frontend.print(&exported, self.options.debug_info))
    }
}

/// Check each compiled kernel against its reference (the module after `reference_module`):
/// straight-line functions through [`verify_kernel`], GM kernels through
/// [`verify_compiled_gm_kernel`], linalg programs (still unconverted in the reference) through
/// [`verify_compiled_linalg_kernel`], program `i` of `reference.linalg` under `linalg[i]`
/// ([`Driver::linalg_verify_options`]; a program without one is read with the default, exact
/// meaning). `kernels` is in [`Driver::lower`]'s order:
/// the functions' kernels first, then the GM kernels' (README, Kernels over global memory), then those converted from
/// linalg programs (which the conversion appends). A GM kernel's `index` scalar named in
/// `index_values` takes that value in every trial, any other is 0 (a random loop bound could run
/// for hours); [`index_scalar_names`] lists the names.
pub fn check_kernels<'k>(
    kernels: &'k [Kernel],
    reference: &'k Module,
    trials: u32,
    seed: u64,
    index_values: &'k [(String, u64)],
    linalg: &'k [LinalgOptions],
) -> impl Iterator<Item = (&'k Kernel, Result<Option<Mismatch>, ExecError>)> + 'k {
    let (functions, gm_kernels) = kernels.split_at(reference.functions.len().min(kernels.len()));
    let (gm_kernels, converted) =
        gm_kernels.split_at(reference.gm_kernels.len().min(gm_kernels.len()));
    let programs =
        converted
            .iter()
            .zip(&reference.linalg)
            .enumerate()
            .map(move |(i, (k, program))| {
                let options = linalg.get(i).copied().unwrap_or_default();
                let checked = verify_compiled_linalg_kernel(k, program, trials, seed, options);
                (k, checked)
            });
    let gm = gm_kernels
        .iter()
        .zip(&reference.gm_kernels)
        .map(move |(k, source)| {
            let values: Vec<(usize, u64)> = index_scalar_names(source)
                .into_iter()
                .filter_map(|(i, name)| {
                    let (_, v) = index_values.iter().find(|(n, _)| *n == name)?;
                    Some((i, *v))
                })
                .collect();
            (
                k,
                verify_compiled_gm_kernel(k, source, trials, seed, &values),
            )
        });
    functions
        .iter()
        .zip(&reference.functions)
        .map(move |(k, func)| (k, verify_kernel(k, func, trials, seed)))
        .chain(gm)
        .chain(programs)
}

/// The fold piece a converted kernel records ([`ptoc_passes::FOLD_PIECE_ATTR`]); `None` without
/// the attribute.
fn fold_piece(kernel: &GmKernel) -> Result<Option<NonZeroU32>, Diagnostic> {
    let Some(attr) = kernel.attrs.get(FOLD_PIECE_ATTR) else {
        return Ok(None);
    };
    let piece = match attr {
        Attr::Int(n) => u32::try_from(*n).ok().and_then(NonZeroU32::new),
        Attr::Str(_) => None,
    };
    piece.map(Some).ok_or_else(|| {
        Diagnostic::error(
            kernel.loc.clone(),
            format!(
                "@{}: {FOLD_PIECE_ATTR} = {attr} is not a piece length (1 to {})",
                kernel.name,
                u32::MAX
            ),
        )
    })
}

/// The `index` scalar arguments of a GM kernel: position and source name.
pub fn index_scalar_names(kernel: &ptoc_ir::GmKernel) -> Vec<(usize, String)> {
    kernel
        .args
        .iter()
        .enumerate()
        .filter(|&(_, &id)| kernel.ty(id).scalar() == Some(ptoc_ir::ScalarType::Index))
        .map(|(i, &id)| (i, kernel.display_name(id)))
        .collect()
}

/// `bytes` as text, or an error at the line and column of the first byte that is not UTF-8
/// (`what` says what the input should have been).
pub fn source_text<'a>(bytes: &'a [u8], file: &str, what: &str) -> Result<&'a str, Diagnostic> {
    std::str::from_utf8(bytes).map_err(|e| {
        let valid = &bytes[..e.valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = valid.len() - valid.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
        Diagnostic::error(
            Location::new(file, line as u32, col as u32),
            format!(
                "input is not UTF-8 text (byte 0x{:02X}); expected {what}",
                bytes[valid.len()]
            ),
        )
    })
}

/// Every `--mlir-print-ir-before/after=PASS` names a pass that `pipeline` runs.
fn check_ir_printing(printing: &IrPrinting, pipeline: &PassManager) -> Result<(), OptionsError> {
    let running = pipeline.pass_names();
    let requests = (printing.before.iter().map(|p| ("before", p)))
        .chain(printing.after.iter().map(|p| ("after", p)));
    for (when, pass) in requests {
        if running.contains(&pass.as_str()) {
            continue;
        }
        let known: Vec<&str> = known_passes().iter().map(|(name, _)| *name).collect();
        let reason = if known.contains(&pass.as_str()) {
            format!(
                "the pipeline does not run it (it runs: {}), so nothing would be printed",
                if running.is_empty() {
                    "no pass".into()
                } else {
                    running.join(", ")
                }
            )
        } else {
            format!("unknown pass; the passes are: {}", known.join(", "))
        };
        return Err(OptionsError::IrPrinting {
            when,
            pass: pass.clone(),
            reason,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(name: &str, cols: u32) -> String {
        format!(
            "func.func @{name}(%x: !pto.tile<8x{cols}xf32>) -> !pto.tile<8x1xf32> {{\n  \
             %m = \"pto.trowmax\"(%x) : (!pto.tile<8x{cols}xf32>) -> !pto.tile<8x1xf32>\n  \
             return %m : !pto.tile<8x1xf32>\n}}\n"
        )
    }

    fn asm_options() -> Options {
        Options {
            emit: Emit::Asm,
            ..Options::default()
        }
    }

    /// Eight threads, each with its own driver, compile different kernels at once; every result
    /// is its own kernel (compiles used to share staging files: wrong kernels, spurious errors).
    #[test]
    fn drivers_compile_concurrently_each_its_own_kernel() {
        fn send<T: Send>(_: &T) {}
        let kernels: Vec<(String, String)> = (0..8)
            .map(|i| (format!("k{i}"), kernel(&format!("k{i}"), 1 << (i % 6 + 1))))
            .collect();
        let alone = Driver::new(asm_options()).unwrap();
        send(&alone);
        let expected: Vec<Vec<u8>> = kernels
            .iter()
            .map(|(name, text)| {
                let out = alone.process(&Source::new(text, name)).output;
                out.expect("compiles")
            })
            .collect();
        std::thread::scope(|scope| {
            for ((name, text), want) in kernels.iter().zip(&expected) {
                scope.spawn(move || {
                    let driver = Driver::new(asm_options()).unwrap();
                    for _ in 0..25 {
                        let outcome = driver.process(&Source::new(text, name));
                        assert!(outcome.diagnostics.is_empty(), "{:?}", outcome.diagnostics);
                        assert_eq!(outcome.output.as_ref(), Some(want), "{name}");
                    }
                });
            }
        });
    }

    #[test]
    fn options_that_would_do_nothing_are_refused() {
        let with = |f: fn(&mut Options)| {
            let mut options = Options::default();
            f(&mut options);
            Driver::new(options).err().map(|e| e.to_string())
        };
        let unknown = with(|o| o.ir_printing.after = vec!["no-such-pass".into()]).unwrap();
        assert!(
            unknown.contains("unknown pass; the passes are: convert-linalg-to-pto, pto-verify"),
            "{unknown}"
        );
        let not_run = with(|o| {
            o.pass_options.opt_level = 0;
            o.ir_printing.before = vec!["pto-fuse".into()];
        })
        .unwrap();
        assert!(
            not_run.contains("the pipeline does not run it"),
            "{not_run}"
        );
        let mask = with(|o| o.pass_options.pe_mask = ptoc_isa::PeMask::NONE).unwrap();
        assert!(mask.contains("no-op"), "{mask}");
        let pipeline = with(|o| o.pipeline = Some("pto-verify,,".into())).unwrap();
        assert!(
            pipeline.starts_with("invalid --pass-pipeline at character"),
            "{pipeline}"
        );
        assert_eq!(
            with(|o| o.ir_printing.after = vec!["pto-fuse".into()]),
            None
        );
    }

    /// An input without a kernel used to give an empty 584-byte object and exit 0.
    #[test]
    fn an_input_without_a_kernel_is_an_error_unless_printing_mlir() {
        for emit in [Emit::Obj, Emit::Asm, Emit::Words] {
            let driver = Driver::new(Options {
                emit,
                ..Options::default()
            })
            .unwrap();
            for text in ["", "// only a comment\n", "module {}\n"] {
                let outcome = driver.process(&Source::new(text, "empty.mlir"));
                assert_eq!(outcome.output, None);
                let d = &outcome.diagnostics[0];
                assert_eq!(d.loc, Location::new("empty.mlir", 1, 1));
                assert!(d.message.contains("defines no kernel"), "{}", d.message);
            }
        }
        let mlir = Driver::new(Options {
            emit: Emit::Mlir,
            ..Options::default()
        })
        .unwrap();
        assert!(mlir.process(&Source::new("", "e.mlir")).output.is_some());
    }

    /// A row sum of 32768 f32 folds in chunks only under `--allow-reassociation`, in pieces the
    /// kernel records; `verify` reads the program with them and matches, where linalg's
    /// sequential reading differs as soon as the inputs are numbers (trial 1, moderate values:
    /// trial 0's edge values make every line NaN).
    #[test]
    fn verify_reads_a_reassociated_program_in_the_kernels_pieces() {
        const SUM: &str = r#"
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @sum(%x: tensor<2x32768xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x32768xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  return %s : tensor<2xf32>
}
"#;
        let source = Source::new(SUM, "sum.mlir");
        let exact = Driver::new(Options::default()).unwrap();
        let refused = exact.verify(&source, 2, 0).unwrap_err().to_string();
        assert!(refused.contains("pass --allow-reassociation"), "{refused}");
        let mut options = Options::default();
        options.pass_options.allow_reassociation = true;
        let driver = Driver::new(options).unwrap();
        let module = driver.import(&source).unwrap();
        let Compilation {
            module: compiled,
            kernels,
            ..
        } = driver
            .compile_module_kernels(&module, &mut String::new())
            .unwrap();
        let reference = driver.reference_module(&module).unwrap();
        let linalg = driver.linalg_verify_options(&reference, &compiled).unwrap();
        assert_eq!(linalg.len(), 1);
        // Each line is folded in pieces of a whole number of chunks, several of them.
        let piece = linalg[0].fold_piece.expect("a fold piece").get();
        assert!(piece < 32768 && 32768 % piece == 0, "{piece}");
        let checked: Vec<_> = check_kernels(&kernels, &reference, 3, 0, &[], &linalg)
            .map(|(_, outcome)| outcome)
            .collect();
        assert_eq!(checked, [Ok(None)]);
        assert_eq!(driver.verify(&source, 3, 0), Ok(()));
        // linalg's sequential meaning (no options given) is not what the kernel computes.
        let sequential: Vec<_> = check_kernels(&kernels, &reference, 3, 0, &[], &[])
            .map(|(_, outcome)| outcome.unwrap().map(|m| m.trial))
            .collect();
        assert_eq!(sequential, [Some(1)]);
        // A malformed or missing record is an error at the kernel or the program.
        let mut broken = compiled.clone();
        let attr = Attr::Int(0);
        broken.gm_kernels[0]
            .attrs
            .insert(FOLD_PIECE_ATTR.to_string(), attr);
        let err = driver
            .linalg_verify_options(&reference, &broken)
            .unwrap_err();
        assert_eq!(err[0].loc, Location::new("sum.mlir", 4, 1));
        assert!(
            err[0]
                .message
                .contains("pto.fold_piece = 0 : i64 is not a piece length"),
            "{}",
            err[0].message
        );
        broken.gm_kernels.clear();
        let err = driver
            .linalg_verify_options(&reference, &broken)
            .unwrap_err();
        assert!(
            err[0].message.contains("@sum has no converted kernel"),
            "{err:?}"
        );
    }

    /// A GM kernel built in Rust goes through the pipeline and the lowering like a parsed one:
    /// assembly, words and an object, and its words run (`out = x + x` row by row).
    #[test]
    fn gm_kernels_compile_to_every_output_and_run() {
        use ptoc_ir::gm_build::GmBuilder;
        let mut b = GmBuilder::new("double");
        let x = b.memref("x", "memref<3x8xf32>");
        let out = b.memref("out", "memref<3x8xf32>");
        let (c0, c1, c3) = (b.index(0), b.index(1), b.index(3));
        b.for_loop(c0, c3, c1, &[], |b, i, _| {
            let t = b.load(x, i, c0, "1x8xf32");
            let d = b.tile("TADD", &[t, t], "1x8xf32");
            b.store(d, out, i, c0);
            vec![]
        });
        let module = Module {
            gm_kernels: vec![b.finish()],
            ..Module::default()
        };
        let source = Source::new("", "double.mlir");
        for emit in [Emit::Asm, Emit::Words, Emit::Obj] {
            let driver = Driver::new(Options {
                emit,
                pipeline: Some("pto-allocate".into()),
                ..Options::default()
            })
            .unwrap();
            let out = driver.compile_module(&module, &source).unwrap();
            if emit == Emit::Asm {
                let text = String::from_utf8(out).unwrap();
                assert!(text.contains(".memref x, a0, FP32, 3x8, pos=0"), "{text}");
                assert!(text.contains("BSTART.TLOAD FP32"), "{text}");
            }
        }
        let driver = Driver::new(Options {
            pipeline: Some("pto-allocate".into()),
            ..Options::default()
        })
        .unwrap();
        let kernels = driver.compile_kernels(&module).unwrap();
        let x: Vec<f32> = (0..24).map(|i| i as f32 * 0.5 - 3.0).collect();
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits() as u64).collect::<Vec<_>>();
        let run = crate::exec::execute(&kernels[0], &[bits(&x), vec![0; 24]]).unwrap();
        assert_eq!(run.fault, None);
        let want: Vec<f32> = x.iter().map(|v| v + v).collect();
        assert_eq!(run.memrefs, vec![bits(&want)]);
    }
}
