//! Arbitrary text into the assembler: it must never panic; whatever it accepts must print and
//! assemble back to the same kernels, and survive an ELF write and read unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptoc_codegen::{assemble, print_asm, read_elf, write_elf};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(kernels) = assemble(text, "fuzz.s") else {
        return;
    };
    let printed = print_asm(&kernels);
    let again = assemble(&printed, "printed.s").expect("printed assembly re-assembles");
    assert_eq!(again, kernels, "{printed}");
    if let Ok(bytes) = write_elf(&kernels) {
        assert_eq!(
            read_elf(&bytes).expect("written object reads back"),
            kernels
        );
    }
});
