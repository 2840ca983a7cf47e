//! One MLIR context, configured for ptoc: the `func` dialect loaded, those of GM kernels (`scf`,
//! `arith`) and of linalg-on-tensors input (`linalg`, `tensor`, `math`, `ml_program`) registered
//! for the parser to load on demand, unregistered dialects (`pto`) allowed, and every MLIR
//! diagnostic captured as a located [`Diagnostic`].
//!
//! Buffers are parsed from memory, nothing is written to disk: `parse_named.cpp` (next to this
//! crate's sources) calls `mlir::parseSourceString<ModuleOp>`, which wraps top-level ops in an
//! implicit module exactly as mlir-opt does and names every location after the buffer. A whole
//! file's buffer is named after the file; a `// -----` chunk gets a name of its own that this
//! module maps back to the file and the chunk's first line, so it keeps the file's line numbers.

use crate::nesting::check_nesting;
use melior::dialect::{DialectHandle, DialectRegistry};
use melior::ir::operation::{OperationLike, OperationPrintingFlags};
use melior::ir::{Location as MlirLocation, Module};
use melior::{diagnostic::DiagnosticSeverity, Context};
use ptoc_ir::{Diagnostic, Location, Severity, Source};
use std::sync::{Arc, Mutex, MutexGuard};

/// The stack MLIR's recursive parser and verifier run on, whatever the calling thread's own
/// stack is (embedders often parse on threads with 2 MiB or less). With bracket nesting bounded
/// by [`crate::nesting::MAX_NESTING`], the deepest input needs between 1 and 2 MiB (measured),
/// so this leaves a margin of 32; the memory is reserved, not touched, so a parse costs only the
/// pages it uses.
pub const PARSE_STACK_BYTES: usize = 64 << 20;

/// An MLIR context plus the diagnostics it has reported since the last [`Frontend::take_diagnostics`].
///
/// A `Frontend` is `Send` but not `Sync`: move it to another thread or keep one per thread, and
/// parse with one thread at a time (MLIR contexts are not bound to a thread, but ptoc creates
/// them without MLIR's internal locking).
pub struct Frontend {
    context: Context,
    state: Arc<Mutex<State>>,
}

/// What the diagnostic handler shares with the frontend.
#[derive(Default)]
struct State {
    captured: Vec<Diagnostic>,
    /// The buffer being (or last) parsed: the name MLIR gave its locations, and the file and
    /// first line that name stands for.
    buffer_name: String,
    file: Arc<str>,
    first_line: u32,
}

extern "C" {
    /// `parse_named.cpp`: parse `source` (NUL-terminated one byte past its length) into a
    /// module named `source_name`; null on failure, with diagnostics through the context.
    fn ptocModuleCreateParseNamed(
        context: mlir_sys::MlirContext,
        source: mlir_sys::MlirStringRef,
        source_name: mlir_sys::MlirStringRef,
    ) -> mlir_sys::MlirModule;
}

extern "C" {
    /// `linalg_input.cpp`: add the interface models upstream normalisation needs (the tensor
    /// reshape ops' shape reification) to `registry`.
    fn ptocRegisterLinalgInputExtensions(registry: mlir_sys::MlirDialectRegistry);
}

/// An MLIR string reference to `text` (which must outlive its use).
fn string_ref(text: &[u8]) -> mlir_sys::MlirStringRef {
    mlir_sys::MlirStringRef {
        data: text.as_ptr() as *const _,
        length: text.len(),
    }
}

// SAFETY: the MLIR context has no thread affinity: its uniquer caches are per-thread lookups of
// context-owned storage, valid from any thread. Everything else the context holds (the
// diagnostic handler's closure) is `Send`. `Frontend` is not `Sync` (the context is not), so it
// is only ever used by the one thread that owns it at the time.
unsafe impl Send for Frontend {}

/// A parsed MLIR module, tied to the [`Frontend`] that parsed it.
pub type ParsedModule<'c> = Module<'c>;

impl Default for Frontend {
    fn default() -> Self {
        Frontend::new()
    }
}

