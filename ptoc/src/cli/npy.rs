//! `.npy` files in and out of tiles (through the `npyz` crate).
//!
//! An input whose dtype matches the tile's element type gives values (`float32` for FP32, `int8`
//! for S8, …); an unsigned-integer array of the element's width gives raw bit patterns for any
//! type — the only way to feed BF16, TF32, HF32, E4M3, E5M2 and NaN payloads. Inputs cover the
//! valid region: a 2-D array of exactly `valid_rows × valid_cols` (or 1-D of that many elements),
//! in C or Fortran order, either byte order. A file that is not exactly what its header says
//! (truncated or extra data, an oversized header, a pickled object array) is refused.
//! A predicate tile's input is numpy `bool` or `uint8` 0s and 1s, one per element (docs/isa.md §9
//! decision 30). Outputs are the valid region, typed where numpy has the type and raw bits
//! otherwise.

use npyz::{DType, NpyFile, Order, TypeChar, WriterBuilder};
use ptoc_isa::{DataType, Storage, TypeClass};

/// How numpy spells an element: its kind and byte size.
fn numpy_kind(dtype: DataType) -> (TypeChar, usize) {
    let bytes = (dtype.bits() / 8).max(1) as usize;
    match dtype {
        DataType::FP64 | DataType::FP32 | DataType::FP16 => (TypeChar::Float, bytes),
        _ if dtype.class() == TypeClass::Signed => (TypeChar::Int, bytes),
        _ => (TypeChar::Uint, bytes),
    }
}

/// numpy's own bound on a header (`numpy.lib.format`'s `max_header_size`): a header is a short
/// dict literal, and a longer one is refused before it is parsed.
const MAX_HEADER_BYTES: usize = 10_000;

/// The deepest bracket nesting a header may have. A plain-dtype header nests two levels (the
/// dict and its shape tuple); structured dtypes, which are no tile data, nest deeper. The literal
/// parser behind `npyz` backtracks exponentially on unclosed brackets, so the header must also
/// balance before it is handed over.
const MAX_HEADER_NESTING: usize = 4;

