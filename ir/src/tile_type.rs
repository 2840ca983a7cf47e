//! `!pto.tile<RxCxT[, valid=VRxVC][, pad=zero|max|min|null][, layout=L]>`: the tile type and its
//! syntax.
//!
//! R×C is the physical shape (C a power of two; the allocator derives the physical rows from the
//! SizeCode, ≥ R). `?` in any dimension asks broadcast-shape inference to fill it in. `T = i1` is
//! a predicate tile (TCMP's result, TSEL's mask): one packed bit per element, with the physical
//! rows of the tile it was compared from (docs/isa.md §3.6).
//!
//! `layout=cube_m16|cube_m32|cube_n8` makes a matrix operand (docs/isa.md §18.2). Its R×C is the
//! valid (logical) shape and must be known; the physical shape is the layout's storage for it,
//! whole 128-byte cells, so `valid=` is not written.

use ptoc_isa::dtype::PREDICATE_DTYPE;
use ptoc_isa::{DataType, Geometry, Layout, PadValue, SizeCode, Storage};
use std::fmt;

/// One dimension: known, or `?` (to be inferred).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    /// A fixed size.
    Known(u32),
    /// `?`: left for broadcast-shape inference.
    Unknown,
}

impl Dim {
    /// The size, when known.
    pub fn known(self) -> Option<u32> {
        match self {
            Dim::Known(n) => Some(n),
            Dim::Unknown => None,
        }
    }
}

impl From<u32> for Dim {
    fn from(n: u32) -> Dim {
        Dim::Known(n)
    }
}

impl Dim {
    /// Equal, or not decidable yet because one side is `?`.
    pub fn agrees(self, other: Dim) -> bool {
        match (self, other) {
            (Dim::Known(x), Dim::Known(y)) => x == y,
            _ => true,
        }
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Known(n) => write!(f, "{n}"),
            Dim::Unknown => f.write_str("?"),
        }
    }
}

/// A tile type: physical shape, valid shape, element type and the pad its producer writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileType {
    /// Physical rows as written (the allocator may give more, from the SizeCode).
    pub rows: Dim,
    /// Physical columns (a power of two).
    pub cols: Dim,
    /// The element type.
    pub dtype: DataType,
    /// Rows holding data (≤ `rows`); the rest is pad.
    pub valid_rows: Dim,
    /// Columns holding data (≤ `cols`); the rest is pad.
    pub valid_cols: Dim,
    /// What the producer writes outside the valid region (docs/isa.md §4).
    pub pad: PadValue,
    /// Numeric elements of `dtype`, or packed predicate bits (then `dtype` is
    /// [`PREDICATE_DTYPE`], what the spec's predicate descriptor records).
    pub storage: Storage,
    /// NORM, or the CUBE layout of a matrix operand; then `rows`×`cols` is the layout's storage
    /// for the valid shape.
    pub layout: Layout,
}

/// The element spelling of a predicate tile.
const PREDICATE_ELEMENT: &str = "i1";

/// How `!pto.tile<…>` spells an element: `i1` for a predicate, else the MLIR name of the type
/// (`f32`, `si8`), or the spec's name for a type MLIR does not spell.
pub fn element_name(storage: Storage, dtype: DataType) -> &'static str {
    match storage {
        Storage::Predicate => PREDICATE_ELEMENT,
        Storage::Numeric => dtype.mlir_name().unwrap_or(dtype.name()),
    }
}

/// The element an `!pto.tile<…>` element spelling names: a DataType's MLIR name (`i8`…`i64`
/// mean signed), or `i1` for a predicate.
pub fn parse_element(name: &str) -> Option<(DataType, Storage)> {
    match DataType::from_mlir_name(name) {
        Some(t) => Some((t, Storage::Numeric)),
        None if name == PREDICATE_ELEMENT => Some((PREDICATE_DTYPE, Storage::Predicate)),
        None => None,
    }
}

impl TileType {
    /// A fully valid tile with Null pad.
    pub fn new(rows: u32, cols: u32, dtype: DataType) -> TileType {
        TileType {
            rows: Dim::Known(rows),
            cols: Dim::Known(cols),
            dtype,
            valid_rows: Dim::Known(rows),
            valid_cols: Dim::Known(cols),
            pad: PadValue::Null,
            storage: Storage::Numeric,
            layout: Layout::Norm,
        }
    }

