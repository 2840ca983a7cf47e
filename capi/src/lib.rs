//! The C API of ptoc: compile, run and verify PTO kernels from C and C++.
//!
//! `include/ptoc.h` is generated from this file by cbindgen (`cbindgen.toml`); the test
//! `header_is_up_to_date` fails when it is stale. Every entry point:
//!
//! - returns a [`PtocStatus`] and, through its last argument, a result object that the caller
//!   frees with the matching `ptoc_*_free` (also on failure: it carries the diagnostics or the
//!   error message); every string and buffer in a result lives until that free;
//! - refuses null pointers and strings that are not UTF-8 with `PTOC_STATUS_INVALID_ARGUMENT`
//!   and a message, never undefined behaviour (a null result pointer gets the status only);
//! - catches panics: none crosses into C (a panic is `PTOC_STATUS_INTERNAL_ERROR`);
//! - keeps no global state: each call builds its own compiler, so calls from many threads at
//!   once are safe, and nothing is written anywhere but the result.

#![warn(missing_docs)]
// Every entry point checks its pointers for null before it reads them; the ones it cannot check
// (lengths, buffer sizes) are the caller's contract, stated in each function's documentation.
#![allow(clippy::missing_safety_doc)]

use ptoc::codegen::Kernel;
use ptoc::ir::{Diagnostic, Severity, Source};
use ptoc::isa::profile::NamingModel;
use ptoc::tensor::ElementType;
use ptoc::{CompileError, Driver, ExecError, Options, Tensor, VerifyError};
use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

/// What a call did. Every status but `PTOC_STATUS_OK` comes with a message in the result's `error`
/// and, for compile errors, with diagnostics.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtocStatus {
    /// Success.
    Ok = 0,
    /// The source does not compile; the result's diagnostics say why.
    CompileError = 1,
    /// The kernel faulted; the result's `fault` says where and why.
    Fault = 2,
    /// Verification found compiled code that disagrees with its source (`mismatch`).
    Mismatch = 3,
    /// A null pointer, a string that is not UTF-8, an unknown option or a malformed input.
    InvalidArgument = 4,
    /// The kernel could not be run (wrong inputs, an object that does not load).
    RunError = 5,
    /// A bug in ptoc (a caught panic); the message says where.
    InternalError = 6,
}

/// How bad a diagnostic is.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtocSeverity {
    /// An error: the compile failed.
    Error = 0,
    /// A warning.
    Warning = 1,
    /// A note attached to the diagnostic before it (a related location).
    Note = 2,
    /// A remark.
    Remark = 3,
}

/// One located diagnostic.
#[repr(C)]
pub struct PtocDiagnostic {
    /// The file the location is in; `""` when unknown.
    pub file: *const c_char,
    /// 1-based line; 0 when unknown.
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub column: u32,
    /// Error, warning, note (of the diagnostic before it) or remark.
    pub severity: PtocSeverity,
    /// What is wrong.
    pub message: *const c_char,
    /// The named rule broken (`"same-type"`), or null.
    pub rule: *const c_char,
    /// The fault class the hardware would raise (`"Fault_TileLegality"`), or null.
    pub fault_class: *const c_char,
}

/// Compile options. Start from `ptoc_compile_options_default()`.
#[repr(C)]
pub struct PtocCompileOptions {
    /// `"obj"` (an ELF object), `"asm"`, `"words"` or `"mlir"`; null means `"obj"`.
    pub emit: *const c_char,
    /// Optimisation level: 0 leaves fusion out, 2 is the default.
    pub opt_level: u8,
    /// A `--pass-pipeline` (`"pto-verify,pto-allocate"`); null runs the default pipeline.
    pub pipeline: *const c_char,
    /// The PE mask as four binary digits, PE0 first; null means `"1111"`.
    pub pe_mask: *const c_char,
    /// How the target names tiles, recorded in the object: `"queue"` or `"absolute"`
    /// (docs/isa.md §9 decisions 1–2); null means the pipeline's default.
    pub target_profile: *const c_char,
    /// linalg input: read every op as `fastmath<nnan>` (`--assume-no-nans`).
    pub assume_no_nans: bool,
    /// linalg input: let float sums and products reassociate (`--allow-reassociation`).
    pub allow_reassociation: bool,
    /// linalg input: drop `cf.assert` ops instead of refusing them (`--strip-assertions`).
    pub strip_assertions: bool,
}

