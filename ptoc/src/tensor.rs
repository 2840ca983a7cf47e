//! Typed tensors: the valid region of a kernel's argument or result as host values.
//!
//! A [`Tensor`] holds `rows × cols` elements of one [`ElementType`], row-major, as bit patterns
//! at the type's carrier width, so it can carry every DataType the ISA defines and predicate
//! tiles. Host types that hold an element type's values exactly implement [`Element`] (`f64`,
//! `f32`, `half::f16`, `half::bf16`, `i8`…`i64`, `u8`…`u64`, and `bool` for a predicate); the
//! unsigned integer of an element's width reads and writes raw bit patterns of any type (the way
//! to handle `tf32`, `hf32`, `f8E4M3FN`, `f8E5M2` and NaN payloads, and `u8` 0s and 1s for a
//! predicate), the same rule as `ptoc run`'s `.npy` inputs.

use ptoc_isa::dtype::PREDICATE_DTYPE;
use ptoc_isa::{DataType, Storage, TypeClass};
use std::fmt;

/// What a tensor's elements are: values of a [`DataType`], or the 0/1 elements of a predicate
/// tile (`!pto.tile<RxCxi1>`, TCMP's result and TSEL's mask), which travel unpacked, one
/// `u8`-wide carrier per element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ElementType {
    /// Numeric elements, or predicate bits.
    pub storage: Storage,
    /// The DataType; for a predicate, the one its descriptor records
    /// ([`ptoc_isa::dtype::PREDICATE_DTYPE`], the carrier of its unpacked elements).
    pub dtype: DataType,
}

impl ElementType {
    /// The elements of a predicate tile.
    pub const PREDICATE: ElementType = ElementType {
        storage: Storage::Predicate,
        dtype: PREDICATE_DTYPE,
    };

    /// Numeric elements of `dtype`.
    pub const fn numeric(dtype: DataType) -> ElementType {
        ElementType {
            storage: Storage::Numeric,
            dtype,
        }
    }

    /// The element type a name spells: a tile type's element (`f32`, `bf16`, `si8`, `i8`,
    /// `f8E4M3FN`, `i1` for a predicate) or the spec's and the metadata's name (`FP32`, `S8`,
    /// `E4M3`, `PRED`).
    pub fn parse(name: &str) -> Option<ElementType> {
        ptoc_ir::parse_element(name)
            .map(|(dtype, storage)| ElementType { storage, dtype })
            .or_else(|| {
                ptoc_codegen::metadata::storage_and_type(name)
                    .map(|(storage, dtype)| ElementType { storage, dtype })
            })
    }

    /// How embedders spell it (C and Python dtype strings): as a tile type's element (`f32`,
    /// `ui16`, `i1`), the spec's name for a type MLIR does not spell (`HiF8`).
    pub fn mlir_name(self) -> &'static str {
        ptoc_ir::element_name(self.storage, self.dtype)
    }

    /// The spec's and the metadata's name (`FP32`, `PRED`), as messages and `ptoc run` say it.
    pub fn name(self) -> &'static str {
        ptoc_codegen::metadata::type_name(self.storage, self.dtype)
    }

    /// Is it a predicate?
    pub fn is_predicate(self) -> bool {
        self.storage == Storage::Predicate
    }

    /// The bits an element may have (one for a predicate).
    pub fn mask(self) -> u64 {
        self.storage.element_mask(self.dtype)
    }

    /// Bytes one element takes in a host buffer: its carrier width, at least one byte (one, a
    /// `uint8_t` 0 or 1, for a predicate).
    pub fn bytes(self) -> usize {
        (self.dtype.bits() as usize).div_ceil(8)
    }

    /// Can elements of `self` stand for elements of `target`? The same type, or the unsigned
    /// integer type of its carrier's width (raw bit patterns; `u8` 0s and 1s for a predicate).
    pub fn holds(self, target: ElementType) -> bool {
        self == target
            || (self.storage == Storage::Numeric
                && self.dtype.class() == TypeClass::Unsigned
                && self.dtype.bits() == target.dtype.bits())
    }
}

