//! The `ptoc` command line: mlir-opt conventions around [`ptoc::Driver`], plus the `asm` and
//! `disasm` tools.

mod cli;

use clap::{Args, Parser, Subcommand};
use cli::{diagnostics, npy, output, progress, report, split};
use ptoc::{exec, Compilation, Driver, Emit, Options};
use ptoc_codegen::metadata::{ArgRef, ScalarType};
use ptoc_codegen::{assemble, disassemble, is_tile_name, quote_name, read_elf, write_elf};
use ptoc_ir::{Diagnostic, Severity, Source, SourceMap};
use ptoc_isa::profile::NamingModel;
use ptoc_isa::{DataType, PeMask, Storage};
use ptoc_passes::IrPrinting;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Compile MLIR kernels written in the `pto` tile dialect to PTO bundles and ELF objects.
#[derive(Parser, Debug)]
#[command(name = "ptoc", version, about, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    compile: CompileArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Assemble PTO assembly (canonical syntax or the spec's variants) into an ELF object.
    Asm {
        /// Assembly file (`-` for standard input).
        input: String,
        /// Output object file (written atomically).
        #[arg(short = 'o', value_name = "FILE")]
        output: PathBuf,
    },
    /// Run a kernel (an ELF object from `ptoc -o`, or an `.mlir` file compiled first) on `.npy`
    /// inputs.
    Run {
        /// Kernel: `out.bin` or `kernel.mlir`.
        kernel: String,
        /// An argument: NAME (position `0`, `1`, … or source name `x`) = an `.npy` file covering
        /// its valid region (typed values, or unsigned integers of the element width as raw bits).
        #[arg(long = "arg", value_name = "NAME=FILE.npy")]
        args: Vec<String>,
        /// Which kernel, when the file holds several.
        #[arg(long, value_name = "NAME")]
        function: Option<String>,
        /// Write each result's valid region to DIR/NAME.npy.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
        /// How to print the results.
        #[arg(long, value_enum, default_value = "text")]
        format: RunFormat,
        /// How an `.mlir` kernel is compiled (as `ptoc -o` would).
        #[command(flatten)]
        pipeline: PipelineArgs,
        /// Print a progress line every BUNDLES bundles whatever standard error is (for tests;
        /// on a terminal, runs longer than a second show one without it).
        #[arg(long, hide = true, value_name = "BUNDLES")]
        progress_interval: Option<std::num::NonZeroUsize>,
    },
    /// Compile a kernel and check it bit for bit against the reference evaluator of its
    /// unoptimised source, on random inputs with edge values.
    ///
    /// Trials cycle through three input profiles, so that both special values and the
    /// arithmetic of long reductions are exercised: edge values (±0, ±inf, NaNs, subnormals,
    /// extremes) one element in four among random bits; moderate finite values (floats of
    /// magnitude 1/8 to 16, integers below 2^(w/2) in magnitude); moderate values with an edge
    /// value one element in 4096. A linalg program is read with the meaning the options allow:
    /// under --allow-reassociation its float sums and products fold in the pieces the kernel
    /// folds them in (its pto.fold_piece).
    Verify {
        /// Kernel source (`.mlir`).
        input: String,
        /// Random input sets per kernel (trial t draws from profile t mod 3).
        #[arg(long, default_value_t = 100)]
        trials: u32,
        /// Seed of the input generator.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// How the compiled side is compiled (as `ptoc -o` would).
        #[command(flatten)]
        pipeline: PipelineArgs,
        /// `NAME=N`: a GM kernel's `index` argument takes N in every trial (others are 0).
        #[arg(long = "arg", value_name = "NAME=N")]
        args: Vec<String>,
    },
    /// Print the canonical assembly of an ELF object written by ptoc.
    Disasm {
        /// Object file.
        input: String,
        /// Output file; standard output when omitted.
        #[arg(short = 'o', value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum RunFormat {
    Text,
    Json,
}

