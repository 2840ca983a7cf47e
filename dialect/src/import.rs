//! Import a parsed MLIR module into the tile IR.
//!
//! Accepts `func.func` kernels whose bodies are `pto.*` generic-form ops from the catalogue and a
//! `func.return`; GM kernels go to `import_gm`, linalg-on-tensors functions to `import_linalg`
//! (module-level `ml_program` ops are ignored). Everything else is reported at its own location: unknown `pto.*` ops (with the
//! nearest known name), wrong operand or result counts, malformed tile types, and ops of other
//! dialects that ptoc cannot lower.

use crate::import_linalg;
use crate::mlir::{string_value, text};
use crate::mlir::{Frontend, PARSE_STACK_BYTES};
use melior::ir::attribute::{
    ArrayAttribute, BoolAttribute, DictionaryAttribute, IntegerAttribute, StringAttribute,
};
use melior::ir::block::{BlockLike, BlockRef};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::RegionLike;
use melior::ir::TypeLike;
use melior::ir::ValueLike;
use melior::ir::{Attribute, Identifier, Module, Value};
use ptoc_ir::{control_attrs, Attr, Diagnostic, Function, Location, Source, TileType, ValueId};
use ptoc_isa::ops::{self, CATALOGUE};
use ptoc_isa::{NumericControl, RoundingMode};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Import every function of `module`. `source` is the buffer it was parsed from, used to recover
/// the SSA names (`%x`) that MLIR does not keep. Runs on the parse stack: MLIR prints attributes
/// and types into messages recursively, as deep as they nest.
pub fn import_module(
    frontend: &Frontend,
    module: &Module,
    source: &Source,
) -> Result<ptoc_ir::Module, Vec<Diagnostic>> {
    import_module_with(frontend, module, source, &ImportOptions::default())
}

/// What the import may do to linalg programs beyond transcribing them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// `--strip-assertions`: a `cf.assert` in a linalg program (torch-mlir's checks, such as
    /// the divisor test of `onnx.Reciprocal`) is dropped instead of refused, so the program
    /// means what it computes when every assertion holds (docs/isa.md §20 decision 63).
    pub strip_assertions: bool,
}

/// [`import_module`] under `options`.
pub fn import_module_with(
    frontend: &Frontend,
    module: &Module,
    source: &Source,
    options: &ImportOptions,
) -> Result<ptoc_ir::Module, Vec<Diagnostic>> {
    stacker::grow(PARSE_STACK_BYTES, || {
        import_functions(frontend, module, source, options)
    })
}

