// A straight-line function has no scalar values to bind through B.IOR, so the tile-scalar ops
// (docs/isa.md §14) are refused at the op when it is lowered; they belong in GM kernels.
// RUN: not ptoc %s --split-input-file -o %t.bin 2>&1 | FileCheck %s
// RUN: not test -e %t.bin

// CHECK: tile-scalar-errors.mlir:[[@LINE+2]]:8: error: pto.tmuls needs a scalar; use it inside a GM kernel
func.func @tmuls(%x: !pto.tile<4x8xf32>) -> !pto.tile<4x8xf32> {
  %r = "pto.tmuls"(%x) : (!pto.tile<4x8xf32>) -> !pto.tile<4x8xf32>
  return %r : !pto.tile<4x8xf32>
}

// -----

// CHECK: tile-scalar-errors.mlir:[[@LINE+2]]:8: error: pto.texpands needs a scalar; use it inside a GM kernel
func.func @texpands() -> !pto.tile<2x16xsi8> {
  %r = "pto.texpands"() : () -> !pto.tile<2x16xsi8>
  return %r : !pto.tile<2x16xsi8>
}