#[derive(Args, Debug)]
struct CompileArgs {
    /// Input `.mlir` file (`-` for standard input).
    #[arg(default_value = "-")]
    input: String,
    /// Output file (written atomically); standard output when omitted.
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// What to produce: mlir, asm, words or obj [default: obj with -o, asm on standard output].
    #[arg(long, value_parser = parse_emit)]
    emit: Option<Emit>,
    #[command(flatten)]
    pipeline: PipelineArgs,
    /// Check diagnostics against `// expected-error {{…}}` comments instead of printing them.
    #[arg(long)]
    verify_diagnostics: bool,
    /// Process each `// -----` chunk of the input separately.
    #[arg(long)]
    split_input_file: bool,
    /// Print locations in MLIR output.
    #[arg(long = "mlir-print-debuginfo")]
    debug_info: bool,
}

/// How a source is compiled: the options `ptoc -o`, `ptoc run` and `ptoc verify` share, so that
/// a kernel run or verified from its `.mlir` is the one `ptoc -o` writes with the same flags.
#[derive(Args, Debug, Clone)]
struct PipelineArgs {
    /// Optimisation level; -O0 disables fusion.
    #[arg(short = 'O', value_name = "LEVEL", default_value_t = 2)]
    opt_level: u8,
    /// Run these passes instead of the default pipeline (e.g. `pto-verify,pto-allocate`, or
    /// `builtin.module(func.func(pto-verify))`); empty runs none.
    #[arg(long, value_name = "PIPELINE")]
    pass_pipeline: Option<String>,
    /// PE mask of every bundle: four binary digits, PE0 first (one of the eight encodable masks).
    #[arg(long, value_name = "MASK", default_value = "1111", value_parser = parse_pe_mask)]
    pe_mask: PeMask,
    /// How the target names tiles: `absolute` (registers, nothing freed; the spec's executable
    /// model) or `queue` (each hand a queue of its 16 newest tiles). Recorded in the object.
    #[arg(long, value_name = "PROFILE", default_value = "queue", value_parser = parse_profile)]
    target_profile: NamingModel,
    #[command(flatten)]
    semantics: Semantics,
    /// Print the module (to standard error) after every pass.
    #[arg(long = "mlir-print-ir-after-all")]
    print_ir_after_all: bool,
    /// Print the module (to standard error) before every pass.
    #[arg(long = "mlir-print-ir-before-all")]
    print_ir_before_all: bool,
    /// Print the module (to standard error) before the named pass (repeatable).
    #[arg(long = "mlir-print-ir-before", value_name = "PASS")]
    print_ir_before: Vec<String>,
    /// Print the module (to standard error) after the named pass (repeatable).
    #[arg(long = "mlir-print-ir-after", value_name = "PASS")]
    print_ir_after: Vec<String>,
    /// Print pass statistics (to standard error).
    #[arg(long)]
    pass_statistics: bool,
}

impl PipelineArgs {
    /// The options given that differ from the defaults, by flag: an object is already
    /// compiled, so `ptoc run out.bin` refuses them rather than ignore them.
    fn non_default_flags(&self) -> Vec<&'static str> {
        let defaults = ptoc_passes::Options::default();
        [
            ("-O", self.opt_level != defaults.opt_level),
            ("--pass-pipeline", self.pass_pipeline.is_some()),
            ("--pe-mask", self.pe_mask != defaults.pe_mask),
            (
                "--target-profile",
                self.target_profile != defaults.target_profile,
            ),
            ("--assume-no-nans", self.semantics.assume_no_nans),
            ("--allow-reassociation", self.semantics.allow_reassociation),
            ("--strip-assertions", self.semantics.strip_assertions),
            ("--mlir-print-ir-after-all", self.print_ir_after_all),
            ("--mlir-print-ir-before-all", self.print_ir_before_all),
            ("--mlir-print-ir-before", !self.print_ir_before.is_empty()),
            ("--mlir-print-ir-after", !self.print_ir_after.is_empty()),
            ("--pass-statistics", self.pass_statistics),
        ]
        .into_iter()
        .filter_map(|(flag, given)| given.then_some(flag))
        .collect()
    }

    /// A driver that compiles with these options and produces `emit`.
    fn driver(self, emit: Emit, debug_info: bool) -> Result<Driver, String> {
        Driver::new(Options {
            emit,
            debug_info,
            pipeline: self.pass_pipeline,
            pass_options: ptoc_passes::Options {
                opt_level: self.opt_level,
                pe_mask: self.pe_mask,
                target_profile: self.target_profile,
                assume_no_nans: self.semantics.assume_no_nans,
                allow_reassociation: self.semantics.allow_reassociation,
                strip_assertions: self.semantics.strip_assertions,
            },
            ir_printing: IrPrinting {
                before_all: self.print_ir_before_all,
                after_all: self.print_ir_after_all,
                before: self.print_ir_before,
                after: self.print_ir_after,
            },
            pass_statistics: self.pass_statistics,
        })
        .map_err(|e| format!("error: {e}"))
    }
}