/// What `ptoc_compile` produced.
#[repr(C)]
pub struct PtocCompileResult {
    /// The call's status.
    pub status: PtocStatus,
    /// The output: object bytes, or text (NUL-terminated, `output_len` excludes the NUL);
    /// null on failure.
    pub output: *const u8,
    /// Bytes in `output`.
    pub output_len: usize,
    /// Diagnostics (errors, their notes, warnings).
    pub diagnostics: *const PtocDiagnostic,
    /// Entries in `diagnostics`.
    pub num_diagnostics: usize,
    /// What went wrong, one line per diagnostic for compile errors; null on success.
    pub error: *const c_char,
}

/// One input of `ptoc_run`: a tile argument's valid region, a memref (GM buffer) argument's
/// whole `rows × cols` contents, or a scalar argument as a 1×1 tensor (an `index` scalar is an
/// `"si64"`, i.e. an `int64_t`).
#[repr(C)]
pub struct PtocTensorIn {
    /// The argument: its position (`"0"`) or its source name (`"x"` for `%x`); null means the
    /// position of this entry in the array.
    pub name: *const c_char,
    /// The element type of `data` (`"f32"`, `"bf16"`, `"FP32"`, `"i1"` or `"PRED"` for a
    /// predicate); null means the argument's own. The unsigned type of the element's width
    /// (`"ui16"` for bf16, `"ui8"` for a predicate) gives raw bits.
    pub dtype: *const c_char,
    /// Rows of `data`: the argument's valid rows.
    pub rows: u32,
    /// Columns of `data`: the argument's valid columns.
    pub cols: u32,
    /// `rows × cols` elements, row-major, each at the type's width in native byte order
    /// (`float` for f32, `double` for f64, `uint16_t` bits for f16/bf16, `int8_t` for si8, a
    /// `uint8_t` 0 or 1 for a predicate element: unpacked, one byte each).
    pub data: *const c_void,
    /// Bytes in `data`, checked against `rows × cols` elements of the type; 0 means exactly
    /// that many (unchecked).
    pub size: usize,
}

/// One output of `ptoc_run`: a result tile's valid region, or a stored memref's contents.
#[repr(C)]
pub struct PtocTensorOut {
    /// The result's name, as `ptoc run` names it (`"r0"`), or the memref argument's.
    pub name: *const c_char,
    /// Its element type (`"f32"`, `"i1"` for a predicate; the spec's name for types MLIR does
    /// not spell).
    pub dtype: *const c_char,
    /// Valid rows (a memref's rows).
    pub rows: u32,
    /// Valid columns (a memref's columns).
    pub cols: u32,
    /// `rows × cols` elements, row-major, laid out as `PtocTensorIn::data`.
    pub data: *const c_void,
    /// Bytes in `data`.
    pub size: usize,
}

/// A fault the kernel raised.
#[repr(C)]
pub struct PtocFault {
    /// `"Fault_IllegalInstruction"`, `"Fault_BundleControl"`, `"Fault_TileLegality"`,
    /// `"Fault_TileAllocation"`, a GM fault (`"Fault_DataPage"`, `"Fault_DataAlign"`) or
    /// `"Fault_StepLimit"`.
    pub class_name: *const c_char,
    /// The index of the faulting bundle (every block started counts, in execution order).
    pub bundle: usize,
    /// Why.
    pub reason: *const c_char,
    /// Whether `address` holds the faulting GM address (GM faults only).
    pub has_address: bool,
    /// The GM byte address of the faulting element; 0 when `has_address` is false.
    pub address: u64,
}

/// What `ptoc_run` produced.
#[repr(C)]
pub struct PtocRunResult {
    /// The call's status.
    pub status: PtocStatus,
    /// The result tiles (on `PTOC_STATUS_OK`).
    pub outputs: *const PtocTensorOut,
    /// Entries in `outputs`.
    pub num_outputs: usize,
    /// Every memref argument the kernel stores to, whole, after the run (on
    /// `PTOC_STATUS_OK`), in argument order.
    pub memrefs: *const PtocTensorOut,
    /// Entries in `memrefs`.
    pub num_memrefs: usize,
    /// Sticky status flags: NV 0x01, DZ 0x02, OF 0x04, UF 0x08, NX 0x10.
    pub flags: u8,
    /// The fault (on `PTOC_STATUS_FAULT`), or null.
    pub fault: *const PtocFault,
    /// Diagnostics, when the kernel was source text that does not compile.
    pub diagnostics: *const PtocDiagnostic,
    /// Entries in `diagnostics`.
    pub num_diagnostics: usize,
    /// What went wrong; null on success.
    pub error: *const c_char,
}

/// One argument's input element of a mismatch.
#[repr(C)]
pub struct PtocInputElement {
    /// The argument's name.
    pub argument: *const c_char,
    /// Row in its valid region.
    pub row: u32,
    /// Column in its valid region.
    pub col: u32,
    /// Its element type.
    pub dtype: *const c_char,
    /// The element's bit pattern.
    pub bits: u64,
}

