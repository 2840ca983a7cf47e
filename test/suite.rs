//! ptoc's regression suite: runs every lit test under `test/` (LLVM 22's lit + FileCheck) against
//! the `ptoc` binary cargo just built, so `cargo test` runs everything.

use std::path::Path;
use std::process::Command;

const LIT: &str = "/usr/lib/llvm-22/bin/lit";

#[test]
fn lit_tests() {
    let ptoc = Path::new(env!("CARGO_BIN_EXE_ptoc"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test");
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lit");
    assert!(
        Path::new(LIT).exists(),
        "{LIT} is missing: run scripts/setup to install LLVM 22's test tools"
    );
    let status = Command::new(LIT)
        .arg("-sv")
        .arg(&root)
        .arg(format!(
            "--param=ptoc_bin_dir={}",
            ptoc.parent().unwrap().display()
        ))
        .arg(format!("--param=ptoc_out_dir={}", out_dir.display()))
        .status()
        .expect("lit runs");
    assert!(status.success(), "lit tests failed (see the output above)");
}
