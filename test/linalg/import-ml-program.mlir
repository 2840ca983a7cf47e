// Module-level ml_program state (torch-mlir's seed global) feeds no kernel and is ignored
// (design §11): a pto kernel beside it compiles as if it were alone.
// RUN: ptoc %s --emit=asm | FileCheck %s
// CHECK: BSTART.SFU TEXP, FP32

ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>

func.func @k(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  %e = "pto.texp"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %e : !pto.tile<16x64xf32>
}
