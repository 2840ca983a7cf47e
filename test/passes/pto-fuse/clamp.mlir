// Broadcast max/min clamps: the broadcast on either side of the commutative TMAX/TMIN folds into
// the expand op (full-shape source first). An integer max/min of a broadcast is the vector itself;
// a float one is kept (max(NaN, NaN) is the canonical NaN, not the operand's payload).
// RUN: ptoc %s --pass-pipeline=pto-infer-shapes,pto-fuse --emit=mlir | FileCheck %s
// RUN: ptoc verify %s --trials 4 | FileCheck %s --check-prefix=EXEC

func.func @clamp(%x: !pto.tile<16x64xf32>, %lo: !pto.tile<16x1xf32>, %hi: !pto.tile<1x64xf32>) -> !pto.tile<16x64xf32> {
  %elo = "pto.trowexpand"(%lo) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  %ehi = "pto.tcolexpand"(%hi) : (!pto.tile<1x64xf32>) -> !pto.tile<16x64xf32>
  %a = "pto.tmax"(%elo, %x) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  %b = "pto.tmin"(%a, %ehi) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %b : !pto.tile<16x64xf32>
}

// CHECK-LABEL: func.func @clamp
// CHECK-NEXT:    %0 = "pto.trowexpandmax"(%arg0, %arg1)
// CHECK-NEXT:    %1 = "pto.tcolexpandmin"(%0, %arg2)
// CHECK-NEXT:    return %1
// EXEC: @clamp: 4 trials (seed 0), compiled code matches the source bit for bit

func.func @int_max_of_broadcast(%v: !pto.tile<16x1xsi32>, %w: !pto.tile<1x64xui8>) -> (!pto.tile<16x1xsi32>, !pto.tile<1x64xui8>) {
  %ev = "pto.trowexpand"(%v) : (!pto.tile<16x1xsi32>) -> !pto.tile<16x64xsi32>
  %m = "pto.trowmax"(%ev) : (!pto.tile<16x64xsi32>) -> !pto.tile<16x1xsi32>
  %ew = "pto.tcolexpand"(%w) : (!pto.tile<1x64xui8>) -> !pto.tile<16x64xui8>
  %n = "pto.tcolmin"(%ew) : (!pto.tile<16x64xui8>) -> !pto.tile<1x64xui8>
  return %m, %n : !pto.tile<16x1xsi32>, !pto.tile<1x64xui8>
}

// CHECK-LABEL: func.func @int_max_of_broadcast
// CHECK-NEXT:    return %arg0, %arg1
// EXEC: @int_max_of_broadcast: 4 trials (seed 0), compiled code matches the source bit for bit

func.func @float_max_of_broadcast(%v: !pto.tile<16x1xf32>) -> !pto.tile<16x1xf32> {
  %ev = "pto.trowexpand"(%v) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  %m = "pto.trowmax"(%ev) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
  return %m : !pto.tile<16x1xf32>
}

// CHECK-LABEL: func.func @float_max_of_broadcast
// CHECK-NEXT:    %0 = "pto.trowexpand"(%arg0)
// CHECK-NEXT:    %1 = "pto.trowmax"(%0)
// CHECK-NEXT:    return %1
// EXEC: @float_max_of_broadcast: 4 trials (seed 0), compiled code matches the source bit for bit
