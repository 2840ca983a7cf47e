//! The `ptoc` command line: mlir-opt conventions around [`ptoc::Driver`].

use clap::Parser;
use ptoc::{diagnostics, output, split, Driver, Emit, Options};
use ptoc_ir::{Severity, SourceMap};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Compile MLIR kernels written in the `pto` tile dialect to PTO bundles.
#[derive(Parser, Debug)]
#[command(name = "ptoc", version, about)]
struct Cli {
    /// Input `.mlir` file (`-` for standard input).
    #[arg(default_value = "-")]
    input: String,
    /// Output file (written atomically); standard output when omitted.
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// What to produce.
    #[arg(long, value_enum, default_value = "mlir")]
    emit: Emit,
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

fn read_input(name: &str) -> std::io::Result<Vec<u8>> {
    if name == "-" {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes)?;
        Ok(bytes)
    } else {
        std::fs::read(name)
    }
}

/// Input text, or an error naming the line and column of the first byte that is not UTF-8.
fn decode_input(name: &str, bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = valid.len() - valid.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
        let byte = e.as_bytes()[valid.len()];
        format!("{name}:{line}:{col}: error: input is not UTF-8 text (byte 0x{byte:02X}); expected an MLIR source file")
    })
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("{message}");
            ExitCode::from(1)
        }
    }
}

/// Returns Ok(false) when diagnostics were reported, Err for a failure before compiling.
fn run(cli: Cli) -> Result<bool, String> {
    let file = if cli.input == "-" {
        "<stdin>".to_string()
    } else {
        cli.input.clone()
    };
    let bytes = read_input(&cli.input).map_err(|e| format!("error: cannot read '{file}': {e}"))?;
    let source = decode_input(&file, bytes)?;
    let driver = Driver::new(Options {
        emit: cli.emit,
        debug_info: cli.debug_info,
    });
    let mut sources = SourceMap::default();
    sources.add(file.as_str(), source.as_str());

    let chunks = if cli.split_input_file {
        split::split_input(&source)
    } else {
        vec![source.clone()]
    };
    let mut ok = true;
    let mut outputs = Vec::new();
    for chunk in &chunks {
        let outcome = driver.process(chunk, &file);
        let reported = if cli.verify_diagnostics {
            diagnostics::verify(chunk, &file, &outcome.diagnostics)
        } else {
            outcome.diagnostics
        };
        for diag in &reported {
            eprint!("{}", sources.render(diag));
            ok &= diag.severity != Severity::Error;
        }
        if let Some(out) = outcome.output {
            outputs.push(out);
        }
    }
    if !ok {
        return Ok(false);
    }
    let separator = format!("{}\n", split::SPLIT_MARKER);
    let joined = outputs.join(separator.as_bytes());
    match &cli.output {
        Some(path) => output::write_atomically(path, &joined)
            .map_err(|e| format!("error: cannot write '{}': {e}", path.display()))?,
        None => std::io::stdout()
            .write_all(&joined)
            .map_err(|e| format!("error: cannot write to standard output: {e}"))?,
    }
    Ok(true)
}
