//! Typed tensors: the valid region of a kernel's argument or result as host values.
//!
//! A [`Tensor`] holds `rows × cols` elements of one [`DataType`], row-major, as bit patterns at
//! the type's carrier width, so it can carry every DataType the ISA defines. Host types that
//! hold a DataType's values exactly implement [`Element`] (`f64`, `f32`, `half::f16`,
//! `half::bf16`, `i8`…`i64`, `u8`…`u64`); the unsigned integer of an element's width reads and
//! writes raw bit patterns of any type (the way to handle `tf32`, `hf32`, `f8E4M3FN`, `f8E5M2`
//! and NaN payloads), the same rule as `ptoc run`'s `.npy` inputs.

use ptoc_isa::{DataType, TypeClass};
use std::fmt;

mod sealed {
    pub trait Sealed {}
}

/// A host type whose values are exactly the elements of one [`DataType`].
///
/// The unsigned integer types (`u8`, `u16`, `u32`, `u64`) also stand for the raw bit patterns
/// of any DataType of their width (see [`Tensor::to_vec`]).
pub trait Element: Copy + sealed::Sealed {
    /// The DataType whose elements this type holds.
    const DTYPE: DataType;
    /// The element's bit pattern at the carrier width.
    fn to_bits(self) -> u64;
    /// The element with this bit pattern (cut to the carrier width).
    fn from_bits(bits: u64) -> Self;
}

macro_rules! elements {
    ($( $ty:ty => $dtype:ident, |$v:ident| $to:expr, |$b:ident| $from:expr; )*) => {
        $(
            impl sealed::Sealed for $ty {}
            impl Element for $ty {
                const DTYPE: DataType = DataType::$dtype;
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
    f64 => FP64, |v| v.to_bits(), |b| f64::from_bits(b);
    f32 => FP32, |v| v.to_bits() as u64, |b| f32::from_bits(b as u32);
    half::f16 => FP16, |v| v.to_bits() as u64, |b| half::f16::from_bits(b as u16);
    half::bf16 => BF16, |v| v.to_bits() as u64, |b| half::bf16::from_bits(b as u16);
    i64 => S64, |v| v as u64, |b| b as i64;
    i32 => S32, |v| v as u32 as u64, |b| b as u32 as i32;
    i16 => S16, |v| v as u16 as u64, |b| b as u16 as i16;
    i8 => S8, |v| v as u8 as u64, |b| b as u8 as i8;
    u64 => U64, |v| v, |b| b;
    u32 => U32, |v| v as u64, |b| b as u32;
    u16 => U16, |v| v as u64, |b| b as u16;
    u8 => U8, |v| v as u64, |b| b as u8;
}

/// Can elements of `host` stand for elements of `dtype`? The same type, or the unsigned
/// integer type of its width (raw bit patterns).
pub fn holds(host: DataType, dtype: DataType) -> bool {
    host == dtype || (host.class() == TypeClass::Unsigned && host.bits() == dtype.bits())
}

/// The DataType a name spells: MLIR's element spelling (`f32`, `bf16`, `si8`, `i8`, `f8E4M3FN`)
/// or the spec's assembly name (`FP32`, `BF16`, `S8`, `E4M3`).
pub fn parse_dtype(name: &str) -> Option<DataType> {
    DataType::from_mlir_name(name).or_else(|| DataType::from_name(name))
}

/// How a DataType is spelled to embedders: MLIR's spelling where it has one (`f32`, `ui16`),
/// the spec's name otherwise (`HiF8`).
pub fn dtype_name(dtype: DataType) -> &'static str {
    dtype.mlir_name().unwrap_or(dtype.name())
}

/// Bytes one element takes in a host buffer: its carrier width, at least one byte.
pub fn element_bytes(dtype: DataType) -> usize {
    (dtype.bits() as usize).div_ceil(8)
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
    #[error("a {rows}x{cols} tensor of {} takes {} bytes ({} per element), the buffer has {len}", .dtype.name(), *rows as u64 * *cols as u64 * element_bytes(*.dtype) as u64, element_bytes(*.dtype))]
    Bytes {
        /// The element type.
        dtype: DataType,
        /// Rows asked for.
        rows: u32,
        /// Columns asked for.
        cols: u32,
        /// Bytes given.
        len: usize,
    },
    /// A bit pattern wider than the element type.
    #[error("element {index} is 0x{bits:x}, wider than the {}-bit {} element", .dtype.bits(), .dtype.name())]
    Width {
        /// The tensor's element type.
        dtype: DataType,
        /// The row-major index of the element.
        index: usize,
        /// Its bits.
        bits: u64,
    },
    /// The elements are read (or given) as a host type that does not hold them.
    #[error("the tensor holds {} elements, which {requested} does not hold; read them as {} or as raw bits ({})", .dtype.name(), host_name(*.dtype), raw_name(*.dtype))]
    DType {
        /// The tensor's element type.
        dtype: DataType,
        /// The host element type asked for (its DataType name).
        requested: &'static str,
    },
}

/// The Rust host type of a DataType's values, or `none` when Rust has none.
fn host_name(dtype: DataType) -> &'static str {
    match dtype {
        DataType::FP64 => "f64",
        DataType::FP32 => "f32",
        DataType::FP16 => "half::f16",
        DataType::BF16 => "half::bf16",
        DataType::S64 => "i64",
        DataType::S32 => "i32",
        DataType::S16 => "i16",
        DataType::S8 => "i8",
        _ => raw_name(dtype),
    }
}

/// The unsigned integer type of a DataType's width.
fn raw_name(dtype: DataType) -> &'static str {
    match dtype.bits() {
        64 => "u64",
        32 => "u32",
        16 => "u16",
        8 => "u8",
        _ => "Tensor::bits",
    }
}

