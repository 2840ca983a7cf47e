//! Kernel metadata (the loader's view of a kernel) and its versioned `.pto.meta` encoding.
//!
//! The section holds one UTF-8 JSON object, compact, keys in lexicographic order (so the bytes are
//! a function of the metadata alone):
//!
//! ```json
//! {"format":"ptoc-kernel-metadata","version":1,"kernels":[
//!   {"name":"k","pe_mask":"1111","spec_version":"pto-isa-0.58.3-mode-function-v1",
//!    "args":[TILE…],"results":[TILE…]}]}
//! ```
//!
//! where each `TILE` is `{"name":"x","register":"T#1","dtype":"FP32","rows":8,"cols":16,
//! "valid_rows":8,"valid_cols":12,"size_code":3,"pad":"Null"}` (`rows` is the physical row count
//! the SizeCode derives). Kernels appear in the order of their code in `.text`. The full
//! description, with the rules a reader checks, is in `codegen/METADATA.md`.

use ptoc_isa::profile::{NamingModel, PROFILE};
use ptoc_isa::scalar::{parse_source, GPR_NAMES};
use ptoc_isa::{DataType, Layout, PadValue, PeMask, SizeCode, Storage, TileReg, SPEC_VERSION};
use serde_json::{json, Map, Value};

/// Name of the ELF section holding the metadata.
pub const METADATA_SECTION: &str = ".pto.meta";
/// The `format` string of the metadata document.
pub(crate) const METADATA_FORMAT: &str = "ptoc-kernel-metadata";
/// The metadata layout version this crate writes and reads.
pub const METADATA_VERSION: u64 = 4;

/// The `dtype` spelling of a predicate tile (packed bits, docs/isa.md §3.6) in the metadata and
/// the `.arg`/`.result` directives; no DataType has this name.
pub(crate) const PREDICATE_NAME: &str = "PRED";

/// One argument or result tile of a kernel: where the loader puts it (or reads it) and its shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileMeta {
    /// The source name (`x` for `%x`), `argN` for unnamed arguments, `rN` for results.
    pub name: String,
    /// The register the tile is in when the kernel starts (an argument) or ends (a result).
    pub register: TileReg,
    /// The element type; [`ptoc_isa::dtype::PREDICATE_DTYPE`] for a predicate.
    pub dtype: DataType,
    /// Numeric elements or packed predicate bits.
    pub storage: Storage,
    /// Physical rows (derived from the SizeCode).
    pub rows: u32,
    /// Physical columns.
    pub cols: u32,
    /// Rows holding data.
    pub valid_rows: u32,
    /// Columns holding data.
    pub valid_cols: u32,
    /// The TSize the tile is allocated with (docs/isa.md §3.3).
    pub size_code: SizeCode,
    /// What the tile holds outside its valid region (docs/isa.md §4).
    pub pad: PadValue,
    /// NORM, or a matrix operand's CUBE layout (docs/isa.md §18.2); kernel arguments and results
    /// are always NORM.
    pub layout: Layout,
}