    /// A `valid_rows`×`valid_cols` tile of `dtype` in a CUBE layout, its physical shape the
    /// layout's storage; `None` when the layout cannot hold it.
    pub fn cube(
        valid_rows: u32,
        valid_cols: u32,
        dtype: DataType,
        layout: Layout,
    ) -> Option<TileType> {
        let (rows, cols) = layout.storage(dtype, valid_rows, valid_cols)?;
        Some(TileType {
            layout,
            ..TileType::new(rows, cols, dtype).with_valid(valid_rows, valid_cols)
        })
    }

    /// A fully valid predicate tile (`!pto.tile<RxCxi1>`) with Null pad.
    pub fn predicate(rows: u32, cols: u32) -> TileType {
        TileType {
            storage: Storage::Predicate,
            ..TileType::new(rows, cols, PREDICATE_DTYPE)
        }
    }

    /// True for a predicate tile (`i1` elements).
    pub fn is_predicate(&self) -> bool {
        self.storage == Storage::Predicate
    }

    /// The element spelling: `i1` for a predicate, else the MLIR (or spec) name of the type.
    pub fn element_name(&self) -> &'static str {
        element_name(self.storage, self.dtype)
    }

    /// The same tile with a valid shape of `rows`×`cols`.
    pub fn with_valid(mut self, rows: u32, cols: u32) -> TileType {
        self.valid_rows = Dim::Known(rows);
        self.valid_cols = Dim::Known(cols);
        self
    }

    /// The same tile with another pad value.
    pub fn with_pad(mut self, pad: PadValue) -> TileType {
        self.pad = pad;
        self
    }

    /// True when no dimension is `?`.
    pub fn is_static(&self) -> bool {
        [self.rows, self.cols, self.valid_rows, self.valid_cols]
            .iter()
            .all(|d| d.known().is_some())
    }

    /// The geometry the op rules relate (`ptoc_isa::rules`), with unknown dimensions kept.
    pub fn geometry(&self) -> Geometry<Dim> {
        Geometry {
            cols: self.cols,
            valid_rows: self.valid_rows,
            valid_cols: self.valid_cols,
        }
    }

    /// The geometry when every dimension in it is known.
    pub fn known_geometry(&self) -> Option<Geometry<u32>> {
        Some(Geometry {
            cols: self.cols.known()?,
            valid_rows: self.valid_rows.known()?,
            valid_cols: self.valid_cols.known()?,
        })
    }

    /// (rows, cols, valid rows, valid cols) when all are known.
    pub fn dims(&self) -> Option<(u32, u32, u32, u32)> {
        Some((
            self.rows.known()?,
            self.cols.known()?,
            self.valid_rows.known()?,
            self.valid_cols.known()?,
        ))
    }

    /// The smallest SizeCode holding a fresh tile of this type with at least `min_rows` physical
    /// rows, and the rows it then has: derived from the SizeCode for numeric tiles (docs/isa.md
    /// §3.3), the rows written for a predicate (§3.6), the layout's storage for a CUBE tile, whose
    /// cells the SizeCode must hold (§18.2). `None` when the shape is not static or nothing fits.
    pub fn smallest_size(&self, min_rows: u32) -> Option<(SizeCode, u32)> {
        let (rows, cols, valid_rows, valid_cols) = self.dims()?;
        let rows = rows.max(min_rows);
        if self.layout.is_cube() {
            let need = self
                .layout
                .required_bytes(self.dtype, valid_rows, valid_cols)?;
            return Some((SizeCode::holding(need)?, self.rows.known()?));
        }
        match self.storage {
            Storage::Numeric => {
                let bits = self.dtype.bits();
                let s = SizeCode::smallest_for(rows, cols, bits)?;
                Some((s, s.derived_rows(cols, bits)?))
            }
            Storage::Predicate => SizeCode::for_predicate(rows, cols).map(|s| (s, rows)),
        }
    }

    /// Parse the full `!pto.tile<…>` spelling.
    pub fn parse(text: &str) -> Result<TileType, TileTypeError> {
        Parser::new(text).parse_type()
    }
}

