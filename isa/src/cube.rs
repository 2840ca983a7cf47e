//! The CUBE tile layouts and their 128-byte cells (docs/isa.md §18).
//!
//! A matrix operand lives in one of three persistent layouts (`TileLayout_CUBE_M16`, `_M32`,
//! `_N8`; `asl/tile/model/shape/cube-cell.asl`). Storage is a whole number of 128-byte cells whose
//! shape depends on the layout and the element width; the storage rows and columns, and so the
//! capacity a tile needs, follow from the valid shape alone, never from the SizeCode. TLOAD and
//! TSTORE move tiles into and out of these layouts through B.DATR Layout codes 21–26
//! (`asl/block/model/state/control-state.asl`).

use crate::dtype::DataType;
use crate::geometry::{Hand, TileReg};

/// Whether a `_ACC` matrix op reading its accumulator as `c` may not push its result onto
/// `destination`: C's 6-bit code must differ from the zero-extended 2-bit DstTile field
/// (`BundleMatrixAccumulatorDestinationIndicesDistinct`, docs/isa.md §18.4), so C = T#1 with
/// `->T`, T#2 with `->U`, T#3 with `->M` and T#4 with `->N` are illegal.
pub fn accumulator_clashes(c: TileReg, destination: Hand) -> bool {
    c.index() == destination.code()
}

/// Bytes in one CUBE cell (`PTO_TILE_CELL_BYTES`).
pub const CELL_BYTES: u32 = 128;

/// A tile's storage layout (`TileLayout`). Every op but the matrix ops and the CUBE transports
/// requires [`Layout::Norm`] (`TileGenericIndexingPermitted`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Layout {
    /// Row-major (`TileLayout_RowMajor`), what B.DATR Layout NORM gives.
    #[default]
    Norm,
    /// A matrix left operand or result of at most 16 rows: cells of 16 rows, K along columns.
    CubeM16,
    /// As [`Layout::CubeM16`] with at most 32 rows.
    CubeM32,
    /// A matrix right operand: cells of 8 columns, K along rows.
    CubeN8,
}

impl Layout {
    /// Every CUBE layout, in transport-code order (M32, M16, N8).
    pub const CUBE: [Layout; 3] = [Layout::CubeM32, Layout::CubeM16, Layout::CubeN8];

    /// Whether this is one of the CUBE layouts.
    pub fn is_cube(self) -> bool {
        self != Layout::Norm
    }

