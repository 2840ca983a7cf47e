//! A tile value: type, geometry, row-major elements and per-element definedness.
//!
//! The same [`Tile`] is what the loader places in a register, what the interpreter publishes and
//! what the reference evaluator takes and returns (docs/isa.md §3.2: descriptor + payload + defined bits).
//! Elements are stored at their native width and definedness compactly ([`crate::elements`]);
//! [`Tile::bits`] and [`Tile::is_defined`] read one element whatever the storage.

use crate::elements::{Definedness, Elements};
use ptoc_isa::dtype::PREDICATE_DTYPE;
use ptoc_isa::geometry::predicate_bytes;
use ptoc_isa::{DataType, Geometry, Layout, SizeCode, Storage};
use std::fmt;

/// A tile value: descriptor, row-major elements and their definedness (docs/isa.md §3.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tile {
    /// Numeric, or a predicate: one element per logical bit, each 0 or 1, on U8 carriers
    /// ([`PREDICATE_DTYPE`]); [`Tile::packed_predicate`] gives the spec's packed bytes.
    pub storage: Storage,
    /// The element type (for a predicate, [`PREDICATE_DTYPE`]).
    pub dtype: DataType,
    /// NORM, or a CUBE layout (docs/isa.md §18.2). A CUBE tile keeps its elements row-major
    /// like any other, over its storage rows and columns: the cell order only fixes how many
    /// bytes it takes, and no op observes it.
    pub layout: Layout,
    /// The SizeCode the tile was allocated with; `None` for reference-evaluator tiles, whose
    /// physical shape is the IR type's as written.
    pub size_code: Option<SizeCode>,
    /// Physical rows.
    pub rows: u32,
    /// Physical columns.
    pub cols: u32,
    /// Valid rows (the top of the tile the op reads and writes).
    pub valid_rows: u32,
    /// Valid columns.
    pub valid_cols: u32,
    /// `rows × cols` elements, row-major, at the carrier width of `dtype`.
    pub elements: Elements,
    /// Definedness of each element.
    pub defined: Definedness,
}

/// A tile shape that cannot exist.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeError(pub String);

impl Tile {
    /// The geometry the op rules relate (`ptoc_isa::rules`).
    pub fn geometry(&self) -> Geometry<u32> {
        Geometry {
            cols: self.cols,
            valid_rows: self.valid_rows,
            valid_cols: self.valid_cols,
        }
    }

    /// An all-undefined (zero) tile of the given physical and valid shape.
    pub fn new(
        dtype: DataType,
        rows: u32,
        cols: u32,
        valid_rows: u32,
        valid_cols: u32,
    ) -> Result<Tile, ShapeError> {
        Tile::shaped(
            dtype,
            (rows, cols),
            (valid_rows, valid_cols),
            Elements::zeroed,
        )
    }

    /// A tile of the given shape whose elements `storage(bits, count)` makes.
    fn shaped(
        dtype: DataType,
        (rows, cols): (u32, u32),
        (valid_rows, valid_cols): (u32, u32),
        storage: impl FnOnce(u32, usize) -> Elements,
    ) -> Result<Tile, ShapeError> {
        if rows == 0 || cols == 0 || valid_rows == 0 || valid_cols == 0 {
            return Err(ShapeError(format!(
                "tile dimensions must be nonzero ({rows}x{cols}, valid {valid_rows}x{valid_cols})"
            )));
        }
        if valid_rows > rows || valid_cols > cols {
            return Err(ShapeError(format!(
                "valid shape {valid_rows}x{valid_cols} exceeds physical {rows}x{cols}"
            )));
        }
        let count = rows as usize * cols as usize;
        Ok(Tile {
            storage: Storage::Numeric,
            dtype,
            layout: Layout::Norm,
            size_code: None,
            rows,
            cols,
            valid_rows,
            valid_cols,
            elements: storage(dtype.bits(), count),
            defined: Definedness::uniform(count, false),
        })
    }

