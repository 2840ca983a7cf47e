//! The compile driver: one input buffer (or `// -----` chunk) through parse → import → passes →
//! output, with the located diagnostics of whichever stage failed.

use ptoc_codegen::{lower_function, print_asm, print_words, write_elf, Kernel};
use ptoc_dialect::{export_module, import_module, Frontend};
use ptoc_ir::{Diagnostic, Location, Module, Source};
use ptoc_passes::{known_passes, IrPrinting, PassContext, PassManager, PipelineError, When};

/// What to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
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

/// Everything the command line can set for a compile.
#[derive(Clone, Debug)]
pub struct Options {
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

/// The result of one buffer: output bytes on success, diagnostics either way, and what the
/// pipeline wrote for the user on the side (IR dumps, statistics).
#[derive(Debug, Default)]
pub struct Outcome {
    pub output: Option<Vec<u8>>,
    pub diagnostics: Vec<Diagnostic>,
    pub side_output: String,
}

/// Options that cannot run, found by [`Driver::new`] before any input is read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// `--pass-pipeline` does not parse; `offset` is the byte where the problem starts.
    #[error("invalid --pass-pipeline at character {}: {}\n  {pipeline}\n  {}^", .error.offset + 1, .error.message, " ".repeat(.error.offset))]
    Pipeline {
        pipeline: String,
        error: PipelineError,
    },
    /// An `--mlir-print-ir-before/after=PASS` request that would never print.
    #[error("--mlir-print-ir-{when}={pass}: {reason}")]
    IrPrinting {
        when: &'static str,
        pass: String,
        reason: String,
    },
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

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Parse and import `source` into the tile IR.
    pub fn import(&self, source: &Source) -> Result<Module, Vec<Diagnostic>> {
        let module = self.frontend.parse(source)?;
        import_module(&self.frontend, &module, source)
    }

    /// Run one buffer (a whole file or one `// -----` chunk) through the whole compile.
    pub fn process(&self, source: &Source) -> Outcome {
        let mut side_output = String::new();
        let result = self
            .import(source)
            .and_then(|mut module| {
                self.run_pipeline(&mut module, &mut side_output)?;
                Ok(module)
            })
            .and_then(|module| self.emit(&module, source));
        match result {
            Ok(output) => Outcome {
                output: Some(output),
                diagnostics: Vec::new(),
                side_output,
            },
            Err(diagnostics) => Outcome {
                output: None,
                diagnostics,
                side_output,
            },
        }
    }

    /// Run the configured pipeline, writing IR dumps and statistics to `side_output`.
    pub fn run_pipeline(
        &self,
        module: &mut Module,
        side_output: &mut String,
    ) -> Result<(), Vec<Diagnostic>> {
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
        result
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
        let mut compiled = module.clone();
        let mut side_output = String::new();
        self.run_pipeline(&mut compiled, &mut side_output)?;
        self.lower(&compiled)
    }

    /// Lower every function of an allocated module to a kernel.
    pub fn lower(&self, module: &Module) -> Result<Vec<Kernel>, Vec<Diagnostic>> {
        let mut kernels = Vec::new();
        let mut errors = Vec::new();
        for func in &module.functions {
            match lower_function(func) {
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
            unknown.contains("unknown pass; the passes are: pto-verify"),
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
}
