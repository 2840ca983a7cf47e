//! C programs against the C API, compiled with the system's `cc` and run: `tests/api.c` (every
//! entry point) and the C example of the README's Embedding section, exactly as printed there.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The directory holding a fresh `libptoc_capi.so`: the parent of this test's `deps/`.
///
/// `cargo test` builds only the rlib of the crate under test, so the shared library is built
/// here, by the cargo that runs the test, with the same target directory and profile (once per
/// test binary; cargo does nothing when it is up to date).
fn library_dir() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("test executable path");
            let dir = exe
                .parent()
                .and_then(Path::parent)
                .expect("target/<profile>/deps/<test>")
                .to_path_buf();
            let target = dir.parent().expect("target/<profile>");
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
            let mut build = Command::new(cargo);
            build
                .args([
                    "build",
                    "--quiet",
                    "-p",
                    "ptoc-capi",
                    "--lib",
                    "--target-dir",
                ])
                .arg(target)
                .current_dir(env!("CARGO_MANIFEST_DIR"));
            if dir.file_name().is_some_and(|n| n == "release") {
                build.arg("--release");
            }
            let out = build.output().expect("run cargo build -p ptoc-capi");
            assert!(
                out.status.success(),
                "cargo build -p ptoc-capi failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            dir
        })
        .clone()
}

/// Compile `source` against include/ptoc.h and the shared library, run it, and return its
/// standard output; panics with the compiler's or the program's output on failure.
fn compile_and_run(source: &Path, work: &Path) -> String {
    let dir = env!("CARGO_MANIFEST_DIR");
    let lib = library_dir();
    let exe = work.join("program");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let built = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1"])
        .arg(format!("-I{dir}/include"))
        .arg(source)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lptoc_capi", "-lpthread", "-lm"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cc}: {e}"));
    assert!(
        built.status.success(),
        "{cc} failed on {}:\n{}",
        source.display(),
        String::from_utf8_lossy(&built.stderr)
    );
    let ran = Command::new(&exe).output().expect("run the C program");
    let stdout = String::from_utf8_lossy(&ran.stdout).into_owned();
    assert!(
        ran.status.success(),
        "{} failed:\n{stdout}{}",
        source.display(),
        String::from_utf8_lossy(&ran.stderr)
    );
    stdout
}

#[test]
fn the_c_program_uses_every_entry_point_and_every_check_holds() {
    let work = tempfile::tempdir().unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/api.c");
    let out = compile_and_run(&source, work.path());
    assert_eq!(out, "all C API checks passed\n");
}

/// Every function the header declares is called by tests/api.c.
#[test]
fn the_c_program_calls_every_function_of_the_header() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = std::fs::read_to_string(dir.join("include/ptoc.h")).unwrap();
    let program = std::fs::read_to_string(dir.join("tests/api.c")).unwrap();
    let functions: Vec<&str> = header
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("ptoc_"))
        .collect();
    assert!(functions.len() >= 7, "{functions:?}");
    for f in functions {
        assert!(
            program.contains(&format!("{f}(")),
            "tests/api.c never calls {f}"
        );
    }
}

/// Every C example of the README, with what each prints (worked out by hand): the tile kernel's
/// `r0 = x * v`, and the GM kernel's `out = 2 x[2, :]` (x[r, c] = 8r + c) and its fault.
#[test]
fn the_readme_c_examples_compile_and_run() {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let text = std::fs::read_to_string(readme).unwrap();
    let blocks: Vec<&str> = text
        .split("```c\n")
        .skip(1)
        .map(|b| &b[..b.find("```").unwrap()])
        .collect();
    let expected = [
        "r0 = [[2, 4, 6, 8], [1, 1, 1, 1]]\n",
        "out = [32, 34, 36, 38, 40, 42, 44, 46]\nFault_DataPage in bundle 1 at 0x10080\n",
    ];
    assert_eq!(blocks.len(), expected.len(), "the README's C examples");
    for (block, want) in blocks.iter().zip(expected) {
        let work = tempfile::tempdir().unwrap();
        let source = work.path().join("readme.c");
        std::fs::write(&source, block).unwrap();
        assert_eq!(compile_and_run(&source, work.path()), want);
    }
}
