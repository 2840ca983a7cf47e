//! How `ptoc run` prints a run: the JSON report (`--format json`) and the text listing.

use ptoc::codegen::{quote_name, Kernel};
use ptoc::exec::{format_element, hex, Run};

/// The JSON report of a run (README, Running kernels); fields serialise in this order.
#[derive(Debug, serde::Serialize)]
pub struct RunReport {
    pub kernel: String,
    pub status: &'static str,
    pub flags: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<FaultReport>,
    pub results: Vec<ResultReport>,
    /// Each GM argument the kernel stores to (absent for kernels without one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub memrefs: Vec<MemRefReport>,
}

#[derive(Debug, serde::Serialize)]
pub struct FaultReport {
    pub class: &'static str,
    pub bundle: usize,
    /// The GM element address of a GM fault.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    pub message: String,
}

/// One stored memref: its elements row-major, as hex bit patterns.
#[derive(Debug, serde::Serialize)]
pub struct MemRefReport {
    pub name: String,
    pub dtype: &'static str,
    pub rows: u32,
    pub cols: u32,
    pub elements: Vec<String>,
}

/// One result tile: the whole physical tile row-major, `null` where undefined.
#[derive(Debug, serde::Serialize)]
pub struct ResultReport {
    pub name: String,
    pub register: String,
    pub dtype: &'static str,
    pub rows: u32,
    pub cols: u32,
    pub valid_rows: u32,
    pub valid_cols: u32,
    pub size_code: u32,
    pub elements: Vec<Option<String>>,
}

/// The run as the JSON report of the README's Running kernels section.
pub fn run_report(kernel: &Kernel, run: &Run) -> RunReport {
    RunReport {
        kernel: kernel.name.clone(),
        status: if run.fault.is_some() { "fault" } else { "ok" },
        flags: format!("0x{:02x}", run.flags),
        fault: run.fault.as_ref().map(|f| FaultReport {
            class: f.class.name(),
            bundle: f.bundle,
            address: f.address.map(|a| format!("{a:#x}")),
            message: f.message.clone(),
        }),
        memrefs: kernel
            .meta
            .memrefs
            .iter()
            .filter(|m| m.is_output())
            .zip(&run.memrefs)
            .map(|(m, values)| MemRefReport {
                name: m.name.clone(),
                dtype: m.dtype.name(),
                rows: m.rows,
                cols: m.cols,
                elements: values.iter().map(|&v| hex(m.dtype, v)).collect(),
            })
            .collect(),
        results: kernel
            .meta
            .results
            .iter()
            .zip(&run.results)
            .map(|(meta, tile)| ResultReport {
                name: meta.name.clone(),
                register: meta.register.to_string(),
                dtype: meta.type_name(),
                rows: tile.rows,
                cols: tile.cols,
                valid_rows: tile.valid_rows,
                valid_cols: tile.valid_cols,
                size_code: meta.size_code.code(),
                elements: (0..tile.len())
                    .map(|i| tile.is_defined(i).then(|| hex(tile.dtype, tile.bits(i))))
                    .collect(),
            })
            .collect(),
    }
}

/// The valid region of each result as text, one row per line, then each stored memref: its rows,
/// or, when `out_dir` is given (the values are in its `.npy`), the file they were written to.
pub fn run_text(kernel: &Kernel, run: &Run, out_dir: Option<&std::path::Path>) -> String {
    let mut out = String::new();
    if let Some(fault) = &run.fault {
        out.push_str(&format!(
            "kernel {}: fault: {fault}\n",
            quote_name(&kernel.name)
        ));
        return out;
    }
    let names = match run.flags {
        0 => String::new(),
        f => format!(" ({})", ptoc::runtime::numerics::flag_names(f)),
    };
    out.push_str(&format!(
        "kernel {}: ok, flags 0x{:02x}{names}\n",
        quote_name(&kernel.name),
        run.flags
    ));
    for (meta, tile) in kernel.meta.results.iter().zip(&run.results) {
        out.push_str(&format!(
            "{} = {} {} {}x{} (valid {}x{})\n",
            meta.name,
            meta.register,
            tile.dtype,
            tile.rows,
            tile.cols,
            tile.valid_rows,
            tile.valid_cols
        ));
        for r in 0..tile.valid_rows as usize {
            let row: Vec<String> = (0..tile.valid_cols as usize)
                .map(|c| format_element(tile.dtype, tile.bits(tile.index(r, c))))
                .collect();
            out.push_str(&format!("  [{}]\n", row.join(", ")));
        }
    }
    let stored = kernel.meta.memrefs.iter().filter(|m| m.is_output());
    for (m, values) in stored.zip(&run.memrefs) {
        let head = format!("{} = memref {} {}x{}", m.name, m.dtype, m.rows, m.cols);
        // With --out-dir the values are in the file: a GM tensor may hold millions of them.
        if let Some(file) = out_dir.and_then(|dir| crate::result_file(dir, &m.name).ok()) {
            out.push_str(&format!("{head}, written to {}\n", file.display()));
            continue;
        }
        out.push_str(&format!("{head}\n"));
        for row in values.chunks(m.cols.max(1) as usize) {
            let row: Vec<String> = row.iter().map(|&v| format_element(m.dtype, v)).collect();
            out.push_str(&format!("  [{}]\n", row.join(", ")));
        }
    }
    out
}