/// The first disagreement `ptoc_verify` found.
#[repr(C)]
pub struct PtocMismatch {
    /// The kernel.
    pub kernel: *const c_char,
    /// The trial (0-based) that showed it.
    pub trial: u32,
    /// The result that differs (`"r0"`), or null for flags and faults.
    pub result: *const c_char,
    /// The source op defining that result (`"pto.trowexpandmax"`), or null.
    pub op: *const c_char,
    /// Where that op is: file (`""` when unknown), line and column.
    pub file: *const c_char,
    /// See `file`.
    pub line: u32,
    /// See `file`.
    pub column: u32,
    /// The differing element's row, or -1.
    pub row: i64,
    /// The differing element's column, or -1.
    pub col: i64,
    /// The compiled kernel's value (`"0x3f800000 (1)"`, `"undefined"`, flags, a fault).
    pub compiled: *const c_char,
    /// The reference evaluator's value.
    pub reference: *const c_char,
    /// Every argument's input at that element.
    pub inputs: *const PtocInputElement,
    /// Entries in `inputs`.
    pub num_inputs: usize,
    /// The whole report as one line.
    pub message: *const c_char,
}

/// What `ptoc_verify` found.
#[repr(C)]
pub struct PtocVerifyResult {
    /// The call's status (`PTOC_STATUS_OK`: every kernel matched on every trial).
    pub status: PtocStatus,
    /// The mismatch (on `PTOC_STATUS_MISMATCH`), or null.
    pub mismatch: *const PtocMismatch,
    /// Diagnostics, when the source does not compile.
    pub diagnostics: *const PtocDiagnostic,
    /// Entries in `diagnostics`.
    pub num_diagnostics: usize,
    /// What went wrong; null on success.
    pub error: *const c_char,
}

/// Owned storage behind the pointers of a result: strings, buffers and arrays whose heap
/// blocks do not move when these vectors grow (single structs are boxed for the same reason).
#[derive(Default)]
#[allow(clippy::vec_box)]
struct Arena {
    strings: Vec<CString>,
    buffers: Vec<Vec<u8>>,
    diagnostics: Vec<Vec<PtocDiagnostic>>,
    outputs: Vec<Vec<PtocTensorOut>>,
    inputs: Vec<Vec<PtocInputElement>>,
    faults: Vec<Box<PtocFault>>,
    mismatches: Vec<Box<PtocMismatch>>,
}

impl Arena {
    /// A NUL-terminated copy of `text` (an interior NUL is written `\0`).
    fn string(&mut self, text: &str) -> *const c_char {
        let c = CString::new(text.replace('\0', "\\0")).unwrap_or_default();
        let p = c.as_ptr();
        self.strings.push(c);
        p
    }

    fn optional(&mut self, text: Option<&str>) -> *const c_char {
        text.map_or(ptr::null(), |t| self.string(t))
    }

    /// Named tensors as C outputs, their bytes kept here.
    fn tensors(&mut self, tensors: &[(String, Tensor)]) -> (*const PtocTensorOut, usize) {
        let list: Vec<PtocTensorOut> = tensors
            .iter()
            .map(|(name, t)| {
                let data = t.to_bytes();
                let out = PtocTensorOut {
                    name: self.string(name),
                    dtype: self.string(t.element_type().mlir_name()),
                    rows: t.rows(),
                    cols: t.cols(),
                    data: data.as_ptr() as *const c_void,
                    size: data.len(),
                };
                self.buffers.push(data);
                out
            })
            .collect();
        let (p, n) = (list.as_ptr(), list.len());
        self.outputs.push(list);
        (p, n)
    }

    fn diagnostics(&mut self, diags: &[Diagnostic]) -> (*const PtocDiagnostic, usize) {
        let mut out = Vec::new();
        for d in diags {
            let file = d.loc.file.as_deref().unwrap_or("").to_string();
            out.push(PtocDiagnostic {
                file: self.string(&file),
                line: d.loc.line,
                column: d.loc.col,
                severity: severity(d.severity),
                message: self.string(&d.message),
                rule: self.optional(d.rule),
                fault_class: self.optional(d.fault.map(|f| f.name())),
            });
            for (loc, note) in &d.notes {
                let file = loc.file.as_deref().unwrap_or("").to_string();
                out.push(PtocDiagnostic {
                    file: self.string(&file),
                    line: loc.line,
                    column: loc.col,
                    severity: PtocSeverity::Note,
                    message: self.string(note),
                    rule: ptr::null(),
                    fault_class: ptr::null(),
                });
            }
        }
        let (p, n) = (out.as_ptr(), out.len());
        self.diagnostics.push(out);
        (p, n)
    }
}

