//! The ELF object (`out.bin`): writer and checked reader.
//!
//! Layout: ELF64 little-endian `ET_REL`, `e_machine` = [`E_MACHINE_PTO`] (`EM_NONE`: PTO has no
//! registered machine number; a ptoc object is recognised by its `.pto.meta` section). Sections:
//! `.text` (`SHT_PROGBITS`, alloc+exec, align 4) holding every kernel's words as little-endian
//! `u32`s, kernels back to back in order; `.pto.meta` (`SHT_PROGBITS`, no flags) holding the
//! metadata document of [`crate::metadata`]; `.symtab`, `.strtab`, `.shstrtab`. Each kernel is one
//! global `STT_FUNC` symbol in `.text` whose value is its byte offset and whose size is its length
//! in bytes. The output is a function of the kernels alone, so write → read → write is
//! byte-identical.

use crate::metadata::{self, MetaError, METADATA_SECTION};
use crate::{group_bundles, Kernel};
use object::elf;
use object::read::elf::{FileHeader as _, SectionHeader as _, Sym as _};
use object::write::elf::{FileHeader, SectionHeader, Sym, Writer};
use object::{Endianness, LittleEndian as LE};
use std::collections::HashMap;

/// The ELF machine number ptoc writes and expects (`EM_NONE`).
pub const E_MACHINE_PTO: u16 = elf::EM_NONE;