impl TileMeta {
    /// The `dtype` spelling: a DataType name, or `PRED` for a predicate.
    pub fn type_name(&self) -> &'static str {
        type_name(self.storage, self.dtype)
    }

    /// Check that the shape is one the SizeCode can hold (`DerivedTileRows`, valid ≤ physical).
    pub fn check(&self) -> Result<(), String> {
        if !is_tile_name(&self.name) {
            return Err(format!(
                "tile name {:?} is not an identifier: names are 1 to {MAX_TILE_NAME} characters of \
                 A-Z a-z 0-9 _ $ . - (the characters of MLIR SSA names)",
                self.name
            ));
        }
        if self.layout.is_cube() {
            let storage = self
                .layout
                .storage(self.dtype, self.valid_rows, self.valid_cols);
            let need = self
                .layout
                .required_bytes(self.dtype, self.valid_rows, self.valid_cols);
            return match (storage, need) {
                (Some(s), Some(n))
                    if s == (self.rows, self.cols) && n <= self.size_code.bytes() =>
                {
                    Ok(())
                }
                _ => Err(format!(
                    "{}: a {} {} tile of valid {}x{} is not stored as {}x{} in SizeCode {}",
                    self.name,
                    self.layout,
                    self.dtype,
                    self.valid_rows,
                    self.valid_cols,
                    self.rows,
                    self.cols,
                    self.size_code
                )),
            };
        }
        if self.storage == Storage::Predicate {
            // A predicate's rows are its source's; its SizeCode only has to hold the bits.
            let need = ptoc_isa::geometry::predicate_bytes(self.rows, self.cols);
            if need > self.size_code.bytes() as u64 || self.rows == 0 || self.cols == 0 {
                return Err(format!(
                    "{}: a {}x{} predicate needs {need} bytes; SizeCode {} holds {}",
                    self.name,
                    self.rows,
                    self.cols,
                    self.size_code,
                    self.size_code.bytes()
                ));
            }
        }
        let derived = match self.storage {
            Storage::Predicate => Some(self.rows),
            Storage::Numeric => self.size_code.derived_rows(self.cols, self.dtype.bits()),
        }
        .ok_or_else(|| {
            format!(
                "{}: SizeCode {} derives no rows for {} columns of {}",
                self.name, self.size_code, self.cols, self.dtype
            )
        })?;
        if derived != self.rows {
            return Err(format!(
                "{}: SizeCode {} with {} columns of {} gives {derived} rows, not {}",
                self.name, self.size_code, self.cols, self.dtype, self.rows
            ));
        }
        if self.valid_rows == 0
            || self.valid_cols == 0
            || self.valid_rows > self.rows
            || self.valid_cols > self.cols
        {
            return Err(format!(
                "{}: valid shape {}x{} must be nonzero and fit the physical {}x{}",
                self.name, self.valid_rows, self.valid_cols, self.rows, self.cols
            ));
        }
        Ok(())
    }
}

/// The longest tile name: `NAME.npy` stays within a file name's 255 bytes.
pub(crate) const MAX_TILE_NAME: usize = 200;

/// A tile name is an identifier (the characters of an MLIR SSA name), so it can name a file
/// (`--out-dir DIR` writes `DIR/NAME.npy`) and be printed without escapes: no `/`, no control
/// characters, never empty.
pub fn is_tile_name(name: &str) -> bool {
    (1..=MAX_TILE_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.' | b'-'))
}

/// A GM argument (a `memref`): the loader maps its bytes as one buffer and puts the buffer's base
/// address in `gpr` (docs/isa.md §9 decision 19).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemRefMeta {
    /// The argument's source name.
    pub name: String,
    /// The argument's position among all of the kernel's arguments.
    pub position: usize,
    /// The absolute GPR (1..23) holding the base address.
    pub gpr: u8,
    /// The element type.
    pub dtype: DataType,
    /// Row-major shape; rows are `cols × element bytes` apart.
    pub rows: u32,
    /// Columns (elements per row).
    pub cols: u32,
    /// The kernel stores to it.
    pub stored: bool,
    /// ptoc's working memory, not an argument: the loader maps it zero-filled after the
    /// arguments, and nobody reads it back (the intermediate tensors between the stages of a
    /// linalg program, README "Kernels with workspaces").
    pub workspace: bool,
}

impl MemRefMeta {
    /// An output: an argument the kernel stores to, which `ptoc run --out-dir` writes.
    pub fn is_output(&self) -> bool {
        self.stored && !self.workspace
    }
}

/// How a scalar argument is held in its GPR: the IR's scalar type, spelled in metadata and
/// assembly by [`ScalarType::spec_name`].
pub use ptoc_ir::ScalarType;

/// A scalar argument: the loader puts its value in `gpr`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalarMeta {
    /// The argument's source name.
    pub name: String,
    /// The argument's position among all of the kernel's arguments.
    pub position: usize,
    /// The absolute GPR (1..23) holding the value.
    pub gpr: u8,
    /// The value's type.
    pub ty: ScalarType,
}