/// `rows × cols` elements of one DataType, row-major: the valid region of a tile.
#[derive(Clone, PartialEq, Eq)]
pub struct Tensor {
    dtype: DataType,
    rows: u32,
    cols: u32,
    bits: Vec<u64>,
}

impl Tensor {
    /// A tensor of `T`'s DataType from `rows × cols` values, row-major; the number of values
    /// must be `rows × cols`.
    pub fn new<T: Element>(rows: u32, cols: u32, values: &[T]) -> Result<Tensor, TensorError> {
        Tensor::from_bits(
            T::DTYPE,
            rows,
            cols,
            values.iter().map(|v| v.to_bits()).collect(),
        )
    }

    /// A tensor from a 2-D array (`[[f32; C]; R]`).
    pub fn from_array<T: Element, const R: usize, const C: usize>(rows: &[[T; C]; R]) -> Tensor {
        Tensor {
            dtype: T::DTYPE,
            rows: R as u32,
            cols: C as u32,
            bits: rows.iter().flatten().map(|v| v.to_bits()).collect(),
        }
    }

    /// A tensor of any DataType from bit patterns at its carrier width, row-major.
    pub fn from_bits(
        dtype: DataType,
        rows: u32,
        cols: u32,
        bits: Vec<u64>,
    ) -> Result<Tensor, TensorError> {
        if bits.len() as u64 != rows as u64 * cols as u64 {
            return Err(TensorError::Length {
                rows,
                cols,
                len: bits.len(),
            });
        }
        let mask = dtype.carrier_mask();
        if let Some((index, &bits)) = bits.iter().enumerate().find(|(_, &b)| b & !mask != 0) {
            return Err(TensorError::Width { dtype, index, bits });
        }
        Ok(Tensor {
            dtype,
            rows,
            cols,
            bits,
        })
    }

    /// A tensor from a host buffer: `rows × cols` elements, row-major, each the native-endian
    /// bytes of its carrier ([`element_bytes`] each: a C `float` for FP32, `uint16_t` bits for
    /// BF16, `int8_t` for S8).
    pub fn from_bytes(
        dtype: DataType,
        rows: u32,
        cols: u32,
        bytes: &[u8],
    ) -> Result<Tensor, TensorError> {
        let width = element_bytes(dtype);
        if bytes.len() as u64 != rows as u64 * cols as u64 * width as u64 {
            return Err(TensorError::Bytes {
                dtype,
                rows,
                cols,
                len: bytes.len(),
            });
        }
        let bits = bytes.chunks_exact(width).map(read_carrier).collect();
        Tensor::from_bits(dtype, rows, cols, bits)
    }

    /// The elements as a host buffer, the layout [`Tensor::from_bytes`] reads.
    pub fn to_bytes(&self) -> Vec<u8> {
        let width = element_bytes(self.dtype);
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
    pub fn dtype(&self) -> DataType {
        self.dtype
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
    /// its width for raw bit patterns (a BF16 tensor reads as `half::bf16` or `u16`).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>, TensorError> {
        if !holds(T::DTYPE, self.dtype) {
            return Err(TensorError::DType {
                dtype: self.dtype,
                requested: host_name(T::DTYPE),
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
            self.dtype.mlir_name().unwrap_or(self.dtype.name()),
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
}