/// The options that let linalg input (README, linalg-on-tensors input) compile to less exact code, each named like
/// its MLIR counterpart.
#[derive(Args, Debug, Clone, Copy)]
struct Semantics {
    /// Assume no value is NaN: `arith.maximumf`/`minimumf` lower to the ISA's MAX/MIN, which
    /// return the number when one operand is NaN (as fastmath `nnan` does per op).
    #[arg(long)]
    assume_no_nans: bool,
    /// Let a float sum or product fold its init in after the ISA's fold, and fold a line too wide
    /// for a tile in pieces (both reassociate it; a remark at the op says so).
    #[arg(long)]
    allow_reassociation: bool,
    /// Drop `cf.assert` ops (torch-mlir's run-time checks) from linalg input instead of
    /// refusing them: the program then means what it computes when every assertion holds.
    #[arg(long)]
    strip_assertions: bool,
}

fn parse_profile(text: &str) -> Result<NamingModel, String> {
    NamingModel::from_name(text)
        .ok_or_else(|| format!("'{text}' is not a target profile; use queue or absolute"))
}

fn parse_emit(text: &str) -> Result<Emit, String> {
    Emit::from_name(text).ok_or_else(|| {
        let names: Vec<&str> = Emit::ALL.iter().map(|e| e.name()).collect();
        format!(
            "'{text}' is not an output kind; use one of {}",
            names.join(", ")
        )
    })
}

fn parse_pe_mask(text: &str) -> Result<PeMask, String> {
    match PeMask::parse(text) {
        // Refused while the arguments are parsed, with the driver's own words.
        Some(mask) if mask.is_noop() => Err(ptoc::OptionsError::NoopPeMask.to_string()),
        Some(mask) => Ok(mask),
        None => Err(ptoc::OptionsError::PeMask(text.into()).to_string()),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    let result = match cli.command {
        Some(Command::Asm { input, output }) => run_asm(&input, &output),
        Some(Command::Disasm { input, output }) => run_disasm(&input, output.as_deref()),
        Some(Command::Run {
            kernel,
            args,
            function,
            out_dir,
            format,
            pipeline,
            progress_interval,
        }) => run_kernel(
            &kernel,
            &args,
            function.as_deref(),
            (out_dir.as_deref(), format),
            pipeline,
            progress_interval.map(usize::from),
        ),
        Some(Command::Verify {
            input,
            trials,
            seed,
            pipeline,
            args,
        }) => run_verify(&input, trials, seed, pipeline, &args),
        None => run_compile(cli.compile),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("{message}");
            ExitCode::from(1)
        }
    }
}

/// The largest input file ptoc reads (sources, objects, `.npy` arguments): 256 MiB. Larger
/// inputs are refused after reading one byte past the limit, so `ptoc /dev/zero` stops there.
const MAX_INPUT_BYTES: u64 = 256 << 20;