fn severity(s: Severity) -> PtocSeverity {
    match s {
        Severity::Error => PtocSeverity::Error,
        Severity::Warning => PtocSeverity::Warning,
        Severity::Note => PtocSeverity::Note,
        Severity::Remark => PtocSeverity::Remark,
    }
}

/// A result as C sees it (`public`, first, so a pointer to the holder is a pointer to it) and
/// the storage its pointers point into.
#[repr(C)]
struct Holder<T> {
    public: T,
    arena: Arena,
}

/// A failure of a call: its status, a message, and diagnostics if there are any.
struct Failure {
    status: PtocStatus,
    message: String,
    diagnostics: Vec<Diagnostic>,
}

impl Failure {
    fn invalid(message: impl Into<String>) -> Failure {
        Failure {
            status: PtocStatus::InvalidArgument,
            message: message.into(),
            diagnostics: Vec::new(),
        }
    }
}

impl From<CompileError> for Failure {
    fn from(e: CompileError) -> Failure {
        Failure {
            status: PtocStatus::CompileError,
            message: e.to_string(),
            diagnostics: e.diagnostics,
        }
    }
}

impl From<ptoc::OptionsError> for Failure {
    fn from(e: ptoc::OptionsError) -> Failure {
        Failure::invalid(e.to_string())
    }
}

impl From<ExecError> for Failure {
    fn from(e: ExecError) -> Failure {
        let status = match e {
            ExecError::Fault { .. } => PtocStatus::Fault,
            _ => PtocStatus::RunError,
        };
        Failure {
            status,
            message: e.to_string(),
            diagnostics: Vec::new(),
        }
    }
}

impl From<ptoc::Error> for Failure {
    fn from(e: ptoc::Error) -> Failure {
        match e {
            ptoc::Error::Compile(c) => c.into(),
            ptoc::Error::Exec(x) => x.into(),
            other => Failure::invalid(other.to_string()),
        }
    }
}

/// A string argument: null and bad UTF-8 are failures naming the argument.
unsafe fn text<'a>(p: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if p.is_null() {
        return Err(Failure::invalid(format!("{what} is a null pointer")));
    }
    CStr::from_ptr(p)
        .to_str()
        .map_err(|e| Failure::invalid(format!("{what} is not UTF-8 (at byte {})", e.valid_up_to())))
}

/// An optional string argument: null is `None`.
unsafe fn optional_text<'a>(p: *const c_char, what: &str) -> Result<Option<&'a str>, Failure> {
    if p.is_null() {
        Ok(None)
    } else {
        text(p, what).map(Some)
    }
}

/// Run `body` (filling the holder's public part through the arena, and returning the status it
/// set) behind `catch_unwind`,
/// turn a failure or a panic into that result's status and message, and hand the result to
/// `out`. `fail` sets a result's status, message and diagnostics.
unsafe fn respond<T>(
    out: *mut *mut T,
    empty: impl Fn() -> T,
    fail: impl Fn(&mut T, &mut Arena, Failure),
    body: impl FnOnce(&mut T, &mut Arena) -> Result<PtocStatus, Failure>,
) -> PtocStatus {
    if out.is_null() {
        return PtocStatus::InvalidArgument;
    }
    *out = ptr::null_mut();
    let mut holder = Box::new(Holder {
        public: empty(),
        arena: Arena::default(),
    });
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let Holder { public, arena } = &mut *holder;
        body(public, arena)
    }));
    let failure = match outcome {
        Ok(Ok(status)) => Err(status),
        Ok(Err(f)) => Ok(f),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Ok(Failure {
                status: PtocStatus::InternalError,
                message: format!("internal error in ptoc (please report it): {what}"),
                diagnostics: Vec::new(),
            })
        }
    };
    // `Err` is the status of a call that reported its own outcome.
    let status = match failure {
        Err(status) => status,
        Ok(f) => {
            let status = f.status;
            // A fresh result: a panic may have left the old one half-filled.
            holder.public = empty();
            let Holder { public, arena } = &mut *holder;
            fail(public, arena, f);
            status
        }
    };
    *out = Box::into_raw(holder) as *mut T;
    status
}

/// Free a result made by `respond` (null is ignored).
unsafe fn release<T>(result: *mut T) {
    if !result.is_null() {
        drop(Box::from_raw(result as *mut Holder<T>));
    }
}