impl From<DataType> for ElementType {
    fn from(dtype: DataType) -> ElementType {
        ElementType::numeric(dtype)
    }
}

impl fmt::Display for ElementType {
    /// The spec's name ([`ElementType::name`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A host type whose values are exactly the elements of one [`ElementType`].
///
/// The unsigned integer types (`u8`, `u16`, `u32`, `u64`) also stand for the raw bit patterns
/// of any element type of their width (see [`Tensor::to_vec`]).
pub trait Element: Copy + sealed::Sealed {
    /// The element type this type holds.
    const ELEMENT: ElementType;
    /// The element's bit pattern at the carrier width.
    fn to_bits(self) -> u64;
    /// The element with this bit pattern (cut to the carrier width).
    fn from_bits(bits: u64) -> Self;
}

macro_rules! elements {
    ($( $ty:ty => $element:expr, |$v:ident| $to:expr, |$b:ident| $from:expr; )*) => {
        $(
            impl sealed::Sealed for $ty {}
            impl Element for $ty {
                const ELEMENT: ElementType = $element;
                fn to_bits(self) -> u64 {
                    let $v = self;
                    $to
                }
                fn from_bits(bits: u64) -> Self {
                    let $b = bits;
                    $from
                }
            }
        )*
    };
}

elements! {
    f64 => ElementType::numeric(DataType::FP64), |v| v.to_bits(), |b| f64::from_bits(b);
    f32 => ElementType::numeric(DataType::FP32), |v| v.to_bits() as u64, |b| f32::from_bits(b as u32);
    half::f16 => ElementType::numeric(DataType::FP16), |v| v.to_bits() as u64, |b| half::f16::from_bits(b as u16);
    half::bf16 => ElementType::numeric(DataType::BF16), |v| v.to_bits() as u64, |b| half::bf16::from_bits(b as u16);
    i64 => ElementType::numeric(DataType::S64), |v| v as u64, |b| b as i64;
    i32 => ElementType::numeric(DataType::S32), |v| v as u32 as u64, |b| b as u32 as i32;
    i16 => ElementType::numeric(DataType::S16), |v| v as u16 as u64, |b| b as u16 as i16;
    i8 => ElementType::numeric(DataType::S8), |v| v as u8 as u64, |b| b as u8 as i8;
    u64 => ElementType::numeric(DataType::U64), |v| v, |b| b;
    u32 => ElementType::numeric(DataType::U32), |v| v as u64, |b| b as u32;
    u16 => ElementType::numeric(DataType::U16), |v| v as u64, |b| b as u16;
    u8 => ElementType::numeric(DataType::U8), |v| v as u64, |b| b as u8;
    bool => ElementType::PREDICATE, |v| v as u64, |b| b & 1 == 1;
}

/// One native-endian carrier (1, 2, 4 or 8 bytes; DataType widths give no other).
fn read_carrier(chunk: &[u8]) -> u64 {
    match *chunk {
        [a] => a as u64,
        [a, b] => u16::from_ne_bytes([a, b]) as u64,
        [a, b, c, d] => u32::from_ne_bytes([a, b, c, d]) as u64,
        [a, b, c, d, e, f, g, h] => u64::from_ne_bytes([a, b, c, d, e, f, g, h]),
        _ => chunk.iter().rev().fold(0, |acc, &b| acc << 8 | b as u64),
    }
}

/// What is wrong with a tensor, or with a request to read one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TensorError {
    /// The number of values does not fill the shape.
    #[error("{len} values do not fill a {rows}x{cols} tensor ({} elements)", *rows as u64 * *cols as u64)]
    Length {
        /// Rows asked for.
        rows: u32,
        /// Columns asked for.
        cols: u32,
        /// Values given.
        len: usize,
    },
    /// A host buffer whose size is not `rows × cols` elements of the type's width.
    #[error("a {rows}x{cols} tensor of {element} takes {} bytes ({} per element), the buffer has {len}", *rows as u64 * *cols as u64 * .element.bytes() as u64, .element.bytes())]
    Bytes {
        /// The element type.
        element: ElementType,
        /// Rows asked for.
        rows: u32,
        /// Columns asked for.
        cols: u32,
        /// Bytes given.
        len: usize,
    },
    /// A bit pattern wider than the element type (a predicate element is 0 or 1).
    #[error("element {index} is 0x{bits:x}, wider than the {}-bit {element} element", .element.mask().count_ones())]
    Width {
        /// The tensor's element type.
        element: ElementType,
        /// The row-major index of the element.
        index: usize,
        /// Its bits.
        bits: u64,
    },
    /// The elements are read (or given) as a host type that does not hold them.
    #[error("the tensor holds {element} elements, which {requested} does not hold; read them as {} or as raw bits ({})", host_name(*.element), raw_name(*.element))]
    DType {
        /// The tensor's element type.
        element: ElementType,
        /// The host element type asked for (its Rust name).
        requested: &'static str,
    },
}

