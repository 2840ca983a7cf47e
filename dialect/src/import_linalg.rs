//! Import linalg-on-tensors functions (README, linalg-on-tensors input) into [`Program`]s.
//!
//! A `func.func` is a linalg program when a value of its signature is a tensor or its body holds
//! `linalg.*` or `tensor.*` ops ([`is_linalg_program`]). Before import, the module goes through
//! the same upstream normalisation as `mlir-opt --linalg-generalize-named-ops
//! --linalg-fold-unit-extent-dims --canonicalize --cse` ([`normalised`]), so named ops and fills
//! arrive as `linalg.generic` and constants are hoisted out of region bodies (they become
//! [`BodyValue::Outer`] captures).
//!
//! The import is a transcription: maps, iterators and bodies as written. It refuses, at the
//! offending op, only what [`Program`] cannot represent: types other than static tensors of rank
//! 0 to [`MAX_RANK`] and scalars of ptoc's element types, maps with results other than `dN` or `0`, ops
//! outside [`ScalarOp`] in a body, and function-level ops other than constants, `tensor.empty`,
//! reshapes, generics and `func.return`. Whether the converter can compile a program it
//! represents (a matmul-like reduction, say) is the converter's to decide.

use crate::expand_math;
use crate::import::{op_name, ssa_name_at, SourceLines};
use crate::import_gm::{attribute_bits, operand_ids, result_names};
use crate::mlir::Frontend;
use crate::mlir::{string_value, text};
use melior::ir::attribute::{
    ArrayAttribute, AttributeLike, DenseElementsAttribute, DenseI32ArrayAttribute,
    IntegerAttribute, StringAttribute,
};
use melior::ir::block::{BlockLike, BlockRef};
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use melior::ir::r#type::{DimSize, RankedTensorType, ShapedTypeLike};
use melior::ir::{AffineMap, Attribute, Module, RegionLike, Type, TypeLike, ValueLike};
use melior::pass::{self, PassManager};
use ptoc_ir::linalg::{
    Body, BodyOp, BodyValue, CmpFPredicate, CmpIPredicate, Elem, Generic, IteratorKind, LOp,
    LOpKind, LType, MapExpr, Program, ScalarOp, TensorType,
};
use ptoc_ir::{Diagnostic, Location, Severity, ValueId};
use std::collections::{HashMap, HashSet};

/// torch-mlir's runtime check op (README, Compiling IREE and torch-mlir output).
const ASSERT: &str = "cf.assert";

/// The element types a linalg program may use, for messages.
const ELEMENT_TYPES: &str = "f64, f32, tf32, f16, bf16, f8E4M3FN, f8E5M2, i8, i16, i32, i64, \
                             si8…si64, ui8…ui64, i1 and index";

/// The function-level ops a linalg program may hold, for messages.
const FUNCTION_OPS: &str = "linalg.generic (and named linalg ops, which are generalized to it), \
                            arith.constant, tensor.empty, tensor.expand_shape, \
                            tensor.collapse_shape and func.return";

