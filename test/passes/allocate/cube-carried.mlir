// Loop-carried CUBE tiles under queue naming: a CUBE tile has no TMOV (docs/isa.md §18.2), so
// pto-allocate pushes the matrices a loop carries onto hand T in carried order and pushes
// nothing else there between them and the loop boundary; the loop's loads share the hand before
// them. No TMOV appears, and every kernel runs bit for bit against the reference evaluator.
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// VERIFY: @k_loop: 3 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @two_accumulators: 3 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @accumulator_just_computed: 3 trials (seed 0), compiled code matches the source bit for bit
// RUN: ptoc %s --emit=asm | FileCheck %s
// CHECK-NOT: TMOV
// CHECK-LABEL: .kernel k_loop
// The body: A and B onto T, then the accumulator, read three pushes back, onto T again.
// CHECK:      BSTART.TMATMUL.ACC FP32
// CHECK:      B.IOT T#3, T#2, mask=1111
// CHECK-NEXT: B.IOT T#1, mask=1111, last, ->T<5>
// CHECK-LABEL: .kernel accumulator_just_computed
// C is T#1, so the result may not go to T (C's code equals DstTile 0).
// CHECK:      BSTART.TMATMUL.ACC FP32
// CHECK:      B.IOT T#1, {{[TUMN]}}#{{[0-9]+}}, mask=1111
// CHECK-NEXT: B.IOT {{.*}}, last, ->{{[UMN]}}<5>
func.func @k_loop(%a: memref<16x128xf32>, %b: memref<128x32xf32>, %c: memref<16x32xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %a0 = "pto.tload"(%a, %c0, %c0) : (memref<16x128xf32>, index, index) -> !pto.tile<16x32xf32, layout=cube_m16>
  %b0 = "pto.tload"(%b, %c0, %c0) : (memref<128x32xf32>, index, index) -> !pto.tile<32x32xf32, layout=cube_n8>
  %d0 = "pto.tmatmul"(%a0, %b0) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
  %d = scf.for %k = %c32 to %c128 step %c32 iter_args(%acc = %d0) -> (!pto.tile<16x32xf32, layout=cube_m16>) {
    %ak = "pto.tload"(%a, %c0, %k) : (memref<16x128xf32>, index, index) -> !pto.tile<16x32xf32, layout=cube_m16>
    %bk = "pto.tload"(%b, %k, %c0) : (memref<128x32xf32>, index, index) -> !pto.tile<32x32xf32, layout=cube_n8>
    %dk = "pto.tmatmul_acc"(%acc, %ak, %bk) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
    scf.yield %dk : !pto.tile<16x32xf32, layout=cube_m16>
  }
  "pto.tstore"(%d, %c, %c0, %c0) : (!pto.tile<16x32xf32, layout=cube_m16>, memref<16x32xf32>, index, index) -> ()
  return
}

// Two column blocks of D carried through one k loop.
func.func @two_accumulators(%a: memref<16x64xf32>, %b: memref<64x64xf32>, %c: memref<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %a0 = "pto.tload"(%a, %c0, %c0) : (memref<16x64xf32>, index, index) -> !pto.tile<16x32xf32, layout=cube_m16>
  %b0 = "pto.tload"(%b, %c0, %c0) : (memref<64x64xf32>, index, index) -> !pto.tile<32x32xf32, layout=cube_n8>
  %b1 = "pto.tload"(%b, %c0, %c32) : (memref<64x64xf32>, index, index) -> !pto.tile<32x32xf32, layout=cube_n8>
  %d0 = "pto.tmatmul"(%a0, %b0) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
  %e0 = "pto.tmatmul"(%a0, %b1) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
  %r:2 = scf.for %k = %c32 to %c64 step %c32 iter_args(%x = %d0, %y = %e0) -> (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<16x32xf32, layout=cube_m16>) {
    %ak = "pto.tload"(%a, %c0, %k) : (memref<16x64xf32>, index, index) -> !pto.tile<16x32xf32, layout=cube_m16>
    %bk0 = "pto.tload"(%b, %k, %c0) : (memref<64x64xf32>, index, index) -> !pto.tile<32x32xf32, layout=cube_n8>
    %bk1 = "pto.tload"(%b, %k, %c32) : (memref<64x64xf32>, index, index) -> !pto.tile<32x32xf32, layout=cube_n8>
    %xk = "pto.tmatmul_acc"(%x, %ak, %bk0) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
    %yk = "pto.tmatmul_acc"(%y, %ak, %bk1) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
    scf.yield %xk, %yk : !pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<16x32xf32, layout=cube_m16>
  }
  "pto.tstore"(%r#0, %c, %c0, %c0) : (!pto.tile<16x32xf32, layout=cube_m16>, memref<16x64xf32>, index, index) -> ()
  "pto.tstore"(%r#1, %c, %c0, %c32) : (!pto.tile<16x32xf32, layout=cube_m16>, memref<16x64xf32>, index, index) -> ()
  return
}

// C is pushed right before the op that accumulates onto it.
func.func @accumulator_just_computed(%a: memref<16x32xf32>, %b: memref<32x32xf32>, %c: memref<16x32xf32>) {
  %c0 = arith.constant 0 : index
  %a0 = "pto.tload"(%a, %c0, %c0) : (memref<16x32xf32>, index, index) -> !pto.tile<16x32xf32, layout=cube_m16>
  %b0 = "pto.tload"(%b, %c0, %c0) : (memref<32x32xf32>, index, index) -> !pto.tile<32x32xf32, layout=cube_n8>
  %d0 = "pto.tmatmul"(%a0, %b0) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
  %d1 = "pto.tmatmul_acc"(%d0, %a0, %b0) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
  "pto.tstore"(%d1, %c, %c0, %c0) : (!pto.tile<16x32xf32, layout=cube_m16>, memref<16x32xf32>, index, index) -> ()
  return
}