/// Default compile options: an ELF object, `-O2`, the default pipeline, PE mask `1111`, and
/// linalg's exact meaning (NaNs possible, no reassociation).
#[no_mangle]
pub extern "C" fn ptoc_compile_options_default() -> PtocCompileOptions {
    PtocCompileOptions {
        emit: ptr::null(),
        opt_level: 2,
        pipeline: ptr::null(),
        pe_mask: ptr::null(),
        target_profile: ptr::null(),
        assume_no_nans: false,
        allow_reassociation: false,
        strip_assertions: false,
    }
}

unsafe fn options(options: *const PtocCompileOptions) -> Result<Options, Failure> {
    let defaults = ptoc_compile_options_default();
    let o = options.as_ref().unwrap_or(&defaults);
    let mut options = Options::from_names(
        optional_text(o.emit, "options->emit")?.unwrap_or("obj"),
        o.opt_level,
        optional_text(o.pipeline, "options->pipeline")?,
        optional_text(o.pe_mask, "options->pe_mask")?.unwrap_or("1111"),
    )?;
    if let Some(name) = optional_text(o.target_profile, "options->target_profile")? {
        options.pass_options.target_profile = NamingModel::from_name(name).ok_or_else(|| {
            Failure::invalid(format!(
                "options->target_profile '{name}' is not a target profile; use queue or absolute"
            ))
        })?;
    }
    options.pass_options.assume_no_nans = o.assume_no_nans;
    options.pass_options.allow_reassociation = o.allow_reassociation;
    options.pass_options.strip_assertions = o.strip_assertions;
    Ok(options)
}

/// Compile MLIR `source` (NUL-terminated UTF-8) named `filename` (for diagnostics; null means
/// `"<string>"`) with `options` (null means the defaults). `*result` receives the output or
/// the diagnostics; free it with `ptoc_compile_result_free`.
#[no_mangle]
pub unsafe extern "C" fn ptoc_compile(
    source: *const c_char,
    filename: *const c_char,
    options: *const PtocCompileOptions,
    result: *mut *mut PtocCompileResult,
) -> PtocStatus {
    respond(result, empty_compile_result, fail_compile, |r, arena| {
        let source = text(source, "source")?;
        let filename = optional_text(filename, "filename")?.unwrap_or("<string>");
        let options = crate::options(options)?;
        let text_output = options.emit.is_text();
        let driver = Driver::new(options)?;
        let mut bytes = driver.compile(&Source::new(source, filename))?;
        r.output_len = bytes.len();
        if text_output {
            bytes.push(0);
        }
        r.output = bytes.as_ptr();
        arena.buffers.push(bytes);
        Ok(PtocStatus::Ok)
    })
}

fn empty_compile_result() -> PtocCompileResult {
    PtocCompileResult {
        status: PtocStatus::Ok,
        output: ptr::null(),
        output_len: 0,
        diagnostics: ptr::null(),
        num_diagnostics: 0,
        error: ptr::null(),
    }
}

fn fail_compile(r: &mut PtocCompileResult, arena: &mut Arena, f: Failure) {
    r.status = f.status;
    r.error = arena.string(&f.message);
    (r.diagnostics, r.num_diagnostics) = arena.diagnostics(&f.diagnostics);
}

/// Assemble PTO assembly `source` (NUL-terminated UTF-8: canonical syntax or the spec's
/// variants, with the `.kernel`, `.profile`, `.memref`, `.scalar` … metadata directives) named
/// `filename` (null means `"<string>"`) into an ELF object, as `ptoc asm` does: the way to run
/// hand-written kernels with `ptoc_run`. `*result` receives the object bytes or located
/// diagnostics (`PTOC_STATUS_COMPILE_ERROR`); free it with `ptoc_compile_result_free`.
#[no_mangle]
pub unsafe extern "C" fn ptoc_assemble(
    source: *const c_char,
    filename: *const c_char,
    result: *mut *mut PtocCompileResult,
) -> PtocStatus {
    respond(result, empty_compile_result, fail_compile, |r, arena| {
        let source = text(source, "source")?;
        let filename = optional_text(filename, "filename")?.unwrap_or("<string>");
        let bytes = ptoc::assemble(&Source::new(source, filename))?;
        (r.output, r.output_len) = (bytes.as_ptr(), bytes.len());
        arena.buffers.push(bytes);
        Ok(PtocStatus::Ok)
    })
}

/// Free a compile result (null is ignored).
#[no_mangle]
pub unsafe extern "C" fn ptoc_compile_result_free(result: *mut PtocCompileResult) {
    release(result)
}

