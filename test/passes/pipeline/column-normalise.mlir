// Column normalisation: divide every element by its column's sum, written as a numpy-style
// column broadcast; the valid region (10x60) carries through inference, fusion and allocation.
// RUN: ptoc %s --target-profile=absolute --emit=mlir --pass-pipeline=pto-verify,pto-infer-shapes | FileCheck %s --check-prefix=INFER
// RUN: ptoc %s --target-profile=absolute --emit=mlir | FileCheck %s
// RUN: ptoc verify %s --target-profile=absolute --trials 4 | FileCheck %s --check-prefix=EXEC

func.func @colnorm(%x: !pto.tile<16x64xf16, valid=10x60>) -> !pto.tile<16x64xf16, valid=10x60> {
  %s = "pto.tcolsum"(%x) : (!pto.tile<16x64xf16, valid=10x60>) -> !pto.tile<?x?xf16>
  %r = "pto.tdiv"(%x, %s) : (!pto.tile<16x64xf16, valid=10x60>, !pto.tile<?x?xf16>) -> !pto.tile<16x64xf16, valid=10x60>
  return %r : !pto.tile<16x64xf16, valid=10x60>
}

// INFER:      %0 = "pto.tcolsum"(%arg0) : (!pto.tile<16x64xf16, valid=10x60>) -> !pto.tile<1x64xf16, valid=1x60>
// INFER-NEXT: %1 = "pto.tcolexpand"(%0) : (!pto.tile<1x64xf16, valid=1x60>) -> !pto.tile<16x64xf16, valid=10x60>
// INFER-NEXT: %2 = "pto.tdiv"(%arg0, %1)

// 16x64xf16 is 2 KiB (SizeCode 5); the 1x64 column vector 128 B holds exactly one row.
// CHECK:      {pto.dst = "T#1", pto.rows = 16 : i64, pto.tsize = 5 : i64}
// CHECK:      %0 = "pto.tcolsum"(%arg0) {pto.dst = "T#2", pto.rows = 1 : i64, pto.tsize = 1 : i64}
// CHECK-NEXT: %1 = "pto.tcolexpanddiv"(%arg0, %0) {pto.dst = "T#3", pto.rows = 16 : i64, pto.tsize = 5 : i64}
// CHECK-SAME:   -> !pto.tile<16x64xf16, valid=10x60>
// CHECK-NEXT: return %1

// The compiled words, run by the interpreter, agree bit for bit with the source's meaning.
// EXEC: 4 trials (seed 0), compiled code matches the source bit for bit