/// Everything the loader and runtime need to know about a kernel besides its words.
///
/// Tile arguments (`args`) take the argument positions that `memrefs` and `scalars` leave, in
/// order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelMeta {
    /// The PE mask every bundle runs under.
    pub pe_mask: PeMask,
    /// Always [`SPEC_VERSION`] for kernels this crate accepts.
    pub spec_version: String,
    /// How B.IOT source codes name tiles (docs/isa.md §9 decisions 1–2).
    pub profile: NamingModel,
    /// The tile arguments, in argument order.
    pub args: Vec<TileMeta>,
    /// The memref arguments.
    pub memrefs: Vec<MemRefMeta>,
    /// The scalar arguments.
    pub scalars: Vec<ScalarMeta>,
    /// The tile results, in `func.return` order (`r0, r1, …`).
    pub results: Vec<TileMeta>,
}

impl Default for KernelMeta {
    fn default() -> Self {
        KernelMeta {
            pe_mask: PeMask::ALL_PES,
            spec_version: SPEC_VERSION.to_string(),
            profile: PROFILE.naming,
            args: Vec::new(),
            memrefs: Vec::new(),
            scalars: Vec::new(),
            results: Vec::new(),
        }
    }
}

/// The canonical name of an absolute GPR (`a0`).
pub fn gpr_name(gpr: u8) -> &'static str {
    GPR_NAMES.get(gpr as usize).copied().unwrap_or("?")
}

/// An absolute, writable GPR (1..23) by name.
pub(crate) fn parse_gpr(name: &str) -> Option<u8> {
    parse_source(name).filter(|&g| (1..24).contains(&g))
}

impl KernelMeta {
    /// Check what the argument lists must agree on: names usable as file names and unique,
    /// positions a permutation of `0..n`, GPRs distinct, workspaces after every argument.
    pub fn check_arguments(&self) -> Result<(), String> {
        let arguments = self.argument_order().len();
        if let Some(w) = self
            .memrefs
            .iter()
            .find(|m| m.workspace && m.position < arguments)
        {
            return Err(format!(
                "workspace {} at position {} comes before an argument; workspaces follow all {arguments} arguments",
                w.name, w.position
            ));
        }
        let n = self.args.len() + self.memrefs.len() + self.scalars.len();
        let mut positions = vec![false; n];
        let mut gprs = std::collections::HashSet::new();
        let named = self
            .memrefs
            .iter()
            .map(|m| (&m.name, m.position, m.gpr))
            .chain(self.scalars.iter().map(|s| (&s.name, s.position, s.gpr)));
        for (name, position, gpr) in named {
            if !is_tile_name(name) {
                return Err(format!("argument name {name:?} is not an identifier"));
            }
            match positions.get_mut(position) {
                Some(taken) if !*taken => *taken = true,
                _ => return Err(format!("{name}: position {position} is taken or past {n}")),
            }
            if !(1..24).contains(&gpr) || !gprs.insert(gpr) {
                return Err(format!("{name}: GPR {gpr} is not a free absolute GPR"));
            }
        }
        let mut names = std::collections::HashSet::new();
        let all = self.args.iter().map(|t| &t.name);
        for name in all
            .chain(self.memrefs.iter().map(|m| &m.name))
            .chain(self.scalars.iter().map(|s| &s.name))
        {
            if !names.insert(name) {
                return Err(format!("argument name {name:?} is used twice"));
            }
        }
        Ok(())
    }

    /// The kind of the argument at each position, in order; workspaces are not arguments.
    pub fn argument_order(&self) -> Vec<ArgRef> {
        let n = self.args.len() + self.memrefs.len() + self.scalars.len();
        let mut order = vec![None; n];
        for (i, m) in self.memrefs.iter().enumerate() {
            if let Some(slot) = order.get_mut(m.position) {
                *slot = Some(ArgRef::MemRef(i));
            }
        }
        for (i, s) in self.scalars.iter().enumerate() {
            if let Some(slot) = order.get_mut(s.position) {
                *slot = Some(ArgRef::Scalar(i));
            }
        }
        let mut tiles = 0..self.args.len();
        order
            .into_iter()
            .map(|slot| slot.unwrap_or_else(|| ArgRef::Tile(tiles.next().unwrap_or(0))))
            .filter(|arg| !matches!(arg, ArgRef::MemRef(i) if self.memrefs[*i].workspace))
            .collect()
    }
}