/// Brackets outside quoted strings balance and nest at most [`MAX_HEADER_NESTING`] deep.
fn check_header_brackets(header: &[u8]) -> Result<(), String> {
    let mut open = Vec::new();
    let mut quote = None;
    let mut bytes = header.iter();
    while let Some(&b) = bytes.next() {
        match (quote, b) {
            (Some(_), b'\\') => {
                bytes.next();
            }
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(b),
            (None, b'(' | b'[' | b'{') => {
                open.push(b);
                if open.len() > MAX_HEADER_NESTING {
                    return Err(format!(
                        "the header nests deeper than {MAX_HEADER_NESTING} levels; a .npy header of \
                         tile data is a flat dict"
                    ));
                }
            }
            (None, b')' | b']' | b'}') => {
                let opener = match b {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                if open.pop() != Some(opener) {
                    return Err("the header's brackets do not balance".into());
                }
            }
            (None, _) => {}
        }
    }
    if open.is_empty() && quote.is_none() {
        Ok(())
    } else {
        Err("the header's brackets or quotes are not closed".into())
    }
}

/// The byte offset of the array data, after checking the preamble against the file's length:
/// magic, a version numpy defines (1.0, 2.0, 3.0), a header length that fits both the file and
/// [`MAX_HEADER_BYTES`], and a header whose brackets balance within [`MAX_HEADER_NESTING`]
/// levels. Nothing is allocated from what the file claims.
fn data_offset(bytes: &[u8]) -> Result<usize, String> {
    if !bytes.starts_with(b"\x93NUMPY") || bytes.len() < 8 {
        return Err("not a .npy file: it does not start with the \\x93NUMPY magic".into());
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let width = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => {
            return Err(format!(
                "unsupported .npy format version {major}.{minor} (numpy writes 1.0, 2.0 and 3.0)"
            ))
        }
    };
    let Some(field) = bytes.get(8..8 + width) else {
        return Err("truncated .npy preamble: the header length is cut off".into());
    };
    let declared = field
        .iter()
        .rev()
        .fold(0usize, |n, &b| (n << 8) | b as usize);
    let header_start = 8 + width;
    if declared > MAX_HEADER_BYTES {
        return Err(format!(
            "the header declares {declared} bytes; numpy refuses headers over {MAX_HEADER_BYTES} \
             bytes, and so does ptoc"
        ));
    }
    let Some(header) = bytes.get(header_start..header_start + declared) else {
        return Err(format!(
            "the header declares {declared} bytes but the file holds only {} after the preamble",
            bytes.len() - header_start
        ));
    };
    check_header_brackets(header)?;
    Ok(header_start + declared)
}

/// Read an input for a `valid_rows × valid_cols` region of `dtype` elements stored as `storage`,
/// as carrier bits in row-major order (for a predicate, one 0 or 1 per element). Every claim of
/// the file (header length, shape, dtype, data length, order) is checked against the file and the
/// region before any data is read; `fortran_order` arrays are transposed into row-major order.
pub fn read_input(
    bytes: &[u8],
    dtype: DataType,
    storage: Storage,
    valid_rows: u32,
    valid_cols: u32,
) -> Result<Vec<u64>, String> {
    let offset = data_offset(bytes)?;
    let file = NpyFile::new(bytes).map_err(|e| format!("not a readable .npy file: {e}"))?;
    if file.uses_pickled_array() {
        return Err(
            "an object array (pickled Python objects) is not tile data; save a numeric array"
                .into(),
        );
    }
    let shape = file.shape().to_vec();
    let want = valid_rows as u64 * valid_cols as u64;
    // A linalg tensor of rank 3 or more is its memref's grid in row-major order (README,
    // linalg-on-tensors input: batch dimensions); a Fortran-order one is not.
    let elements = shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
    let fits = match shape.as_slice() {
        [r, c] => (*r, *c) == (valid_rows as u64, valid_cols as u64),
        [n] => *n == want,
        [] => false,
        _ => elements == Some(want) && file.order() != Order::Fortran,
    };
    if !fits {
        return Err(format!(
            "array shape {shape:?} does not cover the {valid_rows}x{valid_cols} valid region"
        ));
    }
    let DType::Plain(ts) = file.dtype() else {
        return Err("structured or array dtypes are not tile data".into());
    };
    let (kind, size) = (ts.type_char(), ts.size_field() as usize);
    let (want_kind, want_size) = numpy_kind(dtype);
    let raw_ok = kind == TypeChar::Uint && size * 8 == dtype.bits() as usize;
    match storage {
        // numpy's `bool` (`|b1`) is the natural mask type; `uint8` 0/1 are the carriers.
        Storage::Predicate if (kind, size) == (TypeChar::Bool, 1) || raw_ok => {}
        Storage::Predicate => {
            return Err(format!(
                "dtype '{ts}' is not a predicate: give bool values or uint8 0s and 1s"
            ))
        }
        Storage::Numeric if (kind, size) == (want_kind, want_size) || raw_ok => {}
        Storage::Numeric => {
            return Err(format!(
                "dtype '{ts}' does not match {dtype}: give {} values or uint{} bit patterns",
                describe(want_kind, want_size),
                dtype.bits()
            ))
        }
    }
    let (need, held) = (
        want.saturating_mul(size as u64),
        (bytes.len() - offset) as u64,
    );
    if held != need {
        let what = if held < need { "truncated" } else { "too long" };
        return Err(format!(
            "{what}: the {shape:?} '{ts}' array is {need} bytes of data, the file holds {held}"
        ));
    }
    let fortran = file.order() == Order::Fortran;
    let mask = dtype.carrier_mask();
    let bits: Vec<u64> = match (kind, size) {
        (TypeChar::Float, 8) => to_bits(file.into_vec::<f64>(), f64::to_bits),
        (TypeChar::Float, 4) => to_bits(file.into_vec::<f32>(), |v| v.to_bits() as u64),
        (TypeChar::Float, 2) => to_bits(file.into_vec::<half::f16>(), |v| v.to_bits() as u64),
        (TypeChar::Int, 8) => to_bits(file.into_vec::<i64>(), |v| v as u64),
        (TypeChar::Int, 4) => to_bits(file.into_vec::<i32>(), |v| v as u64),
        (TypeChar::Int, 2) => to_bits(file.into_vec::<i16>(), |v| v as u64),
        (TypeChar::Int, 1) => to_bits(file.into_vec::<i8>(), |v| v as u64),
        (TypeChar::Uint, 8) => to_bits(file.into_vec::<u64>(), |v| v),
        (TypeChar::Uint, 4) => to_bits(file.into_vec::<u32>(), |v| v as u64),
        (TypeChar::Uint, 2) => to_bits(file.into_vec::<u16>(), |v| v as u64),
        (TypeChar::Uint, 1) => to_bits(file.into_vec::<u8>(), |v| v as u64),
        // npyz refuses a bool byte other than 0 or 1.
        (TypeChar::Bool, 1) => to_bits(file.into_vec::<bool>(), u64::from),
        _ => return Err(format!("unsupported dtype '{ts}'")),
    }?;
    let bits = match shape.as_slice() {
        [rows, cols] if fortran => column_major_to_row_major(&bits, *rows as usize, *cols as usize),
        _ => bits,
    };
    Ok(bits.into_iter().map(|b| b & mask).collect())
}

/// A `rows × cols` array stored column after column (`fortran_order: True`), row after row.
fn column_major_to_row_major(values: &[u64], rows: usize, cols: usize) -> Vec<u64> {
    (0..rows)
        .flat_map(|r| (0..cols).map(move |c| values[c * rows + r]))
        .collect()
}

fn describe(kind: TypeChar, size: usize) -> String {
    let name = match kind {
        TypeChar::Float => "float",
        TypeChar::Int => "int",
        _ => "uint",
    };
    format!("{name}{}", size * 8)
}

fn to_bits<T>(values: std::io::Result<Vec<T>>, f: impl Fn(T) -> u64) -> Result<Vec<u64>, String> {
    values
        .map(|v| v.into_iter().map(f).collect())
        .map_err(|e| format!("cannot read the array data: {e}"))
}

/// A `.npy` file holding `rows × cols` carriers of `dtype`, typed where numpy has the type.
pub fn write_output(
    dtype: DataType,
    rows: u32,
    cols: u32,
    bits: &[u64],
) -> std::io::Result<Vec<u8>> {
    let shape = [rows as u64, cols as u64];
    let mut out = Vec::new();
    macro_rules! write_as {
        ($t:ty, $conv:expr) => {{
            let mut w = npyz::WriteOptions::<$t>::new()
                .default_dtype()
                .shape(&shape)
                .writer(&mut out)
                .begin_nd()?;
            w.extend(bits.iter().map(|&b| $conv(b)))?;
            w.finish()?;
        }};
    }
    match numpy_kind(dtype) {
        (TypeChar::Float, 8) => write_as!(f64, f64::from_bits),
        (TypeChar::Float, 4) => write_as!(f32, |b: u64| f32::from_bits(b as u32)),
        (TypeChar::Float, 2) => write_as!(half::f16, |b: u64| half::f16::from_bits(b as u16)),
        (TypeChar::Int, 8) => write_as!(i64, |b: u64| b as i64),
        (TypeChar::Int, 4) => write_as!(i32, |b: u64| b as i32),
        (TypeChar::Int, 2) => write_as!(i16, |b: u64| b as i16),
        (TypeChar::Int, _) => write_as!(i8, |b: u64| b as i8),
        (_, 8) => write_as!(u64, |b: u64| b),
        (_, 4) => write_as!(u32, |b: u64| b as u32),
        (_, 2) => write_as!(u16, |b: u64| b as u16),
        _ => write_as!(u8, |b: u64| b as u8),
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NUM: Storage = Storage::Numeric;
    const PRED: Storage = Storage::Predicate;

    #[test]
    fn typed_and_raw_round_trips() {
        let bits = [0x3F80_0000u64, 0xBF80_0000, 0x7FC0_0001, 0];
        let npy = write_output(DataType::FP32, 2, 2, &bits).unwrap();
        assert_eq!(read_input(&npy, DataType::FP32, NUM, 2, 2).unwrap(), bits);
        // BF16 goes out as uint16 bit patterns and comes back as such.
        let npy = write_output(DataType::BF16, 1, 3, &[0x3F80, 0x7FC1, 0xFF80]).unwrap();
        assert_eq!(
            read_input(&npy, DataType::BF16, NUM, 1, 3).unwrap(),
            [0x3F80, 0x7FC1, 0xFF80]
        );
        // Signed values are cut to the element width.
        let npy = write_output(DataType::S8, 1, 2, &[0xFF, 0x80]).unwrap();
        assert_eq!(
            read_input(&npy, DataType::S8, NUM, 1, 2).unwrap(),
            [0xFF, 0x80]
        );
    }

    #[test]
    fn mismatches_are_explained() {
        let npy = write_output(DataType::FP32, 2, 2, &[0; 4]).unwrap();
        let e = read_input(&npy, DataType::FP16, NUM, 2, 2).unwrap_err();
        assert!(
            e.contains("give float16 values or uint16 bit patterns"),
            "{e}"
        );
        let e = read_input(&npy, DataType::FP32, NUM, 4, 1).unwrap_err();
        assert!(e.contains("does not cover the 4x1 valid region"), "{e}");
        assert!(read_input(b"garbage", DataType::FP32, NUM, 1, 1).is_err());
    }

    /// A `.npy` file written by hand from the format's definition (numpy's `NEP 1`): magic,
    /// version, little-endian header length, a dict literal padded with spaces to a multiple of
    /// 64 bytes and ended by a newline, then the data.
    fn npy(major: u8, header: &str, data: &[u8]) -> Vec<u8> {
        let width = if major == 1 { 2 } else { 4 };
        let unpadded = 8 + width + header.len() + 1;
        let padded = format!("{header}{}\n", " ".repeat((64 - unpadded % 64) % 64));
        let mut out = b"\x93NUMPY".to_vec();
        out.extend([major, 0]);
        let len = padded.len() as u32;
        out.extend(&len.to_le_bytes()[..width]);
        out.extend(padded.as_bytes());
        out.extend(data);
        out
    }

    fn f32_bytes(values: &[f32], big_endian: bool) -> Vec<u8> {
        let bytes = |v: &f32| {
            if big_endian {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        values.iter().flat_map(bytes).collect()
    }

    /// `fortran_order: True` used to be read as C order (wrong numbers, exit 0).
    #[test]
    fn fortran_order_and_big_endian_arrays_are_read_exactly() {
        // The 2x3 matrix [[1, 2, 3], [4, 5, 6]], stored column after column.
        let header = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }";
        let file = npy(
            1,
            header,
            &f32_bytes(&[1.0, 4.0, 2.0, 5.0, 3.0, 6.0], false),
        );
        let want: Vec<u64> = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]
            .iter()
            .map(|v| v.to_bits() as u64)
            .collect();
        assert_eq!(read_input(&file, DataType::FP32, NUM, 2, 3).unwrap(), want);
        let header = "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }";
        let file = npy(2, header, &f32_bytes(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], true));
        assert_eq!(read_input(&file, DataType::FP32, NUM, 2, 3).unwrap(), want);
    }

    /// A linalg tensor of rank 3 is its memref's grid in row-major order; stored column-major
    /// it is not, and is refused rather than read in the wrong order.
    #[test]
    fn a_c_order_array_of_rank_3_fills_its_grid() {
        let values: Vec<f32> = (0..12).map(|i| i as f32).collect();
        let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 2), }";
        let file = npy(1, header, &f32_bytes(&values, false));
        let want: Vec<u64> = values.iter().map(|v| v.to_bits() as u64).collect();
        assert_eq!(read_input(&file, DataType::FP32, NUM, 6, 2).unwrap(), want);
        assert!(read_input(&file, DataType::FP32, NUM, 4, 2).is_err());
        let header = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3, 2), }";
        let file = npy(1, header, &f32_bytes(&values, false));
        assert!(read_input(&file, DataType::FP32, NUM, 6, 2).is_err());
    }

    /// Each claim of the file is checked against the file before anything is allocated from it
    /// (a 4 GiB header length used to allocate 4 GiB and abort).
    #[test]
    fn files_that_are_not_what_they_say_are_refused() {
        let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
        let data = f32_bytes(&[1.0; 4], false);
        let good = npy(1, header, &data);
        assert!(read_input(&good, DataType::FP32, NUM, 2, 2).is_ok());
        let mut huge = npy(2, header, &data);
        huge[8..12].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        let mut past_end = good.clone();
        past_end[8..10].copy_from_slice(&9000u16.to_le_bytes());
        let mut version = good.clone();
        version[6] = 5;
        let nested = format!(
            "{{'descr': '<f4', 'x': {}{}, 'shape': (2, 2), }}",
            "[".repeat(20),
            "]".repeat(20)
        );
        let object = "{'descr': '|O', 'fortran_order': False, 'shape': (2, 2), }";
        let unclosed = "{'descr': '<f4', {{{{{{{{{{{{M";
        let cases: [(Vec<u8>, &str); 12] = [
            (
                huge,
                "the header declares 4294967280 bytes; numpy refuses headers over 10000",
            ),
            (
                past_end,
                "the header declares 9000 bytes but the file holds only",
            ),
            (version, "unsupported .npy format version 5.0"),
            (good[..9].to_vec(), "the header length is cut off"),
            (Vec::new(), "not a .npy file"),
            (
                good[..good.len() - 3].to_vec(),
                "truncated: the [2, 2] '<f4' array is 16 bytes of data, the file holds 13",
            ),
            (
                [good.clone(), vec![0]].concat(),
                "too long: the [2, 2] '<f4' array is 16 bytes of data, the file holds 17",
            ),
            (npy(1, &nested, &data), "nests deeper than 4 levels"),
            // Twelve unclosed braces took the literal parser 16 s (found by the npy_input fuzzer).
            (npy(1, unclosed, &data), "nests deeper than 4 levels"),
            (
                npy(1, &header.replace("(2, 2)", "(2, 2]"), &data),
                "do not balance",
            ),
            (
                npy(1, object, &[0; 32]),
                "an object array (pickled Python objects) is not tile data",
            ),
            (
                npy(1, &header.replace("<f4", "<i4"), &data),
                "dtype '<i4' does not match FP32",
            ),
        ];
        for (bytes, want) in cases {
            let err = read_input(&bytes, DataType::FP32, NUM, 2, 2).unwrap_err();
            assert!(err.contains(want), "{err} (wanted {want})");
        }
        let err = read_input(&good, DataType::FP32, NUM, 4, 1).unwrap_err();
        assert!(err.contains("does not cover the 4x1 valid region"), "{err}");
    }

    /// A predicate argument takes numpy's `bool` (`|b1`, one byte 0 or 1 each) as well as
    /// `uint8` 0/1; a numeric tile does not take `bool`.
    #[test]
    fn predicates_read_bool_arrays() {
        let header = "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 3), }";
        let file = npy(1, header, &[1, 0, 1, 1, 0, 0]);
        let pred = |bytes: &[u8]| read_input(bytes, DataType::U8, PRED, 2, 3);
        assert_eq!(pred(&file).unwrap(), [1, 0, 1, 1, 0, 0]);
        // Column after column: [[1, 0, 1], [1, 0, 0]] stored as 1 1 0 0 1 0.
        let fortran = header.replace("False", "True");
        assert_eq!(
            pred(&npy(1, &fortran, &[1, 1, 0, 0, 1, 0])).unwrap(),
            [1, 0, 1, 1, 0, 0]
        );
        // uint8 0/1 still works; a bool byte that is neither 0 nor 1 is not a bool.
        let u8_header = header.replace("|b1", "|u1");
        assert_eq!(
            pred(&npy(1, &u8_header, &[0, 1, 1, 0, 0, 1])).unwrap(),
            [0, 1, 1, 0, 0, 1]
        );
        let err = pred(&npy(1, header, &[1, 0, 2, 1, 0, 0])).unwrap_err();
        assert!(err.contains("cannot read the array data"), "{err}");
        let f4 = header.replace("|b1", "<f4");
        let err = pred(&npy(1, &f4, &[0; 24])).unwrap_err();
        assert!(
            err.contains("'<f4' is not a predicate: give bool values or uint8 0s and 1s"),
            "{err}"
        );
        let err = read_input(&file, DataType::U8, NUM, 2, 3).unwrap_err();
        assert!(err.contains("dtype '|b1' does not match U8"), "{err}");
    }
}
