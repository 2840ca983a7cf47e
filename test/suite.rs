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

/// The softmax example compiled through the library, to be tampered with.
fn example_kernel() -> ptoc::codegen::Kernel {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let text = std::fs::read_to_string(root.join("softmax_rows.mlir")).unwrap();
    let driver = ptoc::Driver::new(ptoc::Options::default()).unwrap();
    let module = driver
        .import(&ptoc::ir::Source::new(&text, "softmax_rows.mlir"))
        .unwrap();
    driver.compile_kernels(&module).unwrap().remove(0)
}

/// `ptoc run KERNEL --arg x=… --out-dir D` on `kernel`, written to a fresh directory; the
/// directory, the exit status and what was printed.
fn run_tampered(kernel: ptoc::codegen::Kernel) -> (tempfile::TempDir, bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let object = dir.path().join("crafted.bin");
    std::fs::write(&object, ptoc::codegen::write_elf(&[kernel]).unwrap()).unwrap();
    let x = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/softmax_rows.x.npy");
    let out = Command::new(env!("CARGO_BIN_EXE_ptoc"))
        .arg("run")
        .arg(&object)
        .arg(format!("--arg=x={}", x.display()))
        .arg("--out-dir")
        .arg(dir.path().join("sub/D"))
        .output()
        .unwrap();
    let printed =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (dir, out.status.success(), printed)
}

/// Every file under `dir`, relative to it.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path.clone());
            }
            out.push(path.strip_prefix(dir).unwrap().display().to_string());
        }
    }
    out.sort();
    out
}

/// Result names come from the object's metadata: `../escaped` and `/abs` used to write outside
/// `--out-dir`. Now such an object is refused when read, and nothing is written anywhere.
#[test]
fn out_dir_cannot_be_escaped_by_result_names() {
    for name in ["../escaped", "../../escaped", "/tmp/ptoc-escaped-abs"] {
        let mut kernel = example_kernel();
        kernel.meta.results[0].name = name.into();
        let (dir, ok, printed) = run_tampered(kernel);
        assert!(!ok, "{name}: {printed}");
        assert!(printed.contains("is not an identifier"), "{printed}");
        assert_eq!(files_under(dir.path()), ["crafted.bin"], "{name}");
        assert!(!Path::new("/tmp/ptoc-escaped-abs.npy").exists());
    }
    let (dir, ok, printed) = run_tampered(example_kernel());
    assert!(ok, "{printed}");
    assert!(files_under(dir.path()).contains(&"sub/D/r0.npy".to_string()));
}

/// Kernel names are MLIR symbol names and may hold anything; `ptoc run` prints them escaped, so an
/// object cannot write terminal control sequences through them.
#[test]
fn run_escapes_control_characters_in_kernel_names() {
    let mut kernel = example_kernel();
    kernel.name = "evil\u{1b}[2J\nname".into();
    let (_dir, ok, printed) = run_tampered(kernel);
    assert!(ok, "{printed}");
    assert!(!printed.contains('\u{1b}'), "{printed:?}");
    assert!(
        printed.starts_with("kernel \"evil\\u{1b}[2J\\u{a}name\": ok"),
        "{printed:?}"
    );
}
