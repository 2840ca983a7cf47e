//! Arbitrary text through the checks ptoc runs on a source before and around MLIR: splitting at
//! `// -----`, the bracket-nesting bound, and `--verify-diagnostics` against diagnostics on
//! arbitrary lines. None may panic; chunks must tile the text and keep its line numbers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptoc_ir::{Diagnostic, Location, Source};

// The CLI's and the dialect's own modules, compiled here without MLIR.
#[path = "../../ptoc/src/cli/diagnostics.rs"]
mod diagnostics;
#[path = "../../dialect/src/nesting.rs"]
mod nesting;
#[path = "../../ptoc/src/cli/split.rs"]
mod split;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let whole = Source::new(text, "fuzz.mlir");
    let chunks = split::split_input(&whole);
    let mut line = 1;
    for chunk in &chunks {
        assert!(chunk.first_line >= line, "chunks go forward");
        line = chunk.first_line;
        let _ = nesting::check_nesting(chunk);
        let diags: Vec<Diagnostic> = (chunk.first_line..=chunk.last_line())
            .step_by(3)
            .map(|l| Diagnostic::error(Location::new("fuzz.mlir", l, 1), "boom"))
            .collect();
        for problem in diagnostics::verify(chunk, &diags) {
            assert!(problem.loc.line >= 1);
        }
    }
    let rejoined: usize = chunks.iter().map(|c| c.text.len()).sum();
    assert!(rejoined <= text.len());
});
