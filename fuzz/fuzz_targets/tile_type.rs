//! Arbitrary text into the `!pto.tile<…>` parser: it must never panic, and whatever it accepts
//! must print and parse back to the same type.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptoc_ir::TileType;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(ty) = TileType::parse(text) {
            let printed = ty.to_string();
            assert_eq!(TileType::parse(&printed).as_ref(), Ok(&ty), "{printed}");
        }
    }
});
