// pto-fuse on a row softmax written with explicit broadcasts: the broadcast subtract and the exp
// become one TROWEXPANDEXPDIF (same-type FP32 pair), the broadcast divide a TROWEXPANDDIV that
// keeps the divide's result type (its Zero pad), name order and location.
// RUN: ptoc %s --pass-pipeline=pto-infer-shapes,pto-fuse --emit=mlir | FileCheck %s
// RUN: ptoc %s --emit=mlir -O0 | FileCheck %s --check-prefix=O0
// RUN: ptoc %s --pass-pipeline=pto-infer-shapes,pto-fuse --emit=mlir -O0 | FileCheck %s
// RUN: ptoc %s --pass-pipeline=pto-infer-shapes,pto-fuse --emit=mlir --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: ptoc verify %s --trials 4 | FileCheck %s --check-prefix=EXEC

func.func @softmax_rows(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32, pad=zero> {
  %m = "pto.trowmax"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
  %em = "pto.trowexpand"(%m) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  %d = "pto.tsub"(%x, %em) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  %e = "pto.texp"(%d) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  %s = "pto.trowsum"(%e) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
  %es = "pto.trowexpand"(%s) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  %r = "pto.tdiv"(%e, %es) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32, pad=zero>
  return %r : !pto.tile<16x64xf32, pad=zero>
}

// CHECK-LABEL: func.func @softmax_rows
// CHECK-NEXT:    %0 = "pto.trowmax"(%arg0) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
// CHECK-NEXT:    %1 = "pto.trowexpandexpdif"(%arg0, %0) : (!pto.tile<16x64xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
// CHECK-NEXT:    %2 = "pto.trowsum"(%1) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
// CHECK-NEXT:    %3 = "pto.trowexpanddiv"(%1, %2) : (!pto.tile<16x64xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x64xf32, pad=zero>
// CHECK-NEXT:    return %3

// -O0 (the default pipeline without pto-fuse) keeps every op; a pipeline that names pto-fuse
// fuses at any -O.
// O0-LABEL: func.func @softmax_rows
// O0-NEXT:    "pto.trowmax"
// O0-NEXT:    "pto.trowexpand"
// O0-NEXT:    "pto.tsub"
// O0-NEXT:    "pto.texp"
// O0-NEXT:    "pto.trowsum"
// O0-NEXT:    "pto.trowexpand"
// O0-NEXT:    "pto.tdiv"
// O0-NEXT:    return

// STATS-LABEL: PtoFuse
// STATS-DAG:     (S) {{ *}}2 iterations
// STATS-DAG:     (S) {{ *}}4 ops-after
// STATS-DAG:     (S) {{ *}}7 ops-before
// STATS-DAG:     (S) {{ *}}3 rules-applied
// STATS-DAG:     (S) {{ *}}0 stopped-at-limit

// The compiled words, run by the interpreter, agree bit for bit with the unfused source.
// EXEC: 4 trials (seed 0), compiled code matches the source bit for bit
