//! `cargo run --example asm2elf -- IN.s OUT.bin`: assemble a file into an object (a development
//! aid until the CLI's `ptoc asm` exists).

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, output] = &args[..] else {
        eprintln!("usage: asm2elf IN.s OUT.bin");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(input).unwrap_or_else(|e| {
        eprintln!("{input}: {e}");
        std::process::exit(1)
    });
    let kernels = ptoc_codegen::assemble(&text, input).unwrap_or_else(|diags| {
        let mut sources = ptoc_ir::SourceMap::default();
        sources.add(input.as_str(), text.as_str());
        for d in &diags {
            eprint!("{}", sources.render(d));
        }
        std::process::exit(1)
    });
    match ptoc_codegen::write_elf(&kernels) {
        Ok(bytes) => std::fs::write(output, bytes).unwrap_or_else(|e| {
            eprintln!("{output}: {e}");
            std::process::exit(1)
        }),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1)
        }
    }
}
