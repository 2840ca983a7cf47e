//! Export the tile IR back to an MLIR module.
//!
//! The module is written as MLIR generic-form text with full locations and parsed by MLIR itself,
//! so what ptoc prints is always MLIR's own printing of a module MLIR accepted.

use crate::mlir::Frontend;
use melior::ir::Module;
use ptoc_ir::{
    control_attrs, Attr, Block, Diagnostic, Function, GmKernel, GmOp, GmOpKind, Location, Op,
    ScalarType, Type, ValueId, WORKSPACE_ATTR,
};
use ptoc_isa::NumericControl;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The tile IR as MLIR text (func dialect + generic-form `pto.*` ops, with locations).
pub fn export_text(module: &ptoc_ir::Module) -> String {
    let mut out = String::from("module {\n");
    for func in &module.functions {
        write_function(&mut out, func);
    }
    for kernel in &module.gm_kernels {
        write_gm_kernel(&mut out, kernel);
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
    control_attr_suffix(&op.control, &op.attrs)
}

fn control_attr_suffix(control: &NumericControl, attrs: &BTreeMap<String, Attr>) -> String {
    let mut entries = Vec::new();
    if let Some(mode) = control.rmode {
        entries.push(format!(
            "{} = {}",
            control_attrs::RMODE,
            quote(&mode.mlir_name())
        ));
    }
    if control.sat {
        entries.push(format!("{} = true", control_attrs::SAT));
    }
    entries.extend(attr_entries(attrs));
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

/// A GM kernel: `func.func` with its body in generic form (`"scf.for"`, `"arith.addi"`, …),
/// which MLIR re-parses and then prints in each registered op's own syntax.
fn write_gm_kernel(out: &mut String, kernel: &GmKernel) {
    let args: Vec<String> = kernel
        .args
        .iter()
        .map(|&id| {
            let attrs = match kernel.workspaces.contains(&id) {
                true => format!(" {{{WORKSPACE_ATTR}}}"),
                false => String::new(),
            };
            format!(
                "{}: {}{attrs} {}",
                value(id),
                kernel.ty(id),
                loc(&kernel.loc)
            )
        })
        .collect();
    let results: Vec<String> = kernel
        .body
        .ops
        .iter()
        .find(|op| matches!(op.kind, GmOpKind::Return))
        .map(|op| {
            op.operands
                .iter()
                .map(|&v| kernel.ty(v).to_string())
                .collect()
        })
        .unwrap_or_default();
    let fn_attrs = attr_suffix("attributes ", &kernel.attrs);
    writeln!(
        out,
        "  func.func @{}({}) -> ({}){fn_attrs} {{",
        kernel.name,
        args.join(", "),
        results.join(", ")
    )
    .unwrap();
    let mut names = GmNames::default();
    write_gm_block(out, kernel, &kernel.body, &mut names, 2);
    writeln!(out, "  }} {}", loc(&kernel.loc)).unwrap();
}

/// The MLIR spelling of each value: `%vN`, or `%vN#k` for result k of a multi-result op.
#[derive(Default)]
struct GmNames {
    multi: std::collections::HashMap<ValueId, String>,
}

impl GmNames {
    fn of(&self, id: ValueId) -> String {
        self.multi.get(&id).cloned().unwrap_or_else(|| value(id))
    }
}

fn write_gm_block(
    out: &mut String,
    kernel: &GmKernel,
    block: &Block,
    names: &mut GmNames,
    depth: usize,
) {
    let indent = "  ".repeat(depth);
    for op in &block.ops {
        if op.results.len() > 1 {
            for (k, &r) in op.results.iter().enumerate() {
                names
                    .multi
                    .insert(r, format!("{}#{k}", value(op.results[0])));
            }
        }
        let lhs = match op.results.len() {
            0 => String::new(),
            1 => format!("{} = ", value(op.results[0])),
            n => format!("{}:{n} = ", value(op.results[0])),
        };
        let operands: Vec<String> = op.operands.iter().map(|&v| names.of(v)).collect();
        let types = |ids: &[ValueId]| -> Vec<String> {
            ids.iter().map(|&v| kernel.ty(v).to_string()).collect()
        };
        let signature = format!(
            "({}) -> ({})",
            types(&op.operands).join(", "),
            types(&op.results).join(", ")
        );
        let (name, props, attrs) = gm_op_parts(kernel, op);
        match &op.kind {
            GmOpKind::For(body) => {
                let args: Vec<String> = body
                    .args
                    .iter()
                    .map(|&a| format!("{}: {}", value(a), kernel.ty(a)))
                    .collect();
                writeln!(
                    out,
                    "{indent}{lhs}\"scf.for\"({}){attrs} ({{\n{indent}^bb0({}):",
                    operands.join(", "),
                    args.join(", ")
                )
                .unwrap();
                write_gm_block(out, kernel, body, names, depth + 1);
                writeln!(out, "{indent}}}) : {signature} {}", loc(&op.loc)).unwrap();
            }
            GmOpKind::Return if op.operands.is_empty() => {
                writeln!(out, "{indent}func.return {}", loc(&op.loc)).unwrap();
            }
            GmOpKind::Return => {
                writeln!(
                    out,
                    "{indent}func.return {} : {} {}",
                    operands.join(", "),
                    types(&op.operands).join(", "),
                    loc(&op.loc)
                )
                .unwrap();
            }
            _ => {
                writeln!(
                    out,
                    "{indent}{lhs}\"{name}\"({}){props}{attrs} : {signature} {}",
                    operands.join(", "),
                    loc(&op.loc)
                )
                .unwrap();
            }
        }
    }
}

/// An op's generic name, its properties (`<{value = …}>` of a constant) and its attributes.
fn gm_op_parts(kernel: &GmKernel, op: &GmOp) -> (String, String, String) {
    let attrs = attr_suffix("", &op.attrs);
    match &op.kind {
        GmOpKind::Tile { info, control } => (
            info.mlir_name(),
            String::new(),
            control_attr_suffix(control, &op.attrs),
        ),
        GmOpKind::Load => ("pto.tload".to_string(), String::new(), attrs),
        GmOpKind::Store => ("pto.tstore".to_string(), String::new(), attrs),
        GmOpKind::Constant(bits) => {
            let ty = kernel.ty(op.results[0]);
            (
                "arith.constant".to_string(),
                format!(" <{{value = {}}}>", constant_literal(*bits, ty)),
                attrs,
            )
        }
        GmOpKind::Arith(arith) => (arith.mlir_name().to_string(), String::new(), attrs),
        GmOpKind::For(_) => ("scf.for".to_string(), String::new(), attrs),
        GmOpKind::Yield => ("scf.yield".to_string(), String::new(), attrs),
        GmOpKind::Return => ("func.return".to_string(), String::new(), attrs),
    }
}

/// A constant's attribute: integers as their signed value, floats as their exact bits.
fn constant_literal(bits: u64, ty: &Type) -> String {
    match ty {
        Type::Scalar(ScalarType::Element(t)) if t.is_float() => format!("0x{bits:X} : {ty}"),
        Type::Scalar(s) => {
            let width = s.bits();
            let signed = if width >= 64 {
                bits as i64
            } else {
                ((bits << (64 - width)) as i64) >> (64 - width)
            };
            format!("{signed} : {ty}")
        }
        other => format!("{bits} : {other}"),
    }
}
