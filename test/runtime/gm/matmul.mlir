// A 16x64 by 64x32 f32 product in two K halves: A loaded into cube_m16 and B into cube_n8
// (TLOAD's ND2M16/ND2N8 transports), TMATMUL on the first half, TMATMUL_ACC adding the second,
// and D stored back through M162ND (docs/isa.md §18). Verified against the reference evaluator
// under the declared accumulation (docs/isa.md §9 decision 51); python/tests/test_matmul.py
// checks the same kernel against numpy.
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// VERIFY: @matmul_16x64x32: 3 trials (seed 0), compiled code matches the source bit for bit
// RUN: ptoc %s --emit=words | FileCheck %s
// CHECK:      BSTART.TLOAD FP32
// CHECK-NEXT: B.DATR {ND2M16,
// CHECK:      BSTART.TLOAD FP32
// CHECK-NEXT: B.DATR {ND2N8,
// A CUBE block: the start names function 0 (TMATMUL) and FP32 in its high bits, and B.FPATR
// with no post-processing comes exactly once.
// CHECK:      0x08031181  BSTART.TMATMUL FP32
// CHECK-NEXT: 0x00002023  B.FPATR 0, 0, 0, 0, 0, 0, 0, 0, 0
// CHECK-NEXT: B.DIM LB0=16
// CHECK-NEXT: B.DIM LB1=32
// CHECK-NEXT: B.DIM LB2=32
// CHECK-NOT:  B.FPATR
// CHECK:      0x08231181  BSTART.TMATMUL.ACC FP32
// CHECK-NEXT: 0x00002023  B.FPATR
// CHECK:      BSTART.TSTORE FP32
// CHECK-NEXT: B.DATR {M162ND,
func.func @matmul_16x64x32(%a: memref<16x64xf32>, %b: memref<64x32xf32>, %c: memref<16x32xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %a0 = "pto.tload"(%a, %c0, %c0) : (memref<16x64xf32>, index, index) -> !pto.tile<16x32xf32, layout=cube_m16>
  %b0 = "pto.tload"(%b, %c0, %c0) : (memref<64x32xf32>, index, index) -> !pto.tile<32x32xf32, layout=cube_n8>
  %d0 = "pto.tmatmul"(%a0, %b0) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
  %a1 = "pto.tload"(%a, %c0, %c32) : (memref<16x64xf32>, index, index) -> !pto.tile<16x32xf32, layout=cube_m16>
  %b1 = "pto.tload"(%b, %c32, %c0) : (memref<64x32xf32>, index, index) -> !pto.tile<32x32xf32, layout=cube_n8>
  %d1 = "pto.tmatmul_acc"(%d0, %a1, %b1) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
  "pto.tstore"(%d1, %c, %c0, %c0) : (!pto.tile<16x32xf32, layout=cube_m16>, memref<16x32xf32>, index, index) -> ()
  return
}