/// The Rust host type of an element type's values, or its raw bits' when Rust has none.
fn host_name(element: ElementType) -> &'static str {
    if element.is_predicate() {
        return "bool";
    }
    match element.dtype {
        DataType::FP64 => "f64",
        DataType::FP32 => "f32",
        DataType::FP16 => "half::f16",
        DataType::BF16 => "half::bf16",
        DataType::S64 => "i64",
        DataType::S32 => "i32",
        DataType::S16 => "i16",
        DataType::S8 => "i8",
        _ => raw_name(element),
    }
}

/// The unsigned integer type of an element type's carrier width.
fn raw_name(element: ElementType) -> &'static str {
    match element.dtype.bits() {
        64 => "u64",
        32 => "u32",
        16 => "u16",
        8 => "u8",
        _ => "Tensor::bits",
    }
}

/// `rows × cols` elements of one [`ElementType`], row-major: the valid region of a tile.
#[derive(Clone, PartialEq, Eq)]
pub struct Tensor {
    element: ElementType,
    rows: u32,
    cols: u32,
    bits: Vec<u64>,
}

impl Tensor {
    /// A tensor of `T`'s element type from `rows × cols` values, row-major; the number of
    /// values must be `rows × cols`. `bool` values make a predicate tensor.
    pub fn new<T: Element>(rows: u32, cols: u32, values: &[T]) -> Result<Tensor, TensorError> {
        Tensor::from_bits(
            T::ELEMENT,
            rows,
            cols,
            values.iter().map(|v| v.to_bits()).collect(),
        )
    }

    /// A tensor from a 2-D array (`[[f32; C]; R]`).
    pub fn from_array<T: Element, const R: usize, const C: usize>(rows: &[[T; C]; R]) -> Tensor {
        Tensor {
            element: T::ELEMENT,
            rows: R as u32,
            cols: C as u32,
            bits: rows.iter().flatten().map(|v| v.to_bits()).collect(),
        }
    }

    /// A tensor of any element type (a [`DataType`] for numeric elements, or
    /// [`ElementType::PREDICATE`]) from bit patterns at its carrier width, row-major.
    pub fn from_bits(
        element: impl Into<ElementType>,
        rows: u32,
        cols: u32,
        bits: Vec<u64>,
    ) -> Result<Tensor, TensorError> {
        let element = element.into();
        if bits.len() as u64 != rows as u64 * cols as u64 {
            return Err(TensorError::Length {
                rows,
                cols,
                len: bits.len(),
            });
        }
        let mask = element.mask();
        if let Some((index, &bits)) = bits.iter().enumerate().find(|(_, &b)| b & !mask != 0) {
            return Err(TensorError::Width {
                element,
                index,
                bits,
            });
        }
        Ok(Tensor {
            element,
            rows,
            cols,
            bits,
        })
    }

