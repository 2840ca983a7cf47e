//! Import `func.func` kernels over global memory (README, Kernels over global memory) into [`GmKernel`]s.
//!
//! A function is a GM kernel when an argument is a memref or a scalar, or when its body holds
//! `pto.tload`, `pto.tstore`, `scf` or `arith` ops ([`is_gm_kernel`]); every other function stays
//! a straight-line tile [`ptoc_ir::Function`]. Catalogue tile ops are checked exactly as in a
//! function ([`crate::import::tile_op_parts`]). Every refusal names what is wrong and what ptoc
//! accepts instead, at the offending op's location.

use crate::import::{
    argument_dictionaries, op_name, pto_attrs, result_name_at, ssa_name_at, tile_op_parts,
    tile_type, unknown_op, SourceLines,
};
use crate::mlir::text;
use crate::mlir::Frontend;
use melior::ir::attribute::{FloatAttribute, IntegerAttribute};
use melior::ir::block::{BlockLike, BlockRef};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Attribute, RegionLike, Value, ValueLike};
use ptoc_ir::{
    ArithOp, Block, Diagnostic, GmDef, GmKernel, GmOp, GmOpKind, Location, MemRefType, ScalarType,
    Type, ValueId, WORKSPACE_ATTR,
};
use ptoc_isa::ops;
use ptoc_isa::DataType;
use std::collections::{BTreeMap, HashMap};

