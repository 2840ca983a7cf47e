//! `--split-input-file`: cut a buffer at `// -----` lines, as mlir-opt does.
//!
//! Each chunk keeps its original line numbers (it is padded with the newlines before it), so
//! diagnostics and `expected-error` comments refer to lines of the real file.

/// The marker line that separates chunks.
pub const SPLIT_MARKER: &str = "// -----";

/// Chunks of `source`, each padded so that its lines keep their numbers in the whole file.
pub fn split_input(source: &str) -> Vec<String> {
    let mut chunks = Vec::new();
    let mut current = String::new();
    let mut line_no = 0usize;
    let mut chunk_start = 0usize;
    for line in source.split_inclusive('\n') {
        line_no += 1;
        if line.trim_end() == SPLIT_MARKER {
            chunks.push(std::mem::take(&mut current));
            chunk_start = line_no;
            continue;
        }
        if current.is_empty() {
            current.push_str(&"\n".repeat(chunk_start));
        }
        current.push_str(line);
    }
    chunks.push(current);
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_keep_line_numbers() {
        let chunks = split_input("a\n// -----\nb\nc\n// -----\nd");
        assert_eq!(chunks, ["a\n", "\n\nb\nc\n", "\n\n\n\n\nd"]);
        assert_eq!(split_input("x"), ["x"]);
    }
}
