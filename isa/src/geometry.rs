//! Tile geometry: SizeCodes and capacities, derived physical rows, register names, PE masks.
//!
//! `TileSizeCodeBytes`/`LocalTileSizeCodeIsLegal` (`asl/tile/model/state/descriptors.asl`),
//! `DerivedTileRows` (`asl/tile/model/shape/rows-columns.asl`), `TileDescriptorShapeLegal`
//! (`asl/tile/model/shape/valid-region.asl`), `PTOv0PEMaskOfPEMode`
//! (`asl/block/model/schema/profile-encoding.asl`).

use std::fmt;

/// Largest value a B.DIM dimension (LB0/LB1/LB2) or a tile dimension may take.
pub const MAX_DIM: u32 = 65535;
/// Local tile registers per hand, and hands per core (`PTO_TILE_REGISTER_COUNT` = 64).
pub const REGISTERS_PER_HAND: u8 = 16;
/// Local tile registers in all four hands together.
pub const LOCAL_REGISTERS: u8 = 64;

/// A Local tile SizeCode (TSize), 1..=10: per-PE capacity `128 << (code - 1)` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SizeCode(u8);

impl SizeCode {
    /// The smallest SizeCode (128 B per PE).
    pub const MIN: SizeCode = SizeCode(1);
    /// The largest SizeCode (64 KiB per PE).
    pub const MAX: SizeCode = SizeCode(10);

    /// `None` for 0 (the source-only B.IOT form) and the reserved 11..=15.
    pub fn new(code: u32) -> Option<SizeCode> {
        (1..=10).contains(&code).then_some(SizeCode(code as u8))
    }
    /// The 4-bit B.IOT SizeCode field value.
    pub fn code(self) -> u32 {
        self.0 as u32
    }
    /// Per-PE capacity in bytes.
    pub fn bytes(self) -> u32 {
        128 << (self.0 - 1)
    }
    /// Every SizeCode, smallest first.
    pub fn all() -> impl Iterator<Item = SizeCode> {
        (1..=10).map(SizeCode)
    }

    /// Physical rows a tile of this capacity has with `cols` columns of `bits`-bit elements
    /// (`DerivedTileRows`): `capacity*8 / (cols*bits)`, requiring a power-of-two `cols`, exact
    /// division and 1..=65535 rows.
    pub fn derived_rows(self, cols: u32, bits: u32) -> Option<u32> {
        if cols == 0 || !cols.is_power_of_two() {
            return None;
        }
        let row_bits = cols as u64 * bits as u64;
        let cap_bits = self.bytes() as u64 * 8;
        if row_bits == 0 || !cap_bits.is_multiple_of(row_bits) {
            return None;
        }
        let rows = cap_bits / row_bits;
        (1..=MAX_DIM as u64).contains(&rows).then_some(rows as u32)
    }

    /// The smallest SizeCode that holds a fresh tile of `rows`×`cols` physical elements
    /// (`MinimumTileCapacityBytesForShape`, docs/isa.md §3.3), or `None` if even 64 KiB is too small or no
    /// rows can be derived.
    pub fn smallest_for(rows: u32, cols: u32, bits: u32) -> Option<SizeCode> {
        SizeCode::all().find(|s| s.derived_rows(cols, bits).is_some_and(|r| r >= rows))
    }

    /// The smallest SizeCode that holds a packed predicate of `rows`×`cols` physical bits:
    /// `ceil(rows·cols/8)` bytes (`PredicateTileStorageBytes`, docs/isa.md §3.6). A predicate's
    /// rows are its source's, never derived from its own SizeCode.
    pub fn for_predicate(rows: u32, cols: u32) -> Option<SizeCode> {
        SizeCode::holding(predicate_bytes(rows, cols).try_into().ok()?)
    }

    /// The smallest SizeCode of at least `bytes` (a CUBE tile's whole cells, docs/isa.md §18.2).
    pub fn holding(bytes: u32) -> Option<SizeCode> {
        SizeCode::all().find(|s| s.bytes() >= bytes)
    }

