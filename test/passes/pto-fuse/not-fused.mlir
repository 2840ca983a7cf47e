// What pto-fuse must leave alone: an FP64 exp of a broadcast subtract (FP64 is no EXPDIF pair, so
// only the subtract folds) and a broadcast on the left of a divide (no expand form computes
// bcast / src).
// RUN: ptoc %s --pass-pipeline=pto-infer-shapes,pto-fuse --emit=mlir | FileCheck %s
// RUN: ptoc verify %s --trials 4 | FileCheck %s --check-prefix=EXEC

func.func @exp_f64(%x: !pto.tile<8x16xf64>, %v: !pto.tile<8x1xf64>) -> !pto.tile<8x16xf64> {
  %ev = "pto.trowexpand"(%v) : (!pto.tile<8x1xf64>) -> !pto.tile<8x16xf64>
  %d = "pto.tsub"(%x, %ev) : (!pto.tile<8x16xf64>, !pto.tile<8x16xf64>) -> !pto.tile<8x16xf64>
  %e = "pto.texp"(%d) : (!pto.tile<8x16xf64>) -> !pto.tile<8x16xf64>
  return %e : !pto.tile<8x16xf64>
}

// CHECK-LABEL: func.func @exp_f64
// CHECK-NEXT:    %0 = "pto.trowexpandsub"(%arg0, %arg1)
// CHECK-NEXT:    %1 = "pto.texp"(%0)
// CHECK-NEXT:    return %1
// EXEC: @exp_f64: 4 trials (seed 0), compiled code matches the source bit for bit

func.func @broadcast_numerator(%x: !pto.tile<8x16xf32>, %v: !pto.tile<8x1xf32>) -> !pto.tile<8x16xf32> {
  %ev = "pto.trowexpand"(%v) : (!pto.tile<8x1xf32>) -> !pto.tile<8x16xf32>
  %q = "pto.tdiv"(%ev, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  return %q : !pto.tile<8x16xf32>
}

// CHECK-LABEL: func.func @broadcast_numerator
// CHECK-NEXT:    %0 = "pto.trowexpand"(%arg1)
// CHECK-NEXT:    %1 = "pto.tdiv"(%0, %arg0)
// CHECK-NEXT:    return %1
// EXEC: @broadcast_numerator: 4 trials (seed 0), compiled code matches the source bit for bit
