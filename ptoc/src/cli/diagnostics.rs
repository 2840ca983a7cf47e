//! `--verify-diagnostics`: check the diagnostics of a run against `// expected-…` comments, with
//! mlir-opt's conventions.
//!
//! `// expected-error {{text}}` expects an error on its own line whose message contains `text`;
//! `@+N`/`@-N` shift the line, `@above`/`@below` pick the nearest line above/below that is not
//! itself an expectation, `@N` names line N. Kinds: `error`, `warning`, `note`, `remark`. Every
//! expectation must be produced and every diagnostic expected; mismatches are reported as errors.

use ptoc_ir::{Diagnostic, Location, Severity, Source};
use std::collections::HashMap;
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

/// For each line of a buffer, the nearest line above and below that is not an expectation
/// (what `@above` and `@below` resolve to), computed in two linear passes.
struct PlainNeighbours {
    above: Vec<Option<u32>>,
    below: Vec<Option<u32>>,
}

impl PlainNeighbours {
    fn new(lines: &[&str], first_line: u32) -> PlainNeighbours {
        let plain = |i: usize| (!lines[i].contains("expected-")).then_some(first_line + i as u32);
        let mut above = Vec::with_capacity(lines.len());
        let mut last = None;
        for i in 0..lines.len() {
            above.push(last);
            last = plain(i).or(last);
        }
        let mut below = vec![None; lines.len()];
        let mut next = None;
        for i in (0..lines.len()).rev() {
            below[i] = next;
            next = plain(i).or(next);
        }
        PlainNeighbours { above, below }
    }
}

