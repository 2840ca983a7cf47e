//! Native-width element storage and compact definedness, the payload of a [`Tile`](crate::Tile).
//!
//! Why not one `u64` carrier and one `bool` per element: a 64 KiB S8 tile then takes 576 KiB, and
//! allocating, writing and reading those bytes dominated the interpreter (page faults on every new
//! destination). Each element is stored at its DataType's width instead ([`Elements`]; 4-bit types
//! get a byte each), so a tile holds the bytes the ISA describes and the element loops run on
//! native lanes that LLVM vectorises. The [`Carrier`] trait is the one generic mechanism over those
//! widths: loops are written once and monomorphised per width.
//!
//! Definedness is almost always uniform (docs/isa.md §4: a fresh tile is undefined everywhere; publication
//! defines the valid rectangle, and the padding unless the pad is Null), so [`Definedness`] keeps a
//! per-element bitset only for the tiles that need one, and compares by meaning, not by shape.

use std::fmt::Debug;
use std::ops::{BitAnd, BitOr, BitXor, Not, Range};

use crate::lines::LineVec;

/// An unsigned integer that stores one element: the element's bits, upper bits zero.
///
/// # Safety
/// Only `u8`, `u16`, `u32` and `u64` implement it: [`LineVec`] reads its bytes as carriers,
/// which holds for plain integers (every bit pattern a value, alignment at most 8).
pub unsafe trait Carrier:
    Copy
    + Debug
    + Default
    + Ord
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
{
    /// The carrier's width in bits.
    const BITS: u32;
    const ZERO: Self;
    /// The low `Self::BITS` bits of `bits`.
    fn from_bits(bits: u64) -> Self;
    /// The carrier's bits, zero-extended.
    fn bits(self) -> u64;
    /// The elements as a slice of this carrier, if they are stored at this width.
    fn slice(elements: &Elements) -> Option<&[Self]>;
    fn slice_mut(elements: &mut Elements) -> Option<&mut [Self]>;
    /// The storage vector itself, to grow (see [`crate::kernels`]' output rows).
    fn vec_mut(elements: &mut Elements) -> Option<&mut LineVec<Self>>;
}

/// Row-major element storage at one of the four carrier widths, each starting on a cache line
/// ([`LineVec`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Elements {
    /// One byte per element (8-bit and 4-bit types, predicates).
    B8(LineVec<u8>),
    /// 16-bit carriers.
    B16(LineVec<u16>),
    /// 32-bit carriers.
    B32(LineVec<u32>),
    /// 64-bit carriers.
    B64(LineVec<u64>),
}