impl Frontend {
    /// A context with the dialects ptoc reads (func, scf, arith; `pto` stays unregistered) and
    /// a handler that captures MLIR's diagnostics.
    pub fn new() -> Frontend {
        // Single-threaded: ptoc parses one file at a time and a thread pool only costs start-up.
        let context = Context::new_with_threading(false);
        DialectHandle::func().register_dialect(&context);
        context.get_or_load_dialect("func");
        // What GM kernels use besides pto (README, Kernels over global memory: scf loops, arith
        // scalars) and what linalg-on-tensors input uses (README, linalg-on-tensors input), with
        // the interface models its normalisation needs: registered, not loaded. The parser loads
        // a registered dialect when it first meets one of its ops, so input without them does
        // not build their op tables (loading scf and arith up front cost every run 0.7M
        // instructions, and every type printed or dialect looked up after that a little more).
        let registry = DialectRegistry::new();
        for handle in [DialectHandle::scf(), DialectHandle::arith()]
            .into_iter()
            .chain(linalg_dialects())
        {
            handle.insert_dialect(&registry);
        }
        // SAFETY: the registry is live; the call only adds extension entries to it.
        unsafe { ptocRegisterLinalgInputExtensions(registry.to_raw()) };
        context.append_dialect_registry(&registry);
        context.set_allow_unregistered_dialects(true);
        let state = Arc::new(Mutex::new(State::default()));
        let sink = Arc::clone(&state);
        context.attach_diagnostic_handler(move |diag| {
            let mut state = lock(&sink);
            let converted = convert_diagnostic(&diag, &state);
            state.captured.push(converted);
            true
        });
        Frontend { context, state }
    }

    /// The file:line:col of an MLIR location, with the buffer name mapped back to the file.
    pub fn location(&self, loc: MlirLocation) -> Location {
        convert_location(loc, &lock(&self.state))
    }

    /// The MLIR context, to build or parse modules in.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Diagnostics MLIR reported since the last call.
    pub fn take_diagnostics(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut lock(&self.state).captured)
    }

    /// Parse (and verify) `source`. Locations name `source.file` and count lines from
    /// `source.first_line`, until the next parse.
    pub fn parse<'c>(&'c self, source: &Source) -> Result<Module<'c>, Vec<Diagnostic>> {
        self.take_diagnostics();
        check_nesting(source).map_err(|e| vec![e])?;
        let buffer_name = match source.first_line {
            1 => source.file.to_string(),
            line => format!("{} (split at line {line})", source.file),
        };
        {
            let mut state = lock(&self.state);
            state.buffer_name.clone_from(&buffer_name);
            state.file = Arc::from(source.file);
            state.first_line = source.first_line;
        }
        // MLIR's lexer looks one byte past the buffer for a NUL.
        let mut text = Vec::with_capacity(source.text.len() + 1);
        text.extend_from_slice(source.text.as_bytes());
        text.push(0);
        let (text_ref, name_ref) = (
            string_ref(&text[..source.text.len()]),
            string_ref(buffer_name.as_bytes()),
        );
        let context = self.context.to_raw();
        // SAFETY: both string refs point at live buffers for the duration of the call (the
        // source one NUL-terminated); the returned module is owned by us (null on failure,
        // checked by `from_option_raw`).
        let module = stacker::grow(PARSE_STACK_BYTES, || unsafe {
            Module::from_option_raw(ptocModuleCreateParseNamed(context, text_ref, name_ref))
        });
        drop(text);
        let diags = self.take_diagnostics();
        let at_start = || Location::new(source.file, source.first_line, 1);
        match module {
            Some(module) if !diags.iter().any(|d| d.severity == Severity::Error) => Ok(module),
            _ if diags.is_empty() => Err(vec![Diagnostic::error(
                at_start(),
                "MLIR could not parse the input",
            )]),
            _ => Err(diags.into_iter().map(iree_hint).collect()),
        }
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

/// The dialects of linalg-on-tensors programs: linalg, tensor, math, and ml_program (whose
/// module-level globals torch-mlir emits).
/// The dialects of IREE's own wrappers (`iree-compile --compile-to=input` and later phases),
/// which ptoc cannot parse: it reads torch-mlir's linalg-on-tensors output instead.
const IREE_DIALECTS: [&str; 4] = ["util", "hal", "flow", "stream"];