/// The display name of an input and its bytes.
fn read_input(name: &str) -> Result<(String, Vec<u8>), String> {
    let display = if name == "-" { "<stdin>" } else { name }.to_string();
    let cannot = |e: std::io::Error| format!("error: cannot read '{display}': {e}");
    let reader: Box<dyn Read> = if name == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(name).map_err(cannot)?)
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(format!(
            "error: '{display}' is larger than {} MiB, the most ptoc reads from one input",
            MAX_INPUT_BYTES >> 20
        ));
    }
    Ok((display, bytes))
}

/// Input text, or an error naming the line and column of the first byte that is not UTF-8.
fn read_text(name: &str, what: &str) -> Result<(String, String), String> {
    let (display, bytes) = read_input(name)?;
    let text = ptoc::source_text(&bytes, &display, what)
        .map_err(|d| format!("{}: error: {}", d.loc, d.message))?
        .to_string();
    Ok((display, text))
}

fn write_output(path: Option<&Path>, bytes: &[u8]) -> Result<(), String> {
    match path {
        Some(path) => output::write_atomically(path, bytes)
            .map_err(|e| format!("error: cannot write '{}': {e}", path.display())),
        None => std::io::stdout()
            .write_all(bytes)
            .map_err(|e| format!("error: cannot write to standard output: {e}")),
    }
}

/// Print diagnostics with their source lines; true when none is an error.
fn report(sources: &SourceMap, diags: &[Diagnostic]) -> bool {
    for diag in diags {
        eprint!("{}", sources.render(diag));
    }
    !diags.iter().any(|d| d.severity == Severity::Error)
}

/// Returns Ok(false) when diagnostics were reported, Err for a failure before compiling.
fn run_compile(args: CompileArgs) -> Result<bool, String> {
    let (file, source) = read_text(&args.input, "an MLIR source file")?;
    let emit = args.emit.unwrap_or(if args.output.is_some() {
        Emit::Obj
    } else {
        Emit::Asm
    });
    if emit == Emit::Obj && args.output.is_none() {
        return Err("error: --emit=obj writes a binary object; name the file with -o".into());
    }
    let driver = args.pipeline.driver(emit, args.debug_info)?;
    let mut sources = SourceMap::default();
    sources.add(file.as_str(), source.as_str());

    let whole = Source::new(&source, &file);
    let chunks = if args.split_input_file {
        split::split_input(&whole)
    } else {
        vec![whole]
    };
    let mut ok = true;
    let mut outputs = Vec::new();
    for chunk in &chunks {
        let outcome = driver.process(chunk);
        eprint!("{}", outcome.side_output);
        let reported = if args.verify_diagnostics {
            diagnostics::verify(chunk, &outcome.diagnostics)
        } else {
            outcome.diagnostics
        };
        ok &= report(&sources, &reported);
        outputs.extend(outcome.output);
    }
    if !ok {
        return Ok(false);
    }
    if emit == Emit::Obj && outputs.len() > 1 {
        return Err("error: --split-input-file with --emit=obj would write several objects into one file; emit asm, words or mlir instead".into());
    }
    let separator = format!("{}\n", split::SPLIT_MARKER);
    write_output(args.output.as_deref(), &outputs.join(separator.as_bytes()))?;
    Ok(true)
}

fn run_asm(input: &str, output: &Path) -> Result<bool, String> {
    let (file, source) = read_text(input, "PTO assembly text")?;
    let mut sources = SourceMap::default();
    sources.add(file.as_str(), source.as_str());
    let kernels = match assemble(&source, &file) {
        Ok(k) => k,
        Err(diags) => return Ok(report(&sources, &diags)),
    };
    let bytes = write_elf(&kernels).map_err(|e| format!("error: {file}: {e}"))?;
    write_output(Some(output), &bytes)?;
    Ok(true)
}

fn run_disasm(input: &str, output: Option<&Path>) -> Result<bool, String> {
    let (file, bytes) = read_input(input)?;
    let kernels = read_elf(&bytes).map_err(|e| format!("error: {file}: {e}"))?;
    write_output(output, disassemble(&kernels).as_bytes())?;
    Ok(true)
}

/// The imported module and its compilation ([`ptoc::Compilation`]).
type Compiled = (ptoc_ir::Module, Compilation);

