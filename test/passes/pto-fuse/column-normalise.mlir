// pto-fuse on a column normalisation (subtract the column max, exp, divide by the column sum):
// the column forms TCOLEXPANDEXPDIF and TCOLEXPANDDIV, in FP16 (EXPDIF's same-type FP16 pair).
// RUN: ptoc %s --pass-pipeline=pto-infer-shapes,pto-fuse --emit=mlir | FileCheck %s
// RUN: ptoc verify %s --trials 4 | FileCheck %s --check-prefix=EXEC

func.func @normalise_cols(%x: !pto.tile<8x32xf16>) -> !pto.tile<8x32xf16> {
  %m = "pto.tcolmax"(%x) : (!pto.tile<8x32xf16>) -> !pto.tile<1x32xf16>
  %em = "pto.tcolexpand"(%m) : (!pto.tile<1x32xf16>) -> !pto.tile<8x32xf16>
  %d = "pto.tsub"(%x, %em) : (!pto.tile<8x32xf16>, !pto.tile<8x32xf16>) -> !pto.tile<8x32xf16>
  %e = "pto.texp"(%d) : (!pto.tile<8x32xf16>) -> !pto.tile<8x32xf16>
  %s = "pto.tcolsum"(%e) : (!pto.tile<8x32xf16>) -> !pto.tile<1x32xf16>
  %es = "pto.tcolexpand"(%s) : (!pto.tile<1x32xf16>) -> !pto.tile<8x32xf16>
  %r = "pto.tdiv"(%e, %es) : (!pto.tile<8x32xf16>, !pto.tile<8x32xf16>) -> !pto.tile<8x32xf16>
  return %r : !pto.tile<8x32xf16>
}

// CHECK-LABEL: func.func @normalise_cols
// CHECK-NEXT:    %0 = "pto.tcolmax"(%arg0)
// CHECK-NEXT:    %1 = "pto.tcolexpandexpdif"(%arg0, %0) : (!pto.tile<8x32xf16>, !pto.tile<1x32xf16>) -> !pto.tile<8x32xf16>
// CHECK-NEXT:    %2 = "pto.tcolsum"(%1)
// CHECK-NEXT:    %3 = "pto.tcolexpanddiv"(%1, %2) : (!pto.tile<8x32xf16>, !pto.tile<1x32xf16>) -> !pto.tile<8x32xf16>
// CHECK-NEXT:    return %3

// EXEC: 4 trials (seed 0), compiled code matches the source bit for bit