    /// The SizeCode that gives exactly `rows` physical rows (what a full-shape destination must
    /// use to match its source, docs/isa.md §1.3).
    pub fn giving_rows(rows: u32, cols: u32, bits: u32) -> Option<SizeCode> {
        SizeCode::all().find(|s| s.derived_rows(cols, bits) == Some(rows))
    }
}

impl fmt::Display for SizeCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Bytes a packed predicate of `rows`×`cols` physical bits occupies: logical element `i` is bit
/// `i mod 8` of byte `i / 8` (`PredicateTileStorageBytes`, docs/isa.md §3.6).
pub fn predicate_bytes(rows: u32, cols: u32) -> u64 {
    (rows as u64 * cols as u64).div_ceil(8)
}

/// A register hand: T, U, M or N (B.IOT DstTile codes 0..3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Hand {
    /// Hand code 0.
    T = 0,
    /// Hand code 1.
    U = 1,
    /// Hand code 2.
    M = 2,
    /// Hand code 3.
    N = 3,
}

impl Hand {
    /// Every hand, in code order.
    pub const ALL: [Hand; 4] = [Hand::T, Hand::U, Hand::M, Hand::N];
    /// The hand of a 2-bit DstTile code (higher bits ignored).
    pub fn from_code(code: u32) -> Hand {
        Hand::ALL[(code & 3) as usize]
    }
    /// The 2-bit DstTile code.
    pub fn code(self) -> u32 {
        self as u32
    }
    /// The assembly letter (`T`, `U`, `M`, `N`).
    pub fn letter(self) -> char {
        ['T', 'U', 'M', 'N'][self as usize]
    }
    /// The hand for a letter, case-insensitive.
    pub fn from_letter(c: char) -> Option<Hand> {
        Hand::ALL
            .into_iter()
            .find(|h| h.letter() == c.to_ascii_uppercase())
    }
}

/// An absolute Local register index 0..=63, written `T#1`…`N#16` (docs/isa.md §9 decision 1–2:
/// code = hand·16 + k−1). The default is `T#1`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileReg(u8);

impl TileReg {
    /// The register with this absolute index; `None` beyond 63.
    pub fn new(index: u32) -> Option<TileReg> {
        (index < LOCAL_REGISTERS as u32).then_some(TileReg(index as u8))
    }
    /// `hand#number`; `None` unless `number` is 1..=16.
    pub fn of(hand: Hand, number: u8) -> Option<TileReg> {
        (1..=REGISTERS_PER_HAND)
            .contains(&number)
            .then(|| TileReg(hand as u8 * REGISTERS_PER_HAND + number - 1))
    }
    /// The absolute index (the 6-bit SrcTile code).
    pub fn index(self) -> u32 {
        self.0 as u32
    }
    /// The hand the register belongs to.
    pub fn hand(self) -> Hand {
        Hand::from_code(self.0 as u32 / REGISTERS_PER_HAND as u32)
    }
    /// The 1-based number within the hand (the `k` of `T#k`).
    pub fn number(self) -> u8 {
        self.0 % REGISTERS_PER_HAND + 1
    }
}

impl fmt::Display for TileReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.hand().letter(), self.number())
    }
}

/// The PE mask of a binding, PE0 first (leftmost digit). Only the eight masks PEMode can encode
/// exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PeMask(u8);

/// PEMode code → 4-bit mask (PE0 is bit 3).
const PE_MODE_MASKS: [u8; 8] = [
    0b0000, 0b1000, 0b0100, 0b0010, 0b0001, 0b1100, 0b1110, 0b1111,
];

impl PeMask {
    /// PEMode 7: all four PEs (`1111`).
    pub const ALL_PES: PeMask = PeMask(7);
    /// PEMode 0: no PE, the binding is a no-op.
    pub const NONE: PeMask = PeMask(0);

