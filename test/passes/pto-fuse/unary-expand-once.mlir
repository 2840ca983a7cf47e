// pto-fuse computes a unary op on the broadcast vector before expanding it: tU(trowexpand(b)) →
// trowexpand(tU(b)), exact for every elementwise unary op (each element is U(b[r,0]); flags are a
// sticky OR). The small op gets the vector's geometry and a Null pad, the expand keeps the result
// type; compiled code matches the unoptimised source bit for bit.
// RUN: ptoc %s --pass-pipeline=pto-infer-shapes,pto-fuse --emit=mlir | FileCheck %s
// RUN: ptoc verify %s --trials 20 | FileCheck %s --check-prefix=EXEC

func.func @rows(%v: !pto.tile<16x1xf32>) -> !pto.tile<16x64xf32, pad=zero> {
  %e = "pto.trowexpand"(%v) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  %r = "pto.tsqrt"(%e) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32, pad=zero>
  return %r : !pto.tile<16x64xf32, pad=zero>
}
// CHECK-LABEL: func.func @rows
// CHECK-NEXT:    %0 = "pto.tsqrt"(%arg0) : (!pto.tile<16x1xf32>) -> !pto.tile<16x1xf32>
// CHECK-NEXT:    %1 = "pto.trowexpand"(%0) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32, pad=zero>
// CHECK-NEXT:    return %1

func.func @cols(%v: !pto.tile<1x64xsi16>) -> !pto.tile<8x64xsi16> {
  %e = "pto.tcolexpand"(%v) : (!pto.tile<1x64xsi16>) -> !pto.tile<8x64xsi16>
  %r = "pto.tneg"(%e) : (!pto.tile<8x64xsi16>) -> !pto.tile<8x64xsi16>
  return %r : !pto.tile<8x64xsi16>
}
// CHECK-LABEL: func.func @cols
// CHECK-NEXT:    %0 = "pto.tneg"(%arg0) : (!pto.tile<1x64xsi16>) -> !pto.tile<1x64xsi16>
// CHECK-NEXT:    %1 = "pto.tcolexpand"(%0) : (!pto.tile<1x64xsi16>) -> !pto.tile<8x64xsi16>

// EXEC: @rows: 20 trials (seed 0), compiled code matches the source bit for bit
// EXEC: @cols: 20 trials (seed 0), compiled code matches the source bit for bit