/// Why an object could not be written or read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ElfError {
    /// The kernels cannot form an object (a name that is no ELF symbol, a name used twice, or
    /// the object writer failed).
    #[error("cannot write object: {0}")]
    Write(String),
    /// The bytes do not start with the ELF magic.
    #[error("not an ELF file")]
    NotElf,
    /// A 32-bit (or unknown class) ELF file.
    #[error("ELF class {0} is not ELF64")]
    Class(u8),
    /// A big-endian (or unknown encoding) ELF file.
    #[error("ELF data encoding {0} is not little-endian")]
    Endianness(u8),
    /// An object for another machine.
    #[error("ELF machine {found} is not the PTO machine {E_MACHINE_PTO} (EM_NONE)")]
    Machine {
        /// The object's `e_machine`.
        found: u16,
    },
    /// The ELF structure is inconsistent (the reader's message).
    #[error("malformed ELF file: {0}")]
    Malformed(String),
    /// A section ptoc needs (`.text`, `.pto.meta`) is absent.
    #[error("missing section {0}")]
    MissingSection(&'static str),
    /// The metadata section is unreadable.
    #[error("section {METADATA_SECTION}: {0}")]
    Metadata(#[from] MetaError),
    /// A kernel's symbol, code or metadata disagree.
    #[error("kernel '{name}': {message}")]
    Kernel {
        /// The kernel's symbol name.
        name: String,
        /// What is wrong.
        message: String,
    },
}

fn malformed(e: object::read::Error) -> ElfError {
    ElfError::Malformed(e.to_string())
}

/// The object file for `kernels`.
pub fn write_elf(kernels: &[Kernel]) -> Result<Vec<u8>, ElfError> {
    let mut seen = std::collections::HashSet::new();
    let mut text = Vec::new();
    let mut ranges = Vec::new();
    for k in kernels {
        if k.name.is_empty() || k.name.contains('\0') {
            return Err(ElfError::Write(format!(
                "kernel name {:?} cannot be an ELF symbol",
                k.name
            )));
        }
        if !seen.insert(k.name.as_str()) {
            return Err(ElfError::Write(format!(
                "two kernels are named '{}'",
                k.name
            )));
        }
        let start = text.len() as u64;
        for w in k.words() {
            text.extend_from_slice(&w.to_le_bytes());
        }
        ranges.push((start, text.len() as u64 - start));
    }
    let meta = metadata::encode(kernels.iter().map(|k| (k.name.as_str(), &k.meta)));

    let mut out = Vec::new();
    let mut w = Writer::new(Endianness::Little, true, &mut out);
    w.reserve_file_header();
    w.reserve_null_section_index();
    let text_name = w.add_section_name(b".text");
    let text_index = w.reserve_section_index();
    let meta_name = w.add_section_name(METADATA_SECTION.as_bytes());
    w.reserve_section_index();
    let names: Vec<_> = kernels
        .iter()
        .map(|k| w.add_string(k.name.as_bytes()))
        .collect();
    w.reserve_null_symbol_index();
    for _ in kernels {
        w.reserve_symbol_index(Some(text_index));
    }
    w.reserve_symtab_section_index();
    w.reserve_strtab_section_index();
    w.reserve_shstrtab_section_index();
    let text_offset = w.reserve(text.len(), 4);
    let meta_offset = w.reserve(meta.len(), 1);
    w.reserve_symtab();
    w.reserve_strtab();
    w.reserve_shstrtab();
    w.reserve_section_headers();

    w.write_file_header(&FileHeader {
        os_abi: elf::ELFOSABI_NONE,
        abi_version: 0,
        e_type: elf::ET_REL,
        e_machine: E_MACHINE_PTO,
        e_entry: 0,
        e_flags: 0,
    })
    .map_err(|e| ElfError::Write(e.to_string()))?;
    w.write_align(4);
    w.write(&text);
    w.write(&meta);
    w.write_null_symbol();
    for (name, &(value, size)) in names.iter().zip(&ranges) {
        w.write_symbol(&Sym {
            name: Some(*name),
            section: Some(text_index),
            st_info: (elf::STB_GLOBAL << 4) | elf::STT_FUNC,
            st_other: elf::STV_DEFAULT,
            st_shndx: 0,
            st_value: value,
            st_size: size,
        });
    }
    w.write_strtab();
    w.write_shstrtab();
    w.write_null_section_header();
    let progbits = |name, flags, offset, size, align| SectionHeader {
        name: Some(name),
        sh_type: elf::SHT_PROGBITS,
        sh_flags: flags,
        sh_addr: 0,
        sh_offset: offset as u64,
        sh_size: size as u64,
        sh_link: 0,
        sh_info: 0,
        sh_addralign: align,
        sh_entsize: 0,
    };
    let exec = (elf::SHF_ALLOC | elf::SHF_EXECINSTR) as u64;
    w.write_section_header(&progbits(text_name, exec, text_offset, text.len(), 4));
    w.write_section_header(&progbits(meta_name, 0, meta_offset, meta.len(), 1));
    // Only the null symbol is local.
    w.write_symtab_section_header(1);
    w.write_strtab_section_header();
    w.write_shstrtab_section_header();
    Ok(out)
}

/// Read every kernel (words, bundles and metadata) back from an object written by
/// [`write_elf`], checking the file rather than trusting it.
pub fn read_elf(data: &[u8]) -> Result<Vec<Kernel>, ElfError> {
    // Offsets in `e_ident`: its size, the class byte and the data-encoding byte.
    const EI_NIDENT: usize = 16;
    const EI_CLASS: usize = 4;
    const EI_DATA: usize = 5;
    if data.len() < EI_NIDENT || data[..4] != elf::ELFMAG {
        return Err(ElfError::NotElf);
    }
    if data[EI_CLASS] != elf::ELFCLASS64 {
        return Err(ElfError::Class(data[EI_CLASS]));
    }
    if data[EI_DATA] != elf::ELFDATA2LSB {
        return Err(ElfError::Endianness(data[EI_DATA]));
    }
    let header = elf::FileHeader64::<LE>::parse(data).map_err(malformed)?;
    let machine = header.e_machine(LE);
    if machine != E_MACHINE_PTO {
        return Err(ElfError::Machine { found: machine });
    }
    let sections = header.sections(LE, data).map_err(malformed)?;
    let section_data = |name: &'static str| -> Result<(usize, &[u8]), ElfError> {
        let (index, section) = sections
            .section_by_name(LE, name.as_bytes())
            .ok_or(ElfError::MissingSection(name))?;
        if section.sh_type(LE) != elf::SHT_PROGBITS {
            return Err(ElfError::Malformed(format!(
                "section {name} is not SHT_PROGBITS"
            )));
        }
        Ok((index.0, section.data(LE, data).map_err(malformed)?))
    };
    let (text_index, text) = section_data(".text")?;
    let (_, meta) = section_data(METADATA_SECTION)?;
    let metas = metadata::decode(meta)?;

    let symbols = sections
        .symbols(LE, data, elf::SHT_SYMTAB)
        .map_err(malformed)?;
    let mut functions: HashMap<String, (u64, u64)> = HashMap::new();
    for sym in symbols.iter() {
        if sym.st_type() != elf::STT_FUNC {
            continue;
        }
        let name = symbols.symbol_name(LE, sym).map_err(malformed)?;
        let name = String::from_utf8(name.to_vec())
            .map_err(|_| ElfError::Malformed("a function symbol name is not UTF-8".into()))?;
        if sym.st_shndx(LE) as usize != text_index {
            return Err(kernel_error(&name, "its symbol is not in .text"));
        }
        let range = (sym.st_value(LE), sym.st_size(LE));
        if functions.insert(name.clone(), range).is_some() {
            return Err(kernel_error(&name, "has two function symbols"));
        }
    }
    let mut kernels = Vec::new();
    for (name, meta) in metas {
        let Some((offset, size)) = functions.remove(&name) else {
            return Err(kernel_error(&name, "has metadata but no function symbol"));
        };
        let end = offset.checked_add(size).filter(|&e| e <= text.len() as u64);
        let (Some(end), true) = (end, offset % 4 == 0 && size % 4 == 0) else {
            return Err(kernel_error(
                &name,
                &format!(
                    "symbol range {offset}+{size} is not whole words inside .text ({} bytes)",
                    text.len()
                ),
            ));
        };
        let words: Vec<u32> = text[offset as usize..end as usize]
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        kernels.push(Kernel {
            name,
            bundles: group_bundles(&words),
            meta,
        });
    }
    if let Some(name) = functions.keys().min() {
        return Err(kernel_error(name, "has a function symbol but no metadata"));
    }
    Ok(kernels)
}

fn kernel_error(name: &str, message: &str) -> ElfError {
    ElfError::Kernel {
        name: name.to_string(),
        message: message.to_string(),
    }
}
