// A kernel whose elementwise sources only derive the same rows after the allocator grows a fresh
// argument (see sizes.mlir @grow): the interpreter accepts the compiled words (no
// Fault_TileLegality from TileShapeAndTypeMatch) and they agree with the source.
// RUN: ptoc verify %s --trials 4 | FileCheck %s
// RUN: ptoc verify %s --trials 4 -O0 | FileCheck %s
// CHECK: 4 trials (seed 0), compiled code matches the source bit for bit

func.func @grow(%x: !pto.tile<5x4xf16>, %y: !pto.tile<5x4xf32>) -> (!pto.tile<5x4xf32>, !pto.tile<1x4xf16>) {
  %m = "pto.trowmax"(%x) : (!pto.tile<5x4xf16>) -> !pto.tile<5x1xf16>
  %e = "pto.trowexpandexpdif"(%x, %m) : (!pto.tile<5x4xf16>, !pto.tile<5x1xf16>) -> !pto.tile<5x4xf32>
  %z = "pto.texp"(%y) : (!pto.tile<5x4xf32>) -> !pto.tile<5x4xf32>
  %r = "pto.tadd"(%e, %z) : (!pto.tile<5x4xf32>, !pto.tile<5x4xf32>) -> !pto.tile<5x4xf32>
  %c = "pto.tcolmin"(%x) : (!pto.tile<5x4xf16>) -> !pto.tile<1x4xf16>
  return %r, %c : !pto.tile<5x4xf32>, !pto.tile<1x4xf16>
}