    /// A tensor from a host buffer: `rows × cols` elements, row-major, each the native-endian
    /// bytes of its carrier ([`ElementType::bytes`] each: a C `float` for FP32, `uint16_t`
    /// bits for BF16, `int8_t` for S8, a `uint8_t` 0 or 1 for a predicate).
    pub fn from_bytes(
        element: impl Into<ElementType>,
        rows: u32,
        cols: u32,
        bytes: &[u8],
    ) -> Result<Tensor, TensorError> {
        let element = element.into();
        let width = element.bytes();
        if bytes.len() as u64 != rows as u64 * cols as u64 * width as u64 {
            return Err(TensorError::Bytes {
                element,
                rows,
                cols,
                len: bytes.len(),
            });
        }
        let bits = bytes.chunks_exact(width).map(read_carrier).collect();
        Tensor::from_bits(element, rows, cols, bits)
    }

    /// The elements as a host buffer, the layout [`Tensor::from_bytes`] reads.
    pub fn to_bytes(&self) -> Vec<u8> {
        let width = self.element.bytes();
        let mut out = Vec::with_capacity(self.bits.len() * width);
        for &b in &self.bits {
            match width {
                1 => out.push(b as u8),
                2 => out.extend((b as u16).to_ne_bytes()),
                4 => out.extend((b as u32).to_ne_bytes()),
                _ => out.extend(b.to_ne_bytes()),
            }
        }
        out
    }

    /// The element type.
    pub fn element_type(&self) -> ElementType {
        self.element
    }

    /// The element's DataType ([`ptoc_isa::dtype::PREDICATE_DTYPE`] for a predicate; see
    /// [`Tensor::element_type`]).
    pub fn dtype(&self) -> DataType {
        self.element.dtype
    }

    /// Rows.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Columns.
    pub fn cols(&self) -> u32 {
        self.cols
    }

    /// `(rows, cols)`.
    pub fn shape(&self) -> (u32, u32) {
        (self.rows, self.cols)
    }

    /// Every element's bit pattern, row-major.
    pub fn bits(&self) -> &[u64] {
        &self.bits
    }

    /// The elements as `T`, row-major: `T` is the tensor's own type, or the unsigned integer of
    /// its width for raw bit patterns (a BF16 tensor reads as `half::bf16` or `u16`, a
    /// predicate as `bool` or `u8`).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>, TensorError> {
        if !T::ELEMENT.holds(self.element) {
            return Err(TensorError::DType {
                element: self.element,
                requested: host_name(T::ELEMENT),
            });
        }
        Ok(self.bits.iter().map(|&b| T::from_bits(b)).collect())
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Tensor<{}x{}x{}>{:x?}",
            self.rows,
            self.cols,
            self.element.mlir_name(),
            self.bits
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit patterns from the formats' definitions, not from the conversions under test.
    #[test]
    fn elements_round_trip_through_their_bit_patterns() {
        let t = Tensor::new(1, 3, &[1.0f32, -0.0, f32::INFINITY]).unwrap();
        assert_eq!(t.bits(), [0x3f80_0000, 0x8000_0000, 0x7f80_0000]);
        let t = Tensor::new(1, 2, &[-1i8, 127]).unwrap();
        assert_eq!(t.bits(), [0xff, 0x7f]);
        assert_eq!(t.to_vec::<i8>().unwrap(), [-1, 127]);
        assert_eq!(t.to_vec::<u8>().unwrap(), [0xff, 0x7f]);
        let t = Tensor::new(1, 1, &[-2i64]).unwrap();
        assert_eq!(t.bits(), [0xffff_ffff_ffff_fffe]);
        let t = Tensor::new(1, 1, &[half::f16::from_f32(1.0)]).unwrap();
        assert_eq!(t.bits(), [0x3c00]);
    }