    /// The IR spelling (`cube_m16`), also used in diagnostics.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Norm => "norm",
            Layout::CubeM16 => "cube_m16",
            Layout::CubeM32 => "cube_m32",
            Layout::CubeN8 => "cube_n8",
        }
    }

    /// The layout with this IR spelling.
    pub fn from_name(name: &str) -> Option<Layout> {
        [
            Layout::Norm,
            Layout::CubeM16,
            Layout::CubeM32,
            Layout::CubeN8,
        ]
        .into_iter()
        .find(|l| l.name() == name)
    }

    /// B.DATR Layout of the TLOAD that converts GM rows into this layout (ND2M32 21, ND2M16 22,
    /// ND2N8 23); `None` for NORM.
    pub fn load_code(self) -> Option<u8> {
        match self {
            Layout::Norm => None,
            Layout::CubeM32 => Some(21),
            Layout::CubeM16 => Some(22),
            Layout::CubeN8 => Some(23),
        }
    }

    /// B.DATR Layout of the TSTORE that writes this layout back as GM rows (M322ND 24, M162ND 25,
    /// N82ND 26); `None` for NORM.
    pub fn store_code(self) -> Option<u8> {
        self.load_code().map(|c| c + 3)
    }

    /// The layout a transport code converts to or from, and whether it is a load (21–23) rather
    /// than a store (24–26); `None` for every other code.
    pub fn of_transport_code(code: u8) -> Option<(Layout, bool)> {
        let load = (21..=23).contains(&code);
        let store = (24..=26).contains(&code);
        (load || store).then(|| {
            (
                Layout::CUBE[(code - if load { 21 } else { 24 }) as usize],
                load,
            )
        })
    }

    /// Whether a matrix M (left rows) fits the layout: M16 holds at most 16, M32 at most 32
    /// (`TileMatrixMLayoutLegal`). N8 holds no left operand.
    pub fn holds_m(self, m: u32) -> bool {
        match self {
            Layout::CubeM16 => m <= 16,
            Layout::CubeM32 => m <= 32,
            Layout::Norm | Layout::CubeN8 => false,
        }
    }

    /// Rows and columns of one cell for an element type; `None` for NORM and for the types no
    /// CUBE layout holds, 64-bit and HiF4X2 (`TileCubeCellRows`, `TileCubeCellColumns`).
    pub fn cell(self, dtype: DataType) -> Option<(u32, u32)> {
        let bits = dtype.bits();
        if bits == 64 || dtype == DataType::HiF4X2 {
            return None;
        }
        // 128 bytes = 1024 bits: a cell holds 1024 / bits elements.
        let elements = 1024 / bits;
        match self {
            Layout::Norm => None,
            Layout::CubeM16 => Some((16, elements / 16)),
            Layout::CubeM32 => Some((32, elements / 32)),
            Layout::CubeN8 => Some((elements / 8, 8)),
        }
    }

    /// Storage rows and columns of a tile with this valid shape (`TileCubeStorageRows`,
    /// `…Columns`): M layouts always have the cell's rows (and refuse more valid rows), N8 rounds
    /// rows up to whole cells; columns round up to whole cells. `None` when the layout cannot
    /// hold the shape or the type.
    pub fn storage(self, dtype: DataType, valid_rows: u32, valid_cols: u32) -> Option<(u32, u32)> {
        let (cell_rows, cell_cols) = self.cell(dtype)?;
        if valid_rows == 0 || valid_cols == 0 {
            return None;
        }
        let rows = match self {
            Layout::CubeN8 => valid_rows.checked_next_multiple_of(cell_rows)?,
            _ if valid_rows > cell_rows => return None,
            _ => cell_rows,
        };
        let cols = valid_cols.checked_next_multiple_of(cell_cols)?;
        (rows <= u16::MAX as u32 && cols <= u16::MAX as u32).then_some((rows, cols))
    }

    /// Bytes a tile of this valid shape occupies: whole cells (`TileCubeRequiredBytes`).
    pub fn required_bytes(self, dtype: DataType, valid_rows: u32, valid_cols: u32) -> Option<u32> {
        let (rows, cols) = self.storage(dtype, valid_rows, valid_cols)?;
        let (cell_rows, cell_cols) = self.cell(dtype)?;
        let cells = (rows / cell_rows) as u64 * (cols / cell_cols) as u64;
        u32::try_from(cells * CELL_BYTES as u64).ok()
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_the_spec_tables() {
        // TileCubeCellRows/Columns (asl/tile/model/shape/cube-cell.asl), by element width.
        let expect = [
            (DataType::FP32, [(32, 1), (16, 2), (4, 8)]),
            (DataType::FP16, [(32, 2), (16, 4), (8, 8)]),
            (DataType::S8, [(32, 4), (16, 8), (16, 8)]),
            (DataType::E2M1X2, [(32, 8), (16, 16), (32, 8)]),
        ];
        for (dtype, cells) in expect {
            for (layout, cell) in Layout::CUBE.into_iter().zip(cells) {
                assert_eq!(layout.cell(dtype), Some(cell), "{layout} {dtype}");
            }
        }
        assert_eq!(Layout::CubeM16.cell(DataType::FP64), None);
        assert_eq!(Layout::CubeN8.cell(DataType::HiF4X2), None);
        assert_eq!(Layout::Norm.cell(DataType::FP32), None);
    }

    #[test]
    fn storage_follows_the_valid_shape() {
        // A 16x64 FP32 A operand: 16 rows, 32 cells of 16x2 → 4 KiB.
        assert_eq!(
            Layout::CubeM16.storage(DataType::FP32, 16, 64),
            Some((16, 64))
        );
        assert_eq!(
            Layout::CubeM16.required_bytes(DataType::FP32, 16, 64),
            Some(4096)
        );
        // 5 valid rows still take the cell's 16; 3 columns round up to 4.
        assert_eq!(Layout::CubeM16.storage(DataType::FP32, 5, 3), Some((16, 4)));
        assert_eq!(Layout::CubeM16.storage(DataType::FP32, 17, 3), None);
        assert_eq!(
            Layout::CubeM32.storage(DataType::FP32, 17, 3),
            Some((32, 3))
        );
        // N8 FP16 K=20 x N=10: rows to 24 (cells of 8), columns to 16; 3x2 cells.
        assert_eq!(
            Layout::CubeN8.storage(DataType::FP16, 20, 10),
            Some((24, 16))
        );
        assert_eq!(
            Layout::CubeN8.required_bytes(DataType::FP16, 20, 10),
            Some(768)
        );
        assert_eq!(Layout::CubeN8.storage(DataType::FP16, 0, 10), None);
    }

    #[test]
    fn transport_codes_pair_loads_and_stores() {
        for layout in Layout::CUBE {
            let load = layout.load_code().unwrap();
            let store = layout.store_code().unwrap();
            assert_eq!(Layout::of_transport_code(load), Some((layout, true)));
            assert_eq!(Layout::of_transport_code(store), Some((layout, false)));
            assert_eq!(Layout::from_name(layout.name()), Some(layout));
        }
        assert_eq!(Layout::CubeM16.load_code(), Some(22));
        assert_eq!(Layout::CubeN8.store_code(), Some(26));
        assert_eq!(Layout::of_transport_code(20), None);
        assert_eq!(Layout::of_transport_code(27), None);
    }
}
