// An elementwise op of two broadcasts of identically typed vectors works on the small vectors and
// expands once; the expand keeps the op's result type (its Min pad), the small op gets the
// vector type with Null pad. Vectors of different physical shape are not combined (the small op
// would be illegal); one broadcast still folds into the op.
// RUN: ptoc %s --pass-pipeline=pto-infer-shapes,pto-fuse --emit=mlir | FileCheck %s
// RUN: ptoc verify %s --trials 4 | FileCheck %s --check-prefix=EXEC
// Same input, same output, byte for byte, across processes:
// RUN: ptoc %s --pass-pipeline=pto-infer-shapes,pto-fuse --emit=mlir > %t.first
// RUN: ptoc %s --pass-pipeline=pto-infer-shapes,pto-fuse --emit=mlir | diff %t.first -

func.func @rows(%v: !pto.tile<16x1xf32>, %u: !pto.tile<16x1xf32, pad=max>) -> !pto.tile<16x64xf32, pad=min> {
  %ev = "pto.trowexpand"(%v) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  %eu = "pto.trowexpand"(%u) : (!pto.tile<16x1xf32, pad=max>) -> !pto.tile<16x64xf32>
  %r = "pto.tmul"(%ev, %eu) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32, pad=min>
  return %r : !pto.tile<16x64xf32, pad=min>
}

// CHECK-LABEL: func.func @rows
// CHECK-NEXT:    %0 = "pto.tmul"(%arg0, %arg1) : (!pto.tile<16x1xf32>, !pto.tile<16x1xf32, pad=max>) -> !pto.tile<16x1xf32>
// CHECK-NEXT:    %1 = "pto.trowexpand"(%0) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32, pad=min>
// CHECK-NEXT:    return %1
// EXEC: @rows: 4 trials (seed 0), compiled code matches the source bit for bit

func.func @cols(%v: !pto.tile<1x32xsi32>, %u: !pto.tile<1x32xsi32>) -> !pto.tile<8x32xsi32> {
  %ev = "pto.tcolexpand"(%v) : (!pto.tile<1x32xsi32>) -> !pto.tile<8x32xsi32>
  %eu = "pto.tcolexpand"(%u) : (!pto.tile<1x32xsi32>) -> !pto.tile<8x32xsi32>
  %r = "pto.tsub"(%ev, %eu) : (!pto.tile<8x32xsi32>, !pto.tile<8x32xsi32>) -> !pto.tile<8x32xsi32>
  return %r : !pto.tile<8x32xsi32>
}

// CHECK-LABEL: func.func @cols
// CHECK-NEXT:    %0 = "pto.tsub"(%arg0, %arg1) : (!pto.tile<1x32xsi32>, !pto.tile<1x32xsi32>) -> !pto.tile<1x32xsi32>
// CHECK-NEXT:    %1 = "pto.tcolexpand"(%0) : (!pto.tile<1x32xsi32>) -> !pto.tile<8x32xsi32>
// CHECK-NEXT:    return %1
// EXEC: @cols: 4 trials (seed 0), compiled code matches the source bit for bit

func.func @different_vectors(%v: !pto.tile<16x1xf32>, %u: !pto.tile<32x1xf32, valid=16x1>) -> !pto.tile<16x64xf32> {
  %ev = "pto.trowexpand"(%v) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  %eu = "pto.trowexpand"(%u) : (!pto.tile<32x1xf32, valid=16x1>) -> !pto.tile<16x64xf32>
  %r = "pto.tadd"(%ev, %eu) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// CHECK-LABEL: func.func @different_vectors
// CHECK-NEXT:    %0 = "pto.trowexpand"(%arg0)
// CHECK-NEXT:    %1 = "pto.trowexpandadd"(%0, %arg1)
// CHECK-NEXT:    return %1
// EXEC: @different_vectors: 4 trials (seed 0), compiled code matches the source bit for bit
