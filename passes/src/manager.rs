//! The pass manager: the registry of passes by name, the default pipeline, `--pass-pipeline=`
//! parsing as mlir-opt spells it, running a pipeline over a module with IR-printing hooks, and the
//! `--pass-statistics` report.
//!
//! Every pto pass is a function pass, so the nested form
//! `builtin.module(func.func(pto-verify,pto-allocate))` and the flat `pto-verify,pto-allocate`
//! mean the same pipeline. A pipeline stops at the first pass that reports errors and returns all
//! of that pass's diagnostics (over every function of the module).

use crate::fuse::Fuse;
use crate::{Allocate, ConvertLinalg, InferShapes, Options, Pass, PassContext, Verify};
use ptoc_ir::{Diagnostic, Module};
use std::fmt::Write as _;

/// Every pass ptoc knows, in default-pipeline order. A new pass is one line here.
pub fn registry() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(ConvertLinalg),
        Box::new(Verify),
        Box::new(InferShapes),
        Box::new(Fuse),
        Box::new(Allocate),
    ]
}

/// The default pipeline by name (README, The pipeline); `pto-fuse` is skipped at `-O0`.
pub const DEFAULT_PIPELINE: &[&str] = &[
    "convert-linalg-to-pto",
    "pto-verify",
    "pto-infer-shapes",
    "pto-fuse",
    "pto-allocate",
];

/// `(name, description)` of every registered pass.
pub fn known_passes() -> Vec<(&'static str, &'static str)> {
    registry()
        .iter()
        .map(|p| (p.name(), p.description()))
        .collect()
}

/// The registered pass with this pipeline name.
pub fn pass_by_name(name: &str) -> Option<Box<dyn Pass>> {
    registry().into_iter().find(|p| p.name() == name)
}

/// The name MLIR shows for a pass in dumps and reports: `pto-infer-shapes` → `PtoInferShapes`.
pub fn display_name(pass: &str) -> String {
    pass.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// Whether an observer is called before or after a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// Before the pass runs.
    Before,
    /// After the pass succeeded.
    After,
}

/// Which IR dumps the command line asked for (`--mlir-print-ir-after-all`,
/// `--mlir-print-ir-before=PASS`, …).
#[derive(Clone, Debug, Default)]
pub struct IrPrinting {
    /// `--mlir-print-ir-before-all`.
    pub before_all: bool,
    /// `--mlir-print-ir-after-all`.
    pub after_all: bool,
    /// `--mlir-print-ir-before=PASS`, by pass name.
    pub before: Vec<String>,
    /// `--mlir-print-ir-after=PASS`, by pass name.
    pub after: Vec<String>,
}

impl IrPrinting {
    /// Should the module be printed at this point?
    pub fn wants(&self, when: When, pass: &str) -> bool {
        let (all, named) = match when {
            When::Before => (self.before_all, &self.before),
            When::After => (self.after_all, &self.after),
        };
        all || named.iter().any(|n| n == pass)
    }

    /// The line MLIR prints above a dump: `// -----// IR Dump After PtoVerify (pto-verify) //----- //`.
    pub fn header(when: When, pass: &str) -> String {
        let when = match when {
            When::Before => "Before",
            When::After => "After",
        };
        format!(
            "// -----// IR Dump {when} {} ({pass}) //----- //",
            display_name(pass)
        )
    }
}

/// A malformed `--pass-pipeline` string; `offset` is the byte where the problem starts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PipelineError {
    /// Byte offset of the problem in the pipeline text.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

/// An ordered list of passes.
#[derive(Default)]
pub struct PassManager {
    passes: Vec<Box<dyn Pass>>,
}

impl std::fmt::Debug for PassManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.pass_names()).finish()
    }
}

impl PassManager {
    /// An empty pipeline (runs no pass).
    pub fn new() -> PassManager {
        PassManager::default()
    }

    /// Append `pass` (see [`pass_by_name`]).
    pub fn add(&mut self, pass: Box<dyn Pass>) {
        self.passes.push(pass);
    }

    /// verify, infer-shapes, fuse (not at `-O0`), allocate.
    pub fn default_pipeline(options: &Options) -> PassManager {
        let passes = DEFAULT_PIPELINE
            .iter()
            .filter(|&&name| !(name == "pto-fuse" && options.opt_level == 0))
            .filter_map(|name| pass_by_name(name))
            .collect();
        PassManager { passes }
    }

