// GM row softmax on 64x64 f32, 16 rows per iteration; numpy-style broadcasts inside the loop
// (inference makes them explicit, fusion folds them into TROWEXPAND*). The reference evaluator's
// result is checked against numpy in ptoc/src/verify.rs (Inputs/gm/gen.py); the compiled kernel
// against the reference evaluator by `ptoc verify`, and against numpy in python/tests.
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// VERIFY: @softmax_rows: 3 trials (seed 0), compiled code matches the source bit for bit
// RUN: ptoc %s --emit=mlir --pass-pipeline=pto-verify,pto-infer-shapes,pto-fuse | FileCheck %s
// CHECK: "pto.trowexpandexpdif"
// CHECK: "pto.trowexpanddiv"
func.func @softmax_rows(%x: memref<64x64xf32>, %y: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c16 {
    %t = "pto.tload"(%x, %i, %c0) : (memref<64x64xf32>, index, index) -> !pto.tile<16x64xf32>
    %m = "pto.trowmax"(%t) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
    %d = "pto.tsub"(%t, %m) : (!pto.tile<16x64xf32>, !pto.tile<16x1xf32>) -> !pto.tile<?x?xf32>
    %e = "pto.texp"(%d) : (!pto.tile<?x?xf32>) -> !pto.tile<?x?xf32>
    %s = "pto.trowsum"(%e) : (!pto.tile<?x?xf32>) -> !pto.tile<?x?xf32>
    %r = "pto.tdiv"(%e, %s) : (!pto.tile<?x?xf32>, !pto.tile<?x?xf32>) -> !pto.tile<?x?xf32>
    "pto.tstore"(%r, %y, %i, %c0) : (!pto.tile<?x?xf32>, memref<64x64xf32>, index, index) -> ()
  }
  return
}
