//! Source locations and diagnostics, rendered as `file:line:col: error: message`, the source
//! line, and a caret under the column (the format of MLIR tools and compilers).

use ptoc_isa::FaultClass;
use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::sync::Arc;

/// A source position (1-based line and column), or unknown.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Location {
    /// The file name as the source named it; `None` for an unknown position.
    pub file: Option<Arc<str>>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

impl Location {
    /// A known position in `file`.
    pub fn new(file: impl Into<Arc<str>>, line: u32, col: u32) -> Location {
        Location {
            file: Some(file.into()),
            line,
            col,
        }
    }
    /// No position (ops built by a pass, not read from a file).
    pub fn unknown() -> Location {
        Location::default()
    }
    /// True when the location names a file.
    pub fn is_known(&self) -> bool {
        self.file.is_some()
    }
    /// The same file, `delta` columns further right (for a position inside an op's text).
    pub fn shifted(&self, delta: usize) -> Location {
        let mut loc = self.clone();
        if loc.is_known() {
            loc.col += delta as u32;
        }
        loc
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{file}:{}:{}", self.line, self.col),
            None => f.write_str("<unknown>"),
        }
    }
}

/// How serious a diagnostic is, with MLIR's four levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The input is refused.
    Error,
    /// Accepted, but probably not what was meant.
    Warning,
    /// More about the diagnostic it follows.
    Note,
    /// Information on request (e.g. what a pass did).
    Remark,
}

impl Severity {
    /// The word diagnostics print (`error`).
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        }
    }
}

/// One diagnostic with its notes (related locations).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// Where the problem is.
    pub loc: Location,
    /// What is wrong, in one line.
    pub message: String,
    /// Related places, each rendered as a `note:` after the message.
    pub notes: Vec<(Location, String)>,
    /// The named legality or allocation rule the error breaks (`same-type`), when it breaks
    /// one; the message names it too, this field is for programs.
    pub rule: Option<&'static str>,
    /// The fault the hardware would raise if the program ran anyway, when the error has one.
    pub fault: Option<FaultClass>,
}

impl Diagnostic {
    /// An error at `loc`, with no notes, rule or fault.
    pub fn error(loc: Location, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            loc,
            message: message.into(),
            notes: Vec::new(),
            rule: None,
            fault: None,
        }
    }
    /// A remark at `loc`: information on request, such as what an option let a pass do.
    pub fn remark(loc: Location, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Remark,
            ..Diagnostic::error(loc, message)
        }
    }
    /// The same diagnostic, naming the rule it reports and the fault that rule stands for.
    pub fn with_rule(mut self, rule: &'static str, fault: FaultClass) -> Diagnostic {
        self.rule = Some(rule);
        self.fault = Some(fault);
        self
    }
    /// The same diagnostic with one more note.
    pub fn with_note(mut self, loc: Location, message: impl Into<String>) -> Diagnostic {
        self.notes.push((loc, message.into()));
        self
    }
}

/// A buffer of text and where it sits in its file: a whole file, or one `// -----` chunk of it
/// that starts on line `first_line` (so diagnostics and `expected-error` comments keep the
/// file's line numbers without the chunk being padded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source<'a> {
    /// The text itself.
    pub text: &'a str,
    /// The name locations show (`kernel.mlir`, `<stdin>`).
    pub file: &'a str,
    /// The 1-based line of the file that the buffer's first line is.
    pub first_line: u32,
}

impl<'a> Source<'a> {
    /// A whole file.
    pub fn new(text: &'a str, file: &'a str) -> Source<'a> {
        Source {
            text,
            file,
            first_line: 1,
        }
    }

    /// The file line of the buffer's last line (an empty buffer has one, empty, line).
    pub fn last_line(&self) -> u32 {
        let lines = self.text.lines().count().max(1) as u32;
        self.first_line.saturating_add(lines - 1)
    }
}

/// The text of every source file, so diagnostics can quote the offending line.
#[derive(Default, Debug)]
pub struct SourceMap {
    files: HashMap<Arc<str>, IndexedText>,
}

/// A file's text and the byte offset where each of its lines starts, so quoting a line costs
/// no scan (a run can report one diagnostic per line of a large file).
#[derive(Debug)]
struct IndexedText {
    text: Arc<str>,
    line_starts: Vec<usize>,
}

impl SourceMap {
    /// Record the text of the file that locations call `name` (replacing an earlier one).
    pub fn add(&mut self, name: impl Into<Arc<str>>, text: impl Into<Arc<str>>) {
        let text: Arc<str> = text.into();
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        self.files
            .insert(name.into(), IndexedText { text, line_starts });
    }