    /// The mask of a 3-bit PEMode code (higher bits ignored).
    pub fn from_mode(mode: u32) -> PeMask {
        PeMask((mode & 7) as u8)
    }
    /// The PEMode encoding a 4-bit mask, if it is one of the eight encodable ones.
    pub fn from_bits(mask: u8) -> Option<PeMask> {
        PE_MODE_MASKS
            .iter()
            .position(|&m| m == mask)
            .map(|mode| PeMask(mode as u8))
    }
    /// Parse `1111`-style text (four binary digits, PE0 first).
    pub fn parse(text: &str) -> Option<PeMask> {
        if text.len() != 4 || !text.bytes().all(|b| b == b'0' || b == b'1') {
            return None;
        }
        PeMask::from_bits(u8::from_str_radix(text, 2).ok()?)
    }
    /// The 3-bit PEMode code.
    pub fn mode(self) -> u32 {
        self.0 as u32
    }
    /// The 4-bit mask, PE0 in bit 3.
    pub fn bits(self) -> u8 {
        PE_MODE_MASKS[self.0 as usize]
    }
    /// How many PEs get an equal fragment (capacity accounting multiplies by this).
    pub fn pe_count(self) -> u32 {
        self.bits().count_ones()
    }
    /// Whether the mask selects no PE (PEMode 0: the binding does nothing).
    pub fn is_noop(self) -> bool {
        self.0 == 0
    }
}

impl Default for PeMask {
    fn default() -> Self {
        PeMask::ALL_PES
    }
}

impl fmt::Display for PeMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04b}", self.bits())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicate_capacity_is_packed() {
        // 16x64 bits: 128 bytes, SizeCode 1. The spec's capacity fault: a 64x128 source needs
        // 1024 bytes, more than SizeCode 1 (tile-fault-tcmp-capacity-001.asl).
        assert_eq!(predicate_bytes(16, 64), 128);
        assert_eq!(SizeCode::for_predicate(16, 64), SizeCode::new(1));
        assert_eq!(predicate_bytes(64, 128), 1024);
        assert_eq!(SizeCode::for_predicate(64, 128), SizeCode::new(4));
        assert_eq!(predicate_bytes(8, 2), 2);
        assert_eq!(predicate_bytes(1, 9), 2);
        assert_eq!(SizeCode::for_predicate(65535, 65535), None);
    }

    #[test]
    fn size_codes_and_rows() {
        assert_eq!(SizeCode::new(1).unwrap().bytes(), 128);
        assert_eq!(SizeCode::new(10).unwrap().bytes(), 65536);
        assert!(SizeCode::new(0).is_none() && SizeCode::new(11).is_none());
        // Worked example docs/isa.md §2.10: 512 B, 16 FP32 columns -> 8 rows.
        assert_eq!(SizeCode::new(3).unwrap().derived_rows(16, 32), Some(8));
        // docs/isa.md §6: 128 B with Col 4: U8 -> 32 rows, U16 -> 16, U64 -> 4, FP32 -> 8.
        let s1 = SizeCode::new(1).unwrap();
        assert_eq!(
            [8, 16, 64, 32].map(|b| s1.derived_rows(4, b)),
            [Some(32), Some(16), Some(4), Some(8)]
        );
        // Non-power-of-two columns derive nothing.
        assert_eq!(s1.derived_rows(3, 8), None);
        // 5x64xf32 = 1280 bytes needs 2 KiB (SizeCode 5, 8 rows).
        assert_eq!(SizeCode::smallest_for(5, 64, 32), SizeCode::new(5));
        assert_eq!(SizeCode::giving_rows(8, 16, 32), SizeCode::new(3));
    }

    #[test]
    fn pe_masks() {
        let masks: Vec<String> = (0..8).map(|m| PeMask::from_mode(m).to_string()).collect();
        assert_eq!(
            masks,
            ["0000", "1000", "0100", "0010", "0001", "1100", "1110", "1111"]
        );
        assert_eq!(PeMask::parse("1111"), Some(PeMask::ALL_PES));
        assert_eq!(PeMask::parse("0011"), None);
        assert_eq!(PeMask::parse("0101"), None);
    }

    #[test]
    fn register_names() {
        assert_eq!(TileReg::new(0).unwrap().to_string(), "T#1");
        assert_eq!(TileReg::new(17).unwrap().to_string(), "U#2");
        assert_eq!(TileReg::new(63).unwrap().to_string(), "N#16");
        assert_eq!(TileReg::of(Hand::M, 3).unwrap().index(), 34);
    }
}
