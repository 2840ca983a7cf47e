//! A development aid until the CLI wires `ptoc asm`/`ptoc disasm`:
//! `cargo run --example objtool -- asm IN.s OUT.bin` and `... -- disasm IN.bin`.

use std::process::exit;

fn fail(message: String) -> ! {
    eprintln!("{message}");
    exit(1)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match &args[1..] {
        [cmd, input, output] if cmd == "asm" => {
            let text =
                std::fs::read_to_string(input).unwrap_or_else(|e| fail(format!("{input}: {e}")));
            let kernels = ptoc_codegen::assemble(&text, input).unwrap_or_else(|diags| {
                let mut sources = ptoc_ir::SourceMap::default();
                sources.add(input.as_str(), text.as_str());
                fail(diags.iter().map(|d| sources.render(d)).collect())
            });
            let bytes =
                ptoc_codegen::write_elf(&kernels).unwrap_or_else(|e| fail(format!("error: {e}")));
            std::fs::write(output, bytes).unwrap_or_else(|e| fail(format!("{output}: {e}")));
        }
        [cmd, input] if cmd == "disasm" => {
            let bytes = std::fs::read(input).unwrap_or_else(|e| fail(format!("{input}: {e}")));
            let kernels = ptoc_codegen::read_elf(&bytes)
                .unwrap_or_else(|e| fail(format!("{input}: error: {e}")));
            print!("{}", ptoc_codegen::disassemble(&kernels));
        }
        _ => fail("usage: objtool asm IN.s OUT.bin | objtool disasm IN.bin".into()),
    }
}
