// A broadcast with two consumers is fused into each only when that lowers the program's cost:
// when the copy then disappears (@both), not when it must exist anyway, because it is a result
// (@also_returned) or a consumer cannot fuse (@left_of_sub: no expand form computes bcast - src).
// RUN: ptoc %s --pass-pipeline=pto-infer-shapes,pto-fuse --emit=mlir | FileCheck %s
// RUN: ptoc verify %s --trials 4 | FileCheck %s --check-prefix=EXEC

func.func @both(%y: !pto.tile<16x64xf32>, %v: !pto.tile<16x1xf32>) -> !pto.tile<16x64xf32> {
  %ev = "pto.trowexpand"(%v) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  %z = "pto.tmax"(%y, %ev) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  %z2 = "pto.tmin"(%ev, %z) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %z2 : !pto.tile<16x64xf32>
}

// CHECK-LABEL: func.func @both
// CHECK-NEXT:    %0 = "pto.trowexpandmax"(%arg0, %arg1)
// CHECK-NEXT:    %1 = "pto.trowexpandmin"(%0, %arg1)
// CHECK-NEXT:    return %1
// EXEC: @both: 4 trials (seed 0), compiled code matches the source bit for bit

func.func @also_returned(%y: !pto.tile<16x64xf32>, %v: !pto.tile<16x1xf32>) -> (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) {
  %ev = "pto.trowexpand"(%v) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  %z = "pto.tmax"(%y, %ev) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  %z2 = "pto.tmin"(%ev, %z) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %z2, %ev : !pto.tile<16x64xf32>, !pto.tile<16x64xf32>
}

// CHECK-LABEL: func.func @also_returned
// CHECK-NEXT:    %0 = "pto.trowexpand"(%arg1)
// CHECK-NEXT:    %1 = "pto.tmax"(%arg0, %0)
// CHECK-NEXT:    %2 = "pto.tmin"(%0, %1)
// CHECK-NEXT:    return %2, %0
// EXEC: @also_returned: 4 trials (seed 0), compiled code matches the source bit for bit

func.func @left_of_sub(%y: !pto.tile<16x64xsi16>, %v: !pto.tile<16x1xsi16>) -> (!pto.tile<16x64xsi16>, !pto.tile<16x64xsi16>) {
  %ev = "pto.trowexpand"(%v) : (!pto.tile<16x1xsi16>) -> !pto.tile<16x64xsi16>
  %s = "pto.tsub"(%ev, %y) : (!pto.tile<16x64xsi16>, !pto.tile<16x64xsi16>) -> !pto.tile<16x64xsi16>
  %a = "pto.tadd"(%y, %ev) : (!pto.tile<16x64xsi16>, !pto.tile<16x64xsi16>) -> !pto.tile<16x64xsi16>
  return %s, %a : !pto.tile<16x64xsi16>, !pto.tile<16x64xsi16>
}

// CHECK-LABEL: func.func @left_of_sub
// CHECK-NEXT:    %0 = "pto.trowexpand"(%arg1)
// CHECK-NEXT:    %1 = "pto.tsub"(%0, %arg0)
// CHECK-NEXT:    %2 = "pto.tadd"(%arg0, %0)
// CHECK-NEXT:    return %1, %2
// EXEC: @left_of_sub: 4 trials (seed 0), compiled code matches the source bit for bit