macro_rules! carrier {
    ($t:ty, $variant:ident) => {
        // SAFETY: a plain unsigned integer.
        unsafe impl Carrier for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;
            #[inline(always)]
            fn from_bits(bits: u64) -> Self {
                bits as $t
            }
            #[inline(always)]
            fn bits(self) -> u64 {
                self as u64
            }
            fn slice(elements: &Elements) -> Option<&[Self]> {
                match elements {
                    Elements::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn slice_mut(elements: &mut Elements) -> Option<&mut [Self]> {
                Self::vec_mut(elements).map(|v| &mut v[..])
            }
            fn vec_mut(elements: &mut Elements) -> Option<&mut LineVec<Self>> {
                match elements {
                    Elements::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

carrier!(u8, B8);
carrier!(u16, B16);
carrier!(u32, B32);
carrier!(u64, B64);

/// Run `$body` with `$v` bound to the storage vector, whatever its width.
macro_rules! each_width {
    ($elements:expr, |$v:ident| $body:expr) => {
        match $elements {
            Elements::B8($v) => $body,
            Elements::B16($v) => $body,
            Elements::B32($v) => $body,
            Elements::B64($v) => $body,
        }
    };
}

impl Elements {
    /// `count` zero elements stored at the carrier width of a `bits`-bit type.
    pub(crate) fn zeroed(bits: u32, count: usize) -> Elements {
        match Elements::carrier_bits(bits) {
            8 => Elements::B8(LineVec::from_elem(0, count)),
            16 => Elements::B16(LineVec::from_elem(0, count)),
            32 => Elements::B32(LineVec::from_elem(0, count)),
            _ => Elements::B64(LineVec::from_elem(0, count)),
        }
    }

    /// No elements yet, with room for `count` at the carrier width of a `bits`-bit type: a
    /// destination whose kernel writes every element need not be zeroed first.
    #[inline]
    pub(crate) fn with_capacity(bits: u32, count: usize) -> Elements {
        match Elements::carrier_bits(bits) {
            8 => Elements::B8(LineVec::with_capacity(count)),
            16 => Elements::B16(LineVec::with_capacity(count)),
            32 => Elements::B32(LineVec::with_capacity(count)),
            _ => Elements::B64(LineVec::with_capacity(count)),
        }
    }

    /// Grow (new elements `bits`, cut to the carrier width) or cut to `count` elements.
    pub(crate) fn resize(&mut self, count: usize, bits: u64) {
        each_width!(self, |v| v.resize(count, Carrier::from_bits(bits)))
    }

    /// The carrier width that stores a `bits`-bit element (at least a byte).
    pub(crate) fn carrier_bits(bits: u32) -> u32 {
        bits.next_power_of_two().clamp(8, 64)
    }

    /// The width of the carriers these elements are stored in.
    pub fn width(&self) -> u32 {
        match self {
            Elements::B8(_) => 8,
            Elements::B16(_) => 16,
            Elements::B32(_) => 32,
            Elements::B64(_) => 64,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        each_width!(self, |v| v.len())
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bits of element `i`, zero-extended (panics when out of range, like slice indexing).
    pub fn get(&self, i: usize) -> u64 {
        each_width!(self, |v| v[i].bits())
    }

    /// Store the low carrier-width bits of `bits` at `i`.
    pub fn set(&mut self, i: usize, bits: u64) {
        each_width!(self, |v| v[i] = Carrier::from_bits(bits))
    }

    /// Store `bits` (cut to the carrier width) in every element of `range`.
    pub(crate) fn fill(&mut self, range: Range<usize>, bits: u64) {
        each_width!(self, |v| v[range].fill(Carrier::from_bits(bits)))
    }

    /// Every element's bits, zero-extended, in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// Per-element definedness of a tile: uniform, or one bit per element.
#[derive(Clone, Debug)]
pub struct Definedness {
    len: usize,
    bits: DefinedBits,
}

#[derive(Clone, Debug)]
enum DefinedBits {
    /// Every element has the same definedness.
    Uniform(bool),
    /// A published tile whose padding is undefined (pad Null): element `i` is defined exactly
    /// when its row `i / stride` is below `rows` and its column `i % stride` below `cols`
    /// (`0 < cols < stride` or `rows · stride < len`). Asked once per source of every bundle,
    /// so kept in closed form rather than as a bitset built row by row.
    Rect {
        stride: usize,
        rows: usize,
        cols: usize,
    },
    /// Bit `i % 64` of word `i / 64` is element `i`'s definedness.
    Each(Vec<u64>),
}

impl Definedness {
    /// `len` elements, all defined or all undefined.
    pub fn uniform(len: usize, defined: bool) -> Definedness {
        Definedness {
            len,
            bits: DefinedBits::Uniform(defined),
        }
    }

    /// `len` elements of which exactly the `rows × cols` rectangle at the top left of rows
    /// `stride` elements long is defined (`cols ≤ stride`).
    pub(crate) fn rect(len: usize, stride: usize, rows: usize, cols: usize) -> Definedness {
        let cols = cols.min(stride);
        let bits = if rows == 0 || cols == 0 {
            DefinedBits::Uniform(false)
        } else if cols == stride && rows.saturating_mul(stride) >= len {
            DefinedBits::Uniform(true)
        } else {
            DefinedBits::Rect { stride, rows, cols }
        };
        Definedness { len, bits }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether every element of the `rows × cols` rectangle at the top left of rows `stride`
    /// elements long is defined: without a scan unless the definedness is a bitset.
    pub(crate) fn covers_rect(&self, stride: usize, rows: usize, cols: usize) -> bool {
        if rows == 0 || cols == 0 {
            return true;
        }
        match self.bits {
            DefinedBits::Uniform(_) => self.all(0..(rows - 1) * stride + cols),
            DefinedBits::Rect {
                stride: s,
                rows: r,
                cols: c,
            } if s == stride => rows <= r && cols <= c,
            _ => (0..rows).all(|r| self.all(r * stride..r * stride + cols)),
        }
    }

    /// Whether element `i` is defined (false outside the tile).
    pub fn get(&self, i: usize) -> bool {
        match &self.bits {
            _ if i >= self.len => false,
            DefinedBits::Uniform(d) => *d,
            DefinedBits::Rect { stride, rows, cols } => i / stride < *rows && i % stride < *cols,
            DefinedBits::Each(words) => words[i / 64] >> (i % 64) & 1 == 1,
        }
    }

    /// Set the definedness of element `i` (ignored outside the tile).
    pub fn set(&mut self, i: usize, defined: bool) {
        if i < self.len {
            self.set_range(i..i + 1, defined);
        }
    }

    /// Set the definedness of every element in `range` (cut to the tile).
    pub(crate) fn set_range(&mut self, range: Range<usize>, defined: bool) {
        let range = range.start.min(self.len)..range.end.min(self.len);
        if range.is_empty() || matches!(self.bits, DefinedBits::Uniform(d) if d == defined) {
            return;
        }
        if range == (0..self.len) {
            self.bits = DefinedBits::Uniform(defined);
            return;
        }
        match self.bits {
            DefinedBits::Uniform(d) => {
                let word = if d { u64::MAX } else { 0 };
                self.bits = DefinedBits::Each(vec![word; self.len.div_ceil(64)]);
            }
            DefinedBits::Rect { stride, rows, cols } => {
                let mut words = vec![0; self.len.div_ceil(64)];
                for r in 0..rows {
                    let row = r * stride..(r * stride + cols).min(self.len);
                    if !row.is_empty() {
                        for (w, mask) in word_masks(row) {
                            words[w] |= mask;
                        }
                    }
                }
                self.bits = DefinedBits::Each(words);
            }
            DefinedBits::Each(_) => {}
        }
        if let DefinedBits::Each(words) = &mut self.bits {
            for (w, mask) in word_masks(range) {
                if defined {
                    words[w] |= mask;
                } else {
                    words[w] &= !mask;
                }
            }
        }
    }

    /// Define the `rows × cols` rectangle at the top left of rows `stride` elements long
    /// (`cols ≤ stride`), in closed form when nothing was defined before.
    pub(crate) fn define_rect(&mut self, stride: usize, rows: usize, cols: usize) {
        if matches!(self.bits, DefinedBits::Uniform(false)) {
            *self = Definedness::rect(self.len, stride, rows, cols);
            return;
        }
        for r in 0..rows {
            self.set_range(r * stride..r * stride + cols, true);
        }
        self.compact();
    }

    /// Whether every element of `range` is defined (true for an empty range). Inlined: every
    /// source of every bundle asks it once per valid row (a 16x1 tile's padding is undefined).
    #[inline]
    pub fn all(&self, range: Range<usize>) -> bool {
        match &self.bits {
            _ if range.is_empty() => true,
            _ if range.end > self.len => false,
            DefinedBits::Uniform(d) => *d,
            &DefinedBits::Rect { stride, rows, cols } => {
                let (first, last) = (range.start / stride, (range.end - 1) / stride);
                last < rows
                    && (cols == stride
                        || (first == last
                            && range.start % stride < cols
                            && (range.end - 1) % stride < cols))
            }
            DefinedBits::Each(words) => all_set(words, range),
        }
    }

    /// Store a bitset whose elements all agree as uniform definedness (the fast path).
    pub(crate) fn compact(&mut self) {
        for defined in [false, true] {
            if self.all_equal(defined) {
                self.bits = DefinedBits::Uniform(defined);
            }
        }
    }

    fn all_equal(&self, defined: bool) -> bool {
        match &self.bits {
            _ if self.len == 0 => true,
            DefinedBits::Uniform(d) => *d == defined,
            // Never all undefined (`rect` stores that as uniform); all defined only if the
            // rectangle covers every element.
            DefinedBits::Rect { .. } => defined && self.all(0..self.len),
            DefinedBits::Each(words) => {
                let want = if defined { u64::MAX } else { 0 };
                word_masks(0..self.len).all(|(w, mask)| words[w] & mask == want & mask)
            }
        }
    }
}

/// Whether every bit of the non-empty `range` is set in `words`: the two end words under their
/// masks, the words between them whole (a row of a tile is usually one masked word).
#[inline]
fn all_set(words: &[u64], range: Range<usize>) -> bool {
    let (first, last) = (range.start / 64, (range.end - 1) / 64);
    let lo = u64::MAX << (range.start % 64);
    let hi = u64::MAX >> (63 - (range.end - 1) % 64);
    if first == last {
        return words[first] & lo & hi == lo & hi;
    }
    words[first] & lo == lo
        && words[first + 1..last].iter().all(|&w| w == u64::MAX)
        && words[last] & hi == hi
}

/// The bitset words a non-empty element range touches, each with the mask of its bits in range.
fn word_masks(range: Range<usize>) -> impl Iterator<Item = (usize, u64)> {
    let (first, last) = (range.start / 64, (range.end - 1) / 64);
    (first..=last).map(move |w| {
        let lo = if w == first { range.start % 64 } else { 0 };
        let hi = if w == last {
            (range.end - 1) % 64 + 1
        } else {
            64
        };
        (w, (u64::MAX >> (64 - (hi - lo))) << lo)
    })
}

/// Equal when the same elements are defined, however that is stored.
impl PartialEq for Definedness {
    fn eq(&self, other: &Definedness) -> bool {
        match (&self.bits, &other.bits) {
            _ if self.len != other.len => false,
            (DefinedBits::Uniform(a), DefinedBits::Uniform(b)) => a == b,
            _ => (0..self.len).all(|i| self.get(i) == other.get(i)),
        }
    }
}

impl Eq for Definedness {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definedness_compares_by_meaning() {
        let mut d = Definedness::uniform(100, false);
        d.set_range(0..70, true);
        assert!(d.all(0..70) && !d.get(70) && !d.all(69..71));
        d.set_range(70..100, true);
        assert_eq!(d, Definedness::uniform(100, true));
        d.set(99, false);
        assert_ne!(d, Definedness::uniform(100, true));
        assert!(d.all(0..99) && !d.all(63..100));
        d.set(99, true);
        d.compact();
        assert!(matches!(d.bits, DefinedBits::Uniform(true)));
        assert!(!d.get(100) && d.all(10..10));
    }

    /// `all` on every range of a 200-element bitset with a few undefined elements (at word
    /// edges and inside words) is the AND of `get` over the range.
    #[test]
    fn all_is_every_element_defined() {
        for holes in [&[][..], &[0], &[63], &[64], &[127, 128], &[5, 70, 199]] {
            let mut d = Definedness::uniform(200, true);
            for &i in holes {
                d.set(i, false);
            }
            for start in 0..=200 {
                for end in start..=201 {
                    let each = end <= 200 && (start..end).all(|i| d.get(i));
                    assert_eq!(d.all(start..end), each, "{holes:?} {start}..{end}");
                }
            }
        }
    }

    /// The closed-form rectangle answers `get`, `all` and `covers_rect` as the same elements
    /// set one by one do, and stays so after a range is changed.
    #[test]
    fn rect_is_its_elements() {
        for (len, stride, rows, cols) in
            [(48, 8, 6, 1), (48, 8, 3, 8), (50, 10, 5, 9), (64, 16, 2, 3)]
        {
            let rect = Definedness::rect(len, stride, rows, cols);
            let mut each = Definedness::uniform(len, false);
            for r in 0..rows {
                each.set_range(r * stride..r * stride + cols, true);
            }
            for i in 0..=len {
                assert_eq!(
                    rect.get(i),
                    each.get(i),
                    "{len} {stride} {rows}x{cols} at {i}"
                );
            }
            for start in 0..=len {
                for end in start..=len + 1 {
                    assert_eq!(rect.all(start..end), each.all(start..end), "{start}..{end}");
                }
            }
            for (r, c) in [
                (0, 0),
                (1, 1),
                (rows, cols),
                (rows, stride.min(cols + 1)),
                (rows + 1, 1),
            ] {
                let scan = (0..r).all(|k| each.all(k * stride..k * stride + c));
                assert_eq!(rect.covers_rect(stride, r, c), scan || c == 0, "{r}x{c}");
            }
            assert_eq!(rect, each);
            let (mut changed, mut changed_each) = (rect.clone(), each.clone());
            changed.set_range(stride - 1..stride + 2, true);
            changed_each.set_range(stride - 1..stride + 2, true);
            assert_eq!(changed, changed_each);
            assert!(changed.get(stride - 1) && changed.get(stride + 1));
        }
        assert!(matches!(
            Definedness::rect(16, 4, 4, 4).bits,
            DefinedBits::Uniform(true)
        ));
        assert!(matches!(
            Definedness::rect(16, 4, 0, 4).bits,
            DefinedBits::Uniform(false)
        ));
    }

    #[test]
    fn elements_are_stored_at_the_carrier_width() {
        let mut e = Elements::zeroed(4, 3);
        assert_eq!(e.width(), 8);
        e.set(1, 0x1FF);
        assert_eq!(e.iter().collect::<Vec<_>>(), [0, 0xFF, 0]);
        assert_eq!(Elements::zeroed(32, 1).width(), 32);
    }
}
