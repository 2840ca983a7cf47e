// A blocked transpose over global memory (docs/isa.md §19): y = x^T for a 64x32 FP32 x, one
// 8x16 tile per step of a nested loop, loaded from x at (i, j), transposed to 16x8 and stored
// to y at (j, i). ptoc run's output is checked bit for bit against x transposed by a script
// that knows nothing of ptoc (Inputs/ttrans_npy.py: a NaN payload, -0 and a signalling NaN
// included), and ptoc verify compares the compiled kernel with the reference evaluator.
// RUN: python3 %S/../Inputs/ttrans_npy.py make %t.x.npy 64 32
// RUN: ptoc run %s --arg x=%t.x.npy --out-dir %t.out | FileCheck %s
// RUN: python3 %S/../Inputs/ttrans_npy.py check %t.x.npy %t.out/y.npy | FileCheck %s --check-prefix=BITS
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// CHECK: kernel transpose_blocked: ok, flags 0x00
// BITS: transpose of 64x32: bit for bit
// VERIFY: @transpose_blocked: {{[0-9]+}} trials (seed 0), compiled code matches the source bit for bit
func.func @transpose_blocked(%x: memref<64x32xf32>, %y: memref<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c8 {
    scf.for %j = %c0 to %c32 step %c16 {
      %a = "pto.tload"(%x, %i, %j) : (memref<64x32xf32>, index, index) -> !pto.tile<8x16xf32>
      %t = "pto.ttrans"(%a) : (!pto.tile<8x16xf32>) -> !pto.tile<16x8xf32>
      "pto.tstore"(%t, %y, %j, %i) : (!pto.tile<16x8xf32>, memref<32x64xf32>, index, index) -> ()
    }
  }
  return
}
