//! Spellings shared by the assembly printer and parser: GPR, Layout, CMode and RMode names, and
//! how names in directives are quoted.

use ptoc_isa::encoding::LAYOUT_CODES;

pub use ptoc_isa::scalar::GPR_NAMES;

/// B.DATR Layout names, in the order of [`LAYOUT_CODES`].
const LAYOUT_NAMES: [&str; 19] = [
    "NORM", "ND2DN", "ND2ZN", "ND2NZ", "DN2ND", "DN2ZN", "DN2NZ", "ZN2ND", "ZN2DN", "ZN2NZ",
    "ND2M32", "ND2M16", "ND2N8", "M322ND", "M162ND", "N82ND", "NZ2ND", "NZ2DN", "NZ2ZN",
];

/// B.DATR RMode names by code; `RTM`/`RTP` are accepted for 3/4.
pub const RMODE_NAMES: [&str; 8] = ["Default", "RNE", "RTZ", "RDN", "RUP", "RNA", "RTO", "RHB"];

/// The B.DATR DataType name for code 31.
pub const DTYPE_NONE_NAME: &str = "DTYPE_NONE";

pub fn gpr_name(code: u8) -> String {
    GPR_NAMES
        .get(code as usize)
        .map_or_else(|| format!("x{code}?"), |n| n.to_string())
}

pub fn gpr_by_name(name: &str) -> Option<u8> {
    GPR_NAMES.iter().position(|&n| n == name).map(|i| i as u8)
}

pub fn layout_name(code: u8) -> Option<&'static str> {
    LAYOUT_CODES
        .iter()
        .position(|&c| c == code as u32)
        .map(|i| LAYOUT_NAMES[i])
}

pub fn layout_by_name(name: &str) -> Option<u8> {
    LAYOUT_NAMES
        .iter()
        .position(|n| n.eq_ignore_ascii_case(name))
        .map(|i| LAYOUT_CODES[i] as u8)
}

/// B.DATR CMode by name (`ptoc_isa::CmpMode::name`); the spec's examples also write `None` for 0.
pub fn cmode_by_name(name: &str) -> Option<u8> {
    if name.eq_ignore_ascii_case("None") {
        return Some(0);
    }
    ptoc_isa::CmpMode::ALL
        .iter()
        .find(|m| m.name().eq_ignore_ascii_case(name))
        .map(|m| m.code())
}

pub fn rmode_by_name(name: &str) -> Option<u8> {
    let alias = match name.to_ascii_uppercase().as_str() {
        "RTM" => Some(3),
        "RTP" => Some(4),
        _ => None,
    };
    alias.or_else(|| {
        RMODE_NAMES
            .iter()
            .position(|n| n.eq_ignore_ascii_case(name))
            .map(|i| i as u8)
    })
}

/// A name printed bare in directives: `[A-Za-z_][A-Za-z0-9_.$]*`; anything else is quoted.
pub fn is_plain_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'))
}

/// A directive name: bare when plain, else a `"…"` string with `\"`, `\\` and `\u{…}` escapes.
pub fn quote_name(name: &str) -> String {
    if is_plain_name(name) {
        return name.to_string();
    }
    let mut out = String::from("\"");
    for c in name.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_consistent() {
        for &code in LAYOUT_CODES {
            let name = layout_name(code as u8).unwrap();
            assert_eq!(layout_by_name(name), Some(code as u8));
        }
        for (i, n) in GPR_NAMES.iter().enumerate() {
            assert_eq!(gpr_by_name(n), Some(i as u8));
        }
        assert_eq!(rmode_by_name("RTP"), Some(4));
        assert_eq!(cmode_by_name("None"), Some(0));
        assert_eq!(quote_name("softmax_rows"), "softmax_rows");
        assert_eq!(quote_name("a b\"\n"), "\"a b\\\"\\u{a}\"");
    }
}
