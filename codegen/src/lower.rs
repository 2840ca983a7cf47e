//! Bundle emission: one bundle per op of an allocated function, in program order.
//!
//! Input contract (from `pto-allocate`): every argument and op result carries `pto.dst` (its
//! absolute register, `"T#1"`), `pto.tsize` (its SizeCode) and `pto.rows` (the physical rows the
//! SizeCode derives); the function carries `pto.pe_mask`. Every bundle is
//! `BSTART · [B.DATR] · B.DIM LB0 · [LB1] · [LB2] · B.IOT · BSTOP` (docs/isa.md §1.3, §9 decision 17),
//! and everything about an op comes from its `ptoc_isa::ops::CATALOGUE` row.

use crate::metadata::TileMeta;
use crate::{metadata, Bundle, Kernel, KernelMeta, Origin};
use ptoc_ir::{Attr, Diagnostic, Function, Op, TileType, ValueDef, ValueId};
use ptoc_isa::encoding::{Datr, Dim, Ior, Iot, IotSources};
use ptoc_isa::geometry::MAX_DIM;
use ptoc_isa::ops::{Carrier, CMODE_ATTR};
use ptoc_isa::profile::{NamingModel, PROFILE};
use ptoc_isa::{
    CmpMode, DataType, Instruction, NumericControl, OpKind, PadValue, PeMask, RegisterFile,
    ResultKind, SizeCode, TileReg,
};
use std::collections::{BTreeMap, HashMap};

pub use ptoc_ir::alloc_attrs::{
    DST as ATTR_DST, PE_MASK as ATTR_PE_MASK, PROFILE as ATTR_PROFILE, ROWS as ATTR_ROWS,
    TSIZE as ATTR_TSIZE,
};

