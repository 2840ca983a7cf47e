//! The ELF object: contents seen by readelf, read-back, and rejection of damaged files.

mod common;

use common::{tile, worked_example, Builder};
use ptoc_codegen::{lower_function, read_elf, write_elf, ElfError, Kernel};
use ptoc_isa::DataType;

fn two_kernels() -> Vec<Kernel> {
    let mut b = Builder::new("softmax_part");
    let x = b.arg("x", tile(16, 64, DataType::FP32));
    let m = b.op("TROWMAX", &[x], tile(16, 1, DataType::FP32), 2);
    let e = b.op("TROWEXPANDEXPDIF", &[x, m], tile(16, 64, DataType::FP32), 3);
    let second = lower_function(&b.ret(&[e])).unwrap();
    vec![lower_function(&worked_example()).unwrap(), second]
}

fn without_origins(kernels: &[Kernel]) -> Vec<Kernel> {
    let mut out = kernels.to_vec();
    for b in out.iter_mut().flat_map(|k| &mut k.bundles) {
        b.origin = None;
    }
    out
}

#[test]
fn write_then_read_gives_the_kernels_back() {
    let kernels = two_kernels();
    let bytes = write_elf(&kernels).unwrap();
    let back = read_elf(&bytes).unwrap();
    assert_eq!(back, without_origins(&kernels));
    assert_eq!(write_elf(&back).unwrap(), bytes);
    // The worked example's words sit at the start of .text, little-endian.
    let text_start = bytes
        .windows(4)
        .position(|w| w == 0x0C91_9181u32.to_le_bytes())
        .unwrap();
    assert_eq!(
        &bytes[text_start + 4..text_start + 8],
        &0x0100_0043u32.to_le_bytes()
    );
    // No kernels is a valid (empty) object too.
    assert_eq!(read_elf(&write_elf(&[]).unwrap()).unwrap(), vec![]);
}

#[test]
fn duplicate_or_unnamable_kernels_are_refused() {
    let k = lower_function(&worked_example()).unwrap();
    assert!(matches!(
        write_elf(&[k.clone(), k.clone()]),
        Err(ElfError::Write(_))
    ));
    let mut nul = k;
    nul.name = "a\0b".into();
    assert!(matches!(write_elf(&[nul]), Err(ElfError::Write(_))));
}

/// An object's result names become `--out-dir` file names: a crafted object whose metadata names
/// a result `../../escaped` or `/abs/path` used to be read as it was.
#[test]
fn objects_with_path_like_tile_names_are_refused() {
    for bad in ["../../escaped", "/abs/path", "a/b", "", "tab\there"] {
        let mut k = lower_function(&worked_example()).unwrap();
        k.meta.results[0].name = bad.into();
        let bytes = write_elf(&[k]).unwrap();
        let err = read_elf(&bytes).unwrap_err().to_string();
        assert!(err.contains("is not an identifier"), "{bad:?}: {err}");
    }
}

/// Run a readelf-style tool on an object and return its output.
fn readelf(tool: &str, bytes: &[u8]) -> Option<String> {
    let path = std::env::temp_dir().join(format!("ptoc-codegen-readelf-{}.o", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    let out = std::process::Command::new(tool)
        .args(["-S", "-s"])
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    let out = out.ok()?;
    assert!(
        out.status.success(),
        "{tool}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn readelf_shows_sections_and_function_symbols() {
    let bytes = write_elf(&two_kernels()).unwrap();
    let mut ran = 0;
    for tool in ["/usr/lib/llvm-22/bin/llvm-readelf", "readelf"] {
        let Some(text) = readelf(tool, &bytes) else {
            continue;
        };
        ran += 1;
        for needle in [".text", ".pto.meta", ".symtab", ".strtab"] {
            assert!(text.contains(needle), "{tool} lacks {needle}:\n{text}");
        }
        let funcs: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("FUNC") && l.contains("GLOBAL"))
            .collect();
        assert_eq!(funcs.len(), 2, "{tool}:\n{text}");
        // The worked example: offset 0, 5 words = 20 bytes.
        assert!(
            funcs[0].contains(" 20 FUNC") && funcs[0].ends_with(" k"),
            "{tool}: {}",
            funcs[0]
        );
        assert!(funcs[1].ends_with(" softmax_part"), "{tool}: {}", funcs[1]);
    }
    assert!(ran > 0, "neither llvm-readelf nor readelf could be run");
}

#[test]
fn damaged_files_are_rejected_with_reasons() {
    let bytes = write_elf(&two_kernels()).unwrap();
    let with = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = bytes.clone();
        f(&mut b);
        read_elf(&b).unwrap_err()
    };
    assert_eq!(with(&|b| b[0] = 0), ElfError::NotElf);
    assert_eq!(with(&|b| b[4] = 1), ElfError::Class(1));
    assert_eq!(with(&|b| b[5] = 2), ElfError::Endianness(2));
    assert_eq!(with(&|b| b[18] = 0x3E), ElfError::Machine { found: 0x3E });
    let rename = |from: &'static str, to: &'static str| {
        let at = bytes
            .windows(from.len())
            .rposition(|w| w == from.as_bytes())
            .unwrap();
        move |b: &mut Vec<u8>| b[at..at + to.len()].copy_from_slice(to.as_bytes())
    };
    assert_eq!(
        with(&rename(".pto.meta", ".pto.xxxx")),
        ElfError::MissingSection(".pto.meta")
    );
    assert!(matches!(
        with(&rename("\"version\":4", "\"version\":7")),
        ElfError::Metadata(ptoc_codegen::MetaError::Version(v)) if v == "7"
    ));
    assert!(matches!(
        with(&rename("softmax_part", "softmax_pert")),
        ElfError::Kernel { .. }
    ));
    // Every truncation is an error, never a panic.
    for len in 0..bytes.len() {
        assert!(read_elf(&bytes[..len]).is_err(), "truncated to {len}");
    }
    // Single-byte damage anywhere never panics.
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0xA5;
        let _ = read_elf(&b);
    }
}