    fn line(&self, loc: &Location) -> Option<&str> {
        let file = self.files.get(loc.file.as_ref()?)?;
        let index = loc.line.checked_sub(1)? as usize;
        let start = *file.line_starts.get(index)?;
        let end = file
            .line_starts
            .get(index + 1)
            .map_or(file.text.len(), |&next| next - 1);
        let line = file.text.get(start..end)?;
        // `lines()` semantics: the text after a final newline is no line, and `\r\n` ends one.
        (start < file.text.len()).then(|| line.strip_suffix('\r').unwrap_or(line))
    }

    /// Render one diagnostic and its notes: `file:line:col: severity: message`, the source line and a caret under the column, for
    /// the diagnostic and each note; a line longer than [`QUOTE_LIMIT`] characters is quoted
    /// as a window of [`QUOTE_WINDOW`] from [`QUOTE_BEFORE`] before the column, marked `…`.
    pub fn render(&self, diag: &Diagnostic) -> String {
        let mut out = String::new();
        self.render_one(&mut out, &diag.loc, diag.severity, &diag.message);
        for (loc, note) in &diag.notes {
            self.render_one(&mut out, loc, Severity::Note, note);
        }
        out
    }

    fn render_one(&self, out: &mut String, loc: &Location, severity: Severity, message: &str) {
        let _ = writeln!(out, "{loc}: {}: {message}", severity.name());
        if let Some(line) = self.line(loc) {
            let col = loc.col.saturating_sub(1) as usize;
            // A line of a weight blob can be megabytes: quote a window around the column.
            let (quoted, caret_at) = if line.chars().count() > QUOTE_LIMIT {
                let start = col.saturating_sub(QUOTE_BEFORE);
                let window: String = line.chars().skip(start).take(QUOTE_WINDOW).collect();
                let lead = if start > 0 { "…" } else { "" };
                (
                    format!("{lead}{window}…"),
                    col - start + lead.chars().count(),
                )
            } else {
                (line.to_string(), col)
            };
            // Keep tabs so the caret lines up under them.
            let prefix: String = quoted
                .chars()
                .take(caret_at)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let _ = writeln!(out, "{quoted}\n{prefix}^");
        }
    }
}

/// Source lines up to this many characters are quoted whole.
pub const QUOTE_LIMIT: usize = 400;
/// How many characters of a longer line are quoted.
pub const QUOTE_WINDOW: usize = 200;
/// How many of them come before the column.
pub const QUOTE_BEFORE: usize = 40;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_a_window_of_a_long_line() {
        let blob: String = (0..5000).map(|i| format!("{i}, ")).collect();
        let text = format!("  %c = arith.constant dense<[{blob}]>\n");
        let mut sources = SourceMap::default();
        sources.add("w.mlir", text.as_str());
        let d = Diagnostic::error(Location::new("w.mlir", 1, 8), "bad constant");
        let shown = sources.render(&d);
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines[0], "w.mlir:1:8: error: bad constant");
        assert_eq!(lines[1].chars().count(), QUOTE_WINDOW + 1);
        assert!(lines[1].starts_with("  %c = arith.constant dense<[0, 1, 2"));
        assert_eq!(lines[2], "       ^");
        // Far into the line: a window around the column, the caret under it.
        let col = 20_000;
        let d = Diagnostic::error(Location::new("w.mlir", 1, col), "here");
        let shown = sources.render(&d);
        let lines: Vec<&str> = shown.lines().collect();
        let quoted: Vec<char> = lines[1].chars().collect();
        assert_eq!(quoted.len(), QUOTE_WINDOW + 2);
        assert_eq!(quoted[0], '…');
        let caret = lines[2].chars().count() - 1;
        assert_eq!(caret, QUOTE_BEFORE + 1);
        let at: char = text.chars().nth(col as usize - 1).unwrap();
        assert_eq!(quoted[caret], at);
    }

    #[test]
    fn quotes_lines_like_str_lines() {
        let text = "a\r\nbb\n\nlast";
        let mut sources = SourceMap::default();
        sources.add("f", text);
        for (i, want) in text.lines().enumerate() {
            let loc = Location::new("f", i as u32 + 1, 1);
            assert_eq!(sources.line(&loc), Some(want));
        }
        assert_eq!(sources.line(&Location::new("f", 5, 1)), None);
        assert_eq!(sources.line(&Location::new("f", 0, 1)), None);
        sources.add("g", "x\n");
        assert_eq!(sources.line(&Location::new("g", 2, 1)), None);
    }

    #[test]
    fn renders_line_and_caret() {
        let mut sources = SourceMap::default();
        sources.add("k.mlir", "first\n  %0 = bad\nlast\n");
        let d = Diagnostic::error(Location::new("k.mlir", 2, 3), "unknown op")
            .with_note(Location::new("k.mlir", 1, 1), "defined here");
        assert_eq!(
            sources.render(&d),
            "k.mlir:2:3: error: unknown op\n  %0 = bad\n  ^\n\
             k.mlir:1:1: note: defined here\nfirst\n^\n"
        );
    }
}