impl fmt::Display for TileType {
    /// The canonical spelling: `valid=` only when it differs from the physical shape, `pad=` only
    /// when not null.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let elem = self.element_name();
        if self.layout.is_cube() {
            write!(
                f,
                "!pto.tile<{}x{}x{}",
                self.valid_rows, self.valid_cols, elem
            )?;
        } else {
            write!(f, "!pto.tile<{}x{}x{}", self.rows, self.cols, elem)?;
            if (self.valid_rows, self.valid_cols) != (self.rows, self.cols) {
                write!(f, ", valid={}x{}", self.valid_rows, self.valid_cols)?;
            }
        }
        if self.pad != PadValue::Null {
            write!(f, ", pad={}", self.pad.mlir_name())?;
        }
        if self.layout.is_cube() {
            write!(f, ", layout={}", self.layout)?;
        }
        f.write_str(">")
    }
}

/// A malformed tile type, with the byte offset of the problem inside the type text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TileTypeError {
    /// Byte offset of the problem in the text given to [`TileType::parse`].
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

/// Element spellings accepted in `!pto.tile<…>`, for error messages.
const ELEMENT_TYPES: &str =
    "f64, f32, tf32, hf32, f16, bf16, f8E4M3FN, f8E5M2, si8..si64, ui8..ui64, i8..i64, i1";

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser { text, pos: 0 }
    }

    fn error<T>(&self, offset: usize, message: impl Into<String>) -> Result<T, TileTypeError> {
        Err(TileTypeError {
            offset,
            message: message.into(),
        })
    }

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn skip_spaces(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.text.len() - trimmed.len();
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_spaces();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, token: &str, what: &str) -> Result<(), TileTypeError> {
        if self.eat(token) {
            Ok(())
        } else {
            self.error(self.pos, format!("expected {what}"))
        }
    }

    /// A run of characters allowed in a dimension or element name (letters, digits, `?`).
    fn word(&mut self) -> (usize, &'a str) {
        self.skip_spaces();
        let start = self.pos;
        let len = self
            .rest()
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '?' || c == '_'))
            .unwrap_or(self.rest().len());
        self.pos += len;
        (start, &self.text[start..self.pos])
    }

    /// `N`, `?`: a dimension inside an `AxBx…` shape. `x` separates, so digits stop at `x`.
    fn dim(&mut self, what: &str) -> Result<Dim, TileTypeError> {
        self.skip_spaces();
        let start = self.pos;
        if self.eat("?") {
            return Ok(Dim::Unknown);
        }
        let len = self
            .rest()
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(self.rest().len());
        if len == 0 {
            return self.error(start, format!("expected {what} (a number or '?')"));
        }
        self.pos += len;
        match self.text[start..self.pos].parse::<u32>() {
            Ok(0) => self.error(start, format!("{what} must be at least 1")),
            Ok(n) if n <= ptoc_isa::geometry::MAX_DIM => Ok(Dim::Known(n)),
            _ => self.error(
                start,
                format!(
                    "{what} {} is larger than 65535",
                    &self.text[start..self.pos]
                ),
            ),
        }
    }

    fn parse_type(&mut self) -> Result<TileType, TileTypeError> {
        self.expect("!pto.tile", "'!pto.tile'")?;
        self.expect("<", "'<' after '!pto.tile'")?;
        let rows = self.dim("row count")?;
        self.expect("x", "'x' after the row count")?;
        let cols = self.dim("column count")?;
        self.expect("x", "'x' after the column count")?;
        let (at, name) = self.word();
        let (dtype, storage) = match parse_element(name) {
            Some(element) => element,
            None if name.is_empty() => return self.error(at, "expected an element type"),
            None => {
                return self.error(
                    at,
                    format!("unknown element type '{name}'; expected one of {ELEMENT_TYPES}"),
                )
            }
        };
        let mut ty = TileType {
            rows,
            cols,
            dtype,
            valid_rows: rows,
            valid_cols: cols,
            pad: PadValue::Null,
            storage,
            layout: Layout::Norm,
        };
        let (mut seen_valid, mut seen_pad, mut seen_layout) = (None, false, false);
        while self.eat(",") {
            let (at, key) = self.word();
            self.expect("=", &format!("'=' after '{key}'"))?;
            match key {
                "valid" if seen_valid.is_none() => {
                    seen_valid = Some(at);
                    ty.valid_rows = self.dim("valid row count")?;
                    self.expect("x", "'x' between the valid rows and columns")?;
                    ty.valid_cols = self.dim("valid column count")?;
                }
                "pad" if !seen_pad => {
                    seen_pad = true;
                    let (at, name) = self.word();
                    ty.pad = match name {
                        "zero" => PadValue::Zero,
                        "max" => PadValue::Max,
                        "min" => PadValue::Min,
                        "null" => PadValue::Null,
                        _ => {
                            return self.error(
                                at,
                                format!("unknown pad '{name}'; expected zero, max, min or null"),
                            )
                        }
                    };
                }
                "layout" if !seen_layout => {
                    seen_layout = true;
                    let (at, name) = self.word();
                    ty.layout = match Layout::from_name(name) {
                        Some(l) => l,
                        None => {
                            return self.error(
                                at,
                                format!(
                                    "unknown layout '{name}'; expected norm, cube_m16, cube_m32 \
                                     or cube_n8"
                                ),
                            )
                        }
                    };
                    if ty.layout.is_cube() {
                        return self.cube_type(ty, seen_valid, at);
                    }
                }
                "valid" | "pad" | "layout" => {
                    return self.error(at, format!("'{key}' given twice"))
                }
                _ => {
                    return self.error(
                        at,
                        format!(
                            "unknown tile parameter '{key}'; expected 'valid', 'pad' or 'layout'"
                        ),
                    )
                }
            }
        }
        self.finish(ty)
    }

    /// The rest of a CUBE type after its `layout=` (which comes last): the written shape is the
    /// valid one and the physical shape the layout's storage.
    fn cube_type(
        &mut self,
        mut ty: TileType,
        valid: Option<usize>,
        layout_at: usize,
    ) -> Result<TileType, TileTypeError> {
        if let Some(at) = valid {
            return self.error(
                at,
                "a CUBE tile is written by its valid shape: drop 'valid=' (the layout gives the \
                 physical shape)",
            );
        }
        if self.eat(",") {
            return self.error(self.pos, "'layout=' comes last in a tile type");
        }
        if ty.is_predicate() {
            return self.error(layout_at, "a predicate tile has no CUBE layout");
        }
        let (Dim::Known(rows), Dim::Known(cols)) = (ty.rows, ty.cols) else {
            return self.error(0, "a CUBE tile needs a known shape (no '?')");
        };
        if ty.layout.cell(ty.dtype).is_none() {
            return self.error(
                layout_at,
                format!(
                    "{} has no CUBE layout; matrix tiles hold 1-, 2- and 4-byte types",
                    ty.element_name()
                ),
            );
        }
        let Some(cube) = TileType::cube(rows, cols, ty.dtype, ty.layout) else {
            return self.error(
                layout_at,
                format!(
                    "{} cannot hold a {rows}x{cols} tile of {}{}",
                    ty.layout,
                    ty.element_name(),
                    if ty.layout == Layout::CubeN8 {
                        ""
                    } else {
                        " (at most 16 rows in cube_m16, 32 in cube_m32)"
                    }
                ),
            );
        };
        ty = TileType {
            pad: ty.pad,
            ..cube
        };
        self.finish(ty)
    }

    fn finish(&mut self, ty: TileType) -> Result<TileType, TileTypeError> {
        self.expect(">", "',' or '>'")?;
        self.skip_spaces();
        if !self.rest().is_empty() {
            return self.error(self.pos, "unexpected text after the tile type");
        }
        Ok(ty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_canonically() {
        let t = TileType::parse("!pto.tile<16x64xf32>").unwrap();
        assert_eq!(t, TileType::new(16, 64, DataType::FP32));
        assert_eq!(t.to_string(), "!pto.tile<16x64xf32>");
        let t = TileType::parse("!pto.tile< 8 x 16 x bf16 , pad = max, valid=5x12>").unwrap();
        assert_eq!(t.to_string(), "!pto.tile<8x16xbf16, valid=5x12, pad=max>");
        let t = TileType::parse("!pto.tile<?x?xhf32>").unwrap();
        assert_eq!((t.rows, t.valid_cols), (Dim::Unknown, Dim::Unknown));
        assert_eq!(t.to_string(), "!pto.tile<?x?xhf32>");
        assert_eq!(
            TileType::parse("!pto.tile<4x4xi8>").unwrap().dtype,
            DataType::S8
        );
        assert_eq!(
            TileType::parse("!pto.tile<4x4xf8E4M3FN>").unwrap().dtype,
            DataType::E4M3
        );
        let p = TileType::parse("!pto.tile<16x64xi1, valid=3x5, pad=max>").unwrap();
        assert_eq!(
            p,
            TileType::predicate(16, 64)
                .with_valid(3, 5)
                .with_pad(PadValue::Max)
        );
        assert_eq!(p.to_string(), "!pto.tile<16x64xi1, valid=3x5, pad=max>");
        assert_ne!(
            p,
            TileType::new(16, 64, DataType::U8)
                .with_valid(3, 5)
                .with_pad(PadValue::Max)
        );
        // A CUBE tile is written by its valid shape; storage is the layout's (docs/isa.md §18.2):
        // 5x3 FP32 in cube_m16 is 16 rows of 2-column cells, 4 columns.
        let c = TileType::parse("!pto.tile<5x3xf32, pad=zero, layout=cube_m16>").unwrap();
        assert_eq!(
            (c.rows, c.cols, c.valid_rows, c.valid_cols),
            (16.into(), 4.into(), 5.into(), 3.into())
        );
        assert_eq!((c.layout, c.pad), (Layout::CubeM16, PadValue::Zero));
        assert_eq!(
            c.to_string(),
            "!pto.tile<5x3xf32, pad=zero, layout=cube_m16>"
        );
        let n = TileType::parse("!pto.tile<20x10xf16, layout=cube_n8>").unwrap();
        assert_eq!((n.rows, n.cols), (24.into(), 16.into()));
        assert_eq!(TileType::parse(&n.to_string()), Ok(n));
        let norm = TileType::parse("!pto.tile<4x8xf32, layout=norm>").unwrap();
        assert_eq!(norm, TileType::new(4, 8, DataType::FP32));
    }

    #[test]
    fn errors_point_at_the_problem() {
        let cases = [
            ("!pto.tile<16x64xf33>", 16, "unknown element type 'f33'"),
            ("!pto.tile<0x64xf32>", 10, "row count must be at least 1"),
            ("!pto.tile<16x70000xf32>", 13, "larger than 65535"),
            ("!pto.tile<16x64xf32, pad=one>", 25, "unknown pad 'one'"),
            ("!pto.tile<16x64xf32, size=2>", 21, "unknown tile parameter"),
            ("!pto.tile<16x64xf32", 19, "expected ',' or '>'"),
            ("!pto.tile<16x64xf32>x", 20, "unexpected text"),
            ("!pto.tile<16x64xf32, pad=max, pad=min>", 30, "given twice"),
            (
                "!pto.tile<17x4xf32, layout=cube_m16>",
                27,
                "cube_m16 cannot hold a 17x4",
            ),
            (
                "!pto.tile<4x4xf64, layout=cube_n8>",
                26,
                "f64 has no CUBE layout",
            ),
            (
                "!pto.tile<4x4xf32, valid=2x2, layout=cube_m16>",
                19,
                "drop 'valid='",
            ),
            (
                "!pto.tile<4x4xf32, layout=cube_m16, pad=zero>",
                35,
                "comes last",
            ),
            ("!pto.tile<?x4xf32, layout=cube_m16>", 0, "known shape"),
            ("!pto.tile<4x4xi1, layout=cube_m16>", 25, "predicate"),
            ("!pto.tile<4x4xf32, layout=nz>", 26, "unknown layout 'nz'"),
        ];
        for (text, offset, msg) in cases {
            let e = TileType::parse(text).unwrap_err();
            assert_eq!(e.offset, offset, "{text}: {e}");
            assert!(e.message.contains(msg), "{text}: {e}");
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "\\PC*") {
            let _ = TileType::parse(&s);
        }

        #[test]
        fn print_parse_round_trip(r in 1u32..100, c in 0u32..8, vr in 1u32..100, t in 0usize..17, p in 0usize..4) {
            let base = match ptoc_isa::dtype::ARITHMETIC.get(t) {
                Some(&dtype) => TileType::new(r, 1 << c, dtype),
                None => TileType::predicate(r, 1 << c),
            };
            let ty = base.with_valid(vr, 1).with_pad(PadValue::ALL[p]);
            proptest::prop_assert_eq!(TileType::parse(&ty.to_string()).unwrap(), ty);
        }
    }
}
