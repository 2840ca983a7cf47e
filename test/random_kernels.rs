//! Translation validation on random programs: generate well-typed pto kernels, compile them with
//! the default pipeline (fusion and allocation included), and check with `verify` that the
//! interpreted words agree bit for bit with the reference evaluator of the unoptimised source.

use proptest::prelude::*;
use ptoc::verify::verify_kernel;
use ptoc::{Driver, Options};
use ptoc_isa::dtype::{A9, ARITHMETIC, EXPDIF_SOURCES};
use ptoc_isa::ops::CATALOGUE;
use ptoc_isa::profile::NamingModel;
use ptoc_isa::{CmpMode, DataType, OpKind, RoundingMode};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The three shapes a generated kernel works with.
struct Shapes {
    elem: &'static str,
    full: String,
    row: String,
    col: String,
}

fn tile(rows: u32, cols: u32, vr: u32, vc: u32, elem: &str, pad: &str) -> String {
    let valid = if (vr, vc) == (rows, cols) {
        String::new()
    } else {
        format!(", valid={vr}x{vc}")
    };
    format!("!pto.tile<{rows}x{cols}x{elem}{valid}{pad}>")
}

fn random_pad(rng: &mut StdRng) -> &'static str {
    ["", "", ", pad=zero", ", pad=max", ", pad=min"][rng.gen_range(0..5)]
}