/// Parse the expectations in `source`; malformed ones are returned as errors.
fn parse_expectations(source: &Source) -> (Vec<Expectation>, Vec<Diagnostic>) {
    let file: Arc<str> = Arc::from(source.file);
    let lines: Vec<&str> = source.text.lines().collect();
    let (first, last) = (source.first_line, source.last_line());
    let neighbours = PlainNeighbours::new(&lines, first);
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let line_no = first + index as u32;
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
                    "above" => neighbours.above[index].ok_or("no line above it"),
                    "below" => neighbours.below[index].ok_or("no line below it"),
                    d => resolve_offset(d, line_no),
                }
                .and_then(|l| {
                    (first..=last)
                        .contains(&l)
                        .then_some(l)
                        .ok_or("it points outside the input")
                });
                match resolved {
                    Ok(l) => target = l,
                    Err(why) => {
                        errors.push(Diagnostic::error(
                            at,
                            format!(
                                "invalid line designator '@{designator}' in expected-{kind}: \
                                 {why} (lines {first} to {last})"
                            ),
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

/// The line `@+N`, `@-N` or `@N` names, from an expectation on `line_no`; no wrapping.
fn resolve_offset(designator: &str, line_no: u32) -> Result<u32, &'static str> {
    let number = |digits: &str| {
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse::<u32>().ok())
            .ok_or("expected above, below, +N, -N or N")?
            .ok_or("it points outside the input")
    };
    match designator.as_bytes().first() {
        Some(b'+') => line_no
            .checked_add(number(&designator[1..])?)
            .ok_or("it points outside the input"),
        Some(b'-') => line_no
            .checked_sub(number(&designator[1..])?)
            .ok_or("it points outside the input"),
        _ => number(designator),
    }
}

/// Compare `diagnostics` (with their notes) to the expectations written in `source`. Returns the
/// mismatches as errors; empty means the run matched exactly. Each diagnostic is looked up among
/// the expectations of its own line and kind, so matching is linear in the number of both.
pub fn verify(source: &Source, diagnostics: &[Diagnostic]) -> Vec<Diagnostic> {
    let (mut expected, mut problems) = parse_expectations(source);
    // (severity, line) → the expectations there, in order; `.0` skips the matched prefix.
    let mut by_line: HashMap<(Severity, u32), (usize, Vec<usize>)> = HashMap::new();
    for (i, e) in expected.iter().enumerate() {
        by_line.entry((e.severity, e.line)).or_default().1.push(i);
    }
    let flat = diagnostics.iter().flat_map(|d| {
        std::iter::once((d.severity, &d.loc, &d.message))
            .chain(d.notes.iter().map(|(l, m)| (Severity::Note, l, m)))
    });
    for (severity, loc, message) in flat {
        let found = by_line
            .get_mut(&(severity, loc.line))
            .filter(|_| loc.file.as_deref() == Some(source.file))
            .and_then(|(start, candidates)| {
                let pick = candidates[*start..]
                    .iter()
                    .copied()
                    .find(|&i| !expected[i].matched && message.contains(&expected[i].text))?;
                expected[pick].matched = true;
                while candidates.get(*start).is_some_and(|&i| expected[i].matched) {
                    *start += 1;
                }
                Some(pick)
            });
        if found.is_none() {
            problems.push(Diagnostic::error(
                loc.clone(),
                format!("unexpected {}: {message}", severity.name()),
            ));
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
            &Source::new(src, "f.mlir"),
            &[diag(3, "a boom!"), diag(6, "x"), diag(7, "here")],
        );
        let msgs: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "invalid line designator '@-8' in expected-error: it points outside the input (lines 1 to 8)",
                "expected note \"n\" was not produced"
            ]
        );
    }

    #[test]
    fn unexpected_and_missing_are_reported() {
        let src = "// expected-error@+1 {{wanted}}\nx\n";
        let problems = verify(&Source::new(src, "f.mlir"), &[diag(2, "other")]);
        assert_eq!(problems.len(), 2);
        assert_eq!(problems[0].message, "unexpected error: other");
        assert_eq!(problems[1].loc.line, 1);
        assert!(verify(&Source::new(src, "f.mlir"), &[diag(2, "I wanted this")]).is_empty());
    }

    /// `@+4294967293` on line 5 used to wrap to line 2 and match an error there.
    #[test]
    fn offsets_past_the_input_are_errors_not_wrapped() {
        let src = "a\nb\nc\nd\n// expected-error@+4294967293 {{boom}}\n";
        let problems = verify(&Source::new(src, "f.mlir"), &[diag(2, "boom")]);
        let msgs: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "invalid line designator '@+4294967293' in expected-error: it points outside the input (lines 1 to 5)",
                "unexpected error: boom"
            ]
        );
        for bad in ["@+99999999999", "@-9", "@6", "@0", "@+x", "@+"] {
            let src = format!("a\n// expected-error{bad} {{{{boom}}}}\n");
            let problems = verify(&Source::new(&src, "f.mlir"), &[]);
            assert!(
                problems[0].message.starts_with("invalid line designator"),
                "{bad}: {problems:?}"
            );
        }
    }

    /// A chunk of a split file resolves designators in the file's line numbers, inside the chunk.
    #[test]
    fn chunks_use_file_lines() {
        let src = "x\n// expected-error@above {{boom}}\n// expected-error@-3 {{y}}\n";
        let chunk = Source {
            text: src,
            file: "f.mlir",
            first_line: 10,
        };
        let problems = verify(&chunk, &[diag(10, "boom")]);
        let msgs: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(
            msgs,
            ["invalid line designator '@-3' in expected-error: it points outside the input (lines 10 to 12)"]
        );
    }

    /// Many expectations of one line: each diagnostic takes the first unmatched one.
    #[test]
    fn many_expectations_on_one_line_match_in_order() {
        let mut src = String::from("x\n");
        for _ in 0..1000 {
            src.push_str("// expected-error@above {{boom}}\n");
        }
        let diags = vec![diag(1, "boom"); 1000];
        assert!(verify(&Source::new(&src, "f.mlir"), &diags).is_empty());
        let problems = verify(&Source::new(&src, "f.mlir"), &diags[..999]);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].loc.line, 1001);
    }
}
