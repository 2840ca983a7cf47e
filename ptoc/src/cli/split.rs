//! `--split-input-file`: cut a buffer at `// -----` lines, as mlir-opt does.
//!
//! Each chunk is a slice of the buffer that knows the file line it starts on, so diagnostics and
//! `expected-error` comments refer to lines of the real file. Splitting copies nothing: time and
//! memory are linear in the input, however many chunks it has.

use ptoc_ir::Source;

/// The marker line that separates chunks.
pub const SPLIT_MARKER: &str = "// -----";

/// The chunks of `source` (marker lines belong to none).
pub fn split_input<'a>(source: &Source<'a>) -> Vec<Source<'a>> {
    let text = source.text;
    let mut chunks = Vec::new();
    let (mut chunk_start, mut chunk_line) = (0usize, source.first_line);
    let (mut offset, mut line) = (0usize, source.first_line);
    for text_line in text.split_inclusive('\n') {
        let next = offset + text_line.len();
        if text_line.trim_end() == SPLIT_MARKER {
            chunks.push(Source {
                text: &text[chunk_start..offset],
                file: source.file,
                first_line: chunk_line,
            });
            (chunk_start, chunk_line) = (next, line.saturating_add(1));
        }
        (offset, line) = (next, line.saturating_add(1));
    }
    chunks.push(Source {
        text: &text[chunk_start..],
        file: source.file,
        first_line: chunk_line,
    });
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(text: &str) -> Vec<(&str, u32)> {
        split_input(&Source::new(text, "f"))
            .iter()
            .map(|c| (c.text, c.first_line))
            .collect()
    }

    #[test]
    fn chunks_know_their_first_line() {
        assert_eq!(
            chunks("a\n// -----\nb\nc\n// -----\nd"),
            [("a\n", 1), ("b\nc\n", 3), ("d", 6)]
        );
        assert_eq!(chunks("x"), [("x", 1)]);
        assert_eq!(chunks("// -----\n"), [("", 1), ("", 2)]);
        assert_eq!(chunks("a\r\n// -----  \r\nb"), [("a\r\n", 1), ("b", 3)]);
    }
}
