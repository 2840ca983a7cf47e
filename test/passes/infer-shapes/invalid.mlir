// pto-infer-shapes: shapes no broadcast axis explains, results that contradict their op's rule,
// and dimensions nothing determines.
// RUN: ptoc %s --split-input-file --pass-pipeline=pto-infer-shapes --verify-diagnostics

func.func @outer_product(%a: !pto.tile<16x1xf32>, %b: !pto.tile<1x64xf32>) -> !pto.tile<?x?xf32> {
  // expected-error@+1 {{'pto.tadd' op has sources %a (16x1xf32) and %b (1x64xf32), which are neither equal nor a row (Rx1) or column (1xC) broadcast of each other; broadcast along one axis only, with the vector's valid length matching the full operand's [broadcast-shape, Fault_TileLegality]}}
  %r = "pto.tadd"(%a, %b) : (!pto.tile<16x1xf32>, !pto.tile<1x64xf32>) -> !pto.tile<?x?xf32>
  return %r : !pto.tile<?x?xf32>
}

// -----

func.func @row_count_mismatch(%a: !pto.tile<16x64xf32>, %b: !pto.tile<8x1xf32>) -> !pto.tile<16x64xf32> {
  // expected-error@+1 {{'pto.tmul' op has sources %a (16x64xf32) and %b (8x1xf32), which are neither equal nor a row (Rx1) or column (1xC) broadcast of each other}}
  %r = "pto.tmul"(%a, %b) : (!pto.tile<16x64xf32>, !pto.tile<8x1xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// -----

func.func @contradiction(%x: !pto.tile<16x64xf32>) -> !pto.tile<?x4xf32> {
  // expected-error@+1 {{'pto.trowmax' op result has columns 4, but %x (16x64xf32) gives 1 [inferred-shape, Fault_TileLegality]}}
  %m = "pto.trowmax"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<?x4xf32>
  return %m : !pto.tile<?x4xf32>
}

// -----

func.func @copy_needs_its_columns(%v: !pto.tile<16x1xf32>) -> !pto.tile<?x?xf32> {
  // expected-error@+1 {{'pto.trowexpand' op result has type ?x?xf32, and its columns cannot be inferred from %v (16x1xf32); write the columns [inferred-shape, Fault_TileLegality]}}
  %r = "pto.trowexpand"(%v) : (!pto.tile<16x1xf32>) -> !pto.tile<?x?xf32>
  return %r : !pto.tile<?x?xf32>
}
