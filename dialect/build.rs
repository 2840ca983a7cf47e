//! Compiles `cpp/parse_named.cpp`, the parse-from-memory entry point MLIR's C API lacks, and
//! `cpp/linalg_input.cpp`, the interface models linalg normalisation needs, against the same LLVM/MLIR 22 that `mlir-sys` links (its prefix comes from
//! `MLIR_SYS_220_PREFIX`, set in `.cargo/config.toml`).

fn main() {
    let prefix =
        std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".to_string());
    println!("cargo:rerun-if-changed=cpp/parse_named.cpp");
    println!("cargo:rerun-if-changed=cpp/linalg_input.cpp");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .include(format!("{prefix}/include"))
        .flag("-fno-exceptions")
        // LLVM's headers are not warning-clean under every flag set; our few lines are.
        .flag("-w")
        .file("cpp/parse_named.cpp")
        .file("cpp/linalg_input.cpp")
        .compile("ptoc_parse_named");
}