    #[test]
    fn shapes_and_types_are_checked() {
        assert_eq!(
            Tensor::new(2, 2, &[1u8; 3]).unwrap_err(),
            TensorError::Length {
                rows: 2,
                cols: 2,
                len: 3
            }
        );
        let wide = Tensor::from_bits(DataType::E4M3, 1, 1, vec![0x100]).unwrap_err();
        assert_eq!(
            wide.to_string(),
            "element 0 is 0x100, wider than the 8-bit E4M3 element"
        );
        let tf32 = Tensor::from_bits(DataType::TF32, 1, 1, vec![0x3f80_0000]).unwrap();
        assert_eq!(tf32.to_vec::<u32>().unwrap(), [0x3f80_0000]);
        let e = tf32.to_vec::<f32>().unwrap_err().to_string();
        assert_eq!(
            e,
            "the tensor holds TF32 elements, which f32 does not hold; read them as u32 or as raw bits (u32)"
        );
        assert!(tf32.to_vec::<u16>().is_err());
        assert_eq!(Tensor::from_array(&[[1u16, 2], [3, 4]]).shape(), (2, 2));
    }

    /// A predicate's elements are 0 and 1, `bool` values or `u8` raw bits, one byte each in a
    /// host buffer; a numeric tensor is not a predicate, nor the other way round.
    #[test]
    fn predicates_are_unpacked_bits() {
        let p = Tensor::from_array(&[[true, false, true], [false, false, true]]);
        assert_eq!(p.element_type(), ElementType::PREDICATE);
        assert_eq!(p.bits(), [1, 0, 1, 0, 0, 1]);
        assert_eq!(p.to_bytes(), [1, 0, 1, 0, 0, 1]);
        assert_eq!(p.to_vec::<u8>().unwrap(), [1, 0, 1, 0, 0, 1]);
        let back = Tensor::from_bytes(ElementType::PREDICATE, 2, 3, &p.to_bytes()).unwrap();
        assert_eq!(back, p);
        assert_eq!(
            back.to_vec::<bool>().unwrap(),
            [true, false, true, false, false, true]
        );
        let two = Tensor::from_bytes(ElementType::PREDICATE, 1, 2, &[1, 2]).unwrap_err();
        assert_eq!(
            two.to_string(),
            "element 1 is 0x2, wider than the 1-bit PRED element"
        );
        let e = p.to_vec::<i8>().unwrap_err().to_string();
        assert_eq!(
            e,
            "the tensor holds PRED elements, which i8 does not hold; read them as bool or as raw bits (u8)"
        );
        // A u8 tensor holds a predicate's raw bits, but a predicate is not U8 values.
        let u8s = Tensor::new(1, 2, &[0u8, 1]).unwrap();
        assert!(ElementType::numeric(DataType::U8).holds(ElementType::PREDICATE));
        assert!(!ElementType::PREDICATE.holds(ElementType::numeric(DataType::U8)));
        assert!(u8s.to_vec::<bool>().is_err());
    }

    #[test]
    fn element_types_have_the_tile_type_and_metadata_spellings() {
        let f32 = ElementType::numeric(DataType::FP32);
        assert_eq!((f32.mlir_name(), f32.name()), ("f32", "FP32"));
        let p = ElementType::PREDICATE;
        assert_eq!((p.mlir_name(), p.name(), p.bytes()), ("i1", "PRED", 1));
        for name in ["i1", "PRED"] {
            assert_eq!(ElementType::parse(name), Some(p));
        }
        for name in ["f32", "FP32"] {
            assert_eq!(ElementType::parse(name), Some(f32));
        }
        assert_eq!(
            ElementType::parse("i8"),
            Some(ElementType::numeric(DataType::S8))
        );
        assert_eq!(ElementType::parse("bool"), None);
    }
}
