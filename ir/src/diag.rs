//! Source locations and diagnostics, rendered as `file:line:col: error: message`, the source
//! line, and a caret under the column (the format of MLIR tools and compilers).

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::sync::Arc;

/// A source position (1-based line and column), or unknown.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Location {
    pub file: Option<Arc<str>>,
    pub line: u32,
    pub col: u32,
}

impl Location {
    pub fn new(file: impl Into<Arc<str>>, line: u32, col: u32) -> Location {
        Location {
            file: Some(file.into()),
            line,
            col,
        }
    }
    pub fn unknown() -> Location {
        Location::default()
    }
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
    Remark,
}

impl Severity {
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
    pub severity: Severity,
    pub loc: Location,
    pub message: String,
    pub notes: Vec<(Location, String)>,
}

impl Diagnostic {
    pub fn error(loc: Location, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            loc,
            message: message.into(),
            notes: Vec::new(),
        }
    }
    pub fn with_note(mut self, loc: Location, message: impl Into<String>) -> Diagnostic {
        self.notes.push((loc, message.into()));
        self
    }
}

/// The text of every source file, so diagnostics can quote the offending line.
#[derive(Default, Debug)]
pub struct SourceMap {
    files: HashMap<Arc<str>, Arc<str>>,
}

impl SourceMap {
    pub fn add(&mut self, name: impl Into<Arc<str>>, text: impl Into<Arc<str>>) {
        self.files.insert(name.into(), text.into());
    }

    fn line(&self, loc: &Location) -> Option<&str> {
        let text = self.files.get(loc.file.as_ref()?)?;
        text.lines().nth(loc.line.checked_sub(1)? as usize)
    }

    /// Render one diagnostic and its notes, each with its source line and caret.
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
            // Keep tabs so the caret lines up under them.
            let prefix: String = line
                .chars()
                .take(loc.col.saturating_sub(1) as usize)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let _ = writeln!(out, "{line}\n{prefix}^");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