    /// Parse a `--pass-pipeline` value: a comma-separated list of pass names, optionally nested in
    /// `builtin.module(…)` and/or `func.func(…)`; empty means no pass.
    pub fn parse(text: &str) -> Result<PassManager, PipelineError> {
        // An empty pipeline runs no pass, as `mlir-opt --pass-pipeline=` does.
        if text.trim().is_empty() {
            return Ok(PassManager::new());
        }
        let mut parser = PipelineParser { text, pos: 0 };
        let mut passes = Vec::new();
        parser.list(Anchor::Top, &mut passes)?;
        parser.skip_spaces();
        if parser.pos < text.len() {
            return parser.error(parser.pos, "expected ',' or the end of the pipeline");
        }
        Ok(PassManager { passes })
    }

    /// The passes' pipeline names, in order.
    pub fn pass_names(&self) -> Vec<&'static str> {
        self.passes.iter().map(|p| p.name()).collect()
    }

    /// The pipeline in mlir-opt's nested spelling.
    pub fn textual(&self) -> String {
        format!("builtin.module(func.func({}))", self.pass_names().join(","))
    }

    /// Run every pass over every function and GM kernel of `module`, calling `observer` before and after each
    /// pass (after only when it succeeded). Stops at the first pass that reports errors.
    pub fn run(
        &self,
        module: &mut Module,
        ctx: &mut PassContext,
        observer: &mut dyn FnMut(When, &str, &Module),
    ) -> Result<(), Vec<Diagnostic>> {
        for pass in &self.passes {
            if pass.skips(module) {
                ctx.skipped.push(pass.name());
                continue;
            }
            observer(When::Before, pass.name(), module);
            let mut errors = Vec::new();
            for program in std::mem::take(&mut module.linalg) {
                match pass.convert_linalg(&program, ctx) {
                    Some(Ok(kernel)) => module.gm_kernels.push(kernel),
                    Some(Err(e)) => errors.extend(e),
                    None => module.linalg.push(program),
                }
            }
            for func in &mut module.functions {
                if let Err(e) = pass.run(func, ctx) {
                    errors.extend(e);
                }
            }
            for kernel in &mut module.gm_kernels {
                if let Err(e) = pass.run_gm(kernel, ctx) {
                    errors.extend(e);
                }
            }
            if !errors.is_empty() {
                return Err(errors);
            }
            observer(When::After, pass.name(), module);
        }
        Ok(())
    }

    /// The `--pass-statistics` report, as mlir-opt prints it in its (default) pipeline display.
    pub fn statistics_report(&self, ctx: &PassContext) -> String {
        let rule = format!("==={}===\n", "-".repeat(73));
        let title = "... Pass statistics report ...";
        let mut out = format!(
            "{rule}{}{title}\n{rule}'func.func' Pipeline\n",
            " ".repeat((80 - title.len()) / 2)
        );
        for pass in self
            .passes
            .iter()
            .filter(|p| !ctx.skipped.contains(&p.name()))
        {
            let _ = writeln!(out, "  {}", display_name(pass.name()));
            let mut stats: Vec<(&str, u64, &str)> = ctx
                .statistics
                .iter()
                .filter(|(p, _, _)| *p == pass.name())
                .map(|&(_, name, value)| {
                    let desc = pass
                        .statistics()
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map_or("", |(_, d)| *d);
                    (name, value, desc)
                })
                .collect();
            stats.sort_by(|a, b| a.0.cmp(b.0));
            let name_w = stats.iter().map(|s| s.0.len()).max().unwrap_or(0);
            let value_w = stats
                .iter()
                .map(|s| s.1.to_string().len())
                .max()
                .unwrap_or(0);
            for (name, value, desc) in stats {
                let _ = writeln!(out, "    (S) {value:>value_w$} {name:<name_w$} - {desc}");
            }
        }
        out
    }
}

/// Where in the nesting a list sits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Top,
    Module,
    Func,
}

struct PipelineParser<'a> {
    text: &'a str,
    pos: usize,
}

