// Row max of a 64x64 f32 memref over 16x16 column tiles: an inner loop carries the partial
// maxes (TROWMAX of each tile, TMAX into the running 16x1 tile). Checked against numpy in
// ptoc/src/verify.rs (Inputs/gm/gen.py).
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// VERIFY: @row_max: 3 trials (seed 0), compiled code matches the source bit for bit
// RUN: ptoc %s --emit=mlir --pass-pipeline=pto-verify,pto-infer-shapes,pto-fuse | FileCheck %s
// CHECK: scf.for
// CHECK: scf.for {{.*}} iter_args
// CHECK: "pto.tmax"
// A constant bound and step are immediates of the loop test and latch (SETC.GEI/LTI, ADDI), so
// they hold no register through the loop.
// RUN: ptoc %s --emit=asm | FileCheck %s --check-prefix=IMM
// IMM:      BSTART.STD COND
// IMM:      setc.gei [[OUTER:a[0-9]+]], 64
// IMM:      setc.gei [[INNER:a[0-9]+]], 64
// IMM:      addi [[INNER]], 16, ->[[INNER]]
// IMM-NEXT: setc.lti [[INNER]], 64
// IMM:      addi [[OUTER]], 16, ->[[OUTER]]
// IMM-NEXT: setc.lti [[OUTER]], 64
func.func @row_max(%x: memref<64x64xf32>, %out: memref<64x1xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c16 {
    %t0 = "pto.tload"(%x, %i, %c0) : (memref<64x64xf32>, index, index) -> !pto.tile<16x16xf32>
    %m0 = "pto.trowmax"(%t0) : (!pto.tile<16x16xf32>) -> !pto.tile<16x1xf32>
    %acc = scf.for %j = %c16 to %c64 step %c16 iter_args(%a = %m0) -> (!pto.tile<16x1xf32>) {
      %t = "pto.tload"(%x, %i, %j) : (memref<64x64xf32>, index, index) -> !pto.tile<16x16xf32>
      %mj = "pto.trowmax"(%t) : (!pto.tile<16x16xf32>) -> !pto.tile<16x1xf32>
      %b = "pto.tmax"(%a, %mj) : (!pto.tile<16x1xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x1xf32>
      scf.yield %b : !pto.tile<16x1xf32>
    }
    "pto.tstore"(%acc, %out, %i, %c0) : (!pto.tile<16x1xf32>, memref<64x1xf32>, index, index) -> ()
  }
  return
}