/// Compile an `.mlir` file; diagnostics are printed and turn into `Ok(None)`, and the
/// pipeline's IR dumps, statistics and remarks are printed as `ptoc -o` prints them.
fn compile_source(driver: &Driver, input: &str) -> Result<Option<Compiled>, String> {
    let (file, source) = read_text(input, "an MLIR source file")?;
    let mut sources = SourceMap::default();
    sources.add(file.as_str(), source.as_str());
    let mut side_output = String::new();
    let compiled = driver.import(&Source::new(&source, &file)).and_then(|m| {
        let compilation = driver.compile_module_kernels(&m, &mut side_output)?;
        Ok((m, compilation))
    });
    eprint!("{side_output}");
    match compiled {
        Ok(compiled) => {
            report(&sources, &compiled.1.remarks);
            Ok(Some(compiled))
        }
        Err(diags) => {
            report(&sources, &diags);
            Ok(None)
        }
    }
}

fn run_kernel(
    path: &str,
    args: &[String],
    function: Option<&str>,
    (out_dir, format): (Option<&Path>, RunFormat),
    pipeline: PipelineArgs,
    progress_interval: Option<usize>,
) -> Result<bool, String> {
    let (file, bytes) = read_input(path)?;
    let kernels = if bytes.starts_with(b"\x7fELF") {
        let given = pipeline.non_default_flags();
        if !given.is_empty() {
            return Err(format!(
                "error: {file} is a compiled object, so {} cannot apply; pass them to \
                 `ptoc -o` when compiling it, or run the `.mlir` source",
                given.join(", ")
            ));
        }
        read_elf(&bytes).map_err(|e| format!("error: {file}: {e}"))?
    } else {
        match compile_source(&pipeline.driver(Emit::Obj, false)?, path)? {
            Some((_, compiled)) => compiled.kernels,
            None => return Ok(false),
        }
    };
    let names: Vec<String> = kernels.iter().map(|k| quote_name(&k.name)).collect();
    let kernel = match function {
        Some(name) => kernels.iter().find(|k| k.name == name),
        None if kernels.len() == 1 => kernels.first(),
        None => None,
    }
    .ok_or_else(|| match function {
        Some(name) => format!(
            "error: {file} has no kernel {}; it has: {}",
            quote_name(name),
            names.join(", ")
        ),
        None => format!(
            "error: {file} holds {} kernels ({}); pick one with --function",
            names.len(),
            names.join(", ")
        ),
    })?;

    let order = kernel.meta.argument_order();
    let describe = |i: usize| exec::describe_argument(kernel, order[i]);
    let mut inputs: Vec<Option<Vec<u64>>> = vec![None; order.len()];
    for spec in args {
        let (name, value) = spec
            .split_once('=')
            .ok_or_else(|| format!("error: --arg '{spec}' must be NAME=FILE.npy or NAME=NUMBER"))?;
        let index = exec::argument_index(kernel, name).ok_or_else(|| {
            let known: Vec<String> = (0..order.len()).map(describe).collect();
            format!(
                "error: kernel '{}' has no argument '{name}'; its arguments: {}",
                kernel.name,
                known.join(", ")
            )
        })?;
        if inputs[index].is_some() {
            return Err(format!(
                "error: argument {} is given twice",
                describe(index)
            ));
        }
        // A tile's valid region or a memref's whole shape from `.npy`; a scalar from a number.
        let shape = match order[index] {
            ArgRef::Tile(i) => {
                let m = &kernel.meta.args[i];
                Some((m.dtype, m.storage, m.valid_rows, m.valid_cols))
            }
            ArgRef::MemRef(i) => {
                let m = &kernel.meta.memrefs[i];
                Some((m.dtype, Storage::Numeric, m.rows, m.cols))
            }
            ArgRef::Scalar(_) => None,
        };
        let values = match (shape, order[index]) {
            (Some((dtype, storage, rows, cols)), _) => {
                let (_, data) = read_input(value)?;
                npy::read_input(&data, dtype, storage, rows, cols)
                    .map_err(|e| format!("error: {value} for argument {}: {e}", describe(index)))?
            }
            (None, ArgRef::Scalar(i)) => {
                vec![scalar_bits(kernel.meta.scalars[i].ty, value)
                    .map_err(|e| format!("error: argument {}: {e}", describe(index)))?]
            }
            (None, _) => unreachable!("only scalars have no shape"),
        };
        inputs[index] = Some(values);
    }
    // A memref not given starts as zeros (an output, usually); tiles and scalars are required.
    ptoc::exec::check_gm_size(kernel).map_err(|e| format!("error: {e}"))?;
    for (i, slot) in inputs.iter_mut().enumerate() {
        if let (None, ArgRef::MemRef(m)) = (&slot, order[i]) {
            let m = &kernel.meta.memrefs[m];
            *slot = Some(vec![0; m.rows as usize * m.cols as usize]);
        }
    }
    let missing: Vec<String> = (0..order.len())
        .filter(|&i| inputs[i].is_none())
        .map(describe)
        .collect();
    if !missing.is_empty() {
        return Err(format!("error: no --arg for {}", missing.join(", ")));
    }
    let inputs: Vec<Vec<u64>> = inputs.into_iter().flatten().collect();
    let run = match progress::Progress::new(progress_interval) {
        // The display is dropped (its line cleared) before anything else is printed.
        Some((mut shown, every)) => {
            exec::execute_observed(kernel, &inputs, every, |n| shown.report(n))
        }
        None => exec::execute(kernel, &inputs),
    }
    .map_err(|e| format!("error: {e}"))?;
    if let Some(dir) = out_dir.filter(|_| run.fault.is_none()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("error: cannot create '{}': {e}", dir.display()))?;
        for (meta, tile) in kernel.meta.results.iter().zip(&run.results) {
            let valid: Vec<u64> = (0..tile.valid_rows as usize)
                .flat_map(|r| (0..tile.valid_cols as usize).map(move |c| (r, c)))
                .map(|(r, c)| tile.bits(tile.index(r, c)))
                .collect();
            let bytes = npy::write_output(tile.dtype, tile.valid_rows, tile.valid_cols, &valid)
                .map_err(|e| format!("error: {e}"))?;
            write_output(Some(&result_file(dir, &meta.name)?), &bytes)?;
        }
        let stored = kernel.meta.memrefs.iter().filter(|m| m.is_output());
        for (m, values) in stored.zip(&run.memrefs) {
            let bytes = npy::write_output(m.dtype, m.rows, m.cols, values)
                .map_err(|e| format!("error: {e}"))?;
            write_output(Some(&result_file(dir, &m.name)?), &bytes)?;
        }
    }
    let text = match format {
        RunFormat::Json => match serde_json::to_string(&report::run_report(kernel, &run)) {
            Ok(json) => json + "\n",
            Err(e) => return Err(format!("error: cannot write the JSON report: {e}")),
        },
        RunFormat::Text => report::run_text(kernel, &run, out_dir.filter(|_| run.fault.is_none())),
    };
    write_output(None, text.as_bytes())?;
    Ok(run.fault.is_none())
}

