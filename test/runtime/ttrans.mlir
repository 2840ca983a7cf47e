// pto.ttrans end to end (docs/isa.md §19): ptoc run on hand-checked values and ptoc verify
// against the reference evaluator.
//   - U16 [[1,2,3],[4,5,6]] (physical 2x4) transposes to [[1,4],[2,5],[3,6]]: valid 3x2 in 2
//     columns, 128 B (SizeCode 1), which derives 128*8/(2*16) = 32 rows; the padding is null.
//   - FP32 16x64 -> 64x16 keeps every bit: a quiet NaN with a payload, -0 and a signalling NaN
//     move to their swapped coordinates, and no flag is raised (0x00).
// RUN: ptoc %s --target-profile=absolute -o %t.bin
// RUN: python3 %S/Inputs/ttrans_npy.py make %t.y.npy 16 64
// RUN: ptoc run %t.bin --arg x=%S/Inputs/u16_2x3_1to6.npy --arg y=%t.y.npy --out-dir %t.out | FileCheck %s
// RUN: python3 %S/Inputs/ttrans_npy.py check %t.y.npy %t.out/r1.npy | FileCheck %s --check-prefix=BITS
// RUN: ptoc run %t.bin --arg x=%S/Inputs/u16_2x3_1to6.npy --arg y=%t.y.npy --format json | FileCheck %s --check-prefix=JSON
// RUN: ptoc verify %s --trials 40 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc verify %s --trials 20 -O0 --target-profile=absolute | FileCheck %s --check-prefix=VERIFY

// CHECK:      kernel transpose: ok, flags 0x00{{$}}
// CHECK-NEXT: r0 = T#3 U16 32x2 (valid 3x2)
// CHECK-NEXT:   [1, 4]
// CHECK-NEXT:   [2, 5]
// CHECK-NEXT:   [3, 6]
// CHECK-NEXT: r1 = T#4 FP32 64x16 (valid 64x16)
// BITS: transpose of 16x64: bit for bit
// The U16 result's elements: rows [1,4] [2,5] [3,6], then 29 rows of undefined padding.
// JSON: "name":"r0","register":"T#3","dtype":"U16","rows":32,"cols":2,"valid_rows":3,"valid_cols":2,"size_code":1,"elements":["0x0001","0x0004","0x0002","0x0005","0x0003","0x0006",null,null,
// VERIFY: @transpose: {{[0-9]+}} trials (seed 0), compiled code matches the source bit for bit
// VERIFY-NOT: MISMATCH

func.func @transpose(%x: !pto.tile<2x4xui16, valid=2x3>, %y: !pto.tile<16x64xf32>) -> (!pto.tile<?x?xui16>, !pto.tile<64x16xf32>) {
  %t = "pto.ttrans"(%x) : (!pto.tile<2x4xui16, valid=2x3>) -> !pto.tile<?x?xui16>
  %u = "pto.ttrans"(%y) : (!pto.tile<16x64xf32>) -> !pto.tile<64x16xf32>
  return %t, %u : !pto.tile<?x?xui16>, !pto.tile<64x16xf32>
}