/// A random well-typed kernel over one element type (text), from `seed`.
fn random_kernel(seed: u64) -> String {
    let mut rng = StdRng::seed_from_u64(seed);
    let dtype = ARITHMETIC[rng.gen_range(0..ARITHMETIC.len())];
    let elem = dtype.mlir_name().unwrap();
    let (rows, cols) = (rng.gen_range(1..=12u32), 1u32 << rng.gen_range(0..=5));
    let (vr, vc) = if rng.gen_bool(0.3) {
        (rng.gen_range(1..=rows), rng.gen_range(1..=cols))
    } else {
        (rows, cols)
    };
    let s = Shapes {
        elem,
        full: tile(rows, cols, vr, vc, elem, ""),
        row: tile(rows, 1, vr, 1, elem, ""),
        col: tile(1, cols, 1, vc, elem, ""),
    };
    let mut body = Vec::new();
    // Values by shape, each with the type it was declared with (operands must repeat it).
    let (mut fulls, mut row_vecs, mut col_vecs) = (
        vec![
            ("%a".to_string(), s.full.clone()),
            ("%b".to_string(), s.full.clone()),
        ],
        vec![("%r".to_string(), s.row.clone())],
        vec![("%c".to_string(), s.col.clone())],
    );
    let mut extra_results: Vec<(String, String)> = Vec::new();
    let full_pad = |rng: &mut StdRng| tile(rows, cols, vr, vc, elem, random_pad(rng));
    // Predicates: a predicate argument half the time, and every TCMP result, with whether a TSEL
    // has read it yet (an unread one becomes a result, so every comparison is checked).
    let pred_arg = rng
        .gen_bool(0.5)
        .then(|| tile(rows, cols, vr, vc, "i1", ""));
    let mut preds: Vec<(String, String, bool)> = pred_arg
        .iter()
        .map(|t| ("%p".to_string(), t.clone(), true))
        .collect();
    for i in 0..rng.gen_range(1..=8) {
        let v = format!("%v{i}");
        let pick = |rng: &mut StdRng, from: &Vec<(String, String)>| {
            from[rng.gen_range(0..from.len())].clone()
        };
        let ((x, xt), (y, yt)) = (pick(&mut rng, &fulls), pick(&mut rng, &fulls));
        match rng.gen_range(0..12) {
            0 => {
                let op = ["tadd", "tsub", "tmul", "tdiv", "tmax", "tmin"][rng.gen_range(0..6)];
                let ty = full_pad(&mut rng);
                body.push(format!(
                    "{v} = \"pto.{op}\"({x}, {y}) : ({xt}, {yt}) -> {ty}"
                ));
                fulls.push((v, ty));
            }
            1 | 2 => {
                let (axis, vecs) = if rng.gen_bool(0.5) {
                    ("row", &row_vecs)
                } else {
                    ("col", &col_vecs)
                };
                let (b, vty) = pick(&mut rng, vecs);
                let ops: &[&str] = if EXPDIF_SOURCES.contains(&dtype) {
                    &["add", "sub", "mul", "div", "max", "min", "expdif"]
                } else {
                    &["add", "sub", "mul", "div", "max", "min"]
                };
                let op = ops[rng.gen_range(0..ops.len())];
                let ty = full_pad(&mut rng);
                body.push(format!(
                    "{v} = \"pto.t{axis}expand{op}\"({x}, {b}) : ({xt}, {vty}) -> {ty}"
                ));
                fulls.push((v, ty));
            }
            3 => {
                let (axis, vecs) = if rng.gen_bool(0.5) {
                    ("row", &row_vecs)
                } else {
                    ("col", &col_vecs)
                };
                let (b, vty) = pick(&mut rng, vecs);
                let ty = full_pad(&mut rng);
                body.push(format!(
                    "{v} = \"pto.t{axis}expand\"({b}) : ({vty}) -> {ty}"
                ));
                fulls.push((v, ty));
            }
            4 | 5 => {
                let red = ["sum", "max", "min", "prod"][rng.gen_range(0..4)];
                if rng.gen_bool(0.5) {
                    body.push(format!(
                        "{v} = \"pto.trow{red}\"({x}) : ({xt}) -> {}",
                        s.row
                    ));
                    row_vecs.push((v, s.row.clone()));
                } else {
                    body.push(format!(
                        "{v} = \"pto.tcol{red}\"({x}) : ({xt}) -> {}",
                        s.col
                    ));
                    col_vecs.push((v, s.col.clone()));
                }
            }
            6 if A9.contains(&dtype) => {
                let (axis, ty) = if rng.gen_bool(0.5) {
                    ("row", tile(rows, 1, vr, 1, "ui32", ""))
                } else {
                    ("col", tile(1, cols, 1, vc, "ui32", ""))
                };
                let which = ["argmax", "argmin"][rng.gen_range(0..2)];
                body.push(format!(
                    "{v} = \"pto.t{axis}{which}\"({x}) : ({xt}) -> {ty}"
                ));
                extra_results.push((v, ty));
            }
            7 => {
                // Any unary op of the catalogue that takes this type.
                let unary: Vec<String> = CATALOGUE
                    .iter()
                    .filter(|op| matches!(op.kind, OpKind::Unary(_)) && op.accepts(dtype))
                    .map(|op| op.mlir_name())
                    .collect();
                let op = &unary[rng.gen_range(0..unary.len())];
                let ty = full_pad(&mut rng);
                body.push(format!("{v} = \"{op}\"({x}) : ({xt}) -> {ty}"));
                fulls.push((v, ty));
            }
            8 => {
                // TCVT to any other type and back, each under a random rounding mode and Sat
                // (or the default).
                let other = ARITHMETIC[rng.gen_range(0..ARITHMETIC.len())];
                let mid = tile(rows, cols, vr, vc, other.mlir_name().unwrap(), "");
                let control = |rng: &mut StdRng| {
                    let mut attrs = Vec::new();
                    if rng.gen_bool(0.7) {
                        let mode = RoundingMode::ALL[rng.gen_range(0..RoundingMode::ALL.len())];
                        attrs.push(format!("pto.rmode = \"{}\"", mode.mlir_name()));
                    }
                    if rng.gen_bool(0.5) {
                        attrs.push("pto.sat = true".to_string());
                    }
                    if attrs.is_empty() {
                        String::new()
                    } else {
                        format!(" {{{}}}", attrs.join(", "))
                    }
                };
                let there = control(&mut rng);
                body.push(format!("{v}c = \"pto.tcvt\"({x}){there} : ({xt}) -> {mid}"));
                let back = control(&mut rng);
                let ty = full_pad(&mut rng);
                body.push(format!("{v} = \"pto.tcvt\"({v}c){back} : ({mid}) -> {ty}"));
                fulls.push((v, ty));
            }
            9 => {
                // A comparison of two full tiles, or of one with itself (NaN against NaN, and a
                // ±0 in every zero element), under any relation.
                let mode = CmpMode::ALL[rng.gen_range(0..CmpMode::ALL.len())];
                let (y, yt) = if rng.gen_bool(0.25) {
                    (x.clone(), xt.clone())
                } else {
                    (y, yt)
                };
                let ty = tile(rows, cols, vr, vc, "i1", random_pad(&mut rng));
                body.push(format!(
                    "{v} = \"pto.tcmp\"({x}, {y}) {{pto.cmode = \"{}\"}} : ({xt}, {yt}) -> {ty}",
                    mode.mlir_name()
                ));
                preds.push((v, ty, false));
            }
            10 if !preds.is_empty() => {
                let k = rng.gen_range(0..preds.len());
                preds[k].2 = true;
                let (p, pt) = (preds[k].0.clone(), preds[k].1.clone());
                let ty = full_pad(&mut rng);
                body.push(format!(
                    "{v} = \"pto.tsel\"({p}, {x}, {y}) : ({pt}, {xt}, {yt}) -> {ty}"
                ));
                fulls.push((v, ty));
            }
            11 => {
                // TTRANS there and back (docs/isa.md §19): the transpose has valid vc×vr, its
                // columns left to shape inference or written (the fewest, or twice that); the
                // transpose of it is a full tile again. Neither may ask for a pad.
                let mid = if rng.gen_bool(0.5) {
                    format!("!pto.tile<?x?x{elem}>")
                } else {
                    let cols = vr.next_power_of_two() << rng.gen_range(0..=1u32);
                    tile(vc, cols, vc, vr, elem, "")
                };
                body.push(format!("{v}t = \"pto.ttrans\"({x}) : ({xt}) -> {mid}"));
                let ty = tile(rows, cols, vr, vc, elem, "");
                body.push(format!("{v} = \"pto.ttrans\"({v}t) : ({mid}) -> {ty}"));
                fulls.push((v, ty));
            }
            _ => {
                // numpy-style broadcasting, made explicit by shape inference.
                let (b, bt) = pick(&mut rng, &row_vecs);
                let op = ["tadd", "tmul", "tmax", "tmin"][rng.gen_range(0..4)];
                let ty = format!("!pto.tile<?x?x{}>", s.elem);
                body.push(format!(
                    "{v} = \"pto.{op}\"({b}, {x}) : ({bt}, {xt}) -> {ty}"
                ));
                fulls.push((v, ty));
            }
        }
    }
    // Return the last full tile (with its written type), any index results and every predicate
    // no TSEL read.
    let mut results = vec![fulls.last().unwrap().clone()];
    results.extend(extra_results);
    results.extend(preds.into_iter().filter(|p| !p.2).map(|(n, t, _)| (n, t)));
    let names: Vec<&str> = results.iter().map(|(n, _)| n.as_str()).collect();
    let types: Vec<&str> = results.iter().map(|(_, t)| t.as_str()).collect();
    let pred_arg = pred_arg.map_or(String::new(), |t| format!(", %p: {t}"));
    format!(
        "func.func @random(%a: {f}, %b: {f}, %r: {r}, %c: {c}{pred_arg}) -> ({rt}) {{\n  {body}\n  return {names} : {rt}\n}}\n",
        f = s.full,
        r = s.row,
        c = s.col,
        rt = types.join(", "),
        body = body.join("\n  "),
        names = names.join(", "),
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 150,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Under both target profiles (docs/isa.md §9 decisions 1–2): absolute registers, and queue
    /// naming with its hand choice and TMOV re-pushes.
    #[test]
    fn compiled_random_kernels_match_their_source(seed in any::<u64>(), queue in any::<bool>()) {
        let text = random_kernel(seed);
        let mut options = Options::default();
        if queue {
            options.pass_options.target_profile = NamingModel::Queue;
        }
        let driver = Driver::new(options).unwrap();
        let module = driver.import(&ptoc::ir::Source::new(&text, "random.mlir"));
        prop_assert!(module.is_ok(), "{text}\n{:?}", module.err());
        let module = module.unwrap();
        let kernels = driver.compile_kernels(&module);
        prop_assert!(kernels.is_ok(), "{text}\n{:?}", kernels.err());
        let reference = driver.reference_module(&module).unwrap();
        let kernel = &kernels.unwrap()[0];
        let mismatch = verify_kernel(kernel, &reference.functions[0], 6, seed).unwrap();
        prop_assert!(mismatch.is_none(), "{text}\n{}", mismatch.unwrap());
    }
}

#[test]
fn generator_covers_tcvt_with_every_control() {
    let texts: Vec<String> = (0..400u64).map(random_kernel).collect();
    let all = texts.join("\n");
    assert!(all.contains("\"pto.tcvt\""));
    for mode in RoundingMode::ALL {
        assert!(
            all.contains(&format!("pto.rmode = \"{}\"", mode.mlir_name())),
            "{mode:?}"
        );
    }
    assert!(all.contains("pto.sat = true"));
}

#[test]
fn generator_covers_every_element_type() {
    let seen: std::collections::HashSet<DataType> = (0..400u64)
        .filter_map(|seed| {
            let text = random_kernel(seed);
            ARITHMETIC.iter().copied().find(|t| {
                text.contains(&format!("x{}>", t.mlir_name().unwrap()))
                    || text.contains(&format!("x{},", t.mlir_name().unwrap()))
            })
        })
        .collect();
    assert_eq!(seen.len(), ARITHMETIC.len());
}

/// TCMP under every relation, TSEL reading a TCMP's predicate and a predicate argument, and a
/// predicate result all occur in the kernels the property test draws from.
#[test]
fn generator_covers_compare_and_select() {
    let texts: Vec<String> = (0..400u64).map(random_kernel).collect();
    for mode in CmpMode::ALL {
        let attr = format!("pto.cmode = \"{}\"", mode.mlir_name());
        assert!(texts.iter().any(|t| t.contains(&attr)), "{attr}");
    }
    let select_of = |t: &str, p: &str| t.contains(&format!("\"pto.tsel\"({p}"));
    assert!(texts.iter().any(|t| select_of(t, "%p")));
    assert!(texts.iter().any(|t| select_of(t, "%v")));
    // The signature's result list (`-> (…)` on the first line) holds a predicate.
    let returns_predicate = |t: &str| {
        let first = t.lines().next().unwrap_or("");
        first
            .split("-> (")
            .nth(1)
            .is_some_and(|r| r.contains("xi1"))
    };
    assert!(texts.iter().any(|t| returns_predicate(t)));
}

/// TTRANS there and back, with the transpose's shape inferred and written, occurs in the
/// kernels the property test draws from.
#[test]
fn generator_covers_ttrans() {
    let texts: Vec<String> = (0..400u64).map(random_kernel).collect();
    let inferred = |t: &str| {
        t.lines()
            .any(|l| l.contains("\"pto.ttrans\"") && l.contains("-> !pto.tile<?x?x"))
    };
    let written = |t: &str| {
        t.lines()
            .any(|l| l.contains("t = \"pto.ttrans\"") && !l.contains("-> !pto.tile<?x?x"))
    };
    assert!(texts.iter().any(|t| inferred(t)));
    assert!(texts.iter().any(|t| written(t)));
}
