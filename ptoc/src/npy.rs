//! `.npy` files in and out of tiles (through the `npyz` crate).
//!
//! An input whose dtype matches the tile's element type gives values (`float32` for FP32, `int8`
//! for S8, …); an unsigned-integer array of the element's width gives raw bit patterns for any
//! type — the only way to feed BF16, TF32, HF32, E4M3, E5M2 and NaN payloads. Inputs cover the
//! valid region: a 2-D array of exactly `valid_rows × valid_cols` (or 1-D of that many elements).
//! Outputs are the valid region, typed where numpy has the type and raw bits otherwise.

use npyz::{DType, NpyFile, TypeChar, WriterBuilder};
use ptoc_isa::{DataType, TypeClass};

/// How numpy spells an element: its kind and byte size.
fn numpy_kind(dtype: DataType) -> (TypeChar, usize) {
    let bytes = (dtype.bits() / 8).max(1) as usize;
    match dtype {
        DataType::FP64 | DataType::FP32 | DataType::FP16 => (TypeChar::Float, bytes),
        _ if dtype.class() == TypeClass::Signed => (TypeChar::Int, bytes),
        _ => (TypeChar::Uint, bytes),
    }
}

/// Read an input for a `valid_rows × valid_cols` region of `dtype` elements, as carrier bits.
pub fn read_input(
    bytes: &[u8],
    dtype: DataType,
    valid_rows: u32,
    valid_cols: u32,
) -> Result<Vec<u64>, String> {
    let file = NpyFile::new(bytes).map_err(|e| format!("not a readable .npy file: {e}"))?;
    let shape = file.shape().to_vec();
    let want = valid_rows as u64 * valid_cols as u64;
    let fits = match shape.as_slice() {
        [r, c] => (*r, *c) == (valid_rows as u64, valid_cols as u64),
        [n] => *n == want,
        _ => false,
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
    if (kind, size) != (want_kind, want_size) && !raw_ok {
        return Err(format!(
            "dtype '{ts}' does not match {dtype}: give {} values or uint{} bit patterns",
            describe(want_kind, want_size),
            dtype.bits()
        ));
    }
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
        _ => return Err(format!("unsupported dtype '{ts}'")),
    }?;
    Ok(bits.into_iter().map(|b| b & mask).collect())
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

    #[test]
    fn typed_and_raw_round_trips() {
        let bits = [0x3F80_0000u64, 0xBF80_0000, 0x7FC0_0001, 0];
        let npy = write_output(DataType::FP32, 2, 2, &bits).unwrap();
        assert_eq!(read_input(&npy, DataType::FP32, 2, 2).unwrap(), bits);
        // BF16 goes out as uint16 bit patterns and comes back as such.
        let npy = write_output(DataType::BF16, 1, 3, &[0x3F80, 0x7FC1, 0xFF80]).unwrap();
        assert_eq!(
            read_input(&npy, DataType::BF16, 1, 3).unwrap(),
            [0x3F80, 0x7FC1, 0xFF80]
        );
        // Signed values are cut to the element width.
        let npy = write_output(DataType::S8, 1, 2, &[0xFF, 0x80]).unwrap();
        assert_eq!(read_input(&npy, DataType::S8, 1, 2).unwrap(), [0xFF, 0x80]);
    }

    #[test]
    fn mismatches_are_explained() {
        let npy = write_output(DataType::FP32, 2, 2, &[0; 4]).unwrap();
        let e = read_input(&npy, DataType::FP16, 2, 2).unwrap_err();
        assert!(
            e.contains("give float16 values or uint16 bit patterns"),
            "{e}"
        );
        let e = read_input(&npy, DataType::FP32, 4, 1).unwrap_err();
        assert!(e.contains("does not cover the 4x1 valid region"), "{e}");
        assert!(read_input(b"garbage", DataType::FP32, 1, 1).is_err());
    }
}