/// The bits of a scalar argument written as a number: `index` and integer types take a decimal
/// or `0x` integer in range; FP32 and FP64 a decimal (rounded to nearest, as Rust's parser does)
/// or `0x` bits; other float types their `0x` bits only (no second rounding).
fn scalar_bits(ty: ScalarType, text: &str) -> Result<u64, String> {
    let hex = text
        .strip_prefix("0x")
        .map(|h| u64::from_str_radix(h, 16).map_err(|e| format!("'{text}': {e}")));
    let (dtype, bits) = match ty {
        ScalarType::Index => (DataType::S64, 64),
        ScalarType::Element(t) => (t, t.bits()),
    };
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    if let Some(h) = hex {
        let h = h?;
        return if h & !mask == 0 {
            Ok(h)
        } else {
            Err(format!("'{text}' has more than {bits} bits"))
        };
    }
    let bad = |what: &str| format!("'{text}' is not {what}");
    match dtype.class() {
        ptoc_isa::TypeClass::Float => match dtype {
            DataType::FP32 => text
                .parse::<f32>()
                .map(|v| v.to_bits() as u64)
                .map_err(|_| bad("an f32")),
            DataType::FP64 => text
                .parse::<f64>()
                .map(f64::to_bits)
                .map_err(|_| bad("an f64")),
            _ => Err(format!("give a {dtype} scalar as its bits, e.g. 0x3c00")),
        },
        ptoc_isa::TypeClass::Signed => {
            let v: i64 = text.parse().map_err(|_| bad("an integer"))?;
            let fits = bits == 64 || (-(1i64 << (bits - 1))..(1i64 << (bits - 1))).contains(&v);
            fits.then_some(v as u64 & mask)
                .ok_or_else(|| bad(&format!("a {dtype} (it needs more than {bits} bits)")))
        }
        ptoc_isa::TypeClass::Unsigned | ptoc_isa::TypeClass::Other => {
            let v: u64 = text.parse().map_err(|_| bad("an unsigned integer"))?;
            (v & !mask == 0)
                .then_some(v)
                .ok_or_else(|| bad(&format!("a {dtype} (it needs more than {bits} bits)")))
        }
    }
}

