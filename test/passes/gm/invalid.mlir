// pto-verify on GM kernels: tile ops in loop bodies obey the same rules as in functions, and the
// tiles that enter a kernel (arguments, loads, loop-carried values) are fully written.
// RUN: ptoc %s --split-input-file --verify-diagnostics --emit=mlir --pass-pipeline=pto-verify

func.func @same_type_in_loop(%x: memref<16x16xf32>, %y: memref<16x16xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1 step %c1 {
    %a = "pto.tload"(%x, %c0, %c0) : (memref<16x16xf32>, index, index) -> !pto.tile<16x16xf32>
    // expected-note@+1 {{%b defined here}}
    %b = "pto.tload"(%y, %c0, %c0) : (memref<16x16xi32>, index, index) -> !pto.tile<16x16xi32>
    // expected-error@+1 {{'pto.tadd' op right source operand #1 %b has DataType S32, but the left source has FP32; all sources of TADD share one DataType [same-type, Fault_TileLegality]}}
    %r = "pto.tadd"(%a, %b) : (!pto.tile<16x16xf32>, !pto.tile<16x16xi32>) -> !pto.tile<16x16xf32>
  }
  return
}

// -----

func.func @carried_unknown(%x: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = "pto.tload"(%x, %c0, %c0) : (memref<16x16xf32>, index, index) -> !pto.tile<16x16xf32>
  %e = "pto.texp"(%a) : (!pto.tile<16x16xf32>) -> !pto.tile<?x?xf32>
  // expected-error@+1 {{'scf.for' carried value #0 %acc has type ?x?xf32; only tile-op results are inferred}}
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%acc = %e) -> (!pto.tile<?x?xf32>) {
    scf.yield %acc : !pto.tile<?x?xf32>
  }
  return
}

// -----

func.func @load_shape(%x: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'pto.tload' result has physical shape 16x12xf32 with 12 columns, not a power of two}}
  %a = "pto.tload"(%x, %c0, %c0) : (memref<16x16xf32>, index, index) -> !pto.tile<16x12xf32>
  return
}