    /// An all-undefined predicate tile of the given physical and valid shape.
    pub fn predicate(
        rows: u32,
        cols: u32,
        valid_rows: u32,
        valid_cols: u32,
    ) -> Result<Tile, ShapeError> {
        let mut tile = Tile::new(PREDICATE_DTYPE, rows, cols, valid_rows, valid_cols)?;
        tile.storage = Storage::Predicate;
        Ok(tile)
    }

    /// An all-undefined predicate tile in a SizeCode: its rows are the source's, and the
    /// capacity must hold `ceil(rows·cols/8)` bytes (`ResolveBundlePredicateDestination`,
    /// docs/isa.md §3.6).
    pub fn allocated_predicate(
        size_code: SizeCode,
        (rows, cols): (u32, u32),
        (valid_rows, valid_cols): (u32, u32),
    ) -> Result<Tile, ShapeError> {
        let need = predicate_bytes(rows, cols);
        if need > size_code.bytes() as u64 {
            return Err(ShapeError(format!(
                "a {rows}x{cols} predicate needs {need} bytes; SizeCode {size_code} holds {}",
                size_code.bytes()
            )));
        }
        let mut tile = Tile::predicate(rows, cols, valid_rows, valid_cols)?;
        tile.size_code = Some(size_code);
        Ok(tile)
    }

    /// An all-undefined tile in a CUBE layout (`ConfigureCubeTileForMask`): storage rows and
    /// columns from the valid shape, and, when allocated, a SizeCode holding its whole cells
    /// (docs/isa.md §18.2).
    pub fn cube(
        dtype: DataType,
        layout: Layout,
        size_code: Option<SizeCode>,
        (valid_rows, valid_cols): (u32, u32),
    ) -> Result<Tile, ShapeError> {
        let (Some((rows, cols)), Some(need)) = (
            layout.storage(dtype, valid_rows, valid_cols),
            layout.required_bytes(dtype, valid_rows, valid_cols),
        ) else {
            return Err(ShapeError(format!(
                "no {layout} tile of {dtype} holds valid {valid_rows}x{valid_cols}"
            )));
        };
        if let Some(size) = size_code.filter(|s| s.bytes() < need) {
            return Err(ShapeError(format!(
                "a {layout} {dtype} tile of valid {valid_rows}x{valid_cols} needs {need} bytes; \
                 SizeCode {size} holds {}",
                size.bytes()
            )));
        }
        let mut tile = Tile::new(dtype, rows, cols, valid_rows, valid_cols)?;
        tile.layout = layout;
        tile.size_code = size_code;
        Ok(tile)
    }

    /// Whether the tile is a predicate tile (docs/isa.md §3.6).
    pub fn is_predicate(&self) -> bool {
        self.storage == Storage::Predicate
    }

    /// The bits an element may have: the carrier width, or the one bit of a predicate element.
    pub fn element_mask(&self) -> u64 {
        self.storage.element_mask(self.dtype)
    }

    /// A predicate's payload as the spec packs it: logical element `i = row·cols + col` is bit
    /// `i mod 8` of byte `i / 8` (`TilePredicateByteIndex`/`TilePredicateBitIndex`,
    /// docs/isa.md §3.6); undefined bits read as stored (0 unless a pad wrote them). `None` for
    /// a numeric tile.
    pub fn packed_predicate(&self) -> Option<Vec<u8>> {
        if !self.is_predicate() {
            return None;
        }
        let mut bytes = vec![0u8; predicate_bytes(self.rows, self.cols) as usize];
        for i in 0..self.len() {
            if self.bits(i) & 1 == 1 {
                bytes[i / 8] |= 1 << (i % 8);
            }
        }
        Some(bytes)
    }

