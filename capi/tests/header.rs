//! `include/ptoc.h` is what cbindgen generates from `src/lib.rs` today.
//!
//! The header is committed so that C users need no Rust tool to read it; this test keeps it
//! honest. After changing the API, regenerate it with
//! `PTOC_BLESS=1 cargo test -p ptoc-capi --test header`.

#[test]
fn header_is_up_to_date() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let config =
        cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads src/lib.rs")
        .write(&mut generated);
    let path = format!("{dir}/include/ptoc.h");
    if std::env::var_os("PTOC_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write include/ptoc.h");
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/ptoc.h is not what cbindgen generates from src/lib.rs; regenerate it with \
         `PTOC_BLESS=1 cargo test -p ptoc-capi --test header`"
    );
}