fn import_functions(
    frontend: &Frontend,
    module: &Module,
    source: &Source,
    options: &ImportOptions,
) -> Result<ptoc_ir::Module, Vec<Diagnostic>> {
    let lines = SourceLines::new(source);
    let mut out = ptoc_ir::Module::default();
    let mut errors = Vec::new();
    // linalg programs come from a normalised copy of the module (import_linalg).
    let mut programs = HashSet::new();
    let mut first_program = None;
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if op_name(&op) == "func.func" && import_linalg::is_linalg_program(&op) {
            programs.insert(op.to_raw().ptr);
            first_program.get_or_insert_with(|| frontend.location(op.location()));
        }
    }
    let normalised = match &first_program {
        None => None,
        Some(loc) => Some(import_linalg::normalised(
            frontend,
            module,
            loc,
            options.strip_assertions,
        )?),
    };
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let name = op_name(&op);
        if name.starts_with("ml_program.") {
            // Module-level state (torch-mlir's seed global) feeds no kernel (README, linalg-on-tensors input).
            continue;
        }
        if let (true, Some(normalised)) = (programs.contains(&op.to_raw().ptr), &normalised) {
            match linalg_program(frontend, &op, normalised, &lines) {
                Ok(program) => out.linalg.push(program),
                Err(mut e) => errors.append(&mut e),
            }
            continue;
        }
        if name == "func.func" && crate::import_gm::is_gm_kernel(&op) {
            match function_parts(frontend, &op) {
                Ok((sym, _)) => match crate::import_gm::import_gm_kernel(frontend, op, sym, &lines)
                {
                    Ok(kernel) => out.gm_kernels.push(kernel),
                    Err(mut e) => errors.append(&mut e),
                },
                Err(e) => errors.push(e),
            }
            continue;
        }
        match import_function(frontend, op, &lines) {
            Ok(func) => out.functions.push(func),
            Err(mut e) => errors.append(&mut e),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Import the linalg program `op` from its normalised copy in `normalised`.
fn linalg_program(
    frontend: &Frontend,
    op: &OperationRef,
    normalised: &Module,
    lines: &SourceLines,
) -> Result<ptoc_ir::linalg::Program, Vec<Diagnostic>> {
    let (sym, _) = function_parts(frontend, op).map_err(|e| vec![e])?;
    let Some(copy) = import_linalg::find_function(normalised, &sym) else {
        let loc = frontend.location(op.location());
        return Err(vec![Diagnostic::error(
            loc,
            format!("upstream normalisation lost the function '@{sym}'"),
        )]);
    };
    let (_, block) = function_parts(frontend, &copy).map_err(|e| vec![e])?;
    import_linalg::import_program(frontend, copy, sym, block, lines)
}

/// The lines of the parsed buffer, looked up by the file locations MLIR reports.
pub(crate) struct SourceLines<'a> {
    file: &'a str,
    first_line: u32,
    lines: Vec<&'a str>,
}

impl<'a> SourceLines<'a> {
    pub(crate) fn new(source: &Source<'a>) -> SourceLines<'a> {
        SourceLines {
            file: source.file,
            first_line: source.first_line,
            lines: source.text.lines().collect(),
        }
    }

    /// The text of the line `loc` is on, when `loc` is in this buffer.
    pub(crate) fn at(&self, loc: &Location) -> Option<&'a str> {
        if loc.file.as_deref() != Some(self.file) {
            return None;
        }
        let index = loc.line.checked_sub(self.first_line)?;
        self.lines.get(index as usize).copied()
    }
}

pub(crate) fn op_name(op: &OperationRef) -> String {
    text(op.name().as_string_ref()).into_owned()
}

/// The SSA name written at `loc` (`x` for `%x`, a block argument), if the source has one there.
pub(crate) fn ssa_name_at(lines: &SourceLines, loc: &Location) -> Option<String> {
    let line = lines.at(loc)?;
    let name = line
        .get(loc.col.checked_sub(1)? as usize..)?
        .strip_prefix('%')?;
    let len = name.find(|c: char| !is_ssa_char(c)).unwrap_or(name.len());
    (len > 0).then(|| name[..len].to_string())
}

/// The SSA name an op at `loc` defines: the `%name` before its `=` (`%m = "pto.trowmax"…`).
pub(crate) fn result_name_at(lines: &SourceLines, loc: &Location) -> Option<String> {
    let line = lines.at(loc)?;
    let before = line.get(..loc.col.checked_sub(1)? as usize)?;
    let lhs = before.trim_end().strip_suffix('=')?.trim_end();
    let start = lhs.rfind('%')?;
    let name = &lhs[start + 1..];
    (!name.is_empty() && name.chars().all(is_ssa_char)).then(|| name.to_string())
}

fn is_ssa_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_$.-".contains(c)
}

pub(crate) fn tile_type(
    ty: melior::ir::Type,
    loc: &Location,
    what: &str,
) -> Result<TileType, Diagnostic> {
    let text = type_text(ty);
    if !text.starts_with("!pto.tile") {
        return Err(Diagnostic::error(
            loc.clone(),
            format!(
                "{what} has type '{text}'; ptoc kernels take and produce !pto.tile<RxCxT> values"
            ),
        ));
    }
    TileType::parse(&text).map_err(|e| {
        Diagnostic::error(
            loc.clone(),
            format!("malformed tile type '{text}' of {what}: {e}"),
        )
    })
}

