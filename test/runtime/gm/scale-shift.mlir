// Tile-scalar ops in a GM loop (docs/isa.md §14): y = max(x * a + b, lo) - fill(c), with f32
// scalar arguments a, b, lo, c; TEXPANDS fills a tile with c. Checked against numpy in
// ptoc/src/verify.rs (Inputs/gm/gen.py).
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// VERIFY: @scale_shift: 3 trials (seed 0), compiled code matches the source bit for bit
// RUN: ptoc %s --emit=mlir --pass-pipeline=pto-verify,pto-infer-shapes,pto-fuse | FileCheck %s
// CHECK: "pto.tload"
// CHECK-NEXT: "pto.tmuls"(%{{.*}}, %arg2) : (!pto.tile<16x32xf32>, f32) -> !pto.tile<16x32xf32>
// CHECK-NEXT: "pto.tadds"({{.*}}) : (!pto.tile<16x32xf32>, f32) -> !pto.tile<16x32xf32>
// CHECK-NEXT: "pto.tmaxs"
// CHECK-NEXT: "pto.texpands"(%arg5) : (f32) -> !pto.tile<16x32xf32>
// CHECK-NEXT: "pto.tsub"
func.func @scale_shift(%x: memref<64x32xf32>, %y: memref<64x32xf32>, %a: f32, %b: f32, %lo: f32, %c: f32) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c16 {
    %t = "pto.tload"(%x, %i, %c0) : (memref<64x32xf32>, index, index) -> !pto.tile<16x32xf32>
    %m = "pto.tmuls"(%t, %a) : (!pto.tile<16x32xf32>, f32) -> !pto.tile<16x32xf32>
    %s = "pto.tadds"(%m, %b) : (!pto.tile<16x32xf32>, f32) -> !pto.tile<?x?xf32>
    %r = "pto.tmaxs"(%s, %lo) : (!pto.tile<?x?xf32>, f32) -> !pto.tile<16x32xf32>
    %f = "pto.texpands"(%c) : (f32) -> !pto.tile<16x32xf32>
    %d = "pto.tsub"(%r, %f) : (!pto.tile<16x32xf32>, !pto.tile<16x32xf32>) -> !pto.tile<16x32xf32>
    "pto.tstore"(%d, %y, %i, %c0) : (!pto.tile<16x32xf32>, memref<64x32xf32>, index, index) -> ()
  }
  return
}