impl PipelineParser<'_> {
    fn error<T>(&self, offset: usize, message: impl Into<String>) -> Result<T, PipelineError> {
        Err(PipelineError {
            offset,
            message: message.into(),
        })
    }

    fn skip_spaces(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_spaces();
        if self.text[self.pos..].starts_with(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> (usize, &str) {
        self.skip_spaces();
        let start = self.pos;
        let rest = &self.text[start..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
            .unwrap_or(rest.len());
        self.pos += len;
        (start, &self.text[start..start + len])
    }

    /// `element (',' element)*`.
    fn list(&mut self, anchor: Anchor, out: &mut Vec<Box<dyn Pass>>) -> Result<(), PipelineError> {
        loop {
            self.element(anchor, out)?;
            if !self.eat(',') {
                return Ok(());
            }
        }
    }

    /// A pass name, or an op anchor with a nested list.
    fn element(
        &mut self,
        anchor: Anchor,
        out: &mut Vec<Box<dyn Pass>>,
    ) -> Result<(), PipelineError> {
        let (at, name) = self.ident();
        if name.is_empty() {
            return self.error(
                at,
                "expected a pass name or an op anchor such as func.func(...)",
            );
        }
        let name = name.to_string();
        if self.eat('(') {
            let inner = match (anchor, name.as_str()) {
                (Anchor::Top, "builtin.module") => Anchor::Module,
                (Anchor::Top | Anchor::Module, "func.func") => Anchor::Func,
                _ => {
                    return self.error(
                        at,
                        format!(
                            "'{name}' cannot anchor a nested pipeline here; pto passes run on func.func inside builtin.module"
                        ),
                    )
                }
            };
            if !self.eat(')') {
                self.list(inner, out)?;
                if !self.eat(')') {
                    return self.error(self.pos, format!("expected ')' to close '{name}('"));
                }
            }
            return Ok(());
        }
        let Some(pass) = pass_by_name(&name) else {
            let known: Vec<&str> = known_passes().iter().map(|p| p.0).collect();
            return self.error(
                at,
                format!(
                    "'{name}' does not refer to a registered pass or pass pipeline; known passes: {}",
                    known.join(", ")
                ),
            );
        };
        if self.eat('{') {
            self.skip_spaces();
            if !self.eat('}') {
                return self.error(self.pos, format!("pass '{name}' takes no options"));
            }
        }
        out.push(pass);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Builder;

    fn names(text: &str) -> Result<Vec<&'static str>, PipelineError> {
        PassManager::parse(text).map(|pm| pm.pass_names())
    }

    #[test]
    fn an_empty_pipeline_runs_no_pass() {
        assert_eq!(names(""), Ok(vec![]));
        assert_eq!(names("  "), Ok(vec![]));
    }

    #[test]
    fn parses_flat_and_nested_pipelines() {
        let want = ["pto-verify", "pto-allocate"];
        assert_eq!(names("pto-verify,pto-allocate").unwrap(), want);
        assert_eq!(
            names("builtin.module(func.func(pto-verify,pto-allocate))").unwrap(),
            want
        );
        assert_eq!(
            names(" func.func( pto-verify , pto-allocate{} ) ").unwrap(),
            want
        );
        assert_eq!(
            names("builtin.module(pto-verify,func.func(pto-infer-shapes))").unwrap(),
            ["pto-verify", "pto-infer-shapes"]
        );
        assert_eq!(names("builtin.module()").unwrap(), Vec::<&str>::new());
        let pm = PassManager::parse("pto-verify,pto-allocate").unwrap();
        assert_eq!(
            pm.textual(),
            "builtin.module(func.func(pto-verify,pto-allocate))"
        );
    }

    #[test]
    fn pipeline_errors_say_what_and_where() {
        let e = names("builtin.module(func.func(pto-verify,pto-bogus))").unwrap_err();
        assert_eq!(e.offset, 36);
        let known: Vec<&str> = known_passes().iter().map(|p| p.0).collect();
        assert_eq!(
            e.message,
            format!(
                "'pto-bogus' does not refer to a registered pass or pass pipeline; known passes: {}",
                known.join(", ")
            )
        );
        assert!(e.message.contains("pto-verify, pto-infer-shapes"));
        let cases = [
            ("pto-verify,", 11, "expected a pass name"),
            (
                "func.func(pto-verify",
                20,
                "expected ')' to close 'func.func('",
            ),
            ("func.func(builtin.module(pto-verify))", 10, "cannot anchor"),
            ("gpu.module(pto-verify)", 0, "cannot anchor"),
            ("pto-verify{max=3}", 11, "takes no options"),
            ("pto-verify) x", 10, "expected ',' or the end"),
        ];
        for (text, offset, msg) in cases {
            let e = names(text).unwrap_err();
            assert_eq!(e.offset, offset, "{text}: {e}");
            assert!(e.message.contains(msg), "{text}: {e}");
        }
    }

    #[test]
    fn default_pipeline_follows_the_design_order() {
        let o2 = PassManager::default_pipeline(&Options::default()).pass_names();
        let registered: Vec<&str> = known_passes().iter().map(|p| p.0).collect();
        let want: Vec<&str> = DEFAULT_PIPELINE
            .iter()
            .copied()
            .filter(|n| registered.contains(n))
            .collect();
        assert_eq!(o2, want);
        assert_eq!(o2, DEFAULT_PIPELINE);
        // Design §11: linalg programs are converted first; the pass skips modules without any.
        assert_eq!(o2.first(), Some(&"convert-linalg-to-pto"));
        assert_eq!(o2.get(1), Some(&"pto-verify"));
        assert_eq!(o2.last(), Some(&"pto-allocate"));
        let o0 = PassManager::default_pipeline(&Options {
            opt_level: 0,
            ..Options::default()
        })
        .pass_names();
        assert_eq!(
            o0,
            [
                "convert-linalg-to-pto",
                "pto-verify",
                "pto-infer-shapes",
                "pto-allocate"
            ]
        );
    }

    fn module(broken: bool) -> Module {
        let mut b = Builder::new();
        let x = b.arg("x", "16x64xf32");
        let v = b.arg("v", if broken { "1x1xf32" } else { "16x1xf32" });
        let r = b.op("r", "TSUB", &[x, v], "?x?xf32");
        Module {
            functions: vec![b.ret(&[r])],
            ..Module::default()
        }
    }

    #[test]
    fn runs_with_observers_and_stops_at_the_first_failing_pass() {
        let pm = PassManager::parse("pto-verify,pto-infer-shapes,pto-allocate").unwrap();
        let mut seen = Vec::new();
        let mut ctx = PassContext::default();
        let mut m = module(false);
        pm.run(&mut m, &mut ctx, &mut |when, pass, module| {
            seen.push((when, pass.to_string(), module.functions[0].ops.len()));
        })
        .unwrap();
        let b = When::Before;
        let a = When::After;
        assert_eq!(
            seen,
            [
                (b, "pto-verify".into(), 1),
                (a, "pto-verify".into(), 1),
                (b, "pto-infer-shapes".into(), 1),
                (a, "pto-infer-shapes".into(), 2),
                (b, "pto-allocate".into(), 2),
                (a, "pto-allocate".into(), 2),
            ]
        );
        assert!(m.functions[0].ops[1].attrs.contains_key("pto.dst"));

        let mut seen = Vec::new();
        let mut m = module(true);
        let errs = pm
            .run(&mut m, &mut PassContext::default(), &mut |when, pass, _| {
                seen.push((when, pass.to_string()))
            })
            .unwrap_err();
        assert_eq!(errs.len(), 1);
        assert!(errs[0].message.contains("[full-shape"), "{errs:?}");
        assert_eq!(seen, [(b, "pto-verify".to_string())]);
    }

    #[test]
    fn default_pipeline_fuses_an_implicit_broadcast_and_allocates() {
        let mut m = module(false);
        // Registers are the absolute profile's (the queue default is covered by allocate.rs).
        let mut ctx = PassContext::new(crate::Options {
            target_profile: ptoc_isa::profile::NamingModel::AbsoluteNoFree,
            ..crate::Options::default()
        });
        let pm = PassManager::default_pipeline(&ctx.options);
        pm.run(&mut m, &mut ctx, &mut |_, _, _| {}).unwrap();
        let f = &m.functions[0];
        let ops: Vec<&str> = f.ops.iter().map(|op| op.info.mnemonic).collect();
        assert_eq!(ops, ["TROWEXPANDSUB"]);
        assert_eq!(f.ops[0].attrs["pto.dst"], ptoc_ir::Attr::Str("T#3".into()));
        assert_eq!(f.results, [f.ops[0].result]);
    }

    #[test]
    fn ir_printing_selects_dumps() {
        let p = IrPrinting {
            after_all: true,
            before: vec!["pto-allocate".into()],
            ..IrPrinting::default()
        };
        assert!(p.wants(When::After, "pto-verify"));
        assert!(!p.wants(When::Before, "pto-verify"));
        assert!(p.wants(When::Before, "pto-allocate"));
        assert_eq!(
            IrPrinting::header(When::After, "pto-infer-shapes"),
            "// -----// IR Dump After PtoInferShapes (pto-infer-shapes) //----- //"
        );
    }

    #[test]
    fn statistics_report_matches_mlir_opt() {
        let pm = PassManager::parse("pto-verify,pto-infer-shapes").unwrap();
        let mut ctx = PassContext::default();
        pm.run(&mut module(false), &mut ctx, &mut |_, _, _| {})
            .unwrap();
        ctx.record("pto-verify", "ops-verified", 10);
        let report = pm.statistics_report(&ctx);
        let want = "\
===-------------------------------------------------------------------------===
                         ... Pass statistics report ...
===-------------------------------------------------------------------------===
'func.func' Pipeline
  PtoVerify
    (S) 11 ops-verified - Number of pto ops verified
  PtoInferShapes
    (S) 4 dims-inferred    - Number of '?' dimensions filled in
    (S) 1 expands-inserted - Number of implicit broadcasts made explicit
";
        assert_eq!(report, want);
    }
}