/// Whether `op` (a `func.func`) is a GM kernel: an argument that is not a tile, or a body op
/// that only GM kernels have.
pub(crate) fn is_gm_kernel(op: &OperationRef) -> bool {
    let Some(block) = op.region(0).ok().and_then(|r| r.first_block()) else {
        return false;
    };
    let non_tile_arg = (0..block.argument_count())
        .filter_map(|i| block.argument(i).ok())
        .any(|a| !a.r#type().to_string().starts_with("!pto.tile"));
    if non_tile_arg {
        return true;
    }
    let mut next = block.first_operation();
    while let Some(inner) = next {
        next = inner.next_in_block();
        // Borrowed, not op_name: this runs over every op of every tile kernel.
        let name = inner.name();
        let name = text(name.as_string_ref());
        if name == "pto.tload"
            || name == "pto.tstore"
            || name.starts_with("scf.")
            || name.starts_with("arith.")
        {
            return true;
        }
    }
    false
}

/// The ops a GM kernel may hold besides catalogue tile ops, for "supported are" messages.
fn supported_arith() -> String {
    let mut names = vec!["arith.constant"];
    names.extend(ArithOp::ALL.iter().map(|op| op.mlir_name()));
    names.join(", ")
}

struct Importer<'f, 'l> {
    frontend: &'f Frontend,
    lines: &'l SourceLines<'l>,
    kernel: GmKernel,
    values: HashMap<*const std::ffi::c_void, ValueId>,
}

/// Import one `func.func` GM kernel; `op` is known to be a `func.func` with one block.
pub(crate) fn import_gm_kernel(
    frontend: &Frontend,
    op: OperationRef,
    sym: String,
    lines: &SourceLines,
) -> Result<GmKernel, Vec<Diagnostic>> {
    let loc = frontend.location(op.location());
    let block = op
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or_else(|| vec![Diagnostic::error(loc.clone(), "kernel has no body")])?;
    let mut importer = Importer {
        frontend,
        lines,
        kernel: GmKernel::new(sym, loc.clone()),
        values: HashMap::new(),
    };
    let mut errors = Vec::new();
    let workspaces = workspace_arguments(&op);
    let is_workspace = |i: usize| workspaces.get(i).copied().unwrap_or(false);
    for i in 0..block.argument_count() {
        let Ok(arg) = block.argument(i) else { continue };
        let arg_loc = frontend.location(arg.location());
        match value_type(arg.r#type(), &arg_loc, &format!("argument #{i}")) {
            Ok(ty) => {
                let memref = ty.memref().is_some();
                let id = importer.kernel.add_arg(ssa_name_at(lines, &arg_loc), ty);
                importer.values.insert(arg.to_raw().ptr, id);
                if !is_workspace(i) {
                    continue;
                }
                let refuse = |why: &str| {
                    Diagnostic::error(
                        arg_loc.clone(),
                        format!("argument #{i} is marked {{{WORKSPACE_ATTR}}} but {why}"),
                    )
                };
                if !memref {
                    errors.push(refuse("is not a memref; a workspace is GM memory"));
                } else if (i..block.argument_count()).any(|j| !is_workspace(j)) {
                    errors.push(refuse(
                        "an argument follows it; workspaces come after every argument",
                    ));
                } else {
                    importer.kernel.workspaces.push(id);
                }
            }
            Err(e) => errors.push(e),
        }
    }
    importer.kernel.attrs = pto_attrs(op.attributes(), &loc, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut body = Block::default();
    importer.block(block, &mut body).map_err(|e| vec![e])?;
    importer.kernel.body = body;
    Ok(importer.kernel)
}

/// Which of a `func.func`'s arguments carry the unit attribute [`WORKSPACE_ATTR`].
fn workspace_arguments(op: &OperationRef) -> Vec<bool> {
    argument_dictionaries(op)
        .into_iter()
        .map(|d| d.is_some_and(|d| d.element_by_name(WORKSPACE_ATTR).is_some()))
        .collect()
}

/// A GM kernel value's type: a tile, a static 2-D identity-layout memref, or a scalar.
fn value_type(ty: melior::ir::Type, loc: &Location, what: &str) -> Result<Type, Diagnostic> {
    let text = ty.to_string();
    if text.starts_with("!pto.tile") {
        return tile_type(ty, loc, what).map(Type::Tile);
    }
    if text.starts_with("memref<") {
        return memref_type(&text, loc, what).map(Type::MemRef);
    }
    ScalarType::parse(&text).map(Type::Scalar).ok_or_else(|| {
        Diagnostic::error(
            loc.clone(),
            format!(
                "{what} has type '{text}'; a GM kernel's values are memref<RxCxT>, !pto.tile<RxCxT> \
                 and scalars (index or an element type such as f32 or i32)"
            ),
        )
    })
}

/// `memref<RxCxT>`, refusing what ptoc cannot address: layouts and memory spaces, dynamic
/// dimensions, other ranks and element types.
fn memref_type(text: &str, loc: &Location, what: &str) -> Result<MemRefType, Diagnostic> {
    let err = |message: String| Err(Diagnostic::error(loc.clone(), format!("{what} {message}")));
    let inner = text
        .strip_prefix("memref<")
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or("");
    let (shape, rest) = split_top_level_comma(inner);
    if let Some(rest) = rest {
        return err(format!(
            "has type '{text}' with layout or memory space '{rest}'; ptoc takes identity-layout \
             row-major memrefs such as 'memref<{shape}>'"
        ));
    }
    let parts: Vec<&str> = shape.split('x').collect();
    let dims = &parts[..parts.len().saturating_sub(1)];
    if dims.contains(&"?") {
        return err(format!(
            "has dynamic type '{text}'; ptoc needs a static shape such as 'memref<64x64x{}>'",
            parts.last().unwrap_or(&"f32")
        ));
    }
    if dims.len() != 2 {
        return err(format!(
            "has type '{text}' of rank {}; ptoc takes 2-D memrefs 'memref<RxCxT>'",
            dims.len()
        ));
    }
    MemRefType::parse(text).ok_or_else(|| {
        Diagnostic::error(
            loc.clone(),
            format!(
                "{what} has type '{text}'; a memref needs nonzero dimensions and an element type \
                 of a tile (f32, f16, bf16, i32, ui8, …)"
            ),
        )
    })
}

/// `text` split at its first comma outside brackets.
fn split_top_level_comma(text: &str) -> (&str, Option<&str>) {
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '<' | '[' | '(' | '{' => depth += 1,
            '>' | ']' | ')' | '}' => depth -= 1,
            ',' if depth == 0 => return (&text[..i], Some(text[i + 1..].trim())),
            _ => {}
        }
    }
    (text, None)
}

