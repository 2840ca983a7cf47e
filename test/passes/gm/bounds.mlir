// pto-verify proves each tload/tstore rectangle (offset + the tile's valid shape) lies inside its
// memref, over constants and induction variables of loops with constant bounds; a rectangle that
// certainly leaves it is an error naming the memref, its shape and the offending range.
// RUN: ptoc %s --split-input-file --verify-diagnostics --emit=mlir --pass-pipeline=pto-verify

func.func @constant_row(%x: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c56 = arith.constant 56 : index
  // expected-error@+1 {{'pto.tload' reads rows 56..=71 of %x (memref<64x64xf32>, rows 0..=63): the row offset is 56 and the tile has 16 valid rows}}
  %t = "pto.tload"(%x, %c56, %c0) : (memref<64x64xf32>, index, index) -> !pto.tile<16x16xf32>
  return
}

// -----

func.func @negative_column(%x: memref<64x64xf32>, %t: !pto.tile<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %m = arith.constant -8 : index
  // expected-error@+1 {{'pto.tstore' writes columns -8..=7 of %x (memref<64x64xf32>, columns 0..=63): the column offset is -8 and the tile has 16 valid columns}}
  "pto.tstore"(%t, %x, %c0, %m) : (!pto.tile<16x16xf32>, memref<64x64xf32>, index, index) -> ()
  return
}

// -----

func.func @loop_bound(%x: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c16 {
    %r = arith.addi %i, %c8 : index
    // expected-error@+1 {{'pto.tload' reads rows 8..=71 of %x (memref<64x64xf32>, rows 0..=63): the row offset ranges over 8..=56 and the tile has 16 valid rows}}
    %t = "pto.tload"(%x, %r, %c0) : (memref<64x64xf32>, index, index) -> !pto.tile<16x16xf32>
  }
  return
}

// -----

// An affine map of two induction variables: i * 16 + j * 4, and a partial valid shape.
func.func @affine(%x: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %a = arith.muli %i, %c16 : index
      %b = arith.muli %j, %c4 : index
      %col = arith.addi %a, %b : index
      // expected-error@+1 {{'pto.tload' reads columns 0..=71 of %x (memref<64x64xf32>, columns 0..=63): the column offset ranges over 0..=60 and the tile has 12 valid columns}}
      %t = "pto.tload"(%x, %c0, %col) : (memref<64x64xf32>, index, index) -> !pto.tile<16x16xf32, valid=16x12>
    }
  }
  return
}

// -----

// Offsets the analysis cannot bound are allowed (the interpreter faults precisely at run time);
// so are accesses in a loop that never runs, and exact fits.
// expected-no-diagnostics
func.func @allowed(%x: memref<64x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %t = "pto.tload"(%x, %n, %c0) : (memref<64x64xf32>, index, index) -> !pto.tile<16x16xf32>
  scf.for %i = %c64 to %c0 step %c16 {
    %u = "pto.tload"(%x, %c100, %c100) : (memref<64x64xf32>, index, index) -> !pto.tile<16x16xf32>
  }
  scf.for %i = %c0 to %n step %c16 {
    %v = "pto.tload"(%x, %i, %c48) : (memref<64x64xf32>, index, index) -> !pto.tile<16x16xf32>
  }
  scf.for %i = %c0 to %c64 step %c16 {
    %w = "pto.tload"(%x, %i, %c48) : (memref<64x64xf32>, index, index) -> !pto.tile<16x16xf32>
  }
  return
}

// -----

// i * (2^63 - 1) for i = -2^63, -1, 2^63 - 2 leaves the 64-bit range, where index arithmetic
// wraps: the exact product is not the offset the kernel computes, so the analysis cannot bound
// it and says nothing (the interpreter faults at run time on the element that leaves x).
func.func @wrapping_offset(%x: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %big = arith.constant 9223372036854775807 : index
  %min = arith.constant -9223372036854775808 : index
  scf.for %i = %min to %big step %big {
    %o = arith.muli %i, %big : index
    %t = "pto.tload"(%x, %o, %c0) : (memref<8x8xf32>, index, index) -> !pto.tile<1x8xf32>
  }
  return
}
