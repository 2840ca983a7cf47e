//! Arbitrary bytes as a `.npy` argument file: the reader must never panic or allocate from what
//! the file claims; whatever it accepts has exactly the region's element count, each element
//! within the carrier's width.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptoc_isa::{DataType, Storage};

// The reader is the CLI's own module, compiled here without the MLIR front end it sits beside.
#[path = "../../ptoc/src/cli/npy.rs"]
#[allow(dead_code)]
mod npy;

const TYPES: [DataType; 6] = [
    DataType::FP32,
    DataType::FP16,
    DataType::BF16,
    DataType::S8,
    DataType::U16,
    DataType::FP64,
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    // One selector value past the numeric types reads a predicate (bool or uint8 0/1).
    let (dtype, storage) = match TYPES.get(selector as usize % (TYPES.len() + 1)) {
        Some(&t) => (t, Storage::Numeric),
        None => (DataType::U8, Storage::Predicate),
    };
    let (rows, cols) = (1 + (selector as u32 >> 3) % 4, 1 + (selector as u32 >> 5) % 4);
    if let Ok(bits) = npy::read_input(bytes, dtype, storage, rows, cols) {
        assert_eq!(bits.len(), (rows * cols) as usize);
        assert!(bits.iter().all(|&b| b & !dtype.carrier_mask() == 0));
    }
});