/// `ty` as MLIR prints it. A `!pto.tile<…>` type (one per op result) is an opaque type whose
/// data MLIR prints verbatim after `!pto.` (the pretty form, for data of the shape
/// `name<…>`), so its text is built from the data without running MLIR's printer, which cost
/// about 5000 instructions a type.
fn type_text(ty: melior::ir::Type) -> String {
    let raw = ty.to_raw();
    // SAFETY: plain queries on a live type; an opaque type's namespace and data are owned by
    // its context, which outlives this call.
    let (namespace, data) = unsafe {
        if !mlir_sys::mlirTypeIsAOpaque(raw) {
            return ty.to_string();
        }
        (
            melior::StringRef::from_raw(mlir_sys::mlirOpaqueTypeGetDialectNamespace(raw)),
            melior::StringRef::from_raw(mlir_sys::mlirOpaqueTypeGetData(raw)),
        )
    };
    match (text(namespace).as_ref(), text(data).as_ref()) {
        ("pto", data) if data.starts_with("tile<") && data.ends_with('>') => {
            format!("!pto.{data}")
        }
        _ => ty.to_string(),
    }
}

fn import_function(
    frontend: &Frontend,
    op: OperationRef,
    lines: &SourceLines,
) -> Result<Function, Vec<Diagnostic>> {
    let loc = frontend.location(op.location());
    let name = op_name(&op);
    if name != "func.func" {
        return Err(vec![Diagnostic::error(
            loc,
            format!("cannot lower '{name}' at module level; ptoc compiles func.func kernels"),
        )]);
    }
    let (sym, block) = function_parts(frontend, &op).map_err(|e| vec![e])?;

    let mut func = Function::new(sym, loc.clone());
    let mut values: HashMap<*const std::ffi::c_void, ValueId> = HashMap::new();
    let mut errors = Vec::new();
    // Values whose type was refused: an op using one is not imported (its error would only
    // repeat the first), and its results are poisoned in turn.
    let mut poisoned = std::collections::HashSet::new();
    for i in 0..block.argument_count() {
        let Ok(arg) = block.argument(i) else { continue };
        let arg_loc = frontend.location(arg.location());
        match tile_type(arg.r#type(), &arg_loc, &format!("argument #{i}")) {
            Ok(ty) => {
                let id = func.add_arg(ssa_name_at(lines, &arg_loc), ty);
                values.insert(arg.to_raw().ptr, id);
            }
            Err(e) => {
                errors.push(e);
                poisoned.insert(arg.to_raw().ptr);
            }
        }
    }
    let arg_attrs = function_arg_attrs(&op, &loc, &mut errors);
    for (slot, attrs) in func.arg_attrs.iter_mut().zip(arg_attrs) {
        *slot = attrs;
    }
    func.attrs = pto_attrs(op.attributes(), &loc, &mut errors);

    let mut next = block.first_operation();
    let mut returned = false;
    while let Some(inner) = next {
        next = inner.next_in_block();
        if returned {
            break;
        }
        if inner.operands().any(|v| poisoned.contains(&v.to_raw().ptr)) {
            poisoned.extend(inner.results().map(|r| r.to_raw().ptr));
            continue;
        }
        if let Err(e) = import_op(
            frontend,
            inner,
            lines,
            &mut func,
            &mut values,
            &mut returned,
        ) {
            errors.push(e);
            // Later ops may use this op's result; stop at the first broken op of a function.
            break;
        }
    }
    if errors.is_empty() {
        Ok(func)
    } else {
        Err(errors)
    }
}