/// Lower an allocated function to a kernel, or report every problem found at its location.
pub fn lower_function(func: &Function) -> Result<Kernel, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let pe_mask = pe_mask(func).unwrap_or_else(|d| {
        diags.push(d);
        PeMask::ALL_PES
    });

    // Where every value lives, from the allocation attributes.
    let mut tiles: HashMap<ValueId, TileMeta> = HashMap::new();
    let mut args = Vec::new();
    for (i, &arg) in func.args.iter().enumerate() {
        let name = func
            .value(arg)
            .name
            .clone()
            .filter(|n| !n.is_empty())
            .unwrap_or(format!("arg{i}"));
        let empty = BTreeMap::new();
        let attrs = func.arg_attrs.get(i).unwrap_or(&empty);
        match tile_meta(name, func.ty(arg), attrs) {
            Ok(t) => {
                args.push(t.clone());
                tiles.insert(arg, t);
            }
            Err(m) => diags.push(Diagnostic::error(
                func.loc.clone(),
                format!("argument #{i}: {m}"),
            )),
        }
    }
    let naming = profile(func).unwrap_or_else(|d| {
        diags.push(d);
        NamingModel::AbsoluteNoFree
    });
    let mut taken = RenameChecker::new(naming);
    for t in &args {
        if let Err(m) = taken.insert(t.register) {
            diags.push(Diagnostic::error(func.loc.clone(), m));
        }
    }
    // The loader's view: each argument by the code it has once all are placed.
    for t in &mut args {
        t.register = taken.code_of(t.register);
    }

    let mut bundles = Vec::new();
    for (index, op) in func.ops.iter().enumerate() {
        // Unnamed results are known by their op's position (`%3`).
        let name = func
            .value(op.result)
            .name
            .clone()
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| index.to_string());
        // Sources are named before the destination is pushed (docs/isa.md §9 decisions 1–2).
        let mut named: HashMap<ValueId, TileMeta> = op
            .operands
            .iter()
            .filter_map(|v| {
                let t = tiles.get(v)?;
                let register = taken.code_of(t.register);
                Some((
                    *v,
                    TileMeta {
                        register,
                        ..t.clone()
                    },
                ))
            })
            .collect();
        let result = tile_meta(name.clone(), func.ty(op.result), &op.attrs)
            .and_then(|t| taken.rename(&t).map(|()| t));
        match result {
            Ok(t) => {
                named.insert(op.result, t.clone());
                tiles.insert(op.result, t);
            }
            Err(m) => {
                diags.push(Diagnostic::error(op.loc.clone(), m));
                continue;
            }
        }
        match lower_op(func, op, &named, pe_mask) {
            Ok(insts) => bundles.push(Bundle {
                origin: Some(Origin {
                    value: name,
                    op: op.info.mlir_name(),
                    loc: op.loc.clone(),
                }),
                words: insts.iter().map(Instruction::encode).collect(),
            }),
            Err(d) => diags.push(d),
        }
    }

    let mut results = Vec::new();
    for (i, &r) in func.results.iter().enumerate() {
        match tiles.get(&r) {
            Some(t) => results.push(TileMeta {
                name: format!("r{i}"),
                register: taken.code_of(t.register),
                ..t.clone()
            }),
            None if diags.is_empty() => diags.push(Diagnostic::error(
                func.loc.clone(),
                format!("result #{i} has no allocated register"),
            )),
            None => {}
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    Ok(Kernel {
        name: func.name.clone(),
        bundles,
        meta: KernelMeta {
            pe_mask,
            profile: naming,
            args,
            results,
            ..KernelMeta::default()
        },
    })
}

fn pe_mask(func: &Function) -> Result<PeMask, Diagnostic> {
    let err = |m: String| Diagnostic::error(func.loc.clone(), m);
    match func.attrs.get(ATTR_PE_MASK) {
        None => Err(err(format!(
            "function @{} has no {ATTR_PE_MASK} attribute (run pto-allocate first)",
            func.name
        ))),
        Some(Attr::Str(s)) => PeMask::parse(s).ok_or_else(|| {
            err(format!(
                "{ATTR_PE_MASK} = {s:?} is not an encodable PE mask (1111, 1110, 1100, 1000, \
                 0100, 0010, 0001, 0000)"
            ))
        }),
        Some(other) => Err(err(format!("{ATTR_PE_MASK} must be a string, not {other}"))),
    }
}

/// The naming model the allocator planned for (`pto.profile`; absent means absolute).
fn profile(func: &Function) -> Result<NamingModel, Diagnostic> {
    match func.attrs.get(ATTR_PROFILE) {
        None => Ok(NamingModel::AbsoluteNoFree),
        Some(Attr::Str(s)) => NamingModel::from_name(s).ok_or_else(|| {
            Diagnostic::error(
                func.loc.clone(),
                format!("{ATTR_PROFILE} = {s:?} is not a target profile (queue, absolute)"),
            )
        }),
        Some(other) => Err(Diagnostic::error(
            func.loc.clone(),
            format!("{ATTR_PROFILE} must be a string, not {other}"),
        )),
    }
}

/// Integer attribute `key`, required.
fn int_attr(attrs: &BTreeMap<String, Attr>, key: &str) -> Result<i64, String> {
    match attrs.get(key) {
        Some(Attr::Int(n)) => Ok(*n),
        Some(other) => Err(format!("{key} must be an integer, not {other}")),
        None => Err(format!("missing {key} attribute (run pto-allocate first)")),
    }
}

/// The placement and shape of a value from its type and allocation attributes.
pub(crate) fn tile_meta(
    name: String,
    ty: &TileType,
    attrs: &BTreeMap<String, Attr>,
) -> Result<TileMeta, String> {
    let register = match attrs.get(ATTR_DST) {
        Some(Attr::Str(s)) => metadata::parse_register(s)
            .ok_or_else(|| format!("{ATTR_DST} = {s:?} is not a register like \"T#1\""))?,
        Some(other) => return Err(format!("{ATTR_DST} must be a string, not {other}")),
        None => {
            return Err(format!(
                "missing {ATTR_DST} attribute (run pto-allocate first)"
            ))
        }
    };
    let tsize = int_attr(attrs, ATTR_TSIZE)?;
    let size_code = u32::try_from(tsize)
        .ok()
        .and_then(SizeCode::new)
        .ok_or_else(|| format!("{ATTR_TSIZE} = {tsize} is not a SizeCode in 1..=10"))?;
    let rows = int_attr(attrs, ATTR_ROWS)?;
    let (type_rows, cols, valid_rows, valid_cols) = ty
        .dims()
        .ok_or_else(|| format!("type {ty} is not static after allocation"))?;
    let meta = TileMeta {
        name,
        register,
        dtype: ty.dtype,
        storage: ty.storage,
        rows: u32::try_from(rows).map_err(|_| format!("{ATTR_ROWS} = {rows} is out of range"))?,
        cols,
        valid_rows,
        valid_cols,
        size_code,
        pad: ty.pad,
        layout: ty.layout,
    };
    meta.check()
        .map_err(|m| format!("{ATTR_ROWS}/{ATTR_TSIZE} do not fit type {ty}: {m}"))?;
    if type_rows > meta.rows {
        return Err(format!(
            "type {ty} needs {type_rows} rows but SizeCode {size_code} gives {}",
            meta.rows
        ));
    }
    Ok(meta)
}

/// Checks each destination is the register the naming model gives it (`RegisterFile::place`),
/// keeping the register file the program has built so far, and names sources by the code that
/// reaches them.
struct RenameChecker {
    file: RegisterFile,
}

impl RenameChecker {
    fn new(naming: NamingModel) -> RenameChecker {
        RenameChecker {
            file: RegisterFile::with_naming(naming),
        }
    }

    /// Place an argument where the loader puts it (in argument order).
    fn insert(&mut self, reg: TileReg) -> Result<(), String> {
        match self.file.naming() {
            NamingModel::AbsoluteNoFree => self
                .file
                .allocate(reg, 0)
                .map_err(|_| format!("two arguments are placed in {reg}")),
            NamingModel::Queue => match self.file.place(reg.hand(), 0) {
                Ok(p) if p.reg == reg && p.retired.is_none() => Ok(()),
                Ok(p) => Err(format!(
                    "the loader pushes this argument to {}, not {reg}",
                    p.reg
                )),
                Err(e) => Err(e.to_string()),
            },
        }
    }

    /// The code that names physical register `reg` now.
    fn code_of(&self, reg: TileReg) -> TileReg {
        self.file.code_of(reg).unwrap_or(reg)
    }

    fn rename(&mut self, t: &TileMeta) -> Result<(), String> {
        let hand = t.register.hand();
        match self.file.place(hand, 0) {
            Ok(p) if p.reg == t.register => Ok(()),
            Ok(p) => Err(format!(
                "{ATTR_DST} = \"{}\" but the hardware puts this destination in {} ({})",
                t.register,
                p.reg,
                match self.file.naming() {
                    NamingModel::AbsoluteNoFree => "the lowest free register of its hand",
                    NamingModel::Queue => "the free or retiring slot of its hand",
                }
            )),
            Err(_) => Err(format!(
                "no free register left in hand {} for this destination",
                hand.letter()
            )),
        }
    }
}

fn lower_op(
    func: &Function,
    op: &Op,
    tiles: &HashMap<ValueId, TileMeta>,
    mask: PeMask,
) -> Result<Vec<Instruction>, Diagnostic> {
    let info = op.info;
    let err = |m: String| Diagnostic::error(op.loc.clone(), m);
    // A straight-line function has no scalar values to put in B.IOR (docs/isa.md §14).
    if info.takes_scalar() {
        return Err(err(format!(
            "{} needs a scalar; use it inside a GM kernel",
            info.mlir_name()
        )));
    }
    if op.operands.len() != info.sources.len() {
        return Err(err(format!(
            "{} takes {} operand(s), found {}",
            info.mlir_name(),
            info.sources.len(),
            op.operands.len()
        )));
    }
    let mut sources: Vec<&TileMeta> = Vec::new();
    for (role, v) in info.sources.iter().zip(&op.operands) {
        let t = tiles.get(v).ok_or_else(|| {
            let what = match func.value(*v).def {
                ValueDef::Arg(i) => format!("argument #{i}"),
                ValueDef::Op(_) => "its defining op".to_string(),
            };
            err(format!(
                "{} operand has no register ({what} was not allocated)",
                role.name()
            ))
        })?;
        sources.push(t);
    }
    let result = tiles
        .get(&op.result)
        .ok_or_else(|| err("the result has no register".to_string()))?;
    tile_bundle(
        op.info, op.control, &op.attrs, &op.loc, &sources, result, None, mask,
    )
}

/// The words of one tile bundle (docs/isa.md §1.3, §9 decision 17): `info`'s op with `control`,
/// reading `sources` (catalogue order, each by the code that names it) and writing `result`;
/// `attrs` carries the op's comparison (`pto.cmode`); `scalar` is the GPR holding a
/// tile-scalar op's scalar (`B.IOR s, zero, zero, ->zero`, docs/isa.md §14). Shared by
/// straight-line kernels and GM kernels.
#[allow(clippy::too_many_arguments)]
pub(crate) fn tile_bundle(
    info: &'static ptoc_isa::OpInfo,
    control: NumericControl,
    attrs: &BTreeMap<String, Attr>,
    loc: &ptoc_ir::Location,
    sources: &[&TileMeta],
    result: &TileMeta,
    scalar: Option<u8>,
    mask: PeMask,
) -> Result<Vec<Instruction>, Diagnostic> {
    let err = |m: String| Diagnostic::error(loc.clone(), m);
    if let OpKind::Matmul { .. } = info.kind {
        return matrix_bundle(info, sources, result, mask).map_err(err);
    }
    if info.takes_scalar() != scalar.is_some() {
        return Err(err(format!(
            "{} {} a scalar operand",
            info.mlir_name(),
            if info.takes_scalar() {
                "needs"
            } else {
                "takes no"
            }
        )));
    }
    // BSTART's DataType and the B.DIM geometry come from the typed source (TSEL's true
    // source, not its predicate); an op without a tile source (TEXPANDS) is typed by its
    // destination.
    let src0 = match sources.get(info.typed_source()) {
        Some(s) => *s,
        None if info.sources.is_empty() => result,
        None => return Err(err(format!("{} has no source operand", info.mlir_name()))),
    };
    check_result_type(info.result, src0.dtype, result.dtype).map_err(err)?;
    // The relation of an op that reads B.DATR CMode (TCMP).
    let cmode = if info.kind.datr_fields().cmode {
        Some(match attrs.get(CMODE_ATTR) {
            Some(Attr::Str(name)) => CmpMode::from_mlir_name(name)
                .ok_or_else(|| err(format!("{CMODE_ATTR} = {name:?} is not a comparison")))?,
            _ => {
                return Err(err(format!(
                    "{} needs a {CMODE_ATTR} string",
                    info.mlir_name()
                )))
            }
        })
    } else {
        None
    };

    let mut insts = vec![info.bstart(src0.dtype)];
    // A TLSU op (TMOV) takes its geometry from its source and writes no B.DATR: any B.DATR
    // would retype the copy (docs/isa.md §13.4–§13.5), and the copy keeps the source's padding.
    let tlsu = matches!(info.carrier, Carrier::Tlsu(_));
    if tlsu && result.pad != src0.pad {
        return Err(err(format!(
            "{} copies its source's padding ({}); the result asks for {}",
            info.mlir_name(),
            src0.pad.name(),
            result.pad.name()
        )));
    }
    let datr = match tlsu {
        true => None,
        false => datr_for(info.kind, control, src0.dtype, result.dtype, result.pad).map_err(err)?,
    };
    if let Some(datr) = with_cmode(datr, cmode) {
        insts.push(Instruction::BDatr(datr));
    }
    // The B.DIM geometry is the full-shape operand: the destination of a copy expand, else
    // source0. TTRANS's B.DIM describes its destination, and without a closed schema an absent
    // LBn would take the source's value, not 1 or LB0: all three are written (docs/isa.md §19).
    let transpose = info.kind == OpKind::Transpose;
    let full = if info.result == ResultKind::Broadcast || transpose {
        result
    } else {
        src0
    };
    for (lb, value, needed) in [
        (0, full.valid_cols, true),
        (1, full.valid_rows, full.valid_rows != 1 || transpose),
        (2, full.cols, full.cols != full.valid_cols || transpose),
    ] {
        if !(1..=MAX_DIM).contains(&value) {
            return Err(err(format!("LB{lb} = {value} is outside 1..={MAX_DIM}")));
        }
        if needed && !tlsu {
            insts.push(Instruction::BDim(Dim {
                lb,
                reg: 0,
                imm: value,
            }));
        }
    }
    // One B.IOT per group of `info.bindings`; only the last carries the destination and L=1.
    let mut regs = sources.iter().map(|t| t.register);
    for (i, &count) in info.bindings.iter().enumerate() {
        let group: Vec<TileReg> = regs.by_ref().take(count).collect();
        let sources = match group[..] {
            [] => IotSources::None,
            [a] => IotSources::One(a),
            [a, b] => IotSources::Two(a, b),
            _ => return Err(err(format!("{} sources cannot be bound", group.len()))),
        };
        let last = i + 1 == info.bindings.len();
        insts.push(Instruction::BIot(Iot {
            sources,
            last,
            mask,
            dst: last.then(|| (result.register.hand(), result.size_code)),
        }));
    }
    if let Some(gpr) = scalar {
        insts.push(Instruction::BIor(Ior {
            dst: 0,
            src: [gpr, 0, 0],
        }));
    }
    insts.push(Instruction::BStop);
    Ok(insts)
}

/// A matrix op's bundle (docs/isa.md §18.1): the CUBE start with AType, a B.DATR only when BType
/// differs, the all-zero B.FPATR, LB0/LB1/LB2 = M/N/K where not the default 1, and the sources
/// in their bindings, the last carrying the destination.
fn matrix_bundle(
    info: &'static ptoc_isa::OpInfo,
    sources: &[&TileMeta],
    result: &TileMeta,
    mask: PeMask,
) -> Result<Vec<Instruction>, String> {
    let role = |r: ptoc_isa::ops::OperandRole| {
        info.position_of(r)
            .and_then(|i| sources.get(i).copied())
            .ok_or_else(|| format!("{} lacks its {}", info.mlir_name(), r.name()))
    };
    let a = role(ptoc_isa::ops::OperandRole::Left)?;
    let b = role(ptoc_isa::ops::OperandRole::Right)?;
    let mut insts = vec![info.bstart(a.dtype)];
    if b.dtype != a.dtype {
        insts.push(Instruction::BDatr(Datr::with(
            Some(b.dtype),
            PadValue::Zero,
        )));
    }
    insts.push(Instruction::BFpatr(ptoc_isa::encoding::Fpatr::default()));
    for (lb, value) in [(0, a.valid_rows), (1, b.valid_cols), (2, a.valid_cols)] {
        if value != 1 {
            insts.push(Instruction::BDim(Dim {
                lb,
                reg: 0,
                imm: value,
            }));
        }
    }
    // `BundleMatrixAccumulatorDestinationIndicesDistinct` (docs/isa.md §18.4).
    if let Ok(c) = role(ptoc_isa::ops::OperandRole::Accumulator) {
        if ptoc_isa::cube::accumulator_clashes(c.register, result.register.hand()) {
            return Err(format!(
                "the accumulator is named {} and the result goes to hand {}: the ISA forbids a \
                 C code equal to the destination's DstTile field",
                c.register,
                result.register.hand().letter()
            ));
        }
    }
    let mut regs = sources.iter().map(|t| t.register);
    for (i, &count) in info.bindings.iter().enumerate() {
        let group: Vec<TileReg> = regs.by_ref().take(count).collect();
        let last = i + 1 == info.bindings.len();
        insts.push(Instruction::BIot(Iot {
            sources: match group[..] {
                [x] => IotSources::One(x),
                [x, y] => IotSources::Two(x, y),
                _ => return Err(format!("{} sources cannot be bound", group.len())),
            },
            last,
            mask,
            dst: last.then(|| (result.register.hand(), result.size_code)),
        }));
    }
    insts.push(Instruction::BStop);
    Ok(insts)
}

/// TCMP's relation goes into B.DATR CMode; a B.DATR for CMode alone leaves the pad Null (an
/// omitted B.DATR would mean EQ, docs/isa.md §1.9). `EQ` with a Null pad needs no B.DATR.
fn with_cmode(datr: Option<Datr>, cmode: Option<CmpMode>) -> Option<Datr> {
    match (datr, cmode) {
        (datr, None | Some(CmpMode::Eq)) => datr,
        (Some(d), Some(m)) => Some(Datr {
            cmode: m.code(),
            ..d
        }),
        (None, Some(m)) => Some(Datr {
            cmode: m.code(),
            ..Datr::with(Some(DataType::FP64), PadValue::Null)
        }),
    }
}

/// The hardware decides the result type of every op but EXPDIF and TCVT (`ResultKind::encoded`); the IR
/// must agree with it.
fn check_result_type(kind: ResultKind, src: DataType, dst: DataType) -> Result<(), String> {
    let expected = kind.encoded(src, dst);
    if dst == expected {
        Ok(())
    } else {
        let spelling = expected.mlir_name().unwrap_or(expected.name());
        Err(format!(
            "result type {dst} cannot be produced: this op's destination is {expected} \
             (type the result {spelling})"
        ))
    }
}

/// The B.DATR a bundle needs, if any (docs/isa.md §1.3, §1.4, §1.10, §9 decision 4): the fields
/// the op reads (`OpKind::datr_fields`) and the pad; TCMP's CMode is added by [`with_cmode`].
fn datr_for(
    kind: OpKind,
    control: NumericControl,
    src: DataType,
    dst: DataType,
    pad: PadValue,
) -> Result<Option<Datr>, String> {
    let reads = kind.datr_fields();
    if (control.rmode.is_some() && !reads.rmode) || (control.sat && !reads.sat) {
        return Err(
            "this op has no rounding mode or saturation to set (B.DATR RMode and Sat \
                    must be 0)"
                .into(),
        );
    }
    // TTRANS ignores the pad field, which must be 00, and leaves its padding Null: it takes
    // no B.DATR at all (docs/isa.md §19).
    if reads.pad_must_be_zero {
        return match pad {
            PadValue::Null => Ok(None),
            _ => Err(format!(
                "pad={} cannot be produced: this op leaves its padding undefined (pad=null)",
                pad.mlir_name()
            )),
        };
    }
    if reads.rmode {
        // TCVT: the destination type is always written concretely (code 0 is FP64, never
        // "inherit"), with the controls.
        return Ok(
            (dst != src || pad != PadValue::Null || !control.is_default()).then(|| Datr {
                rmode: control.rmode_code(),
                sat: control.sat,
                ..Datr::with(Some(dst), pad)
            }),
        );
    }
    if reads.data_type {
        return Ok(if dst != src {
            Some(Datr::with(Some(dst), pad))
        } else if pad != PadValue::Null {
            Some(Datr::with(None, pad))
        } else {
            None
        });
    }
    if pad == PadValue::Null {
        return Ok(None);
    }
    if !PROFILE.datr_datatype_ignored_when_not_applicable {
        return Err(format!(
            "pad={} cannot be encoded for this op under the target profile",
            pad.mlir_name()
        ));
    }
    // DataType field 0 (the FP64 code), which the profile treats as "not applicable".
    Ok(Some(Datr::with(Some(DataType::FP64), pad)))
}
