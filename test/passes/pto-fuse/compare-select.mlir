// TCMP and TSEL go through the e-graph like the other ops: a broadcast feeding them folds into
// its expand op, a comparison keeps its relation, two comparisons of the same operands that
// differ only in pto.cmode stay two values (their e-nodes carry the relation, tcmp.lt, tcmp.ge,
// …), and a comparison written both ways round (lt of x, y and gt of y, x) is computed once
// (docs/isa.md §1.9).
// RUN: ptoc %s --pass-pipeline=pto-infer-shapes,pto-fuse --emit=mlir | FileCheck %s
// RUN: ptoc verify %s --trials 8 | FileCheck %s --check-prefix=EXEC

func.func @select_shifted(%x: !pto.tile<16x64xf32>, %v: !pto.tile<16x1xf32>) -> !pto.tile<16x64xf32> {
  %e = "pto.trowexpand"(%v) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  %s = "pto.tadd"(%x, %e) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  %p = "pto.tcmp"(%s, %x) {pto.cmode = "gt"} : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xi1>
  %r = "pto.tsel"(%p, %s, %x) : (!pto.tile<16x64xi1>, !pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// CHECK-LABEL: func.func @select_shifted
// CHECK-NEXT:    %0 = "pto.trowexpandadd"(%arg0, %arg1)
// CHECK-NEXT:    %1 = "pto.tcmp"(%0, %arg0) {pto.cmode = "gt"}
// CHECK-NEXT:    %2 = "pto.tsel"(%1, %0, %arg0)
// CHECK-NEXT:    return %2
// EXEC: @select_shifted: 8 trials (seed 0), compiled code matches the source bit for bit

func.func @two_relations(%x: !pto.tile<16x64xsi8>, %y: !pto.tile<16x64xsi8>) -> (!pto.tile<16x64xi1>, !pto.tile<16x64xi1>, !pto.tile<16x64xi1>) {
  %a = "pto.tcmp"(%x, %y) {pto.cmode = "lt"} : (!pto.tile<16x64xsi8>, !pto.tile<16x64xsi8>) -> !pto.tile<16x64xi1>
  %b = "pto.tcmp"(%x, %y) {pto.cmode = "ge"} : (!pto.tile<16x64xsi8>, !pto.tile<16x64xsi8>) -> !pto.tile<16x64xi1>
  %c = "pto.tcmp"(%x, %y) {pto.cmode = "lt"} : (!pto.tile<16x64xsi8>, !pto.tile<16x64xsi8>) -> !pto.tile<16x64xi1>
  return %a, %b, %c : !pto.tile<16x64xi1>, !pto.tile<16x64xi1>, !pto.tile<16x64xi1>
}

// CHECK-LABEL: func.func @two_relations
// CHECK-NEXT:    %0 = "pto.tcmp"(%arg0, %arg1) {pto.cmode = "lt"}
// CHECK-NEXT:    %1 = "pto.tcmp"(%arg0, %arg1) {pto.cmode = "ge"}
// CHECK-NEXT:    return %0, %1, %0
// EXEC: @two_relations: 8 trials (seed 0), compiled code matches the source bit for bit

func.func @keep_below(%x: !pto.tile<16x64xf32>, %v: !pto.tile<16x1xf32>, %y: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  %e = "pto.trowexpand"(%v) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  %d = "pto.tsub"(%x, %e) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  %p = "pto.tcmp"(%d, %y) {pto.cmode = "lt"} : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xi1>
  %r = "pto.tsel"(%p, %d, %y) : (!pto.tile<16x64xi1>, !pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// CHECK-LABEL: func.func @keep_below
// CHECK-NEXT:    %0 = "pto.trowexpandsub"(%arg0, %arg1)
// CHECK-NEXT:    %1 = "pto.tcmp"(%0, %arg2) {pto.cmode = "lt"}
// CHECK-NEXT:    %2 = "pto.tsel"(%1, %0, %arg2)
// CHECK-NEXT:    return %2
// EXEC: @keep_below: 8 trials (seed 0), compiled code matches the source bit for bit

func.func @relations(%x: !pto.tile<8x32xsi16>, %y: !pto.tile<8x32xsi16>) -> (!pto.tile<8x32xi1>, !pto.tile<8x32xi1>, !pto.tile<8x32xi1>) {
  %lt = "pto.tcmp"(%x, %y) {pto.cmode = "lt"} : (!pto.tile<8x32xsi16>, !pto.tile<8x32xsi16>) -> !pto.tile<8x32xi1>
  %ge = "pto.tcmp"(%x, %y) {pto.cmode = "ge"} : (!pto.tile<8x32xsi16>, !pto.tile<8x32xsi16>) -> !pto.tile<8x32xi1>
  %gt = "pto.tcmp"(%y, %x) {pto.cmode = "gt"} : (!pto.tile<8x32xsi16>, !pto.tile<8x32xsi16>) -> !pto.tile<8x32xi1>
  return %lt, %ge, %gt : !pto.tile<8x32xi1>, !pto.tile<8x32xi1>, !pto.tile<8x32xi1>
}

// CHECK-LABEL: func.func @relations
// CHECK-NEXT:    %0 = "pto.tcmp"(%arg0, %arg1) {pto.cmode = "lt"}
// CHECK-NEXT:    %1 = "pto.tcmp"(%arg0, %arg1) {pto.cmode = "ge"}
// CHECK-NEXT:    return %0, %1, %0
// EXEC: @relations: 8 trials (seed 0), compiled code matches the source bit for bit