/// `d`, with a note naming the input ptoc takes when MLIR could not parse an IREE wrapper op
/// (README, Compiling IREE and torch-mlir output).
fn iree_hint(d: Diagnostic) -> Diagnostic {
    let iree = IREE_DIALECTS.iter().any(|name| {
        d.message
            .starts_with(&format!("Dialect `{name}' not found"))
    });
    if !iree {
        return d;
    }
    let loc = d.loc.clone();
    d.with_note(
        loc,
        "this is IREE's ABI-wrapped module (util.func, hal buffer views); ptoc compiles \
         torch-mlir's linalg-on-tensors output: iree-opt \
         --pass-pipeline='builtin.module(torch-onnx-to-torch-backend-pipeline,\
         torch-backend-to-linalg-on-tensors-backend-pipeline)' model.torch.mlir",
    )
}

fn linalg_dialects() -> [DialectHandle; 5] {
    // SAFETY: the handles are static descriptors that MLIR's C API returns by value.
    let (math, ml_program) = unsafe {
        (
            DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__math__()),
            DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__ml_program__()),
        )
    };
    [
        DialectHandle::linalg(),
        DialectHandle::tensor(),
        math,
        ml_program,
        // torch-mlir's shape and value checks (`cf.assert`), which the importer refuses or
        // strips (README, Compiling IREE and torch-mlir output).
        DialectHandle::cf(),
    ]
}

/// The state lock; a panic elsewhere cannot leave captured diagnostics half-written, so a
/// poisoned lock is still good.
fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The file:line:col inside an MLIR location (looking through names, call sites and fusions).
fn convert_location(loc: MlirLocation, buffer: &State) -> Location {
    if loc.is_file_line_col_range() {
        let file = loc.file_line_col_range_filename();
        let file = text(file.as_string_ref());
        let file = file.as_ref();
        let line = loc.file_line_col_range_start_line() as u32;
        let col = loc.file_line_col_range_start_column() as u32;
        return if file == buffer.buffer_name {
            let line = line.saturating_add(buffer.first_line.saturating_sub(1));
            Location::new(buffer.file.clone(), line, col)
        } else {
            Location::new(file, line, col)
        };
    }
    if loc.is_name() {
        return convert_location(loc.name_child_location(), buffer);
    }
    if loc.is_call_site() {
        return convert_location(loc.call_site_callee(), buffer);
    }
    if loc.is_fused() {
        return (0..loc.fused_num_locations())
            .map(|i| convert_location(loc.fused_location(i), buffer))
            .find(Location::is_known)
            .unwrap_or_default();
    }
    Location::unknown()
}

fn convert_diagnostic(diag: &melior::diagnostic::Diagnostic, buffer: &State) -> Diagnostic {
    let severity = match diag.severity() {
        DiagnosticSeverity::Error => Severity::Error,
        DiagnosticSeverity::Warning => Severity::Warning,
        DiagnosticSeverity::Note => Severity::Note,
        DiagnosticSeverity::Remark => Severity::Remark,
    };
    let mut out = Diagnostic {
        severity,
        loc: convert_location(diag.location(), buffer),
        message: diag.to_string(),
        notes: Vec::new(),
        rule: None,
        fault: None,
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
                .push((convert_location(note.location(), buffer), note.to_string()));
        }
    }
    out
}