/// `DIR/NAME.npy` for a result: only an identifier may name a file, so no result name can
/// point outside `DIR` (metadata is checked when it is read; this holds for any kernel).
fn result_file(dir: &Path, name: &str) -> Result<PathBuf, String> {
    if !is_tile_name(name) {
        return Err(format!(
            "error: result name {} cannot name a file in '{}'",
            quote_name(name),
            dir.display()
        ));
    }
    Ok(dir.join(format!("{name}.npy")))
}

fn run_verify(
    input: &str,
    trials: u32,
    seed: u64,
    pipeline: PipelineArgs,
    args: &[String],
) -> Result<bool, String> {
    let driver = pipeline.driver(Emit::Obj, false)?;
    let Some((
        module,
        Compilation {
            module: compiled,
            kernels,
            ..
        },
    )) = compile_source(&driver, input)?
    else {
        return Ok(false);
    };
    let reference = driver.reference_module(&module).and_then(|reference| {
        let linalg = driver.linalg_verify_options(&reference, &compiled)?;
        Ok((reference, linalg))
    });
    let (reference, linalg) = match reference {
        Ok(r) => r,
        Err(diags) => return Ok(report(&SourceMap::default(), &diags)),
    };
    let known: Vec<String> = reference
        .gm_kernels
        .iter()
        .flat_map(|k| ptoc::index_scalar_names(k).into_iter().map(|(_, n)| n))
        .collect();
    let mut index_values = Vec::new();
    for arg in args {
        let (name, value) = arg
            .split_once('=')
            .ok_or_else(|| format!("error: --arg {arg}: expected NAME=N"))?;
        if !known.iter().any(|k| k == name) {
            return Err(format!(
                "error: --arg {arg}: no GM kernel has an index argument '{name}' (index arguments: {})",
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            ));
        }
        let value = scalar_bits(ScalarType::Index, value)
            .map_err(|e| format!("error: --arg {arg}: {e}"))?;
        index_values.push((name.to_string(), value));
    }
    let mut ok = true;
    let checked = ptoc::check_kernels(&kernels, &reference, trials, seed, &index_values, &linalg);
    for (kernel, outcome) in checked {
        match outcome.map_err(|e| format!("error: {e}"))? {
            None => println!(
                "@{}: {trials} trials (seed {seed}), compiled code matches the source bit for bit",
                quote_name(&kernel.name)
            ),
            Some(m) => {
                ok = false;
                println!(
                    "@{}: MISMATCH in trial {} (seed {seed}, {} inputs): {}",
                    quote_name(&kernel.name),
                    m.trial,
                    ptoc::verify::InputProfile::of_trial(m.trial).name(),
                    m
                );
            }
        }
    }
    Ok(ok)
}
