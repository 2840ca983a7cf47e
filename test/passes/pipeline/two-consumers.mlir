// One explicit row broadcast feeding two elementwise ops (as right and as left operand): fusion
// folds it into both, and the copy disappears; without fusion it keeps its own register.
// RUN: ptoc %s --target-profile=absolute --emit=mlir | FileCheck %s
// RUN: ptoc %s --target-profile=absolute --emit=mlir -O0 | FileCheck %s --check-prefix=O0
// RUN: ptoc verify %s --target-profile=absolute --trials 4 | FileCheck %s --check-prefix=EXEC

func.func @two_consumers(%x: !pto.tile<16x64xf32>, %y: !pto.tile<16x64xf32>) -> (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) {
  %m = "pto.trowmax"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
  %e = "pto.trowexpand"(%m) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  %a = "pto.tsub"(%x, %e) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  %b = "pto.tmul"(%e, %y) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %a, %b : !pto.tile<16x64xf32>, !pto.tile<16x64xf32>
}

// CHECK-LABEL: func.func @two_consumers
// CHECK-NEXT:  %0 = "pto.trowmax"(%arg0) {pto.dst = "T#3"
// CHECK-NEXT:  %1 = "pto.trowexpandsub"(%arg0, %0) {pto.dst = "T#4"
// CHECK-NEXT:  %2 = "pto.trowexpandmul"(%arg1, %0) {pto.dst = "T#5"
// CHECK-NEXT:  return %1, %2

// O0-LABEL: func.func @two_consumers
// O0-NEXT:  "pto.trowmax"(%arg0) {pto.dst = "T#3"
// O0-NEXT:  "pto.trowexpand"(%0) {pto.dst = "T#4"
// O0-NEXT:  "pto.tsub"(%arg0, %1) {pto.dst = "T#5"
// O0-NEXT:  "pto.tmul"(%1, %arg1) {pto.dst = "T#6"

// The compiled words, run by the interpreter, agree bit for bit with the source's meaning.
// EXEC: 4 trials (seed 0), compiled code matches the source bit for bit
