//! Export the tile IR back to an MLIR module.
//!
//! The module is written as MLIR generic-form text with full locations and parsed by MLIR itself,
//! so what ptoc prints is always MLIR's own printing of a module MLIR accepted.

use crate::mlir::Frontend;
use melior::ir::Module;
use ptoc_ir::{control_attrs, Attr, Diagnostic, Function, Location, Op, ValueId};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The tile IR as MLIR text (func dialect + generic-form `pto.*` ops, with locations).
pub fn export_text(module: &ptoc_ir::Module) -> String {
    let mut out = String::from("module {\n");
    for func in &module.functions {
        write_function(&mut out, func);
    }
    out.push_str("}\n");
    out
}

/// The tile IR as an MLIR module, parsed by `frontend`'s context.
pub fn export_module<'c>(
    frontend: &'c Frontend,
    module: &ptoc_ir::Module,
) -> Result<Module<'c>, Vec<Diagnostic>> {
    frontend.parse(&ptoc_ir::Source::new(&export_text(module), "<ptoc-export>"))
}

fn value(id: ValueId) -> String {
    format!("%v{}", id.0)
}

fn loc(l: &Location) -> String {
    match &l.file {
        Some(file) => format!("loc({}:{}:{})", quote(file), l.line, l.col),
        None => "loc(unknown)".to_string(),
    }
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => write!(out, "\\{:02X}", c as u32).unwrap(),
            c if c.is_control() => write!(out, "\\{:02X}", c as u32).unwrap(),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// ` {pto.dst = "T#1", …}` after `prefix` (e.g. `attributes `), or nothing when there is none.
fn attr_suffix(prefix: &str, attrs: &BTreeMap<String, Attr>) -> String {
    entries_suffix(prefix, attr_entries(attrs))
}

fn attr_entries(attrs: &BTreeMap<String, Attr>) -> Vec<String> {
    attrs
        .iter()
        .map(|(k, v)| match v {
            Attr::Int(n) => format!("{k} = {n} : i64"),
            Attr::Str(s) => format!("{k} = {}", quote(s)),
        })
        .collect()
}

fn entries_suffix(prefix: &str, entries: Vec<String>) -> String {
    if entries.is_empty() {
        return String::new();
    }
    format!(" {prefix}{{{}}}", entries.join(", "))
}

/// An op's numeric control (`pto.rmode`, `pto.sat`, written only when not the default), then
/// its discardable attributes.
fn op_attr_suffix(op: &Op) -> String {
    let mut entries = Vec::new();
    if let Some(mode) = op.control.rmode {
        entries.push(format!(
            "{} = {}",
            control_attrs::RMODE,
            quote(&mode.mlir_name())
        ));
    }
    if op.control.sat {
        entries.push(format!("{} = true", control_attrs::SAT));
    }
    entries.extend(attr_entries(&op.attrs));
    entries_suffix("", entries)
}

fn write_function(out: &mut String, func: &Function) {
    let args: Vec<String> = func
        .args
        .iter()
        .zip(&func.arg_attrs)
        .map(|(&id, attrs)| {
            let attrs = attr_suffix("", attrs);
            format!("{}: {}{attrs} {}", value(id), func.ty(id), loc(&func.loc))
        })
        .collect();
    let results: Vec<String> = func
        .results
        .iter()
        .map(|&r| func.ty(r).to_string())
        .collect();
    let fn_attrs = attr_suffix("attributes ", &func.attrs);
    writeln!(
        out,
        "  func.func @{}({}) -> ({}){fn_attrs} {{",
        func.name,
        args.join(", "),
        results.join(", ")
    )
    .unwrap();
    for op in &func.ops {
        let operands: Vec<String> = op.operands.iter().map(|&v| value(v)).collect();
        let types: Vec<String> = op
            .operands
            .iter()
            .map(|&v| func.ty(v).to_string())
            .collect();
        let attrs = op_attr_suffix(op);
        writeln!(
            out,
            "    {} = \"{}\"({}){attrs} : ({}) -> {} {}",
            value(op.result),
            op.info.mlir_name(),
            operands.join(", "),
            types.join(", "),
            func.ty(op.result),
            loc(&op.loc)
        )
        .unwrap();
    }
    let ret: Vec<String> = func.results.iter().map(|&v| value(v)).collect();
    if ret.is_empty() {
        writeln!(out, "    func.return {}", loc(&func.loc)).unwrap();
    } else {
        writeln!(
            out,
            "    func.return {} : {} {}",
            ret.join(", "),
            results.join(", "),
            loc(&func.loc)
        )
        .unwrap();
    }
    writeln!(out, "  }} {}", loc(&func.loc)).unwrap();
}
