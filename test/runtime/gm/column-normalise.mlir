// Column normalisation of a 64x16 f32 memref: a first loop carries the running column max
// (TCOLMAX of each 16x16 tile, TMAX into a 1x16 tile), a second divides every tile by it with a
// numpy-style column broadcast (made explicit by inference, fused into TCOLEXPANDDIV). Checked
// against numpy in ptoc/src/verify.rs (Inputs/gm/gen.py).
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// VERIFY: @column_normalise: 3 trials (seed 0), compiled code matches the source bit for bit
// RUN: ptoc %s --emit=mlir --pass-pipeline=pto-verify,pto-infer-shapes,pto-fuse | FileCheck %s
// CHECK: iter_args
// CHECK: "pto.tcolexpanddiv"
func.func @column_normalise(%x: memref<64x16xf32>, %y: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %t0 = "pto.tload"(%x, %c0, %c0) : (memref<64x16xf32>, index, index) -> !pto.tile<16x16xf32>
  %m0 = "pto.tcolmax"(%t0) : (!pto.tile<16x16xf32>) -> !pto.tile<1x16xf32>
  %m = scf.for %i = %c16 to %c64 step %c16 iter_args(%a = %m0) -> (!pto.tile<1x16xf32>) {
    %t = "pto.tload"(%x, %i, %c0) : (memref<64x16xf32>, index, index) -> !pto.tile<16x16xf32>
    %mi = "pto.tcolmax"(%t) : (!pto.tile<16x16xf32>) -> !pto.tile<1x16xf32>
    %b = "pto.tmax"(%a, %mi) : (!pto.tile<1x16xf32>, !pto.tile<1x16xf32>) -> !pto.tile<1x16xf32>
    scf.yield %b : !pto.tile<1x16xf32>
  }
  scf.for %i = %c0 to %c64 step %c16 {
    %t = "pto.tload"(%x, %i, %c0) : (memref<64x16xf32>, index, index) -> !pto.tile<16x16xf32>
    %r = "pto.tdiv"(%t, %m) : (!pto.tile<16x16xf32>, !pto.tile<1x16xf32>) -> !pto.tile<?x?xf32>
    "pto.tstore"(%r, %y, %i, %c0) : (!pto.tile<?x?xf32>, memref<64x16xf32>, index, index) -> ()
  }
  return
}
