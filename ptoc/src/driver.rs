//! The compile driver: one input buffer (or `// -----` chunk) through parse → import → passes →
//! output, with the located diagnostics of whichever stage failed.

use ptoc_dialect::{export_module, import_module, Frontend};
use ptoc_ir::{Diagnostic, Module};

/// What to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// The module as MLIR (after the pipeline), printed by MLIR.
    Mlir,
}

/// Everything the command line can set for a compile.
#[derive(Clone, Debug)]
pub struct Options {
    pub emit: Emit,
    /// Print locations (`loc(...)`) in MLIR output.
    pub debug_info: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            emit: Emit::Mlir,
            debug_info: false,
        }
    }
}

/// The result of one buffer: output bytes on success, diagnostics either way.
#[derive(Debug, Default)]
pub struct Outcome {
    pub output: Option<Vec<u8>>,
    pub diagnostics: Vec<Diagnostic>,
}

/// One MLIR context and the options of a run; reuse it for many buffers.
pub struct Driver {
    frontend: Frontend,
    pub options: Options,
}

impl Driver {
    pub fn new(options: Options) -> Driver {
        Driver {
            frontend: Frontend::new(),
            options,
        }
    }

    /// Parse and import `source` (named `file` in diagnostics) into the tile IR.
    pub fn import(&self, source: &str, file: &str) -> Result<Module, Vec<Diagnostic>> {
        let module = self.frontend.parse(source, file)?;
        import_module(&self.frontend, &module, source)
    }

    /// Run one buffer through the whole compile.
    pub fn process(&self, source: &str, file: &str) -> Outcome {
        match self.compile(source, file) {
            Ok(output) => Outcome {
                output: Some(output),
                diagnostics: Vec::new(),
            },
            Err(diagnostics) => Outcome {
                output: None,
                diagnostics,
            },
        }
    }

    fn compile(&self, source: &str, file: &str) -> Result<Vec<u8>, Vec<Diagnostic>> {
        let module = self.import(source, file)?;
        match self.options.emit {
            Emit::Mlir => self.print_mlir(&module).map(String::into_bytes),
        }
    }

    /// The tile IR printed as MLIR (exported, re-parsed and printed by MLIR).
    pub fn print_mlir(&self, module: &Module) -> Result<String, Vec<Diagnostic>> {
        let exported = export_module(&self.frontend, module)?;
        Ok(self.frontend.print(&exported, self.options.debug_info))
    }
}
