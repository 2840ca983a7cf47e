// A memref argument marked {pto.workspace} is the kernel's own scratch memory: the loader maps
// it zero-filled after the arguments, callers neither pass it nor get it back
// (codegen/METADATA.md). Here a row is doubled into the workspace, which starts as zeros, and
// read back and added to the workspace's untouched second row (still zero) into the output.
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// VERIFY: @through_workspace: 3 trials (seed 0), compiled code matches the source bit for bit
// RUN: ptoc %s --emit=asm | FileCheck %s --check-prefix=ASM
// ASM: .memref {{x|arg0}}, a0, FP32, 1x16, pos=0
// ASM: .memref {{out|arg1}}, a1, FP32, 1x16, pos=1, stored
// ASM: .memref {{w|arg2}}, a2, FP32, 2x16, pos=2, stored, workspace
// RUN: ptoc %s -o %t.bin
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: ptoc run %t.bin --arg x=%S/../Inputs/f32_1x16_steps.npy | FileCheck %s --check-prefix=OUT
// RUN: ptoc run %t.bin --arg x=%S/../Inputs/f32_1x16_steps.npy --out-dir %t.dir
// RUN: ls %t.dir | FileCheck %s --check-prefix=FILES
// RUN: not ptoc run %t.bin --arg w=%S/../Inputs/f32_1x16_steps.npy 2>&1 | FileCheck %s --check-prefix=NOTARG
// RUN: ptoc %s --emit=mlir | FileCheck %s --check-prefix=MLIR
// RUN: ptoc %s --emit=mlir | ptoc - --emit=asm | FileCheck %s --check-prefix=ASM
// OUT: out = memref FP32 1x16
// OUT-NEXT: [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// OUT-NOT: w =
// FILES: out.npy
// FILES-NOT: w.npy
// NOTARG: error: kernel 'through_workspace' has no argument 'w'; its arguments: 'x' (FP32 memref 1x16 in a0), 'out' (FP32 memref 1x16 in a1)
// MLIR: %arg2: memref<2x16xf32> {pto.workspace}
func.func @through_workspace(%x: memref<1x16xf32>, %out: memref<1x16xf32>, %w: memref<2x16xf32> {pto.workspace}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = "pto.tload"(%x, %c0, %c0) : (memref<1x16xf32>, index, index) -> !pto.tile<1x16xf32>
  %d = "pto.tadd"(%t, %t) : (!pto.tile<1x16xf32>, !pto.tile<1x16xf32>) -> !pto.tile<1x16xf32>
  "pto.tstore"(%d, %w, %c0, %c0) : (!pto.tile<1x16xf32>, memref<2x16xf32>, index, index) -> ()
  %back = "pto.tload"(%w, %c0, %c0) : (memref<2x16xf32>, index, index) -> !pto.tile<1x16xf32>
  %zero = "pto.tload"(%w, %c1, %c0) : (memref<2x16xf32>, index, index) -> !pto.tile<1x16xf32>
  %s = "pto.tadd"(%back, %zero) : (!pto.tile<1x16xf32>, !pto.tile<1x16xf32>) -> !pto.tile<1x16xf32>
  "pto.tstore"(%s, %out, %c0, %c0) : (!pto.tile<1x16xf32>, memref<1x16xf32>, index, index) -> ()
  return
}
