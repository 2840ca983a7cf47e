// Row softmax written with numpy-style broadcasts and a '?' result: inference makes the
// broadcasts explicit, fusion folds them (sub+exp into EXPDIF, div into TROWEXPANDDIV), and
// allocation gives registers in program order by the renaming rule.
// RUN: ptoc %s --target-profile=absolute --emit=mlir --pass-pipeline='builtin.module(func.func(pto-verify,pto-infer-shapes))' | FileCheck %s --check-prefix=INFER
// RUN: ptoc %s --target-profile=absolute --emit=mlir | FileCheck %s
// RUN: ptoc %s --target-profile=absolute --emit=mlir -O0 | FileCheck %s --check-prefix=O0
// RUN: ptoc verify %s --target-profile=absolute --trials 4 | FileCheck %s --check-prefix=EXEC

func.func @softmax(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  %m = "pto.trowmax"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<?x?xf32>
  %d = "pto.tsub"(%x, %m) : (!pto.tile<16x64xf32>, !pto.tile<?x?xf32>) -> !pto.tile<16x64xf32>
  %e = "pto.texp"(%d) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  %s = "pto.trowsum"(%e) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
  %r = "pto.tdiv"(%e, %s) : (!pto.tile<16x64xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// INFER-LABEL: func.func @softmax
// INFER-NEXT:    %0 = "pto.trowmax"(%arg0) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
// INFER-NEXT:    %1 = "pto.trowexpand"(%0) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
// INFER-NEXT:    %2 = "pto.tsub"(%arg0, %1) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
// INFER-NEXT:    %3 = "pto.texp"(%2)
// INFER-NEXT:    %4 = "pto.trowsum"(%3)
// INFER-NEXT:    %5 = "pto.trowexpand"(%4) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
// INFER-NEXT:    %6 = "pto.tdiv"(%3, %5)
// INFER-NEXT:    return %6

// The 16x64xf32 tiles take 4 KiB (SizeCode 6, 16 rows); the 16x1 vectors the smallest 128 B,
// which derives 32 rows.
// CHECK-LABEL: func.func @softmax(%arg0: !pto.tile<16x64xf32> {pto.dst = "T#1", pto.rows = 16 : i64, pto.tsize = 6 : i64})
// CHECK-SAME:    attributes {pto.pe_mask = "1111", pto.profile = "absolute"}
// CHECK-NEXT:    %0 = "pto.trowmax"(%arg0) {pto.dst = "T#2", pto.rows = 32 : i64, pto.tsize = 1 : i64}
// CHECK-NEXT:    %1 = "pto.trowexpandexpdif"(%arg0, %0) {pto.dst = "T#3", pto.rows = 16 : i64, pto.tsize = 6 : i64}
// CHECK-NEXT:    %2 = "pto.trowsum"(%1) {pto.dst = "T#4", pto.rows = 32 : i64, pto.tsize = 1 : i64}
// CHECK-NEXT:    %3 = "pto.trowexpanddiv"(%1, %2) {pto.dst = "T#5", pto.rows = 16 : i64, pto.tsize = 6 : i64}
// CHECK-NEXT:    return %3

// O0-LABEL: func.func @softmax
// O0:         "pto.trowexpand"(%0) {pto.dst = "T#3"
// O0-NEXT:    "pto.tsub"(%arg0, %1) {pto.dst = "T#4"
// O0-NEXT:    "pto.texp"(%2) {pto.dst = "T#5"
// O0-NEXT:    "pto.trowsum"(%3) {pto.dst = "T#6"
// O0-NEXT:    "pto.trowexpand"(%4) {pto.dst = "T#7"
// O0-NEXT:    "pto.tdiv"(%3, %5) {pto.dst = "T#8"

// The compiled words, run by the interpreter, agree bit for bit with the source's meaning.
// EXEC: 4 trials (seed 0), compiled code matches the source bit for bit