/// A `func.func`'s symbol name and its one block (a kernel is a definition of one block).
fn function_parts<'c, 'a>(
    frontend: &Frontend,
    op: &OperationRef<'c, 'a>,
) -> Result<(String, BlockRef<'c, 'a>), Diagnostic> {
    let loc = frontend.location(op.location());
    let sym = op
        .attribute("sym_name")
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok())
        .map(string_value)
        .unwrap_or_default();
    // A kernel is named after its function, as an ELF symbol (README, Output).
    if sym.is_empty() || sym.contains('\0') {
        return Err(Diagnostic::error(
            loc,
            format!(
                "function name {sym:?} cannot name a kernel: a kernel's name is an ELF symbol, \
                 which must be non-empty and free of NUL bytes"
            ),
        ));
    }
    let block = op.region(0).ok().and_then(|r| r.first_block());
    let Some(block) = block else {
        return Err(Diagnostic::error(
            loc,
            format!("function '@{sym}' has no body; ptoc compiles kernel definitions"),
        ));
    };
    if block.next_in_region().is_some() {
        return Err(Diagnostic::error(
            loc,
            format!(
                "function '@{sym}' has several blocks; a tile kernel is one straight-line block"
            ),
        ));
    }
    Ok((sym, block))
}

/// Argument attributes (`{pto.dst = "T#1"}` on ptoc's own output), from `arg_attrs`.
fn function_arg_attrs(
    op: &OperationRef,
    loc: &Location,
    errors: &mut Vec<Diagnostic>,
) -> Vec<BTreeMap<String, Attr>> {
    argument_dictionaries(op)
        .into_iter()
        .map(|dict| match dict {
            Some(dict) => pto_attrs(
                (0..dict.len()).filter_map(|i| dict.element(i).ok()),
                loc,
                errors,
            ),
            None => BTreeMap::new(),
        })
        .collect()
}

/// Each argument's attribute dictionary of a `func.func` (`arg_attrs`), in order; empty when
/// no argument has attributes.
pub(crate) fn argument_dictionaries<'c>(
    op: &OperationRef<'c, '_>,
) -> Vec<Option<DictionaryAttribute<'c>>> {
    let Some(array) = op
        .attribute("arg_attrs")
        .ok()
        .and_then(|a| ArrayAttribute::try_from(a).ok())
    else {
        return Vec::new();
    };
    (0..array.len())
        .filter_map(|i| array.element(i).ok())
        .map(|dict| DictionaryAttribute::try_from(dict).ok())
        .collect()
}

/// A string or integer attribute; other kinds are not part of the pto dialect.
fn convert_attr(attr: Attribute) -> Option<Attr> {
    if let Ok(s) = StringAttribute::try_from(attr) {
        return Some(Attr::Str(string_value(s)));
    }
    IntegerAttribute::try_from(attr)
        .ok()
        .map(|i| Attr::Int(i.value()))
}

/// The `pto.*` attributes among `attrs` (allocation results on re-imported output).
pub(crate) fn pto_attrs<'c>(
    attrs: impl Iterator<Item = (Identifier<'c>, Attribute<'c>)>,
    loc: &Location,
    errors: &mut Vec<Diagnostic>,
) -> BTreeMap<String, Attr> {
    let mut out = BTreeMap::new();
    for (name, value) in attrs {
        let name = text(name.as_string_ref()).into_owned();
        if !name.starts_with("pto.") {
            continue;
        }
        match convert_attr(value) {
            Some(attr) => {
                out.insert(name, attr);
            }
            None => errors.push(Diagnostic::error(
                loc.clone(),
                format!("attribute '{name}' must be an integer or a string, got '{value}'"),
            )),
        }
    }
    out
}