/// Run a kernel on the interpreter. `kernel` is `kernel_len` bytes of an ELF object from
/// `ptoc_compile` or `ptoc_assemble`, or MLIR source text (compiled with the defaults first).
/// `function` picks the kernel by name (null: the only one). `inputs` holds `num_inputs`
/// tensors, one per argument (tiles, memrefs and scalars alike, see `PtocTensorIn`), each
/// `rows × cols` elements of its type's width. `*result` receives the result tiles and the
/// stored memrefs, or the fault (class, bundle, GM address), or why the kernel could not run;
/// free it with `ptoc_run_result_free`.
#[no_mangle]
pub unsafe extern "C" fn ptoc_run(
    kernel: *const u8,
    kernel_len: usize,
    function: *const c_char,
    inputs: *const PtocTensorIn,
    num_inputs: usize,
    result: *mut *mut PtocRunResult,
) -> PtocStatus {
    respond(
        result,
        || PtocRunResult {
            status: PtocStatus::Ok,
            outputs: ptr::null(),
            num_outputs: 0,
            memrefs: ptr::null(),
            num_memrefs: 0,
            flags: 0,
            fault: ptr::null(),
            diagnostics: ptr::null(),
            num_diagnostics: 0,
            error: ptr::null(),
        },
        |r, arena, f| {
            r.status = f.status;
            r.error = arena.string(&f.message);
            (r.diagnostics, r.num_diagnostics) = arena.diagnostics(&f.diagnostics);
        },
        |r, arena| {
            if kernel.is_null() {
                return Err(Failure::invalid("kernel is a null pointer"));
            }
            if inputs.is_null() && num_inputs > 0 {
                return Err(Failure::invalid("inputs is a null pointer"));
            }
            let bytes = std::slice::from_raw_parts(kernel, kernel_len);
            let function = optional_text(function, "function")?;
            let driver = Driver::new(Options::default())?;
            let kernels = driver.load_kernels(bytes, "<kernel>")?;
            let kernel = ptoc::select_kernel(&kernels, function)?;
            let given = if num_inputs == 0 {
                &[][..]
            } else {
                std::slice::from_raw_parts(inputs, num_inputs)
            };
            let tensors = given
                .iter()
                .enumerate()
                .map(|(i, t)| input_tensor(kernel, i, t))
                .collect::<Result<Vec<_>, _>>()?;
            let named: Vec<(&str, &Tensor)> =
                tensors.iter().map(|(n, t)| (n.as_str(), t)).collect();
            match ptoc::run_named(kernel, &named) {
                Ok(outputs) => {
                    r.flags = outputs.flags;
                    (r.outputs, r.num_outputs) = arena.tensors(&outputs.results);
                    (r.memrefs, r.num_memrefs) = arena.tensors(&outputs.memrefs);
                    Ok(PtocStatus::Ok)
                }
                Err(e @ ExecError::Fault { .. }) => {
                    let ExecError::Fault {
                        class,
                        bundle,
                        address,
                        reason,
                        flags,
                    } = &e
                    else {
                        unreachable!("matched as a fault")
                    };
                    r.status = PtocStatus::Fault;
                    r.flags = *flags;
                    r.error = arena.string(&e.to_string());
                    let fault = Box::new(PtocFault {
                        class_name: arena.string(class.name()),
                        bundle: *bundle,
                        reason: arena.string(reason),
                        has_address: address.is_some(),
                        address: address.unwrap_or(0),
                    });
                    r.fault = &*fault;
                    arena.faults.push(fault);
                    Ok(PtocStatus::Fault)
                }
                Err(e) => Err(e.into()),
            }
        },
    )
}

/// The tensor of one `PtocTensorIn` and the argument name it is for.
unsafe fn input_tensor(
    kernel: &Kernel,
    index: usize,
    t: &PtocTensorIn,
) -> Result<(String, Tensor), Failure> {
    let what = |field: &str| format!("inputs[{index}].{field}");
    let name = match optional_text(t.name, &what("name"))? {
        Some(name) => name.to_string(),
        None => index.to_string(),
    };
    let element = match optional_text(t.dtype, &what("dtype"))? {
        Some(d) => ElementType::parse(d).ok_or_else(|| {
            Failure::invalid(format!("{} '{d}' is not an element type", what("dtype")))
        })?,
        None => {
            let (_, arg) = ptoc::exec::named_argument(kernel, &name)?;
            ptoc::exec::argument_input(kernel, arg).1
        }
    };
    if t.data.is_null() {
        return Err(Failure::invalid(format!(
            "{} is a null pointer",
            what("data")
        )));
    }
    let len = (t.rows as usize)
        .checked_mul(t.cols as usize)
        .and_then(|n| n.checked_mul(element.bytes()))
        .ok_or_else(|| Failure::invalid(format!("inputs[{index}]: rows × cols is too large")))?;
    if t.size != 0 && t.size != len {
        return Err(Failure::invalid(format!(
            "{} is {} bytes; {}x{} {} elements take {len}",
            what("size"),
            t.size,
            t.rows,
            t.cols,
            element.mlir_name()
        )));
    }
    let bytes = std::slice::from_raw_parts(t.data as *const u8, len);
    let tensor = Tensor::from_bytes(element, t.rows, t.cols, bytes)
        .map_err(|e| Failure::invalid(format!("inputs[{index}]: {e}")))?;
    Ok((name, tensor))
}