    /// An all-undefined tile whose physical rows derive from a SizeCode (docs/isa.md §3.3).
    pub fn allocated(
        dtype: DataType,
        size_code: SizeCode,
        cols: u32,
        valid_rows: u32,
        valid_cols: u32,
    ) -> Result<Tile, ShapeError> {
        let rows = size_code.derived_rows(cols, dtype.bits()).ok_or_else(|| {
            ShapeError(format!(
                "{} bytes hold no whole rows of {cols} {dtype} columns",
                size_code.bytes()
            ))
        })?;
        Tile::in_size_code(
            dtype,
            size_code,
            (rows, cols),
            (valid_rows, valid_cols),
            Elements::zeroed,
        )
    }

    /// [`Tile::allocated`] with no elements yet, only room for them: for a destination that
    /// [`crate::machine::publish_padding`] completes after its kernel wrote the valid rows, so
    /// its storage is not zeroed first (a pass over the whole tile). `rows` are the SizeCode's
    /// derived rows for `cols`, which the caller already derived to check the destination.
    pub(crate) fn allocated_unwritten(
        dtype: DataType,
        size_code: SizeCode,
        (rows, cols): (u32, u32),
        valid: (u32, u32),
    ) -> Result<Tile, ShapeError> {
        debug_assert_eq!(size_code.derived_rows(cols, dtype.bits()), Some(rows));
        Tile::in_size_code(
            dtype,
            size_code,
            (rows, cols),
            valid,
            Elements::with_capacity,
        )
    }

    /// A tile of `size_code`'s derived `rows` for `cols`, its elements made by `storage`.
    fn in_size_code(
        dtype: DataType,
        size_code: SizeCode,
        shape: (u32, u32),
        valid: (u32, u32),
        storage: impl FnOnce(u32, usize) -> Elements,
    ) -> Result<Tile, ShapeError> {
        let mut tile = Tile::shaped(dtype, shape, valid, storage)?;
        tile.size_code = Some(size_code);
        Ok(tile)
    }

    /// Fill the valid region row-major from `values` (cut to the element width) and mark it
    /// defined. `values` must have exactly `valid_rows × valid_cols` entries.
    pub fn with_valid_values(mut self, values: &[u64]) -> Result<Tile, ShapeError> {
        let want = self.valid_rows as usize * self.valid_cols as usize;
        if values.len() != want {
            return Err(ShapeError(format!(
                "{} values given for a {}x{} valid region",
                values.len(),
                self.valid_rows,
                self.valid_cols
            )));
        }
        // Cut to the physical shape, as `set` is.
        let (rows, cols) = (self.rows as usize, self.cols as usize);
        let vc = self.valid_cols as usize;
        let mask = self.element_mask();
        for (i, &v) in values.iter().enumerate() {
            let (r, c) = (i / vc, i % vc);
            if r < rows && c < cols {
                self.elements.set(self.index(r, c), v & mask);
            }
        }
        let vr = self.valid_rows as usize;
        self.defined.define_rect(cols, vr.min(rows), vc.min(cols));
        Ok(self)
    }

    /// Check what the public fields must agree on: nonzero dimensions, valid shape within the
    /// physical one, and element/definedness vectors of `rows × cols` entries, the elements at
    /// the type's carrier width.
    pub(crate) fn check_consistent(&self) -> Result<(), ShapeError> {
        let (r, c, vr, vc) = (self.rows, self.cols, self.valid_rows, self.valid_cols);
        if r == 0 || c == 0 || vr == 0 || vc == 0 || vr > r || vc > c {
            return Err(ShapeError(format!("inconsistent tile shape {self}")));
        }
        let count = r as usize * c as usize;
        if self.elements.len() != count || self.defined.len() != count {
            return Err(ShapeError(format!(
                "tile {self} needs {count} elements and definedness bits"
            )));
        }
        let width = Elements::carrier_bits(self.dtype.bits());
        if self.elements.width() != width {
            return Err(ShapeError(format!(
                "tile {self} stores {}-bit elements; {} needs {width}-bit ones",
                self.elements.width(),
                self.dtype
            )));
        }
        Ok(())
    }

    /// Number of elements (`rows × cols`).
    pub fn len(&self) -> usize {
        self.elements.len()
    }