fn import_op(
    frontend: &Frontend,
    op: OperationRef,
    lines: &SourceLines,
    func: &mut Function,
    values: &mut HashMap<*const std::ffi::c_void, ValueId>,
    returned: &mut bool,
) -> Result<(), Diagnostic> {
    let loc = frontend.location(op.location());
    let name = op_name(&op);
    let operands = |values: &HashMap<_, ValueId>| -> Result<Vec<ValueId>, Diagnostic> {
        op.operands()
            .map(|v: Value| {
                values.get(&v.to_raw().ptr).copied().ok_or_else(|| {
                    Diagnostic::error(loc.clone(), "operand is not a tile value of this kernel")
                })
            })
            .collect()
    };
    if name == "func.return" {
        func.results = operands(values)?;
        *returned = true;
        return Ok(());
    }
    let Some(info) = ops::by_mlir_name(&name) else {
        return Err(unknown_op(&name, loc));
    };
    let (ty, control, attrs) = tile_op_parts(&op, &name, info, false, &loc)?;
    let args = operands(values)?;
    let result = op
        .result(0)
        .map_err(|e| Diagnostic::error(loc.clone(), e.to_string()))?;
    let id = func.push_op(info, args, ty, result_name_at(lines, &loc), loc);
    let pushed = func.ops.last_mut().expect("just pushed");
    pushed.attrs = attrs;
    pushed.control = control;
    values.insert(result.to_raw().ptr, id);
    Ok(())
}