/// One argument of a kernel: an index into `args`, `memrefs` or `scalars`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgRef {
    /// `args[i]`.
    Tile(usize),
    /// `memrefs[i]`.
    MemRef(usize),
    /// `scalars[i]`.
    Scalar(usize),
}

/// Why a metadata section could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MetaError {
    /// The section is not JSON (the parser's message).
    #[error("metadata is not valid JSON: {0}")]
    Json(String),
    /// The `format` field is not ptoc's.
    #[error("metadata format is {0:?}, expected {METADATA_FORMAT:?}")]
    Format(String),
    /// The `version` is not the one this crate reads.
    #[error("metadata version {0} is not supported (this ptoc reads version {METADATA_VERSION})")]
    Version(String),
    /// A field is missing or has a value this crate does not accept.
    #[error("metadata {path}: {message}")]
    Field {
        /// Where in the document (`document.kernels[0].args[1].rows`).
        path: String,
        /// What is wrong there.
        message: String,
    },
}

fn tile_json(t: &TileMeta) -> Value {
    json!({
        "name": t.name,
        "register": t.register.to_string(),
        "dtype": t.type_name(),
        "rows": t.rows,
        "cols": t.cols,
        "valid_rows": t.valid_rows,
        "valid_cols": t.valid_cols,
        "size_code": t.size_code.code(),
        "pad": t.pad.name(),
    })
}

