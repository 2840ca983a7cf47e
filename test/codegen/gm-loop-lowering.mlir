// A GM kernel's loop as it lowers (docs/isa.md §12.8, §13, §14): the guard block skips the body
// when iv >= n (a zero-trip loop runs zero times), the TLOAD/TSTORE take base + 32*iv (one 8-column
// FP32 row is 32 bytes) and the 32-byte row stride through B.IOR, TMULS reads its FP32 scalar from
// a2 (the third argument's GPR), and the back edge adds the constant step as ADDI's immediate and
// re-enters the body while iv < n. Offsets, by hand:
// the guard starts at byte 16, the body at 32, the back edge at 128, the code ends at 144.
// x = arange(32)/2 - 3 as 4x8, so 2*x[r, c] = 8r + c - 6.
// RUN: ptoc %s | FileCheck %s
// RUN: ptoc run %s --arg x=%S/../runtime/Inputs/f32_4x8_x.npy --arg a=2 --arg n=3 | FileCheck %s --check-prefix=OUT
// RUN: ptoc run %s --arg x=%S/../runtime/Inputs/f32_4x8_x.npy --arg a=2 --arg n=0 | FileCheck %s --check-prefix=ZERO
// RUN: ptoc verify %s --trials 3 --arg n=4 | FileCheck %s --check-prefix=VERIFY
// RUN: not ptoc verify %s --arg m=4 2>&1 | FileCheck %s --check-prefix=NONAME

// CHECK:      .memref x, a0, FP32, 4x8, pos=0
// CHECK-NEXT: .memref y, a1, FP32, 4x8, pos=1, stored
// CHECK-NEXT: .scalar a, a2, FP32, pos=2
// CHECK-NEXT: .scalar n, a3, index, pos=3
// CHECK:      BSTART.STD COND, .+128
// CHECK-NEXT: addi [[C0:a[0-9]]], 0, ->[[IV:a[0-9]]]
// CHECK-NEXT: setc.ge [[IV]], a3
// CHECK:      add a0, [[IV]]<<5, ->[[ADDR:x[0-9]]]
// CHECK:      BSTART.TLOAD FP32
// CHECK-NEXT: B.DIM LB0=8
// CHECK-NEXT: B.IOT mask=1111, last, ->T<1>
// CHECK-NEXT: B.IOR [[ADDR]], [[STRIDE:x[0-9]]], zero, ->zero
// CHECK:      BSTART.VEC TMULS, FP32
// CHECK-NEXT: B.DIM LB0=8
// CHECK-NEXT: B.IOT T#1, mask=1111, last, ->T<1>
// CHECK-NEXT: B.IOR a2, zero, zero, ->zero
// CHECK:      add a1, [[IV]]<<5, ->[[ADDR2:x[0-9]]]
// CHECK:      BSTART.TSTORE FP32
// CHECK-NEXT: B.IOT T#1, mask=1111, last
// CHECK-NEXT: B.IOR [[ADDR2]], {{x[0-9]}}, zero, ->zero
// CHECK:      BSTART.STD COND, .-96
// CHECK-NEXT: addi [[IV]], 1, ->[[IV]]
// CHECK-NEXT: setc.lt [[IV]], a3
// CHECK-NEXT: BSTOP
// CHECK-NOT:  BSTART

// OUT:      kernel scale_rows: ok, flags 0x00
// OUT-NEXT: y = memref FP32 4x8
// OUT-NEXT:   [-6, -5, -4, -3, -2, -1, 0, 1]
// OUT-NEXT:   [2, 3, 4, 5, 6, 7, 8, 9]
// OUT-NEXT:   [10, 11, 12, 13, 14, 15, 16, 17]
// OUT-NEXT:   [0, 0, 0, 0, 0, 0, 0, 0]

// ZERO:      y = memref FP32 4x8
// ZERO-COUNT-4: [0, 0, 0, 0, 0, 0, 0, 0]

// VERIFY: @scale_rows: 3 trials (seed 0), compiled code matches the source bit for bit
// NONAME: error: --arg m=4: no GM kernel has an index argument 'm' (index arguments: n)

func.func @scale_rows(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %a: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %t = "pto.tload"(%x, %i, %c0) : (memref<4x8xf32>, index, index) -> !pto.tile<1x8xf32>
    %s = "pto.tmuls"(%t, %a) : (!pto.tile<1x8xf32>, f32) -> !pto.tile<1x8xf32>
    "pto.tstore"(%s, %y, %i, %c0) : (!pto.tile<1x8xf32>, memref<4x8xf32>, index, index) -> ()
  }
  return
}
