// An affine map over 256 iterations, one 1x64 row per iteration, reading x at row i and w at
// row 255 - i: y[i] = x[i] * w[255 - i] + x[i]. The bounds analysis proves every rectangle
// inside its memref (offset 255 - i ranges over 0..=255). Checked against numpy in
// ptoc/src/verify.rs (Inputs/gm/gen.py).
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// VERIFY: @affine_256: 3 trials (seed 0), compiled code matches the source bit for bit
// RUN: ptoc %s --emit=mlir --pass-pipeline=pto-verify,pto-infer-shapes,pto-fuse | FileCheck %s
// CHECK: arith.subi
// CHECK: "pto.tmul"
func.func @affine_256(%x: memref<256x64xf32>, %w: memref<256x64xf32>, %y: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c255 = arith.constant 255 : index
  %c256 = arith.constant 256 : index
  scf.for %i = %c0 to %c256 step %c1 {
    %j = arith.subi %c255, %i : index
    %a = "pto.tload"(%x, %i, %c0) : (memref<256x64xf32>, index, index) -> !pto.tile<1x64xf32>
    %b = "pto.tload"(%w, %j, %c0) : (memref<256x64xf32>, index, index) -> !pto.tile<1x64xf32>
    %p = "pto.tmul"(%a, %b) : (!pto.tile<1x64xf32>, !pto.tile<1x64xf32>) -> !pto.tile<1x64xf32>
    %r = "pto.tadd"(%p, %a) : (!pto.tile<1x64xf32>, !pto.tile<1x64xf32>) -> !pto.tile<1x64xf32>
    "pto.tstore"(%r, %y, %i, %c0) : (!pto.tile<1x64xf32>, memref<256x64xf32>, index, index) -> ()
  }
  return
}