/// Free a run result (null is ignored).
#[no_mangle]
pub unsafe extern "C" fn ptoc_run_result_free(result: *mut PtocRunResult) {
    release(result)
}

/// Compile every kernel of MLIR `source` (`filename` and `options` as for `ptoc_compile`; the
/// options' `emit` is ignored) and check it bit for bit against the reference evaluator of its
/// unoptimised source on `trials` random input sets drawn from `seed`. `PTOC_STATUS_OK` means every
/// kernel matched; `PTOC_STATUS_MISMATCH` fills `mismatch`. Free with `ptoc_verify_result_free`.
#[no_mangle]
pub unsafe extern "C" fn ptoc_verify(
    source: *const c_char,
    filename: *const c_char,
    options: *const PtocCompileOptions,
    trials: u32,
    seed: u64,
    result: *mut *mut PtocVerifyResult,
) -> PtocStatus {
    respond(
        result,
        || PtocVerifyResult {
            status: PtocStatus::Ok,
            mismatch: ptr::null(),
            diagnostics: ptr::null(),
            num_diagnostics: 0,
            error: ptr::null(),
        },
        |r, arena, f| {
            r.status = f.status;
            r.error = arena.string(&f.message);
            (r.diagnostics, r.num_diagnostics) = arena.diagnostics(&f.diagnostics);
        },
        |r, arena| {
            let source = text(source, "source")?;
            let filename = optional_text(filename, "filename")?.unwrap_or("<string>");
            let driver = Driver::new(crate::options(options)?)?;
            match driver.verify(&Source::new(source, filename), trials, seed) {
                Ok(()) => Ok(PtocStatus::Ok),
                Err(VerifyError::Compile(e)) => Err(e.into()),
                Err(VerifyError::Exec(e)) => Err(e.into()),
                Err(e @ VerifyError::Mismatch { .. }) => {
                    r.status = PtocStatus::Mismatch;
                    r.error = arena.string(&e.to_string());
                    if let VerifyError::Mismatch { kernel, mismatch } = &e {
                        let m = mismatch_struct(arena, kernel, mismatch);
                        r.mismatch = &*m;
                        arena.mismatches.push(m);
                    }
                    Ok(PtocStatus::Mismatch)
                }
            }
        },
    )
}

fn mismatch_struct(
    arena: &mut Arena,
    kernel: &str,
    m: &ptoc::verify::Mismatch,
) -> Box<PtocMismatch> {
    let (compiled, reference) = m.discrepancy.values();
    let inputs: Vec<PtocInputElement> = m
        .inputs
        .iter()
        .map(|e| PtocInputElement {
            argument: arena.string(&e.argument),
            row: e.row as u32,
            col: e.col as u32,
            dtype: arena.string(e.element.mlir_name()),
            bits: e.bits,
        })
        .collect();
    let loc = m.location.clone().unwrap_or_default();
    let file = loc.file.as_deref().unwrap_or("").to_string();
    let (row, col) = m.element.map_or((-1, -1), |(r, c)| (r as i64, c as i64));
    let out = Box::new(PtocMismatch {
        kernel: arena.string(kernel),
        trial: m.trial,
        result: arena.optional(m.result.as_ref().map(|(_, n)| n.as_str())),
        op: arena.optional(m.op.as_deref()),
        file: arena.string(&file),
        line: loc.line,
        column: loc.col,
        row,
        col,
        compiled: arena.string(&compiled),
        reference: arena.string(&reference),
        inputs: inputs.as_ptr(),
        num_inputs: inputs.len(),
        message: arena.string(&m.to_string()),
    });
    arena.inputs.push(inputs);
    out
}