/// Whether `op` (a `func.func`) is a linalg program: a tensor argument or returned value, or a
/// `linalg.*` / `tensor.*` op in its body.
pub(crate) fn is_linalg_program(op: &OperationRef) -> bool {
    let Some(block) = op.region(0).ok().and_then(|r| r.first_block()) else {
        return false;
    };
    // SAFETY: plain type queries on live types.
    let is_tensor = |ty: Type| unsafe {
        mlir_sys::mlirTypeIsARankedTensor(ty.to_raw())
            || mlir_sys::mlirTypeIsAUnrankedTensor(ty.to_raw())
    };
    let tensor_arg = (0..block.argument_count())
        .filter_map(|i| block.argument(i).ok())
        .any(|a| is_tensor(a.r#type()));
    let mut next = block.first_operation();
    while let Some(inner) = next {
        next = inner.next_in_block();
        // Borrowed, not op_name: this runs over every op of every function.
        let name = inner.name();
        let name = text(name.as_string_ref());
        if name.starts_with("linalg.")
            || name.starts_with("tensor.")
            || (name == "func.return" && inner.operands().any(|v| is_tensor(v.r#type())))
        {
            return true;
        }
    }
    tensor_arg
}

/// A copy of `module` after upstream normalisation (module docs); the caller's module is left
/// as it is. MLIR's diagnostics of the passes come back located, through `frontend` when the
/// module is in its context.
/// `loc` (a program's) locates a failure MLIR does not report itself. Under
/// `strip_assertions` every `cf.assert` of the copy is erased first, so canonicalize also
/// removes the conditions only they read; without it, canonicalize erases the assertions it
/// proves (a constant `true` condition) and the importer refuses the others at the op.
pub(crate) fn normalised<'c>(
    frontend: &Frontend,
    module: &Module<'c>,
    loc: &Location,
    strip_assertions: bool,
) -> Result<Module<'c>, Vec<Diagnostic>> {
    let failed = || {
        vec![Diagnostic::error(
            loc.clone(),
            "MLIR could not copy the module for upstream normalisation",
        )]
    };
    let copy = melior::ir::Operation::clone(&module.as_operation());
    let mut copy = Module::from_operation(copy).ok_or_else(failed)?;
    if strip_assertions {
        let mut asserts = Vec::new();
        copy.as_operation().walk(WalkOrder::PostOrder, |op| {
            if text(op.name().as_string_ref()) == ASSERT {
                asserts.push(op.to_raw());
            }
            WalkResult::Advance
        });
        for op in asserts {
            // SAFETY: each op is a live `cf.assert` of the copy, found once; it has no results,
            // so nothing uses it, and destroying it erases it from its block.
            unsafe { mlir_sys::mlirOperationDestroy(op) };
        }
    }
    // `to_ref` points into the `ContextRef` itself, so it must outlive the pass manager (a
    // temporary here was a dangling pointer that crashed release builds).
    let context_ref = module.context();
    // SAFETY: `context_ref` lives to the end of this function, past the pass manager's last use,
    // and the context it names outlives the module.
    let context = unsafe { context_ref.to_ref() };
    let manager = PassManager::new(context);
    manager.add_pass(pass::linalg::create_linalg_generalize_named_ops_pass());
    manager.add_pass(pass::linalg::create_linalg_fold_unit_extent_dims_pass());
    manager.add_pass(pass::transform::create_canonicalizer());
    manager.add_pass(pass::transform::create_cse());
    frontend.take_diagnostics();
    let run = manager.run(&mut copy);
    let diagnostics = frontend.take_diagnostics();
    match run {
        Ok(()) if !diagnostics.iter().any(|d| d.severity == Severity::Error) => Ok(copy),
        _ if diagnostics.is_empty() => Err(vec![Diagnostic::error(
            loc.clone(),
            "upstream normalisation (linalg-generalize-named-ops, linalg-fold-unit-extent-dims, \
             canonicalize, cse) failed",
        )]),
        _ => Err(diagnostics),
    }
}

/// The `func.func` named `sym` at the top of `module`.
pub(crate) fn find_function<'c, 'a>(
    module: &'a Module<'c>,
    sym: &str,
) -> Option<OperationRef<'c, 'a>> {
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let name = op
            .attribute("sym_name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok())
            .map(string_value);
        if op_name(&op) == "func.func" && name.as_deref() == Some(sym) {
            return Some(op);
        }
    }
    None
}

/// Import one normalised linalg program; `block` is the function's one block.
pub(crate) fn import_program(
    frontend: &Frontend,
    op: OperationRef,
    sym: String,
    block: BlockRef,
    lines: &SourceLines,
) -> Result<Program, Vec<Diagnostic>> {
    let loc = frontend.location(op.location());
    let mut importer = Importer {
        frontend,
        lines,
        program: Program::new(sym, loc),
        values: HashMap::new(),
        names: HashSet::new(),
    };
    let mut errors = Vec::new();
    for i in 0..block.argument_count() {
        let Ok(arg) = block.argument(i) else { continue };
        let arg_loc = frontend.location(arg.location());
        match value_type(arg.r#type(), &arg_loc, &format!("argument #{i}")) {
            Ok(ty) => {
                let name = importer.fresh(ssa_name_at(lines, &arg_loc));
                let id = importer.program.add_arg(name, ty);
                importer.values.insert(arg.to_raw().ptr, id);
            }
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut next = block.first_operation();
    while let Some(inner) = next {
        next = inner.next_in_block();
        // Later ops may use this op's results: stop at the first broken one.
        importer.op(inner).map_err(|e| vec![e])?;
    }
    Ok(importer.program)
}

/// The largest tensor rank a program may use (the converter merges leading dimensions of ranks
/// above 2 into rows).
const MAX_RANK: usize = 8;

/// The type of a function-level value: a static tensor of rank 0 to [`MAX_RANK`], or a scalar.
fn value_type(ty: Type, loc: &Location, what: &str) -> Result<LType, Diagnostic> {
    let text = ty.to_string();
    let err = |message: String| Err(Diagnostic::error(loc.clone(), format!("{what} {message}")));
    if let Ok(tensor) = RankedTensorType::try_from(ty) {
        if let Some(encoding) = tensor.encoding() {
            return err(format!(
                "has type '{text}' with encoding '{encoding}'; ptoc takes tensors without an \
                 encoding such as 'tensor<64x128xf32>'"
            ));
        }
        let elem = element(tensor.element(), loc, what)?;
        if tensor.rank() > MAX_RANK {
            return err(format!(
                "has type '{text}' of rank {}; ptoc takes tensors of rank 0 to {MAX_RANK}",
                tensor.rank()
            ));
        }
        let mut shape = Vec::with_capacity(tensor.rank());
        for d in 0..tensor.rank() {
            match tensor.dim_size(d) {
                Ok(DimSize::Static(n)) if u32::try_from(n).is_ok() => shape.push(n as u32),
                Ok(DimSize::Static(n)) => {
                    return err(format!(
                        "has type '{text}' whose dimension #{d} ({n}) exceeds {}",
                        u32::MAX
                    ))
                }
                _ => {
                    return err(format!(
                        "has dynamic type '{text}'; ptoc needs static shapes such as \
                         'tensor<64x128x{elem}>'"
                    ))
                }
            }
        }
        return Ok(LType::Tensor(TensorType { shape, elem }));
    }
    if text.starts_with("tensor<") {
        return err(format!(
            "has unranked type '{text}'; ptoc needs static shapes such as 'tensor<64x128xf32>'"
        ));
    }
    if let Some(elem) = Elem::parse(&text) {
        return Ok(LType::Scalar(elem));
    }
    err(format!(
        "has type '{text}'; linalg programs take static tensors of rank 0 to {MAX_RANK} \
         ('tensor<64x128xf32>') and scalars ({ELEMENT_TYPES})"
    ))
}

/// A tensor's or a body value's element type.
fn element(ty: Type, loc: &Location, what: &str) -> Result<Elem, Diagnostic> {
    let text = ty.to_string();
    Elem::parse(&text).ok_or_else(|| {
        Diagnostic::error(
            loc.clone(),
            format!("{what} has element type '{text}'; ptoc's element types are {ELEMENT_TYPES}"),
        )
    })
}

/// The functions the ISA has no instruction for (docs/isa.md §1.6 lists the unary ops it has),
/// by the math op that asks for one.
fn missing_math(name: &str) -> Option<&'static str> {
    Some(match name.strip_prefix("math.")? {
        "sin" => "sine",
        "cos" => "cosine",
        "tan" => "tangent",
        "sincos" => "sine or cosine",
        "asin" | "acos" | "atan" | "atan2" => "inverse trigonometric function",
        "sinh" | "cosh" | "tanh" => "hyperbolic function",
        "asinh" | "acosh" | "atanh" => "inverse hyperbolic function",
        "erf" | "erfc" => "error function",
        "powf" | "fpowi" | "ipowi" => "power function",
        "cbrt" => "cube root",
        "exp2" | "expm1" => "exponential other than e^x",
        "log2" | "log10" | "log1p" => "logarithm other than the natural one",
        _ => return None,
    })
}

/// `arith.cmpf`'s predicate attribute values (`arith::CmpFPredicate`).
const CMPF: [CmpFPredicate; 16] = [
    CmpFPredicate::False,
    CmpFPredicate::Oeq,
    CmpFPredicate::Ogt,
    CmpFPredicate::Oge,
    CmpFPredicate::Olt,
    CmpFPredicate::Ole,
    CmpFPredicate::One,
    CmpFPredicate::Ord,
    CmpFPredicate::Ueq,
    CmpFPredicate::Ugt,
    CmpFPredicate::Uge,
    CmpFPredicate::Ult,
    CmpFPredicate::Ule,
    CmpFPredicate::Une,
    CmpFPredicate::Uno,
    CmpFPredicate::True,
];

/// `arith.cmpi`'s predicate attribute values (`arith::CmpIPredicate`).
const CMPI: [CmpIPredicate; 10] = [
    CmpIPredicate::Eq,
    CmpIPredicate::Ne,
    CmpIPredicate::Slt,
    CmpIPredicate::Sle,
    CmpIPredicate::Sgt,
    CmpIPredicate::Sge,
    CmpIPredicate::Ult,
    CmpIPredicate::Ule,
    CmpIPredicate::Ugt,
    CmpIPredicate::Uge,
];

/// The body ops whose attributes do not change their meaning (fastmath flags aside), found by
/// [`ScalarOp::mlir_name`]; `arith.constant`, `arith.cmpf`, `arith.cmpi` and `linalg.index`
/// carry a value and are read separately.
const PLAIN_OPS: [ScalarOp; 34] = [
    ScalarOp::AddF,
    ScalarOp::SubF,
    ScalarOp::MulF,
    ScalarOp::DivF,
    ScalarOp::MaximumF,
    ScalarOp::MinimumF,
    ScalarOp::MaxNumF,
    ScalarOp::MinNumF,
    ScalarOp::NegF,
    ScalarOp::ExtF,
    ScalarOp::TruncF,
    ScalarOp::Select,
    ScalarOp::AddI,
    ScalarOp::SubI,
    ScalarOp::MulI,
    ScalarOp::DivSI,
    ScalarOp::DivUI,
    ScalarOp::MaxSI,
    ScalarOp::MinSI,
    ScalarOp::MaxUI,
    ScalarOp::MinUI,
    ScalarOp::IndexCast,
    ScalarOp::SIToFP,
    ScalarOp::UIToFP,
    ScalarOp::FPToSI,
    ScalarOp::FPToUI,
    ScalarOp::ExtSI,
    ScalarOp::ExtUI,
    ScalarOp::TruncI,
    ScalarOp::Exp,
    ScalarOp::Log,
    ScalarOp::Sqrt,
    ScalarOp::Rsqrt,
    ScalarOp::AbsF,
];

/// The math ops a body may use, for messages.
fn supported_math() -> String {
    let names: Vec<&str> = PLAIN_OPS
        .iter()
        .map(|op| op.mlir_name())
        .filter(|n| n.starts_with("math."))
        .collect();
    let expanded: Vec<&str> = expand_math::EXPANDED.iter().map(|&(n, _)| n).collect();
    format!(
        "{}, and in a linalg.generic body on f32 {} (written out in ISA ops)",
        names.join(", "),
        expanded.join(", ")
    )
}

/// Every op a body may hold, for messages.
fn supported_body_ops() -> String {
    let mut names: Vec<&str> = [
        ScalarOp::Constant(0),
        ScalarOp::CmpF(CmpFPredicate::False),
        ScalarOp::CmpI(CmpIPredicate::Eq),
        ScalarOp::Index(0),
    ]
    .iter()
    .chain(&PLAIN_OPS)
    .map(|op| op.mlir_name())
    .filter(|n| !n.starts_with("math."))
    .collect();
    names.sort_unstable();
    format!(
        "{} and linalg.yield; and the math ops {}",
        names.join(", "),
        supported_math()
    )
}

struct Importer<'f, 'l> {
    frontend: &'f Frontend,
    lines: &'l SourceLines<'l>,
    program: Program,
    values: HashMap<*const std::ffi::c_void, ValueId>,
    /// Source names given so far: a name is given once (normalisation can put several new ops
    /// at one source location).
    names: HashSet<String>,
}

impl Importer<'_, '_> {
    /// `name`, unless an earlier value has it.
    fn fresh(&mut self, name: Option<String>) -> Option<String> {
        name.filter(|n| self.names.insert(n.clone()))
    }

    fn operand_ids(&self, op: &OperationRef, loc: &Location) -> Result<Vec<ValueId>, Diagnostic> {
        operand_ids(&self.values, op, loc, "function")
    }

    /// New values for `op`'s results, named after the source (`%r`, or `%r#k` for `%r:2`)
    /// when the op written there is this op (or the named op it generalizes).
    fn results(&mut self, op: &OperationRef, loc: &Location) -> Result<Vec<ValueId>, Diagnostic> {
        let name = op_name(op);
        let written = self
            .lines
            .at(loc)
            .and_then(|line| line.get(loc.col.checked_sub(1)? as usize..))
            .unwrap_or("");
        let same_op = written.starts_with(&name)
            || (name == "linalg.generic" && written.starts_with("linalg."));
        let count = op.result_count();
        let names = result_names(self.lines, loc, count);
        let mut ids = Vec::with_capacity(count);
        for (i, value_name) in names.into_iter().enumerate() {
            let result = op
                .result(i)
                .map_err(|e| Diagnostic::error(loc.clone(), e.to_string()))?;
            let ty = value_type(result.r#type(), loc, &format!("result #{i} of '{name}'"))?;
            let value_name = self.fresh(value_name.filter(|_| same_op));
            let id = self.program.add_value(value_name, ty);
            self.values.insert(result.to_raw().ptr, id);
            ids.push(id);
        }
        Ok(ids)
    }

    /// Where `op` is in the source. Canonicalize hoists body constants to the function with an
    /// unknown location: such an op is located at its first user, else at the function.
    fn op_location(&self, op: &OperationRef) -> Location {
        let loc = self.frontend.location(op.location());
        if loc.is_known() {
            return loc;
        }
        let user = op.result(0).ok().and_then(|result| {
            // SAFETY: use-list queries on a live value; a null use ends the search.
            unsafe {
                let first = mlir_sys::mlirValueGetFirstUse(result.to_raw());
                if mlir_sys::mlirOpOperandIsNull(first) {
                    return None;
                }
                OperationRef::from_option_raw(mlir_sys::mlirOpOperandGetOwner(first))
            }
        });
        user.map(|user| self.frontend.location(user.location()))
            .filter(Location::is_known)
            .unwrap_or_else(|| self.program.loc.clone())
    }

    fn op(&mut self, op: OperationRef) -> Result<(), Diagnostic> {
        let loc = self.op_location(&op);
        let name = op_name(&op);
        let err = |message: String| Err(Diagnostic::error(loc.clone(), message));
        let kind = match name.as_str() {
            ASSERT => return err(assert_refusal(&op)),
            "func.return" => {
                self.program.results = self.operand_ids(&op, &loc)?;
                return Ok(());
            }
            "arith.constant" => LOpKind::Constant(self.constant(&op, &loc)?),
            "tensor.empty" => LOpKind::Empty,
            "tensor.expand_shape" | "tensor.collapse_shape" => LOpKind::Reshape,
            "linalg.generic" => LOpKind::Generic(self.generic(&op, &loc)?),
            "func.call" | "func.call_indirect" => {
                let callee = op
                    .attribute("callee")
                    .map(|c| format!(" of {c}"))
                    .unwrap_or_default();
                return err(format!(
                    "cannot lower the call{callee}: ptoc compiles each function on its own; \
                     inline the callee first (mlir-opt --inline)"
                ));
            }
            _ if name.starts_with("math.") || name.starts_with("arith.") => {
                if let Some(refusal) = math_refusal(&name) {
                    return err(refusal);
                }
                return err(format!(
                    "cannot lower '{name}' outside a linalg.generic body: ptoc computes scalars \
                     and elementwise tensor arithmetic inside linalg.generic regions only \
                     (arith.constant is the one function-level arith op; mlir-opt \
                     --convert-elementwise-to-linalg rewrites elementwise tensor ops)"
                ));
            }
            _ if name.starts_with("linalg.") => {
                return err(format!(
                    "cannot lower '{name}': it has no linalg.generic form \
                     (linalg-generalize-named-ops leaves it as it is); ptoc takes {FUNCTION_OPS}"
                ));
            }
            _ if name.starts_with("tensor.") => {
                return err(format!(
                    "cannot lower '{name}': of the tensor dialect ptoc takes tensor.empty, \
                     tensor.expand_shape and tensor.collapse_shape (no slicing, padding, \
                     insertion or extraction)"
                ));
            }
            _ => {
                return err(format!(
                    "cannot lower '{name}' in a linalg program; ptoc takes {FUNCTION_OPS}"
                ))
            }
        };
        if op.region_count() > 0 && !matches!(kind, LOpKind::Generic(_)) {
            return err(format!("'{name}' takes no regions"));
        }
        let operands = self.operand_ids(&op, &loc)?;
        let results = self.results(&op, &loc)?;
        // Reshapes and generics produce tensors; a reshape's operand is one too (MLIR checks).
        if let (LOpKind::Empty | LOpKind::Reshape, Some(&r)) = (&kind, results.first()) {
            if !matches!(self.program.ty(r), LType::Tensor(_)) {
                return err(format!("'{name}' must produce a tensor"));
            }
        }
        self.program.ops.push(LOp {
            kind,
            operands,
            results,
            loc,
        });
        Ok(())
    }

    /// An `arith.constant`'s bits: a scalar, or the element of a splat tensor (`dense<c>`).
    fn constant(&self, op: &OperationRef, loc: &Location) -> Result<u64, Diagnostic> {
        let attr = op
            .attribute("value")
            .map_err(|_| Diagnostic::error(loc.clone(), "'arith.constant' has no value"))?;
        let result = op
            .result(0)
            .map_err(|e| Diagnostic::error(loc.clone(), e.to_string()))?;
        let (scalar, elem) = match value_type(result.r#type(), loc, "'arith.constant'")? {
            LType::Scalar(elem) => (attr, elem),
            LType::Tensor(t) => match DenseElementsAttribute::try_from(attr) {
                Ok(dense) if dense.is_splat() => (dense.splat_value(), t.elem),
                _ => {
                    // Not the attribute itself: a weight blob can be megabytes.
                    let kind = match DenseElementsAttribute::try_from(attr) {
                        Ok(_) => "a dense tensor of different elements",
                        Err(_) => {
                            "an attribute that is not a dense splat (a resource blob, or \
                                   sparse elements)"
                        }
                    };
                    return Err(Diagnostic::error(
                        loc.clone(),
                        format!(
                            "'arith.constant' of '{t}' holds {kind}; ptoc takes scalar constants \
                             and splat tensors dense<c> (a tensor of weights would need its own \
                             memory in the kernel, which ptoc does not lay out: pass it as an \
                             argument)"
                        ),
                    ));
                }
            },
        };
        attribute_bits(scalar, elem.bits(), elem.data(), loc)
    }

    fn generic(&mut self, op: &OperationRef, loc: &Location) -> Result<Generic, Diagnostic> {
        let err = |message: String| Err(Diagnostic::error(loc.clone(), message));
        let iterators = array_attr(op, "iterator_types", loc)?
            .iter()
            .map(|attr| match attr.to_string().as_str() {
                "#linalg.iterator_type<parallel>" => Ok(IteratorKind::Parallel),
                "#linalg.iterator_type<reduction>" => Ok(IteratorKind::Reduction),
                other => Err(Diagnostic::error(
                    loc.clone(),
                    format!(
                        "'linalg.generic' has iterator type '{other}'; ptoc takes parallel and \
                         reduction loops"
                    ),
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if iterators.len() > usize::from(u8::MAX) + 1 {
            return err(format!(
                "'linalg.generic' has {} loops; ptoc takes at most 256",
                iterators.len()
            ));
        }
        let maps = array_attr(op, "indexing_maps", loc)?
            .iter()
            .enumerate()
            .map(|(i, &attr)| indexing_map(attr, i, loc))
            .collect::<Result<Vec<_>, _>>()?;
        let operands = self.operand_ids(op, loc)?;
        let inputs_count = op
            .attribute("operandSegmentSizes")
            .ok()
            .and_then(|a| DenseI32ArrayAttribute::try_from(a).ok())
            .and_then(|a| a.element(0).ok())
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n <= operands.len());
        let Some(inputs_count) = inputs_count else {
            return err("'linalg.generic' does not say which operands are inputs".into());
        };
        if maps.len() != operands.len() {
            return err(format!(
                "'linalg.generic' has {} indexing maps for {} operands",
                maps.len(),
                operands.len()
            ));
        }
        let (inputs, outputs) = operands.split_at(inputs_count);
        for (i, &v) in outputs.iter().enumerate() {
            if !matches!(self.program.ty(v), LType::Tensor(_)) {
                return err(format!(
                    "'linalg.generic' output #{i} has type '{}'; outputs are tensors",
                    self.program.ty(v)
                ));
            }
        }
        let region = op.region(0).ok().and_then(|r| r.first_block());
        let Some(block) = region else {
            return err("'linalg.generic' has no body".into());
        };
        let body = self.body(block, &iterators)?;
        Ok(Generic {
            iterators,
            inputs: inputs.to_vec(),
            outputs: outputs.to_vec(),
            maps,
            body,
        })
    }

    /// A generic's region: block arguments, scalar ops, `linalg.yield`.
    fn body(&mut self, block: BlockRef, iterators: &[IteratorKind]) -> Result<Body, Diagnostic> {
        let mut body = Body::default();
        let mut local: HashMap<*const std::ffi::c_void, BodyValue> = HashMap::new();
        for i in 0..block.argument_count() {
            let Ok(arg) = block.argument(i) else { continue };
            let arg_loc = self.frontend.location(arg.location());
            body.args.push(element(
                arg.r#type(),
                &arg_loc,
                &format!("block argument #{i}"),
            )?);
            local.insert(arg.to_raw().ptr, BodyValue::Arg(i));
        }
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            let loc = self.frontend.location(op.location());
            let name = op_name(&op);
            let expanded = expand_math::EXPANDED.iter().any(|&(n, _)| n == name);
            let scalar = match name.as_str() {
                "linalg.yield" => None,
                ASSERT => return Err(Diagnostic::error(loc, assert_refusal(&op))),
                _ if expanded => None,
                _ => Some(self.scalar_op(&op, &name, &loc, iterators)?),
            };
            let mut operands = Vec::with_capacity(op.operand_count());
            for (i, v) in op.operands().enumerate() {
                let ptr = v.to_raw().ptr;
                let value = match (local.get(&ptr), self.values.get(&ptr)) {
                    (Some(&b), _) => b,
                    (None, Some(&id)) if matches!(self.program.ty(id), LType::Scalar(_)) => {
                        BodyValue::Outer(id)
                    }
                    (None, Some(&id)) => {
                        return Err(Diagnostic::error(
                            loc,
                            format!(
                                "'{name}' operand #{i} is the tensor '%{}' from outside the \
                                 region; a body reads tensors through the generic's operands",
                                self.program.display_name(id)
                            ),
                        ))
                    }
                    (None, None) => {
                        return Err(Diagnostic::error(
                            loc,
                            format!(
                                "'{name}' operand #{i} is not a value of this region or function"
                            ),
                        ))
                    }
                };
                operands.push(value);
            }
            if expanded {
                let value = expand(&op, &name, &operands, &loc, &mut body)?;
                let result = op
                    .result(0)
                    .map_err(|e| Diagnostic::error(loc.clone(), e.to_string()))?;
                local.insert(result.to_raw().ptr, value);
                continue;
            }
            let Some(scalar) = scalar else {
                body.yields = operands;
                continue;
            };
            if op.region_count() > 0 || op.result_count() != 1 {
                return Err(Diagnostic::error(
                    loc,
                    format!("'{name}' in a linalg.generic body must have one result and no region"),
                ));
            }
            let result = op
                .result(0)
                .map_err(|e| Diagnostic::error(loc.clone(), e.to_string()))?;
            let ty = element(result.r#type(), &loc, &format!("the result of '{name}'"))?;
            let no_nans = op.attribute("fastmath").is_ok_and(|f| {
                let flags = f.to_string();
                flags.contains("nnan") || flags.contains("fast>")
            });
            local.insert(result.to_raw().ptr, BodyValue::Op(body.ops.len()));
            body.ops.push(BodyOp {
                op: scalar,
                operands,
                ty,
                no_nans,
                loc,
            });
        }
        Ok(body)
    }

    /// The [`ScalarOp`] of a body op, or why ptoc refuses it.
    fn scalar_op(
        &self,
        op: &OperationRef,
        name: &str,
        loc: &Location,
        iterators: &[IteratorKind],
    ) -> Result<ScalarOp, Diagnostic> {
        let err = |message: String| Err(Diagnostic::error(loc.clone(), message));
        if let Some(&plain) = PLAIN_OPS.iter().find(|op| op.mlir_name() == name) {
            return Ok(plain);
        }
        let int_attr = |attr: &str| {
            op.attribute(attr)
                .ok()
                .and_then(|a| IntegerAttribute::try_from(a).ok())
                .map(|i| i.value())
        };
        match name {
            "arith.constant" => {
                let result = op
                    .result(0)
                    .map_err(|e| Diagnostic::error(loc.clone(), e.to_string()))?;
                let elem = element(result.r#type(), loc, "the result of 'arith.constant'")?;
                let attr = op
                    .attribute("value")
                    .map_err(|_| Diagnostic::error(loc.clone(), "'arith.constant' has no value"))?;
                Ok(ScalarOp::Constant(attribute_bits(
                    attr,
                    elem.bits(),
                    elem.data(),
                    loc,
                )?))
            }
            "arith.cmpf" => match int_attr("predicate").and_then(|p| usize::try_from(p).ok()) {
                Some(p) if p < CMPF.len() => Ok(ScalarOp::CmpF(CMPF[p])),
                _ => err("'arith.cmpf' has no predicate ptoc knows".into()),
            },
            "arith.cmpi" => match int_attr("predicate").and_then(|p| usize::try_from(p).ok()) {
                Some(p) if p < CMPI.len() => Ok(ScalarOp::CmpI(CMPI[p])),
                _ => err("'arith.cmpi' has no predicate ptoc knows".into()),
            },
            "linalg.index" => match int_attr("dim").and_then(|d| u8::try_from(d).ok()) {
                Some(d) if usize::from(d) < iterators.len() => Ok(ScalarOp::Index(d)),
                _ => err(format!(
                    "'linalg.index' names no loop dimension of this generic ({} loops)",
                    iterators.len()
                )),
            },
            _ => err(body_refusal(name)),
        }
    }
}

/// The body ops of `op` (`math.tanh` or `math.erf` of one f32 operand), appended to `body`
/// at `op`'s location (crate::expand_math); the value they compute.
fn expand(
    op: &OperationRef,
    name: &str,
    operands: &[BodyValue],
    loc: &Location,
    body: &mut Body,
) -> Result<BodyValue, Diagnostic> {
    let f32 = Elem::Data(ptoc_isa::DataType::FP32);
    let ty = match op.result(0) {
        Ok(r) if op.result_count() == 1 && op.region_count() == 0 => {
            element(r.r#type(), loc, &format!("the result of '{name}'"))?
        }
        _ => {
            return Err(Diagnostic::error(
                loc.clone(),
                format!("'{name}' in a linalg.generic body must have one result and no region"),
            ))
        }
    };
    let (&[x], true) = (operands, ty == f32) else {
        return Err(Diagnostic::error(
            loc.clone(),
            format!(
                "cannot lower '{name}' of {ty}: the ISA has no {}; ptoc writes it out in ISA ops \
                 for one f32 operand only (a formula for {ty} would need its own coefficients \
                 and bound)",
                missing_math(name).unwrap_or("instruction for it")
            ),
        ));
    };
    struct Push<'b> {
        body: &'b mut Body,
        loc: &'b Location,
    }
    impl expand_math::Emit for Push<'_> {
        fn emit(&mut self, op: ScalarOp, operands: Vec<BodyValue>) -> BodyValue {
            let ty = match op {
                ScalarOp::CmpF(_) => Elem::I1,
                _ => Elem::Data(ptoc_isa::DataType::FP32),
            };
            self.body.ops.push(BodyOp {
                op,
                operands,
                ty,
                no_nans: false,
                loc: self.loc.clone(),
            });
            BodyValue::Op(self.body.ops.len() - 1)
        }
    }
    let mut push = Push { body, loc };
    expand_math::expand(name, x, &mut push)
        .ok_or_else(|| Diagnostic::error(loc.clone(), format!("'{name}' has no expansion")))
}

/// Why a `cf.assert` that normalisation could not prove is refused, with its message (not its
/// operands: the condition may be any expression).
fn assert_refusal(op: &OperationRef) -> String {
    let message = op
        .attribute("msg")
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok())
        .map(string_value)
        .map(|m| format!(" (\"{}\")", m.chars().take(200).collect::<String>()))
        .unwrap_or_default();
    format!(
        "cannot lower '{ASSERT}'{message}: ptoc cannot check an assertion at run time and \
         could not prove it statically; --strip-assertions compiles the program as if every \
         assertion held"
    )
}

/// Why a body op is refused, with what ptoc takes instead.
fn body_refusal(name: &str) -> String {
    math_refusal(name).unwrap_or_else(|| {
        format!(
            "cannot lower '{name}' in a linalg.generic body; ptoc takes {}",
            supported_body_ops()
        )
    })
}

/// Why a math op the ISA has no instruction for is refused.
fn math_refusal(name: &str) -> Option<String> {
    missing_math(name).map(|what| {
        format!(
            "cannot lower '{name}': the ISA has no {what}; supported math ops are {}",
            supported_math()
        )
    })
}

/// The elements of an array attribute of `op`.
fn array_attr<'c>(
    op: &OperationRef<'c, '_>,
    name: &str,
    loc: &Location,
) -> Result<Vec<Attribute<'c>>, Diagnostic> {
    let array = op
        .attribute(name)
        .ok()
        .and_then(|a| ArrayAttribute::try_from(a).ok())
        .ok_or_else(|| {
            Diagnostic::error(
                loc.clone(),
                format!("'linalg.generic' has no array '{name}'"),
            )
        })?;
    Ok((0..array.len())
        .filter_map(|i| array.element(i).ok())
        .collect())
}

/// An indexing map whose results are loop dimensions or the constant 0.
fn indexing_map(attr: Attribute, index: usize, loc: &Location) -> Result<Vec<MapExpr>, Diagnostic> {
    let err = |message: String| Err(Diagnostic::error(loc.clone(), message));
    // SAFETY: the attribute is checked to be an affine map attribute before its value is read.
    let map = unsafe {
        if !mlir_sys::mlirAttributeIsAAffineMap(attr.to_raw()) {
            return err(format!(
                "'linalg.generic' indexing map #{index} is {attr}, not an affine map"
            ));
        }
        AffineMap::from_raw(mlir_sys::mlirAffineMapAttrGetValue(attr.to_raw()))
    };
    let refuse = || {
        err(format!(
            "'linalg.generic' indexing map #{index} is {map}; ptoc takes maps whose results are \
             loop dimensions dN or the constant 0 (projections, permutations and broadcasts)"
        ))
    };
    if map.symbol_count() > 0 {
        return refuse();
    }
    let mut exprs = Vec::with_capacity(map.result_count());
    for i in 0..map.result_count() {
        let Ok(expr) = map.result(i) else {
            return refuse();
        };
        if expr.is_dim() {
            match u8::try_from(expr.dim_position()) {
                Ok(d) => exprs.push(MapExpr::Dim(d)),
                Err(_) => return refuse(),
            }
        } else if expr.is_constant() && expr.constant_value() == 0 {
            exprs.push(MapExpr::Zero);
        } else {
            return refuse();
        }
    }
    Ok(exprs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import_module;
    use ptoc_ir::Source;
    use std::io::Write;
    use std::process::{Command, Stdio};

    const SOFTMAX: &str = include_str!("../testdata/linalg/softmax.mlir");
    const RMS: &str = include_str!("../testdata/linalg/rms.mlir");
    const MIXED: &str = include_str!("../testdata/linalg/mixed.mlir");

    /// mlir-opt's output for `text` under the normalisation passes.
    fn mlir_opt(text: &str) -> String {
        let mut child = Command::new("/usr/lib/llvm-22/bin/mlir-opt")
            .args([
                "--linalg-generalize-named-ops",
                "--linalg-fold-unit-extent-dims",
                "--canonicalize",
                "--cse",
                "-",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("mlir-opt-22 (scripts/setup installs mlir-22-tools)");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    }

    /// The normalisation ptoc runs prints exactly what mlir-opt prints for the same passes.
    #[test]
    fn normalisation_is_mlir_opts() {
        for text in [SOFTMAX, RMS, MIXED] {
            let frontend = Frontend::new();
            let module = frontend.parse(&Source::new(text, "n.mlir")).unwrap();
            let before = frontend.print(&module, false);
            let loc = Location::new("n.mlir", 1, 1);
            let normal = normalised(&frontend, &module, &loc, false).unwrap();
            assert_eq!(frontend.print(&normal, false).trim(), mlir_opt(text).trim());
            // The caller's module is not touched.
            assert_eq!(frontend.print(&module, false), before);
        }
    }

    /// Import `text` (file `t.mlir`): its one linalg program.
    fn program(text: &str) -> Program {
        let frontend = Frontend::new();
        let source = Source::new(text, "t.mlir");
        let module = frontend.parse(&source).unwrap();
        let mut out = import_module(&frontend, &module, &source).unwrap();
        assert!(out.functions.is_empty() && out.gm_kernels.is_empty());
        assert_eq!(out.linalg.len(), 1);
        out.linalg.remove(0)
    }

    fn generic(op: &LOp) -> &Generic {
        match &op.kind {
            LOpKind::Generic(g) => g,
            other => panic!("expected a generic, got {other:?}"),
        }
    }

    fn tensor(shape: &[u32], elem: Elem) -> LType {
        LType::Tensor(TensorType {
            shape: shape.to_vec(),
            elem,
        })
    }

    const F32: Elem = Elem::Data(ptoc_isa::DataType::FP32);
    const I64: Elem = Elem::Data(ptoc_isa::DataType::S64);
    use BodyValue::{Arg, Op, Outer};
    use IteratorKind::{Parallel as P, Reduction as R};
    use MapExpr::Dim;

    /// The ops of a program, by kind: `c` constant, `e` empty, `r` reshape, `g` generic.
    fn kinds(p: &Program) -> String {
        p.ops
            .iter()
            .map(|op| match op.kind {
                LOpKind::Constant(_) => 'c',
                LOpKind::Empty => 'e',
                LOpKind::Reshape => 'r',
                LOpKind::Generic(_) => 'g',
            })
            .collect()
    }

    /// torch-mlir's softmax (with the argmax it keeps), against the normalised text mlir-opt
    /// prints for it: fills are generics reading a scalar through `() `, the 512x1 row
    /// vectors are folded to 512, names are the source's.
    #[test]
    fn softmax_imports_as_written() {
        let p = program(SOFTMAX);
        assert_eq!(p.name, "main");
        assert_eq!(p.loc, Location::new("t.mlir", 6, 3));
        assert_eq!(p.args.len(), 1);
        assert_eq!(p.display_name(p.args[0]), "arg0");
        assert_eq!(p.ty(p.args[0]), &tensor(&[512, 1024], F32));
        assert_eq!(kinds(&p), "cccegeggeggggg");
        let bits: Vec<(u64, String)> = p.ops[..3]
            .iter()
            .map(|op| match op.kind {
                LOpKind::Constant(c) => (c, p.display_name(op.results[0])),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(
            bits,
            [
                (0, "cst".to_string()),
                (0xFF80_0000, "cst_0".to_string()),
                (0, "c0_i64".to_string())
            ]
        );
        assert_eq!(p.ty(p.ops[2].results[0]), &LType::Scalar(I64));
        // %1: the i64 fill, a generic over one loop reading the scalar through `(d0) -> ()`.
        let fill = generic(&p.ops[4]);
        assert_eq!(fill.iterators, [P]);
        assert_eq!(fill.maps, [vec![], vec![Dim(0)]]);
        assert_eq!(fill.inputs, [p.ops[2].results[0]]);
        assert_eq!(fill.outputs, [p.ops[3].results[0]]);
        assert_eq!(fill.body.args, [I64, I64]);
        assert!(fill.body.ops.is_empty());
        assert_eq!(fill.body.yields, [Arg(0)]);
        assert_eq!(p.ty(p.ops[4].results[0]), &tensor(&[512], I64));
        // %4:2, the max with its argmax.
        let argmax = &p.ops[7];
        let g = generic(argmax);
        assert_eq!(g.iterators, [P, R]);
        assert_eq!(g.maps, [vec![Dim(0), Dim(1)], vec![Dim(0)], vec![Dim(0)]]);
        assert_eq!(g.inputs, [p.args[0]]);
        assert_eq!(g.outputs, [p.ops[6].results[0], p.ops[4].results[0]]);
        assert_eq!(g.body.args, [F32, F32, I64]);
        let body: Vec<_> = g
            .body
            .ops
            .iter()
            .map(|o| (o.op, o.operands.clone(), o.ty, o.no_nans))
            .collect();
        assert_eq!(
            body,
            [
                (ScalarOp::Index(1), vec![], Elem::Index, false),
                (ScalarOp::IndexCast, vec![Op(0)], I64, false),
                (ScalarOp::MaximumF, vec![Arg(0), Arg(1)], F32, false),
                (
                    ScalarOp::CmpF(CmpFPredicate::Ogt),
                    vec![Arg(0), Arg(1)],
                    Elem::I1,
                    false
                ),
                (ScalarOp::Select, vec![Op(3), Op(1), Arg(2)], I64, false),
            ]
        );
        assert_eq!(g.body.yields, [Op(2), Op(4)]);
        assert_eq!(g.body.ops[2].loc, Location::new("t.mlir", 18, 13));
        let names: Vec<String> = argmax.results.iter().map(|&r| p.display_name(r)).collect();
        assert_eq!(names, ["4#0", "4#1"]);
        // %6 = x - max (the 512x1 max read as 512 through (d0, d1) -> (d0)), %7 = exp.
        let sub = generic(&p.ops[9]);
        assert_eq!(
            sub.maps,
            [vec![Dim(0), Dim(1)], vec![Dim(0)], vec![Dim(0), Dim(1)]]
        );
        assert_eq!(sub.inputs, [p.args[0], argmax.results[0]]);
        assert_eq!(sub.body.ops[0].op, ScalarOp::SubF);
        assert_eq!(generic(&p.ops[10]).body.ops[0].op, ScalarOp::Exp);
        // %9: the fill of the 512x1 sum, now of 512 elements into the 512 empty of %2.
        let zero_fill = generic(&p.ops[11]);
        assert_eq!(zero_fill.inputs, [p.ops[0].results[0]]);
        assert_eq!(zero_fill.outputs, [p.ops[5].results[0]]);
        let sum = generic(&p.ops[12]);
        assert_eq!(sum.iterators, [P, R]);
        assert_eq!(sum.body.ops[0].op, ScalarOp::AddF);
        assert_eq!(sum.body.ops[0].operands, [Arg(0), Arg(1)]);
        let div = generic(p.ops.last().unwrap());
        assert_eq!(div.inputs, [p.ops[10].results[0], p.ops[12].results[0]]);
        assert_eq!(div.body.ops[0].op, ScalarOp::DivF);
        assert_eq!(p.results, [p.ops.last().unwrap().results[0]]);
        assert_eq!(p.display_name(p.results[0]), "11");
    }

    /// The staged RMS-style program: named elementwise ops, a fill, a reduction and two
    /// broadcasts (one along each dimension), all as generics, under the source's names.
    #[test]
    fn rms_imports_as_written() {
        let p = program(RMS);
        let names: Vec<String> = p.args.iter().map(|&a| p.display_name(a)).collect();
        assert_eq!(names, ["x", "w"]);
        assert_eq!(p.ty(p.args[1]), &tensor(&[4096], F32));
        assert_eq!(kinds(&p), "cegeggggggg");
        let (x, w) = (p.args[0], p.args[1]);
        let [c0, e, sq, r0, rf, s, b, bw, ex, d, m] = p.ops.as_slice() else {
            panic!("{} ops", p.ops.len());
        };
        assert_eq!(c0.kind, LOpKind::Constant(0));
        assert_eq!(e.kind, LOpKind::Empty);
        assert_eq!(r0.kind, LOpKind::Empty);
        let sq = (generic(sq), sq.results[0]);
        assert_eq!(sq.0.inputs, [x, x]);
        assert_eq!(sq.0.outputs, [e.results[0]]);
        assert_eq!(sq.0.body.ops[0].op, ScalarOp::MulF);
        assert_eq!(p.display_name(sq.1), "sq");
        let fill = generic(rf);
        assert_eq!(
            (fill.inputs.as_slice(), fill.maps.as_slice()),
            (&[c0.results[0]][..], &[vec![], vec![Dim(0)]][..])
        );
        let sum = generic(s);
        assert_eq!(sum.iterators, [P, R]);
        assert_eq!(sum.maps, [vec![Dim(0), Dim(1)], vec![Dim(0)]]);
        assert_eq!(sum.inputs, [sq.1]);
        assert_eq!(sum.outputs, [rf.results[0]]);
        assert_eq!(sum.body.ops[0].loc, Location::new("t.mlir", 9, 12));
        // linalg.broadcast dimensions = [1] reads s[d0]; dimensions = [0] reads w[d1].
        let (b_g, bw_g) = (generic(b), generic(bw));
        assert_eq!(b_g.maps, [vec![Dim(0)], vec![Dim(0), Dim(1)]]);
        assert_eq!(b_g.inputs, [s.results[0]]);
        assert_eq!(bw_g.maps, [vec![Dim(1)], vec![Dim(0), Dim(1)]]);
        assert_eq!(bw_g.inputs, [w]);
        assert!(b_g.body.ops.is_empty() && bw_g.body.yields == [Arg(0)]);
        assert_eq!(generic(ex).body.ops[0].op, ScalarOp::Exp);
        assert_eq!(generic(d).inputs, [ex.results[0], b.results[0]]);
        assert_eq!(generic(d).body.ops[0].op, ScalarOp::DivF);
        assert_eq!(generic(m).inputs, [d.results[0], bw.results[0]]);
        let names: Vec<String> = p
            .ops
            .iter()
            .map(|op| p.display_name(op.results[0]))
            .collect();
        assert_eq!(
            names,
            ["c0", "e", "sq", "r0", "rf", "s", "b", "bw", "ex", "d", "m"]
        );
        assert_eq!(p.results, [m.results[0]]);
    }

    /// Named ops (matmul, reduce to rank 0, transpose), unit dimensions, a captured scalar
    /// argument and a constant that normalisation hoists out of the body.
    #[test]
    fn captures_ranks_and_reshapes() {
        let p = program(MIXED);
        let s = p.args[2];
        assert_eq!(p.display_name(s), "s");
        assert_eq!(p.ty(s), &LType::Scalar(F32));
        assert_eq!(p.ty(p.args[3]), &tensor(&[1, 8], F32));
        assert_eq!(kinds(&p), "cceggeggregreg");
        let half = &p.ops[0];
        assert_eq!(half.kind, LOpKind::Constant(0x3F00_0000));
        assert_eq!(p.ops[1].kind, LOpKind::Constant(0));
        // matmul: three loops, C[d0,d1] += A[d0,d2] * B[d2,d1], the accumulator first.
        let mm = p
            .ops
            .iter()
            .find(|op| matches!(&op.kind, LOpKind::Generic(g) if g.iterators.len() == 3))
            .unwrap();
        let g = generic(mm);
        assert_eq!(g.iterators, [P, P, R]);
        assert_eq!(
            g.maps,
            [
                vec![Dim(0), Dim(2)],
                vec![Dim(2), Dim(1)],
                vec![Dim(0), Dim(1)]
            ]
        );
        assert_eq!(g.inputs, [p.args[0], p.args[1]]);
        let body: Vec<_> = g
            .body
            .ops
            .iter()
            .map(|o| (o.op, o.operands.clone()))
            .collect();
        assert_eq!(
            body,
            [
                (ScalarOp::MulF, vec![Arg(0), Arg(1)]),
                (ScalarOp::AddF, vec![Arg(2), Op(0)])
            ]
        );
        assert_eq!(p.display_name(mm.results[0]), "mm");
        // The rank-0 fill and the full reduction into it.
        let rank0 = tensor(&[], F32);
        let sum = p.results[1];
        assert_eq!(p.ty(sum), &rank0);
        let sum_op = p.defining_op(sum).unwrap();
        let g = generic(sum_op);
        assert_eq!(g.iterators, [R, R]);
        assert_eq!(g.maps, [vec![Dim(0), Dim(1)], vec![]]);
        let init = p.defining_op(g.outputs[0]).unwrap();
        let fill = generic(init);
        assert!(fill.iterators.is_empty());
        assert_eq!(fill.maps, [vec![], vec![]]);
        assert_eq!(fill.inputs, [p.ops[1].results[0]]);
        // The 1x8 scaling runs over 8 elements, between two reshapes; the body reads the
        // argument %s and the hoisted 0.5 from outside the region.
        let scaled = p
            .ops
            .iter()
            .find(|op| matches!(&op.kind, LOpKind::Generic(g) if g.body.ops.len() == 2 && g.body.ops[0].op == ScalarOp::MulF && g.iterators.len() == 1))
            .unwrap();
        let g = generic(scaled);
        let collapsed = p.defining_op(g.inputs[0]).unwrap();
        assert_eq!(collapsed.kind, LOpKind::Reshape);
        assert_eq!(collapsed.operands, [p.args[3]]);
        assert_eq!(p.ty(g.inputs[0]), &tensor(&[8], F32));
        let body: Vec<_> = g
            .body
            .ops
            .iter()
            .map(|o| (o.op, o.operands.clone(), o.no_nans))
            .collect();
        assert_eq!(
            body,
            [
                (ScalarOp::MulF, vec![Arg(0), Outer(s)], true),
                (
                    ScalarOp::MaximumF,
                    vec![Op(0), Outer(half.results[0])],
                    false
                ),
            ]
        );
        let r = p.results[2];
        let expanded = p.defining_op(r).unwrap();
        assert_eq!(expanded.kind, LOpKind::Reshape);
        assert_eq!(expanded.operands, scaled.results);
        assert_eq!(p.ty(r), &tensor(&[8, 1], F32));
        // transpose: out[d0, d1] = mm[d1, d0].
        let tr = generic(p.defining_op(p.results[3]).unwrap());
        assert_eq!(tr.maps, [vec![Dim(1), Dim(0)], vec![Dim(0), Dim(1)]]);
        assert_eq!(tr.inputs, [mm.results[0]]);
        assert_eq!(p.results[0], mm.results[0]);
    }

    /// A one-loop generic over `n` elements with one `tensor<nxT>` input per type in `ins`,
    /// one output per yielded value in `outs`, and `body` between its block header and yield.
    fn generic_text(n: u32, ins: &[&str], outs: &[&str], body: &str, yields: &str) -> String {
        let maps = vec!["affine_map<(d0) -> (d0)>"; ins.len() + outs.len()].join(", ");
        let iters = "[\"parallel\"]";
        let args: Vec<String> = (0..ins.len()).map(|i| format!("%x{i}")).collect();
        let arg_decls: Vec<String> = ins
            .iter()
            .enumerate()
            .map(|(i, t)| format!("%x{i}: tensor<{n}x{t}>"))
            .collect();
        let in_types: Vec<String> = ins.iter().map(|t| format!("tensor<{n}x{t}>")).collect();
        let out_types: Vec<String> = outs.iter().map(|t| format!("tensor<{n}x{t}>")).collect();
        let empties: String = outs
            .iter()
            .enumerate()
            .map(|(i, t)| format!("  %e{i} = tensor.empty() : tensor<{n}x{t}>\n"))
            .collect();
        let out_names: Vec<String> = (0..outs.len()).map(|i| format!("%e{i}")).collect();
        let block: Vec<String> = ins
            .iter()
            .enumerate()
            .map(|(i, t)| format!("%a{i}: {t}"))
            .chain(outs.iter().enumerate().map(|(i, t)| format!("%o{i}: {t}")))
            .collect();
        format!(
            "func.func @k({}) -> ({}) {{\n{empties}  %r:{} = linalg.generic {{indexing_maps = \
             [{maps}], iterator_types = {iters}}} ins({} : {}) outs({} : {}) {{\n  ^bb0({}):\n\
             {body}\n    linalg.yield {yields} : {}\n  }} -> ({})\n  return {} : {}\n}}\n",
            arg_decls.join(", "),
            out_types.join(", "),
            outs.len(),
            args.join(", "),
            in_types.join(", "),
            out_names.join(", "),
            out_types.join(", "),
            block.join(", "),
            outs.join(", "),
            out_types.join(", "),
            (0..outs.len())
                .map(|i| format!("%r#{i}"))
                .collect::<Vec<_>>()
                .join(", "),
            out_types.join(", "),
        )
    }

    /// Every cmpf and cmpi predicate MLIR's parser reads becomes the one of the same name.
    #[test]
    fn predicates_by_name() {
        let cmpf = [
            ("oeq", CmpFPredicate::Oeq),
            ("ogt", CmpFPredicate::Ogt),
            ("oge", CmpFPredicate::Oge),
            ("olt", CmpFPredicate::Olt),
            ("ole", CmpFPredicate::Ole),
            ("one", CmpFPredicate::One),
            ("ord", CmpFPredicate::Ord),
            ("ueq", CmpFPredicate::Ueq),
            ("ugt", CmpFPredicate::Ugt),
            ("uge", CmpFPredicate::Uge),
            ("ult", CmpFPredicate::Ult),
            ("ule", CmpFPredicate::Ule),
            ("une", CmpFPredicate::Une),
            ("uno", CmpFPredicate::Uno),
        ];
        let cmpi = [
            ("eq", CmpIPredicate::Eq),
            ("ne", CmpIPredicate::Ne),
            ("slt", CmpIPredicate::Slt),
            ("sle", CmpIPredicate::Sle),
            ("sgt", CmpIPredicate::Sgt),
            ("sge", CmpIPredicate::Sge),
            ("ult", CmpIPredicate::Ult),
            ("ule", CmpIPredicate::Ule),
            ("ugt", CmpIPredicate::Ugt),
            ("uge", CmpIPredicate::Uge),
        ];
        for (op, ty, names) in [
            (
                "cmpf",
                "f32",
                cmpf.map(|(n, p)| (n, ScalarOp::CmpF(p))).to_vec(),
            ),
            (
                "cmpi",
                "i32",
                cmpi.map(|(n, p)| (n, ScalarOp::CmpI(p))).to_vec(),
            ),
        ] {
            let body: Vec<String> = names
                .iter()
                .enumerate()
                .map(|(i, (n, _))| format!("    %c{i} = arith.{op} {n}, %a0, %a1 : {ty}"))
                .collect();
            let yields: Vec<String> = (0..names.len()).map(|i| format!("%c{i}")).collect();
            let text = generic_text(
                4,
                &[ty, ty],
                &vec!["i1"; names.len()],
                &body.join("\n"),
                &yields.join(", "),
            );
            let p = program(&text);
            let g = generic(p.ops.last().unwrap());
            let got: Vec<ScalarOp> = g.body.ops.iter().map(|o| o.op).collect();
            let want: Vec<ScalarOp> = names.iter().map(|&(_, op)| op).collect();
            assert_eq!(got, want, "{text}");
            assert!(g.body.ops.iter().all(|o| o.ty == Elem::I1));
        }
    }

    /// Constants keep their exact bits: floats as their type's IEEE encoding (a NaN's payload
    /// included), integers two's complement masked to their width, splat tensors their
    /// element's; body constants are hoisted by canonicalize and captured.
    #[test]
    fn constants_keep_their_bits() {
        let body = "    %n = arith.constant 0x7FC00001 : f32\n\
                    \x20   %h = arith.constant 1.5 : f16\n\
                    \x20   %b = arith.constant -2.0 : bf16\n\
                    \x20   %m = arith.constant -1 : i8\n\
                    \x20   %w = arith.constant -2 : i64\n\
                    \x20   %f = arith.maximumf %a0, %n : f32\n\
                    \x20   %g = arith.addf %a1, %h : f16\n\
                    \x20   %k = arith.mulf %a2, %b : bf16\n\
                    \x20   %j = arith.addi %a3, %m : i8\n\
                    \x20   %q = arith.maxsi %a4, %w : i64";
        let text = generic_text(
            4,
            &["f32", "f16", "bf16", "i8", "i64"],
            &["f32", "f16", "bf16", "i8", "i64"],
            body,
            "%f, %g, %k, %j, %q",
        );
        let p = program(&text);
        let g = generic(p.ops.last().unwrap());
        let captured: Vec<u64> = g
            .body
            .ops
            .iter()
            .flat_map(|o| o.operands.iter())
            .filter_map(|v| match v {
                Outer(id) => match p.defining_op(*id).map(|op| &op.kind) {
                    Some(LOpKind::Constant(bits)) => Some(*bits),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        assert_eq!(
            captured,
            [0x7FC0_0001, 0x3E00, 0xC000, 0xFF, 0xFFFF_FFFF_FFFF_FFFE]
        );
        // i1: `xori` is not a ScalarOp (refused); a `true` read by a select is 1.
        let i1 = generic_text(
            4,
            &["i1", "i1"],
            &["i1"],
            "    %t = arith.constant true\n    %x = arith.xori %a0, %t : i1",
            "%x",
        );
        let frontend = Frontend::new();
        let source = Source::new(&i1, "t.mlir");
        let module = frontend.parse(&source).unwrap();
        let errors = import_module(&frontend, &module, &source).unwrap_err();
        assert!(
            errors[0].message.contains("cannot lower 'arith.xori'"),
            "{errors:?}"
        );
        let i1 = generic_text(
            4,
            &["i1", "f32", "f32"],
            &["i1", "f32"],
            "    %t = arith.constant true\n    %c = arith.cmpf olt, %a1, %a2 : f32\n    \
             %s = arith.select %a0, %t, %c : i1\n    %v = arith.select %c, %a1, %a2 : f32",
            "%s, %v",
        );
        let p = program(&i1);
        let bits: Vec<(u64, LType)> = p
            .ops
            .iter()
            .filter_map(|op| match op.kind {
                LOpKind::Constant(b) => Some((b, p.ty(op.results[0]).clone())),
                _ => None,
            })
            .collect();
        assert!(bits.contains(&(1, LType::Scalar(Elem::I1))), "{bits:?}");
        // A splat tensor constant: its element's bits.
        let splat = "func.func @k(%x: tensor<4xf32>) -> tensor<4xf32> {\n  \
                     %c = arith.constant dense<-0.0> : tensor<4xf32>\n  \
                     %e = tensor.empty() : tensor<4xf32>\n  \
                     %r = linalg.sub ins(%x, %c : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>\n  \
                     return %r : tensor<4xf32>\n}\n";
        let p = program(splat);
        assert_eq!(p.ops[0].kind, LOpKind::Constant(0x8000_0000));
        assert_eq!(p.ty(p.ops[0].results[0]), &tensor(&[4], F32));
        assert_eq!(p.display_name(p.ops[0].results[0]), "c");
    }

    /// Odd but valid MLIR: each imports, or is refused with a located error naming why;
    /// nothing panics.
    #[test]
    fn odd_programs_import_or_are_refused_at_their_op() {
        let ok = |text: &str| {
            let frontend = Frontend::new();
            let source = Source::new(text, "t.mlir");
            let module = frontend.parse(&source).unwrap();
            import_module(&frontend, &module, &source)
        };
        let refused = |text: &str, line: u32, message: &str| {
            let errors = ok(text).unwrap_err();
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert_eq!(errors[0].loc.file.as_deref(), Some("t.mlir"), "{errors:?}");
            assert_eq!(errors[0].loc.line, line, "{errors:?}");
            assert!(errors[0].message.contains(message), "{errors:?}");
        };
        // Empty and rank-0 tensors, index elements, no results.
        let p = program(
            "func.func @k(%x: tensor<0x4xf32>, %y: tensor<f32>, %z: tensor<3xindex>) {\n  return\n}\n",
        );
        assert_eq!(p.ty(p.args[0]), &tensor(&[0, 4], F32));
        assert_eq!(p.ty(p.args[1]), &tensor(&[], F32));
        assert_eq!(p.ty(p.args[2]), &tensor(&[3], Elem::Index));
        assert!(p.results.is_empty() && p.ops.is_empty());
        refused(
            "func.func @k(%x: tensor<4294967296xf32>) -> tensor<4294967296xf32> {\n  return %x : tensor<4294967296xf32>\n}\n",
            1,
            "exceeds 4294967295",
        );
        // An output-only generic (iota) with a library_call attribute.
        let p = program(
            "func.func @iota() -> tensor<8xi64> {\n  %e = tensor.empty() : tensor<8xi64>\n  \
             %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"], library_call = \"iota\"} outs(%e : tensor<8xi64>) {\n  \
             ^bb0(%o: i64):\n    %i = linalg.index 0 : index\n    %c = arith.index_cast %i : index to i64\n    linalg.yield %c : i64\n  \
             } -> tensor<8xi64>\n  return %r : tensor<8xi64>\n}\n",
        );
        let g = generic(&p.ops[1]);
        assert!(g.inputs.is_empty());
        assert_eq!(g.maps, [vec![Dim(0)]]);
        let body: Vec<ScalarOp> = g.body.ops.iter().map(|o| o.op).collect();
        assert_eq!(body, [ScalarOp::Index(0), ScalarOp::IndexCast]);
        // An op the ISA has (TFMA) but ptoc's bodies do not, a pto op among tensors, a global
        // read, an f8 constant (hoisted to the function by canonicalize).
        refused(
            &generic_text(
                4,
                &["f32"],
                &["f32"],
                "    %s = math.fma %a0, %a0, %a0 : f32",
                "%s",
            ),
            5,
            "cannot lower 'math.fma' in a linalg.generic body; ptoc takes arith.addf",
        );
        refused(
            "func.func @k(%x: tensor<4xf32>, %t: !pto.tile<4x8xf32>) -> tensor<4xf32> {\n  \
             %u = \"pto.texp\"(%t) : (!pto.tile<4x8xf32>) -> !pto.tile<4x8xf32>\n  return %x : tensor<4xf32>\n}\n",
            1,
            "argument #1 has type '!pto.tile<4x8xf32>'",
        );
        refused(
            "ml_program.global private @g(dense<1.0> : tensor<4xf32>) : tensor<4xf32>\n\
             func.func @k() -> tensor<4xf32> {\n  %g = ml_program.global_load_const @g : tensor<4xf32>\n  return %g : tensor<4xf32>\n}\n",
            3,
            "cannot lower 'ml_program.global_load_const' in a linalg program",
        );
        refused(
            &generic_text(
                4,
                &["f8E4M3FN"],
                &["f8E4M3FN"],
                "    %c = arith.constant 1.0 : f8E4M3FN\n    %s = arith.addf %a0, %c : f8E4M3FN",
                "%s",
            ),
            6,
            "ptoc takes index, integer, f64, f32, f16 and bf16 scalar constants",
        );
        // A module of several kinds: the global is ignored, each function goes its own way.
        let text = format!(
            "ml_program.global private mutable @seed(dense<0> : tensor<i64>) : tensor<i64>\n{}{}\
             func.func @tile(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {{\n  return %x : !pto.tile<16x64xf32>\n}}\n",
            RMS,
            SOFTMAX
                .split_once("module {")
                .map(|(maps, rest)| format!("{maps}{}", rest.trim_end().strip_suffix('}').unwrap()))
                .unwrap()
                .replace("ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>", ""),
        );
        let out = ok(&text).unwrap();
        let names: Vec<&str> = out.linalg.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["rms", "main"]);
        assert_eq!(out.functions.len(), 1);
        assert_eq!(kinds(&out.linalg[0]), kinds(&program(RMS)));
        assert_eq!(kinds(&out.linalg[1]), kinds(&program(SOFTMAX)));
    }
}
