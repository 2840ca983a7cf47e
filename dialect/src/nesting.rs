//! A bound on bracket nesting, checked before MLIR sees the text.
//!
//! MLIR's parser, verifier and destructor recurse once per nested attribute, type or region and
//! have no depth limit of their own: a few thousand levels overflow an 8 MiB stack (mlir-opt
//! crashes the same way). ptoc counts the depth of `( [ { <` in one linear scan that skips
//! strings, comments and `->`, and refuses a buffer that nests deeper than [`MAX_NESTING`], so
//! the recursion is bounded by a depth that fits the parse stack ([`crate::mlir::PARSE_STACK_BYTES`]).

use ptoc_ir::{Diagnostic, Location, Source};

/// The deepest bracket nesting ptoc parses. Real IR nests a few dozen levels (a region is two:
/// `({`); this leaves room for generated code while keeping MLIR's recursion well inside its stack.
pub const MAX_NESTING: usize = 1000;

/// An error at the first bracket that nests deeper than [`MAX_NESTING`], if any.
pub fn check_nesting(source: &Source) -> Result<(), Diagnostic> {
    let bytes = source.text.as_bytes();
    let (mut depth, mut line, mut line_start, mut i) = (0usize, 0u32, 0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b'"' => {
                // A string: skip to its closing quote (past `\"` escapes), never past its line.
                i += 1;
                while i < bytes.len() && !matches!(bytes[i], b'"' | b'\n') {
                    let escaped =
                        bytes[i] == b'\\' && bytes.get(i + 1).is_some_and(|&b| b != b'\n');
                    i += if escaped { 2 } else { 1 };
                }
                if i < bytes.len() && bytes[i] == b'\n' {
                    continue;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'-' if bytes.get(i + 1) == Some(&b'>') => i += 1,
            b'>' if bytes.get(i + 1) == Some(&b'=') => i += 1,
            b'(' | b'[' | b'{' | b'<' => {
                depth += 1;
                if depth > MAX_NESTING {
                    let col = source.text[line_start..i].chars().count() as u32 + 1;
                    let loc = Location::new(source.file, source.first_line + line, col);
                    return Err(Diagnostic::error(
                        loc,
                        format!(
                            "brackets nest deeper than {MAX_NESTING} levels here; ptoc refuses \
                             such input before MLIR's recursive parser could exhaust its stack \
                             (flatten the nesting)"
                        ),
                    ));
                }
            }
            b')' | b']' | b'}' | b'>' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_error(text: &str) -> Option<(u32, u32)> {
        check_nesting(&Source::new(text, "f.mlir"))
            .err()
            .map(|d| (d.loc.line, d.loc.col))
    }

    #[test]
    fn counts_brackets_of_every_kind() {
        let ok = format!("x\n{}{}", "([{<".repeat(250), ">}])".repeat(250));
        assert_eq!(depth_error(&ok), None);
        let deep = format!("x\n  {}", "[".repeat(MAX_NESTING + 1));
        assert_eq!(depth_error(&deep), Some((2, 3 + MAX_NESTING as u32)));
    }

    #[test]
    fn strings_comments_and_arrows_do_not_nest() {
        let opens = "(".repeat(MAX_NESTING + 1);
        let text = format!(
            "\"{opens}\\\"{opens}\"\n// {opens}\n{}",
            "(a) -> ".repeat(2000)
        );
        assert_eq!(depth_error(&text), None);
        // `->` and `>=` close nothing: a depth of MAX_NESTING stays at it.
        let arrows = format!("{}{}(", "(".repeat(MAX_NESTING), " -> >= ".repeat(10));
        assert_eq!(depth_error(&arrows), Some((1, MAX_NESTING as u32 + 71)));
    }

    #[test]
    fn chunk_lines_count_from_first_line() {
        let text = format!("\n{}", "{".repeat(MAX_NESTING + 1));
        let source = Source {
            text: &text,
            file: "f.mlir",
            first_line: 40,
        };
        let err = check_nesting(&source).unwrap_err();
        assert_eq!((err.loc.line, err.loc.col), (41, MAX_NESTING as u32 + 1));
    }
}