/// The text of an MLIR string (an identifier, a file name, a string attribute's value), with any
/// bytes that are not UTF-8 replaced (MLIR strings may hold any bytes: `"\FF"`). melior's
/// `StringRef::as_str` indexes the last byte, so it panics on an empty string, and
/// `StringAttribute::value` unwraps the UTF-8 check: every string read from input goes through
/// here instead.
pub(crate) fn text(s: melior::StringRef<'_>) -> std::borrow::Cow<'_, str> {
    let raw = s.to_raw();
    if raw.length == 0 || raw.data.is_null() {
        return std::borrow::Cow::Borrowed("");
    }
    // SAFETY: MLIR's string references point at `length` live bytes owned by the context.
    let bytes = unsafe { std::slice::from_raw_parts(raw.data.cast::<u8>(), raw.length) };
    // Like melior, drop a terminating NUL some C strings carry.
    let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
    String::from_utf8_lossy(bytes)
}

/// A string attribute's value, as [`text`] reads it.
pub(crate) fn string_value(attr: melior::ir::attribute::StringAttribute<'_>) -> String {
    use melior::ir::attribute::AttributeLike;
    // SAFETY: a plain query on a live attribute; the string is owned by its context.
    let raw = unsafe { mlir_sys::mlirStringAttrGetValue(attr.to_raw()) };
    text(unsafe { melior::StringRef::from_raw(raw) }).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nesting::MAX_NESTING;
    use melior::ir::block::BlockLike;

    /// Attributes and regions nested as deep as ptoc accepts, and deeper; the first is a kernel
    /// whose import prints the attribute into its error message.
    fn nested_inputs(depth: usize) -> [String; 3] {
        let kernel = format!(
            "func.func @k(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {{\n  \
             %r = \"pto.texp\"(%x) {{pto.a = {}{}}} : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>\n  \
             return %r : !pto.tile<16x64xf32>\n}}\n",
            "[".repeat(depth - 2),
            "]".repeat(depth - 2)
        );
        let attr = format!(
            "\"t.op\"() {{a = {}{}}} : () -> ()\n",
            "[".repeat(depth - 1),
            "]".repeat(depth - 1)
        );
        let regions = format!(
            "{}{}",
            "\"t.op\"() ({\n".repeat(depth.div_ceil(2)),
            "}) : () -> ()\n".repeat(depth.div_ceil(2))
        );
        [kernel, attr, regions]
    }

    /// MLIR's parser recurses per level and has no limit: 8 000 levels used to overflow the
    /// stack (SIGABRT). At the limit the parse runs on its own stack, so even a thread with a
    /// small stack parses, verifies and frees such a module; past it, a located error.
    #[test]
    fn deep_nesting_parses_on_a_small_stack_or_is_refused() {
        let worker = std::thread::Builder::new().stack_size(256 << 10);
        let handle = worker
            .spawn(|| {
                let frontend = Frontend::new();
                let [kernel, others @ ..] = nested_inputs(MAX_NESTING);
                let source = Source::new(&kernel, "deep.mlir");
                let module = frontend.parse(&source).unwrap();
                let errors = crate::import_module(&frontend, &module, &source).unwrap_err();
                assert!(errors[0].message.contains("[[[[[[]]]]]]"), "{errors:?}");
                for text in others {
                    let module = frontend.parse(&Source::new(&text, "deep.mlir"));
                    assert!(module.is_ok(), "{:?}", module.err());
                }
                for depth in [MAX_NESTING + 1, 8_000, 100_000] {
                    for text in nested_inputs(depth) {
                        let errors = frontend
                            .parse(&Source::new(&text, "deep.mlir"))
                            .unwrap_err();
                        assert!(errors[0].message.contains("nest deeper than"), "{errors:?}");
                        assert_eq!(errors[0].loc.file.as_deref(), Some("deep.mlir"));
                    }
                }
            })
            .unwrap();
        handle.join().expect("the worker thread must not crash");
    }

    /// Locations name the user's file; a chunk's lines are the file's; nothing is staged on disk.
    #[test]
    fn locations_name_the_file_and_chunk_lines() {
        let frontend = Frontend::new();
        let text = "\n  \"t.op\"() : () -> (i32\n";
        let whole = frontend.parse(&Source::new(text, "k.mlir")).unwrap_err();
        assert_eq!(whole[0].loc, Location::new("k.mlir", 2, 24));
        let chunk = Source {
            text,
            file: "k.mlir",
            first_line: 40,
        };
        let errors = frontend.parse(&chunk).unwrap_err();
        assert_eq!(errors[0].loc, Location::new("k.mlir", 41, 24));
        // An explicit location naming another file is kept as written.
        let module = frontend
            .parse(&Source::new(
                "\"t.op\"() : () -> () loc(\"other.mlir\":7:3)\n",
                "k.mlir",
            ))
            .unwrap();
        let op = module.body().first_operation().unwrap();
        assert_eq!(
            frontend.location(op.location()),
            Location::new("other.mlir", 7, 3)
        );
    }
}
