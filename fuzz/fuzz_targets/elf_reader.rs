//! Arbitrary bytes into the ELF reader: it must never panic; whatever it accepts must
//! disassemble, re-assemble and re-write to an object that reads back to the same kernels.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptoc_codegen::{assemble, disassemble, read_elf, write_elf};

fuzz_target!(|data: &[u8]| {
    let Ok(kernels) = read_elf(data) else {
        return;
    };
    let text = disassemble(&kernels);
    let again = assemble(&text, "disasm.s").expect("disassembly re-assembles");
    assert_eq!(again, kernels, "{text}");
    let bytes = write_elf(&again).expect("kernels read from an object can be written");
    assert_eq!(
        read_elf(&bytes).expect("rewritten object reads back"),
        kernels
    );
});