/// Encode the metadata of `kernels` (name, meta) as the section's bytes.
pub(crate) fn encode<'a>(kernels: impl IntoIterator<Item = (&'a str, &'a KernelMeta)>) -> Vec<u8> {
    let kernels: Vec<Value> = kernels
        .into_iter()
        .map(|(name, m)| {
            json!({
                "name": name,
                "pe_mask": m.pe_mask.to_string(),
                "spec_version": m.spec_version,
                "target_profile": m.profile.name(),
                "args": m.args.iter().map(tile_json).collect::<Vec<_>>(),
                "memrefs": m.memrefs.iter().map(|r| json!({
                    "name": r.name,
                    "position": r.position,
                    "gpr": gpr_name(r.gpr),
                    "dtype": r.dtype.name(),
                    "rows": r.rows,
                    "cols": r.cols,
                    "stored": r.stored,
                    "workspace": r.workspace,
                })).collect::<Vec<_>>(),
                "scalars": m.scalars.iter().map(|s| json!({
                    "name": s.name,
                    "position": s.position,
                    "gpr": gpr_name(s.gpr),
                    "type": s.ty.spec_name(),
                })).collect::<Vec<_>>(),
                "results": m.results.iter().map(tile_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doc = json!({"format": METADATA_FORMAT, "version": METADATA_VERSION, "kernels": kernels});
    doc.to_string().into_bytes()
}

/// A JSON object being read, with the path used in error messages.
struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Obj<'a> {
    fn new(value: &'a Value, path: String) -> Result<Obj<'a>, MetaError> {
        match value.as_object() {
            Some(map) => Ok(Obj { map, path }),
            None => Err(field_error(path, "not an object")),
        }
    }
    fn get(&self, key: &str) -> Result<&'a Value, MetaError> {
        self.map
            .get(key)
            .ok_or_else(|| field_error(format!("{}.{key}", self.path), "missing"))
    }
    fn str(&self, key: &str) -> Result<&'a str, MetaError> {
        self.get(key)?
            .as_str()
            .ok_or_else(|| field_error(format!("{}.{key}", self.path), "not a string"))
    }
    fn u32(&self, key: &str) -> Result<u32, MetaError> {
        self.get(key)?
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| field_error(format!("{}.{key}", self.path), "not a 32-bit count"))
    }
    fn array(&self, key: &str) -> Result<&'a Vec<Value>, MetaError> {
        self.get(key)?
            .as_array()
            .ok_or_else(|| field_error(format!("{}.{key}", self.path), "not an array"))
    }
    /// Read each object of array `key` with `read`.
    fn each<T>(
        &self,
        key: &str,
        read: impl Fn(Obj<'a>) -> Result<T, MetaError>,
    ) -> Result<Vec<T>, MetaError> {
        self.array(key)?
            .iter()
            .enumerate()
            .map(|(j, v)| read(Obj::new(v, format!("{}.{key}[{j}]", self.path))?))
            .collect()
    }
    /// Parse a string field with `parse`, naming `what` it should be on failure.
    fn parsed<T>(
        &self,
        key: &str,
        what: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<T, MetaError> {
        let text = self.str(key)?;
        parse(text).ok_or_else(|| {
            field_error(
                format!("{}.{key}", self.path),
                format!("{text:?} is not {what}"),
            )
        })
    }
}

fn field_error(path: String, message: impl Into<String>) -> MetaError {
    MetaError::Field {
        path,
        message: message.into(),
    }
}

/// Parse `T#3`-style register names.
pub(crate) fn parse_register(text: &str) -> Option<TileReg> {
    let (hand, number) = text.split_once('#')?;
    let mut chars = hand.chars();
    let letter = chars.next()?;
    if chars.next().is_some() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    TileReg::of(ptoc_isa::Hand::from_letter(letter)?, number.parse().ok()?)
}

/// The `dtype` spelling of a tile: its DataType's name, or `PRED` for a predicate.
pub fn type_name(storage: Storage, dtype: DataType) -> &'static str {
    match storage {
        Storage::Numeric => dtype.name(),
        Storage::Predicate => PREDICATE_NAME,
    }
}

/// `PRED` or a DataType name: the tile's storage and DataType.
pub fn storage_and_type(name: &str) -> Option<(Storage, DataType)> {
    if name == PREDICATE_NAME {
        return Some((Storage::Predicate, ptoc_isa::dtype::PREDICATE_DTYPE));
    }
    DataType::from_name(name).map(|t| (Storage::Numeric, t))
}

fn tile_from(value: &Value, path: String) -> Result<TileMeta, MetaError> {
    let o = Obj::new(value, path)?;
    let storage_and_type = o.parsed("dtype", "a DataType name or PRED", storage_and_type)?;
    let tile = TileMeta {
        name: o.str("name")?.to_string(),
        register: o.parsed("register", "a register like T#1", parse_register)?,
        dtype: storage_and_type.1,
        storage: storage_and_type.0,
        rows: o.u32("rows")?,
        cols: o.u32("cols")?,
        valid_rows: o.u32("valid_rows")?,
        valid_cols: o.u32("valid_cols")?,
        size_code: SizeCode::new(o.u32("size_code")?)
            .ok_or_else(|| field_error(format!("{}.size_code", o.path), "not in 1..=10"))?,
        pad: o.parsed(
            "pad",
            "a PadValue (Zero, Max, Min, Null)",
            PadValue::from_name,
        )?,
        layout: Layout::Norm,
    };
    tile.check().map_err(|m| field_error(o.path.clone(), m))?;
    Ok(tile)
}

/// Decode a metadata section into (kernel name, metadata) pairs, in section order.
pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<(String, KernelMeta)>, MetaError> {
    let doc: Value = serde_json::from_slice(bytes).map_err(|e| MetaError::Json(e.to_string()))?;
    let top = Obj::new(&doc, "document".into())?;
    let format = top.get("format")?;
    if format.as_str() != Some(METADATA_FORMAT) {
        return Err(MetaError::Format(format.to_string()));
    }
    let version = top.get("version")?;
    if version.as_u64() != Some(METADATA_VERSION) {
        return Err(MetaError::Version(version.to_string()));
    }
    let mut out = Vec::new();
    for (i, k) in top.array("kernels")?.iter().enumerate() {
        let o = Obj::new(k, format!("kernels[{i}]"))?;
        let spec_version = o.str("spec_version")?;
        if spec_version != SPEC_VERSION {
            return Err(field_error(
                format!("{}.spec_version", o.path),
                format!("{spec_version:?} is not the supported {SPEC_VERSION:?}"),
            ));
        }
        let tiles = |key: &str| -> Result<Vec<TileMeta>, MetaError> {
            let tiles: Vec<TileMeta> = o
                .array(key)?
                .iter()
                .enumerate()
                .map(|(j, t)| tile_from(t, format!("{}.{key}[{j}]", o.path)))
                .collect::<Result<_, _>>()?;
            // Two results of one name would write the same DIR/NAME.npy.
            let mut seen = std::collections::HashSet::new();
            for (j, t) in tiles.iter().enumerate() {
                if !seen.insert(t.name.as_str()) {
                    let path = format!("{}.{key}[{j}].name", o.path);
                    return Err(field_error(path, format!("{:?} is used twice", t.name)));
                }
            }
            Ok(tiles)
        };
        let memrefs =
            o.each("memrefs", |r| {
                Ok(MemRefMeta {
                    name: r.str("name")?.to_string(),
                    position: r.u32("position")? as usize,
                    gpr: r.parsed("gpr", "a writable GPR name (a0, s1, …)", parse_gpr)?,
                    dtype: r.parsed("dtype", "an arithmetic DataType name", |t| {
                        DataType::from_name(t).filter(|t| ptoc_isa::dtype::ARITHMETIC.contains(t))
                    })?,
                    rows: r.u32("rows")?,
                    cols: r.u32("cols")?,
                    stored: r.get("stored")?.as_bool().ok_or_else(|| {
                        field_error(format!("{}.stored", r.path), "not a boolean")
                    })?,
                    workspace: r.get("workspace")?.as_bool().ok_or_else(|| {
                        field_error(format!("{}.workspace", r.path), "not a boolean")
                    })?,
                })
            })?;
        let scalars = o.each("scalars", |r| {
            Ok(ScalarMeta {
                name: r.str("name")?.to_string(),
                position: r.u32("position")? as usize,
                gpr: r.parsed("gpr", "a writable GPR name (a0, s1, …)", parse_gpr)?,
                ty: r.parsed(
                    "type",
                    "index or an arithmetic DataType name",
                    ScalarType::from_spec_name,
                )?,
            })
        })?;
        let meta = KernelMeta {
            pe_mask: o.parsed("pe_mask", "an encodable PE mask", PeMask::parse)?,
            spec_version: spec_version.to_string(),
            profile: o.parsed(
                "target_profile",
                "a target profile (queue, absolute)",
                NamingModel::from_name,
            )?,
            args: tiles("args")?,
            memrefs,
            scalars,
            results: tiles("results")?,
        };
        meta.check_arguments()
            .map_err(|m| field_error(o.path.clone(), m))?;
        let name = o.str("name")?;
        if name.is_empty() {
            return Err(field_error(format!("{}.name", o.path), "empty"));
        }
        out.push((name.to_string(), meta));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample_tile(name: &str, reg: u32) -> TileMeta {
        TileMeta {
            name: name.into(),
            register: TileReg::new(reg).unwrap(),
            dtype: DataType::FP32,
            storage: Storage::Numeric,
            rows: 8,
            cols: 16,
            valid_rows: 8,
            valid_cols: 12,
            size_code: SizeCode::new(3).unwrap(),
            pad: PadValue::Max,
            layout: Layout::Norm,
        }
    }

    #[test]
    fn round_trips_and_is_deterministic() {
        let meta = KernelMeta {
            args: vec![sample_tile("x", 0), sample_tile("y.z$1-", 17)],
            results: vec![sample_tile("r0", 2)],
            ..KernelMeta::default()
        };
        let bytes = encode([("k", &meta)]);
        assert_eq!(decode(&bytes), Ok(vec![("k".to_string(), meta.clone())]));
        assert_eq!(bytes, encode([("k", &meta)]));
        // Kernel names are MLIR symbol names: any string, escaped in JSON.
        let odd = encode([("k\"\n", &meta)]);
        assert_eq!(decode(&odd), Ok(vec![("k\"\n".to_string(), meta.clone())]));
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.starts_with(r#"{"format":"ptoc-kernel-metadata","kernels":[{"args":[{"cols":16,"dtype":"FP32","name":"x","pad":"Max","register":"T#1","rows":8,"#), "{text}");
        // A predicate: its rows are its own (not derived), its SizeCode holds the bits.
        let mut p = sample_tile("p", 3);
        p.storage = Storage::Predicate;
        p.dtype = ptoc_isa::dtype::PREDICATE_DTYPE;
        p.rows = 64;
        let pm = KernelMeta {
            args: vec![p],
            ..KernelMeta::default()
        };
        let bytes = encode([("k", &pm)]);
        assert!(String::from_utf8_lossy(&bytes).contains(r#""dtype":"PRED""#));
        assert_eq!(decode(&bytes), Ok(vec![("k".to_string(), pm)]));
    }

    #[test]
    fn gm_and_scalar_arguments_round_trip() {
        let meta = KernelMeta {
            profile: NamingModel::Queue,
            args: vec![sample_tile("t", 0)],
            memrefs: vec![MemRefMeta {
                name: "x".into(),
                position: 0,
                gpr: 2,
                dtype: DataType::FP16,
                rows: 512,
                cols: 1024,
                stored: true,
                workspace: false,
            }],
            scalars: vec![ScalarMeta {
                name: "n".into(),
                position: 2,
                gpr: 3,
                ty: ScalarType::Index,
            }],
            ..KernelMeta::default()
        };
        let bytes = encode([("k", &meta)]);
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.contains(r#""memrefs":[{"cols":1024,"dtype":"FP16","gpr":"a0","name":"x","position":0,"rows":512,"stored":true,"workspace":false}]"#), "{text}");
        assert!(text.contains(r#""target_profile":"queue""#));
        assert_eq!(decode(&bytes), Ok(vec![("k".to_string(), meta.clone())]));
        assert_eq!(
            meta.argument_order(),
            vec![ArgRef::MemRef(0), ArgRef::Tile(0), ArgRef::Scalar(0)]
        );
        let bad = [
            (
                text.replace(r#""position":2"#, r#""position":0"#),
                "position 0 is taken",
            ),
            (
                text.replace(r#""gpr":"a1""#, r#""gpr":"a0""#),
                "not a free absolute GPR",
            ),
            (text.replace(r#""gpr":"a1""#, r#""gpr":"zero""#), "GPR"),
            (text.replace(r#""name":"n""#, r#""name":"x""#), "used twice"),
            (
                text.replace(r#""type":"index""#, r#""type":"E8M0""#),
                "index or an arithmetic DataType",
            ),
            (text.replace("queue", "fifo"), "target profile"),
        ];
        for (doc, want) in bad {
            let err = decode(doc.as_bytes()).unwrap_err().to_string();
            assert!(err.contains(want), "{err} lacks {want}");
        }
    }

    #[test]
    fn workspaces_follow_the_arguments_and_are_not_arguments() {
        let memref = |name: &str, position, gpr, workspace| MemRefMeta {
            name: name.into(),
            position,
            gpr,
            dtype: DataType::FP32,
            rows: 32,
            cols: 128,
            stored: true,
            workspace,
        };
        let meta = KernelMeta {
            profile: NamingModel::Queue,
            memrefs: vec![memref("x", 0, 2, false), memref("ws0", 1, 3, true)],
            ..KernelMeta::default()
        };
        let bytes = encode([("k", &meta)]);
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(
            text.contains(r#""name":"ws0","position":1,"rows":32,"stored":true,"workspace":true"#),
            "{text}"
        );
        assert_eq!(decode(&bytes), Ok(vec![("k".to_string(), meta.clone())]));
        // The loader maps a workspace; a caller passes only x, and gets only x back.
        assert_eq!(meta.argument_order(), vec![ArgRef::MemRef(0)]);
        assert!(meta.memrefs[0].is_output() && !meta.memrefs[1].is_output());
        let swapped = text
            .replace(r#""position":0"#, r#""position":9"#)
            .replace(r#""position":1"#, r#""position":0"#)
            .replace(r#""position":9"#, r#""position":1"#);
        let err = decode(swapped.as_bytes()).unwrap_err().to_string();
        assert!(
            err.contains("workspace ws0 at position 0 comes before an argument"),
            "{err}"
        );
        let err = decode(text.replace(r#","workspace":false"#, "").as_bytes()).unwrap_err();
        assert!(err.to_string().contains("workspace"), "{err}");
    }

    #[test]
    fn rejects_bad_documents() {
        let meta = KernelMeta {
            args: vec![sample_tile("x", 0)],
            ..KernelMeta::default()
        };
        let good = String::from_utf8(encode([("k", &meta)])).unwrap();
        let cases = [
            (good.replace("\"version\":4", "\"version\":3"), "version 3"),
            // A predicate's SizeCode must hold its packed bits: 8x16 bits are 16 bytes, so
            // SizeCode 3 holds them, but 2048 rows (4 KiB of bits) do not fit.
            (
                good.replace("\"dtype\":\"FP32\"", "\"dtype\":\"PRED\"")
                    .replace("\"rows\":8", "\"rows\":2048"),
                "needs 4096 bytes",
            ),
            (
                good.replace("\"dtype\":\"FP32\"", "\"dtype\":\"BOOL\""),
                "DataType name or PRED",
            ),
            (good.replace("ptoc-kernel-metadata", "other"), "format"),
            (good.replace("\"rows\":8", "\"rows\":9"), "gives 8 rows"),
            (good.replace("T#1", "T#17"), "register"),
            (
                good.replace("\"size_code\":3", "\"size_code\":11"),
                "1..=10",
            ),
            (good.replace("1111", "0011"), "PE mask"),
            (good.replace("0.58.3", "0.59.0"), "spec_version"),
            (good.replace("\"pad\":\"Max\",", ""), "pad: missing"),
            (good[..good.len() - 3].to_string(), "JSON"),
            // Names become `--out-dir` file names: nothing that could leave the directory.
            (
                good.replace("\"x\"", "\"../../escaped\""),
                "not an identifier",
            ),
            (good.replace("\"x\"", "\"/abs/path\""), "not an identifier"),
            (good.replace("\"x\"", "\"\""), "not an identifier"),
            (
                good.replace("\"x\"", "\"a\\u001b[2J\""),
                "not an identifier",
            ),
            (
                good.replace("\"x\"", &format!("\"{}\"", "n".repeat(201))),
                "1 to 200",
            ),
        ];
        for (text, expect) in cases {
            let err = decode(text.as_bytes()).unwrap_err().to_string();
            assert!(err.contains(expect), "{err} (wanted {expect})");
        }
    }

    #[test]
    fn tile_names_are_unique_per_list() {
        let meta = KernelMeta {
            args: vec![sample_tile("x", 0), sample_tile("y", 1)],
            results: vec![sample_tile("x", 2)],
            ..KernelMeta::default()
        };
        let good = String::from_utf8(encode([("k", &meta)])).unwrap();
        assert!(
            decode(good.as_bytes()).is_ok(),
            "an argument and a result may share a name"
        );
        let twice = good.replace("\"y\"", "\"x\"");
        let err = decode(twice.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("args[1].name: \"x\" is used twice"), "{err}");
    }

    #[test]
    fn register_names_parse_strictly() {
        assert_eq!(parse_register("U#2"), TileReg::new(17));
        for bad in ["T1", "T#0", "T#17", "X#1", "TT#1", "T#+1", "T#"] {
            assert_eq!(parse_register(bad), None, "{bad}");
        }
    }
}
