//! The GM bound and step rules live once (`ptoc_ir::check_bounds`): a kernel compiled with
//! the default pipeline (pto-verify refuses it) and one compiled with only
//! `--pass-pipeline=pto-allocate` (the lowering refuses it) get the same located diagnostics.

use ptoc::ir::Source;
use ptoc::{Driver, Options};

/// The diagnostics of compiling `text` with `pipeline` (`None`: the default one), as
/// `file:line:col: message`.
fn errors(text: &str, pipeline: Option<&str>) -> Vec<String> {
    let driver = Driver::new(Options {
        pipeline: pipeline.map(str::to_string),
        ..Options::default()
    })
    .unwrap();
    let err = driver.kernels(&Source::new(text, "k.mlir")).unwrap_err();
    err.diagnostics
        .iter()
        .map(|d| format!("{}: {}", d.loc, d.message))
        .collect()
}

fn both_pipelines_refuse(text: &str, want: &str) {
    for pipeline in [None, Some("pto-allocate")] {
        assert_eq!(errors(text, pipeline), [want], "pipeline {pipeline:?}");
    }
}

#[test]
fn a_constant_offset_past_the_memref_is_refused_with_or_without_pto_verify() {
    let text = r#"func.func @oob(%x: memref<4x16xf32>, %out: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %t = "pto.tload"(%x, %c3, %c0) : (memref<4x16xf32>, index, index) -> !pto.tile<2x16xf32>
  "pto.tstore"(%t, %out, %c0, %c0) : (!pto.tile<2x16xf32>, memref<4x16xf32>, index, index) -> ()
  return
}
"#;
    both_pipelines_refuse(
        text,
        "k.mlir:4:8: 'pto.tload' reads rows 3..=4 of %x (memref<4x16xf32>, rows 0..=3): the row \
         offset is 3 and the tile has 2 valid rows",
    );
}

#[test]
fn an_induction_variable_past_the_memref_is_refused_with_or_without_pto_verify() {
    // Rows 0, 2, 4: the last store writes row 4 of a 4-row memref.
    let text = r#"func.func @oob_loop(%x: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %t = "pto.tload"(%x, %c0, %c0) : (memref<4x8xf32>, index, index) -> !pto.tile<1x8xf32>
  scf.for %i = %c0 to %c5 step %c2 {
    "pto.tstore"(%t, %x, %i, %c0) : (!pto.tile<1x8xf32>, memref<4x8xf32>, index, index) -> ()
  }
  return
}
"#;
    both_pipelines_refuse(
        text,
        "k.mlir:7:5: 'pto.tstore' writes rows 0..=4 of %x (memref<4x8xf32>, rows 0..=3): the row \
         offset ranges over 0..=4 and the tile has 1 valid rows",
    );
}

#[test]
fn a_step_that_is_not_positive_is_refused_with_or_without_pto_verify() {
    let text = r#"func.func @step(%x: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %s = arith.constant 0 : index
  scf.for %i = %c0 to %c4 step %s {
    %t = "pto.tload"(%x, %i, %c0) : (memref<4x8xf32>, index, index) -> !pto.tile<1x8xf32>
    "pto.tstore"(%t, %x, %i, %c0) : (!pto.tile<1x8xf32>, memref<4x8xf32>, index, index) -> ()
  }
  return
}
"#;
    both_pipelines_refuse(
        text,
        "k.mlir:5:3: 'scf.for' has step 0; a loop's step must be positive",
    );
}