/// Free a verify result (null is ignored).
#[no_mangle]
pub unsafe extern "C" fn ptoc_verify_result_free(result: *mut PtocVerifyResult) {
    release(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic inside a call is caught and reported; nothing unwinds into the caller.
    #[test]
    fn a_panic_becomes_an_internal_error() {
        let mut out: *mut PtocVerifyResult = ptr::null_mut();
        let status = unsafe {
            respond(
                &mut out,
                || PtocVerifyResult {
                    status: PtocStatus::Ok,
                    mismatch: ptr::null(),
                    diagnostics: ptr::null(),
                    num_diagnostics: 0,
                    error: ptr::null(),
                },
                |r, arena, f| {
                    r.status = f.status;
                    r.error = arena.string(&f.message);
                },
                |_, _| panic!("boom"),
            )
        };
        assert_eq!(status, PtocStatus::InternalError);
        let message = unsafe { CStr::from_ptr((*out).error) }.to_str().unwrap();
        assert_eq!(message, "internal error in ptoc (please report it): boom");
        unsafe { ptoc_verify_result_free(out) };
    }

    /// A mismatch reaches C with every field: the MAX kernel checked against the MIN source.
    #[test]
    fn a_mismatch_reaches_c_with_its_fields() {
        let text = r#"
func.func @k(%x: !pto.tile<4x8xsi16>, %v: !pto.tile<4x1xsi16>) -> !pto.tile<4x8xsi16> {
  %r = "pto.trowexpandmax"(%x, %v) : (!pto.tile<4x8xsi16>, !pto.tile<4x1xsi16>) -> !pto.tile<4x8xsi16>
  return %r : !pto.tile<4x8xsi16>
}
func.func @k_min(%x: !pto.tile<4x8xsi16>, %v: !pto.tile<4x1xsi16>) -> !pto.tile<4x8xsi16> {
  %r = "pto.trowexpandmin"(%x, %v) : (!pto.tile<4x8xsi16>, !pto.tile<4x1xsi16>) -> !pto.tile<4x8xsi16>
  return %r : !pto.tile<4x8xsi16>
}
"#;
        let driver = Driver::new(Options::default()).unwrap();
        let module = driver.import(&Source::new(text, "k.mlir")).unwrap();
        let kernels = driver.compile_kernels(&module).unwrap();
        let reference = driver.reference_module(&module).unwrap();
        let m = ptoc::verify::verify_kernel(&kernels[0], &reference.functions[1], 10, 3)
            .unwrap()
            .expect("max is not min");
        let mut arena = Arena::default();
        let c = mismatch_struct(&mut arena, "k", &m);
        let s = |p: *const c_char| unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string();
        assert_eq!(s(c.kernel), "k");
        assert_eq!(s(c.result), "r0");
        assert_eq!(s(c.op), "pto.trowexpandmin");
        assert_eq!((s(c.file).as_str(), c.line, c.column), ("k.mlir", 7, 8));
        let (row, col) = m.element.unwrap();
        assert_eq!((c.row, c.col), (row as i64, col as i64));
        assert_eq!(c.num_inputs, 2);
        let x = unsafe { &*c.inputs };
        assert_eq!((s(x.argument).as_str(), s(x.dtype).as_str()), ("x", "si16"));
        assert_eq!((x.row as usize, x.col as usize), (row, col));
        assert!(s(c.compiled).starts_with("0x") && s(c.reference).starts_with("0x"));
        assert_eq!(s(c.message), m.to_string());
    }

    /// The linalg semantics options reach the pipeline: a float sum from an init of 1.0 compiles
    /// only with `allow_reassociation`.
    #[test]
    fn semantics_options_reach_the_conversion() {
        let text = c"
func.func @s(%x: tensor<8x64xf32>) -> tensor<8xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%one : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%x : tensor<8x64xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}
";
        let compile = |allow| {
            let mut options = ptoc_compile_options_default();
            options.allow_reassociation = allow;
            let mut out: *mut PtocCompileResult = ptr::null_mut();
            let status = unsafe { ptoc_compile(text.as_ptr(), ptr::null(), &options, &mut out) };
            unsafe { ptoc_compile_result_free(out) };
            status
        };
        assert_eq!(compile(false), PtocStatus::CompileError);
        assert_eq!(compile(true), PtocStatus::Ok);
    }

    /// `strip_assertions` reaches the import: torch-mlir's checked reciprocal compiles only
    /// with it.
    #[test]
    fn strip_assertions_reaches_the_import() {
        let text =
            std::ffi::CString::new(include_str!("../../test/frontends/Inputs/reciprocal.mlir"))
                .unwrap();
        let compile = |strip| {
            let mut options = ptoc_compile_options_default();
            options.strip_assertions = strip;
            let mut out: *mut PtocCompileResult = ptr::null_mut();
            let status = unsafe { ptoc_compile(text.as_ptr(), ptr::null(), &options, &mut out) };
            unsafe { ptoc_compile_result_free(out) };
            status
        };
        assert_eq!(compile(false), PtocStatus::CompileError);
        assert_eq!(compile(true), PtocStatus::Ok);
    }
}