impl Importer<'_, '_> {
    fn loc(&self, op: &OperationRef) -> Location {
        self.frontend.location(op.location())
    }

    /// Import the ops of `mlir` into `out`, stopping at the first broken op (later ops may use
    /// its results).
    fn block(&mut self, mlir: BlockRef, out: &mut Block) -> Result<(), Diagnostic> {
        let mut next = mlir.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            let imported = self.op(op)?;
            out.ops.push(imported);
        }
        Ok(())
    }

    fn operand_ids(&self, op: &OperationRef, loc: &Location) -> Result<Vec<ValueId>, Diagnostic> {
        operand_ids(&self.values, op, loc, "kernel")
    }

    /// New values for the results of `op`, named after the source (`%r` or `%r#k`).
    fn results(&mut self, op: &OperationRef, loc: &Location) -> Result<Vec<ValueId>, Diagnostic> {
        let name = op_name(op);
        let count = op.result_count();
        let names = result_names(self.lines, loc, count);
        let mut ids = Vec::with_capacity(count);
        for (i, value_name) in names.into_iter().enumerate() {
            let result = op
                .result(i)
                .map_err(|e| Diagnostic::error(loc.clone(), e.to_string()))?;
            let ty = value_type(result.r#type(), loc, &format!("result #{i} of '{name}'"))?;
            let id = self.kernel.add_value(value_name, ty, GmDef::Result(i));
            self.values.insert(result.to_raw().ptr, id);
            ids.push(id);
        }
        Ok(ids)
    }

    fn op(&mut self, op: OperationRef) -> Result<GmOp, Diagnostic> {
        let loc = self.loc(&op);
        let name = op_name(&op);
        let operands = self.operand_ids(&op, &loc)?;
        let mut attrs = BTreeMap::new();
        let kind = match name.as_str() {
            "func.return" => GmOpKind::Return,
            "scf.yield" => GmOpKind::Yield,
            "pto.tload" => {
                self.shape_check(&op, &name, &loc, 3, 1)?;
                GmOpKind::Load
            }
            "pto.tstore" => {
                self.shape_check(&op, &name, &loc, 4, 0)?;
                GmOpKind::Store
            }
            "scf.for" => return self.for_op(op, operands, loc),
            "arith.constant" => {
                self.shape_check(&op, &name, &loc, 0, 1)?;
                let result_ty = op
                    .result(0)
                    .map_err(|e| Diagnostic::error(loc.clone(), e.to_string()))?
                    .r#type();
                let ty = match value_type(result_ty, &loc, "the result of 'arith.constant'")? {
                    Type::Scalar(s) => s,
                    other => {
                        return Err(Diagnostic::error(
                            loc,
                            format!(
                                "'arith.constant' of type '{other}'; ptoc takes scalar constants \
                                 (index, integers, f64, f32, f16, bf16)"
                            ),
                        ))
                    }
                };
                GmOpKind::Constant(constant_bits(&op, ty, &loc)?)
            }
            _ if name.starts_with("arith.") => {
                let Some(arith) = ArithOp::from_mlir_name(&name) else {
                    return Err(Diagnostic::error(
                        loc,
                        format!(
                            "cannot lower '{name}'; supported arith ops are {}",
                            supported_arith()
                        ),
                    ));
                };
                self.shape_check(&op, &name, &loc, 2, 1)?;
                GmOpKind::Arith(arith)
            }
            _ if name.starts_with("pto.") => {
                let info =
                    ops::by_mlir_name(&name).ok_or_else(|| unknown_op(&name, loc.clone()))?;
                let (_, control, op_attrs) =
                    tile_op_parts(&op, &name, info, info.takes_scalar(), &loc)?;
                attrs = op_attrs;
                GmOpKind::Tile { info, control }
            }
            _ => {
                return Err(Diagnostic::error(
                    loc,
                    format!(
                        "cannot lower '{name}' in a kernel over global memory: ptoc compiles \
                         pto.* tile ops, pto.tload, pto.tstore, scf.for, scf.yield, {} and \
                         func.return",
                        supported_arith()
                    ),
                ))
            }
        };
        if !matches!(kind, GmOpKind::Tile { .. }) {
            let mut errors = Vec::new();
            attrs = pto_attrs(op.attributes(), &loc, &mut errors);
            if let Some(e) = errors.pop() {
                return Err(e);
            }
        }
        let results = self.results(&op, &loc)?;
        let gm_op = GmOp {
            kind,
            operands,
            results,
            loc,
            attrs,
        };
        self.check_types(&gm_op, &name)?;
        Ok(gm_op)
    }

    /// Operand and result counts, and no regions.
    fn shape_check(
        &self,
        op: &OperationRef,
        name: &str,
        loc: &Location,
        operands: usize,
        results: usize,
    ) -> Result<(), Diagnostic> {
        let form = match name {
            "pto.tload" => " (memref, row, column) and produces a tile",
            "pto.tstore" => " (tile, memref, row, column) and produces nothing",
            _ => "",
        };
        if op.operand_count() != operands || op.result_count() != results || op.region_count() > 0 {
            return Err(Diagnostic::error(
                loc.clone(),
                format!(
                    "'{name}' takes {operands} operand(s){form} with {results} result(s) and no \
                     regions, got {} operand(s) and {} result(s)",
                    op.operand_count(),
                    op.result_count()
                ),
            ));
        }
        Ok(())
    }

    /// `scf.for %iv = lb to ub step s iter_args(...)`: index bounds, its body imported as a
    /// nested block.
    fn for_op(
        &mut self,
        op: OperationRef,
        operands: Vec<ValueId>,
        loc: Location,
    ) -> Result<GmOp, Diagnostic> {
        if operands.len() < 3 || op.region_count() != 1 {
            return Err(Diagnostic::error(
                loc,
                "'scf.for' takes a lower bound, an upper bound, a step and one region",
            ));
        }
        for (what, &v) in ["lower bound", "upper bound", "step"].iter().zip(&operands) {
            let ty = self.kernel.ty(v);
            if ty != &Type::Scalar(ScalarType::Index) {
                return Err(Diagnostic::error(
                    loc,
                    format!(
                        "'scf.for' iterates over '{ty}' (its {what}); ptoc loops over index \
                         (write the bounds as index values)"
                    ),
                ));
            }
        }
        let mlir_body = op
            .region(0)
            .ok()
            .and_then(|r| r.first_block())
            .ok_or_else(|| Diagnostic::error(loc.clone(), "'scf.for' has no body"))?;
        let mut body = Block::default();
        for i in 0..mlir_body.argument_count() {
            let Ok(arg) = mlir_body.argument(i) else {
                continue;
            };
            let arg_loc = self.frontend.location(arg.location());
            let what = if i == 0 {
                "the induction variable".to_string()
            } else {
                format!("loop-carried value #{}", i - 1)
            };
            let ty = value_type(arg.r#type(), &arg_loc, &what)?;
            let name = ssa_name_at(self.lines, &arg_loc);
            let id = self.kernel.add_value(name, ty, GmDef::BlockArg(i));
            self.values.insert(arg.to_raw().ptr, id);
            body.args.push(id);
        }
        self.block(mlir_body, &mut body)?;
        let mut errors = Vec::new();
        let attrs = pto_attrs(op.attributes(), &loc, &mut errors);
        if let Some(e) = errors.pop() {
            return Err(e);
        }
        let results = self.results(&op, &loc)?;
        Ok(GmOp {
            kind: GmOpKind::For(body),
            operands,
            results,
            loc,
            attrs,
        })
    }

    /// The operand and result types each non-catalogue op needs (MLIR checks its own ops; the
    /// pto ones and the element types are ptoc's to check).
    fn check_types(&self, op: &GmOp, name: &str) -> Result<(), Diagnostic> {
        let k = &self.kernel;
        let err = |message: String| Err(Diagnostic::error(op.loc.clone(), message));
        let is_index = |v: ValueId| k.ty(v) == &Type::Scalar(ScalarType::Index);
        match &op.kind {
            GmOpKind::Load | GmOpKind::Store => {
                let (tile_v, mem_pos) = match op.kind {
                    GmOpKind::Load => (op.results[0], 0),
                    _ => (op.operands[0], 1),
                };
                let Some(mem) = k.ty(op.operands[mem_pos]).memref() else {
                    return err(format!(
                        "'{name}' operand #{mem_pos} has type '{}'; it must be a memref<RxCxT>",
                        k.ty(op.operands[mem_pos])
                    ));
                };
                let Some(tile) = k.ty(tile_v).tile() else {
                    return err(format!(
                        "'{name}' {} has type '{}'; it must be a !pto.tile<RxCxT>",
                        if mem_pos == 0 { "result" } else { "operand #0" },
                        k.ty(tile_v)
                    ));
                };
                for (i, &v) in op.operands.iter().enumerate().skip(mem_pos + 1) {
                    if !is_index(v) {
                        return err(format!(
                            "'{name}' offset operand #{i} has type '{}'; row and column offsets \
                             are index values",
                            k.ty(v)
                        ));
                    }
                }
                if tile.is_predicate() || tile.dtype != mem.dtype {
                    return err(format!(
                        "'{name}' moves a {tile} between {mem}: the element types differ; make \
                         the tile's element type that of the memref ({})",
                        Type::Scalar(ScalarType::Element(mem.dtype))
                    ));
                }
            }
            GmOpKind::Arith(_) => {
                let ty = k.ty(op.results[0]);
                let integer = match ty {
                    Type::Scalar(ScalarType::Index) => true,
                    Type::Scalar(ScalarType::Element(t)) => t.is_integer(),
                    _ => false,
                };
                if !integer {
                    return err(format!(
                        "'{name}' on '{ty}'; ptoc's scalar arithmetic is on index and integer \
                         values"
                    ));
                }
            }
            GmOpKind::Tile { info, .. } => {
                let tiles = info.sources.len();
                if let (true, Some(&s), Some(result)) = (
                    info.takes_scalar(),
                    op.operands.get(tiles),
                    k.ty(op.results[0]).tile(),
                ) {
                    let element = Type::Scalar(ScalarType::Element(result.dtype));
                    if k.ty(s) != &element {
                        return err(format!(
                            "'{name}' scalar operand #{tiles} has type '{}'; it must be the \
                             tile's element type {element}",
                            k.ty(s)
                        ));
                    }
                }
                for (i, &v) in op.operands.iter().enumerate().take(tiles) {
                    if k.ty(v).tile().is_none() {
                        return err(format!(
                            "'{name}' operand #{i} has type '{}'; {} takes tiles",
                            k.ty(v),
                            info.mnemonic
                        ));
                    }
                }
            }
            GmOpKind::Constant(_) | GmOpKind::For(_) | GmOpKind::Yield | GmOpKind::Return => {}
        }
        Ok(())
    }
}

/// The values `op`'s operands map to in `values` (a `what`'s values, for the message).
pub(crate) fn operand_ids(
    values: &HashMap<*const std::ffi::c_void, ValueId>,
    op: &OperationRef,
    loc: &Location,
    what: &str,
) -> Result<Vec<ValueId>, Diagnostic> {
    op.operands()
        .map(|v: Value| {
            values.get(&v.to_raw().ptr).copied().ok_or_else(|| {
                Diagnostic::error(
                    loc.clone(),
                    format!("operand is not a value of this {what}"),
                )
            })
        })
        .collect()
}

/// The SSA names of the `count` results of the op at `loc`: `r` for `%r = …`, `r#k` for
/// `%r:N = …`.
pub(crate) fn result_names(
    lines: &SourceLines,
    loc: &Location,
    count: usize,
) -> Vec<Option<String>> {
    let base = multi_result_name(lines, loc);
    (0..count)
        .map(|i| match (&base, count) {
            (Some(b), 1) => Some(b.clone()),
            (Some(b), _) => Some(format!("{b}#{i}")),
            (None, _) => None,
        })
        .collect()
}

/// The SSA name of an op's results: `r` for `%r = …` and for `%r:2 = …`.
fn multi_result_name(lines: &SourceLines, loc: &Location) -> Option<String> {
    if let Some(name) = result_name_at(lines, loc) {
        return Some(name);
    }
    let line = lines.at(loc)?;
    let before = line.get(..loc.col.checked_sub(1)? as usize)?;
    let lhs = before.trim_end().strip_suffix('=')?.trim_end();
    let (name, count) = lhs.rsplit_once(':')?;
    count.parse::<usize>().ok()?;
    let start = name.rfind('%')?;
    let name = &name[start + 1..];
    (!name.is_empty()).then(|| name.to_string())
}

/// An `arith.constant`'s bit pattern: integers as two's complement truncated to their width,
/// floats as their IEEE encoding (zero-extended to 64 bits, [`GmOpKind::Constant`]).
fn constant_bits(op: &OperationRef, ty: ScalarType, loc: &Location) -> Result<u64, Diagnostic> {
    let attr = op
        .attribute("value")
        .map_err(|_| Diagnostic::error(loc.clone(), "'arith.constant' has no value"))?;
    let float = match ty {
        ScalarType::Element(dtype) => Some(dtype),
        ScalarType::Index => None,
    };
    attribute_bits(attr, ty.bits(), float, loc)
}

/// The bit pattern of a scalar integer or float attribute of `bits` bits (a float one when
/// `float` names its type): integers two's complement truncated to the width, floats their
/// IEEE encoding, zero-extended to 64 bits.
pub(crate) fn attribute_bits(
    attr: Attribute,
    bits: u32,
    float: Option<DataType>,
    loc: &Location,
) -> Result<u64, Diagnostic> {
    let unsupported = || {
        Diagnostic::error(
            loc.clone(),
            format!(
                "'arith.constant' {attr}: ptoc takes index, integer, f64, f32, f16 and bf16 \
                 scalar constants"
            ),
        )
    };
    let width_mask = |bits: u32| {
        if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        }
    };
    if let Ok(int) = IntegerAttribute::try_from(attr) {
        return Ok(int.value() as u64 & width_mask(bits));
    }
    let float_attr = FloatAttribute::try_from(attr).map_err(|_| unsupported())?;
    let (float, Some(dtype)) = (float_attr, float) else {
        return Err(unsupported());
    };
    let value = float.value();
    if value.is_nan() {
        // MLIR prints a NaN as its hexadecimal bit pattern; the f64 view would lose the payload.
        let text = attr.to_string();
        let hex = text
            .split_whitespace()
            .next()
            .and_then(|t| t.strip_prefix("0x"))
            .and_then(|t| u64::from_str_radix(t, 16).ok());
        return hex.ok_or_else(unsupported);
    }
    // The attribute's value is exact in its own type, so these conversions are exact.
    match dtype {
        DataType::FP64 => Ok(value.to_bits()),
        DataType::FP32 => Ok(u64::from((value as f32).to_bits())),
        DataType::FP16 => Ok(u64::from(half::f16::from_f64(value).to_bits())),
        DataType::BF16 => Ok(u64::from(half::bf16::from_f64(value).to_bits())),
        _ => Err(unsupported()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptoc_ir::Source;

    /// SSA names survive for diagnostics and `ptoc run --arg NAME=`: arguments, op results,
    /// induction variables, carried values and multi-result loops (`%r#k`).
    #[test]
    fn names_and_structure() {
        let text = "func.func @k(%x: memref<32x16xf32>, %n: index) {\n\
            %c0 = arith.constant 0 : index\n\
            %c16 = arith.constant 16 : index\n\
            %t0 = \"pto.tload\"(%x, %c0, %c0) : (memref<32x16xf32>, index, index) -> !pto.tile<16x16xf32>\n\
            %r:2 = scf.for %i = %c0 to %n step %c16 iter_args(%acc = %t0, %s = %c0) -> (!pto.tile<16x16xf32>, index) {\n\
              %t = \"pto.tload\"(%x, %i, %c0) : (memref<32x16xf32>, index, index) -> !pto.tile<16x16xf32>\n\
              %sum = \"pto.tadd\"(%acc, %t) : (!pto.tile<16x16xf32>, !pto.tile<16x16xf32>) -> !pto.tile<16x16xf32>\n\
              scf.yield %sum, %s : !pto.tile<16x16xf32>, index\n\
            }\n\
            \"pto.tstore\"(%r#0, %x, %c16, %c0) : (!pto.tile<16x16xf32>, memref<32x16xf32>, index, index) -> ()\n\
            return\n}\n";
        let frontend = Frontend::new();
        let source = Source::new(text, "k.mlir");
        let module = frontend.parse(&source).unwrap();
        let out = crate::import_module(&frontend, &module, &source).unwrap();
        assert!(out.functions.is_empty());
        let k = &out.gm_kernels[0];
        let names =
            |ids: &[ValueId]| -> Vec<String> { ids.iter().map(|&v| k.display_name(v)).collect() };
        assert_eq!(names(&k.args), ["x", "n"]);
        let ops = &k.body.ops;
        assert!(matches!(ops[0].kind, GmOpKind::Constant(0)));
        assert!(matches!(ops[1].kind, GmOpKind::Constant(16)));
        assert_eq!(names(&ops[2].results), ["t0"]);
        let GmOpKind::For(body) = &ops[3].kind else {
            panic!("{:?}", ops[3].kind)
        };
        assert_eq!(names(&ops[3].results), ["r#0", "r#1"]);
        assert_eq!(names(&body.args), ["i", "acc", "s"]);
        assert_eq!(ops[3].operands.len(), 5);
        assert!(matches!(body.ops[2].kind, GmOpKind::Yield));
        assert_eq!(ops[4].operands[0], ops[3].results[0]);
        assert!(matches!(ops[5].kind, GmOpKind::Return));
        assert_eq!(ops[3].loc, Location::new("k.mlir", 5, 8));
        assert_eq!(k.stored_memrefs(), [k.args[0]]);
    }

    #[test]
    fn constants_keep_their_bits() {
        let text = "func.func @k(%x: memref<4x4xf32>) {\n\
            %a = arith.constant -1 : i16\n\
            %b = arith.constant -2.5 : f16\n\
            %c = arith.constant 0x7FC00001 : f32\n\
            %d = arith.constant 3.0 : bf16\n\
            %e = arith.constant -1 : index\n\
            return\n}\n";
        let frontend = Frontend::new();
        let source = Source::new(text, "k.mlir");
        let module = frontend.parse(&source).unwrap();
        let out = crate::import_module(&frontend, &module, &source).unwrap();
        let bits: Vec<u64> = out.gm_kernels[0]
            .body
            .ops
            .iter()
            .filter_map(|op| match op.kind {
                GmOpKind::Constant(b) => Some(b),
                _ => None,
            })
            .collect();
        // f16 -2.5 = 0xC100, bf16 3.0 = 0x4040 (hand-encoded).
        assert_eq!(bits, [0xFFFF, 0xC100, 0x7FC0_0001, 0x4040, u64::MAX]);
    }
}