    /// Whether the tile has no elements.
    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }

    /// The bits of element `i` (row-major), defined or not.
    pub fn bits(&self, i: usize) -> u64 {
        self.elements.get(i)
    }

    /// Whether element `i` (row-major) is defined.
    pub fn is_defined(&self, i: usize) -> bool {
        self.defined.get(i)
    }

    /// Drop the bits above the element width (4-bit types keep a byte per element).
    pub(crate) fn drop_bits_above_width(&mut self) {
        let mask = self.element_mask();
        if self.elements.width() > self.dtype.bits() || self.is_predicate() {
            for i in 0..self.len() {
                self.elements.set(i, self.elements.get(i) & mask);
            }
        }
    }

    /// The row-major index of (row, col).
    pub fn index(&self, row: usize, col: usize) -> usize {
        row * self.cols as usize + col
    }

    /// The element at (row, col) if it exists and is defined.
    pub fn get(&self, row: usize, col: usize) -> Option<u64> {
        if row >= self.rows as usize || col >= self.cols as usize {
            return None;
        }
        let i = self.index(row, col);
        self.is_defined(i).then(|| self.bits(i))
    }

    /// Set and define one element (ignored outside the physical shape).
    pub fn set(&mut self, row: usize, col: usize, bits: u64) {
        if row < self.rows as usize && col < self.cols as usize {
            let i = self.index(row, col);
            self.elements.set(i, bits & self.element_mask());
            self.defined.set(i, true);
        }
    }

    /// Whether every element of the valid rectangle is defined.
    pub(crate) fn valid_region_defined(&self) -> bool {
        let (vr, vc) = (self.valid_rows as usize, self.valid_cols as usize);
        self.defined.covers_rect(self.cols as usize, vr, vc)
    }

    /// The first element of the valid rectangle that is not a valid encoding of the type
    /// (TF32/HF32 low bits nonzero); no scan at all for types without such bits.
    pub(crate) fn first_invalid_encoding(&self) -> Option<u64> {
        let low = (1u64 << self.dtype.required_zero_low_bits()) - 1;
        if low == 0 {
            return None;
        }
        let vc = self.valid_cols as usize;
        (0..self.valid_rows as usize)
            .flat_map(|r| (0..vc).map(move |c| (r, c)))
            .map(|(r, c)| self.bits(self.index(r, c)))
            .find(|b| b & low != 0)
    }

    /// The valid rectangle's elements, row-major (`None` for undefined ones).
    pub fn valid_values(&self) -> Vec<Option<u64>> {
        let (vr, vc) = (self.valid_rows as usize, self.valid_cols as usize);
        (0..vr)
            .flat_map(|r| (0..vc).map(move |c| (r, c)))
            .map(|(r, c)| self.get(r, c))
            .collect()
    }

    /// The valid rectangle's element bits, row-major, undefined ones as 0 (for a source whose
    /// valid region was checked defined).
    pub(crate) fn valid_bits(&self) -> Vec<u64> {
        self.valid_values()
            .into_iter()
            .map(|v| v.unwrap_or(0))
            .collect()
    }

    /// The elements as a row-major kernel operand.
    pub(crate) fn view(&self) -> crate::kernels::View<'_> {
        crate::kernels::View::new(&self.elements, self.cols as usize)
    }

    /// Bytes of the physical tile (rows × cols × element width; packed bits for a predicate).
    pub fn bytes(&self) -> u64 {
        match self.storage {
            Storage::Numeric => self.rows as u64 * self.cols as u64 * self.dtype.bits() as u64 / 8,
            Storage::Predicate => predicate_bytes(self.rows, self.cols),
        }
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let elem = match self.storage {
            Storage::Numeric => self.dtype.name(),
            Storage::Predicate => "i1",
        };
        write!(f, "{}x{}x{elem}", self.rows, self.cols)?;
        if self.layout.is_cube() {
            write!(f, " {}", self.layout)?;
        }
        write!(f, " (valid {}x{})", self.valid_rows, self.valid_cols)
    }
}
