//! One MLIR context, configured for ptoc: the `func` dialect registered, unregistered dialects
//! (`pto`) allowed, and every MLIR diagnostic captured as a located [`Diagnostic`].
//!
//! Parsing goes through MLIR's parse-from-file entry point, which is the one that names locations
//! after the file and wraps top-level ops in an implicit module exactly as mlir-opt does. Buffers
//! that are not files (standard input, `// -----` chunks) are written to a private temporary file
//! first, and its path is mapped back to the name the user knows in every location.

use melior::dialect::DialectHandle;
use melior::ir::operation::{OperationLike, OperationPrintingFlags};
use melior::ir::{Location as MlirLocation, Module};
use melior::{diagnostic::DiagnosticSeverity, Context};
use ptoc_ir::{Diagnostic, Location, Severity};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

/// Temporary file path → the name diagnostics should show.
type FileNames = Rc<RefCell<HashMap<String, Arc<str>>>>;

/// An MLIR context plus the diagnostics it has reported since the last [`Frontend::take_diagnostics`].
pub struct Frontend {
    context: Context,
    captured: Rc<RefCell<Vec<Diagnostic>>>,
    names: FileNames,
    parses: Cell<u64>,
}

/// A parsed MLIR module, tied to the [`Frontend`] that parsed it.
pub type ParsedModule<'c> = Module<'c>;

impl Default for Frontend {
    fn default() -> Self {
        Frontend::new()
    }
}

impl Frontend {
    pub fn new() -> Frontend {
        // Single-threaded: ptoc parses one file at a time and a thread pool only costs start-up.
        let context = Context::new_with_threading(false);
        DialectHandle::func().register_dialect(&context);
        context.get_or_load_dialect("func");
        context.set_allow_unregistered_dialects(true);
        let captured = Rc::new(RefCell::new(Vec::new()));
        let names = FileNames::default();
        let (sink, sink_names) = (Rc::clone(&captured), Rc::clone(&names));
        context.attach_diagnostic_handler(move |diag| {
            sink.borrow_mut()
                .push(convert_diagnostic(&diag, &sink_names.borrow()));
            true
        });
        Frontend {
            context,
            captured,
            names,
            parses: Cell::new(0),
        }
    }

    /// The file:line:col of an MLIR location, with temporary file names mapped back.
    pub fn location(&self, loc: MlirLocation) -> Location {
        convert_location(loc, &self.names.borrow())
    }

    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Diagnostics MLIR reported since the last call.
    pub fn take_diagnostics(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.captured.borrow_mut())
    }

    /// Parse (and verify) `source` as the contents of `file`. Locations name `file`.
    pub fn parse<'c>(&'c self, source: &str, file: &str) -> Result<Module<'c>, Vec<Diagnostic>> {
        self.take_diagnostics();
        let path = self.temp_path();
        let path_text = path.to_string_lossy().into_owned();
        if let Err(e) = std::fs::write(&path, source) {
            return Err(vec![Diagnostic::error(
                Location::new(file, 1, 1),
                format!("cannot stage the input for MLIR in '{path_text}': {e}"),
            )]);
        }
        self.names
            .borrow_mut()
            .insert(path_text.clone(), Arc::from(file));
        let name = mlir_sys::MlirStringRef {
            data: path_text.as_ptr() as *const _,
            length: path_text.len(),
        };
        // SAFETY: the string ref points at a live buffer for the duration of the call; the
        // returned module is owned by us (null on failure, checked by `from_option_raw`).
        let module = unsafe {
            Module::from_option_raw(mlir_sys::mlirModuleCreateParseFromFile(
                self.context.to_raw(),
                name,
            ))
        };
        let _ = std::fs::remove_file(&path);
        let diags = self.take_diagnostics();
        match module {
            Some(module) if !diags.iter().any(|d| d.severity == Severity::Error) => Ok(module),
            _ if diags.is_empty() => Err(vec![Diagnostic::error(
                Location::new(file, 1, 1),
                "MLIR could not parse the input",
            )]),
            _ => Err(diags),
        }
    }

    /// A fresh path in the system temporary directory, unique to this process and parse.
    fn temp_path(&self) -> PathBuf {
        let n = self.parses.get();
        self.parses.set(n + 1);
        std::env::temp_dir().join(format!("ptoc-{}-{n}.mlir", std::process::id()))
    }

    /// Print a module as MLIR does, with or without location info.
    pub fn print(&self, module: &Module, debug_info: bool) -> String {
        let flags = OperationPrintingFlags::new().enable_debug_info(debug_info, false);
        module
            .as_operation()
            .to_string_with_flags(flags)
            .unwrap_or_else(|_| module.as_operation().to_string())
    }
}

/// The file:line:col inside an MLIR location (looking through names, call sites and fusions).
fn convert_location(loc: MlirLocation, names: &HashMap<String, Arc<str>>) -> Location {
    if loc.is_file_line_col_range() {
        let file = loc.file_line_col_range_filename();
        let file = file.as_string_ref().as_str().unwrap_or("<invalid>");
        let file = names.get(file).cloned().unwrap_or_else(|| Arc::from(file));
        return Location::new(
            file,
            loc.file_line_col_range_start_line() as u32,
            loc.file_line_col_range_start_column() as u32,
        );
    }
    if loc.is_name() {
        return convert_location(loc.name_child_location(), names);
    }
    if loc.is_call_site() {
        return convert_location(loc.call_site_callee(), names);
    }
    if loc.is_fused() {
        return (0..loc.fused_num_locations())
            .map(|i| convert_location(loc.fused_location(i), names))
            .find(Location::is_known)
            .unwrap_or_default();
    }
    Location::unknown()
}

fn convert_diagnostic(
    diag: &melior::diagnostic::Diagnostic,
    names: &HashMap<String, Arc<str>>,
) -> Diagnostic {
    let severity = match diag.severity() {
        DiagnosticSeverity::Error => Severity::Error,
        DiagnosticSeverity::Warning => Severity::Warning,
        DiagnosticSeverity::Note => Severity::Note,
        DiagnosticSeverity::Remark => Severity::Remark,
    };
    let mut out = Diagnostic {
        severity,
        loc: convert_location(diag.location(), names),
        message: diag.to_string(),
        notes: Vec::new(),
    };
    for i in 0..diag.note_count() {
        // MLIR echoes the failing op in generic form as a note; our caret already shows it, and
        // mlir-opt drops it under --verify-diagnostics (the C API cannot switch it off).
        if let Some(note) = diag
            .note(i)
            .ok()
            .filter(|n| !n.to_string().starts_with("see current operation"))
        {
            out.notes
                .push((convert_location(note.location(), names), note.to_string()));
        }
    }
    out
}
