//! `--verify-diagnostics`: check the diagnostics of a run against `// expected-…` comments, with
//! mlir-opt's conventions.
//!
//! `// expected-error {{text}}` expects an error on its own line whose message contains `text`;
//! `@+N`/`@-N` shift the line, `@above`/`@below` pick the nearest line above/below that is not
//! itself an expectation, `@N` names line N. Kinds: `error`, `warning`, `note`, `remark`. Every
//! expectation must be produced and every diagnostic expected; mismatches are reported as errors.

use ptoc_ir::{Diagnostic, Location, Severity};
use std::sync::Arc;

#[derive(Debug)]
struct Expectation {
    severity: Severity,
    /// 1-based line the diagnostic must be on.
    line: u32,
    text: String,
    /// Where the comment is, for "was not produced".
    at: Location,
    matched: bool,
}

const KINDS: [(&str, Severity); 4] = [
    ("error", Severity::Error),
    ("warning", Severity::Warning),
    ("note", Severity::Note),
    ("remark", Severity::Remark),
];

/// Parse the expectations in `source`; malformed ones are returned as errors.
fn parse_expectations(source: &str, file: &Arc<str>) -> (Vec<Expectation>, Vec<Diagnostic>) {
    let lines: Vec<&str> = source.lines().collect();
    let is_expectation = |l: &str| l.contains("expected-");
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let line_no = index as u32 + 1;
        let mut rest = *line;
        while let Some(pos) = rest.find("expected-") {
            let col = (line.len() - rest.len() + pos) as u32 + 1;
            let at = Location {
                file: Some(file.clone()),
                line: line_no,
                col,
            };
            rest = &rest[pos + "expected-".len()..];
            let Some(&(kind, severity)) = KINDS.iter().find(|(k, _)| rest.starts_with(k)) else {
                continue;
            };
            rest = &rest[kind.len()..];
            let mut target = line_no;
            if let Some(after) = rest.strip_prefix('@') {
                let end = after
                    .find(|c: char| c.is_whitespace() || c == '{')
                    .unwrap_or(after.len());
                let designator = &after[..end];
                rest = &after[end..];
                let resolved = match designator {
                    "above" => (1..line_no)
                        .rev()
                        .find(|&l| !is_expectation(lines[l as usize - 1])),
                    "below" => (line_no + 1..=lines.len() as u32)
                        .find(|&l| !is_expectation(lines[l as usize - 1])),
                    d if d.starts_with('+') => d[1..].parse::<u32>().ok().map(|n| line_no + n),
                    d if d.starts_with('-') => d[1..]
                        .parse::<u32>()
                        .ok()
                        .and_then(|n| line_no.checked_sub(n)),
                    d => d.parse::<u32>().ok(),
                };
                match resolved {
                    Some(l) if l >= 1 => target = l,
                    _ => {
                        errors.push(Diagnostic::error(
                            at,
                            format!("invalid line designator '@{designator}' in expected-{kind}"),
                        ));
                        continue;
                    }
                }
            }
            let trimmed = rest.trim_start();
            let text = trimmed
                .strip_prefix("{{")
                .and_then(|t| t.find("}}").map(|end| &t[..end]));
            match text {
                Some(text) => {
                    rest = &trimmed[text.len() + 4..];
                    out.push(Expectation {
                        severity,
                        line: target,
                        text: text.to_string(),
                        at,
                        matched: false,
                    });
                }
                None => errors.push(Diagnostic::error(
                    at,
                    format!("expected-{kind} must be followed by '{{{{message}}}}'"),
                )),
            }
        }
    }
    (out, errors)
}

/// Compare `diagnostics` (with their notes) to the expectations written in `source`. Returns the
/// mismatches as errors; empty means the run matched exactly.
pub fn verify(source: &str, file: &str, diagnostics: &[Diagnostic]) -> Vec<Diagnostic> {
    let file: Arc<str> = Arc::from(file);
    let (mut expected, mut problems) = parse_expectations(source, &file);
    let flat = diagnostics.iter().flat_map(|d| {
        std::iter::once((d.severity, &d.loc, &d.message))
            .chain(d.notes.iter().map(|(l, m)| (Severity::Note, l, m)))
    });
    for (severity, loc, message) in flat {
        let found = expected.iter_mut().find(|e| {
            !e.matched
                && e.severity == severity
                && loc.file.as_deref() == Some(&*file)
                && e.line == loc.line
                && message.contains(&e.text)
        });
        match found {
            Some(e) => e.matched = true,
            None => problems.push(Diagnostic::error(
                loc.clone(),
                format!("unexpected {}: {message}", severity.name()),
            )),
        }
    }
    for e in expected.iter().filter(|e| !e.matched) {
        problems.push(Diagnostic::error(
            e.at.clone(),
            format!(
                "expected {} \"{}\" was not produced",
                e.severity.name(),
                e.text
            ),
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(line: u32, msg: &str) -> Diagnostic {
        Diagnostic::error(Location::new("f.mlir", line, 3), msg)
    }

    #[test]
    fn designators_resolve_like_mlir_opt() {
        let src = "a\n// expected-error@+1 {{boom}}\nb\n// expected-error@below {{x}}\n\
                   // expected-note@above {{n}}\nc\nd // expected-error {{here}}\n\
                   // expected-error@-8 {{first}}\n";
        // @-8 from line 8 is line 0: invalid.
        let problems = verify(
            src,
            "f.mlir",
            &[diag(3, "a boom!"), diag(6, "x"), diag(7, "here")],
        );
        let msgs: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "invalid line designator '@-8' in expected-error",
                "expected note \"n\" was not produced"
            ]
        );
    }

    #[test]
    fn unexpected_and_missing_are_reported() {
        let src = "// expected-error@+1 {{wanted}}\nx\n";
        let problems = verify(src, "f.mlir", &[diag(2, "other")]);
        assert_eq!(problems.len(), 2);
        assert_eq!(problems[0].message, "unexpected error: other");
        assert_eq!(problems[1].loc.line, 1);
        assert!(verify(src, "f.mlir", &[diag(2, "I wanted this")]).is_empty());
    }
}
