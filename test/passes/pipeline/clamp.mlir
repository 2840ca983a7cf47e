// Clamp by a per-row floor and a per-column ceiling, broadcasts written numpy-style with the
// vector on either side: both become expand ops (TROWEXPANDMAX, TCOLEXPANDMIN).
// RUN: ptoc %s --target-profile=absolute --emit=mlir | FileCheck %s
// RUN: ptoc verify %s --target-profile=absolute --trials 4 | FileCheck %s --check-prefix=EXEC

func.func @clamp(%x: !pto.tile<16x64xsi32>, %lo: !pto.tile<16x1xsi32>, %hi: !pto.tile<1x64xsi32>) -> !pto.tile<16x64xsi32> {
  %a = "pto.tmax"(%lo, %x) : (!pto.tile<16x1xsi32>, !pto.tile<16x64xsi32>) -> !pto.tile<?x?xsi32>
  %b = "pto.tmin"(%a, %hi) : (!pto.tile<?x?xsi32>, !pto.tile<1x64xsi32>) -> !pto.tile<16x64xsi32>
  return %b : !pto.tile<16x64xsi32>
}

// Arguments in order, then destinations: T#1..T#3, T#4, T#5.
// CHECK-LABEL: func.func @clamp
// CHECK-SAME:    {pto.dst = "T#1", pto.rows = 16 : i64, pto.tsize = 6 : i64}
// CHECK-SAME:    {pto.dst = "T#2", pto.rows = 32 : i64, pto.tsize = 1 : i64}
// CHECK-SAME:    {pto.dst = "T#3", pto.rows = 1 : i64, pto.tsize = 2 : i64}
// CHECK-NEXT:  %0 = "pto.trowexpandmax"(%arg0, %arg1) {pto.dst = "T#4", pto.rows = 16 : i64, pto.tsize = 6 : i64}
// CHECK-NEXT:  %1 = "pto.tcolexpandmin"(%0, %arg2) {pto.dst = "T#5", pto.rows = 16 : i64, pto.tsize = 6 : i64}
// CHECK-NEXT:  return %1

// The compiled words, run by the interpreter, agree bit for bit with the source's meaning.
// EXEC: 4 trials (seed 0), compiled code matches the source bit for bit