/// What a catalogue op's MLIR form must be, shared by functions and GM kernels: no regions,
/// the catalogue's operand count (plus, with `scalar`, a tile-scalar op's scalar as the last
/// operand, docs/isa.md §14), one tile result, only `pto.*` attributes. Returns the result
/// type, numeric control and attributes.
pub(crate) fn tile_op_parts(
    op: &OperationRef,
    name: &str,
    info: &'static ops::OpInfo,
    scalar: bool,
    loc: &Location,
) -> Result<(TileType, NumericControl, BTreeMap<String, Attr>), Diagnostic> {
    let loc = loc.clone();
    if op.region_count() > 0 || op.successor_count() > 0 {
        return Err(Diagnostic::error(
            loc,
            format!("'{name}' takes no regions or successors"),
        ));
    }
    let expected = info.sources.len() + usize::from(scalar);
    if op.operand_count() != expected {
        let mut roles: Vec<&str> = info.sources.iter().map(|r| r.name()).collect();
        if scalar {
            roles.push("scalar");
        }
        return Err(Diagnostic::error(
            loc,
            format!(
                "'{name}' takes {expected} operand{} ({}), got {}",
                if expected == 1 { "" } else { "s" },
                roles.join(", "),
                op.operand_count()
            ),
        ));
    }
    if op.result_count() != 1 {
        return Err(Diagnostic::error(
            loc,
            format!("'{name}' produces 1 result, got {}", op.result_count()),
        ));
    }
    let result = op
        .result(0)
        .map_err(|e| Diagnostic::error(loc.clone(), e.to_string()))?;
    let ty = tile_type(result.r#type(), &loc, &format!("the result of '{name}'"))?;
    // pto ops carry only pto.* attributes (allocation results); anything else would be lost.
    if let Some((other, _)) = op
        .attributes()
        .find(|(n, _)| !text(n.as_string_ref()).starts_with("pto."))
    {
        let other = text(other.as_string_ref()).into_owned();
        return Err(Diagnostic::error(
            loc,
            format!("'{name}' has no attribute '{other}'; pto ops take only pto.* attributes such as pto.dst"),
        ));
    }
    let control = numeric_control(op, name, &loc)?;
    let mut errors = Vec::new();
    let is_control = |n: &Identifier| {
        let n = text(n.as_string_ref());
        n == control_attrs::RMODE || n == control_attrs::SAT
    };
    let attrs = pto_attrs(
        op.attributes().filter(|(n, _)| !is_control(n)),
        &loc,
        &mut errors,
    );
    if let Some(e) = errors.pop() {
        return Err(e);
    }
    Ok((ty, control, attrs))
}

/// `pto.rmode = "rtz"` and `pto.sat = true` (B.DATR RMode and Sat). Whether the op reads them
/// is `pto-verify`'s to check; here only their spelling.
fn numeric_control(
    op: &OperationRef,
    name: &str,
    loc: &Location,
) -> Result<NumericControl, Diagnostic> {
    let mut control = NumericControl::default();
    if let Ok(attr) = op.attribute(control_attrs::RMODE) {
        let mode = StringAttribute::try_from(attr)
            .ok()
            .and_then(|s| RoundingMode::from_name(&string_value(s)));
        control.rmode = Some(mode.ok_or_else(|| {
            Diagnostic::error(
                loc.clone(),
                format!(
                    "'{name}' attribute '{}' is {attr}; it must be one of {}",
                    control_attrs::RMODE,
                    RoundingMode::mlir_names()
                ),
            )
        })?);
    }
    if let Ok(attr) = op.attribute(control_attrs::SAT) {
        control.sat = BoolAttribute::try_from(attr)
            .map_err(|_| {
                Diagnostic::error(
                    loc.clone(),
                    format!(
                        "'{name}' attribute '{}' is {attr}; it must be true or false",
                        control_attrs::SAT
                    ),
                )
            })?
            .value();
    }
    Ok(control)
}

pub(crate) fn unknown_op(name: &str, loc: Location) -> Diagnostic {
    if let Some(mnemonic) = name.strip_prefix("pto.") {
        let nearest = CATALOGUE
            .iter()
            .min_by_key(|op| edit_distance(&op.mnemonic.to_ascii_lowercase(), mnemonic))
            .map(|op| op.mlir_name());
        let hint = nearest.map_or(String::new(), |n| format!("; did you mean '{n}'?"));
        Diagnostic::error(loc, format!("unknown op '{name}'{hint}"))
    } else {
        Diagnostic::error(
            loc,
            format!("cannot lower '{name}': ptoc compiles pto.* tile ops and func.return"),
        )
    }
}

/// Levenshtein distance, for "did you mean" hints.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `type_text` is MLIR's own printing of every type: tile types of the pretty form (with
    /// the spelling kept as written), pto types that are not tiles, and builtin types.
    #[test]
    fn type_text_is_what_mlir_prints() {
        let frontend = Frontend::new();
        let types = [
            "!pto.tile<16x64xf32>",
            "!pto.tile<1x8xi8>",
            "!pto.tile< 4 x 8 x f16 >",
            "!pto.tile<16x64xf32, pad = 1>",
            "!pto.tile",
            "!pto.other<2x2xf32>",
            "!pto<\"tile x\">",
            "f32",
            "tensor<4x8xf32>",
        ];
        for text in types {
            let ty = melior::ir::Type::parse(frontend.context(), text)
                .unwrap_or_else(|| panic!("MLIR parses {text}"));
            assert_eq!(type_text(ty), ty.to_string(), "{text}");
        }
        let fast = melior::ir::Type::parse(frontend.context(), "!pto.tile< 4 x 8 x f16 >").unwrap();
        assert_eq!(type_text(fast), "!pto.tile< 4 x 8 x f16 >");
    }

    #[test]
    fn names_come_from_the_source_text() {
        let text = "func.func @k(%x: t, %y_1: t) {\n  %m = \"pto.trowmax\"(%x)\n";
        let lines = SourceLines::new(&Source::new(text, "f"));
        assert_eq!(
            ssa_name_at(&lines, &Location::new("f", 1, 14)),
            Some("x".into())
        );
        assert_eq!(
            ssa_name_at(&lines, &Location::new("f", 1, 21)),
            Some("y_1".into())
        );
        assert_eq!(
            result_name_at(&lines, &Location::new("f", 2, 8)),
            Some("m".into())
        );
        assert_eq!(result_name_at(&lines, &Location::new("f", 2, 3)), None);
        assert_eq!(ssa_name_at(&lines, &Location::new("f", 9, 1)), None);
        assert_eq!(ssa_name_at(&lines, &Location::new("g", 1, 14)), None);
        // A chunk starting on line 7 of its file.
        let chunk = SourceLines::new(&Source {
            text,
            file: "f",
            first_line: 7,
        });
        assert_eq!(
            result_name_at(&chunk, &Location::new("f", 8, 8)),
            Some("m".into())
        );
        assert_eq!(ssa_name_at(&chunk, &Location::new("f", 1, 14)), None);
    }
}
